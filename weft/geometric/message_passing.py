"""Graph message passing: ``send_u_recv``, ``send_ue_recv``, ``send_uv``.

Each op is a primitive whose forward is a fused native kernel (see
:mod:`weft.geometric._kernels`): messages are combined while they are reduced, so
the forward never holds an E x F array of messages. The vjps are written with the
same primitives run the other way (a sum into ``dst`` transposes to a sum into
``src``), so every order of derivative works:

* sum / mean: ``gx = send_u_recv(g / indeg, dst -> src)``; with an edge feature,
  ``mul``/``div`` use ``send_ue_recv`` and ``send_uv`` with the roles swapped.
* max / min: an edge gets the full ``g[dst]`` wherever its message equals the
  reduced value (ties are not split, a repeated edge counts each time); for
  ``send_u_recv`` a routing kernel re-reads ``x`` and the output instead of
  storing an E x F argmax.

CuPy arrays run array code with ``cupyx`` scatters (materialised messages,
atomic, so not bit-reproducible); numpy arrays always use the native kernels.
"""
from __future__ import annotations

import numbers

import numpy as np

from ..autograd.engine import Primitive, apply, defvjp
from ..core import dtype as _dt
from ..core.tensor import Tensor
from ..core.args import check_same_place, tensor_arg
from ..ops.primitives import take
from ..ops.math.ufuncs import reciprocal
from ..ops.shape.views import reshape_exact
from . import _kernels as K

_REDUCES = ("sum", "mean", "max", "min")
_MESSAGES = ("add", "sub", "mul", "div")

# ---------------------------------------------------------------------------------
# primitives: one per reduce (and message) so each saves only what its rule reads
#   _RECV[r](x, src, dst):       out[i] = r(x[src[e]] : dst[e] == i), src None -> x[e]
#   _UE_RECV[r](x, y, src, dst): out[i] = r(x[src[e]] m y[e] : dst[e] == i)
#   _UV[m](x, y, src, dst):      out[e] = x[src[e]] m y[dst[e]]
#   _ROUTE(h, xv, ov, src, dst): the max/min routing (xv, ov constants)


def _recv_fwd(reduce):
    return lambda x, src, dst, rows, op: K.send_recv(x, src, dst, reduce, rows, op)


def _ue_recv_fwd(reduce):
    return lambda x, y, src, dst, message, rows, op: K.send_ue_recv(x, y, src, dst, message,
                                                                    reduce, rows, op)


def _uv_fwd(message):
    return lambda x, y, src, dst, op: K.send_uv(x, y, src, dst, message, op)


_RECV = {r: Primitive(f"send_u_recv_{r}", _recv_fwd(r)) for r in _REDUCES}
_UE_RECV = {r: Primitive(f"send_ue_recv_{r}", _ue_recv_fwd(r)) for r in _REDUCES}
_UV = {m: Primitive(f"send_uv_{m}", _uv_fwd(m)) for m in _MESSAGES}
_ROUTE = Primitive("send_u_recv_route",
                   lambda h, xv, ov, src, dst, by_src, op: K.route(h, xv, ov, src, dst, by_src, op))


def _const(a):
    return Tensor._wrap(a._data if isinstance(a, Tensor) else a)


def _rows(t):
    return t._data.shape[0]


def _recv_sum(h, src, dst, rows, op):
    return apply(_RECV["sum"], h, src, dst, rows=rows, op=op)


def _ue_sum(x, y, src, dst, message, rows, op):
    return apply(_UE_RECV["sum"], x, y, src, dst, message=message, rows=rows, op=op)


def _scaled(g, dst, reduce):
    """g, or g / in-degree for mean: the gradient each edge into a row carries."""
    if reduce != "mean":
        return g
    inv = K.inverse_count(dst._data, _rows(g), g._data.dtype, g._data.ndim)
    return g * Tensor._wrap(inv)


def _recv_vjp(reduce):
    def vjp(g, ans, x, src, dst, rows, op):
        n = _rows(x)
        if reduce in ("sum", "mean"):
            g = _scaled(g, dst, reduce)
            if src is None:   # a scatter of the rows of x: its transpose is a row gather
                return take(g, dst, 0)
            return _recv_sum(g, dst, src, n, op)
        return apply(_ROUTE, g, _const(x), _const(ans), src, dst, by_src=True, op=op)
    return vjp


def _route_vjp(g, ans, h, xv, ov, src, dst, by_src, op):
    return apply(_ROUTE, g, xv, ov, src, dst, by_src=not by_src, op=op)


for _r in _REDUCES:
    _extreme = _r in ("max", "min")
    # the index tensors are read by every rule: an in-place write to them must be caught
    defvjp(_RECV[_r], _recv_vjp(_r), None, None, save=(0, 1, 2) if _extreme else (1, 2),
           save_out=_extreme)
defvjp(_ROUTE, _route_vjp, None, None, None, None, save=(3, 4), save_out=False)


def _edge_grad(g, ans, x, y, src, dst, message, reduce, op):
    """Per-edge cotangent of max/min: g[dst[e]] where the message is the extreme."""
    mask = K.edge_mask(x._data, y._data, src._data, dst._data, message, ans._data, op)
    ge = take(g, dst, 0)
    return ge * Tensor._wrap(mask.astype(g._data.dtype))


def _ue_vjp_x(reduce):
    def vjp(g, ans, x, y, src, dst, message, rows, op):
        n = _rows(x)
        if reduce in ("sum", "mean"):
            g = _scaled(g, dst, reduce)
            if message in ("add", "sub"):
                return _recv_sum(g, dst, src, n, op)
            # sum over e: g[dst] * y[e]  (mul) or g[dst] / y[e]  (div), into src
            return _ue_sum(g, y, dst, src, message, n, op)
        ge = _edge_grad(g, ans, x, y, src, dst, message, reduce, op)
        if message == "mul":
            ge = ge * y
        elif message == "div":
            ge = ge / y
        return _recv_sum(ge, None, src, n, op)
    return vjp


def _ue_vjp_y(reduce):
    def vjp(g, ans, x, y, src, dst, message, rows, op):
        if reduce in ("sum", "mean"):
            g = _scaled(g, dst, reduce)
            if message == "add":
                return take(g, dst, 0)
            if message == "sub":
                return -take(g, dst, 0)
            gx = apply(_UV["mul"], g, x, dst, src, op=op)   # g[dst[e]] * x[src[e]]
            return gx if message == "mul" else -gx / (y * y)
        ge = _edge_grad(g, ans, x, y, src, dst, message, reduce, op)
        if message == "add":
            return ge
        if message == "sub":
            return -ge
        xs = take(x, src, 0)
        return ge * xs if message == "mul" else -ge * xs / (y * y)
    return vjp


for _r in _REDUCES:
    _extreme = _r in ("max", "min")
    defvjp(_UE_RECV[_r], _ue_vjp_x(_r), _ue_vjp_y(_r), None, None,
           save={0: (0, 1, 2, 3), 1: (0, 1, 2, 3)} if _extreme else
           {0: (1, 2, 3), 1: (0, 1, 2, 3)},
           save_out=_extreme)


def _uv_vjp_x(message):
    def vjp(g, ans, x, y, src, dst, op):
        n = _rows(x)
        if message in ("add", "sub"):
            return _recv_sum(g, None, src, n, op)
        w = y if message == "mul" else reciprocal(y)
        return _ue_sum(w, g, dst, src, "mul", n, op)     # sum over e: w[dst[e]] * g[e]
    return vjp


def _uv_vjp_y(message):
    def vjp(g, ans, x, y, src, dst, op):
        m = _rows(y)
        if message == "add":
            return _recv_sum(g, None, dst, m, op)
        if message == "sub":
            return -_recv_sum(g, None, dst, m, op)
        s = _ue_sum(x, g, src, dst, "mul", m, op)          # sum over e: x[src[e]] * g[e]
        return s if message == "mul" else -s / (y * y)
    return vjp


for _m in _MESSAGES:
    defvjp(_UV[_m], _uv_vjp_x(_m), _uv_vjp_y(_m), None, None,
           save={0: (2, 3) if _m in ("add", "sub") else (1, 2, 3),
                 1: (2, 3) if _m in ("add", "sub") else (0, 1, 2, 3)},
           save_out=False)

# ---------------------------------------------------------------------------------
# argument handling

_FEATURE_DTYPES = tuple(np.dtype(d) for d in ("float16", "float32", "float64", "int32",
                                              "int64"))
_FEATURE_NAMES = "float16, bfloat16, float32, float64, int32, int64"


def feature_arg(x, op, arg="x"):
    """A feature tensor of at least 1 dimension with a supported dtype."""
    x = tensor_arg(x, arg, op)
    d = x._data.dtype
    if d not in _FEATURE_DTYPES and not (_dt.bfloat16 is not None and d == _dt.bfloat16):
        raise TypeError(f"{op}: {arg} has dtype {d.name}, expected one of {_FEATURE_NAMES}")
    if x._data.ndim == 0:
        raise ValueError(f"{op}: {arg} must have at least 1 dimension, got a 0-D tensor")
    return x


def index_arg(index, op, arg, like):
    """A 1-D int32/int64 index ([E, 1] is flattened, as Paddle does) on like's device."""
    if isinstance(index, (list, tuple)) and len(index) == 0:
        index = np.zeros(0, dtype=np.int64)
    t = tensor_arg(index, arg, op)
    d = t._data
    if d.dtype not in (np.int32, np.int64):
        raise TypeError(f"{op}: {arg} must be an int32 or int64 tensor, got {d.dtype.name}")
    if d.ndim == 2 and d.shape[1] == 1:
        t = Tensor._wrap(d.reshape(-1))
    elif d.ndim != 1:
        raise ValueError(f"{op}: {arg} must be 1-D (or [E, 1]), got shape {list(d.shape)}")
    check_same_place(like, t, op)
    return t


def index_pair(src, dst, op, like):
    src = index_arg(src, op, "src_index", like)
    dst = index_arg(dst, op, "dst_index", like)
    if src._data.dtype != dst._data.dtype:
        raise ValueError(f"{op}: src_index has dtype {src._data.dtype.name} but dst_index has "
                         f"dtype {dst._data.dtype.name}; they must be the same")
    if src._data.shape[0] != dst._data.shape[0]:
        raise ValueError(f"{op}: src_index and dst_index should have the same shape, got "
                         f"{src._data.shape[0]} and {dst._data.shape[0]} entries")
    return src, dst


def out_size_arg(out_size, n, op):
    """Rows of the output: x.shape[0] for None or out_size <= 0, else out_size."""
    if out_size is None:
        return n
    if isinstance(out_size, Tensor):
        d = out_size._data
        if d.dtype.kind not in "iu" or d.size != 1:
            raise TypeError(f"{op}: out_size must be an int or a 1-element integer tensor, got a "
                            f"{d.dtype.name} tensor of shape {list(d.shape)}")
        out_size = int(d.reshape(-1)[0])
    elif isinstance(out_size, bool) or not isinstance(out_size, numbers.Integral):
        raise TypeError(f"{op}: out_size must be an int, got {type(out_size).__name__}")
    out_size = int(out_size)
    return n if out_size <= 0 else out_size


def _choice(value, allowed, op, what):
    if not isinstance(value, str) or value not in allowed:
        names = ", ".join(f"`{a}`" for a in allowed)
        if what == "reduce_op":
            names = "`sum`, `mean`, `max` or `min`"
        raise ValueError(f"{op}: {what} should be {names}, but received {value}")
    return value


def _feature_view(t, feat):
    """``t`` reshaped to [rows, *feat] (a view the gradient flows through)."""
    return reshape_exact(t, [t._data.shape[0], *feat])


def broadcast_features(x, y, op):
    """Feature shapes of x and y padded to one rank (1-D tensors count as [*, 1]) and
    their broadcast, with Paddle's broadcasting rule."""
    fx = tuple(x._data.shape[1:]) or (1,)
    fy = tuple(y._data.shape[1:]) or (1,)
    rank = max(len(fx), len(fy))
    fx = (1,) * (rank - len(fx)) + fx
    fy = (1,) * (rank - len(fy)) + fy
    out = []
    for a, b in zip(fx, fy):
        if a != b and a != 1 and b != 1:
            raise ValueError(f"{op}: the feature shapes of x {list(x.shape[1:])} and y "
                             f"{list(y.shape[1:])} cannot be broadcast together")
        out.append(b if a == 1 else a)
    return fx, fy, tuple(out)


# ---------------------------------------------------------------------------------
# public API


def send_u_recv(x, src_index, dst_index, reduce_op="sum", out_size=None, name=None):
    """Gather ``x[src_index[e]]`` along each edge and reduce the messages into ``dst_index[e]``.

    Args:
        x: node features ``[N, *F]`` (1-D allowed), float16, bfloat16, float32, float64,
            int32 or int64.
        src_index, dst_index: int32 or int64 (the same), 1-D of equal length E (or
            ``[E, 1]``); ``src_index`` in ``[0, N)``, ``dst_index`` in ``[0, R)``.
        reduce_op: ``'sum'``, ``'mean'`` (sum / in-degree), ``'max'`` or ``'min'``.
        out_size: R, the number of output rows: ``x.shape[0]`` when None or <= 0; an int
            or a 1-element integer Tensor.

    Returns:
        ``[R, *F]`` of x's dtype; rows without messages are 0 for every ``reduce_op``.
        Integer ``mean`` truncates toward zero. float16/bfloat16 accumulate in float32.

    Gradient (x only): sum routes ``g[dst]`` to ``src``, mean ``g[dst] / indeg``, max/min
    give the full ``g[dst]`` to every edge whose message equals the result (ties are
    not split). Deterministic on CPU for any thread count; CuPy tensors run array code
    (not bit-reproducible).

    >>> import weft
    >>> x = weft.to_tensor([[0., 2., 3.], [1., 4., 5.], [2., 6., 7.]])
    >>> src, dst = weft.to_tensor([0, 1, 2, 0]), weft.to_tensor([1, 2, 1, 0])
    >>> weft.geometric.send_u_recv(x, src, dst, reduce_op="sum").tolist()
    [[0.0, 2.0, 3.0], [2.0, 8.0, 10.0], [1.0, 4.0, 5.0]]
    """
    op = "send_u_recv"
    x = feature_arg(x, op)
    reduce_op = _choice(reduce_op, _REDUCES, op, "reduce_op")
    src, dst = index_pair(src_index, dst_index, op, x)
    rows = out_size_arg(out_size, x._data.shape[0], op)
    return apply(_RECV[reduce_op], x, src, dst, rows=rows, op=op)


def send_ue_recv(x, y, src_index, dst_index, message_op="add", reduce_op="sum", out_size=None,
                 name=None):
    """Combine ``x[src_index[e]]`` with edge feature ``y[e]``, reduce into ``dst_index[e]``.

    Args:
        x: node features ``[N, *Fx]``; y: edge features ``[E, *Fy]`` of x's dtype. A 1-D x
            or y counts as ``[*, 1]``; Fx and Fy then broadcast numpy-style to F.
        src_index, dst_index, reduce_op, out_size: as in :func:`send_u_recv`.
        message_op: ``'add'``, ``'sub'``, ``'mul'`` or ``'div'``: ``x op y``. Integer
            ``div`` truncates and gives 0 for a zero divisor.

    Returns:
        ``[R, *F]``; the messages are combined on the fly (never stored per edge).

    >>> import weft
    >>> x = weft.to_tensor([[1., 2.], [3., 4.]])
    >>> y = weft.to_tensor([[10.], [20.], [30.]])
    >>> src, dst = weft.to_tensor([0, 1, 1]), weft.to_tensor([0, 0, 1])
    >>> weft.geometric.send_ue_recv(x, y, src, dst, "mul", "sum").tolist()
    [[70.0, 100.0], [90.0, 120.0]]
    """
    op = "send_ue_recv"
    x = feature_arg(x, op)
    y = feature_arg(y, op, "y")
    message_op = _choice(message_op, _MESSAGES, op, "message_op")
    reduce_op = _choice(reduce_op, _REDUCES, op, "reduce_op")
    if x._data.dtype != y._data.dtype:
        raise ValueError(f"{op}: x has dtype {x._data.dtype.name} but y has dtype "
                         f"{y._data.dtype.name}; they must be the same")
    check_same_place(x, y, op)
    src, dst = index_pair(src_index, dst_index, op, x)
    e = src._data.shape[0]
    if y._data.shape[0] != e:
        raise ValueError(f"{op}: Expect Input Y to have size {e} as Src_index on the first "
                         f"dimension, but we get {y._data.shape[0]}")
    fx, fy, _ = broadcast_features(x, y, op)
    rows = out_size_arg(out_size, x._data.shape[0], op)
    return apply(_UE_RECV[reduce_op], _feature_view(x, fx), _feature_view(y, fy), src, dst,
                 message=message_op, rows=rows, op=op)


def send_uv(x, y, src_index, dst_index, message_op="add", name=None):
    """Per-edge messages ``x[src_index[e]] op y[dst_index[e]]``, no reduction.

    Args:
        x, y: node features ``[N, *Fx]`` and ``[M, *Fy]`` of one dtype, broadcast as in
            :func:`send_ue_recv`; ``src_index`` in ``[0, N)``, ``dst_index`` in ``[0, M)``.
        message_op: ``'add'``, ``'sub'``, ``'mul'`` or ``'div'``.

    Returns:
        ``[E, *F]`` (per edge by definition).

    >>> import weft
    >>> x = weft.to_tensor([[1., 2.], [3., 4.]])
    >>> weft.geometric.send_uv(x, x, weft.to_tensor([0, 1]), weft.to_tensor([1, 1]), "add").tolist()
    [[4.0, 6.0], [6.0, 8.0]]
    """
    op = "send_uv"
    x = feature_arg(x, op)
    y = feature_arg(y, op, "y")
    message_op = _choice(message_op, _MESSAGES, op, "message_op")
    if x._data.dtype != y._data.dtype:
        raise ValueError(f"{op}: x has dtype {x._data.dtype.name} but y has dtype "
                         f"{y._data.dtype.name}; they must be the same")
    check_same_place(x, y, op)
    src, dst = index_pair(src_index, dst_index, op, x)
    fx, fy, _ = broadcast_features(x, y, op)
    return apply(_UV[message_op], _feature_view(x, fx), _feature_view(y, fy), src, dst, op=op)


__all__ = ["send_u_recv", "send_ue_recv", "send_uv"]
