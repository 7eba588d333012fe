"""OpInfo entries for weft.geometric message passing and segment reductions, with
straightforward numpy-loop references (also used by tests/geometric)."""
import numpy as np

import weft.geometric as G
from tests.opinfo import FLOATS, INTS, ErrorInput, OpInfo, SampleInput, make_arg

F16 = (np.dtype("float16"),)
VALUES = F16 + FLOATS + INTS

# ---------------------------------------------------------------------------------
# numpy-loop references (the spec's semantics, written the obvious way)


def _acc(dtype):
    return np.dtype(np.float32) if np.dtype(dtype) == np.float16 else np.dtype(dtype)


def _tdiv(a, b):
    """Truncating division with 0 for a zero divisor (integers), true division (floats)."""
    if a.dtype.kind not in "iu":
        return a / b
    a, b = np.broadcast_arrays(a, b)
    out = np.zeros(a.shape, a.dtype)
    for i in np.ndindex(a.shape):
        if b[i] != 0:
            q = abs(int(a[i])) // abs(int(b[i]))
            out[i] = -q if (a[i] < 0) != (b[i] < 0) else q
    return out


def _message(a, b, op):
    with np.errstate(all="ignore"):
        if op == "add":
            return a + b
        if op == "sub":
            return a - b
        if op == "mul":
            return a * b
        return _tdiv(a, b)


def ref_reduce(msgs, dst, rows, feat, reduce, dtype):
    """reduce(msgs[e] for dst[e] == r) row by row, in edge order; empty rows are 0."""
    acc = _acc(dtype)
    out = np.zeros((rows,) + tuple(feat), acc)
    for r in range(rows):
        mine = [np.asarray(m, acc) for m, d in zip(msgs, dst) if d == r]
        if not mine:
            continue
        v = mine[0].copy()
        with np.errstate(all="ignore"):
            for m in mine[1:]:
                if reduce in ("sum", "mean"):
                    v = v + m
                elif reduce == "max":
                    v = np.maximum(v, m)
                else:
                    v = np.minimum(v, m)
        if reduce == "mean":
            v = _tdiv(v, np.asarray(len(mine), acc))
        out[r] = v
    return out.astype(dtype)


def _rows_of(out_size, n):
    if out_size is None:
        return n
    out_size = int(np.asarray(out_size).reshape(-1)[0])
    return n if out_size <= 0 else out_size


def ref_send_u_recv(x, src, dst, reduce_op="sum", out_size=None):
    x = np.asarray(x)
    src, dst = np.asarray(src).reshape(-1), np.asarray(dst).reshape(-1)
    rows = _rows_of(out_size, x.shape[0])
    return ref_reduce([x[s] for s in src], dst, rows, x.shape[1:], reduce_op, x.dtype)


def _pad(x, y):
    x = x.reshape(x.shape[0], 1) if x.ndim == 1 else x
    y = y.reshape(y.shape[0], 1) if y.ndim == 1 else y
    rank = max(x.ndim, y.ndim)
    x = x.reshape((x.shape[0],) + (1,) * (rank - x.ndim) + x.shape[1:])
    y = y.reshape((y.shape[0],) + (1,) * (rank - y.ndim) + y.shape[1:])
    return x, y, np.broadcast_shapes(x.shape[1:], y.shape[1:])


def ref_send_ue_recv(x, y, src, dst, message_op="add", reduce_op="sum", out_size=None):
    x, y = np.asarray(x), np.asarray(y)
    src, dst = np.asarray(src).reshape(-1), np.asarray(dst).reshape(-1)
    rows = _rows_of(out_size, x.shape[0])
    x, y, feat = _pad(x, y)
    acc = _acc(x.dtype)
    # a message is computed in the accumulation type and reduced unrounded
    msgs = [np.broadcast_to(_message(x[s].astype(acc), y[e].astype(acc), message_op), feat)
            for e, s in enumerate(src)]
    return ref_reduce(msgs, dst, rows, feat, reduce_op, x.dtype)


def ref_send_uv(x, y, src, dst, message_op="add"):
    x, y = np.asarray(x), np.asarray(y)
    src, dst = np.asarray(src).reshape(-1), np.asarray(dst).reshape(-1)
    x, y, feat = _pad(x, y)
    acc = _acc(x.dtype)
    out = np.zeros((len(src),) + feat, x.dtype)
    for e, (s, d) in enumerate(zip(src, dst)):
        out[e] = _message(x[s].astype(acc), y[d].astype(acc), message_op)
    return out


def ref_segment(data, ids, reduce):
    data, ids = np.asarray(data), np.asarray(ids).reshape(-1)
    rows = int(ids[-1]) + 1 if len(ids) else 0
    return ref_reduce(list(data), ids, rows, data.shape[1:], reduce, data.dtype)


def ref_extreme_grad(x, src, dst, out, g, reduce):
    """The spec's max/min rule: every edge whose message equals the result gets g[dst]."""
    gx = np.zeros_like(x)
    for s, d in zip(src, dst):
        gx[s] += np.where(x[s] == out[d], g[d], 0)
    return gx


# ---------------------------------------------------------------------------------
# sample graphs: N = 5 nodes, node 4 isolated, a self loop, and (multi) repeated edges

_MULTI = (np.array([0, 1, 2, 0, 3, 1, 1, 2]), np.array([1, 2, 1, 0, 3, 0, 0, 5]))
# distinct (src, dst) pairs, for max/min gradient checks (a repeated edge counts twice)
_SIMPLE = (np.array([0, 1, 2, 0, 3, 1, 3]), np.array([1, 2, 1, 0, 3, 0, 5]))


def _graph(kind, itype="int64"):
    s, d = _MULTI if kind == "multi" else _SIMPLE
    return s.astype(itype), d.astype(itype)


def _empty():
    return np.zeros(0, np.int64), np.zeros(0, np.int64)


def _u_recv_samples(reduces, kind):
    def gen(dtype, rng):
        for r in reduces:
            s, d = _graph(kind)
            yield SampleInput(make_arg((5, 3), dtype, rng), s, d, reduce_op=r, out_size=6,
                              name=f"{r} [5,3]")
            s, d = _graph(kind, "int32")
            yield SampleInput(make_arg((5,), dtype, rng), s, d, reduce_op=r, out_size=6,
                              name=f"{r} 1-D int32")
            yield SampleInput(make_arg((6, 2, 3), dtype, rng, noncontig=True), s, d, reduce_op=r,
                              name=f"{r} [6,2,3] noncontig")
            e, f = _empty()
            yield SampleInput(make_arg((3, 2), dtype, rng), e, f, reduce_op=r, out_size=4,
                              name=f"{r} no edges")
        yield SampleInput(make_arg((0, 2), dtype, rng), *_empty(), name="empty x")
    return gen


def _u_recv_errors(rng):
    x = make_arg((3, 2), "float32", rng)
    s, d = np.array([0, 1, 2, 0]), np.array([1, 2, 1, 0])
    yield ErrorInput(SampleInput(x, s, d, reduce_op="prod"), ValueError,
                     r"reduce_op should be `sum`, `mean`, `max` or `min`, but received prod")
    yield ErrorInput(SampleInput(x, s, d[:3]), ValueError, "should have the same shape")
    yield ErrorInput(SampleInput(x, s, np.array([0, 1, 2, 2]), out_size=2), IndexError,
                     r"dst_index\[2\] = 2 is out of range \[0, 2\)")
    yield ErrorInput(SampleInput(x, np.array([0, 3, 1, 1]), d), IndexError,
                     r"src_index\[1\] = 3 is out of range \[0, 3\)")
    yield ErrorInput(SampleInput(x, s.astype("int32"), d), ValueError,
                     "src_index has dtype int32 but dst_index has dtype int64")
    yield ErrorInput(SampleInput(x, s.astype("float32"), d), TypeError, "int32 or int64")
    yield ErrorInput(SampleInput(x.astype(bool), s, d), TypeError, "x has dtype bool")
    yield ErrorInput(SampleInput(x, s, d, out_size=2.5), TypeError, "out_size must be an int")


def _ue_samples(reduces, kind):
    def gen(dtype, rng):
        for r in reduces:
            for m in ("add", "sub", "mul", "div"):
                ez = m == "div"
                s, d = _graph(kind)
                e = len(s)
                yield SampleInput(make_arg((5, 3), dtype, rng), make_arg((e, 3), dtype, rng,
                                                                         exclude_zero=ez),
                                  s, d, message_op=m, reduce_op=r, out_size=6,
                                  name=f"{m}/{r} same")
                yield SampleInput(make_arg((5, 2, 3), dtype, rng),
                                  make_arg((e, 2, 1), dtype, rng, exclude_zero=ez), s, d,
                                  message_op=m, reduce_op=r, out_size=6,
                                  name=f"{m}/{r} y scalar per head")
            s, d = _graph(kind, "int32")
            e = len(s)
            yield SampleInput(make_arg((6, 1), dtype, rng), make_arg((e, 4), dtype, rng),
                              s, d, message_op="mul", reduce_op=r, name=f"mul/{r} x column")
            yield SampleInput(make_arg((6, 2, 3), dtype, rng, noncontig=True),
                              make_arg((e, 3), dtype, rng), s, d, message_op="sub",
                              reduce_op=r, name=f"sub/{r} general broadcast")
            yield SampleInput(make_arg((6,), dtype, rng), make_arg((e,), dtype, rng), s, d,
                              message_op="add", reduce_op=r, name=f"add/{r} 1-D")
            a, b = _empty()
            yield SampleInput(make_arg((3, 2), dtype, rng), make_arg((0, 2), dtype, rng), a, b,
                              reduce_op=r, out_size=4, name=f"{r} no edges")
    return gen


def _ue_errors(rng):
    x = make_arg((10, 3), "float32", rng)
    s, d = np.array([0, 1, 2, 0]), np.array([1, 2, 1, 0])
    yield ErrorInput(SampleInput(x, make_arg((5, 3), "float32", rng), s, d), ValueError,
                     "Expect Input Y to have size 4 as Src_index on the first dimension, but "
                     "we get 5")
    yield ErrorInput(SampleInput(x, make_arg((4, 2), "float32", rng), s, d), ValueError,
                     "cannot be broadcast")
    yield ErrorInput(SampleInput(x, make_arg((4, 3), "float32", rng), s, d, message_op="pow"),
                     ValueError, "message_op should be `add`, `sub`, `mul`, `div`")
    yield ErrorInput(SampleInput(x, make_arg((4, 3), "float64", rng), s, d), ValueError,
                     "x has dtype float32 but y has dtype float64")
    yield ErrorInput(SampleInput(x, make_arg((4, 3), "float32", rng), s, d, reduce_op="any"),
                     ValueError, "reduce_op should be")


def _uv_samples(dtype, rng):
    for m in ("add", "sub", "mul", "div"):
        ez = m == "div"
        s, d = _graph("multi")
        yield SampleInput(make_arg((5, 3), dtype, rng), make_arg((6, 3), dtype, rng,
                                                                 exclude_zero=ez),
                          s, d, message_op=m, name=f"{m} same")
        yield SampleInput(make_arg((5, 1, 4), dtype, rng),
                          make_arg((6, 3, 1), dtype, rng, exclude_zero=ez), s, d, message_op=m,
                          name=f"{m} [1,4] x [3,1]")
    s, d = _graph("multi", "int32")
    yield SampleInput(make_arg((5, 4), dtype, rng), make_arg((6,), dtype, rng), s, d,
                      message_op="mul", name="y 1-D")
    yield SampleInput(make_arg((5, 2, 3), dtype, rng, noncontig=True),
                      make_arg((6, 3), dtype, rng), s, d, message_op="add",
                      name="general broadcast noncontig")
    a, b = _empty()
    yield SampleInput(make_arg((3, 2), dtype, rng), make_arg((3, 2), dtype, rng), a, b,
                      name="no edges")


def _uv_errors(rng):
    x = make_arg((3, 2), "float32", rng)
    s, d = np.array([0, 1]), np.array([1, 2])
    yield ErrorInput(SampleInput(x, make_arg((2, 2), "float32", rng), s, d), IndexError,
                     r"dst_index\[1\] = 2 is out of range \[0, 2\)")
    yield ErrorInput(SampleInput(x, make_arg((3, 3), "float32", rng), s, d), ValueError,
                     "cannot be broadcast")
    yield ErrorInput(SampleInput(x, x, s, d, message_op="max"), ValueError, "message_op should")


def _segment_samples(dtype, rng):
    yield SampleInput(make_arg((6, 3), dtype, rng), np.array([0, 0, 1, 3, 3, 3]),
                      name="gaps")
    yield SampleInput(make_arg((4,), dtype, rng), np.array([1, 1, 2, 2], np.int32),
                      name="1-D, int32, first id 1")
    yield SampleInput(make_arg((5, 2, 2), dtype, rng, noncontig=True), np.array([0, 1, 1, 1, 4]),
                      name="noncontig [5,2,2]")
    yield SampleInput(make_arg((0, 3), dtype, rng), np.zeros(0, np.int64), name="empty")


def _segment_errors(op):
    def gen(rng):
        x = make_arg((3, 2), "float32", rng)
        yield ErrorInput(SampleInput(x, np.array([1, 0, 1])), ValueError,
                         r"The segment ids should be sorted, but got segment_ids\[0\]:1 > "
                         r"segment_ids\[1\]:0")
        yield ErrorInput(SampleInput(x, np.array([0, 0])), ValueError,
                         "Segment_ids should be the same size as dimension 0 of input X")
        yield ErrorInput(SampleInput(x, np.array([0.0, 0.0, 1.0])), ValueError,
                         "Unsupported index type, Expected int, int64")
        yield ErrorInput(SampleInput(x, np.array([-1, 0, 0])), IndexError, "negative")
        yield ErrorInput(SampleInput(x, np.array([0, 0, 1], np.int16)), ValueError,
                         "Unsupported index type")
    return gen


def _seg_entry(reduce):
    fn = getattr(G, f"segment_{reduce}")
    return OpInfo(f"geometric.segment_{reduce}", fn,
                  lambda data, ids: ref_segment(data, ids, reduce), _segment_samples,
                  dtypes=VALUES, error_inputs=_segment_errors(f"segment_{reduce}"))


OPS = [
    OpInfo("geometric.send_u_recv", G.send_u_recv, ref_send_u_recv,
           _u_recv_samples(("sum", "mean"), "multi"), dtypes=VALUES,
           error_inputs=_u_recv_errors),
    # max/min on graphs without repeated edges: the spec's rule gives a repeated edge
    # k * g, which is not the derivative of the function (checked exactly in tests/geometric)
    OpInfo("geometric.send_u_recv_maxmin", G.send_u_recv, ref_send_u_recv,
           _u_recv_samples(("max", "min"), "simple"), dtypes=VALUES),
    OpInfo("geometric.send_ue_recv", G.send_ue_recv, ref_send_ue_recv,
           _ue_samples(("sum", "mean"), "multi"), dtypes=VALUES, error_inputs=_ue_errors),
    OpInfo("geometric.send_ue_recv_maxmin", G.send_ue_recv, ref_send_ue_recv,
           _ue_samples(("max", "min"), "simple"), dtypes=VALUES),
    OpInfo("geometric.send_uv", G.send_uv, ref_send_uv, _uv_samples, dtypes=VALUES,
           error_inputs=_uv_errors),
    _seg_entry("sum"), _seg_entry("mean"), _seg_entry("max"), _seg_entry("min"),
]
