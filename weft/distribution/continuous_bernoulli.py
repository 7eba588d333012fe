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
    ``lims`` Paddle uses Taylor expansions around ½; weft uses the series in
    ``2λ - 1`` of the normaliser, mean and variance wherever ``|λ - ½| < ¼`` (the
    same values inside ``lims``, and no cancellation just outside them).

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
        """``log C(λ)``; where ``|2λ - 1| < ½`` (``lims`` included) from the series,
        ``log 2 + log D`` with ``D = atanh(t)/t`` (see :meth:`_series`)."""
        near, t, e, _, p = self._series()
        below = ops.where(p <= 0.5, p, 0.0)
        above = ops.where(p >= 0.5, p, 1.0)
        log_norm = (((-p).log1p() - p.log()).abs().log()
                    - ops.where(p <= 0.5, (-2.0 * below).log1p(), (2.0 * above - 1.0).log()))
        return ops.where(near, math.log(2.0) + (t * t * e).log1p(), log_norm)

    def _series(self):
        """The series in ``t = 2λ - 1`` used where ``|t| < ½``.

        There the closed forms of the normaliser, mean and variance subtract terms of
        size ~1/t and lose digits (four in float32 at λ = 0.5044). With
        ``D = atanh(t)/t = Σ t²ᵏ/(2k+1)`` and ``E = (D - 1)/t² = Σ t²ᵏ/(2k+3)``:
        ``log C = log 2 + log1p(t²E)``, mean = ½ + t·E/(2D), variance =
        ¼ (1 - E(D+1)/D²), none of which cancels; t² < ¼, so 26 terms reach float64
        rounding. Returns the mask, t, E and D (t = 0 off the mask), and ``probs`` with
        the masked values moved to 0.1, where the closed forms (evaluated there but not
        used) stay finite.
        """
        near = (self.probs - 0.5).abs() < 0.25
        t = 2.0 * ops.where(near, self.probs, 0.5) - 1.0
        t2 = t * t
        e = 1.0 / 53.0
        for k in range(24, -1, -1):
            e = e * t2 + 1.0 / (2 * k + 3)
        return near, t, e, 1.0 + t2 * e, ops.where(near, 0.1, self.probs)

    @property
    def mean(self):
        near, t, e, d, p = self._series()
        mean = 0.5 + t * e / (2.0 * d)
        return ops.where(near, mean, p / (2.0 * p - 1.0) + 1.0 / ((-p).log1p() - p.log()))

    @property
    def variance(self):
        near, _, e, d, p = self._series()
        var = 0.25 * (1.0 - e * (d + 1.0) / (d * d))
        d = (-p).log1p() - p.log()
        return ops.where(near, var, p * (p - 1.0) / ((1.0 - 2.0 * p) ** 2) + 1.0 / (d * d))

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
