"""Gradient clipping strategies, passed to an optimizer as ``grad_clip=``.

Each is called with a list of ``(parameter, gradient)`` pairs and returns the pairs
with clipped gradients; parameters with ``need_clip=False`` pass through unchanged.
The arithmetic runs on the backend arrays (it is part of the update, not of the
graph).
"""
from __future__ import annotations

import math
import numbers

from ..core.tensor import Tensor
from ..core.args import xp_of


def _positive(v, cls, arg):
    if isinstance(v, bool) or not isinstance(v, numbers.Real):
        raise TypeError(f"{cls}: {arg} must be a number, got {type(v).__name__}")
    v = float(v)
    if not v > 0:
        raise ValueError(f"{cls}: {arg} must be positive, got {v}")
    return v


def _clippable(p):
    return getattr(p, "need_clip", True)


class ClipGradBase:
    """Base class of the gradient clipping strategies."""

    def __call__(self, params_grads):
        return self._clip(list(params_grads))

    def _clip(self, params_grads):
        raise NotImplementedError(f"{type(self).__name__} must implement _clip (the clipping "
                                  "rule of a ClipGradBy* subclass)")

    @staticmethod
    def _map(params_grads, rule):
        """The pairs with ``rule(grad_array)`` (an array, or None to keep the gradient)
        applied to every clippable gradient."""
        out = []
        for p, g in params_grads:
            d = None if g is None or not _clippable(p) else rule(g._data)
            out.append((p, g if d is None else Tensor._wrap(d)))
        return out


class ClipGradByValue(ClipGradBase):
    """Clip every gradient element into ``[min, max]`` (``min`` defaults to ``-max``).

    >>> import weft
    >>> p = weft.nn.Linear(1, 2).bias; g = weft.to_tensor([-3.0, 0.5])
    >>> [q.tolist() for _, q in weft.nn.ClipGradByValue(1.0)([(p, g)])]
    [[-1.0, 0.5]]
    """

    def __init__(self, max, min=None):  # noqa: A002  (Paddle's argument names)
        if isinstance(max, bool) or not isinstance(max, numbers.Real):
            raise TypeError(f"ClipGradByValue: max must be a number, got {type(max).__name__}")
        self.max = float(max)
        self.min = -self.max if min is None else float(min)
        if self.min > self.max:
            raise ValueError(f"ClipGradByValue: min ({self.min}) must not exceed max "
                             f"({self.max})")

    def _clip(self, params_grads):
        return self._map(params_grads, lambda d: xp_of(d).clip(d, self.min, self.max))

    def __repr__(self):
        return f"ClipGradByValue(min={self.min}, max={self.max})"


class ClipGradByNorm(ClipGradBase):
    """Rescale each gradient whose L2 norm exceeds ``clip_norm`` to norm ``clip_norm``.

    >>> import weft
    >>> p = weft.nn.Linear(1, 2).bias; g = weft.to_tensor([3.0, 4.0])
    >>> [q.tolist() for _, q in weft.nn.ClipGradByNorm(1.0)([(p, g)])]
    [[0.6000000238418579, 0.800000011920929]]
    """

    def __init__(self, clip_norm):
        self.clip_norm = _positive(clip_norm, "ClipGradByNorm", "clip_norm")

    def _clip(self, params_grads):
        def rule(d):
            norm = float(xp_of(d).sqrt((d * d).sum()))
            return d * d.dtype.type(self.clip_norm / norm) if norm > self.clip_norm else None
        return self._map(params_grads, rule)

    def __repr__(self):
        return f"ClipGradByNorm(clip_norm={self.clip_norm})"


class ClipGradByGlobalNorm(ClipGradBase):
    """Scale all gradients by ``clip_norm / max(global_norm, clip_norm)``, where
    ``global_norm`` is the L2 norm of all clippable gradients together.

    >>> import weft
    >>> p = weft.nn.Linear(1, 2).bias
    >>> pairs = [(p, weft.to_tensor([3.0, 0.0])), (p, weft.to_tensor([0.0, 4.0]))]
    >>> [q.tolist() for _, q in weft.nn.ClipGradByGlobalNorm(1.0)(pairs)]
    [[0.6000000238418579, 0.0], [0.0, 0.800000011920929]]
    """

    def __init__(self, clip_norm, group_name="default_group", auto_skip_clip=False):
        self.clip_norm = _positive(clip_norm, "ClipGradByGlobalNorm", "clip_norm")
        self.group_name = group_name
        self.auto_skip_clip = auto_skip_clip

    def global_norm(self, params_grads):
        total = 0.0
        for p, g in params_grads:
            if g is not None and _clippable(p):
                d = g._data.astype("float64", copy=False)
                total += float((d * d).sum())
        return math.sqrt(total)

    def _clip(self, params_grads):
        norm = self.global_norm(params_grads)
        scale = self.clip_norm / max(norm, self.clip_norm)
        if scale == 1.0:
            return params_grads
        return self._map(params_grads, lambda d: d * d.dtype.type(scale))

    def __repr__(self):
        return f"ClipGradByGlobalNorm(clip_norm={self.clip_norm})"


__all__ = ["ClipGradBase", "ClipGradByValue", "ClipGradByNorm", "ClipGradByGlobalNorm"]
