"""Paddle's deprecated graph functions of ``paddle.incubate`` (since 2.4.0).

Each forwards to its ``weft.geometric`` replacement and emits a
``DeprecationWarning`` naming it, as Paddle's ``@deprecated`` decorator does:
``graph_send_recv`` -> ``send_u_recv``, ``graph_sample_neighbors`` ->
``sample_neighbors``, ``graph_reindex`` -> ``reindex_graph``, ``segment_*`` ->
``weft.geometric.segment_*``, ``graph_khop_sampler`` -> ``khop_sampler``.
"""
from __future__ import annotations

import warnings

from ..geometric.reindex import _reindex
from ..geometric.sampling import _bool_arg, _sample


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
    """Deprecated: :func:`weft.geometric.khop_sampler` (identical results).

    >>> import warnings, weft
    >>> row = weft.to_tensor([3, 7, 0, 9, 1, 4, 2, 9, 3, 9, 1, 9, 7])
    >>> colptr = weft.to_tensor([0, 2, 4, 5, 6, 7, 9, 11, 11, 13, 13])
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     src, dst, index, nodes = weft.incubate.graph_khop_sampler(
    ...         row, colptr, weft.to_tensor([0, 8, 1, 2]), [-1])
    >>> index.tolist()
    [0, 8, 1, 2, 3, 7, 9]
    """
    _deprecated("graph_khop_sampler", "weft.geometric.khop_sampler")
    return _geometric("khop_sampler")(row, colptr, input_nodes, sample_sizes, sorted_eids,
                                      return_eids)


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
