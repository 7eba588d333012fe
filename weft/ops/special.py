"""Special functions (error, gamma and Bessel families, sinc, logit) with their derivatives.

Forwards call ``scipy.special`` on CPU arrays and ``cupyx.scipy.special`` on CuPy
arrays (both imported on first use, so ``import weft`` pays for neither). Every
derivative is written with weft ops, most of them with other special functions
of this module (``lgamma' = digamma``, ``digamma' = polygamma(1, .)``,
``polygamma(n)' = polygamma(n + 1)``, ``i0' = i1`` ...), so derivatives of any
order work. The functions are real: integer and bool inputs are computed in the
default float dtype, complex inputs raise ``TypeError``.
"""
from __future__ import annotations

import math
import numbers

import numpy as np

from ..autograd.engine import Primitive, apply, defvjp
from ..core.tensor import Tensor
from ..core.args import tensor_arg
from ._support import binary_operands, require_float
from ..core.place import special_module
from .math.functions import xlogy
from .math.ufuncs import cos, exp, sign, where

_ndarray = np.ndarray


def _like(out, x):
    # scipy computes float16 in float32 and 0-D inputs give scalars: restore dtype
    return out.astype(x.dtype, copy=False)


def _sf(fname):
    """Forward of a unary scipy.special ufunc, keeping the input's dtype."""
    def fwd(x):
        return _like(getattr(special_module(x), fname)(x), x)
    return fwd


def _real_arg(x, op, arg="x"):
    """``x`` as a real floating Tensor (ints and bools in the default float dtype)."""
    x = tensor_arg(x, arg, op)
    k = x._data.dtype.kind
    if k == "c":
        raise TypeError(f"{op}: {arg} must be a real tensor, got {x._data.dtype.name}")
    if k not in "f":
        x = require_float(x, op, arg)
    return x


def _int_arg(v, op, arg, least):
    if isinstance(v, Tensor) and v.size == 1 and v._data.dtype.kind in "iu":
        v = v.item()
    if not isinstance(v, (int, np.integer)) or isinstance(v, (bool, np.bool_)):
        raise TypeError(f"{op}: {arg} must be an int, got {type(v).__name__}")
    if v < least:
        raise ValueError(f"{op}: {arg} must be >= {least}, got {v}")
    return int(v)


def _safe(x, at, value=1.0):
    """``x`` with the entries where ``at`` holds replaced by ``value`` (a constant).

    Used to keep removable singularities (``i1(x) / x`` at 0 ...) out of both the
    value and every derivative of the discarded branch of a ``where``.
    """
    return where(at, _const(x, value), x)


def _const(x, value):
    """A constant (graph-free) tensor of ``value`` with the shape, dtype and device of ``x``."""
    return Tensor._wrap(np.full_like(x._data, value))


# ---------------------------------------------------------------------------------
# forward primitives

_erf = Primitive("erf", _sf("erf"))
_erfinv = Primitive("erfinv", _sf("erfinv"))
_lgamma = Primitive("lgamma", _sf("gammaln"))
_digamma = Primitive("digamma", _sf("psi"))
_polygamma = Primitive("polygamma", lambda x, n: _polygamma_fwd(x, n))
_gammainc = Primitive("gammainc", lambda x, y: _like(special_module(x).gammainc(x, y), x))
_gammaincc = Primitive("gammaincc", lambda x, y: _like(special_module(x).gammaincc(x, y), x))
_i0 = Primitive("i0", _sf("i0"))
_i0e = Primitive("i0e", _sf("i0e"))
_i1 = Primitive("i1", _sf("i1"))
_i1e = Primitive("i1e", _sf("i1e"))
_sinc = Primitive("sinc", np.sinc)


def _polygamma_fwd(x, n):
    # cupyx's polygamma broadcasts its order with the array, so it gets one of its own
    order = n if type(x) is _ndarray else np.full_like(x, n)
    return _like(special_module(x).polygamma(order, x), x)


def _multigammaln_fwd(x, p):
    # log Gamma_p(x) = p(p-1)/4 log(pi) + sum_{j<p} lgamma(x - j/2), written out because
    # scipy's multigammaln raises for the whole array when one entry is off the domain
    gl = special_module(x).gammaln
    r = gl(x)
    for j in range(1, p):
        r = r + gl(x - 0.5 * j)
    return _like(r + 0.25 * p * (p - 1) * math.log(math.pi), x)


def _logit_fwd(x, eps):
    if eps is not None:
        x = np.clip(x, eps, 1.0 - eps)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.log(x) - np.log1p(-x)


_multigammaln = Primitive("multigammaln", _multigammaln_fwd)
_logit = Primitive("logit", _logit_fwd)


# ---------------------------------------------------------------------------------
# derivative table: vjp(g, ans, *inputs, **params)

_2_SQRTPI = 2.0 / math.sqrt(math.pi)
_SQRTPI_2 = math.sqrt(math.pi) / 2.0
_no_out = dict(save_out=False)

defvjp(_erf, lambda g, ans, x: g * (_2_SQRTPI * exp(-(x * x))), **_no_out)
defvjp(_erfinv, lambda g, ans, x: g * (_SQRTPI_2 * exp(ans * ans)), save=())
defvjp(_lgamma, lambda g, ans, x: g * digamma(x), **_no_out)
defvjp(_digamma, lambda g, ans, x: g * apply(_polygamma, x, n=1), **_no_out)
defvjp(_polygamma, lambda g, ans, x, n: g * apply(_polygamma, x, n=n + 1), **_no_out)
defvjp(_multigammaln, lambda g, ans, x, p: g * _sum_digamma(x, p), **_no_out)
# the shape parameter (first argument) is not differentiable: its derivative has no
# closed form (it needs a series / Meijer-G evaluation), see gammainc's docstring
defvjp(_gammainc, None, lambda g, ans, x, y: g * _gamma_density(x, y), **_no_out)
defvjp(_gammaincc, None, lambda g, ans, x, y: -g * _gamma_density(x, y), **_no_out)
defvjp(_i0, lambda g, ans, x: g * i1(x), **_no_out)
defvjp(_i0e, lambda g, ans, x: g * (i1e(x) - sign(x) * ans))
defvjp(_i1, lambda g, ans, x: g * _i1_deriv(x, ans))
defvjp(_i1e, lambda g, ans, x: g * _i1e_deriv(x, ans))
defvjp(_sinc, lambda g, ans, x: g * _sinc_deriv(x, ans))
defvjp(_logit, lambda g, ans, x, eps: _logit_vjp(g, x, eps), **_no_out)


def _sum_digamma(x, p):
    d = digamma(x)
    for j in range(1, p):
        d = d + digamma(x - 0.5 * j)
    return d


def _gamma_density(x, y):
    """``y**(x-1) exp(-y) / Gamma(x)``: d/dy of the regularized lower incomplete gamma."""

    # xlogy keeps the x == 1, y == 0 corner at exp(0) = 1 instead of 0 * -inf
    return exp(xlogy(x - 1, y) - y - lgamma(x))


def _i1_deriv(x, ans):
    # i1'(x) = i0(x) - i1(x)/x, whose limit at 0 is 1/2
    at0 = x == 0
    return where(at0, _const(x, 0.5), i0(x) - ans / _safe(x, at0))


def _i1e_deriv(x, ans):
    # i1e(x) = exp(-|x|) i1(x), so i1e' = i0e - i1e (sign(x) + 1/x); 1/2 at 0
    at0 = x == 0
    return where(at0, _const(x, 0.5),
                 i0e(x) - ans * (sign(x) + 1 / _safe(x, at0)))


def _sinc_deriv(x, ans):
    # d/dx sin(pi x)/(pi x) = (cos(pi x) - sinc(x)) / x, 0 at x = 0
    at0 = x == 0
    return where(at0, _const(x, 0.0), (cos(math.pi * x) - ans) / _safe(x, at0))


def _logit_vjp(g, x, eps):
    # Paddle's and PyTorch's rule: 1/(x(1-x)) inside [eps, 1-eps], 0 where x was clipped
    lo = 0.0 if eps is None else eps
    inside = Tensor._wrap((x._data >= lo) & (x._data <= 1.0 - lo))
    xs = _safe(x, Tensor._wrap(~inside._data), 0.5)
    return where(inside, g / (xs * (1 - xs)), g * 0)


# ---------------------------------------------------------------------------------
# public functions

def _unary(prim, doc, pname=None):
    def op(x, name=None):
        x = _real_arg(x, pname or prim.name)
        return apply(prim, x)

    op.__name__ = op.__qualname__ = pname or prim.name
    op.__doc__ = doc
    return op


erf = _unary(_erf, """Error function ``2/sqrt(pi) * integral_0^x exp(-t^2) dt``.

    >>> import weft
    >>> round(weft.erf(weft.to_tensor(0.5)).item(), 5)
    0.5205
    """)
erfinv = _unary(_erfinv, """Inverse error function on ``(-1, 1)`` (+-inf at +-1, NaN outside).

    >>> import weft
    >>> round(weft.erfinv(weft.to_tensor(0.5)).item(), 5)
    0.47694
    """)
lgamma = _unary(_lgamma, """Natural log of the absolute value of the gamma function.

    The derivative is ``digamma``.

    >>> import weft
    >>> round(weft.lgamma(weft.to_tensor(4.0)).item(), 5)  # log(3!)
    1.79176
    """)
digamma = _unary(_digamma, """Digamma ``psi(x) = d/dx lgamma(x)``; its derivative is
    ``polygamma(x, 1)``.

    >>> import weft
    >>> round(weft.digamma(weft.to_tensor(1.0)).item(), 5)  # -Euler's gamma
    -0.57722
    """)
i0 = _unary(_i0, """Modified Bessel function of the first kind, order 0 (derivative ``i1``).

    >>> import weft
    >>> weft.i0(weft.to_tensor([0.0])).tolist()
    [1.0]
    """)
i0e = _unary(_i0e, "Exponentially scaled ``i0``: ``exp(-|x|) * i0(x)``.")
i1 = _unary(_i1, "Modified Bessel function of the first kind, order 1.")
i1e = _unary(_i1e, "Exponentially scaled ``i1``: ``exp(-|x|) * i1(x)``.")
sinc = _unary(_sinc, """Normalized sinc ``sin(pi x) / (pi x)``, 1 at 0 (numpy's definition).

    The derivative ``(cos(pi x) - sinc(x)) / x`` is taken as its limit 0 at ``x == 0``
    (derivatives of higher order at exactly 0 come out as 0).

    >>> import weft
    >>> weft.sinc(weft.to_tensor([0.0, 0.5])).tolist()[0]
    1.0
    """)


def gammaln(x, name=None):
    """Alias of :func:`lgamma`."""
    return apply(_lgamma, _real_arg(x, "gammaln"))


def polygamma(x, n, name=None):
    """The ``n``-th derivative of ``digamma`` at ``x`` (``n = 0`` is digamma itself).

    ``n`` is a non-negative int. The derivative in ``x`` is ``polygamma(x, n + 1)``.

    >>> import weft
    >>> round(weft.polygamma(weft.to_tensor(1.0), 1).item(), 5)  # pi^2 / 6
    1.64493
    """
    x = _real_arg(x, "polygamma")
    n = _int_arg(n, "polygamma", "n", 0)
    return apply(_polygamma, x, n=n)


def multigammaln(x, p, name=None):
    """Log of the multivariate gamma function of dimension ``p`` (an int >= 1).

    ``p(p-1)/4 log(pi) + sum_{j=0}^{p-1} lgamma(x - j/2)``, defined for
    ``x > (p - 1)/2``; its derivative is the corresponding sum of digammas.

    >>> import weft
    >>> round(weft.multigammaln(weft.to_tensor(2.5), 2).item(), 5)
    0.85705
    """
    x = _real_arg(x, "multigammaln")
    p = _int_arg(p, "multigammaln", "p", 1)
    return apply(_multigammaln, x, p=p)


def _gammainc_operands(x, y, op):
    if not isinstance(x, Tensor) and not isinstance(y, Tensor):
        x = tensor_arg(x, "x", op)
    for t, arg in ((x, "x"), (y, "y")):
        if isinstance(t, Tensor) and t._data.dtype.kind == "c":
            raise TypeError(f"{op}: {arg} must be a real tensor, got {t._data.dtype.name}")
    x, y = binary_operands(x, y, op, float_result=True)
    # both become tensors so that the derivative rule sees arrays of the common dtype
    ref = x if isinstance(x, Tensor) else y
    if not isinstance(x, Tensor):
        x = Tensor._wrap(np.full_like(ref._data, x, shape=()))
    if not isinstance(y, Tensor):
        y = Tensor._wrap(np.full_like(ref._data, y, shape=()))
    for t, arg, what in ((x, "x", "non-negative"), (y, "y", "non-negative")):
        bad = t._data < 0
        if bool(bad.any()):
            raise ValueError(f"{op}: {arg} must be {what}, got a tensor with "
                             f"{int(bad.sum())} negative entries")
    return x, y


def gammainc(x, y, name=None):
    """Regularized lower incomplete gamma ``P(x, y) = 1/Gamma(x) int_0^y t^(x-1) e^-t dt``.

    ``x`` is the shape (>= 0), ``y`` the upper limit (>= 0); they broadcast and
    negative entries raise ``ValueError``. Differentiable in ``y`` only (the
    derivative is the gamma density ``y^(x-1) e^-y / Gamma(x)``); asking for the
    gradient of the shape ``x`` raises ``RuntimeError``, as the derivative in the
    shape parameter has no closed form.

    >>> import weft
    >>> round(weft.gammainc(weft.to_tensor(0.5), weft.to_tensor(1.0)).item(), 5)
    0.8427
    """
    x, y = _gammainc_operands(x, y, "gammainc")
    return apply(_gammainc, x, y)


def gammaincc(x, y, name=None):
    """Regularized upper incomplete gamma ``Q(x, y) = 1 - P(x, y)``.

    Same arguments and gradient rule as :func:`gammainc` (differentiable in ``y`` only).

    >>> import weft
    >>> round(weft.gammaincc(weft.to_tensor(0.5), weft.to_tensor(1.0)).item(), 5)
    0.1573
    """
    x, y = _gammainc_operands(x, y, "gammaincc")
    return apply(_gammaincc, x, y)


def logit(x, eps=None, name=None):
    """``log(x / (1 - x))``; with ``eps`` the input is first clipped to ``[eps, 1 - eps]``.

    Without ``eps`` values outside ``[0, 1]`` give NaN. The gradient is
    ``1 / (x (1 - x))`` inside ``[eps, 1 - eps]`` and 0 where the input was clipped
    (Paddle's and PyTorch's rule).

    >>> import weft
    >>> weft.logit(weft.to_tensor([0.5])).tolist()
    [0.0]
    >>> round(weft.logit(weft.to_tensor(1.0), eps=0.25).item(), 5)  # logit(0.75)
    1.09861
    """
    x = _real_arg(x, "logit")
    if eps is not None:
        if not isinstance(eps, (numbers.Real, np.floating, np.integer)) or \
                isinstance(eps, (bool, np.bool_)):
            raise TypeError(f"logit: eps must be a float or None, got {type(eps).__name__}")
        eps = float(eps)
        if not 0.0 <= eps <= 0.5:
            raise ValueError(f"logit: eps must be in [0, 0.5], got {eps}")
        if eps == 0.0:
            eps = None
    return apply(_logit, x, eps=eps)


__all__ = ["erf", "erfinv", "lgamma", "gammaln", "digamma", "polygamma", "gammainc",
           "gammaincc", "multigammaln", "i0", "i0e", "i1", "i1e", "sinc", "logit"]
__tensor_methods__ = {n: globals()[n] for n in __all__}
