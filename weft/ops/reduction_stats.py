"""Order statistics (median, nanmedian, quantile, nanquantile, mode), norms and
distances (norm, dist), trace, diff, histogram and bincount.

The order statistics select elements with numpy (a partial sort, or a stable sort with
NaN last when NaNs are present) and then gather them with a differentiable
take-along-axis, so the gradient goes to the selected element(s): a median of an even
count splits it evenly between the two middle elements, a linearly interpolated quantile
splits it by the interpolation weights. Among tied values, which one is selected (and
receives the gradient, or whose index ``median(mode='min')`` returns) is deterministic
but unspecified. Reductions over several axes move those axes to the end and flatten
them.
"""
from __future__ import annotations

import math as _pymath
import numbers

import numpy as np

from ..autograd.engine import Primitive, apply, defvjp
from ..core import dtype as _dt
from ..core.tensor import Tensor
from ..core.args import normalize_axes, normalize_axis, tensor_arg, xp_of
from ._support import binary_operands
from .math import abs as _abs, sgn, where
from .reduction import expand_reduced, sum as _sum
from .reduction_extra import (_accept_aliases, _arr, _float_input, _keepdim, _kept_shape,
                              _nan_const, _no_complex, _out_shape, _pad, _reduced_size,
                              _running, _slice, _take, _wrap_const, amax, amin)
from .shape import broadcast_to, reshape, transpose

_INF = float("inf")


def _axes_arg(x, axis, op):
    if isinstance(axis, (list, tuple)) and len(axis) == 0:
        axis = None
    return normalize_axes(axis, x.ndim, op)


def _to_last(x, axes):
    """``x`` with the reduced ``axes`` moved to the end and flattened into one."""
    nd = x.ndim
    keep = [i for i in range(nd) if i not in axes]
    perm = keep + list(axes)
    t = transpose(x, perm) if perm != list(range(nd)) else x
    return reshape(t, [x.shape[i] for i in keep] + [_reduced_size(x.shape, axes)])


def _nan_count(d):
    xp = xp_of(d)
    if d.dtype.kind in "fc":
        return xp.isnan(d).sum(axis=-1)
    return xp.zeros(d.shape[:-1], dtype=np.int64)


def _order(d, nnan, positions):
    """Indices ordering the last axis of ``d`` (NaN last), correct at least at the sorted
    ``positions``: a partial sort when no slice holds NaN (then every slice needs the
    same positions), else a full stable sort."""
    xp = xp_of(d)
    if d.shape[-1] > 2 and not bool(nnan.any()):
        kth = sorted({int(p) for p in xp.unique(positions).tolist()})
        return xp.argpartition(d, kth, axis=-1)
    return xp.argsort(d, axis=-1, kind="stable") if xp is np else xp.argsort(d, axis=-1)


# ---------------------------------------------------------------------------------
# median, nanmedian


def _median(x, axis, keepdim, mode, op, skip_nan):
    x = tensor_arg(x, "x", op)
    keepdim = _keepdim(keepdim, op)
    if mode not in ("avg", "min"):
        raise ValueError(f"{op}: mode must be 'avg' or 'min', got {mode!r}")
    _no_complex(x, op)
    axes = _axes_arg(x, axis, op)
    if mode == "avg":
        x = _float_input(x, op)
    n = _reduced_size(x.shape, axes)
    out_shape = list(_out_shape(x.shape, axes, keepdim))
    if n == 0:
        if mode == "min":
            raise ValueError(f"{op}: cannot take the median of an empty slice (x has shape "
                             f"{x.shape}, axis {axis})")
        return _nan_const(out_shape, x)
    xr = _to_last(x, axes)
    d = xr._data
    xp = xp_of(d)
    nnan = _nan_count(d)
    valid = n - nnan
    lo = xp.maximum((valid - 1) // 2, 0)
    hi = valid // 2
    if not skip_nan:
        # a slice holding NaN has median NaN: select its first NaN (sorted at `valid`)
        lo = xp.where(nnan > 0, valid, lo)
        hi = xp.where(nnan > 0, valid, hi)
    order = _order(d, nnan, xp.stack([lo, hi]))
    ilo = xp.take_along_axis(order, lo[..., None], axis=-1)
    r = _take(xr, ilo, -1)
    if mode == "avg":
        ihi = xp.take_along_axis(order, hi[..., None], axis=-1)
        r = (r + _take(xr, ihi, -1)) * 0.5
    r = reshape(r, out_shape)
    if mode == "min" and axis is not None:
        return r, Tensor._wrap(ilo.reshape(out_shape).astype(np.int64))
    return r


def median(x, axis=None, keepdim=False, mode="avg", name=None):
    """Median over ``axis`` (int, list, or None for all elements).

    ``mode='avg'`` (default) averages the two middle values of an even count (integer
    inputs give the default float dtype); ``mode='min'`` takes the lower one and, when
    ``axis`` is given, returns ``(values, indices)`` with int64 indices along ``axis``
    (into the flattened reduced axes for a list). A slice containing NaN gives NaN. The
    gradient goes to the selected element(s); an empty slice gives NaN (``'avg'``).

    >>> import weft
    >>> weft.median(weft.to_tensor([3.0, 1.0, 4.0, 2.0])).item()
    2.5
    >>> v, i = weft.median(weft.to_tensor([[3, 1, 4, 2]]), axis=1, mode='min')
    >>> v.tolist(), i.tolist()
    ([2], [3])
    """
    return _median(x, axis, keepdim, mode, "median", skip_nan=False)


def nanmedian(x, axis=None, keepdim=False, mode="avg", name=None):
    """Median ignoring NaN (see :func:`median` for ``mode`` and the result); an all-NaN
    slice gives NaN without a warning.

    >>> import weft
    >>> weft.nanmedian(weft.to_tensor([3.0, float('nan'), 1.0])).item()
    2.0
    """
    return _median(x, axis, keepdim, mode, "nanmedian", skip_nan=True)


# ---------------------------------------------------------------------------------
# quantile, nanquantile

_INTERPOLATIONS = ("linear", "lower", "higher", "nearest", "midpoint")


def _q_arg(q, op):
    """(list of floats, whether q was a sequence)."""
    many = True
    if isinstance(q, Tensor):
        if q.ndim > 1:
            raise ValueError(f"{op}: q must be a number or a 1-D sequence, got shape {q.shape}")
        many = q.ndim == 1
        q = q.tolist()
    if isinstance(q, (numbers.Real, np.floating, np.integer)) and not isinstance(q, bool):
        q, many = [q], False
    if not isinstance(q, (list, tuple)):
        raise TypeError(f"{op}: q must be a float or a list of floats, got {type(q).__name__}")
    if len(q) == 0:
        raise ValueError(f"{op}: q must not be empty")
    out = []
    for v in q:
        if not isinstance(v, (numbers.Real, np.floating, np.integer)) or isinstance(v, bool):
            raise TypeError(f"{op}: q must hold numbers, got {v!r}")
        if not 0 <= v <= 1:
            raise ValueError(f"{op}: q must be in [0, 1], got {v}")
        out.append(float(v))
    return out, many


def _quantile(x, q, axis, keepdim, interpolation, op, skip_nan):
    x = tensor_arg(x, "x", op)
    keepdim = _keepdim(keepdim, op)
    qs, many = _q_arg(q, op)
    if interpolation not in _INTERPOLATIONS:
        raise ValueError(f"{op}: interpolation must be one of {list(_INTERPOLATIONS)}, got "
                         f"{interpolation!r}")
    _no_complex(x, op)
    x = _float_input(x, op)
    axes = _axes_arg(x, axis, op)
    n = _reduced_size(x.shape, axes)
    out_shape = ([len(qs)] if many else []) + list(_out_shape(x.shape, axes, keepdim))
    if n == 0:
        return _nan_const(out_shape, x)
    xr = _to_last(x, axes)
    d = xr._data
    xp = xp_of(d)
    nnan = _nan_count(d)
    valid = n - nnan
    nq = len(qs)
    qa = xp.asarray(qs, dtype=np.float64).reshape([nq] + [1] * valid.ndim)
    vi = xp.maximum(qa * (valid - 1), 0)
    if interpolation == "nearest":  # Paddle rounds half away from zero
        lo = hi = xp.floor(vi + 0.5).astype(np.int64)
    else:
        lo = xp.floor(vi).astype(np.int64)
        hi = xp.ceil(vi).astype(np.int64)
        if interpolation == "lower":
            hi = lo
        elif interpolation == "higher":
            lo = hi
    frac = vi - lo
    if not skip_nan:
        lo = xp.where(nnan > 0, valid, lo)
        hi = xp.where(nnan > 0, valid, hi)
    order = _order(d, nnan, xp.stack([lo, hi]))
    ob = xp.broadcast_to(order, (nq,) + order.shape)
    xb = broadcast_to(reshape(xr, [1] + xr.shape), [nq] + xr.shape)
    ilo = xp.take_along_axis(ob, lo[..., None], axis=-1)
    vlo = _take(xb, ilo, -1)
    if interpolation in ("linear", "midpoint"):
        vhi = _take(xb, xp.take_along_axis(ob, hi[..., None], axis=-1), -1)
        if interpolation == "linear":
            r = vlo + (vhi - vlo) * _wrap_const(frac[..., None], d.dtype)
        else:
            r = (vlo + vhi) * 0.5
    else:
        r = vlo
    return reshape(r, out_shape)


def quantile(x, q, axis=None, keepdim=False, interpolation="linear", name=None):
    """The ``q``-th quantile(s) over ``axis`` (int, list, or None for all elements).

    ``q`` is a float in [0, 1] or a list of them (then the result gains a leading axis of
    length ``len(q)``). ``interpolation`` between the two neighbouring order statistics:
    ``'linear'`` (default), ``'lower'``, ``'higher'``, ``'nearest'`` (half away from zero,
    as Paddle), ``'midpoint'``. A slice containing NaN gives NaN. The gradient goes to
    the neighbours with the interpolation weights.

    >>> import weft
    >>> weft.quantile(weft.to_tensor([1.0, 2.0, 3.0, 4.0]), 0.5).item()
    2.5
    >>> weft.quantile(weft.to_tensor([1.0, 2.0, 3.0, 4.0]), [0.0, 1.0]).tolist()
    [1.0, 4.0]
    """
    return _quantile(x, q, axis, keepdim, interpolation, "quantile", skip_nan=False)


def nanquantile(x, q, axis=None, keepdim=False, interpolation="linear", name=None):
    """:func:`quantile` ignoring NaN; an all-NaN slice gives NaN.

    >>> import weft
    >>> weft.nanquantile(weft.to_tensor([1.0, float('nan'), 3.0]), 0.5).item()
    2.0
    """
    return _quantile(x, q, axis, keepdim, interpolation, "nanquantile", skip_nan=True)


# ---------------------------------------------------------------------------------
# mode


def mode(x, axis=-1, keepdim=False, name=None):
    """The most frequent value along ``axis`` and an index where it occurs, as
    ``(values, indices)``. Among equally frequent values the smallest wins; the index is
    its last occurrence. The gradient goes to that element.

    >>> import weft
    >>> v, i = weft.mode(weft.to_tensor([[1, 2, 2, 3], [4, 4, 1, 1]]))
    >>> v.tolist(), i.tolist()
    ([2, 1], [2, 3])
    """
    x = tensor_arg(x, "x", "mode")
    keepdim = _keepdim(keepdim, "mode")
    _no_complex(x, "mode")
    a = normalize_axis(axis, x.ndim, "mode")
    axes = () if x.ndim == 0 else (a,)
    if _reduced_size(x.shape, axes) == 0:
        raise ValueError(f"mode: axis {axis} of x (shape {x.shape}) is empty")
    out_shape = list(_out_shape(x.shape, axes, keepdim))
    xr = _to_last(x, axes)
    d = xr._data
    xp = xp_of(d)
    order = xp.argsort(d, axis=-1, kind="stable") if xp is np else xp.argsort(d, axis=-1)
    s = xp.take_along_axis(d, order, axis=-1)
    n = s.shape[-1]
    new = xp.ones(s.shape, dtype=bool)
    new[..., 1:] = s[..., 1:] != s[..., :-1]
    last = xp.ones(s.shape, dtype=bool)
    last[..., :-1] = new[..., 1:]
    pos = xp.arange(n)
    start = _running("maximum", xp.where(new, pos, 0), -1)
    runs = xp.where(last, pos - start + 1, 0)
    # first maximal run in ascending order = smallest value; its end = last occurrence
    best = xp.argmax(runs, axis=-1)[..., None]
    idx = xp.take_along_axis(order, best, axis=-1)
    v = reshape(_take(xr, idx, -1), out_shape)
    return v, Tensor._wrap(idx.reshape(out_shape).astype(np.int64))


# ---------------------------------------------------------------------------------
# norms


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
    return _arr(r).astype(a.dtype, copy=False)


def _pnorm_vjp(g, ans, x, p, axis, keepdim):
    ge = expand_reduced(g, x.shape, axis, keepdim)
    if p == 0:
        return ge * 0
    if p == 1:
        return ge * sgn(x)
    if p in (_INF, -_INF):
        d = abs(x._data)
        a = ans._data.reshape(_kept_shape(d.shape, axis))
        hit = (d == a) | (np.isnan(d) & np.isnan(a))
        w = hit / np.sum(hit, axis=axis, keepdims=True)
        return ge * sgn(x) * _wrap_const(w, d.dtype)
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


def _svd_values(x, kind):
    xp = xp_of(x)
    s = xp.linalg.svd(x, compute_uv=False)
    if kind == "nuc":
        return s.sum(axis=-1)
    return s[..., 0] if kind == 2 else s[..., -1]


def _svd_factor(x, kind):
    """U V^H (nuclear) or the outer product of the extreme singular vectors (2, -2)."""
    xp = xp_of(x)
    u, _, vh = xp.linalg.svd(x, full_matrices=False)
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
    out = list(_out_shape(shape, axes, keepdim))
    if p in ("nuc", 2.0, -2.0):
        keep = [i for i in range(x.ndim) if i not in axes]
        m = transpose(x, keep + [a0, a1])
        return reshape(apply(_svdnorm_p, m, kind=p if p == "nuc" else int(p)), out)
    if p in (1.0, -1.0, _INF, -_INF):
        inner, outer = (a0, a1) if abs(p) == 1 else (a1, a0)
        s = _sum(_abs(x), axis=inner, keepdim=True)
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
    keepdim = _keepdim(keepdim, "norm")
    p = _p_arg(p, "norm")
    x = _float_input(x, "norm")
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
    if p == -_INF and _reduced_size(x.shape, axes) == 0:
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
    x, y = binary_operands(_float_input(x, "dist"), _float_input(y, "dist"), "dist")
    d = x - y
    if p == -_INF and d._data.size == 0:
        raise ValueError("dist: the -inf norm of an empty difference is undefined")
    return apply(_pnorm_p, d, p=p, axis=tuple(range(d.ndim)), keepdim=False)


# ---------------------------------------------------------------------------------
# trace, diff


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


def trace(x, offset=0, axis1=0, axis2=1, name=None):
    """Sum of the diagonal ``offset`` (above the main one when positive) of the matrices
    spanned by ``axis1`` and ``axis2``; the result keeps x's dtype (bool becomes int64).

    >>> import weft
    >>> weft.trace(weft.to_tensor([[1, 2], [3, 4]])).item()
    5
    """
    x = tensor_arg(x, "x", "trace")
    if x.ndim < 2:
        raise ValueError(f"trace: x must have at least 2 dimensions, got shape {x.shape}")
    if not isinstance(offset, (int, np.integer)) or isinstance(offset, bool):
        raise TypeError(f"trace: offset must be an int, got {type(offset).__name__}")
    a1 = normalize_axis(axis1, x.ndim, "trace", "axis1")
    a2 = normalize_axis(axis2, x.ndim, "trace", "axis2")
    if a1 == a2:
        raise ValueError(f"trace: axis1 and axis2 must differ, got {axis1} and {axis2}")
    if x._data.dtype == np.bool_:
        from .cast import cast  # noqa: PLC0415

        x = cast(x, _dt.int64)
    return apply(_trace_p, x, offset=int(offset), axis1=a1, axis2=a2)


def _concat_axis(pieces, axis):
    """Concatenate along ``axis`` as a sum of zero-padded pieces (differentiable)."""
    if len(pieces) == 1:
        return pieces[0]
    total = 0
    for t in pieces:
        total += t.shape[axis]
    out, off = None, 0
    for t in pieces:
        n = t.shape[axis]
        part = _pad(t, off, total - off - n, axis)
        out = part if out is None else out + part
        off += n
    return out


def _edge(v, x, axis, arg):
    v = tensor_arg(v, arg, "diff")
    if v.ndim == 0:
        shape = x.shape
        shape[axis] = 1
        return broadcast_to(reshape(v, [1] * x.ndim), shape)
    if v.ndim != x.ndim or any(s != t for i, (s, t) in enumerate(zip(v.shape, x.shape))
                               if i != axis):
        raise ValueError(f"diff: {arg} of shape {v.shape} must match x of shape {x.shape} "
                         f"except along axis {axis}")
    return v


def diff(x, n=1, axis=-1, prepend=None, append=None, name=None):
    """The ``n``-th forward difference ``x[i+1] - x[i]`` along ``axis``, after
    concatenating ``prepend`` and ``append`` (tensors matching x except along ``axis``,
    or scalars) to x. Bool inputs give ``x[i+1] != x[i]``.

    >>> import weft
    >>> weft.diff(weft.to_tensor([1, 4, 9, 16])).tolist()
    [3, 5, 7]
    >>> weft.diff(weft.to_tensor([1.0, 4.0]), prepend=weft.to_tensor([0.0])).tolist()
    [1.0, 3.0]
    """
    x = tensor_arg(x, "x", "diff")
    if not isinstance(n, (int, np.integer)) or isinstance(n, bool):
        raise TypeError(f"diff: n must be an int, got {type(n).__name__}")
    if n < 0:
        raise ValueError(f"diff: n must be non-negative, got {n}")
    if n == 0:
        return x
    if x.ndim == 0:
        raise ValueError("diff: x must be at least 1-D, got a 0-D tensor")
    a = normalize_axis(axis, x.ndim, "diff")
    pieces = [x]
    if prepend is not None:
        pieces.insert(0, _edge(prepend, x, a, "prepend"))
    if append is not None:
        pieces.append(_edge(append, x, a, "append"))
    dt = pieces[0]._data.dtype
    for t in pieces[1:]:
        dt = _dt.promote_types(dt, t._data.dtype)
    if any(t._data.dtype != dt for t in pieces):
        from .cast import cast  # noqa: PLC0415

        pieces = [t if t._data.dtype == dt else cast(t, dt) for t in pieces]
    t = _concat_axis(pieces, a)
    for _ in range(n):
        m = t.shape[a]
        if m == 0:
            break
        hi, lo = _slice(t, 1, m, a), _slice(t, 0, m - 1, a)
        t = (hi != lo) if dt == np.bool_ else hi - lo
    return t


# ---------------------------------------------------------------------------------
# histogram, bincount


def _number(v, op, arg):
    if isinstance(v, Tensor):
        v = v.item()
    if not isinstance(v, (numbers.Real, np.floating, np.integer)) or isinstance(v, bool):
        raise TypeError(f"{op}: {arg} must be a number, got {type(v).__name__}")
    return float(v)


def histogram(input, bins=100, min=0, max=0, weight=None, density=False, name=None):
    """Counts of ``input``'s values in ``bins`` equal-width bins over ``[min, max]``
    (values outside are ignored; the last bin includes ``max``). When ``min == max``
    (the default 0, 0) the data range is used, widened by 1 on each side if it is a
    single value. int64 counts; with ``weight`` (same shape) the sums of weights in
    its dtype; ``density=True`` normalises to a probability density (float). Not
    differentiable.

    >>> import weft
    >>> weft.histogram(weft.to_tensor([1.0, 2.0, 1.0]), bins=3, min=0, max=3).tolist()
    [0, 2, 1]
    """
    x = tensor_arg(input, "input", "histogram")
    if x._data.dtype.kind not in "iuf":
        raise TypeError(f"histogram: input must be a float or integer tensor, got "
                        f"{x._data.dtype.name}")
    if not isinstance(bins, (int, np.integer)) or isinstance(bins, bool):
        raise TypeError(f"histogram: bins must be an int, got {type(bins).__name__}")
    if bins <= 0:
        raise ValueError(f"histogram: bins must be positive, got {bins}")
    lo, hi = _number(min, "histogram", "min"), _number(max, "histogram", "max")
    if lo > hi:
        raise ValueError(f"histogram: max must be larger than or equal to min, got min={lo}, "
                         f"max={hi}")
    d = x._data.reshape(-1)
    xp = xp_of(d)
    if lo == hi:
        if d.size:
            lo, hi = float(d.min()), float(d.max())
        if lo == hi:
            lo, hi = lo - 1, hi + 1
    if not (_pymath.isfinite(lo) and _pymath.isfinite(hi)):
        raise ValueError(f"histogram: the range [{lo}, {hi}] is not finite (NaN or inf in "
                         "input?); give min and max")
    w = None
    out_dt = _dt.int64
    if weight is not None:
        wt = tensor_arg(weight, "weight", "histogram")
        if wt.shape != x.shape:
            raise ValueError(f"histogram: weight has shape {wt.shape} but input has shape "
                             f"{x.shape}")
        if wt._data.dtype.kind not in "iuf":
            raise TypeError(f"histogram: weight must be a float or integer tensor, got "
                            f"{wt._data.dtype.name}")
        w = wt._data.reshape(-1)
        out_dt = wt._data.dtype if wt._data.dtype.kind == "f" else _dt.int64
    counts, _ = xp.histogram(d, bins=int(bins), range=(lo, hi), weights=w)
    if density:
        out_dt = out_dt if out_dt.kind == "f" else (
            x._data.dtype if x._data.dtype.kind == "f" else _dt.default_float())
        total = counts.sum()
        with np.errstate(all="ignore"):
            counts = counts / (total * ((hi - lo) / bins))
    return Tensor._wrap(counts.astype(out_dt))


_bincount_p = Primitive("bincount", lambda w, idx, minlength:
                        xp_of(w).bincount(idx, weights=w, minlength=minlength).astype(w.dtype))
defvjp(_bincount_p, lambda g, ans, w, idx, minlength: _take(g, idx, 0), save=(),
       save_out=False)


def bincount(x, weights=None, minlength=0, name=None):
    """Occurrences of each value ``0..max(x)`` in the non-negative 1-D integer tensor
    ``x`` (at least ``minlength`` entries): int64 counts, or with ``weights`` (same
    shape) the sums of the weights, in their dtype (integer weights give int64), and
    differentiable with respect to float weights.

    >>> import weft
    >>> weft.bincount(weft.to_tensor([0, 1, 1, 3])).tolist()
    [1, 2, 0, 1]
    """
    x = tensor_arg(x, "x", "bincount")
    if x._data.dtype.kind not in "iu":
        raise TypeError(f"bincount: x must be an integer tensor, got {x._data.dtype.name}")
    if x.ndim != 1:
        raise ValueError(f"bincount: x must be 1-D, got shape {x.shape}")
    if isinstance(minlength, Tensor):
        minlength = minlength.item()
    if not isinstance(minlength, (int, np.integer)) or isinstance(minlength, bool):
        raise TypeError(f"bincount: minlength must be an int, got {type(minlength).__name__}")
    if minlength < 0:
        raise ValueError(f"bincount: minlength must be non-negative, got {minlength}")
    d = x._data
    xp = xp_of(d)
    if d.size:
        i = int(xp.argmin(d))
        if d[i] < 0:
            raise ValueError(f"bincount: x must be non-negative, got x[{i}] = {int(d[i])}")
    if weights is None:
        return Tensor._wrap(xp.bincount(d, minlength=int(minlength)).astype(np.int64))
    w = tensor_arg(weights, "weights", "bincount")
    if w.shape != x.shape:
        raise ValueError(f"bincount: weights has shape {w.shape} but x has shape {x.shape}")
    if w._data.dtype.kind not in "biuf":
        raise TypeError(f"bincount: weights must be a real tensor, got {w._data.dtype.name}")
    if w._data.dtype.kind != "f":
        cnt = xp.bincount(d, weights=w._data.astype(np.float64), minlength=int(minlength))
        return Tensor._wrap(xp.rint(cnt).astype(np.int64))
    return apply(_bincount_p, w, idx=d.astype(np.int64), minlength=int(minlength))


__all__ = ["median", "nanmedian", "quantile", "nanquantile", "mode", "norm", "dist", "trace",
           "diff", "histogram", "bincount"]
for _n in __all__:
    globals()[_n] = _accept_aliases(globals()[_n])
del _n
__tensor_methods__ = {n: globals()[n] for n in __all__}
