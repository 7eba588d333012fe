"""Multi-hop neighbour sampling with re-indexing: the frontier of each hop is sampled with
the same kernel as :func:`weft.geometric.sample_neighbors`, and the edges of all hops are
re-indexed at once with the kernel of :func:`weft.geometric.reindex_graph`."""
from __future__ import annotations

import numpy as np

from ..core import random as _random
from .sampling import (_C, _bool_arg, common_place, csc_args, index_arg, sample_size_arg,
                       wrap)


def khop_sampler(row, colptr, input_nodes, sample_sizes, sorted_eids=None,
                       return_eids=False, name=None):
    """Multi-hop neighbour sampling followed by re-indexing (Paddle's
    ``incubate.graph_khop_sampler``, correct for any number of hops).

    Hop 0 expands ``input_nodes`` (duplicates removed, first occurrence kept);
    hop ``h`` samples ``sample_sizes[h]`` in-neighbours (-1: all) of every node of
    its frontier as :func:`weft.geometric.sample_neighbors` does, and the next
    frontier is the ascending list of distinct sampled sources not in any earlier
    frontier (sampling stops early when it is empty).  Every edge goes from a
    sampled neighbour to the frontier node it was sampled for.

    Returns:
        ``(edge_src, edge_dst, sample_index, reindex_nodes)`` plus ``edge_eids``
        when ``return_eids``.  ``sample_index`` lists the frontiers in order and
        then the sampled sources never expanded, in order of first appearance;
        ``edge_src`` / ``edge_dst`` (``[E, 1]``) are positions in it, edges ordered
        by hop, frontier position and slot; ``reindex_nodes`` are the positions of
        ``input_nodes``; ``edge_eids`` (``[E]``) the ``sorted_eids`` of the edges.

    Raises:
        ValueError: ``return_eids`` without ``sorted_eids``, empty ``row``,
            ``colptr`` or ``input_nodes``, no input node with an in-edge, or the
            errors of ``sample_neighbors``.

    >>> import weft
    >>> row = weft.to_tensor([3, 7, 0, 9, 1, 4, 2, 9, 3, 9, 1, 9, 7])
    >>> colptr = weft.to_tensor([0, 2, 4, 5, 6, 7, 9, 11, 11, 13, 13])
    >>> src, dst, index, nodes = weft.geometric.khop_sampler(
    ...     row, colptr, weft.to_tensor([0, 8, 1, 2]), [-1])
    >>> index.tolist(), src.flatten().tolist(), dst.flatten().tolist()
    ([0, 8, 1, 2, 3, 7, 9], [4, 5, 6, 5, 0, 6, 2], [0, 0, 1, 1, 2, 2, 3])
    """
    op = "khop_sampler"
    return_eids = _bool_arg(return_eids, "return_eids", op)
    if return_eids and sorted_eids is None:
        raise ValueError(f"{op}: `sorted_eid` should not be None if return_eids is True.")
    if not isinstance(sample_sizes, (list, tuple)) or len(sample_sizes) == 0:
        raise TypeError(f"{op}: sample_sizes must be a non-empty list of ints, got "
                        f"{sample_sizes!r}")
    sizes = [sample_size_arg(s, op, f"sample_sizes[{i}]") for i, s in enumerate(sample_sizes)]
    places = []
    row_a, colptr_a, nodes_a = csc_args(row, colptr, input_nodes, op, places)
    for a, arg in ((row_a, "row"), (colptr_a, "colptr"), (nodes_a, "input_nodes")):
        if a.shape[0] == 0:
            raise ValueError(f"{op}: {arg} must not be empty")
    eids_a = None
    if sorted_eids is not None:
        eids_a = index_arg(sorted_eids, "sorted_eids", op, places)
        if eids_a.shape[0] != row_a.shape[0]:
            raise ValueError(f"{op}: sorted_eids must have one entry per edge (len(row) = "
                             f"{row_a.shape[0]}), got {eids_a.shape[0]}")
        if not return_eids:
            eids_a = None
    place = common_place(places, op)
    num_nodes = colptr_a.shape[0] - 1

    bad = np.flatnonzero((nodes_a < 0) | (nodes_a >= num_nodes))
    if bad.size:
        raise IndexError(f"{op}: input_nodes[{bad[0]}] = {nodes_a[bad[0]]} is out of range "
                         f"[0, {num_nodes}) for the number of nodes len(colptr) - 1")

    def sample_hop(frontier, k, first):
        nb, cnt, e = _C().sample_neighbors(row_a, colptr_a, frontier, k, eids_a,
                                           _random.next_seed(place), op)
        # the sampler has checked the ids and colptr entries read here
        any_edge = first and bool(np.any(colptr_a[frontier + 1] > colptr_a[frontier]))
        return nb, cnt, e, any_edge

    src, dst, sample_index, reindex_nodes, eids = khop_loop(nodes_a, sizes, num_nodes,
                                                            sample_hop, op)
    out = (wrap(src.reshape(-1, 1), place), wrap(dst.reshape(-1, 1), place),
           wrap(sample_index, place), wrap(reindex_nodes, place))
    if return_eids:
        out += (wrap(eids, place),)
    return out


def khop_loop(nodes, sizes, num_nodes, sample_hop, op):
    """The hops and the re-indexing of :func:`khop_sampler` on host arrays, with the
    sampling of one hop left to ``sample_hop(frontier, k, first)``, which returns
    ``(neighbors, count, eids or None, any_in_edge)`` for the frontier as the native
    sampler does (``any_in_edge``, read for the first hop only: whether a frontier
    node has an in-edge) and draws one seed per call.  Shared by the
    single-machine sampler and :class:`weft.geometric.distributed.DistGraph`, so
    both follow one definition.

    Returns ``(src, dst, sample_index, reindex_nodes, eids or None)`` (1-D arrays).
    """
    dt = nodes.dtype
    # frontier 0: input nodes without repeats, in order of first occurrence
    uniq, first, inverse = np.unique(nodes, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")
    frontier = nodes[np.sort(first)]
    rank = np.empty(len(uniq), np.int64)
    rank[order] = np.arange(len(uniq))
    reindex_nodes = rank[inverse.reshape(-1)].astype(dt)

    frontiers, nbrs, counts, eids = [], [], [], []
    visited = None
    for h, k in enumerate(sizes):
        nb, cnt, e, any_edge = sample_hop(frontier, k, h == 0)
        if h == 0 and not any_edge:
            raise ValueError(f"{op}: none of the input nodes has an in-edge; the input "
                             "nodes should have at least one neighbor")
        frontiers.append(frontier)
        nbrs.append(nb)
        counts.append(cnt)
        if e is not None:
            eids.append(e)
        if h == len(sizes) - 1 or nb.size == 0:
            break
        lo, hi = nb.min(), nb.max()
        if lo < 0 or hi >= num_nodes:
            bad = lo if lo < 0 else hi
            raise IndexError(f"{op}: row holds node id {bad}, sampled in hop {h}, which is out "
                             f"of range [0, {num_nodes}) and cannot be expanded")
        if visited is None:
            visited = np.zeros(num_nodes, bool)
            visited[frontiers[0]] = True
        fresh = nb[~visited[nb]]
        if fresh.size == 0:
            break
        frontier = np.unique(fresh)
        visited[frontier] = True

    x = np.concatenate(frontiers)
    src, dst, sample_index = _C().reindex_graph(x, [np.concatenate(nbrs)],
                                                [np.concatenate(counts)], False, op)
    return src, dst, sample_index, reindex_nodes, np.concatenate(eids) if eids else None


__all__ = ["khop_sampler"]
