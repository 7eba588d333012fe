"""FisherSnedecor(df1, df2): the F distribution."""
from __future__ import annotations

import math

from .. import ops
from . import _gamma_sampling, _util, constraints
from .distribution import Distribution

__all__ = ["FisherSnedecor"]


class FisherSnedecor(Distribution):
    """The F distribution: the law of ``(U1/df1) / (U2/df2)`` for independent
    ``U_i ~ χ²(df_i)``. ``rsample`` draws the two chi-squared variables with
    implicit-reparameterisation gradients. ``cdf(x) = I_{df1 x/(df1 x + df2)}(df1/2,
    df2/2)``; ``mean`` is ``inf`` for ``df2 <= 2`` and ``variance`` ``inf`` for
    ``df2 <= 4`` (NaN where the mean is already infinite).

    >>> import weft
    >>> from weft.distribution import FisherSnedecor
    >>> d = FisherSnedecor(weft.to_tensor([4.0]), weft.to_tensor([6.0]))
    >>> d.mean.tolist(), round(d.cdf(weft.to_tensor(1.0)).item(), 4)
    ([1.5], 0.5248)
    """

    arg_constraints = {"df1": constraints.positive, "df2": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, df1, df2):
        self.df1, self.df2 = _util.broadcast_all(df1, df2)
        self._dtype = self.df1._data.dtype
        super().__init__(tuple(self.df1.shape))

    @property
    def mean(self):
        d2 = self.df2
        safe = ops.where(d2 > 2, d2, ops.full_like(d2, 3.0))
        m = safe / (safe - 2.0)
        return ops.where(d2 > 2, m, ops.full_like(m, math.inf))

    @property
    def variance(self):
        d1, d2 = self.df1, self.df2
        safe = ops.where(d2 > 4, d2, ops.full_like(d2, 5.0))
        v = 2.0 * safe * safe * (d1 + safe - 2.0) / (d1 * (safe - 2.0) ** 2 * (safe - 4.0))
        v = ops.where(d2 > 4, v, ops.full_like(v, math.inf))
        return ops.where(d2 > 2, v, ops.full_like(v, math.nan))

    @property
    def mode(self):
        """``(df1 - 2)/df1 · df2/(df2 + 2)`` for ``df1 > 2``, else 0."""
        d1, d2 = self.df1, self.df2
        m = (d1 - 2.0) / d1 * d2 / (d2 + 2.0)
        return ops.where(d1 > 2, m, ops.zeros_like(m))

    def rsample(self, shape=()):
        shape = self._extend_shape(_util.sample_shape_arg(shape, "FisherSnedecor.rsample"))
        # chi2(df)/df = Gamma(df/2)/(df/2)
        h1, h2 = 0.5 * self.df1, 0.5 * self.df2
        x1 = _gamma_sampling.gamma(h1, shape, "FisherSnedecor.rsample") / h1
        x2 = _gamma_sampling.gamma(h2, shape, "FisherSnedecor.rsample") / h2
        return x1 / x2

    def log_prob(self, value):
        value = self._value(value)
        d1, d2 = self.df1, self.df2
        inside = value > 0
        x = ops.where(inside, value, ops.ones_like(value))
        lp = _util.widened(_log_density, x, d1, d2)
        return ops.where(inside, lp, float("-inf"))

    def cdf(self, value):
        value = self._value(value, "cdf", check=False)
        x = ops.clip(value, min=0.0)
        d1x = self.df1 * x
        return ops.betainc(0.5 * self.df1, 0.5 * self.df2, d1x / (d1x + self.df2))

    def icdf(self, value):
        q = self._validate_prob(self._value(value, "icdf", check=False))
        y = ops.betaincinv(0.5 * self.df1, 0.5 * self.df2, q)
        return self.df2 * y / (self.df1 * (1.0 - y))

    def entropy(self):
        # terms of size df·log(df) that cancel: float32 is evaluated in float64
        return _util.widened(_entropy, self.df1, self.df2)


def _log_density(x, d1, d2):
    """``h1 log t + h2 log(1 - t) - log x - B(h1, h2)`` with ``t = d1 x/(d1 x + d2)``,
    both logs as softplus of ``u = log(d1 x/d2)`` (formed from logs, so neither a tiny
    nor a huge ``x`` over/underflows). The textbook ``h1 log(d1/d2) + (h1 - 1) log x -
    (h1 + h2) log1p(d1 x/d2)`` subtracts terms of size h1·log(d1 x/d2), which lost
    every float32 digit at df1 = 1e6."""
    h1, h2 = 0.5 * d1, 0.5 * d2
    u = d1.log() + x.log() - d2.log()
    return (-h1 * _util.softplus(-u) - h2 * _util.softplus(u) - x.log()
            - ops.betaln(h1, h2))


def _entropy(d1, d2):
    h1, h2 = 0.5 * d1, 0.5 * d2
    return ((d2 / d1).log() + ops.betaln(h1, h2) + (1.0 - h1) * ops.digamma(h1)
            - (1.0 + h2) * ops.digamma(h2) + (h1 + h2) * ops.digamma(h1 + h2))
