"""Weibull(scale, concentration)."""
from __future__ import annotations

from .. import ops
from . import _util, constraints
from .distribution import Distribution

__all__ = ["Weibull"]


class Weibull(Distribution):
    """The Weibull distribution with ``cdf(x) = 1 - exp(-(x/scale)^concentration)`` on
    ``[0, ∞)`` (PyTorch's constructor). ``rsample`` inverts the cdf (differentiable in
    both parameters).

    >>> import weft
    >>> from weft.distribution import Weibull
    >>> d = Weibull(weft.to_tensor([1.0]), weft.to_tensor([2.0]))
    >>> round(d.mean.item(), 4), round(d.cdf(weft.to_tensor(1.0)).item(), 4)
    (0.8862, 0.6321)
    """

    arg_constraints = {"scale": constraints.positive, "concentration": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, scale, concentration):
        self.scale, self.concentration = _util.broadcast_all(scale, concentration)
        self._dtype = self.scale._data.dtype
        super().__init__(tuple(self.scale.shape))

    @property
    def mean(self):
        return self.scale * ops.lgamma(1.0 + self.concentration.reciprocal()).exp()

    @property
    def variance(self):
        k = self.concentration
        g1 = ops.lgamma(1.0 + k.reciprocal()).exp()
        g2 = ops.lgamma(1.0 + 2.0 / k).exp()
        return self.scale * self.scale * (g2 - g1 * g1)

    @property
    def mode(self):
        """``scale ((k - 1)/k)^(1/k)`` for ``k > 1``, else 0."""
        k = self.concentration
        ks = ops.where(k > 1, k, ops.full_like(k, 2.0))
        m = self.scale * ((ks - 1.0) / ks).pow(ks.reciprocal())
        return ops.where(k > 1, m, ops.zeros_like(m))

    def rsample(self, shape=()):
        shape = self._extend_shape(_util.sample_shape_arg(shape, "Weibull.rsample"))
        with _util.Draw(self.scale) as gen:
            e = _util.wrap(_util.std_exponential(gen, shape, self._dtype))
        return self.scale * e.pow(self.concentration.reciprocal())

    def log_prob(self, value):
        value = self._value(value)
        k = self.concentration
        z = ops.clip(value, min=0.0) / self.scale
        lp = k.log() - self.scale.log() + ops.xlogy(k - 1.0, z) - z.pow(k)
        return ops.where(value >= 0, lp, float("-inf"))

    def cdf(self, value):
        value = self._value(value, "cdf", check=False)
        z = ops.clip(value, min=0.0) / self.scale
        return -(-z.pow(self.concentration)).expm1()

    def icdf(self, value):
        q = self._validate_prob(self._value(value, "icdf", check=False))
        return self.scale * (-(-q).log1p()).pow(self.concentration.reciprocal())

    def entropy(self):
        k = self.concentration
        return _util.EULER * (1.0 - k.reciprocal()) + (self.scale / k).log() + 1.0
