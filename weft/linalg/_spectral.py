"""Hermitian eigendecomposition and singular value decomposition: ``eigh``,
``eigvalsh``, ``svd``, ``svdvals``, batched, real and complex, differentiable to any
order (the rules are written in weft ops).

Rules (``ᴴ`` conjugate transpose, ``skew(X) = X − Xᴴ``, ``∘`` elementwise):

======================  ==============================================================
``A = V diag(λ) Vᴴ``    ``gA = V (diag(gλ) + F ∘ ½skew(VᴴgV)) Vᴴ``, ``F_ij = 1/(λ_j − λ_i)``
``A = U diag(s) Vᴴ``    ``gA = U (diag(gs) + i·Im diag(UᴴgU)/s + (G ∘ skew(UᴴgU)) S``
                        ``+ S (G ∘ skew(VᴴgV))) Vᴴ + (gU − U UᴴgU) S⁻¹ Vᴴ``
                        ``+ U S⁻¹ (gV − V VᴴgV)ᴴ``,  ``G_ij = 1/(s_j² − s_i²)``
``λ = eigvalsh(A)``     ``gA = V diag(gλ) Vᴴ``;   ``s = svdvals(A)``: ``gA = U diag(gs) Vᴴ``
======================  ==============================================================

Repeated values (api-linalg.md §2.1): ``F`` and ``G`` are 0 where two values agree to
within ``n · eps · max|value|`` of their matrix (numpy's rank tolerance: LAPACK
returns an exactly repeated value with an error of a few ulps times the size), so a
loss that depends only on the eigen/singular *space* of a cluster gets a correct
gradient and any other loss a finite one. Eigenvalue-only functions never form ``F``.

Gauge (§2.2): for complex input a loss that depends on the phase of the vectors
shows up as an imaginary part of ``diag(VᴴgV)`` (``diag(UᴴgU + VᴴgV)`` for svd);
beyond tolerance :class:`weft.autograd.GaugeWarning` is emitted and the phase part is
dropped. ``svd(full_matrices=True)``: the extra columns of U and Vᴴ are arbitrary and
their cotangents are ignored (§2.3).
"""
from __future__ import annotations

import warnings

import numpy as np

from ..autograd.engine import GaugeWarning, Primitive, apply, defvjp
from ..core.tensor import Tensor
from ..core.args import xp_of
from ..ops.creation import diag_embed
from ..ops.math.functions import complex as _complex
from ..ops.math.ufuncs import imag, where
from ..ops.primitives import diagonal as _diagonal
from ..ops.products import _mm
from ..ops.shape.views import unsqueeze
from ._common import backend_of, check_converged, matrix_arg, mH, restore

__all__ = ["eigh", "eigvalsh", "svd", "svdvals"]


def _uplo(UPLO, op):
    if UPLO not in ("L", "U"):
        raise ValueError(f"{op}: UPLO must be L or U, got {UPLO!r}")
    return UPLO


def _apart(vals, n):
    """Boolean Tensor ``[*, k, k]``: where values ``i`` and ``j`` of each matrix differ by
    more than ``n · eps · max|value|`` (the off-diagonal pairs a rule may divide by)."""
    d = vals._data
    xp = xp_of(d)
    if d.size == 0:
        return Tensor._wrap(xp.zeros(d.shape + d.shape[-1:], dtype=bool))
    tol = max(n, 1) * np.finfo(d.dtype).eps * xp.abs(d).max(axis=-1)
    gap = xp.abs(d[..., None, :] - d[..., :, None])
    return Tensor._wrap(gap > tol[..., None, None])


def _inverse_gaps(apart, lo, hi):
    """``1 / (hi − lo)`` where ``apart``, 0 elsewhere (differentiable in lo, hi)."""
    den = where(apart, hi - lo, 1.0)
    return where(apart, 1.0 / den, 0.0)


def _diag(t):
    return _diagonal(t, 0, t.ndim - 2, t.ndim - 1)


def _gauge_check(diag_im, scale, op):
    d = diag_im._data
    if d.size and float(xp_of(d).abs(d).max()) > 1e-6 * max(1.0, float(scale)):
        warnings.warn(f"{op}: the loss depends on the phase of the eigen/singular vectors, "
                      "which is arbitrary, so its gradient is not well defined; the phase "
                      "part is dropped", GaugeWarning, stacklevel=4)


def _maxabs(t):
    d = t._data
    return float(xp_of(d).abs(d).max()) if d.size else 0.0


# ---------------------------------------------------------------------------------
# eigh / eigvalsh


def _eigh_fwd(a, *, uplo):
    w, v, info = backend_of(a, "eigh").eigh(a, uplo == "L", True)
    check_converged("eigh", info, a.shape[:-2])
    return w, v


_eigh = Primitive("linalg_eigh", _eigh_fwd, n_out=2)


def _eigh_vjp(g, ans, a, *, uplo):
    gw, gv = g
    w, v = ans
    vhgv = _mm(mH(v), gv)
    if vhgv._data.dtype.kind == "c":
        _gauge_check(imag(_diag(vhgv)), _maxabs(vhgv), "eigh")
    f = _inverse_gaps(_apart(w, a.shape[-1]), unsqueeze(w, -1), unsqueeze(w, -2))
    inner = f * ((vhgv - mH(vhgv)) * 0.5) + diag_embed(gw)
    return _mm(_mm(v, inner), mH(v))


defvjp(_eigh, _eigh_vjp, save=())


def _eigvalsh_fwd(a, *, uplo):
    w, _, info = backend_of(a, "eigvalsh").eigh(a, uplo == "L", False)
    check_converged("eigvalsh", info, a.shape[:-2])
    return w


_eigvalsh = Primitive("linalg_eigvalsh", _eigvalsh_fwd)


def _eigvalsh_vjp(g, w, a, *, uplo):
    _, v = apply(_eigh, a, uplo=uplo)
    return _mm(v * unsqueeze(g, -2), mH(v))


defvjp(_eigvalsh, _eigvalsh_vjp, save_out=False)


def eigh(x, UPLO="L", name=None):  # noqa: N803 (Paddle's name)
    """Eigenvalues (real, ascending, ``[*, n]``) and orthonormal eigenvectors (columns,
    ``[*, n, n]``) of Hermitian matrices ``x [*, n, n]``; only the ``UPLO`` triangle
    is read.

    >>> import weft
    >>> w, v = weft.linalg.eigh(weft.to_tensor([[2.0, 1.0], [1.0, 2.0]], dtype="float64"))
    >>> [round(float(e), 6) for e in w]
    [1.0, 3.0]
    """
    uplo = _uplo(UPLO, "eigh")
    x, back = matrix_arg(x, "eigh")
    w, v = apply(_eigh, x, uplo=uplo)
    return restore(w, back), restore(v, back)


def eigvalsh(x, UPLO="L", name=None):  # noqa: N803
    """Eigenvalues of Hermitian matrices ``x [*, n, n]`` (real, ascending, ``[*, n]``);
    only the ``UPLO`` triangle is read.

    >>> import weft
    >>> weft.linalg.eigvalsh(weft.to_tensor([[2.0, 0.0], [0.0, -1.0]], dtype="float64")).tolist()
    [-1.0, 2.0]
    """
    uplo = _uplo(UPLO, "eigvalsh")
    x, back = matrix_arg(x, "eigvalsh")
    return restore(apply(_eigvalsh, x, uplo=uplo), back)


# ---------------------------------------------------------------------------------
# svd / svdvals


def _svd_fwd(a, *, full):
    u, s, vh, info = backend_of(a, "svd").svd(a, "A" if full else "S")
    check_converged("svd", info, a.shape[:-2])
    return u, s, vh


_svd = Primitive("linalg_svd", _svd_fwd, n_out=3)


def _nonzero(t):
    d = t._data
    return bool(d.size) and bool(xp_of(d).any(d != 0))


def _svd_vjp(g, ans, a, *, full):
    gu, gs, gvh = g
    u, s, vh = ans
    m, n = a.shape[-2], a.shape[-1]
    k = min(m, n)
    if full:   # only the first k columns of U and rows of Vᴴ are determined by a
        u, gu = u[..., :, :k], gu[..., :, :k]
        vh, gvh = vh[..., :k, :], gvh[..., :k, :]
    v, gv = mH(vh), mH(gvh)
    uhgu, vhgv = _mm(mH(u), gu), _mm(mH(v), gv)
    s_row, s_col = unsqueeze(s, -2), unsqueeze(s, -1)
    sq = s * s
    f = _inverse_gaps(_apart(s, max(m, n)), unsqueeze(sq, -1), unsqueeze(sq, -2))
    inner = (f * (uhgu - mH(uhgu))) * s_row + s_col * (f * (vhgv - mH(vhgv))) \
        + diag_embed(gs)
    if uhgu._data.dtype.kind == "c":
        im_u = imag(_diag(uhgu))
        _gauge_check(im_u + imag(_diag(vhgv)), max(_maxabs(uhgu), _maxabs(vhgv)), "svd")
        inner = inner + diag_embed(_complex(im_u * 0.0, im_u / s))
    ga = _mm(_mm(u, inner), vh)
    # the parts of gU and gV outside the spans of U and V (only for non-square a)
    if m > k:
        rest = gu - _mm(u, uhgu)
        if _nonzero(rest):
            ga = ga + _mm(rest / s_row, vh)
    if n > k:
        rest = gv - _mm(v, vhgv)
        if _nonzero(rest):
            ga = ga + _mm(u / s_row, mH(rest))
    return ga


defvjp(_svd, _svd_vjp, save=())


def _svdvals_fwd(a):
    _, s, _, info = backend_of(a, "svdvals").svd(a, "N")
    check_converged("svdvals", info, a.shape[:-2])
    return s


_svdvals = Primitive("linalg_svdvals", _svdvals_fwd)


def _svdvals_vjp(g, s, a):
    u, _, vh = apply(_svd, a, full=False)
    return _mm(u * unsqueeze(g, -2), vh)


defvjp(_svdvals, _svdvals_vjp, save_out=False)


def svd(x, full_matrices=False, name=None):
    """Singular value decomposition ``x = U diag(S) VH`` of ``x [*, m, n]``.

    Returns ``(U, S, VH)`` — the third output is Vᴴ. With k = min(m, n): reduced
    ``U [*, m, k]``, ``S [*, k]`` (real, descending), ``VH [*, k, n]``; with
    ``full_matrices=True`` ``U [*, m, m]`` and ``VH [*, n, n]``.

    >>> import weft
    >>> u, s, vh = weft.linalg.svd(weft.to_tensor([[3.0, 0.0], [0.0, -4.0]], dtype="float64"))
    >>> s.tolist()
    [4.0, 3.0]
    """
    x, back = matrix_arg(x, "svd", square=False)
    u, s, vh = apply(_svd, x, full=bool(full_matrices))
    return restore(u, back), restore(s, back), restore(vh, back)


def svdvals(x, name=None):
    """Singular values of ``x [*, m, n]``: real, descending, ``[*, min(m, n)]``.

    >>> import weft
    >>> weft.linalg.svdvals(weft.to_tensor([[0.0, 2.0], [1.0, 0.0]], dtype="float64")).tolist()
    [2.0, 1.0]
    """
    x, back = matrix_arg(x, "svdvals", square=False)
    return restore(apply(_svdvals, x), back)
