"""LU factorisation with partial pivoting: ``lu``, ``lu_unpack`` and ``lu_solve``
(Paddle semantics: 1-based int32 LAPACK pivots, ``get_infos``), batched, rectangular,
real and complex.

``lu`` is one primitive (LAPACK ``getrf`` through the linalg backend: on the CPU the
batch-parallel native driver; CuPy has no batched ``getrf``, so on a GPU it runs on
the host and is copied back, with a one-time warning). ``pivot=False`` is Doolittle
elimination without row exchanges (weft+), with the same zero-pivot convention as
``getrf``: the column is not scaled and ``infos`` names the first zero pivot.

Rule for ``A = P L U`` (``k = min(m, n)``; ``gL = tril₋₁ g[:, :k]``, ``gU = triu g[:k]``;
``ᴴ`` conjugate transpose; the one PyTorch's ``linalg_lu_backward`` implements)::

    m = n:  gA = P L⁻ᴴ (tril₋₁(Lᴴ gL) + triu(gU Uᴴ)) U⁻ᴴ
    m < n:  X = tril₋₁(Lᴴ gL − gU Uᴴ) U₁⁻ᴴ;  gA = P L⁻ᴴ [X + triu gU₁ | gU₂]
    m > n:  X = L₁⁻ᴴ triu(gU Uᴴ − Lᴴ gL);    gA = P [X + tril₋₁ gL₁ ; gL₂] U⁻ᴴ

It is built from weft ops (triangular solves read the packed factor directly), so
higher derivatives follow; pivots are piecewise constant (api-linalg.md §2.7).
``lu_unpack`` and ``lu_solve`` are compositions of weft ops and differentiate through
them (``lu_solve`` in ``b`` and ``lu``).
"""
from __future__ import annotations

import numpy as np

from ..autograd.engine import Primitive, apply, defvjp
from ..core.args import check_same_place, tensor_arg, xp_of
from ..core.tensor import Tensor
from ..ops.creation import tril, triu
from ..ops.math.ufuncs import cj
from ..ops.products import _mm, _mT
from ..ops.shape.join import concat
from ._common import backend_of, matrix_arg, mH, restore
from ._solvers import _broadcast_batch, _tri

__all__ = ["lu", "lu_solve", "lu_unpack"]


def _doolittle(a):
    """LU without row exchanges of matrices ``[*, m, n]``, vectorised over the batch, on
    ``a``'s device."""
    xp = xp_of(a)
    m, n = a.shape[-2], a.shape[-1]
    k = min(m, n)
    lu = a.copy()
    info = xp.zeros(a.shape[:-2], np.int32)
    for j in range(k):
        d = lu[..., j, j]
        zero = d == 0
        info[(info == 0) & zero] = j + 1
        # like getrf: a zero pivot leaves its column unscaled
        lu[..., j + 1:, j] /= xp.where(zero, 1, d)[..., None]
        lu[..., j + 1:, j + 1:] -= lu[..., j + 1:, j, None] * lu[..., j, None, j + 1:]
    piv = xp.broadcast_to(xp.arange(1, k + 1, dtype=np.int32), a.shape[:-2] + (k,)).copy()
    return lu, piv, info


def _lu_fwd(a, *, pivot):
    if not pivot:
        return _doolittle(a)
    lu, piv, info = backend_of(a, "lu").lu(a)
    return lu, piv, xp_of(a).asarray(info)


_lu = Primitive("linalg_lu", _lu_fwd, n_out=3)


def _perm(piv, m, dtype):
    """The permutation matrices ``P [*, m, m]`` (``A = P L U``) of 1-based pivots
    ``[*, k]`` as a constant Tensor on the pivots' device."""
    xp = xp_of(piv)
    batch, k = piv.shape[:-1], piv.shape[-1]
    nb = int(np.prod(batch, dtype=np.int64))
    p = piv.reshape(nb, k).astype(np.int64) - 1
    perm = xp.broadcast_to(xp.arange(m), (nb, m)).copy()
    rows = xp.arange(nb)
    for i in range(k):
        # row i was exchanged with row p[:, i]: LU = A[perm], so P[perm[j], j] = 1
        t = perm[rows, i].copy()
        perm[rows, i] = perm[rows, p[:, i]]
        perm[rows, p[:, i]] = t
    out = xp.zeros((nb, m, m), dtype)
    out[rows[:, None], perm, xp.arange(m)[None, :]] = 1
    return Tensor._wrap(out.reshape(batch + (m, m)))


def _unit_lower(lu, m, k):
    xp = xp_of(lu._data)
    eye = Tensor._wrap(xp.eye(m, k, dtype=lu._data.dtype))
    return tril(lu[..., :, :k], -1) + eye


def _solve_right_uh(u, b):
    """``X`` with ``X Uᴴ = B`` for the upper triangle of ``u [*, k, k]``."""
    return mH(apply(_tri, u, mH(b), upper=True, transpose=False, unit=False))


def _solve_left_lh(l, b):
    """``X`` with ``Lᴴ X = B`` for the unit lower triangle of ``l [*, k, k]``."""
    return apply(_tri, cj(l), b, upper=False, transpose=True, unit=True)


def _lu_vjp(g, ans, a, *, pivot):
    glu = g[0]
    lu, piv = ans[0], ans[1]
    m, n = a.shape[-2], a.shape[-1]
    k = min(m, n)
    if k == 0:
        return glu * 0
    p = _perm(piv._data, m, a.dtype)
    lu1 = lu[..., :k, :k]
    big_l = _unit_lower(lu, m, k)
    big_u = triu(lu[..., :k, :])
    gl = tril(glu[..., :, :k], -1)
    gu = triu(glu[..., :k, :])
    if m == n:
        x = tril(_mm(mH(big_l), gl), -1) + triu(_mm(gu, mH(big_u)))
        x = _solve_left_lh(lu1, _solve_right_uh(lu1, x))
    elif m < n:
        x = tril(_mm(mH(big_l), gl) - _mm(gu, mH(big_u)), -1)
        x = _solve_right_uh(lu1, x)
        x = concat([x + triu(gu[..., :, :k]), gu[..., :, k:]], -1)
        x = _solve_left_lh(lu1, x)
    else:
        x = triu(_mm(gu, mH(big_u)) - _mm(mH(big_l), gl))
        x = _solve_left_lh(lu1, x)
        x = concat([x + tril(gl[..., :k, :], -1), gl[..., k:, :]], -2)
        x = _solve_right_uh(lu1, x)
    return _mm(p, x)


defvjp(_lu, _lu_vjp)


def lu(x, pivot=True, get_infos=False, name=None):
    """The LU factorisation with partial pivoting of ``x [*, m, n]``.

    Returns ``(LU, pivots)`` or ``(LU, pivots, infos)``: ``LU [*, m, n]`` packs the
    unit lower ``L`` (below the diagonal) and ``U``; ``pivots [*, min(m, n)]`` are the
    int32, 1-based LAPACK row exchanges (row ``i`` was swapped with row
    ``pivots[i]``); ``infos [*]`` (int32) is 0, or ``i`` when ``U[i-1, i-1]`` is exactly
    0. ``pivot=False`` factors without row exchanges (pivots ``1..k``). Differentiable
    in ``LU`` while the pivot order is locally constant.

    >>> import weft
    >>> a = weft.to_tensor([[0.0, 1.0], [1.0, 1.0]], dtype="float64")
    >>> f, piv = weft.linalg.lu(a)
    >>> f.tolist(), piv.tolist()
    ([[1.0, 1.0], [0.0, 1.0]], [2, 2])
    """
    x, back = matrix_arg(x, "lu", square=False)
    f, piv, info = apply(_lu, x, pivot=bool(pivot))
    f = restore(f, back)
    return (f, piv, info) if get_infos else (f, piv)


def _pivots_arg(y, op, arg, k, lead):
    y = tensor_arg(y, arg, op)
    if y._data.dtype.kind not in "iu":
        raise TypeError(f"{op}: {arg} must hold integer pivots (as returned by lu), got "
                        f"dtype {y._data.dtype.name}")
    if y.ndim < 1 or y.shape[-1] != k or y.shape[:-1] != lead:
        raise ValueError(f"{op}: {arg} must have shape {list(lead) + [k]} to match the LU "
                         f"factor, got shape {list(y.shape)}")
    return y


def _check_pivot_values(op, arg, piv, m):
    d = piv._data
    if d.size and bool(((d < 1) | (d > m)).any()):
        raise ValueError(f"{op}: {arg} must hold 1-based row indices in [1, {m}], got "
                         f"values outside that range")


def lu_unpack(x, y, unpack_ludata=True, unpack_pivots=True, name=None):
    """``(P, L, U)`` with ``A = P @ L @ U`` from ``x = LU [*, m, n]`` and ``y = pivots``
    as returned by ``lu``: ``P [*, m, m]``, ``L [*, m, k]`` unit lower, ``U [*, k, n]``.

    With ``unpack_ludata=False`` L and U are empty ``[0]`` tensors, with
    ``unpack_pivots=False`` P is. L and U are differentiable in ``x``.

    >>> import weft
    >>> a = weft.to_tensor([[0.0, 1.0], [1.0, 1.0]], dtype="float64")
    >>> p, l, u = weft.linalg.lu_unpack(*weft.linalg.lu(a))
    >>> weft.linalg.multi_dot([p, l, u]).tolist()
    [[0.0, 1.0], [1.0, 1.0]]
    """
    op = "lu_unpack"
    x, back = matrix_arg(x, op, "x", square=False)
    m, n = x.shape[-2], x.shape[-1]
    k = min(m, n)
    y = _pivots_arg(y, op, "y", k, x.shape[:-2])
    check_same_place(x, y, op)
    xp = xp_of(x._data)
    empty = Tensor._wrap(xp.zeros((0,), x._data.dtype))
    if unpack_ludata:
        low, up = _unit_lower(x, m, k), triu(x[..., :k, :])
    else:
        low = up = empty
    if unpack_pivots:
        _check_pivot_values(op, "y", y, m)
        p = _perm(y._data, m, x._data.dtype)
    else:
        p = empty
    return restore(p, back), restore(low, back), restore(up, back)


_TRANS = ("N", "T", "C")


def lu_solve(b, lu, pivots, trans="N", name=None):
    """Solve ``A X = b`` (``trans='N'``), ``Aᵀ X = b`` (``'T'``) or ``Aᴴ X = b``
    (``'C'``) with ``A = P L U`` given by ``lu``'s ``(lu, pivots)``.

    ``b [*, n, k]`` and ``lu [*, n, n]``; batch dimensions broadcast. Differentiable in
    ``b`` and ``lu``.

    >>> import weft
    >>> a = weft.to_tensor([[0.0, 2.0], [1.0, 1.0]], dtype="float64")
    >>> f, piv = weft.linalg.lu(a)
    >>> weft.linalg.lu_solve(weft.to_tensor([[2.0], [2.0]], dtype="float64"), f, piv).tolist()
    [[1.0], [1.0]]
    """
    op = "lu_solve"
    if trans not in _TRANS:
        raise ValueError(f"lu_solve: trans must be 'N', 'T' or 'C', got {trans!r}")
    b = tensor_arg(b, "b", op)
    if b.ndim < 2:
        raise ValueError(f"{op}: `b` dimension must be gather than 2: b must be a batch of "
                         f"matrices [*, n, k], got shape {b.shape}")
    f, back = matrix_arg(lu, op, "lu")
    b, _ = matrix_arg(b, op, "b", square=False)
    check_same_place(f, b, op)
    if b._data.dtype != f._data.dtype:
        raise TypeError(f"{op}: b and lu must have the same dtype, got "
                        f"{b._data.dtype.name} and {f._data.dtype.name}")
    n = f.shape[-1]
    if b.shape[-2] != n:
        raise ValueError(f"{op}: b must have {n} rows to match lu of shape {f.shape}, "
                         f"got shape {b.shape}")
    piv = _pivots_arg(pivots, op, "pivots", n, f.shape[:-2])
    check_same_place(f, piv, op)
    _check_pivot_values(op, "pivots", piv, n)
    _broadcast_batch(op, f, b, 2)
    p = _perm(piv._data, n, f._data.dtype)
    if trans == "N":   # L U X = Pᵀ b
        y = apply(_tri, f, _mm(_mT(p), b), upper=False, transpose=False, unit=True)
        x = apply(_tri, f, y, upper=True, transpose=False, unit=False)
    else:              # Uᵀ Lᵀ Pᵀ X = b (conjugated factors for 'C')
        g = cj(f) if trans == "C" else f
        y = apply(_tri, g, b, upper=True, transpose=True, unit=False)
        x = _mm(p, apply(_tri, g, y, upper=False, transpose=True, unit=True))
    return restore(x, back)
