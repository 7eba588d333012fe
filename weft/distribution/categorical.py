"""Categorical(logits), with Paddle's documented conventions."""
from __future__ import annotations

import numpy as np

from .. import ops
from . import _util, constraints
from .distribution import Distribution, _validating

__all__ = ["Categorical"]


class Categorical(Distribution):
    """A categorical distribution over ``{0, ..., K-1}`` (K = ``logits.shape[-1]``).

    Paddle's conventions are kept, and they differ by member:

    - ``sample``, ``entropy`` and ``kl_divergence`` use ``softmax(logits)``;
    - ``probs(value)``, ``prob(value)`` and ``log_prob(value)`` normalise the logits
      **by their sum** (``logits / logits.sum(-1)``, i.e. the logits are read as
      non-negative weights): ``Categorical([1., 3.]).probs([1])`` is 0.75.

    ``probs(value)`` indexing: for 1-D logits the result has ``value``'s shape; with a
    batch, a 1-D ``value`` of length V is used for every distribution (result
    ``batch + [V]``), and a ``value`` of 2 or more dims needs ``value.shape[:-1] ==
    batch``. ``mean``/``variance`` are NaN (categories are labels); ``mode`` is the
    argmax. :class:`OneHotCategorical` is the softmax-everywhere alternative.

    >>> import weft
    >>> from weft.distribution import Categorical
    >>> d = Categorical(weft.to_tensor([1.0, 3.0]))
    >>> d.probs(weft.to_tensor([1])).tolist(), round(d.entropy().item(), 3)
    ([0.75], 0.365)
    >>> d.sample([2, 3]).shape, d.sample([2, 3]).dtype
    ([2, 3], dtype('int64'))
    """

    arg_constraints = {"logits": constraints.real_vector}
    has_enumerate_support = True

    def __init__(self, logits, name=None):
        self.name = name if name is not None else "Categorical"
        (self.logits,) = _util.to_tensors(logits)
        if len(self.logits.shape) < 1:
            raise ValueError("Categorical: logits must have at least 1 dim (the categories), "
                             f"got shape {self.logits.shape}")
        self._dtype = self.logits._data.dtype
        self._num_events = self.logits.shape[-1]
        with np.errstate(invalid="ignore", divide="ignore"):   # all-zero weights: NaN
            self._prob = self.logits / self.logits.sum(axis=-1, keepdim=True)
        super().__init__(tuple(self.logits.shape[:-1]))

    @property
    def support(self):
        return constraints.integer_interval(0, self._num_events - 1)

    @property
    def mean(self):
        return ops.full(list(self.batch_shape), float("nan"), dtype=self._dtype)

    @property
    def variance(self):
        return ops.full(list(self.batch_shape), float("nan"), dtype=self._dtype)

    @property
    def mode(self):
        return self.logits.argmax(axis=-1)

    def sample(self, shape=()):
        """int64 draws from ``softmax(logits)``, shape ``shape + batch_shape``."""
        shape = _util.sample_shape_arg(shape, "Categorical.sample")
        probs = _util.softmax_weights(self.logits._data)
        with _util.Draw(self.logits) as gen:
            return _util.wrap(_util.categorical_indices(gen, probs, shape))

    def entropy(self):
        """``-Σ softmax(logits) · log_softmax(logits)`` (batch shape)."""
        logp = _util.log_softmax(self.logits, -1)
        return -(logp.exp() * logp).sum(axis=-1)

    def _index(self, value):
        value = _util.value_arg(value, np.dtype(np.int64), "Categorical.probs",
                                like=self.logits)
        if _validating():
            ok = (value >= 0) & (value < self._num_events)
            if not bool(ok.all()):
                raise ValueError(f"Categorical: value must be in [0, {self._num_events}), "
                                 "got values outside")
        prob = self._prob
        if len(prob.shape) == 1:
            return ops.gather(prob, value.reshape([-1]), axis=0).reshape(value.shape)
        batch = list(self.batch_shape)
        if len(value.shape) <= 1:
            idx = ops.broadcast_to(value.reshape([1] * len(batch) + [-1]),
                                   batch + [max(value.size, 1) if value.shape else 1])
            return ops.take_along_axis(prob, idx, axis=-1)
        if value.shape[:-1] != batch:
            raise ValueError(f"Categorical.probs: value.shape[:-1] must equal the batch shape "
                             f"{batch}, got value of shape {value.shape}")
        return ops.take_along_axis(prob, value, axis=-1)

    def probs(self, value):
        """Mass at ``value`` with the sum-normalised logits (see the class doc)."""
        return self._index(value)

    def prob(self, value):
        return self._index(value)

    def log_prob(self, value):
        return self._index(value).log()

    def enumerate_support(self, expand=True):
        return _util.enumerate_values(ops.arange(self._num_events, dtype="int64"),
                                      self.batch_shape, expand)

