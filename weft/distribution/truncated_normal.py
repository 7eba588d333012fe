"""TruncatedNormal(loc, scale, low, high)."""
from __future__ import annotations


from .. import ops
from . import _util, constraints
from .distribution import Distribution

__all__ = ["TruncatedNormal"]


def _log_phi(z):
    return -0.5 * z * z - _util.HALF_LOG_2PI


def _log_diff_ndtr(a, b):
    """``log(Φ(b) - Φ(a))`` for ``a <= b`` without cancellation: in the upper tail
    (``a > 0``) the mirrored ``Φ(-a) - Φ(-b)`` is used. Both branches get safe
    arguments where they are not taken, so gradients never meet ``0 · inf``."""
    upper = a > 0
    la_u = ops.log_ndtr(-ops.where(upper, a, 1.0))
    lb_u = ops.log_ndtr(-ops.where(upper, b, 2.0))
    lo_a = ops.log_ndtr(ops.where(upper, -2.0, a))
    lo_b = ops.log_ndtr(ops.where(upper, -1.0, b))
    up = la_u + (-(lb_u - la_u).exp()).log1p()
    lo = lo_b + (-(lo_a - lo_b).exp()).log1p()
    return ops.where(upper, up, lo)


def _x_phi(z):
    """``z φ(z)``, 0 at ``z = ±inf``."""
    finite = ops.isfinite(z)
    safe = ops.where(finite, z, 0.0)
    return ops.where(finite, safe * _log_phi(safe).exp(), 0.0)


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

    @property
    def _alpha(self):
        return (self.low - self.loc) / self.scale

    @property
    def _beta(self):
        return (self.high - self.loc) / self.scale

    @property
    def _log_z(self):
        return _log_diff_ndtr(self._alpha, self._beta)

    def _phi_ratio(self, z):
        """``φ(z) / Z``."""
        return (_log_phi(z) - self._log_z).exp()

    @property
    def mean(self):
        a, b = self._alpha, self._beta
        return self.loc + self.scale * (self._phi_ratio(a) - self._phi_ratio(b))

    @property
    def mode(self):
        return ops.minimum(ops.maximum(self.loc, self.low), self.high)

    @property
    def variance(self):
        a, b = self._alpha, self._beta
        z = self._log_z.exp()
        d = self._phi_ratio(a) - self._phi_ratio(b)
        return self.scale * self.scale * (1.0 + (_x_phi(a) - _x_phi(b)) / z - d * d)

    def entropy(self):
        a, b = self._alpha, self._beta
        z = self._log_z.exp()
        return ((0.5 * (1.0 + _util.LOG_2PI)) + self.scale.log() + self._log_z
                + 0.5 * (_x_phi(a) - _x_phi(b)) / z)

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
        branch that does not read them (their weight is ``exp(-inf) = 0``)."""
        a, b = self._alpha, self._beta
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
        x = self.loc + self.scale * ops.where(upper, -z, z)
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
