"""Multinomial(total_count, probs)."""
from __future__ import annotations

import math

import numpy as np

from .. import ops
from . import _util, constraints
from .distribution import Distribution

__all__ = ["Multinomial"]


class Multinomial(Distribution):
    """Counts of ``total_count`` draws from the categories of ``probs`` (normalised on
    the last axis). Event shape ``probs.shape[-1:]``; draws are float counts.

    >>> import weft
    >>> from weft.distribution import Multinomial
    >>> d = Multinomial(4, weft.to_tensor([0.2, 0.3, 0.5]))
    >>> d.mean.tolist(), d.sample([2]).shape
    ([0.800000011920929, 1.2000000476837158, 2.0], [2, 3])
    >>> round(d.log_prob(weft.to_tensor([1.0, 1.0, 2.0])).exp().item(), 4)
    0.18
    """

    arg_constraints = {"probs": constraints.simplex}

    def __init__(self, total_count, probs):
        if not isinstance(total_count, (int, np.integer)) or isinstance(total_count, bool) \
                or total_count < 1:
            raise ValueError("input parameter total_count must be int type and grater than "
                             f"zero, got {total_count!r}")
        self.total_count = int(total_count)
        (probs,) = _util.to_tensors(probs)
        if len(probs.shape) < 1:
            raise ValueError("Multinomial: probs must have at least 1 dim (the categories), "
                             f"got shape {probs.shape}")
        self._dtype = probs._data.dtype
        self._raw = probs
        self.probs = probs / probs.sum(axis=-1, keepdim=True)
        super().__init__(tuple(probs.shape[:-1]), tuple(probs.shape[-1:]))

    def _check_parameters(self):
        if not bool((self._raw >= 0).all()):
            raise ValueError("Multinomial: parameter 'probs' must be non-negative")
        super()._check_parameters()

    @property
    def support(self):
        return constraints.multinomial(self.total_count)

    @property
    def mean(self):
        return self.total_count * self.probs

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, shape=()):
        """Float counts of shape ``shape + batch_shape + event_shape``."""
        lead = _util.sample_shape_arg(shape, "Multinomial.sample")
        out_shape = self._extend_shape(lead)
        p = self.probs._data.astype(np.float64)
        p = p / p.sum(axis=-1, keepdims=True)
        with _util.Draw(self.probs) as gen:
            if isinstance(gen, np.random.Generator):
                counts = gen.multinomial(self.total_count, p, size=out_shape[:-1])
            else:   # CuPy: n categorical draws per count vector, then counted
                k = p.shape[-1]
                idx = _util.categorical_indices(gen, p, (self.total_count,) + tuple(lead))
                xp = _util.xp_of(idx)
                counts = (idx[..., None] == xp.arange(k)).sum(axis=0)
        return _util.wrap(counts.astype(self._dtype))

    def log_prob(self, value):
        value = self._value(value)
        n = float(self.total_count)
        lp = (ops.xlogy(value, self.probs) - ops.lgamma(value + 1)).sum(axis=-1)
        lp = lp + _lgamma(n + 1)
        ok = ((value >= 0) & (value == value.floor())).all(axis=-1) & \
            (value.sum(axis=-1) == n)
        return ops.where(ok, lp, float("-inf"))

    def entropy(self):
        """Exact: ``n H(cat) - lgamma(n+1) + Σ_i Σ_k Binom(k; n, p_i) lgamma(k+1)``."""
        n = self.total_count
        k = ops.arange(n + 1, dtype=self._dtype).reshape([n + 1] + [1] * len(self.probs.shape))
        p = self.probs
        log_binom = (_lgamma(n + 1) - ops.lgamma(k + 1) - ops.lgamma(n - k + 1)
                     + ops.xlogy(k, p) + ops.xlog1py(n - k, -p))
        cat_entropy = -ops.xlogy(p, p).sum(axis=-1)
        return (n * cat_entropy - _lgamma(n + 1)
                + (log_binom.exp() * ops.lgamma(k + 1)).sum(axis=0).sum(axis=-1))


def _lgamma(x):
    return math.lgamma(x)
