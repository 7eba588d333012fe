"""Argument checks and array helpers shared by the reductions."""
from __future__ import annotations

import numpy as np

from ...autograd.engine import apply, defvjp, Primitive
from ...core import dtype as _dt
from ...core.args import dtype_arg, xp_of
from ...core.tensor import Tensor
from ..cast import cast
from ..primitives import put_along_add, take_along
from ..math.ufuncs import cj
from ..shape.views import flip_axes


_INT_KINDS = "biu"


def _arr(a):
    """A backend array from a numpy scalar or array result."""
    return a if isinstance(a, np.ndarray) or hasattr(a, "__cuda_array_interface__") \
        else np.asarray(a)


def _keepdim(keepdim, op):
    if not isinstance(keepdim, (bool, np.bool_, int, np.integer)):
        raise TypeError(f"{op}: keepdim must be a bool, got {type(keepdim).__name__}")
    return bool(keepdim)


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


_slice_p = Primitive("slice_axis", _slice_fwd)


_pad_p = Primitive("pad_axis", _pad_fwd)


_revscan_p = Primitive("reverse_linear_scan", _revscan_fwd)


def _flip(t, axis):
    return flip_axes(t, axis)


def _slice(t, start, stop, axis):
    return apply(_slice_p, t, start=start, stop=stop, axis=axis)


def _pad(t, before, after, axis, value=0):
    return apply(_pad_p, t, before=before, after=after, axis=axis, value=value)


def _take(t, idx, axis):
    """Differentiable ``take_along_axis`` with a constant backend index array."""
    return take_along(t, idx, axis % t.ndim)


def _index_add(src, idx, shape, axis):
    return put_along_add(src, idx, axis % len(shape), shape)


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


defvjp(_slice_p, lambda g, ans, x, start, stop, axis:
       _pad(g, start, x.shape[axis] - stop, axis), **_no_save)


defvjp(_pad_p, lambda g, ans, x, before, after, axis, value:
       _slice(g, before, before + x.shape[axis], axis), **_no_save)


defvjp(_revscan_p, _revscan_vjp_g, _revscan_vjp_c, save=(1,))


def _wrap_const(arr, dtype):
    return Tensor._wrap(_arr(arr).astype(dtype, copy=False))


_cumsum_p = Primitive("cumsum", lambda x, axis: np.cumsum(x, axis=axis, dtype=x.dtype))


_cumprod_p = Primitive("cumprod", lambda x, axis: np.cumprod(x, axis=axis, dtype=x.dtype))


def _cumsum_t(t, axis):
    return apply(_cumsum_p, t, axis=axis)


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


_bincount_p = Primitive("bincount", lambda w, idx, minlength:
                        xp_of(w).bincount(idx, weights=w, minlength=minlength).astype(w.dtype))


defvjp(_bincount_p, lambda g, ans, w, idx, minlength: _take(g, idx, 0), save=(),
       save_out=False)


__all__ = []
