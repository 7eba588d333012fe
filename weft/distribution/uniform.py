"""Uniform(low, high) on ``[low, high)``."""
from __future__ import annotations

import math

from .. import ops
from . import _util, constraints
from .distribution import Distribution

__all__ = ["Uniform"]


class Uniform(Distribution):
    """The continuous uniform distribution on ``[low, high)``.

    weft's support is half open, so ``log_prob(low)`` is finite (Paddle gives ``-inf``
    at both ends); outside it ``log_prob`` is ``-inf`` and ``prob`` 0.

    >>> import weft
    >>> from weft.distribution import Uniform
    >>> d = Uniform(0.0, 2.0)
    >>> d.log_prob(weft.to_tensor([0.0, 1.0, 2.0])).exp().tolist()
    [0.5, 0.5, 0.0]
    >>> d.mean.item(), round(d.variance.item(), 4)
    (1.0, 0.3333)
    """

    arg_constraints = {"low": constraints.real, "high": constraints.real}
    has_rsample = True

    def __init__(self, low, high, name=None):
        self.name = name if name is not None else "Uniform"
        self.low, self.high = _util.broadcast_all(low, high)
        self._dtype = self.low._data.dtype
        super().__init__(tuple(self.low.shape))

    def _check_extra(self):
        if not bool((self.low < self.high).all()):
            raise ValueError("Uniform: parameter 'low' must be less than 'high'")

    @property
    def support(self):
        return constraints.half_open_interval(self.low, self.high)

    @property
    def mean(self):
        return (self.low + self.high) * 0.5

    @property
    def variance(self):
        w = self.high - self.low
        return w * w / 12.0

    @property
    def stddev(self):
        return (self.high - self.low) / math.sqrt(12.0)

    def entropy(self):
        return (self.high - self.low).log()

    def _u(self, shape, seed=0, op="sample"):
        shape = self._extend_shape(_util.sample_shape_arg(shape, f"Uniform.{op}"))
        with _util.Draw(self.low, seed) as gen:
            return _util.std_uniform(gen, shape, self._dtype)

    def sample(self, shape=(), seed=0):
        """Draws of shape ``shape + batch_shape``; a nonzero ``seed`` makes this call
        reproducible on its own."""
        u = self._u(shape, seed)
        u *= (self.high._data - self.low._data)
        u += self.low._data
        return _util.wrap(u)

    def rsample(self, shape=()):
        """``low + (high - low) · u``; differentiable in both bounds."""
        u = _util.wrap(self._u(shape, op="rsample"))
        return self.low + (self.high - self.low) * u

    def _inside(self, value):
        return (value >= self.low) & (value < self.high)

    def log_prob(self, value):
        value = self._value(value)
        return ops.where(self._inside(value), -(self.high - self.low).log(), float("-inf"))

    def probs(self, value):
        """The density at ``value`` (Paddle's name; same as :meth:`prob`)."""
        return self.prob(value)

    def cdf(self, value):
        value = self._value(value, "cdf", check=False)
        return ops.clip((value - self.low) / (self.high - self.low), 0.0, 1.0)

    def icdf(self, value):
        q = self._validate_prob(self._value(value, "icdf", check=False))
        return self.low + q * (self.high - self.low)
