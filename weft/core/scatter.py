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
