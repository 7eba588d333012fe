"""Neighbour sampling and re-indexing benchmarks (part of ``python -m benchmarks geometric``).

Graph: n = 200,000 nodes, E = 4,000,000 edges in CSC form, in-degrees and edge
sources both Zipf-like (weight of the i-th node ~ i^-0.8, randomly permuted),
so a few hubs have tens of thousands of in-edges; 4,096 distinct seed nodes
drawn uniformly.

(a) ``sample_neighbors(row, colptr, seeds, sample_size=25)``, weft against
    Paddle's CPU kernel (Paddle aborts on a negative sample_size on CPU, so no
    "all neighbours" case);
(b) the GraphSAGE-style 2-hop pipeline, sizes (25, 10): sample the current
    nodes, ``reindex_graph`` them, continue from ``out_nodes`` -- the same code
    for both libraries.

weft runs at its default thread count and at 1 thread (its kernels only go
parallel above ~2.6e5 samples); Paddle's CPU sampling kernels are serial.
"""
from __future__ import annotations

import numpy as np

from ._harness import Report, optional_import, timeit

N_NODES, N_EDGES, N_SEEDS = 200_000, 4_000_000, 4_096
SIZES = (25, 10)
CASE_SAMPLE = "sample_neighbors k=25 (4096 seeds, E=4M)"
CASE_PIPE = "2-hop sample+reindex (25, 10)"


def power_law_csc(n=N_NODES, e=N_EDGES, seed=0):
    """(row, colptr, seeds) of a CSC graph with Zipf-like in-degrees and sources."""
    rng = np.random.default_rng(seed)
    w = np.arange(1, n + 1, dtype=np.float64) ** -0.8
    w /= w.sum()
    deg = rng.multinomial(e, rng.permutation(w))
    colptr = np.zeros(n + 1, np.int64)
    np.cumsum(deg, out=colptr[1:])
    cdf = np.cumsum(rng.permutation(w))
    row = np.minimum(np.searchsorted(cdf, rng.random(e) * cdf[-1]), n - 1).astype(np.int64)
    seeds = rng.choice(n, N_SEEDS, replace=False).astype(np.int64)
    return row, colptr, seeds


def _pipeline(lib, row, colptr, seeds):
    geo = lib.geometric

    def run():
        nodes = seeds
        for k in SIZES:
            nbrs, cnt = geo.sample_neighbors(row, colptr, nodes, sample_size=k)
            src, dst, nodes = geo.reindex_graph(nodes, nbrs, cnt)
        return nodes
    return run


def _sample(lib, row, colptr, seeds):
    return lambda: lib.geometric.sample_neighbors(row, colptr, seeds, sample_size=SIZES[0])


def run(rep=None, quick=False):
    import weft

    rep = rep if rep is not None else Report("geometric_sampling")
    repeat = 3 if quick else 11
    row, colptr, seeds = power_law_csc()
    w_args = [weft.to_tensor(a) for a in (row, colptr, seeds)]
    w_cnt = _sample(weft, *w_args)()[1].numpy()

    rep.add(CASE_SAMPLE, "weft", timeit(_sample(weft, *w_args), repeat))
    rep.add(CASE_PIPE, "weft", timeit(_pipeline(weft, *w_args), repeat))
    before = weft.get_num_threads()
    try:
        weft.set_num_threads(1)
        rep.add(CASE_SAMPLE, "weft 1t", timeit(_sample(weft, *w_args), repeat))
        rep.add(CASE_PIPE, "weft 1t", timeit(_pipeline(weft, *w_args), repeat))
    finally:
        weft.set_num_threads(before)

    paddle = optional_import("paddle")
    if paddle is not None:
        p_args = [paddle.to_tensor(a) for a in (row, colptr, seeds)]
        # same per-node counts (min(25, deg)): both do the same amount of work
        np.testing.assert_array_equal(_sample(paddle, *p_args)()[1].numpy(), w_cnt)
        rep.add(CASE_SAMPLE, "paddle", timeit(_sample(paddle, *p_args), repeat))
        rep.add(CASE_PIPE, "paddle", timeit(_pipeline(paddle, *p_args), repeat))
    else:
        rep.note("paddle not installed: no comparison for the sampling benchmarks")
    return rep


def summary(rep):
    lines = []
    for case, goal in ((CASE_SAMPLE, 1.0), (CASE_PIPE, 2.0)):
        r = rep.ratio(case, "paddle", "weft")
        if r is not None:
            lines.append(f"{case}: paddle / weft = {r:.2f}x (goal >= {goal:g}x: "
                         f"{'met' if r >= goal else 'NOT met'})")
    return lines


if __name__ == "__main__":
    report = run()
    report.print_table()
    for line in summary(report):
        print(line)
