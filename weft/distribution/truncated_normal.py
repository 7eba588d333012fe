"""TruncatedNormal(loc, scale, low, high)."""
from __future__ import annotations

import numpy as np

from .. import ops
from . import _util, constraints
from .distribution import Distribution

__all__ = ["TruncatedNormal"]

# 16-point Gauss-Legendre rule on [-1, 1] for the narrow-interval branch: there the
# integrand exp(-c u - u²/2) on [-h, h] (c the midpoint, h·(|c| + 1) <= 1) has Taylor
# coefficients (ch)^k/k!, so the rule's error is below (1)^32/32! ~ 4e-36
_GL_X, _GL_W = np.polynomial.legendre.leggauss(16)
_LOG_GL_W = np.log(_GL_W)
# Laplace's continued fraction for the Mills ratio, evaluated to this depth from a >= 5
# (where it has converged to float64 rounding well before)
_CF_DEPTH = 60
_TAIL_FROM = 5.0


def _log_phi(z):
    return -0.5 * z * z - _util.HALF_LOG_2PI


def _narrow(a, b, limit=1.0):
    """Where ``[a, b]`` is short: ``h·(|c| + 1) <= limit`` (``c`` the midpoint, ``h`` the
    half width), with ``c`` and ``h`` (safe stand-ins elsewhere)."""
    c, h = 0.5 * (a + b), 0.5 * (b - a)
    fin = ops.isfinite(a) & ops.isfinite(b)
    ok = fin & (h * (ops.where(fin, c, 0.0).abs() + 1.0) <= limit)
    return ok, ops.where(ok, c, 0.0), ops.where(ok, h, 0.5)


def _gl(c, h, like):
    """On ``[c - h, c + h]``: ``log ∫ exp(-c u - u²/2) du`` over ``u ∈ [-h, h]`` and the
    first two moments of ``u`` under that weight (the standard normal restricted there
    is ``φ(c) e^{-cu - u²/2}``)."""
    x = ops.to_tensor(_GL_X.astype(like._data.dtype), place=like.place)
    lw = ops.to_tensor(_LOG_GL_W.astype(like._data.dtype), place=like.place)
    u = h.unsqueeze(-1) * x
    e = lw - c.unsqueeze(-1) * u - 0.5 * u * u
    lse = ops.logsumexp(e, axis=-1, keepdim=True)
    w = (e - lse).exp()
    eu = (w * u).sum(axis=-1)
    eu2 = (w * u * u).sum(axis=-1)
    return h.log() + lse.squeeze(-1), eu, eu2


def _log_diff_ndtr(a, b):
    """``log(Φ(b) - Φ(a))`` for ``a <= b`` without cancellation: in the upper tail
    (``a > 0``) the mirrored ``Φ(-a) - Φ(-b)`` is used, and where ``w·(|c| + 1) <= 1e-3``
    (width ``w``, midpoint ``c``), where the two log-cdfs are too close to subtract
    (float32 gave Z = 0 on [-1e-8, 1e-8]), ``log φ(c) + log w + log1p((c² - 1) w²/24)``,
    whose next term is below 1e-15 there. Every branch gets safe arguments where it is
    not taken, so gradients never meet ``0 · inf``."""
    narrow, c, h = _narrow(a, b, 5e-4)
    a = ops.where(narrow, -1.0, a)
    b = ops.where(narrow, 1.0, b)
    upper = a > 0
    # an infinite bound's log-cdf is the constant -inf or 0 (log_ndtr's derivative at
    # -inf is 0 · inf)
    fa, fb = ops.isfinite(a), ops.isfinite(b)
    a = ops.where(fa, a, ops.where(a > 0, 1.0, -1.0))
    b = ops.where(fb, b, ops.where(b > 0, 2.0, -2.0))
    la_u = ops.where(fa, ops.log_ndtr(-ops.where(upper, a, 1.0)), 0.0)
    lb_u = ops.where(fb, ops.log_ndtr(-ops.where(upper, b, 2.0)), float("-inf"))
    lo_a = ops.where(fa, ops.log_ndtr(ops.where(upper, -2.0, a)), float("-inf"))
    lo_b = ops.where(fb, ops.log_ndtr(ops.where(upper, -1.0, b)), 0.0)
    up = la_u + (-(lb_u - la_u).exp()).log1p()
    lo = lo_b + (-(lo_a - lo_b).exp()).log1p()
    w = 2.0 * h
    short = _log_phi(c) + w.log() + ((c * c - 1.0) * w * w / 24.0).log1p()
    return ops.where(narrow, short, ops.where(upper, up, lo))


def _mills_tail(a):
    """For ``a >= 5``: ``(x1, x2)`` of Laplace's continued fraction ``Q(a)/φ(a) =
    1/(a + 1·x1)``, ``x_k = 1/(a + (k+1) x_{k+1})``. The inverse Mills ratio is ``a +
    x1`` and the variance of the one-sided tail ``x1 (2 x2 - x1)``, neither of which
    cancels (the textbook ``1 + aλ - λ²`` subtracts terms of size a²)."""
    y = ops.zeros_like(a)
    for k in range(_CF_DEPTH, 1, -1):
        y = 1.0 / (a + (k + 1.0) * y)
    return 1.0 / (a + 2.0 * y), y


def _x_ratio(z, log_z):
    """``z φ(z) / Z``, 0 at ``z = ±inf``."""
    fin = ops.isfinite(z)
    safe = ops.where(fin, z, 0.0)
    return ops.where(fin, safe * (_log_phi(safe) - log_z).exp(), 0.0)


def _ratio(z, log_z):
    """``φ(z) / Z``, 0 at ``z = ±inf``."""
    fin = ops.isfinite(z)
    return ops.where(fin, (_log_phi(ops.where(fin, z, 0.0)) - log_z).exp(), 0.0)


def _std_icdf(q, a, b):
    """The standardised quantile (see :meth:`TruncatedNormal._icdf`)."""
    upper = a > 0
    lo = ops.where(upper, -b, a)                   # the mirrored bounds, lo < hi <= ...
    hi = ops.where(upper, -a, b)
    lo_fin, hi_fin = ops.isfinite(lo), ops.isfinite(hi)
    log_lo = ops.where(lo_fin, ops.log_ndtr(ops.where(lo_fin, lo, 0.0)), float("-inf"))
    log_hi = ops.where(hi_fin, ops.log_ndtr(ops.where(hi_fin, hi, 0.0)), 0.0)
    # mirrored, the weights swap: (1-q) goes with Φ(-β) ... q with Φ(-α)
    w_lo, w_hi = ops.where(upper, q, 1 - q), ops.where(upper, 1 - q, q)
    pos_lo, pos_hi = w_lo > 0, w_hi > 0
    t_lo = ops.where(pos_lo, ops.where(pos_lo, w_lo, 1.0).log() + log_lo, float("-inf"))
    t_hi = ops.where(pos_hi, ops.where(pos_hi, w_hi, 1.0).log() + log_hi, float("-inf"))
    z = ops.ndtri_exp(ops.logaddexp(t_lo, t_hi))
    return ops.where(upper, -z, z)


def _std_moments(a, b):
    """Mean, variance and ``log Z + ½ log 2π + ½ E[Z²]`` (the entropy less ``log σ``)
    of the standard normal restricted to ``[a, b]``, by three routes:

    - a short interval: Gauss-Legendre moments about its midpoint (the ratio formulas
      subtract terms of size ``1/(b - a)``: at [5, 5 + 1e-8] they gave a variance of
      3e-6 where it is 8e-18);
    - both bounds on one side beyond 5 standard deviations: moments about the nearer
      bound from the continued fractions of :func:`_mills_tail` (the closed forms
      subtract terms of size a²: at [1000, 1000.01] the variance came out 24 times too
      large);
    - otherwise the closed forms ``μ = r_a - r_b``, ``σ² = 1 + a r_a - b r_b - μ²``
      (``r = φ/Z``, computed in log space: ``Z`` underflows beyond 38 σ, where
      ``(aφ(a) - bφ(b))/Z`` was 0/0), whose cancellation stays below 1e-9 relative in
      float64 while both bounds are within 5 σ.
    """
    narrow, c, h = _narrow(a, b)
    log_i, eu, eu2 = _gl(c, h, c)
    n_mean, n_var = c + eu, eu2 - eu * eu
    n_ent = log_i + c * eu + 0.5 * eu2

    upper = a > 0
    lo = ops.where(upper, a, -b)        # mirrored so that the interval is [lo, hi]
    hi = ops.where(upper, b, -a)
    tail = ~narrow & (lo >= _TAIL_FROM)
    ls = ops.where(tail, lo, _TAIL_FROM + 1.0)
    top = tail & ops.isfinite(hi)
    hs = ops.where(top, hi, _TAIL_FROM + 2.0)
    x1a, x2a = _mills_tail(ls)
    x1b, x2b = _mills_tail(hs)
    # moments of u = z - lo, all divided by Q(lo) = φ(lo)/(lo + x1a): the mass is
    # 1 - R, ∫u φ is x1a - R (x1b + w), ∫u² φ is 2 x1a x2a - R (2 x1b x2b + w (2 x1b + w)),
    # with w = hi - lo and R = Q(hi)/Q(lo) (0 for hi = inf): sums of positive terms
    # but for R, which is below e^-2 off the narrow branch
    w = ops.where(top, hs - ls, 0.0)
    log_r = -0.5 * w * (hs + ls) - (hs + x1b).log() + (ls + x1a).log()
    r = ops.where(top, log_r.exp(), 0.0)
    mass = 1.0 - r
    u1 = (x1a - r * (x1b + w)) / mass
    u2 = (2.0 * x1a * x2a - r * (2.0 * x1b * x2b + w * (2.0 * x1b + w))) / mass
    t_var = u2 - u1 * u1
    t_mean = ops.where(upper, ls + u1, -(ls + u1))
    # log Z + ½ log 2π + ½ E[z²] with log Z = -lo²/2 - ½ log 2π - log(lo + x1a) + log(1-R)
    t_ent = (-r).log1p() - (ls + x1a).log() + ls * u1 + 0.5 * u2

    other = narrow | tail
    ag, bg = ops.where(other, -1.0, a), ops.where(other, 1.0, b)
    log_z = _log_diff_ndtr(ag, bg)
    mean = _ratio(ag, log_z) - _ratio(bg, log_z)
    second = _x_ratio(ag, log_z) - _x_ratio(bg, log_z)
    var = 1.0 + second - mean * mean
    ent = log_z + _util.HALF_LOG_2PI + 0.5 * (1.0 + second)
    pick = lambda n, t, g: ops.where(narrow, n, ops.where(tail, t, g))  # noqa: E731
    return pick(n_mean, t_mean, mean), pick(n_var, t_var, var), pick(n_ent, t_ent, ent)


class TruncatedNormal(Distribution):
    """The normal distribution ``N(loc, scale²)`` restricted to ``[low, high]``.

    The normaliser ``Z = Φ(β) - Φ(α)`` (``α, β`` the standardised bounds) is handled
    in log space with ``log_ndtr`` and mirrored in the upper tail, so bounds far out
    in either tail stay accurate; ``rsample`` is the inverse cdf at a uniform draw and
    is differentiable in all four parameters. Infinite bounds are allowed.

    >>> import weft
    >>> from weft.distribution import TruncatedNormal
    >>> d = TruncatedNormal(0.0, 1.0, 0.0, float("inf"))     # the half-normal
    >>> round(d.mean.item(), 4), round(d.cdf(weft.to_tensor(1.0)).item(), 4)
    (0.7979, 0.6827)
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    has_rsample = True

    def __init__(self, loc, scale, low, high):
        self.loc, self.scale, self.low, self.high = _util.broadcast_all(loc, scale, low, high)
        self._dtype = self.loc._data.dtype
        super().__init__(tuple(self.loc.shape))

    def _check_extra(self):
        if not bool((self.low < self.high).all()):
            raise ValueError("TruncatedNormal: parameter 'low' must be less than 'high'")

    @property
    def support(self):
        return constraints.interval(self.low, self.high)

    def _standardised(self, bound):
        """``(bound - loc)/scale``; an infinite bound stays a constant ±inf, so that
        no ``0 · inf`` reaches the gradients of ``loc`` and ``scale`` (they were NaN
        with ``low = -inf`` or ``high = inf``)."""
        fin = ops.isfinite(bound)
        z = (ops.where(fin, bound, 0.0) - self.loc) / self.scale
        return ops.where(fin, z, bound.detach())

    @property
    def _alpha(self):
        return self._standardised(self.low)

    @property
    def _beta(self):
        return self._standardised(self.high)

    @property
    def _log_z(self):
        return _util.widened(_log_diff_ndtr, self._alpha, self._beta)

    def _moments(self):
        # parameter-shaped work: float32 runs it in float64 (the far-tail and the
        # narrow branches need the digits)
        return _util.widened(_std_moments, self._alpha, self._beta)

    @property
    def mean(self):
        return self.loc + self.scale * self._moments()[0]

    @property
    def mode(self):
        return ops.minimum(ops.maximum(self.loc, self.low), self.high)

    @property
    def variance(self):
        return self.scale * self.scale * self._moments()[1]

    def entropy(self):
        return self.scale.log() + self._moments()[2]

    def log_prob(self, value):
        value = self._value(value)
        z = (value - self.loc) / self.scale
        lp = _log_phi(z) - self.scale.log() - self._log_z
        inside = (value >= self.low) & (value <= self.high)
        return ops.where(inside, lp, float("-inf"))

    def cdf(self, value):
        value = self._value(value, "cdf", check=False)
        a = self._alpha
        v = ops.minimum(ops.maximum(value, self.low), self.high)
        z = (v - self.loc) / self.scale
        inner = ops.where(z > a, z, a + 1.0)      # log_diff of an empty interval is -inf
        f = (_log_diff_ndtr(a, inner) - self._log_z).exp()
        return ops.where(z > a, f, 0.0)

    def _icdf(self, q):
        """``Φ⁻¹((1-q)Φ(α) + qΦ(β))`` in log space, mirrored in the upper tail: the
        mixture of the two log-cdfs by ``logaddexp`` and ``ndtri_exp`` for the inverse,
        so bounds beyond 38 standard deviations, where ``Φ`` underflows, still give
        points inside ``[low, high]``. Infinite bounds get finite stand-ins in the
        branch that does not read them (their weight is ``exp(-inf) = 0``). float32
        is inverted in float64: its log-cdfs cannot resolve an interval narrower than
        ~1e-7 (on [-1e-8, 1e-8] every quantile came out as one point)."""
        z = _util.widened(_std_icdf, q, self._alpha, self._beta)
        x = self.loc + self.scale * z
        return ops.minimum(ops.maximum(x, self.low), self.high)

    def icdf(self, value):
        q = self._validate_prob(self._value(value, "icdf", check=False))
        return self._icdf(q)

    def rsample(self, shape=()):
        """Inverse-cdf draws at ``u ∈ (0, 1)``."""
        shape = self._extend_shape(_util.sample_shape_arg(shape, "TruncatedNormal.rsample"))
        with _util.Draw(self.loc) as gen:
            u = _util.open_uniform(gen, shape, self._dtype)
        return self._icdf(_util.wrap(u))
