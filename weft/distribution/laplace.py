"""Laplace(loc, scale)."""
from __future__ import annotations

import math

import numpy as np

from .. import ops
from . import _util, constraints
from .distribution import Distribution

__all__ = ["Laplace"]


class Laplace(Distribution):
    """The Laplace (double exponential) distribution, density
    ``exp(-|x - loc| / scale) / (2 scale)``.

    >>> import weft
    >>> from weft.distribution import Laplace
    >>> d = Laplace(0.0, 1.0)
    >>> [round(v, 4) for v in d.icdf(weft.to_tensor([0.5, 0.75])).tolist()]
    [0.0, 0.6931]
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc, scale):
        self.loc, self.scale = _util.broadcast_all(loc, scale)
        self._dtype = self.loc._data.dtype
        super().__init__(tuple(self.loc.shape))

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def stddev(self):
        return math.sqrt(2.0) * self.scale

    @property
    def variance(self):
        return 2.0 * self.scale * self.scale

    def entropy(self):
        return 1.0 + (2.0 * self.scale).log()

    def rsample(self, shape=()):
        """Inverse cdf at ``u ∈ (-1, 1)``: ``loc - scale · sign(u) · log1p(-|u|)``."""
        shape = self._extend_shape(_util.sample_shape_arg(shape, "Laplace.rsample"))
        with _util.Draw(self.loc) as gen:
            u = _util.std_uniform(gen, shape, self._dtype)
        xp = _util.xp_of(u)
        eps = np.finfo(u.dtype).eps
        u = xp.clip(2 * u - 1, eps - 1, 1)          # (-1, 1): the log stays finite
        e = _util.wrap(xp.sign(u) * xp.log1p(-xp.abs(u)))
        return self.loc - self.scale * e

    def log_prob(self, value):
        value = self._value(value)
        return -(value - self.loc).abs() / self.scale - (2.0 * self.scale).log()

    def cdf(self, value):
        value = self._value(value, "cdf", check=False)
        z = (value - self.loc) / self.scale
        half_tail = 0.5 * (-z.abs()).exp()          # exact in both tails
        return ops.where(z < 0, half_tail, 1.0 - half_tail)

    def icdf(self, value):
        q = self._validate_prob(self._value(value, "icdf", check=False))
        lower = q < 0.5
        # log(2q) below the median, -log(2(1-q)) above: 1 - q is exact there
        t = ops.where(lower, (2.0 * q).log(), -(2.0 * (1.0 - q)).log())
        return self.loc + self.scale * t
