"""Array-level sparse kernels: the native CPU kernels (csrc/sparse/convert.cpp) with an
array-module fallback for what they do not cover (GPU arrays, value dtypes other than
float32/64, complex64/128, int32/64, and sparse shapes whose first axis is far larger
than nnz, where the native counting sort would allocate per row).

Every function takes and returns backend arrays; nothing here records gradients.
"""
from __future__ import annotations

import numpy as np

from .._native import extension as _C
from ..core.place import array_module, place_of_array
from ..core.scatter import add_at

_NATIVE_VALUES = frozenset(np.dtype(d) for d in
                           ("float32", "float64", "complex64", "complex128", "int32", "int64"))
_HAS_NATIVE = hasattr(_C, "sparse_coalesce")


def xp_of_array(a):
    return np if type(a) is np.ndarray else array_module(place_of_array(a))


def _native_ok(index, values, nrows):
    return (_HAS_NATIVE and type(index) is np.ndarray and type(values) is np.ndarray
            and index.dtype in (np.int32, np.int64) and values.dtype in _NATIVE_VALUES
            and nrows <= max(8 * index.shape[-1], 1 << 22))


def _flat_values(values):
    """``values`` as a C-contiguous [nnz, w] array (a view when possible)."""
    n = values.shape[0]
    w = 1
    for s in values.shape[1:]:
        w *= s
    xp = xp_of_array(values)
    return xp.ascontiguousarray(values.reshape(n, w))


def linear_index(indices, shape, xp=None):
    """Row-major position of every index column in ``shape`` (int64)."""
    xp = xp or xp_of_array(indices)
    sd = indices.shape[0]
    lin = xp.zeros(indices.shape[1], dtype=np.int64)
    for d in range(sd):
        lin = lin * int(shape[d]) + indices[d].astype(np.int64)
    return lin


def unravel(lin, shape, dtype, xp):
    """Inverse of :func:`linear_index`: a [len(shape), n] index array of ``dtype``."""
    out = xp.empty((len(shape), lin.shape[0]), dtype=dtype)
    rest = lin
    for d in range(len(shape) - 1, -1, -1):
        s = int(shape[d])
        out[d] = rest % s if s else 0
        rest = rest // s if s else rest
    return out


def coalesce(indices, values, sparse_shape, want_inverse):
    """Sorted unique indices, summed values and (optionally) each entry's output slot.

    Returns ``(indices [sd, u], values [u, *dense], inverse [nnz] int64 or None)``.
    """
    nnz = indices.shape[1]
    dense = values.shape[1:]
    if _native_ok(indices, values, sparse_shape[0] if sparse_shape else 0):
        idx, vals, inv = _C.sparse_coalesce(np.ascontiguousarray(indices), _flat_values(values),
                                            [int(s) for s in sparse_shape], False, want_inverse)
        return idx, vals.reshape((vals.shape[0],) + tuple(dense)), inv
    xp = xp_of_array(values)
    order, inv_sorted, u, first = _sort_unique(indices, sparse_shape, xp)
    out_idx = xp.ascontiguousarray(indices[:, order[first]]) if nnz else indices.copy()
    inverse = xp.empty(nnz, dtype=np.int64)
    inverse[order] = inv_sorted
    vals = segment_sum(values, inverse, u)
    return out_idx, vals, (inverse if want_inverse else None)


def _sort_unique(indices, sparse_shape, xp):
    """Stable row-major order of the columns, the slot of each sorted column, the unique
    count and the positions (in sorted order) that start a new slot."""
    nnz = indices.shape[1]
    if nnz == 0:
        z = xp.zeros(0, dtype=np.int64)
        return z, z, 0, z
    total = 1
    for s in sparse_shape:
        total *= int(s)
    if total < 2 ** 62:
        lin = linear_index(indices, sparse_shape, xp)
        order = xp.argsort(lin, kind="stable")
        key = lin[order]
        new = xp.empty(nnz, dtype=bool)
        new[0] = True
        new[1:] = key[1:] != key[:-1]
    else:
        order = xp.lexsort(indices[::-1])
        srt = indices[:, order]
        new = xp.empty(nnz, dtype=bool)
        new[0] = True
        new[1:] = xp.any(srt[:, 1:] != srt[:, :-1], axis=0)
    inv_sorted = xp.cumsum(new) - 1
    first = xp.nonzero(new)[0]
    return order, inv_sorted, int(first.shape[0]), first


def segment_sum(values, index, n):
    """``out[index[k]] += values[k]`` into ``n`` zero rows, in order of k."""
    xp = xp_of_array(values)
    out = xp.zeros((n,) + tuple(values.shape[1:]), dtype=values.dtype)
    if values.shape[0] == 0:
        return out
    if xp is np:
        if values.dtype in _NATIVE_VALUES and n > 0:
            from .._native import index_add_  # noqa: PLC0415

            return index_add_(out, index, values)
    return add_at(out, index, values)


def coo_to_csr2d(indices, values, shape, want_inverse):
    """COO [2, nnz] -> canonical CSR: ``(crows, cols, values, inverse or None)``."""
    m, n = int(shape[0]), int(shape[1])
    if _native_ok(indices, values, m):
        cr, cols, vals, inv = _C.sparse_coalesce(np.ascontiguousarray(indices),
                                                 _flat_values(values), [m, n], True, want_inverse)
        return cr, cols, vals.reshape(-1), inv
    idx, vals, inv = coalesce(indices, values, shape, want_inverse)
    xp = xp_of_array(vals)
    counts = xp.bincount(idx[0].astype(np.int64), minlength=m) if idx.shape[1] else \
        xp.zeros(m, dtype=np.int64)
    crows = xp.zeros(m + 1, dtype=indices.dtype)
    crows[1:] = xp.cumsum(counts)
    return crows, xp.ascontiguousarray(idx[1]), vals, inv


def csr_rows(crows, nnz):
    """Row of every stored entry of a 2-D CSR (crows validated by the native kernel)."""
    if _HAS_NATIVE and type(crows) is np.ndarray and crows.dtype in (np.int32, np.int64):
        return _C.sparse_csr_rows(np.ascontiguousarray(crows), int(nnz))
    xp = xp_of_array(crows)
    m = crows.shape[0] - 1
    return xp.repeat(xp.arange(m, dtype=crows.dtype), xp.diff(crows).astype(np.int64))


def csr_row_sums(crows, values):
    """``(counts, sums)`` of a CSR pattern: the sums of the non-empty rows in row order,
    and the number of non-empty rows before each row (int64 [R+1])."""
    if (_HAS_NATIVE and type(crows) is np.ndarray and type(values) is np.ndarray
            and crows.dtype in (np.int32, np.int64) and values.dtype in _NATIVE_VALUES):
        return _C.sparse_csr_row_sums(np.ascontiguousarray(crows), np.ascontiguousarray(values))
    xp = xp_of_array(crows)
    counts = xp.zeros(crows.shape[0], dtype=np.int64)
    counts[1:] = xp.cumsum(crows[1:] > crows[:-1])
    slots = counts[:-1][csr_rows(crows, values.shape[0])]  # counts[r]: the output slot of row r
    return counts, segment_sum(values, slots, int(counts[-1]))


def csr_batch_rows(crows, nnz, batch, m):
    """(batch, row) of every stored entry of a CSR with ``batch`` blocks of ``m`` rows."""
    xp = xp_of_array(crows)
    if batch == 1:
        return None, csr_rows(crows, nnz)
    cr = crows.reshape(batch, m + 1)
    counts = cr[:, -1].astype(np.int64)
    # global row pointer over batch*m rows: each batch's pointers shifted by what precedes it
    offsets = xp.zeros(batch, dtype=np.int64)
    offsets[1:] = xp.cumsum(counts)[:-1]
    glob = xp.empty(batch * m + 1, dtype=np.int64)
    glob[:-1] = (cr[:, :-1].astype(np.int64) + offsets[:, None]).reshape(-1)
    glob[-1] = int(counts.sum())
    grow = csr_rows(glob.astype(crows.dtype) if crows.dtype == np.int32 and nnz < 2 ** 31
                    else glob, nnz).astype(np.int64)
    b = grow // m if m else grow
    r = grow % m if m else grow
    return b.astype(crows.dtype), r.astype(crows.dtype)


def csr_canonical(crows, cols, values, ncols, want_inverse):
    """2-D CSR with cols sorted inside each row and duplicates summed."""
    if _native_ok(cols, values, 0):
        cr, cl, vals, inv = _C.sparse_csr_canonical(np.ascontiguousarray(crows),
                                                    np.ascontiguousarray(cols),
                                                    _flat_values(values), int(ncols), want_inverse)
        return cr, cl, vals.reshape(-1), inv
    rows = csr_rows(crows, cols.shape[0])
    xp = xp_of_array(cols)
    return coo_to_csr2d(xp.stack([rows, cols]), values, (crows.shape[0] - 1, ncols),
                        want_inverse)
