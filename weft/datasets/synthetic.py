"""Random graphs with Planetoid's attributes, for benchmarks and tests at any size."""
from __future__ import annotations

import numbers

import numpy as np

from ..core.tensor import Tensor
from .planetoid import GraphData

# share of edges whose endpoints are drawn from the same class: enough homophily that
# a GNN beats a feature-only model, as on citation graphs
_HOMOPHILY = 0.8


def _int_arg(v, arg, least):
    if isinstance(v, bool) or not isinstance(v, numbers.Integral):
        raise TypeError(f"synthetic_graph: {arg} must be an int, got {type(v).__name__}")
    if v < least:
        raise ValueError(f"synthetic_graph: {arg} must be >= {least}, got {v}")
    return int(v)


def _draw_edges(rng, y, weight, num_classes, count):
    """``count`` candidate (src, dst) pairs: src by degree weight, dst by degree weight,
    from src's class with probability _HOMOPHILY."""
    n = y.shape[0]
    p = weight / weight.sum()
    src = rng.choice(n, size=count, p=p)
    dst = rng.choice(n, size=count, p=p)
    same = rng.random(count) < _HOMOPHILY
    for c in range(num_classes):
        members = np.flatnonzero(y == c)
        pick = np.flatnonzero(same & (y[src] == c))
        if members.size and pick.size:
            w = weight[members]
            dst[pick] = members[rng.choice(members.size, size=pick.size, p=w / w.sum())]
    return src, dst


class SyntheticGraph(GraphData):
    """The result of :func:`synthetic_graph` (attributes documented there)."""


def synthetic_graph(num_nodes, num_edges, num_features, num_classes, seed=0):
    """A random directed graph with power-law degrees and label-correlated features.

    Node ``i`` gets a Pareto(shape 1.5) weight; both endpoints of an edge are drawn in
    proportion to it (so in- and out-degrees are heavy tailed), and 80 % of the edges
    join two nodes of one class. Edges are distinct, without self loops, exactly
    ``num_edges`` of them (at most ``num_nodes * (num_nodes - 1)``). Features are a
    class centroid plus unit Gaussian noise.

    Args:
        num_nodes, num_edges, num_features, num_classes: ints (``num_nodes``,
            ``num_features``, ``num_classes`` >= 1, ``num_edges`` >= 0).
        seed: int seed of the generator (the result is a function of the arguments).

    Returns:
        An object with ``x`` (dense float32 ``[N, F]``), ``y`` (int64 ``[N]``),
        ``edge_index`` (int64 ``[2, E]`` sorted by (destination, source)),
        ``train_index`` / ``val_index`` / ``test_index`` (a 50/25/25 % split of a
        random permutation, each sorted), ``colptr`` and ``row`` (the CSC of the
        graph: the sources of the edges into node ``v`` are
        ``row[colptr[v]:colptr[v + 1]]``, ready for
        :func:`weft.geometric.sample_neighbors`), and the counts ``num_nodes``,
        ``num_edges``, ``num_features``, ``num_classes``.

    >>> import weft
    >>> g = weft.datasets.synthetic_graph(100, 500, 8, 3, seed=1)
    >>> g.x.shape, g.edge_index.shape, g.colptr.shape, g.row.shape
    ([100, 8], [2, 500], [101], [500])
    """
    n = _int_arg(num_nodes, "num_nodes", 1)
    e = _int_arg(num_edges, "num_edges", 0)
    f = _int_arg(num_features, "num_features", 1)
    c = _int_arg(num_classes, "num_classes", 1)
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral):
        raise TypeError(f"synthetic_graph: seed must be an int, got {type(seed).__name__}")
    if e > n * (n - 1):
        raise ValueError(f"synthetic_graph: num_edges = {e} exceeds the {n * (n - 1)} "
                         f"distinct non-loop edges of {n} nodes")
    rng = np.random.default_rng(int(seed))
    y = rng.integers(0, c, size=n)
    weight = rng.pareto(1.5, size=n) + 1.0
    keys = np.zeros(0, np.int64)
    rounds = 0
    while keys.size < e:
        need = e - keys.size
        if rounds < 30:
            s, d = _draw_edges(rng, y, weight, c, 2 * need + 16)
        else:   # near-complete graphs: the weighted draw keeps repeating the same pairs
            s, d = rng.integers(0, n, 4 * need + 16), rng.integers(0, n, 4 * need + 16)
        rounds += 1
        k = (d * n + s)[s != d]
        # keep the first occurrence of each new pair, in draw order, so the choice of
        # which pairs survive does not depend on the key values
        k = k[~np.isin(k, keys)]
        _, first = np.unique(k, return_index=True)
        keys = np.concatenate([keys, k[np.sort(first)][:need]])
    keys = np.sort(keys)
    dst, src = keys // n, keys % n
    g = SyntheticGraph()
    centroids = rng.normal(0.0, 1.0, size=(c, f))
    g.x = Tensor._wrap((centroids[y] + rng.normal(0.0, 1.0, size=(n, f))).astype(np.float32))
    g.y = Tensor._wrap(y.astype(np.int64))
    g.edge_index = Tensor._wrap(np.stack([src, dst]).astype(np.int64))
    perm = rng.permutation(n)
    a, b = n // 2, n // 2 + n // 4
    g.train_index = Tensor._wrap(np.sort(perm[:a]).astype(np.int64))
    g.val_index = Tensor._wrap(np.sort(perm[a:b]).astype(np.int64))
    g.test_index = Tensor._wrap(np.sort(perm[b:]).astype(np.int64))
    colptr = np.zeros(n + 1, np.int64)
    np.cumsum(np.bincount(dst, minlength=n), out=colptr[1:])
    g.colptr = Tensor._wrap(colptr)
    g.row = Tensor._wrap(src.astype(np.int64))
    g.num_nodes, g.num_edges, g.num_features, g.num_classes = n, e, f, c
    return g


__all__ = ["synthetic_graph", "SyntheticGraph"]
