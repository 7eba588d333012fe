"""QR decomposition ``qr`` (reduced, complete, 'r'), ``householder_product`` and ``ormqr``,
batched, real and complex.

Rule (torch's and Walter–Lehmann's; ``ᴴ`` conjugate transpose), for ``m ≥ n``::

    N = gR Rᴴ − Qᴴ gQ,   sym(N) = triu(N, 1) + triu(N, 1)ᴴ + diag(Re diag N)
    gA = (gQ + Q sym(N)) R⁻ᴴ

(LAPACK's R has a real diagonal, which fixes the phase freedom, hence ``Re``.) For
``m < n`` write ``A = [X | Y]``, ``R = [U | V]`` with ``X = Q U`` square: then
``gY = Q gV`` and ``gX`` is the square rule for ``(gQ + Y gVᴴ, gU)``. Mode
``'complete'`` with ``m > n`` has arbitrary trailing columns of Q and mode ``'r'``
drops Q, so their backward raises ``ValueError`` (api-linalg.md §2.4, Paddle/PyTorch
parity); the rule also refuses linearly dependent leading columns, where ``R⁻ᴴ``
does not exist.
"""
from __future__ import annotations

import numpy as np

from ..autograd.engine import Primitive, apply, defvjp
from ..core.args import xp_of
from ..ops.creation import diag_embed, triu
from ..ops.math.ufuncs import real
from ..ops.primitives import diagonal as _diagonal
from ..ops.products import _mm
from ..ops.shape.join import concat
from ._common import backend_of, compute_dtype, matrix_arg, mH, restore
from ._solvers import _tri

__all__ = ["householder_product", "ormqr", "qr"]

_MODES = ("reduced", "complete", "r")


def _qr_fwd(a, *, mode):
    return backend_of(a, "qr").qr(a, mode)


def _qr_r_fwd(a):
    return backend_of(a, "qr").qr(a, "r")[1]


_qr = Primitive("linalg_qr", _qr_fwd, n_out=2)
_qr_r = Primitive("linalg_qr_r", _qr_r_fwd)


def _check_rank(r, shape):
    d = r._data
    xp = xp_of(d)
    diag = xp.abs(xp.diagonal(d, 0, -2, -1))
    if diag.size == 0:
        return
    tol = max(shape[-2:]) * np.finfo(diag.dtype).eps * diag.max(axis=-1)
    if bool((diag.min(axis=-1) <= tol).any()):
        raise ValueError(f"qr: the gradient needs linearly independent leading columns, but "
                         f"an input matrix of shape {shape} is rank deficient")


def _square_rule(gq, gr, q, r):
    n = _mm(gr, mH(r)) - _mm(mH(q), gq)
    up = triu(n, 1)
    d = real(_diagonal(n, 0, n.ndim - 2, n.ndim - 1))
    sym = up + mH(up) + diag_embed(d)
    b = gq + _mm(q, sym)
    # b R⁻ᴴ = (R⁻¹ bᴴ)ᴴ
    return mH(apply(_tri, r, mH(b), upper=True, transpose=False, unit=False))


def _qr_vjp(g, ans, a, *, mode):
    gq, gr = g
    q, r = ans
    m, n = a.shape[-2], a.shape[-1]
    if mode == "complete" and m > n:
        raise ValueError(f"qr: the derivative of qr is not implemented when "
                         f"mode='complete' and {m} > {n}")
    if m >= n:
        _check_rank(r, a.shape)
        return _square_rule(gq, gr, q, r)
    u = r[..., :, :m]
    _check_rank(u, a.shape)
    gv = gr[..., :, m:]
    y = a[..., :, m:]
    gx = _square_rule(gq + _mm(y, mH(gv)), gr[..., :, :m], q, u)
    return concat([gx, _mm(q, gv)], axis=-1)


def _qr_r_vjp(g, ans, a):
    raise ValueError("qr: the derivative of qr is not implemented when mode='r' (Q is not "
                     "returned); use mode='reduced'")


defvjp(_qr, _qr_vjp)
defvjp(_qr_r, _qr_r_vjp, save=(), save_out=False)


def qr(x, mode="reduced", name=None):
    """QR decomposition of ``x [*, m, n]`` (k = min(m, n)).

    ``'reduced'`` → ``(Q [*, m, k], R [*, k, n])``; ``'complete'`` →
    ``(Q [*, m, m], R [*, m, n])``; ``'r'`` → ``R [*, k, n]`` alone. LAPACK's sign
    convention (diag(R) may be negative). Differentiable in modes 'reduced' and
    'complete' with m ≤ n.

    >>> import weft
    >>> q, r = weft.linalg.qr(weft.to_tensor([[3.0, 1.0], [4.0, 2.0]], dtype="float64"))
    >>> abs(round(float(r[0, 0]), 6))
    5.0
    """
    if mode not in _MODES:
        raise ValueError(f"qr: QR received unrecognized mode {mode!r} but expected one of "
                         "'reduced' (default), 'r', or 'complete'")
    x, back = matrix_arg(x, "qr", square=False)
    if mode == "r":
        return restore(apply(_qr_r, x), back)
    q, r = apply(_qr, x, mode=mode)
    return restore(q, back), restore(r, back)


def householder_product(x, tau, name=None):
    """The first ``n`` columns of ``H₁ ⋯ H_k`` (LAPACK ``orgqr`` / ``ungqr``), with
    ``H_i = I − τ_i v_i v_iᴴ`` and ``v_i`` the Householder vector stored below the
    diagonal of column ``i`` of ``x [*, m, n]`` (unit at row ``i``); ``tau [*, k]``,
    ``k ≤ n ≤ m``. Built from weft ops, so differentiable in ``x`` and ``tau`` to every
    order.

    >>> import weft
    >>> x = weft.to_tensor([[1.0], [1.0]], dtype="float64")   # v = (1, 1)
    >>> weft.linalg.householder_product(x, weft.to_tensor([1.0], dtype="float64")).tolist()
    [[0.0], [-1.0]]
    """
    from ..core.args import check_same_place, tensor_arg  # noqa: PLC0415
    from ..core.tensor import Tensor  # noqa: PLC0415
    from ..ops.creation import eye  # noqa: PLC0415
    from ..ops.math.ufuncs import cj, where  # noqa: PLC0415
    from ..ops.shape.views import expand, unsqueeze  # noqa: PLC0415
    op = "householder_product"
    x, back = matrix_arg(x, op, "x", square=False)
    tau = tensor_arg(tau, "tau", op)
    m, n = x.shape[-2], x.shape[-1]
    if m < n:
        raise AssertionError(f"{op}: x must have at least as many rows as columns, got "
                             f"shape {x.shape}")
    if tau.ndim != x.ndim - 1 or tau.shape[:-1] != x.shape[:-2] or tau.shape[-1] > n:
        raise AssertionError(f"{op}: tau must have shape [*, k] with x's batch dimensions "
                             f"{x.shape[:-2]} and k <= {n}, got {tau.shape}")
    check_same_place(x, tau, op)
    tau, _ = compute_dtype(tau, op, "tau")
    if tau._data.dtype != x._data.dtype:
        raise TypeError(f"{op}: x and tau must have the same dtype, got "
                        f"{x._data.dtype.name} and {tau._data.dtype.name}")
    xp = xp_of(x._data)
    rows = xp.arange(m)
    q = expand(eye(m, dtype=x._data.dtype), x.shape[:-2] + [m, m])
    for i in range(tau.shape[-1]):
        below = Tensor._wrap(rows > i)
        unit = Tensor._wrap((rows == i).astype(x._data.dtype))
        v = where(below, x[..., :, i], unit)                     # [*, m]
        qv = _mm(q, unsqueeze(v, -1))                             # [*, m, 1]
        q = q - unsqueeze(unsqueeze(tau[..., i], -1), -1) * _mm(qv, unsqueeze(cj(v), -2))
    return restore(q[..., :, :n], back)


def _needs_grad(*ts):
    from ..autograd.grad_mode import is_grad_enabled  # noqa: PLC0415
    return is_grad_enabled() and any(not t.stop_gradient for t in ts)


def ormqr(x, tau, y, left=True, transpose=False, name=None):
    """Multiply ``y`` by the ``Q`` of Householder data ``(x, tau)`` (as from LAPACK
    ``geqrf``): ``op(Q) @ y`` (``left=True``) or ``y @ op(Q)``, ``op(Q) = Qᴴ`` when
    ``transpose`` (the conjugate transpose).

    ``x [*, m, k]`` holds the reflectors below its diagonal, ``tau [*, k]``, ``y
    [*, p, q]``, equal batch dimensions and dtypes (else ``AssertionError``, as in
    Paddle). Which ``Q``: Paddle's reading, the thin ``Q = householder_product(x, tau)
    [m, k]``, whenever ``y``'s size fits it; otherwise LAPACK's, the full ``m × m`` Q
    (``y`` with ``m`` rows for ``left=True``, ``m`` columns for ``left=False``). The two
    readings both fit, with different results, in two cases when ``m > k``:
    ``left=True, transpose=True`` and ``left=False, transpose=False``; there the
    Paddle (thin) reading is used, whose result is the first ``k`` rows (columns) of
    LAPACK's. Differentiable in ``x``, ``tau`` and ``y``.

    >>> import weft
    >>> x = weft.to_tensor([[1.0], [1.0]], dtype="float64")   # v = (1, 1), H = I - v vᵀ
    >>> tau = weft.to_tensor([1.0], dtype="float64")
    >>> weft.linalg.ormqr(x, tau, weft.to_tensor([[1.0], [2.0]], dtype="float64")).tolist()
    [[-2.0], [-1.0]]
    """
    from ..core.args import check_same_place, tensor_arg  # noqa: PLC0415
    from ..ops.creation import zeros  # noqa: PLC0415
    op = "ormqr"
    x, tau, y = (tensor_arg(t, a, op) for t, a in ((x, "x"), (tau, "tau"), (y, "y")))
    if not (x._data.dtype == tau._data.dtype == y._data.dtype):
        raise AssertionError(f"{op}: x, tau and y must have the same dtype, got "
                             f"{x._data.dtype.name}, {tau._data.dtype.name} and "
                             f"{y._data.dtype.name}")
    if not (x.ndim == tau.ndim + 1 == y.ndim and x.ndim >= 2):
        raise AssertionError(f"{op}: x and y must have one more dimension than tau, at least "
                             f"2, got shapes {x.shape}, {tau.shape} and {y.shape}")
    if x.shape[-1] != tau.shape[-1]:
        raise AssertionError(f"{op}: x.shape[-1] must equal tau.shape[-1], got {x.shape} and "
                             f"{tau.shape}")
    if not (x.shape[:-2] == tau.shape[:-1] == y.shape[:-2]):
        raise AssertionError(f"{op}: x, tau and y must have equal batch dimensions, got "
                             f"{x.shape[:-2]}, {tau.shape[:-1]} and {y.shape[:-2]}")
    check_same_place(x, tau, op)
    check_same_place(x, y, op)
    x, back = matrix_arg(x, op, "x", square=False)
    tau, _ = compute_dtype(tau, op, "tau")
    y, _ = compute_dtype(y, op, "y")
    m, k = x.shape[-2], x.shape[-1]
    if k > m:
        raise AssertionError(f"{op}: x must have at least as many rows as columns, got {x.shape}")
    size = y.shape[-2] if left else y.shape[-1]
    thin = size == ((m if transpose else k) if left else (k if transpose else m))
    if not thin and size != m:
        side = "rows" if left else "columns"
        raise AssertionError(f"{op}: y must have {m} {side} (the full Q of x {x.shape}) or "
                             f"{(m if transpose else k) if left else (k if transpose else m)} "
                             f"(the thin Q), got shape {y.shape}")
    if _needs_grad(x, tau, y):   # weft ops, so every order of derivative works
        if not thin and m > k:
            x = concat([x, zeros(x.shape[:-1] + [m - k], dtype=x._data.dtype)], axis=-1)
        q = householder_product(x, tau)
        q = mH(q) if transpose else q
        return restore(_mm(q, y) if left else _mm(y, q), back)
    return restore(_ormqr_values(x, tau, y, left, transpose, thin), back)


def _ormqr_values(x, tau, y, left, transpose, thin):
    """ormqr without a gradient: LAPACK's ormqr on the full Q, the thin reading by
    zero-padding y and cropping the result."""
    from ..core.tensor import Tensor  # noqa: PLC0415
    a, t, c = x._data, tau._data, y._data
    xp = xp_of(a)
    m, k = a.shape[-2], a.shape[-1]
    pad = thin and ((left and not transpose) or (not left and transpose))
    if pad:   # Q_thin @ y = Q [y; 0]; y @ Q_thinᴴ = [y, 0] @ Qᴴ
        widths = [(0, 0)] * (c.ndim - 2) + ([(0, m - k), (0, 0)] if left else [(0, 0), (0, m - k)])
        c = xp.pad(c, widths)
    out = backend_of(a, "ormqr").ormqr(a, t, c, left, transpose)
    if thin and not pad:   # Q_thinᴴ y and y Q_thin: the first k rows / columns
        out = out[..., :k, :] if left else out[..., :, :k]
    return Tensor._wrap(xp.ascontiguousarray(out))
