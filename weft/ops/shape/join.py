"""Joining, splitting and slicing: concat/stack and their variants, split/chunk/unbind,
slice, strided_slice and crop."""
from __future__ import annotations

import functools
import numpy as np

from ...autograd.engine import apply, defbatch, deflinear, defvjp, Primitive
from ...core.args import normalize_axis, slice_bounds, tensor_arg, xp_of
from ...core.tensor import Tensor
from ._helpers import aliases, int_list, pyslice, tensor_list
from .views import reshape_exact


_ALL = pyslice(None)


def _take_fwd(x, idx):
    # the trailing Ellipsis keeps an all-int index a 0-D array instead of a scalar
    return x[idx + (Ellipsis,)].copy()


def _embed_fwd(g, shape, idx):
    z = xp_of(g).zeros(shape, dtype=g.dtype)
    z[idx] = g
    return z


_take = Primitive("slice", _take_fwd)
_embed = Primitive("slice_grad", _embed_fwd)
defvjp(_take, lambda g, ans, x, idx: apply(_embed, g, shape=tuple(x.shape), idx=idx),
       save=(), save_out=False)
defvjp(_embed, lambda g, ans, gx, shape, idx: apply(_take, g, idx=idx), save=(), save_out=False)


# batched cotangents (autograd.engine.defbatch): every index and axis moves one to the
# right, behind the batch axis
defbatch(_take, lambda g, ans, x, idx: apply(_embed, g, shape=tuple(g.shape[:1] + x.shape),
                                             idx=(_ALL,) + idx))
defbatch(_embed, lambda g, ans, gx, shape, idx: apply(_take, g, idx=(_ALL,) + idx))
# forward mode: slicing, joining and splitting are linear, their own jvps
deflinear(_take)
deflinear(_embed)


def take(x, idx):
    """``x[idx]`` for a tuple of slices and ints, as a differentiable copy."""
    return apply(_take, x, idx=tuple(idx))


def _axis_index(axis, sl):
    return (_ALL,) * axis + (sl,)


@functools.lru_cache(maxsize=512)
def _concat_prim(n):
    """The concat primitive for ``n`` inputs (the engine wants one vjp per input)."""
    p = Primitive("concat", lambda *xs, axis, offsets: np.concatenate(xs, axis=axis),
                  family=True)

    def rule(i):
        return lambda g, ans, *xs, axis, offsets: take(
            g, _axis_index(axis, pyslice(offsets[i], offsets[i + 1])))

    def brule(i):
        return lambda g, ans, *xs, axis, offsets: take(
            g, _axis_index(axis + 1, pyslice(offsets[i], offsets[i + 1])))
    defvjp(p, *[rule(i) for i in range(n)], save=(), save_out=False)
    deflinear(p)
    return defbatch(p, *[brule(i) for i in range(n)])


def _concat(ts, axis):
    offsets = [0]
    for t in ts:
        offsets.append(offsets[-1] + t._data.shape[axis])
    return apply(_concat_prim(len(ts)), *ts, axis=axis, offsets=tuple(offsets))


@functools.lru_cache(maxsize=512)
def _stack_prim(n):
    p = Primitive("stack", lambda *xs, axis: np.stack(xs, axis=axis), family=True)

    def rule(i):
        return lambda g, ans, *xs, axis: take(g, _axis_index(axis, i))

    def brule(i):
        return lambda g, ans, *xs, axis: take(g, _axis_index(axis + 1, i))
    defvjp(p, *[rule(i) for i in range(n)], save=(), save_out=False)
    deflinear(p)
    return defbatch(p, *[brule(i) for i in range(n)])


def _tiles(bounds, size):
    """Whether the pieces ``bounds`` cover [0, size) in order, without gaps or overlap."""
    pos = 0
    for a, b in bounds:
        if a != pos:
            return False
        pos = b
    return pos == size


def _split_vjp(g, ans, x, axis, bounds, batch=()):
    # batch: the leading batch axis of a batched pass, () otherwise
    if _tiles(bounds, x.shape[axis]):
        return _concat(g, axis + len(batch))
    # overlapping or gappy pieces (tensor_split with unsorted indices): sum of embeddings
    shape = tuple(batch) + tuple(x.shape)
    total = None
    for gi, (a, b) in zip(g, bounds):
        e = apply(_embed, gi, shape=shape, idx=(_ALL,) * len(batch) +
                  _axis_index(axis, pyslice(a, b)))
        total = e if total is None else total + e
    return total


@functools.lru_cache(maxsize=512)
def _split_prim(k):
    p = Primitive("split", lambda x, axis, bounds: tuple(
        x[_axis_index(axis, pyslice(a, b))].copy() for a, b in bounds), n_out=k, family=True)
    defvjp(p, _split_vjp, save=(), save_out=False)
    deflinear(p)
    return defbatch(p, lambda g, ans, x, axis, bounds:
                    _split_vjp(g, ans, x, axis, bounds, batch=g[0].shape[:1]))


@functools.lru_cache(maxsize=512)
def _unbind_prim(k):
    p = Primitive("unbind", lambda x, axis: tuple(
        x[_axis_index(axis, j) + (Ellipsis,)].copy() for j in range(k)), n_out=k, family=True)
    defvjp(p, lambda g, ans, x, axis: apply(_stack_prim(len(g)), *g, axis=axis),
           save=(), save_out=False)
    deflinear(p)
    return defbatch(p, lambda g, ans, x, axis: apply(_stack_prim(len(g)), *g, axis=axis + 1))


def _check_same_rank(ts, op, arg="x"):
    nd = ts[0].ndim
    for i, t in enumerate(ts):
        if t.ndim != nd:
            raise ValueError(f"{op}: {arg}[{i}] has {t.ndim} dimension(s) but {arg}[0] has "
                             f"{nd}; all tensors need the same number of dimensions")
    return nd


@aliases(dim="axis", tensors="x")
def concat(x, axis=0, name=None):
    """Join a list of tensors along an existing ``axis``; dtypes are promoted to a common one.

    All tensors need the same number of dimensions (at least one) and the same sizes
    except along ``axis``.

    >>> import weft
    >>> a, b = weft.ones([2, 1]), weft.zeros([2, 2])
    >>> weft.concat([a, b], axis=1).tolist()
    [[1.0, 0.0, 0.0], [1.0, 0.0, 0.0]]
    """
    ts = tensor_list(x, "concat")
    nd = _check_same_rank(ts, "concat")
    if nd == 0:
        raise ValueError("concat: 0-D tensors cannot be concatenated; use stack, or reshape "
                         "them to [1] first")
    axis = normalize_axis(axis, nd, "concat")
    s0 = ts[0].shape
    for i, t in enumerate(ts[1:], 1):
        s = t.shape
        if any(s[k] != s0[k] for k in range(nd) if k != axis):
            raise ValueError(f"concat: x[{i}] has shape {s} but x[0] has shape {s0}; all "
                             f"dimensions except axis {axis} must match")
    return _concat(ts, axis)


@aliases(dim="axis", tensors="x")
def stack(x, axis=0, name=None):
    """Join same-shaped tensors along a new ``axis`` (in ``[-(ndim+1), ndim]``).

    >>> import weft
    >>> weft.stack([weft.to_tensor([1, 2]), weft.to_tensor([3, 4])], axis=1).tolist()
    [[1, 3], [2, 4]]
    """
    ts = tensor_list(x, "stack")
    s0 = ts[0].shape
    for i, t in enumerate(ts[1:], 1):
        if t.shape != s0:
            raise ValueError(f"stack: x[{i}] has shape {t.shape} but x[0] has shape {s0}; "
                             "all tensors must have the same shape")
    axis = normalize_axis(axis, len(s0) + 1, "stack")
    return apply(_stack_prim(len(ts)), *ts, axis=axis)


def _atleast(t, n, where):
    """Reshape ``t`` to at least ``n`` dims, new unit dims at the positions numpy uses."""
    s = t.shape
    if len(s) >= n:
        return t
    if n == 1:
        return reshape_exact(t, [1])
    if n == 2:
        return reshape_exact(t, [1] * (2 - len(s)) + s)
    new = {0: [1, 1, 1], 1: [1] + s + [1], 2: s + [1]}[len(s)]
    return reshape_exact(t, new)


def hstack(x, name=None):
    """Concatenate column-wise: 1-D tensors end to end, others along axis 1.

    >>> import weft
    >>> weft.hstack([weft.to_tensor([1, 2]), weft.to_tensor([3])]).tolist()
    [1, 2, 3]
    """
    ts = [_atleast(t, 1, 0) for t in tensor_list(x, "hstack")]
    return concat(ts, axis=0 if ts[0].ndim == 1 else 1)


def vstack(x, name=None):
    """Concatenate row-wise (axis 0) after making every tensor at least 2-D.

    >>> import weft
    >>> weft.vstack([weft.to_tensor([1, 2]), weft.to_tensor([3, 4])]).shape
    [2, 2]
    """
    ts = [_atleast(t, 2, 0) for t in tensor_list(x, "vstack")]
    return concat(ts, axis=0)


row_stack = vstack


def dstack(x, name=None):
    """Concatenate depth-wise (axis 2) after making every tensor at least 3-D
    (``[n] -> [1, n, 1]``, ``[m, n] -> [m, n, 1]``)."""
    ts = [_atleast(t, 3, 0) for t in tensor_list(x, "dstack")]
    return concat(ts, axis=2)


def column_stack(x, name=None):
    """Stack 1-D tensors as the columns of a 2-D tensor (2-D ones are concatenated)."""
    ts = tensor_list(x, "column_stack")
    ts = [reshape_exact(t, [t.size, 1]) if t.ndim < 2 else t for t in ts]
    return concat(ts, axis=1)


def _split_bounds(bounds, x, axis):
    if len(bounds) == 1:
        a, b = bounds[0]
        return [take(x, _axis_index(axis, pyslice(a, b)))]
    return list(apply(_split_prim(len(bounds)), x, axis=axis, bounds=tuple(bounds)))


def _bounds_from_sizes(sizes):
    out, pos = [], 0
    for s in sizes:
        out.append((pos, pos + s))
        pos += s
    return out


@aliases(dim="axis", input="x", tensor="x")
def split(x, num_or_sections, axis=0, name=None):
    """Cut ``x`` along ``axis`` into a list of tensors.

    ``num_or_sections``: an int ``n`` (the axis must divide evenly into ``n`` pieces),
    or a list of section sizes that sum to the axis size, one of which may be -1
    (inferred).

    >>> import weft
    >>> [t.tolist() for t in weft.split(weft.arange(5), [2, -1])]
    [[0, 1], [2, 3, 4]]
    """
    x = tensor_arg(x, "x", "split")
    if x.ndim == 0:
        raise ValueError("split: x is 0-D; it has no axis to split")
    axis = normalize_axis(axis, x.ndim, "split")
    d = x.shape[axis]
    if isinstance(num_or_sections, (int, np.integer)) and not isinstance(num_or_sections, bool):
        n = int(num_or_sections)
        if n <= 0:
            raise ValueError(f"split: num_or_sections must be positive, got {n}")
        if d % n:
            raise ValueError(f"split: axis {axis} of size {d} cannot be split into {n} equal "
                             "sections")
        sizes = [d // n] * n
    else:
        if isinstance(num_or_sections, Tensor) and num_or_sections.ndim == 0:
            raise TypeError("split: num_or_sections must be an int or a list of ints, got a "
                            "0-D Tensor")
        sizes = int_list(num_or_sections, "split", "num_or_sections")
        if not sizes:
            raise ValueError("split: num_or_sections is an empty list")
        if sizes.count(-1) > 1:
            raise ValueError(f"split: at most one section may be -1, got {sizes}")
        for i, s in enumerate(sizes):
            if s < -1:
                raise ValueError(f"split: num_or_sections[{i}] = {s} is negative")
        known = sum(s for s in sizes if s != -1)
        if -1 in sizes:
            if known > d:
                raise ValueError(f"split: sections {sizes} need at least {known} elements but "
                                 f"axis {axis} has size {d}")
            sizes[sizes.index(-1)] = d - known
        elif known != d:
            raise ValueError(f"split: sections {sizes} sum to {known} but axis {axis} has "
                             f"size {d}")
    return _split_bounds(_bounds_from_sizes(sizes), x, axis)


@aliases(dim="axis", input="x")
def chunk(x, chunks, axis=0, name=None):
    """Cut ``x`` into ``chunks`` equal pieces along ``axis`` (the size must divide evenly,
    as in Paddle).

    >>> import weft
    >>> len(weft.chunk(weft.ones([4, 6]), 3, axis=1))
    3
    """
    if not isinstance(chunks, (int, np.integer)) or isinstance(chunks, bool):
        raise TypeError(f"chunk: chunks must be an int, got {type(chunks).__name__}")
    return split(x, int(chunks), axis)


@aliases(dim="axis", input="x")
def tensor_split(x, num_or_indices, axis=0, name=None):
    """Cut ``x`` like numpy's ``array_split``: an int ``n`` gives ``n`` pieces whose sizes
    differ by at most one (the first ones larger); a list gives the cut indices.

    >>> import weft
    >>> [t.shape for t in weft.tensor_split(weft.ones([5]), 3)]
    [[2], [2], [1]]
    """
    x = tensor_arg(x, "x", "tensor_split")
    if x.ndim == 0:
        raise ValueError("tensor_split: x is 0-D; it has no axis to split")
    axis = normalize_axis(axis, x.ndim, "tensor_split")
    d = x.shape[axis]
    if isinstance(num_or_indices, (int, np.integer)) and not isinstance(num_or_indices, bool):
        n = int(num_or_indices)
        if n <= 0:
            raise ValueError(f"tensor_split: num_or_indices must be positive, got {n}")
        q, r = divmod(d, n)
        return _split_bounds(_bounds_from_sizes([q + 1] * r + [q] * (n - r)), x, axis)
    idx = int_list(num_or_indices, "tensor_split", "num_or_indices")
    cuts = [0] + idx + [d]
    # Python slice semantics for each [cut_i, cut_i+1), as numpy does
    bounds = [pyslice(a, b).indices(d)[:2] for a, b in zip(cuts[:-1], cuts[1:])]
    bounds = [(a, max(a, b)) for a, b in bounds]
    return _split_bounds(bounds, x, axis)


def _split_dir(x, num_or_indices, axis, op, min_dim):
    x = tensor_arg(x, "x", op)
    if x.ndim < min_dim:
        raise ValueError(f"{op}: x needs at least {min_dim} dimension(s), got shape {x.shape}")
    return tensor_split(x, num_or_indices, axis)


def hsplit(x, num_or_indices, name=None):
    """``tensor_split`` along axis 1 (axis 0 for 1-D ``x``)."""
    x = tensor_arg(x, "x", "hsplit")
    return _split_dir(x, num_or_indices, 0 if x.ndim == 1 else 1, "hsplit", 1)


def vsplit(x, num_or_indices, name=None):
    """``tensor_split`` along axis 0 of an at least 2-D ``x``."""
    return _split_dir(x, num_or_indices, 0, "vsplit", 2)


def dsplit(x, num_or_indices, name=None):
    """``tensor_split`` along axis 2 of an at least 3-D ``x``."""
    return _split_dir(x, num_or_indices, 2, "dsplit", 3)


@aliases(dim="axis", x="input")
def unbind(input, axis=0):
    """Remove ``axis``, returning the list of slices along it.

    >>> import weft
    >>> [t.tolist() for t in weft.unbind(weft.to_tensor([[1, 2], [3, 4]]), axis=1)]
    [[1, 3], [2, 4]]
    """
    x = tensor_arg(input, "input", "unbind")
    return _unbind(x, axis, "unbind")


def _unbind(x, axis, op):
    if x.ndim == 0:
        raise ValueError(f"{op}: the input is 0-D; it has no axis to unbind")
    axis = normalize_axis(axis, x.ndim, op)
    k = x.shape[axis]
    if k == 0:
        return []
    if k == 1:
        return [take(x, _axis_index(axis, 0))]
    return list(apply(_unbind_prim(k), x, axis=axis))


@aliases(dim="axis", input="x")
def unstack(x, axis=0, num=None):
    """Paddle's ``unstack``: :func:`unbind` with an optional check that ``num`` equals the
    size of ``axis``."""
    x = tensor_arg(x, "x", "unstack")
    if num is not None:
        if x.ndim == 0:
            raise ValueError("unstack: x is 0-D; it has no axis to unstack")
        a = normalize_axis(axis, x.ndim, "unstack")
        if int(num) != x.shape[a]:
            raise ValueError(f"unstack: num = {num} but axis {a} of x has size {x.shape[a]}")
    return _unbind(x, axis, "unstack")


def _slice_args(x, axes, starts, ends, op, strides=None):
    if not isinstance(axes, (list, tuple)):
        raise TypeError(f"{op}: axes must be a list or tuple of ints, got {type(axes).__name__}")
    axes = int_list(list(axes), op, "axes")
    starts = int_list(starts, op, "starts")
    ends = int_list(ends, op, "ends")
    lists = [("starts", starts), ("ends", ends)]
    if strides is not None:
        strides = int_list(strides, op, "strides")
        lists.append(("strides", strides))
    for nm, v in lists:
        if len(v) != len(axes):
            raise ValueError(f"{op}: {nm} has {len(v)} entries but axes has {len(axes)}")
    if x.ndim == 0 and axes:
        raise ValueError(f"{op}: a 0-D tensor cannot be sliced (axes = {axes})")
    axes = [normalize_axis(a, x.ndim, op, "axes") for a in axes]
    if len(set(axes)) != len(axes):
        raise ValueError(f"{op}: axes has repeated entries: {axes}")
    return axes, starts, ends, strides


def slice(input, axes, starts, ends):
    """Slice ``input`` along ``axes`` from ``starts`` to ``ends`` (Paddle semantics).

    Negative ``starts``/``ends`` count from the end; values past either end are
    clamped to ``[0, size]`` (use a large ``ends`` for "to the end"). After
    clamping, an ``end`` before its ``start`` is an error, as in Paddle; equal
    ones give an empty axis. ``starts``/``ends`` may be lists of ints or 0-D
    Tensors, or 1-D integer Tensors.

    >>> import weft
    >>> x = weft.to_tensor([[1, 2, 3, 4], [5, 6, 7, 8]])
    >>> weft.slice(x, axes=[0, 1], starts=[0, 1], ends=[-1, 1000]).tolist()
    [[2, 3, 4]]
    """
    x = tensor_arg(input, "input", "slice")
    axes, starts, ends, _ = _slice_args(x, axes, starts, ends, "slice")
    idx = [_ALL] * x.ndim
    for a, s, e in zip(axes, starts, ends):
        s, e = slice_bounds(s, e, x.shape[a], a, "slice")
        idx[a] = pyslice(s, e)
    return take(x, idx)


def strided_slice(x, axes, starts, ends, strides, name=None):
    """Slice with steps along ``axes`` (Paddle semantics).

    Negative ``starts``/``ends`` count from the end and are clamped at the ends of
    the axis. With a negative stride the walk goes from ``start`` down to, not
    including, ``end``; ``end = -1`` then means "through index 0". A start on the
    wrong side of the end for the stride's sign is an error.

    >>> import weft
    >>> x = weft.arange(6)
    >>> weft.strided_slice(x, axes=[0], starts=[5], ends=[-1], strides=[-2]).tolist()
    [5, 3, 1]
    """
    x = tensor_arg(x, "x", "strided_slice")
    axes, starts, ends, strides = _slice_args(x, axes, starts, ends, "strided_slice", strides)
    idx = [_ALL] * x.ndim
    for a, s, e, st in zip(axes, starts, ends, strides):
        d = x.shape[a]
        if st == 0:
            raise ValueError(f"strided_slice: strides for axis {a} is 0")
        if d == 0:
            continue
        if s < 0:
            s = max(s + d, 0)
        stop_at_zero = e == -1 and st < 0
        if e < 0 and not stop_at_zero:
            e = max(e + d, 0)
        if st > 0:
            if s > e:
                raise ValueError(f"strided_slice: on axis {a} the start {s} is after the end {e} "
                                 f"for the positive stride {st}")
            idx[a] = pyslice(min(s, d), min(e, d), st)
        else:
            if s < e:
                raise ValueError(f"strided_slice: on axis {a} the start {s} is before the end "
                                 f"{e} for the negative stride {st}")
            idx[a] = pyslice(min(s, d - 1), None if stop_at_zero else e, st)
    return take(x, idx)


def crop(x, shape=None, offsets=None, name=None):
    """The block of ``x`` of size ``shape`` starting at ``offsets`` (default 0s).

    A -1 in ``shape`` means "to the end" (``x.shape[i] - offsets[i]``); ``shape=None``
    keeps ``x``'s shape. The block must lie inside ``x``.

    >>> import weft
    >>> x = weft.arange(9).reshape([3, 3])
    >>> weft.crop(x, shape=[2, -1], offsets=[1, 1]).tolist()
    [[4, 5], [7, 8]]
    """
    x = tensor_arg(x, "x", "crop")
    xs = x.shape
    nd = len(xs)
    shp = list(xs) if shape is None else int_list(shape, "crop", "shape")
    off = [0] * nd if offsets is None else int_list(offsets, "crop", "offsets")
    for nm, v in (("shape", shp), ("offsets", off)):
        if len(v) != nd:
            raise ValueError(f"crop: {nm} has {len(v)} entries but x has {nd} dimension(s)")
    idx = []
    for i in range(nd):
        o, s = off[i], shp[i]
        if o < 0:
            raise ValueError(f"crop: offsets[{i}] = {o} is negative")
        if s == -1:
            s = xs[i] - o
        if s < 0:
            raise ValueError(f"crop: shape[{i}] = {shp[i]} must be -1 or non-negative")
        if o + s > xs[i]:
            raise ValueError(f"crop: offsets[{i}] + shape[{i}] = {o} + {s} exceeds x.shape[{i}] "
                             f"= {xs[i]}")
        idx.append(pyslice(o, o + s))
    return take(x, idx)


# the arity families are declared when the module loads, so weft.autograd.rules() lists them
for _k in (2,):
    _concat_prim(_k), _stack_prim(_k), _split_prim(_k), _unbind_prim(_k)
del _k
__all__ = ["concat", "stack", "hstack", "vstack", "dstack", "row_stack", "column_stack", "split", "chunk", "tensor_split", "hsplit", "vsplit", "dsplit", "unbind", "unstack", "slice", "strided_slice", "crop"]
__tensor_methods__ = {"split": split, "chunk": chunk, "tensor_split": tensor_split, "hsplit": hsplit, "vsplit": vsplit, "dsplit": dsplit, "unbind": unbind, "unstack": unstack, "slice": slice, "strided_slice": strided_slice, "crop": crop}
