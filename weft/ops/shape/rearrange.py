"""Ops that reorder or repeat elements: tile, repeat_interleave, flip, rot90 and roll."""
from __future__ import annotations

import numpy as np

from ...autograd.engine import apply, deflinear, defvjp, Primitive
from ...core.args import normalize_axes, normalize_axis, tensor_arg, xp_of
from ...core.scatter import add_at
from ...core.tensor import Tensor
from ..reduction.aggregate import sum as _sum
from ._helpers import aliases, int_list, pyslice
from .views import _no_save, flip_axes, reshape_exact


def _repeat_fwd(x, reps, axis):
    if type(x) is np.ndarray:
        return np.repeat(x, reps, axis=axis)
    return xp_of(x).repeat(x, reps if isinstance(reps, int) else reps.tolist(), axis=axis)


def _segment_sum_fwd(g, reps, axis):
    """Sum consecutive runs of ``reps[i]`` entries of ``g`` along ``axis``."""
    xp = xp_of(g)
    shape = list(g.shape)
    shape[axis] = len(reps)
    out = xp.zeros(shape, dtype=g.dtype)
    nz = np.nonzero(reps)[0]
    if nz.size == 0:
        return out
    if xp is np:
        # reduceat sums [start_i, start_i+1); empty runs are dropped first because
        # reduceat returns g[start] (not 0) for them
        starts = (np.cumsum(reps) - reps)[nz]
        out[(pyslice(None),) * axis + (nz,)] = np.add.reduceat(g, starts, axis=axis)
        return out
    seg = xp.asarray(np.repeat(np.arange(len(reps)), reps))
    add_at(xp.moveaxis(out, axis, 0), seg, xp.moveaxis(g, axis, 0))
    return out


_tile = Primitive("tile", lambda x, reps: np.tile(x, reps))
_repeat_arr = Primitive("repeat_interleave", _repeat_fwd)
_segment_sum = Primitive("repeat_interleave_grad", _segment_sum_fwd)
_roll = Primitive("roll", lambda x, shifts, axis: np.roll(x, shifts, axis))
_rot90 = Primitive("rot90", lambda x, k, axes: np.rot90(x, k, axes).copy())
defvjp(_tile, lambda g, ans, x, reps: _tile_vjp(g, x.shape, reps), **_no_save)


# one count for every entry (an int) sums fixed-size groups; per-entry counts sum segments
defvjp(_repeat_arr, lambda g, ans, x, reps, axis:
       _repeat_int_vjp(g, x.shape, reps, axis) if isinstance(reps, int) else
       apply(_segment_sum, g, reps=reps, axis=axis), **_no_save)
defvjp(_segment_sum, lambda g, ans, x, reps, axis: apply(_repeat_arr, g, reps=reps, axis=axis),
       **_no_save)
defvjp(_roll, lambda g, ans, x, shifts, axis:
       apply(_roll, g, shifts=tuple(-s for s in shifts), axis=axis), **_no_save)
defvjp(_rot90, lambda g, ans, x, k, axes: apply(_rot90, g, k=(-k) % 4, axes=axes), **_no_save)
# forward mode: all linear, each its own jvp
for _p in (_tile, _repeat_arr, _segment_sum, _roll, _rot90):
    deflinear(_p)


def _tile_vjp(g, shape, reps):
    # output axis i holds reps[i] copies of the input axis: split it into
    # (copy, element) and sum over the copies
    if not shape:
        return g
    inter = [v for r, s in zip(reps, shape) for v in (r, s)]
    return _sum(reshape_exact(g, inter), axis=list(range(0, 2 * len(shape), 2)))


def _repeat_int_vjp(g, shape, r, axis):
    inter = list(shape[:axis]) + [shape[axis], r] + list(shape[axis + 1:])
    return _sum(reshape_exact(g, inter), axis=axis + 1)


@aliases(dims="repeat_times", input="x")
def tile(x, repeat_times, name=None):
    """Repeat ``x`` ``repeat_times[i]`` times along each axis (a shorter ``repeat_times`` is
    padded with 1s in front, a longer one adds leading axes to ``x``).

    >>> import weft
    >>> weft.tile(weft.to_tensor([1, 2]), [2, 2]).tolist()
    [[1, 2, 1, 2], [1, 2, 1, 2]]
    """
    x = tensor_arg(x, "x", "tile")
    reps = int_list(repeat_times, "tile", "repeat_times")
    for i, r in enumerate(reps):
        if r < 0:
            raise ValueError(f"tile: repeat_times[{i}] = {r} is negative")
    n = max(x.ndim, len(reps))
    reps = [1] * (n - len(reps)) + reps
    x = reshape_exact(x, [1] * (n - x.ndim) + x.shape)
    return apply(_tile, x, reps=tuple(reps))


@aliases(dim="axis", input="x")
def repeat_interleave(x, repeats, axis=None, name=None):
    """Repeat each element of ``x`` along ``axis`` (``None``: of the flattened ``x``).

    ``repeats``: an int (every element the same number of times) or an integer
    Tensor/list with one count per element along ``axis`` (one count is broadcast).

    >>> import weft
    >>> weft.repeat_interleave(weft.to_tensor([1, 2, 3]), weft.to_tensor([2, 0, 1])).tolist()
    [1, 1, 3]
    """
    x = tensor_arg(x, "x", "repeat_interleave")
    if axis is None or x.ndim == 0:
        if axis is not None:
            normalize_axis(axis, 0, "repeat_interleave")
        x = reshape_exact(x, [x.size])
        axis = 0
    else:
        axis = normalize_axis(axis, x.ndim, "repeat_interleave")
    if isinstance(repeats, (int, np.integer)) and not isinstance(repeats, bool):
        reps = np.array([int(repeats)])
    elif isinstance(repeats, Tensor):
        if repeats._data.dtype.kind not in "iu":
            raise TypeError(f"repeat_interleave: repeats must be an integer Tensor, got "
                            f"{repeats.dtype.name}")
        if repeats.ndim > 1:
            raise ValueError(f"repeat_interleave: repeats must be 0-D or 1-D, got shape "
                             f"{repeats.shape}")
        reps = repeats.numpy().reshape(-1).astype(np.int64)
    else:
        reps = np.array(int_list(repeats, "repeat_interleave", "repeats"), dtype=np.int64)
    if (reps < 0).any():
        raise ValueError(f"repeat_interleave: repeats must be non-negative, got "
                         f"{reps.tolist()}")
    d = x.shape[axis]
    if reps.size == 1:
        return apply(_repeat_arr, x, reps=int(reps[0]), axis=axis)
    if reps.size != d:
        raise ValueError(f"repeat_interleave: repeats has {reps.size} entries but axis {axis} "
                         f"of x has size {d}")
    return apply(_repeat_arr, x, reps=reps, axis=axis)


@aliases(dims="axis", dim="axis", input="x")
def flip(x, axis, name=None):
    """Reverse the order of elements along ``axis`` (an int or a list of axes).

    >>> import weft
    >>> weft.flip(weft.to_tensor([[1, 2], [3, 4]]), axis=[0, 1]).tolist()
    [[4, 3], [2, 1]]
    """
    x = tensor_arg(x, "x", "flip")
    if axis is None:
        raise TypeError("flip: axis must be an int or a list of ints, got None")
    return flip_axes(x, normalize_axes(axis, x.ndim, "flip"))


@aliases(dims="axes", input="x")
def rot90(x, k=1, axes=(0, 1), name=None):
    """Rotate by 90 degrees ``k`` times in the plane of ``axes``, from the first axis
    toward the second.

    >>> import weft
    >>> weft.rot90(weft.to_tensor([[1, 2], [3, 4]])).tolist()
    [[2, 4], [1, 3]]
    """
    x = tensor_arg(x, "x", "rot90")
    if isinstance(k, Tensor):
        k = k.item()
    if not isinstance(k, (int, np.integer)) or isinstance(k, bool):
        raise TypeError(f"rot90: k must be an int, got {type(k).__name__}")
    if x.ndim < 2:
        raise ValueError(f"rot90: x must have at least 2 dimensions, got shape {x.shape}")
    ax = int_list(axes, "rot90", "axes")
    if len(ax) != 2:
        raise ValueError(f"rot90: axes must name exactly 2 axes, got {list(axes)}")
    ax = [normalize_axis(a, x.ndim, "rot90", "axes") for a in ax]
    if ax[0] == ax[1]:
        raise ValueError(f"rot90: axes must be two different axes, got {list(axes)}")
    return apply(_rot90, x, k=int(k) % 4, axes=tuple(ax))


@aliases(dims="axis", dim="axis", input="x")
def roll(x, shifts, axis=None, name=None):
    """Shift elements cyclically by ``shifts`` along ``axis`` (``None``: over the flattened
    tensor, then restore the shape).

    >>> import weft
    >>> weft.roll(weft.to_tensor([1, 2, 3, 4]), 1).tolist()
    [4, 1, 2, 3]
    """
    x = tensor_arg(x, "x", "roll")
    sh = int_list(shifts, "roll", "shifts")
    if axis is None:
        if len(sh) != 1:
            raise ValueError(f"roll: with axis=None, shifts must be one int, got {sh}")
        flat = reshape_exact(x, [x.size])
        return reshape_exact(apply(_roll, flat, shifts=tuple(sh), axis=(0,)), x.shape)
    ax = [normalize_axis(a, x.ndim, "roll") for a in int_list(axis, "roll", "axis")]
    if len(ax) != len(sh):
        raise ValueError(f"roll: shifts has {len(sh)} entries but axis has {len(ax)}")
    if x.ndim == 0:
        return reshape_exact(apply(_roll, reshape_exact(x, [1]), shifts=tuple(sh), axis=(0,)), [])
    return apply(_roll, x, shifts=tuple(sh), axis=tuple(ax))


__all__ = ["tile", "repeat_interleave", "flip", "rot90", "roll"]
__tensor_methods__ = {"tile": tile, "repeat_interleave": repeat_interleave, "flip": flip, "rot90": rot90, "roll": roll}
