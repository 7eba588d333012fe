"""Parameter initializers (``weft.nn.initializer``), Paddle's set and fan rules.

An initializer is called on a parameter and fills it in place. Random ones draw
from weft's generator of the parameter's device, so ``weft.seed(n)`` makes model
construction reproducible.

Fans follow Paddle: a 2-D weight ``[in, out]`` (Paddle's Linear layout) has
``fan_in = shape[0]`` and ``fan_out = shape[1]``; for a convolution kernel
``[out_c, in_c, *k]`` ``fan_in = in_c * prod(k)`` and ``fan_out = out_c * prod(k)``;
a 1-D shape has both fans equal to its length and a 0-D one both 1.
"""
from __future__ import annotations

import math
import numbers

import numpy as np

from ..core import random as _rng
from ..core.tensor import Tensor
from ..core.args import xp_of


def _compute_fans(shape):
    shape = list(shape)
    if not shape:
        return 1, 1
    if len(shape) == 1:
        return shape[0], shape[0]
    if len(shape) == 2:
        return shape[0], shape[1]
    receptive = 1
    for s in shape[2:]:
        receptive *= s
    return shape[1] * receptive, shape[0] * receptive


def calculate_gain(nonlinearity, param=None):
    """The recommended gain for ``nonlinearity`` (Paddle's table): 1 for linear, conv and
    sigmoid, 5/3 for tanh, sqrt(2) for relu, sqrt(2 / (1 + slope**2)) for leaky_relu
    (``param`` = slope, default 0.01), 3/4 for selu.

    >>> import weft
    >>> round(weft.nn.initializer.calculate_gain('relu'), 4)
    1.4142
    """
    linear = ("linear", "conv1d", "conv2d", "conv3d", "conv1d_transpose", "conv2d_transpose",
              "conv3d_transpose", "sigmoid")
    if nonlinearity in linear:
        return 1.0
    if nonlinearity == "tanh":
        return 5.0 / 3.0
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        slope = 0.01 if param is None else float(param)
        return math.sqrt(2.0 / (1 + slope ** 2))
    if nonlinearity == "selu":
        return 3.0 / 4.0
    raise ValueError(f"calculate_gain: nonlinearity {nonlinearity!r} is not supported")


def _real(v, cls, arg):
    if isinstance(v, bool) or not isinstance(v, numbers.Real):
        raise TypeError(f"{cls}: {arg} must be a real number, got {type(v).__name__}")
    return float(v)


class Initializer:
    """Base class: ``init(param)`` fills ``param`` in place and returns it."""

    def __call__(self, param, block=None):
        if not isinstance(param, Tensor):
            raise TypeError(f"{type(self).__name__}: expected a Tensor to initialize, got "
                            f"{type(param).__name__}")
        d = param._data
        new = self._generate(tuple(d.shape), d.dtype, param.place)
        if d.flags.writeable if hasattr(d, "flags") else True:
            d[...] = new
        else:
            param._data = new.copy()
        param._version[0] += 1
        return param

    def _generate(self, shape, dtype, place):
        raise NotImplementedError(f"{type(self).__name__} must implement _generate (the "
                                  "initializer subclass defines how values are drawn)")

    def __repr__(self):
        return f"{type(self).__name__}()"


def _work_dtype(dtype):
    return dtype if dtype in (np.float32, np.float64) else np.dtype(np.float32)


def _draw(place, fn):
    with _rng.device_guard(place):
        return fn(_rng.default_generator(place))


def _uniform(shape, dtype, place, low, high):
    w = _work_dtype(dtype)

    def fn(gen):
        if isinstance(gen, np.random.Generator):
            u = gen.random(shape, dtype=w)
        else:
            u = gen.random_sample(shape, dtype=w)
        return (u * w.type(high - low) + w.type(low)).astype(dtype, copy=False)
    return _draw(place, fn)


def _normal(shape, dtype, place, mean, std):
    w = _work_dtype(dtype)

    def fn(gen):
        z = gen.standard_normal(shape, dtype=w)
        return (z * w.type(std) + w.type(mean)).astype(dtype, copy=False)
    return _draw(place, fn)


class Constant(Initializer):
    """Fill with ``value``.

    >>> import weft
    >>> p = weft.nn.Linear(2, 2).bias
    >>> weft.nn.initializer.Constant(0.5)(p).tolist()
    [0.5, 0.5]
    """

    def __init__(self, value=0.0):
        self.value = _real(value, "Constant", "value")

    def _generate(self, shape, dtype, place):
        from ..core.place import array_module  # noqa: PLC0415

        return array_module(place).full(shape, self.value, dtype=dtype)

    def __repr__(self):
        return f"Constant(value={self.value})"


class Uniform(Initializer):
    """Uniform on ``[low, high)``."""

    def __init__(self, low=-1.0, high=1.0, name=None):
        self.low = _real(low, "Uniform", "low")
        self.high = _real(high, "Uniform", "high")
        if self.low > self.high:
            raise ValueError(f"Uniform: low must not exceed high, got low={low}, high={high}")

    def _generate(self, shape, dtype, place):
        return _uniform(shape, dtype, place, self.low, self.high)


class Normal(Initializer):
    """Normal with ``mean`` and standard deviation ``std``."""

    def __init__(self, mean=0.0, std=1.0, name=None):
        self.mean = _real(mean, "Normal", "mean")
        self.std = _real(std, "Normal", "std")
        if self.std < 0:
            raise ValueError(f"Normal: std must be non-negative, got {std}")

    def _generate(self, shape, dtype, place):
        return _normal(shape, dtype, place, self.mean, self.std)


class TruncatedNormal(Initializer):
    """Normal with ``mean``/``std`` restricted to ``[a, b]`` (resampled until inside)."""

    def __init__(self, mean=0.0, std=1.0, a=-2.0, b=2.0, name=None):
        self.mean = _real(mean, "TruncatedNormal", "mean")
        self.std = _real(std, "TruncatedNormal", "std")
        self.a = _real(a, "TruncatedNormal", "a")
        self.b = _real(b, "TruncatedNormal", "b")
        if self.std < 0 or self.a >= self.b:
            raise ValueError(f"TruncatedNormal: need std >= 0 and a < b, got std={std}, "
                             f"a={a}, b={b}")

    def _generate(self, shape, dtype, place):
        out = _normal(shape, dtype, place, self.mean, self.std)
        xp = xp_of(out)
        bad = (out < self.a) | (out > self.b)
        while bool(bad.any()):
            fresh = _normal(shape, dtype, place, self.mean, self.std)
            out = xp.where(bad, fresh, out)
            bad = (out < self.a) | (out > self.b)
        return out


class XavierUniform(Initializer):
    """Glorot uniform: ``U(-l, l)`` with ``l = gain * sqrt(6 / (fan_in + fan_out))``;
    explicit ``fan_in``/``fan_out`` override the ones computed from the shape."""

    def __init__(self, fan_in=None, fan_out=None, gain=1.0, name=None):
        self.fan_in, self.fan_out, self.gain = fan_in, fan_out, _real(gain, "XavierUniform",
                                                                       "gain")

    def _generate(self, shape, dtype, place):
        fi, fo = _compute_fans(shape)
        fi = fi if self.fan_in is None else self.fan_in
        fo = fo if self.fan_out is None else self.fan_out
        limit = self.gain * math.sqrt(6.0 / max(fi + fo, 1))
        return _uniform(shape, dtype, place, -limit, limit)


class XavierNormal(Initializer):
    """Glorot normal: ``N(0, std)`` with ``std = gain * sqrt(2 / (fan_in + fan_out))``."""

    def __init__(self, fan_in=None, fan_out=None, gain=1.0, name=None):
        self.fan_in, self.fan_out, self.gain = fan_in, fan_out, _real(gain, "XavierNormal",
                                                                       "gain")

    def _generate(self, shape, dtype, place):
        fi, fo = _compute_fans(shape)
        fi = fi if self.fan_in is None else self.fan_in
        fo = fo if self.fan_out is None else self.fan_out
        return _normal(shape, dtype, place, 0.0, self.gain * math.sqrt(2.0 / max(fi + fo, 1)))


class _Kaiming(Initializer):
    def __init__(self, fan_in=None, negative_slope=0.0, nonlinearity="relu", mode="fan_in"):
        if mode not in ("fan_in", "fan_out"):
            raise ValueError(f"{type(self).__name__}: mode must be 'fan_in' or 'fan_out', got "
                             f"{mode!r}")
        self.fan_in = fan_in
        self.negative_slope = _real(negative_slope, type(self).__name__, "negative_slope")
        self.nonlinearity = nonlinearity
        self.mode = mode
        calculate_gain(nonlinearity, negative_slope)  # validates the name early

    def _fan(self, shape):
        if self.fan_in is not None:
            return float(self.fan_in)
        fi, fo = _compute_fans(shape)
        return float(fi if self.mode == "fan_in" else fo)

    def _gain(self):
        return calculate_gain(self.nonlinearity, self.negative_slope)


class KaimingNormal(_Kaiming):
    """He normal: ``N(0, gain / sqrt(fan))``, ``gain = calculate_gain(nonlinearity,
    negative_slope)``, ``fan`` the fan-in (or fan-out with ``mode='fan_out'``)."""

    def _generate(self, shape, dtype, place):
        return _normal(shape, dtype, place, 0.0, self._gain() / math.sqrt(max(self._fan(shape),
                                                                              1.0)))


class KaimingUniform(_Kaiming):
    """He uniform: ``U(-l, l)`` with ``l = gain * sqrt(3 / fan)``."""

    def _generate(self, shape, dtype, place):
        limit = self._gain() * math.sqrt(3.0 / max(self._fan(shape), 1.0))
        return _uniform(shape, dtype, place, -limit, limit)


class Assign(Initializer):
    """Copy ``value`` (numpy array, list or Tensor) into the parameter; the shapes must
    match.

    >>> import weft
    >>> p = weft.nn.Linear(2, 1).bias
    >>> weft.nn.initializer.Assign([3.0])(p).tolist()
    [3.0]
    """

    def __init__(self, value, name=None):
        if isinstance(value, Tensor):
            value = value.numpy()
        elif hasattr(value, "__cuda_array_interface__"):
            value = value.get()
        v = np.array(value)
        if v.dtype.kind not in "biufc":
            raise TypeError(f"Assign: value must be a numeric numpy array, list or Tensor, got "
                            f"{type(value).__name__}")
        self.value = v

    def _generate(self, shape, dtype, place):
        v = np.asarray(self.value)
        if tuple(v.shape) != tuple(shape):
            raise ValueError(f"Assign: the value has shape {list(v.shape)} but the parameter "
                             f"has shape {list(shape)}")
        from ..core.place import move_array  # noqa: PLC0415

        return move_array(v.astype(dtype), place)


# Paddle's aliases
ConstantInitializer = Constant
UniformInitializer = Uniform
NormalInitializer = Normal

__all__ = ["Initializer", "Constant", "Uniform", "Normal", "TruncatedNormal", "XavierUniform",
           "XavierNormal", "KaimingNormal", "KaimingUniform", "Assign", "calculate_gain"]
