"""Elementwise arithmetic and elementary functions, with their derivative table.

Forwards are numpy ufuncs, which CuPy arrays also accept (``__array_ufunc__``), so
one forward serves both devices. Complex rules follow the convention
``grad = dL/dRe + i dL/dIm``: a holomorphic ``f`` has vjp ``g * conj(f'(z))``.
The engine sums broadcast gradients back to each input's shape and drops the
imaginary part for real inputs, so the rules below are pure calculus.
"""
from __future__ import annotations

import math

import numpy as np

from ...autograd.engine import (Primitive, apply, defbatch, deflinear, defjvp, defmultilinear,
                                defvjp, support)
from ...core import dtype as _dt
from ...core.tensor import Tensor
from ...core.args import check_same_place, tensor_arg, xp_of
from .._support import binary_operands, require_float

# ---------------------------------------------------------------------------------
# forward primitives

_add = Primitive("add", np.add)
_sub = Primitive("subtract", np.subtract)
_mul = Primitive("multiply", np.multiply)


def _true_divide(x, y):
    r = np.true_divide(x, y)
    if r.dtype.kind != "c" or not hasattr(r, "__cuda_array_interface__"):
        return r   # numpy arrays and scalars: numpy's own rule already
    # CUDA's complex division returns NaN + NaN j for a zero divisor; numpy divides
    # each part by |0| (x/0 = ±inf in each part, 0/0 = NaN): the GPU gives numpy's
    return complex_division_by_zero(xp_of(r), x, y, r)


def complex_division_by_zero(xp, x, y, r):
    """``r`` (the complex ``x / y``) with numpy's value where ``y == 0``: each part of
    ``x`` divided by +0. For any array module (tested with numpy)."""
    parts = xp.broadcast_to(xp.asarray(x), r.shape).astype(r.dtype)
    zero = parts.real.dtype.type(0)
    by_zero = xp.empty(r.shape, r.dtype)
    by_zero.real[...] = parts.real / zero   # .real / .imag are views of by_zero
    by_zero.imag[...] = parts.imag / zero
    return xp.where(xp.broadcast_to(xp.asarray(y) == 0, r.shape), by_zero, r)


_div = Primitive("divide", _true_divide)
_floordiv = Primitive("floor_divide", np.floor_divide)
_mod = Primitive("remainder", np.remainder)
_pow = Primitive("pow", np.power)
_maximum = Primitive("maximum", np.maximum)
_minimum = Primitive("minimum", np.minimum)

_neg = Primitive("neg", np.negative)
_exp = Primitive("exp", np.exp)
_expm1 = Primitive("expm1", np.expm1)
_log = Primitive("log", np.log)
_log1p = Primitive("log1p", np.log1p)
_log2 = Primitive("log2", np.log2)
_log10 = Primitive("log10", np.log10)
_sqrt = Primitive("sqrt", np.sqrt)
_rsqrt = Primitive("rsqrt", lambda x: 1 / np.sqrt(x))
_square = Primitive("square", np.square)
_reciprocal = Primitive("reciprocal", lambda x: 1 / x)
_abs = Primitive("abs", np.abs)
_sign = Primitive("sign", np.sign)
_sin = Primitive("sin", np.sin)
_cos = Primitive("cos", np.cos)
_tan = Primitive("tan", np.tan)
_asin = Primitive("asin", np.arcsin)
_acos = Primitive("acos", np.arccos)
_atan = Primitive("atan", np.arctan)
_sinh = Primitive("sinh", np.sinh)
_cosh = Primitive("cosh", np.cosh)
_tanh = Primitive("tanh", np.tanh)
_asinh = Primitive("asinh", np.arcsinh)
_acosh = Primitive("acosh", np.arccosh)
_atanh = Primitive("atanh", np.arctanh)
_sigmoid = Primitive("sigmoid", lambda x: _sigmoid_fwd(x))
_floor = Primitive("floor", np.floor)
_ceil = Primitive("ceil", np.ceil)
_round = Primitive("round", lambda x, decimals=0: np.round(x, decimals))
_trunc = Primitive("trunc", np.trunc)
_real = Primitive("real", lambda x: x.real.copy())
_imag = Primitive("imag", lambda x: x.imag.copy())
_conj = Primitive("conj", np.conjugate)
_angle = Primitive("angle", lambda x: np.angle(x).astype(x.real.dtype, copy=False))


def _sigmoid_fwd(x):
    # split by sign so that exp never overflows
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1 / (1 + e), e / (1 + e)).astype(x.dtype, copy=False)


# ---------------------------------------------------------------------------------
# derivative table: vjp(g, ans, *inputs)

def _summed_to(g, t):
    """``g`` summed to the shape of the input ``t`` it is for (the engine would do it
    afterwards; done first, a rule's own work runs on the smaller array — for ``x - μ``
    with a scalar ``μ`` the negation touches one number instead of every element)."""
    if isinstance(t, Tensor) and t._data.shape != g._data.shape:
        return support.sum_to_shape(g, list(t._data.shape))
    return g


def cj(t):
    """Complex conjugate, free for real tensors and Python numbers."""
    if not isinstance(t, Tensor):
        return t.conjugate() if isinstance(t, complex) else t
    return conj(t) if t._data.dtype.kind == "c" else t


LN2, LN10 = math.log(2.0), math.log(10.0)
_no_save = dict(save=(), save_out=False)

defvjp(_add, lambda g, ans, x, y: g, lambda g, ans, x, y: g, **_no_save)
defvjp(_sub, lambda g, ans, x, y: g, lambda g, ans, x, y: -_summed_to(g, y), **_no_save)
# (a Python float or int is its own conjugate: the common `x * 1.5` skips cj's checks)
defvjp(_mul, lambda g, ans, x, y: g * (y if type(y) in (float, int) else cj(y)),
       lambda g, ans, x, y: g * (x if type(x) in (float, int) else cj(x)),
       save={0: (1,), 1: (0,)}, save_out=False)
defvjp(_div, lambda g, ans, x, y: g / cj(y), lambda g, ans, x, y: -g * cj(ans / y),
       save={0: (1,), 1: (1,)})
defvjp(_floordiv, lambda g, ans, x, y: g * 0, lambda g, ans, x, y: g * 0, **_no_save)
defvjp(_mod, lambda g, ans, x, y: g, lambda g, ans, x, y: -g * floor_divide(x, y),
       save={1: (0, 1)}, save_out=False)
defvjp(_maximum, lambda g, ans, x, y: g * _tie_split(x, y),
       lambda g, ans, x, y: g * _tie_split(y, x), save_out=False)
defvjp(_minimum, lambda g, ans, x, y: g * _tie_split(y, x),
       lambda g, ans, x, y: g * _tie_split(x, y), save_out=False)

defvjp(_neg, lambda g, ans, x: -g, **_no_save)
defvjp(_exp, lambda g, ans, x: g * cj(ans), save=())
defvjp(_expm1, lambda g, ans, x: g * cj(ans + 1), save=())
defvjp(_log, lambda g, ans, x: g / cj(x), save_out=False)
defvjp(_log1p, lambda g, ans, x: g / cj(x + 1), save_out=False)
defvjp(_log2, lambda g, ans, x: g / (cj(x) * LN2), save_out=False)
defvjp(_log10, lambda g, ans, x: g / (cj(x) * LN10), save_out=False)
defvjp(_sqrt, lambda g, ans, x: _safe_div(g, 2 * cj(ans)), save=())
defvjp(_rsqrt, lambda g, ans, x: -0.5 * g * cj(ans) ** 3, save=())
defvjp(_square, lambda g, ans, x: 2 * g * cj(x), save_out=False)
defvjp(_reciprocal, lambda g, ans, x: -g * cj(ans * ans), save=())
defvjp(_abs, lambda g, ans, x: g * sgn(x), save_out=False)
defvjp(_sign, lambda g, ans, x: g * 0, **_no_save)
defvjp(_sin, lambda g, ans, x: g * cj(cos(x)), save_out=False)
defvjp(_cos, lambda g, ans, x: -g * cj(sin(x)), save_out=False)
defvjp(_tan, lambda g, ans, x: g * cj(1 + ans * ans), save=())
defvjp(_asin, lambda g, ans, x: g / cj(sqrt(1 - x * x)), save_out=False)
defvjp(_acos, lambda g, ans, x: -g / cj(sqrt(1 - x * x)), save_out=False)
defvjp(_atan, lambda g, ans, x: g / cj(1 + x * x), save_out=False)
defvjp(_sinh, lambda g, ans, x: g * cj(cosh(x)), save_out=False)
defvjp(_cosh, lambda g, ans, x: g * cj(sinh(x)), save_out=False)
defvjp(_tanh, lambda g, ans, x: apply(_tanh_backward, g, ans), save=())
defvjp(_asinh, lambda g, ans, x: g / cj(sqrt(x * x + 1)), save_out=False)
defvjp(_acosh, lambda g, ans, x: g / cj(sqrt(x * x - 1)), save_out=False)
defvjp(_atanh, lambda g, ans, x: g / cj(1 - x * x), save_out=False)
defvjp(_sigmoid, lambda g, ans, x: apply(_sigmoid_backward, g, ans), save=())
for _p in (_floor, _ceil, _round, _trunc):
    defvjp(_p, lambda g, ans, x, **params: g * 0, **_no_save)
defvjp(_real, lambda g, ans, x: g, **_no_save)
defvjp(_imag, lambda g, ans, x: g * 1j, **_no_save)
defvjp(_conj, lambda g, ans, x: conj(g), **_no_save)
defvjp(_angle, lambda g, ans, x: _angle_vjp(g, x), save_out=False)

# tanh and sigmoid backward as single ops (one pass instead of three in the hot
# backward of small-tensor code), themselves differentiable for higher orders
def _tanh_bwd(g, y):
    h = y * y
    h = np.subtract(1, h, out=h) if type(h) is np.ndarray else 1 - h   # fresh: reuse it
    # g * conj(h); a real h is its own conjugate (and conjugating costs a pass)
    return g * (np.conjugate(h) if h.dtype.kind == "c" else h)


def _sigmoid_bwd(g, y):
    h = y * (1 - y)
    return g * (np.conjugate(h) if h.dtype.kind == "c" else h)


_tanh_backward = Primitive("tanh_backward", _tanh_bwd)
_sigmoid_backward = Primitive("sigmoid_backward", _sigmoid_bwd)
# out = g * conj(h(y)) is holomorphic in g and anti-holomorphic in y, so the rule
# for y conjugates the whole product: conj(gg * conj(g) * h'(y))
defvjp(_tanh_backward, lambda gg, ans, g, y: gg * (1 - y * y),
       lambda gg, ans, g, y: -2 * cj(gg * cj(g) * y), save_out=False)
defvjp(_sigmoid_backward, lambda gg, ans, g, y: gg * (y * (1 - y)),
       lambda gg, ans, g, y: cj(gg * cj(g) * (1 - 2 * y)), save_out=False)
# every rule above multiplies g elementwise by per-sample tensors, so a leading batch
# axis on g broadcasts through (autograd.engine.defbatch)
for _p in (_add, _mul, _div, _floordiv, _mod, _maximum, _minimum, _neg, _exp, _expm1,
           _log, _log1p, _log2, _log10, _sqrt, _rsqrt, _square, _reciprocal, _abs, _sign, _sin,
           _cos, _tan, _asin, _acos, _atan, _sinh, _cosh, _tanh, _asinh, _acosh, _atanh,
           _sigmoid, _floor, _ceil, _round, _trunc, _real, _imag, _conj, _angle,
           _tanh_backward, _sigmoid_backward):
    defbatch(_p)
# sub's plain y rule sums g to y's shape first, which would take a batch axis with it
defbatch(_sub, True, lambda g, ans, x, y: -g)

# forward rules: jvp(t, ans, *inputs) is the tangent f'(x) t, no conjugates (for a
# holomorphic f; |z| and angle take the real-linear differential). A rounding op has
# none: its tangent is zero (None)
_zero = lambda t, ans, *args, **params: None  # noqa: E731
defjvp(_add, lambda t, ans, x, y: t, lambda t, ans, x, y: t)
defjvp(_sub, lambda t, ans, x, y: t, lambda t, ans, x, y: -t)
defmultilinear(_mul)
defjvp(_div, lambda t, ans, x, y: t / y, lambda t, ans, x, y: -t * ans / y)
defjvp(_floordiv, _zero, _zero)
defjvp(_mod, lambda t, ans, x, y: t, lambda t, ans, x, y: -t * floor_divide(x, y))
defjvp(_maximum, lambda t, ans, x, y: t * _tie_split(x, y),
       lambda t, ans, x, y: t * _tie_split(y, x))
defjvp(_minimum, lambda t, ans, x, y: t * _tie_split(y, x),
       lambda t, ans, x, y: t * _tie_split(x, y))
deflinear(_neg)
defjvp(_exp, lambda t, ans, x: t * ans)
defjvp(_expm1, lambda t, ans, x: t * (ans + 1))
defjvp(_log, lambda t, ans, x: t / x)
defjvp(_log1p, lambda t, ans, x: t / (x + 1))
defjvp(_log2, lambda t, ans, x: t / (x * LN2))
defjvp(_log10, lambda t, ans, x: t / (x * LN10))
defjvp(_sqrt, lambda t, ans, x: _safe_div(t, 2 * ans))
defjvp(_rsqrt, lambda t, ans, x: -0.5 * t * ans ** 3)
defjvp(_square, lambda t, ans, x: 2 * t * x)
defjvp(_reciprocal, lambda t, ans, x: -t * (ans * ans))
defjvp(_abs, lambda t, ans, x: t * sgn(x) if x._data.dtype.kind != "c" else real(cj(sgn(x)) * t))
defjvp(_sign, _zero)
defjvp(_sin, lambda t, ans, x: t * cos(x))
defjvp(_cos, lambda t, ans, x: -t * sin(x))
defjvp(_tan, lambda t, ans, x: t * (1 + ans * ans))
defjvp(_asin, lambda t, ans, x: t / sqrt(1 - x * x))
defjvp(_acos, lambda t, ans, x: -t / sqrt(1 - x * x))
defjvp(_atan, lambda t, ans, x: t / (1 + x * x))
defjvp(_sinh, lambda t, ans, x: t * cosh(x))
defjvp(_cosh, lambda t, ans, x: t * sinh(x))
defjvp(_tanh, lambda t, ans, x: t * (1 - ans * ans))
defjvp(_asinh, lambda t, ans, x: t / sqrt(x * x + 1))
defjvp(_acosh, lambda t, ans, x: t / sqrt(x * x - 1))
defjvp(_atanh, lambda t, ans, x: t / (1 - x * x))
defjvp(_sigmoid, lambda t, ans, x: t * (ans * (1 - ans)))
for _p in (_floor, _ceil, _round, _trunc):
    defjvp(_p, _zero)
for _p in (_real, _imag, _conj):
    deflinear(_p)
defjvp(_angle, lambda t, ans, x: None if x._data.dtype.kind != "c" else
       imag(cj(x) * t) / (real(x) ** 2 + imag(x) ** 2))
# g * conj(h(y)): linear in g; in y the conjugate of h'(y) t
defjvp(_tanh_backward, lambda t, ans, g, y: t * cj(1 - y * y),
       lambda t, ans, g, y: -2 * g * cj(y * t))
defjvp(_sigmoid_backward, lambda t, ans, g, y: t * cj(y * (1 - y)),
       lambda t, ans, g, y: g * cj(t * (1 - 2 * y)))


def _pow_vjp_x(g, ans, x, y):
    if isinstance(y, Tensor):
        return g * cj(y * x ** (y - 1))
    if y == 0:
        return g * 0
    return g * cj(y * x ** (y - 1))


def _pow_vjp_y(g, ans, x, y):
    # d/dy x**y = x**y log x; where x == 0 the limit (for y > 0) is 0
    if not isinstance(x, Tensor):
        return g * cj(ans * math.log(x)) if x != 0 else g * 0
    return g * cj(where(x == 0, ans * 0, ans * log(where(x == 0, x + 1, x))))


defvjp(_pow, _pow_vjp_x, _pow_vjp_y, save={0: (0, 1), 1: (0,)})
defbatch(_pow)
defjvp(_pow, lambda t, ans, x, y: cj(_pow_vjp_x(cj(t), ans, x, y)),
       lambda t, ans, x, y: cj(_pow_vjp_y(cj(t), ans, x, y)))


def _tie_split(a, b):
    """1 where a wins, 1/2 on ties (the gradient is split evenly), 0 where b wins."""
    return cast_like((a > b), a) + 0.5 * cast_like((a == b), a)


def _safe_div(g, d):
    """g / d with 0 where d == 0: the subgradient convention at sqrt(0)."""
    zero = d == 0
    return where(zero, g * 0, g / where(zero, d + 1, d))


def _angle_vjp(g, x):
    if x._data.dtype.kind != "c":
        return g * 0
    return _safe_div(g * 1j * x, x * cj(x))


def sgn(x, name=None):
    """Sign of real numbers; ``z / |z|`` (0 at 0) of complex ones."""
    x = tensor_arg(x, "x", "sgn")
    if x._data.dtype.kind != "c":
        return apply(_sign, x)
    return _safe_div(x, abs(x) + 0j)


# ---------------------------------------------------------------------------------
# public functions

def _binary(prim, doc, float_result=False):
    name = prim.name
    nd = np.ndarray
    weak = _dt._scalar_cache

    def op(x, y, name=None):
        # fast paths for the common cases: no promotion, no device check needed
        if type(x) is Tensor:
            xd = x._data
            if type(y) is Tensor:
                if xd.dtype == y._data.dtype and type(xd) is nd and type(y._data) is nd \
                        and (not float_result or xd.dtype.kind in "fc"):
                    return apply(prim, x, y)
            elif (type(y) is float or type(y) is int) and xd.dtype.kind in "fc" and \
                    weak.get((xd.dtype, type(y))) is xd.dtype:
                return apply(prim, x, y)
        elif (type(x) is float or type(x) is int) and type(y) is Tensor:
            yd = y._data
            if yd.dtype.kind in "fc" and weak.get((yd.dtype, type(x))) is yd.dtype:
                return apply(prim, x, y)
        x, y = binary_operands(x, y, prim.name, float_result)
        return apply(prim, x, y)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = doc
    return op


def _unary(prim, doc, float_only=True):
    def op(x, name=None):
        if type(x) is not Tensor:
            x = tensor_arg(x, "x", prim.name)
        if float_only and x._data.dtype.kind in "biu":
            x = require_float(x, prim.name)
        return apply(prim, x)

    op.__name__ = op.__qualname__ = prim.name
    op.__doc__ = doc
    return op


add = _binary(_add, "Elementwise ``x + y`` with broadcasting.\n\n"
              ">>> import weft\n>>> weft.add(weft.to_tensor([1, 2]), 3).tolist()\n[4, 5]\n")
subtract = _binary(_sub, "Elementwise ``x - y`` with broadcasting.")
multiply = _binary(_mul, "Elementwise ``x * y`` with broadcasting.")
divide = _binary(_div, "Elementwise true division; integer inputs give the default float "
                 "dtype.\n\n>>> import weft\n>>> weft.divide(weft.to_tensor([1, 3]), 2).tolist()"
                 "\n[0.5, 1.5]\n", float_result=True)
floor_divide = _binary(_floordiv, "Elementwise ``x // y`` (rounded toward -inf).")
remainder = _binary(_mod, "Elementwise ``x % y`` with the sign of ``y`` (Python's rule).")
mod = remainder
floor_mod = remainder
maximum = _binary(_maximum, "Elementwise maximum (NaN propagates). Ties split the gradient "
                  "evenly.")
minimum = _binary(_minimum, "Elementwise minimum (NaN propagates). Ties split the gradient "
                  "evenly.")
_pow_op = _binary(_pow, "")


def pow(x, y, name=None):
    """Elementwise ``x ** y``; ``y`` may be a Tensor or a Python number.

    >>> import weft
    >>> weft.pow(weft.to_tensor([2.0, 3.0]), 2).tolist()
    [4.0, 9.0]
    """
    if isinstance(x, Tensor) and type(y) is int and y < 0 and x._data.dtype.kind in "iu":
        raise ValueError(f"pow: integer tensor to the negative power {y}; cast x to float first")
    return _pow_op(x, y)


neg = _unary(_neg, "Elementwise ``-x``.", float_only=False)
exp = _unary(_exp, "Elementwise ``e**x``.")
expm1 = _unary(_expm1, "Elementwise ``exp(x) - 1``, accurate near 0.")
log = _unary(_log, "Natural logarithm.")
log1p = _unary(_log1p, "``log(1 + x)``, accurate near 0.")
log2 = _unary(_log2, "Base-2 logarithm.")
log10 = _unary(_log10, "Base-10 logarithm.")
sqrt = _unary(_sqrt, "Square root; the gradient at 0 is taken as 0 (subgradient), not inf.")
rsqrt = _unary(_rsqrt, "``1 / sqrt(x)``.")
square = _unary(_square, "Elementwise ``x * x``.", float_only=False)
reciprocal = _unary(_reciprocal, "Elementwise ``1 / x``.")
abs = _unary(_abs, "Absolute value (modulus for complex); gradient 0 at 0.", float_only=False)
sign = _unary(_sign, "Sign of each element: -1, 0 or 1.", float_only=False)
sin = _unary(_sin, "Sine.")
cos = _unary(_cos, "Cosine.")
tan = _unary(_tan, "Tangent.")
asin = _unary(_asin, "Inverse sine.")
acos = _unary(_acos, "Inverse cosine.")
atan = _unary(_atan, "Inverse tangent.")
sinh = _unary(_sinh, "Hyperbolic sine.")
cosh = _unary(_cosh, "Hyperbolic cosine.")
tanh = _unary(_tanh, "Hyperbolic tangent.\n\n>>> import weft\n"
              ">>> print(f'{weft.tanh(weft.to_tensor(0.5)).item():.4f}')\n0.4621\n")
asinh = _unary(_asinh, "Inverse hyperbolic sine.")
acosh = _unary(_acosh, "Inverse hyperbolic cosine.")
atanh = _unary(_atanh, "Inverse hyperbolic tangent.")
sigmoid = _unary(_sigmoid, "Logistic function ``1 / (1 + exp(-x))``, overflow-free.")
floor = _unary(_floor, "Round toward -inf (gradient 0).", float_only=False)
ceil = _unary(_ceil, "Round toward +inf (gradient 0).", float_only=False)
trunc = _unary(_trunc, "Round toward 0 (gradient 0).", float_only=False)
conj = _unary(_conj, "Complex conjugate (identity values for real tensors).", float_only=False)
angle = _unary(_angle, "Argument of complex numbers (0 or pi for reals).")


def round(x, decimals=0, name=None):
    """Round half to even (numpy's rule), to ``decimals`` places; gradient 0."""
    x = tensor_arg(x, "x", "round")
    if decimals:
        return apply(_round, x, decimals=int(decimals))
    return apply(_round, x)




def real(x, name=None):
    """Real part (a real tensor; a copy for real input)."""
    x = tensor_arg(x, "x", "real")
    return apply(_real, x)


def imag(x, name=None):
    """Imaginary part (zeros for real input)."""
    x = tensor_arg(x, "x", "imag")
    return apply(_imag, x)


def cast_like(mask, like):
    """A boolean mask as a 0/1 tensor of ``like``'s dtype (no graph)."""
    return Tensor._wrap(mask._data.astype(like._data.dtype))


_where = Primitive("where", np.where)
defvjp(_where, None, lambda g, ans, c, x, y: where(c, g, g * 0),
       lambda g, ans, c, x, y: where(c, g * 0, g), save=(0,), save_out=False)
defbatch(_where)   # the condition broadcasts against g's batch axis
deflinear(_where)  # in x and y jointly, the condition held


def where(condition, x=None, y=None, name=None):
    """``x`` where ``condition`` holds, else ``y`` (broadcasting); with only ``condition``,
    the indices of its nonzero elements as a tuple of 1-D int64 tensors.

    >>> import weft
    >>> weft.where(weft.to_tensor([True, False]), 1.0, 2.0).tolist()
    [1.0, 2.0]
    """
    condition = tensor_arg(condition, "condition", "where")
    if x is None and y is None:
        return tuple(Tensor._wrap(i.astype(np.int64)) for i in condition._data.nonzero())
    if x is None or y is None:
        raise ValueError("where: give both x and y, or neither")
    if condition._data.dtype != np.bool_:
        condition = Tensor._wrap(condition._data.astype(bool))
    x, y = binary_operands(x, y, "where")
    if not isinstance(x, Tensor):
        x = Tensor._wrap(xp_of(y).asarray(x, dtype=y._data.dtype))
    if not isinstance(y, Tensor):
        y = Tensor._wrap(xp_of(x).asarray(y, dtype=x._data.dtype))
    check_same_place(condition, x, "where")
    return apply(_where, condition, x, y)


__all__ = [
    "add", "subtract", "multiply", "divide", "floor_divide", "remainder", "mod", "floor_mod",
    "pow", "maximum", "minimum", "neg", "exp", "expm1", "log", "log1p", "log2", "log10",
    "sqrt", "rsqrt", "square", "reciprocal", "abs", "sign", "sgn", "sin", "cos", "tan",
    "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "sigmoid",
    "floor", "ceil", "round", "trunc", "real", "imag", "conj", "angle", "where",
]
__tensor_methods__ = {n: globals()[n] for n in __all__}
