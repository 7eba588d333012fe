"""Activation functions and (log-)softmax, with their derivative rules.

Each activation is one primitive with a numpy forward; its vjp is written in weft
ops and, where the derivative is cheaper to express through the output (``elu``,
``selu``, ``celu``, softmax), it reads the saved output, which the engine puts on
the graph under ``create_graph=True`` so second derivatives come out right.
The hot ones (``relu``, softmax, log_softmax) have a single-op backward primitive
of their own, differentiable in turn.
"""
from __future__ import annotations

import math

import numpy as np

from ...autograd.engine import Primitive, apply, defvjp
from ...core.tensor import Tensor
from ...core.args import dtype_arg, normalize_axis, tensor_arg
from ...ops.cast import cast
from ...ops.math.ufuncs import exp, sigmoid, tanh, where  # noqa: F401  (sigmoid, tanh re-exported)
from ...ops.reduction.aggregate import sum as _sum
from ...ops.special import erf, special_module
from ._util import float_arg, real_number

_no_out = dict(save_out=False)


# ---------------------------------------------------------------------------------
# forwards

def _relu_fwd(x):
    return np.maximum(x, 0)


def _relu6_fwd(x):
    return np.clip(x, 0, 6)


def _leaky_fwd(x, slope):
    return np.where(x > 0, x, x * slope)


def _elu_fwd(x, alpha):
    # expm1 only of the non-positive part, so large positive inputs never overflow
    return np.where(x > 0, x, alpha * np.expm1(np.minimum(x, 0)))


def _selu_fwd(x, scale, alpha):
    return scale * np.where(x > 0, x, alpha * np.expm1(np.minimum(x, 0)))


def _celu_fwd(x, alpha):
    return np.where(x > 0, x, alpha * np.expm1(np.minimum(x, 0) / alpha))


def _gelu_fwd(x):
    return (0.5 * x) * (1 + special_module(x).erf(x * _SQRT1_2)).astype(x.dtype, copy=False)


def _silu_fwd(x):
    e = np.exp(-np.abs(x))
    s = np.where(x >= 0, 1 / (1 + e), e / (1 + e))
    return x * s


def _softplus_fwd(x, beta, threshold):
    bx = x * beta
    # log(1 + exp(bx)) without overflow; above the threshold Paddle returns x itself
    return np.where(bx > threshold, x, np.logaddexp(0, bx) / beta)


def _softmax_fwd(x, axis):
    if x.size == 0:
        return x.copy()
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    e /= e.sum(axis=axis, keepdims=True)
    return e


def _log_softmax_fwd(x, axis):
    if x.size == 0:
        return x.copy()
    s = x - x.max(axis=axis, keepdims=True)
    s -= np.log(np.exp(s).sum(axis=axis, keepdims=True))
    return s


_SQRT1_2 = 1 / math.sqrt(2)
_INV_SQRT_2PI = 1 / math.sqrt(2 * math.pi)

_relu = Primitive("relu", _relu_fwd)
_relu6 = Primitive("relu6", _relu6_fwd)
_leaky = Primitive("leaky_relu", _leaky_fwd)
_elu = Primitive("elu", _elu_fwd)
_selu = Primitive("selu", _selu_fwd)
_celu = Primitive("celu", _celu_fwd)
_gelu = Primitive("gelu", _gelu_fwd)
_silu = Primitive("silu", _silu_fwd)
_softplus = Primitive("softplus", _softplus_fwd)
_softmax = Primitive("softmax", _softmax_fwd)
_log_softmax = Primitive("log_softmax", _log_softmax_fwd)

# backward primitives: out = g * mask(y) and the softmax-family adjoints
# a multiply by the 0/1 mask is several times faster than np.where on random signs
_relu_bwd = Primitive("relu_backward", lambda g, y: g * (y > 0))
_softmax_bwd = Primitive(
    "softmax_backward",
    lambda g, y, axis: y * (g - (g * y).sum(axis=axis, keepdims=True)))
_log_softmax_bwd = Primitive(
    "log_softmax_backward",
    lambda g, y, axis: g - np.exp(y) * g.sum(axis=axis, keepdims=True))


# ---------------------------------------------------------------------------------
# derivative table: vjp(g, ans, *inputs, **params)

def _mask(cond, like):
    """A 0/1 constant of ``like``'s dtype."""
    return Tensor._wrap(cond._data.astype(like._data.dtype))


defvjp(_relu, lambda g, ans, x: apply(_relu_bwd, g, ans), save=())
defvjp(_relu_bwd, lambda gg, ans, g, y: apply(_relu_bwd, gg, y), lambda gg, ans, g, y: None,
       save=(1,), save_out=False)
defvjp(_relu6, lambda g, ans, x: g * _mask((x > 0) & (x < 6), g), **_no_out)
defvjp(_leaky, lambda g, ans, x, slope: where(x > 0, g, g * slope), **_no_out)
# below zero elu' = alpha e^x = y + alpha, selu' = y + scale alpha, celu' = y / alpha + 1
defvjp(_elu, lambda g, ans, x, alpha: where(x > 0, g, g * (ans + alpha)))
defvjp(_selu, lambda g, ans, x, scale, alpha:
       where(x > 0, g * scale, g * (ans + scale * alpha)))
defvjp(_celu, lambda g, ans, x, alpha: where(x > 0, g, g * (ans / alpha + 1)))
defvjp(_gelu, lambda g, ans, x:
       g * (0.5 * (1 + erf(x * _SQRT1_2)) + x * (_INV_SQRT_2PI * exp(-0.5 * (x * x)))),
       **_no_out)
defvjp(_silu, lambda g, ans, x: _silu_vjp(g, x), **_no_out)
defvjp(_softplus, lambda g, ans, x, beta, threshold:
       where(x * beta > threshold, g, g * sigmoid(x * beta)), **_no_out)
defvjp(_softmax, lambda g, ans, x, axis: apply(_softmax_bwd, g, ans, axis=axis), save=())
defvjp(_log_softmax, lambda g, ans, x, axis: apply(_log_softmax_bwd, g, ans, axis=axis),
       save=())


def _silu_vjp(g, x):
    s = sigmoid(x)
    return g * (s * (1 + x * (1 - s)))


# softmax_backward is linear in g with the symmetric Jacobian diag(y) - y y^T, so its
# own vjp in g is itself; in y: d out_i / d y_k = delta_ik (g_i - <g, y>) - y_i g_k
def _softmax_bwd_vjp_y(gg, ans, g, y, axis):
    return gg * (g - _sum(g * y, axis, keepdim=True)) - g * _sum(gg * y, axis, keepdim=True)


# log_softmax_backward: out = g - p sum(g), p = exp(y)
def _log_softmax_bwd_vjp_g(gg, ans, g, y, axis):
    return gg - _sum(gg * exp(y), axis, keepdim=True)


def _log_softmax_bwd_vjp_y(gg, ans, g, y, axis):
    return -(gg * exp(y)) * _sum(g, axis, keepdim=True)


defvjp(_softmax_bwd, lambda gg, ans, g, y, axis: apply(_softmax_bwd, gg, y, axis=axis),
       _softmax_bwd_vjp_y, save_out=False)
defvjp(_log_softmax_bwd, _log_softmax_bwd_vjp_g, _log_softmax_bwd_vjp_y, save_out=False)


# ---------------------------------------------------------------------------------
# public functions

def relu(x, name=None):
    """``max(x, 0)``; the gradient at 0 is 0.

    >>> import weft
    >>> weft.nn.functional.relu(weft.to_tensor([-1.0, 2.0])).tolist()
    [0.0, 2.0]
    """
    x = float_arg(x, "relu")
    return apply(_relu, x)


def relu_(x, name=None):
    """In-place :func:`relu`."""
    from ...autograd.inplace import inplace  # noqa: PLC0415

    return inplace(float_arg(x, "relu_"), lambda old: apply(_relu, old), "relu_")


def relu6(x, name=None):
    """``min(max(x, 0), 6)``.

    >>> import weft
    >>> weft.nn.functional.relu6(weft.to_tensor([-1.0, 3.0, 8.0])).tolist()
    [0.0, 3.0, 6.0]
    """
    return apply(_relu6, float_arg(x, "relu6"))


def leaky_relu(x, negative_slope=0.01, name=None):
    """``x`` for ``x > 0``, ``negative_slope * x`` otherwise.

    >>> import weft
    >>> weft.nn.functional.leaky_relu(weft.to_tensor([-2.0, 1.0]), 0.5).tolist()
    [-1.0, 1.0]
    """
    x = float_arg(x, "leaky_relu")
    slope = real_number(negative_slope, "leaky_relu", "negative_slope")
    return apply(_leaky, x, slope=slope)


def elu(x, alpha=1.0, name=None):
    """``x`` for ``x > 0``, ``alpha * (exp(x) - 1)`` otherwise.

    >>> import weft
    >>> round(weft.nn.functional.elu(weft.to_tensor([-1.0])).item(), 4)
    -0.6321
    """
    x = float_arg(x, "elu")
    return apply(_elu, x, alpha=real_number(alpha, "elu", "alpha"))


def elu_(x, alpha=1.0, name=None):
    """In-place :func:`elu`."""
    from ...autograd.inplace import inplace  # noqa: PLC0415

    a = real_number(alpha, "elu_", "alpha")
    return inplace(float_arg(x, "elu_"), lambda old: apply(_elu, old, alpha=a), "elu_")


def selu(x, scale=1.0507009873554804934193349852946, alpha=1.6732632423543772848170429916717,
         name=None):
    """``scale * (x if x > 0 else alpha * (exp(x) - 1))``; needs ``scale > 1``, ``alpha >= 0``.

    >>> import weft
    >>> round(weft.nn.functional.selu(weft.to_tensor([1.0])).item(), 4)
    1.0507
    """
    x = float_arg(x, "selu")
    scale = real_number(scale, "selu", "scale")
    alpha = real_number(alpha, "selu", "alpha")
    if scale <= 1.0:
        raise ValueError(f"selu: scale must be greater than 1.0, got {scale}")
    if alpha < 0:
        raise ValueError(f"selu: alpha must be no less than 0, got {alpha}")
    return apply(_selu, x, scale=scale, alpha=alpha)


def celu(x, alpha=1.0, name=None):
    """``max(0, x) + min(0, alpha * (exp(x / alpha) - 1))``; ``alpha`` must be nonzero.

    >>> import weft
    >>> round(weft.nn.functional.celu(weft.to_tensor([-1.0]), 2.0).item(), 4)
    -0.7869
    """
    x = float_arg(x, "celu")
    alpha = real_number(alpha, "celu", "alpha")
    if alpha == 0:
        raise ZeroDivisionError("celu: alpha cannot be 0")
    return apply(_celu, x, alpha=alpha)


def gelu(x, approximate=False, name=None):
    """Gaussian error linear unit ``x * Phi(x)`` (exact, with ``erf``), or the tanh
    approximation when ``approximate`` is True or ``'tanh'``.

    >>> import weft
    >>> round(weft.nn.functional.gelu(weft.to_tensor([1.0])).item(), 4)
    0.8413
    """
    x = float_arg(x, "gelu")
    if approximate in ("tanh", True):
        # 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), composed: its derivatives come free
        k = math.sqrt(2.0 / math.pi)
        return 0.5 * x * (1 + tanh(k * (x + 0.044715 * (x * x * x))))
    if approximate not in (False, "none", None):
        raise ValueError(f"gelu: approximate must be a bool, 'tanh' or 'none', got "
                         f"{approximate!r}")
    return apply(_gelu, x)


def silu(x, inplace=False, name=None):
    """``x * sigmoid(x)`` (also called swish).

    >>> import weft
    >>> round(weft.nn.functional.silu(weft.to_tensor([1.0])).item(), 4)
    0.7311
    """
    x = float_arg(x, "silu")
    if inplace:
        from ...autograd.inplace import inplace as _inplace  # noqa: PLC0415

        return _inplace(x, lambda old: apply(_silu, old), "silu")
    return apply(_silu, x)


def swish(x, name=None):
    """Same as :func:`silu`."""
    return apply(_silu, float_arg(x, "swish"))


def softplus(x, beta=1, threshold=20, name=None):
    """``log(1 + exp(beta * x)) / beta``, and ``x`` itself where ``beta * x > threshold``.

    >>> import weft
    >>> round(weft.nn.functional.softplus(weft.to_tensor([0.0])).item(), 4)
    0.6931
    """
    x = float_arg(x, "softplus")
    beta = real_number(beta, "softplus", "beta")
    threshold = real_number(threshold, "softplus", "threshold")
    if beta == 0:
        raise ValueError("softplus: beta must be nonzero")
    return apply(_softplus, x, beta=beta, threshold=threshold)


def log_sigmoid(x, name=None):
    """``log(sigmoid(x)) = -softplus(-x)``, stable for large ``|x|``."""
    x = float_arg(x, "log_sigmoid")
    return -apply(_softplus, -x, beta=1.0, threshold=math.inf)


def _softmax_args(x, axis, dtype, op):
    if dtype is None:
        x = float_arg(x, op)
    else:
        d = dtype_arg(dtype, op)
        if d.kind != "f":
            raise TypeError(f"{op}: dtype must be a floating dtype, got {d.name}")
        x = cast(tensor_arg(x, "x", op), d)
    return x, normalize_axis(axis, x.ndim, op)


def softmax(x, axis=-1, dtype=None, name=None):
    """``exp(x) / sum(exp(x))`` along ``axis`` (max-shifted, so it never overflows);
    ``dtype`` casts ``x`` first.

    >>> import weft
    >>> weft.nn.functional.softmax(weft.to_tensor([0.0, 0.0])).tolist()
    [0.5, 0.5]
    """
    x, ax = _softmax_args(x, axis, dtype, "softmax")
    if x.ndim == 0:
        return apply(_softmax, x.reshape([1]), axis=0).reshape([])
    return apply(_softmax, x, axis=ax)


def log_softmax(x, axis=-1, dtype=None, name=None):
    """``x - logsumexp(x)`` along ``axis``, computed stably in one op.

    >>> import weft
    >>> round(weft.nn.functional.log_softmax(weft.to_tensor([0.0, 0.0]))[0].item(), 4)
    -0.6931
    """
    x, ax = _softmax_args(x, axis, dtype, "log_softmax")
    if x.ndim == 0:
        return apply(_log_softmax, x.reshape([1]), axis=0).reshape([])
    return apply(_log_softmax, x, axis=ax)


def softmax_(x, axis=-1, dtype=None, name=None):
    """In-place :func:`softmax`."""
    from ...autograd.inplace import inplace  # noqa: PLC0415

    return inplace(float_arg(x, "softmax_"), lambda old: softmax(old, axis, dtype), "softmax_")


__all__ = ["relu", "relu_", "relu6", "leaky_relu", "elu", "elu_", "selu", "celu", "gelu",
           "silu", "swish", "softplus", "log_sigmoid", "sigmoid", "tanh", "softmax",
           "softmax_", "log_softmax"]
