"""Array-level forwards of :mod:`weft.geometric` message passing and segment ops.

numpy arrays go to the native kernels of ``csrc/graph/message_passing.cpp``
(fused gather-reduce over a CSR view of the edges, deterministic, float16 and
bfloat16 accumulated in float32). Other arrays (CuPy) take the array-code path
below, written against the API numpy and CuPy share plus ``cupyx.scatter_*``:
it materialises the E x F messages and uses atomic scatters on the GPU, so it
is neither memory-lean nor bit-reproducible there. Callers validate shapes and
dtypes; the native side checks index bounds before touching memory, the array
path checks them here.
"""
from __future__ import annotations

import numpy as np

from .._native import extension as _extension

from ..core import dtype as _dt
from ..core.scatter import add_at, max_at, min_at

# tests set this to run numpy arrays through the array-code (CuPy) path
force_array_path = False

def _C():
    return _extension


def native(a):
    return type(a) is np.ndarray and not force_array_path


def _prod(shape):
    p = 1
    for s in shape:
        p *= int(s)
    return p


def _flat(a):
    """[n, *F] as a C-contiguous [n, prod(F)] array the kernels take; bfloat16 as its bits."""
    a = np.ascontiguousarray(a).reshape(a.shape[0], _prod(a.shape[1:]))
    if _dt.bfloat16 is not None and a.dtype == _dt.bfloat16:
        a = a.view(np.uint16)
    return a


def _index(i):
    return None if i is None else np.ascontiguousarray(i)


def _back(out, dtype, shape):
    if out.dtype != dtype:
        out = out.view(dtype)
    return out.reshape(shape)


def _xp(a):
    if type(a) is np.ndarray:
        return np
    import cupy  # noqa: PLC0415  (only reached with CuPy arrays)

    return cupy


def _acc_dtype(dtype):
    if dtype == np.float16 or (_dt.bfloat16 is not None and dtype == _dt.bfloat16):
        return np.dtype(np.float32)
    return dtype


def _scatter(xp, how, out, index, values):
    {"add": add_at, "max": max_at, "min": min_at}[how](out, index, values)


def _int_div(a, b, xp):
    # truncating, with 0 for a zero divisor, as the native kernel does
    safe = xp.where(b == 0, 1, b)
    q = xp.abs(a) // xp.abs(safe)
    q = xp.where((a < 0) != (safe < 0), -q, q)
    return xp.where(b == 0, 0, q).astype(a.dtype)


def _combine(a, b, message, xp):
    if message == "add":
        return a + b
    if message == "sub":
        return a - b
    if message == "mul":
        return a * b
    if a.dtype.kind in "iu":
        return _int_div(a, b, xp)
    return a / b


def check_range(idx, n, op, arg, what):
    """IndexError naming the first entry of ``idx`` outside ``[0, n)`` (array path)."""
    xp = _xp(idx)
    bad = (idx < 0) | (idx >= n)
    if idx.size and bool(bad.any()):
        k = int(xp.argmax(bad))
        raise IndexError(f"{op}: {arg}[{k}] = {int(idx[k])} is out of range [0, {n}) for {what}")


def _reduce_rows(msg, dst, reduce, rows, dtype):
    """reduce(msg[e] for dst[e] == r) per row r, on any array module; empty rows are 0."""
    xp = _xp(msg)
    acc = _acc_dtype(dtype)
    feat = msg.shape[1:]
    msg = xp.ascontiguousarray(msg.astype(acc, copy=False))  # broadcast views: real rows
    cnt = xp.bincount(dst, minlength=rows)[:rows] if dst.size else xp.zeros(rows, np.int64)
    if reduce in ("sum", "mean"):
        out = xp.zeros((rows,) + feat, acc)
        _scatter(xp, "add", out, dst, msg)
        if reduce == "mean":
            c = xp.maximum(cnt, 1).reshape((rows,) + (1,) * len(feat))
            out = _int_div(out, c.astype(acc), xp) if acc.kind in "iu" else out / c.astype(acc)
    else:
        if acc.kind in "iu":
            info = np.iinfo(acc)
            init = info.min if reduce == "max" else info.max
        else:
            init = -np.inf if reduce == "max" else np.inf
        out = xp.full((rows,) + feat, init, acc)
        _scatter(xp, reduce, out, dst, msg)
        out[cnt == 0] = 0
    return out.astype(dtype, copy=False)


# ---------------------------------------------------------------------------------
# the forwards


def send_recv(x, src, dst, reduce, rows, op):
    """out[r] = reduce(x[src[e]] for dst[e] == r), shape [rows, *x.shape[1:]]; src=None
    reads x[e] (a scatter of the rows of x)."""
    shape = (rows,) + x.shape[1:]
    if native(x):
        out = _C().graph_send_recv(_flat(x), _index(src), _index(dst), rows, reduce, op)
        return _back(out, x.dtype, shape)
    if src is not None:
        check_range(src, x.shape[0], op, "src_index", "the rows of x")
    check_range(dst, rows, op, "dst_index", "the output rows")
    msg = x if src is None else x[src]
    return _reduce_rows(msg, dst, reduce, rows, x.dtype)


def send_ue_recv(x, y, src, dst, message, reduce, rows, op):
    """out[r] = reduce(x[src[e]] message y[e] for dst[e] == r); x [N, *A] and y [E, *B]
    with len(A) == len(B), broadcast to F."""
    feat = np.broadcast_shapes(x.shape[1:], y.shape[1:])
    if native(x):
        out = _C().graph_send_ue_recv(_flat(x), _flat(y), _index(src), _index(dst), rows,
                                      message, reduce, list(x.shape[1:]), list(y.shape[1:]),
                                      op)
        return _back(out, x.dtype, (rows,) + feat)
    check_range(src, x.shape[0], op, "src_index", "the rows of x")
    check_range(dst, rows, op, "dst_index", "the output rows")
    acc = _acc_dtype(x.dtype)
    xp = _xp(x)
    msg = _combine(x[src].astype(acc), y.astype(acc), message, xp)
    return _reduce_rows(xp.broadcast_to(msg, (len(dst),) + feat), dst, reduce, rows, x.dtype)


def send_uv(x, y, src, dst, message, op):
    """out[e] = x[src[e]] message y[dst[e]], shape [E, *F]."""
    feat = np.broadcast_shapes(x.shape[1:], y.shape[1:])
    if native(x):
        out = _C().graph_edge_messages(_flat(x), _flat(y), _index(src), _index(dst), message,
                                       list(x.shape[1:]), list(y.shape[1:]), None, op)
        return _back(out, x.dtype, (len(dst),) + feat)
    check_range(src, x.shape[0], op, "src_index", "the rows of x")
    check_range(dst, y.shape[0], op, "dst_index", "the rows of y")
    acc = _acc_dtype(x.dtype)
    xp = _xp(x)
    msg = _combine(x[src].astype(acc), y[dst].astype(acc), message, xp)
    return xp.ascontiguousarray(xp.broadcast_to(msg, (len(dst),) + feat)).astype(x.dtype)


def _same(a, b, xp):
    eq = a == b
    if a.dtype.kind == "f":
        eq |= xp.isnan(a) & xp.isnan(b)
    return eq


def edge_mask(x, y, src, dst, message, reduced, op):
    """Boolean [E, *F]: (x[src[e]] message y[e]) == reduced[dst[e]], the max/min routing."""
    feat = reduced.shape[1:]
    if native(x):
        m = _C().graph_edge_messages(_flat(x), _flat(y), _index(src), _index(dst), message,
                                     list(x.shape[1:]), list(y.shape[1:]), _flat(reduced), op)
        return m.view(np.bool_).reshape((len(dst),) + feat)
    xp = _xp(x)
    acc = _acc_dtype(x.dtype)
    # rounded to the stored dtype first, as the reduced value was
    msg = _combine(x[src].astype(acc), y.astype(acc), message, xp).astype(x.dtype)
    return xp.broadcast_to(_same(msg, reduced[dst], xp), (len(dst),) + feat)


def route(h, x, reduced, src, dst, by_src, op):
    """Max/min gradient routing with M_e = (x[src[e]] == reduced[dst[e]]): by_src gives
    res[n] = sum over src[e] == n of M_e * h[dst[e]] ([N, *F]); otherwise
    res[r] = sum over dst[e] == r of M_e * h[src[e]] ([R, *F])."""
    rows = x.shape[0] if by_src else reduced.shape[0]
    if native(x):
        out = _C().graph_route(_flat(h), _flat(x), _flat(reduced), _index(src), _index(dst),
                               by_src, op)
        return _back(out, x.dtype, (rows,) + x.shape[1:])
    xp = _xp(x)
    m = _same(x[src], reduced[dst], xp)
    hv = h[dst] if by_src else h[src]
    contrib = xp.where(m, hv.astype(_acc_dtype(h.dtype)), 0)
    out = xp.zeros((rows,) + x.shape[1:], contrib.dtype)
    _scatter(xp, "add", out, src if by_src else dst, contrib)
    return out.astype(x.dtype)


def segment(data, ids, reduce, op):
    """Reduction of the rows of ``data`` over sorted non-negative ``ids``; [ids[-1] + 1, *F]."""
    if native(data):
        out = _C().segment_reduce(_flat(data), _index(ids), reduce, op)
        return _back(out, data.dtype, (out.shape[0],) + data.shape[1:])
    xp = _xp(data)
    n = ids.shape[0]
    if n > 1:
        bad = ids[1:] < ids[:-1]
        if bool(bad.any()):
            k = int(xp.argmax(bad))
            raise ValueError(f"{op}: The segment ids should be sorted, but got segment_ids[{k}]:"
                             f"{int(ids[k])} > segment_ids[{k + 1}]:{int(ids[k + 1])}")
    if n and int(ids[0]) < 0:
        raise IndexError(f"{op}: segment_ids[0] = {int(ids[0])} is negative; ids must be >= 0")
    rows = int(ids[-1]) + 1 if n else 0
    return _reduce_rows(data, ids, reduce, rows, data.dtype)


def inverse_count(index, rows, dtype, ndim):
    """1 / max(count, 1) of each row of ``index`` as [rows, 1, ...] (``ndim`` dims)."""
    xp = _xp(index)
    cnt = xp.bincount(index, minlength=rows)[:rows] if index.size else xp.zeros(rows, np.int64)
    inv = 1.0 / xp.maximum(cnt, 1)
    return inv.astype(dtype).reshape((rows,) + (1,) * (ndim - 1))


def same_values(a, b):
    """Elementwise equality that also matches NaN with NaN (max/min ties)."""
    return _same(a, b, _xp(a))
