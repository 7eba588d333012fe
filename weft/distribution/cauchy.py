"""Cauchy(loc, scale)."""
from __future__ import annotations

import math

from .. import ops
from . import _util, constraints
from .distribution import Distribution

__all__ = ["Cauchy"]

_LOG_PI = math.log(math.pi)


class Cauchy(Distribution):
    """The Cauchy (Lorentz) distribution, density
    ``1 / (π scale (1 + ((x - loc) / scale)²))``. It has no mean or variance: those
    members raise ``ValueError`` (as in Paddle).

    >>> import weft
    >>> from weft.distribution import Cauchy
    >>> d = Cauchy(0.0, 1.0)
    >>> round(d.cdf(weft.to_tensor(1.0)).item(), 4), round(d.entropy().item(), 4)
    (0.75, 2.531)
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc, scale, name=None):
        self.name = name if name is not None else "Cauchy"
        self.loc, self.scale = _util.broadcast_all(loc, scale)
        self._dtype = self.loc._data.dtype
        super().__init__(tuple(self.loc.shape))

    @property
    def mean(self):
        raise ValueError("Cauchy distribution has no mean.")

    @property
    def variance(self):
        raise ValueError("Cauchy distribution has no variance.")

    @property
    def stddev(self):
        raise ValueError("Cauchy distribution has no stddev.")

    @property
    def mode(self):
        return self.loc

    def entropy(self):
        return (4.0 * math.pi * self.scale).log()

    def _std(self, shape, op):
        shape = self._extend_shape(_util.sample_shape_arg(shape, f"Cauchy.{op}"))
        with _util.Draw(self.loc) as gen:
            u = _util.open_uniform(gen, shape, self._dtype)
        xp = _util.xp_of(u)
        return _util.wrap(xp.tan(math.pi * (u - 0.5)))

    def sample(self, shape=(), name=None):
        """Draws of shape ``shape + batch_shape`` (no gradient)."""
        z = self._std(shape, "sample")._data
        z *= self.scale._data
        z += self.loc._data
        return _util.wrap(z)

    def rsample(self, shape=(), name=None):
        """``loc + scale · tan(π (u - ½))``; differentiable in both parameters."""
        return self.loc + self.scale * self._std(shape, "rsample")

    def log_prob(self, value):
        value = self._value(value)
        # log(1 + z²) from (x - loc, scale): z itself overflows for a tiny scale
        return -_util.log1p_square(value - self.loc, self.scale) - (self.scale.log() + _LOG_PI)

    def cdf(self, value):
        value = self._value(value, "cdf", check=False)
        # atan2(1, -z) / π: the same as ½ + atan(z)/π, without cancelling in the left tail
        z = (value - self.loc) / self.scale
        return ops.atan2(ops.ones_like(z), -z) / math.pi

    def icdf(self, value):
        q = self._validate_prob(self._value(value, "icdf", check=False))
        # tan(π(q - ½)) = -1/tan(πq), written so that each tail sees an exact argument
        lower = q < 0.5
        t = ops.where(lower, -1.0 / (math.pi * q).tan(), 1.0 / (math.pi * (1.0 - q)).tan())
        return self.loc + self.scale * t
