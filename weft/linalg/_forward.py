"""Forward-mode rules of the solves, inverses and determinants (see
:func:`weft.autograd.engine.defjvp`): one table, read next to the vjps in
``_solvers.py`` and ``_lu.py``.

Forward mode is natural here: a solve's tangent is one more solve with the same
matrix, ``dX = A⁻¹ (dB − dA X)``, where reverse mode needs a solve with ``Aᴴ`` and an
outer product. ``cholesky_solve`` and ``lu_solve`` are built on the triangular solve
and take its rule. All rules are written in weft ops (so they are differentiable
again) and are holomorphic where the function is: for complex input the tangent is
``f'(A)[dA]``; Cholesky and ``slogdet`` use the real-linear differential.
"""
from __future__ import annotations

from ..autograd.engine import apply, defjvp
from ..ops.creation import tril, triu
from ..ops.math.functions import complex as _complex
from ..ops.math.ufuncs import imag, real
from ..ops.products import _mm, _mT
from ..ops.reduction.aggregate import sum as _sum
from ..ops.shape.join import stack
from ._common import mH
from ._lu import _lu, _perm
from ._solvers import _adjugate, _chol, _det, _inv, _slogdet, _solve, _tri


def _solve_jvp(ts, x, a, b, *, factors=None, adjoint=False):
    """X = op(A)⁻¹ B (op = identity, or ᴴ with ``adjoint``): dX = op(A)⁻¹ (dB − op(dA) X),
    one solve for both tangents, with the forward's LU factors of A where it kept them."""
    da, db = ts
    if da is None:
        r = db
    else:
        dx = _mm(mH(da) if adjoint else da, x)
        r = -dx if db is None else db - dx
    return apply(_solve, a, r, factors=factors, adjoint=adjoint)


def _tri_jvp(ts, x, a, b, *, upper, transpose, unit):
    """op(T) X = B for the triangle T of A: dX = op(T)⁻¹ (dB − op(dT) X), where dT is
    dA's part in the triangle read (without the diagonal when it is taken as ones)."""
    da, db = ts
    r = db
    if da is not None:
        k = 1 if unit else 0
        dt = triu(da, k) if upper else tril(da, -k)
        term = _mm(_mT(dt) if transpose else dt, x)
        r = -term if r is None else r - term
    return apply(_tri, a, r, upper=upper, transpose=transpose, unit=unit)


def _chol_jvp(t, l, a):
    """A = L Lᴴ: dL = L Φ(L⁻¹ dA L⁻ᴴ), Φ the lower triangle with the diagonal halved.
    dA is taken Hermitian, (dA + dAᴴ)/2, the convention of the vjp."""
    sym = (t + mH(t)) * 0.5
    z = apply(_tri, l, sym, upper=False, transpose=False, unit=False)
    w = mH(apply(_tri, l, mH(z), upper=False, transpose=False, unit=False))
    low = tril(w)
    return _mm(l, low - 0.5 * triu(low))


def _trace_prod(m, t):
    """tr(M dA) over the last two axes."""
    return _sum(_mT(m) * t, axis=[-2, -1])


def _det_jvp(t, d, a):
    """d det = tr(adj(A) dA) (Jacobi's formula; finite at singular A, like the vjp)."""
    return _trace_prod(_adjugate(a, d), t)


def _slogdet_jvp(t, ans, a):
    """c = tr(A⁻¹ dA): d log|det| = Re c, d sign = sign · i Im c (0 for real A)."""
    c = _trace_prod(apply(_inv, a), t)
    if a._data.dtype.kind != "c":
        return stack([c * 0, c])
    sign = ans[0]
    return stack([sign * _complex(imag(c) * 0, imag(c)), _complex(real(c), real(c) * 0)])


def _lu_jvp(ts, ans, a, *, pivot):
    """A = P L U (square): F = L⁻¹ Pᵀ dA U⁻¹ = L⁻¹ dL + dU U⁻¹, so dL = L tril(F, -1)
    and dU = triu(F) U, packed like LU. Non-square: the double vjp."""
    m, n = a.shape[-2], a.shape[-1]
    if m != n or m == 0:
        return NotImplemented
    lu = ans[0]
    da = ts[0]
    if pivot:
        da = _mm(_mT(_perm(ans[1]._data, m, a.dtype)), da)
    y = apply(_tri, lu, da, upper=False, transpose=False, unit=True)          # L⁻¹ Pᵀ dA
    f = _mT(apply(_tri, lu, _mT(y), upper=True, transpose=True, unit=False))  # · U⁻¹
    fl = tril(f, -1)
    dl = _mm(tril(lu, -1), fl) + fl    # L tril(F, -1) with L unit lower: strictly lower
    du = _mm(triu(f), triu(lu))        # upper
    return (dl + du, None, None)


# the table: per-input rules, or one joint rule where the inputs share a solve
defjvp(_inv, lambda t, y, a: -_mm(_mm(y, t), y))
defjvp(_solve, joint=_solve_jvp)
defjvp(_tri, joint=_tri_jvp)
defjvp(_chol, _chol_jvp)
defjvp(_det, _det_jvp)
defjvp(_slogdet, _slogdet_jvp)
defjvp(_lu, joint=_lu_jvp)
