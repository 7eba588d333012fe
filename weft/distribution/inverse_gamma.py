"""InverseGamma(concentration, rate)."""
from __future__ import annotations

import math

from .. import ops
from . import _gamma_sampling, _util, constraints
from .distribution import Distribution

__all__ = ["InverseGamma"]


class InverseGamma(Distribution):
    """The law of ``1/Y`` for ``Y ~ Gamma(concentration, rate)``: density ``β^α
    x^(-α-1) e^(-β/x) / Γ(α)`` on ``(0, ∞)``. ``rsample`` is ``rate / G`` with ``G`` a
    Gamma draw with implicit-reparameterisation gradients. ``mean`` is ``inf`` for
    ``α <= 1``, ``variance`` ``inf`` for ``α <= 2``.

    >>> import weft
    >>> from weft.distribution import InverseGamma
    >>> d = InverseGamma(weft.to_tensor([3.0]), weft.to_tensor([2.0]))
    >>> d.mean.tolist(), d.mode.tolist()
    ([1.0], [0.5])
    """

    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, concentration, rate):
        self.concentration, self.rate = _util.broadcast_all(concentration, rate)
        self._dtype = self.concentration._data.dtype
        super().__init__(tuple(self.concentration.shape))

    @property
    def mean(self):
        a = self.concentration
        safe = ops.where(a > 1, a, ops.full_like(a, 2.0))
        m = self.rate / (safe - 1.0)
        return ops.where(a > 1, m, ops.full_like(m, math.inf))

    @property
    def variance(self):
        a = self.concentration
        safe = ops.where(a > 2, a, ops.full_like(a, 3.0))
        v = self.rate * self.rate / ((safe - 1.0) * (safe - 1.0) * (safe - 2.0))
        return ops.where(a > 2, v, ops.full_like(v, math.inf))

    @property
    def mode(self):
        return self.rate / (self.concentration + 1.0)

    def rsample(self, shape=()):
        shape = self._extend_shape(_util.sample_shape_arg(shape, "InverseGamma.rsample"))
        return self.rate / _gamma_sampling.gamma(self.concentration, shape,
                                                 "InverseGamma.rsample")

    def log_prob(self, value):
        value = self._value(value)
        a, b = self.concentration, self.rate
        inside = value > 0
        x = ops.where(inside, value, ops.ones_like(value))
        lp = ops.xlogy(a, b) - ops.lgamma(a) - (a + 1.0) * x.log() - b / x
        return ops.where(inside, lp, float("-inf"))

    def cdf(self, value):
        value = self._value(value, "cdf", check=False)
        inside = value > 0
        x = ops.where(inside, value, ops.ones_like(value))
        f = ops.gammaincc(self.concentration, self.rate / x)
        return ops.where(inside, f, ops.zeros_like(f))

    def icdf(self, value):
        q = self._validate_prob(self._value(value, "icdf", check=False))
        return self.rate / ops.gammaincinv(self.concentration, 1.0 - q)

    def entropy(self):
        a = self.concentration
        return a + self.rate.log() + ops.lgamma(a) - (1.0 + a) * ops.digamma(a)
