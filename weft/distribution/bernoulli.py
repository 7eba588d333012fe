"""Bernoulli(probs)."""
from __future__ import annotations

import numbers

import numpy as np

from .. import ops
from ..core.tensor import Tensor
from . import _util, constraints
from .exponential_family import ExponentialFamily

__all__ = ["Bernoulli"]


class Bernoulli(ExponentialFamily):
    """The Bernoulli distribution on {0, 1} with ``P(1) = probs``; ``logits`` is
    ``log(p) - log1p(-p)``. Draws are floats (0.0 / 1.0) in the parameter dtype.

    ``rsample(shape, temperature)`` is Paddle's relaxed draw, returned in **logit
    space**: ``(logit(p) + log u - log(1 - u)) / temperature`` (apply ``sigmoid`` to get
    a value in (0, 1)).

    >>> import weft
    >>> from weft.distribution import Bernoulli
    >>> d = Bernoulli(0.3)
    >>> round(d.log_prob(weft.to_tensor(1.0)).exp().item(), 4), round(d.variance.item(), 4)
    (0.3, 0.21)
    >>> d.cdf(weft.to_tensor([-1.0, 0.5, 1.0])).tolist()
    [0.0, 0.699999988079071, 1.0]
    """

    arg_constraints = {"probs": constraints.unit_interval}
    support = constraints.boolean
    has_rsample = True
    has_enumerate_support = True

    def __init__(self, probs, name=None):
        self.name = name if name is not None else "Bernoulli"
        (self.probs,) = _util.to_tensors(probs)
        self._dtype = self.probs._data.dtype
        self.logits = self._probs_to_logits(self.probs, is_binary=True)
        super().__init__(tuple(self.probs.shape))

    @property
    def mean(self):
        return self.probs

    @property
    def variance(self):
        return self.probs * (1 - self.probs)

    @property
    def mode(self):
        p = self.probs
        return ops.where(p > 0.5, 1.0, ops.where(p < 0.5, 0.0, float("nan"))).astype(self._dtype)

    def sample(self, shape=()):
        """0/1 draws (floats) of shape ``shape + batch_shape``."""
        shape = self._extend_shape(_util.sample_shape_arg(shape, "Bernoulli.sample"))
        with _util.Draw(self.probs) as gen:
            u = _util.std_uniform(gen, shape, self._dtype)
        return _util.wrap((u < self.probs._data).astype(self._dtype))

    def rsample(self, shape=(), temperature=1.0):
        """Relaxed (logistic) draw in logit space, divided by ``temperature`` (> 0)."""
        if isinstance(temperature, Tensor):
            bad = not bool((temperature > 0).all())
        elif isinstance(temperature, numbers.Real) and not isinstance(temperature, bool):
            bad = not temperature > 0
        else:
            raise TypeError("Bernoulli.rsample: temperature must be a positive float or "
                            f"Tensor, got {type(temperature).__name__}")
        if bad:
            raise ValueError(f"Bernoulli.rsample: temperature must be > 0, got {temperature}")
        shape = self._extend_shape(_util.sample_shape_arg(shape, "Bernoulli.rsample"))
        with _util.Draw(self.probs) as gen:
            u = _util.open_uniform(gen, shape, self._dtype)
        xp = _util.xp_of(u)
        noise = _util.wrap(xp.log(u) - xp.log1p(-u))
        return (self.logits + noise) / temperature

    def log_prob(self, value):
        value = self._value(value)
        # v log p + (1 - v) log1p(-p) from probs itself: the logits are clamped to
        # eps (Paddle's attribute), which put log_prob(1) at log(1.2e-7) for p = 1e-12
        # in float32; xlogy/xlog1py give log(0) only where that value is taken
        lp = ops.xlogy(value, self.probs) + ops.xlog1py(1.0 - value, -self.probs)
        return ops.where((value == 0) | (value == 1), lp, float("-inf"))

    def entropy(self):
        p = self.probs
        return -(ops.xlogy(p, p) + ops.xlog1py(1.0 - p, -p))

    def cdf(self, value):
        """0 below 0, ``1 - p`` on [0, 1), 1 from 1 on."""
        value = self._value(value, "cdf", check=False)
        return ops.where(value < 0, 0.0, ops.where(value < 1, 1 - self.probs, 1.0))

    def icdf(self, value):
        """0 where ``q <= 1 - p``, else 1."""
        q = self._validate_prob(self._value(value, "icdf", check=False))
        # compared as 1 - q >= p above ½, where 1 - q is exact (1 - p rounds to 1 for a
        # tiny p in float32, which sent icdf(1) to 0)
        p = self.probs
        zero = ops.where(q < 0.5, q <= 1 - p, 1 - q >= p)
        return ops.where(zero, 0.0, 1.0).astype(self._dtype)

    def enumerate_support(self, expand=True):
        return _util.enumerate_values(ops.to_tensor(np.array([0.0, 1.0], self._dtype)),
                                      self.batch_shape, expand)

    @property
    def _natural_parameters(self):
        return (self.logits,)

    def _log_normalizer(self, x):
        return _util.softplus(x)

    @property
    def _mean_carrier_measure(self):
        return 0.0
