"""Sparse products, public side: ``matmul`` (CSR/COO @ dense, dense @ CSR/COO, and
sparse @ sparse through spgemm.py) and ``mv``, plus their Tensor methods. The primitives
and their derivative rules are in spmm.py.
"""
from __future__ import annotations

import numpy as np

from ..autograd.engine import apply
from ..core.tensor import Tensor, add_methods
from . import _kernels as K
from .convert import coalesce, to_sparse_coo, to_sparse_csr, values
from ._guard import public
from .spgemm import sparse_matmul
from .spmm import (_SPMM, _SPMMT, _SPMV, check_dtypes, check_shapes, csr_of, dense_arg,
                   plan_of, reshape, swap_last)
from .tensor import SparseBase, SparseCooTensor, SparseCsrTensor, wrap_coo


@public
def matmul(x, y, name=None):
    """Matrix product with a sparse operand: ``x @ y`` (dense unless both are sparse).

    Supported: CSR@dense, COO@dense, and (**weft+**) dense@CSR, dense@COO; 2-D
    ``[M, K] @ [K, N]`` or batched 3-D ``[B, M, K] @ [B, K, N]`` (no broadcasting).
    Sparse@sparse: CSR@CSR -> CSR and COO@COO -> COO (coalesced), canonical and
    holding every structurally nonzero product; mixed layouts raise
    ``NotImplementedError``. Values float32/float64/complex64/complex128, both
    operands of one dtype. COO duplicates are summed. Gradients: a sparse operand
    gets a masked gradient (``g @ yᴴ`` sampled at its stored entries, never formed
    densely); a dense one ``xᴴ @ g``.

    >>> import weft
    >>> x = weft.sparse.sparse_csr_tensor([0, 1, 2], [1, 0], [2.0, 3.0], [2, 2])
    >>> y = weft.to_tensor([[1.0, 2.0], [3.0, 4.0]])
    >>> weft.sparse.matmul(x, y).tolist()
    [[6.0, 8.0], [3.0, 6.0]]
    >>> weft.sparse.matmul(y, x).tolist()
    [[6.0, 2.0], [12.0, 6.0]]
    >>> weft.sparse.matmul(x, x).to_dense().tolist()
    [[6.0, 0.0], [0.0, 6.0]]
    """
    op = "matmul"
    xs, ys = isinstance(x, SparseBase), isinstance(y, SparseBase)
    if xs and ys:
        return sparse_matmul(x, y, op)
    if not xs and not ys:
        raise TypeError(f"{op}: one of x and y must be a sparse tensor (use weft.matmul for "
                        f"dense operands), got {type(x).__name__} and {type(y).__name__}")
    if xs:
        y = dense_arg(y, op, "y")
    else:
        x = dense_arg(x, op, "x")
    check_shapes(x.shape, y.shape, op)
    check_dtypes(x, y, op)
    if xs:
        a = csr_of(x, op, "x")
        plan = plan_of(a)
        n = y.shape[-1]
        out = apply(_SPMM, a, reshape(y, (plan.ncols, n)), plan=plan)
        return reshape(out, x.shape[:-1] + [n])
    a = csr_of(y, op, "y")
    plan = plan_of(a)
    m = x.shape[-2]
    # x @ A = (Aᵀ @ xᵀ)ᵀ, batch by batch
    xt = reshape(swap_last(x), (plan.nrows, m))
    out = apply(_SPMMT, a, xt, plan=plan)
    return swap_last(reshape(out, y.shape[:-2] + [y.shape[-1], m]))


@public
def mv(x, vec, name=None):
    """Sparse matrix-vector product: 2-D COO/CSR ``x`` [M, N] @ dense ``vec`` [N] -> [M].

    Gradients: ``x`` masked (``g ⊗ conj(vec)`` at its stored entries), ``vec``
    gets ``xᴴ @ g``.

    >>> import weft
    >>> x = weft.sparse.sparse_coo_tensor([[0, 1], [1, 0]], [2.0, 3.0], [2, 2])
    >>> weft.sparse.mv(x, weft.to_tensor([1.0, 10.0])).tolist()
    [20.0, 3.0]
    """
    op = "mv"
    if not isinstance(x, SparseBase):
        raise TypeError(f"{op}: x must be a sparse tensor (SparseCooTensor or SparseCsrTensor), "
                        f"got {type(x).__name__}")
    vec = dense_arg(vec, op, "vec")
    if isinstance(vec, SparseBase):
        raise TypeError(f"{op}: vec must be a dense Tensor, got a {type(vec).__name__}")
    if x.ndim != 2:
        raise ValueError(f"{op}: x must be 2-D, got shape {x.shape}")
    if vec.ndim != 1 or vec.shape[0] != x.shape[1]:
        raise ValueError(f"{op}: vec must be 1-D of length {x.shape[1]} (the columns of x), got "
                         f"shape {vec.shape}")
    check_dtypes(x, vec, op)
    a = csr_of(x, op, "x")
    return apply(_SPMV, a, vec, plan=plan_of(a))


# ----------------------------------------------------------------------------------
# addmm


def _scaled(t, s):
    return t if isinstance(s, (int, float)) and s == 1 else t * s


@public
def addmm(input, x, y, beta=1.0, alpha=1.0, name=None):
    """``beta * input + alpha * (x @ y)`` with a sparse ``x``.

    Combinations: dense + CSR@dense -> dense, dense + COO@dense -> dense,
    CSR + CSR@CSR -> CSR, COO + COO@COO -> COO (the sparse result stores the union
    of input's pattern and the product's). Shapes ``[*, M, N] + [*, M, K] @ [*, K, N]``
    (2-D or 3-D), no broadcasting. Gradients: input gets ``beta * g`` (masked when
    sparse), x and y as in :func:`matmul` times ``alpha``.

    >>> import weft
    >>> x = weft.sparse.sparse_csr_tensor([0, 1, 1], [0], [2.0], [2, 2])
    >>> out = weft.sparse.addmm(x, x, x, beta=0.5, alpha=1.0)
    >>> out.to_dense().tolist()
    [[5.0, 0.0], [0.0, 0.0]]
    """
    op = "addmm"
    if not isinstance(x, SparseBase):
        raise TypeError(f"{op}: x must be a sparse tensor (SparseCooTensor or SparseCsrTensor), "
                        f"got {type(x).__name__}")
    sparse_y = isinstance(y, SparseBase)
    if not isinstance(input, Tensor):
        input = dense_arg(input, op, "input")
    sparse_in = isinstance(input, SparseBase)
    if sparse_y != sparse_in:
        raise NotImplementedError(
            f"{op}: a {'sparse' if sparse_in else 'dense'} input with a "
            f"{'sparse @ sparse' if sparse_y else 'sparse @ dense'} product is not supported; "
            "use a dense input with a dense y, or an input of x's layout with a sparse y")
    if sparse_in and type(input) is not type(x):
        raise NotImplementedError(f"{op}: input is a {type(input).__name__} but x is a "
                                  f"{type(x).__name__}; convert input to x's layout")
    prod = matmul(x, y)
    want = prod.shape
    if input.shape != want:
        raise ValueError(f"{op}: input must have shape {want} (the shape of x @ y; no "
                         f"broadcasting), got {input.shape}")
    if input.dtype != prod.dtype:
        raise TypeError(f"{op}: input has dtype {input.dtype.name} but x @ y has "
                        f"{prod.dtype.name}; they must match")
    if not sparse_in:
        return _scaled(input, beta) + _scaled(prod, alpha)
    coo_in = input if isinstance(input, SparseCooTensor) else to_sparse_coo(input)
    coo_prod = prod if isinstance(prod, SparseCooTensor) else to_sparse_coo(prod)
    if coo_in.dense_dim() != 0:
        raise ValueError(f"{op}: input is a COO tensor with dense dimensions (dense_dim() = "
                         f"{coo_in.dense_dim()}); it must have sparse_dim() == ndim")
    from ..ops.shape.join import concat  # noqa: PLC0415

    xp = K.xp_of_array(prod._data)
    i1, i2 = coo_in._indices, coo_prod._indices
    itype = i1.dtype if i1.dtype == i2.dtype else np.int64
    idx = xp.concatenate([i1.astype(itype, copy=False), i2.astype(itype, copy=False)], axis=1)
    v = concat([_scaled(values(coo_in), beta), _scaled(values(coo_prod), alpha)])
    out = coalesce(wrap_coo(v, idx, want, coalesced=False))
    return out if isinstance(x, SparseCooTensor) else to_sparse_csr(out)


def _matmul_method(self, y, name=None):
    return matmul(self, y)


def _rmatmul_method(self, x):
    return matmul(x, self)


def _mv_method(self, vec, name=None):
    return mv(self, vec)


def install_sparse_methods():
    """``x @ y``, ``x.matmul(y)`` and ``x.mv(vec)`` on the sparse tensor types."""
    methods = {"__matmul__": _matmul_method, "__rmatmul__": _rmatmul_method,
               "matmul": _matmul_method, "mv": _mv_method}
    for cls in (SparseCooTensor, SparseCsrTensor):
        add_methods(cls, methods)


__all__ = ["matmul", "mv", "addmm"]
