"""OneHotCategorical(probs=None, logits=None)."""
from __future__ import annotations

import numpy as np

from .. import ops
from . import _util, constraints
from .distribution import Distribution

__all__ = ["OneHotCategorical"]


def probs_or_logits(probs, logits, op):
    """Exactly one of ``probs``/``logits``; returns ``(probs, logits)`` normalised on the
    last axis (logits as log-probabilities, clamped to the dtype's finite range)."""
    if (probs is None) == (logits is None):
        raise ValueError(f"{op}: exactly one of probs or logits must be given")
    if probs is not None:
        (raw,) = _util.to_tensors(probs)
        if len(raw.shape) < 1:
            raise ValueError(f"{op}: probs must have at least 1 dim, got shape {raw.shape}")
        p = raw / raw.sum(axis=-1, keepdim=True)
        lo = float(np.finfo(p._data.dtype).min)
        with np.errstate(divide="ignore", invalid="ignore"):   # zero weights: -inf, clipped
            return raw, p, ops.clip(p.log(), min=lo)
    (raw,) = _util.to_tensors(logits)
    if len(raw.shape) < 1:
        raise ValueError(f"{op}: logits must have at least 1 dim, got shape {raw.shape}")
    lg = _util.log_softmax(raw, -1)
    return raw, lg.exp(), lg


class OneHotCategorical(Distribution):
    """A categorical distribution whose draws are one-hot vectors (event shape
    ``(K,)``), with softmax semantics everywhere (``probs`` normalised, ``logits`` as
    unnormalised log-probabilities).

    >>> import weft
    >>> from weft.distribution import OneHotCategorical
    >>> d = OneHotCategorical(probs=weft.to_tensor([0.25, 0.75]))
    >>> d.sample([3]).shape, round(d.log_prob(weft.to_tensor([0.0, 1.0])).exp().item(), 4)
    ([3, 2], 0.75)
    """

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.one_hot
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None):
        self._raw, self.probs, self.logits = probs_or_logits(probs, logits,
                                                             "OneHotCategorical")
        self._dtype = self.probs._data.dtype
        self._probs_given = probs is not None
        shape = self.probs.shape
        super().__init__(tuple(shape[:-1]), tuple(shape[-1:]))

    def _check_parameters(self):
        if self._probs_given and not bool((self._raw >= 0).all()):
            raise ValueError("OneHotCategorical: parameter 'probs' must be non-negative")
        super()._check_parameters()

    @property
    def mean(self):
        return self.probs

    @property
    def variance(self):
        return self.probs * (1 - self.probs)

    @property
    def mode(self):
        k = self.event_shape[0]
        idx = self.probs.argmax(axis=-1, keepdim=True)
        return (idx == ops.arange(k, dtype="int64")).astype(self._dtype)

    def sample(self, shape=()):
        """One-hot float draws of shape ``shape + batch_shape + (K,)``."""
        lead = _util.sample_shape_arg(shape, "OneHotCategorical.sample")
        k = self.event_shape[0]
        with _util.Draw(self.probs) as gen:
            idx = _util.categorical_indices(gen, self.probs._data, lead)
        xp = _util.xp_of(idx)
        return _util.wrap((idx[..., None] == xp.arange(k)).astype(self._dtype))

    def log_prob(self, value):
        value = self._value(value)
        lp = (value * self.logits).sum(axis=-1)
        return ops.where(constraints.one_hot.check(value), lp, float("-inf"))

    def entropy(self):
        return -(self.probs * self.logits).sum(axis=-1)

    def enumerate_support(self, expand=True):
        k = self.event_shape[0]
        return _util.enumerate_values(ops.eye(k, dtype=self._dtype), self.batch_shape, expand)
