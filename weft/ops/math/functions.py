"""Elementwise functions beyond the ufunc table: atan2, float_power, fmax/fmin, clip,
frac, hypot, lerp, logaddexp, xlogy, nan_to_num, deg2rad/rad2deg, complex/polar and
scale.

The derivative table follows the conventions of :mod:`weft.ops.math.ufuncs`: rules are
pure calculus written in weft ops (so they differentiate again), the engine sums
broadcast gradients back and keeps the real part for real inputs. Masks that pick a
branch (clip, fmax, nan_to_num) are constants, not graph nodes.
"""
from __future__ import annotations

import math
import numbers

import numpy as np

from ...autograd.engine import Primitive, apply, deflinear, defjvp, defvjp
from ...core import dtype as _dt
from ...core.place import special_module
from ...core.tensor import Tensor
from . import ufuncs as _m
from ...core.args import check_same_place, tensor_arg
from .._support import binary_operands, require_float
from ..cast import cast
from ..shape.views import reshape
from .ufuncs import cj, cos, exp, log, sin, where

_ndarray = np.ndarray
builtins_complex = complex  # the name ``complex`` is the weft op below
_real_types = numbers.Real  # numpy's scalar types are registered with numbers


def _const(like, value):
    """A graph-free tensor full of ``value`` shaped like the array or tensor ``like``."""
    d = like._data if isinstance(like, Tensor) else like
    return Tensor._wrap(np.full_like(d, value))


def _mask(m, g):
    """A boolean backend array as a 0/1 constant tensor of ``g``'s dtype."""
    return Tensor._wrap(m.astype(g._data.dtype))


def _data(a):
    return a._data if isinstance(a, Tensor) else a


def _number(v, op, arg, allow_none=True, kinds=_real_types):
    if v is None and allow_none:
        return None
    if isinstance(v, Tensor) or hasattr(v, "__array_interface__") or \
            hasattr(v, "__cuda_array_interface__"):
        if v.size != 1:
            raise ValueError(f"{op}: {arg} must be a number or a one-element Tensor, got a "
                             f"{type(v).__name__} of shape {list(v.shape)}")
        v = v.item()
    if not isinstance(v, kinds) or isinstance(v, (bool, np.bool_)):
        raise TypeError(f"{op}: {arg} must be a number, got {type(v).__name__}")
    return v


def _tensors(x, y, op, float_result=True):
    """Promote ``x``, ``y`` and make both Tensors (a scalar becomes a 0-D constant)."""
    if not isinstance(x, Tensor) and not isinstance(y, Tensor):
        x = tensor_arg(x, "x", op)
    x, y = binary_operands(x, y, op, float_result)
    if not isinstance(x, Tensor):
        x = Tensor._wrap(np.full_like(y._data, x, shape=()))
    if not isinstance(y, Tensor):
        y = Tensor._wrap(np.full_like(x._data, y, shape=()))
    return x, y


def _no_complex(t, op, arg="x"):
    if isinstance(t, Tensor) and t._data.dtype.kind == "c":
        raise TypeError(f"{op}: {arg} must be a real tensor, got {t._data.dtype.name}")


# ---------------------------------------------------------------------------------
# forward primitives

def _frac_fwd(x):
    if x.dtype.kind in "biu":
        return np.zeros_like(x)
    return x - np.trunc(x)


def _clip_fwd(x, lo, hi):
    r = x
    if lo is not None:
        r = np.maximum(r, lo)
    if hi is not None:
        r = np.minimum(r, hi)
    return r.copy() if r is x else r


def _scale_fwd(x, scale, bias, after):
    r = x * scale + bias if after else (x + bias) * scale
    return r.astype(x.dtype, copy=False)


def _complex_fwd(re, im):
    shape = np.broadcast_shapes(re.shape, im.shape)
    out = np.empty_like(re, dtype=_dt.to_complex(re.dtype), shape=shape)
    out.real = re
    out.imag = im
    return out


def x_log_forward(log, name):
    """The forward of ``x * log(y)`` (``log`` is ``np.log`` or ``np.log1p``) as scipy's
    ``xlogy`` / ``xlog1py`` define it: 0 where ``x == 0`` unless ``y`` is NaN.

    On numpy arrays it is computed in the operands' own dtype: scipy's loops for these
    two exist in float64 only, which made a float32 log-density several times slower
    than the expression written out. Other arrays (CuPy) go to ``name`` of
    ``cupyx.scipy.special``."""
    def fwd(x, y):
        if type(x) is not np.ndarray:
            return getattr(special_module(x), name)(x, y).astype(x.dtype, copy=False)
        with np.errstate(divide="ignore", invalid="ignore"):
            out = x * log(y)
            zero = x == 0
            if zero.any():
                out = np.where(zero & ~np.isnan(y), 0, out)
        return out.astype(x.dtype, copy=False)
    return fwd


_xlogy_fwd = x_log_forward(np.log, "xlogy")


_atan2 = Primitive("atan2", np.arctan2)
_fmax = Primitive("fmax", np.fmax)
_fmin = Primitive("fmin", np.fmin)
_clip = Primitive("clip", _clip_fwd)
_frac = Primitive("frac", _frac_fwd)
_hypot = Primitive("hypot", np.hypot)
_lerp = Primitive("lerp", lambda x, y, w: x + w * (y - x))
_logaddexp = Primitive("logaddexp", np.logaddexp)
_xlogy = Primitive("xlogy", _xlogy_fwd)
_nan_to_num = Primitive("nan_to_num", lambda x, nan, posinf, neginf:
                        np.nan_to_num(x, nan=nan, posinf=posinf, neginf=neginf))
_complex = Primitive("complex", _complex_fwd)
_scale = Primitive("scale", _scale_fwd)


# ---------------------------------------------------------------------------------
# derivative table: vjp(g, ans, *inputs, **params)

_no_save = dict(save=(), save_out=False)
_no_out = dict(save_out=False)

defvjp(_atan2, lambda g, ans, x, y: g * y / (x * x + y * y),
       lambda g, ans, x, y: -g * x / (x * x + y * y), **_no_out)
defvjp(_fmax, lambda g, ans, x, y: g * _nan_win(x, y, np.greater, g, True),
       lambda g, ans, x, y: g * _nan_win(y, x, np.greater, g, False), **_no_out)
defvjp(_fmin, lambda g, ans, x, y: g * _nan_win(x, y, np.less, g, True),
       lambda g, ans, x, y: g * _nan_win(y, x, np.less, g, False), **_no_out)
defvjp(_clip, lambda g, ans, x, lo, hi: g * _clip_mask(x, lo, hi, g), **_no_out)
defvjp(_frac, lambda g, ans, x: g, **_no_save)
defvjp(_hypot, lambda g, ans, x, y: _m._safe_div(g * x, ans),
       lambda g, ans, x, y: _m._safe_div(g * y, ans))
defvjp(_lerp, lambda g, ans, x, y, w: g * cj(1 - w), lambda g, ans, x, y, w: g * cj(w),
       lambda g, ans, x, y, w: g * cj(y - x), **_no_out)
defvjp(_logaddexp, lambda g, ans, x, y: g * exp(x - ans), lambda g, ans, x, y: g * exp(y - ans))
defvjp(_xlogy, lambda g, ans, x, y: g * log(where((x == 0) & (y == 0), _const(y, 1), y)),
       lambda g, ans, x, y: _xlogy_vjp_y(g, x, y), **_no_out)
defvjp(_nan_to_num, lambda g, ans, x, nan, posinf, neginf: g * _mask(np.isfinite(x._data), g),
       **_no_out)
defvjp(_complex, lambda g, ans, re, im: g, lambda g, ans, re, im: _m.imag(g), **_no_save)
defvjp(_scale, lambda g, ans, x, scale, bias, after: g * scale, **_no_save)

# forward rules: jvp(t, ans, *inputs) = f'(x) t (real functions, or holomorphic);
# xlogy's y falls back to the double vjp of its rule
defjvp(_atan2, lambda t, ans, x, y: t * y / (x * x + y * y),
       lambda t, ans, x, y: -t * x / (x * x + y * y))
defjvp(_fmax, lambda t, ans, x, y: t * _nan_win(x, y, np.greater, t, True),
       lambda t, ans, x, y: t * _nan_win(y, x, np.greater, t, False))
defjvp(_fmin, lambda t, ans, x, y: t * _nan_win(x, y, np.less, t, True),
       lambda t, ans, x, y: t * _nan_win(y, x, np.less, t, False))
defjvp(_clip, lambda t, ans, x, lo, hi: t * _clip_mask(x, lo, hi, t))
defjvp(_frac, lambda t, ans, x: t)
defjvp(_hypot, lambda t, ans, x, y: _m._safe_div(t * x, ans),
       lambda t, ans, x, y: _m._safe_div(t * y, ans))
defjvp(_lerp, lambda t, ans, x, y, w: t * (1 - w), lambda t, ans, x, y, w: t * w,
       lambda t, ans, x, y, w: t * (y - x))
defjvp(_logaddexp, lambda t, ans, x, y: t * exp(x - ans), lambda t, ans, x, y: t * exp(y - ans))
defjvp(_xlogy, lambda t, ans, x, y: t * log(where((x == 0) & (y == 0), _const(y, 1), y)), None)
defjvp(_nan_to_num, lambda t, ans, x, nan, posinf, neginf: t * _mask(np.isfinite(x._data), t))
deflinear(_complex)
defjvp(_scale, lambda t, ans, x, scale, bias, after: t * scale)


def _nan_win(a, b, beats, g, first):
    """Weight of ``a`` in fmax/fmin: 1 where it is taken, 1/2 on ties, else 0.

    ``a`` is taken where it beats ``b`` or where only ``b`` is NaN; when both are
    NaN the first operand keeps the gradient. Ties split it evenly, as ``maximum``.
    """
    ad, bd = _data(a), _data(b)
    other_nan = np.isnan(bd)
    if not first:
        other_nan = other_nan & ~np.isnan(ad)
    dt = g._data.dtype
    return Tensor._wrap((beats(ad, bd) | other_nan).astype(dt) + 0.5 * (ad == bd).astype(dt))


def _clip_mask(x, lo, hi, g):
    # Paddle's (and PyTorch's) rule: the gradient passes on the closed [min, max], at the
    # bounds included, and is 0 beyond
    xd = x._data
    m = np.ones_like(xd, dtype=bool)
    if lo is not None:
        m &= xd >= lo
    if hi is not None:
        m &= xd <= hi
    return _mask(m, g)


def _xlogy_vjp_y(g, x, y):
    # d/dy x log y = x / y; at the corner x == y == 0 (a removable 0/0 for the rule, the
    # function being 0 along x == 0) it is taken as 0
    corner = (x == 0) & (y == 0)
    return where(corner, _const(g, 0), g * x / where(corner, _const(y, 1), y))


# ---------------------------------------------------------------------------------
# public functions

def float_power(x, y, name=None):
    """``x ** y`` computed in float64 (complex128 when either operand is complex).

    >>> import weft
    >>> weft.float_power(weft.to_tensor([2, 3]), 2).dtype
    dtype('float64')
    """
    if not isinstance(x, Tensor) and not isinstance(y, Tensor):
        x = tensor_arg(x, "x", "float_power")
    cplx = any((isinstance(a, Tensor) and a._data.dtype.kind == "c") or
               isinstance(a, (builtins_complex, np.complexfloating)) for a in (x, y))
    d = _dt.complex128 if cplx else _dt.float64
    args = []
    for a, arg in ((x, "x"), (y, "y")):
        if isinstance(a, Tensor):
            args.append(a if a._data.dtype == d else cast(a, d))
        elif isinstance(a, (numbers.Number, np.generic)) and not isinstance(a, str):
            args.append(builtins_complex(a) if cplx else float(a))
        else:
            args.append(cast(tensor_arg(a, arg, "float_power"), d))
    return _m.pow(*args)


def atan2(x, y, name=None):
    """Elementwise angle of the point ``(y, x)``: ``arctan(x / y)`` in the right quadrant.

    ``x`` is the ordinate, ``y`` the abscissa (numpy's ``arctan2(x, y)``). Integer
    inputs give float64, as in Paddle.

    >>> import weft
    >>> round(weft.atan2(weft.to_tensor(1.0), weft.to_tensor(-1.0)).item(), 5)
    2.35619
    """
    _no_complex(x, "atan2", "x")
    _no_complex(y, "atan2", "y")
    x, y = _tensors(x, y, "atan2", float_result=False)
    if x._data.dtype.kind in "biu":
        x, y = cast(x, _dt.float64), cast(y, _dt.float64)
    return apply(_atan2, x, y)


def _nan_minmax(prim, doc):
    def op(x, y, name=None):
        _no_complex(x, prim.name, "x")
        _no_complex(y, prim.name, "y")
        if not isinstance(x, Tensor) and not isinstance(y, Tensor):
            x = tensor_arg(x, "x", prim.name)
        x, y = binary_operands(x, y, prim.name)
        return apply(prim, x, y)

    op.__name__ = op.__qualname__ = prim.name
    op.__doc__ = doc
    return op


fmax = _nan_minmax(_fmax, """Elementwise maximum that ignores NaN: where exactly one side is
    NaN the other is returned. Ties split the gradient evenly.

    >>> import weft
    >>> weft.fmax(weft.to_tensor([1.0, float('nan')]), weft.to_tensor([float('nan'), 2.0])).tolist()
    [1.0, 2.0]
    """)
fmin = _nan_minmax(_fmin, """Elementwise minimum that ignores NaN (see :func:`fmax`).

    >>> import weft
    >>> weft.fmin(weft.to_tensor([1.0, 5.0]), 3.0).tolist()
    [1.0, 3.0]
    """)


def _bound(v, x, arg):
    v = _number(v, "clip", arg)
    if v is None:
        return None
    d = x._data.dtype
    if d.kind in "iu":
        if isinstance(v, (float, np.floating)) and math.isnan(v):
            raise ValueError(f"clip: {arg} is NaN, which an integer tensor cannot hold")
        info = np.iinfo(d)
        # C-style truncation of float bounds, as Paddle; out-of-range bounds saturate
        v = int(info.max) if v > info.max else int(info.min) if v < info.min else int(v)
    else:
        v = float(v)
    return v


def clip(x, min=None, max=None, name=None):
    """Clamp every element into ``[min, max]`` (either bound may be None).

    Bounds are numbers or one-element Tensors; the result keeps ``x``'s dtype (an
    integer tensor truncates float bounds). The gradient is passed where
    ``min <= x <= max`` and is 0 elsewhere, as in Paddle.

    >>> import weft
    >>> weft.clip(weft.to_tensor([-2.0, 0.5, 3.0]), min=-1.0, max=1.0).tolist()
    [-1.0, 0.5, 1.0]
    """
    x = tensor_arg(x, "x", "clip")
    _no_complex(x, "clip")
    if x._data.dtype.kind == "b":
        raise TypeError("clip: x must be a numeric tensor, got bool")
    lo = _bound(min, x, "min")
    hi = _bound(max, x, "max")
    return apply(_clip, x, lo=lo, hi=hi)


def frac(x, name=None):
    """Fractional part ``x - trunc(x)`` (sign of ``x``); 0 for integer tensors. Gradient 1.

    >>> import weft
    >>> weft.frac(weft.to_tensor([1.25, -2.5])).tolist()
    [0.25, -0.5]
    """
    x = tensor_arg(x, "x", "frac")
    _no_complex(x, "frac")
    return apply(_frac, x)


def hypot(x, y, name=None):
    """``sqrt(x**2 + y**2)`` without overflow; integers give the default float dtype.
    The gradient at the origin is taken as 0.

    >>> import weft
    >>> weft.hypot(weft.to_tensor([3.0]), weft.to_tensor([4.0])).tolist()
    [5.0]
    """
    _no_complex(x, "hypot", "x")
    _no_complex(y, "hypot", "y")
    x, y = _tensors(x, y, "hypot")
    return apply(_hypot, x, y)


def lerp(x, y, weight, name=None):
    """Linear interpolation ``x + weight * (y - x)``; ``weight`` is a number or a Tensor
    (all three broadcast). Integer inputs give the default float dtype.

    >>> import weft
    >>> weft.lerp(weft.to_tensor([0.0, 10.0]), weft.to_tensor([1.0, 20.0]), 0.5).tolist()
    [0.5, 15.0]
    """
    x = tensor_arg(x, "x", "lerp")
    y = tensor_arg(y, "y", "lerp")
    x, y = binary_operands(x, y, "lerp", float_result=True)
    if isinstance(weight, Tensor) or isinstance(weight, (list, tuple, _ndarray)):
        w = tensor_arg(weight, "weight", "lerp")
        check_same_place(x, w, "lerp")
        d = _dt.promote_types(x._data.dtype, w._data.dtype)
        if d.kind in "biu":
            d = _dt.default_float()
        if x._data.dtype != d:
            x, y = cast(x, d), cast(y, d)
        if w._data.dtype != d:
            w = cast(w, d)
    else:
        w = _number(weight, "lerp", "weight", allow_none=False,
                    kinds=numbers.Number)
    return apply(_lerp, x, y, w)


def logaddexp(x, y, name=None):
    """``log(exp(x) + exp(y))`` without overflow; integers give the default float dtype.

    >>> import weft
    >>> round(weft.logaddexp(weft.to_tensor(0.0), weft.to_tensor(0.0)).item(), 5)
    0.69315
    """
    _no_complex(x, "logaddexp", "x")
    _no_complex(y, "logaddexp", "y")
    x, y = _tensors(x, y, "logaddexp")
    return apply(_logaddexp, x, y)


def xlogy(x, y, name=None):
    """``x * log(y)``, defined as 0 wherever ``x == 0`` (even for ``y == 0``).

    The gradient in ``x`` is ``log(y)``, in ``y`` it is ``x / y``; both are taken as 0
    at the corner ``x == y == 0``.

    >>> import weft
    >>> weft.xlogy(weft.to_tensor([0.0, 2.0]), weft.to_tensor([0.0, 1.0])).tolist()
    [0.0, 0.0]
    """
    _no_complex(x, "xlogy", "x")
    _no_complex(y, "xlogy", "y")
    x, y = _tensors(x, y, "xlogy")
    return apply(_xlogy, x, y)


def nan_to_num(x, nan=0.0, posinf=None, neginf=None, name=None):
    """Replace NaN by ``nan``, +inf by ``posinf`` and -inf by ``neginf`` (by default
    the largest and smallest finite values of the dtype). The gradient is 0 at the
    replaced entries.

    >>> import weft
    >>> weft.nan_to_num(weft.to_tensor([float('nan'), 1.0]), nan=-1.0).tolist()
    [-1.0, 1.0]
    """
    x = tensor_arg(x, "x", "nan_to_num")
    _no_complex(x, "nan_to_num")
    nan = _number(nan, "nan_to_num", "nan", allow_none=False)
    posinf = _number(posinf, "nan_to_num", "posinf")
    neginf = _number(neginf, "nan_to_num", "neginf")
    if x._data.dtype.kind in "biu":
        return cast(x, x._data.dtype)
    return apply(_nan_to_num, x, nan=float(nan),
                 posinf=None if posinf is None else float(posinf),
                 neginf=None if neginf is None else float(neginf))


def deg2rad(x, name=None):
    """Degrees to radians; integers give the default float dtype.

    >>> import weft
    >>> round(weft.deg2rad(weft.to_tensor(180)).item(), 5)
    3.14159
    """
    x = require_float(tensor_arg(x, "x", "deg2rad"), "deg2rad")
    _no_complex(x, "deg2rad")
    return _m.multiply(x, math.pi / 180.0)


def rad2deg(x, name=None):
    """Radians to degrees; integers give the default float dtype.

    >>> import weft
    >>> round(weft.rad2deg(weft.to_tensor(3.14159265)).item(), 3)
    180.0
    """
    x = require_float(tensor_arg(x, "x", "rad2deg"), "rad2deg")
    _no_complex(x, "rad2deg")
    return _m.multiply(x, 180.0 / math.pi)


def complex(real, imag, name=None):
    """The complex tensor ``real + 1j * imag`` (broadcasting); float32 parts give
    complex64, float64 parts complex128.

    >>> import weft
    >>> weft.complex(weft.to_tensor([1.0]), weft.to_tensor([2.0])).tolist()
    [(1+2j)]
    """
    if not isinstance(real, Tensor) and not isinstance(imag, Tensor):
        real = tensor_arg(real, "real", "complex")
    for t, arg in ((real, "real"), (imag, "imag")):
        if isinstance(t, Tensor) and t._data.dtype.kind not in "fiub":
            raise TypeError(f"complex: {arg} must be a real tensor, got {t._data.dtype.name}")
    real, imag = _tensors(real, imag, "complex")
    return apply(_complex, real, imag)


def polar(abs, angle, name=None):
    """The complex tensor ``abs * (cos(angle) + 1j * sin(angle))``.

    >>> import weft
    >>> z = weft.polar(weft.to_tensor([2.0]), weft.to_tensor([0.0]))
    >>> z.tolist()
    [(2+0j)]
    """
    for t, arg in ((abs, "abs"), (angle, "angle")):
        _no_complex(t, "polar", arg)
    abs, angle = _tensors(abs, angle, "polar")
    return complex(abs * cos(angle), abs * sin(angle))


_ACTS = {"tanh": _m.tanh, "sigmoid": _m.sigmoid, "relu": lambda t: _m.maximum(t, 0),
         "exp": _m.exp}


def scale(x, scale=1.0, bias=0.0, bias_after_scale=True, act=None, name=None):
    """``scale * x + bias`` (or ``scale * (x + bias)`` with ``bias_after_scale=False``).

    The result keeps ``x``'s dtype. ``scale`` may be a one-element Tensor, which
    is then differentiated too. ``act`` optionally applies ``'tanh'``,
    ``'sigmoid'``, ``'relu'`` or ``'exp'`` afterwards.

    >>> import weft
    >>> weft.scale(weft.to_tensor([1.0, 2.0]), scale=2.0, bias=1.0).tolist()
    [3.0, 5.0]
    """
    x = tensor_arg(x, "x", "scale")
    if x._data.dtype.kind == "b":
        raise TypeError("scale: x must be a numeric tensor, got bool")
    if act is not None and act not in _ACTS:
        raise ValueError(f"scale: act must be None or one of {sorted(_ACTS)}, got {act!r}")
    bias = _number(bias, "scale", "bias", allow_none=False,
                   kinds=numbers.Number)
    if isinstance(scale, Tensor):
        if scale.size != 1:
            raise ValueError(f"scale: scale must be a number or a one-element Tensor, got a "
                             f"Tensor of shape {scale.shape}")
        s = reshape(scale, []) if scale.ndim else scale
        if s._data.dtype != x._data.dtype:
            s = cast(s, x._data.dtype)
        out = _m.add(_m.multiply(x, s), bias) if bias_after_scale else \
            _m.multiply(_m.add(x, bias), s)
        out = out if out._data.dtype == x._data.dtype else cast(out, x._data.dtype)
    else:
        s = _number(scale, "scale", "scale", allow_none=False,
                    kinds=numbers.Number)
        out = apply(_scale, x, scale=s, bias=bias, after=bool(bias_after_scale))
    return _ACTS[act](out) if act is not None else out


__all__ = ["float_power", "atan2", "fmax", "fmin", "clip", "frac", "hypot", "lerp",
           "logaddexp", "xlogy", "nan_to_num", "deg2rad", "rad2deg", "complex", "polar",
           "scale"]
__tensor_methods__ = {n: globals()[n] for n in __all__ if n not in ("complex", "polar")}
