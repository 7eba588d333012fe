"""StudentT(df, loc, scale)."""
from __future__ import annotations

import math

from .. import ops
from . import _gamma_sampling, _util, constraints
from .distribution import Distribution

__all__ = ["StudentT"]



class StudentT(Distribution):
    """Student's t distribution with ``df`` degrees of freedom, location ``loc`` and
    scale ``scale``.

    ``mean`` is ``loc`` for ``df > 1`` and NaN otherwise; ``variance`` is
    ``scale² df/(df - 2)`` for ``df > 2``, ``inf`` for ``1 < df <= 2`` and NaN for
    ``df <= 1`` (Paddle's convention). ``rsample`` (**weft+**) is ``loc + scale Z
    sqrt(df/V)`` with ``V ~ χ²(df)`` drawn with implicit-reparameterisation gradients,
    so every parameter gets a gradient. ``cdf``/``icdf`` use the regularized
    incomplete beta; they are differentiable in the value, ``loc`` and ``scale`` (the
    derivative in ``df`` raises ``NotImplementedError``).

    >>> import weft
    >>> from weft.distribution import StudentT
    >>> d = StudentT(weft.to_tensor([1.0, 2.0, 3.0]), 0.0, 1.0)
    >>> d.variance.tolist()
    [nan, inf, 3.0]
    >>> round(StudentT(3.0, 0.0, 1.0).cdf(weft.to_tensor(1.0)).item(), 4)
    0.8045
    """

    arg_constraints = {"df": constraints.positive, "loc": constraints.real,
                       "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, df, loc, scale, name=None):
        self.name = name if name is not None else "StudentT"
        self.df, self.loc, self.scale = _util.broadcast_all(df, loc, scale)
        self._dtype = self.df._data.dtype
        super().__init__(tuple(self.df.shape))

    @property
    def mean(self):
        return ops.where(self.df > 1, self.loc, ops.full_like(self.loc, math.nan))

    @property
    def variance(self):
        df = self.df
        # df/(df - 2) only where df > 2, so no division by zero reaches the gradient
        safe = ops.where(df > 2, df, ops.full_like(df, 3.0))
        v = self.scale * self.scale * safe / (safe - 2.0)
        v = ops.where(df > 2, v, ops.full_like(v, math.inf))
        return ops.where(df > 1, v, ops.full_like(v, math.nan))

    @property
    def mode(self):
        return self.loc

    def rsample(self, shape=()):
        shape = self._extend_shape(_util.sample_shape_arg(shape, "StudentT.rsample"))
        with _util.Draw(self.df) as gen:
            z = _util.wrap(_util.std_normal(gen, shape, self._dtype))
        # V/df with V ~ chi2(df) = 2 Gamma(df/2): Gamma(df/2)/(df/2)
        half = 0.5 * self.df
        v = _gamma_sampling.gamma(half, shape, "StudentT.rsample") / half
        return self.loc + self.scale * z * v.rsqrt()

    def log_prob(self, value):
        value = self._value(value)
        df = self.df
        # log(1 + y²/df) from (x - loc, scale·√df): y² overflows for far values or a tiny
        # scale; lgamma((df+1)/2) - lgamma(df/2) - ½ log π = -betaln(df/2, ½), which
        # does not cancel for large df (the lgamma difference loses every float32 digit
        # at df = 1e6)
        log1p_y2 = _util.log1p_square(value - self.loc, self.scale * df.sqrt())
        return (-ops.betaln(0.5 * df, ops.full_like(df, 0.5)) - 0.5 * df.log()
                - self.scale.log() - 0.5 * (df + 1.0) * log1p_y2)

    def cdf(self, value):
        """``1 - I_x(df/2, 1/2)/2`` for ``t > 0`` (``I_x/2`` for ``t < 0``), ``x =
        df/(df + t²)``: the tail probability comes straight from the incomplete beta."""
        value = self._value(value, "cdf", check=False)
        t = (value - self.loc) / self.scale
        tail = 0.5 * ops.betainc(0.5 * self.df, ops.full_like(t, 0.5),
                                 self.df / (self.df + t * t))
        return ops.where(t > 0, 1.0 - tail, tail)

    def icdf(self, value):
        q = self._validate_prob(self._value(value, "icdf", check=False))
        lower = q < 0.5
        tail = ops.where(lower, q, 1.0 - q)
        x = ops.betaincinv(0.5 * self.df, ops.full_like(tail, 0.5), 2.0 * tail)
        t = (self.df * (1.0 - x) / x).sqrt()
        return self.loc + self.scale * ops.where(lower, -t, t)

    def entropy(self):
        df = self.df
        h = 0.5 * (df + 1.0)
        return (h * _util.digamma_half_step(0.5 * df) + 0.5 * df.log()
                + ops.betaln(0.5 * df, ops.full_like(df, 0.5)) + self.scale.log())
