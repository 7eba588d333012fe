"""Scans along one axis: cumulative sums, products, log-sum-exp, running extrema, and
``diff``."""
from __future__ import annotations

import numpy as np

from ...autograd.engine import apply, defvjp, Primitive
from ...autograd.inplace import inplace
from ...core import dtype as _dt
from ...core.args import accept_aliases, dtype_arg, normalize_axis, tensor_arg, xp_of
from ...core.tensor import Tensor
from ..cast import cast
from ..math.ufuncs import exp, where
from ..shape.views import broadcast_to, reshape
from ._helpers import (cast_dtype, cumprod_p, cumsum_p, float_input, index_add, no_complex, pad,
                       pad_fwd, rev_cumsum, revscan_p, running, shift_left, slice_axis,
                       slice_fwd)


def _scan_prep(x, axis, op, arg="axis"):
    """(tensor to scan, axis, output shape): axis None scans the flattened tensor; a 0-D
    tensor is scanned as one element and keeps its shape."""
    x = tensor_arg(x, "x", op)
    shape = x.shape
    if x.ndim == 0:
        if axis is not None:
            normalize_axis(axis, 0, op, arg)
        return reshape(x, [1]), 0, shape
    if axis is None:
        return reshape(x, [-1]), 0, [x._data.size]
    return x, normalize_axis(axis, x.ndim, op, arg), shape


def _scan_public(prim, x, axis, dtype, op, arg="axis"):
    t, a, shape = _scan_prep(x, axis, op, arg)
    t = cast_dtype(t, dtype, op)
    if t._data.dtype == np.bool_:
        t = cast(t, _dt.int64)
    r = apply(prim, t, axis=a)
    return r if r.shape == list(shape) else reshape(r, shape)


def cumsum(x, axis=None, dtype=None, name=None):
    """Cumulative sum along ``axis`` (the flattened tensor when None). The result keeps
    the input dtype (bool becomes int64) unless ``dtype`` casts the input first.

    >>> import weft
    >>> weft.cumsum(weft.to_tensor([[1, 2], [3, 4]]), axis=0).tolist()
    [[1, 2], [4, 6]]
    >>> weft.cumsum(weft.to_tensor([[1, 2], [3, 4]])).tolist()
    [1, 3, 6, 10]
    """
    return _scan_public(cumsum_p, x, axis, dtype, "cumsum")


def cumprod(x, dim=None, dtype=None, name=None):
    """Cumulative product along ``dim`` (the flattened tensor when None); dtype rules as
    :func:`cumsum`. The gradient is exact with zeros in the input.

    >>> import weft
    >>> weft.cumprod(weft.to_tensor([1.0, 2.0, 3.0]), dim=0).tolist()
    [1.0, 2.0, 6.0]
    """
    return _scan_public(cumprod_p, x, dim, dtype, "cumprod", "dim")


def cumsum_(x, axis=None, dtype=None, name=None):
    """In-place :func:`cumsum`; the tensor keeps its shape (axis None scans it flattened)."""
    shape = tensor_arg(x, "x", "cumsum_").shape
    return inplace(x, lambda old: reshape(cumsum(old, axis, dtype), shape), "cumsum_")


def cumprod_(x, dim=None, dtype=None, name=None):
    """In-place :func:`cumprod`; the tensor keeps its shape (dim None scans it flattened)."""
    shape = tensor_arg(x, "x", "cumprod_").shape
    return inplace(x, lambda old: reshape(cumprod(old, dim, dtype), shape), "cumprod_")


def _lcse_fwd(x, axis):
    xp = xp_of(x)
    with np.errstate(all="ignore"):
        if xp is np:
            return np.logaddexp.accumulate(x, axis=axis)
        # no ufunc.accumulate for logaddexp on the GPU: shift by the slice maximum
        m = xp.max(x, axis=axis, keepdims=True) if x.shape[axis] else x
        m = xp.where(xp.isfinite(m), m, 0)
        return xp.log(xp.cumsum(xp.exp(x - m), axis=axis)) + m


def _lcse_vjp(g, ans, x, axis):
    # dL/dx_i = sum_{k>=i} g_k exp(x_i - out_k); out is nondecreasing along the axis
    a = ans._data
    n = a.shape[axis]
    if n == 0:
        return g
    span = 600.0 if a.dtype == np.float64 else 60.0
    if bool(np.isfinite(a).all()) and float(np.max(a) - np.min(a)) < span:
        top = Tensor._wrap(np.max(a, axis=axis, keepdims=True))
        return exp(x - top) * rev_cumsum(g * exp(top - ans), axis)
    # wide range or infinities: T_i = g_i + exp(out_i - out_{i+1}) T_{i+1} has
    # coefficients in [0, 1], and -inf entries (whose gradient is 0) are masked out
    # before exp so that no NaN reaches the value or its derivatives
    neg = np.isneginf(a)
    dead = Tensor._wrap(neg)
    dead_pair = Tensor._wrap(neg | pad_fwd(slice_fwd(neg, 1, n, axis), 0, 1, axis, False))
    nxt = shift_left(ans, axis)
    zero = Tensor._wrap(xp_of(a).zeros_like(a))
    with np.errstate(invalid="ignore"):  # inf - inf in the masked-out entries
        step = where(dead_pair, zero, ans - nxt)
        lead = where(dead, zero, x - ans)
    t = apply(revscan_p, g, where(dead_pair, zero, exp(step)), axis=axis)
    return where(dead, zero, exp(lead)) * t


_lcse_p = Primitive("logcumsumexp", _lcse_fwd)
defvjp(_lcse_p, _lcse_vjp)


def logcumsumexp(x, axis=None, dtype=None, name=None):
    """``log(cumsum(exp(x)))`` along ``axis`` (flattened when None), computed stably.
    Integer inputs use the default float dtype; ``dtype`` casts the input first.

    >>> import weft
    >>> [round(v, 4) for v in weft.logcumsumexp(weft.to_tensor([0.0, 0.0, 0.0])).tolist()]
    [0.0, 0.6931, 1.0986]
    """
    t, a, shape = _scan_prep(x, axis, "logcumsumexp")
    no_complex(t, "logcumsumexp")
    t = float_input(cast_dtype(t, dtype, "logcumsumexp"), "logcumsumexp")
    r = apply(_lcse_p, t, axis=a)
    return r if r.shape == list(shape) else reshape(r, shape)


def _cum_extreme_fwd(x, axis, greater, dtype):
    xp = xp_of(x)
    v = running("maximum" if greater else "minimum", x, axis)
    n = x.shape[axis]
    pos = xp.arange(n).reshape([n if i == axis else 1 for i in range(x.ndim)])
    # a position is a new running extreme when it equals the running value (ties: the
    # last one wins, as Paddle's >=) or is NaN (which then propagates)
    hit = (x == v) | xp.isnan(x) if x.dtype.kind == "f" else (x == v)
    idx = running("maximum", xp.where(hit, pos, 0), axis)
    return v, idx.astype(dtype)


def _cum_extreme_vjp(g, ans, x, axis, greater, dtype):
    return index_add(g[0], ans[1]._data, x.shape, axis)


_cum_extreme_p = Primitive("cum_extreme", _cum_extreme_fwd, n_out=2)
defvjp(_cum_extreme_p, _cum_extreme_vjp, save=())


def _cum_extreme(opname, greater):
    def op(x, axis=None, dtype="int64", name=None):
        t, a, shape = _scan_prep(x, axis, opname)
        if t._data.dtype.kind not in "iuf":
            raise TypeError(f"{opname}: x must be a float or integer tensor, got "
                            f"{t._data.dtype.name}")
        d = dtype_arg(dtype, opname)
        if d not in (_dt.int32, _dt.int64):
            raise TypeError(f"{opname}: dtype must be int32 or int64, got {d}")
        v, i = apply(_cum_extreme_p, t, axis=a, greater=greater, dtype=d)
        if v.shape != list(shape):
            v, i = reshape(v, shape), Tensor._wrap(i._data.reshape(shape))
        return v, i

    op.__name__ = op.__qualname__ = opname
    word = "maximum" if greater else "minimum"
    op.__doc__ = (f"Running {word} along ``axis`` (flattened when None) and the index where "
                  f"it was attained, as ``(values, indices)``. On ties the later index wins; "
                  "a NaN propagates. The gradient goes to the attaining element.")
    return op


cummax = _cum_extreme("cummax", True)
cummin = _cum_extreme("cummin", False)
cummax.__doc__ += ("\n\n>>> import weft\n>>> v, i = weft.cummax(weft.to_tensor([1, 3, 2, 5]))"
                   "\n>>> v.tolist(), i.tolist()\n([1, 3, 3, 5], [0, 1, 1, 3])\n")


def _concat_axis(pieces, axis):
    """Concatenate along ``axis`` as a sum of zero-padded pieces (differentiable)."""
    if len(pieces) == 1:
        return pieces[0]
    total = 0
    for t in pieces:
        total += t.shape[axis]
    out, off = None, 0
    for t in pieces:
        n = t.shape[axis]
        part = pad(t, off, total - off - n, axis)
        out = part if out is None else out + part
        off += n
    return out


def _edge(v, x, axis, arg):
    v = tensor_arg(v, arg, "diff")
    if v.ndim == 0:
        shape = x.shape
        shape[axis] = 1
        return broadcast_to(reshape(v, [1] * x.ndim), shape)
    if v.ndim != x.ndim or any(s != t for i, (s, t) in enumerate(zip(v.shape, x.shape))
                               if i != axis):
        raise ValueError(f"diff: {arg} of shape {v.shape} must match x of shape {x.shape} "
                         f"except along axis {axis}")
    return v


def diff(x, n=1, axis=-1, prepend=None, append=None, name=None):
    """The ``n``-th forward difference ``x[i+1] - x[i]`` along ``axis``, after
    concatenating ``prepend`` and ``append`` (tensors matching x except along ``axis``,
    or scalars) to x. Bool inputs give ``x[i+1] != x[i]``.

    >>> import weft
    >>> weft.diff(weft.to_tensor([1, 4, 9, 16])).tolist()
    [3, 5, 7]
    >>> weft.diff(weft.to_tensor([1.0, 4.0]), prepend=weft.to_tensor([0.0])).tolist()
    [1.0, 3.0]
    """
    x = tensor_arg(x, "x", "diff")
    if not isinstance(n, (int, np.integer)) or isinstance(n, bool):
        raise TypeError(f"diff: n must be an int, got {type(n).__name__}")
    if n < 0:
        raise ValueError(f"diff: n must be non-negative, got {n}")
    if n == 0:
        return x
    if x.ndim == 0:
        raise ValueError("diff: x must be at least 1-D, got a 0-D tensor")
    a = normalize_axis(axis, x.ndim, "diff")
    pieces = [x]
    if prepend is not None:
        pieces.insert(0, _edge(prepend, x, a, "prepend"))
    if append is not None:
        pieces.append(_edge(append, x, a, "append"))
    dt = pieces[0]._data.dtype
    for t in pieces[1:]:
        dt = _dt.promote_types(dt, t._data.dtype)
    if any(t._data.dtype != dt for t in pieces):
        from ..cast import cast  # noqa: PLC0415

        pieces = [t if t._data.dtype == dt else cast(t, dt) for t in pieces]
    t = _concat_axis(pieces, a)
    for _ in range(n):
        m = t.shape[a]
        if m == 0:
            break
        hi, lo = slice_axis(t, 1, m, a), slice_axis(t, 0, m - 1, a)
        t = (hi != lo) if dt == np.bool_ else hi - lo
    return t


# Paddle 3's torch-style keywords (input=, dim=) are accepted too
for _n in ["cumsum", "cumprod", "cumsum_", "cumprod_", "logcumsumexp", "cummax", "cummin", "diff"]:
    globals()[_n] = accept_aliases(globals()[_n])
del _n
__all__ = ["cumsum", "cumprod", "cumsum_", "cumprod_", "logcumsumexp", "cummax", "cummin", "diff"]
__tensor_methods__ = {"cumsum": cumsum, "cumprod": cumprod, "cumsum_": cumsum_, "cumprod_": cumprod_, "logcumsumexp": logcumsumexp, "cummax": cummax, "cummin": cummin, "diff": diff}
