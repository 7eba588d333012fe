"""Randomized low-rank factorisations of dense batches of matrices: ``svd_lowrank`` and
``pca_lowrank`` (api-linalg.md #22, #23).

Halko, Martinsson & Tropp (2011), algorithms 4.4 (randomized subspace iteration) and
5.1 (direct SVD): the range of ``A [m, n]`` is captured by ``Q = orth(A Ω)`` for a
Gaussian ``Ω [n, q]`` drawn from weft's generator (so ``weft.seed`` fixes it), refined
by ``niter`` rounds of ``Q ← orth(A orth(Aᴴ Q))``; then ``B = Qᴴ A [q, n]`` is small and
its SVD ``B = Ũ S Vᴴ`` gives ``A ≈ (Q Ũ) S Vᴴ``. A wide ``A`` is factorised through
``Aᴴ`` so that ``Q`` spans the shorter side. ``orth`` is ``weft.linalg.qr`` and the last
step ``weft.linalg.svd``: every step is a weft op, so the result is differentiable
through them (the gradient of the randomized algorithm for its random start; equal
to the truncated SVD's when ``q`` reaches the rank, where the range finder is exact).

The sparse ``weft.sparse.pca_lowrank`` runs the same algorithm with its products
computed sparse, on the same ``qr`` and ``svd``.
"""
from __future__ import annotations

import numbers

from ..core.args import check_same_place, tensor_arg, xp_of
from ..core.random import default_generator
from ..core.tensor import Tensor
from ..ops.products import _mm
from ..ops.reduction.aggregate import mean
from ._common import matrix_arg, mH, restore
from ._qr import qr
from ._spectral import svd

__all__ = ["pca_lowrank", "svd_lowrank"]


def _q_arg(q, m, n, op):
    k = min(m, n)
    if q is None:
        return min(6, k)
    if not isinstance(q, numbers.Integral) or isinstance(q, bool) or not 0 <= q <= k:
        raise ValueError(f"{op}: q(={q}) must be non-negative integer and not greater than "
                         f"min(m, n)={k}")
    return int(q)


def _niter_arg(niter, op):
    if not isinstance(niter, numbers.Integral) or isinstance(niter, bool) or niter < 0:
        raise ValueError(f"{op}: niter must be a non-negative integer, got {niter!r}")
    return int(niter)


def gaussian(shape, dtype, place):
    """A Gaussian test matrix from weft's generator for ``place`` (real, cast to
    ``dtype``: a real Ω captures the range of a complex matrix as well)."""
    return Tensor._wrap(default_generator(place).standard_normal(tuple(shape)).astype(dtype))


def randomized_svd(apply_a, apply_ah, niter, omega):
    """``(U, S, Vᴴ)`` of the operator ``A`` (``apply_a(V) = A V``, ``apply_ah(U) =
    Aᴴ U``), from the Gaussian start ``omega [*, n, q]``."""
    basis = qr(apply_a(omega))[0]
    for _ in range(niter):
        basis = qr(apply_a(qr(apply_ah(basis))[0]))[0]
    u, s, vh = svd(mH(apply_ah(basis)))   # B = Qᴴ A = (Aᴴ Q)ᴴ, [*, q, n]
    return _mm(basis, u), s, vh


def _lowrank(a, q, niter):
    m, n = a.shape[-2], a.shape[-1]
    xp = xp_of(a._data)
    dtype = a._data.dtype
    batch = list(a.shape[:-2])
    if q == 0:
        wrap = Tensor._wrap
        real = xp.finfo(dtype).dtype
        return (wrap(xp.zeros(batch + [m, 0], dtype)), wrap(xp.zeros(batch + [0], real)),
                wrap(xp.zeros(batch + [n, 0], dtype)))
    if m < n:   # Q spans the shorter side: Aᴴ ≈ U' S V'ᴴ gives A ≈ V' S U'ᴴ
        u2, s, v2 = _lowrank(mH(a), q, niter)
        return v2, s, u2
    omega = gaussian(batch + [n, q], dtype, a.place)
    u, s, vh = randomized_svd(lambda v: _mm(a, v), lambda w: _mm(mH(a), w), niter, omega)
    return u, s, mH(vh)


def svd_lowrank(x, q=None, niter=2, M=None, name=None):
    """Randomized SVD of ``x − M`` for ``x [*, m, n]`` (``M`` optional, broadcastable to
    ``x``): ``(U [*, m, q], S [*, q], V [*, n, q])`` with ``x − M ≈ U diag(S) Vᴴ`` (``V``,
    not ``Vᴴ``), ``S`` descending. ``q=None`` means ``min(6, m, n)``; ``niter`` subspace
    iterations sharpen the estimate when the spectrum decays slowly. The random start
    comes from weft's generator (``weft.seed``). Differentiable through the ops used.

    >>> import weft
    >>> x = weft.to_tensor([[3.0, 0.0], [0.0, 2.0], [0.0, 0.0]], dtype="float64")
    >>> U, S, V = weft.linalg.svd_lowrank(x, q=2)
    >>> [round(s, 6) for s in S.tolist()]
    [3.0, 2.0]
    """
    op = "svd_lowrank"
    x, back = matrix_arg(x, op, square=False)
    if M is not None:
        M = tensor_arg(M, "M", op)
        check_same_place(x, M, op)
        y = x - M
        if y.shape != x.shape:
            raise ValueError(f"{op}: M of shape {M.shape} must broadcast to x's shape "
                             f"{x.shape}")
        x = y
    q = _q_arg(q, x.shape[-2], x.shape[-1], op)
    u, s, v = _lowrank(x, q, _niter_arg(niter, op))
    return restore(u, back), restore(s, back), restore(v, back)


def pca_lowrank(x, q=None, center=True, niter=2, name=None):
    """Randomized PCA of a dense ``x [*, m, n]`` (rows are observations): ``(U [*, m, q],
    S [*, q], V [*, n, q])`` of the SVD of ``x`` minus its column means (``center``),
    by :func:`svd_lowrank`. ``q=None`` means ``min(6, m, n)``; ``q`` negative or above
    ``min(m, n)`` raises ``ValueError``. Sparse input: ``weft.sparse.pca_lowrank``.

    >>> import weft
    >>> x = weft.to_tensor([[1.0, 0.0], [-1.0, 0.0], [0.0, 2.0], [0.0, -2.0]], dtype="float64")
    >>> U, S, V = weft.linalg.pca_lowrank(x, q=2)
    >>> [round(s, 6) for s in S.tolist()]
    [2.828427, 1.414214]
    """
    op = "pca_lowrank"
    x, back = matrix_arg(x, op, square=False)
    q = _q_arg(q, x.shape[-2], x.shape[-1], op)
    niter = _niter_arg(niter, op)
    if center:
        x = x - mean(x, axis=-2, keepdim=True)
    u, s, v = _lowrank(x, q, niter)
    return restore(u, back), restore(s, back), restore(v, back)
