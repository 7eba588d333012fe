"""More shape manipulation: in-place reshapes, views, flatten, axis moves, broadcasting
helpers, tile/repeat_interleave, flip/rot90/roll, complex <-> real pairs; and (from
:mod:`weft.ops._shape_join`) concat/stack/split and the slicing ops.

Derivative rules are the inverse rearrangement of the cotangent: flip, roll and rot90
undo themselves, tile and repeat_interleave sum the copies back (a reshape and a
sum), a repeat by per-element counts is undone by a segment sum whose own vjp is
the repeat again, and as_complex/as_real are each other's vjp.
"""
from __future__ import annotations

import numpy as np

from ..autograd.engine import Primitive, apply, defvjp
from ..autograd.inplace import check_inplace_leaf
from ..core.tensor import Tensor
from . import _shape_join
from ._shape_join import _pyslice, aliases, int_list, tensor_list
from ..core.args import dtype_arg, normalize_axes, normalize_axis, shape_arg, tensor_arg, xp_of
from .reduction.aggregate import sum as _sum
from .shape import broadcast_to, reshape, reshape_exact, transpose

# ---------------------------------------------------------------------------------
# primitives and derivative table

def _cplx_of(d):
    return np.complex64 if d == np.float32 else np.complex128


def _as_complex_fwd(x):
    # a contiguous [..., 2] float block is exactly the memory layout of [...] complex
    return np.ascontiguousarray(x).view(_cplx_of(x.dtype))[..., 0].copy()


def _repeat_fwd(x, reps, axis):
    if type(x) is np.ndarray:
        return np.repeat(x, reps, axis=axis)
    return xp_of(x).repeat(x, reps.tolist(), axis=axis)


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
        out[(_pyslice(None),) * axis + (nz,)] = np.add.reduceat(g, starts, axis=axis)
        return out
    import cupyx  # noqa: PLC0415  (GPU only)

    seg = xp.asarray(np.repeat(np.arange(len(reps)), reps))
    cupyx.scatter_add(xp.moveaxis(out, axis, 0), seg, xp.moveaxis(g, axis, 0))
    return out


_tile = Primitive("tile", lambda x, reps: np.tile(x, reps))
_repeat_int = Primitive("repeat_interleave", lambda x, r, axis: np.repeat(x, r, axis=axis))
_repeat_arr = Primitive("repeat_interleave", _repeat_fwd)
_segment_sum = Primitive("repeat_interleave_grad", _segment_sum_fwd)
_flip = Primitive("flip", lambda x, axis: np.flip(x, axis).copy())
_roll = Primitive("roll", lambda x, shifts, axis: np.roll(x, shifts, axis))
_rot90 = Primitive("rot90", lambda x, k, axes: np.rot90(x, k, axes).copy())
_as_complex = Primitive("as_complex", _as_complex_fwd)
_as_real = Primitive("as_real", lambda x: np.stack([x.real, x.imag], axis=-1))

_no_save = dict(save=(), save_out=False)
defvjp(_tile, lambda g, ans, x, reps: _tile_vjp(g, x.shape, reps), **_no_save)
defvjp(_repeat_int, lambda g, ans, x, r, axis: _repeat_int_vjp(g, x.shape, r, axis), **_no_save)
defvjp(_repeat_arr, lambda g, ans, x, reps, axis: apply(_segment_sum, g, reps=reps, axis=axis),
       **_no_save)
defvjp(_segment_sum, lambda g, ans, x, reps, axis: apply(_repeat_arr, g, reps=reps, axis=axis),
       **_no_save)
defvjp(_flip, lambda g, ans, x, axis: apply(_flip, g, axis=axis), **_no_save)
defvjp(_roll, lambda g, ans, x, shifts, axis:
       apply(_roll, g, shifts=tuple(-s for s in shifts), axis=axis), **_no_save)
defvjp(_rot90, lambda g, ans, x, k, axes: apply(_rot90, g, k=(-k) % 4, axes=axes), **_no_save)
# with grad = dL/dRe + i dL/dIm, the pair (Re, Im) of a complex cotangent is the
# cotangent of the [..., 2] real view, and back
defvjp(_as_complex, lambda g, ans, x: apply(_as_real, g), **_no_save)
defvjp(_as_real, lambda g, ans, x: apply(_as_complex, g), **_no_save)


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


# ---------------------------------------------------------------------------------
# in-place reshapes

def _inplace_reshape(x, compute, op):
    """Give ``x`` the shape of ``compute(x)`` in place: its storage is kept when a view
    is possible, its version counter is bumped (values a pending backward saved with
    the old shape are no longer valid), and it moves onto the result's graph node."""
    if not isinstance(x, Tensor):
        raise TypeError(f"{op}: x must be a Tensor, got {type(x).__name__}")
    check_inplace_leaf(x, op)
    old = Tensor._wrap(x._data)
    old.stop_gradient = x.stop_gradient
    old._node = x._node
    old._oidx = x._oidx
    old._version = x._version
    result = compute(old)
    x._data = result._data
    x._version[0] += 1
    if not result.stop_gradient:
        x._node = result._node
        x._oidx = result._oidx
    return x


def reshape_(x, shape, name=None):
    """In-place :func:`weft.reshape`: ``x`` itself takes the new shape.

    >>> import weft
    >>> x = weft.arange(6)
    >>> weft.reshape_(x, [2, 3]) is x, x.shape
    (True, [2, 3])
    """
    return _inplace_reshape(x, lambda t: reshape(t, shape), "reshape_")


def _squeezed_shape(x, axis, op):
    axes = normalize_axes(axis, x.ndim, op)
    return [s for i, s in enumerate(x.shape) if not (i in axes and s == 1)]


def _unsqueezed_shape(x, axis, op):
    if isinstance(axis, Tensor):
        axis = axis.tolist()
    shape = x.shape
    for a in (axis if isinstance(axis, (list, tuple)) else [axis]):
        shape.insert(normalize_axis(a, len(shape) + 1, op), 1)
    return shape


@aliases(dim="axis", input="x")
def squeeze_(x, axis=None, name=None):
    """In-place :func:`weft.squeeze` (drops the size-1 dimensions in ``axis``, or all)."""
    x = tensor_arg(x, "x", "squeeze_")
    shape = _squeezed_shape(x, axis, "squeeze_")
    return _inplace_reshape(x, lambda t: reshape_exact(t, shape), "squeeze_")


@aliases(dim="axis", input="x")
def unsqueeze_(x, axis, name=None):
    """In-place :func:`weft.unsqueeze` (inserts size-1 dimensions at ``axis``)."""
    x = tensor_arg(x, "x", "unsqueeze_")
    shape = _unsqueezed_shape(x, axis, "unsqueeze_")
    return _inplace_reshape(x, lambda t: reshape_exact(t, shape), "unsqueeze_")


def flatten_(x, start_axis=0, stop_axis=-1, name=None):
    """In-place :func:`flatten`."""
    x = tensor_arg(x, "x", "flatten_")
    shape = _flattened_shape(x, start_axis, stop_axis, "flatten_")
    return _inplace_reshape(x, lambda t: reshape_exact(t, shape), "flatten_")


# ---------------------------------------------------------------------------------
# views and axis moves

def _is_shape_like(v):
    return isinstance(v, (list, tuple, Tensor, int, np.integer)) and not isinstance(v, bool)


def view(x, shape_or_dtype, name=None):
    """``x`` with a new shape (as :func:`weft.reshape`, sharing storage when possible), or
    its memory reinterpreted as another dtype.

    A dtype view is not differentiable. Same-size dtypes keep the shape; otherwise the
    last axis must be contiguous and is rescaled (``[4]`` float32 as float64 -> ``[2]``).

    >>> import weft
    >>> weft.view(weft.to_tensor([1.0], dtype='float32'), 'int32').tolist()
    [1065353216]
    """
    x = tensor_arg(x, "x", "view")
    if _is_shape_like(shape_or_dtype):
        return reshape(x, shape_or_dtype)
    d = dtype_arg(shape_or_dtype, "view")
    if d is None:
        raise TypeError("view: shape_or_dtype must be a shape or a dtype, got None")
    try:
        out = x._data.view(d)
    except ValueError as e:
        raise ValueError(f"view: cannot reinterpret x of shape {x.shape} and dtype "
                         f"{x.dtype.name} as {d.name}: {e}") from None
    return Tensor._wrap(out)


def view_as(x, other, name=None):
    """``x`` reshaped to ``other``'s shape (see :func:`view`)."""
    other = tensor_arg(other, "other", "view_as")
    return view(x, other.shape)


def _flattened_shape(x, start_axis, stop_axis, op):
    nd = x.ndim
    if nd == 0:
        for nm, a in (("start_axis", start_axis), ("stop_axis", stop_axis)):
            normalize_axis(a, 0, op, nm)
        return [1]
    s = normalize_axis(start_axis, nd, op, "start_axis")
    e = normalize_axis(stop_axis, nd, op, "stop_axis")
    if s > e:
        raise ValueError(f"{op}: start_axis {start_axis} comes after stop_axis {stop_axis} "
                         f"for a tensor with {nd} dimension(s)")
    xs = x.shape
    return xs[:s] + [int(np.prod(xs[s:e + 1]))] + xs[e + 1:]


@aliases(start_dim="start_axis", end_dim="stop_axis", input="x")
def flatten(x, start_axis=0, stop_axis=-1, name=None):
    """Merge the axes ``start_axis..stop_axis`` (inclusive) into one; a 0-D tensor
    becomes shape ``[1]``.

    >>> import weft
    >>> weft.flatten(weft.ones([2, 3, 4]), start_axis=1).shape
    [2, 12]
    """
    x = tensor_arg(x, "x", "flatten")
    return reshape_exact(x, _flattened_shape(x, start_axis, stop_axis, "flatten"))


def _axes_list(v, ndim, op, arg):
    axes = [normalize_axis(a, ndim, op, arg) for a in int_list(v, op, arg)]
    if len(set(axes)) != len(axes):
        raise ValueError(f"{op}: {arg} has repeated axes: {v}")
    return axes


def moveaxis(x, source, destination, name=None):
    """Move axes ``source`` to positions ``destination`` (ints or equal-length lists);
    the other axes keep their order.

    >>> import weft
    >>> weft.moveaxis(weft.ones([2, 3, 4]), 0, -1).shape
    [3, 4, 2]
    """
    x = tensor_arg(x, "x", "moveaxis")
    nd = x.ndim
    src = _axes_list(source, nd, "moveaxis", "source")
    dst = _axes_list(destination, nd, "moveaxis", "destination")
    if len(src) != len(dst):
        raise ValueError(f"moveaxis: source has {len(src)} axes but destination has {len(dst)}")
    if nd == 0:
        return transpose(x, [])
    order = [i for i in range(nd) if i not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return transpose(x, order)


def swapaxes(x, axis0, axis1, name=None):
    """Exchange two axes (a :func:`weft.transpose` of two axes).

    >>> import weft
    >>> weft.swapaxes(weft.ones([2, 3, 4]), 0, 2).shape
    [4, 3, 2]
    """
    x = tensor_arg(x, "x", "swapaxes")
    nd = x.ndim
    a = normalize_axis(axis0, nd, "swapaxes", "axis0")
    b = normalize_axis(axis1, nd, "swapaxes", "axis1")
    perm = list(range(nd))
    if nd:
        perm[a], perm[b] = perm[b], perm[a]
    return transpose(x, perm)


def swapdims(x, dim0, dim1, name=None):
    """Torch-style name of :func:`swapaxes`."""
    return swapaxes(x, dim0, dim1)


def t(input, name=None):
    """Transpose of a matrix; 0-D and 1-D tensors are returned as they are.

    >>> import weft
    >>> weft.t(weft.ones([2, 3])).shape
    [3, 2]
    """
    x = tensor_arg(input, "input", "t")
    if x.ndim > 2:
        raise ValueError(f"t: input must have at most 2 dimensions, got shape {x.shape}; use "
                         "transpose for higher ranks")
    return x if x.ndim < 2 else transpose(x, [1, 0])


# ---------------------------------------------------------------------------------
# broadcasting

def expand_as(x, y, name=None):
    """``x`` broadcast to the shape of ``y`` (``y`` only provides the shape)."""
    x = tensor_arg(x, "x", "expand_as")
    y = tensor_arg(y, "y", "expand_as")
    return broadcast_to(x, y.shape)


def _broadcast_shapes(shapes, op, names):
    nd = max(len(s) for s in shapes)
    out = [1] * nd
    for s, nm in zip(shapes, names):
        for i, v in enumerate(s):
            j = nd - len(s) + i
            if v == out[j] or v == 1:
                continue
            if out[j] == 1:
                out[j] = v
            else:
                raise ValueError(f"{op}: {nm} of shape {list(s)} does not broadcast with the "
                                 f"shapes before it (dimension {j}: {v} vs {out[j]})")
    return out


def broadcast_shape(x_shape, y_shape):
    """The shape two shapes broadcast to (numpy rules), as a list.

    >>> import weft
    >>> weft.broadcast_shape([2, 1, 3], [4, 1])
    [2, 4, 3]
    """
    xs = shape_arg(x_shape, "broadcast_shape", "x_shape")
    ys = shape_arg(y_shape, "broadcast_shape", "y_shape")
    for nm, s in (("x_shape", xs), ("y_shape", ys)):
        if any(v < 0 for v in s):
            raise ValueError(f"broadcast_shape: {nm} has negative sizes: {s}")
    return _broadcast_shapes([xs, ys], "broadcast_shape", ["x_shape", "y_shape"])


def broadcast_tensors(input, name=None):
    """Broadcast a list of tensors against each other; returns a list.

    >>> import weft
    >>> [t.shape for t in weft.broadcast_tensors([weft.ones([2, 1]), weft.ones([3])])]
    [[2, 3], [2, 3]]
    """
    ts = tensor_list(input, "broadcast_tensors", "input", promote=False)
    shape = _broadcast_shapes([t.shape for t in ts], "broadcast_tensors",
                              [f"input[{i}]" for i in range(len(ts))])
    return [broadcast_to(t, shape) for t in ts]


# ---------------------------------------------------------------------------------
# repetition

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
        return apply(_repeat_int, x, r=int(reps[0]), axis=axis)
    if reps.size != d:
        raise ValueError(f"repeat_interleave: repeats has {reps.size} entries but axis {axis} "
                         f"of x has size {d}")
    return apply(_repeat_arr, x, reps=reps, axis=axis)


# ---------------------------------------------------------------------------------
# reversal and rotation

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
    return apply(_flip, x, axis=normalize_axes(axis, x.ndim, "flip"))


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


# ---------------------------------------------------------------------------------
# complex <-> real pairs

def as_complex(x, name=None):
    """View pairs along the last axis (size 2) of a float tensor as complex numbers:
    ``[..., 2]`` float32/float64 -> ``[...]`` complex64/complex128.

    >>> import weft
    >>> weft.as_complex(weft.to_tensor([[1.0, 2.0], [3.0, -1.0]])).tolist()
    [(1+2j), (3-1j)]
    """
    x = tensor_arg(x, "x", "as_complex")
    if x._data.dtype not in (np.float32, np.float64):
        raise TypeError(f"as_complex: x must be float32 or float64, got {x.dtype.name}")
    if x.ndim == 0 or x.shape[-1] != 2:
        raise ValueError(f"as_complex: the last dimension of x must have size 2, got shape "
                         f"{x.shape}")
    return apply(_as_complex, x)


def as_real(x, name=None):
    """Split complex numbers into (real, imag) pairs along a new last axis:
    ``[...]`` complex -> ``[..., 2]`` float.

    >>> import weft
    >>> weft.as_real(weft.to_tensor([1 + 2j])).tolist()
    [[1.0, 2.0]]
    """
    x = tensor_arg(x, "x", "as_real")
    if x._data.dtype.kind != "c":
        raise TypeError(f"as_real: x must be complex64 or complex128, got {x.dtype.name}")
    return apply(_as_real, x)


_OWN = ["reshape_", "view", "view_as", "flatten", "flatten_", "moveaxis", "swapaxes",
        "swapdims", "t", "expand_as", "broadcast_shape", "broadcast_tensors", "tile",
        "repeat_interleave", "flip", "rot90", "roll", "as_complex", "as_real", "squeeze_",
        "unsqueeze_"]
for _n in _shape_join.__all__:
    globals()[_n] = getattr(_shape_join, _n)
__all__ = _OWN + list(_shape_join.__all__)
__tensor_methods__ = {n: globals()[n] for n in _OWN
                      if n not in ("broadcast_shape", "broadcast_tensors")}
__tensor_methods__.update(_shape_join.__tensor_methods__)
