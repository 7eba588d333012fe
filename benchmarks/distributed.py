"""Distributed sampling and SpMM on Dask (``python -m benchmarks distributed``).

On a ``LocalCluster`` of 1 and then 2 worker processes (1 thread each), against
the single-machine call in the client process (weft's default thread count):

(a) 2-hop ``khop_sampler`` (25, 10) of 4,096 seeds on the 200,000-node /
    4,000,000-edge power-law graph of ``benchmarks/geometric_sampling.py``,
    partitioned by hash into one part per worker: ``DistGraph.khop_sampler`` vs
    ``weft.geometric.khop_sampler`` (identical results, checked);
(b) row-partitioned SpMM ``A @ X``, A 200,000 x 200,000 with 2,000,000 uniformly
    placed entries, X 200,000 x 64 float32: ``DistCSR`` (halo and broadcast modes)
    vs ``weft.sparse.matmul``, forward and forward + backward.

Reported beside the medians: the overhead ratio (distributed / single machine;
goal <= 2x for sampling with 1 worker), the 1 -> 2 worker speed-up, the bytes of
arrays moved per sampled edge (requests + replies, client <-> workers), and each
worker's peak resident memory (reset before loading, Linux only) with the bytes
of the part it holds (goal: the part
share falls as 1 / parts).  The edge cut of hash, range and BFS partitioning is
reported for the sampling graph and for a synthetic graph with communities.
Dask, numpy and weft only; the machine is shared, so read ratios, not absolutes.
"""
from __future__ import annotations

import shutil
import tempfile

import numpy as np

from ._harness import Report, timeit_pair
from .geometric_sampling import N_EDGES, N_NODES, power_law_csc

SIZES = [25, 10]
SPMM_NNZ, SPMM_K = 2_000_000, 64
CASE_SAMPLE = "khop (25,10) 4096 seeds, E=4M"
CASE_FWD = "SpMM n=200k nnz=2M k=64 fwd"
CASE_BWD = "SpMM n=200k nnz=2M k=64 fwd+bwd"


def _status_mib(field):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    return float("nan")


def _reset_peak_rss():
    """Reset this process's peak RSS (Linux: ``5`` to ``/proc/self/clear_refs``; a
    forked worker otherwise inherits its parent's peak) and return the current RSS."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
    except OSError:
        pass
    return _status_mib("VmRSS")


def _peak_rss_mib():
    return _status_mib("VmHWM")


def _spmm_matrix(seed=1):
    import scipy.sparse as sp

    rng = np.random.default_rng(seed)
    rows = np.sort(rng.integers(0, N_NODES, SPMM_NNZ))
    cols = rng.integers(0, N_NODES, SPMM_NNZ)
    a = sp.csr_matrix((rng.random(SPMM_NNZ, dtype=np.float32), (rows, cols)),
                      (N_NODES, N_NODES))
    a.sum_duplicates()
    a.sort_indices()
    return a


def _edge_cuts(rep, row, colptr, tmp):
    import weft
    from weft.geometric.distributed import partition_graph

    g = weft.datasets.synthetic_graph(50_000, 500_000, 1, 8, seed=0)
    for name, graph in (("power-law 200k/4M", (row, colptr)),
                        ("synthetic 50k/500k, 8 classes", (g.row, g.colptr))):
        cuts = {}
        for method in ("hash", "range", "bfs"):
            info = partition_graph(graph, None, 4, f"{tmp}/cut-{method}", method=method,
                                   overwrite=True)
            cuts[method] = info.edge_cut
        rep.note(f"edge cut, 4 parts, {name}: " + ", ".join(
            f"{m} {100 * c:.1f}%" for m, c in cuts.items()) + " (hash = random baseline)")


def run(rep=None, quick=False):
    import weft
    from dask.distributed import Client, LocalCluster
    from weft.geometric import khop_sampler
    from weft.geometric.distributed import DistCSR, DistGraph, partition_graph

    rep = rep if rep is not None else Report("distributed")
    repeat = 3 if quick else 7
    row, colptr, seeds = power_law_csc()
    w_row, w_colptr, w_seeds = (weft.to_tensor(a) for a in (row, colptr, seeds))
    a = _spmm_matrix()
    w_a = weft.sparse.sparse_csr_tensor(a.indptr.astype(np.int64), a.indices.astype(np.int64),
                                        a.data, list(a.shape))
    x_np = np.random.default_rng(2).normal(size=(N_NODES, SPMM_K)).astype(np.float32)
    tmp = tempfile.mkdtemp(prefix="weft-bench-dist-")
    try:
        if not quick:
            _edge_cuts(rep, row, colptr, tmp)
        for workers in (1, 2):
            path = f"{tmp}/parts{workers}"
            partition_graph((row, colptr), None, workers, path, method="hash")
            cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                   dashboard_address=":0")
            client = Client(cluster)
            try:
                _one_cluster(rep, client, workers, path, repeat, w_row, w_colptr, w_seeds,
                             khop_sampler, DistGraph, DistCSR, a, w_a, x_np)
            finally:
                client.close()
                cluster.close()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    rep.note("LocalCluster workers are processes with 1 thread each; the single-machine "
             f"calls run in the client at weft's default thread count ({weft.get_num_threads()})"
             "; the 2-core machine is shared with other jobs")
    return rep


def _one_cluster(rep, client, workers, path, repeat, w_row, w_colptr, w_seeds, khop_sampler,
                 DistGraph, DistCSR, a, w_a, x_np):
    import weft

    impl = f"{workers}w"
    base_rss = client.run(_reset_peak_rss)
    with DistGraph(client, path, timeout=600) as dg:
        weft.seed(0)
        ref = khop_sampler(w_row, w_colptr, w_seeds, SIZES)
        weft.seed(0)
        got = dg.khop_sampler(w_seeds, SIZES)
        for r, d in zip(ref, got):
            np.testing.assert_array_equal(r.numpy(), d.numpy())
        edges = int(ref[0].shape[0])
        t_one, t_dist = timeit_pair(lambda: khop_sampler(w_row, w_colptr, w_seeds, SIZES),
                                    lambda: dg.khop_sampler(w_seeds, SIZES), repeat)
        dg.reset_stats()
        dg.khop_sampler(w_seeds, SIZES)
        st = dg.stats
        moved = st["bytes_sent"] + st["bytes_received"]
        parts = dg.part_stats()
        rss = client.run(_peak_rss_mib)
    if workers == 1:
        rep.add(CASE_SAMPLE, "weft", t_one)
    rep.add(CASE_SAMPLE, f"dist {impl}", t_dist, single_machine_s=t_one,
            overhead=t_dist / t_one, tasks=st["tasks"], bytes_moved=moved,
            bytes_per_sampled_edge=moved / edges, sampled_edges=edges,
            worker_peak_rss_mib=rss, worker_rss_before_load_mib=base_rss,
            part_mib=[p["nbytes"] / 2 ** 20 for p in parts])

    x = weft.to_tensor(x_np)
    xg = weft.to_tensor(x_np, stop_gradient=False)
    for mode in ("halo", "broadcast"):
        spmm_base = client.run(_reset_peak_rss)
        d = DistCSR(client, a, workers, mode=mode, timeout=600)
        np.testing.assert_array_equal((d @ x).numpy(), weft.sparse.matmul(w_a, x).numpy())
        t1, t2 = timeit_pair(lambda: weft.sparse.matmul(w_a, x), lambda: d @ x, repeat)
        d.reset_stats()
        d @ x
        fwd_moved = d.stats["bytes_sent"] + d.stats["bytes_received"]

        def both(mat):
            return lambda: (mat(xg).sum()).backward()
        b1, b2 = timeit_pair(both(lambda t: weft.sparse.matmul(w_a, t)), both(lambda t: d @ t),
                             max(repeat // 2, 2))
        if workers == 1 and mode == "halo":
            rep.add(CASE_FWD, "weft", t1)
            rep.add(CASE_BWD, "weft", b1)
        rep.add(CASE_FWD, f"{mode} {impl}", t2, single_machine_s=t1, overhead=t2 / t1,
                bytes_moved=fwd_moved, worker_peak_rss_mib=client.run(_peak_rss_mib),
                worker_rss_before_load_mib=spmm_base,
                part_mib=[b / 2 ** 20 for b in d.part_nbytes])
        rep.add(CASE_BWD, f"{mode} {impl}", b2, single_machine_s=b1, overhead=b2 / b1)
        d.close()


def summary(rep):
    lines = []
    by = {(r["case"], r["impl"]): r for r in rep.rows}
    s1, s2 = by.get((CASE_SAMPLE, "dist 1w")), by.get((CASE_SAMPLE, "dist 2w"))
    if s1:
        lines.append(f"sampling overhead, 1 worker: {s1['overhead']:.2f}x the single-machine "
                     f"call (goal <= 2x: {'met' if s1['overhead'] <= 2 else 'NOT met'})")
    for r in (s1, s2):
        if r:
            lines.append(f"sampling {r['impl']}: {r['bytes_per_sampled_edge']:.1f} bytes moved "
                         f"per sampled edge ({r['sampled_edges']:,} edges, {r['tasks']} tasks); "
                         f"worker peak RSS {_mib(r['worker_peak_rss_mib'])} (before loading "
                         f"{_mib(r['worker_rss_before_load_mib'])}), parts "
                         + ", ".join(f"{m:.0f} MiB" for m in r["part_mib"]))
    if s1 and s2:
        lines.append(f"sampling 1 -> 2 workers: {s1['seconds'] / s2['seconds']:.2f}x speed-up")
    for case in (CASE_FWD, CASE_BWD):
        for mode in ("halo", "broadcast"):
            r1, r2 = by.get((case, f"{mode} 1w")), by.get((case, f"{mode} 2w"))
            if r1 and r2:
                lines.append(f"{case} {mode}: overhead {r1['overhead']:.2f}x (1w), "
                             f"{r2['overhead']:.2f}x (2w); 1 -> 2 workers "
                             f"{r1['seconds'] / r2['seconds']:.2f}x"
                             + (f"; {r1['bytes_moved'] / 2 ** 20:.0f} / "
                                f"{r2['bytes_moved'] / 2 ** 20:.0f} MiB moved per product"
                                if "bytes_moved" in r1 else "")
                             + (f"; worker peak RSS {_mib(r1['worker_peak_rss_mib'])} (1w) / "
                                f"{_mib(r2['worker_peak_rss_mib'])} (2w), from "
                                f"{_mib(r1['worker_rss_before_load_mib'])} / "
                                f"{_mib(r2['worker_rss_before_load_mib'])} before placing"
                                if "worker_peak_rss_mib" in r1 else ""))
    return lines


def _mib(d):
    return "/".join(f"{v:.0f}" for v in d.values()) + " MiB"


if __name__ == "__main__":
    report = run()
    report.print_table()
    for line in summary(report):
        print(line)
