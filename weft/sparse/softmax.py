"""Row-wise softmax over the stored entries of a CSR tensor (api-sparse.md §4 ``softmax``).

Implicit zeros take no part (they act as -inf), so a row with one stored entry
gives 1.0 and an empty row stays empty. Two primitives, each written so that its
vjp is built from weft ops, give derivatives of every order:

* ``softmax(v)``            y = exp(v - max_row) / sum_row(exp(v - max_row))
* ``softmax_bwd(y, g)``     y * (g - rb(y * g))

with ``rb(a)`` the row sum of ``a`` read back at every entry of the row. Their vjps:
``softmax``: dv = softmax_bwd(y, g). ``softmax_bwd``: dg = softmax_bwd(y, h) (it is
symmetric in that slot), dy = h * (g - rb(y * g)) - g * rb(h * y).

The CPU kernels are in csrc/sparse/structural.cpp; other arrays (GPU, float16) use
the array-module fallback below. ``weft.sparse.nn.functional.softmax`` builds on
:func:`csr_row_softmax`.
"""
from __future__ import annotations

import numpy as np

from .._native import extension as _C
from ..autograd.engine import Primitive, apply, defvjp
from ..core.scatter import max_at
from . import _kernels as K
from .convert import global_crows, gather_rows, scatter_rows, values
from .tensor import SparseCsrTensor, UnsupportedDtypeError, SparseBase, wrap_csr

_HAS_NATIVE = hasattr(_C, "sparse_csr_softmax")
_NATIVE_VALUES = (np.dtype(np.float32), np.dtype(np.float64))


class _Rows:
    """A CSR row pattern over all rows (batches folded in), with the entries' rows on demand."""

    __slots__ = ("crows", "nnz", "_rows")

    def __init__(self, crows, nnz):
        self.crows, self.nnz, self._rows = crows, int(nnz), None

    @property
    def nrows(self):
        return int(self.crows.shape[0]) - 1

    def rows(self):
        if self._rows is None:
            self._rows = K.csr_rows(self.crows, self.nnz).astype(np.int64)
        return self._rows


def _native(rows, *arrays):
    return (_HAS_NATIVE and type(rows.crows) is np.ndarray
            and all(type(a) is np.ndarray and a.dtype == arrays[0].dtype for a in arrays)
            and arrays[0].dtype in _NATIVE_VALUES)


def _widen(a):
    # half precision is computed in float32, as its exp and row sums lose too much
    return a.astype(np.float32) if a.dtype.itemsize < 4 else a


def _row_max(v, rows, n, xp):
    m = xp.full(n, -np.inf, dtype=v.dtype)
    return max_at(m, rows, v)


def _softmax_fwd(v, rows):
    if _native(rows, v):
        return _C.sparse_csr_softmax(rows.crows, np.ascontiguousarray(v))
    xp = K.xp_of_array(v)
    if v.shape[0] == 0:
        return v.copy()
    r = rows.rows()
    out_dtype = v.dtype
    v = _widen(v)
    m = _row_max(v, r, rows.nrows, xp)
    # a NaN anywhere in a row poisons the whole row, as in the dense softmax
    bad = K.segment_sum(xp.isnan(v).astype(np.int32), r, rows.nrows) > 0
    m = xp.where(bad, np.nan, m).astype(v.dtype)
    e = xp.exp(v - m[r])
    s = K.segment_sum(e.astype(np.float64) if v.dtype == np.float32 else e, r, rows.nrows)
    return (e / s[r]).astype(out_dtype, copy=False)


def _softmax_bwd_fwd(y, g, rows):
    if _native(rows, y, g):
        return _C.sparse_csr_softmax_grad(rows.crows, np.ascontiguousarray(y),
                                          np.ascontiguousarray(g))
    if y.shape[0] == 0:
        return y.copy()
    r = rows.rows()
    out_dtype = y.dtype
    y, g = _widen(y), _widen(g)
    s = K.segment_sum(y * g, r, rows.nrows)
    return (y * (g - s[r])).astype(out_dtype, copy=False)


_SOFTMAX = Primitive("sparse_csr_softmax", _softmax_fwd)
_SOFTMAX_BWD = Primitive("sparse_csr_softmax_bwd", _softmax_bwd_fwd)


def _plain(t):
    return values(t) if isinstance(t, SparseBase) else t


def _rb(a, rows):
    """Differentiable row sum of ``a`` read back at every entry of the row."""
    r = rows.rows()
    return gather_rows(scatter_rows(a, r, rows.nrows), r)


def _bwd_dy(h, ans, y, g, rows):
    h = _plain(h)
    return h * (g - _rb(y * g, rows)) - g * _rb(h * y, rows)


defvjp(_SOFTMAX, lambda g, ans, v, rows: apply(_SOFTMAX_BWD, ans, _plain(g), rows=rows),
       save=(), save_out=True)
defvjp(_SOFTMAX_BWD, _bwd_dy,
       lambda h, ans, y, g, rows: apply(_SOFTMAX_BWD, y, _plain(h), rows=rows),
       save={0: (0, 1), 1: (0,)}, save_out=False)


def csr_row_softmax(x):
    """Softmax over the stored entries of every row of CSR ``x`` (2-D or batched 3-D).

    The result has ``x``'s pattern; implicit zeros are excluded (not treated as 0),
    so a row with a single stored entry gives 1.0. float16/32/64 values; the
    gradient is masked, ``g_in = y * (g - sum_row(y * g))``, and differentiable again.

    >>> import weft
    >>> from weft.sparse.softmax import csr_row_softmax
    >>> x = weft.sparse.sparse_csr_tensor([0, 2, 3], [0, 2, 1], [0.0, 0.0, 5.0], [2, 3])
    >>> csr_row_softmax(x).values().tolist()
    [0.5, 0.5, 1.0]
    """
    op = "softmax"
    if not isinstance(x, SparseCsrTensor):
        raise TypeError(f"{op}: x must be a SparseCsrTensor, got {type(x).__name__}")
    if x._data.dtype.kind != "f":
        raise UnsupportedDtypeError(f"{op}: x has dtype {x._data.dtype.name}; softmax needs a "
                                    "floating dtype (float16, float32, float64)")
    shape = x._shape
    crows = x._crows
    if len(shape) == 3:
        crows = global_crows(crows, shape[0], shape[1], K.xp_of_array(crows))
    rows = _Rows(K.xp_of_array(crows).ascontiguousarray(crows), x._data.shape[0])
    return wrap_csr(apply(_SOFTMAX, values(x), rows=rows), x._crows, x._cols, shape,
                    x._canonical)


__all__ = []
