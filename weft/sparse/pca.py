"""``pca_lowrank``: randomized PCA of a sparse matrix without densifying it.

Halko, Martinsson & Tropp (2011), algorithms 4.4 (randomized subspace
iteration) and 5.1 (direct SVD): the range of the centered matrix
``Ā = A - 1 cᵀ`` (``c`` the column means) is captured by ``Q = orth(Ā R)`` for a
Gaussian ``R`` [M, q], refined by ``niter`` rounds of ``Q <- orth(Ā orth(Āᵀ Q))``;
then ``Qᵀ Ā`` [q, M] is small and its dense SVD gives ``U = Q Ũ``, ``S``, ``V``.
``Ā`` is only ever applied to a block of vectors: ``Ā X = A X - 1 (cᵀ X)`` and
``Āᵀ Y = Aᵀ Y - c (1ᵀ Y)``, each a sparse @ dense product plus a rank-one term.

weft has no differentiable QR or SVD yet, so the result carries no gradient:
calling it on a tensor that requires one, with gradients enabled, raises
``NotImplementedError`` rather than returning silently detached results.
"""
from __future__ import annotations

import numbers

import numpy as np

from ..core.random import default_generator
from ..core.tensor import Tensor
from . import _kernels as K
from .convert import to_sparse_csr
from .matmul import matmul
from .tensor import UnsupportedDtypeError, _SparseBase


def _int_arg(v, op, arg, lo):
    if not isinstance(v, numbers.Integral) or isinstance(v, bool):
        raise TypeError(f"{op}: {arg} must be an int, got {type(v).__name__}")
    if v < lo:
        raise ValueError(f"{op}: {arg} must be >= {lo}, got {v}")
    return int(v)


def pca_lowrank(x, q=None, center=True, niter=2, name=None):
    """Randomized PCA of a sparse 2-D ``x`` [N, M]: ``(U [N, q], S [q], V [M, q])``.

    ``x ≈ U diag(S) Vᵀ`` (plus the column means when ``center``), ``S`` descending.
    ``q=None`` means ``min(6, N, M)``; ``niter`` subspace iterations sharpen the
    estimate when the spectrum decays slowly. ``center=True`` subtracts the column
    means implicitly (``x - mean`` is never formed). The random start comes from
    weft's generator, so ``weft.seed`` makes the result reproducible. COO or CSR,
    float32/float64. Not differentiable (see the module docstring).

    >>> import weft
    >>> x = weft.sparse.sparse_coo_tensor([[0, 1, 2], [0, 1, 2]], [3.0, 2.0, 1.0], [3, 3])
    >>> U, S, V = weft.sparse.pca_lowrank(x, q=3, center=False)
    >>> [round(s, 6) for s in S.tolist()]
    [3.0, 2.0, 1.0]
    """
    op = "pca_lowrank"
    if not isinstance(x, _SparseBase):
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
    from ..autograd.grad_mode import is_grad_enabled, no_grad  # noqa: PLC0415

    if not x.stop_gradient and is_grad_enabled():
        raise NotImplementedError(f"{op}: gradients through pca_lowrank are not supported (weft "
                                  "has no differentiable QR/SVD yet); call it under "
                                  "weft.no_grad() or on a tensor with stop_gradient=True")
    with no_grad():
        return _pca(to_sparse_csr(x), n, m, q, bool(center), niter, dtype)


def _pca(a, n, m, q, center, niter, dtype):
    xp = K.xp_of_array(a._data)
    wrap = Tensor._wrap
    if q == 0:
        return (wrap(xp.zeros((n, 0), dtype=dtype)), wrap(xp.zeros(0, dtype=dtype)),
                wrap(xp.zeros((m, 0), dtype=dtype)))
    c = K.segment_sum(a._data, a._cols, m) / dtype.type(n) if center else None

    def apply_a(v):  # Ā @ v, v [M, k]
        out = matmul(a, wrap(xp.ascontiguousarray(v)))._data
        return out - (c @ v)[None, :] if center else out

    def apply_at(u):  # Āᵀ @ u, u [N, k]
        out = matmul(wrap(xp.ascontiguousarray(u.T)), a)._data.T
        return out - c[:, None] * u.sum(axis=0)[None, :] if center else out

    def orth(v):
        return xp.linalg.qr(v)[0]

    gen = default_generator(a.place)
    r = xp.asarray(gen.standard_normal((m, q))).astype(dtype)
    basis = orth(apply_a(r))
    for _ in range(niter):
        basis = orth(apply_a(orth(apply_at(basis))))
    small = apply_at(basis).T  # Qᵀ Ā, [q, M]
    u, s, vt = xp.linalg.svd(small, full_matrices=False)
    return (wrap(xp.ascontiguousarray((basis @ u).astype(dtype))), wrap(s.astype(dtype)),
            wrap(xp.ascontiguousarray(vt.T.astype(dtype))))


__all__ = ["pca_lowrank"]
