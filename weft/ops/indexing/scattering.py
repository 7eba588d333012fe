"""Writing by index: scatter and scatter_nd, index_add/index_put/index_fill,
put_along_axis, masked_fill and masked_scatter, and their in-place forms."""
from __future__ import annotations

import numpy as np

from ...autograd.engine import apply, defvjp, Primitive
from ...autograd.inplace import inplace
from ...core.args import check_same_place, normalize_axis, shape_arg, tensor_arg, xp_of
from ...core.scatter import max_at, min_at
from ...core.tensor import Tensor
from ..math.ufuncs import where
from ..primitives import index_add as add_rows, take
from ..shape.views import broadcast_to, reshape_exact
from .gathering import (along_args, along_lin, broadcast_pair, checked, fits, mask_arg,
                        nd_index, prod_of, row_index)
from .getitem import (check_range, fit_value, getitem, index_arg, last_occurrence, parse_key,
                      rows_key, setitem_out, setitem_p, value_like, wrap)


def _index_add_args(x, index, axis, value, op):
    x = tensor_arg(x, "x", op)
    if x.ndim == 0:
        raise ValueError(f"{op}: x must have at least 1 dimension, got a 0-D tensor")
    index = row_index(index_arg(index, op, like=x), op)
    axis = normalize_axis(axis, x.ndim, op)
    index = checked(index, x._data.shape[axis], op, axis)
    value = value_like(value, x, op)
    want = x.shape
    want[axis] = index._data.shape[0]
    if value.shape != want:
        raise ValueError(f"{op}: value must have shape {want} (x's shape with axis {axis} "
                         f"of length len(index)), got {value.shape}")
    return x, index, axis, value


def index_add(x, index, axis, value, name=None):
    """``x`` with ``value`` added along ``axis`` at ``index`` (repeats accumulate).

    ``value`` has x's shape except ``len(index)`` along ``axis``; index entries lie in
    ``[0, n)``. Uses the native ``index_add_`` kernel on CPU.

    >>> import weft
    >>> x = weft.zeros([3, 2])
    >>> weft.index_add(x, weft.to_tensor([0, 0, 2]), 0, weft.ones([3, 2])).tolist()
    [[2.0, 2.0], [0.0, 0.0], [1.0, 1.0]]
    """
    x, index, axis, value = _index_add_args(x, index, axis, value, "index_add")
    return add_rows(x, value, index, axis)


def index_add_(x, index, axis, value, name=None):
    """In-place :func:`index_add`."""
    x2, index, axis, value = _index_add_args(x, index, axis, value, "index_add_")
    return inplace(x2, lambda old: add_rows(old, value, index, axis),
                   "index_add_")


def _winners(lin, size, xp):
    """Positions of the last occurrence of each repeated entry of 1-D ``lin`` (None if
    there are no repeats)."""
    return last_occurrence(lin, size, xp) if lin.size > 1 else None


def _assign_rows(x, index, v, axis=0):
    """``x`` with ``v`` written at rows ``index`` (1-D array) along ``axis``; the last of
    repeated rows wins."""
    xp = xp_of(x._data)
    win = _winners(index, x._data.shape[axis], xp)
    if win is not None:
        index = index[win]
        v = take(v, wrap(win), axis)
    nkey, plan = rows_key(x._data.shape, index, axis, xp)
    return apply(setitem_p, x, v, key=nkey, plan=plan)


def _zero_rows(x, index, axis=0):
    # writing a constant: repeats are harmless and no plan for a value gradient is needed
    return apply(setitem_p, x, 0, key=(slice(None),) * axis + (index,), plan=None)


def _scatter_args(x, index, updates, op):
    x = tensor_arg(x, "x", op)
    if x.ndim == 0:
        raise ValueError(f"{op}: x must have at least 1 dimension, got a 0-D tensor")
    index = row_index(index_arg(index, op, like=x), op, allow_0d=True)
    updates = value_like(updates, x, op, "updates")
    if index.ndim == 0:
        index = wrap(index._data.reshape(1))
        if updates.shape == x.shape[1:]:
            updates = reshape_exact(updates, [1] + updates.shape)
    want = [index._data.shape[0]] + x.shape[1:]
    if updates.shape != want:
        raise ValueError(f"{op}: updates must have shape {want} (len(index) rows of x's row "
                         f"shape), got {updates.shape}")
    index = checked(index, x._data.shape[0], op, 0)
    return x, index, updates


def _scatter(x, index, updates, overwrite):
    if overwrite:
        return _assign_rows(x, index._data, updates)
    # Paddle's accumulate mode: the indexed rows are zeroed, then every update is added
    return add_rows(_zero_rows(x, index._data), updates, index, 0)


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


def _nd_add(x, index, updates, op):
    lin, k = nd_index(index, x.shape, op)
    want = list(index._data.shape[:-1]) + x.shape[k:]
    if updates.shape != want:
        raise ValueError(f"{op}: updates must have shape index.shape[:-1] + x.shape[k:] = "
                         f"{want}, got {updates.shape}")
    rest = x.shape[k:]
    xr = reshape_exact(x, [prod_of(x.shape[:k])] + rest)
    u = reshape_exact(updates, [lin._data.size] + rest)
    out = add_rows(xr, u, wrap(lin._data.reshape(-1)), 0)
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
    updates = value_like(updates, x, "scatter_nd_add", "updates")
    return _nd_add(x, index, updates, "scatter_nd_add")


def scatter_nd(index, updates, shape, name=None):
    """:func:`scatter_nd_add` into zeros of ``shape`` (and ``updates``' dtype)."""
    index = index_arg(index, "scatter_nd")
    updates = tensor_arg(updates, "updates", "scatter_nd")
    check_same_place(index, updates, "scatter_nd")
    shape = shape_arg(shape, "scatter_nd")
    if any(s < 0 for s in shape):
        raise ValueError(f"scatter_nd: shape must be non-negative, got {shape}")
    zeros = wrap(xp_of(updates._data).zeros(tuple(shape), dtype=updates._data.dtype))
    return _nd_add(zeros, index, updates, "scatter_nd")


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
    nkey, plan = parse_key(x, indices, op)
    v = value_like(value, x, op)
    if plan is None:  # only 0-D integer indices: one position
        return apply(setitem_p, x, getitem(x, nkey) + fit_value(v, [], op), key=nkey, plan=None)
    v = fit_value(v, plan.shape, op)
    rest = plan.shape[plan.block + plan.nblock:]  # the block leads: indices are leading
    xr = reshape_exact(x, plan.merged) if plan.merged is not None else x
    vb = reshape_exact(broadcast_to(v, plan.shape), [plan.lin._data.size] + rest)
    out = add_rows(xr, vb, wrap(plan.lin._data.reshape(-1)), 0)
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
    index = row_index(index_arg(index, op, like=x), op)
    axis = normalize_axis(axis, x.ndim, op)
    n = x._data.shape[axis]
    idx = check_range(index._data, n, op, "index", axis, negative=True)
    v = value_like(value, x, op)
    if v.ndim != 0:
        raise ValueError(f"{op}: value must be a number or a 0-D tensor, got shape {v.shape}")
    mask = xp_of(idx).zeros(n, dtype=bool)
    mask[idx] = True
    shape = [1] * x.ndim
    shape[axis] = n
    return x, wrap(mask.reshape(shape)), v


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


_REDUCES = ("assign", "add", "mul", "multiply", "mean", "amin", "amax")


def _put_reduce_fwd(base, vals, lin, reduce, include_self):
    xp = xp_of(base)
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
    (max_at if reduce == "amax" else min_at)(out, lin, vals)
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
    v = value_like(values, arr, op, "values")
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
        v = fit_value(v, T, op)
        v = broadcast_to(v, T)
    else:
        T = list(I)
        if v._data.size == 1:
            v = broadcast_to(reshape_exact(v, [1] * len(T)), T)
        else:
            if v.ndim != len(T) or not fits(T, v.shape):
                raise ValueError(f"{op}: without broadcast, values (shape {v.shape}) must "
                                 f"have indices' rank and be at least as large ({T})")
            if v.shape != T:
                v = getitem(v, tuple(slice(0, t) for t in T))
    lin = along_lin(A, indices._data, T, axis, op, zero_broadcast=False).reshape(-1)
    flat = reshape_exact(arr, [arr._data.size])
    vals = reshape_exact(v, [lin.size])
    if reduce == "assign":
        out = _assign_rows(flat, lin, vals)
    elif reduce in ("add", "mean"):
        base = flat if include_self else _zero_rows(flat, lin)
        out = add_rows(base, vals, wrap(lin), 0)
        if reduce == "mean":
            out = _divide_counts(out, lin, flat._data.size, include_self)
    else:
        out = apply(_put_reduce, flat, vals, wrap(lin), reduce=reduce,
                    include_self=bool(include_self))
    return reshape_exact(out, A)


def _divide_counts(s, lin, size, include_self):
    xp = xp_of(lin)
    cnt = xp.bincount(lin, minlength=size)
    cnt = cnt + 1 if include_self else xp.maximum(cnt, 1)
    d = s._data.dtype
    if d.kind in "fc":
        return s / wrap(cnt.astype(d))
    # integer mean truncates toward zero, like Paddle's kernel
    q = xp.abs(s._data) // cnt
    return wrap(xp.where(s._data < 0, -q, q).astype(d))


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
    arr, indices, axis = along_args(arr, indices, axis, op)
    return _put_along(arr, indices, values, axis, reduce, include_self, broadcast, op)


def put_along_axis_(arr, indices, values, axis, reduce="assign", include_self=True,
                    broadcast=True, name=None):
    """In-place :func:`put_along_axis`."""
    op = "put_along_axis_"
    arr, indices, axis = along_args(arr, indices, axis, op)
    return inplace(arr, lambda old: _put_along(old, indices, values, axis, reduce,
                                               include_self, broadcast, op), op)


def masked_fill(x, mask, value, name=None):
    """``x`` with ``value`` (a number or tensor, cast to x's dtype) where ``mask`` holds.

    >>> import weft
    >>> x = weft.to_tensor([1.0, 2.0, 3.0])
    >>> weft.masked_fill(x, x > 1.5, 0.0).tolist()
    [1.0, 0.0, 0.0]
    """
    x = tensor_arg(x, "x", "masked_fill")
    mask = mask_arg(mask, x, "masked_fill")
    v = value_like(value, x, "masked_fill")
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
    mask = mask_arg(mask, x, op)
    v = value_like(value, x, op)
    xb, mb = broadcast_pair(x, mask, op)
    k = int(mb._data.sum())
    if v._data.size < k:
        raise ValueError(f"{op}: mask selects {k} positions but value has only "
                         f"{v._data.size} elements")
    vflat = reshape_exact(v, [v._data.size])
    if k != v._data.size:
        vflat = getitem(vflat, slice(0, k))
    if xb.ndim == 0:
        out = setitem_out(reshape_exact(xb, [1]), wrap(mb._data.reshape(1)), vflat, op)
        return reshape_exact(out, [])
    return setitem_out(xb, mb, vflat, op)


def masked_scatter_(x, mask, value, name=None):
    """In-place :func:`masked_scatter` (mask must broadcast to x's shape)."""
    x = tensor_arg(x, "x", "masked_scatter_")
    return inplace(x, lambda old: masked_scatter(old, mask, value), "masked_scatter_")


__all__ = ["index_add", "index_add_", "scatter", "scatter_", "scatter_nd_add", "scatter_nd", "index_put", "index_put_", "index_fill", "index_fill_", "put_along_axis", "put_along_axis_", "masked_fill", "masked_fill_", "masked_scatter", "masked_scatter_"]
__tensor_methods__ = {"index_add": index_add, "index_add_": index_add_, "scatter": scatter, "scatter_": scatter_, "scatter_nd_add": scatter_nd_add, "index_put": index_put, "index_put_": index_put_, "index_fill": index_fill, "index_fill_": index_fill_, "put_along_axis": put_along_axis, "put_along_axis_": put_along_axis_, "masked_fill": masked_fill, "masked_fill_": masked_fill_, "masked_scatter": masked_scatter, "masked_scatter_": masked_scatter_}
