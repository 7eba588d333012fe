"""``out[key] += src`` with repeated indices accumulating, on numpy or CuPy arrays.

numpy's ``np.add.at`` takes every dtype. CuPy's ``cupyx.scatter_add`` (and
``cupy.add.at``) take only int32/int64/uint32/uint64 and float16/32/64, so here a
complex array is added as its real and imaginary planes (two views into ``out``),
bool counts hits, and the other integer types go through int64.
"""
from __future__ import annotations

import numpy as np

_CUPY_NATIVE = frozenset(np.dtype(d) for d in (
    "int32", "int64", "uint32", "uint64", "float16", "float32", "float64"))


def add_at(out, key, src):
    """``out[key] += src`` in place (unbuffered: repeated indices accumulate);
    returns ``out``."""
    if type(out) is np.ndarray:
        np.add.at(out, key, src)
        return out
    import cupy  # noqa: PLC0415  (GPU only: CuPy is loaded with the first GPU array)
    import cupyx  # noqa: PLC0415

    src = cupy.asarray(src)
    dt = out.dtype
    if dt in _CUPY_NATIVE:
        cupyx.scatter_add(out, key, src.astype(dt, copy=False))
    elif dt.kind == "c":
        src = src.astype(dt, copy=False)
        cupyx.scatter_add(out.real, key, src.real)   # .real / .imag are views of out
        cupyx.scatter_add(out.imag, key, src.imag)
    elif dt.kind == "b":   # out |= any hit
        hits = cupy.zeros(out.shape, dtype=np.int32)
        cupyx.scatter_add(hits, key, src.astype(np.int32))
        out |= hits > 0
    else:                  # int8/16, uint8/16: add in int64 and wrap back, as numpy does
        wide = out.astype(np.int64)
        cupyx.scatter_add(wide, key, src.astype(np.int64))
        out[...] = wide.astype(dt)
    return out


def max_at(out, key, src):
    """``out[key] = maximum(out[key], src)`` in place, repeated indices included;
    NaN propagates as in ``np.maximum.at``. Returns ``out``."""
    return _extreme_at(out, key, src, "max")


def min_at(out, key, src):
    """``out[key] = minimum(out[key], src)`` in place (see :func:`max_at`)."""
    return _extreme_at(out, key, src, "min")


# float dtype -> the signed integer type of its bits
_BITS = {np.dtype(np.float32): np.dtype(np.int32), np.dtype(np.float64): np.dtype(np.int64)}


def _ordered_bits(xp, a, int_t):
    """IEEE floats as signed integers in the same order (negative floats have their
    magnitude bits flipped); the map is its own inverse."""
    b = a.view(int_t)
    return b ^ ((b >> (8 * int_t.itemsize - 1)) & xp.asarray(np.iinfo(int_t).max, int_t))


def _extreme_at(out, key, src, how):
    if type(out) is np.ndarray:
        (np.maximum if how == "max" else np.minimum).at(out, key, src)
        return out
    import cupy  # noqa: PLC0415  (GPU only)
    import cupyx  # noqa: PLC0415

    scatter = cupyx.scatter_max if how == "max" else cupyx.scatter_min
    src = cupy.asarray(src)
    if out.dtype.kind != "f":
        if out.dtype in _CUPY_NATIVE:
            scatter(out, key, src.astype(out.dtype, copy=False))
        else:   # bool and 8/16-bit integers: in int32, exactly
            wide = out.astype(np.int32)
            scatter(wide, key, src.astype(np.int32))
            out[...] = wide.astype(out.dtype)
        return out
    # CuPy's float atomicMax/atomicMin go through fmaxf/fminf: float64 values are
    # rounded to float32 (and NaN is dropped)
    return extreme_via_bits(cupy, scatter, cupyx.scatter_add, out, key, src)


def extreme_via_bits(xp, scatter, scatter_add, out, key, src):
    """The max/min scatter ``scatter`` (an integer one, ``np.maximum.at``-like) applied
    to exact, order-preserving integer images of the float bits of ``out`` and ``src``,
    and the winners mapped back; a group with a NaN gets NaN. ``scatter_add`` counts
    NaN hits. Written for any array module so that it is tested on the CPU."""
    dt = out.dtype
    work = dt if dt in _BITS else np.dtype(np.float32)   # float16 widens exactly
    int_t = _BITS[work]
    vals = src.astype(work, copy=True)
    keys = _ordered_bits(xp, out.astype(work, copy=True), int_t)
    scatter(keys, key, _ordered_bits(xp, vals, int_t))
    res = _ordered_bits(xp, keys, int_t).view(work)
    nan = xp.isnan(vals)
    if bool(nan.any()):
        hit = xp.zeros(res.shape, dtype=np.int32)
        scatter_add(hit, key, nan.astype(np.int32))
        res[hit > 0] = np.nan
    out[...] = res.astype(dt, copy=False)
    return out
