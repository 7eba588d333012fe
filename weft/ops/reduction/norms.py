"""Vector and matrix norms, ``dist``, and ``trace``."""
from __future__ import annotations

import math as _pymath
import numbers
import numpy as np

from ...autograd.engine import apply, deflinear, defvjp, Primitive
from ...core import dtype as _dt
from ...core.backend import resolve
from ...core.args import (accept_aliases, diagonal_args, normalize_axes, normalize_axis,
                          tensor_arg, xp_of)
from ...core.tensor import Tensor
from .._support import binary_operands
from ..cast import cast
from ..math.ufuncs import abs as _abs, sgn, where
from ..shape.views import reshape, transpose
from ._helpers import (array_of, float_input, keepdim_arg, kept_shape, reduced_shape,
                       reduced_size, wrap_const)
from .aggregate import amax, amin, expand_reduced, sum


_INF = float("inf")


def _pnorm_fwd(x, p, axis, keepdim):
    a = abs(x)
    with np.errstate(all="ignore"):
        if p == _INF:
            r = np.max(a, axis=axis, keepdims=keepdim)
        elif p == -_INF:
            r = np.min(a, axis=axis, keepdims=keepdim)
        elif p == 0:
            r = np.sum(a != 0, axis=axis, keepdims=keepdim)
        elif p == 1:
            r = np.sum(a, axis=axis, keepdims=keepdim)
        elif p == 2:
            r = np.sqrt(np.sum(a * a, axis=axis, keepdims=keepdim))
        else:
            r = np.sum(a ** p, axis=axis, keepdims=keepdim) ** (1.0 / p)
    return array_of(r).astype(a.dtype, copy=False)


def _pnorm_vjp(g, ans, x, p, axis, keepdim):
    ge = expand_reduced(g, x.shape, axis, keepdim)
    if p == 0:
        return ge * 0
    if p == 1:
        return ge * sgn(x)
    if p in (_INF, -_INF):
        d = abs(x._data)
        a = ans._data.reshape(kept_shape(d.shape, axis))
        hit = (d == a) | (np.isnan(d) & np.isnan(a))
        w = hit / np.sum(hit, axis=axis, keepdims=True)
        return ge * sgn(x) * wrap_const(w, d.dtype)
    ae = expand_reduced(ans, x.shape, axis, keepdim)
    zero = ae == 0
    safe = where(zero, ae * 0 + 1, ae)  # the subgradient 0 at a zero norm, never NaN
    if p == 2:
        return ge * x / safe
    ax = _abs(x)
    r = ax / safe
    zx = ax == 0
    t = where(zx, r * 0, where(zx, r * 0 + 1, r) ** (p - 1))
    return ge * sgn(x) * t


def _svd(x, vectors):
    """The SVD of ``weft.linalg``'s backend (its batch-parallel LAPACK driver on the CPU),
    reached through the backend registry since ops sits below linalg. Until
    ``weft.linalg`` is imported and attaches its tables, the registry hands out the bare
    library modules, and numpy's (CuPy's) SVD is used."""
    xp = xp_of(x)
    be = resolve("linalg", "cpu" if xp is np else "gpu", caller="norm")
    if not hasattr(be, "svd"):
        return xp.linalg.svd(x, full_matrices=False) if vectors else \
            (None, xp.linalg.svd(x, compute_uv=False), None)
    u, s, vh, info = be.svd(x, "S" if vectors else "N")
    if np.asarray(info).any():
        raise np.linalg.LinAlgError("norm: the SVD did not converge (or the input holds NaN "
                                    "or infinity)")
    return u, s, vh


def _svd_values(x, kind):
    s = _svd(x, False)[1]
    if kind == "nuc":
        return s.sum(axis=-1)
    return s[..., 0] if kind == 2 else s[..., -1]


def _svd_factor(x, kind):
    """U V^H (nuclear) or the outer product of the extreme singular vectors (2, -2)."""
    u, _, vh = _svd(x, True)
    if kind == "nuc":
        return u @ vh
    k = slice(0, 1) if kind == 2 else slice(-1, None)
    return u[..., :, k] @ vh[..., k, :]


_pnorm_p = Primitive("p_norm", _pnorm_fwd)
_svdnorm_p = Primitive("matrix_norm", _svd_values)


# the singular-vector factor is treated as having no derivative of its own: taking a
# second derivative of the 'nuc'/2/-2 norms raises instead of returning a wrong value
_svd_factor_p = Primitive("norm_svd_factor (second derivative of the nuc/2/-2 norm)",
                          _svd_factor)
defvjp(_pnorm_p, _pnorm_vjp)
defvjp(_svdnorm_p, lambda g, ans, x, kind:
       reshape(g, g.shape + [1, 1]) * apply(_svd_factor_p, x, kind=kind), save_out=False)
defvjp(_svd_factor_p, None)


def _p_arg(p, op):
    if p is None or p in ("fro", "nuc"):
        return p
    if isinstance(p, str):
        raise ValueError(f"{op}: p must be 'fro', 'nuc' or a number, got {p!r}")
    if isinstance(p, Tensor):
        p = p.item()
    if not isinstance(p, (numbers.Real, np.floating, np.integer)) or isinstance(p, bool):
        raise TypeError(f"{op}: p must be a number, 'fro' or 'nuc', got {type(p).__name__}")
    if _pymath.isnan(p):
        raise ValueError(f"{op}: p must not be NaN")
    return float(p)


def _matrix_norm(x, p, a0, a1, keepdim):
    shape = x.shape
    if shape[a0] == 0 or shape[a1] == 0:
        raise ValueError(f"norm: the matrix norm p={p!r} of an empty matrix (x has shape "
                         f"{shape}, axis [{a0}, {a1}]) is undefined")
    axes = tuple(sorted((a0, a1)))
    if p in (None, "fro"):
        return apply(_pnorm_p, x, p=2.0, axis=axes, keepdim=keepdim)
    out = list(reduced_shape(shape, axes, keepdim))
    if p in ("nuc", 2.0, -2.0):
        keep = [i for i in range(x.ndim) if i not in axes]
        m = transpose(x, keep + [a0, a1])
        return reshape(apply(_svdnorm_p, m, kind=p if p == "nuc" else int(p)), out)
    if p in (1.0, -1.0, _INF, -_INF):
        inner, outer = (a0, a1) if abs(p) == 1 else (a1, a0)
        s = sum(_abs(x), axis=inner, keepdim=True)
        r = (amax if p > 0 else amin)(s, axis=outer, keepdim=True)
        return r if keepdim else reshape(r, out)
    raise ValueError(f"norm: p={p!r} is not supported for a matrix norm (axis with two "
                     "entries); use 'fro', 'nuc', inf, -inf, 1, -1, 2 or -2")


def norm(x, p=None, axis=None, keepdim=False, name=None):
    """Vector or matrix norm (Paddle 3 semantics).

    ``axis`` None: the vector norm of the flattened tensor (``p='nuc'`` needs a 2-D
    tensor, taken as a matrix); an int: vector norms along it; two axes: matrix norms
    over them (rows, columns). Vector ``p``: any real number, ``inf``, ``-inf``, ``0``
    (count of nonzeros); ``None``/``'fro'`` mean 2. Matrix ``p``: ``'fro'`` (default),
    ``'nuc'``, ``inf``, ``-inf``, ``1``, ``-1``, ``2``, ``-2``. The gradient at a zero
    vector is 0 (a subgradient, never NaN); max-type norms split it among ties.
    ``'nuc'``/``2``/``-2`` use the SVD and have first derivatives only.

    >>> import weft
    >>> weft.norm(weft.to_tensor([3.0, 4.0])).item()
    5.0
    >>> weft.norm(weft.to_tensor([[1.0, -2.0], [3.0, 4.0]]), p=1, axis=[0, 1]).item()
    6.0
    """
    x = tensor_arg(x, "x", "norm")
    keepdim = keepdim_arg(keepdim, "norm")
    p = _p_arg(p, "norm")
    x = float_input(x, "norm")
    if isinstance(axis, Tensor):
        axis = axis.tolist()
    if isinstance(axis, (list, tuple)) and len(axis) == 1:
        axis = axis[0]
    if isinstance(axis, (list, tuple)):
        if len(axis) != 2:
            raise ValueError(f"norm: axis must be None, an int or a list of two ints, got "
                             f"{list(axis)}")
        a0 = normalize_axis(axis[0], x.ndim, "norm")
        a1 = normalize_axis(axis[1], x.ndim, "norm")
        if a0 == a1 or x.ndim < 2:
            raise ValueError(f"norm: the two axes of a matrix norm must differ, got {list(axis)}"
                             f" for a tensor with {x.ndim} dimension(s)")
        return _matrix_norm(x, p, a0, a1, keepdim)
    if p == "nuc":
        if axis is None and x.ndim == 2:
            return _matrix_norm(x, p, 0, 1, keepdim)
        raise ValueError("norm: p='nuc' needs a matrix: give two axes (or a 2-D tensor with "
                         "axis=None)")
    axes = normalize_axes(axis, x.ndim, "norm")
    p = 2.0 if p in (None, "fro") else p
    if p == -_INF and reduced_size(x.shape, axes) == 0:
        raise ValueError(f"norm: the -inf norm of an empty vector (x has shape {x.shape}) is "
                         "undefined")
    return apply(_pnorm_p, x, p=p, axis=axes, keepdim=keepdim)


def dist(x, y, p=2, name=None):
    """The ``p``-norm of ``x - y`` (broadcast) over all elements, as a 0-D tensor; ``p``
    may be any real number, ``inf`` or ``-inf`` (``0`` counts the differing elements).

    >>> import weft
    >>> weft.dist(weft.to_tensor([[1.0, 1.0]]), weft.to_tensor([4.0, 5.0])).item()
    5.0
    """
    x = tensor_arg(x, "x", "dist")
    y = tensor_arg(y, "y", "dist")
    p = _p_arg(p, "dist")
    if not isinstance(p, float):
        raise ValueError(f"dist: p must be a number, got {p!r}")
    try:
        np.broadcast_shapes(tuple(x.shape), tuple(y.shape))
    except ValueError:
        raise ValueError(f"dist: x of shape {x.shape} and y of shape {y.shape} do not "
                         "broadcast") from None
    x, y = binary_operands(float_input(x, "dist"), float_input(y, "dist"), "dist")
    d = x - y
    if p == -_INF and d._data.size == 0:
        raise ValueError("dist: the -inf norm of an empty difference is undefined")
    return apply(_pnorm_p, d, p=p, axis=tuple(range(d.ndim)), keepdim=False)


def _trace_mask(shape, offset, axis1, axis2, dtype, xp):
    n1, n2 = shape[axis1], shape[axis2]
    e = xp.eye(n1, n2, k=offset, dtype=dtype)
    if axis1 > axis2:
        e = e.T
    return e.reshape([s if i in (axis1, axis2) else 1 for i, s in enumerate(shape)])


def _trace_vjp(g, ans, x, offset, axis1, axis2):
    lo, hi = sorted((axis1, axis2))
    gs = g.shape
    g = reshape(g, gs[:lo] + [1] + gs[lo:hi - 1] + [1] + gs[hi - 1:])
    mask = _trace_mask(x._data.shape, offset, axis1, axis2, x._data.dtype, xp_of(x))
    return g * Tensor._wrap(mask)


_trace_p = Primitive("trace", lambda x, offset, axis1, axis2:
                     np.trace(x, offset=offset, axis1=axis1, axis2=axis2, dtype=x.dtype))
defvjp(_trace_p, _trace_vjp, save=(), save_out=False)
deflinear(_trace_p)   # forward mode: the trace of the tangent


def trace(x, offset=0, axis1=0, axis2=1, name=None):
    """Sum of the diagonal ``offset`` (above the main one when positive) of the matrices
    spanned by ``axis1`` and ``axis2``; the result keeps x's dtype (bool becomes int64).

    >>> import weft
    >>> weft.trace(weft.to_tensor([[1, 2], [3, 4]])).item()
    5
    """
    x = tensor_arg(x, "x", "trace")
    offset, a1, a2 = diagonal_args(x, offset, axis1, axis2, "trace")
    if x._data.dtype == np.bool_:
        x = cast(x, _dt.int64)
    return apply(_trace_p, x, offset=int(offset), axis1=a1, axis2=a2)


# Paddle 3's torch-style keywords (input=, dim=) are accepted too
for _n in ["norm", "dist", "trace"]:
    globals()[_n] = accept_aliases(globals()[_n])
del _n
__all__ = ["norm", "dist", "trace"]
__tensor_methods__ = {"norm": norm, "dist": dist, "trace": trace}
