"""Sorting and searching: sort, argsort, topk, kthvalue, unique, searchsorted, bucketize.

Ordering rules (Paddle's and PyTorch's): every sort is stable, so equal elements keep
their input order in both directions and results are deterministic; NaN compares
larger than every number, so it comes last in ascending order and **first** in
descending order (Paddle fixed its CPU kernel to this order in PR #41070, matching
torch). ``topk(largest=True)`` therefore returns NaNs first too.

Only values are differentiable. ``sort``, ``topk`` and ``kthvalue`` select elements
with a private gather primitive along an axis; its vjp scatters the cotangent back
to the selected positions with the matching scatter primitive, whose vjp is the
gather again, so every order of derivative exists.
"""
from __future__ import annotations

import numpy as np

from ..core import dtype as _dt
from ..core.tensor import Tensor
from .primitives import take_along
from ..core.args import check_same_place, dtype_arg, normalize_axis, tensor_arg, xp_of
from .shape.views import reshape_exact

# ---------------------------------------------------------------------------------
# gather / scatter along one axis (indices distinct along that axis)


# ---------------------------------------------------------------------------------
# helpers


def _stable_argsort(a, axis):
    xp = xp_of(a)
    if xp is np:
        return np.argsort(a, axis=axis, kind="stable")
    return xp.argsort(a, axis=axis)  # CuPy's sort is always stable


def _order(a, axis, descending):
    """Stable permutation sorting ``a`` along ``axis``; NaN is the largest value."""
    if not descending:
        return _stable_argsort(a, axis)
    # a stable ascending sort of the reversed array, read backwards, is a stable
    # descending sort (ties keep input order) that puts NaN first; sorting negated
    # values would overflow integer minima, fail on bool/unsigned and leave NaN last
    xp = xp_of(a)
    n = a.shape[axis]
    rev = _stable_argsort(xp.flip(a, axis), axis)
    return (n - 1) - xp.flip(rev, axis)


def _sortable(x, op):
    x = tensor_arg(x, "x", op)
    if x._data.dtype.kind == "c":
        raise TypeError(f"{op}: x must be a real (bool, integer or floating) tensor, "
                        f"got {x._data.dtype.name}")
    return x


def _k_arg(k, n, op, low):
    if isinstance(k, Tensor):
        if k.size != 1:
            raise ValueError(f"{op}: k must be a single integer, got a tensor of shape {k.shape}")
        k = k.item()
    if not isinstance(k, (int, np.integer)) or isinstance(k, bool):
        raise TypeError(f"{op}: k must be an int, got {type(k).__name__}")
    if not low <= k <= n:
        raise ValueError(f"{op}: k = {k} is out of range for an axis of size {n} "
                         f"(expected {low} <= k <= {n})")
    return int(k)


def _index_tensor(a):
    return Tensor._wrap(a.astype(np.int64, copy=False))


def _as_1d(x):
    """0-D inputs are handled as one-element vectors and squeezed back."""
    return (reshape_exact(x, [1]), True) if x.ndim == 0 else (x, False)


# ---------------------------------------------------------------------------------
# public functions


def argsort(x, axis=-1, descending=False, stable=False, name=None):
    """Indices (int64) that sort ``x`` along ``axis``; see the module notes on order.

    Sorts are always stable, so ``stable`` only documents intent.

    >>> import weft
    >>> weft.argsort(weft.to_tensor([3.0, 1.0, 2.0])).tolist()
    [1, 2, 0]
    """
    x = _sortable(x, "argsort")
    ax = normalize_axis(axis, x.ndim, "argsort")
    if x.ndim == 0:
        return Tensor._wrap(xp_of(x).zeros((), dtype=np.int64))
    return _index_tensor(_order(x._data, ax, bool(descending)))


def sort(x, axis=-1, descending=False, stable=False, name=None):
    """Values of ``x`` sorted along ``axis`` (ascending unless ``descending``).

    Differentiable: the gradient flows back through the sorting permutation.

    >>> import weft
    >>> weft.sort(weft.to_tensor([3.0, float('nan'), 1.0]), descending=True).tolist()
    [nan, 3.0, 1.0]
    """
    x = _sortable(x, "sort")
    ax = normalize_axis(axis, x.ndim, "sort")
    x1, squeeze = _as_1d(x)
    idx = _index_tensor(_order(x1._data, ax, bool(descending)))
    out = take_along(x1, idx, ax)
    return reshape_exact(out, []) if squeeze else out


def topk(x, k, axis=None, largest=True, sorted=True, name=None):
    """The ``k`` largest (or smallest) entries along ``axis`` (default: the last one).

    Returns ``(values, indices)`` with indices int64. Results are always in sorted
    order (largest first, or smallest first), ties in input order; NaN counts as the
    largest value. Gradients flow to the selected positions.

    >>> import weft
    >>> v, i = weft.topk(weft.to_tensor([1.0, 4.0, 2.0, 3.0]), 2)
    >>> v.tolist(), i.tolist()
    ([4.0, 3.0], [1, 3])
    """
    x = _sortable(x, "topk")
    ax = normalize_axis(-1 if axis is None else axis, x.ndim, "topk")
    x1, squeeze = _as_1d(x)
    k = _k_arg(k, x1._data.shape[ax], "topk", 0)
    order = _order(x1._data, ax, bool(largest))
    sel = [slice(None)] * x1.ndim
    sel[ax] = slice(0, k)
    idx = _index_tensor(order[tuple(sel)])
    vals = take_along(x1, idx, ax)
    if squeeze and k == 1:
        return reshape_exact(vals, []), reshape_exact(idx, [])
    return vals, idx


def kthvalue(x, k, axis=None, keepdim=False, name=None):
    """The ``k``-th smallest entry (1-based) along ``axis`` (default: the last one).

    Returns ``(values, indices)``; among equal values the first in input order is
    reported. Gradients flow to the selected position.

    >>> import weft
    >>> v, i = weft.kthvalue(weft.to_tensor([[3.0, 1.0, 2.0]]), 2)
    >>> v.tolist(), i.tolist()
    ([2.0], [2])
    """
    x = _sortable(x, "kthvalue")
    ax = normalize_axis(-1 if axis is None else axis, x.ndim, "kthvalue")
    x1, squeeze = _as_1d(x)
    k = _k_arg(k, x1._data.shape[ax], "kthvalue", 1)
    order = _order(x1._data, ax, False)
    sel = [slice(None)] * x1.ndim
    sel[ax] = slice(k - 1, k)
    idx = _index_tensor(order[tuple(sel)])
    vals = take_along(x1, idx, ax)
    if squeeze:
        return reshape_exact(vals, []), reshape_exact(idx, [])
    if not keepdim:
        shape = [s for d, s in enumerate(vals.shape) if d != ax]
        vals, idx = reshape_exact(vals, shape), reshape_exact(idx, shape)
    return vals, idx


def _index_dtype(dtype, op):
    d = dtype_arg(dtype, op)
    if d not in (_dt.int32, _dt.int64):
        raise TypeError(f"{op}: dtype must be int32 or int64, got {dtype!r}")
    return d


def _flags(out, extras):
    res = (Tensor._wrap(out),) + tuple(Tensor._wrap(e) for e in extras)
    return res if len(res) > 1 else res[0]


def unique(x, return_index=False, return_inverse=False, return_counts=False, axis=None,
           dtype="int64", name=None):
    """Sorted unique elements of ``x`` (flattened when ``axis`` is None), or unique
    slices along ``axis`` in lexicographic order.

    Returns ``out`` alone, or the tuple ``(out, index, inverse, counts)`` restricted to
    the requested extras: ``index`` = first occurrence of each unique element,
    ``inverse`` (1-D) = position of each input element (or slice) in ``out``,
    ``counts`` = multiplicities, all of ``dtype`` (int32/int64). NaNs count as equal
    (numpy's rule). Not differentiable.

    >>> import weft
    >>> out, inv = weft.unique(weft.to_tensor([2, 3, 3, 1]), return_inverse=True)
    >>> out.tolist(), inv.tolist()
    ([1, 2, 3], [1, 2, 2, 0])
    """
    x = tensor_arg(x, "x", "unique")
    d = _index_dtype(dtype, "unique")
    a = x._data
    xp = xp_of(x)
    if axis is not None:
        if x.ndim == 0:
            raise ValueError("unique: axis must be None for a 0-D tensor, got "
                             f"axis={axis}")
        axis = normalize_axis(axis, x.ndim, "unique")
    out, index, inverse, counts = xp.unique(a, return_index=True, return_inverse=True,
                                            return_counts=True, axis=axis)
    extras = []
    if return_index:
        extras.append(index.astype(d))
    if return_inverse:
        extras.append(inverse.reshape(-1).astype(d))
    if return_counts:
        extras.append(counts.astype(d))
    return _flags(out, extras)


def unique_consecutive(x, return_inverse=False, return_counts=False, axis=None,
                       dtype="int64", name=None):
    """Collapse runs of equal consecutive elements (or slices along ``axis``).

    With ``axis=None`` the input is flattened. Returns ``out``, or ``(out, inverse,
    counts)`` restricted to the requested extras (``dtype`` int32/int64; ``inverse``
    is 1-D). NaNs count as equal. Not differentiable.

    >>> import weft
    >>> weft.unique_consecutive(weft.to_tensor([1, 1, 2, 2, 3, 1])).tolist()
    [1, 2, 3, 1]
    """
    x = tensor_arg(x, "x", "unique_consecutive")
    d = _index_dtype(dtype, "unique_consecutive")
    xp = xp_of(x)
    a = x._data
    if axis is None:
        a = a.reshape(-1)
        ax = 0
    else:
        if x.ndim == 0:
            raise ValueError("unique_consecutive: axis must be None for a 0-D tensor, got "
                             f"axis={axis}")
        ax = normalize_axis(axis, x.ndim, "unique_consecutive")
    n = a.shape[ax]
    rows = xp.moveaxis(a, ax, 0).reshape(n, a.size // n if n else 0)
    new, old = rows[1:], rows[:-1]
    diff = new != old
    if a.dtype.kind in "fc":
        diff &= ~(xp.isnan(new) & xp.isnan(old))
    starts = xp.concatenate([xp.ones(min(n, 1), dtype=bool), diff.any(axis=1)])
    inverse = xp.cumsum(starts) - 1
    first = xp.nonzero(starts)[0]
    counts = xp.diff(xp.concatenate([first, xp.asarray([n], dtype=first.dtype)]))
    out = xp.take(a, first, axis=ax)
    extras = []
    if return_inverse:
        extras.append(inverse.astype(d))
    if return_counts:
        extras.append(counts.astype(d))
    return _flags(out, extras)


def _search_operands(seq, values, op, seq_arg, val_arg):
    seq = tensor_arg(seq, seq_arg, op)
    values = tensor_arg(values, val_arg, op)
    check_same_place(seq, values, op)
    for t, arg in ((seq, seq_arg), (values, val_arg)):
        if t._data.dtype.kind not in "biuf":
            raise TypeError(f"{op}: {arg} must be a real tensor, got {t._data.dtype.name}")
    if seq.ndim == 0:
        raise ValueError(f"{op}: {seq_arg} must be at least 1-D, got a 0-D tensor")
    return seq, values


def _search(s, v, right, out_int32):
    xp = xp_of(s)
    common = np.result_type(s.dtype, v.dtype)
    s = s.astype(common, copy=False)
    v = v.astype(common, copy=False)
    side = "right" if right else "left"
    if s.ndim == 1:
        res = xp.searchsorted(s, v, side=side)
    else:
        b = int(np.prod(s.shape[:-1]))
        rows_s = s.reshape(b, s.shape[-1])
        rows_v = v.reshape(b, v.shape[-1])
        if b:
            res = xp.stack([xp.searchsorted(rs, rv, side=side) for rs, rv in zip(rows_s, rows_v)])
        else:
            res = xp.zeros(rows_v.shape, dtype=np.int64)
        res = res.reshape(v.shape)
    return Tensor._wrap(xp.asarray(res).astype(np.int32 if out_int32 else np.int64))


def searchsorted(sorted_sequence, values, out_int32=False, right=False, name=None):
    """Insertion positions of ``values`` in the last axis of ``sorted_sequence``.

    ``sorted_sequence`` is 1-D (searched for every value) or N-D with the same leading
    dimensions as ``values`` (row-wise search). ``right`` picks the position after
    equal entries. Returns int64 (int32 if ``out_int32``) of ``values``' shape.

    >>> import weft
    >>> s = weft.to_tensor([1, 3, 5, 7])
    >>> weft.searchsorted(s, weft.to_tensor([3, 6])).tolist()
    [1, 3]
    """
    s, v = _search_operands(sorted_sequence, values, "searchsorted", "sorted_sequence",
                            "values")
    if s.ndim > 1 and (v.ndim != s.ndim or v.shape[:-1] != s.shape[:-1]):
        raise ValueError("searchsorted: an N-D sorted_sequence needs values with the same "
                         f"leading dimensions; sorted_sequence has shape {s.shape} but "
                         f"values has shape {v.shape}")
    return _search(s._data, v._data, right, out_int32)


def bucketize(x, sorted_sequence, out_int32=False, right=False, name=None):
    """Bucket index of each element of ``x`` for the 1-D boundaries ``sorted_sequence``
    (``searchsorted(sorted_sequence, x)``).

    >>> import weft
    >>> weft.bucketize(weft.to_tensor([0.5, 2.0, 9.0]), weft.to_tensor([1.0, 2.0, 3.0])).tolist()
    [0, 1, 3]
    """
    s, v = _search_operands(sorted_sequence, x, "bucketize", "sorted_sequence", "x")
    if s.ndim != 1:
        raise ValueError(f"bucketize: sorted_sequence must be 1-D, got shape {s.shape}")
    return _search(s._data, v._data, right, out_int32)


__all__ = ["sort", "argsort", "topk", "kthvalue", "unique", "unique_consecutive",
           "searchsorted", "bucketize"]
__tensor_methods__ = {"sort": sort, "argsort": argsort, "topk": topk, "kthvalue": kthvalue,
                      "unique": unique, "unique_consecutive": unique_consecutive,
                      "bucketize": bucketize}
