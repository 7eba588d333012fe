"""Argument checks and helpers shared by the ``weft.linalg`` functions.

Dtype rule (api-linalg.md §0): float32/float64/complex64/complex128 are computed as
given; float16 and bfloat16 are computed in float32 and cast back (LAPACK has no
half-precision routines); integer and bool input is refused with
``weft.UnsupportedDtypeError``.
"""
from __future__ import annotations

import numpy as np

from ..core.args import check_same_place, tensor_arg, xp_of
from ..core.backend import resolve
from ..core.dtype import UnsupportedDtypeError
from ..ops.cast import cast
from ..ops.math.ufuncs import cj
from ..ops.products import _mT

_NATIVE = (np.dtype("float32"), np.dtype("float64"), np.dtype("complex64"),
           np.dtype("complex128"))


def matrix_arg(x, op, arg="x", square=True):
    """``x`` as a Tensor of matrices ``[*, m, n]`` (square when ``square``) in a dtype
    LAPACK computes in, and the dtype to cast the result back to (None: no cast)."""
    x = tensor_arg(x, arg, op)
    if x.ndim < 2:
        raise ValueError(f"{op}: {arg} must be a batch of matrices [*, m, n] (at least 2-D), "
                         f"got shape {x.shape}")
    if square and x.shape[-1] != x.shape[-2]:
        raise ValueError(f"{op}: {arg} must be a batch of square matrices [*, n, n], "
                         f"got shape {x.shape}")
    return compute_dtype(x, op, arg)


def rhs_arg(y, x, op, arg="y"):
    """The right-hand side ``y`` of a solve with ``x``: a batch of matrices ``[*, m, k]`` on
    ``x``'s device, in a dtype LAPACK computes in."""
    y = tensor_arg(y, arg, op)
    if y.ndim < 2:
        raise ValueError(f"{op}: {arg} must be a batch of matrices [*, m, k] (at least 2-D), "
                         f"got shape {y.shape}")
    check_same_place(x, y, op)
    y, _ = matrix_arg(y, op, arg, square=False)
    return y


def compute_dtype(x, op, arg="x"):
    d = x._data.dtype
    if d in _NATIVE:
        return x, None
    if d.kind == "f" or d.name == "bfloat16":   # float16, bfloat16: through float32
        return cast(x, "float32"), d
    raise UnsupportedDtypeError(f"{op}: {arg} has dtype {d.name}; linear algebra needs "
                                "float32, float64, complex64 or complex128 (float16 and "
                                "bfloat16 are computed in float32)")


def restore(t, dtype):
    """Cast a result back to the caller's half-precision dtype (None: unchanged)."""
    return t if dtype is None else cast(t, dtype)


def mH(t):
    """The conjugate transpose of the last two axes (differentiable)."""
    return cj(_mT(t))


def batch_index(shape, flat):
    """A flat batch position as the index tuple a user can look up (e.g. ``(1, 0)``)."""
    if not shape:
        return "()"
    return str(tuple(int(i) for i in np.unravel_index(flat, shape)))


def backend_of(a, op):
    """The ``linalg`` backend for backend array ``a``'s device (core.backend.resolve)."""
    return resolve("linalg", "cpu" if xp_of(a) is np else "gpu", caller=f"weft.linalg.{op}")


def first_bad(info):
    """The flat batch position of the first nonzero ``info`` entry, or None."""
    info = np.asarray(info)
    if not info.size:
        return None
    bad = np.flatnonzero(info.reshape(-1))
    return int(bad[0]) if bad.size else None


def where_in_batch(shape, flat):
    """`` (the matrix at batch index (1, 0))`` for a batch, empty for one matrix."""
    return f" (the matrix at batch index {batch_index(shape, flat)})" if len(shape) else ""


def check_converged(op, info, shape):
    """Raise for an iterative routine's failure: -1 a matrix with NaN or infinity
    (refused before LAPACK saw it), > 0 no convergence. ``numpy.linalg.LinAlgError``,
    a ValueError, as numpy raises for the same inputs."""
    i = first_bad(info)
    if i is None:
        return
    code = int(np.asarray(info).reshape(-1)[i])
    if code < 0:
        raise np.linalg.LinAlgError(f"{op}: the input contains NaN or infinity"
                                    f"{where_in_batch(shape, i)}")
    raise np.linalg.LinAlgError(f"{op}: LAPACK did not converge (info {code})"
                                f"{where_in_batch(shape, i)}")
