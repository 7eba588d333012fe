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
    same values inside ``lims``, and no cancellation just outside them). ``cdf`` and
    ``icdf`` are exact for every ``probs`` (Paddle returns the uniform law's inside
    ``lims``): written with the log-odds through ``expm1``/``log1p``, with their series
    where the log-odds are below 1e-5.

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
        # v log p + (1 - v) log1p(-p) from probs itself: the logits are clamped to eps,
        # which made float32 log_prob 50% off at p = 1e-12
        lp = (ops.xlogy(value, self.probs) + ops.xlog1py(1.0 - value, -self.probs)
              + self._log_norm())
        return ops.where((value >= 0) & (value <= 1), lp, float("-inf"))

    def _log_odds(self):
        """``L = log(p/(1-p))`` and the mask ``|L| < 1e-5``. Near ½ as
        ``log1p((2p-1)/(1-p))`` (both differences exact there), elsewhere as ``log p -
        log1p(-p)`` (no cancellation, and exact for a tiny ``p``)."""
        p = self.probs
        mid = (p > 0.25) & (p < 0.75)
        pm = ops.where(mid, p, 0.5)
        po = ops.where(mid, 0.1, p)
        lo = ops.where(mid, ((2.0 * pm - 1.0) / (1.0 - pm)).log1p(), po.log() - (-po).log1p())
        return lo, lo.abs() < 1e-5

    def cdf(self, value):
        """``expm1(vL)/expm1(L)`` (``L`` the log-odds): the closed form ``(pᵛ(1-p)¹⁻ᵛ +
        p - 1)/(2p - 1)`` without its cancellation at small ``v`` (float32 gave 0 at
        ``v = 1e-11``). Where ``|L| < 1e-5`` its series ``v + v(v-1)L/2 +
        v(v-1)(2v-1)L²/12`` (exact to rounding there, and with the right gradient at
        p = ½; Paddle returns ``v`` inside ``lims``, up to 5e-4 off)."""
        value = self._value(value, "cdf", check=False)
        v = ops.clip(value, 0.0, 1.0)
        lo, near = self._log_odds()
        far = ops.where(near, 1.0, lo)
        closed = (v * far).expm1() / far.expm1()
        w = v * (v - 1.0)
        series = v + w * lo * 0.5 + w * (2.0 * v - 1.0) * lo * lo / 12.0
        return ops.where(near, series, closed)

    def _icdf(self, q):
        """The inverse of :meth:`cdf`: ``log1p(q expm1(L))/L``, for ``q > ½`` mirrored
        (``1 - icdf`` of the reflected law at the exact ``1 - q``), and by the inverse
        series ``q - q(q-1)L/2 + q(q-1)(2q-1)L²/6`` where ``|L| < 1e-5``."""
        lo, near = self._log_odds()
        far = ops.where(near, 1.0, lo)
        upper = q > 0.5
        r = ops.where(upper, 1.0 - q, q)
        s = ops.where(upper, -far, far)
        x = (r * s.expm1()).log1p() / s
        closed = ops.where(upper, 1.0 - x, x)
        w = q * (q - 1.0)
        series = q - w * lo * 0.5 + w * (2.0 * q - 1.0) * lo * lo / 6.0
        return ops.where(near, series, closed)

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
