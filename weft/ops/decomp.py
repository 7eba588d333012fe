"""Dense decompositions with derivatives: reduced QR, thin SVD and the triangular
solve their rules need. Real float32/float64 matrices, 2-D.

They exist for ``weft.sparse.pca_lowrank``, which the spec makes differentiable
"through the dense ops used"; the public ``weft.linalg`` (qr, svd,
triangular_solve, with batching and complex input) is a module of its own. Every
rule is built from weft ops, so ``create_graph=True`` differentiates it again.

Rules (real; ``ᵀ`` transposes, ``S`` = diag(s), ``F[i, j] = 1 / (s_j² - s_i²)``):

======================  ==============================================================
``Y = A⁻¹ B`` (A △)     ``gB = A⁻ᵀ gY``;  ``gA = -△(gB Yᵀ)``  (△: A's triangle)
``X = Q R`` (m ≥ n)     ``gX = (gQ + Q sym(N)) R⁻ᵀ``,  ``N = gR Rᵀ - Qᵀ gQ``,
                        ``sym(N)`` = N's upper triangle mirrored below the diagonal
``A = U S Vᵀ``          ``gA = U (diag(gs) + (F∘(UᵀgU - gUᵀU)) S + S (F∘(VᵀgV - gVᵀV))) Vᵀ``
                        ``+ (gU - U UᵀgU) S⁻¹ Vᵀ + U S⁻¹ (gV - V VᵀgV)ᵀ``
======================  ==============================================================

The SVD's ``F`` is set to 0 where two singular values agree to within
``max(m, n) · eps · max(s)``, so a loss that depends only on the subspace of a
repeated value gets a finite, correct gradient. api-linalg.md §2.1 writes the
bound as ``eps · max(s)``; LAPACK returns an exactly repeated value with an error
of a few ulps times the matrix size (2 ulps on a 5x3 example), which that bound
misses, so the size factor of numpy's rank tolerance is used.
"""
from __future__ import annotations

import numpy as np

from ..autograd.engine import Primitive, apply, defvjp
from ..core.dtype import UnsupportedDtypeError
from ..core.tensor import Tensor
from ..core.args import xp_of
from .creation import diag_embed, tril, triu
from .products import _mm, _mT
from .math.ufuncs import where


def _check(x, op, arg="x"):
    if not isinstance(x, Tensor) or x.ndim != 2:
        raise ValueError(f"{op}: {arg} must be a 2-D Tensor, got "
                         f"{getattr(x, 'shape', type(x).__name__)}")
    if x._data.dtype not in (np.float32, np.float64):
        raise UnsupportedDtypeError(f"{op}: {arg} has dtype {x._data.dtype.name}; only float32 "
                                    "and float64 are supported here")


# ---------------------------------------------------------------------------------
# forwards on backend arrays


def _solve_triangular(xp):
    if xp is np:
        from scipy.linalg import solve_triangular  # noqa: PLC0415
    else:
        from cupyx.scipy.linalg import solve_triangular  # noqa: PLC0415
    return solve_triangular


def _tri_solve_fwd(a, b, *, lower):
    return _solve_triangular(xp_of(a))(a, b, lower=lower, check_finite=False)


def _qr_fwd(x):
    q, r = xp_of(x).linalg.qr(x, mode="reduced")
    return q, r


def _svd_fwd(a):
    u, s, vt = xp_of(a).linalg.svd(a, full_matrices=False)
    return u, s.astype(a.dtype, copy=False), vt


_tri_solve = Primitive("tri_solve", _tri_solve_fwd)
_qr = Primitive("qr_reduced", _qr_fwd, n_out=2)
_svd = Primitive("svd_thin", _svd_fwd, n_out=3)


def tri_solve(a, b, lower):
    """``A⁻¹ B`` for a triangular ``A`` (only its ``lower``/upper triangle is read)."""
    return apply(_tri_solve, a, b, lower=bool(lower))


def _triangle(t, lower):
    return tril(t) if lower else triu(t)


def _tri_solve_vjp_b(g, y, a, b, *, lower):
    return tri_solve(_mT(a), g, not lower)


def _tri_solve_vjp_a(g, y, a, b, *, lower):
    return -_triangle(_mm(_tri_solve_vjp_b(g, y, a, b, lower=lower), _mT(y)), lower)


defvjp(_tri_solve, _tri_solve_vjp_a, _tri_solve_vjp_b)


def _noise(magnitudes, shape):
    """``max(shape) · eps · max(magnitudes)``: how far apart values of that size can be
    and still be one value to LAPACK's working precision (numpy's rank tolerance)."""
    if magnitudes.size == 0:
        return 0.0
    return max(shape) * np.finfo(magnitudes.dtype).eps * float(xp_of(magnitudes).max(magnitudes))


def rank_deficient(r, shape):
    """Whether the triangular factor ``r`` of a QR of an array of ``shape`` is singular
    to working precision (its smallest diagonal entry within noise of the largest)."""
    xp = xp_of(r._data)
    diag = xp.abs(xp.diagonal(r._data))
    return bool(diag.size) and float(diag.min()) <= _noise(diag, shape)


def _qr_vjp(g, ans, x):
    gq, gr = g
    q, r = ans
    if rank_deficient(r, x.shape):
        # the extra columns of Q are arbitrary then, and R⁻ᵀ below would blow up
        raise ValueError(f"qr_reduced: the gradient needs linearly independent columns, but x "
                         f"of shape {x.shape} has numerical rank below {x.shape[1]}")
    n = _mm(gr, _mT(r)) - _mm(_mT(q), gq)
    sym = triu(n) + _mT(triu(n, 1))
    b = gq + _mm(q, sym)
    return _mT(tri_solve(r, _mT(b), lower=False))  # b R⁻ᵀ = (R⁻¹ bᵀ)ᵀ


defvjp(_qr, _qr_vjp)


def _svd_vjp(g, ans, a):
    gu, gs, gvt = g
    u, s, vt = ans
    v, gv = _mT(vt), _mT(gvt)
    s_row = s.reshape([1, -1])
    s_col = s.reshape([-1, 1])
    # F[i, j] = 1 / (s_j² - s_i²) off the diagonal, 0 where the two values coincide
    sd = s._data
    apart = Tensor._wrap(xp_of(sd).abs(sd[None, :] - sd[:, None]) > _noise(sd, a.shape))
    den = where(apart, s_row * s_row - s_col * s_col, 1.0)
    f = where(apart, 1.0 / den, 0.0)
    utgu, vtgv = _mm(_mT(u), gu), _mm(_mT(v), gv)
    inner = (diag_embed(gs) + (f * (utgu - _mT(utgu))) * s_row
             + s_col * (f * (vtgv - _mT(vtgv))))
    ga = _mm(_mm(u, inner), vt)
    # the parts of gU and gV outside the spans of U and V (nonzero for non-square a)
    ga = ga + _mm((gu - _mm(u, utgu)) / s_row, vt)
    return ga + _mm(u / s_row, _mT(gv - _mm(v, vtgv)))


defvjp(_svd, _svd_vjp)


def qr_reduced(x):
    """``(Q [m, n], R [n, n])`` with ``x = Q R`` for a real ``x`` [m, n], m >= n.

    LAPACK's signs (diag(R) may be negative). Differentiable where the columns of
    ``x`` are linearly independent; the backward raises ValueError otherwise."""
    _check(x, "qr_reduced")
    m, n = x.shape
    if m < n:
        raise ValueError(f"qr_reduced: x must have at least as many rows as columns, got "
                         f"shape {x.shape}")
    return apply(_qr, x)


def svd_thin(x):
    """``(U [m, k], s [k], Vᵀ [k, n])``, k = min(m, n), with ``x = U diag(s) Vᵀ``.

    ``s`` descending. Differentiable where the singular values are nonzero; the
    singular vectors' sign freedom makes only sign-invariant losses meaningful."""
    _check(x, "svd_thin")
    return apply(_svd, x)


__all__: list[str] = []  # internal: weft.sparse.pca_lowrank uses these
