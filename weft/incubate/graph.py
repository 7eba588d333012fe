"""Paddle's deprecated graph functions of ``paddle.incubate`` (since 2.4.0).

Each forwards to its ``weft.geometric`` replacement and emits a
``DeprecationWarning`` naming it, as Paddle's ``@deprecated`` decorator does:
``graph_send_recv`` -> ``send_u_recv``, ``graph_sample_neighbors`` ->
``sample_neighbors``, ``graph_reindex`` -> ``reindex_graph``, ``segment_*`` ->
``weft.geometric.segment_*``.  ``graph_khop_sampler`` (multi-hop sampling with
re-indexing) has no direct replacement; it is built here from the same
sampling and re-indexing kernels and warns with the pair to use instead.
"""
from __future__ import annotations

import warnings

import numpy as np

from ..core import random as _random
from ..geometric.reindex import _reindex
from ..geometric.sampling import (_C, _bool_arg, _sample, common_place, index_arg, same_dtype,
                                  sample_size_arg, wrap)


def _deprecated(old, new):
    warnings.warn(f"weft.incubate.{old} is deprecated since Paddle 2.4.0 and will be removed; "
                  f"use {new} instead", DeprecationWarning, stacklevel=3)


def _geometric(name):
    # message passing and segment ops live in modules of weft.geometric that are
    # imported on first use, so that this module stays importable on its own
    from .. import geometric  # noqa: PLC0415

    return getattr(geometric, name)


def graph_send_recv(x, src_index, dst_index, pool_type="sum", out_size=None, name=None):
    """Deprecated: :func:`weft.geometric.send_u_recv` with ``reduce_op=pool_type``.

    ``pool_type`` is one of ``'sum'``, ``'mean'``, ``'max'``, ``'min'``.

    >>> import warnings, weft
    >>> x = weft.to_tensor([[0., 2., 3.], [1., 4., 5.], [2., 6., 7.]])
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     out = weft.incubate.graph_send_recv(x, weft.to_tensor([0, 1, 2, 0]),
    ...                                         weft.to_tensor([1, 2, 1, 0]))
    >>> out.tolist()
    [[0.0, 2.0, 3.0], [2.0, 8.0, 10.0], [1.0, 4.0, 5.0]]
    """
    _deprecated("graph_send_recv", "weft.geometric.send_u_recv")
    if pool_type not in ("sum", "mean", "max", "min"):
        raise ValueError("graph_send_recv: pool_type should be `sum`, `mean`, `max` or `min`, "
                         f"but received {pool_type}")
    return _geometric("send_u_recv")(x, src_index, dst_index, reduce_op=pool_type,
                                     out_size=out_size)


def graph_sample_neighbors(row, colptr, input_nodes, eids=None, perm_buffer=None, sample_size=-1,
                           return_eids=False, flag_perm_buffer=False, name=None):
    """Deprecated: :func:`weft.geometric.sample_neighbors` (note the argument order:
    ``eids`` and ``perm_buffer`` come before ``sample_size``).

    ``flag_perm_buffer=True`` requires ``perm_buffer`` (Paddle's GPU Fisher-Yates
    scratch, checked and otherwise ignored).

    >>> import warnings, weft
    >>> row = weft.to_tensor([3, 7, 0, 9, 1, 4, 2, 9, 3, 9, 1, 9, 7])
    >>> colptr = weft.to_tensor([0, 2, 4, 5, 6, 7, 9, 11, 11, 13, 13])
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     nbrs, cnt = weft.incubate.graph_sample_neighbors(row, colptr,
    ...                                                      weft.to_tensor([0, 8]))
    >>> nbrs.tolist(), cnt.tolist()
    ([3, 7, 9, 7], [2, 2])
    """
    op = "graph_sample_neighbors"
    _deprecated(op, "weft.geometric.sample_neighbors")
    flag_perm_buffer = _bool_arg(flag_perm_buffer, "flag_perm_buffer", op)
    if flag_perm_buffer and perm_buffer is None:
        raise ValueError(f"{op}: `perm_buffer` should not be None if `flag_perm_buffer` is True.")
    if _bool_arg(return_eids, "return_eids", op) and eids is None:
        raise ValueError(f"{op}: `eids` should not be None if `return_eids` is True.")
    return _sample(op, row, colptr, input_nodes, sample_size, eids, return_eids, perm_buffer)


def graph_reindex(x, neighbors, count, value_buffer=None, index_buffer=None,
                  flag_buffer_hashtable=False, name=None):
    """Deprecated: :func:`weft.geometric.reindex_graph` (homogeneous graphs only).

    ``flag_buffer_hashtable=True`` requires both ``value_buffer`` and
    ``index_buffer`` (Paddle's GPU hash-table scratch, checked and ignored).

    >>> import warnings, weft
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     src, dst, out = weft.incubate.graph_reindex(
    ...         weft.to_tensor([5, 3]), weft.to_tensor([9, 3, 9, 5, 1, 7]),
    ...         weft.to_tensor([3, 3], dtype="int32"))
    >>> src.tolist(), out.tolist()
    ([2, 1, 2, 0, 3, 4], [5, 3, 9, 1, 7])
    """
    op = "graph_reindex"
    _deprecated(op, "weft.geometric.reindex_graph")
    if _bool_arg(flag_buffer_hashtable, "flag_buffer_hashtable", op) and (
            value_buffer is None or index_buffer is None):
        raise ValueError(f"{op}: `value_buffer` and `index_buffer` should not be None if "
                         "`flag_buffer_hashtable` is True.")
    return _reindex(op, x, neighbors, count, value_buffer, index_buffer, False)


def graph_khop_sampler(row, colptr, input_nodes, sample_sizes, sorted_eids=None,
                       return_eids=False, name=None):
    """Deprecated: multi-hop neighbour sampling followed by re-indexing.

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

    >>> import warnings, weft
    >>> row = weft.to_tensor([3, 7, 0, 9, 1, 4, 2, 9, 3, 9, 1, 9, 7])
    >>> colptr = weft.to_tensor([0, 2, 4, 5, 6, 7, 9, 11, 11, 13, 13])
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     src, dst, index, nodes = weft.incubate.graph_khop_sampler(
    ...         row, colptr, weft.to_tensor([0, 8, 1, 2]), [-1])
    >>> index.tolist(), src.flatten().tolist(), dst.flatten().tolist()
    ([0, 8, 1, 2, 3, 7, 9], [4, 5, 6, 5, 0, 6, 2], [0, 0, 1, 1, 2, 2, 3])
    """
    op = "graph_khop_sampler"
    _deprecated(op, "weft.geometric.sample_neighbors and weft.geometric.reindex_graph")
    return_eids = _bool_arg(return_eids, "return_eids", op)
    if return_eids and sorted_eids is None:
        raise ValueError(f"{op}: `sorted_eid` should not be None if return_eids is True.")
    if not isinstance(sample_sizes, (list, tuple)) or len(sample_sizes) == 0:
        raise TypeError(f"{op}: sample_sizes must be a non-empty list of ints, got "
                        f"{sample_sizes!r}")
    sizes = [sample_size_arg(s, op, f"sample_sizes[{i}]") for i, s in enumerate(sample_sizes)]
    places = []
    row_a = index_arg(row, "row", op, places)
    colptr_a = index_arg(colptr, "colptr", op, places)
    nodes_a = index_arg(input_nodes, "input_nodes", op, places)
    same_dtype(row_a, "row", colptr_a, "colptr", op)
    same_dtype(row_a, "row", nodes_a, "input_nodes", op)
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
    dt = row_a.dtype

    bad = np.flatnonzero((nodes_a < 0) | (nodes_a >= num_nodes))
    if bad.size:
        raise IndexError(f"{op}: input_nodes[{bad[0]}] = {nodes_a[bad[0]]} is out of range "
                         f"[0, {num_nodes}) for the number of nodes len(colptr) - 1")

    # frontier 0: input nodes without repeats, in order of first occurrence
    uniq, first, inverse = np.unique(nodes_a, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")
    frontier = nodes_a[np.sort(first)]
    rank = np.empty(len(uniq), np.int64)
    rank[order] = np.arange(len(uniq))
    reindex_nodes = rank[inverse.reshape(-1)].astype(dt)

    frontiers, nbrs, counts, eids = [], [], [], []
    visited = None
    for h, k in enumerate(sizes):
        nb, cnt, e = _C().sample_neighbors(row_a, colptr_a, frontier, k, eids_a,
                                           _random.next_seed(place), op)
        if h == 0:  # the sampler has checked the ids and colptr entries read here
            if not np.any(colptr_a[frontier + 1] > colptr_a[frontier]):
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
    out = (wrap(src.reshape(-1, 1), place), wrap(dst.reshape(-1, 1), place),
           wrap(sample_index, place), wrap(reindex_nodes, place))
    if return_eids:
        out += (wrap(np.concatenate(eids), place),)
    return out


def _segment(name):
    def fn(data, segment_ids, name=None):
        _deprecated(fn.__name__, f"weft.geometric.{fn.__name__}")
        return _geometric(fn.__name__)(data, segment_ids)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"Deprecated: :func:`weft.geometric.{name}` (identical results).\n\n"
                  f"    ``{name}(data, segment_ids, name=None)``; ``segment_ids`` is a sorted 1-D\n"
                  "    int32/int64 tensor with one entry per row of ``data``.\n")
    return fn


segment_sum = _segment("segment_sum")
segment_mean = _segment("segment_mean")
segment_max = _segment("segment_max")
segment_min = _segment("segment_min")

__all__ = ["graph_send_recv", "graph_khop_sampler", "graph_sample_neighbors", "graph_reindex",
           "segment_sum", "segment_mean", "segment_max", "segment_min"]
