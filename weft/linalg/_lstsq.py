"""Least squares ``lstsq`` with Paddle's drivers and return structure (api-linalg.md
§1 #37), batched with broadcast batch dimensions, real and complex.

The forward runs LAPACK on the host: ``gelsd`` through weft's batch-parallel native
driver, ``gels``, ``gelsy`` and ``gelss`` per matrix through scipy (on a GPU the input
is copied to the host and the results back, with a one-time warning). The solution is differentiable (weft+) by the derivative of the
pseudo-inverse, valid while the rank is locally constant (api-linalg.md §2.7): for
``X = A⁺ B``, ``R = B − A X`` and a cotangent ``g``::

    gB = A⁺ᴴ g
    gA = −A⁺ᴴ g Xᴴ + R gᴴ A⁺ A⁺ᴴ + A⁺ᴴ X gᴴ (I − A⁺ A)

written in weft ops (``pinv``), so higher derivatives follow. Residuals, rank and
singular values carry no gradient.
"""
from __future__ import annotations

import contextlib

import numpy as np

from ..autograd.engine import Primitive, apply, defvjp
from ..core.args import tensor_arg, xp_of
from ..core.backend import resolve
from ..core.tensor import Tensor
from ..ops.products import _mm
from ._common import check_converged, matrix_arg, mH, restore, rhs_arg
from ._composite import pinv
from ._solvers import _broadcast_batch
from .backends import LSTSQ_ONE_THREAD, host_fallback_warning
from .backends import _one_blas_thread as one_blas_thread

__all__ = ["lstsq"]

_DRIVERS = ("gels", "gelsy", "gelsd", "gelss")


def _gels(a, b):
    from scipy.linalg import get_lapack_funcs  # noqa: PLC0415
    m, n = a.shape
    gels, = get_lapack_funcs(("gels",), (a, b))
    rhs = np.zeros((max(m, n), b.shape[1]), np.result_type(a, b))
    rhs[:m] = b
    lqr, x, info = gels(a, rhs)
    if info > 0:
        raise ValueError(f"lstsq: driver 'gels' needs a full-rank x, but the triangular "
                         f"factor has a zero at position {info}; use driver 'gelsy', "
                         f"'gelsd' or 'gelss' for rank-deficient input")
    # LAPACK returns early for a zero x (solution 0, the minimum-norm one); the rank
    # (used only to decide on residuals) is then the count of nonzero R diagonals, 0
    k = min(m, n)
    return x[:n], int(np.count_nonzero(np.diagonal(lqr)[:k])), None


def _solve_one(a, b, driver, rcond):
    m, n = a.shape
    if m == 0 or n == 0:
        return np.zeros((n, b.shape[1]), np.result_type(a, b)), 0, np.zeros((0,), a.real.dtype)
    if driver == "gels":
        return _gels(a, b)
    from scipy.linalg import lstsq as _sl_lstsq  # noqa: PLC0415
    x, _, rank, s = _sl_lstsq(a, b, cond=rcond, lapack_driver=driver, check_finite=False)
    return x, int(rank), s


def _lstsq_fwd(a, b, *, driver, rcond):
    xp = xp_of(a)
    if xp is not np:   # cuSOLVER has no batched least squares (gels) that CuPy exposes
        host_fallback_warning("lstsq")
        a, b = xp.asnumpy(a), xp.asnumpy(b)
    shape = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    m, n, k = a.shape[-2], a.shape[-1], b.shape[-1]
    nb = int(np.prod(shape, dtype=np.int64))
    fa = np.broadcast_to(a, shape + a.shape[-2:]).reshape((nb, m, n))
    fb = np.broadcast_to(b, shape + b.shape[-2:]).reshape((nb, m, k))
    dtype = np.result_type(a, b)
    real = np.finfo(dtype).dtype
    if rcond is None:
        rcond = np.finfo(dtype).eps * max(m, n)
    if driver == "gelsd":   # the batch-parallel native driver
        sol, rank, sv, info = resolve("linalg", "cpu", caller="weft.linalg.lstsq").gelsd(
            fa.astype(dtype, copy=False), fb.astype(dtype, copy=False), rcond)
        check_converged("lstsq", info, shape)
    else:
        sol = np.zeros((nb, n, k), dtype)
        rank = np.zeros((nb,), np.int32)
        sv = np.zeros((nb, min(m, n)), real)
        # a batch runs on one BLAS thread; a single matrix does for gelss as for gelsd
        # (backends.Lapack.gelsd: SVD-based, level-2 bound), while the QR-based gelsy and
        # gels keep the BLAS's threads (gelsy, 2000 x 500 on 2 quiet cores: 73 ms on two
        # threads, 100 ms on one)
        one = nb > 1 or (driver == "gelss" and min(m, n) <= LSTSQ_ONE_THREAD)
        with one_blas_thread if one else contextlib.nullcontext():
            for i in range(nb):
                x, r, s = _solve_one(fa[i], fb[i], driver, rcond)
                sol[i], rank[i] = x, r
                if s is not None:
                    sv[i] = s[:min(m, n)]
    # residuals (weft+: for every driver) when they are meaningful: tall, full rank
    if m > n and bool((rank == n).all()):
        res = (np.abs(fb - fa @ sol) ** 2).sum(axis=-2).astype(real).reshape(shape + (k,))
    else:
        res = np.zeros((0,), real)
    sol = sol.reshape(shape + (n, k))
    rank = rank.reshape(shape)
    sv = sv.reshape(shape + (min(m, n),))
    if xp is not np:
        sol, res, rank, sv = (xp.asarray(t) for t in (sol, res, rank, sv))
    return sol, res, rank, sv


# only the solution is differentiable: lstsq re-wraps the other outputs as constants,
# so the rules read the solution's cotangent alone
_lstsq = Primitive("linalg_lstsq", _lstsq_fwd, n_out=4)


def _vjp_b(g, ans, a, b, *, driver, rcond):
    return _mm(mH(pinv(a)), g[0])


def _vjp_a(g, ans, a, b, *, driver, rcond):
    g, x = g[0], ans[0]
    ap = pinv(a)
    aph = mH(ap)
    r = b - _mm(a, x)
    n = a.shape[-1]
    xp = xp_of(a._data)
    eye = Tensor._wrap(xp.eye(n, dtype=a._data.dtype))
    return (-_mm(_mm(aph, g), mH(x)) + _mm(_mm(_mm(r, mH(g)), ap), aph)
            + _mm(_mm(_mm(aph, x), mH(g)), eye - _mm(ap, a)))


defvjp(_lstsq, _vjp_a, _vjp_b)


def lstsq(x, y, rcond=None, driver=None, name=None):
    """Least-squares solutions ``min ‖x X − y‖`` for ``x [*, m, n]``, ``y [*, m, k]``.

    Returns ``(solution [*, n, k], residuals, rank, singular_values)``. ``driver`` is
    one of ``'gels'`` (QR, full rank), ``'gelsy'`` (default on the CPU), ``'gelsd'``,
    ``'gelss'`` (``'gels'`` is the GPU default). ``residuals [*, k]`` (sums of squared
    residuals) are given for every driver when ``m > n`` and every rank is ``n``, else
    empty ``[0]``; ``rank`` is int32 ``[*]`` (empty int64 ``[0]`` for ``'gels'``);
    ``singular_values [*, min(m, n)]`` for ``'gelsd'``/``'gelss'``, else empty.
    ``rcond`` is the rank cut-off relative to the largest singular value (default
    ``eps·max(m, n)``). Wide systems get the minimum-norm solution. The solution is
    differentiable where the rank is locally constant.

    >>> import weft
    >>> a = weft.to_tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]], dtype="float64")
    >>> b = weft.to_tensor([[1.0], [1.0], [2.0]], dtype="float64")
    >>> sol, res, rank, s = weft.linalg.lstsq(a, b)
    >>> [round(v, 6) for v in sol.flatten().tolist()], rank.tolist()
    ([1.0, 1.0], 2)
    """
    op = "lstsq"
    if driver is None:
        driver = "gelsy" if xp_of(tensor_arg(x, "x", op)._data) is np else "gels"
    if driver not in _DRIVERS:
        raise ValueError(f"lstsq: driver must be None, 'gels', 'gelsy', 'gelsd' or 'gelss', "
                         f"got {driver!r}")
    x, back = matrix_arg(x, op, "x", square=False)
    y = rhs_arg(y, x, op)
    if xp_of(x._data) is not np and driver != "gels":
        raise ValueError(f"lstsq: only driver 'gels' is supported on the GPU, got {driver!r}")
    if y._data.dtype != x._data.dtype:
        raise TypeError(f"{op}: x and y must have the same dtype, got "
                        f"{x._data.dtype.name} and {y._data.dtype.name}")
    if y.shape[-2] != x.shape[-2]:
        raise ValueError(f"{op}: y must have {x.shape[-2]} rows to match x of shape "
                         f"{x.shape}, got shape {y.shape}")
    if rcond is not None:
        rcond = float(rcond)
    _broadcast_batch(op, x, y, 2)
    sol, res, rank, sv = (t if i == 0 else t._data for i, t in
                          enumerate(apply(_lstsq, x, y, driver=driver, rcond=rcond)))
    xp = xp_of(x._data)
    if driver == "gels":
        rank = xp.zeros((0,), np.int64)
    if driver in ("gels", "gelsy"):
        sv = xp.zeros((0,), sv.dtype)
    outs = [restore(sol, back)] + [restore(Tensor._wrap(t), back) if t.dtype.kind == "f"
                                   else Tensor._wrap(t) for t in (res, rank, sv)]
    return tuple(outs)
