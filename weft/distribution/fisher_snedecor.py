"""FisherSnedecor(df1, df2): the F distribution."""
from __future__ import annotations

import math

from .. import ops
from . import _gamma_sampling, _util, constraints
from .beta import host_any, ibeta_both, ibeta_quantile_logs
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
        """``I_t(h1, h2)`` with ``t = d1 x/(d1 x + d2)``, ``h = d/2``, from ``log t`` and
        ``log(1 - t)`` (softplus of ``log(d1 x/d2)``): ``t`` rounds to 1 long before
        the mass above it vanishes for small ``df2`` (cdf(2.4e28) at (1, 0.01) was 1
        instead of 0.3), so the upper tail is ``1 - I_{1-t}(h2, h1)`` where that is
        the smaller mass (:func:`beta.ibeta_both`). float32 runs in float64."""
        value = self._value(value, "cdf", check=False)
        return _util.widened(_cdf, value, self.df1, self.df2)

    def icdf(self, value):
        """The inverse of :meth:`cdf`, on the side of ``t = 1/2`` that keeps the
        precision: ``x = (d2/d1) t/(1 - t)`` with ``1 - t`` from the inverse of the
        complementary mass where ``t > 1/2`` (``icdf(0.5)`` at (1, 0.01) is 4e57, and
        was inf where ``t`` rounded to 1)."""
        q = self._validate_prob(self._value(value, "icdf", check=False))
        return _util.widened(_icdf, q, self.df1, self.df2)

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


def log_ratio(log_w):
    """``(log t, log(1 - t))`` for ``t = w/(1 + w)`` given ``log w``, without rounding
    ``t`` or ``1 - t``: ``-softplus(-log w)`` and ``-softplus(log w)``, from the one
    ``log1p(exp(-|log w|))`` they share."""
    s = ops.log1p((-log_w.abs()).exp())
    up = log_w > 0
    return ops.where(up, -s, log_w - s), ops.where(up, -log_w - s, -s)


def _cdf(value, d1, d2):
    pos = ~(value <= 0)       # (NaN stays in, and comes out NaN)
    some_off = host_any(~pos)
    x = ops.where(pos, value, ops.ones_like(value)) if some_off else value
    log_t, log_u = log_ratio(d1.log() + x.log() - d2.log())
    lower, _ = ibeta_both(0.5 * d1, 0.5 * d2, log_t, log_u)
    return ops.where(pos, lower, ops.zeros_like(lower)) if some_off else lower


def _icdf(q, d1, d2):
    log_t, log_u = ibeta_quantile_logs(0.5 * d1, 0.5 * d2, q, 1.0 - q)
    return (d2.log() - d1.log() + log_t - log_u).exp()


def _entropy(d1, d2):
    h1, h2 = 0.5 * d1, 0.5 * d2
    return ((d2 / d1).log() + ops.betaln(h1, h2) + (1.0 - h1) * ops.digamma(h1)
            - (1.0 + h2) * ops.digamma(h2) + (h1 + h2) * ops.digamma(h1 + h2))
