"""Gamma(concentration, rate)."""
from __future__ import annotations

from .. import ops
from . import _gamma_sampling, _util, constraints
from .exponential_family import ExponentialFamily

__all__ = ["Gamma"]


def _log_density(x, a, b):
    # xlogy: at x = 0 the density is 0, the rate or inf for a > 1, = 1, < 1
    return ops.xlogy(a, b) + ops.xlogy(a - 1.0, x) - b * x - ops.lgamma(a)


def _std_entropy(a):
    """The entropy of Gamma(a, 1)."""
    return a + ops.lgamma(a) + (1.0 - a) * ops.digamma(a)


class Gamma(ExponentialFamily):
    """The Gamma distribution with density ``β^α x^(α-1) e^(-βx) / Γ(α)`` on ``(0, ∞)``
    (``α`` = ``concentration``, ``β`` = ``rate``).

    ``rsample`` is differentiable in both parameters: in the rate by scaling, in the
    concentration by implicit reparameterisation (**weft+**; Paddle's rsample carries no
    gradient). ``cdf`` is ``P(α, βx)`` and ``icdf`` its inverse, both differentiable in
    every argument.

    >>> import weft
    >>> from weft.distribution import Gamma
    >>> d = Gamma(weft.to_tensor([2.0, 3.0]), weft.to_tensor(2.0))
    >>> d.mean.tolist(), d.variance.tolist()
    ([1.0, 1.5], [0.5, 0.75])
    >>> round(d.cdf(weft.to_tensor(1.0)).tolist()[0], 4)
    0.594
    """

    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, concentration, rate):
        self.concentration, self.rate = _util.broadcast_all(concentration, rate)
        self._dtype = self.concentration._data.dtype
        super().__init__(tuple(self.concentration.shape))

    @property
    def mean(self):
        return self.concentration / self.rate

    @property
    def variance(self):
        return self.concentration / (self.rate * self.rate)

    @property
    def mode(self):
        """``(α - 1)/β`` for ``α >= 1``, else 0."""
        return ops.clip(self.concentration - 1.0, min=0.0) / self.rate

    def rsample(self, shape=()):
        """``G / rate`` with ``G ~ Gamma(concentration, 1)`` (implicit gradients)."""
        shape = self._extend_shape(_util.sample_shape_arg(shape, f"{type(self).__name__}.rsample"))
        g = _gamma_sampling.gamma(self.concentration, shape, f"{type(self).__name__}.rsample")
        r = self.rate
        if r.stop_gradient and r._data.size == 1 and r.dtype == g.dtype and float(r._data) == 1.0:
            # the standard Gamma (rate 1, a constant): x / 1 is x exactly, and skipping it
            # saves two full passes and lets the backward see the cotangent of a sum as
            # the broadcast number it is (one reduction instead of a product and a sum)
            return g
        return g / r

    def log_prob(self, value):
        value = self._value(value)
        a, b = self.concentration, self.rate
        lp = _util.widened_if_large((a,), _log_density, value, a, b)
        return ops.where(value >= 0, lp, float("-inf"))

    def cdf(self, value):
        value = self._value(value, "cdf", check=False)
        return ops.gammainc(self.concentration, self.rate * ops.clip(value, min=0.0))

    def icdf(self, value):
        q = self._validate_prob(self._value(value, "icdf", check=False))
        return ops.gammaincinv(self.concentration, q) / self.rate

    def entropy(self):
        a = self.concentration
        return _util.widened_if_large((a,), _std_entropy, a) - self.rate.log()

    @property
    def _natural_parameters(self):
        return (self.concentration - 1.0, -self.rate)

    def _log_normalizer(self, x, y):
        return ops.lgamma(x + 1.0) + (x + 1.0) * (-y.reciprocal()).log()

    @property
    def _mean_carrier_measure(self):
        return 0.0
