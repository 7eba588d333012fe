"""HalfNormal(scale) and HalfCauchy(scale): ``|X|`` for centred Normal / Cauchy X."""
from __future__ import annotations

import math

from .. import ops
from . import _util, constraints
from .distribution import Distribution

__all__ = ["HalfNormal", "HalfCauchy"]

_SQRT2 = math.sqrt(2.0)
_LOG_PI = math.log(math.pi)


class _Half(Distribution):
    arg_constraints = {"scale": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, scale):
        (self.scale,) = _util.to_tensors(scale)
        self._dtype = self.scale._data.dtype
        super().__init__(tuple(self.scale.shape))

    @property
    def mode(self):
        return ops.zeros_like(self.scale)

    def _std(self, gen, shape):
        """A standard draw of ``shape`` (normal, Cauchy ...) that ``rsample`` folds."""
        raise NotImplementedError(f"{type(self).__name__} must define _std, the standard "
                                  "draw that rsample folds to the half line")

    def rsample(self, shape=()):
        """``scale · |Z|`` for a standard draw ``Z``."""
        name = type(self).__name__
        shape = self._extend_shape(_util.sample_shape_arg(shape, f"{name}.rsample"))
        with _util.Draw(self.scale) as gen:
            z = self._std(gen, shape)
        return self.scale * _util.wrap(_util.xp_of(z).abs(z, out=z))

    def log_prob(self, value):
        value = self._value(value)
        return ops.where(value >= 0, self._log_density(value) - self.scale.log(),
                         float("-inf"))


class HalfNormal(_Half):
    """The half-normal distribution: ``|X|`` for ``X ~ Normal(0, scale)``.

    >>> import weft
    >>> from weft.distribution import HalfNormal
    >>> round(HalfNormal(1.0).mean.item(), 4)
    0.7979
    """

    def _std(self, gen, shape):
        return _util.std_normal(gen, shape, self._dtype)

    def _log_density(self, x):
        z = x / self.scale
        return -0.5 * z * z + (_util.LOG_2 - _util.HALF_LOG_2PI)

    @property
    def mean(self):
        return self.scale * math.sqrt(2.0 / math.pi)

    @property
    def variance(self):
        return self.scale * self.scale * (1.0 - 2.0 / math.pi)

    def entropy(self):
        # log σ + ½ log(π/2) + ½: σ² under/overflows float32 for extreme scales
        return self.scale.log() + (0.5 * math.log(0.5 * math.pi) + 0.5)

    def cdf(self, value):
        value = self._value(value, "cdf", check=False)
        return ops.erf(ops.clip(value, min=0.0) / (self.scale * _SQRT2))

    def icdf(self, value):
        q = self._validate_prob(self._value(value, "icdf", check=False))
        return self.scale * _SQRT2 * ops.erfinv(q)


class HalfCauchy(_Half):
    """The half-Cauchy distribution: ``|X|`` for ``X ~ Cauchy(0, scale)``; its mean and
    variance are infinite.

    >>> import weft
    >>> from weft.distribution import HalfCauchy
    >>> round(HalfCauchy(1.0).cdf(weft.to_tensor(1.0)).item(), 4)
    0.5
    """

    def _std(self, gen, shape):
        u = _util.open_uniform(gen, shape, self._dtype)
        xp = _util.xp_of(u)
        return xp.asarray(xp.tan(math.pi * (u - 0.5)))

    def _log_density(self, x):
        # from (x, scale): x/scale overflows float32 for a tiny scale
        return -_util.log1p_square(x, self.scale) + (_util.LOG_2 - _LOG_PI)

    @property
    def mean(self):
        return ops.full_like(self.scale, float("inf"))

    @property
    def variance(self):
        return ops.full_like(self.scale, float("inf"))

    def entropy(self):
        return (2.0 * math.pi * self.scale).log()

    def cdf(self, value):
        value = self._value(value, "cdf", check=False)
        return (2.0 / math.pi) * (ops.clip(value, min=0.0) / self.scale).atan()

    def icdf(self, value):
        q = self._validate_prob(self._value(value, "icdf", check=False))
        # tan(πq/2) = 1/tan(π(1-q)/2): above ½ the mirrored form sees the exact 1 - q
        # (tan(π/2) is 1.6e16, not inf, and float32 loses digits near q = 1)
        lower = q < 0.5
        t = ops.where(lower, (0.5 * math.pi * ops.where(lower, q, 0.25)).tan(),
                      1.0 / (0.5 * math.pi * (1.0 - ops.where(lower, 0.75, q))).tan())
        return self.scale * t
