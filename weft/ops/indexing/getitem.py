"""``Tensor.__getitem__`` / ``__setitem__`` with numpy semantics: ints, slices, ``None``,
``...``, bool masks and integer arrays, differentiable, bounds-checked."""
from __future__ import annotations

import numpy as np
import operator

from ...autograd.engine import apply, defbatch, deflinear, defvjp, Primitive
from ...autograd.grad_mode import mode
from ...autograd.inplace import inplace
from ...core.args import check_same_place, reject_sparse, tensor_arg, xp_of
from ...core.tensor import Tensor
from ..cast import cast
from ..primitives import take
from ..shape.views import broadcast_to, reshape_exact, transpose


def _is_np(a):
    return type(a) is np.ndarray


def _xp(a):
    return np if _is_np(a) else xp_of(a)


def _setitem_fwd(x, v, key, plan):
    out = x.copy()
    out[key] = v
    return out


def _setitem_zeros_fwd(v, key, plan, shape):
    out = _xp(v).zeros(shape, dtype=v.dtype)
    out[key] = v
    return out


def _getitem_basic_fwd(x, key):
    # a copy, not a view: weft has no aliasing views, so a later in-place write to x
    # must not show through the result
    return x[key].copy()


def _masked_expand_fwd(g, mask):
    out = _xp(g).zeros(mask.shape, dtype=g.dtype)
    out[mask] = g
    return out


_getitem_basic = Primitive("getitem", _getitem_basic_fwd)
setitem_p = Primitive("setitem", _setitem_fwd)
_setitem_zeros = Primitive("setitem_zeros", _setitem_zeros_fwd)
_masked_select = Primitive("masked_select", lambda x, mask: x[mask])
_masked_expand = Primitive("masked_expand", _masked_expand_fwd)
_lin = dict(save=(), save_out=False)
defvjp(_getitem_basic,
       lambda g, ans, x, key: apply(_setitem_zeros, g, key=key, plan=None, shape=x._data.shape),
       **_lin)
defvjp(_setitem_zeros, lambda g, ans, v, key, plan, shape: _gather_key(g, key, plan), **_lin)


# a batch of cotangents: the basic key applies behind the leading batch axis
defbatch(_getitem_basic, lambda g, ans, x, key: apply(
    _setitem_zeros, g, key=(slice(None),) + key, plan=None,
    shape=tuple(g._data.shape[:1]) + tuple(x._data.shape)))
defvjp(setitem_p,
       lambda g, ans, x, v, key, plan: apply(setitem_p, g, 0, key=key, plan=plan),
       lambda g, ans, x, v, key, plan: _gather_key(g, key, plan), **_lin)
defvjp(_masked_select, lambda g, ans, x, mask: apply(_masked_expand, g, mask), None,
       save=(1,), save_out=False)
defvjp(_masked_expand, lambda g, ans, gx, mask: apply(_masked_select, g, mask), None,
       save=(1,), save_out=False)
# forward mode: indexing is linear (setitem in x and the values jointly), its own jvp
for _p in (_getitem_basic, setitem_p, _setitem_zeros, _masked_select, _masked_expand):
    deflinear(_p)


def _gather_key(g, key, plan):
    """``g[key]`` for a key normalised by :func:`_parse_key` (the vjp of setitem)."""
    if plan is None:
        return apply(_getitem_basic, g, key=key)
    return _gather_plan(g, plan)


def index_arg(index, op, arg="index", like=None):
    """An integer index tensor: lists become int64, floats and bools are a TypeError."""
    if isinstance(index, (list, tuple)) and len(index) == 0:
        index = np.zeros(0, dtype=np.int64)
    t = tensor_arg(index, arg, op)
    k = t._data.dtype.kind
    if k not in "iu":
        what = "bool" if k == "b" else t._data.dtype.name
        raise TypeError(f"{op}: {arg} must be an integer tensor (int32 or int64), got {what}")
    if like is not None:
        check_same_place(like, t, op)
    return t


def _position(bad, xp):
    flat = int(xp.argmax(bad.reshape(-1)))
    if bad.ndim <= 1:
        return str(flat)
    return ", ".join(str(int(i)) for i in np.unravel_index(flat, bad.shape))


def check_range(a, n, op, arg, axis, negative=False):
    """Validate the integer array ``a`` against a dimension of size ``n``.

    Entries must lie in ``[0, n)``, or ``[-n, n)`` when ``negative`` (then they are
    wrapped, in a copy only when some entry is negative). Raises IndexError naming
    the first offending entry.
    """
    if a.size == 0:
        return a
    lo, hi = int(a.min()), int(a.max())
    low = -n if negative else 0
    if lo < low or hi >= n:
        xp = _xp(a)
        bad = (a < low) | (a >= n)
        pos = _position(bad, xp)
        val = int(a.reshape(-1)[int(xp.argmax(bad.reshape(-1)))])
        rng = f"[{-n}, {n})" if negative else f"[0, {n})"
        raise IndexError(f"{op}: {arg}[{pos}] = {val} is out of range for axis {axis} of "
                         f"size {n} (expected in {rng})")
    if negative and lo < 0:
        a = _xp(a).where(a < 0, a + n, a)
    return a


def _to_device(a, x, op):
    """An index array on the device of ``x``."""
    if _is_np(x):
        if not _is_np(a):
            raise ValueError(f"{op}: the index lives on the GPU but the tensor on the CPU")
        return a
    if _is_np(a):
        return xp_of(x).asarray(a)
    return a


def _slice_arg(s, op):
    out = []
    for v in (s.start, s.stop, s.step):
        if v is None:
            out.append(None)
            continue
        try:
            out.append(operator.index(v))
        except TypeError:
            raise TypeError(f"{op}: slice indices must be integers or None, got "
                            f"{type(v).__name__} {v!r}") from None
    if out[2] == 0:
        raise ValueError(f"{op}: slice step cannot be zero")
    return slice(*out)


def _entry(k, op):
    """(kind, value) of one key entry; kind in none, ellipsis, slice, int, arr, mask, bool."""
    if k is None:
        return "none", None
    if k is Ellipsis:
        return "ellipsis", None
    if isinstance(k, slice):
        return "slice", _slice_arg(k, op)
    if isinstance(k, (bool, np.bool_)):
        return "bool", bool(k)
    if isinstance(k, (int, np.integer)):
        return "int", int(k)
    if isinstance(k, Tensor):
        a = k._data
    elif isinstance(k, (list, tuple)):
        try:
            a = np.asarray([e.numpy() if isinstance(e, Tensor) else e for e in k])
        except (ValueError, TypeError):
            raise TypeError(f"{op}: a list in an index must hold ints or bools, got "
                            f"{k!r}") from None
        if a.size == 0:
            a = a.astype(np.int64)
    elif isinstance(k, np.ndarray) or hasattr(k, "__cuda_array_interface__"):
        a = k
    else:
        raise TypeError(f"{op}: unsupported index of type {type(k).__name__} ({k!r}); use "
                        "ints, slices, None, ..., or integer/bool tensors")
    kind = a.dtype.kind
    if kind == "b":
        return ("bool", bool(a)) if a.ndim == 0 else ("mask", a)
    if kind in "iu":
        return ("int", int(a)) if a.ndim == 0 else ("arr", a)
    raise TypeError(f"{op}: index tensors must be integer or bool, got {a.dtype.name}")


def parse_key(x, key, op):
    """Normalise ``key`` for ``x``: returns ``(numpy_key, plan)``.

    ``plan`` is None for basic keys (ints, slices, None, ...), whose numpy key has
    every int wrapped and bounds-checked; otherwise it describes the gather (see
    :func:`_plan`) and the numpy key has masks replaced by their nonzero indices
    and every index array wrapped to ``[0, n)``.
    """
    if not isinstance(key, tuple):
        key = (key,)
    entries = [_entry(k, op) for k in key]
    shape = x._data.shape
    ndim = len(shape)
    used = 0
    n_ell = 0
    for kind, v in entries:
        if kind == "ellipsis":
            n_ell += 1
        elif kind == "mask":
            used += v.ndim
        elif kind in ("slice", "int", "arr"):
            used += 1
    if n_ell > 1:
        raise IndexError(f"{op}: an index can only have a single ellipsis ('...')")
    if used > ndim:
        raise IndexError(f"{op}: too many indices for a tensor of {ndim} dimension(s): "
                         f"{used} were indexed")
    expanded = []
    for kind, v in entries:
        if kind == "ellipsis":
            expanded.extend([("slice", slice(None))] * (ndim - used))
        elif kind == "bool":
            if not v:
                raise IndexError(f"{op}: a scalar False index (an empty selection) is not "
                                 "supported; use an empty index list instead")
            expanded.append(("none", None))  # numpy: x[True] is x[None]
        else:
            expanded.append((kind, v))
    advanced = any(k in ("arr", "mask") for k, _ in expanded)
    d = 0
    for i, (kind, v) in enumerate(expanded):
        if kind == "int":
            n = shape[d]
            if not -n <= v < n:
                raise IndexError(f"{op}: index {v} is out of range for axis {d} of size {n} "
                                 f"(expected in [{-n}, {n}))")
            expanded[i] = (kind, v % n)
            d += 1
        elif kind == "slice":
            d += 1
        elif kind == "arr":
            a = _to_device(v, x._data, op)
            expanded[i] = (kind, check_range(a, shape[d], op, "index", d, negative=True))
            d += 1
        elif kind == "mask":
            k = v.ndim
            if tuple(v.shape) != tuple(shape[d:d + k]):
                raise IndexError(f"{op}: boolean mask of shape {list(v.shape)} does not match "
                                 f"the indexed dimensions {list(shape[d:d + k])} starting at "
                                 f"axis {d}")
            expanded[i] = (kind, _to_device(v, x._data, op))
            d += k
    if not advanced:
        return tuple(v for _, v in expanded), None
    expanded.extend([("slice", slice(None))] * (ndim - d))
    return _plan(shape, expanded, _xp(x._data), op)


class _Plan:
    """How ``x[key]`` is gathered with one ``_take`` (see the module docstring)."""

    __slots__ = ("pre", "perm", "merged", "axis", "lin", "move", "shape", "full_mask",
                 "entries", "block", "nblock", "adv_shape", "adv_size", "mask", "xshape")


def _plan(shape, entries, xp, op):
    ndim = len(shape)
    adv_pos, adv_dims, comps, pre = [], [], [], []
    d = 0
    for pos, (kind, v) in enumerate(entries):
        if kind == "none":
            continue
        if kind == "slice":
            pre.append(v)
            d += 1
            continue
        k = v.ndim if kind == "mask" else 1
        adv_pos.append(pos)
        adv_dims.extend(range(d, d + k))
        comps.append((kind, v))
        pre.extend([slice(None)] * k)
        d += k
    p = _Plan()
    p.xshape = tuple(shape)
    p.full_mask = None
    p.mask = None
    sizes = [len(range(*s.indices(shape[i]))) for i, s in enumerate(pre)]
    # a mask stands for the 1-D index arrays of its nonzero coordinates
    shapes = [(int(xp.count_nonzero(v)),) if kind == "mask" else np.shape(v)
              for kind, v in comps]
    try:
        adv_shape = tuple(np.broadcast_shapes(*shapes))
    except ValueError:
        raise IndexError(f"{op}: shape mismatch: the index arrays could not be broadcast "
                         f"together, shapes {[list(s) for s in shapes]}") from None
    # the flat index over the advanced dimensions, in their order
    if len(comps) == 1 and comps[0][0] == "mask":
        p.mask = comps[0][1]
        if p.mask.ndim == ndim:
            p.full_mask = p.mask
        lin = xp.flatnonzero(p.mask)
    elif len(comps) == 1:
        lin = comps[0][1]
    else:
        arrays = []
        for kind, v in comps:
            arrays.extend(v.nonzero() if kind == "mask" else [v])
        lin = 0
        stride = 1
        for c, d in zip(reversed(arrays), reversed(adv_dims)):
            lin = lin + (c.astype(np.int64) if hasattr(c, "astype") else c) * stride
            stride *= shape[d]
        lin = xp.broadcast_to(xp.asarray(lin, dtype=np.int64), adv_shape)
    p.lin = Tensor._wrap(lin)
    p.adv_shape = adv_shape
    p.adv_size = int(np.prod([shape[i] for i in adv_dims], dtype=np.int64))
    p.pre = tuple(pre) if any(s != slice(None) for s in pre) else None
    key_adjacent = adv_pos[-1] - adv_pos[0] + 1 == len(adv_pos)
    contiguous = adv_dims[-1] - adv_dims[0] + 1 == len(adv_dims)
    others = [i for i in range(ndim) if i not in adv_dims]
    nb = len(adv_shape)
    if contiguous:
        a0 = adv_dims[0]
        p.perm = None
        p.axis = a0
        p.merged = (sizes[:a0] + [p.adv_size] + sizes[a0 + len(adv_dims):]
                    if len(adv_dims) > 1 else None)
        if key_adjacent:
            p.move = None
        else:  # numpy puts the block first when a None separates the index arrays
            p.move = list(range(a0, a0 + nb)) + list(range(a0)) + \
                list(range(a0 + nb, a0 + nb + len(others) - a0))
    else:
        p.perm = adv_dims + others
        p.axis = 0
        p.merged = [p.adv_size] + [sizes[i] for i in others]
        p.move = None
    # numpy's result shape: basic entries in order, the block at the first advanced
    # entry when the advanced entries are adjacent, else in front
    before, after = [], []
    d = 0
    for pos, (kind, v) in enumerate(entries):
        if kind == "none":
            dims = [1]
        elif kind == "slice":
            dims = [sizes[d]]
            d += 1
        else:
            d += 1 if kind in ("int", "arr") else v.ndim
            continue
        (before if key_adjacent and pos < adv_pos[0] else after).append(dims[0])
    p.shape = before + list(adv_shape) + after
    p.block = len(before)
    p.nblock = nb
    p.entries = entries
    return _numpy_key(entries), p


def rows_key(shape, index, axis, xp):
    """(numpy key, plan) selecting the rows ``index`` (a 1-D array) along ``axis``."""
    full = ("slice", slice(None))
    entries = [full] * axis + [("arr", index)] + [full] * (len(shape) - axis - 1)
    return _plan(shape, entries, xp, "")


def _numpy_key(entries):
    # numpy and CuPy read a bool mask in a key as its nonzero coordinates
    return tuple(v for _, v in entries)


def _gather_plan(x, p):
    if p.full_mask is not None:
        return apply(_masked_select, x, Tensor._wrap(p.full_mask))
    if p.pre is not None:
        x = apply(_getitem_basic, x, key=p.pre)
    if p.perm is not None:
        x = transpose(x, p.perm)
    if p.merged is not None:
        x = reshape_exact(x, p.merged)
    out = take(x, p.lin, p.axis)
    if p.move is not None:
        out = transpose(out, p.move)
    if out._data.shape != tuple(p.shape):
        out = reshape_exact(out, p.shape)
    return out


def _dedup_plan(p, xp, op):
    """``None`` when no position is indexed twice; else the winning (last) positions
    of the broadcast index block and a plan indexing only those."""
    if p.mask is not None:
        return None  # a lone mask never repeats a position
    lin = p.lin._data.reshape(-1)
    m = lin.size
    if m < 2:
        return None
    win = last_occurrence(lin, p.adv_size, xp)
    if win is None:
        return None
    entries = []
    for kind, v in p.entries:
        if kind in ("int", "arr"):
            b = xp.broadcast_to(xp.asarray(v), p.adv_shape).reshape(-1)
            entries.append(("arr", b[win]))
        elif kind == "mask":
            for c in v.nonzero():
                entries.append(("arr", xp.broadcast_to(c, p.adv_shape).reshape(-1)[win]))
        else:
            entries.append((kind, v))
    return win, _plan(p.xshape, entries, xp, op)


def last_occurrence(lin, size, xp):
    """Sorted positions of the last occurrence of each value of the 1-D ``lin``, or
    None when all values are distinct."""
    m = lin.size
    if xp is np and size <= 4 * m + 4096:
        counts = np.bincount(lin, minlength=size)
        if counts.max() <= 1:
            return None
    # a stable sort keeps equal values in their original order: the last of each run wins
    if xp is np:
        order = np.argsort(lin, kind="stable")
    else:
        order = xp.argsort(lin.astype(np.int64) * m + xp.arange(m))
    s = lin[order]
    last = xp.ones(m, dtype=bool)
    last[:-1] = s[1:] != s[:-1]
    if bool(last.all()):
        return None
    return xp.sort(order[last])


def getitem(x, key):
    """``x[key]`` with numpy semantics (differentiable).

    ``key`` may hold ints (negative counts from the end), slices (any step), None,
    ``...``, bool masks and integer index tensors/lists/arrays (advanced indexing;
    repeated indices accumulate their gradients). Results are new tensors, never
    views; a full integer index gives a 0-D tensor.

    >>> import weft
    >>> x = weft.arange(12).reshape([3, 4])
    >>> x[1].tolist(), x[:, ::-2].shape, x[[0, 2], 1].tolist()
    ([4, 5, 6, 7], [3, 2], [1, 9])
    >>> x[x > 9].tolist()
    [10, 11]
    """
    if type(x) is not Tensor and x.is_sparse():
        reject_sparse("__getitem__", "x")
    if type(key) is int:
        n = x._data.shape[0] if x._data.ndim else 0
        if not x._data.ndim:
            raise IndexError("__getitem__: too many indices for a tensor of 0 dimension(s): "
                             "1 were indexed")
        if not -n <= key < n:
            raise IndexError(f"__getitem__: index {key} is out of range for axis 0 of size "
                             f"{n} (expected in [{-n}, {n}))")
        return apply(_getitem_basic, x, key=(key % n,))
    if isinstance(key, Tensor) and key._data.ndim and key._data.dtype.kind in "iu" \
            and x._data.ndim:
        # the common lone index tensor (embedding-style lookups): rows along axis 0
        a = check_range(_to_device(key._data, x._data, "__getitem__"), x._data.shape[0],
                        "__getitem__", "index", 0, negative=True)
        return take(x, key if a is key._data else Tensor._wrap(a), 0)
    nkey, plan = parse_key(x, key, "__getitem__")
    if plan is None:
        return apply(_getitem_basic, x, key=nkey)
    return _gather_plan(x, plan)


def value_like(value, x, op, arg="value"):
    """``value`` as a Tensor (or a plain number) of ``x``'s dtype and device."""
    xd = x._data.dtype
    if isinstance(value, (bool, int, float, complex, np.generic)) and \
            not isinstance(value, np.ndarray):
        if isinstance(value, (complex, np.complexfloating)) and xd.kind != "c":
            raise TypeError(f"{op}: cannot write the complex {arg} {value!r} into a "
                            f"{xd.name} tensor")
        return Tensor._wrap(_xp(x._data).asarray(value, dtype=xd))
    v = tensor_arg(value, arg, op)
    check_same_place(x, v, op)
    vd = v._data.dtype
    if vd != xd:
        if vd.kind == "c" and xd.kind != "c":
            raise TypeError(f"{op}: cannot write a complex {arg} ({vd.name}) into a "
                            f"{xd.name} tensor")
        v = cast(v, xd)
    return v


def fit_value(v, target, op):
    """Check that ``v`` broadcasts to the indexed shape; drop extra leading 1s."""
    vs = v.shape
    if len(vs) > len(target):
        extra = vs[:len(vs) - len(target)]
        if any(s != 1 for s in extra):
            raise ValueError(f"{op}: value of shape {vs} cannot be broadcast to the indexed "
                             f"shape {list(target)}")
        v = reshape_exact(v, vs[len(vs) - len(target):])
        vs = v.shape
    for a, b in zip(reversed(vs), reversed(target)):
        if a != 1 and a != b:
            raise ValueError(f"{op}: value of shape {v.shape} cannot be broadcast to the "
                             f"indexed shape {list(target)}")
    return v


def _select_winners(v, p, win):
    """The entries of ``v`` (broadcast to ``p.shape``) at the winning block positions."""
    vb = broadcast_to(v, p.shape)
    b, nb = p.block, p.nblock
    shp = p.shape[:b] + [int(np.prod(p.adv_shape, dtype=np.int64))] + p.shape[b + nb:]
    return take(reshape_exact(vb, shp), Tensor._wrap(win), b)


def _prepare_set(x, key, value, op):
    """(numpy key, plan, value) for writing ``value`` at ``key`` of ``x`` (duplicates
    resolved: the last occurrence wins)."""
    nkey, plan = parse_key(x, key, op)
    v = value_like(value, x, op)
    if plan is None:
        target = _basic_shape(x._data, nkey)
        return nkey, None, fit_value(v, target, op)
    v = fit_value(v, plan.shape, op)
    d = _dedup_plan(plan, _xp(x._data), op)
    if d is not None:
        win, (nkey, plan2) = d
        v = _select_winners(v, plan, win)
        plan = plan2
    return nkey, plan, v


def _basic_shape(a, key):
    # index a zero-strided stand-in: the shape of a[key] without touching data
    probe = np.lib.stride_tricks.as_strided(np.zeros(1, dtype=np.int8), shape=a.shape,
                                            strides=(0,) * a.ndim)
    return list(probe[key].shape)


def setitem_out(x, key, value, op="__setitem__"):
    """Out of place ``x[key] = value``: a new tensor (the value is cast to x's dtype)."""
    nkey, plan, v = _prepare_set(x, key, value, op)
    return apply(setitem_p, x, v, key=nkey, plan=plan)


def setitem(x, key, value):
    """``x[key] = value`` in place, numpy semantics; ``value`` (a Tensor or a number) is
    cast to x's dtype and broadcast to the indexed shape. Repeated indices: the last
    write wins. Differentiable w.r.t. x (zero gradient where overwritten) and value.

    >>> import weft
    >>> x = weft.zeros([2, 3])
    >>> x[0, 1:] = 5.0
    >>> x[[1, 1], [0, 2]] = weft.to_tensor([1.0, 2.0])
    >>> x.tolist()
    [[0.0, 5.0, 5.0], [1.0, 0.0, 2.0]]
    """
    if type(x) is not Tensor and x.is_sparse():
        reject_sparse("__setitem__", "x")
    track = mode.enabled and (not x.stop_gradient or
                              isinstance(value, Tensor) and not value.stop_gradient)
    if not track:
        nkey, plan, v = _prepare_set(x, key, value, "__setitem__")
        d = x._data
        if not getattr(d.flags, "writeable", True):  # a read-only broadcast view (CuPy has none)
            x._data = d = d.copy()
        d[nkey] = v._data
        x._version[0] += 1
        return
    inplace(x, lambda old: setitem_out(old, key, value), "__setitem__")


def _getitem_method(self, key):
    return getitem(self, key)


def _setitem_method(self, key, value):
    setitem(self, key, value)


def wrap(a):
    return Tensor._wrap(a)


__all__ = []
__tensor_methods__ = {"__getitem__": _getitem_method, "__setitem__": _setitem_method}
