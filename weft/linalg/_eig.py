"""Eigendecomposition of general (non-Hermitian) square matrices: ``eig`` and
``eigvals``, batched, real and complex input, complex output (float32 → complex64,
float64 → complex128; float16/bfloat16 are computed in float32 and give complex64,
there being no half-precision complex dtype).

Rules (api-linalg.md §2.8; ``ᴴ`` conjugate transpose, ``V`` with unit-norm columns,
the adjoint PyTorch's ``linalg_eig_backward`` implements)::

    M = VᴴgV − VᴴV diag(Re diag(VᴴgV))
    gA = V⁻ᴴ (diag(gλ) + offdiag(M) ∘ F) Vᴴ,   F_ij = 1 / conj(λ_j − λ_i)
    eigvals: gA = V⁻ᴴ diag(gλ) Vᴴ

``F`` is 0 where two eigenvalues agree to within ``n · eps · max|λ|`` (as for
``eigh``, api-linalg.md §2.1). For real input the gradient is the real part. The
columns' phases are arbitrary: a loss depending on them shows up as an imaginary part
of ``diag(VᴴgV)`` and emits :class:`weft.autograd.GaugeWarning` (§2.2); that part is
dropped. The rules are weft ops (``solve``), so higher derivatives follow.
"""
from __future__ import annotations

import numpy as np

from ..autograd.engine import Primitive, apply, defvjp
from ..core.args import xp_of
from ..ops.creation import diag_embed
from ..ops.math.ufuncs import cj, imag, real
from ..ops.products import _mm
from ..ops.shape.views import unsqueeze
from ._common import backend_of, check_converged, matrix_arg, mH
from ._solvers import _solve
from ._spectral import _apart, _diag, _gauge_check, _inverse_gaps, _maxabs

__all__ = ["eig", "eigvals"]

def _complex_of(dtype):
    return np.result_type(dtype, np.complex64)


def _eig_fwd(a, vectors=True):
    w, v, info = backend_of(a, "eig").eig(a, vectors)
    check_converged("eig", info, a.shape[:-2])
    out = _complex_of(a.dtype)   # a backend may give real arrays for a real spectrum
    w = w.astype(out, copy=False)
    return (w, v.astype(out, copy=False)) if vectors else w


_eig = Primitive("linalg_eig", _eig_fwd, n_out=2)


def _to_input(ga, a):
    """Real input receives the real part of the complex gradient."""
    return ga if a.dtype.kind == "c" else real(ga)


def _conj_by_v(inner, v):
    """``V⁻ᴴ inner Vᴴ`` (a solve with Vᴴ, differentiable)."""
    vh = mH(v)
    return apply(_solve, vh, _mm(inner, vh))


def _eig_vjp(g, ans, a):
    gw, gv = g
    w, v = ans
    n = a.shape[-1]
    vhgv = _mm(mH(v), gv)
    d = _diag(vhgv)
    _gauge_check(imag(d), _maxabs(vhgv), "eig")
    m = vhgv - _mm(mH(v), v * unsqueeze(real(d), -2))
    # F_ij = 1 / conj(λ_j − λ_i), zero on the diagonal and for (nearly) equal values
    f = _inverse_gaps(_apart(w, n), unsqueeze(cj(w), -1), unsqueeze(cj(w), -2))
    inner = m * f + diag_embed(gw)
    return _to_input(_conj_by_v(inner, v), a)


defvjp(_eig, _eig_vjp, save=())


def _eigvals_fwd(a):
    return _eig_fwd(a, vectors=False)


_eigvals = Primitive("linalg_eigvals", _eigvals_fwd)


def _eigvals_vjp(g, w, a):
    _, v = apply(_eig, a)
    return _to_input(_conj_by_v(diag_embed(g), v), a)


defvjp(_eigvals, _eigvals_vjp, save_out=False)


def eig(x, name=None):
    """Eigenvalues ``[*, n]`` and eigenvectors ``[*, n, n]`` (columns of unit 2-norm) of
    general square matrices ``x [*, n, n]``, both complex, in LAPACK ``geev``'s order
    (unsorted). Differentiable (real input receives the real part of the gradient);
    losses depending on the arbitrary phase of the vectors get a
    :class:`weft.autograd.GaugeWarning`.

    >>> import weft
    >>> a = weft.to_tensor([[0.0, -1.0], [1.0, 0.0]], dtype="float64")
    >>> w, v = weft.linalg.eig(a)
    >>> sorted(w.tolist(), key=lambda z: z.imag)
    [-1j, 1j]
    """
    x, _ = matrix_arg(x, "eig")
    return apply(_eig, x)


def eigvals(x, name=None):
    """The eigenvalues ``[*, n]`` (complex, LAPACK's order) of general square matrices
    ``x [*, n, n]``; differentiable (weft+): ``gA = V⁻ᴴ diag(gλ) Vᴴ``.

    >>> import weft
    >>> a = weft.to_tensor([[2.0, 1.0], [0.0, 3.0]], dtype="float64")
    >>> weft.linalg.eigvals(a).tolist()
    [(2+0j), (3+0j)]
    """
    x, _ = matrix_arg(x, "eigvals")
    return apply(_eigvals, x)
