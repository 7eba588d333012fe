"""VonMises(loc, concentration): the circular normal distribution."""
from __future__ import annotations

import math

from .. import ops
from ..ops._von_mises import von_mises_draw
from . import _util, constraints
from .distribution import Distribution

__all__ = ["VonMises"]

_LOG_2PI = math.log(2.0 * math.pi)


# 1 - I1(k)/I0(k) ~ x/2 + x²/8 + x³/8 + 25x⁴/128 + 13x⁵/32 + 1073x⁶/1024, x = 1/k (from
# the Hankel expansions of I0 and I1); from k = 1000 on, below float64 rounding
_RATIO_SERIES = (1 / 2, 1 / 8, 1 / 8, 25 / 128, 13 / 32, 1073 / 1024)
_SERIES_FROM = 1000.0


def _one_minus_ratio(k):
    """``1 - I1(k)/I0(k)`` (the circular variance): ``1 - i1e/i0e`` cancels for large k
    (float32 gave 0 from k = 1e7 on), so from k = 1000 the asymptotic series."""
    big = k >= _SERIES_FROM
    x = 1.0 / ops.where(big, k, _SERIES_FROM)
    acc = _RATIO_SERIES[-1]
    for c in reversed(_RATIO_SERIES[:-1]):
        acc = acc * x + c
    ks = ops.where(big, 1.0, k)
    return ops.where(big, acc * x, 1.0 - ops.i1e(ks) / ops.i0e(ks))


class VonMises(Distribution):
    """The von Mises distribution on the circle, density ``exp(κ cos(x - loc)) /
    (2π I0(κ))`` on ``[-π, π)``.

    Draws use Best and Fisher's rejection sampler; ``rsample`` is differentiable in
    ``loc`` (a shift) and in ``concentration`` by implicit reparameterisation, with the
    κ-derivative of the von Mises CDF (Fourier series for ``κ < 50``, Hill's
    corrected normal approximation above). ``variance`` is the circular variance
    ``1 - I1(κ)/I0(κ)``. Values outside ``[-π, π]`` have log-density ``-inf`` (under
    validation they raise ``ValueError``). ``cdf``/``icdf`` raise ``NotImplementedError`` (a circular law
    has no canonical cdf).

    >>> import weft
    >>> from weft.distribution import VonMises
    >>> d = VonMises(weft.to_tensor([0.0]), weft.to_tensor([2.0]))
    >>> round(d.log_prob(weft.to_tensor(0.0)).item(), 4), round(d.variance.item(), 4)
    (-0.6619, 0.3022)
    """

    arg_constraints = {"loc": constraints.real, "concentration": constraints.positive}
    support = constraints.interval(-math.pi, math.pi)
    has_rsample = True

    def __init__(self, loc, concentration):
        self.loc, self.concentration = _util.broadcast_all(loc, concentration)
        self._dtype = self.loc._data.dtype
        super().__init__(tuple(self.loc.shape))

    @property
    def mean(self):
        """The circular mean, ``loc``."""
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        """The circular variance ``1 - I1(κ)/I0(κ)``."""
        return _util.widened(_one_minus_ratio, self.concentration)

    def rsample(self, shape=()):
        shape = self._extend_shape(_util.sample_shape_arg(shape, "VonMises.rsample"))
        with _util.Draw(self.concentration) as gen:
            theta = von_mises_draw(self.concentration, shape, gen)
        # wrap loc + theta into [-pi, pi); the shift keeps d/dloc = 1
        x = theta + self.loc
        return x - (2.0 * math.pi) * ((x + math.pi) / (2.0 * math.pi)).floor().detach()

    def log_prob(self, value):
        value = self._value(value)
        k = self.concentration
        # log I0(k) = log i0e(k) + k, so the exponent k (cos - 1) never overflows; and
        # cos d - 1 = -2 sin²(d/2), which keeps its digits near the mode (in float32 cos d
        # is 1 for |d| < 3e-4, the spread of κ = 1e7, and log_prob lost κd²/2 ~ 0.5)
        half = (0.5 * (value - self.loc)).sin()
        lp = -2.0 * k * half * half - _LOG_2PI - ops.i0e(k).log()
        inside = (value >= -math.pi) & (value <= math.pi)
        return ops.where(inside, lp, float("-inf"))

    def entropy(self):
        k = self.concentration
        # k (1 - I1/I0) without its cancellation (~1/2 for large k)
        return _LOG_2PI + ops.i0e(k).log() + k * _util.widened(_one_minus_ratio, k)
