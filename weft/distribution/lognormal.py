"""LogNormal(loc, scale): ``exp`` of a Normal."""
from __future__ import annotations

from .. import ops
from . import _util, constraints
from .normal import Normal
from .transform import ExpTransform
from .transformed_distribution import TransformedDistribution

__all__ = ["LogNormal"]


class LogNormal(TransformedDistribution):
    """``exp(X)`` for ``X ~ Normal(loc, scale)``: a
    ``TransformedDistribution(Normal(loc, scale), [ExpTransform()])``.

    >>> import weft
    >>> from weft.distribution import LogNormal
    >>> d = LogNormal(0.0, 1.0)
    >>> round(d.mean.item(), 4), round(d.cdf(weft.to_tensor(1.0)).item(), 4)
    (1.6487, 0.5)
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, loc, scale):
        self.loc, self.scale = _util.broadcast_all(loc, scale)
        self._dtype = self.loc._data.dtype
        super().__init__(Normal(self.loc, self.scale), [ExpTransform()])

    @property
    def _like(self):
        return self.loc

    @property
    def mean(self):
        return (self.loc + 0.5 * self.scale * self.scale).exp()

    @property
    def mode(self):
        return (self.loc - self.scale * self.scale).exp()

    @property
    def variance(self):
        # exp(2μ + 2σ² + log(-expm1(-σ²))) in one exponential: the product of
        # expm1(σ²) and exp(2μ + σ²) is inf·0 = NaN once each factor leaves the range
        # (float32 at μ = -700, σ = 30, whose variance e^400 only overflows by itself)
        s2 = self.scale * self.scale
        return (2.0 * (self.loc + s2) + (-(-s2).expm1()).log()).exp()

    def entropy(self):
        return self.base.entropy() + self.loc

    def probs(self, value):
        """The density at ``value`` (Paddle's name; same as :meth:`prob`)."""
        return self.prob(value)

    def log_prob(self, value):
        value = self._value(value)
        pos = value > 0
        x = ops.where(pos, value, 1.0).log()
        return ops.where(pos, self.base.log_prob(x) - x, float("-inf"))
