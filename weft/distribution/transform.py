"""Bijective (and a few non-bijective) transforms of random variables.

A :class:`Transform` maps ``x`` to ``y = forward(x)``; ``inverse`` maps back and
``forward_log_det_jacobian(x)`` is ``log |det dy/dx|`` summed over the transform's
own event dims (the domain's ``event_rank``). Subclasses implement the private hooks
``_forward``, ``_inverse`` and one of ``_forward_log_det_jacobian`` /
``_inverse_log_det_jacobian`` (the other is derived), and ``_forward_shape`` /
``_inverse_shape`` when they change shapes. ``t(x)`` applies ``t`` to a Tensor, wraps
a Distribution in a :class:`TransformedDistribution`, and chains with another
Transform (``t`` applied first).

>>> import weft
>>> from weft.distribution import AffineTransform, ExpTransform
>>> t = AffineTransform(0.0, 2.0)(ExpTransform())   # Affine first, then Exp
>>> x = weft.to_tensor(1.0)
>>> round(t.forward(x).item(), 4), round(t.forward_log_det_jacobian(x).item(), 4)
(7.3891, 2.6931)
"""
from __future__ import annotations

import enum
import math
import numbers
from collections.abc import Sequence

import numpy as np

from .. import ops
from ..core.tensor import Tensor
from . import _util, constraints, variable

__all__ = [
    "Type", "Transform", "AbsTransform", "AffineTransform", "ChainTransform", "ExpTransform",
    "IndependentTransform", "PowerTransform", "ReshapeTransform", "SigmoidTransform",
    "SoftmaxTransform", "StackTransform", "StickBreakingTransform", "TanhTransform",
    "SoftplusTransform", "CumulativeDistributionTransform", "CatTransform",
    "LowerCholeskyTransform", "CorrCholeskyTransform", "PositiveDefiniteTransform",
    "identity_transform", "biject_to", "transform_to",
]


class Type(enum.Enum):
    """How a transform maps its domain: one-to-one and onto (BIJECTION), one-to-one
    (INJECTION), onto (SURJECTION) or neither (OTHER)."""

    BIJECTION = "bijection"
    INJECTION = "injection"
    SURJECTION = "surjection"
    OTHER = "other"

    @classmethod
    def is_injective(cls, _type):
        return _type in (cls.BIJECTION, cls.INJECTION)


def _combined_type(parts):
    if all(t._type == Type.BIJECTION for t in parts):
        return Type.BIJECTION
    if all(Type.is_injective(t._type) for t in parts):
        return Type.INJECTION
    return Type.OTHER


def _tensor(x, op):
    if isinstance(x, Tensor):
        return x
    try:
        return _util.as_tensor(x, _util.float_dtype_of([x]))
    except TypeError:
        raise TypeError(f"{op}: expected a Tensor, got {type(x).__name__}") from None


def _scalar_params(op, **values):
    """Transform parameters as Tensors. Python numbers are kept in float64 and cast to
    each input's dtype when used (``_like``), so ``AffineTransform(1.0, 0.1)`` is exact
    for float64 inputs and does not promote float32 ones."""
    out = []
    for arg, v in values.items():
        if not isinstance(v, (Tensor, numbers.Real, np.ndarray)) or isinstance(v, bool):
            raise TypeError(f"Expected '{arg}' is a Tensor, got {type(v).__name__}")
        out.append(v)
    python = not any(isinstance(v, (Tensor, np.ndarray)) for v in out)
    dtype = np.float64 if python else None
    return python, _util.to_tensors(*out, dtype=dtype)


def _like(param, x, python):
    if python and x._data.dtype.kind == "f" and param._data.dtype != x._data.dtype:
        return param.astype(x._data.dtype)
    return param


def _shape_tuple(shape, op):
    if not isinstance(shape, Sequence) and not isinstance(shape, Tensor):
        raise TypeError(f"{op}: shape must be a sequence of ints, got {type(shape).__name__}")
    return tuple(int(s) for s in (shape.tolist() if isinstance(shape, Tensor) else shape))


class Transform:
    """Base class of transforms. ``Transform()`` itself implements nothing: its
    ``forward`` raises ``NotImplementedError("Forward not implemented")``."""

    _type = Type.INJECTION

    def __init__(self):
        pass

    def _is_injective(self):
        return Type.is_injective(self._type)

    def __call__(self, input):
        from .distribution import Distribution
        from .transformed_distribution import TransformedDistribution

        if isinstance(input, Distribution):
            return TransformedDistribution(input, [self])
        if isinstance(input, Transform):
            return ChainTransform([self, input])
        return self.forward(input)

    # public protocol -------------------------------------------------------------
    def forward(self, x):
        """``y = f(x)``."""
        return self._forward(_tensor(x, f"{type(self).__name__}.forward"))

    def inverse(self, y):
        """``x = f⁻¹(y)``."""
        return self._inverse(_tensor(y, f"{type(self).__name__}.inverse"))

    def _overrides(self, name):
        return getattr(type(self), name) is not getattr(Transform, name)

    def forward_log_det_jacobian(self, x):
        """``log |det J_f(x)|`` (summed over the domain's event dims)."""
        x = _tensor(x, f"{type(self).__name__}.forward_log_det_jacobian")
        if not Type.is_injective(self._type):
            raise NotImplementedError("forward_log_det_jacobian can't be implemented for "
                                      "non-injective transforms.")
        if self._overrides("_forward_log_det_jacobian"):
            return self._forward_log_det_jacobian(x)
        if self._overrides("_inverse_log_det_jacobian"):
            return -self._inverse_log_det_jacobian(self._forward(x))
        raise NotImplementedError(f"{type(self).__name__}: neither _forward_log_det_jacobian "
                                  "nor _inverse_log_det_jacobian is implemented")

    def inverse_log_det_jacobian(self, y):
        """``log |det J_{f⁻¹}(y)|`` = ``-forward_log_det_jacobian(inverse(y))``."""
        y = _tensor(y, f"{type(self).__name__}.inverse_log_det_jacobian")
        if self._overrides("_inverse_log_det_jacobian"):
            return self._inverse_log_det_jacobian(y)
        if not Type.is_injective(self._type):
            raise NotImplementedError("inverse_log_det_jacobian can't be implemented for "
                                      "non-injective transforms.")
        if self._overrides("_forward_log_det_jacobian"):
            return -self._forward_log_det_jacobian(self._inverse(y))
        raise NotImplementedError(f"{type(self).__name__}: neither _forward_log_det_jacobian "
                                  "nor _inverse_log_det_jacobian is implemented")

    def forward_shape(self, shape):
        """The shape of ``forward(x)`` for ``x`` of shape ``shape``."""
        return self._forward_shape(_shape_tuple(shape, f"{type(self).__name__}.forward_shape"))

    def inverse_shape(self, shape):
        """The shape of ``inverse(y)`` for ``y`` of shape ``shape``."""
        return self._inverse_shape(_shape_tuple(shape, f"{type(self).__name__}.inverse_shape"))

    @property
    def _domain(self):
        return variable.real

    @property
    def _codomain(self):
        return variable.real

    # hooks ------------------------------------------------------------------------
    def _forward(self, x):
        raise NotImplementedError("Forward not implemented")

    def _inverse(self, y):
        raise NotImplementedError("Inverse not implemented")

    def _forward_log_det_jacobian(self, x):
        raise NotImplementedError("Forward log det jacobian not implemented")

    def _inverse_log_det_jacobian(self, y):
        raise NotImplementedError("Inverse log det jacobian not implemented")

    def _forward_shape(self, shape):
        return shape

    def _inverse_shape(self, shape):
        return shape

    def __repr__(self):
        return f"{type(self).__name__}()"


# ----------------------------------------------------------------------------------
# elementwise transforms

class AbsTransform(Transform):
    """``y = |x|``; not injective: ``inverse(y)`` is the pair ``(-y, y)`` and
    ``inverse_log_det_jacobian(y)`` the pair ``(0, 0)``."""

    _type = Type.SURJECTION

    def _forward(self, x):
        return x.abs()

    def _inverse(self, y):
        return -y, y

    def _inverse_log_det_jacobian(self, y):
        zero = ops.zeros([], dtype=y.dtype)
        return zero, zero

    @property
    def _codomain(self):
        return variable.positive


class AffineTransform(Transform):
    """``y = loc + scale * x``; ``log|scale|`` broadcast to ``x``'s shape."""

    _type = Type.BIJECTION

    def __init__(self, loc, scale):
        self._python, (self._loc, self._scale) = _scalar_params("AffineTransform", loc=loc,
                                                                scale=scale)
        super().__init__()

    @property
    def loc(self):
        return self._loc

    @property
    def scale(self):
        return self._scale

    def _forward(self, x):
        return _like(self._loc, x, self._python) + _like(self._scale, x, self._python) * x

    def _inverse(self, y):
        return (y - _like(self._loc, y, self._python)) / _like(self._scale, y, self._python)

    def _forward_log_det_jacobian(self, x):
        s = _like(self._scale, x, self._python).abs().log()
        shape = _util.broadcast_shape(x.shape, s.shape)
        return s if s.shape == shape else ops.broadcast_to(s, shape)

    def _forward_shape(self, shape):
        return tuple(np.broadcast_shapes(shape, tuple(self._loc.shape), tuple(self._scale.shape)))

    def _inverse_shape(self, shape):
        return self._forward_shape(shape)


class ExpTransform(Transform):
    """``y = exp(x)``, ``log y``, log-det ``x``."""

    _type = Type.BIJECTION

    def _forward(self, x):
        return x.exp()

    def _inverse(self, y):
        return y.log()

    def _forward_log_det_jacobian(self, x):
        return x

    @property
    def _codomain(self):
        return variable.positive


class PowerTransform(Transform):
    """``y = x ** power`` on the positive reals; log-det ``log|power x^(power-1)|``."""

    _type = Type.BIJECTION

    def __init__(self, power):
        self._python, (self._power,) = _scalar_params("PowerTransform", power=power)
        super().__init__()

    @property
    def power(self):
        return self._power

    def _forward(self, x):
        return x.pow(_like(self._power, x, self._python))

    def _inverse(self, y):
        return y.pow(1 / _like(self._power, y, self._python))

    def _forward_log_det_jacobian(self, x):
        p = _like(self._power, x, self._python)
        return (p * x.pow(p - 1)).abs().log()

    def _forward_shape(self, shape):
        return tuple(np.broadcast_shapes(shape, tuple(self._power.shape)))

    def _inverse_shape(self, shape):
        return self._forward_shape(shape)

    @property
    def _domain(self):
        return variable.positive

    @property
    def _codomain(self):
        return variable.positive


class SigmoidTransform(Transform):
    """``y = 1 / (1 + e^-x)``, inverse ``logit(y)``; log-det
    ``-softplus(-x) - softplus(x)``. (Paddle reports the type INJECTION; kept.)"""

    def _forward(self, x):
        return ops.sigmoid(x)

    def _inverse(self, y):
        return y.log() - (-y).log1p()

    def _forward_log_det_jacobian(self, x):
        return -_util.softplus(-x) - _util.softplus(x)

    @property
    def _codomain(self):
        return variable.Interval(0.0, 1.0)


class TanhTransform(Transform):
    """``y = tanh(x)``, ``atanh(y)``; log-det ``2 (log 2 - x - softplus(-2x))``."""

    _type = Type.BIJECTION

    def _forward(self, x):
        return x.tanh()

    def _inverse(self, y):
        return y.atanh()

    def _forward_log_det_jacobian(self, x):
        return 2.0 * (_util.LOG_2 - x - _util.softplus(-2.0 * x))

    @property
    def _codomain(self):
        return variable.Interval(-1.0, 1.0)


class SoftplusTransform(Transform):
    """``y = log(1 + e^x)``, ``x = y + log(-expm1(-y))``; log-det ``-softplus(-x)``."""

    _type = Type.BIJECTION

    def _forward(self, x):
        return _util.softplus(x)

    def _inverse(self, y):
        return y + (-(-y).expm1()).log()

    def _forward_log_det_jacobian(self, x):
        return -_util.softplus(-x)

    @property
    def _codomain(self):
        return variable.positive


# ----------------------------------------------------------------------------------
# vector transforms

class SoftmaxTransform(Transform):
    """``y = exp(x)`` normalised over the last axis; ``inverse(y) = log(y)`` (one
    representative: the map is not injective, so it has no log-det)."""

    _type = Type.OTHER

    def _forward(self, x):
        return _util.softmax(x, -1)

    def _inverse(self, y):
        return y.log()

    def _forward_shape(self, shape):
        if len(shape) < 1:
            raise ValueError(f"SoftmaxTransform: the shape must have at least 1 dim, got {shape}")
        return shape

    _inverse_shape = _forward_shape

    @property
    def _domain(self):
        return variable.Independent(variable.real, 1)

    @property
    def _codomain(self):
        return variable.Constrained(constraints.simplex)


def _arange_like(n, like):
    return ops.arange(1, n + 1, dtype=like.dtype)


class StickBreakingTransform(Transform):
    """ℝᴷ → the (K+1)-simplex by stick breaking (and back)."""

    _type = Type.BIJECTION

    def _forward(self, x):
        k = x.shape[-1]
        offset = (k + 1) - _arange_like(k, x)          # K, K-1, ..., 1
        z = ops.sigmoid(x - offset.log())
        rest = (1 - z).cumprod(-1)
        ones = ops.ones(x.shape[:-1] + [1], dtype=x.dtype)
        return ops.concat([z, ones], -1) * ops.concat([ones, rest], -1)

    def _inverse(self, y):
        k = y.shape[-1] - 1
        y_crop = y[..., :-1]
        offset = (k + 1) - _arange_like(k, y)
        tiny = float(np.finfo(y._data.dtype).tiny)
        sf = ops.clip(1 - y_crop.cumsum(-1), min=tiny)
        return y_crop.log() - sf.log() + offset.log()

    def _forward_log_det_jacobian(self, x):
        y = self._forward(x)
        k = x.shape[-1]
        offset = (k + 1) - _arange_like(k, x)
        x = x - offset.log()
        return (-x + _util.log_sigmoid(x) + y[..., :-1].log()).sum(-1)

    def _forward_shape(self, shape):
        if len(shape) < 1:
            raise ValueError(f"StickBreakingTransform: the shape must have at least 1 dim, "
                             f"got {shape}")
        return shape[:-1] + (shape[-1] + 1,)

    def _inverse_shape(self, shape):
        if len(shape) < 1 or shape[-1] < 1:
            raise ValueError(f"StickBreakingTransform: the shape must have at least 1 dim "
                             f"of size >= 1, got {shape}")
        return shape[:-1] + (shape[-1] - 1,)

    @property
    def _domain(self):
        return variable.Independent(variable.real, 1)

    @property
    def _codomain(self):
        return variable.Constrained(constraints.simplex)


# ----------------------------------------------------------------------------------
# composite transforms

class ChainTransform(Transform):
    """``transforms[0]`` first, then the next ...; the inverse runs in reverse. The
    log-det sums the parts' log-dets, each summed to the chain's event rank."""

    def __init__(self, transforms):
        if not isinstance(transforms, Sequence):
            raise TypeError(f"ChainTransform: transforms must be a Sequence of Transform, got "
                            f"{type(transforms).__name__}")
        if not all(isinstance(t, Transform) for t in transforms):
            raise TypeError("ChainTransform: every element of transforms must be a Transform")
        self.transforms = list(transforms)
        self._type = _combined_type(self.transforms)
        super().__init__()

    def _forward(self, x):
        for t in self.transforms:
            x = t.forward(x)
        return x

    def _inverse(self, y):
        for t in reversed(self.transforms):
            y = t.inverse(y)
        return y

    def _forward_log_det_jacobian(self, x):
        if not self.transforms:
            return ops.zeros_like(x)
        value = 0.0
        rank = self._domain.event_rank
        for t in self.transforms:
            ldj = t.forward_log_det_jacobian(x)
            value = value + _util.sum_rightmost(ldj, rank - t._domain.event_rank)
            x = t.forward(x)
            rank += t._codomain.event_rank - t._domain.event_rank
        return value

    def _forward_shape(self, shape):
        for t in self.transforms:
            shape = t.forward_shape(shape)
        return shape

    def _inverse_shape(self, shape):
        for t in reversed(self.transforms):
            shape = t.inverse_shape(shape)
        return shape

    @property
    def _domain(self):
        if not self.transforms:
            return variable.real
        rank = self.transforms[-1]._codomain.event_rank
        for t in reversed(self.transforms):
            rank += t._domain.event_rank - t._codomain.event_rank
            rank = max(rank, t._domain.event_rank)
        d = self.transforms[0]._domain
        return d if d.event_rank == rank else variable.Independent(d, rank - d.event_rank)

    @property
    def _codomain(self):
        if not self.transforms:
            return variable.real
        rank = self.transforms[0]._domain.event_rank
        for t in self.transforms:
            rank += t._codomain.event_rank - t._domain.event_rank
            rank = max(rank, t._codomain.event_rank)
        c = self.transforms[-1]._codomain
        return c if c.event_rank == rank else variable.Independent(c, rank - c.event_rank)


class IndependentTransform(Transform):
    """``base`` with its log-det summed over ``reinterpreted_batch_rank`` more rightmost
    dims (they become event dims)."""

    def __init__(self, base, reinterpreted_batch_rank):
        if not isinstance(base, Transform):
            raise TypeError(f"Expected 'base' is Transform type, but get {type(base).__name__}")
        if not isinstance(reinterpreted_batch_rank, (int, np.integer)) or \
                reinterpreted_batch_rank <= 0:
            raise ValueError("Expected 'reinterpreted_batch_rank' is grater than zero, but "
                             f"got {reinterpreted_batch_rank}")
        self._base = base
        self._reinterpreted_batch_rank = int(reinterpreted_batch_rank)
        self._type = base._type
        super().__init__()

    def _forward(self, x):
        if len(x.shape) < self._domain.event_rank:
            raise ValueError(f"IndependentTransform: the input must have at least "
                             f"{self._domain.event_rank} dims, got shape {x.shape}")
        return self._base.forward(x)

    def _inverse(self, y):
        return self._base.inverse(y)

    def _forward_log_det_jacobian(self, x):
        return _util.sum_rightmost(self._base.forward_log_det_jacobian(x),
                                   self._reinterpreted_batch_rank)

    def _forward_shape(self, shape):
        return self._base.forward_shape(shape)

    def _inverse_shape(self, shape):
        return self._base.inverse_shape(shape)

    @property
    def _domain(self):
        return variable.Independent(self._base._domain, self._reinterpreted_batch_rank)

    @property
    def _codomain(self):
        return variable.Independent(self._base._codomain, self._reinterpreted_batch_rank)


class ReshapeTransform(Transform):
    """Reshapes the trailing ``in_event_shape`` dims to ``out_event_shape``."""

    _type = Type.BIJECTION

    def __init__(self, in_event_shape, out_event_shape):
        for arg, s in (("in_event_shape", in_event_shape), ("out_event_shape", out_event_shape)):
            if not isinstance(s, Sequence):
                raise TypeError(f"Expected type of '{arg}' is Sequence[int], but got "
                                f"{type(s).__name__}")
        self._in_event_shape = tuple(int(s) for s in in_event_shape)
        self._out_event_shape = tuple(int(s) for s in out_event_shape)
        n_in, n_out = math.prod(self._in_event_shape), math.prod(self._out_event_shape)
        if n_in != n_out:
            raise ValueError(f"The numel of 'in_event_shape' should be 'out_event_shape', but "
                             f"got {n_in}!={n_out}")
        super().__init__()

    @property
    def in_event_shape(self):
        return self._in_event_shape

    @property
    def out_event_shape(self):
        return self._out_event_shape

    def _check(self, shape, event):
        n = len(event)
        if len(shape) < n or tuple(shape[len(shape) - n:]) != event:
            got = tuple(shape[max(len(shape) - n, 0):])
            raise ValueError(f"Event shape mismatch, expected: {event}, but got {got}")
        return list(shape[:len(shape) - n])

    def _forward(self, x):
        batch = self._check(x.shape, self._in_event_shape)
        return x.reshape(batch + list(self._out_event_shape))

    def _inverse(self, y):
        batch = self._check(y.shape, self._out_event_shape)
        return y.reshape(batch + list(self._in_event_shape))

    def _forward_log_det_jacobian(self, x):
        batch = self._check(x.shape, self._in_event_shape)
        return ops.zeros(batch, dtype=x.dtype)

    def _forward_shape(self, shape):
        return tuple(self._check(shape, self._in_event_shape)) + self._out_event_shape

    def _inverse_shape(self, shape):
        return tuple(self._check(shape, self._out_event_shape)) + self._in_event_shape

    @property
    def _domain(self):
        return variable.Independent(variable.real, len(self._in_event_shape))

    @property
    def _codomain(self):
        return variable.Independent(variable.real, len(self._out_event_shape))


class _PartsTransform(Transform):
    """Transforms applied to parts of the input along ``axis`` (Stack, Cat)."""

    def __init__(self, transforms, axis, name):
        if not isinstance(transforms, Sequence) or not transforms or \
                not all(isinstance(t, Transform) for t in transforms):
            raise TypeError(f"{name}: expected 'transforms' is a non-empty Sequence of "
                            f"Transform, but got {type(transforms).__name__}")
        if not isinstance(axis, (int, np.integer)) or isinstance(axis, bool):
            raise TypeError(f"{name}: expected 'axis' is int, but got {type(axis).__name__}")
        self._transforms = list(transforms)
        self._axis = int(axis)
        self._type = _combined_type(self._transforms)
        super().__init__()

    @property
    def transforms(self):
        return self._transforms

    @property
    def axis(self):
        return self._axis

    def _each(self, method, parts):
        return [getattr(t, method)(v) for t, v in zip(self._transforms, parts)]


class StackTransform(_PartsTransform):
    """``transforms[i]`` applied to slice ``i`` along ``axis``; results stacked."""

    def __init__(self, transforms, axis=0):
        super().__init__(transforms, axis, "StackTransform")

    def _slices(self, v):
        if v.shape[self._axis] != len(self._transforms):
            raise ValueError(f"Input size along {self._axis} should be equal to the length of "
                             "transforms")
        return ops.unbind(v, axis=self._axis)

    def _forward(self, x):
        return ops.stack(self._each("forward", self._slices(x)), axis=self._axis)

    def _inverse(self, y):
        bad = [t for t in self._transforms if not Type.is_injective(t._type)]
        if bad:
            raise NotImplementedError(f"StackTransform.inverse: {type(bad[0]).__name__} is not "
                                      "injective, so the inverse is not defined")
        return ops.stack(self._each("inverse", self._slices(y)), axis=self._axis)

    def _forward_log_det_jacobian(self, x):
        return ops.stack(self._each("forward_log_det_jacobian", self._slices(x)),
                         axis=self._axis)

    @property
    def _domain(self):
        return variable.Stack([t._domain for t in self._transforms], self._axis)

    @property
    def _codomain(self):
        return variable.Stack([t._codomain for t in self._transforms], self._axis)


class CatTransform(_PartsTransform):
    """``transforms[i]`` applied to consecutive pieces of sizes ``lengths`` (default
    1 each) along ``axis``; results concatenated."""

    def __init__(self, transforms, axis=0, lengths=None):
        super().__init__(transforms, axis, "CatTransform")
        self._lengths = [1] * len(self._transforms) if lengths is None else \
            [int(v) for v in lengths]
        if len(self._lengths) != len(self._transforms):
            raise ValueError(f"CatTransform: lengths must have {len(self._transforms)} entries, "
                             f"got {len(self._lengths)}")

    @property
    def lengths(self):
        return self._lengths

    def _event_rank(self):
        return max(t._domain.event_rank for t in self._transforms)

    def _pieces(self, v):
        n = v.shape[self._axis]
        if n != sum(self._lengths):
            raise ValueError(f"CatTransform: the input has size {n} along axis {self._axis}, "
                             f"expected sum(lengths) = {sum(self._lengths)}")
        return ops.split(v, self._lengths, axis=self._axis)

    def _forward(self, x):
        return ops.concat(self._each("forward", self._pieces(x)), axis=self._axis)

    def _inverse(self, y):
        return ops.concat(self._each("inverse", self._pieces(y)), axis=self._axis)

    def _forward_log_det_jacobian(self, x):
        rank = self._event_rank()
        parts = [_util.sum_rightmost(ldj, rank - t._domain.event_rank) for t, ldj in
                 zip(self._transforms, self._each("forward_log_det_jacobian", self._pieces(x)))]
        axis = self._axis - len(x.shape) if self._axis >= 0 else self._axis
        axis += rank
        if axis < 0:   # the axis is a batch dim of the log-det: concatenate along it
            return ops.concat(parts, axis=axis)
        total = parts[0]
        for p in parts[1:]:
            total = total + p
        return total

    @property
    def _domain(self):
        return variable.Real(self._event_rank())

    @property
    def _codomain(self):
        return variable.Real(max(t._codomain.event_rank for t in self._transforms))


class CumulativeDistributionTransform(Transform):
    """``y = distribution.cdf(x)`` (onto (0, 1)), inverse ``icdf``, log-det
    ``distribution.log_prob(x)``."""

    _type = Type.BIJECTION

    def __init__(self, distribution):
        from .distribution import Distribution

        if not isinstance(distribution, Distribution):
            raise TypeError("CumulativeDistributionTransform: distribution must be a "
                            f"Distribution, got {type(distribution).__name__}")
        self.distribution = distribution
        super().__init__()

    def _forward(self, x):
        return self.distribution.cdf(x)

    def _inverse(self, y):
        return self.distribution.icdf(y)

    def _forward_log_det_jacobian(self, x):
        return self.distribution.log_prob(x)

    @property
    def _domain(self):
        s = self.distribution.support
        return variable.Constrained(s) if s is not None else variable.real

    @property
    def _codomain(self):
        return variable.Interval(0.0, 1.0)


# ----------------------------------------------------------------------------------
# matrix transforms

def _diag(x):
    return ops.diagonal(x, axis1=-2, axis2=-1)


class LowerCholeskyTransform(Transform):
    """An unconstrained square matrix → a lower-triangular one with a positive
    diagonal (strict lower part kept, diagonal exponentiated). The upper part is
    dropped, so the map is onto but not injective (no log-det)."""

    _type = Type.SURJECTION

    def _forward(self, x):
        return ops.tril(x, -1) + ops.diag_embed(_diag(x).exp())

    def _inverse(self, y):
        return ops.tril(y, -1) + ops.diag_embed(_diag(y).log())

    @property
    def _domain(self):
        return variable.Real(2)

    @property
    def _codomain(self):
        return variable.Constrained(constraints.lower_cholesky)


class PositiveDefiniteTransform(Transform):
    """An unconstrained square matrix → ``L Lᵀ`` with ``L`` from
    :class:`LowerCholeskyTransform`; the inverse goes through the Cholesky factor."""

    _type = Type.SURJECTION

    def _forward(self, x):
        lower = LowerCholeskyTransform()._forward(x)
        return lower @ ops.swapaxes(lower, -1, -2)

    def _inverse(self, y):
        from ..linalg import cholesky
        return LowerCholeskyTransform()._inverse(cholesky(y))

    @property
    def _domain(self):
        return variable.Real(2)

    @property
    def _codomain(self):
        return variable.Constrained(constraints.positive_definite)


def _tril_size(n_vec, op):
    n = int(round((1 + math.sqrt(1 + 8 * n_vec)) / 2))
    if n * (n - 1) // 2 != n_vec:
        raise ValueError(f"{op}: the last dim ({n_vec}) must be a triangular number "
                         "n(n-1)/2")
    return n


def _vec_to_strict_tril(v, n):
    """``(..., n(n-1)/2)`` → ``(..., n, n)`` filling the strictly lower triangle row by
    row (zeros elsewhere), as one differentiable gather."""
    rows, cols = np.tril_indices(n, -1)
    idx = np.full(n * n, rows.size, dtype=np.int64)
    idx[rows * n + cols] = np.arange(rows.size)
    padded = ops.concat([v, ops.zeros(v.shape[:-1] + [1], dtype=v.dtype)], -1)
    out = ops.index_select(padded, ops.to_tensor(idx, place=v.place), axis=-1)
    return out.reshape(v.shape[:-1] + [n, n])


def _tril_to_vec(m, n, offset=-1):
    rows, cols = np.tril_indices(n, offset)
    flat = m.reshape(m.shape[:-2] + [n * n])
    return ops.index_select(flat, ops.to_tensor(rows * n + cols, place=m.place), axis=-1)


class CorrCholeskyTransform(Transform):
    """``n(n-1)/2`` unconstrained reals → the Cholesky factor of an ``n × n``
    correlation matrix (tanh to (-1, 1), then stick breaking along each row)."""

    _type = Type.BIJECTION

    def _forward(self, x):
        n = _tril_size(x.shape[-1], "CorrCholeskyTransform.forward")
        eps = float(np.finfo(x._data.dtype).eps)
        r = _vec_to_strict_tril(ops.clip(x.tanh(), -1 + eps, 1 - eps), n)
        z1m = (1 - r * r).sqrt().cumprod(-1)
        ones = ops.ones(r.shape[:-1] + [1], dtype=x.dtype)
        shifted = ops.concat([ones, z1m[..., :-1]], -1)
        return (r + ops.eye(n, dtype=x.dtype)) * shifted

    def _inverse(self, y):
        n = y.shape[-1]
        cum = 1 - (y * y).cumsum(-1)
        ones = ops.ones(y.shape[:-1] + [1], dtype=y.dtype)
        shifted = ops.concat([ones, cum[..., :-1]], -1)
        t = _tril_to_vec(y, n) / _tril_to_vec(shifted, n).sqrt()
        return t.atanh()

    def _forward_log_det_jacobian(self, x):
        y = self._forward(x)
        n = y.shape[-1]
        cum = 1 - (y * y).cumsum(-1)
        stick = 0.5 * _tril_to_vec(cum, n, -2).log().sum(-1) if n > 2 else 0.0
        tanh = -2.0 * (x + _util.softplus(-2.0 * x) - _util.LOG_2).sum(-1)
        return stick + tanh

    def _forward_shape(self, shape):
        if len(shape) < 1:
            raise ValueError("CorrCholeskyTransform: the shape must have at least 1 dim")
        n = _tril_size(shape[-1], "CorrCholeskyTransform.forward_shape")
        return shape[:-1] + (n, n)

    def _inverse_shape(self, shape):
        if len(shape) < 2 or shape[-1] != shape[-2]:
            raise ValueError(f"CorrCholeskyTransform: expected square matrices, got {shape}")
        n = shape[-1]
        return shape[:-2] + (n * (n - 1) // 2,)

    @property
    def _domain(self):
        return variable.Real(1)

    @property
    def _codomain(self):
        return variable.Constrained(constraints.corr_cholesky)


identity_transform = ChainTransform([])


# ----------------------------------------------------------------------------------
# constraint -> transform registries (biject_to / transform_to)

class _ConstraintRegistry:
    """Maps a constraint (by type) to a factory of the transform onto it."""

    def __init__(self, name):
        self._name = name
        self._registry = {}

    def register(self, constraint, factory=None):
        if factory is None:
            return lambda f: self.register(constraint, f)
        key = constraint if isinstance(constraint, type) else type(constraint)
        self._registry[key] = factory
        return factory

    def __call__(self, constraint):
        if not isinstance(constraint, constraints.Constraint):
            raise TypeError(f"{self._name}: expected a Constraint, got "
                            f"{type(constraint).__name__}")
        try:
            factory = self._registry[type(constraint)]
        except KeyError:
            raise NotImplementedError(f"{self._name}: cannot transform "
                                      f"{type(constraint).__name__} constraints") from None
        return factory(constraint)


biject_to = _ConstraintRegistry("biject_to")
transform_to = _ConstraintRegistry("transform_to")


def _register_both(c, f):
    biject_to.register(c, f)
    transform_to.register(c, f)


_register_both(constraints.real, lambda c: identity_transform)
_register_both(constraints.independent,
               lambda c: (lambda t: t if c.reinterpreted_batch_ndims == 0 else
                          IndependentTransform(t, c.reinterpreted_batch_ndims))(
                   biject_to(c.base_constraint)))
_register_both(constraints.positive, lambda c: ExpTransform())
_register_both(constraints.nonnegative, lambda c: ExpTransform())
_register_both(constraints.greater_than,
               lambda c: ChainTransform([ExpTransform(), AffineTransform(c.lower_bound, 1.0)]))
_register_both(constraints.greater_than_eq,
               lambda c: ChainTransform([ExpTransform(), AffineTransform(c.lower_bound, 1.0)]))
_register_both(constraints.less_than,
               lambda c: ChainTransform([ExpTransform(), AffineTransform(c.upper_bound, -1.0)]))


def _interval(c):
    lo, hi = c.lower_bound, c.upper_bound
    if isinstance(lo, numbers.Real) and isinstance(hi, numbers.Real) and lo == 0 and hi == 1:
        return SigmoidTransform()
    return ChainTransform([SigmoidTransform(), AffineTransform(lo, hi - lo)])


_register_both(constraints.interval, _interval)
_register_both(constraints.half_open_interval, _interval)
biject_to.register(constraints.simplex, lambda c: StickBreakingTransform())
transform_to.register(constraints.simplex, lambda c: SoftmaxTransform())
_register_both(constraints.corr_cholesky, lambda c: CorrCholeskyTransform())
transform_to.register(constraints.lower_cholesky, lambda c: LowerCholeskyTransform())
transform_to.register(constraints.positive_definite, lambda c: PositiveDefiniteTransform())
transform_to.register(constraints.positive_semidefinite, lambda c: PositiveDefiniteTransform())
_register_both(constraints.cat, lambda c: CatTransform([biject_to(p) for p in c.cseq], c.dim,
                                                       c.lengths))
_register_both(constraints.stack, lambda c: StackTransform([biject_to(p) for p in c.cseq], c.dim))
