"""InverseGamma(concentration, rate)."""
from __future__ import annotations

import math

from .. import ops
from ..core.place import special_module
from . import _gamma_sampling, _util, constraints
from .distribution import Distribution

__all__ = ["InverseGamma"]


def _log_density(x, a, b):
    return ops.xlogy(a, b) - ops.lgamma(a) - (a + 1.0) * x.log() - b / x


def _std_entropy(a):
    return a + ops.lgamma(a) - (1.0 + a) * ops.digamma(a)


def _upper_gamma_quantile(a, q):
    """The ``y`` with ``Q(a, y) = q`` (the upper regularized gamma). ``gammaincinv(a,
    1 - q)`` rounds ``1 - q`` to 1 below q = 1e-16 (InverseGamma.icdf(1e-30) came out
    0), so the value comes from scipy's / CuPy's ``gammainccinv`` and the gradients from
    one implicit-function step around it: ``y* + (Q(a, y*) - q)/p(y*)`` with ``y*`` and
    the density ``p`` held constant has ``dy/dq = -1/p`` and ``dy/da = (dQ/da)/p``,
    and moves the value only by the rounding of ``Q(a, y*) - q``."""
    a, q = _util.broadcast_all(a, q)
    ad, qd = a._data, q._data
    y = _util.wrap(special_module(ad).gammainccinv(ad, qd).astype(ad.dtype, copy=False))
    # the Gamma(a, 1) density at y*, 0 where it underflows (then no gradient)
    dens = (ops.xlogy(a - 1.0, y) - y - ops.lgamma(a)).exp().detach()
    ok = (dens > 0) & ops.isfinite(y) & (y > 0)
    step = (ops.gammaincc(a, ops.where(ok, y, 1.0)) - q) / ops.where(ok, dens, 1.0)
    return y + ops.where(ok, step, 0.0)


class InverseGamma(Distribution):
    """The law of ``1/Y`` for ``Y ~ Gamma(concentration, rate)``: density ``β^α
    x^(-α-1) e^(-β/x) / Γ(α)`` on ``(0, ∞)``. ``rsample`` is ``rate / G`` with ``G`` a
    Gamma draw with implicit-reparameterisation gradients. ``mean`` is ``inf`` for
    ``α <= 1``, ``variance`` ``inf`` for ``α <= 2``.

    >>> import weft
    >>> from weft.distribution import InverseGamma
    >>> d = InverseGamma(weft.to_tensor([3.0]), weft.to_tensor([2.0]))
    >>> d.mean.tolist(), d.mode.tolist()
    ([1.0], [0.5])
    """

    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, concentration, rate):
        self.concentration, self.rate = _util.broadcast_all(concentration, rate)
        self._dtype = self.concentration._data.dtype
        super().__init__(tuple(self.concentration.shape))

    @property
    def mean(self):
        a = self.concentration
        safe = ops.where(a > 1, a, ops.full_like(a, 2.0))
        m = self.rate / (safe - 1.0)
        return ops.where(a > 1, m, ops.full_like(m, math.inf))

    @property
    def variance(self):
        a = self.concentration
        safe = ops.where(a > 2, a, ops.full_like(a, 3.0))
        v = self.rate * self.rate / ((safe - 1.0) * (safe - 1.0) * (safe - 2.0))
        return ops.where(a > 2, v, ops.full_like(v, math.inf))

    @property
    def mode(self):
        return self.rate / (self.concentration + 1.0)

    def rsample(self, shape=()):
        shape = self._extend_shape(_util.sample_shape_arg(shape, "InverseGamma.rsample"))
        return self.rate / _gamma_sampling.gamma(self.concentration, shape,
                                                 "InverseGamma.rsample")

    def log_prob(self, value):
        value = self._value(value)
        inside = value > 0
        x = ops.where(inside, value, ops.ones_like(value))
        # a log(b/x) - b/x - lgamma(a) - log x: terms of size a that cancel, so float32
        # is evaluated in float64 (1e-3 off at a = 1e4 otherwise)
        lp = _util.widened(_log_density, x, self.concentration, self.rate)
        return ops.where(inside, lp, float("-inf"))

    def cdf(self, value):
        value = self._value(value, "cdf", check=False)
        inside = value > 0
        x = ops.where(inside, value, ops.ones_like(value))
        f = ops.gammaincc(self.concentration, self.rate / x)
        return ops.where(inside, f, ops.zeros_like(f))

    def icdf(self, value):
        q = self._validate_prob(self._value(value, "icdf", check=False))
        return self.rate / _upper_gamma_quantile(self.concentration, q)

    def entropy(self):
        return self.rate.log() + _util.widened(_std_entropy, self.concentration)
