"""ContinuousBernoulli(probs, lims)."""
from __future__ import annotations

import math

from .. import ops
from . import _util, constraints
from .exponential_family import ExponentialFamily

__all__ = ["ContinuousBernoulli"]


class ContinuousBernoulli(ExponentialFamily):
    """The continuous Bernoulli distribution on [0, 1] (Loaiza-Ganem & Cunningham,
    2019): density ``C(λ) λˣ (1 - λ)¹⁻ˣ`` with ``C(λ) = 2 atanh(1 - 2λ) / (1 - 2λ)``.

    Near λ = ½ the closed forms cancel catastrophically, so for ``probs`` inside
    ``lims`` the normaliser, mean and variance use their Taylor expansions around ½.

    >>> import weft
    >>> from weft.distribution import ContinuousBernoulli
    >>> d = ContinuousBernoulli(0.5)
    >>> d.mean.item(), round(d.variance.item(), 6)
    (0.5, 0.083333)
    """

    arg_constraints = {"probs": constraints.unit_interval}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, probs, lims=(0.499, 0.501)):
        (self.probs,) = _util.to_tensors(probs)
        self._dtype = self.probs._data.dtype
        self.lims = tuple(float(v) for v in lims)
        self.logits = self._probs_to_logits(self.probs, is_binary=True)
        super().__init__(tuple(self.probs.shape))

    def _outside(self):
        return (self.probs <= self.lims[0]) | (self.probs >= self.lims[1])

    def _cut(self):
        """``probs`` with the values inside ``lims`` moved to ``lims[0]`` (so the exact
        formulas, evaluated but not used there, stay finite)."""
        return ops.where(self._outside(), self.probs, self.lims[0])

    def _log_norm(self):
        p = self._cut()
        below = ops.where(p <= 0.5, p, 0.0)
        above = ops.where(p >= 0.5, p, 1.0)
        log_norm = (((-p).log1p() - p.log()).abs().log()
                    - ops.where(p <= 0.5, (-2.0 * below).log1p(), (2.0 * above - 1.0).log()))
        x = (self.probs - 0.5) ** 2
        taylor = math.log(2.0) + (4.0 / 3.0 + 104.0 / 45.0 * x) * x
        return ops.where(self._outside(), log_norm, taylor)

    @property
    def mean(self):
        p = self._cut()
        mus = p / (2.0 * p - 1.0) + 1.0 / ((-p).log1p() - p.log())
        x = self.probs - 0.5
        taylor = 0.5 + (1.0 / 3.0 + 16.0 / 45.0 * x * x) * x
        return ops.where(self._outside(), mus, taylor)

    @property
    def variance(self):
        p = self._cut()
        d = (-p).log1p() - p.log()
        v = p * (p - 1.0) / ((1.0 - 2.0 * p) ** 2) + 1.0 / (d * d)
        x = (self.probs - 0.5) ** 2
        taylor = 1.0 / 12.0 - (1.0 / 15.0 - 128.0 / 945.0 * x) * x
        return ops.where(self._outside(), v, taylor)

    @property
    def mode(self):
        """1 for ``probs > ½``, 0 below; at ½ every point of [0, 1] is a mode (NaN)."""
        p = self.probs
        return ops.where(p > 0.5, 1.0, ops.where(p < 0.5, 0.0, float("nan"))).astype(self._dtype)

    def rsample(self, shape=()):
        """Inverse-cdf draws; differentiable in ``probs``."""
        shape = self._extend_shape(_util.sample_shape_arg(shape, "ContinuousBernoulli.rsample"))
        with _util.Draw(self.probs) as gen:
            u = _util.std_uniform(gen, shape, self._dtype)
        return self._icdf(_util.wrap(u))

    def log_prob(self, value):
        value = self._value(value)
        lp = value * self.logits - _util.softplus(self.logits) + self._log_norm()
        return ops.where((value >= 0) & (value <= 1), lp, float("-inf"))

    def cdf(self, value):
        value = self._value(value, "cdf", check=False)
        p = self._cut()
        v = ops.clip(value, 0.0, 1.0)
        cdfs = (p.pow(v) * (1.0 - p).pow(1.0 - v) + p - 1.0) / (2.0 * p - 1.0)
        return ops.where(self._outside(), cdfs, v)

    def _icdf(self, q):
        p = self._cut()
        x = ((-p + q * (2.0 * p - 1.0)).log1p() - (-p).log1p()) / (p.log() - (-p).log1p())
        return ops.where(self._outside(), x, q)

    def icdf(self, value):
        q = self._validate_prob(self._value(value, "icdf", check=False))
        return self._icdf(q)

    def entropy(self):
        log0 = (-self.probs).log1p()
        log1 = self.probs.log()
        return self.mean * (log0 - log1) - self._log_norm() - log0

    @property
    def _natural_parameters(self):
        return (self.logits,)

    def _log_normalizer(self, x):
        """``log ∫₀¹ e^{xt} dt = log((eˣ - 1) / x)`` (Taylor near 0)."""
        outside = self._outside()
        safe = ops.where(outside, x, 1.0)
        exact = (safe.abs().expm1().log() + ops.clip(safe, max=0.0)) - safe.abs().log()
        taylor = 0.5 * x + x * x / 24.0
        return ops.where(outside, exact, taylor)

    @property
    def _mean_carrier_measure(self):
        return 0.0
