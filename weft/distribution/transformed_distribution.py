"""TransformedDistribution: a base distribution pushed through a chain of transforms."""
from __future__ import annotations

from collections.abc import Sequence

from . import _util
from .distribution import Distribution
from .independent import Independent
from .transform import (AffineTransform, ChainTransform, ExpTransform, PowerTransform,
                        SigmoidTransform, TanhTransform, Transform)

__all__ = ["TransformedDistribution"]


def _monotone_sign(t):
    """+1 / -1 for an increasing / decreasing scalar bijection, None otherwise."""
    if isinstance(t, (ExpTransform, SigmoidTransform, TanhTransform)):
        return 1
    if isinstance(t, AffineTransform):
        s = t.scale
        if bool((s > 0).all()):
            return 1
        if bool((s < 0).all()):
            return -1
        return None
    if isinstance(t, PowerTransform):
        return 1 if bool((t.power > 0).all()) else None
    if isinstance(t, ChainTransform):
        sign = 1
        for part in t.transforms:
            s = _monotone_sign(part)
            if s is None:
                return None
            sign *= s
        return sign
    return None


class TransformedDistribution(Distribution):
    """``Y = f(X)`` for ``X ~ base`` and ``f`` the chain ``transforms`` (applied in list
    order). ``log_prob(y) = base.log_prob(x) - Σ log|det J|`` at ``x = f⁻¹(y)``;
    ``cdf``/``icdf`` pass through monotone scalar chains.

    >>> import weft
    >>> from weft.distribution import AffineTransform, Normal, TransformedDistribution
    >>> d = TransformedDistribution(Normal(0.0, 1.0), [AffineTransform(1.0, 2.0)])
    >>> x = weft.to_tensor(0.5)
    >>> bool(abs(d.log_prob(x) - Normal(1.0, 2.0).log_prob(x)) < 1e-6)
    True
    """

    def __init__(self, base, transforms):
        if not isinstance(base, Distribution):
            raise TypeError(f"Expected type of 'base' is Distribution, but got "
                            f"{type(base).__name__}")
        if not isinstance(transforms, Sequence):
            raise TypeError(f"Expected type of 'transforms' is Sequence[Transform] or "
                            f"Chain, but got {type(transforms).__name__}")
        if not all(isinstance(t, Transform) for t in transforms):
            raise TypeError("All element of transforms must be Transform type.")
        self.transforms = list(transforms)
        chain = ChainTransform(self.transforms)
        base_shape = tuple(base.batch_shape) + tuple(base.event_shape)
        base_event = len(base.event_shape)
        if len(base_shape) < chain._domain.event_rank:
            raise ValueError(f"'base' needs to have shape with size at least "
                             f"{chain._domain.event_rank}, but got {len(base_shape)}.")
        forward_shape = chain.forward_shape(base_shape)
        expanded = chain.inverse_shape(forward_shape)
        if tuple(expanded) != base_shape:
            base = base.expand(expanded[:len(expanded) - base_event])
        extra = chain._domain.event_rank - base_event
        if extra > 0:
            base = Independent(base, extra)
        self.base = self.base_dist = base
        self._chain = chain
        change = chain._codomain.event_rank - chain._domain.event_rank
        event_rank = max(chain._codomain.event_rank, base_event + change)
        cut = len(forward_shape) - event_rank
        self._dtype = getattr(base, "_dtype", None)
        super().__init__(forward_shape[:cut], forward_shape[cut:])

    @property
    def has_rsample(self):
        return self.base.has_rsample

    @property
    def support(self):
        return self._chain._codomain._constraint if self.transforms else self.base.support

    @property
    def _like(self):
        return self.base._like

    def sample(self, shape=()):
        """Transformed draws of the base (no gradient)."""
        x = self.base.sample(shape)
        for t in self.transforms:
            x = t.forward(x)
        return x.detach()

    def rsample(self, shape=()):
        """Transformed reparameterised draws of the base."""
        x = self.base.rsample(shape)
        for t in self.transforms:
            x = t.forward(x)
        return x

    def log_prob(self, value):
        """``base.log_prob(f⁻¹(y)) - Σ log|det J_f|``, summed over the event dims."""
        y = self._value(value)
        event_rank = len(self.event_shape)
        lp = 0.0
        for t in reversed(self.transforms):
            x = t.inverse(y)
            event_rank += t._domain.event_rank - t._codomain.event_rank
            lp = lp - _util.sum_rightmost(t.forward_log_det_jacobian(x),
                                          event_rank - t._domain.event_rank)
            y = x
        return lp + _util.sum_rightmost(self.base.log_prob(y),
                                        event_rank - len(self.base.event_shape))

    def _monotone(self, op):
        sign = _monotone_sign(self._chain) if self.transforms else 1
        if sign is None or self.event_shape:
            raise NotImplementedError(
                f"TransformedDistribution.{op} needs a chain of monotone scalar bijections "
                "(Affine with one sign, Exp, Sigmoid, Tanh, Power > 0)")
        return sign

    def cdf(self, value):
        """``F_base(f⁻¹(y))`` for increasing chains, ``1 - F_base(f⁻¹(y))`` for
        decreasing ones."""
        sign = self._monotone("cdf")
        value = self._value(value, "cdf")
        f = self.base.cdf(self._chain.inverse(value))
        return f if sign > 0 else 1 - f

    def icdf(self, value):
        """``f(F_base⁻¹(q))`` (``q → 1 - q`` for decreasing chains)."""
        sign = self._monotone("icdf")
        q = self._validate_prob(self._value(value, "icdf", check=False))
        return self._chain.forward(self.base.icdf(q if sign > 0 else 1 - q))

    def expand(self, batch_shape):
        new_batch = self._expand_shape(batch_shape)
        base_batch = self._chain.inverse_shape(new_batch + tuple(self.event_shape))
        base_batch = base_batch[:len(base_batch) - len(self.base.event_shape)]
        new = self._expanded_copy(new_batch)
        TransformedDistribution.__init__(new, self.base.expand(base_batch), self.transforms)
        return new
