"""Reading by index: gather, index_select, gather_nd, take_along_axis, masked_select and
nonzero."""
from __future__ import annotations

import numpy as np

from ...core.args import check_same_place, normalize_axis, tensor_arg, xp_of
from ...core.tensor import Tensor
from ..primitives import take
from ..shape.views import broadcast_to, reshape_exact
from .getitem import check_range, getitem, index_arg, wrap


def row_index(index, op, arg="index", allow_0d=False):
    """A 1-D integer index; Paddle also takes [N, 1] (and 0-D where ``allow_0d``)."""
    d = index._data
    if d.ndim == 2 and d.shape[1] == 1:
        return Tensor._wrap(d.reshape(-1))
    if d.ndim == 1 or d.ndim == 0 and allow_0d:
        return index
    raise ValueError(f"{op}: {arg} must be 1-D{' or 0-D' if allow_0d else ''} (or [N, 1]), "
                     f"got shape {index.shape}")


def checked(index, n, op, axis, arg="index"):
    d = check_range(index._data, n, op, arg, axis)
    return index if d is index._data else Tensor._wrap(d)


def gather(x, index, axis=None, name=None):
    """Rows of ``x`` along ``axis`` (default 0) picked by ``index``.

    ``index``: int32/int64, 1-D (or [N, 1]), entries in ``[0, x.shape[axis])``; a 0-D
    index drops the axis. The gradient of repeated rows accumulates.

    >>> import weft
    >>> x = weft.to_tensor([[1, 2], [3, 4], [5, 6]])
    >>> weft.gather(x, weft.to_tensor([2, 0])).tolist()
    [[5, 6], [1, 2]]
    """
    x = tensor_arg(x, "x", "gather")
    index = row_index(index_arg(index, "gather", like=x), "gather", allow_0d=True)
    if x.ndim == 0:
        raise ValueError("gather: x must have at least 1 dimension, got a 0-D tensor")
    axis = 0 if axis is None else normalize_axis(axis, x.ndim, "gather")
    index = checked(index, x._data.shape[axis], "gather", axis)
    return take(x, index, axis)


def index_select(x, index, axis=0, name=None):
    """``x`` restricted to the entries ``index`` (1-D, in ``[0, n)``) along ``axis``.

    >>> import weft
    >>> x = weft.to_tensor([[1, 2, 3], [4, 5, 6]])
    >>> weft.index_select(x, weft.to_tensor([2, 0]), axis=1).tolist()
    [[3, 1], [6, 4]]
    """
    x = tensor_arg(x, "x", "index_select")
    index = row_index(index_arg(index, "index_select", like=x), "index_select")
    if x.ndim == 0:
        raise ValueError("index_select: x must have at least 1 dimension, got a 0-D tensor")
    axis = normalize_axis(axis, x.ndim, "index_select")
    index = checked(index, x._data.shape[axis], "index_select", axis)
    return take(x, index, axis)


def prod_of(shape):
    return int(np.prod(shape, dtype=np.int64))


def nd_index(index, shape, op):
    """Flat row positions of an ``[..., k]`` index into the first k dims of ``shape``."""
    d = index._data
    if d.ndim == 0:
        raise ValueError(f"{op}: index must have at least 1 dimension, got a 0-D tensor")
    k = d.shape[-1]
    if k > len(shape):
        raise ValueError(f"{op}: index.shape[-1] = {k} exceeds the rank {len(shape)} of x")
    xp = xp_of(d)
    if d.size:
        bounds = xp.asarray(shape[:k], dtype=np.int64)
        bad = (d < 0) | (d >= bounds)
        if bool(bad.any()):
            flat = int(xp.argmax(bad.reshape(-1)))
            pos = np.unravel_index(flat, d.shape)
            j = int(pos[-1])
            raise IndexError(f"{op}: index[{', '.join(map(str, pos))}] = "
                             f"{int(d.reshape(-1)[flat])} is out of range for axis {j} of "
                             f"size {shape[j]} (expected in [0, {shape[j]}))")
    lin = xp.zeros(d.shape[:-1], dtype=np.int64)
    stride = 1
    for j in reversed(range(k)):
        lin += d[..., j].astype(np.int64) * stride
        stride *= shape[j]
    return wrap(lin), k


def gather_nd(x, index, name=None):
    """Slices of ``x`` addressed by the last axis of ``index``.

    ``index`` has shape ``[..., k]`` (k <= x.ndim, entries in ``[0, n)``); the output
    has shape ``index.shape[:-1] + x.shape[k:]``.

    >>> import weft
    >>> x = weft.to_tensor([[1, 2], [3, 4]])
    >>> weft.gather_nd(x, weft.to_tensor([[1, 0], [0, 1]])).tolist()
    [3, 2]
    """
    x = tensor_arg(x, "x", "gather_nd")
    index = index_arg(index, "gather_nd", like=x)
    lin, k = nd_index(index, x.shape, "gather_nd")
    xr = reshape_exact(x, [prod_of(x.shape[:k])] + x.shape[k:])
    return take(xr, lin, 0)


def along_args(arr, indices, axis, op):
    arr = tensor_arg(arr, "arr", op)
    indices = index_arg(indices, op, "indices", like=arr)
    if arr.ndim != indices.ndim:
        raise ValueError(f"{op}: indices must have the same number of dimensions as arr "
                         f"({arr.ndim}), got {indices.ndim}")
    if arr.ndim == 0:
        raise ValueError(f"{op}: arr must have at least 1 dimension, got a 0-D tensor")
    return arr, indices, normalize_axis(axis, arr.ndim, op)


def fits(inner, outer):
    return all(a <= b for a, b in zip(inner, outer))


def along_lin(ashape, idx, tshape, axis, op, zero_broadcast):
    """Flat positions in arr (shape ``ashape``) of the entries of ``idx`` (shape
    ``tshape``): arr's coordinates with the one along ``axis`` taken from ``idx``.
    With ``zero_broadcast``, size-1 dims of arr are read as broadcast (stride 0)."""
    xp = xp_of(idx)
    idx = check_range(idx, ashape[axis], op, "indices", axis, negative=True)
    nd = len(ashape)
    strides = [prod_of(ashape[d + 1:]) for d in range(nd)]
    lin = xp.broadcast_to(idx.astype(np.int64), tuple(tshape)) * strides[axis]
    for d in range(nd):
        if d == axis or tshape[d] == 1 or (zero_broadcast and ashape[d] == 1):
            continue
        shp = [1] * nd
        shp[d] = tshape[d]
        lin = lin + (xp.arange(tshape[d], dtype=np.int64) * strides[d]).reshape(shp)
    return xp.ascontiguousarray(xp.broadcast_to(lin, tuple(tshape)))


def take_along_axis(arr, indices, axis, broadcast=True, name=None):
    """``out[..., j, ...] = arr[..., indices[..., j, ...], ...]`` along ``axis``.

    ``indices`` has arr's rank; entries in ``[-n, n)`` (negative wrap, as Paddle).
    With ``broadcast`` (default) ``indices`` and ``arr`` broadcast against each other
    except along ``axis``; without it ``indices`` must be no larger than ``arr``
    outside ``axis``. The gradient is one flat ``index_add``.

    >>> import weft
    >>> x = weft.to_tensor([[10, 30, 20], [60, 40, 50]])
    >>> weft.take_along_axis(x, weft.to_tensor([[1], [0]]), axis=1).tolist()
    [[30], [60]]
    """
    op = "take_along_axis"
    arr, indices, axis = along_args(arr, indices, axis, op)
    A, I = arr.shape, indices.shape
    if broadcast:
        if fits(I, A):
            T = list(A)
            T[axis] = I[axis]
            bad = [d for d in range(len(A)) if d != axis and I[d] not in (1, T[d])]
        else:
            T = list(I)
            bad = [d for d in range(len(A)) if d != axis and A[d] not in (1, T[d])]
        if bad:
            raise ValueError(f"{op}: indices of shape {I} and arr of shape {A} do not "
                             f"broadcast outside axis {axis} (dimension {bad[0]})")
    else:
        bad = [d for d in range(len(A)) if d != axis and I[d] > A[d]]
        if bad:
            raise ValueError(f"{op}: without broadcast, indices (shape {I}) must not be "
                             f"larger than arr (shape {A}) outside axis {axis}")
        T = list(I)
    lin = along_lin(A, indices._data, T, axis, op, zero_broadcast=broadcast)
    return take(reshape_exact(arr, [arr._data.size]), wrap(lin), 0)


def mask_arg(mask, x, op):
    mask = tensor_arg(mask, "mask", op)
    if mask._data.dtype != np.bool_:
        raise TypeError(f"{op}: mask must be a bool tensor, got {mask._data.dtype.name}")
    check_same_place(x, mask, op)
    return mask


def broadcast_pair(x, mask, op):
    try:
        shape = list(np.broadcast_shapes(tuple(x.shape), tuple(mask.shape)))
    except ValueError:
        raise ValueError(f"{op}: mask of shape {mask.shape} does not broadcast with x of "
                         f"shape {x.shape}") from None
    m = mask._data
    if list(m.shape) != shape:
        m = xp_of(m).broadcast_to(m, tuple(shape))
    return broadcast_to(x, shape), wrap(m)


def masked_select(x, mask, name=None):
    """The entries of ``x`` where ``mask`` (bool, broadcast with x) holds, as a 1-D tensor.

    >>> import weft
    >>> x = weft.to_tensor([[1.0, 2.0], [3.0, 4.0]])
    >>> weft.masked_select(x, x > 2).tolist()
    [3.0, 4.0]
    """
    x = tensor_arg(x, "x", "masked_select")
    mask = mask_arg(mask, x, "masked_select")
    xb, mb = broadcast_pair(x, mask, "masked_select")
    if xb.ndim == 0:
        xb, mb = reshape_exact(xb, [1]), wrap(mb._data.reshape(1))
    return getitem(xb, mb)


def nonzero(x, as_tuple=False, name=None):
    """Coordinates of the nonzero entries of ``x`` in row-major order.

    Returns an int64 tensor of shape ``[N, x.ndim]``, or with ``as_tuple`` a tuple of
    ``x.ndim`` int64 tensors of shape ``[N, 1]`` (Paddle's layout).

    >>> import weft
    >>> weft.nonzero(weft.to_tensor([[1, 0], [0, 2]])).tolist()
    [[0, 0], [1, 1]]
    """
    x = tensor_arg(x, "x", "nonzero")
    d = x._data
    xp = xp_of(d)
    if d.ndim == 0:
        coords = xp.zeros((int(bool(d != 0)), 0), dtype=np.int64)
    else:
        coords = xp.stack([c.astype(np.int64) for c in d.nonzero()], axis=1)
    if not as_tuple:
        return wrap(coords)
    return tuple(wrap(xp.ascontiguousarray(coords[:, i:i + 1])) for i in range(d.ndim))


__all__ = ["gather", "index_select", "gather_nd", "take_along_axis", "masked_select", "nonzero"]
__tensor_methods__ = {"gather": gather, "index_select": index_select, "gather_nd": gather_nd, "take_along_axis": take_along_axis, "masked_select": masked_select, "nonzero": nonzero}
