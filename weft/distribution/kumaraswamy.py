"""Kumaraswamy(concentration1, concentration0)."""
from __future__ import annotations

import math

from .. import ops
from . import _util, constraints
from .distribution import Distribution

__all__ = ["Kumaraswamy"]


def _variance(a, b):
    # log E[X^n] = log b + betaln(1 + n/a, b); log m2 - 2 log m1 is the difference of
    # the lgamma second differences at 1 and 1 + b with step 1/a, by their series for
    # a >= 10 (each betaln is ~log(1/b), their combination ~1/a²)
    l1 = b.log() + ops.betaln(1.0 + 1.0 / a, b)
    l2 = b.log() + ops.betaln(1.0 + 2.0 / a, b)
    big = a >= 10
    e = ops.where(big, a.reciprocal(), 0.05)
    bs = ops.where(big, b, 1.0)
    series = (_util.lgamma_second_difference(ops.ones_like(e), e)
              - _util.lgamma_second_difference(1.0 + bs, e))
    return (2.0 * l1).exp() * ops.where(big, series, l2 - 2.0 * l1).expm1()


class Kumaraswamy(Distribution):
    """The Kumaraswamy distribution on ``[0, 1]`` with density ``a b x^(a-1)
    (1 - x^a)^(b-1)`` (``a`` = ``concentration1``, ``b`` = ``concentration0``): a
    Beta-like law with closed-form ``cdf = 1 - (1 - x^a)^b`` and quantile, so
    ``rsample`` inverts the cdf.

    >>> import weft
    >>> from weft.distribution import Kumaraswamy
    >>> d = Kumaraswamy(weft.to_tensor([2.0]), weft.to_tensor([3.0]))
    >>> round(d.cdf(weft.to_tensor(0.5)).item(), 4), round(d.mean.item(), 4)
    (0.5781, 0.4571)
    """

    arg_constraints = {"concentration1": constraints.positive,
                       "concentration0": constraints.positive}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1, concentration0):
        self.concentration1, self.concentration0 = _util.broadcast_all(concentration1,
                                                                       concentration0)
        self._dtype = self.concentration1._data.dtype
        super().__init__(tuple(self.concentration1.shape))

    def _moment(self, n):
        # E[X^n] = b B(1 + n/a, b)
        a, b = self.concentration1, self.concentration0
        return b * ops.betaln(1.0 + n / a, b).exp()

    @property
    def mean(self):
        return self._moment(1.0)

    @property
    def variance(self):
        # m2 - m1² = m1² expm1(log m2 - 2 log m1): the plain difference cancels when the
        # law is concentrated (a = 1000: every float32 digit and half the float64 ones)
        return _util.widened(_variance, self.concentration1, self.concentration0)

    @property
    def mode(self):
        """``((a - 1)/(ab - 1))^(1/a)`` for ``a >= 1, b >= 1`` (not both 1); NaN
        elsewhere (the density is unbounded or flat)."""
        a, b = self.concentration1, self.concentration0
        ok = (a >= 1) & (b >= 1) & ((a > 1) | (b > 1))
        a_s = ops.where(ok, a, ops.full_like(a, 2.0))
        b_s = ops.where(ok, b, ops.full_like(b, 2.0))
        m = ((a_s - 1.0) / (a_s * b_s - 1.0)).pow(a_s.reciprocal())
        return ops.where(ok, m, ops.full_like(m, math.nan))

    def rsample(self, shape=()):
        shape = self._extend_shape(_util.sample_shape_arg(shape, "Kumaraswamy.rsample"))
        with _util.Draw(self.concentration1) as gen:
            u = _util.wrap(_util.open_uniform(gen, shape, self._dtype))
        return self.icdf(u)

    def log_prob(self, value):
        value = self._value(value)
        a, b = self.concentration1, self.concentration0
        inside = (value >= 0) & (value <= 1)
        x = ops.where(inside, value, ops.full_like(value, 0.5))
        # log(1 - x^a) = log1p(-exp(a log x)), accurate for x^a near 0
        lp = (a.log() + b.log() + ops.xlogy(a - 1.0, x)
              + ops.xlog1py(b - 1.0, -x.pow(a)))
        return ops.where(inside, lp, float("-inf"))

    def cdf(self, value):
        value = self._value(value, "cdf", check=False)
        x = ops.clip(value, 0.0, 1.0)
        return -(self.concentration0 * (-x.pow(self.concentration1)).log1p()).expm1()

    def icdf(self, value):
        q = self._validate_prob(self._value(value, "icdf", check=False))
        a, b = self.concentration1, self.concentration0
        # (1 - (1 - q)^(1/b))^(1/a), with 1 - (1-q)^(1/b) = -expm1(log1p(-q)/b)
        return (-((-q).log1p() / b).expm1()).pow(a.reciprocal())

    def entropy(self):
        a, b = self.concentration1, self.concentration0
        harmonic_b = ops.digamma(b + 1.0) + _util.EULER
        return (1.0 - b.reciprocal()) + (1.0 - a.reciprocal()) * harmonic_b - (a * b).log()
