"""The gather/scatter primitives that every part of weft shares.

Indexing, shape, reduction, sorting, pad, nn and sparse code all move values by index;
they do it through these few primitives, so each derivative rule is written once. The
primitives come in adjoint pairs, each the other's vjp, which makes every order of
derivative work:

=====================================  ==============================================
``take(x, index, axis)``               ``index_add_zeros(src, index, axis, shape)``
rows of ``x`` at ``index`` along       zeros of ``shape`` plus the rows of ``src``
``axis`` (any index shape)             added at ``index`` (duplicates accumulate)
``take_along(x, idx, axis)``           ``put_along_add(src, idx, axis, shape)``
one entry per position along ``axis``  zeros plus ``src`` added at ``idx`` along ``axis``
``diagonal(x, offset, axis1, axis2)``  ``diag_embed(v, offset, axis1, axis2, shape)``
=====================================  ==============================================

plus ``index_add(base, src, index, axis)`` (``base`` plus rows) and ``copy(x)``. An index
is a non-negative integer Tensor or backend array that the caller has checked against
its bound; these functions do no argument checking of their own.
"""
from __future__ import annotations

import numpy as np

from .._native import index_add_ as _native_index_add
from ..autograd.engine import Primitive, apply, defbatch, deflinear, defvjp, support
from ..core.args import xp_of
from ..core.scatter import add_at
from ..core.tensor import Tensor

# dtypes the native index_add_ kernel takes (parallel, and bit-identical to np.add.at)
_NATIVE_DTYPES = frozenset(np.dtype(d) for d in ("float32", "float64", "complex64",
                                                 "complex128", "int32", "int64"))
# rules that read neither their inputs' values nor the output
_LINEAR = dict(save=(), save_out=False)


def _array(a):
    return a._data if isinstance(a, Tensor) else a


def _axis_key(axis, index):
    return (slice(None),) * axis + (index,)


def _scatter_add(out, index, src, axis):
    """``out[..., index[k], ...] += src[..., k, ...]`` along ``axis``, in place."""
    if type(out) is np.ndarray:
        if src.dtype in _NATIVE_DTYPES and index.dtype.kind in "iu" and out.shape[axis]:
            # the kernel adds whole rows of a C-contiguous [n, ...] array: bring the axis
            # to the front, add, and move it back
            front = np.ascontiguousarray(np.moveaxis(out, axis, 0))
            _native_index_add(front, index, np.moveaxis(src, axis, 0) if axis else src)
            out[...] = np.moveaxis(front, 0, axis)
            return out
    return add_at(out, _axis_key(axis, index), src)


def _index_add_fwd(base, src, index, axis):
    index = index.reshape(-1)
    if type(base) is np.ndarray and src.dtype in _NATIVE_DTYPES and axis == 0 and \
            index.dtype.kind in "iu" and base.flags.c_contiguous:
        out = base.copy()  # already row-major along axis 0: add straight into the copy
        if index.size:
            _native_index_add(out, index, src)
        return out
    return _scatter_add(base.copy(), index, src, axis)


def index_add_zeros_array(src, index, axis, shape):
    """The forward of :func:`index_add_zeros` on backend arrays (for code that needs the
    values without a graph)."""
    out = xp_of(src).zeros(shape, dtype=src.dtype)
    if src.size == 0:
        return out
    index = index.reshape(-1)
    if type(src) is np.ndarray and src.dtype in _NATIVE_DTYPES and axis == 0 and \
            index.dtype.kind in "iu":
        return _native_index_add(out, index, src)
    return _scatter_add(out, index, src, axis)


def _along_key(xp, idx, axis):
    """The advanced-index tuple that addresses ``idx[..., k, ...]`` along ``axis``."""
    key = []
    for d in range(idx.ndim):
        if d == axis:
            key.append(idx)
        else:
            shape = [1] * idx.ndim
            shape[d] = idx.shape[d]
            key.append(xp.arange(idx.shape[d]).reshape(shape))
    return tuple(key)


def _put_along_add_fwd(src, idx, axis, shape):
    xp = xp_of(src)
    out = xp.zeros(shape, dtype=src.dtype)
    if src.size:
        add_at(out, _along_key(xp, idx, axis), src)
    return out


def _diagonal_fwd(x, offset, axis1, axis2):
    # a copy: weft has no aliasing views, so a later in-place write to x must not show
    return x.diagonal(offset, axis1, axis2).copy()


def _diag_embed_fwd(v, offset, axis1, axis2, shape, fill):
    """An array of ``shape`` holding ``fill`` whose (axis1, axis2) diagonal at ``offset``
    holds the last axis of ``v`` (its other axes are the batch)."""
    xp = xp_of(v)
    batch = tuple(s for i, s in enumerate(shape) if i not in (axis1, axis2))
    out = xp.full(batch + (shape[axis1], shape[axis2]), fill, dtype=v.dtype)
    k = xp.arange(v.shape[-1])
    out[..., k + max(-offset, 0), k + max(offset, 0)] = v
    return xp.ascontiguousarray(xp.moveaxis(out, (-2, -1), (axis1, axis2)))


_take = Primitive("take", lambda x, index, axis: xp_of(x).take(x, index, axis=axis))
_index_add = Primitive("index_add", _index_add_fwd)
_index_add_zeros = Primitive("index_add_zeros", index_add_zeros_array)
_take_along = Primitive("take_along_axis",
                        lambda x, idx, axis: xp_of(x).take_along_axis(x, idx, axis))
_put_along_add = Primitive("put_along_add", _put_along_add_fwd)
_diagonal = Primitive("diagonal", _diagonal_fwd)
_diag_embed = Primitive("diag_embed", _diag_embed_fwd)
_copy = Primitive("assign", lambda x: x.copy())


def _flat(index):
    a = _array(index)
    return a if a.ndim == 1 else a.reshape(-1)


def _take_vjp(g, x, index, axis):
    # the rows of g that came from the same row of x accumulate there; a
    # multi-dimensional index spans several axes of g, merged into one first (by the
    # engine's reshape: shape ops build on this module, so it cannot import them)
    ni = _array(index).ndim
    if ni != 1:
        gs = g.shape
        g = support.reshape(g, gs[:axis] + [_array(index).size] + gs[axis + ni:])
    return index_add_zeros(g, _flat(index), axis, x.shape)


# derivative table: vjp(g, ans, *inputs, **params); indices never get a gradient
defvjp(_take, lambda g, ans, x, index, axis: _take_vjp(g, x, index, axis), None,
       save=(1,), save_out=False)
defvjp(_index_add, lambda g, ans, base, src, index, axis: g,
       lambda g, ans, base, src, index, axis: take(g, _flat(index), axis),
       None, save=(2,), save_out=False)
defvjp(_index_add_zeros, lambda g, ans, src, index, axis, shape: take(g, _flat(index), axis),
       None, save=(1,), save_out=False)
defvjp(_take_along, lambda g, ans, x, idx, axis: put_along_add(g, idx, axis, x.shape), None,
       save=(1,), save_out=False)
defvjp(_put_along_add, lambda g, ans, src, idx, axis, shape: take_along(g, idx, axis), None,
       save=(1,), save_out=False)
# the fill value sits off the diagonal, so it never reaches the gradient of v
defvjp(_diagonal, lambda g, ans, x, offset, axis1, axis2:
       diag_embed(g, offset, axis1, axis2, x.shape), **_LINEAR)
defvjp(_diag_embed, lambda g, ans, v, offset, axis1, axis2, shape, fill:
       diagonal(g, offset, axis1, axis2), **_LINEAR)
defvjp(_copy, lambda g, ans, x: g, **_LINEAR)
defbatch(_copy)
# forward mode: moving values by index is linear, each op its own jvp (the fill value
# of diag_embed is a constant: 0 for the tangent)
for _p in (_take, _index_add, _index_add_zeros, _take_along, _put_along_add, _diagonal, _copy):
    deflinear(_p)
deflinear(_diag_embed, zero=("fill",))


def take(x, index, axis):
    """Differentiable ``x.take(index, axis)``: ``index`` of any shape replaces ``axis``."""
    return apply(_take, x, index, axis=axis)


def index_add(base, src, index, axis):
    """Differentiable ``base`` plus the rows of ``src`` added at ``index`` along ``axis``."""
    return apply(_index_add, base, src, index, axis=axis)


def index_add_zeros(src, index, axis, shape):
    """Differentiable zeros of ``shape`` plus the rows of ``src`` (one per entry of the 1-D
    ``index``) added at ``index`` along ``axis``; repeated rows accumulate in order."""
    return apply(_index_add_zeros, src, index, axis=axis, shape=tuple(shape))


def take_along(x, idx, axis):
    """Differentiable ``take_along_axis(x, idx, axis)`` (``idx`` has ``x``'s ndim)."""
    return apply(_take_along, x, idx, axis=axis)


def put_along_add(src, idx, axis, shape):
    """Differentiable zeros of ``shape`` plus ``src`` added at ``idx`` along ``axis``."""
    return apply(_put_along_add, src, idx, axis=axis, shape=tuple(shape))


def diagonal(x, offset, axis1, axis2):
    """Differentiable diagonals of the (axis1, axis2) planes, as a new last axis."""
    return apply(_diagonal, x, offset=offset, axis1=axis1, axis2=axis2)


def diag_embed(v, offset, axis1, axis2, shape, fill=0):
    """Differentiable array of ``shape`` filled with ``fill`` whose (axis1, axis2)
    diagonal at ``offset`` holds the last axis of ``v``."""
    return apply(_diag_embed, v, offset=offset, axis1=axis1, axis2=axis2,
                 shape=tuple(shape), fill=fill)


def copy(x):
    """Differentiable copy of ``x`` (Paddle's ``assign``)."""
    return apply(_copy, x)


__all__ = ["take", "index_add", "index_add_zeros", "take_along", "put_along_add", "diagonal",
           "diag_embed", "copy"]
