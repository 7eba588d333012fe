"""StudentT(df, loc, scale)."""
from __future__ import annotations

import math

from .. import ops
from . import _gamma_sampling, _util, constraints
from .beta import host_any, ibeta_both, ibeta_quantile_logs
from .distribution import Distribution
from .fisher_snedecor import log_ratio

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
        """``T²`` is F(1, df): ``cdf(t) = 1/2 ± F-mass(t²)/2``, with both tail masses
        of the incomplete beta formed from ``log t² - log df`` (:func:`beta.ibeta_both`):
        ``t²`` itself overflowed (float32 at ``|t| > 2e19``: cdf 0 where the truth is
        3e-21), and the lower tail of a large ``df`` is the complementary mass, not
        1 minus a value that rounds to 1. float32 runs in float64 (its incomplete beta
        was 4% off at df = 1e6)."""
        value = self._value(value, "cdf", check=False)
        return _util.widened(_cdf, value, self.df, self.loc, self.scale)

    def icdf(self, value):
        """The inverse of :meth:`cdf` through the same F(1, df) masses
        (:func:`beta.ibeta_quantile_logs`, in logs: ``icdf(1e-300)`` at df = 1 is
        -3.2e299, whose ``1/(1 + t²/df)`` is 1e-599)."""
        q = self._validate_prob(self._value(value, "icdf", check=False))
        return _util.widened(_icdf, q, self.df, self.loc, self.scale)

    def _log_density_at_0(self):
        return _log_density_at_0(self.df)

    def entropy(self):
        df = self.df
        h = 0.5 * (df + 1.0)
        return (h * _util.digamma_half_step(0.5 * df) + 0.5 * df.log()
                + ops.betaln(0.5 * df, ops.full_like(df, 0.5)) + self.scale.log())


def _log_density_at_0(df):
    # f(0) = 1 / (sqrt(df) B(df/2, 1/2)), the normaliser log_prob uses
    return -ops.betaln(0.5 * df, ops.full_like(df, 0.5)) - 0.5 * df.log()


def _cdf(value, df, loc, scale):
    d = value - loc
    at0 = d == 0
    some0 = host_any(at0)
    ds = ops.where(at0, ops.ones_like(d), d) if some0 else d
    # log t² - log df from |x - loc| and scale: neither t nor t² is formed
    log_w = 2.0 * (ds.abs().log() - scale.log()) - df.log()
    below, above = ibeta_both(ops.full_like(df, 0.5), 0.5 * df, *log_ratio(log_w))
    tails = ops.where(ds > 0, 0.5 + 0.5 * below, 0.5 * above)
    if not some0:
        return tails
    # at t = 0 the chain rule through I would be inf * 0 (I_y(1/2, df/2) is infinitely
    # steep at y = 0, where y(t) is flat); 1/2 + t f(0) is exact there in value, first
    # and second derivatives (f the standard t density, even)
    centre = 0.5 + d / scale * _log_density_at_0(df).exp()
    return ops.where(at0, centre, tails)


def _icdf(q, df, loc, scale):
    mid = q == 0.5
    qs = ops.where(mid, ops.full_like(q, 0.25), q)
    # the two-sided tail 2 min(q, 1 - q) is exact; |2q - 1| rounds only where it is
    # near 1, i.e. where the tail is the one inverted
    tail = 2.0 * ops.minimum(qs, 1.0 - qs)
    log_y, log_x = ibeta_quantile_logs(ops.full_like(df, 0.5), 0.5 * df,
                                       (2.0 * qs - 1.0).abs(), tail)
    t = (0.5 * (df.log() + log_y - log_x)).exp()
    # the median, where sqrt meets 0 (as in cdf): (q - 1/2) / f(0) there
    t = ops.where(mid, (q - 0.5) * (-_log_density_at_0(df)).exp(),
                  ops.where(qs < 0.5, -t, t))
    return loc + scale * t
