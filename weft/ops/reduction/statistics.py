"""Order statistics and counting: medians, quantiles, modes, histograms and ``bincount``."""
from __future__ import annotations

import math as _pymath
import numbers
import numpy as np

from ...autograd.engine import apply
from ...core import dtype as _dt
from ...core.args import accept_aliases, normalize_axes, normalize_axis, tensor_arg, xp_of
from ...core.tensor import Tensor
from ..shape.views import broadcast_to, reshape, transpose
from ._helpers import (bincount_p, float_input, keepdim_arg, nan_const, no_complex,
                       reduced_shape, reduced_size, running, take, wrap_const)


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
    return reshape(t, [x.shape[i] for i in keep] + [reduced_size(x.shape, axes)])


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


def _median(x, axis, keepdim, mode, op, skip_nan):
    x = tensor_arg(x, "x", op)
    keepdim = keepdim_arg(keepdim, op)
    if mode not in ("avg", "min"):
        raise ValueError(f"{op}: mode must be 'avg' or 'min', got {mode!r}")
    no_complex(x, op)
    axes = _axes_arg(x, axis, op)
    if mode == "avg":
        x = float_input(x, op)
    n = reduced_size(x.shape, axes)
    out_shape = list(reduced_shape(x.shape, axes, keepdim))
    if n == 0:
        if mode == "min":
            raise ValueError(f"{op}: cannot take the median of an empty slice (x has shape "
                             f"{x.shape}, axis {axis})")
        return nan_const(out_shape, x)
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
    r = take(xr, ilo, -1)
    if mode == "avg":
        ihi = xp.take_along_axis(order, hi[..., None], axis=-1)
        r = (r + take(xr, ihi, -1)) * 0.5
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
    keepdim = keepdim_arg(keepdim, op)
    qs, many = _q_arg(q, op)
    if interpolation not in _INTERPOLATIONS:
        raise ValueError(f"{op}: interpolation must be one of {list(_INTERPOLATIONS)}, got "
                         f"{interpolation!r}")
    no_complex(x, op)
    x = float_input(x, op)
    axes = _axes_arg(x, axis, op)
    n = reduced_size(x.shape, axes)
    out_shape = ([len(qs)] if many else []) + list(reduced_shape(x.shape, axes, keepdim))
    if n == 0:
        return nan_const(out_shape, x)
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
    vlo = take(xb, ilo, -1)
    if interpolation in ("linear", "midpoint"):
        vhi = take(xb, xp.take_along_axis(ob, hi[..., None], axis=-1), -1)
        if interpolation == "linear":
            r = vlo + (vhi - vlo) * wrap_const(frac[..., None], d.dtype)
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
    keepdim = keepdim_arg(keepdim, "mode")
    no_complex(x, "mode")
    a = normalize_axis(axis, x.ndim, "mode")
    axes = () if x.ndim == 0 else (a,)
    if reduced_size(x.shape, axes) == 0:
        raise ValueError(f"mode: axis {axis} of x (shape {x.shape}) is empty")
    out_shape = list(reduced_shape(x.shape, axes, keepdim))
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
    start = running("maximum", xp.where(new, pos, 0), -1)
    runs = xp.where(last, pos - start + 1, 0)
    # first maximal run in ascending order = smallest value; its end = last occurrence
    best = xp.argmax(runs, axis=-1)[..., None]
    idx = xp.take_along_axis(order, best, axis=-1)
    v = reshape(take(xr, idx, -1), out_shape)
    return v, Tensor._wrap(idx.reshape(out_shape).astype(np.int64))


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
    if xp is np:
        counts, _ = np.histogram(d, bins=int(bins), range=(lo, hi), weights=w)
    else:
        counts = _histogram_like_numpy(xp, d, int(bins), lo, hi, w)
    if density:
        out_dt = out_dt if out_dt.kind == "f" else (
            x._data.dtype if x._data.dtype.kind == "f" else _dt.default_float())
        total = counts.sum()
        with np.errstate(all="ignore"):
            counts = counts / (total * ((hi - lo) / bins))
    return Tensor._wrap(counts.astype(out_dt))


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
    return apply(bincount_p, w, idx=d.astype(np.int64), minlength=int(minlength))


# Paddle 3's torch-style keywords (input=, dim=) are accepted too
for _n in ["median", "nanmedian", "quantile", "nanquantile", "mode", "histogram", "bincount"]:
    globals()[_n] = accept_aliases(globals()[_n])
del _n
__all__ = ["median", "nanmedian", "quantile", "nanquantile", "mode", "histogram", "bincount"]
__tensor_methods__ = {"median": median, "nanmedian": nanmedian, "quantile": quantile, "nanquantile": nanquantile, "mode": mode, "histogram": histogram, "bincount": bincount}


def _histogram_like_numpy(xp, d, bins, lo, hi, w):
    """``np.histogram(d, bins, (lo, hi), weights=w)[0]`` on another array module, bin
    for bin: numpy's edges (made on the host) and numpy's rule for a value near an
    edge (the estimated bin is corrected against the edges), which CuPy's
    ``histogram`` does not reproduce for values that fall on an edge."""
    bin_type = np.result_type(lo, hi, d.dtype)
    if bin_type.kind in "iub":
        bin_type = np.dtype(np.float64)
    edges = xp.asarray(np.linspace(lo, hi, bins + 1, dtype=bin_type))
    keep = (d >= lo) & (d <= hi)
    a = d[keep].astype(bin_type)
    idx = ((a - bin_type.type(lo)) / bin_type.type(hi - lo) * bins).astype(np.intp)
    idx[idx == bins] -= 1
    idx[a < edges[idx]] -= 1
    idx[(a >= edges[idx + 1]) & (idx != bins - 1)] += 1
    return xp.bincount(idx, weights=None if w is None else w[keep], minlength=bins)

