"""Gumbel(loc, scale): the type-I extreme-value distribution."""
from __future__ import annotations

import math

import numpy as np

from .. import ops
from . import _util, constraints
from .transformed_distribution import TransformedDistribution
from .uniform import Uniform

__all__ = ["Gumbel"]


class Gumbel(TransformedDistribution):
    """The Gumbel distribution, cdf ``exp(-exp(-(x - loc) / scale))``.

    As in Paddle it is a :class:`TransformedDistribution` whose ``base_dist`` is a
    Uniform on ``(tiny, 1 - eps)`` (``transforms`` is empty); every member is computed
    in closed form.

    >>> import weft
    >>> from weft.distribution import Gumbel
    >>> d = Gumbel(0.0, 1.0)
    >>> round(d.mean.item(), 4), round(d.cdf(weft.to_tensor(0.0)).item(), 4)
    (0.5772, 0.3679)
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc, scale):
        self.loc, self.scale = _util.broadcast_all(loc, scale)
        self._dtype = d = self.loc._data.dtype
        fi = np.finfo(d)
        base = Uniform(ops.full_like(self.loc, float(fi.tiny)),
                       ops.full_like(self.loc, float(1 - fi.eps)))
        super().__init__(base, [])

    @property
    def _like(self):
        return self.loc

    @property
    def mean(self):
        return self.loc + _util.EULER * self.scale

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        return (math.pi ** 2 / 6.0) * self.scale * self.scale

    @property
    def stddev(self):
        return (math.pi / math.sqrt(6.0)) * self.scale

    def entropy(self):
        return self.scale.log() + (1.0 + _util.EULER)

    def rsample(self, shape=()):
        """``loc - scale · log(E)`` with ``E`` standard exponential (``E = -log U``)."""
        shape = self._extend_shape(_util.sample_shape_arg(shape, "Gumbel.rsample"))
        with _util.Draw(self.loc) as gen:
            e = _util.std_exponential(gen, shape, self._dtype)
        xp = _util.xp_of(e)
        tiny = np.finfo(e.dtype).tiny
        return self.loc - self.scale * _util.wrap(xp.log(xp.maximum(e, tiny, out=e), out=e))

    def sample(self, shape=()):
        return _no_grad_sample(self, shape)

    def log_prob(self, value):
        value = self._value(value)
        z = (value - self.loc) / self.scale
        return -(z + (-z).exp()) - self.scale.log()

    def cdf(self, value):
        value = self._value(value, "cdf", check=False)
        return (-(-(value - self.loc) / self.scale).exp()).exp()

    def icdf(self, value):
        q = self._validate_prob(self._value(value, "icdf", check=False))
        # log q as log1p(q - 1) near 1, where q - 1 is exact
        lower = q < 0.5
        log_q = ops.where(lower, ops.where(lower, q, 0.5).log(),
                          (ops.where(lower, 0.5, q) - 1.0).log1p())
        return self.loc - self.scale * (-log_q).log()


def _no_grad_sample(d, shape):
    from ..autograd import no_grad

    with no_grad():
        return d.rsample(shape).detach()
