"""The base class of every distribution, and the global argument validator."""
from __future__ import annotations

import copy
import warnings

import numpy as np

from .. import ops
from ..autograd import no_grad
from ..core.tensor import Tensor
from . import _util
from .constraints import is_dependent

__all__ = ["Distribution", "set_validate_args"]

_VALIDATE = [False]


def set_validate_args(value):
    """Turn the argument validator on or off for every distribution built afterwards
    (off by default, as in Paddle, which never checks ranges). When on, constructors
    check their parameters against ``arg_constraints`` and ``log_prob``/``prob``/``cdf``
    check values against ``support``; violations raise ``ValueError``.

    >>> import weft
    >>> from weft.distribution import Normal, set_validate_args
    >>> set_validate_args(True)
    >>> try:
    ...     Normal(0.0, -1.0)
    ... except ValueError as e:
    ...     print("ValueError")
    ValueError
    >>> set_validate_args(False)
    """
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"set_validate_args: value must be a bool, got {type(value).__name__}")
    _VALIDATE[0] = bool(value)


def _validating():
    return _VALIDATE[0]


class Distribution:
    """Abstract base: a batch of distributions of one family.

    ``batch_shape`` indexes independent (not identically parameterised) distributions,
    ``event_shape`` is the shape of one draw. ``sample(shape)`` returns
    ``shape + batch_shape + event_shape``. Members a family cannot define raise
    ``NotImplementedError`` naming the class and the member.

    >>> import weft
    >>> from weft.distribution import Normal
    >>> d = Normal(weft.zeros([3]), 1.0)
    >>> d.batch_shape, d.event_shape, d.sample([2]).shape
    ((3,), (), [2, 3])
    """

    has_rsample = False
    has_enumerate_support = False
    arg_constraints: dict = {}
    support = None

    def __init__(self, batch_shape=(), event_shape=()):
        self._batch_shape = tuple(int(s) for s in batch_shape)
        self._event_shape = tuple(int(s) for s in event_shape)
        if _validating():
            self._check_parameters()

    # ------------------------------------------------------------------ shapes
    @property
    def batch_shape(self):
        """The shape over which parameters are batched (a tuple)."""
        return self._batch_shape

    @property
    def event_shape(self):
        """The shape of one draw (a tuple)."""
        return self._event_shape

    def _extend_shape(self, sample_shape):
        """``sample_shape + batch_shape + event_shape`` as a tuple."""
        return tuple(sample_shape) + self._batch_shape + self._event_shape

    # ------------------------------------------------------------------ moments
    def _missing(self, member):
        return NotImplementedError(f"{type(self).__name__}.{member} is not implemented "
                                   f"(not defined for this distribution)")

    @property
    def mean(self):
        """The mean (batch + event shape)."""
        raise self._missing("mean")

    @property
    def variance(self):
        """The variance (batch + event shape)."""
        raise self._missing("variance")

    @property
    def stddev(self):
        """The standard deviation, ``sqrt(variance)``."""
        return self.variance.sqrt()

    @property
    def mode(self):
        """The mode (batch + event shape)."""
        raise self._missing("mode")

    def entropy(self):
        """The differential (or Shannon) entropy, batch shape."""
        raise self._missing("entropy")

    # ------------------------------------------------------------------ sampling
    def sample(self, shape=()):
        """Draws of shape ``shape + batch_shape + event_shape``, without gradient."""
        if self.has_rsample:
            with no_grad():
                out = self.rsample(shape)
            return out.detach()
        raise self._missing("sample")

    def rsample(self, shape=()):
        """Reparameterised draws (gradients reach the parameters)."""
        raise self._missing("rsample")

    # ------------------------------------------------------------------ densities
    def log_prob(self, value):
        """Log-density (log-mass) at ``value``."""
        raise self._missing("log_prob")

    def prob(self, value):
        """Density (mass) at ``value``: ``exp(log_prob(value))``."""
        return self.log_prob(value).exp()

    def probs(self, value):
        """Deprecated alias of :meth:`prob` (Paddle's base member raises instead)."""
        warnings.warn(f"{type(self).__name__}.probs(value) is deprecated; use prob(value)",
                      DeprecationWarning, stacklevel=2)
        return self.prob(value)

    def cdf(self, value):
        """Cumulative distribution function at ``value``."""
        raise self._missing("cdf")

    def icdf(self, value):
        """Inverse of the cdf (quantile function) at probabilities ``value``."""
        raise self._missing("icdf")

    def enumerate_support(self, expand=True):
        """All values of a finite discrete support along a new leading dim (batch dims
        expanded when ``expand``, else of size 1)."""
        raise self._missing("enumerate_support")

    def kl_divergence(self, other):
        """KL(self ‖ other) from the registry (``TypeError`` when no pair is registered
        for the two types)."""
        from .kl import _dispatch, _no_pair

        if not isinstance(other, Distribution):
            raise TypeError(f"{type(self).__name__}.kl_divergence: other must be a "
                            f"Distribution, got {type(other).__name__}")
        fn = _dispatch(type(self), type(other))
        if fn is None:
            raise TypeError(_no_pair(self, other))
        return fn(self, other)

    # ------------------------------------------------------------------ expand
    def expand(self, batch_shape):
        """The same distribution with parameters broadcast to ``batch_shape`` (which the
        current batch shape must broadcast to)."""
        return self._expanded_copy(self._expand_shape(batch_shape))

    def _expand_shape(self, batch_shape):
        new_batch = _util.sample_shape_arg(batch_shape, f"{type(self).__name__}.expand")
        old = self._batch_shape
        try:
            ok = np.broadcast_shapes(old, new_batch) == new_batch
        except ValueError:
            ok = False
        if not ok:
            raise ValueError(f"{type(self).__name__}.expand: the batch shape {old} cannot be "
                             f"expanded to {new_batch}")
        return new_batch

    def _expanded_copy(self, new_batch):
        """A shallow copy whose Tensor attributes (and sub-distributions) led by the old
        batch shape are broadcast to ``new_batch``."""
        new = copy.copy(self)
        old = self._batch_shape
        nb = len(old)
        for k, v in list(vars(self).items()):
            if isinstance(v, Tensor) and len(v.shape) >= nb and tuple(v.shape[:nb]) == old:
                setattr(new, k, ops.broadcast_to(v, list(new_batch) + v.shape[nb:]))
            elif isinstance(v, Distribution) and v.batch_shape == old:
                setattr(new, k, v.expand(new_batch))
        new._batch_shape = tuple(new_batch)
        return new

    # ------------------------------------------------------------------ validation
    def _check_parameters(self):
        for name, c in self.arg_constraints.items():
            if is_dependent(c):
                continue
            v = vars(self).get(name)
            if not isinstance(v, Tensor):
                continue
            ok = c.check(v)
            if not bool(ok.all()):
                got = v.numpy().tolist() if v.size <= 8 else \
                    f"a tensor of shape {v.shape} with entries outside it"
                raise ValueError(f"{type(self).__name__}: parameter {name!r} must satisfy "
                                 f"the constraint {c!r}, got {got}")
        self._check_extra()

    def _check_extra(self):
        """Checks that no single constraint expresses (e.g. low < high)."""

    def _value(self, value, op="log_prob", check=True):
        """``value`` as a Tensor of the distribution's dtype, checked against the
        support when validation is on."""
        value = _util.value_arg(value, self._dtype, f"{type(self).__name__}.{op}",
                                like=self._like)
        if check and _validating() and self.support is not None and \
                not is_dependent(self.support):
            ok = self.support.check(value)
            if not bool(ok.all()):
                raise ValueError(f"{type(self).__name__}.{op}: value is outside the support "
                                 f"{self.support!r}")
        return value

    def _validate_prob(self, value):
        """Under validation, probabilities (for icdf) must lie in [0, 1]."""
        if _validating():
            ok = (value >= 0) & (value <= 1)
            if not bool(ok.all()):
                raise ValueError(f"{type(self).__name__}.icdf: value must be a probability "
                                 f"in [0, 1]")
        return value

    @property
    def _like(self):
        for v in vars(self).values():
            if isinstance(v, Tensor):
                return v
        return None

    # ------------------------------------------------------------------ Paddle hooks
    def _validate_args(self, *args):
        """Whether any argument is a Tensor. (Paddle raises for a Tensor/Python mix;
        weft accepts the mix, Python values taking the Tensor's dtype.)"""
        return any(isinstance(a, Tensor) for a in args)

    def _to_tensor(self, *args):
        """Arguments as broadcast Tensors of one floating dtype (a tuple)."""
        return _util.broadcast_all(*args)

    def _broadcast_all(self, *args):
        """Arguments as broadcast Tensors of one floating dtype (a tuple)."""
        return _util.broadcast_all(*args)

    def _check_values_dtype_in_probs(self, param, value):
        """``value`` cast to ``param``'s dtype."""
        param = param if isinstance(param, Tensor) else ops.to_tensor(param)
        return _util.value_arg(value, param._data.dtype, "_check_values_dtype_in_probs",
                               like=param)

    def _probs_to_logits(self, probs, is_binary=False):
        """Logits of probabilities: ``log(p) - log1p(-p)`` (binary) or ``log(p)``."""
        p = _util.clamp_probs(probs)
        return (p.log() - (-p).log1p()) if is_binary else p.log()

    def _logits_to_probs(self, logits, is_binary=False):
        """Probabilities of logits: sigmoid (binary) or softmax over the last axis."""
        return ops.sigmoid(logits) if is_binary else _util.softmax(logits, -1)

    def __repr__(self):
        parts = []
        for name in self.arg_constraints:
            v = vars(self).get(name)
            if isinstance(v, Tensor):
                parts.append(f"{name}: {v.item() if v.size == 1 else v.shape}")
        return f"{type(self).__name__}({', '.join(parts)})"
