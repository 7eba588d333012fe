"""Complex numbers: every function is checked as a map between real vector spaces.

A complex number is its real and imaginary parts. For a real loss
``L = Re <v, f(x)>`` the engine's gradient ``dL/dRe x + i dL/dIm x`` (the PyTorch
convention) is compared component-wise with difference quotients along real and
imaginary perturbations, so one test covers real, complex and mixed functions
alike: complex inputs are perturbed along ``u`` and ``i u``, complex outputs get
complex cotangents, and full Jacobians have a real and an imaginary row (or
column) for each complex entry.
"""
from __future__ import annotations

import numpy as np


def wide(d):
    return np.dtype(np.complex128) if d.kind == "c" else np.dtype(np.float64)


def rand(shape, cplx, rng):
    a = np.asarray(rng.standard_normal(shape))
    if cplx:
        a = a + 1j * np.asarray(rng.standard_normal(shape))
    return np.asarray(a)  # 0-D arithmetic gives numpy scalars


def directions(u, cplx):
    """The perturbations along unit direction ``u`` of a real or complex input."""
    parts = [("real part", u)]
    if cplx:
        parts.append(("imaginary part", 1j * u))
    return parts


def factors(cplx):
    """One-hot values that span an entry: 1, and i for a complex one."""
    return (1.0, 1j) if cplx else (1.0,)


def row_layout(outs):
    """The rows of a full Jacobian: ``(output list index, position in func's return,
    part factor, size)``, a second block for the imaginary part of a complex output."""
    rows = []
    for m, (j, o) in enumerate(outs):
        n = int(o._data.size)
        rows.append((m, j, 1.0, n))
        if o._data.dtype.kind == "c":
            rows.append((m, j, 1j, n))
    return rows


def realvec(a, cplx):
    """``a`` flattened to real coordinates (real parts, then imaginary parts)."""
    a = a.reshape(-1)
    return np.concatenate([a.real, a.imag]) if cplx else a.real
