"""Constraints: the sets parameters and values live in (PyTorch's names).

A constraint's ``check(value)`` returns a bool Tensor of the value's batch shape (the
value's shape less the constraint's ``event_dim`` rightmost dims). Distributions
declare ``arg_constraints`` and ``support`` with them; under
``weft.distribution.set_validate_args(True)`` parameters and values are checked
against them. ``biject_to`` / ``transform_to`` (in :mod:`weft.distribution.transform`)
map a constraint to a transform from unconstrained reals onto it.

>>> import weft
>>> from weft.distribution import constraints
>>> constraints.positive.check(weft.to_tensor([1.0, -1.0])).numpy().tolist()
[True, False]
>>> constraints.simplex.check(weft.to_tensor([[0.5, 0.5], [0.9, 0.3]])).numpy().tolist()
[True, False]
"""
from __future__ import annotations

import numpy as np

from .. import ops

__all__ = [
    "Constraint", "boolean", "cat", "corr_cholesky", "dependent", "dependent_property",
    "greater_than", "greater_than_eq", "half_open_interval", "independent",
    "integer_interval", "interval", "is_dependent", "less_than", "lower_cholesky",
    "lower_triangular", "multinomial", "nonnegative", "nonnegative_integer", "one_hot",
    "positive", "positive_definite", "positive_integer", "positive_semidefinite",
    "real", "real_vector", "simplex", "square", "stack", "symmetric", "unit_interval",
]


def _all_last(x, n):
    """``x`` (bool) reduced with all() over its ``n`` rightmost dims."""
    for _ in range(n):
        x = x.all(axis=-1)
    return x


class Constraint:
    """A region of a space. ``is_discrete`` marks integer-valued sets; ``event_dim``
    is the number of rightmost dims that together make one point."""

    is_discrete = False
    event_dim = 0

    def check(self, value):
        raise NotImplementedError(f"{type(self).__name__}.check is not implemented")

    def __repr__(self):
        return type(self).__name__.lstrip("_") + "()"


class _Dependent(Constraint):
    """A placeholder for a set that depends on other parameters; it cannot check."""

    def __init__(self, *, is_discrete=False, event_dim=0):
        self.is_discrete = is_discrete
        self.event_dim = event_dim

    def __call__(self, *, is_discrete=None, event_dim=None):
        return _Dependent(is_discrete=self.is_discrete if is_discrete is None else is_discrete,
                          event_dim=self.event_dim if event_dim is None else event_dim)

    def check(self, value):
        raise ValueError("a dependent constraint cannot be checked on its own")


def is_dependent(constraint):
    """Whether ``constraint`` is a (placeholder) dependent constraint."""
    return isinstance(constraint, _Dependent)


class dependent_property(property):
    """A property that is also a dependent constraint (for a ``support`` that depends on
    the parameters)."""

    def __init__(self, fget=None, *, is_discrete=False, event_dim=0):
        super().__init__(fget)
        self.is_discrete = is_discrete
        self.event_dim = event_dim

    def __call__(self, fget):
        return dependent_property(fget, is_discrete=self.is_discrete, event_dim=self.event_dim)


class _IndependentConstraint(Constraint):
    """``base`` with ``reinterpreted_batch_ndims`` more dims in one event."""

    def __init__(self, base_constraint, reinterpreted_batch_ndims):
        if not isinstance(base_constraint, Constraint):
            raise TypeError("independent: base_constraint must be a Constraint, got "
                            f"{type(base_constraint).__name__}")
        if int(reinterpreted_batch_ndims) < 0:
            raise ValueError("independent: reinterpreted_batch_ndims must be >= 0, got "
                             f"{reinterpreted_batch_ndims}")
        self.base_constraint = base_constraint
        self.reinterpreted_batch_ndims = int(reinterpreted_batch_ndims)

    @property
    def is_discrete(self):
        return self.base_constraint.is_discrete

    @property
    def event_dim(self):
        return self.base_constraint.event_dim + self.reinterpreted_batch_ndims

    def check(self, value):
        return _all_last(self.base_constraint.check(value), self.reinterpreted_batch_ndims)

    def __repr__(self):
        return f"Independent({self.base_constraint!r}, {self.reinterpreted_batch_ndims})"


class _Boolean(Constraint):
    is_discrete = True

    def check(self, value):
        return (value == 0) | (value == 1)


class _OneHot(Constraint):
    is_discrete = True
    event_dim = 1

    def check(self, value):
        binary = ((value == 0) | (value == 1)).all(axis=-1)
        return binary & (value.sum(axis=-1) == 1)


class _IntegerInterval(Constraint):
    is_discrete = True

    def __init__(self, lower_bound, upper_bound):
        self.lower_bound, self.upper_bound = lower_bound, upper_bound

    def check(self, value):
        return (value % 1 == 0) & (value >= self.lower_bound) & (value <= self.upper_bound)

    def __repr__(self):
        return f"IntegerInterval(lower_bound={self.lower_bound}, upper_bound={self.upper_bound})"


class _IntegerGreaterThan(Constraint):
    is_discrete = True

    def __init__(self, lower_bound):
        self.lower_bound = lower_bound

    def check(self, value):
        return (value % 1 == 0) & (value >= self.lower_bound)

    def __repr__(self):
        return f"IntegerGreaterThan(lower_bound={self.lower_bound})"


class _Real(Constraint):
    def check(self, value):
        return value == value  # False only for NaN


class _GreaterThan(Constraint):
    def __init__(self, lower_bound):
        self.lower_bound = lower_bound

    def check(self, value):
        return value > self.lower_bound

    def __repr__(self):
        return f"GreaterThan(lower_bound={self.lower_bound})"


class _GreaterThanEq(Constraint):
    def __init__(self, lower_bound):
        self.lower_bound = lower_bound

    def check(self, value):
        return value >= self.lower_bound

    def __repr__(self):
        return f"GreaterThanEq(lower_bound={self.lower_bound})"


class _LessThan(Constraint):
    def __init__(self, upper_bound):
        self.upper_bound = upper_bound

    def check(self, value):
        return value < self.upper_bound

    def __repr__(self):
        return f"LessThan(upper_bound={self.upper_bound})"


class _Interval(Constraint):
    def __init__(self, lower_bound, upper_bound):
        self.lower_bound, self.upper_bound = lower_bound, upper_bound

    def check(self, value):
        return (value >= self.lower_bound) & (value <= self.upper_bound)

    def __repr__(self):
        return f"Interval(lower_bound={self.lower_bound}, upper_bound={self.upper_bound})"


class _HalfOpenInterval(_Interval):
    def check(self, value):
        return (value >= self.lower_bound) & (value < self.upper_bound)

    def __repr__(self):
        return f"HalfOpenInterval(lower_bound={self.lower_bound}, upper_bound={self.upper_bound})"


class _Simplex(Constraint):
    event_dim = 1

    def check(self, value):
        tol = 1e-6 if value._data.dtype == np.float32 else 1e-10
        return (value >= 0).all(axis=-1) & ((value.sum(axis=-1) - 1).abs() < tol * 10)


class _Multinomial(Constraint):
    is_discrete = True
    event_dim = 1

    def __init__(self, upper_bound):
        self.upper_bound = upper_bound

    def check(self, value):
        return (value >= 0).all(axis=-1) & (value.sum(axis=-1) <= self.upper_bound)


class _Square(Constraint):
    event_dim = 2

    def check(self, value):
        s = value.shape
        return ops.full(s[:-2], s[-1] == s[-2], dtype="bool")


class _LowerTriangular(Constraint):
    event_dim = 2

    def check(self, value):
        return _all_last(ops.tril(value) == value, 2)


class _LowerCholesky(Constraint):
    event_dim = 2

    def check(self, value):
        lower = _all_last(ops.tril(value) == value, 2)
        return lower & (ops.diagonal(value, axis1=-2, axis2=-1) > 0).all(axis=-1)


class _CorrCholesky(Constraint):
    event_dim = 2

    def check(self, value):
        tol = 1e-5 if value._data.dtype == np.float32 else 1e-10
        row_norm = (value * value).sum(axis=-1).sqrt()
        unit = ((row_norm - 1).abs() <= tol * value.shape[-1]).all(axis=-1)
        return _LowerCholesky().check(value) & unit


class _Symmetric(_Square):
    def check(self, value):
        sq = super().check(value)
        if not bool(sq.all()):
            return sq
        t = ops.swapaxes(value, -1, -2)
        tol = 1e-6 if value._data.dtype == np.float32 else 1e-10
        close = ((value - t).abs() <= tol * (1 + value.abs()))
        return _all_last(close, 2)


class _PositiveDefinite(_Symmetric):
    """Symmetric with eigenvalues > 0 (``strict``) or >= 0."""

    def __init__(self, strict=True):
        self.strict = strict

    def check(self, value):
        sym = super().check(value)
        if not bool(sym.all()):
            return sym
        from ..linalg import eigvalsh
        ev = eigvalsh(value)
        return sym & ((ev > 0) if self.strict else (ev >= 0)).all(axis=-1)

    def __repr__(self):
        return "PositiveDefinite()" if self.strict else "PositiveSemidefinite()"


class _Pieces(Constraint):
    """A constraint made of the constraints ``cseq``, each on one piece of the value
    along ``dim`` (the pieces are cut and joined by the subclass)."""

    @property
    def is_discrete(self):
        return any(c.is_discrete for c in self.cseq)

    @property
    def event_dim(self):
        return max(c.event_dim for c in self.cseq)


class _Cat(_Pieces):
    """Constraints ``cseq`` applied to consecutive pieces (``lengths``) along ``dim``."""

    def __init__(self, cseq, dim=0, lengths=None):
        self.cseq = list(cseq)
        self.lengths = [1] * len(self.cseq) if lengths is None else list(lengths)
        if len(self.lengths) != len(self.cseq):
            raise ValueError("cat: lengths must have one entry per constraint")
        self.dim = dim

    def check(self, value):
        parts = ops.split(value, self.lengths, axis=self.dim)
        return ops.concat([c.check(p) for c, p in zip(self.cseq, parts)], axis=self.dim)


class _Stack(_Pieces):
    """Constraints ``cseq`` applied to the slices along ``dim``."""

    def __init__(self, cseq, dim=0):
        self.cseq = list(cseq)
        self.dim = dim

    def check(self, value):
        parts = ops.unbind(value, axis=self.dim)
        return ops.stack([c.check(p) for c, p in zip(self.cseq, parts)], axis=self.dim)


dependent = _Dependent()
independent = _IndependentConstraint
boolean = _Boolean()
one_hot = _OneHot()
nonnegative_integer = _IntegerGreaterThan(0)
positive_integer = _IntegerGreaterThan(1)
integer_interval = _IntegerInterval
real = _Real()
real_vector = _IndependentConstraint(real, 1)
positive = _GreaterThan(0.0)
nonnegative = _GreaterThanEq(0.0)
greater_than = _GreaterThan
greater_than_eq = _GreaterThanEq
less_than = _LessThan
multinomial = _Multinomial
unit_interval = _Interval(0.0, 1.0)
interval = _Interval
half_open_interval = _HalfOpenInterval
simplex = _Simplex()
lower_triangular = _LowerTriangular()
lower_cholesky = _LowerCholesky()
corr_cholesky = _CorrCholesky()
square = _Square()
symmetric = _Symmetric()
positive_semidefinite = _PositiveDefinite(strict=False)
positive_definite = _PositiveDefinite()
cat = _Cat
stack = _Stack
