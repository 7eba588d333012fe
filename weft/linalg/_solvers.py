"""Inverses, solves, Cholesky and log-determinants of batches of square matrices.

Each function is one primitive on backend arrays (numpy.linalg / scipy.linalg on the
CPU, cupy on the GPU) with rules written in weft ops, so every order of derivative
works. Conventions (``ᴴ`` conjugate transpose, ``g`` the cotangent of the output;
for a real loss of complex input the gradient is ``∂L/∂Re + i·∂L/∂Im``):

=============================  ======================================================
``Y = A⁻¹``                    ``gA = -Yᴴ g Yᴴ``
``X = A⁻¹ B``                  ``gB = A⁻ᴴ g``;  ``gA = -gB Xᴴ``
``X = A⁻ᴴ B`` (adjoint)        ``gB = A⁻¹ g``;  ``gA = -X gBᴴ``
``X = op(T)⁻¹ B`` (T △)        ``gB = op(T)⁻ᴴ g``;  ``gT = △(op⁻¹(-gB Xᴴ))``
``A = L Lᴴ``                   ``gA = L⁻ᴴ Φ(Lᴴ g) L⁻¹``, ``Φ(M) = ½(tril M + (tril₋₁ M)ᴴ)``,
                               then Hermitian part ``½(gA + gAᴴ)`` (api-linalg.md §2.6)
``(s, l) = slogdet(A)``        ``gA = c · A⁻ᴴ``, ``c = Re(g_l) − i·Im(conj(g_s)·s)``
``d = det(A)``                 ``gA = g · adj(A)ᴴ``
=============================  ======================================================

``det``'s adjugate is ``det(A)·A⁻¹`` for a well-conditioned A, and for a (nearly)
singular one the SVD form ``adj(A) = det(U)·det(Vᴴ) · V diag(∏_{j≠i} s_j) Uᴴ``,
which stays finite at singular A (api-linalg.md §2.5); both are weft ops, so higher
derivatives follow. Limitation: the SVD is not smooth where singular values repeat
(rank ≤ n-2: several zeros) nor, for complex input, at a zero singular value (the
phases of its u and v decouple), so there the *second* derivative of ``det`` is not
exact; first derivatives are exact at every input.

``slogdet``'s sign is piecewise constant for real input (no gradient) but a smooth
phase for complex input, whose gradient is the imaginary part in ``c``.
"""
from __future__ import annotations

import threading

import numpy as np

from ..autograd.engine import Primitive, apply, defvjp
from ..autograd.grad_mode import is_grad_enabled
from ..core.args import check_same_place, tensor_arg, xp_of
from ..ops.creation import eye, tril, triu
from ..ops.math.functions import complex as _complex
from ..ops.math.ufuncs import cj, imag, real, where
from ..ops.reduction.aggregate import prod
from ..ops.products import _mm, _mT
from ..ops.shape.views import squeeze, unsqueeze
from ._common import backend_of, batch_index, first_bad, matrix_arg, mH, restore, rhs_arg

__all__ = ["cholesky", "det", "inv", "slogdet", "solve", "triangular_solve"]

_NOT_INVERTIBLE = "Input is not invertible"


def _batch(a, core=2):
    return a.shape[:-core], int(np.prod(a.shape[:-core], dtype=np.int64))


def _check_invertible(op, info, shape):
    """ValueError "Input is not invertible" naming the first singular matrix's index."""
    i = first_bad(info)
    if i is not None:
        singular = f" (the matrix at batch index {batch_index(shape, i)} is singular)" \
            if len(shape) else ""
        raise ValueError(f"{op}: {_NOT_INVERTIBLE}{singular}")


# ---------------------------------------------------------------------------------
# inv


def _inv_fwd(a):
    x, info = backend_of(a, "inv").inv(a)
    _check_invertible("inv", info, a.shape[:-2])
    return x


_inv = Primitive("linalg_inv", _inv_fwd)
defvjp(_inv, lambda g, y, a: -_mm(_mm(mH(y), g), mH(y)), save=())


def inv(x, name=None):
    """The inverse of each square matrix in ``x [*, n, n]``.

    Raises ``ValueError`` ("Input is not invertible") for a singular matrix, naming its
    batch index. ``weft.inverse`` is this function.

    >>> import weft
    >>> a = weft.to_tensor([[2.0, 1.0], [1.0, 1.0]], dtype="float64")
    >>> weft.linalg.inv(a).tolist()
    [[1.0, -1.0], [-1.0, 2.0]]
    """
    x, back = matrix_arg(x, "inv")
    return restore(apply(_inv, x), back)


inverse = inv


# ---------------------------------------------------------------------------------
# solve


class _Factors:
    """The LU factors (``lu``, ``pivots`` as the backend's ``lu`` gives them) of the
    matrix of one recorded solve. The forward factors the matrix anyway and keeps them
    here; the solves its backward needs with the same matrix (``A⁻ᴴ g``, and ``A⁻¹ ·``
    at the next order) reuse them instead of factoring again. The node's version check
    on ``A`` guarantees the matrix has not changed since. Empty (``lu is None``) on a
    backend that keeps no factors: those solves then factor ``A`` themselves."""

    __slots__ = ("lu", "pivots")

    def __init__(self):
        self.lu = self.pivots = None


def _solve_fwd(a, b, *, factors=None, adjoint=False):
    """``A⁻¹ b`` (``adjoint``: ``A⁻ᴴ b``); ``factors``: a :class:`_Factors` to read
    (filled) or to fill (empty), or None to keep nothing."""
    be = backend_of(a, "solve")
    if factors is not None and factors.lu is not None:
        return be.lu_solve(factors.lu, factors.pivots, b, "C" if adjoint else "N")
    if adjoint:   # no factors of a: solve with aᴴ itself
        xp = xp_of(a)
        a = xp.ascontiguousarray(xp.conj(xp.swapaxes(a, -1, -2)))
    if factors is None or adjoint:
        x, info = be.solve(a, b)
    else:
        x, info, factors.lu, factors.pivots = be.solve(a, b, keep=True)
    _check_invertible("solve", info, info.shape)
    return x


_solve = Primitive("linalg_solve", _solve_fwd)


def _solve_vjp_b(g, x, a, b, *, factors=None, adjoint=False):
    # the cotangent solve is the other orientation with the same matrix and factors:
    # a node of this primitive again, so its own rules give every higher order
    return _shared_gb(g, a, b, lambda: apply(_solve, a, g, factors=factors,
                                             adjoint=not adjoint))


def _solve_vjp_a(g, x, a, b, *, factors=None, adjoint=False):
    gb = _solve_vjp_b(g, x, a, b, factors=factors, adjoint=adjoint)
    # X = A⁻¹B: gA = -gB Xᴴ;  X = A⁻ᴴB (so Aᴴ X = B): gA = -X gBᴴ
    # (the minus on the [n, k] factor: cheaper than on the [n, n] product)
    return _mm(-x, mH(gb)) if adjoint else _mm(-gb, mH(x))


# Both rules of a solve need gB = op(A)⁻ᴴ g, the cost of another solve. The engine
# calls a node's rules one after the other, A's first, so A's rule keeps the gB it
# computed for B's rule to take (when B needs a gradient too), instead of solving twice.
_pending = threading.local()


def _shared_gb(g, a, b, compute):
    kept = getattr(_pending, "gb", None)
    _pending.gb = None
    if kept is not None and kept[0] is g and kept[1] is a:
        return kept[2]
    gb = compute()
    if not b.stop_gradient:
        _pending.gb = (g, a, gb)
    return gb


defvjp(_solve, _solve_vjp_a, _solve_vjp_b, save={0: (0,), 1: (0,)})


def _broadcast_batch(op, a, b, core_b):
    try:
        return np.broadcast_shapes(tuple(a.shape[:-2]), tuple(b.shape[:-core_b]))
    except ValueError:
        raise ValueError(f"{op}: the batch dimensions of x {a.shape[:-2]} and y "
                         f"{b.shape[:-core_b]} do not broadcast") from None


def solve(x, y, left=True, name=None, *, out=None, A=None, B=None):
    """Solve ``x @ X = y`` (``left=True``) or ``X @ x = y`` (``left=False``).

    ``x [*, n, n]``; ``y [*, n, k]``, or with ``left=True`` a vector ``[n]`` (or
    ``[*, n]`` matching ``x``'s batch), giving ``[*, n]``. Batch dimensions broadcast.
    A singular ``x`` raises ``ValueError`` ("Input is not invertible").

    >>> import weft
    >>> a = weft.to_tensor([[3.0, 1.0], [1.0, 2.0]], dtype="float64")
    >>> weft.linalg.solve(a, weft.to_tensor([9.0, 8.0], dtype="float64")).tolist()
    [2.0, 3.0]
    """
    x = A if A is not None else x
    y = B if B is not None else y
    x, back = matrix_arg(x, "solve", "x")
    y = tensor_arg(y, "y", "solve")
    check_same_place(x, y, "solve")
    n = x.shape[-1]
    vector = y.ndim == 1 or (left and y.ndim == x.ndim - 1 and y.shape == x.shape[:-1])
    if vector and not left:
        raise ValueError(f"solve: with left=False y must be a batch of matrices [*, k, n], "
                         f"got shape {y.shape}")
    if y.ndim < 1:
        raise ValueError("solve: y must be at least 1-D, got a 0-D Tensor")
    y, _ = matrix_arg(unsqueeze(y, -1), "solve", "y", square=False) if vector \
        else matrix_arg(y, "solve", "y", square=False)
    if y._data.dtype != x._data.dtype:
        raise TypeError(f"solve: x and y must have the same dtype, got "
                        f"{x._data.dtype.name} and {y._data.dtype.name}")
    rows = y.shape[-2] if left else y.shape[-1]
    if rows != n:
        side = "rows" if left else "columns"
        raise ValueError(f"solve: y must have {n} {side} to match x of shape {x.shape}, "
                         f"got shape {y.shape}")
    _broadcast_batch("solve", x, y, 2)
    # recorded for a gradient: the forward keeps its LU factors for the backward
    factors = _Factors() if is_grad_enabled() and not (x.stop_gradient and y.stop_gradient) \
        else None
    if left:
        r = apply(_solve, x, y, factors=factors)
    else:
        r = _mT(apply(_solve, _mT(x), _mT(y), factors=factors))
    if vector:
        r = squeeze(r, -1)
    r = restore(r, back)
    if out is None:
        return r
    out = tensor_arg(out, "out", "solve")
    if tuple(out.shape) != tuple(r.shape) or out._data.dtype != r._data.dtype:
        raise ValueError(f"solve: out must have shape {r.shape} and dtype "
                         f"{r._data.dtype.name}, got {out.shape} and {out._data.dtype.name}")
    out._data = r._data       # the values only: out does not join the autograd graph
    out._version[0] += 1
    return out


# ---------------------------------------------------------------------------------
# triangular_solve


def _tri_fwd(a, b, *, upper, transpose, unit):
    x, info = backend_of(a, "triangular_solve").triangular_solve(
        a, b, upper, "T" if transpose else "N", unit)
    i = first_bad(info)
    if i is not None:
        where = f" (the matrix at batch index {batch_index(info.shape, i)} is singular)" \
            if info.ndim else ""
        raise ValueError(f"triangular_solve: {_NOT_INVERTIBLE}: a zero on the diagonal{where}")
    return x


_tri = Primitive("linalg_triangular_solve", _tri_fwd)


def _tri_vjp_b(g, x, a, b, *, upper, transpose, unit):
    return _shared_gb(g, a, b, lambda: apply(_tri, cj(a), g, upper=upper,
                                             transpose=not transpose, unit=unit))


def _tri_vjp_a(g, x, a, b, *, upper, transpose, unit):
    gt = -_mm(_tri_vjp_b(g, x, a, b, upper=upper, transpose=transpose, unit=unit), mH(x))
    if transpose:
        gt = _mT(gt)
    k = 1 if unit else 0   # a unit diagonal is not read, so it gets no gradient
    return triu(gt, k) if upper else tril(gt, -k)


defvjp(_tri, _tri_vjp_a, _tri_vjp_b, save={0: (0,), 1: (0,)})


def triangular_solve(x, y, upper=True, transpose=False, unitriangular=False, name=None):
    """Solve ``op(x) @ X = y`` for a triangular ``x [*, m, m]``, ``y [*, m, k]``.

    Only the ``upper`` (or lower) triangle of ``x`` is read; ``transpose=True`` uses
    ``xᵀ`` (no conjugation); ``unitriangular=True`` takes the diagonal as ones without
    reading it. Batch dimensions broadcast. A zero on the diagonal raises ``ValueError``.

    >>> import weft
    >>> u = weft.to_tensor([[2.0, 1.0], [0.0, 4.0]], dtype="float64")
    >>> weft.linalg.triangular_solve(u, weft.to_tensor([[4.0], [8.0]], dtype="float64")).tolist()
    [[1.0], [2.0]]
    """
    op = "triangular_solve"
    x, back = matrix_arg(x, op, "x")
    y = rhs_arg(y, x, op)
    if y._data.dtype != x._data.dtype:
        raise TypeError(f"{op}: x and y must have the same dtype, got "
                        f"{x._data.dtype.name} and {y._data.dtype.name}")
    if y.shape[-2] != x.shape[-1]:
        raise ValueError(f"{op}: y must have {x.shape[-1]} rows to match x of shape "
                         f"{x.shape}, got shape {y.shape}")
    _broadcast_batch(op, x, y, 2)
    r = apply(_tri, x, y, upper=bool(upper), transpose=bool(transpose),
              unit=bool(unitriangular))
    return restore(r, back)


# ---------------------------------------------------------------------------------
# cholesky


def _chol_fwd(a):
    l, info = backend_of(a, "cholesky").cholesky(a)
    i = first_bad(info)
    if i is not None:
        shape = a.shape[:-2]
        where = f" (batch index {batch_index(shape, i)})" if len(shape) > 1 else ""
        raise ValueError(f"cholesky: Cholesky decomposition was not successful. The {i}-th "
                         f"input matrix{where} might not be positive definite")
    return l


_chol = Primitive("linalg_cholesky", _chol_fwd)


def _chol_vjp(g, l, a):
    if l.shape[-1] <= _FUSED_CHOL_BACKWARD and hasattr(backend_of(l._data, "cholesky"),
                                                        "cholesky_backward"):
        return apply(_chol_bwd, l, g)
    return _chol_vjp_ops(g, l)


def _chol_vjp_ops(g, l):
    """The rule in weft ops (large or GPU matrices)."""
    p = tril(_mm(mH(l), g))
    phi = (p + mH(tril(p, -1))) * 0.5
    # L⁻ᴴ Φ, then (L⁻ᴴ (L⁻ᴴ Φ)ᴴ)ᴴ = L⁻ᴴ Φ L⁻¹
    z = apply(_tri, cj(l), phi, upper=False, transpose=True, unit=False)
    ga = mH(apply(_tri, cj(l), mH(z), upper=False, transpose=True, unit=False))
    return (ga + mH(ga)) * 0.5


# For small matrices (the batched case) the rule above is a dozen passes over the
# batch, each a few flops per entry; the native driver runs it fused, one matrix at a
# time in cache (lapack_cholesky_backward). Its own rules, for the second and higher
# derivatives, are weft ops: with F = ½(Q + Qᴴ) its output, H F's cotangent,
# K = ½(H + Hᴴ), N = L⁻¹ K L⁻ᴴ and Φ*(N) = ½(tril N + tril₋₁ Nᴴ) (the adjoint of Φ):
#     gḠ = L Φ*(N),   gL = tril(Ḡ Φ*(N)ᴴ − 2 F K L⁻ᴴ)
# (only the lower triangles of L and Ḡ are read, so only they get gradients).
_FUSED_CHOL_BACKWARD = 64


def _chol_bwd_fwd(l, g):
    return backend_of(l, "cholesky").cholesky_backward(l, g)


_chol_bwd = Primitive("linalg_cholesky_backward", _chol_bwd_fwd)


def _phi_adjoint(n):
    return (tril(n) + tril(mH(n), -1)) * 0.5


def _chol_bwd_n(h, l):
    """``(K, Φ*(L⁻¹ K L⁻ᴴ))`` for the cotangent ``h``."""
    k = (h + mH(h)) * 0.5
    y = apply(_tri, l, k, upper=False, transpose=False, unit=False)                # L⁻¹ K
    n = apply(_tri, l, mH(y), upper=False, transpose=False, unit=False)            # L⁻¹ K L⁻ᴴ
    return k, _phi_adjoint(n)


def _chol_bwd_vjp_l(h, f, l, g):
    k, pn = _chol_bwd_n(h, l)
    fkl = mH(apply(_tri, l, _mm(k, f), upper=False, transpose=False, unit=False))  # F K L⁻ᴴ
    return tril(_mm(g, mH(pn)) - 2.0 * fkl)


def _chol_bwd_vjp_g(h, f, l, g):
    return _mm(l, _chol_bwd_n(h, l)[1])


defvjp(_chol_bwd, _chol_bwd_vjp_l, _chol_bwd_vjp_g, save={0: (0, 1), 1: (0,)})


defvjp(_chol, _chol_vjp, save=())


def cholesky(x, upper=False, name=None):
    """The Cholesky factor of each Hermitian positive-definite matrix in ``x [*, n, n]``.

    Lower ``L`` with ``x = L Lᴴ`` (only the lower triangle of ``x`` is read), or with
    ``upper=True`` upper ``U`` with ``x = Uᴴ U`` (only the upper triangle is read). A
    matrix that is not positive definite raises ``ValueError`` naming its batch index.

    >>> import weft
    >>> a = weft.to_tensor([[4.0, 2.0], [2.0, 5.0]], dtype="float64")
    >>> weft.linalg.cholesky(a).tolist()
    [[2.0, 0.0], [1.0, 2.0]]
    """
    x, back = matrix_arg(x, "cholesky")
    if upper:
        # the Hermitian matrix held in x's upper triangle is the one held in xᴴ's lower
        r = mH(apply(_chol, mH(x)))
    else:
        r = apply(_chol, x)
    return restore(r, back)


# ---------------------------------------------------------------------------------
# slogdet


def _slogdet_fwd(a):
    sign, logabs = backend_of(a, "slogdet").slogdet(a)
    return xp_of(a).stack([sign.astype(a.dtype), logabs.astype(a.dtype)])


_slogdet = Primitive("linalg_slogdet", _slogdet_fwd)


def _slogdet_vjp(g, ans, a):
    gl = g[1]
    if a._data.dtype.kind == "c":
        c = _complex(real(gl), -imag(cj(g[0]) * ans[0]))
    else:
        c = gl
    c = unsqueeze(unsqueeze(c, -1), -1)
    return c * mH(apply(_inv, a))


defvjp(_slogdet, _slogdet_vjp)


def slogdet(x, name=None):
    """Sign and natural log of the absolute determinant, stacked as one Tensor
    ``[2, *batch]``: row 0 the sign (real: -1/0/+1; complex: the unit phase), row 1
    ``log|det|`` (``-inf`` for a singular matrix). Complex input gives both rows complex.

    >>> import weft
    >>> a = weft.to_tensor([[0.0, 2.0], [3.0, 0.0]], dtype="float64")
    >>> sign, logabs = weft.linalg.slogdet(a)
    >>> float(sign), round(float(logabs), 6)
    (-1.0, 1.791759)
    """
    x, back = matrix_arg(x, "slogdet")
    return restore(apply(_slogdet, x), back)



# ---------------------------------------------------------------------------------
# det


def _det_fwd(a):
    # det = sign · exp(log|det|), the formula numpy's det uses too
    sign, logabs = backend_of(a, "det").slogdet(a)
    xp = xp_of(a)
    return (sign * xp.exp(logabs)).astype(a.dtype, copy=False)


_det = Primitive("linalg_det", _det_fwd)


def _near_singular(a):
    """Whether any matrix of ``a`` is singular to working precision (smallest singular
    value within ``n · eps`` of the largest), where ``det · A⁻¹`` loses accuracy."""
    d = a._data
    if d.size == 0:
        return False
    _, s, _, _ = backend_of(d, "det").svd(d, "N")
    tol = d.shape[-1] * np.finfo(s.dtype).eps * s[..., 0]
    return bool((s[..., -1] <= tol).any())


def _adjugate(a, d):
    """``adj(a)`` in weft ops; ``d`` is ``det(a)`` (already computed)."""
    if not _near_singular(a):
        return unsqueeze(unsqueeze(d, -1), -1) * apply(_inv, a)
    from ._spectral import _svd  # noqa: PLC0415 (the SVD module builds on this one)
    u, s, vh = apply(_svd, a, full=False)
    n = a.shape[-1]
    # p_i = ∏_{j≠i} s_j: row i of the matrix holding s with s_i replaced by 1
    others = prod(where(eye(n, dtype="bool"), 1.0, unsqueeze(s, -2)), axis=-1)
    phase = apply(_det, u) * apply(_det, vh)
    vp = mH(vh) * unsqueeze(others, -2).astype(a.dtype)
    return unsqueeze(unsqueeze(phase, -1), -1) * _mm(vp, mH(u))


def _det_vjp(g, d, a):
    return unsqueeze(unsqueeze(g, -1), -1) * mH(_adjugate(a, d))


defvjp(_det, _det_vjp)


def det(x, name=None):
    """The determinant of each square matrix in ``x [*, n, n]``, shape ``[*]`` (the
    determinant of a 0×0 matrix is 1). The gradient stays finite at singular input.

    >>> import weft
    >>> round(weft.linalg.det(weft.to_tensor([[1.0, 2.0], [3.0, 4.0]], dtype="float64")).item(), 6)
    -2.0
    """
    x, back = matrix_arg(x, "det")
    return restore(apply(_det, x), back)
