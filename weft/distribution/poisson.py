"""Poisson(rate)."""
from __future__ import annotations

from .. import ops
from . import _discrete, _gamma_sampling, _util, constraints
from .distribution import Distribution

__all__ = ["Poisson"]


def _poisson_log_pmf(k, rate):
    return ops.xlogy(k, rate) - rate - ops.lgamma(k + 1.0)


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
        # k log λ - λ - lgamma(k + 1) cancels for large λ: float32 in float64
        lp = _util.widened(_poisson_log_pmf, k, self.rate)
        return ops.where(_discrete.is_count(value), lp, float("-inf"))

    def cdf(self, value):
        value = self._value(value, "cdf", check=False)
        k = value.floor()
        inside = k >= 0
        f = ops.gammaincc(ops.where(inside, k, ops.zeros_like(k)) + 1.0, self.rate)
        return ops.where(inside, f, ops.zeros_like(f))

    def icdf(self, value):
        q = self._validate_prob(self._value(value, "icdf", check=False))
        return _discrete.icdf_by_bisection(self, q)

    def entropy(self):
        top = float(ops.max(self.rate).item()) if self.rate.size else 0.0
        upper = int(top + 30.0 * max(top, 1.0) ** 0.5) + 1
        values = ops.arange(0, upper + 1, dtype=self._dtype).reshape(
            [-1] + [1] * len(self.batch_shape))
        lp = self.log_prob(values)
        return _discrete.entropy_sum(lp)
