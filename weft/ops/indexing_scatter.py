"""Scatter-type indexing: scatter, the ``_nd`` family, index_put/index_fill, the
``*_along_axis`` pair, masked ops and nonzero.

All of them are compositions of the primitives of :mod:`weft.ops.indexing`
(``_take``, ``_index_add``, ``_setitem``, ``_masked_select``) plus reshapes, so
their gradients, including second order, follow from those few rules. Writes with
repeated indices keep the last occurrence (deterministic on every backend; Paddle
leaves the order unspecified); accumulating writes add every occurrence.
"""
from __future__ import annotations

import numpy as np

from ..autograd.engine import Primitive, apply, defvjp
from ..autograd.inplace import inplace
from ..core.tensor import Tensor
from ..core.args import check_same_place, normalize_axis, shape_arg, tensor_arg
from .indexing import (_checked, _fit_value, _index_add, _last_occurrence, _parse_key,
                       _row_index, _setitem, _take, _value_like, _xp, check_range, getitem,
                       index_arg, rows_key, setitem_out)
from .math import where
from .shape.views import broadcast_to
from .shape.views import reshape_exact


def _wrap(a):
    return Tensor._wrap(a)


def _prod(shape):
    return int(np.prod(shape, dtype=np.int64))


def _winners(lin, size, xp):
    """Positions of the last occurrence of each repeated entry of 1-D ``lin`` (None if
    there are no repeats)."""
    return _last_occurrence(lin, size, xp) if lin.size > 1 else None


def _assign_rows(x, index, v, axis=0):
    """``x`` with ``v`` written at rows ``index`` (1-D array) along ``axis``; the last of
    repeated rows wins."""
    xp = _xp(x._data)
    win = _winners(index, x._data.shape[axis], xp)
    if win is not None:
        index = index[win]
        v = apply(_take, v, _wrap(win), axis=axis)
    nkey, plan = rows_key(x._data.shape, index, axis, xp)
    return apply(_setitem, x, v, key=nkey, plan=plan)


def _zero_rows(x, index, axis=0):
    # writing a constant: repeats are harmless and no plan for a value gradient is needed
    return apply(_setitem, x, 0, key=(slice(None),) * axis + (index,), plan=None)


# ---------------------------------------------------------------------------------
# scatter


def _scatter_args(x, index, updates, op):
    x = tensor_arg(x, "x", op)
    if x.ndim == 0:
        raise ValueError(f"{op}: x must have at least 1 dimension, got a 0-D tensor")
    index = _row_index(index_arg(index, op, like=x), op, allow_0d=True)
    updates = _value_like(updates, x, op, "updates")
    if index.ndim == 0:
        index = _wrap(index._data.reshape(1))
        if updates.shape == x.shape[1:]:
            updates = reshape_exact(updates, [1] + updates.shape)
    want = [index._data.shape[0]] + x.shape[1:]
    if updates.shape != want:
        raise ValueError(f"{op}: updates must have shape {want} (len(index) rows of x's row "
                         f"shape), got {updates.shape}")
    index = _checked(index, x._data.shape[0], op, 0)
    return x, index, updates


def _scatter(x, index, updates, overwrite):
    if overwrite:
        return _assign_rows(x, index._data, updates)
    # Paddle's accumulate mode: the indexed rows are zeroed, then every update is added
    return apply(_index_add, _zero_rows(x, index._data), updates, index, axis=0)


def scatter(x, index, updates, overwrite=True, name=None):
    """``x`` with rows ``index`` replaced by ``updates`` (Paddle semantics).

    ``index``: 1-D int (entries in ``[0, n)``); ``updates``: ``[len(index), *x.shape[1:]]``.
    ``overwrite=True``: for a repeated index the *last* update wins (weft's
    deterministic choice; Paddle leaves it unspecified). ``overwrite=False``: the
    indexed rows are first zeroed, then all their updates are summed in.

    >>> import weft
    >>> x = weft.zeros([3, 2])
    >>> i = weft.to_tensor([1, 1])
    >>> u = weft.to_tensor([[1.0, 1.0], [2.0, 2.0]])
    >>> weft.scatter(x, i, u).tolist(), weft.scatter(x, i, u, overwrite=False).tolist()
    ([[0.0, 0.0], [2.0, 2.0], [0.0, 0.0]], [[0.0, 0.0], [3.0, 3.0], [0.0, 0.0]])
    """
    x, index, updates = _scatter_args(x, index, updates, "scatter")
    return _scatter(x, index, updates, overwrite)


def scatter_(x, index, updates, overwrite=True, name=None):
    """In-place :func:`scatter`."""
    x, index, updates = _scatter_args(x, index, updates, "scatter_")
    return inplace(x, lambda old: _scatter(old, index, updates, overwrite), "scatter_")


# ---------------------------------------------------------------------------------
# gather_nd / scatter_nd


def _nd_index(index, shape, op):
    """Flat row positions of an ``[..., k]`` index into the first k dims of ``shape``."""
    d = index._data
    if d.ndim == 0:
        raise ValueError(f"{op}: index must have at least 1 dimension, got a 0-D tensor")
    k = d.shape[-1]
    if k > len(shape):
        raise ValueError(f"{op}: index.shape[-1] = {k} exceeds the rank {len(shape)} of x")
    xp = _xp(d)
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
    return _wrap(lin), k


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
    lin, k = _nd_index(index, x.shape, "gather_nd")
    xr = reshape_exact(x, [_prod(x.shape[:k])] + x.shape[k:])
    return apply(_take, xr, lin, axis=0)


def _nd_add(x, index, updates, op):
    lin, k = _nd_index(index, x.shape, op)
    want = list(index._data.shape[:-1]) + x.shape[k:]
    if updates.shape != want:
        raise ValueError(f"{op}: updates must have shape index.shape[:-1] + x.shape[k:] = "
                         f"{want}, got {updates.shape}")
    rest = x.shape[k:]
    xr = reshape_exact(x, [_prod(x.shape[:k])] + rest)
    u = reshape_exact(updates, [lin._data.size] + rest)
    out = apply(_index_add, xr, u, _wrap(lin._data.reshape(-1)), axis=0)
    return reshape_exact(out, x.shape)


def scatter_nd_add(x, index, updates, name=None):
    """``x`` plus ``updates`` accumulated at the slices addressed by ``index`` ([..., k]);
    ``updates`` has shape ``index.shape[:-1] + x.shape[k:]``; repeats accumulate.

    >>> import weft
    >>> x = weft.zeros([3])
    >>> weft.scatter_nd_add(x, weft.to_tensor([[1], [1]]), weft.to_tensor([1.0, 2.0])).tolist()
    [0.0, 3.0, 0.0]
    """
    x = tensor_arg(x, "x", "scatter_nd_add")
    index = index_arg(index, "scatter_nd_add", like=x)
    updates = _value_like(updates, x, "scatter_nd_add", "updates")
    return _nd_add(x, index, updates, "scatter_nd_add")


def scatter_nd(index, updates, shape, name=None):
    """:func:`scatter_nd_add` into zeros of ``shape`` (and ``updates``' dtype)."""
    index = index_arg(index, "scatter_nd")
    updates = tensor_arg(updates, "updates", "scatter_nd")
    check_same_place(index, updates, "scatter_nd")
    shape = shape_arg(shape, "scatter_nd")
    if any(s < 0 for s in shape):
        raise ValueError(f"scatter_nd: shape must be non-negative, got {shape}")
    zeros = _wrap(_xp(updates._data).zeros(tuple(shape), dtype=updates._data.dtype))
    return _nd_add(zeros, index, updates, "scatter_nd")


# ---------------------------------------------------------------------------------
# index_put / index_fill


def _indices_arg(indices, x, op):
    if isinstance(indices, Tensor) or not isinstance(indices, (list, tuple)):
        raise TypeError(f"{op}: indices must be a tuple or list of Tensors, got "
                        f"{type(indices).__name__}")
    out = []
    for i, t in enumerate(indices):
        t = tensor_arg(t, f"indices[{i}]", op)
        if t._data.dtype.kind not in "iub":
            raise TypeError(f"{op}: indices[{i}] must be an integer or bool tensor, got "
                            f"{t._data.dtype.name}")
        check_same_place(x, t, op)
        out.append(t)
    return tuple(out)


def _index_put(x, indices, value, accumulate, op):
    if not accumulate:
        return setitem_out(x, indices, value, op)
    nkey, plan = _parse_key(x, indices, op)
    v = _value_like(value, x, op)
    if plan is None:  # only 0-D integer indices: one position
        return apply(_setitem, x, getitem(x, nkey) + _fit_value(v, [], op), key=nkey, plan=None)
    v = _fit_value(v, plan.shape, op)
    rest = plan.shape[plan.block + plan.nblock:]  # the block leads: indices are leading
    xr = reshape_exact(x, plan.merged) if plan.merged is not None else x
    vb = reshape_exact(broadcast_to(v, plan.shape), [plan.lin._data.size] + rest)
    out = apply(_index_add, xr, vb, _wrap(plan.lin._data.reshape(-1)), axis=0)
    return reshape_exact(out, x.shape)


def index_put(x, indices, value, accumulate=False, name=None):
    """``x`` with ``value`` written (or, with ``accumulate``, added) at ``x[indices]``.

    ``indices``: a tuple of integer or bool tensors, one per leading dimension, with
    numpy advanced-indexing semantics (negative entries count from the end);
    ``value`` broadcasts to the indexed shape. Without ``accumulate`` the last of
    repeated positions wins; with it they all add up.

    >>> import weft
    >>> x = weft.zeros([2, 2])
    >>> i = (weft.to_tensor([0, 0]), weft.to_tensor([1, 1]))
    >>> weft.index_put(x, i, weft.to_tensor([1.0, 2.0]), accumulate=True).tolist()
    [[0.0, 3.0], [0.0, 0.0]]
    """
    x = tensor_arg(x, "x", "index_put")
    indices = _indices_arg(indices, x, "index_put")
    return _index_put(x, indices, value, accumulate, "index_put")


def index_put_(x, indices, value, accumulate=False, name=None):
    """In-place :func:`index_put`."""
    x = tensor_arg(x, "x", "index_put_")
    indices = _indices_arg(indices, x, "index_put_")
    return inplace(x, lambda old: _index_put(old, indices, value, accumulate, "index_put_"),
                   "index_put_")


def _index_fill_args(x, index, axis, value, op):
    x = tensor_arg(x, "x", op)
    if x.ndim == 0:
        raise ValueError(f"{op}: x must have at least 1 dimension, got a 0-D tensor")
    index = _row_index(index_arg(index, op, like=x), op)
    axis = normalize_axis(axis, x.ndim, op)
    n = x._data.shape[axis]
    idx = check_range(index._data, n, op, "index", axis, negative=True)
    v = _value_like(value, x, op)
    if v.ndim != 0:
        raise ValueError(f"{op}: value must be a number or a 0-D tensor, got shape {v.shape}")
    mask = _xp(idx).zeros(n, dtype=bool)
    mask[idx] = True
    shape = [1] * x.ndim
    shape[axis] = n
    return x, _wrap(mask.reshape(shape)), v


def index_fill(x, index, axis, value, name=None):
    """``x`` with every entry at positions ``index`` along ``axis`` set to ``value``
    (a number or 0-D tensor, cast to x's dtype; differentiable in both).

    >>> import weft
    >>> x = weft.ones([2, 3])
    >>> weft.index_fill(x, weft.to_tensor([0, 2]), 1, -1.0).tolist()
    [[-1.0, 1.0, -1.0], [-1.0, 1.0, -1.0]]
    """
    x, mask, v = _index_fill_args(x, index, axis, value, "index_fill")
    return where(mask, v, x)


def index_fill_(x, index, axis, value, name=None):
    """In-place :func:`index_fill`."""
    x, mask, v = _index_fill_args(x, index, axis, value, "index_fill_")
    return inplace(x, lambda old: where(mask, v, old), "index_fill_")


# ---------------------------------------------------------------------------------
# take_along_axis / put_along_axis


def _along_args(arr, indices, axis, op):
    arr = tensor_arg(arr, "arr", op)
    indices = index_arg(indices, op, "indices", like=arr)
    if arr.ndim != indices.ndim:
        raise ValueError(f"{op}: indices must have the same number of dimensions as arr "
                         f"({arr.ndim}), got {indices.ndim}")
    if arr.ndim == 0:
        raise ValueError(f"{op}: arr must have at least 1 dimension, got a 0-D tensor")
    return arr, indices, normalize_axis(axis, arr.ndim, op)


def _fits(inner, outer):
    return all(a <= b for a, b in zip(inner, outer))


def _along_lin(ashape, idx, tshape, axis, op, zero_broadcast):
    """Flat positions in arr (shape ``ashape``) of the entries of ``idx`` (shape
    ``tshape``): arr's coordinates with the one along ``axis`` taken from ``idx``.
    With ``zero_broadcast``, size-1 dims of arr are read as broadcast (stride 0)."""
    xp = _xp(idx)
    idx = check_range(idx, ashape[axis], op, "indices", axis, negative=True)
    nd = len(ashape)
    strides = [_prod(ashape[d + 1:]) for d in range(nd)]
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
    arr, indices, axis = _along_args(arr, indices, axis, op)
    A, I = arr.shape, indices.shape
    if broadcast:
        if _fits(I, A):
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
    lin = _along_lin(A, indices._data, T, axis, op, zero_broadcast=broadcast)
    return apply(_take, reshape_exact(arr, [arr._data.size]), _wrap(lin), axis=0)


_REDUCES = ("assign", "add", "mul", "multiply", "mean", "amin", "amax")


def _put_reduce_fwd(base, vals, lin, reduce, include_self):
    xp = _xp(base)
    out = base.copy()
    if reduce == "mul":
        if xp is not np:  # CuPy has no scatter-multiply: one round trip through the host
            return xp.asarray(_put_reduce_fwd(base.get(), vals.get(), lin.get(), reduce,
                                              include_self))
        if not include_self:
            out[lin] = 1
        np.multiply.at(out, lin, vals)
        return out
    k = out.dtype.kind
    big = np.inf if k == "f" else True if k == "b" else np.iinfo(out.dtype).max
    if not include_self:
        out[lin] = (not big if k == "b" else -big) if reduce == "amax" else big
    if xp is np:
        (np.maximum if reduce == "amax" else np.minimum).at(out, lin, vals)
    else:
        import cupyx  # noqa: PLC0415

        (cupyx.scatter_max if reduce == "amax" else cupyx.scatter_min)(out, lin, vals)
    return out


def _no_grad_reduce(g, ans, base, vals, lin, reduce, include_self):
    raise NotImplementedError(f"put_along_axis: the gradient of reduce='{reduce}' is not "
                              "implemented (differentiable: 'assign', 'add', 'mean')")


_put_reduce = Primitive("put_along_axis", _put_reduce_fwd)
defvjp(_put_reduce, _no_grad_reduce, _no_grad_reduce, None, save=(), save_out=False)


def _put_along(arr, indices, values, axis, reduce, include_self, broadcast, op):
    if reduce not in _REDUCES:
        raise ValueError(f"{op}: reduce must be one of {list(_REDUCES)}, got {reduce!r}")
    if reduce == "multiply":
        reduce = "mul"
    if reduce in ("amax", "amin") and arr._data.dtype.kind == "c":
        raise TypeError(f"{op}: reduce='{reduce}' needs a real dtype, got "
                        f"{arr._data.dtype.name}")
    A, I = arr.shape, indices.shape
    v = _value_like(values, arr, op, "values")
    if any(d != axis and I[d] > A[d] for d in range(len(A))):
        raise ValueError(f"{op}: indices (shape {I}) must not be larger than arr (shape "
                         f"{A}) outside axis {axis}")
    if broadcast:
        T = list(I)
        if I[axis] <= A[axis]:  # Paddle broadcasts indices over arr's other dims
            T = list(A)
            T[axis] = I[axis]
            if any(d != axis and I[d] not in (1, T[d]) for d in range(len(A))):
                raise ValueError(f"{op}: indices of shape {I} do not broadcast to {T}")
        v = _fit_value(v, T, op)
        v = broadcast_to(v, T)
    else:
        T = list(I)
        if v._data.size == 1:
            v = broadcast_to(reshape_exact(v, [1] * len(T)), T)
        else:
            if v.ndim != len(T) or not _fits(T, v.shape):
                raise ValueError(f"{op}: without broadcast, values (shape {v.shape}) must "
                                 f"have indices' rank and be at least as large ({T})")
            if v.shape != T:
                v = getitem(v, tuple(slice(0, t) for t in T))
    lin = _along_lin(A, indices._data, T, axis, op, zero_broadcast=False).reshape(-1)
    flat = reshape_exact(arr, [arr._data.size])
    vals = reshape_exact(v, [lin.size])
    if reduce == "assign":
        out = _assign_rows(flat, lin, vals)
    elif reduce in ("add", "mean"):
        base = flat if include_self else _zero_rows(flat, lin)
        out = apply(_index_add, base, vals, _wrap(lin), axis=0)
        if reduce == "mean":
            out = _divide_counts(out, lin, flat._data.size, include_self)
    else:
        out = apply(_put_reduce, flat, vals, _wrap(lin), reduce=reduce,
                    include_self=bool(include_self))
    return reshape_exact(out, A)


def _divide_counts(s, lin, size, include_self):
    xp = _xp(lin)
    cnt = xp.bincount(lin, minlength=size)
    cnt = cnt + 1 if include_self else xp.maximum(cnt, 1)
    d = s._data.dtype
    if d.kind in "fc":
        return s / _wrap(cnt.astype(d))
    # integer mean truncates toward zero, like Paddle's kernel
    q = xp.abs(s._data) // cnt
    return _wrap(xp.where(s._data < 0, -q, q).astype(d))


def put_along_axis(arr, indices, values, axis, reduce="assign", include_self=True,
                   broadcast=True, name=None):
    """Write ``values`` into ``arr`` at ``indices`` along ``axis`` (inverse of
    :func:`take_along_axis`).

    ``reduce``: ``'assign'`` (the last of repeated positions wins), ``'add'``,
    ``'mul'``/``'multiply'``, ``'mean'``, ``'amax'``, ``'amin'``; ``include_self``
    says whether arr's own entries join the reduction. Differentiable for
    ``'assign'``, ``'add'`` and ``'mean'``; the other reductions have a forward
    only (their backward raises NotImplementedError).

    >>> import weft
    >>> x = weft.to_tensor([[10, 30, 20], [60, 40, 50]])
    >>> weft.put_along_axis(x, weft.to_tensor([[0]]), 99, 0).tolist()
    [[99, 99, 99], [60, 40, 50]]
    """
    op = "put_along_axis"
    arr, indices, axis = _along_args(arr, indices, axis, op)
    return _put_along(arr, indices, values, axis, reduce, include_self, broadcast, op)


def put_along_axis_(arr, indices, values, axis, reduce="assign", include_self=True,
                    broadcast=True, name=None):
    """In-place :func:`put_along_axis`."""
    op = "put_along_axis_"
    arr, indices, axis = _along_args(arr, indices, axis, op)
    return inplace(arr, lambda old: _put_along(old, indices, values, axis, reduce,
                                               include_self, broadcast, op), op)


# ---------------------------------------------------------------------------------
# masked ops and nonzero


def _mask_arg(mask, x, op):
    mask = tensor_arg(mask, "mask", op)
    if mask._data.dtype != np.bool_:
        raise TypeError(f"{op}: mask must be a bool tensor, got {mask._data.dtype.name}")
    check_same_place(x, mask, op)
    return mask


def _broadcast_pair(x, mask, op):
    try:
        shape = list(np.broadcast_shapes(tuple(x.shape), tuple(mask.shape)))
    except ValueError:
        raise ValueError(f"{op}: mask of shape {mask.shape} does not broadcast with x of "
                         f"shape {x.shape}") from None
    m = mask._data
    if list(m.shape) != shape:
        m = _xp(m).broadcast_to(m, tuple(shape))
    return broadcast_to(x, shape), _wrap(m)


def masked_select(x, mask, name=None):
    """The entries of ``x`` where ``mask`` (bool, broadcast with x) holds, as a 1-D tensor.

    >>> import weft
    >>> x = weft.to_tensor([[1.0, 2.0], [3.0, 4.0]])
    >>> weft.masked_select(x, x > 2).tolist()
    [3.0, 4.0]
    """
    x = tensor_arg(x, "x", "masked_select")
    mask = _mask_arg(mask, x, "masked_select")
    xb, mb = _broadcast_pair(x, mask, "masked_select")
    if xb.ndim == 0:
        xb, mb = reshape_exact(xb, [1]), _wrap(mb._data.reshape(1))
    return getitem(xb, mb)


def masked_fill(x, mask, value, name=None):
    """``x`` with ``value`` (a number or tensor, cast to x's dtype) where ``mask`` holds.

    >>> import weft
    >>> x = weft.to_tensor([1.0, 2.0, 3.0])
    >>> weft.masked_fill(x, x > 1.5, 0.0).tolist()
    [1.0, 0.0, 0.0]
    """
    x = tensor_arg(x, "x", "masked_fill")
    mask = _mask_arg(mask, x, "masked_fill")
    v = _value_like(value, x, "masked_fill")
    try:
        np.broadcast_shapes(tuple(x.shape), tuple(mask.shape), tuple(v.shape))
    except ValueError:
        raise ValueError(f"masked_fill: x {x.shape}, mask {mask.shape} and value {v.shape} "
                         "do not broadcast together") from None
    return where(mask, v, x)


def masked_fill_(x, mask, value, name=None):
    """In-place :func:`masked_fill` (mask and value must broadcast to x's shape)."""
    x = tensor_arg(x, "x", "masked_fill_")
    return inplace(x, lambda old: masked_fill(old, mask, value), "masked_fill_")


def masked_scatter(x, mask, value, name=None):
    """``x`` with the positions where ``mask`` holds filled, in row-major order, by the
    first ``mask.sum()`` entries of ``value`` (which needs at least that many).

    >>> import weft
    >>> x = weft.zeros([2, 2])
    >>> m = weft.to_tensor([[True, False], [True, True]])
    >>> weft.masked_scatter(x, m, weft.to_tensor([1.0, 2.0, 3.0, 4.0])).tolist()
    [[1.0, 0.0], [2.0, 3.0]]
    """
    op = "masked_scatter"
    x = tensor_arg(x, "x", op)
    mask = _mask_arg(mask, x, op)
    v = _value_like(value, x, op)
    xb, mb = _broadcast_pair(x, mask, op)
    k = int(mb._data.sum())
    if v._data.size < k:
        raise ValueError(f"{op}: mask selects {k} positions but value has only "
                         f"{v._data.size} elements")
    vflat = reshape_exact(v, [v._data.size])
    if k != v._data.size:
        vflat = getitem(vflat, slice(0, k))
    if xb.ndim == 0:
        out = setitem_out(reshape_exact(xb, [1]), _wrap(mb._data.reshape(1)), vflat, op)
        return reshape_exact(out, [])
    return setitem_out(xb, mb, vflat, op)


def masked_scatter_(x, mask, value, name=None):
    """In-place :func:`masked_scatter` (mask must broadcast to x's shape)."""
    x = tensor_arg(x, "x", "masked_scatter_")
    return inplace(x, lambda old: masked_scatter(old, mask, value), "masked_scatter_")


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
    xp = _xp(d)
    if d.ndim == 0:
        coords = xp.zeros((int(bool(d != 0)), 0), dtype=np.int64)
    else:
        coords = xp.stack([c.astype(np.int64) for c in d.nonzero()], axis=1)
    if not as_tuple:
        return _wrap(coords)
    return tuple(_wrap(xp.ascontiguousarray(coords[:, i:i + 1])) for i in range(d.ndim))


__all__ = ["scatter", "scatter_", "gather_nd", "scatter_nd", "scatter_nd_add", "index_put",
           "index_put_", "index_fill", "index_fill_", "take_along_axis", "put_along_axis",
           "put_along_axis_", "masked_select", "masked_fill", "masked_fill_",
           "masked_scatter", "masked_scatter_", "nonzero"]
__tensor_methods__ = {n: globals()[n] for n in __all__ if n != "scatter_nd"}
