"""Reductions over axes: sums and means (also NaN-skipping), products, extrema and
their positions, truth tests, ``logsumexp``, variance and standard deviation."""
from __future__ import annotations

import builtins as _builtins
import numpy as np

from ...autograd.engine import apply, defbatch, deflinear, defjvp, defvjp, Primitive
from ...core import dtype as _dt
from ...core.args import (accept_aliases, dtype_arg, normalize_axes, normalize_axis, tensor_arg,
                          xp_of)
from ...core.tensor import Tensor
from ..cast import cast
from ..logic import isnan
from ..math.ufuncs import cj, conj, exp, real, sqrt, where
from ..shape.views import broadcast_to, reshape, reshape_exact, transpose
from ._helpers import (array_of, cast_dtype, cumprod_p, flip, float_input, INT_KINDS,
                       keepdim_arg, kept_shape, nan_const, no_complex, reduced_shape,
                       reduced_size, shift_right, wrap_const)


def _sum_fwd(x, axis, keepdim, dtype):
    return np.sum(x, axis=axis, keepdims=keepdim, dtype=dtype)


def _mean_fwd(x, axis, keepdim):
    if x.size == 0:
        # numpy warns about the empty slice; the answer (NaN) is what weft documents
        with np.errstate(invalid="ignore", divide="ignore"):
            import warnings  # noqa: PLC0415

            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                return np.mean(x, axis=axis, keepdims=keepdim)
    return np.mean(x, axis=axis, keepdims=keepdim)


_sum_p = Primitive("sum", _sum_fwd)
_mean_p = Primitive("mean", _mean_fwd)


def expand_reduced(g, shape, axis, keepdim):
    """Broadcast the gradient of a reduction back to the input's ``shape``."""
    if not keepdim and axis:
        kept = list(shape)
        for a in axis:
            kept[a] = 1
        g = reshape_exact(g, kept)
    return broadcast_to(g, list(shape))


def _n_reduced(shape, axis):
    n = 1
    for a in axis:
        n *= shape[a]
    return n


defvjp(_sum_p, lambda g, ans, x, axis, keepdim, dtype: expand_reduced(g, x.shape, axis, keepdim),
       save=(), save_out=False)
defvjp(_mean_p, lambda g, ans, x, axis, keepdim:
       expand_reduced(g, x.shape, axis, keepdim) / _builtins.max(_n_reduced(x.shape, axis), 1),
       save=(), save_out=False)


def _batched_expand(g, x, axis, keepdim):
    # the sample's reduced axes sit one further right behind the batch axis
    return expand_reduced(g, g.shape[:1] + x.shape, tuple(a + 1 for a in axis), keepdim)


defbatch(_sum_p, lambda g, ans, x, axis, keepdim, dtype: _batched_expand(g, x, axis, keepdim))
defbatch(_mean_p, lambda g, ans, x, axis, keepdim:
         _batched_expand(g, x, axis, keepdim) / _builtins.max(_n_reduced(x.shape, axis), 1))
deflinear(_sum_p)   # forward mode: the reduction of the tangent
deflinear(_mean_p)


def _axes(axis, ndim, keepdim, op):
    if not isinstance(keepdim, (bool, np.bool_)):
        raise TypeError(f"{op}: keepdim must be a bool, got {type(keepdim).__name__}")
    if isinstance(axis, (list, tuple)) and len(axis) == 0:
        axis = None  # Paddle: an empty axis list reduces over every axis
    return normalize_axes(axis, ndim, op)


def sum(x, axis=None, dtype=None, keepdim=False, name=None):
    """Sum over ``axis`` (int, list, or None for all). bool and int inputs sum to int64.

    >>> import weft
    >>> weft.sum(weft.to_tensor([[1, 2], [3, 4]]), axis=0).tolist()
    [4, 6]
    """
    x = tensor_arg(x, "x", "sum")
    axes = _axes(axis, x.ndim, keepdim, "sum")
    d = dtype_arg(dtype, "sum")
    if d is None and x._data.dtype.kind in "biu":
        d = _dt.int64
    return apply(_sum_p, x, axis=axes, keepdim=bool(keepdim), dtype=d)


def mean(x, axis=None, keepdim=False, name=None):
    """Arithmetic mean over ``axis``; integer inputs are averaged in the default float dtype."""
    x = tensor_arg(x, "x", "mean")
    if x._data.dtype.kind in "biu":
        from ..cast import cast  # noqa: PLC0415

        x = cast(x, _dt.default_float())
    axes = _axes(axis, x.ndim, keepdim, "mean")
    return apply(_mean_p, x, axis=axes, keepdim=bool(keepdim))


def sum_to_shape(g, shape):
    """Sum a broadcast gradient down to ``shape`` (the inverse of broadcasting)."""
    gs = g._data.shape
    if list(gs) == list(shape):
        return g
    lead = len(gs) - len(shape)
    axes = tuple(range(lead)) + tuple(i + lead for i, s in enumerate(shape)
                                      if s == 1 and gs[i + lead] != 1)
    r = apply(_sum_p, g, axis=axes, keepdim=True, dtype=None) if axes else g
    return reshape_exact(r, list(shape))


def _reduce_args(x, axis, keepdim, op):
    """(tensor, sorted axes, keepdim); an empty axis list means all axes (Paddle)."""
    x = tensor_arg(x, "x", op)
    if isinstance(axis, (list, tuple)) and len(axis) == 0:
        axis = None
    return x, normalize_axes(axis, x.ndim, op), keepdim_arg(keepdim, op)


def _nanmean_fwd(x, axis, keepdim):
    with np.errstate(invalid="ignore", divide="ignore"):
        cnt = np.sum(~np.isnan(x), axis=axis, keepdims=keepdim)
        return array_of(np.nansum(x, axis=axis, keepdims=keepdim) / cnt).astype(x.dtype)


def _nanmean_vjp(g, ans, x, axis, keepdim):
    d = x._data
    ok = ~np.isnan(d)
    cnt = np.maximum(np.sum(ok, axis=axis, keepdims=True), 1)
    return expand_reduced(g, x.shape, axis, keepdim) * wrap_const(ok / cnt, d.real.dtype)


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
    xf = reshape(xt, tshape[:last] + [reduced_size(x.shape, axes)])
    left = _cumprod_t(shift_right(xf, last, 1), last)
    right = flip(_cumprod_t(shift_right(flip(xf, last), last, 1), last), last)
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
    if d is None and x._data.dtype.kind in INT_KINDS:
        d = _dt.int64
    return apply(_nansum_p, x, axis=axes, keepdim=keepdim, dtype=d)


def nanmean(x, axis=None, keepdim=False, name=None):
    """Mean over ``axis`` ignoring NaN; an all-NaN (or empty) slice gives NaN, silently.

    >>> import weft
    >>> weft.nanmean(weft.to_tensor([1.0, float('nan'), 2.0])).item()
    1.5
    """
    x, axes, keepdim = _reduce_args(x, axis, keepdim, "nanmean")
    return apply(_nanmean_p, float_input(x, "nanmean"), axis=axes, keepdim=keepdim)


def prod(x, axis=None, keepdim=False, dtype=None, name=None):
    """Product over ``axis``; the empty product is 1. The result keeps the input dtype
    (bool becomes int64) unless ``dtype`` is given, which casts the input first.

    The gradient is exact with zeros in the input (see the module docstring).

    >>> import weft
    >>> weft.prod(weft.to_tensor([[1.0, 2.0], [3.0, 4.0]]), axis=1).tolist()
    [2.0, 12.0]
    """
    x, axes, keepdim = _reduce_args(x, axis, keepdim, "prod")
    x = cast_dtype(x, dtype, "prod")
    if x._data.dtype == np.bool_:
        x = cast(x, _dt.int64)
    return apply(_prod_p, x, axis=axes, keepdim=keepdim)


def _extreme_vjp(g, ans, x, axis, keepdim):
    d = x._data
    a = ans._data.reshape(kept_shape(d.shape, axis))
    hit = (d == a) | (np.isnan(d) & np.isnan(a))
    w = hit / np.sum(hit, axis=axis, keepdims=True)
    return expand_reduced(g, x.shape, axis, keepdim) * wrap_const(w, d.dtype)


def _extreme(fn, name, doc):
    prim = Primitive(name, lambda x, axis, keepdim: fn(x, axis=axis, keepdims=keepdim))
    defvjp(prim, _extreme_vjp)

    def op(x, axis=None, keepdim=False, name=None):
        x, axes, keepdim = _reduce_args(x, axis, keepdim, prim.name)
        no_complex(x, prim.name)
        if x._data.size == 0 and reduced_size(x.shape, axes) == 0:
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
        keepdim = keepdim_arg(keepdim, opname)
        no_complex(x, opname)
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
                shape = reduced_shape(data.shape, (a,), keepdim)
        return Tensor._wrap(array_of(r).astype(d).reshape(shape))

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
        return Tensor._wrap(array_of(fn(x._data, axis=axes, keepdims=keepdim)))

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
    return Tensor._wrap(array_of(np.sum(x._data != 0, axis=axes, keepdims=keepdim,
                                    dtype=np.int64)))


def _lse_fwd(x, axis, keepdim):
    xp = xp_of(x)
    if reduced_size(x.shape, axis) == 0:
        return xp.full(reduced_shape(x.shape, axis, keepdim), -np.inf, dtype=x.dtype)
    with np.errstate(all="ignore"):
        m = np.max(x, axis=axis, keepdims=True)
        m = xp.where(xp.isfinite(m), m, 0)
        r = np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True)) + m
    return r if keepdim else r.reshape(reduced_shape(x.shape, axis, False))


_lse_p = Primitive("logsumexp", _lse_fwd)
defvjp(_lse_p, lambda g, ans, x, axis, keepdim: expand_reduced(g, x.shape, axis, keepdim)
       * exp(x - expand_reduced(ans, x.shape, axis, keepdim)))
defjvp(_lse_p, lambda t, ans, x, axis, keepdim: apply(
    _sum_p, t * exp(x - expand_reduced(ans, x.shape, axis, keepdim)), axis=axis,
    keepdim=keepdim, dtype=None))


def logsumexp(x, axis=None, keepdim=False, name=None):
    """``log(sum(exp(x)))`` over ``axis``, computed stably (shifted by the maximum); the
    gradient is the softmax. Integer inputs use the default float dtype.

    >>> import weft
    >>> round(weft.logsumexp(weft.to_tensor([1000.0, 1000.0])).item(), 2)
    1000.69
    """
    x, axes, keepdim = _reduce_args(x, axis, keepdim, "logsumexp")
    no_complex(x, "logsumexp")
    return apply(_lse_p, float_input(x, "logsumexp"), axis=axes, keepdim=keepdim)


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
    x = float_input(x, op)
    n = reduced_size(x.shape, axes)
    if n == 0:
        return nan_const(reduced_shape(x.shape, axes, keepdim), real(x))
    d = x - mean(x, axis=list(axes), keepdim=True)
    sq = real(d * conj(d)) if x._data.dtype.kind == "c" else d * d
    ddof = 1 if unbiased else 0
    return sum(sq, axis=list(axes), keepdim=keepdim) * (1.0 / (n - ddof) if n > ddof
                                                          else float("nan"))


def std(x, axis=None, unbiased=True, keepdim=False, name=None):
    """Standard deviation, ``sqrt(var(x, axis, unbiased, keepdim))``; the gradient of a
    zero deviation is 0 (not NaN).

    >>> import weft
    >>> weft.std(weft.to_tensor([1.0, 3.0]), unbiased=False).item()
    1.0
    """
    return sqrt(_var(x, axis, unbiased, keepdim, "std"))


def _cumprod_t(t, axis):
    return apply(cumprod_p, t, axis=axis)


# Paddle 3's torch-style keywords (input=, dim=) are accepted too
for _n in ["nansum", "nanmean", "prod", "max", "min", "amax", "amin", "argmax", "argmin", "all", "any", "count_nonzero", "logsumexp", "var", "std"]:
    globals()[_n] = accept_aliases(globals()[_n])
del _n
__all__ = ["sum", "mean", "nansum", "nanmean", "prod", "max", "min", "amax", "amin", "argmax", "argmin", "all", "any", "count_nonzero", "logsumexp", "var", "std"]
__tensor_methods__ = {"sum": sum, "mean": mean, "nansum": nansum, "nanmean": nanmean, "prod": prod, "max": max, "min": min, "amax": amax, "amin": amin, "argmax": argmax, "argmin": argmin, "all": all, "any": any, "count_nonzero": count_nonzero, "logsumexp": logsumexp, "var": var, "std": std}
