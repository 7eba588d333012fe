"""Geometric(probs): failures before the first success."""
from __future__ import annotations

from .. import ops
from . import _util, constraints
from .distribution import Distribution

__all__ = ["Geometric"]


class Geometric(Distribution):
    """The number of failures before the first success of Bernoulli(``probs``)
    trials: mass ``(1 - p)^k p`` on ``k = 0, 1, 2, ...``; draws are floats.

    >>> import weft
    >>> from weft.distribution import Geometric
    >>> d = Geometric(0.5)
    >>> d.mean.item(), d.pmf(weft.to_tensor(2.0)).item(), d.cdf(weft.to_tensor(1.0)).item()
    (1.0, 0.125, 0.75)
    """

    arg_constraints = {"probs": constraints.half_open_interval(0.0, 1.0)}
    support = constraints.nonnegative_integer
    has_rsample = True

    def __init__(self, probs):
        (self.probs,) = _util.to_tensors(probs)
        self._dtype = self.probs._data.dtype
        super().__init__(tuple(self.probs.shape))

    def _check_extra(self):
        if not bool((self.probs > 0).all() & (self.probs <= 1).all()):
            raise ValueError("Geometric: parameter 'probs' must be in (0, 1]")

    # (1 - p)/p rather than 1/p - 1: near p = 1 the subtraction 1 - p is exact, the
    # other one cancels (1e-4 relative error at p = 1 - 1e-12)
    @property
    def mean(self):
        return (1.0 - self.probs) / self.probs

    @property
    def variance(self):
        return (1.0 - self.probs) / (self.probs * self.probs)

    @property
    def stddev(self):
        return self.variance.sqrt()

    @property
    def mode(self):
        return ops.zeros_like(self.probs)

    def entropy(self):
        # log(1 - p) as log1p(-p): 1 - p rounds for a small p (float32 gave -log p,
        # 1 nat short, at p = 1e-12)
        p = self.probs
        return -(ops.xlog1py(1.0 - p, -p) + ops.xlogy(p, p)) / p

    def _draw(self, shape, op):
        shape = self._extend_shape(_util.sample_shape_arg(shape, f"Geometric.{op}"))
        with _util.Draw(self.probs) as gen:
            u = _util.open_uniform(gen, shape, self._dtype)
        return _util.wrap(_util.xp_of(u).log(u))

    def sample(self, shape=()):
        """Float draws ``floor(log u / log1p(-p))``."""
        logu = self._draw(shape, "sample")._data
        xp = _util.xp_of(logu)
        logu /= xp.log1p(-self.probs._data)
        return _util.wrap(xp.floor(logu, out=logu))

    def rsample(self, shape=()):
        """``floor(log u / log1p(-p))``: piecewise constant in ``p``, so its gradient is
        zero almost everywhere."""
        return (self._draw(shape, "rsample") / (-self.probs).log1p()).floor()

    def log_pmf(self, k):
        """``k log(1 - p) + log p`` (``-inf`` off the non-negative integers)."""
        k = self._value(k, "log_pmf")
        lp = ops.xlog1py(k, -self.probs) + self.probs.log()
        ok = (k >= 0) & (k == k.floor())
        return ops.where(ok, lp, float("-inf"))

    def pmf(self, k):
        """``(1 - p)^k p``."""
        return self.log_pmf(k).exp()

    def log_prob(self, value):
        return self.log_pmf(value)

    def prob(self, value):
        return self.pmf(value)

    def cdf(self, value):
        """``1 - (1 - p)^(floor(k) + 1)`` for ``k >= 0``, else 0."""
        value = self._value(value, "cdf", check=False)
        k = ops.clip(value, min=-1.0).floor()
        return ops.where(value < 0, 0.0, -((k + 1) * (-self.probs).log1p()).expm1())

    def icdf(self, value):
        """Smallest ``k`` with ``cdf(k) >= q``: ``max(0, ceil(log1p(-q)/log1p(-p)) - 1)``."""
        q = self._validate_prob(self._value(value, "icdf", check=False))
        # p = 1 is a point mass at 0 (log1p(-q)/log1p(-p) would be -inf/-inf at q = 1)
        certain = self.probs == 1
        p = ops.where(certain, 0.5, self.probs)
        k = ((-q).log1p() / (-p).log1p()).ceil() - 1
        return ops.where(certain & (q <= 1), 0.0, ops.clip(k, min=0.0))
