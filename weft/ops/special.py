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

from ..autograd.engine import Primitive, apply, defelementwise, defvjp
from ..core import dtype as _dt
from ..core.tensor import Tensor
from ..core.args import check_same_place, tensor_arg, xp_of
from . import _ibeta_shape, _igamma_shape
from ._support import binary_operands, require_float
from .cast import cast
from ..core.place import special_module
from .math.functions import x_log_forward, xlogy
from .math.ufuncs import cos, exp, log, log1p, sign, where

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


def _sf_n(fname):
    """Forward of an n-ary scipy.special ufunc on same-dtype arrays, keeping the dtype."""
    def fwd(*xs):
        return _like(getattr(special_module(xs[0]), fname)(*xs), xs[0])
    return fwd


_xlog1py_fwd = x_log_forward(np.log1p, "xlog1py")


_erfc = Primitive("erfc", _sf("erfc"))
_erfcx = Primitive("erfcx", _sf("erfcx"))
_ndtr = Primitive("ndtr", _sf("ndtr"))
_ndtri = Primitive("ndtri", _sf("ndtri"))
_log_ndtr = Primitive("log_ndtr", _sf("log_ndtr"))
_ndtri_exp = Primitive("ndtri_exp", lambda y: _like(_ndtri_exp_fwd(y), y))
_xlog1py = Primitive("xlog1py", _xlog1py_fwd)
_betaln = Primitive("betaln", _sf_n("betaln"))
_betainc = Primitive("betainc", _sf_n("betainc"))
_betaincinv = Primitive("betaincinv", _sf_n("betaincinv"))
_gammaincinv = Primitive("gammaincinv", _sf_n("gammaincinv"))
# d^order P(a, x) / da^order, order 1 or 2 (see weft/ops/_igamma_shape.py)
_gammainc_da = Primitive("gammainc_shape_derivative", lambda a, x, order:
                         _like(_igamma_shape.shape_derivative(a, x, order), a))
# dz/da = -(dP/da)(z) / p(z): how a Gamma(a, 1) quantile z moves with a at fixed P
_gamma_zgrad = Primitive("gamma_quantile_shape_grad", lambda a, z:
                         _like(_igamma_shape.gamma_sample_grad(a, z), a))
# d^(da+db) I_x(a, b) / da^da db^db, da + db = 1 or 2 (see weft/ops/_ibeta_shape.py)
_betainc_d = Primitive("betainc_shape_derivative", lambda a, b, x, da, db:
                       _like(_ibeta_shape.shape_derivative(a, b, x, da, db), a))
# the same derivative at a Beta(a, b) quantile z over the density p(z): at order 1 minus
# dz/da (dz/db) at fixed I, scaled so that neither factor under- or overflows in the tails
_beta_qratio = Primitive("beta_quantile_shape_ratio", lambda a, b, z, da, db:
                         _like(_ibeta_shape.quantile_ratio(a, b, z, da, db), a))


# ---------------------------------------------------------------------------------
# derivative table: vjp(g, ans, *inputs, **params)

_2_SQRTPI = 2.0 / math.sqrt(math.pi)
_SQRTPI_2 = math.sqrt(math.pi) / 2.0
_SQRT2PI = math.sqrt(2.0 * math.pi)
_1_SQRT2PI = 1.0 / _SQRT2PI
_LOG_SQRT2PI = 0.5 * math.log(2.0 * math.pi)
_no_out = dict(save_out=False)


defvjp(_erf, lambda g, ans, x: g * (_2_SQRTPI * exp(-(x * x))), **_no_out)
defvjp(_erfinv, lambda g, ans, x: g * (_SQRTPI_2 * exp(ans * ans)), save=())
defvjp(_lgamma, lambda g, ans, x: g * digamma(x), **_no_out)
defvjp(_digamma, lambda g, ans, x: g * apply(_polygamma, x, n=1), **_no_out)
defvjp(_polygamma, lambda g, ans, x, n: g * apply(_polygamma, x, n=n + 1), **_no_out)
defvjp(_multigammaln, lambda g, ans, x, p: g * _sum_digamma(x, p), **_no_out)
# the shape derivatives have no closed form: series, continued fraction or quadrature
# (weft/ops/_igamma_shape.py), as primitives of their own
defvjp(_gammainc, lambda g, ans, x, y: g * apply(_gammainc_da, x, y, order=1),
       lambda g, ans, x, y: g * _gamma_density(x, y), **_no_out)
defvjp(_gammaincc, lambda g, ans, x, y: -g * apply(_gammainc_da, x, y, order=1),
       lambda g, ans, x, y: -g * _gamma_density(x, y), **_no_out)
defvjp(_gammainc_da, lambda g, ans, a, x, order: g * _gammainc_da_next(a, x, order),
       lambda g, ans, a, x, order: g * _gamma_density(a, x) * _dlogdensity_da(a, x, order),
       **_no_out)
defvjp(_gamma_zgrad, lambda g, ans, a, z: g * _zgrad_da(a, z, ans),
       lambda g, ans, a, z: g * _zgrad_dz(a, z, ans))
defvjp(_gammaincinv, lambda g, ans, a, y: g * apply(_gamma_zgrad, a, ans),
       lambda g, ans, a, y: g / _gamma_density(a, ans), save=(0,))
defvjp(_erfc, lambda g, ans, x: g * (-_2_SQRTPI * exp(-(x * x))), **_no_out)
defvjp(_erfcx, lambda g, ans, x: g * (2.0 * x * ans - _2_SQRTPI))
defvjp(_ndtr, lambda g, ans, x: g * (_1_SQRT2PI * exp(-0.5 * (x * x))), **_no_out)
defvjp(_ndtri, lambda g, ans, x: g * (_SQRT2PI * exp(0.5 * (ans * ans))), save=())
# phi(x) / Phi(x) in log space: finite far into the lower tail, where both underflow
defvjp(_log_ndtr, lambda g, ans, x: g * exp(-0.5 * (x * x) - ans - _LOG_SQRT2PI))
# the inverse of log_ndtr: dx/dy = Phi(x) / phi(x) = exp(y - log phi(x))
defvjp(_ndtri_exp, lambda g, ans, y: g * exp(y + 0.5 * (ans * ans) + _LOG_SQRT2PI))
defvjp(_xlog1py, lambda g, ans, x, y: g * log1p(y),
       lambda g, ans, x, y: g * _xlog1py_dy(x, y), **_no_out)
defvjp(_betaln, lambda g, ans, a, b: g * (digamma(a) - digamma(a + b)),
       lambda g, ans, a, b: g * (digamma(b) - digamma(a + b)), **_no_out)
# the shape derivatives of I_x(a, b): jets through its series and continued fraction
# (weft/ops/_ibeta_shape.py); the inverse's by the implicit function,
# dz/da = -(dI/da)(z) / p(z), differentiable again through z = ans
defvjp(_betainc, lambda g, ans, a, b, x: g * apply(_betainc_d, a, b, x, da=1, db=0),
       lambda g, ans, a, b, x: g * apply(_betainc_d, a, b, x, da=0, db=1),
       lambda g, ans, a, b, x: g * _beta_density(a, b, x), **_no_out)
defvjp(_betainc_d,
       lambda g, ans, a, b, x, da, db: g * _beta_next(_betainc_d, a, b, x, da + 1, db),
       lambda g, ans, a, b, x, da, db: g * _beta_next(_betainc_d, a, b, x, da, db + 1),
       lambda g, ans, a, b, x, da, db: g * _beta_density_da(a, b, x, da, db), **_no_out)
defvjp(_beta_qratio,
       lambda g, ans, a, b, z, da, db: g * _qratio_dshape(a, b, z, ans, da, db, 1, 0),
       lambda g, ans, a, b, z, da, db: g * _qratio_dshape(a, b, z, ans, da, db, 0, 1),
       lambda g, ans, a, b, z, da, db: g * _qratio_dz(a, b, z, ans, da, db))
defvjp(_betaincinv, lambda g, ans, a, b, y: -g * apply(_beta_qratio, a, b, ans, da=1, db=0),
       lambda g, ans, a, b, y: -g * apply(_beta_qratio, a, b, ans, da=0, db=1),
       lambda g, ans, a, b, y: g / _beta_density(a, b, ans), save=(0, 1))
defvjp(_i0, lambda g, ans, x: g * i1(x), **_no_out)
defvjp(_i0e, lambda g, ans, x: g * (i1e(x) - sign(x) * ans))
defvjp(_i1, lambda g, ans, x: g * _i1_deriv(x, ans))
defvjp(_i1e, lambda g, ans, x: g * _i1e_deriv(x, ans))
defvjp(_sinc, lambda g, ans, x: g * _sinc_deriv(x, ans))
defvjp(_logit, lambda g, ans, x, eps: _logit_vjp(g, x, eps), **_no_out)
# forward mode: each function is real and elementwise, so a rule above with the
# tangent for g is its forward rule (autograd.engine.defelementwise)
for _p in (_erf, _erfinv, _lgamma, _digamma, _polygamma, _multigammaln, _gammainc, _gammaincc,
           _gammainc_da, _gamma_zgrad, _gammaincinv, _erfc, _erfcx, _ndtr, _ndtri, _log_ndtr,
           _ndtri_exp, _xlog1py, _betaln, _betainc, _betaincinv, _betainc_d, _beta_qratio, _i0,
           _i0e, _i1, _i1e, _sinc, _logit):
    defelementwise(_p)


def _sum_digamma(x, p):
    d = digamma(x)
    for j in range(1, p):
        d = d + digamma(x - 0.5 * j)
    return d


def _gamma_density(x, y):
    """``y**(x-1) exp(-y) / Gamma(x)``: d/dy of the regularized lower incomplete gamma."""

    # xlogy keeps the x == 1, y == 0 corner at exp(0) = 1 instead of 0 * -inf
    return exp(xlogy(x - 1, y) - y - lgamma(x))


def _gammainc_da_next(a, x, order):
    if order == 1:
        return apply(_gammainc_da, a, x, order=2)
    raise NotImplementedError("gammainc: derivatives of order 3 and more with respect to "
                              "the shape parameter are not implemented")


def _dlogdensity_da(a, x, order):
    # d/dx d^k P/da^k = d^k p/da^k, and p = exp(xlogy(a-1, x) - x - lgamma(a)):
    # p' = p m, p'' = p (m^2 - psi'(a)) with m = log x - psi(a)
    m = log(x) - digamma(a)
    return m if order == 1 else m * m - apply(_polygamma, a, n=1)


def _zgrad_dz(a, z, dzda):
    # d/dz [-(dP/da)(z) / p(z)] = -(log z - psi(a)) - dz/da * p'(z)/p(z)
    return digamma(a) - log(z) - dzda * ((a - 1) / z - 1)


def _zgrad_da(a, z, dzda):
    # d/da [-(dP/da)(z) / p(z)] = -(d2P/da2)(z) / p(z) - dz/da * (log z - psi(a))
    return -apply(_gammainc_da, a, z, order=2) / _gamma_density(a, z) - \
        dzda * (log(z) - digamma(a))


def _beta_density(a, b, x):
    """``x^(a-1) (1-x)^(b-1) / B(a, b)``: d/dx of the regularized incomplete beta."""
    return exp(xlogy(a - 1, x) + apply(_xlog1py, b - 1, -x) - apply(_betaln, a, b))


def _beta_next(prim, a, b, x, da, db):
    if da + db <= 2:
        return apply(prim, a, b, x, da=da, db=db)
    op = "betainc" if prim is _betainc_d else "betaincinv"
    raise NotImplementedError(f"{op}: derivatives of order 3 and more with respect to the "
                              f"shape parameters a, b are not implemented")


def _beta_scores(a, b, x, da, db):
    """``(d^(da+db) p / da^da db^db) / p`` for the Beta(a, b) density ``p`` at ``x``:
    with ``m_a = log x - psi(a) + psi(a+b)``, ``m_b = log(1-x) - psi(b) + psi(a+b)``,
    ``m_a``, ``m_b``, ``m_a^2 - psi'(a) + psi'(a+b)``, ``m_a m_b + psi'(a+b)``, ..."""
    s = a + b
    ps = digamma(s)
    ma = log(x) - digamma(a) + ps
    mb = log1p(-x) - digamma(b) + ps
    if da + db == 1:
        return ma if da else mb
    ts = apply(_polygamma, s, n=1)
    if da == 2:
        return ma * ma - apply(_polygamma, a, n=1) + ts
    if db == 2:
        return mb * mb - apply(_polygamma, b, n=1) + ts
    return ma * mb + ts


def _beta_density_da(a, b, x, da, db):
    # d/dx of d^k I / da^i db^j is d^k p / da^i db^j = p * score; where p is 0 (x at an
    # end with the exponent above 1, or underflow) so is the product, whose score
    # (log 0) is kept out of the value and its derivatives by a stand-in x
    p = _beta_density(a, b, x)
    return p * _beta_scores(a, b, _safe(x, p == 0, 0.5), da, db)


def _qratio_dshape(a, b, z, ans, da, db, ea, eb):
    # d/da [I_ij(z) / p(z)] at fixed z = I_(i+1)j(z) / p(z) - ans * m_a(z); at z = 0 or 1
    # the ratio is the constant 0
    zs = _safe(z, (z == 0) | (z == 1), 0.5)
    nxt = _beta_next(_beta_qratio, a, b, z, da + ea, db + eb)
    return nxt - ans * _beta_scores(a, b, zs, ea, eb)


def _qratio_dz(a, b, z, ans, da, db):
    # d/dz [I_ij(z) / p(z)] = score_ij(z) - ans * p'(z)/p(z), p'/p = (a-1)/z - (b-1)/(1-z)
    edge = (z == 0) | (z == 1)
    zs = _safe(z, edge, 0.5)
    d = _beta_scores(a, b, zs, da, db) - ans * ((a - 1) / zs - (b - 1) / (1 - zs))
    return where(edge, _const(d, 0.0), d)


def _xlog1py_dy(x, y):
    # x / (1 + y), 0 where x == 0 (scipy's convention carries over to the derivative)
    at0 = x == 0
    return where(at0, _const(x, 0.0), x / (1 + _safe(y, at0, 0.0)))


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
    negative entries raise ``ValueError``. Differentiable in both: in ``y`` the
    derivative is the gamma density ``y^(x-1) e^-y / Gamma(x)``; in the shape ``x``,
    which has no closed form, it is computed in float64 by the power series
    (``y < x + 1``), the differentiated continued fraction (``y >= x + 1``) or, for
    large shapes, Gauss-Legendre quadrature of ``E[(log T - psi(x)) 1{T < y}]``
    (``weft/ops/_igamma_shape.py``; a native kernel on the CPU; worst relative error
    2.4e-12 against mpmath over a grid of shapes 1e-3 .. 2000). Second derivatives in the
    shape work as well; third ones raise ``NotImplementedError``. At ``x == 0`` the
    shape derivative is the one-sided limit ``-E1(y)``.

    >>> import weft
    >>> round(weft.gammainc(weft.to_tensor(0.5), weft.to_tensor(1.0)).item(), 5)
    0.8427
    """
    x, y = _gammainc_operands(x, y, "gammainc")
    return apply(_gammainc, x, y)


def gammaincc(x, y, name=None):
    """Regularized upper incomplete gamma ``Q(x, y) = 1 - P(x, y)``.

    Same arguments and gradient rules as :func:`gammainc` (with the opposite sign).

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


def _real_operands(args, names, op):
    """Promote real operands to one floating dtype as Tensors (scalars weak, as in
    numpy); complex operands raise ``TypeError``, shapes that do not broadcast
    ``ValueError``."""
    ts = [a for a in args if isinstance(a, Tensor)]
    if not ts:
        args = (tensor_arg(args[0], names[0], op),) + tuple(args[1:])
        ts = [args[0]]
    for a, n in zip(args, names):
        if isinstance(a, Tensor) and a._data.dtype.kind == "c":
            raise TypeError(f"{op}: {n} must be a real tensor, got {a._data.dtype.name}")
    for t in ts[1:]:
        check_same_place(ts[0], t, op)
    d = ts[0]._data.dtype
    for t in ts[1:]:
        d = _dt.promote_types(d, t._data.dtype)
    if d.kind not in "f":
        d = _dt.default_float()
    out = []
    for a, n in zip(args, names):
        if isinstance(a, Tensor):
            out.append(a if a._data.dtype == d else cast(a, d))
            continue
        if isinstance(a, (bool, np.bool_)) or not isinstance(a, (numbers.Real, np.number)):
            a = tensor_arg(a, n, op)
            if a._data.dtype.kind == "c":
                raise TypeError(f"{op}: {n} must be real, got {a._data.dtype.name}")
            out.append(cast(a, d))
            continue
        out.append(Tensor._wrap(np.full_like(ts[0]._data, a, dtype=d, shape=())))
    try:
        np.broadcast_shapes(*(tuple(t._data.shape) for t in out))
    except ValueError:
        shapes = ", ".join(f"{n} {list(t._data.shape)}" for n, t in zip(names, out))
        raise ValueError(f"{op}: the shapes of the operands do not broadcast: "
                         f"{shapes}") from None
    return out


def erfc(x, name=None):
    """Complementary error function ``1 - erf(x)``, accurate where ``erf(x)`` is near 1.

    >>> import weft
    >>> round(weft.erfc(weft.to_tensor(2.0)).item(), 7)
    0.0046777
    """
    return apply(_erfc, _real_arg(x, "erfc"))


def erfcx(x, name=None):
    """Scaled complementary error function ``exp(x^2) erfc(x)`` (finite for large ``x``).

    >>> import weft
    >>> round(weft.erfcx(weft.to_tensor(0.0)).item(), 5)
    1.0
    """
    return apply(_erfcx, _real_arg(x, "erfcx"))


def ndtr(x, name=None):
    """Standard normal CDF ``Phi(x)``; derivative the normal density.

    >>> import weft
    >>> round(weft.ndtr(weft.to_tensor(0.0)).item(), 5)
    0.5
    """
    return apply(_ndtr, _real_arg(x, "ndtr"))


def ndtri(x, name=None):
    """Inverse of :func:`ndtr` on ``[0, 1]`` (``-inf``/``inf`` at the ends, NaN outside).

    >>> import weft
    >>> round(weft.ndtri(weft.to_tensor(0.975)).item(), 4)
    1.96
    """
    return apply(_ndtri, _real_arg(x, "ndtri"))


def log_ndtr(x, name=None):
    """``log(Phi(x))``, accurate in both tails (about ``-x^2/2 - log(-x sqrt(2 pi))``
    for very negative ``x``); the derivative ``phi(x)/Phi(x)`` is formed in log space.

    >>> import weft
    >>> round(weft.log_ndtr(weft.to_tensor(-40.0, dtype="float64")).item(), 3)
    -804.608
    """
    return apply(_log_ndtr, _real_arg(x, "log_ndtr"))


def _ndtri_exp_fwd(y):
    sm = special_module(y)
    if hasattr(sm, "ndtri_exp"):
        return sm.ndtri_exp(y)
    return _ndtri_exp_newton(y, sm)


def _ndtri_exp_newton(y, sm):
    """``ndtri_exp`` from ``ndtri`` and ``log_ndtr`` alone (cupyx.scipy.special has no
    ndtri_exp): ``ndtri(exp(y))`` where ``exp(y)`` is a normal number well below 1,
    ``-ndtri(-expm1(y))`` above ``log(1/2)`` (so ``y`` near 0 keeps its precision), the
    asymptotic ``x ~ -sqrt(-2y - log(-4 pi y))`` below the normal range, then Newton
    steps on ``log_ndtr(x) = y``, whose slope is ``phi(x) / Phi(x)``."""
    xp = xp_of(y)
    tiny = np.log(np.finfo(y.dtype).tiny) + 10.0
    with np.errstate(all="ignore"):
        upper = y > -math.log(2.0)
        low = y < tiny
        mid = xp.where(upper | low, -1.0, y)
        x = xp.where(upper, -sm.ndtri(-xp.expm1(xp.where(upper, y, -1.0))),
                     sm.ndtri(xp.exp(mid)))
        yl = xp.where(low, y, -1000.0)
        x = xp.where(low, -xp.sqrt(-2.0 * yl - xp.log(-4.0 * math.pi * yl)), x)
        for _ in range(3):
            lp = sm.log_ndtr(x)
            step = (lp - y) * xp.exp(lp + 0.5 * x * x + _LOG_SQRT2PI)
            x = xp.where(xp.isfinite(step), x - step, x)
    return xp.where(y == -np.inf, -np.inf, x)


def ndtri_exp(y, name=None):
    """Inverse of :func:`log_ndtr`: the ``x`` with ``log(Phi(x)) = y`` for ``y <= 0``,
    accurate where ``ndtri(exp(y))`` is not (``exp(y)`` underflows, or rounds to 1 for
    ``y`` near 0); ``-inf`` at ``-inf``, ``inf`` at 0, NaN above 0.

    >>> import weft
    >>> round(weft.ndtri_exp(weft.to_tensor(-800.0, dtype="float64")).item(), 4)
    -39.8847
    """
    return apply(_ndtri_exp, _real_arg(y, "ndtri_exp", "y"))


def xlog1py(x, y, name=None):
    """``x * log1p(y)``, defined as 0 where ``x == 0`` (also when ``y == -1``).

    >>> import weft
    >>> weft.xlog1py(weft.to_tensor([0.0, 2.0]), weft.to_tensor([-1.0, 0.0])).tolist()
    [0.0, 0.0]
    """
    x, y = _real_operands((x, y), ("x", "y"), "xlog1py")
    return apply(_xlog1py, x, y)


def betaln(a, b, name=None):
    """``log |B(a, b)| = lgamma(a) + lgamma(b) - lgamma(a + b)``, computed without the
    cancellation of that sum for large arguments.

    >>> import weft
    >>> round(weft.betaln(weft.to_tensor(2.0), 3.0).item(), 5)  # log(1/12)
    -2.48491
    """
    a, b = _real_operands((a, b), ("a", "b"), "betaln")
    return apply(_betaln, a, b)


def betainc(a, b, x, name=None):
    """Regularized incomplete beta ``I_x(a, b)`` (scipy's argument order), the CDF of
    Beta(a, b) at ``x`` in ``[0, 1]``; NaN outside the domain (``a, b > 0``).

    Differentiable in all three arguments. In ``x`` the derivative is the Beta
    density; in the shapes ``a``, ``b``, which have no closed form, it is computed in
    float64 by the power series or the continued fraction of ``I`` differentiated term
    by term, on the side of ``I_x(a, b) = 1 - I_{1-x}(b, a)`` where they converge
    (``weft/ops/_ibeta_shape.py``; a native kernel on the CPU; worst relative error of
    the first derivatives 3e-11 against mpmath over 4500 random points with shapes
    1e-4 .. 3e3 and x from 1e-308 to 1 - 1e-12, 7e-12 on a grid of shapes up to 1e6).
    Second derivatives in the shapes (``a a``, ``a b``, ``b b``; 2e-11 of their size)
    work as well; third ones raise ``NotImplementedError``. Where ``x`` is 0 or 1 the shape derivatives are 0;
    where a shape is not positive and finite (or ``a b < 1e-300``) they are NaN.

    >>> import weft
    >>> round(weft.betainc(weft.to_tensor(2.0), 3.0, 0.4).item(), 5)
    0.5248
    """
    a, b, x = _real_operands((a, b, x), ("a", "b", "x"), "betainc")
    return apply(_betainc, a, b, x)


def betaincinv(a, b, y, name=None):
    """Inverse of :func:`betainc` in its last argument: the ``x`` with
    ``I_x(a, b) = y`` (the Beta(a, b) quantile of ``y``).

    Differentiable in all arguments: ``dx/dy = 1/p(x)`` and, by implicit
    differentiation, ``dx/da = -(dI/da)(x) / p(x)`` (``b`` alike) with the shape
    derivatives of :func:`betainc`, formed in scaled form so that they stay finite in
    the tails; second derivatives work too, third ones in the shapes raise
    ``NotImplementedError``.

    >>> import weft
    >>> round(weft.betaincinv(weft.to_tensor(2.0), 3.0, 0.5248).item(), 4)
    0.4
    """
    a, b, y = _real_operands((a, b, y), ("a", "b", "y"), "betaincinv")
    return apply(_betaincinv, a, b, y)


def gammaincinv(a, y, name=None):
    """Inverse of :func:`gammainc` in its second argument: the ``x`` with
    ``P(a, x) = y`` (the Gamma(a, 1) quantile of ``y``).

    Differentiable in both arguments: ``dx/dy = 1/p(x)`` and, by implicit
    differentiation, ``dx/da = -(dP/da)(a, x) / p(x)`` with the accurate shape
    derivative of :func:`gammainc`; second derivatives work too.

    >>> import weft
    >>> round(weft.gammaincinv(weft.to_tensor(1.0), 0.5).item(), 5)  # log 2
    0.69315
    """
    a, y = _real_operands((a, y), ("a", "y"), "gammaincinv")
    return apply(_gammaincinv, a, y)


_PADDLE = ["erf", "erfinv", "lgamma", "gammaln", "digamma", "polygamma", "gammainc",
           "gammaincc", "multigammaln", "i0", "i0e", "i1", "i1e", "sinc", "logit"]
# beyond Paddle (scipy.special names): functions only, no Tensor methods
__all__ = _PADDLE + ["erfc", "erfcx", "ndtr", "ndtri", "log_ndtr", "ndtri_exp", "xlog1py",
                     "betaln", "betainc", "betaincinv", "gammaincinv"]
__tensor_methods__ = {n: globals()[n] for n in _PADDLE}
