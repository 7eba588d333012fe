"""Poisson(rate)."""
from __future__ import annotations

import math

from .. import ops
from ..autograd import no_grad
from . import _discrete, _gamma_sampling, _util, constraints
from .distribution import Distribution

__all__ = ["Poisson"]


_SERIES_FROM = 1e3
_LOG_2PI_E = math.log(2 * math.pi * math.e)


def _poisson_log_pmf(k, rate):
    # from counts or rates of 65536 on, -stirlerr(k) - bd0(k, λ) - ½ log(2πk) (Loader):
    # k log λ - λ - lgamma(k + 1) subtracts terms of size λ (4e-3 off in float64 at
    # λ = 1e12)
    if not _discrete.needs_saddle(k, rate):
        return ops.xlogy(k, rate) - rate - ops.lgamma(k + 1.0)
    pos = k > 0
    ks = ops.where(pos, k, 1.0)
    inner = (-_discrete.stirlerr(ks) - _discrete.bd0(ks, rate) - 0.5 * ks.log()
             - _discrete._HALF_LOG_2PI)
    return ops.where(pos, inner, -rate)


class Poisson(Distribution):
    """The Poisson distribution with mean ``rate`` on ``{0, 1, 2, ...}``; samples are
    float counts.

    ``cdf(k) = Q(floor(k) + 1, rate)`` (regularized upper incomplete gamma, so it is
    differentiable in the rate); ``icdf(q)`` is the smallest ``k`` with ``cdf(k) >= q``;
    the entropy sums ``-p log p`` over ``0 .. rate + 30 sqrt(rate)`` (Paddle's bound),
    beyond which the mass is negligible. ``rsample`` raises ``NotImplementedError``.

    >>> import weft
    >>> from weft.distribution import Poisson
    >>> d = Poisson(weft.to_tensor([1.0, 4.5]))
    >>> d.mode.tolist(), [round(v, 4) for v in d.cdf(weft.to_tensor(2.0)).tolist()]
    ([1.0, 4.0], [0.9197, 0.1736])
    """

    arg_constraints = {"rate": constraints.nonnegative}
    support = constraints.nonnegative_integer

    def __init__(self, rate):
        (self.rate,) = _util.to_tensors(rate)
        self._dtype = self.rate._data.dtype
        super().__init__(tuple(self.rate.shape))

    @property
    def mean(self):
        return self.rate

    @property
    def variance(self):
        return self.rate

    @property
    def mode(self):
        return self.rate.floor()

    def sample(self, shape=()):
        shape = self._extend_shape(_util.sample_shape_arg(shape, "Poisson.sample"))
        return _gamma_sampling.poisson(self.rate, shape)

    def log_prob(self, value):
        value = self._value(value, check=False)
        _discrete.check_support(self, value)
        k = _discrete.safe_count(value)
        lp = _util.widened(_poisson_log_pmf, k, self.rate)
        return ops.where(_discrete.is_count(value), lp, float("-inf"))

    def cdf(self, value):
        value = self._value(value, "cdf", check=False)
        k = value.floor()
        inside = k >= 0
        f = ops.gammaincc(ops.where(inside, k, ops.zeros_like(k)) + 1.0, self.rate)
        return ops.where(inside, f, ops.zeros_like(f))

    def _sf(self, k):
        """``1 - cdf(k)`` for integers ``k >= 0``: the regularized lower gamma P(k+1, λ)."""
        return ops.gammainc(k + 1.0, ops.broadcast_to(self.rate, k.shape))

    def icdf(self, value):
        q = self._validate_prob(self._value(value, "icdf", check=False))
        return _discrete.icdf_by_bisection(self, q)

    def entropy(self):
        """Summed over ``λ ± 40√λ`` (+10) below λ = 1000; above, the asymptotic series
        ``½ log(2πeλ) - 1/(12λ) - 1/(24λ²) - 19/(360λ³)`` (next term ~0.11/λ⁴, below
        float64 rounding there), so a huge rate neither allocates nor loses digits."""
        lam = self.rate
        big = lam >= _SERIES_FROM
        with no_grad():
            small = ops.where(big, 0.0, lam)
            sd = small.sqrt()
            lo = ops.clip(small - 40.0 * sd - 10.0, min=0.0)
            hi = small + 40.0 * sd + 10.0
        summed = _discrete.windowed_entropy(Poisson(ops.where(big, 1.0, lam)), lo, hi)
        lb = ops.where(big, lam, _SERIES_FROM)
        inv = 1.0 / lb
        series = (0.5 * (_LOG_2PI_E + lb.log())
                  - inv * (1.0 / 12.0 + inv * (1.0 / 24.0 + inv * (19.0 / 360.0))))
        return ops.where(big, series, summed)
