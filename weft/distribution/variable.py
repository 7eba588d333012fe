"""Domain descriptors of transforms (Paddle's ``paddle.distribution.variable``): a set
of values with an event rank, backed by a constraint."""
from __future__ import annotations

from . import constraints

__all__ = ["Variable", "Real", "Positive", "Independent", "Stack", "real", "positive"]


class Variable:
    """A random-variable domain: ``is_discrete``, ``event_rank`` and a constraint."""

    def __init__(self, is_discrete=False, event_rank=0, constraint=None):
        self._is_discrete = is_discrete
        self._event_rank = event_rank
        self._constraint = constraint

    @property
    def is_discrete(self):
        return self._is_discrete

    @property
    def event_rank(self):
        return self._event_rank

    def constraint(self, value):
        """Whether ``value`` lies in the domain (a bool Tensor)."""
        return self._constraint.check(value)


class Real(Variable):
    """The reals, ``event_rank`` dims per point."""

    def __init__(self, event_rank=0):
        super().__init__(False, event_rank, constraints.real)


class Positive(Variable):
    """The positive reals."""

    def __init__(self, event_rank=0):
        super().__init__(False, event_rank, constraints.positive)


class Interval(Variable):
    """The interval ``[low, high]``."""

    def __init__(self, low, high, event_rank=0):
        super().__init__(False, event_rank, constraints.interval(low, high))


class Constrained(Variable):
    """The set of a constraint, with its event rank."""

    def __init__(self, constraint):
        super().__init__(constraint.is_discrete, constraint.event_dim, constraint)


class Independent(Variable):
    """``base`` with its ``reinterpreted_batch_rank`` rightmost batch dims made event
    dims."""

    def __init__(self, base, reinterpreted_batch_rank):
        self._base = base
        self._reinterpreted_batch_rank = reinterpreted_batch_rank
        super().__init__(base.is_discrete, base.event_rank + reinterpreted_batch_rank,
                         constraints.independent(base._constraint, reinterpreted_batch_rank))


class Stack(Variable):
    """Domains ``vars`` for the slices along ``axis``."""

    def __init__(self, vars, axis=0):
        self._vars = list(vars)
        self._axis = axis
        super().__init__(any(v.is_discrete for v in self._vars),
                         max(v.event_rank for v in self._vars),
                         constraints.stack([v._constraint for v in self._vars], axis))


real = Real()
positive = Positive()
