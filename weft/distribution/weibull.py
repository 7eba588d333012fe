"""Weibull(scale, concentration)."""
from __future__ import annotations

import numpy as np

from .. import ops
from ..autograd import no_grad
from . import _util, constraints
from .distribution import Distribution

__all__ = ["Weibull"]


def _variance_factor(k):
    # the lgamma second difference by its series for k >= 10 (it is ~(π²/6)/k², the
    # lgamma values ~γ/k)
    e = k.reciprocal()
    lg1 = ops.lgamma(1.0 + e)
    big = k >= 10
    es = ops.where(big, e, 0.05)
    d = ops.where(big, _util.lgamma_second_difference(ops.ones_like(es), es),
                  ops.lgamma(1.0 + 2.0 * e) - 2.0 * lg1)
    return (2.0 * lg1).exp() * d.expm1()


class Weibull(Distribution):
    """The Weibull distribution with ``cdf(x) = 1 - exp(-(x/scale)^concentration)`` on
    ``[0, ∞)`` (PyTorch's constructor). ``rsample`` inverts the cdf (differentiable in
    both parameters).

    >>> import weft
    >>> from weft.distribution import Weibull
    >>> d = Weibull(weft.to_tensor([1.0]), weft.to_tensor([2.0]))
    >>> round(d.mean.item(), 4), round(d.cdf(weft.to_tensor(1.0)).item(), 4)
    (0.8862, 0.6321)
    """

    arg_constraints = {"scale": constraints.positive, "concentration": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, scale, concentration):
        self.scale, self.concentration = _util.broadcast_all(scale, concentration)
        self._dtype = self.scale._data.dtype
        super().__init__(tuple(self.scale.shape))

    @property
    def mean(self):
        return self.scale * ops.lgamma(1.0 + self.concentration.reciprocal()).exp()

    @property
    def variance(self):
        # Γ(1+2/k) - Γ(1+1/k)² = Γ(1+1/k)² expm1(lgamma(1+2/k) - 2 lgamma(1+1/k)): the
        # difference is ~(π²/6)/k², so the plain one lost 2% in float32 at k = 1000
        # (float32 runs in float64: the lgamma difference itself cancels by 1/k)
        return self.scale * self.scale * _util.widened(_variance_factor, self.concentration)

    @property
    def mode(self):
        """``scale ((k - 1)/k)^(1/k)`` for ``k > 1``, else 0."""
        k = self.concentration
        ks = ops.where(k > 1, k, ops.full_like(k, 2.0))
        m = self.scale * ((ks - 1.0) / ks).pow(ks.reciprocal())
        return ops.where(k > 1, m, ops.zeros_like(m))

    def rsample(self, shape=()):
        shape = self._extend_shape(_util.sample_shape_arg(shape, "Weibull.rsample"))
        with _util.Draw(self.scale) as gen:
            e = _util.wrap(_util.std_exponential(gen, shape, self._dtype))
        return self.scale * e.pow(self.concentration.reciprocal())

    def log_prob(self, value):
        value = self._value(value)
        k = self.concentration
        pos, lz = self._log_z(value)
        # (k - 1) log z, with xlogy's 0 at z = 0 for k = 1; z^k = exp(k log z)
        lzs = ops.where(pos, lz, 0.0)
        # (at z = 0 a constant: ±inf or 0, whose k-derivative log 0 would be 0·inf)
        at0 = ops.xlogy((k - 1.0).detach(), ops.zeros_like(lz))
        power = ops.where(pos, (k - 1.0) * lzs, at0)
        zk = ops.where(pos, (k * lzs).exp(), 0.0)
        lp = k.log() - self.scale.log() + power - zk
        return ops.where(value >= 0, lp, float("-inf"))

    def _log_z(self, value):
        """``(value > 0, log(value/scale))``; where the ratio over- or underflows (float32
        at a scale of 1e-30 or 1e30) as ``log value - log scale``."""
        pos = value > 0
        s = self.scale
        x = ops.where(pos, value, s)      # z = 1 where not taken
        z = x / s
        with no_grad():
            # the plain log(x/s) wherever the ratio is a normal number and the scale is
            # not extreme (one host check; the rescaled branches below cost 3x)
            fi = np.finfo(self._dtype)
            plain = bool(((z > float(fi.tiny)) & ops.isfinite(z)).all()) and bool(
                ((s > 1e-10) & (s < 1e10)).all())
        if plain:
            return pos, z.log()
        with no_grad():
            # a power of two near 1/scale: x·c and s·c are exact, and the gradient of
            # x/s, -(x/s)/s, no longer overflows float32 for a scale of 1e-30 (d/ds of
            # the log-density is ~k/s there, well inside the range)
            c = _util.wrap(2.0 ** -_util.xp_of(s._data).rint(_util.xp_of(s._data).log2(
                s._data))).astype(self._dtype)
            z = (x * c) / (s * c)
            ok = (z > float(np.finfo(self._dtype).tiny)) & ops.isfinite(z)
        # each branch sees safe values where it is not taken: a ratio that overflows
        # would put 0·inf into the gradient of the scale
        z = (ops.where(ok, x, s) * c) / (s * c)
        xo = ops.where(ok, s, x)
        lz = ops.where(ok, z.log(), xo.log() - s.log())
        return pos, lz

    def cdf(self, value):
        value = self._value(value, "cdf", check=False)
        pos, lz = self._log_z(value)
        zk = ops.where(pos, (self.concentration * ops.where(pos, lz, 0.0)).exp(), 0.0)
        return -(-zk).expm1()

    def icdf(self, value):
        q = self._validate_prob(self._value(value, "icdf", check=False))
        return self.scale * (-(-q).log1p()).pow(self.concentration.reciprocal())

    def entropy(self):
        k = self.concentration
        return _util.EULER * (1.0 - k.reciprocal()) + (self.scale / k).log() + 1.0
