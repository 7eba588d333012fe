"""Shape manipulation: reshape, broadcast, transpose, squeeze/unsqueeze."""
from __future__ import annotations

import numpy as np

from ..autograd.engine import Primitive, apply, defbatch, defvjp
from ..core.args import normalize_axes, normalize_axis, shape_arg, tensor_arg

_reshape = Primitive("reshape", lambda x, shape: x.reshape(shape), view=True)
_broadcast_to = Primitive("broadcast_to", lambda x, shape: np.broadcast_to(x, shape), view=True)
_transpose = Primitive("transpose", lambda x, perm: x.transpose(perm), view=True)

defvjp(_reshape, lambda g, ans, x, shape: reshape_exact(g, x.shape), save=(), save_out=False)
# the engine sums the broadcast gradient back to x's shape
defvjp(_broadcast_to, lambda g, ans, x, shape: g, save=(), save_out=False)
defvjp(_transpose, lambda g, ans, x, perm: transpose(g, list(np.argsort(perm))),
       save=(), save_out=False)
# batched cotangents (autograd.engine.defbatch): axis 0 is the batch
defbatch(_reshape, lambda g, ans, x, shape: reshape_exact(g, g.shape[:1] + x.shape))
defbatch(_broadcast_to)   # the engine sums g to [B, *x.shape]
defbatch(_transpose, lambda g, ans, x, perm:
         apply(_transpose, g, perm=(0,) + tuple(int(p) + 1 for p in np.argsort(perm))))


def _resolve_shape(shape, size, op):
    """Paddle reshape rules: one -1 is inferred, 0 copies the input's dimension."""
    out = list(shape)
    if out.count(-1) > 1:
        raise ValueError(f"{op}: only one dimension can be -1, got {shape}")
    known = 1
    for i, s in enumerate(out):
        if s < -1:
            raise ValueError(f"{op}: shape entries must be >= -1, got {shape}")
        if s != -1:
            known *= s
    if -1 in out:
        if known == 0 or size % known:
            raise ValueError(f"{op}: cannot infer -1 in shape {shape} for {size} elements")
        out[out.index(-1)] = size // known
    elif known != size:
        raise ValueError(f"{op}: cannot reshape {size} elements into shape {shape}")
    return out


def reshape(x, shape, name=None):
    """Same elements in a new shape (one entry may be -1; 0 keeps that input dimension).

    >>> import weft
    >>> weft.reshape(weft.arange(6), [2, -1]).shape
    [2, 3]
    """
    x = tensor_arg(x, "x", "reshape")
    shape = shape_arg(shape, "reshape")
    xs = x._data.shape
    shape = [xs[i] if s == 0 and i < len(xs) else s for i, s in enumerate(shape)]
    shape = _resolve_shape(shape, x._data.size, "reshape")
    return apply(_reshape, x, shape=tuple(shape))


def reshape_exact(x, shape):
    """Reshape to exactly ``shape`` (no Paddle 0/-1 rules): for internal use, where a 0
    is an empty dimension and not "keep this dimension"."""
    if list(x._data.shape) == list(shape):
        return x
    return apply(_reshape, x, shape=tuple(shape))


def broadcast_to(x, shape, name=None):
    """View of ``x`` broadcast to ``shape`` (numpy rules; -1 keeps a dimension)."""
    x = tensor_arg(x, "x", "broadcast_to")
    shape = shape_arg(shape, "broadcast_to")
    xs = x._data.shape
    if len(shape) < len(xs):
        raise ValueError(f"broadcast_to: shape {shape} has fewer dimensions than x {list(xs)}")
    lead = len(shape) - len(xs)
    shape = [xs[i - lead] if s == -1 and i >= lead else s for i, s in enumerate(shape)]
    for i, s in enumerate(xs):
        if s != 1 and s != shape[i + lead]:
            raise ValueError(f"broadcast_to: cannot broadcast x of shape {list(xs)} to {shape}")
    if list(xs) == shape:
        return x
    return apply(_broadcast_to, x, shape=tuple(shape))


def expand(x, shape, name=None):
    """Paddle's name for :func:`broadcast_to`."""
    return broadcast_to(x, shape)


def transpose(x, perm, name=None):
    """Permute the axes: output axis i is input axis ``perm[i]``."""
    x = tensor_arg(x, "x", "transpose")
    perm = shape_arg(perm, "transpose", "perm")
    if sorted(normalize_axis(p, x.ndim, "transpose", "perm") for p in perm) != \
            list(range(x.ndim)) or len(perm) != x.ndim:
        raise ValueError(f"transpose: perm must be a permutation of range({x.ndim}), got {perm}")
    perm = tuple(p % max(x.ndim, 1) for p in perm)
    return apply(_transpose, x, perm=perm)


def unsqueeze(x, axis, name=None):
    """Insert size-1 dimensions at ``axis`` (int or list, positions in the output)."""
    x = tensor_arg(x, "x", "unsqueeze")
    axes = [axis] if not isinstance(axis, (list, tuple)) else list(axis)
    shape = list(x._data.shape)
    for a in axes:
        a = normalize_axis(a, len(shape) + 1, "unsqueeze")
        shape.insert(a, 1)
    return reshape_exact(x, shape)


def squeeze(x, axis=None, name=None):
    """Remove size-1 dimensions (all of them, or those in ``axis`` that have size 1)."""
    x = tensor_arg(x, "x", "squeeze")
    shape = x._data.shape
    axes = normalize_axes(axis, x.ndim, "squeeze")
    return reshape_exact(x, [s for i, s in enumerate(shape) if not (i in axes and s == 1)])


__all__ = ["reshape", "broadcast_to", "expand", "transpose", "unsqueeze", "squeeze"]
__tensor_methods__ = {n: globals()[n] for n in __all__}
