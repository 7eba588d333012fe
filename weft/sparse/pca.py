"""``pca_lowrank``: randomized PCA of a sparse matrix without densifying it.

Halko, Martinsson & Tropp (2011), algorithms 4.4 (randomized subspace
iteration) and 5.1 (direct SVD): the range of the centered matrix
``Ā = A - 1 cᵀ`` (``c`` the column means) is captured by ``Q = orth(Ā R)`` for a
Gaussian ``R`` [M, q], refined by ``niter`` rounds of ``Q <- orth(Ā orth(Āᵀ Q))``;
then ``Qᵀ Ā`` [q, M] is small and its dense SVD gives ``U = Q Ũ``, ``S``, ``V``.
``Ā`` is only ever applied to a block of vectors: ``Ā X = A X - 1 (cᵀ X)`` and
``Āᵀ Y = Aᵀ Y - c (1ᵀ Y)``, each a sparse @ dense product plus a rank-one term.

Every step is a weft op (sparse @ dense products, the column means as
``1ᵀ A / N``, and ``weft.linalg``'s reduced QR and SVD), so the
result is differentiable with respect to ``x``'s values "through the dense ops
used" (api-sparse.md §3.2): the gradient of the randomized algorithm's own output
for its random start, masked to ``x``'s pattern. It is not the gradient of the
exact truncated SVD, which the randomized one only approximates.
"""
from __future__ import annotations

import numbers

import numpy as np

from ..core.random import default_generator
from ..core.tensor import Tensor
from ..autograd.grad_mode import is_grad_enabled
from ..linalg import qr, svd
from ..ops.products import _mm, _mT
from ..ops.reduction.aggregate import sum as _sum
from . import _kernels as K
from .convert import to_sparse_csr
from .matmul import matmul
from .tensor import UnsupportedDtypeError, SparseBase
from ._guard import public


def _int_arg(v, op, arg, lo):
    if not isinstance(v, numbers.Integral) or isinstance(v, bool):
        raise TypeError(f"{op}: {arg} must be an int, got {type(v).__name__}")
    if v < lo:
        raise ValueError(f"{op}: {arg} must be >= {lo}, got {v}")
    return int(v)


@public
def pca_lowrank(x, q=None, center=True, niter=2, name=None):
    """Randomized PCA of a sparse 2-D ``x`` [N, M]: ``(U [N, q], S [q], V [M, q])``.

    ``x ≈ U diag(S) Vᵀ`` (plus the column means when ``center``), ``S`` descending.
    ``q=None`` means ``min(6, N, M)``; ``niter`` subspace iterations sharpen the
    estimate when the spectrum decays slowly. ``center=True`` subtracts the column
    means implicitly (``x - mean`` is never formed). The random start comes from
    weft's generator, so ``weft.seed`` makes the result reproducible. COO or CSR,
    float32/float64. Differentiable with respect to ``x``'s stored values (see the
    module docstring) when ``q`` does not exceed the rank of the (centred) ``x``:
    otherwise the basis has arbitrary columns, and a call that needs a gradient
    raises ValueError.

    >>> import weft
    >>> x = weft.sparse.sparse_coo_tensor([[0, 1, 2], [0, 1, 2]], [3.0, 2.0, 1.0], [3, 3])
    >>> U, S, V = weft.sparse.pca_lowrank(x, q=3, center=False)
    >>> [round(s, 6) for s in S.tolist()]
    [3.0, 2.0, 1.0]
    """
    op = "pca_lowrank"
    if not isinstance(x, SparseBase):
        raise ValueError(f"{op}: Input must be sparse (SparseCooTensor or SparseCsrTensor), got "
                         f"{type(x).__name__}; use a dense SVD for dense input")
    if x.ndim != 2:
        raise ValueError(f"{op}: x must be 2-D [N, M], got shape {x.shape}")
    dtype = x._data.dtype
    if dtype not in (np.float32, np.float64):
        raise UnsupportedDtypeError(f"{op}: x has dtype {dtype.name}; float32 and float64 "
                                    "are supported")
    n, m = x.shape
    q = min(6, n, m) if q is None else _int_arg(q, op, "q", 0)
    if q > min(n, m):
        raise ValueError(f"{op}: q must be at most min(N, M) = {min(n, m)} for x of shape "
                         f"{x.shape}, got {q}")
    niter = _int_arg(niter, op, "niter", 0)
    return _pca(to_sparse_csr(x), n, m, q, bool(center), niter, dtype,
                check_rank=not x.stop_gradient and is_grad_enabled())


def _pca(a, n, m, q, center, niter, dtype, check_rank):
    xp = K.xp_of_array(a._data)
    if q == 0:
        wrap = Tensor._wrap
        return (wrap(xp.zeros((n, 0), dtype=dtype)), wrap(xp.zeros(0, dtype=dtype)),
                wrap(xp.zeros((m, 0), dtype=dtype)))
    # column means as a [1, M] row: 1ᵀ A / N, a dense @ sparse product
    c = matmul(Tensor._wrap(xp.full((1, n), 1.0 / n, dtype=dtype)), a) if center else None

    def apply_a(v):  # Ā @ v, v [M, k] -> [N, k]
        out = matmul(a, v)
        return out - _mm(c, v) if center else out

    def apply_at_t(u):  # (Āᵀ @ u)ᵀ = uᵀ Ā, u [N, k] -> [k, M]
        ut = _mT(u)
        out = matmul(ut, a)
        return out - _mm(_sum(ut, axis=1, keepdim=True), c) if center else out

    def orth(v):
        basis, r = qr(v)
        if check_rank and _rank_deficient(r, v.shape):
            # the basis then has arbitrary columns, with no gradient: say so now, not
            # with a singular solve in the backward pass
            bound = f" (centring leaves at most N - 1 = {n - 1})" if center else ""
            raise ValueError(f"pca_lowrank: gradients need q <= the rank of the "
                             f"{'centred ' if center else ''}x, but q = {q} exceeds it{bound}; "
                             "pass a smaller q, or call it under weft.no_grad()")
        return basis

    gen = default_generator(a.place)
    r = Tensor._wrap(xp.asarray(gen.standard_normal((m, q))).astype(dtype))
    basis = orth(apply_a(r))
    for _ in range(niter):
        basis = orth(apply_a(orth(_mT(apply_at_t(basis)))))
    u, s, vt = svd(apply_at_t(basis))  # of Qᵀ Ā, [q, M]
    return _mm(basis, u), s, _mT(vt)


def _rank_deficient(r, shape):
    """Whether the triangular factor ``r`` of a QR of an array of ``shape`` is singular
    to working precision: its smallest diagonal entry within ``max(shape) · eps`` of the
    largest (numpy's rank tolerance)."""
    xp = K.xp_of_array(r._data)
    diag = xp.abs(xp.diagonal(r._data))
    if not diag.size:
        return False
    return float(diag.min()) <= max(shape) * np.finfo(diag.dtype).eps * float(diag.max())


__all__ = ["pca_lowrank"]
