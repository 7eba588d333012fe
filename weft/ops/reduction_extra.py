"""More reductions and scans: nansum, nanmean, prod, max/min, arg-reductions, all/any,
logsumexp, var/std, count_nonzero, and the cumulative ops (cumsum, cumprod, cummax,
cummin, logcumsumexp). Order statistics, norms and counting live in
``reduction_stats`` (re-exported from here).

Gradient conventions, stated once:

* ``max``/``min``/``amax``/``amin`` split the gradient evenly among tied extrema (also
  NaN ties: a NaN result sends the gradient to the NaN entries).
* ``prod`` and ``cumprod`` are exact with zeros in the input, for every derivative
  order: without zeros the vjps divide the output by the input; with zeros they use
  products of everything but the element (``prod``: exclusive cumulative products from
  both sides) or a reverse linear recurrence (``cumprod``), never a division by zero.
* ``logsumexp`` shifts by the maximum and ``logcumsumexp`` accumulates ``logaddexp``;
  their vjps are written in differences ``x - out`` (``out`` is nondecreasing along a
  logcumsumexp), so neither the values nor the gradients overflow.

A few private primitives (flip, slice/pad along an axis, gather/scatter-add along an
axis, a reverse linear scan) carry the vjps; each has a vjp made of the others, so
higher derivatives work through them.
"""
from __future__ import annotations

import functools
import inspect

import numpy as np

from ..autograd.engine import Primitive, apply, defvjp
from ..autograd.inplace import inplace
from ..core import dtype as _dt
from ..core.tensor import Tensor
from ..core.args import dtype_arg, normalize_axes, normalize_axis, tensor_arg, xp_of
from .cast import cast
from .logic import isnan
from .math import cj, conj, exp, real, sqrt, where
from .reduction import expand_reduced, mean as _mean, sum as _sum
from .shape import reshape, transpose

_INT_KINDS = "biu"


# ---------------------------------------------------------------------------------
# argument helpers


def _arr(a):
    """A backend array from a numpy scalar or array result."""
    return a if isinstance(a, np.ndarray) or hasattr(a, "__cuda_array_interface__") \
        else np.asarray(a)


def _keepdim(keepdim, op):
    if not isinstance(keepdim, (bool, np.bool_, int, np.integer)):
        raise TypeError(f"{op}: keepdim must be a bool, got {type(keepdim).__name__}")
    return bool(keepdim)


def _reduce_args(x, axis, keepdim, op):
    """(tensor, sorted axes, keepdim); an empty axis list means all axes (Paddle)."""
    x = tensor_arg(x, "x", op)
    if isinstance(axis, (list, tuple)) and len(axis) == 0:
        axis = None
    return x, normalize_axes(axis, x.ndim, op), _keepdim(keepdim, op)


def _kept_shape(shape, axes):
    return tuple(1 if i in axes else s for i, s in enumerate(shape))


def _out_shape(shape, axes, keepdim):
    if keepdim:
        return _kept_shape(shape, axes)
    return tuple(s for i, s in enumerate(shape) if i not in axes)


def _reduced_size(shape, axes):
    n = 1
    for a in axes:
        n *= shape[a]
    return n


def _no_complex(x, op):
    if x._data.dtype.kind == "c":
        raise TypeError(f"{op}: complex input is not supported (got {x._data.dtype.name})")


def _float_input(x, op):
    """Integer and bool inputs of float-valued reductions become the default float dtype."""
    if x._data.dtype.kind in _INT_KINDS:
        return cast(x, _dt.default_float())
    return x


def _cast_dtype(x, dtype, op):
    d = dtype_arg(dtype, op)
    if d is not None and d != x._data.dtype:
        x = cast(x, d)
    return x


def _nan_const(shape, like):
    xp = xp_of(like)
    d = like._data.dtype
    rd = d if d.kind in "fc" else _dt.default_float()
    return Tensor._wrap(xp.full(tuple(shape), np.nan, dtype=rd))


# ---------------------------------------------------------------------------------
# private primitives along one axis (the building blocks of the vjps)


def _ix(axis, sl):
    return (slice(None),) * axis + (sl,)


def _slice_fwd(x, start, stop, axis):
    return x[_ix(axis, slice(start, stop))].copy()


def _pad_fwd(x, before, after, axis, value):
    xp = xp_of(x)
    shape = list(x.shape)
    n = shape[axis]
    shape[axis] = n + before + after
    out = xp.full(tuple(shape), value, dtype=x.dtype)
    out[_ix(axis, slice(before, before + n))] = x
    return out


def _index_add_fwd(src, idx, shape, axis):
    """Zeros of ``shape`` with ``src`` added at positions ``idx`` along ``axis``."""
    xp = xp_of(src)
    out = xp.zeros(shape, dtype=src.dtype)
    ix = []
    for d, n in enumerate(idx.shape):
        if d == axis:
            ix.append(idx)
        else:
            r = [1] * idx.ndim
            r[d] = n
            ix.append(xp.arange(n).reshape(r))
    if xp is np:
        np.add.at(out, tuple(ix), src)
    else:
        import cupyx  # noqa: PLC0415  (GPU only)

        cupyx.scatter_add(out, tuple(ix), src)
    return out


def _revscan_fwd(g, c, axis):
    """S[k] = g[k] + c[k] * S[k+1] along ``axis`` (S[n-1] = g[n-1])."""
    xp = xp_of(g)
    gm = xp.moveaxis(g, axis, 0)
    cm = xp.moveaxis(c, axis, 0)
    out = xp.empty(gm.shape, dtype=np.result_type(g.dtype, c.dtype))
    n = gm.shape[0]
    if n:
        acc = gm[n - 1]
        out[n - 1] = acc
        for k in range(n - 2, -1, -1):
            acc = gm[k] + cm[k] * acc
            out[k] = acc
    return xp.ascontiguousarray(xp.moveaxis(out, 0, axis))


_flip_p = Primitive("flip", lambda x, axis: xp_of(x).flip(x, axis).copy())
_slice_p = Primitive("slice_axis", _slice_fwd)
_pad_p = Primitive("pad_axis", _pad_fwd)
_take_p = Primitive("take_along_axis", lambda x, idx, axis: xp_of(x).take_along_axis(x, idx, axis))
_index_add_p = Primitive("index_add_axis", _index_add_fwd)
_revscan_p = Primitive("reverse_linear_scan", _revscan_fwd)


def _flip(t, axis):
    return apply(_flip_p, t, axis=axis)


def _slice(t, start, stop, axis):
    return apply(_slice_p, t, start=start, stop=stop, axis=axis)


def _pad(t, before, after, axis, value=0):
    return apply(_pad_p, t, before=before, after=after, axis=axis, value=value)


def _take(t, idx, axis):
    """Differentiable ``take_along_axis`` with a constant backend index array."""
    return apply(_take_p, t, idx=idx, axis=axis % t.ndim)


def _index_add(src, idx, shape, axis):
    return apply(_index_add_p, src, idx=idx, shape=tuple(shape), axis=axis % len(shape))


def _shift_left(t, axis):
    """t[k+1] at k, 0 at the end."""
    n = t.shape[axis]
    return _pad(_slice(t, 1, n, axis), 0, 1, axis)


def _shift_right(t, axis, value=0):
    """t[k-1] at k, ``value`` at the start."""
    n = t.shape[axis]
    return _pad(_slice(t, 0, n - 1, axis), 1, 0, axis, value)


def _revscan_vjp_g(h, ans, g, c, axis):
    # the adjoint of the reverse recurrence is the forward one with conj(c) shifted by one
    return _flip(apply(_revscan_p, _flip(h, axis), _flip(cj(_shift_right(c, axis)), axis),
                       axis=axis), axis)


def _revscan_vjp_c(h, ans, g, c, axis):
    return _revscan_vjp_g(h, ans, g, c, axis) * cj(_shift_left(ans, axis))


_no_save = dict(save=(), save_out=False)
defvjp(_flip_p, lambda g, ans, x, axis: _flip(g, axis), **_no_save)
defvjp(_slice_p, lambda g, ans, x, start, stop, axis:
       _pad(g, start, x.shape[axis] - stop, axis), **_no_save)
defvjp(_pad_p, lambda g, ans, x, before, after, axis, value:
       _slice(g, before, before + x.shape[axis], axis), **_no_save)
defvjp(_take_p, lambda g, ans, x, idx, axis: _index_add(g, idx, x.shape, axis), **_no_save)
defvjp(_index_add_p, lambda g, ans, src, idx, shape, axis: _take(g, idx, axis), **_no_save)
defvjp(_revscan_p, _revscan_vjp_g, _revscan_vjp_c, save=(1,))


def _wrap_const(arr, dtype):
    return Tensor._wrap(_arr(arr).astype(dtype, copy=False))


# ---------------------------------------------------------------------------------
# nansum, nanmean, prod


def _nanmean_fwd(x, axis, keepdim):
    with np.errstate(invalid="ignore", divide="ignore"):
        cnt = np.sum(~np.isnan(x), axis=axis, keepdims=keepdim)
        return _arr(np.nansum(x, axis=axis, keepdims=keepdim) / cnt).astype(x.dtype)


def _nanmean_vjp(g, ans, x, axis, keepdim):
    d = x._data
    ok = ~np.isnan(d)
    cnt = np.maximum(np.sum(ok, axis=axis, keepdims=True), 1)
    return expand_reduced(g, x.shape, axis, keepdim) * _wrap_const(ok / cnt, d.real.dtype)


_nansum_p = Primitive("nansum", lambda x, axis, keepdim, dtype:
                      np.nansum(x, axis=axis, keepdims=keepdim, dtype=dtype))
_nanmean_p = Primitive("nanmean", _nanmean_fwd)
_prod_p = Primitive("prod", lambda x, axis, keepdim:
                    np.prod(x, axis=axis, keepdims=keepdim, dtype=x.dtype))


def _nansum_vjp(g, ans, x, axis, keepdim, dtype):
    ge = expand_reduced(g, x.shape, axis, keepdim)
    return where(isnan(x), Tensor._wrap(xp_of(ge).zeros_like(ge._data)), ge)


def _prod_vjp(g, ans, x, axis, keepdim):
    ge = expand_reduced(g, x.shape, axis, keepdim)
    if x._data.size == 0:
        return ge
    if not bool((x._data == 0).any()):
        return ge * cj(expand_reduced(ans, x.shape, axis, keepdim) / x)
    return ge * cj(_prod_of_others(x, axis))


def _prod_of_others(x, axes):
    """For each element, the product of the other elements of its reduced block: the
    product of exclusive cumulative products from the left and from the right (no
    division, so exact with any number of zeros)."""
    nd = x.ndim
    keep = [i for i in range(nd) if i not in axes]
    perm = keep + list(axes)
    xt = transpose(x, perm) if perm != list(range(nd)) else x
    tshape = xt.shape
    last = len(keep)
    xf = reshape(xt, tshape[:last] + [_reduced_size(x.shape, axes)])
    left = _cumprod_t(_shift_right(xf, last, 1), last)
    right = _flip(_cumprod_t(_shift_right(_flip(xf, last), last, 1), last), last)
    o = reshape(left * right, tshape)
    return transpose(o, list(np.argsort(perm))) if perm != list(range(nd)) else o


defvjp(_nansum_p, _nansum_vjp, save_out=False)
defvjp(_nanmean_p, _nanmean_vjp, save_out=False)
defvjp(_prod_p, _prod_vjp)


def nansum(x, axis=None, dtype=None, keepdim=False, name=None):
    """Sum over ``axis`` treating NaN as 0; bool/int inputs sum to int64 (as ``sum``).

    >>> import weft
    >>> weft.nansum(weft.to_tensor([1.0, float('nan'), 2.0])).item()
    3.0
    """
    x, axes, keepdim = _reduce_args(x, axis, keepdim, "nansum")
    d = dtype_arg(dtype, "nansum")
    if d is None and x._data.dtype.kind in _INT_KINDS:
        d = _dt.int64
    return apply(_nansum_p, x, axis=axes, keepdim=keepdim, dtype=d)


def nanmean(x, axis=None, keepdim=False, name=None):
    """Mean over ``axis`` ignoring NaN; an all-NaN (or empty) slice gives NaN, silently.

    >>> import weft
    >>> weft.nanmean(weft.to_tensor([1.0, float('nan'), 2.0])).item()
    1.5
    """
    x, axes, keepdim = _reduce_args(x, axis, keepdim, "nanmean")
    return apply(_nanmean_p, _float_input(x, "nanmean"), axis=axes, keepdim=keepdim)


def prod(x, axis=None, keepdim=False, dtype=None, name=None):
    """Product over ``axis``; the empty product is 1. The result keeps the input dtype
    (bool becomes int64) unless ``dtype`` is given, which casts the input first.

    The gradient is exact with zeros in the input (see the module docstring).

    >>> import weft
    >>> weft.prod(weft.to_tensor([[1.0, 2.0], [3.0, 4.0]]), axis=1).tolist()
    [2.0, 12.0]
    """
    x, axes, keepdim = _reduce_args(x, axis, keepdim, "prod")
    x = _cast_dtype(x, dtype, "prod")
    if x._data.dtype == np.bool_:
        x = cast(x, _dt.int64)
    return apply(_prod_p, x, axis=axes, keepdim=keepdim)


# ---------------------------------------------------------------------------------
# max, min, amax, amin, argmax, argmin, all, any, count_nonzero


def _extreme_vjp(g, ans, x, axis, keepdim):
    d = x._data
    a = ans._data.reshape(_kept_shape(d.shape, axis))
    hit = (d == a) | (np.isnan(d) & np.isnan(a))
    w = hit / np.sum(hit, axis=axis, keepdims=True)
    return expand_reduced(g, x.shape, axis, keepdim) * _wrap_const(w, d.dtype)


def _extreme(fn, name, doc):
    prim = Primitive(name, lambda x, axis, keepdim: fn(x, axis=axis, keepdims=keepdim))
    defvjp(prim, _extreme_vjp)

    def op(x, axis=None, keepdim=False, name=None):
        x, axes, keepdim = _reduce_args(x, axis, keepdim, prim.name)
        _no_complex(x, prim.name)
        if x._data.size == 0 and _reduced_size(x.shape, axes) == 0:
            raise ValueError(f"{prim.name}: cannot reduce an empty tensor (shape {x.shape}) "
                             f"over axis {list(axes)}: the {prim.name} of no elements is "
                             "undefined")
        return apply(prim, x, axis=axes, keepdim=keepdim)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = doc
    return op


_TIES = ("Ties (and NaNs, which propagate as in numpy) share the gradient evenly. "
         "Reducing over an empty axis raises ValueError.")
max = _extreme(np.max, "max", "Maximum over ``axis`` (int, list, or None for all). "
               + _TIES + "\n\n>>> import weft\n>>> weft.max(weft.to_tensor([[1, 5], [4, 2]]), "
               "axis=0).tolist()\n[4, 5]\n")
min = _extreme(np.min, "min", "Minimum over ``axis`` (int, list, or None for all). "
               + _TIES + "\n\n>>> import weft\n>>> weft.min(weft.to_tensor([3.0, 1.0, 2.0]))"
               ".item()\n1.0\n")
amax = _extreme(np.max, "amax", "Maximum over ``axis``, like :func:`max`. " + _TIES)
amin = _extreme(np.min, "amin", "Minimum over ``axis``, like :func:`min`. " + _TIES)


def _arg_extreme(fn, opname):
    def op(x, axis=None, keepdim=False, dtype="int64", name=None):
        x = tensor_arg(x, "x", opname)
        keepdim = _keepdim(keepdim, opname)
        _no_complex(x, opname)
        d = dtype_arg(dtype, opname)
        if d not in (_dt.int32, _dt.int64):
            raise TypeError(f"{opname}: dtype must be int32 or int64, got {d}")
        data = x._data
        if axis is None:
            if data.size == 0:
                raise ValueError(f"{opname}: cannot take the {opname} of an empty tensor")
            r = fn(data.reshape(-1))
            shape = (1,) * data.ndim if keepdim else ()
        else:
            a = normalize_axis(axis, x.ndim, opname)
            if data.ndim == 0:
                r, shape = fn(data.reshape(1)), ()
            else:
                if data.shape[a] == 0:
                    raise ValueError(f"{opname}: axis {axis} of x (shape {x.shape}) is empty")
                r = fn(data, axis=a)
                shape = _out_shape(data.shape, (a,), keepdim)
        return Tensor._wrap(_arr(r).astype(d).reshape(shape))

    op.__name__ = op.__qualname__ = opname
    op.__doc__ = (f"Indices of the {opname[3:]}imum along ``axis`` (the flattened tensor when "
                  "``axis`` is None); the first one on ties, NaN counts as the extreme. "
                  "``dtype`` is int64 or int32; not differentiable.")
    return op


argmax = _arg_extreme(np.argmax, "argmax")
argmin = _arg_extreme(np.argmin, "argmin")
argmax.__doc__ += ("\n\n>>> import weft\n>>> weft.argmax(weft.to_tensor([[1, 5], [4, 2]]), "
                   "axis=1).tolist()\n[1, 0]\n")


def _logical_reduce(fn, opname):
    def op(x, axis=None, keepdim=False, name=None):
        x, axes, keepdim = _reduce_args(x, axis, keepdim, opname)
        return Tensor._wrap(_arr(fn(x._data, axis=axes, keepdims=keepdim)))

    op.__name__ = op.__qualname__ = opname
    word = "all" if opname == "all" else "any"
    op.__doc__ = (f"Whether {word} elements along ``axis`` are nonzero, as a bool tensor "
                  f"(over no elements: {opname == 'all'}).")
    return op


all = _logical_reduce(np.all, "all")
any = _logical_reduce(np.any, "any")
all.__doc__ += "\n\n>>> import weft\n>>> weft.all(weft.to_tensor([1, 0])).item()\nFalse\n"


def count_nonzero(x, axis=None, keepdim=False, name=None):
    """Number of nonzero elements along ``axis`` (int64).

    >>> import weft
    >>> weft.count_nonzero(weft.to_tensor([[0, 1], [2, 3]]), axis=1).tolist()
    [1, 2]
    """
    x, axes, keepdim = _reduce_args(x, axis, keepdim, "count_nonzero")
    return Tensor._wrap(_arr(np.sum(x._data != 0, axis=axes, keepdims=keepdim,
                                    dtype=np.int64)))


# ---------------------------------------------------------------------------------
# logsumexp, var, std


def _lse_fwd(x, axis, keepdim):
    xp = xp_of(x)
    if _reduced_size(x.shape, axis) == 0:
        return xp.full(_out_shape(x.shape, axis, keepdim), -np.inf, dtype=x.dtype)
    with np.errstate(all="ignore"):
        m = np.max(x, axis=axis, keepdims=True)
        m = xp.where(xp.isfinite(m), m, 0)
        r = np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True)) + m
    return r if keepdim else r.reshape(_out_shape(x.shape, axis, False))


_lse_p = Primitive("logsumexp", _lse_fwd)
defvjp(_lse_p, lambda g, ans, x, axis, keepdim: expand_reduced(g, x.shape, axis, keepdim)
       * exp(x - expand_reduced(ans, x.shape, axis, keepdim)))


def logsumexp(x, axis=None, keepdim=False, name=None):
    """``log(sum(exp(x)))`` over ``axis``, computed stably (shifted by the maximum); the
    gradient is the softmax. Integer inputs use the default float dtype.

    >>> import weft
    >>> round(weft.logsumexp(weft.to_tensor([1000.0, 1000.0])).item(), 2)
    1000.69
    """
    x, axes, keepdim = _reduce_args(x, axis, keepdim, "logsumexp")
    _no_complex(x, "logsumexp")
    return apply(_lse_p, _float_input(x, "logsumexp"), axis=axes, keepdim=keepdim)


def var(x, axis=None, unbiased=True, keepdim=False, name=None):
    """Variance over ``axis``: ``sum(|x - mean|**2) / (n - 1)`` (``unbiased=True``, the
    default, as Paddle) or ``/ n``. Gives NaN when the divisor is not positive; complex
    inputs give a real variance.

    >>> import weft
    >>> round(weft.var(weft.to_tensor([1.0, 2.0, 3.0, 4.0])).item(), 4)
    1.6667
    """
    return _var(x, axis, unbiased, keepdim, "var")


def _var(x, axis, unbiased, keepdim, op):
    x, axes, keepdim = _reduce_args(x, axis, keepdim, op)
    x = _float_input(x, op)
    n = _reduced_size(x.shape, axes)
    if n == 0:
        return _nan_const(_out_shape(x.shape, axes, keepdim), real(x))
    d = x - _mean(x, axis=list(axes), keepdim=True)
    sq = real(d * conj(d)) if x._data.dtype.kind == "c" else d * d
    ddof = 1 if unbiased else 0
    return _sum(sq, axis=list(axes), keepdim=keepdim) * (1.0 / (n - ddof) if n > ddof
                                                          else float("nan"))


def std(x, axis=None, unbiased=True, keepdim=False, name=None):
    """Standard deviation, ``sqrt(var(x, axis, unbiased, keepdim))``; the gradient of a
    zero deviation is 0 (not NaN).

    >>> import weft
    >>> weft.std(weft.to_tensor([1.0, 3.0]), unbiased=False).item()
    1.0
    """
    return sqrt(_var(x, axis, unbiased, keepdim, "std"))


# ---------------------------------------------------------------------------------
# cumulative ops


_cumsum_p = Primitive("cumsum", lambda x, axis: np.cumsum(x, axis=axis, dtype=x.dtype))
_cumprod_p = Primitive("cumprod", lambda x, axis: np.cumprod(x, axis=axis, dtype=x.dtype))


def _cumsum_t(t, axis):
    return apply(_cumsum_p, t, axis=axis)


def _cumprod_t(t, axis):
    return apply(_cumprod_p, t, axis=axis)


def _rev_cumsum(t, axis):
    return _flip(_cumsum_t(_flip(t, axis), axis), axis)


def _cumprod_vjp(g, ans, x, axis):
    if x.shape[axis] == 0:
        return g
    if not bool((x._data == 0).any()):
        return _rev_cumsum(g * cj(ans), axis) / cj(x)
    # With zeros: dL/dx_k = conj(prod_{i<k} x_i) * S_k, where
    # S_k = sum_{j>=k} g_j conj(prod_{k<i<=j} x_i) obeys S_k = g_k + conj(x_{k+1}) S_{k+1}.
    excl = _shift_right(ans, axis, 1)
    s = apply(_revscan_p, g, cj(_shift_left(x, axis)), axis=axis)
    return cj(excl) * s


defvjp(_cumsum_p, lambda g, ans, x, axis: _rev_cumsum(g, axis), **_no_save)
defvjp(_cumprod_p, _cumprod_vjp)


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
    t = _cast_dtype(t, dtype, op)
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
    return _scan_public(_cumsum_p, x, axis, dtype, "cumsum")


def cumprod(x, dim=None, dtype=None, name=None):
    """Cumulative product along ``dim`` (the flattened tensor when None); dtype rules as
    :func:`cumsum`. The gradient is exact with zeros in the input.

    >>> import weft
    >>> weft.cumprod(weft.to_tensor([1.0, 2.0, 3.0]), dim=0).tolist()
    [1.0, 2.0, 6.0]
    """
    return _scan_public(_cumprod_p, x, dim, dtype, "cumprod", "dim")


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
        return exp(x - top) * _rev_cumsum(g * exp(top - ans), axis)
    # wide range or infinities: T_i = g_i + exp(out_i - out_{i+1}) T_{i+1} has
    # coefficients in [0, 1], and -inf entries (whose gradient is 0) are masked out
    # before exp so that no NaN reaches the value or its derivatives
    neg = np.isneginf(a)
    dead = Tensor._wrap(neg)
    dead_pair = Tensor._wrap(neg | _pad_fwd(_slice_fwd(neg, 1, n, axis), 0, 1, axis, False))
    nxt = _shift_left(ans, axis)
    zero = Tensor._wrap(xp_of(a).zeros_like(a))
    with np.errstate(invalid="ignore"):  # inf - inf in the masked-out entries
        step = where(dead_pair, zero, ans - nxt)
        lead = where(dead, zero, x - ans)
    t = apply(_revscan_p, g, where(dead_pair, zero, exp(step)), axis=axis)
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
    _no_complex(t, "logcumsumexp")
    t = _float_input(_cast_dtype(t, dtype, "logcumsumexp"), "logcumsumexp")
    r = apply(_lcse_p, t, axis=a)
    return r if r.shape == list(shape) else reshape(r, shape)


def _running(name, x, axis):
    """``ufunc.accumulate`` of np.maximum/np.minimum; a loop where the GPU lacks it."""
    xp = xp_of(x)
    f = getattr(xp, name)
    if xp is np:
        return f.accumulate(x, axis=axis)
    try:
        return f.accumulate(x, axis=axis)
    except (NotImplementedError, TypeError, AttributeError, ValueError):
        m = xp.moveaxis(x, axis, 0).copy()
        for k in range(1, m.shape[0]):
            m[k] = f(m[k - 1], m[k])
        return xp.ascontiguousarray(xp.moveaxis(m, 0, axis))


def _cum_extreme_fwd(x, axis, greater, dtype):
    xp = xp_of(x)
    v = _running("maximum" if greater else "minimum", x, axis)
    n = x.shape[axis]
    pos = xp.arange(n).reshape([n if i == axis else 1 for i in range(x.ndim)])
    # a position is a new running extreme when it equals the running value (ties: the
    # last one wins, as Paddle's >=) or is NaN (which then propagates)
    hit = (x == v) | xp.isnan(x) if x.dtype.kind == "f" else (x == v)
    idx = _running("maximum", xp.where(hit, pos, 0), axis)
    return v, idx.astype(dtype)


def _cum_extreme_vjp(g, ans, x, axis, greater, dtype):
    return _index_add(g[0], ans[1]._data, x.shape, axis)


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


def _accept_aliases(f):
    """Also accept Paddle 3's torch-style keywords ``input`` (for x) and ``dim`` (for axis)."""
    params = inspect.signature(f).parameters
    first = next(iter(params))
    has_axis = "axis" in params and "dim" not in params

    @functools.wraps(f)
    def wrapper(*args, **kwargs):
        if kwargs:
            if "input" in kwargs and first != "input":
                kwargs[first] = kwargs.pop("input")
            if has_axis and "dim" in kwargs:
                kwargs["axis"] = kwargs.pop("dim")
        return f(*args, **kwargs)

    return wrapper


__all__ = ["nansum", "nanmean", "prod", "max", "min", "amax", "amin", "argmax", "argmin",
           "all", "any", "count_nonzero", "logsumexp", "var", "std", "cumsum", "cumprod",
           "cumsum_", "cumprod_", "logcumsumexp", "cummax", "cummin"]
for _n in __all__:
    globals()[_n] = _accept_aliases(globals()[_n])
__tensor_methods__ = {n: globals()[n] for n in __all__}

# order statistics, norms and counting: a second module, exported through this family
from . import reduction_stats as _stats  # noqa: E402

__all__ += _stats.__all__
__tensor_methods__.update(_stats.__tensor_methods__)
for _n in _stats.__all__:
    globals()[_n] = getattr(_stats, _n)
del _n
