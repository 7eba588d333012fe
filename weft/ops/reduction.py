"""Reductions over axes: sum, mean (the rest of the family builds on these)."""
from __future__ import annotations

import numpy as np

from ..autograd.engine import Primitive, apply, defbatch, defvjp
from ..core import dtype as _dt
from ..core.args import dtype_arg, normalize_axes, tensor_arg
from .shape import broadcast_to, reshape_exact


def _sum_fwd(x, axis, keepdim, dtype):
    return np.sum(x, axis=axis, keepdims=keepdim, dtype=dtype)


def _mean_fwd(x, axis, keepdim):
    if x.size == 0:
        # numpy warns about the empty slice; the answer (NaN) is what weft documents
        with np.errstate(invalid="ignore", divide="ignore"):
            import warnings  # noqa: PLC0415

            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                return np.mean(x, axis=axis, keepdims=keepdim)
    return np.mean(x, axis=axis, keepdims=keepdim)


_sum = Primitive("sum", _sum_fwd)
_mean = Primitive("mean", _mean_fwd)


def expand_reduced(g, shape, axis, keepdim):
    """Broadcast the gradient of a reduction back to the input's ``shape``."""
    if not keepdim and axis:
        kept = list(shape)
        for a in axis:
            kept[a] = 1
        g = reshape_exact(g, kept)
    return broadcast_to(g, list(shape))


def _n_reduced(shape, axis):
    n = 1
    for a in axis:
        n *= shape[a]
    return n


defvjp(_sum, lambda g, ans, x, axis, keepdim, dtype: expand_reduced(g, x.shape, axis, keepdim),
       save=(), save_out=False)
defvjp(_mean, lambda g, ans, x, axis, keepdim:
       expand_reduced(g, x.shape, axis, keepdim) / max(_n_reduced(x.shape, axis), 1),
       save=(), save_out=False)


def _batched_expand(g, x, axis, keepdim):
    # the sample's reduced axes sit one further right behind the batch axis
    return expand_reduced(g, g.shape[:1] + x.shape, tuple(a + 1 for a in axis), keepdim)


defbatch(_sum, lambda g, ans, x, axis, keepdim, dtype: _batched_expand(g, x, axis, keepdim))
defbatch(_mean, lambda g, ans, x, axis, keepdim:
         _batched_expand(g, x, axis, keepdim) / max(_n_reduced(x.shape, axis), 1))


def _axes(axis, ndim, keepdim, op):
    if not isinstance(keepdim, (bool, np.bool_)):
        raise TypeError(f"{op}: keepdim must be a bool, got {type(keepdim).__name__}")
    if isinstance(axis, (list, tuple)) and len(axis) == 0:
        axis = None  # Paddle: an empty axis list reduces over every axis
    return normalize_axes(axis, ndim, op)


def sum(x, axis=None, dtype=None, keepdim=False, name=None):
    """Sum over ``axis`` (int, list, or None for all). bool and int inputs sum to int64.

    >>> import weft
    >>> weft.sum(weft.to_tensor([[1, 2], [3, 4]]), axis=0).tolist()
    [4, 6]
    """
    x = tensor_arg(x, "x", "sum")
    axes = _axes(axis, x.ndim, keepdim, "sum")
    d = dtype_arg(dtype, "sum")
    if d is None and x._data.dtype.kind in "biu":
        d = _dt.int64
    return apply(_sum, x, axis=axes, keepdim=bool(keepdim), dtype=d)


def mean(x, axis=None, keepdim=False, name=None):
    """Arithmetic mean over ``axis``; integer inputs are averaged in the default float dtype."""
    x = tensor_arg(x, "x", "mean")
    if x._data.dtype.kind in "biu":
        from .cast import cast  # noqa: PLC0415

        x = cast(x, _dt.default_float())
    axes = _axes(axis, x.ndim, keepdim, "mean")
    return apply(_mean, x, axis=axes, keepdim=bool(keepdim))


def sum_to_shape(g, shape):
    """Sum a broadcast gradient down to ``shape`` (the inverse of broadcasting)."""
    gs = g._data.shape
    if list(gs) == list(shape):
        return g
    lead = len(gs) - len(shape)
    axes = tuple(range(lead)) + tuple(i + lead for i, s in enumerate(shape)
                                      if s == 1 and gs[i + lead] != 1)
    r = apply(_sum, g, axis=axes, keepdim=True, dtype=None) if axes else g
    return reshape_exact(r, list(shape))


__all__ = ["sum", "mean"]
__tensor_methods__ = {"sum": sum, "mean": mean}
