"""OpInfo entries for weft/ops/reduction.py, reduction_extra.py and reduction_stats.py."""
import warnings

import numpy as np
import scipy.special as sps

import weft
from tests.opinfo import (ALL, ALL_NUMERIC, COMPLEX, FLOAT_AND_COMPLEX, FLOATS, INTS,
                          ErrorInput, OpInfo, SampleInput)
from tests.opinfo import make_arg as _make_arg
from tests.opinfo import reduction_samples as _reduction_samples

F32 = np.dtype("float32")
I64 = np.dtype("int64")


def make_arg(*args, **kwargs):
    # opinfo.make_arg gives numpy scalars (not 0-D arrays) for 0-D complex and bool
    return np.asarray(_make_arg(*args, **kwargs))


def reduction_samples(*args, **kwargs):
    def gen(dtype, rng):
        for s in _reduction_samples(*args, **kwargs)(dtype, rng):
            s.input = np.asarray(s.input)
            yield s
    return gen


def _ax(axis):
    if isinstance(axis, list):
        return tuple(axis) if axis else None
    return axis


def _np_reduce(fn, **fixed):
    """numpy reduction with Paddle's argument names (axis list, keepdim)."""
    def ref(x, axis=None, keepdim=False, **kw):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # numpy's empty and all-NaN slice warnings
            return np.asarray(fn(x, axis=_ax(axis), keepdims=keepdim, **fixed, **kw))
    return ref


def _with_nans(samples, frac=0.3, grad=True):
    """The samples of ``samples`` with some NaNs put in (float dtypes only). With
    ``grad=False`` (ops whose all-NaN slices give NaN) the NaN samples are not
    differentiated and the clean samples are yielded too, for the gradient checks."""
    def gen(dtype, rng):
        for s in samples(dtype, rng):
            a = s.input
            if a.dtype.kind in "fc" and a.size:
                if not grad:
                    yield s
                a = a.copy()
                a[rng.random(a.shape) < frac] = np.nan
            yield SampleInput(a, *s.args, name=s.name + " nan", **s.kwargs,
                              grad_args=s.grad_args if grad else ())
    return gen


def _reduce_errors(op, empty_ok=True, complex_ok=True):
    def gen(rng):
        x = make_arg((3, 4), "float32", rng)
        yield ErrorInput(SampleInput(x, axis=2), ValueError, f"{op}: axis 2 is out of range")
        yield ErrorInput(SampleInput(x, axis=[0, 0]), ValueError, "repeated")
        yield ErrorInput(SampleInput(x, axis=1.5), TypeError, "axis must be an int")
        if op not in ("sum", "mean"):  # reduction.py's sum/mean take any truthy keepdim
            yield ErrorInput(SampleInput(x, keepdim="yes"), TypeError, "keepdim")
        if not empty_ok:
            yield ErrorInput(SampleInput(make_arg((0, 3), "float32", rng), axis=0), ValueError,
                             f"{op}: cannot reduce an empty tensor")
        if not complex_ok:
            yield ErrorInput(SampleInput(make_arg((3,), "complex64", rng)), TypeError,
                             "complex")
    return gen


def _sum_samples(dtype, rng, empty_list_axis=False):
    yield from reduction_samples()(dtype, rng)
    yield SampleInput(make_arg((0, 3), dtype, rng), name="empty all")
    yield SampleInput(make_arg((0, 3), dtype, rng), axis=0, name="empty axis")
    if empty_list_axis:  # Paddle: axis=[] reduces all axes
        yield SampleInput(make_arg((2, 3), dtype, rng), axis=[], name="axis=[] is all")
    if dtype.kind in "biu":
        yield SampleInput(make_arg((2, 3), dtype, rng), axis=1, dtype="float64",
                          name="dtype")


def _prod_samples(dtype, rng):
    lo, hi = (0.5, 1.5) if dtype.kind in "fc" else (-2, 3)
    yield from reduction_samples(lo, hi)(dtype, rng)
    a = make_arg((3, 4), dtype, rng, lo, hi)
    a[1, 2] = 0
    a[2, 0] = a[2, 3] = 0
    yield SampleInput(a, axis=1, name="zeros (one and two per row)")
    yield SampleInput(a, name="zeros all")
    yield SampleInput(a.copy(), axis=[0, 1], keepdim=True, name="zeros keepdim")
    yield SampleInput(make_arg((0, 3), dtype, rng), axis=0, name="empty")


def _prod_ref(x, axis=None, keepdim=False):
    return np.asarray(np.prod(x, axis=_ax(axis), keepdims=keepdim,
                              dtype=x.dtype if x.dtype != np.bool_ else np.int64))


def _distinct_samples(dtype, rng):
    """Reduction samples with distinct values (no ties), plus 0-D and non-contiguous."""
    yield from reduction_samples()(dtype, rng)
    if dtype.kind == "f":
        a = make_arg((3, 4), dtype, rng)
        a[0, 1] = np.nan
        yield SampleInput(a, axis=1, name="nan propagates", grad_args=())
        t = np.array([[1.0, 2.0, 2.0], [0.5, 0.5, 0.1]], dtype=dtype)
        yield SampleInput(t, axis=1, name="ties", grad_args=())


def _arg_samples(dtype, rng):
    a = make_arg((3, 4, 5), dtype, rng)
    yield SampleInput(a, name="flattened")
    yield SampleInput(a, axis=1, name="axis=1")
    yield SampleInput(a, axis=-1, keepdim=True, name="keepdim")
    yield SampleInput(a, keepdim=True, name="flattened keepdim")
    yield SampleInput(a, axis=0, dtype="int32", name="int32")
    yield SampleInput(make_arg((), dtype, rng), axis=0, name="0-D")


def _arg_ref(fn):
    def ref(x, axis=None, keepdim=False, dtype="int64"):
        if axis is None:
            r = fn(x.reshape(-1))
            return np.asarray(r).astype(dtype).reshape((1,) * x.ndim if keepdim else ())
        if x.ndim == 0:
            return np.asarray(0, dtype=dtype)
        return np.asarray(fn(x, axis=axis, keepdims=keepdim)).astype(dtype)
    return ref


def _arg_errors(op):
    def gen(rng):
        yield ErrorInput(SampleInput(make_arg((0,), "float32", rng)), ValueError, f"{op}: .*empty")
        yield ErrorInput(SampleInput(make_arg((2, 0), "float32", rng), axis=1), ValueError,
                         "empty")
        yield ErrorInput(SampleInput(make_arg((3,), "float32", rng), dtype="float32"),
                         TypeError, "int32 or int64")
        yield ErrorInput(SampleInput(make_arg((3,), "float32", rng), axis=3), ValueError,
                         "out of range")
    return gen


def _logical_samples(dtype, rng):
    yield from reduction_samples()(dtype, rng)
    yield SampleInput(np.zeros((0, 2), dtype=dtype), name="empty")
    yield SampleInput(np.zeros((0, 2), dtype=dtype), axis=1, name="empty axis")


def _var_samples(dtype, rng):
    a = make_arg((3, 4, 5), dtype, rng)
    yield SampleInput(a, name="all")
    yield SampleInput(a, axis=1, name="axis=1")
    yield SampleInput(a, axis=-1, keepdim=True, unbiased=False, name="biased keepdim")
    yield SampleInput(a, axis=[0, 2], name="axis=[0,2]")
    yield SampleInput(make_arg((), dtype, rng), unbiased=False, name="0-D")
    yield SampleInput(make_arg((6,), dtype, rng, noncontig=True), axis=0, name="noncontig")
    yield SampleInput(make_arg((0, 3), dtype, rng), axis=0, name="empty", grad_args=())


def _var_ref(fn):
    def ref(x, axis=None, unbiased=True, keepdim=False):
        n = x.size if axis is None else np.prod([x.shape[a] for a in np.atleast_1d(axis)])
        if n == 0:
            shape = np.sum(np.zeros(x.shape), axis=_ax(axis), keepdims=keepdim).shape
            return np.full(shape, np.nan, dtype=x.real.dtype)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return np.asarray(fn(x, axis=_ax(axis), ddof=int(unbiased), keepdims=keepdim))
    return ref


def _median_samples(dtype, rng):
    a = make_arg((3, 4, 5), dtype, rng, -10, 10)
    yield SampleInput(a, name="all (even count)")
    yield SampleInput(a, axis=1, name="axis=1 (even)")
    yield SampleInput(a, axis=-1, keepdim=True, name="axis=-1 (odd) keepdim")
    yield SampleInput(a, axis=[0, 2], name="axis=[0,2]")
    yield SampleInput(make_arg((), dtype, rng), name="0-D")
    yield SampleInput(make_arg((0, 3), dtype, rng), axis=0, name="empty")
    yield SampleInput(make_arg((7,), dtype, rng, noncontig=True), axis=0, name="noncontig")
    if dtype.kind == "f":
        b = make_arg((3, 5), dtype, rng)
        b[0, 1] = b[2, 0] = b[2, 4] = np.nan
        b[1, :] = np.nan
        yield SampleInput(b, axis=1, name="nan rows", grad_args=())


def _median_ref(x, axis=None, keepdim=False):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = np.median(x, axis=_ax(axis), keepdims=keepdim)
    return np.asarray(r, dtype=x.dtype if x.dtype.kind == "f" else F32)


def _nanmedian_ref(x, axis=None, keepdim=False):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = np.nanmedian(x, axis=_ax(axis), keepdims=keepdim)
    return np.asarray(r, dtype=x.dtype if x.dtype.kind == "f" else F32)


def _lower_median_ref(skip_nan):
    """mode='min': the lower middle order statistic (NaN rows: the NaN) and its index."""
    def ref(x, axis=None, keepdim=False):
        a = np.moveaxis(x, axis, -1) if x.ndim else x.reshape(1)
        order = np.argsort(a, axis=-1, kind="stable")
        s = np.take_along_axis(a, order, -1)
        nn = np.isnan(a).sum(-1) if a.dtype.kind == "f" else np.zeros(a.shape[:-1], int)
        valid = a.shape[-1] - nn
        k = np.maximum((valid - 1) // 2, 0)
        if not skip_nan:
            k = np.where(nn > 0, valid, k)
        v = np.take_along_axis(s, k[..., None], -1)[..., 0]
        i = np.take_along_axis(order, k[..., None], -1)[..., 0]
        if keepdim and x.ndim:
            v, i = np.expand_dims(v, axis), np.expand_dims(i, axis)
        if x.ndim == 0:
            v, i = v.reshape(()), i.reshape(())
        return np.asarray(v, dtype=x.dtype), np.asarray(i, dtype=I64)
    return ref


def _median_min_samples(dtype, rng):
    # distinct values: which of tied elements is selected is unspecified
    a = (rng.permutation(60).reshape(3, 4, 5) - 30).astype(dtype)
    yield SampleInput(a, axis=1, name="even")
    yield SampleInput(a, axis=-1, keepdim=True, name="odd keepdim")
    yield SampleInput(make_arg((), dtype, rng), axis=0, name="0-D")
    if dtype.kind == "f":
        b = make_arg((3, 4), dtype, rng)
        b[0, 1] = np.nan
        yield SampleInput(b, axis=1, name="nan", grad_args=())


def _median_errors(op):
    def gen(rng):
        x = make_arg((3, 4), "float32", rng)
        yield ErrorInput(SampleInput(x, mode="max"), ValueError, f"{op}: mode must be")
        yield ErrorInput(SampleInput(x, axis=2), ValueError, "out of range")
        yield ErrorInput(SampleInput(make_arg((3,), "complex64", rng)), TypeError, "complex")
        yield ErrorInput(SampleInput(make_arg((0, 2), "float32", rng), axis=0, mode="min"),
                         ValueError, "empty")
    return gen


def _quantile_samples(dtype, rng):
    a = make_arg((3, 6, 5), dtype, rng)
    yield SampleInput(a, 0.3, name="scalar q, all")
    yield SampleInput(a, [0.1, 0.5, 0.85], axis=1, name="list q")
    yield SampleInput(a, 0.7, axis=-1, keepdim=True, name="keepdim")
    yield SampleInput(a, [0.2, 1.0], axis=[0, 2], name="axis list")
    for m in ("lower", "higher", "nearest", "midpoint"):
        # q * (n - 1) = 1.75: no exact half, where numpy's 'nearest' (half to even)
        # and Paddle's (half away from zero) differ
        yield SampleInput(a, 0.35, axis=1, interpolation=m, name=m)
    yield SampleInput(make_arg((), dtype, rng), 0.5, name="0-D")
    yield SampleInput(make_arg((0, 3), dtype, rng), 0.5, axis=0, name="empty")
    b = make_arg((3, 5), dtype, rng)
    b[0, 1] = b[2, 0] = np.nan
    b[1, :] = np.nan
    yield SampleInput(b, [0.25, 0.6], axis=1, name="nan rows", grad_args=())


def _quantile_ref(fn):
    def ref(x, q, axis=None, keepdim=False, interpolation="linear"):
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            if x.size == 0:
                out = np.sum(np.zeros(x.shape), axis=_ax(axis), keepdims=keepdim).shape
                r = np.full(np.shape(q) + out, np.nan)
            else:
                r = fn(x, q, axis=_ax(axis), keepdims=keepdim, method=interpolation)
        return np.asarray(r, dtype=x.dtype)
    return ref


def _quantile_errors(op):
    def gen(rng):
        x = make_arg((3, 4), "float32", rng)
        yield ErrorInput(SampleInput(x, 1.5), ValueError, f"{op}: q must be in \\[0, 1\\]")
        yield ErrorInput(SampleInput(x, []), ValueError, "q must not be empty")
        yield ErrorInput(SampleInput(x, "a"), TypeError, "q must be")
        yield ErrorInput(SampleInput(x, 0.5, interpolation="cubic"), ValueError,
                         "interpolation must be")
    return gen


def _mode_samples(dtype, rng):
    a = make_arg((3, 4, 6), dtype, rng)
    yield SampleInput(a, name="distinct, last axis")
    yield SampleInput(a, axis=1, keepdim=True, name="axis=1 keepdim")
    yield SampleInput(make_arg((), dtype, rng), name="0-D")
    r = rng.integers(0, 3, size=(4, 7)).astype(dtype)
    yield SampleInput(r, axis=1, name="repeats", grad_args=())
    yield SampleInput(r, axis=0, name="repeats axis 0", grad_args=())


def _mode_ref(x, axis=-1, keepdim=False):
    if x.ndim == 0:
        return x.copy(), np.asarray(0, dtype=I64)
    a = np.moveaxis(x, axis, -1)
    vals = np.empty(a.shape[:-1], dtype=x.dtype)
    idx = np.empty(a.shape[:-1], dtype=I64)
    for k in np.ndindex(a.shape[:-1]):
        row = list(a[k])
        best = min(set(row), key=lambda v: (-row.count(v), v))
        vals[k] = best
        idx[k] = max(i for i, v in enumerate(row) if v == best)
    if keepdim:
        vals, idx = np.expand_dims(vals, axis), np.expand_dims(idx, axis)
    return vals, idx


def _scan_samples(axis_kw="axis", zeros=False, lo=-3.0, hi=3.0):
    def gen(dtype, rng):
        a = make_arg((3, 4), dtype, rng, lo, hi)
        yield SampleInput(a, name="flattened")
        yield SampleInput(a, **{axis_kw: 0}, name="axis=0")
        yield SampleInput(a, **{axis_kw: -1}, name="axis=-1")
        yield SampleInput(make_arg((), dtype, rng, lo, hi), name="0-D")
        yield SampleInput(make_arg((), dtype, rng, lo, hi), **{axis_kw: 0}, name="0-D axis")
        yield SampleInput(make_arg((0, 3), dtype, rng), **{axis_kw: 1}, name="empty")
        yield SampleInput(make_arg((2, 5), dtype, rng, lo, hi, noncontig=True), **{axis_kw: 1},
                          name="noncontig")
        if zeros:
            z = make_arg((3, 5), dtype, rng, lo, hi)
            z[0, 2] = 0
            z[1, 1] = z[1, 3] = 0
            z[2, 0] = 0
            yield SampleInput(z, **{axis_kw: 1}, name="zeros")
            yield SampleInput(z.copy(), **{axis_kw: 0}, name="zeros axis 0")
    return gen


def _scan_ref(fn, axis_kw="axis", keep_int=True):
    def ref(x, dtype=None, **kw):
        axis = kw.get(axis_kw)
        if dtype is not None:
            x = x.astype(dtype)
        elif x.dtype == np.bool_:
            x = x.astype(I64)
        dt = x.dtype if (keep_int and x.dtype.kind in "iu") else None
        r = fn(x.reshape(-1) if axis is None else x, axis=0 if axis is None else axis,
               **({"dtype": dt} if dt is not None else {}))
        return np.asarray(r).reshape(x.shape) if x.ndim == 0 else np.asarray(r)
    return ref


def _scan_errors(op, axis_kw="axis"):
    def gen(rng):
        x = make_arg((3, 4), "float32", rng)
        yield ErrorInput(SampleInput(x, **{axis_kw: 2}), ValueError,
                         f"{op}: {axis_kw} 2 is out of range")
        yield ErrorInput(SampleInput(x, **{axis_kw: [0]}), TypeError, "must be an int")
    return gen


def _cum_extreme_ref(greater):
    def ref(x, axis=None, dtype="int64"):
        a = x.reshape(-1) if axis is None or x.ndim == 0 else x
        ax = 0 if axis is None or x.ndim == 0 else axis
        m = np.moveaxis(a, ax, -1)
        v = np.empty_like(m)
        i = np.empty(m.shape, dtype=dtype)
        for k in np.ndindex(m.shape[:-1]):
            best, at = None, 0
            for j, e in enumerate(m[k]):
                if best is None or np.isnan(e) or (not np.isnan(best) and
                                                   (e >= best if greater else e <= best)):
                    best, at = e, j
                v[k + (j,)], i[k + (j,)] = best, at
        v, i = np.moveaxis(v, -1, ax), np.moveaxis(i, -1, ax)
        if x.ndim == 0:
            v, i = v.reshape(()), i.reshape(())
        return v, i
    return ref


def _lcse_samples(dtype, rng):
    yield from _scan_samples()(dtype, rng)
    big = make_arg((2, 6), dtype, rng)
    big[:, 0] = -300.0 if dtype == np.float64 else -40.0
    big[:, 3] = 200.0 if dtype == np.float64 else 30.0
    yield SampleInput(big, axis=1, name="wide range (recurrence path)")
    yield SampleInput(np.array([1000.0, 1000.5, 999.0], dtype=dtype), name="large")


def _lcse_ref(x, axis=None, dtype=None):
    if dtype is not None:
        x = x.astype(dtype)
    a = x.reshape(-1) if axis is None or x.ndim == 0 else x
    r = np.logaddexp.accumulate(a, axis=0 if axis is None or x.ndim == 0 else axis)
    return r.reshape(x.shape) if x.ndim == 0 else r


def _count_ref(x, axis=None, keepdim=False):
    return np.asarray(np.count_nonzero(x, axis=_ax(axis), keepdims=keepdim), dtype=I64)


# ---- norms ------------------------------------------------------------------------

_INF = float("inf")


def _norm_ref(x, p=None, axis=None, keepdim=False):
    if isinstance(axis, list) and len(axis) == 2:
        r = np.linalg.norm(x, ord=p, axis=tuple(axis), keepdims=keepdim)
    else:
        q = 2 if p in (None, "fro") else p
        if axis is None:
            r = np.linalg.norm(x.reshape(-1), ord=q)
            if keepdim:
                r = np.reshape(r, (1,) * x.ndim)
        else:
            a = axis[0] if isinstance(axis, list) else axis
            r = np.linalg.norm(x, ord=q, axis=a, keepdims=keepdim)
    return np.asarray(r, dtype=x.real.dtype)


def _norm_samples(dtype, rng):
    a = make_arg((3, 4), dtype, rng, 0.2, 2.0) * np.where(rng.random((3, 4)) < 0.5, -1, 1
                                                           ).astype(dtype)
    v = make_arg((2, 3, 4), dtype, rng, 0.2, 2.0)
    for p in (None, 2, 1, 3, 0.5, -1.5, _INF, -_INF, 0):
        yield SampleInput(a, p=p, name=f"p={p} flattened")
    yield SampleInput(v, p=2, axis=1, name="p=2 axis=1")
    yield SampleInput(v, p=3.5, axis=-1, keepdim=True, name="p=3.5 keepdim")
    yield SampleInput(v, p=_INF, axis=[2], name="inf axis=[2]")
    yield SampleInput(v, p="fro", axis=[0, 2], name="fro two axes")
    yield SampleInput(v, axis=[2, 1], keepdim=True, name="default two axes keepdim")
    for p in (1, -1, _INF, -_INF):
        yield SampleInput(v, p=p, axis=[1, 2], name=f"matrix p={p}")
    yield SampleInput(v, p=1, axis=[2, 0], keepdim=True, name="matrix p=1 swapped axes")
    yield SampleInput(make_arg((), dtype, rng, 0.5, 1.0), name="0-D")
    yield SampleInput(make_arg((0, 3), dtype, rng), name="empty")
    yield SampleInput(make_arg((4,), dtype, rng, 0.5, 1.0, noncontig=True), p=2, axis=0,
                      name="noncontig")


def _norm_svd_samples(dtype, rng):
    a = make_arg((2, 3, 4), dtype, rng)
    for p in ("nuc", 2, -2):
        yield SampleInput(a, p=p, axis=[1, 2], name=f"p={p}")
    yield SampleInput(a, p="nuc", axis=[2, 0], keepdim=True, name="nuc swapped keepdim")
    yield SampleInput(make_arg((3, 3), dtype, rng), p="nuc", name="nuc 2-D axis None")


def _norm_svd_ref(x, p=None, axis=None, keepdim=False):
    return _norm_ref(x, p, [0, 1] if axis is None else axis, keepdim)


def _norm_errors(rng):
    x = make_arg((3, 4), "float32", rng)
    yield ErrorInput(SampleInput(x, p="abc"), ValueError, "norm: p must be")
    yield ErrorInput(SampleInput(x, p=[1]), TypeError, "norm: p must be a number")
    yield ErrorInput(SampleInput(x, p=0, axis=[0, 1]), ValueError, "not supported for a matrix")
    yield ErrorInput(SampleInput(x, p="nuc", axis=1), ValueError, "nuc")
    yield ErrorInput(SampleInput(x, axis=[0, 0]), ValueError, "must differ")
    yield ErrorInput(SampleInput(x, axis=[0, 1, 1]), ValueError, "list of two")
    yield ErrorInput(SampleInput(x, axis=3), ValueError, "out of range")


def _dist_samples(dtype, rng):
    def pair(s1, s2):
        return make_arg(s1, dtype, rng, 0.2, 2.0), make_arg(s2, dtype, rng, -2.0, -0.2)
    for p in (2, 1, 0, 3, _INF, -_INF, 0.5):
        yield SampleInput(*pair((3, 4), (3, 4)), p=p, name=f"p={p}")
    yield SampleInput(*pair((3, 1), (1, 4)), name="broadcast")
    yield SampleInput(*pair((), ()), name="0-D")
    yield SampleInput(*pair((0, 4), (4,)), name="empty")


def _dist_ref(x, y, p=2):
    return np.asarray(np.linalg.norm((x - y).reshape(-1), ord=p), dtype=x.real.dtype)


def _dist_errors(rng):
    yield ErrorInput(SampleInput(make_arg((3,), "float32", rng), make_arg((4,), "float32", rng)),
                     ValueError, "dist: x of shape \\[3\\] and y of shape \\[4\\]")
    yield ErrorInput(SampleInput(make_arg((3,), "float32", rng), make_arg((3,), "float32", rng),
                                 p="fro"), ValueError, "dist: p must be a number")


def _trace_samples(dtype, rng):
    yield SampleInput(make_arg((3, 4), dtype, rng), name="2-D")
    yield SampleInput(make_arg((3, 4), dtype, rng), offset=1, name="offset 1")
    yield SampleInput(make_arg((4, 3), dtype, rng), offset=-2, name="offset -2")
    yield SampleInput(make_arg((2, 3, 4), dtype, rng), axis1=2, axis2=0, name="batched")
    yield SampleInput(make_arg((2, 3, 4), dtype, rng), offset=1, axis1=-1, axis2=1,
                      name="negative axes")
    yield SampleInput(make_arg((3, 3), dtype, rng), offset=5, name="offset past the end")
    yield SampleInput(make_arg((0, 3), dtype, rng), name="empty")
    yield SampleInput(make_arg((3, 3), dtype, rng, noncontig=True), name="noncontig")


def _trace_ref(x, offset=0, axis1=0, axis2=1):
    return np.asarray(np.trace(x, offset, axis1, axis2,
                               dtype=np.int64 if x.dtype == np.bool_ else x.dtype))


def _trace_errors(rng):
    yield ErrorInput(SampleInput(make_arg((3,), "float32", rng)), ValueError,
                     "trace: x must be at least 2-D")
    yield ErrorInput(SampleInput(make_arg((3, 3), "float32", rng), axis1=1, axis2=-1),
                     ValueError, "axis1 and axis2 must differ")
    yield ErrorInput(SampleInput(make_arg((3, 3), "float32", rng), axis2=2), ValueError,
                     "trace: axis2 2 is out of range")
    yield ErrorInput(SampleInput(make_arg((3, 3), "float32", rng), offset=0.5), TypeError,
                     "offset must be an int")


def _diff_samples(dtype, rng):
    a = make_arg((3, 5), dtype, rng)
    yield SampleInput(a, name="default")
    yield SampleInput(a, 2, 0, name="n=2 axis 0")
    yield SampleInput(a, n=3, axis=-1, name="n=3")
    yield SampleInput(a, prepend=make_arg((3, 2), dtype, rng),
                      append=make_arg((3, 1), dtype, rng), name="prepend+append")
    yield SampleInput(a, axis=0, append=make_arg((1, 5), dtype, rng), name="append axis 0")
    yield SampleInput(make_arg((4,), dtype, rng), n=6, name="n > length")
    yield SampleInput(make_arg((0, 3), dtype, rng), axis=0, name="empty")
    yield SampleInput(make_arg((2, 5), dtype, rng, noncontig=True), name="noncontig")
    yield SampleInput(a, n=0, name="n=0")


def _diff_errors(rng):
    x = make_arg((3, 4), "float32", rng)
    yield ErrorInput(SampleInput(x, n=-1), ValueError, "diff: n must be non-negative")
    yield ErrorInput(SampleInput(x, n=1.5), TypeError, "n must be an int")
    yield ErrorInput(SampleInput(make_arg((), "float32", rng)), ValueError, "at least 1-D")
    yield ErrorInput(SampleInput(x, prepend=make_arg((2, 1), "float32", rng)), ValueError,
                     "prepend of shape \\[2, 1\\] must match")


def _hist_samples(dtype, rng):
    a = make_arg((4, 5), dtype, rng, -5, 5)
    yield SampleInput(a, name="defaults (data range)")
    yield SampleInput(a, bins=7, min=-2, max=3, name="explicit range")
    yield SampleInput(a, 4, 1, 1, name="min == max: data range")
    yield SampleInput(np.full((3,), 2, dtype=dtype), bins=4, name="single value")
    yield SampleInput(make_arg((0,), dtype, rng), bins=3, name="empty")


def _hist_ref(x, bins=100, min=0, max=0):
    lo, hi = float(min), float(max)
    if lo == hi and x.size:
        lo, hi = float(x.min()), float(x.max())
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    return np.histogram(x, bins=bins, range=(lo, hi))[0].astype(I64)


def _hist_errors(rng):
    x = make_arg((5,), "float32", rng)
    yield ErrorInput(SampleInput(x, bins=0), ValueError, "histogram: bins must be positive")
    yield ErrorInput(SampleInput(x, bins=2.5), TypeError, "bins must be an int")
    yield ErrorInput(SampleInput(x, min=3, max=1), ValueError, "max must be larger")
    yield ErrorInput(SampleInput(make_arg((3,), "complex64", rng)), TypeError, "histogram")
    yield ErrorInput(SampleInput(np.array([1.0, np.nan], np.float32)), ValueError, "not finite")


def _bincount_samples(dtype, rng):
    x = rng.integers(0, 6, size=(9,)).astype(np.int64)
    yield SampleInput(x, name="counts")
    yield SampleInput(x.astype(np.int32), minlength=10, name="int32 minlength")
    yield SampleInput(x, make_arg((9,), dtype, rng), name="weights")
    yield SampleInput(x, make_arg((9,), dtype, rng), minlength=8, name="weights minlength")
    yield SampleInput(np.zeros((0,), np.int64), name="empty")


def _bincount_ref(x, weights=None, minlength=0):
    r = np.bincount(x, weights, minlength)
    return r.astype(I64 if weights is None else weights.dtype)


def _bincount_errors(rng):
    yield ErrorInput(SampleInput(np.array([1, -2, 3])), ValueError,
                     "bincount: x must be non-negative, got x\\[1\\] = -2")
    yield ErrorInput(SampleInput(np.array([1.0, 2.0])), TypeError, "integer tensor")
    yield ErrorInput(SampleInput(np.array([[1, 2]])), ValueError, "1-D")
    yield ErrorInput(SampleInput(np.array([1, 2]), np.array([1.0])), ValueError,
                     "weights has shape")
    yield ErrorInput(SampleInput(np.array([1, 2]), minlength=-1), ValueError, "minlength")


OPS = [
    OpInfo("sum", weft.sum, _np_reduce(np.sum), _sum_samples, dtypes=ALL, method="sum",
           error_inputs=_reduce_errors("sum")),
    OpInfo("mean", weft.mean, _np_reduce(np.mean), lambda d, r: reduction_samples()(d, r),
           dtypes=FLOAT_AND_COMPLEX, method="mean", error_inputs=_reduce_errors("mean")),
    OpInfo("nansum", weft.nansum, _np_reduce(np.nansum),
           _with_nans(lambda d, r: _sum_samples(d, r, True), grad=False),
           dtypes=INTS + FLOAT_AND_COMPLEX, method="nansum",
           error_inputs=_reduce_errors("nansum")),
    OpInfo("nanmean", weft.nanmean, _np_reduce(np.nanmean),
           _with_nans(lambda d, r: reduction_samples()(d, r), grad=False),
           dtypes=FLOAT_AND_COMPLEX, method="nanmean", error_inputs=_reduce_errors("nanmean")),
    OpInfo("prod", weft.prod, _prod_ref, _prod_samples, dtypes=INTS + FLOAT_AND_COMPLEX,
           method="prod", error_inputs=_reduce_errors("prod")),
    OpInfo("max", weft.max, _np_reduce(np.max), _distinct_samples, dtypes=INTS + FLOATS,
           method="max", error_inputs=_reduce_errors("max", empty_ok=False, complex_ok=False)),
    OpInfo("min", weft.min, _np_reduce(np.min), _distinct_samples, dtypes=INTS + FLOATS,
           method="min", error_inputs=_reduce_errors("min", empty_ok=False, complex_ok=False)),
    OpInfo("amax", weft.amax, _np_reduce(np.max), _distinct_samples, dtypes=INTS + FLOATS,
           method="amax", error_inputs=_reduce_errors("amax", empty_ok=False)),
    OpInfo("amin", weft.amin, _np_reduce(np.min), _distinct_samples, dtypes=INTS + FLOATS,
           method="amin", error_inputs=_reduce_errors("amin", empty_ok=False)),
    OpInfo("argmax", weft.argmax, _arg_ref(np.argmax), _arg_samples, dtypes=INTS + FLOATS,
           method="argmax", supports_grad=False, error_inputs=_arg_errors("argmax")),
    OpInfo("argmin", weft.argmin, _arg_ref(np.argmin), _arg_samples, dtypes=INTS + FLOATS,
           method="argmin", supports_grad=False, error_inputs=_arg_errors("argmin")),
    OpInfo("all", weft.all, _np_reduce(np.all), _logical_samples, dtypes=ALL, method="all",
           supports_grad=False, error_inputs=_reduce_errors("all")),
    OpInfo("any", weft.any, _np_reduce(np.any), _logical_samples, dtypes=ALL, method="any",
           supports_grad=False, error_inputs=_reduce_errors("any")),
    OpInfo("count_nonzero", weft.count_nonzero, _count_ref, _logical_samples, dtypes=ALL,
           method="count_nonzero", supports_grad=False,
           error_inputs=_reduce_errors("count_nonzero")),
    OpInfo("logsumexp", weft.logsumexp, _np_reduce(sps.logsumexp),
           lambda d, r: reduction_samples(-20.0, 20.0)(d, r), dtypes=FLOATS,
           method="logsumexp", error_inputs=_reduce_errors("logsumexp", complex_ok=False)),
    OpInfo("var", weft.var, _var_ref(np.var), _var_samples, dtypes=FLOAT_AND_COMPLEX,
           method="var", error_inputs=_reduce_errors("var")),
    OpInfo("std", weft.std, _var_ref(np.std), _var_samples, dtypes=FLOAT_AND_COMPLEX,
           method="std", error_inputs=_reduce_errors("std")),
    OpInfo("median", weft.median, _median_ref, _median_samples, dtypes=INTS + FLOATS,
           method="median", out_dtype=lambda d: d if d.kind == "f" else F32,
           error_inputs=_median_errors("median")),
    OpInfo("nanmedian", weft.nanmedian, _nanmedian_ref,
           _with_nans(_median_samples, 0.2, grad=False),
           dtypes=INTS + FLOATS, method="nanmedian",
           out_dtype=lambda d: d if d.kind == "f" else F32,
           error_inputs=_median_errors("nanmedian")),
    OpInfo("median_min", lambda x, **kw: weft.median(x, mode="min", **kw),
           _lower_median_ref(False), _median_min_samples, dtypes=INTS + FLOATS),
    OpInfo("nanmedian_min", lambda x, **kw: weft.nanmedian(x, mode="min", **kw),
           _lower_median_ref(True), _with_nans(_median_min_samples, 0.2, grad=False),
           dtypes=INTS + FLOATS),
    OpInfo("quantile", weft.quantile, _quantile_ref(np.quantile), _quantile_samples,
           dtypes=FLOATS, method="quantile", error_inputs=_quantile_errors("quantile")),
    OpInfo("nanquantile", weft.nanquantile, _quantile_ref(np.nanquantile),
           _with_nans(_quantile_samples, 0.2, grad=False), dtypes=FLOATS, method="nanquantile",
           error_inputs=_quantile_errors("nanquantile")),
    OpInfo("mode", weft.mode, _mode_ref, _mode_samples, dtypes=INTS + FLOATS, method="mode"),
    OpInfo("cumsum", weft.cumsum, _scan_ref(np.cumsum), _scan_samples(),
           dtypes=ALL, method="cumsum", error_inputs=_scan_errors("cumsum")),
    OpInfo("cumprod", weft.cumprod, _scan_ref(np.cumprod, "dim"),
           _scan_samples("dim", zeros=True, lo=0.5, hi=2.0), dtypes=ALL_NUMERIC + COMPLEX,
           method="cumprod", error_inputs=_scan_errors("cumprod", "dim")),
    OpInfo("cummax", weft.cummax, _cum_extreme_ref(True), _scan_samples(),
           dtypes=INTS + FLOATS, method="cummax", error_inputs=_scan_errors("cummax")),
    OpInfo("cummin", weft.cummin, _cum_extreme_ref(False), _scan_samples(),
           dtypes=INTS + FLOATS, method="cummin", error_inputs=_scan_errors("cummin")),
    OpInfo("logcumsumexp", weft.logcumsumexp, _lcse_ref, _lcse_samples, dtypes=FLOATS,
           method="logcumsumexp", error_inputs=_scan_errors("logcumsumexp")),
    OpInfo("norm", weft.norm, _norm_ref, _norm_samples, dtypes=FLOAT_AND_COMPLEX,
           method="norm", error_inputs=_norm_errors),
    OpInfo("norm_svd", weft.norm, _norm_svd_ref, _norm_svd_samples, dtypes=FLOAT_AND_COMPLEX,
           supports_gradgrad=False,
           skips={"gradgrad": "nuc/2/-2 norms differentiate once (SVD factor is constant)"}),
    OpInfo("dist", weft.dist, _dist_ref, _dist_samples, dtypes=FLOAT_AND_COMPLEX,
           method="dist", error_inputs=_dist_errors),
    OpInfo("trace", weft.trace, _trace_ref, _trace_samples, dtypes=ALL, method="trace",
           error_inputs=_trace_errors),
    OpInfo("diff", weft.diff, lambda x, n=1, axis=-1, **kw: np.diff(x, n, axis, **kw),
           _diff_samples, dtypes=ALL, method="diff", error_inputs=_diff_errors),
    OpInfo("histogram", weft.histogram, _hist_ref, _hist_samples, dtypes=INTS + FLOATS,
           method="histogram", supports_grad=False, error_inputs=_hist_errors),
    OpInfo("bincount", weft.bincount, _bincount_ref, _bincount_samples, dtypes=FLOATS,
           method="bincount", error_inputs=_bincount_errors),
]
