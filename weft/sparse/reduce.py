"""Sparse reductions: ``sum`` (api-sparse.md §3.2).

The result stays sparse: its pattern is the set of output coordinates that receive
at least one stored entry. Dense axes of a hybrid COO are summed with the dense
``sum`` op on the values; sparse axes by a segment sum of the values over each
entry's output slot (the inverse map of the kept index rows). Both are weft ops,
so the gradient -- ones broadcast back onto ``x``'s pattern -- is a gather, and
every order of derivative works.
"""
from __future__ import annotations

import numpy as np

from ..autograd.engine import Primitive, apply, defvjp
from ..core import dtype as _dt
from ..core.args import dtype_arg, normalize_axes
from . import _kernels as K
from .convert import (crows_from_rows, global_crows, csr_to_coo_indices,
                      gather_rows, scatter_rows, values)
from .structural import cast_is_additive, sparse_arg
from .tensor import SparseCooTensor, wrap_coo, wrap_csr
from ._guard import public

_TO_INT64 = tuple(np.dtype(d) for d in ("bool", "int32", "int64"))
_INT32_MAX = 2 ** 31 - 1


def _dense_sum(v, axes, keepdim):
    from ..ops.reduction.aggregate import sum as dense_sum  # noqa: PLC0415

    return dense_sum(v, axis=list(axes), keepdim=keepdim) if axes else v


def _slots(idx, kept, kshape, sorted_by, xp):
    """Unique kept index columns (row-major) and the slot of every entry in them."""
    nnz = idx.shape[1]
    if kept == list(range(len(kept))) and len(kept) <= sorted_by:
        # entries already ordered by the kept prefix: slots are runs, no sort needed
        ksub = idx[:len(kept)]
        new = xp.ones(nnz, dtype=bool)
        if nnz > 1:
            new[1:] = xp.any(ksub[:, 1:] != ksub[:, :-1], axis=0)
        first = xp.nonzero(new)[0]
        return xp.ascontiguousarray(ksub[:, first]), xp.cumsum(new) - 1
    dummy = xp.zeros(nnz, dtype=np.int32)
    uidx, _, inv = K.coalesce(xp.ascontiguousarray(idx[kept]), dummy, kshape, True)
    return uidx, inv


def _coo_sum(idx, v, shape, axes, keepdim, sorted_by=0):
    """Sum the values Tensor ``v`` of the COO pattern ``idx`` [sd, nnz] in ``shape``
    over ``axes``; returns ``(indices, values, shape, coalesced)``. The entries are
    known to be in row-major order of their first ``sorted_by`` index rows."""
    xp = K.xp_of_array(idx)
    sd, nd, nnz = idx.shape[0], len(shape), idx.shape[1]
    out_shape = [1 if d in axes else s for d, s in enumerate(shape) if keepdim or d not in axes]
    if len(axes) == nd:
        # every axis reduced: one stored entry holding the total, even when x has none
        total = _dense_sum(scatter_rows(v, xp.zeros(nnz, dtype=np.int64), 1),
                           range(1, 1 + nd - sd), keepdim)
        if not keepdim:
            return xp.zeros((1, 1), dtype=idx.dtype), total, [1], True
        return xp.zeros((sd, 1), dtype=idx.dtype), total, out_shape, True
    v = _dense_sum(v, [1 + a - sd for a in axes if a >= sd], keepdim)
    reduced = [a for a in axes if a < sd]
    if not reduced:
        return idx, v, out_shape, None
    kept = [d for d in range(sd) if d not in reduced]
    if not kept and not keepdim:
        # only dense axes remain: the first of them becomes the (fully stored) sparse axis
        rest = out_shape
        t = scatter_rows(v, xp.zeros(nnz, dtype=np.int64), 1)
        from .convert import _reshape  # noqa: PLC0415

        t = _reshape(t, rest)
        itype = idx.dtype if rest[0] <= _INT32_MAX else np.int64
        pos = xp.arange(rest[0] if nnz else 0, dtype=np.int64)
        return pos.astype(itype)[None, :], gather_rows(t, pos), rest, True
    if kept:
        uidx, inv = _slots(idx, kept, [shape[d] for d in kept], sorted_by, xp)
        u = uidx.shape[1]
    else:
        u = 1 if nnz else 0
        uidx = xp.zeros((0, u), dtype=idx.dtype)
        inv = xp.zeros(nnz, dtype=np.int64)
    vals = scatter_rows(v, inv, u)
    if not keepdim:
        return uidx, vals, out_shape, True
    out = xp.zeros((sd, u), dtype=idx.dtype)
    for j, d in enumerate(kept):
        out[d] = uidx[j]
    return out, vals, out_shape, True


def _row_sum_fwd(v, crows):
    counts, sums = K.csr_row_sums(crows, v)
    return sums, counts


def _row_sum_vjp(g, ans, v, crows):
    """Each non-empty row's gradient goes to all of its entries."""
    counts = ans[1]._data  # counts[r]: the output slot of row r
    slots = counts[:-1][K.csr_rows(crows, v.shape[0])]
    return gather_rows(g[0], slots)


# (sums of the non-empty rows of the pattern ``crows``, non-empty rows before each row);
# the second output is structure, with no gradient
_ROW_SUM = Primitive("sparse_row_sum", _row_sum_fwd, n_out=2)
defvjp(_ROW_SUM, _row_sum_vjp, save=(), save_out=True)


def _csr_row_sum(x, v):
    """``sum(x, axis=-1)`` of CSR ``x``: one entry per non-empty row, read off crows."""
    xp = K.xp_of_array(x._crows)
    shape = x._shape
    b, m = (1, shape[0]) if len(shape) == 2 else shape[:2]
    glob = x._crows if len(shape) == 2 else global_crows(x._crows, b, m, xp)
    sums, counts = apply(_ROW_SUM, v, crows=glob)
    counts = counts._data
    if b == 1:
        crows = counts
    elif b and m:  # per-batch row pointers, each starting at 0
        blocks = counts[:-1].reshape(b, m)
        crows = xp.concatenate([blocks - blocks[:, :1], (counts[m::m] - blocks[:, 0])[:, None]], axis=1)
    else:  # no batches, or batches without rows
        crows = xp.zeros((b, m + 1), dtype=np.int64)
    return wrap_csr(sums, crows.reshape(-1).astype(x._crows.dtype),
                    xp.zeros(int(counts[-1]), dtype=x._cols.dtype), list(shape[:-1]) + [1],
                    canonical=True)


@public
def sum(x, axis=None, dtype=None, keepdim=False, name=None):
    """Sum of sparse ``x`` over ``axis`` (int, list/tuple, or None for all axes).

    The result is sparse in ``x``'s format; it stores the output coordinates that
    receive at least one stored entry of ``x``. COO: any sparse and/or dense axes;
    reducing every axis gives shape ``[1]`` (``[1]*ndim`` with ``keepdim``) with
    indices ``[[0]]`` holding the total. CSR: any axes, the reduced ones kept as
    size 1 (a CSR tensor cannot drop a rank); every axis gives shape ``[1, 1]``
    (``[1]*ndim`` with ``keepdim``). ``dtype`` casts before summing; by default
    bool/int32/int64 values sum to int64. The gradient sends the output gradient
    back to every stored entry of ``x`` that fed it.

    >>> import weft
    >>> x = weft.sparse.sparse_coo_tensor([[0, 0, 2], [1, 3, 1]], [1.0, 2.0, 3.0], [3, 4])
    >>> s = weft.sparse.sum(x, axis=1)
    >>> s.indices().tolist(), s.values().tolist(), s.shape
    ([[0, 2]], [3.0, 3.0], [3])
    """
    op = "sum"
    x = sparse_arg(x, op)
    if not isinstance(keepdim, (bool, np.bool_)):
        raise TypeError(f"{op}: keepdim must be a bool, got {type(keepdim).__name__}")
    nd = x.ndim
    if isinstance(axis, (list, tuple)) and len(axis) == 0:
        axis = None  # as the dense sum: an empty axis list reduces every axis
    axes = normalize_axes(axis, nd, op)
    d = dtype_arg(dtype, op)
    if d is None and x._data.dtype in _TO_INT64:
        d = _dt.int64
    if x._data.dtype == np.bool_ or d is not None and not cast_is_additive(x._data.dtype, d):
        # duplicates of a bool tensor merge by `or` (as in to_dense) before counting, and
        # a cast that does not commute with summing them (to or from bool, float to
        # integer) must see their sum, the tensor's value
        from .convert import coalesce  # noqa: PLC0415

        x = coalesce(x)
    v = values(x)
    if d is not None and d != v._data.dtype:
        from ..ops.cast import cast as dense_cast  # noqa: PLC0415

        v = dense_cast(v, d)
    if isinstance(x, SparseCooTensor):
        idx, vals, shape, coalesced = _coo_sum(x._indices, v, x._shape, axes, bool(keepdim),
                                               x.sparse_dim() if x._coalesced else 0)
        return wrap_coo(vals, idx, shape, x._coalesced if coalesced is None else coalesced)
    if len(axes) == nd and not keepdim:
        xp = K.xp_of_array(x._crows)
        one = xp.ones(1, dtype=x._crows.dtype)
        total = _dense_sum(scatter_rows(v, xp.zeros(x.nnz(), dtype=np.int64), 1), (), False)
        return wrap_csr(total, xp.concatenate([one * 0, one]), one * 0, [1, 1])
    if axes == (nd - 1,):
        return _csr_row_sum(x, v)
    # CSR entries are in (batch, row) order whatever the column order
    idx, vals, shape, _ = _coo_sum(csr_to_coo_indices(x), v, x._shape, axes, True, nd - 1)
    xp = K.xp_of_array(idx)
    batch = idx[0] if nd == 3 else None
    crows = crows_from_rows(idx[-2], batch, shape, x._crows.dtype, xp)
    return wrap_csr(vals, crows, xp.ascontiguousarray(idx[-1]), shape)


__all__ = ["sum"]
