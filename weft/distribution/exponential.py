"""Exponential(rate)."""
from __future__ import annotations

from .. import ops
from . import _util, constraints
from .exponential_family import ExponentialFamily

__all__ = ["Exponential"]


class Exponential(ExponentialFamily):
    """The exponential distribution with density ``rate · exp(-rate · x)`` on ``[0, ∞)``.

    >>> import weft
    >>> from weft.distribution import Exponential
    >>> d = Exponential(weft.to_tensor([1.0, 2.0]))
    >>> [round(v, 4) for v in d.cdf(weft.to_tensor(1.0)).tolist()]
    [0.6321, 0.8647]
    """

    arg_constraints = {"rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, rate):
        (self.rate,) = _util.to_tensors(rate)
        self._dtype = self.rate._data.dtype
        super().__init__(tuple(self.rate.shape))

    @property
    def mean(self):
        return self.rate.reciprocal()

    @property
    def mode(self):
        return ops.zeros_like(self.rate)

    @property
    def stddev(self):
        return self.rate.reciprocal()

    @property
    def variance(self):
        return self.rate.pow(-2.0)

    def rsample(self, shape=()):
        """``E / rate`` with ``E`` a standard exponential draw."""
        shape = self._extend_shape(_util.sample_shape_arg(shape, "Exponential.rsample"))
        with _util.Draw(self.rate) as gen:
            e = _util.std_exponential(gen, shape, self._dtype)
        return _util.wrap(e) / self.rate

    def log_prob(self, value):
        value = self._value(value)
        lp = self.rate.log() - self.rate * value
        return ops.where(value >= 0, lp, float("-inf"))

    def cdf(self, value):
        value = self._value(value, "cdf", check=False)
        return -(-self.rate * ops.clip(value, min=0.0)).expm1()

    def icdf(self, value):
        q = self._validate_prob(self._value(value, "icdf", check=False))
        return -(-q).log1p() / self.rate

    def entropy(self):
        return 1.0 - self.rate.log()

    @property
    def _natural_parameters(self):
        return (-self.rate,)

    def _log_normalizer(self, x):
        return -(-x).log()

    @property
    def _mean_carrier_measure(self):
        return 0.0
