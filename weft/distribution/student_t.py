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
    incomplete beta and its inverse; they are differentiable in the value and every
    parameter (in ``df`` through the shape derivatives of ``weft.betainc``).

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
        """``1/2 ± I_y(1/2, df/2)/2`` with ``y = t²/(df + t²)`` where ``t² < df``, and
        ``1 - I_x(df/2, 1/2)/2`` for ``t > 0`` (``I_x/2`` for ``t < 0``) with ``x =
        df/(df + t²)`` beyond: each form where its argument is computed without the
        cancellation of ``1 - x`` (which would cost the small-``t`` gradients digits)."""
        value = self._value(value, "cdf", check=False)
        df = self.df
        t = (value - self.loc) / self.scale
        at0 = t == 0
        ts = ops.where(at0, ops.ones_like(t), t)
        t2 = ts * ts
        near = t2 < df
        half = ops.full_like(t2, 0.5)
        i = ops.betainc(ops.where(near, half, 0.5 * df), ops.where(near, 0.5 * df, half),
                        ops.where(near, t2, df) / (df + t2))
        far = ops.where(ts > 0, 1.0 - 0.5 * i, 0.5 * i)
        # at t = 0 the chain rule through I would be inf * 0 (I_y(1/2, df/2) is infinitely
        # steep at y = 0, where y(t) is flat); 1/2 + t f(0) is exact there in value, first
        # and second derivatives (f the standard t density, even)
        centre = 0.5 + t * self._log_density_at_0().exp()
        return ops.where(at0, centre, ops.where(near, 0.5 + 0.5 * ts.sign() * i, far))

    def icdf(self, value):
        """The inverse of :meth:`cdf`, by the same two forms: ``t² = df y/(1 - y)`` with
        ``y = I^-1(1/2, df/2; |2q - 1|)`` for ``q`` in ``(1/4, 3/4)``, ``t² = df (1 - x)/x``
        with ``x = I^-1(df/2, 1/2; 2 min(q, 1 - q))`` outside."""
        q = self._validate_prob(self._value(value, "icdf", check=False))
        df = self.df
        mid = q == 0.5
        qs = ops.where(mid, ops.full_like(q, 0.25), q)
        r = (2.0 * qs - 1.0).abs()
        near = r < 0.5
        half = ops.full_like(r, 0.5)
        u = ops.betaincinv(ops.where(near, half, 0.5 * df), ops.where(near, 0.5 * df, half),
                           ops.where(near, r, 1.0 - r))
        t = (df * ops.where(near, u / (1.0 - u), (1.0 - u) / u)).sqrt()
        # the median, where sqrt meets 0 (as in cdf): (q - 1/2) / f(0) there
        t = ops.where(mid, (q - 0.5) * (-self._log_density_at_0()).exp(),
                      ops.where(qs < 0.5, -t, t))
        return self.loc + self.scale * t

    def _log_density_at_0(self):
        df = self.df
        # f(0) = 1 / (sqrt(df) B(df/2, 1/2)), the normaliser log_prob uses
        return -ops.betaln(0.5 * df, ops.full_like(df, 0.5)) - 0.5 * df.log()

    def entropy(self):
        df = self.df
        h = 0.5 * (df + 1.0)
        return (h * _util.digamma_half_step(0.5 * df) + 0.5 * df.log()
                + ops.betaln(0.5 * df, ops.full_like(df, 0.5)) + self.scale.log())
