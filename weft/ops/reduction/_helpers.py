"""Argument checks and array helpers shared by the reductions."""
from __future__ import annotations

import numpy as np

from ...autograd.engine import apply, deflinear, defvjp, Primitive
from ...core import dtype as _dt
from ...core.args import dtype_arg, xp_of
from ...core.tensor import Tensor
from ..cast import cast
from ..math.ufuncs import cj
from ..primitives import put_along_add, take_along
from ..shape.views import flip_axes


INT_KINDS = "biu"


def array_of(a):
    """A backend array from a numpy scalar or array result."""
    return a if isinstance(a, np.ndarray) or hasattr(a, "__cuda_array_interface__") \
        else np.asarray(a)


def keepdim_arg(keepdim, op):
    if not isinstance(keepdim, (bool, np.bool_, int, np.integer)):
        raise TypeError(f"{op}: keepdim must be a bool, got {type(keepdim).__name__}")
    return bool(keepdim)


def kept_shape(shape, axes):
    return tuple(1 if i in axes else s for i, s in enumerate(shape))


def reduced_shape(shape, axes, keepdim):
    if keepdim:
        return kept_shape(shape, axes)
    return tuple(s for i, s in enumerate(shape) if i not in axes)


def reduced_size(shape, axes):
    n = 1
    for a in axes:
        n *= shape[a]
    return n


def no_complex(x, op):
    if x._data.dtype.kind == "c":
        raise TypeError(f"{op}: complex input is not supported (got {x._data.dtype.name})")


def float_input(x, op):
    """Integer and bool inputs of float-valued reductions become the default float dtype."""
    if x._data.dtype.kind in INT_KINDS:
        return cast(x, _dt.default_float())
    return x


def cast_dtype(x, dtype, op):
    d = dtype_arg(dtype, op)
    if d is not None and d != x._data.dtype:
        x = cast(x, d)
    return x


def nan_const(shape, like):
    xp = xp_of(like)
    d = like._data.dtype
    rd = d if d.kind in "fc" else _dt.default_float()
    return Tensor._wrap(xp.full(tuple(shape), np.nan, dtype=rd))


def _ix(axis, sl):
    return (slice(None),) * axis + (sl,)


def slice_fwd(x, start, stop, axis):
    return x[_ix(axis, slice(start, stop))].copy()


def pad_fwd(x, before, after, axis, value):
    xp = xp_of(x)
    shape = list(x.shape)
    n = shape[axis]
    shape[axis] = n + before + after
    out = xp.full(tuple(shape), value, dtype=x.dtype)
    out[_ix(axis, slice(before, before + n))] = x
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


_slice_p = Primitive("slice_axis", slice_fwd)
_pad_p = Primitive("pad_axis", pad_fwd)
revscan_p = Primitive("reverse_linear_scan", _revscan_fwd)


def flip(t, axis):
    return flip_axes(t, axis)


def slice_axis(t, start, stop, axis):
    return apply(_slice_p, t, start=start, stop=stop, axis=axis)


def pad(t, before, after, axis, value=0):
    return apply(_pad_p, t, before=before, after=after, axis=axis, value=value)


def take(t, idx, axis):
    """Differentiable ``take_along_axis`` with a constant backend index array."""
    return take_along(t, idx, axis % t.ndim)


def index_add(src, idx, shape, axis):
    return put_along_add(src, idx, axis % len(shape), shape)


def shift_left(t, axis):
    """t[k+1] at k, 0 at the end."""
    n = t.shape[axis]
    return pad(slice_axis(t, 1, n, axis), 0, 1, axis)


def shift_right(t, axis, value=0):
    """t[k-1] at k, ``value`` at the start."""
    n = t.shape[axis]
    return pad(slice_axis(t, 0, n - 1, axis), 1, 0, axis, value)


def _revscan_vjp_g(h, ans, g, c, axis):
    # the adjoint of the reverse recurrence is the forward one with conj(c) shifted by one
    return flip(apply(revscan_p, flip(h, axis), flip(cj(shift_right(c, axis)), axis),
                       axis=axis), axis)


def _revscan_vjp_c(h, ans, g, c, axis):
    return _revscan_vjp_g(h, ans, g, c, axis) * cj(shift_left(ans, axis))


_no_save = dict(save=(), save_out=False)
defvjp(_slice_p, lambda g, ans, x, start, stop, axis:
       pad(g, start, x.shape[axis] - stop, axis), **_no_save)
defvjp(_pad_p, lambda g, ans, x, before, after, axis, value:
       slice_axis(g, before, before + x.shape[axis], axis), **_no_save)
defvjp(revscan_p, _revscan_vjp_g, _revscan_vjp_c, save=(1,))
deflinear(_slice_p)   # forward mode: linear, their own jvps
deflinear(_pad_p, zero=("value",))


def wrap_const(arr, dtype):
    return Tensor._wrap(array_of(arr).astype(dtype, copy=False))


cumsum_p = Primitive("cumsum", lambda x, axis: np.cumsum(x, axis=axis, dtype=x.dtype))
cumprod_p = Primitive("cumprod", lambda x, axis: np.cumprod(x, axis=axis, dtype=x.dtype))


def _cumsum_t(t, axis):
    return apply(cumsum_p, t, axis=axis)


def rev_cumsum(t, axis):
    return flip(_cumsum_t(flip(t, axis), axis), axis)


def _cumprod_vjp(g, ans, x, axis):
    if x.shape[axis] == 0:
        return g
    if not bool((x._data == 0).any()):
        return rev_cumsum(g * cj(ans), axis) / cj(x)
    # With zeros: dL/dx_k = conj(prod_{i<k} x_i) * S_k, where
    # S_k = sum_{j>=k} g_j conj(prod_{k<i<=j} x_i) obeys S_k = g_k + conj(x_{k+1}) S_{k+1}.
    excl = shift_right(ans, axis, 1)
    s = apply(revscan_p, g, cj(shift_left(x, axis)), axis=axis)
    return cj(excl) * s


defvjp(cumsum_p, lambda g, ans, x, axis: rev_cumsum(g, axis), **_no_save)
deflinear(cumsum_p)
defvjp(cumprod_p, _cumprod_vjp)


def running(name, x, axis):
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


bincount_p = Primitive("bincount", lambda w, idx, minlength:
                        xp_of(w).bincount(idx, weights=w, minlength=minlength).astype(w.dtype))
defvjp(bincount_p, lambda g, ans, w, idx, minlength: take(g, idx, 0), save=(),
       save_out=False)
deflinear(bincount_p)   # in the weights
__all__ = []
