"""OpInfo entries for weft/ops/indexing.py and weft/ops/indexing_scatter.py."""
import numpy as np

import weft
from tests.opinfo import ALL, ErrorInput, OpInfo, SampleInput, make_arg

NUMERIC = tuple(np.dtype(d) for d in ("int32", "int64", "float32", "float64", "complex64",
                                      "complex128"))
REAL = tuple(np.dtype(d) for d in ("int32", "int64", "float32", "float64"))


def _ix(*vals, dtype="int64"):
    return np.array(vals, dtype=dtype)


def _f32(shape, rng):
    return make_arg(shape, "float32", rng)


# ---------------------------------------------------------------------------------
# __getitem__ / __setitem__

def _keys(rng):
    """Keys for a [3, 4, 5] tensor: basic, advanced (with repeats), masks, mixtures."""
    m = rng.random((3, 4, 5)) < 0.5
    return [
        ("int", 1), ("negative int", -1), ("ints", (2, -3)), ("slice", slice(1, 3)),
        ("negative step", (slice(None, None, -1), slice(3, 0, -2))),
        ("None and ...", (None, Ellipsis, 1)), ("0-D result", (0, 1, 2)),
        ("index array repeats", _ix(0, 2, 0, 2)), ("int32 index", _ix(1, -1, dtype="int32")),
        ("two arrays", (_ix(0, 2), slice(None), _ix(4, 4))),
        ("adjacent arrays", (slice(1, None), _ix([0, 1], [3, 3]), _ix(0, 4))),
        ("int and array split", (0, slice(None), _ix(1, 2, 1))),
        ("None splits arrays", (_ix(1, 2), None, _ix(0, 0))),
        ("list index", (Ellipsis, [4, 0, 4])), ("empty index", (slice(None), _ix())),
        ("full mask", m), ("leading mask", np.array([True, False, True])),
        ("inner mask", (slice(None), m[0, :, 0])), ("mask and array", (np.array([True, False, True]), 1, _ix(2, 3))),
    ]


def _getitem_samples(dtype, rng):
    x = make_arg((3, 4, 5), dtype, rng)
    for name, k in _keys(rng):
        yield SampleInput(x, k, name=name)
    yield SampleInput(make_arg((3, 4, 5), dtype, rng, noncontig=True), (1, _ix(0, 3)),
                      name="noncontig")
    yield SampleInput(make_arg((), dtype, rng), (), name="0-D")
    yield SampleInput(make_arg((), dtype, rng), None, name="0-D None")
    yield SampleInput(make_arg((0, 3), dtype, rng), (slice(None), _ix(2, 0)), name="empty")


def _getitem_errors(rng):
    x = _f32((3, 4), rng)
    yield ErrorInput(SampleInput(x, 3), IndexError, r"index 3 is out of range for axis 0 of "
                     r"size 3")
    yield ErrorInput(SampleInput(x, (0, -5)), IndexError, r"index -5 .* axis 1 of size 4")
    yield ErrorInput(SampleInput(x, (slice(None), _ix(0, 4))), IndexError,
                     r"index\[1\] = 4 is out of range for axis 1 of size 4")
    yield ErrorInput(SampleInput(x, _ix(-4)), IndexError, r"= -4 is out of range")
    yield ErrorInput(SampleInput(x, (0, 0, 0)), IndexError, "too many indices")
    yield ErrorInput(SampleInput(x, 1.0), TypeError, "unsupported index")
    yield ErrorInput(SampleInput(x, np.array([0.0, 1.0])), TypeError, "integer or bool")
    yield ErrorInput(SampleInput(x, np.array([True, False])), IndexError, "boolean mask")
    yield ErrorInput(SampleInput(x, (_ix(0, 1), _ix(0, 1, 2))), IndexError, "broadcast")
    yield ErrorInput(SampleInput(x, slice(0, 2, 0)), ValueError, "step cannot be zero")


def _tuple(key):
    # the generic gradcheck harness turns tuple arguments into lists; keys must stay tuples
    return tuple(key) if isinstance(key, list) else key


def _setitem_op(x, key, value):
    key = _tuple(key)
    y = x[...]  # a differentiable copy, so the leaf x itself is not written
    y[key] = value
    return y


def _setitem_ref(x, key, value):
    y = np.array(x)
    y[key] = value
    return y


def _setitem_samples(dtype, rng):
    x = make_arg((3, 4, 5), dtype, rng)
    yield SampleInput(x, 1, make_arg((4, 5), dtype, rng), name="row")
    yield SampleInput(x, (slice(None), slice(None, None, -2)), make_arg((2, 1), dtype, rng),
                      name="broadcast value")
    yield SampleInput(x, (0, 1, 2), make_arg((), dtype, rng), name="0-D value")
    yield SampleInput(x, (_ix(0, 2), slice(1, 3)), make_arg((2, 2, 5), dtype, rng),
                      name="advanced")
    yield SampleInput(x, (slice(None), _ix(1, 3), _ix(0, 4)), make_arg((1, 2), dtype, rng),
                      name="advanced broadcast")
    yield SampleInput(x, x.real > 0 if dtype.kind != "b" else x, make_arg((), dtype, rng),
                      name="mask")
    yield SampleInput(x, Ellipsis, make_arg((1, 1, 5), dtype, rng), name="ellipsis")
    yield SampleInput(make_arg((), dtype, rng), (), make_arg((), dtype, rng), name="0-D")
    yield SampleInput(make_arg((0, 2), dtype, rng), slice(None), make_arg((2,), dtype, rng),
                      name="empty")


def _setitem_errors(rng):
    x = _f32((3, 4), rng)
    yield ErrorInput(SampleInput(x, 5, 1.0), IndexError, "out of range")
    yield ErrorInput(SampleInput(x, 0, _f32((3,), rng)), ValueError, "cannot be broadcast")
    yield ErrorInput(SampleInput(x, 0, 1j), TypeError, "complex")


# ---------------------------------------------------------------------------------
# gather / index_select / index_add


def _take_samples(dtype, rng, zero_d=True):
    yield SampleInput(make_arg((5, 3), dtype, rng), _ix(4, 0, 4, 2), name="repeats")
    yield SampleInput(make_arg((5, 3), dtype, rng), _ix(2, 1, dtype="int32"), axis=1,
                      name="axis=1 int32")
    yield SampleInput(make_arg((2, 3, 4), dtype, rng), _ix(3, 0), axis=-1, name="axis=-1")
    yield SampleInput(make_arg((4,), dtype, rng, noncontig=True), _ix(1, 1, 3), axis=0,
                      name="noncontig")
    yield SampleInput(make_arg((0, 3), dtype, rng), _ix(0, 2), axis=1, name="empty")
    yield SampleInput(make_arg((4, 2), dtype, rng), _ix(), name="empty index")
    yield SampleInput(make_arg((4, 2), dtype, rng), _ix([1], [3]), name="[N, 1] index")
    if zero_d:
        yield SampleInput(make_arg((4, 2), dtype, rng), np.array(2), name="0-D index")


def _take_ref(x, index, axis=0):
    return np.take(x, index.reshape(-1) if index.ndim == 2 else index, axis=0 if axis is None
                   else axis)


def _take_errors(op):
    def gen(rng):
        x = _f32((4, 3), rng)
        yield ErrorInput(SampleInput(x, _ix(0, 4)), IndexError,
                         rf"{op}: index\[1\] = 4 is out of range for axis 0 of size 4")
        yield ErrorInput(SampleInput(x, _ix(-1)), IndexError, r"index\[0\] = -1 .*\[0, 4\)")
        yield ErrorInput(SampleInput(x, np.array([0.0])), TypeError, "integer tensor")
        yield ErrorInput(SampleInput(x, np.array([True])), TypeError, "got bool")
        yield ErrorInput(SampleInput(x, _ix([0, 1], [1, 2])), ValueError, "1-D")
        yield ErrorInput(SampleInput(x, _ix(0), axis=2), ValueError, "axis")
    return gen


def _index_add_samples(dtype, rng):
    yield SampleInput(make_arg((4, 3), dtype, rng), _ix(0, 3, 0), 0,
                      make_arg((3, 3), dtype, rng), name="repeats")
    yield SampleInput(make_arg((2, 5), dtype, rng), _ix(4, 1, dtype="int32"), 1,
                      make_arg((2, 2), dtype, rng), name="axis=1")
    yield SampleInput(make_arg((2, 3, 4), dtype, rng, noncontig=True), _ix(2, 2), -2,
                      make_arg((2, 2, 4), dtype, rng, noncontig=True), name="noncontig")
    yield SampleInput(make_arg((3, 0), dtype, rng), _ix(1), 0, make_arg((1, 0), dtype, rng),
                      name="empty")


def _index_add_ref(x, index, axis, value):
    out = x.copy()
    np.add.at(out, (slice(None),) * (axis % x.ndim) + (index,), value)
    return out


def _index_add_errors(rng):
    x = _f32((4, 3), rng)
    yield ErrorInput(SampleInput(x, _ix(0, 5), 0, _f32((2, 3), rng)), IndexError,
                     r"index\[1\] = 5 is out of range for axis 0 of size 4")
    yield ErrorInput(SampleInput(x, _ix(0, 1), 0, _f32((3, 3), rng)), ValueError,
                     r"value must have shape \[2, 3\]")
    yield ErrorInput(SampleInput(x, np.array([0.5]), 0, _f32((1, 3), rng)), TypeError,
                     "integer")


# ---------------------------------------------------------------------------------
# scatter / gather_nd / scatter_nd


def _scatter_ref(x, index, updates, overwrite=True):
    out = x.copy()
    if index.ndim == 0:
        index, updates = index.reshape(1), updates[None]
    if overwrite:
        for i, r in enumerate(index):
            out[r] = updates[i]
    else:
        out[index] = 0
        np.add.at(out, index, updates)
    return out


def _scatter_samples(dtype, rng):
    for ow in (True, False):
        yield SampleInput(make_arg((4, 3), dtype, rng), _ix(1, 3, 1),
                          make_arg((3, 3), dtype, rng), overwrite=ow, name=f"repeats ow={ow}")
    yield SampleInput(make_arg((5,), dtype, rng), _ix(4, 0, dtype="int32"),
                      make_arg((2,), dtype, rng, noncontig=True), name="1-D int32")
    yield SampleInput(make_arg((3, 2), dtype, rng), np.array(1), make_arg((2,), dtype, rng),
                      name="0-D index")
    yield SampleInput(make_arg((3, 2), dtype, rng), _ix(), make_arg((0, 2), dtype, rng),
                      overwrite=False, name="empty")


def _scatter_errors(rng):
    x = _f32((4, 3), rng)
    yield ErrorInput(SampleInput(x, _ix(4), _f32((1, 3), rng)), IndexError,
                     r"scatter: index\[0\] = 4 is out of range for axis 0 of size 4")
    yield ErrorInput(SampleInput(x, _ix(-1), _f32((1, 3), rng)), IndexError, "out of range")
    yield ErrorInput(SampleInput(x, _ix(0, 1), _f32((1, 3), rng)), ValueError, "updates")


def _gather_nd_ref(x, index):
    k = index.shape[-1]
    return x[tuple(np.moveaxis(index, -1, 0))] if k else \
        np.broadcast_to(x, index.shape[:-1] + x.shape).copy()


def _gather_nd_samples(dtype, rng):
    x = make_arg((3, 4, 2), dtype, rng)
    yield SampleInput(x, _ix([2, 1], [0, 3], [2, 1]), name="k=2 repeats")
    yield SampleInput(x, _ix([[1], [0]], [[2], [2]], dtype="int32"), name="k=1 batched")
    yield SampleInput(x, _ix([0, 1, 1]), name="k=ndim")
    yield SampleInput(x, np.zeros((2, 0), np.int64), name="k=0")
    yield SampleInput(make_arg((3, 4), dtype, rng, noncontig=True), np.zeros((0, 2), np.int64),
                      name="empty index")


def _nd_errors(op, with_x=True):
    def gen(rng):
        x = _f32((3, 4), rng)
        head = (x,) if with_x else ()
        bad = _ix([0, 4])
        upd = _f32((1,), rng)
        tail = (upd,) if op != "gather_nd" else ()
        if not with_x:
            yield ErrorInput(SampleInput(bad, upd, [3, 4]), IndexError,
                             r"index\[0, 1\] = 4 is out of range for axis 1 of size 4")
            yield ErrorInput(SampleInput(_ix([0, 1]), _f32((2,), rng), [3, 4]), ValueError,
                             "updates must have shape")
            return
        yield ErrorInput(SampleInput(*head, bad, *tail), IndexError,
                         rf"{op}: index\[0, 1\] = 4 is out of range for axis 1 of size 4")
        yield ErrorInput(SampleInput(*head, _ix([0, 0, 0]), *tail), ValueError, "exceeds")
        yield ErrorInput(SampleInput(*head, np.array([[0.0]]), *tail), TypeError, "integer")
    return gen


def _nd_add_ref(x, index, updates):
    out = x.copy()
    k = index.shape[-1]
    flat = out.reshape((-1,) + x.shape[k:])
    lin = np.ravel_multi_index(tuple(np.moveaxis(index, -1, 0)), x.shape[:k]) if k else \
        np.zeros(index.shape[:-1], np.int64)
    np.add.at(flat, lin.reshape(-1), updates.reshape((-1,) + x.shape[k:]))
    return flat.reshape(x.shape)


def _nd_add_samples(dtype, rng):
    yield SampleInput(make_arg((3, 4), dtype, rng), _ix([1, 2], [1, 2], [0, 3]),
                      make_arg((3,), dtype, rng), name="k=2 repeats")
    yield SampleInput(make_arg((3, 4), dtype, rng), _ix([[2]], [[0]], dtype="int32"),
                      make_arg((2, 1, 4), dtype, rng), name="k=1 slices")
    yield SampleInput(make_arg((2, 2), dtype, rng, noncontig=True), np.zeros((3, 0), np.int64),
                      make_arg((3, 2, 2), dtype, rng), name="k=0")


def _scatter_nd_samples(dtype, rng):
    for s in _nd_add_samples(dtype, rng):
        yield SampleInput(s.args[0], s.args[1], list(s.input.shape), name=s.name)
    yield SampleInput(_ix([0], [0]), make_arg((2, 3), dtype, rng), [2, 3], name="repeats rows")


# ---------------------------------------------------------------------------------
# index_put / index_fill


def _index_put_ref(x, indices, value, accumulate=False):
    out = x.copy()
    if accumulate:
        np.add.at(out, tuple(indices), value)
    else:
        out[tuple(indices)] = value
    return out


def _index_put_samples(dtype, rng):
    x = make_arg((3, 4), dtype, rng)
    for acc in (False, True):
        yield SampleInput(x, (_ix(0, 2, 0), _ix(1, 1, 1)), make_arg((3,), dtype, rng),
                          accumulate=acc, name=f"repeats acc={acc}")
        yield SampleInput(x, (_ix(-1, 1),), make_arg((4,), dtype, rng), accumulate=acc,
                          name=f"rows broadcast acc={acc}")
        yield SampleInput(x, (x.real > 0 if dtype.kind != "b" else x,), make_arg((), dtype, rng),
                          accumulate=acc, name=f"mask acc={acc}")
    yield SampleInput(make_arg((2, 3, 2), dtype, rng, noncontig=True),
                      (_ix([0], [1]), _ix(2, 0, dtype="int32")), make_arg((2, 2, 2), dtype, rng),
                      accumulate=True, name="broadcast indices")


def _index_put_errors(rng):
    x = _f32((3, 4), rng)
    yield ErrorInput(SampleInput(x, (_ix(3),), _f32((4,), rng)), IndexError, "out of range")
    yield ErrorInput(SampleInput(x, _ix(1), _f32((4,), rng)), TypeError, "tuple or list")
    yield ErrorInput(SampleInput(x, (np.array([1.0]),), _f32((4,), rng)), TypeError,
                     "integer or bool")
    yield ErrorInput(SampleInput(x, (_ix(1),), _f32((3,), rng)), ValueError, "broadcast")


def _index_fill_ref(x, index, axis, value):
    out = x.copy()
    out[(slice(None),) * (axis % x.ndim) + (index,)] = value
    return out


def _index_fill_samples(dtype, rng):
    yield SampleInput(make_arg((3, 4), dtype, rng), _ix(0, 2, 0), 1, 2, name="scalar repeats")
    yield SampleInput(make_arg((3, 4), dtype, rng), _ix(-1, dtype="int32"), 0,
                      make_arg((), dtype, rng), name="0-D tensor value")
    yield SampleInput(make_arg((2, 3), dtype, rng, noncontig=True), _ix(), -1, 1,
                      name="empty index")


def _index_fill_errors(rng):
    x = _f32((3, 4), rng)
    yield ErrorInput(SampleInput(x, _ix(4), 1, 0.0), IndexError,
                     r"index\[0\] = 4 is out of range for axis 1 of size 4")
    yield ErrorInput(SampleInput(x, _ix(0), 0, _f32((4,), rng)), ValueError, "0-D")
    yield ErrorInput(SampleInput(x, _ix(0), 2, 0.0), ValueError, "axis")


# ---------------------------------------------------------------------------------
# take_along_axis / put_along_axis


def _tal_samples(dtype, rng):
    yield SampleInput(make_arg((3, 4), dtype, rng), _ix([0, 3, 3], [1, -1, 0], [2, 2, 2]), 1,
                      name="repeats, negative")
    yield SampleInput(make_arg((3, 4), dtype, rng), _ix([2, 0, 1, 1]), 0, name="broadcast index")
    yield SampleInput(make_arg((3, 4), dtype, rng), _ix([2], [0]), 0, name="broadcast rows")
    yield SampleInput(make_arg((3, 1), dtype, rng), np.array([[0, -1]] * 3), 1,
                      name="more indices than the axis")
    yield SampleInput(make_arg((2, 3, 4), dtype, rng, noncontig=True),
                      rng.integers(0, 3, (2, 2, 4)).astype("int32"), 1, name="noncontig int32")
    yield SampleInput(make_arg((2, 0), dtype, rng), np.zeros((2, 0), np.int64), 0, name="empty")


def _pal_ref(arr, indices, values, axis, reduce="assign", include_self=True, broadcast=True):
    axis %= arr.ndim
    idx = np.broadcast_to(indices, tuple(arr.shape[:axis]) + (indices.shape[axis],) +
                          tuple(arr.shape[axis + 1:])) if broadcast else indices
    vals = np.broadcast_to(np.asarray(values, dtype=arr.dtype), idx.shape)
    out = arr.copy()
    touched = {}
    for p in np.ndindex(*idx.shape):
        t = list(p)
        t[axis] = idx[p] % arr.shape[axis]
        touched.setdefault(tuple(t), []).append(vals[p])
    for t, vs in touched.items():
        own = [arr[t]] if include_self else []
        if reduce == "assign":
            out[t] = vs[-1]
        elif reduce == "add":
            out[t] = sum(own + vs)
        elif reduce == "mean":
            out[t] = np.asarray(sum(own + vs) / len(own + vs)).astype(arr.dtype) \
                if arr.dtype.kind in "fc" else int(sum(own + vs) / len(own + vs))
        elif reduce in ("mul", "multiply"):
            out[t] = np.prod(own + vs)
        elif reduce == "amax":
            out[t] = max(own + vs)
        elif reduce == "amin":
            out[t] = min(own + vs)
    return out


def _pal_samples(reduce):
    def gen(dtype, rng):
        for inc in (True, False):
            yield SampleInput(make_arg((3, 4), dtype, rng), _ix([0, 3, 3], [1, -1, 0], [2, 2, 2]),
                              make_arg((3, 3), dtype, rng), 1, reduce=reduce, include_self=inc,
                              name=f"repeats include_self={inc}")
        yield SampleInput(make_arg((3, 4), dtype, rng), _ix([2, 0, 1, 1]), 2, 0, reduce=reduce,
                          name="broadcast index, scalar value")
        yield SampleInput(make_arg((2, 3, 4), dtype, rng, noncontig=True),
                          np.array([[[1], [2]]]), make_arg((1, 2, 4), dtype, rng), 2,
                          reduce=reduce, broadcast=False, name="no broadcast")
        yield SampleInput(make_arg((2, 0), dtype, rng), np.zeros((2, 0), np.int64),
                          make_arg((2, 0), dtype, rng), 0, reduce=reduce, name="empty")
    return gen


def _pal_ref_nb(arr, indices, values, axis, reduce="assign", include_self=True, broadcast=True):
    if not broadcast:  # entries of indices index [0, len) in every other dimension
        out = arr.copy()
        sub = tuple(slice(0, s) for s in indices.shape[:axis % arr.ndim]) + (slice(None),) + \
            tuple(slice(0, s) for s in indices.shape[axis % arr.ndim + 1:])
        out[sub] = _pal_ref(arr[sub], indices, values[tuple(slice(0, s) for s in indices.shape)]
                            if np.ndim(values) else values, axis, reduce, include_self, True)
        return out
    return _pal_ref(arr, indices, values, axis, reduce, include_self, broadcast)


def _along_errors(op):
    def gen(rng):
        x = _f32((3, 4), rng)
        extra = (_f32((3, 1), rng),) if op == "put_along_axis" else ()
        yield ErrorInput(SampleInput(x, _ix([4], [0], [1]), *extra, 1), IndexError,
                         rf"{op}: indices\[0, 0\] = 4 is out of range for axis 1 of size 4")
        yield ErrorInput(SampleInput(x, _ix([-5], [0], [1]), *extra, 1), IndexError,
                         r"\[-4, 4\)")
        yield ErrorInput(SampleInput(x, _ix(0, 1), *extra, 1), ValueError, "same number of "
                         "dimensions")
        yield ErrorInput(SampleInput(x, np.array([[0.0]]), *extra, 1), TypeError, "integer")
    return gen


# ---------------------------------------------------------------------------------
# masked ops, nonzero


def _mask_of(x, rng):
    return rng.random(x.shape) < 0.5


def _masked_select_ref(x, mask):
    xb, mb = np.broadcast_arrays(x, mask)
    return xb[mb] if xb.ndim else xb.reshape(1)[mb.reshape(1)]


def _masked_samples(dtype, rng, value=False, scatter=False):
    def v(n):
        if scatter:
            return make_arg((n,), dtype, rng)
        return make_arg((), dtype, rng)
    x = make_arg((3, 4), dtype, rng)
    m = _mask_of(x, rng)
    extra = lambda n: (v(n),) if value else ()  # noqa: E731
    yield SampleInput(x, m, *extra(12), name="same shape")
    yield SampleInput(x, m[0], *extra(12), name="broadcast mask")
    yield SampleInput(make_arg((3, 1), dtype, rng), m, *extra(13), name="broadcast x")
    yield SampleInput(make_arg((3, 4), dtype, rng, noncontig=True), m, *extra(14),
                      name="noncontig")
    yield SampleInput(make_arg((), dtype, rng), np.array(True), *extra(1), name="0-D")
    yield SampleInput(make_arg((0, 4), dtype, rng), np.ones(4, bool), *extra(0), name="empty")


def _masked_fill_samples(dtype, rng):
    yield from _masked_samples(dtype, rng, value=True)
    x = make_arg((2, 3), dtype, rng)
    yield SampleInput(x, _mask_of(x, rng), 2, name="python scalar")


def _masked_scatter_ref(x, mask, value):
    xb, mb = np.broadcast_arrays(x, mask)
    out = xb.copy()
    out[mb] = value.reshape(-1)[:int(mb.sum())]
    return out


def _mask_errors(op, value=None):
    def gen(rng):
        x = _f32((3, 4), rng)
        extra = () if value is None else (value,)
        yield ErrorInput(SampleInput(x, np.ones((3, 4), np.int64), *extra), TypeError,
                         "mask must be a bool tensor")
        yield ErrorInput(SampleInput(x, np.ones((2, 4), bool), *extra), ValueError,
                         "broadcast")
    return gen


def _nonzero_samples(dtype, rng):
    for shape in ((5,), (3, 4), (2, 2, 3), (), (0, 3)):
        x = make_arg(shape, dtype, rng, -1, 2)
        for ast in (False, True):
            yield SampleInput(x, as_tuple=ast, name=f"{list(shape)} as_tuple={ast}")


def _nonzero_ref(x, as_tuple=False):
    c = np.argwhere(x).astype(np.int64) if x.ndim else np.zeros((int(x != 0), 0), np.int64)
    return tuple(c[:, i:i + 1] for i in range(x.ndim)) if as_tuple else c


# ---------------------------------------------------------------------------------

OPS = [
    OpInfo("getitem", lambda x, key: x[_tuple(key)], lambda x, key: np.asarray(x[key]),
           _getitem_samples, dtypes=ALL, method="__getitem__", error_inputs=_getitem_errors),
    OpInfo("setitem", _setitem_op, _setitem_ref, _setitem_samples, dtypes=ALL,
           error_inputs=_setitem_errors),
    OpInfo("gather", weft.gather, _take_ref, _take_samples, dtypes=ALL, method="gather",
           error_inputs=_take_errors("gather")),
    OpInfo("index_select", weft.index_select, _take_ref,
           lambda d, r: _take_samples(d, r, zero_d=False), dtypes=ALL, method="index_select",
           error_inputs=_take_errors("index_select")),
    OpInfo("index_add", weft.index_add, _index_add_ref, _index_add_samples, dtypes=NUMERIC,
           method="index_add", error_inputs=_index_add_errors),
    OpInfo("scatter", weft.scatter, _scatter_ref, _scatter_samples, dtypes=NUMERIC,
           method="scatter", error_inputs=_scatter_errors),
    OpInfo("gather_nd", weft.gather_nd, _gather_nd_ref, _gather_nd_samples, dtypes=ALL,
           method="gather_nd", error_inputs=_nd_errors("gather_nd")),
    OpInfo("scatter_nd_add", weft.scatter_nd_add, _nd_add_ref, _nd_add_samples, dtypes=NUMERIC,
           method="scatter_nd_add", error_inputs=_nd_errors("scatter_nd_add")),
    OpInfo("scatter_nd", weft.scatter_nd,
           lambda index, updates, shape: _nd_add_ref(np.zeros(shape, updates.dtype), index,
                                                     updates),
           _scatter_nd_samples, dtypes=NUMERIC, error_inputs=_nd_errors("scatter_nd", False)),
    OpInfo("index_put", weft.index_put, _index_put_ref, _index_put_samples, dtypes=NUMERIC,
           method="index_put", error_inputs=_index_put_errors),
    OpInfo("index_fill", weft.index_fill, _index_fill_ref, _index_fill_samples, dtypes=NUMERIC,
           method="index_fill", error_inputs=_index_fill_errors),
    OpInfo("take_along_axis", weft.take_along_axis,
           lambda a, i, axis: np.take_along_axis(a, i, axis), _tal_samples, dtypes=ALL,
           method="take_along_axis", error_inputs=_along_errors("take_along_axis")),
    *[OpInfo(f"put_along_axis_{r}", weft.put_along_axis, _pal_ref_nb, _pal_samples(r),
             dtypes=NUMERIC if r in ("assign", "add", "mean") else REAL,
             method="put_along_axis", supports_grad=r in ("assign", "add", "mean"),
             error_inputs=_along_errors("put_along_axis") if r == "assign" else None)
      for r in ("assign", "add", "mean", "mul", "amax", "amin")],
    OpInfo("masked_select", weft.masked_select, _masked_select_ref, _masked_samples,
           dtypes=ALL, method="masked_select", error_inputs=_mask_errors("masked_select")),
    OpInfo("masked_fill", weft.masked_fill,
           lambda x, m, v: np.where(m, v, x).astype(x.dtype), _masked_fill_samples,
           dtypes=NUMERIC, method="masked_fill", error_inputs=_mask_errors("masked_fill", 1.0)),
    OpInfo("masked_scatter", weft.masked_scatter, _masked_scatter_ref,
           lambda d, r: _masked_samples(d, r, value=True, scatter=True), dtypes=NUMERIC,
           method="masked_scatter",
           error_inputs=_mask_errors("masked_scatter", np.zeros(12, np.float32))),
    OpInfo("nonzero", weft.nonzero, _nonzero_ref, _nonzero_samples, dtypes=ALL,
           method="nonzero", supports_grad=False),
]
