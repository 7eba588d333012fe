"""OpInfo entries for weft/ops/sorting.py (sort, argsort, topk, kthvalue, unique,
unique_consecutive, searchsorted, bucketize)."""
import numpy as np

import weft
from tests.opinfo import ALL_NUMERIC, ErrorInput, OpInfo, SampleInput, make_arg

# ---------------------------------------------------------------------------------
# references: stable sorts, NaN largest (never present in these samples)


def _np_order(x, axis, descending):
    if not descending:
        return np.argsort(x, axis=axis, kind="stable")
    # negation is an independent route to a stable descending order (no NaN, no int minima)
    return np.argsort(-x.astype(np.float64), axis=axis, kind="stable")


def _ref_sort(x, axis=-1, descending=False, stable=False):
    if x.ndim == 0:
        return x.copy()
    return np.take_along_axis(x, _np_order(x, axis, descending), axis)


def _ref_argsort(x, axis=-1, descending=False, stable=False):
    if x.ndim == 0:
        return np.zeros((), np.int64)
    return _np_order(x, axis, descending).astype(np.int64)


def _ref_topk(x, k, axis=None, largest=True, sorted=True):
    axis = -1 if axis is None else axis
    x1 = x.reshape(1) if x.ndim == 0 else x
    idx = np.take(_np_order(x1, axis, largest), np.arange(k), axis=axis).astype(np.int64)
    vals = np.take_along_axis(x1, idx, axis)
    if x.ndim == 0 and k == 1:
        return vals.reshape(()), idx.reshape(())
    return vals, idx


def _ref_kthvalue(x, k, axis=None, keepdim=False):
    axis = -1 if axis is None else axis
    if x.ndim == 0:
        return x.copy(), np.zeros((), np.int64)
    idx = np.take(_np_order(x, axis, False), [k - 1], axis=axis).astype(np.int64)
    vals = np.take_along_axis(x, idx, axis)
    if not keepdim:
        vals, idx = np.squeeze(vals, axis), np.squeeze(idx, axis)
    return vals, idx


def _sort_samples(dtype, rng):
    yield SampleInput(make_arg((6,), dtype, rng), name="1-D")
    yield SampleInput(make_arg((3, 4), dtype, rng), axis=0, name="axis=0")
    yield SampleInput(make_arg((3, 4), dtype, rng), descending=True, name="descending")
    yield SampleInput(make_arg((2, 3, 4), dtype, rng), axis=1, descending=True, stable=True,
                      name="3-D axis=1")
    yield SampleInput(make_arg((), dtype, rng), name="0-D")
    yield SampleInput(make_arg((0, 3), dtype, rng), name="empty")
    yield SampleInput(make_arg((3, 5), dtype, rng, noncontig=True), name="noncontig")


def _topk_samples(dtype, rng):
    yield SampleInput(make_arg((6,), dtype, rng), 3, name="1-D")
    yield SampleInput(make_arg((3, 5), dtype, rng), 2, axis=0, name="axis=0")
    yield SampleInput(make_arg((3, 5), dtype, rng), 4, largest=False, name="smallest")
    yield SampleInput(make_arg((2, 3, 4), dtype, rng), 1, axis=1, name="k=1")
    yield SampleInput(make_arg((4,), dtype, rng), 0, name="k=0")
    yield SampleInput(make_arg((), dtype, rng), 1, name="0-D")
    yield SampleInput(make_arg((0, 3), dtype, rng), 2, name="empty")
    yield SampleInput(make_arg((3, 5), dtype, rng, noncontig=True), 5, name="noncontig k=n")


def _kth_samples(dtype, rng):
    yield SampleInput(make_arg((6,), dtype, rng), 3, name="1-D")
    yield SampleInput(make_arg((3, 5), dtype, rng), 1, axis=0, name="axis=0 k=1")
    yield SampleInput(make_arg((3, 5), dtype, rng), 5, keepdim=True, name="k=n keepdim")
    yield SampleInput(make_arg((2, 3, 4), dtype, rng), 2, axis=-2, name="3-D")
    yield SampleInput(make_arg((), dtype, rng), 1, name="0-D")
    yield SampleInput(make_arg((0, 3), dtype, rng), 2, name="empty batch")
    yield SampleInput(make_arg((3, 5), dtype, rng, noncontig=True), 2, name="noncontig")


def _sort_errors(op):
    def gen(rng):
        x = make_arg((3, 4), "float32", rng)
        yield ErrorInput(SampleInput(x, axis=2), ValueError, f"{op}: axis 2 is out of range")
        yield ErrorInput(SampleInput(x, axis=1.5), TypeError, "axis must be an int")
        yield ErrorInput(SampleInput(make_arg((3,), "complex64", rng)), TypeError,
                         "must be a real")
    return gen


def _k_errors(op, low):
    def gen(rng):
        x = make_arg((3, 4), "float32", rng)
        yield ErrorInput(SampleInput(x, 5), ValueError, f"{op}: k = 5 is out of range")
        yield ErrorInput(SampleInput(x, low - 1), ValueError, "out of range")
        yield ErrorInput(SampleInput(x, 2.0), TypeError, "k must be an int")
        yield ErrorInput(SampleInput(x, 1, axis=-3), ValueError, "axis -3 is out of range")
    return gen


# ---------------------------------------------------------------------------------
# unique / unique_consecutive


def _dups(shape, dtype, rng):
    """Values from a small set, so that duplicates and runs are frequent."""
    return rng.integers(-2, 3, size=shape).astype(dtype)


def _unique_all(x, **kw):
    return weft.unique(x, return_index=True, return_inverse=True, return_counts=True, **kw)


def _ref_unique(x, axis=None):
    out, idx, inv, cnt = np.unique(x, return_index=True, return_inverse=True,
                                   return_counts=True, axis=axis)
    return out, idx.astype(np.int64), inv.reshape(-1).astype(np.int64), cnt.astype(np.int64)


def _unique_samples(dtype, rng):
    yield SampleInput(_dups((10,), dtype, rng), name="1-D")
    yield SampleInput(_dups((3, 4), dtype, rng), name="2-D flattened")
    yield SampleInput(_dups((5, 2), dtype, rng), axis=0, name="rows")
    yield SampleInput(_dups((2, 6), dtype, rng), axis=1, name="columns")
    yield SampleInput(_dups((), dtype, rng), name="0-D")
    yield SampleInput(_dups((0,), dtype, rng), name="empty")


def _unique_consecutive_all(x, **kw):
    return weft.unique_consecutive(x, return_inverse=True, return_counts=True, **kw)


def _ref_unique_consecutive(x, axis=None):
    a = x.reshape(-1) if axis is None else np.moveaxis(x, axis, 0)
    keep, inv, counts = [], [], []
    for i in range(a.shape[0]):
        if i == 0 or not np.array_equal(a[i], a[i - 1]):
            keep.append(i)
            counts.append(0)
        counts[-1] += 1
        inv.append(len(keep) - 1)
    out = np.take(a, np.array(keep, dtype=np.int64), axis=0)
    if axis is not None:
        out = np.moveaxis(out, 0, axis)
    return out, np.array(inv, dtype=np.int64), np.array(counts, dtype=np.int64)


def _unique_consecutive_samples(dtype, rng):
    yield SampleInput(np.array([1, 1, 2, 2, 2, 0, 1, 1]).astype(dtype), name="runs")
    yield SampleInput(_dups((3, 4), dtype, rng), name="2-D flattened")
    yield SampleInput(np.array([[1, 2], [1, 2], [0, 2], [1, 2]]).astype(dtype), axis=0,
                      name="rows")
    yield SampleInput(np.array([[1, 1, 2], [0, 0, 0]]).astype(dtype), axis=-1, name="columns")
    yield SampleInput(_dups((), dtype, rng), name="0-D")
    yield SampleInput(_dups((0,), dtype, rng), name="empty")


def _unique_errors(op):
    def gen(rng):
        x = _dups((4,), "int64", rng)
        yield ErrorInput(SampleInput(x, dtype="float32"), TypeError, f"{op}: dtype must be int32")
        yield ErrorInput(SampleInput(x, axis=1), ValueError, "axis 1 is out of range")
        yield ErrorInput(SampleInput(np.array(1), axis=0), ValueError, "0-D")
    return gen


# ---------------------------------------------------------------------------------
# searchsorted / bucketize


def _ref_searchsorted(seq, values, out_int32=False, right=False):
    side = "right" if right else "left"
    if seq.ndim == 1:
        r = np.searchsorted(seq, values, side=side)
    else:
        s2 = seq.reshape(-1, seq.shape[-1])
        v2 = values.reshape(s2.shape[0], -1)
        r = np.array([np.searchsorted(a, b, side=side) for a, b in zip(s2, v2)])
        r = r.reshape(values.shape)
    return np.asarray(r, dtype=np.int32 if out_int32 else np.int64)


def _sorted(shape, dtype, rng):
    return np.sort(make_arg(shape, dtype, rng, -5, 5), axis=-1)


def _search_samples(dtype, rng):
    seq = _sorted((6,), dtype, rng)
    yield SampleInput(seq, make_arg((3, 4), dtype, rng, -6, 6), name="1-D sequence")
    yield SampleInput(seq, seq[[0, 2, 5]].copy(), right=True, name="hits, right")
    yield SampleInput(seq, seq[[1, 3]].copy(), name="hits, left")
    yield SampleInput(_sorted((2, 3, 5), dtype, rng), make_arg((2, 3, 4), dtype, rng, -6, 6),
                      out_int32=True, name="batched, int32")
    yield SampleInput(seq, make_arg((), dtype, rng, -6, 6), name="0-D values")
    yield SampleInput(seq, make_arg((0,), dtype, rng), name="empty values")
    yield SampleInput(_sorted((0,), dtype, rng), make_arg((3,), dtype, rng), name="empty seq")


def _bucketize_samples(dtype, rng):
    seq = _sorted((5,), dtype, rng)
    yield SampleInput(make_arg((3, 4), dtype, rng, -6, 6), seq, name="2-D")
    yield SampleInput(seq[[4, 0, 2]].copy(), seq, right=True, name="hits, right")
    yield SampleInput(make_arg((), dtype, rng, -6, 6), seq, out_int32=True, name="0-D int32")
    yield SampleInput(make_arg((0, 2), dtype, rng), seq, name="empty")


def _ref_bucketize(x, seq, out_int32=False, right=False):
    return _ref_searchsorted(seq, x, out_int32, right)


def _search_errors(rng):
    s = _sorted((2, 5), "float32", rng)
    yield ErrorInput(SampleInput(s, make_arg((3, 4), "float32", rng)), ValueError,
                     "searchsorted: an N-D sorted_sequence needs values with the same leading")
    yield ErrorInput(SampleInput(np.array(1.0), np.array([1.0])), ValueError, "at least 1-D")
    yield ErrorInput(SampleInput(s[0].astype(np.complex64), np.array([1.0])), TypeError,
                     "real tensor")


def _bucketize_errors(rng):
    yield ErrorInput(SampleInput(make_arg((3,), "float32", rng), _sorted((2, 5), "float32", rng)),
                     ValueError, "bucketize: sorted_sequence must be 1-D")


OPS = [
    OpInfo("sort", weft.sort, _ref_sort, _sort_samples, dtypes=ALL_NUMERIC, method="sort",
           error_inputs=_sort_errors("sort")),
    OpInfo("argsort", weft.argsort, _ref_argsort, _sort_samples, dtypes=ALL_NUMERIC,
           method="argsort", supports_grad=False, error_inputs=_sort_errors("argsort")),
    OpInfo("topk", weft.topk, _ref_topk, _topk_samples, dtypes=ALL_NUMERIC, method="topk",
           error_inputs=_k_errors("topk", 0)),
    OpInfo("kthvalue", weft.kthvalue, _ref_kthvalue, _kth_samples, dtypes=ALL_NUMERIC,
           method="kthvalue", error_inputs=_k_errors("kthvalue", 1)),
    OpInfo("unique", _unique_all, _ref_unique, _unique_samples, dtypes=ALL_NUMERIC,
           supports_grad=False, error_inputs=_unique_errors("unique")),
    OpInfo("unique_consecutive", _unique_consecutive_all, _ref_unique_consecutive,
           _unique_consecutive_samples, dtypes=ALL_NUMERIC, supports_grad=False,
           error_inputs=_unique_errors("unique_consecutive")),
    OpInfo("searchsorted", weft.searchsorted, _ref_searchsorted, _search_samples,
           dtypes=ALL_NUMERIC, supports_grad=False, error_inputs=_search_errors),
    OpInfo("bucketize", weft.bucketize, _ref_bucketize, _bucketize_samples,
           dtypes=ALL_NUMERIC, method="bucketize", supports_grad=False,
           error_inputs=_bucketize_errors),
]
