"""Independent: reinterprets batch dims of a distribution as event dims."""
from __future__ import annotations

from . import _util, constraints
from .distribution import Distribution

__all__ = ["Independent"]


class Independent(Distribution):
    """``base`` with its ``reinterpreted_batch_rank`` rightmost batch dims made event
    dims: densities multiply (log-densities add) over them.

    >>> import weft
    >>> from weft.distribution import Independent, Normal
    >>> d = Independent(Normal(weft.zeros([2, 3]), 1.0), 1)
    >>> d.batch_shape, d.event_shape, d.log_prob(weft.zeros([2, 3])).shape
    ((2,), (3,), [2])
    """

    def __init__(self, base, reinterpreted_batch_rank):
        if not isinstance(base, Distribution):
            raise TypeError(f"Expected type of 'base' is Distribution, but got "
                            f"{type(base).__name__}")
        n = len(base.batch_shape)
        if not isinstance(reinterpreted_batch_rank, int) or isinstance(
                reinterpreted_batch_rank, bool) or not 0 < reinterpreted_batch_rank <= n:
            raise ValueError(f"Expected 0 < reinterpreted_batch_rank <= {n}, but got "
                             f"{reinterpreted_batch_rank}")
        self.base = base
        self._reinterpreted_batch_rank = reinterpreted_batch_rank
        self._dtype = getattr(base, "_dtype", None)
        cut = n - reinterpreted_batch_rank
        super().__init__(base.batch_shape[:cut],
                         tuple(base.batch_shape[cut:]) + tuple(base.event_shape))

    @property
    def reinterpreted_batch_rank(self):
        return self._reinterpreted_batch_rank

    @property
    def has_rsample(self):
        return self.base.has_rsample

    @property
    def support(self):
        s = self.base.support
        return None if s is None else constraints.independent(s, self._reinterpreted_batch_rank)

    @property
    def _like(self):
        return self.base._like

    @property
    def mean(self):
        return self.base.mean

    @property
    def variance(self):
        return self.base.variance

    @property
    def mode(self):
        return self.base.mode

    def sample(self, shape=()):
        return self.base.sample(shape)

    def rsample(self, shape=()):
        return self.base.rsample(shape)

    def log_prob(self, value):
        return _util.sum_rightmost(self.base.log_prob(value), self._reinterpreted_batch_rank)

    def entropy(self):
        return _util.sum_rightmost(self.base.entropy(), self._reinterpreted_batch_rank)

    def enumerate_support(self, expand=True):
        raise NotImplementedError("Independent.enumerate_support is not implemented "
                                  "(the support of several dims is a product set)")

    def expand(self, batch_shape):
        new_batch = self._expand_shape(batch_shape)
        r = self._reinterpreted_batch_rank
        base_batch = new_batch + tuple(self.base.batch_shape[len(self.base.batch_shape) - r:])
        return Independent(self.base.expand(base_batch), r)
