"""The primitives of the sparse-dense products (``weft.sparse.matmul`` and ``mv``, in
matmul.py) and the argument checks they share with spgemm.py.

Every product reduces to three linear primitives on one CSR pattern ``A`` (R x C,
a batch folded into the rows and columns), each a bilinear map whose vjps are
the other two, so products are differentiable to any order:

* ``SpMM(v, y)   = A(v) @ y``                     [R, N]
* ``SpMMᵀ(v, g)  = A(v)ᵀ @ g``                    [C, N]
* ``SDDMM(a, b)[k] = <a[row(k)], b[col(k)]>``     [nnz]  (A's pattern sampled)

``mv`` has a fourth, ``SpMV(v, x) = A(v) @ x`` [R], SpMM with one column under its
own kernel (a vector product is memory bound, so it gets a leaner native loop);
its rules are SpMM's on ``[R, 1]`` / ``[C, 1]`` reshapes.

Gradient rules (api-sparse.md §3.3, §6), with ``cj`` the complex conjugate:
``SpMM``: dv = SDDMM(g, cj(y)) (masked: the dense ``g @ yᴴ`` is never formed),
dy = SpMMᵀ(cj(v), g). ``SpMMᵀ``: dv = SDDMM(cj(g), G), dg = SpMM(cj(v), G).
``SDDMM``: da = SpMM(G, cj(b)), db = SpMMᵀ(G, cj(a)).

COO operands are converted to CSR first (duplicates summed; the conversion is
differentiable, so each original entry gets the gradient of its merged slot).
The native kernels are in csrc/sparse/spmm.cpp; ``SpMMᵀ`` transposes the pattern
with the COO -> CSR kernel and runs SpMM on it (row-parallel, no atomics).
"""
from __future__ import annotations

import numpy as np

from .._native import extension as _C
from ..autograd.engine import apply, defvjp, Primitive
from ..core.tensor import Tensor
from . import _kernels as K
from .convert import global_crows, to_sparse_csr, values
from .tensor import SparseBase, SparseCooTensor, UnsupportedDtypeError

_HAS_NATIVE = hasattr(_C, "sparse_spmm")
_HAS_SPMV = hasattr(_C, "sparse_spmv")
NATIVE_VALUES = frozenset(np.dtype(d) for d in ("float32", "float64", "complex64", "complex128"))


class Plan:
    """One 2-D CSR pattern (R x C) shared by the primitives of a product."""

    __slots__ = ("crows", "cols", "nrows", "ncols", "_rows", "_t")

    def __init__(self, crows, cols, nrows, ncols):
        self.crows, self.cols = crows, cols
        self.nrows, self.ncols = int(nrows), int(ncols)
        self._rows = self._t = None

    def rows(self):
        if self._rows is None:
            self._rows = K.csr_rows(self.crows, self.cols.shape[0])
        return self._rows

    def transposed(self):
        """``(crows, cols, slot, u)`` of Aᵀ; entry k of A lands in slot[k] of Aᵀ."""
        if self._t is None:
            xp = K.xp_of_array(self.cols)
            idx = xp.stack([self.cols, self.rows().astype(self.cols.dtype)])
            dummy = xp.zeros(self.cols.shape[0], dtype=np.int32)
            cr, cl, _, inv = K.coo_to_csr2d(idx, dummy, (self.ncols, self.nrows), True)
            self._t = (cr, cl, inv, int(cl.shape[0]))
        return self._t


def _native(plan, *arrays):
    return (_HAS_NATIVE and type(plan.crows) is np.ndarray
            and all(type(a) is np.ndarray for a in arrays)
            and plan.crows.dtype in (np.int32, np.int64) and arrays[0].dtype in NATIVE_VALUES
            and all(a.dtype == arrays[0].dtype for a in arrays))


def _spmm_arrays(crows, cols, rows_fn, v, y, nrows):
    if _native(Plan(crows, cols, 0, 0), v, y):
        return _C.sparse_spmm(np.ascontiguousarray(crows), np.ascontiguousarray(cols),
                              np.ascontiguousarray(v), np.ascontiguousarray(y))
    xp = K.xp_of_array(y)
    out = K.segment_sum(v[:, None] * y[cols], rows_fn(), nrows)
    return out.astype(xp.result_type(v, y), copy=False)


def _spmm_fwd(v, y, plan):
    return _spmm_arrays(plan.crows, plan.cols, plan.rows, v, y, plan.nrows)


def _spmmt_fwd(v, g, plan):
    cr, cl, slot, u = plan.transposed()
    vt = K.segment_sum(v, slot, u)
    return _spmm_arrays(cr, cl, lambda: K.csr_rows(cr, u), vt, g, plan.ncols)


def _sddmm_fwd(a, b, plan):
    if _native(plan, a, b):
        return _C.sparse_sddmm(np.ascontiguousarray(plan.crows), np.ascontiguousarray(plan.cols),
                               np.ascontiguousarray(a), np.ascontiguousarray(b))
    rows = plan.rows()
    return (a[rows] * b[plan.cols]).sum(axis=-1)


def _spmv_fwd(v, x, plan):
    if _HAS_SPMV and _native(plan, v, x):
        c = np.ascontiguousarray
        return _C.sparse_spmv(c(plan.crows), c(plan.cols), c(v), c(x))
    return _spmm_arrays(plan.crows, plan.cols, plan.rows, v, x[:, None], plan.nrows)[:, 0]


_SPMM = Primitive("sparse_spmm", _spmm_fwd)
_SPMV = Primitive("sparse_spmv", _spmv_fwd)
_SPMMT = Primitive("sparse_spmm_t", _spmmt_fwd)
SDDMM = Primitive("sparse_sddmm", _sddmm_fwd)


def _cj(t):
    from ..ops.math.ufuncs import cj  # noqa: PLC0415

    return cj(values(t) if isinstance(t, SparseBase) else t)


def _col(t):
    return reshape(t, (t.shape[0], 1))


def plain(t):
    return values(t) if isinstance(t, SparseBase) else t


_cross = dict(save={0: (1,), 1: (0,)}, save_out=False)
defvjp(_SPMM, lambda g, ans, v, y, plan: apply(SDDMM, g, _cj(y), plan=plan),
       lambda g, ans, v, y, plan: apply(_SPMMT, _cj(v), g, plan=plan), **_cross)
defvjp(_SPMMT, lambda g, ans, v, h, plan: apply(SDDMM, _cj(h), g, plan=plan),
       lambda g, ans, v, h, plan: apply(_SPMM, _cj(v), g, plan=plan), **_cross)
# SpMV is SpMM with one column: its rules are SpMM's with g and x as [R, 1] / [C, 1]
defvjp(_SPMV, lambda g, ans, v, x, plan: apply(SDDMM, _col(g), _col(_cj(x)), plan=plan),
       lambda g, ans, v, x, plan: reshape(apply(_SPMMT, _cj(v), _col(g), plan=plan),
                                           (plan.ncols,)), **_cross)
defvjp(SDDMM, lambda g, ans, a, b, plan: apply(_SPMM, plain(g), _cj(b), plan=plan),
       lambda g, ans, a, b, plan: apply(_SPMMT, plain(g), _cj(a), plan=plan), **_cross)


# ----------------------------------------------------------------------------------
# operands


def csr_of(x, op, arg):
    """``x`` as CSR (COO converted, differentiably); hybrid COO is rejected."""
    if isinstance(x, SparseCooTensor) and x.dense_dim() != 0:
        raise ValueError(f"{op}: {arg} is a COO tensor with dense dimensions (dense_dim() = "
                         f"{x.dense_dim()}); products need sparse_dim() == ndim")
    return to_sparse_csr(x) if isinstance(x, SparseCooTensor) else x


def plan_of(x):
    """Plan of CSR ``x`` [M, K] or [B, M, K] as one (B*M) x (B*K) block-diagonal matrix,
    kept on ``x``: a training loop multiplies by the same adjacency every step, and
    its transposed pattern (a sort of every entry) is then built once, not per step."""
    plan = getattr(x, "_plan", None)
    if plan is None:
        plan = x._plan = _build_plan(x)
    return plan


def _build_plan(x):
    shape = x._shape
    if len(shape) == 2:
        return Plan(x._crows, x._cols, shape[0], shape[1])
    b, m, k = shape
    xp = K.xp_of_array(x._data)
    nnz = x._data.shape[0]
    wide = b * max(m, k) >= 2 ** 31 - 1
    itype = np.int64 if wide else x._cols.dtype
    crows = global_crows(x._crows.astype(itype, copy=False), b, m, xp)
    batch, _ = K.csr_batch_rows(x._crows, nnz, b, m)
    cols = x._cols.astype(itype) if batch is None else \
        batch.astype(itype) * k + x._cols.astype(itype, copy=False)
    return Plan(crows, xp.ascontiguousarray(cols), b * m, b * k)


def reshape(t, shape):
    from ..ops.shape.views import reshape_exact  # noqa: PLC0415

    return reshape_exact(t, [int(s) for s in shape])


def swap_last(t):
    from ..ops.shape.views import transpose  # noqa: PLC0415

    return transpose(t, list(range(t.ndim - 2)) + [t.ndim - 1, t.ndim - 2])


def check_dtypes(x, y, op):
    dx, dy = x._data.dtype, y._data.dtype
    for d, arg in ((dx, "x"), (dy, "y")):
        if d.kind not in "fc":
            raise UnsupportedDtypeError(f"{op}: {arg} has dtype {d.name}; products support "
                                        "floating and complex dtypes")
    if dx != dy:
        raise TypeError(f"{op}: x and y must have the same dtype, got {dx.name} and {dy.name}")


def check_shapes(xs, ys, op):
    if len(xs) not in (2, 3) or len(ys) not in (2, 3):
        bad, s = ("x", xs) if len(xs) not in (2, 3) else ("y", ys)
        hint = " (use weft.sparse.mv for a vector)" if len(s) == 1 else ""
        raise ValueError(f"{op}: {bad} must be 2-D or 3-D (batched), got shape {list(s)}{hint}")
    if len(xs) != len(ys):
        raise ValueError(f"{op}: x and y must have the same rank (no broadcasting), got shapes "
                         f"{list(xs)} and {list(ys)}")
    if len(xs) == 3 and xs[0] != ys[0]:
        raise ValueError(f"{op}: batch sizes must be equal (no broadcasting), got {xs[0]} for x "
                         f"and {ys[0]} for y")
    if xs[-1] != ys[-2]:
        raise ValueError(f"{op}: inner sizes do not match: x has shape {list(xs)} and y has "
                         f"shape {list(ys)} ({xs[-1]} != {ys[-2]})")


def dense_arg(t, op, arg):
    if not isinstance(t, Tensor):
        from ..core.args import tensor_arg  # noqa: PLC0415

        t = tensor_arg(t, arg, op)
    return t


# ----------------------------------------------------------------------------------
# public functions
