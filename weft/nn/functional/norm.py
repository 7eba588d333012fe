"""Normalisation layers in functional form: layer_norm and batch_norm.

Both are compositions of differentiable weft ops (mean, subtract, rsqrt, multiply),
so their gradients of every order come from the op table; batch_norm updates the
running statistics in place outside the graph.
"""
from __future__ import annotations

import numbers

from ...core.tensor import Tensor
from ...core.args import xp_of
from ...ops.cast import cast
from ...ops.math.ufuncs import rsqrt
from ...ops.reduction.aggregate import mean as _mean
from ...ops.shape.views import reshape
from ._util import float_arg, real_number


def _shape_list(normalized_shape, op):
    if isinstance(normalized_shape, numbers.Integral) and not isinstance(normalized_shape, bool):
        return [int(normalized_shape)]
    if isinstance(normalized_shape, (list, tuple)) and all(
            isinstance(s, numbers.Integral) and not isinstance(s, bool) for s in normalized_shape):
        return [int(s) for s in normalized_shape]
    raise TypeError(f"{op}: normalized_shape must be an int or a list of ints, got "
                    f"{normalized_shape!r}")


def _affine_arg(t, shape, op, arg, like):
    t = float_arg(t, op, arg)
    n = 1
    for s in shape:
        n *= s
    if t.shape != list(shape):
        if t.size != n:
            raise ValueError(f"{op}: {arg} must have shape {list(shape)} (or {n} elements), "
                             f"got {t.shape}")
        t = reshape(t, list(shape))
    if t._data.dtype != like._data.dtype:
        t = cast(t, like._data.dtype)
    return t


def layer_norm(x, normalized_shape, weight=None, bias=None, epsilon=1e-05, name=None):
    """Normalise ``x`` over its last ``len(normalized_shape)`` axes to zero mean and unit
    (biased) variance, then scale by ``weight`` and shift by ``bias`` (each of
    ``normalized_shape`` or with as many elements, Paddle's flattened layout).

    >>> import weft
    >>> y = weft.nn.functional.layer_norm(weft.to_tensor([[1.0, 3.0]]), 2)
    >>> [round(v, 3) for v in y[0].tolist()]
    [-1.0, 1.0]
    """
    op = "layer_norm"
    x = float_arg(x, op)
    shape = _shape_list(normalized_shape, op)
    k = len(shape)
    if k == 0 or k > x.ndim or x.shape[x.ndim - k:] != shape:
        raise ValueError(f"{op}: normalized_shape {shape} must match the trailing dimensions "
                         f"of x, whose shape is {x.shape}")
    eps = real_number(epsilon, op, "epsilon")
    axes = list(range(x.ndim - k, x.ndim))
    mu = _mean(x, axes, keepdim=True)
    xc = x - mu
    y = xc * rsqrt(_mean(xc * xc, axes, keepdim=True) + eps)
    if weight is not None:
        y = y * _affine_arg(weight, shape, op, "weight", x)
    if bias is not None:
        y = y + _affine_arg(bias, shape, op, "bias", x)
    return y


_CHANNEL_FIRST = ("NC", "NCL", "NCHW", "NCDHW")
_CHANNEL_LAST = ("NLC", "NHWC", "NDHWC")


def _channel_axis(data_format, ndim, op):
    if data_format in _CHANNEL_FIRST:
        return 1
    if data_format in _CHANNEL_LAST:
        return ndim - 1
    raise ValueError(f"{op}: data_format must be one of "
                     f"{', '.join(_CHANNEL_FIRST + _CHANNEL_LAST)}, got {data_format!r}")


def _stat_arg(t, c, op, arg):
    if not isinstance(t, Tensor):
        raise TypeError(f"{op}: {arg} must be a Tensor, got {type(t).__name__}")
    if t.size != c:
        raise ValueError(f"{op}: {arg} must have {c} elements (one per channel), got shape "
                         f"{t.shape}")
    return t


def batch_norm(x, running_mean, running_var, weight=None, bias=None, training=False,
               momentum=0.9, epsilon=1e-05, data_format="NCHW", use_global_stats=None,
               name=None):
    """Batch normalisation over every axis except the channel axis (1 for ``NC...``
    formats, the last for ``N...C``).

    In training (unless ``use_global_stats``) it normalises with the batch mean and
    biased variance and updates the running statistics in place, Paddle's way:
    ``running = momentum * running + (1 - momentum) * batch``. Otherwise it uses
    ``running_mean``/``running_var``. ``use_global_stats=None`` means ``not training``.

    >>> import weft
    >>> x = weft.to_tensor([[1.0], [3.0]])
    >>> rm, rv = weft.zeros([1]), weft.ones([1])
    >>> y = weft.nn.functional.batch_norm(x, rm, rv, training=True)
    >>> [round(v, 3) for v in y[:, 0].tolist()], round(rm.item(), 3), round(rv.item(), 3)
    ([-1.0, 1.0], 0.2, 1.0)
    """
    op = "batch_norm"
    x = float_arg(x, op)
    if x.ndim < 2:
        raise ValueError(f"{op}: x must be at least 2-D [N, C, ...], got shape {x.shape}")
    ax = _channel_axis(data_format, x.ndim, op)
    c = x.shape[ax]
    running_mean = _stat_arg(running_mean, c, op, "running_mean")
    running_var = _stat_arg(running_var, c, op, "running_var")
    mom = real_number(momentum, op, "momentum")
    eps = real_number(epsilon, op, "epsilon")
    if use_global_stats is None:
        use_global_stats = not training
    bshape = [1] * x.ndim
    bshape[ax] = c
    dt = x._data.dtype
    if use_global_stats:
        xp = xp_of(x)
        rm = Tensor._wrap(xp.asarray(running_mean._data, dtype=dt).reshape(bshape))
        rv = Tensor._wrap(xp.asarray(running_var._data, dtype=dt).reshape(bshape))
        y = (x - rm) * rsqrt(rv + eps)
    else:
        axes = [i for i in range(x.ndim) if i != ax]
        mu = _mean(x, axes, keepdim=True)
        xc = x - mu
        var = _mean(xc * xc, axes, keepdim=True)
        y = xc * rsqrt(var + eps)
        _update_running(running_mean, mu._data, mom)
        _update_running(running_var, var._data, mom)
    if weight is not None:
        y = y * _affine_arg(weight, bshape, op, "weight", x)
    if bias is not None:
        y = y + _affine_arg(bias, bshape, op, "bias", x)
    return y


def _update_running(stat, batch, momentum):
    d = stat._data
    new = d * momentum + batch.reshape(d.shape).astype(d.dtype, copy=False) * (1.0 - momentum)
    d[...] = new
    stat._version[0] += 1


__all__ = ["layer_norm", "batch_norm"]
