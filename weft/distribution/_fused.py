"""Fused pieces of log-densities: the per-element work of a family's ``log_prob`` as
one primitive, and the parameter gradients as reductions.

Written as chains of weft ops, a log-density over ``n`` values costs one full-size
temporary and one memory pass per op, forward and backward (``Normal.log_prob`` on
10^7 values: some fifteen 40 MB arrays). Here the forward runs in blocks that stay in
cache (every op of a block before the next block), writing only the result, and
the gradient of a parameter that was broadcast over the values is the reduction
``Σ g·((x - m)/s)^p`` computed in the same blocks, never the full-size product. The
rules are weft ops (the reduction is itself a primitive with weft-op rules), so
every order of derivative works.

The blocked paths serve host arrays whose parameters are single numbers (one law
over many values, the common case); anything else (parameters of a batch shape,
broadcast or non-contiguous values, CuPy arrays) takes whole-array backend code
with in-place ops, which is what the blocks do, a block at a time.
"""
from __future__ import annotations

import math

import numpy as np

from .. import _native
from ..autograd.engine import Primitive, apply, defvjp
from ..core.args import xp_of
from .. import ops

# elements per block: 2^14 float64 (128 KiB) per scratch array, so the two or three a
# fused loop touches stay in L2 while the Python overhead (a few us a block) stays
# far below the memory time it saves
BLOCK = 1 << 14
_FAST = (np.dtype("float32"), np.dtype("float64"))


def blockable(x, *params):
    """Whether ``x`` (a backend array) goes through the blocked path: a contiguous
    float32/float64 host array of more than one block with every parameter a single
    number of its dtype."""
    return (type(x) is np.ndarray and x.dtype in _FAST and x.size > BLOCK
            and x.flags.c_contiguous
            and all(type(p) is np.ndarray and p.size == 1 and p.dtype == x.dtype
                    for p in params))


def blocks(n):
    """``(start, stop)`` of consecutive blocks covering ``range(n)``."""
    for s in range(0, n, BLOCK):
        yield s, min(s + BLOCK, n)


def scalar(p):
    """The single entry of a size-1 array as a numpy scalar of its dtype."""
    return p.reshape(-1)[0]


def scaler(s, k=1.0):
    """An in-place ``t *= k / s`` for blocks: one multiplication by ``k/s`` (a quarter
    of the cost of a division, within a rounding of it) unless ``k/s`` overflows, as it
    does for subnormal ``s``; then a division and a multiplication."""
    k = s.dtype.type(k)
    with np.errstate(over="ignore", divide="ignore"):
        r = k / s
    if np.isfinite(r) and r != 0:
        return lambda t: np.multiply(t, r, out=t)
    if k == 1:
        return lambda t: np.divide(t, s, out=t)
    return lambda t: np.multiply(np.divide(t, s, out=t), k, out=t)


def sum_to(a, shape):
    """Sum backend array ``a`` down to ``shape`` (the inverse of broadcasting)."""
    shape = tuple(shape)
    if a.shape == shape:
        return a
    lead = a.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(i + lead for i, s in enumerate(shape)
                                      if s == 1 and a.shape[i + lead] != 1)
    return a.sum(axis=axes, keepdims=True).reshape(shape) if axes else a.reshape(shape)


def _broadcast_scalar(g):
    """The value of ``g`` when it is one number broadcast (every stride 0: the
    cotangent a ``sum`` hands back), else None."""
    if type(g) is np.ndarray and g.size and not any(g.strides):
        return g.reshape(-1)[0]
    return None


# ----------------------------------------------------------------------------------
# Σ g·((x - m)/s)^p over the axes m and s were broadcast along. Standardised first:
# (x - m)^p itself leaves float32's range for scales far from 1 (1e-30, 1e30) where the
# terms of a log-density and its gradients are ordinary numbers.

def _moment_blocked(g, x, m, sc, p):
    n = x.size
    xf = x.reshape(-1)
    mv, scale_by = scalar(m), scaler(scalar(sc))
    g0 = _broadcast_scalar(g)
    gf = None if g0 is not None else g.reshape(-1)
    t = np.empty(min(n, BLOCK), x.dtype)
    u = np.empty_like(t) if gf is not None and p == 2 else None
    acc = 0.0   # the block totals add in float64
    for s, e in blocks(n):
        tb = t[:e - s]
        np.subtract(xf[s:e], mv, out=tb)
        scale_by(tb)
        if gf is None:
            acc += float(tb.sum() if p == 1 else np.dot(tb, tb))
        elif p == 1:
            acc += float(np.dot(gf[s:e], tb))
        else:
            ub = u[:e - s]
            np.multiply(gf[s:e], tb, out=ub)
            acc += float(np.dot(ub, tb))
    if g0 is not None:
        acc *= float(g0)
    return np.full(np.broadcast_shapes(m.shape, sc.shape), acc, dtype=x.dtype)


def _moment_fwd(g, x, m, sc, p):
    shape = np.broadcast_shapes(m.shape, sc.shape)
    g0 = _broadcast_scalar(g)
    if p == 0:
        if g0 is not None and math.prod(shape) == 1:
            # every element of g equal: the count times the value, exactly
            return np.full(shape, float(g0) * g.size, dtype=g.dtype)
        return sum_to(g, shape)
    if blockable(x, m, sc) and x.shape == g.shape and (g0 is not None or (
            g.flags.c_contiguous and g.dtype == x.dtype)):
        return _moment_blocked(g, x, m, sc, p)
    xp = xp_of(x)
    t = xp.asarray(x - m)     # numpy gives a scalar for 0-D operands
    xp.divide(t, sc, out=t)
    if p == 2:
        xp.multiply(t, t, out=t)
    xp.multiply(t, g, out=t)
    return sum_to(t, shape)


_moment = Primitive("standardized_moment_sum", _moment_fwd)


def _z(x, m, sc):
    return (x - m) / sc


def _moment_dg(h, ans, g, x, m, sc, p):
    if p == 0:
        return ops.broadcast_to(h, g.shape)
    z = _z(x, m, sc)
    return h * (z if p == 1 else z * z)


def _moment_dx(h, ans, g, x, m, sc, p):
    if p == 0:
        return None
    hg = h * g / sc
    return hg if p == 1 else 2.0 * hg * _z(x, m, sc)


def _moment_dm(h, ans, g, x, m, sc, p):
    # d/dm Σ g z^p = -(p/s) Σ g z^(p-1)
    if p == 0:
        return None
    return -float(p) * h * apply(_moment, g, x, m, sc, p=p - 1) / sc


def _moment_ds(h, ans, g, x, m, sc, p):
    # d/ds Σ g z^p = -(p/s) Σ g z^p
    if p == 0:
        return None
    return -float(p) * h * ans / sc


defvjp(_moment, _moment_dg, _moment_dx, _moment_dm, _moment_ds)


def moment_sum(g, x, m, s, p):
    """``Σ g·((x - m)/s)^p`` summed to the broadcast shape of ``m`` and ``s`` (``p`` in
    0, 1, 2); ``g`` has the broadcast shape of ``x``, ``m`` and ``s``. A differentiable
    weft op."""
    return apply(_moment, g, x, m, s, p=p)


def check_value(value, param, op):
    """Raise the error numpy would raise mid-computation, with the names in it."""
    try:
        np.broadcast_shapes(tuple(value.shape), tuple(param.shape))
    except ValueError:
        raise ValueError(f"{op}: value of shape {list(value.shape)} does not broadcast with "
                         f"the batch shape {list(param.shape)}") from None


# ----------------------------------------------------------------------------------
# Σ_i z_i² along the second-to-last axis (the squared norms of the columns of
# triangular-solve results): einsum reads z once, where z * z then sum write and read
# a full-size temporary

_sum_squares = Primitive("sum_squares_cols", lambda z: xp_of(z).einsum("...ij,...ij->...j", z, z))
defvjp(_sum_squares, lambda g, ans, z: 2.0 * g.unsqueeze(-2) * z, save_out=False)


def sum_squares_cols(z):
    """``(z * z).sum(axis=-2)`` for a floating Tensor ``z`` of at least two dims."""
    return apply(_sum_squares, z)


# ---- ‖L⁻¹ d‖² for many vectors d under one triangular factor L


def _mahal_rows_fwd(lower, rows):
    return _native.extension.tri_mahalanobis_rows(np.ascontiguousarray(lower),
                                                  np.ascontiguousarray(rows))


def _mahal_solves(g, lower, rows):
    """z = L⁻¹ dᵀ ([k, N]) and y = L⁻ᵀ (z · g) ([k, N]), in weft ops."""
    from ..linalg import triangular_solve  # noqa: PLC0415

    z = triangular_solve(lower, ops.transpose(rows, [1, 0]), upper=False)
    y = triangular_solve(lower, z * g.unsqueeze(0), upper=False, transpose=True)
    return z, y


def _mahal_vjp_lower(g, ans, lower, rows):
    # d‖L⁻¹d‖² = -2 (L⁻ᵀz)ᵀ dL z: only the lower triangle of L is read
    z, y = _mahal_solves(g, lower, rows)
    return ops.tril(-2.0 * (y @ ops.transpose(z, [1, 0])))


def _mahal_vjp_rows(g, ans, lower, rows):
    _, y = _mahal_solves(g, lower, rows)
    return 2.0 * ops.transpose(y, [1, 0])


_mahal_rows = Primitive("tri_mahalanobis_rows", _mahal_rows_fwd)
defvjp(_mahal_rows, _mahal_vjp_lower, _mahal_vjp_rows, save_out=False)


def tri_mahalanobis_rows(lower, rows):
    """``‖L⁻¹ dᵢ‖²`` for the rows ``dᵢ`` of ``rows [N, k]`` and one lower-triangular
    ``lower [k, k]`` (float32/float64 numpy tensors with a non-zero diagonal: see
    :func:`mahalanobis_rows_native`), by the native substitution kernel
    (csrc/linalg/mahalanobis.cpp) instead of a triangular solve and a sum of squares;
    its gradients are written with triangular solves."""
    return apply(_mahal_rows, lower, rows)


def mahalanobis_rows_native(lower, rows):
    """Whether :func:`tri_mahalanobis_rows` takes ``lower``/``rows`` (Tensors): numpy
    float32/float64 of one dtype, and no zero on L's diagonal (a singular factor goes
    through the triangular solve, which reports it)."""
    a, b = lower._data, rows._data
    return (type(a) is np.ndarray and type(b) is np.ndarray and a.dtype == b.dtype and
            a.dtype in (np.float32, np.float64) and bool(np.diagonal(a).all()))
