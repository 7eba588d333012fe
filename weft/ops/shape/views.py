"""Ops that re-view the same elements: reshape, flatten, squeeze/unsqueeze, transpose and
axis moves, broadcasting and expansion, complex/real views (and their in-place forms)."""
from __future__ import annotations

import numpy as np

from ...autograd.engine import apply, defbatch, deflinear, defvjp, Primitive
from ...autograd.inplace import check_inplace_leaf
from ...core.args import dtype_arg, normalize_axes, normalize_axis, shape_arg, tensor_arg, xp_of
from ...core.tensor import Tensor
from ._helpers import aliases, int_list, tensor_list


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


def _cplx_of(d):
    return np.complex64 if d == np.float32 else np.complex128


def _as_complex_fwd(x):
    # a contiguous [..., 2] float block is exactly the memory layout of [...] complex
    return xp_of(x).ascontiguousarray(x).view(_cplx_of(x.dtype))[..., 0].copy()


_as_complex = Primitive("as_complex", _as_complex_fwd)
_as_real = Primitive("as_real", lambda x: np.stack([x.real, x.imag], axis=-1))
_no_save = dict(save=(), save_out=False)


# with grad = dL/dRe + i dL/dIm, the pair (Re, Im) of a complex cotangent is the
# cotangent of the [..., 2] real view, and back
defvjp(_as_complex, lambda g, ans, x: apply(_as_real, g), **_no_save)
defvjp(_as_real, lambda g, ans, x: apply(_as_complex, g), **_no_save)
# forward mode: every op of this module is linear, its own jvp (autograd.engine.deflinear)
for _p in (_reshape, _broadcast_to, _transpose, _as_complex, _as_real):
    deflinear(_p)


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


# flip lives with the views (numpy's flip is one); the reductions' reverse scans use it
_flip = Primitive("flip", lambda x, axis: xp_of(x).flip(x, axis).copy())
defvjp(_flip, lambda g, ans, x, axis: apply(_flip, g, axis=axis), **_no_save)
deflinear(_flip)


def flip_axes(x, axes):
    """Differentiable reversal of ``x`` along ``axes`` (an int or a tuple of valid axes)."""
    return apply(_flip, x, axis=axes)


__all__ = ["reshape", "broadcast_to", "expand", "unsqueeze", "squeeze", "reshape_", "squeeze_", "unsqueeze_", "flatten_", "view", "view_as", "flatten", "moveaxis", "swapaxes", "swapdims", "expand_as", "broadcast_shape", "broadcast_tensors", "as_complex", "as_real", "t", "transpose"]
__tensor_methods__ = {"reshape": reshape, "broadcast_to": broadcast_to, "expand": expand, "transpose": transpose, "unsqueeze": unsqueeze, "squeeze": squeeze, "reshape_": reshape_, "view": view, "view_as": view_as, "flatten": flatten, "flatten_": flatten_, "moveaxis": moveaxis, "swapaxes": swapaxes, "swapdims": swapdims, "t": t, "expand_as": expand_as, "as_complex": as_complex, "as_real": as_real, "squeeze_": squeeze_, "unsqueeze_": unsqueeze_}
