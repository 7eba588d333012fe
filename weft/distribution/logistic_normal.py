"""LogisticNormal(loc, scale): a Normal pushed onto the simplex by stick breaking."""
from __future__ import annotations

from .. import ops
from . import _util, constraints
from .normal import Normal
from .transform import StickBreakingTransform
from .transformed_distribution import TransformedDistribution

__all__ = ["LogisticNormal"]


class LogisticNormal(TransformedDistribution):
    """``StickBreakingTransform()(X)`` for ``X ~ Normal(loc, scale)`` with the last axis
    of the parameters as the event (K parameters give points of the (K+1)-simplex; 0-D
    parameters are read as K = 1).

    >>> import weft
    >>> from weft.distribution import LogisticNormal
    >>> d = LogisticNormal(weft.zeros([3]), weft.ones([3]))
    >>> d.event_shape, d.sample([2]).shape
    ((4,), [2, 4])
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, loc, scale):
        loc, scale = _util.broadcast_all(loc, scale)
        if not loc.shape:
            loc, scale = loc.reshape([1]), scale.reshape([1])
        self.loc, self.scale = loc, scale
        self._dtype = loc._data.dtype
        super().__init__(Normal(loc, scale), [StickBreakingTransform()])

    @property
    def _like(self):
        return self.loc

    def log_prob(self, value):
        value = self._value(value)
        inside = (value > 0).all(axis=-1)
        safe = ops.where(inside.unsqueeze(-1), value, 1.0 / value.shape[-1])
        return ops.where(inside, super().log_prob(safe), float("-inf"))
