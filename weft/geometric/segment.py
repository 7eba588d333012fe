"""Sorted-segment reductions: ``segment_sum``, ``segment_mean``, ``segment_max``, ``segment_min``.

``data[i]`` belongs to segment ``segment_ids[i]``; the ids are sorted, so the CSR
of the segments is just the run boundaries and the native kernel reduces each
output row in order (deterministic for any thread count). Gradients: sum sends
``g[id]`` back to each member, mean ``g[id] / count``, max/min the full ``g[id]``
to every member equal to the extreme (ties are not split). The vjps are row
gathers (whose own vjp is a scatter-add), so double backward works.
"""
from __future__ import annotations

import numpy as np

from ..autograd.engine import Primitive, apply, defvjp
from ..core.tensor import Tensor
from ..core.args import check_same_place, tensor_arg
from ..ops.primitives import take
from . import _kernels as K
from .message_passing import feature_arg

_REDUCES = ("sum", "mean", "max", "min")


def _seg_fwd(reduce):
    return lambda data, ids, op: K.segment(data, ids, reduce, op)


_SEGMENT = {r: Primitive(f"segment_{r}", _seg_fwd(r)) for r in _REDUCES}


def _seg_vjp(reduce):
    def vjp(g, ans, data, ids, op):
        if reduce == "mean":
            g = g * Tensor._wrap(K.inverse_count(ids._data, g._data.shape[0], g._data.dtype,
                                                 g._data.ndim))
        ge = take(g, ids, 0)
        if reduce in ("sum", "mean"):
            return ge
        xp = K._xp(data._data)
        hit = K.same_values(data._data, xp.take(ans._data, ids._data, axis=0))
        return ge * Tensor._wrap(hit.astype(g._data.dtype))
    return vjp


for _r in _REDUCES:
    _extreme = _r in ("max", "min")
    defvjp(_SEGMENT[_r], _seg_vjp(_r), None, save=(0, 1) if _extreme else (1,),
           save_out=_extreme)


def _segment(data, segment_ids, reduce, op):
    data = feature_arg(data, op, "data")
    if isinstance(segment_ids, (list, tuple)) and len(segment_ids) == 0:
        segment_ids = np.zeros(0, dtype=np.int64)
    ids = tensor_arg(segment_ids, "segment_ids", op)
    d = ids._data
    if d.dtype not in (np.int32, np.int64):
        raise ValueError(f"{op}: Unsupported index type, Expected int, int64, but segment_ids "
                         f"has dtype {d.dtype.name}")
    if d.ndim == 2 and d.shape[1] == 1:
        ids = Tensor._wrap(d.reshape(-1))
    elif d.ndim != 1:
        raise ValueError(f"{op}: segment_ids must be 1-D, got shape {list(d.shape)}")
    check_same_place(data, ids, op)
    n = data._data.shape[0]
    if ids._data.shape[0] != n:
        raise ValueError(f"{op}: Segment_ids should be the same size as dimension 0 of input X "
                         f"(data has {n} rows, segment_ids has {ids._data.shape[0]} entries)")
    return apply(_SEGMENT[reduce], data, ids, op=op)


def segment_sum(data, segment_ids, name=None):
    """Sum of the rows of ``data`` in each segment.

    Args:
        data: ``[N, *F]`` (1-D allowed), float16, bfloat16, float32, float64, int32 or
            int64 (float16/bfloat16 accumulate in float32).
        segment_ids: ``[N]`` int32/int64, sorted non-decreasing and >= 0.

    Returns:
        ``[segment_ids[-1] + 1, *F]`` of data's dtype (``[0, *F]`` for empty data); ids
        in ``[0, last]`` without rows give zero rows.

    >>> import weft
    >>> data = weft.to_tensor([[1., 2., 3.], [3., 2., 1.], [4., 5., 6.]])
    >>> weft.geometric.segment_sum(data, weft.to_tensor([0, 0, 1])).tolist()
    [[4.0, 4.0, 4.0], [4.0, 5.0, 6.0]]
    """
    return _segment(data, segment_ids, "sum", "segment_sum")


def segment_mean(data, segment_ids, name=None):
    """Mean of the rows of ``data`` in each segment (empty segments give 0; integer
    data truncates toward zero). Arguments as :func:`segment_sum`.

    >>> import weft
    >>> data = weft.to_tensor([[1., 2., 3.], [3., 2., 1.], [4., 5., 6.]])
    >>> weft.geometric.segment_mean(data, weft.to_tensor([0, 0, 1])).tolist()
    [[2.0, 2.0, 2.0], [4.0, 5.0, 6.0]]
    """
    return _segment(data, segment_ids, "mean", "segment_mean")


def segment_max(data, segment_ids, name=None):
    """Elementwise maximum of the rows of ``data`` in each segment (empty segments give
    0). The gradient goes in full to every row equal to the maximum (ties not split).
    Arguments as :func:`segment_sum`.

    >>> import weft
    >>> data = weft.to_tensor([[1., 2., 3.], [3., 2., 1.], [4., 5., 6.]])
    >>> weft.geometric.segment_max(data, weft.to_tensor([0, 0, 1])).tolist()
    [[3.0, 2.0, 3.0], [4.0, 5.0, 6.0]]
    """
    return _segment(data, segment_ids, "max", "segment_max")


def segment_min(data, segment_ids, name=None):
    """Elementwise minimum of the rows of ``data`` in each segment (empty segments give
    0); gradient as :func:`segment_max`. Arguments as :func:`segment_sum`.

    >>> import weft
    >>> data = weft.to_tensor([[1., 2., 3.], [3., 2., 1.], [4., 5., 6.]])
    >>> weft.geometric.segment_min(data, weft.to_tensor([0, 0, 1])).tolist()
    [[1.0, 2.0, 1.0], [4.0, 5.0, 6.0]]
    """
    return _segment(data, segment_ids, "min", "segment_min")


__all__ = ["segment_sum", "segment_mean", "segment_max", "segment_min"]
