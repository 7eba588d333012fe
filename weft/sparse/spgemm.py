"""Sparse @ sparse products (SpGEMM), ``masked_matmul`` and ``addmm``.

``C = A @ B`` with A [R, K] and B [K, N] sparse reduces to three bilinear
primitives on the fixed patterns of A, B and C (a batch folded into one
block-diagonal matrix, as in matmul.py). All three contract the same triples
(i, k, j) with (i, k) stored in A and (k, j) stored in B, each producing the
values of the third pattern, so their vjps are each other and products are
differentiable to any order:

* ``SpGEMM(a, b)[i, j]  = sum_k a[i, k] b[k, j]``   C's values
* ``SampleA(c, b)[i, k] = sum_j c[i, j] b[k, j]``   A's values: (C @ Bᵀ) at A
* ``SampleB(a, c)[k, j] = sum_i a[i, k] c[i, j]``   B's values: (Aᵀ @ C) at B

Gradient rules (api-sparse.md §3.3, §6), ``cj`` the complex conjugate:
``SpGEMM``: da = SampleA(g, cj(b)), db = SampleB(cj(a), g).
``SampleA``: dc = SpGEMM(g, cj(b)), db = SampleB(g, cj(c)).
``SampleB``: da = SampleA(cj(c), g), dc = SpGEMM(cj(a), g).
The masked gradients never form a dense product; the native kernels
(csrc/sparse/spgemm.cpp) are Gustavson's row-wise SpGEMM and a sampled product.
"""
from __future__ import annotations

import numpy as np

from .._native import extension as _C
from ..autograd.engine import apply, defvjp, Primitive
from . import _kernels as K
from ._guard import public
from .convert import batched_crows, csr_to_coo_indices, gather_rows, values
from .spmm import (_cj, check_dtypes, check_shapes, csr_of, dense_arg, NATIVE_VALUES, plain,
                   Plan, plan_of, reshape, SDDMM, swap_last)
from .tensor import SparseBase, SparseCooTensor, SparseCsrTensor, wrap_coo, wrap_csr

_HAS_NATIVE = hasattr(_C, "sparse_spgemm")
_INT32_MAX = 2 ** 31 - 1


def _native(indices, vals):
    return (_HAS_NATIVE and all(type(a) is np.ndarray for a in indices + vals)
            and indices[0].dtype in (np.int32, np.int64)
            and all(a.dtype == indices[0].dtype for a in indices)
            and vals[0].dtype in NATIVE_VALUES and all(v.dtype == vals[0].dtype for v in vals))


def _expand(crows, sel):
    """The stored entries of CSR rows ``sel`` (rows may repeat): ``(owner, pos)``
    with, for each entry, its position in ``sel`` and its position in the CSR."""
    xp = K.xp_of_array(crows)
    lens = xp.diff(crows).astype(np.int64)[sel]
    total = int(lens.sum()) if lens.shape[0] else 0
    owner = xp.repeat(xp.arange(sel.shape[0], dtype=np.int64), lens)
    start = xp.cumsum(lens) - lens
    pos = crows.astype(np.int64)[sel][owner] + (xp.arange(total, dtype=np.int64) - start[owner])
    return owner, pos


def _spgemm_arrays(pa, av, pb, bv):
    """``(crows, cols, values)`` of A @ B: native kernel, or expand-sort-compress."""
    arrays = (pa.crows, pa.cols, pb.crows, pb.cols)
    if _native(arrays, (av, bv)):
        return _C.sparse_spgemm(*(np.ascontiguousarray(a) for a in (pa.crows, pa.cols, av,
                                                                       pb.crows, pb.cols, bv)),
                                pb.ncols)
    xp = K.xp_of_array(av)
    owner, pos = _expand(pb.crows, pa.cols)
    rows = pa.rows()[owner].astype(pa.cols.dtype)
    vals = av[owner] * bv[pos]
    idx = xp.stack([rows, pb.cols[pos].astype(pa.cols.dtype)])
    cr, cl, v, _ = K.coo_to_csr2d(idx, vals, (pa.nrows, pb.ncols), False)
    return cr.astype(pa.cols.dtype), cl.astype(pa.cols.dtype), v


def _sampled_arrays(p, x, xv, y, yv, ncols):
    """(X @ Yᵀ) read at pattern ``p`` (X has p's rows; X, Y have ``ncols`` columns)."""
    arrays = (p.crows, p.cols, x.crows, x.cols, y.crows, y.cols)
    if _native(arrays, (xv, yv)):
        return _C.sparse_spgemm_sampled(*(np.ascontiguousarray(a) for a in (
            p.crows, p.cols, x.crows, x.cols, xv, y.crows, y.cols, yv)), ncols)
    xp = K.xp_of_array(yv)
    out_dtype = xp.result_type(xv, yv)
    nnz = p.cols.shape[0]
    # X canonical, so that (row, col) keys are sorted and unique for the look-up
    xcr, xcl, xval, _ = K.coo_to_csr2d(xp.stack([x.rows().astype(x.cols.dtype), x.cols]), xv,
                                       (x.nrows, ncols), False)
    if xcl.shape[0] == 0 or nnz == 0:
        return xp.zeros(nnz, dtype=out_dtype)
    keys = K.csr_rows(xcr, xcl.shape[0]).astype(np.int64) * ncols + xcl.astype(np.int64)
    owner, pos = _expand(y.crows, p.cols)
    want = p.rows().astype(np.int64)[owner] * ncols + y.cols[pos].astype(np.int64)
    at = xp.minimum(xp.searchsorted(keys, want), keys.shape[0] - 1)
    hit = keys[at] == want
    contrib = xp.where(hit, xval[at], 0) * yv[pos]
    return K.segment_sum(contrib.astype(out_dtype, copy=False), owner, nnz)


class _ProductPlan:
    """Patterns of A (R x K), B (K x N) and C = A @ B (R x N), all 2-D."""

    __slots__ = ("a", "b", "c", "first")

    def __init__(self, a, b, c, first):
        self.a, self.b, self.c = a, b, c
        # the forward kernel already ran to find C's pattern: its values serve the
        # primitive's first call with those same input arrays
        self.first = first


def _transposed_values(plan, v):
    cr, cl, slot, u = plan.transposed()
    return Plan(cr, cl, plan.ncols, plan.nrows), K.segment_sum(v, slot, u)


def _spgemm_fwd(va, vb, plan):
    f = plan.first
    if f is not None and va is f[0] and vb is f[1]:
        plan.first = None
        return f[2]
    return _spgemm_arrays(plan.a, va, plan.b, vb)[2]


def _sample_a_fwd(vc, vb, plan):
    return _sampled_arrays(plan.a, plan.c, vc, plan.b, vb, plan.b.ncols)


def _sample_b_fwd(va, vc, plan):
    at, avt = _transposed_values(plan.a, va)
    ct, cvt = _transposed_values(plan.c, vc)
    return _sampled_arrays(plan.b, at, avt, ct, cvt, plan.a.nrows)


_SPGEMM = Primitive("sparse_spgemm", _spgemm_fwd)
_SAMPLE_A = Primitive("sparse_spgemm_sample_a", _sample_a_fwd)
_SAMPLE_B = Primitive("sparse_spgemm_sample_b", _sample_b_fwd)

_cross = dict(save={0: (1,), 1: (0,)}, save_out=False)
defvjp(_SPGEMM, lambda g, ans, a, b, plan: apply(_SAMPLE_A, plain(g), _cj(b), plan=plan),
       lambda g, ans, a, b, plan: apply(_SAMPLE_B, _cj(a), plain(g), plan=plan), **_cross)
defvjp(_SAMPLE_A, lambda g, ans, c, b, plan: apply(_SPGEMM, plain(g), _cj(b), plan=plan),
       lambda g, ans, c, b, plan: apply(_SAMPLE_B, plain(g), _cj(c), plan=plan), **_cross)
defvjp(_SAMPLE_B, lambda g, ans, a, c, plan: apply(_SAMPLE_A, _cj(c), plain(g), plan=plan),
       lambda g, ans, a, c, plan: apply(_SPGEMM, _cj(a), plain(g), plan=plan), **_cross)


def _as_index(plan, dtype):
    if plan.crows.dtype == dtype:
        return plan
    return Plan(plan.crows.astype(dtype), plan.cols.astype(dtype), plan.nrows, plan.ncols)


def _fit_index(arr, dtype, op):
    if dtype == np.int32 and arr.shape[0] and int(arr.max()) > _INT32_MAX:
        raise ValueError(f"{op}: the product needs indices above {_INT32_MAX}, which int32 "
                         "cannot hold; cast the operands' indices to int64")
    return arr.astype(dtype, copy=False)


def _csr_product(a, b, op):
    """A @ B for CSR tensors [*, M, K] @ [*, K, N] -> CSR [*, M, N] (canonical)."""
    itype = np.int32 if a._cols.dtype == b._cols.dtype == np.int32 else np.int64
    pa, pb = plan_of(a), plan_of(b)
    work = np.int64 if np.int64 in (pa.cols.dtype, pb.cols.dtype) else np.int32
    pa, pb = _as_index(pa, work), _as_index(pb, work)
    cr, cl, cv = _spgemm_arrays(pa, a._data, pb, b._data)
    plan = _ProductPlan(pa, pb, Plan(cr, cl, pa.nrows, pb.ncols), (a._data, b._data, cv))
    v = apply(_SPGEMM, a, b, plan=plan)
    plan.first = None
    shape = list(a._shape[:-1]) + [b._shape[-1]]
    if len(shape) == 3:
        bt, m, n = shape
        xp = K.xp_of_array(cl)
        batch = K.csr_rows(cr, cl.shape[0]).astype(np.int64) // max(m, 1)
        cl = cl.astype(np.int64) - batch * n
        cr = batched_crows(cr, bt, m, xp)
    return wrap_csr(v, _fit_index(cr, itype, op), _fit_index(cl, itype, op), shape,
                    canonical=True)


def sparse_matmul(x, y, op="matmul"):
    """``x @ y`` for two sparse tensors of one layout (called by :func:`matmul`)."""
    if type(x) is not type(y):
        raise NotImplementedError(f"{op}: mixed layouts ({type(x).__name__} @ "
                                  f"{type(y).__name__}) are not supported; convert one "
                                  "operand first (to_sparse_csr / to_sparse_coo)")
    check_shapes(x.shape, y.shape, op)
    check_dtypes(x, y, op)
    out = _csr_product(csr_of(x, op, "x"), csr_of(y, op, "y"), op)
    if isinstance(x, SparseCooTensor):
        return wrap_coo(values(out), csr_to_coo_indices(out), out._shape, coalesced=True)
    return out


# ----------------------------------------------------------------------------------
# masked_matmul


@public
def masked_matmul(x, y, mask, name=None):
    """``x @ y`` computed only at the stored positions of ``mask`` (SDDMM).

    ``x`` [*, M, K] and ``y`` [*, K, N] dense (2-D, or 3-D with equal batch),
    ``mask`` COO or CSR [*, M, N]. The result has mask's layout and exactly its
    indices (also where the product is 0); mask's values are ignored. Gradients:
    ``gx = g @ yᴴ`` and ``gy = xᴴ @ g`` with ``g`` the sparse output gradient.

    >>> import weft
    >>> x = weft.to_tensor([[1.0, 2.0], [3.0, 4.0]])
    >>> y = weft.to_tensor([[1.0, 0.0], [0.0, 1.0]])
    >>> mask = weft.sparse.sparse_csr_tensor([0, 1, 2], [1, 0], [1.0, 1.0], [2, 2])
    >>> weft.sparse.masked_matmul(x, y, mask).values().tolist()
    [2.0, 3.0]
    """
    op = "masked_matmul"
    if not isinstance(mask, SparseBase):
        raise TypeError(f"{op}: mask must be a SparseCooTensor or SparseCsrTensor, got "
                        f"{type(mask).__name__}")
    for t, arg in ((x, "x"), (y, "y")):
        if isinstance(t, SparseBase):
            raise TypeError(f"{op}: {arg} must be a dense Tensor, got a {type(t).__name__}")
    x, y = dense_arg(x, op, "x"), dense_arg(y, op, "y")
    check_shapes(x.shape, y.shape, op)
    check_dtypes(x, y, op)
    want = x.shape[:-1] + [y.shape[-1]]
    if mask.shape != want:
        raise ValueError(f"{op}: mask must have shape {want} (x's rows, y's columns), got "
                         f"{mask.shape}")
    if isinstance(mask, SparseCooTensor) and mask.dense_dim() != 0:
        raise ValueError(f"{op}: mask is a COO tensor with dense dimensions (dense_dim() = "
                         f"{mask.dense_dim()}); it must have sparse_dim() == ndim")
    k = x.shape[-1]
    xp = K.xp_of_array(x._data)
    if isinstance(mask, SparseCsrTensor):
        plan = plan_of(mask)
    else:
        idx = mask._indices.astype(np.int64)
        if len(want) == 3:
            idx = xp.stack([idx[0] * want[1] + idx[1], idx[0] * want[2] + idx[2]])
        rows, cols = (want[0] * want[1], want[0] * want[2]) if len(want) == 3 else want
        dummy = xp.zeros(idx.shape[1], dtype=np.int32)
        cr, cl, _, inv = K.coo_to_csr2d(idx, dummy, (rows, cols), True)
        plan = Plan(cr, cl, rows, cols)
    a = reshape(x, (plan.nrows, k))
    b = reshape(swap_last(y), (plan.ncols, k))
    v = apply(SDDMM, a, b, plan=plan)
    if isinstance(mask, SparseCsrTensor):
        return wrap_csr(v, mask._crows.copy(), mask._cols.copy(), want, mask._canonical)
    return wrap_coo(gather_rows(v, inv), mask._indices.copy(), want, mask._coalesced)


__all__ = ["masked_matmul"]
