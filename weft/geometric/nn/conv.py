"""Graph convolution layers on the fused message-passing ops: GCNConv, SAGEConv, GATConv.

Every layer takes ``forward(x, edge_index)`` with ``edge_index`` an int ``[2, E]``
tensor (row 0 source, row 1 destination: a message flows from source to
destination) and ``x`` the ``[N, F]`` node features; GCNConv and GATConv (and
SAGEConv with sum/mean aggregation) also accept a 2-D ``weft.sparse`` CSR/COO ``x``,
multiplied into the weight with ``send_ue_recv`` so its zeros are never touched.
Messages are never stored per edge except where the formula needs a per-edge value
(GAT's attention coefficients).
"""
from __future__ import annotations

import numbers

import numpy as np

from ...core import dtype as _dt
from ...core.tensor import Tensor
from ...nn import functional as F
from ...nn.initializer import Constant
from ...nn.layer import Layer, _check_int
from ...core.args import xp_of
from ...ops.indexing.gathering import index_select
from ...ops.math.ufuncs import exp
from ...sparse.tensor import SparseCooTensor, SparseCsrTensor
from ..message_passing import send_u_recv, send_ue_recv, send_uv


def _edge_index_arg(edge_index, num_nodes, op, num_dst=None):
    """(src, dst) int64 Tensors of a [2, E] edge_index whose source ids are in
    [0, num_nodes) and destination ids in [0, num_dst) (default num_nodes)."""
    if not isinstance(edge_index, Tensor) or type(edge_index) is not Tensor:
        raise TypeError(f"{op}: edge_index must be a dense int Tensor [2, E], got "
                        f"{type(edge_index).__name__}")
    d = edge_index._data
    if d.dtype not in (np.int32, np.int64):
        raise TypeError(f"{op}: edge_index must be int32 or int64, got {d.dtype.name}")
    if d.ndim != 2 or d.shape[0] != 2:
        raise ValueError(f"{op}: edge_index must have shape [2, E], got {list(d.shape)}")
    if num_dst is None:
        checks = ((d, num_nodes, "node id", "nodes"),)
    else:
        checks = ((d[0], num_nodes, "source id", "source nodes"),
                  (d[1], num_dst, "destination id", "destination nodes"))
    for part, bound, what, of in (checks if d.shape[1] else ()):
        lo, hi = int(part.min()), int(part.max())
        if lo < 0 or hi >= bound:
            bad = lo if lo < 0 else hi
            raise IndexError(f"{op}: edge_index holds {what} {bad}, out of range for "
                             f"{bound} {of}")
    d = d.astype(np.int64, copy=False)
    return Tensor._wrap(d[0].copy()), Tensor._wrap(d[1].copy())


def _with_self_loops(src, dst, n):
    xp = xp_of(src)
    loop = xp.arange(n, dtype=np.int64)
    return (Tensor._wrap(xp.concatenate([src._data, loop])),
            Tensor._wrap(xp.concatenate([dst._data, loop])))


def _num_nodes(x, op):
    if isinstance(x, (SparseCsrTensor, SparseCooTensor)):
        if len(x.shape) != 2:
            raise ValueError(f"{op}: a sparse x must be 2-D [N, F], got shape {x.shape}")
        return int(x.shape[0])
    if not isinstance(x, Tensor):
        raise TypeError(f"{op}: x must be a Tensor, got {type(x).__name__}")
    if x._data.ndim != 2:
        raise ValueError(f"{op}: x must be 2-D [N, F], got shape {x.shape}")
    if x._data.dtype.kind != "f" and not (_dt.bfloat16 is not None
                                          and x._data.dtype == _dt.bfloat16):
        raise TypeError(f"{op}: x must be a floating tensor, got {x._data.dtype.name}")
    return int(x._data.shape[0])


def _project(x, weight, op):
    """``x @ weight`` for a dense or 2-D sparse ``x``.

    A sparse ``x`` becomes one send_ue_recv over its nonzeros (value * weight row of
    the column, summed into the row), which is differentiable in ``weight``; the
    values of ``x`` are constants."""
    in_features = weight._data.shape[0]
    f = int(x.shape[1])
    if f != in_features:
        raise ValueError(f"{op}: x has {f} features but the layer expects {in_features}")
    if isinstance(x, SparseCsrTensor):
        xp = xp_of(x)
        counts = xp.diff(x._crows.astype(np.int64))
        rows = xp.repeat(xp.arange(x.shape[0], dtype=np.int64), counts)
        cols = x._cols.astype(np.int64)
    elif isinstance(x, SparseCooTensor):
        rows = x._indices[0].astype(np.int64)
        cols = x._indices[1].astype(np.int64)
    else:
        return x.matmul(weight)
    vals = Tensor._wrap(x._data.astype(weight._data.dtype).reshape(-1, 1))
    m = int(x.shape[0])
    if m == 0:
        return Tensor._wrap(xp_of(weight).zeros((0, weight._data.shape[1]), weight._data.dtype))
    return send_ue_recv(weight, vals, Tensor._wrap(cols), Tensor._wrap(rows), "mul", "sum",
                        out_size=m)


def edge_softmax(logits, dst_index, num_nodes):
    """Softmax of per-edge ``logits`` over the edges that enter each destination node.

    Args:
        logits: ``[E]`` or ``[E, H]`` float tensor (one column per attention head).
        dst_index: ``[E]`` int tensor of destination ids in ``[0, num_nodes)``.
        num_nodes: the number of nodes (int).

    Returns:
        A tensor like ``logits`` whose entries over the edges into each node sum to 1.
        It is differentiable in ``logits``: the per-node maximum subtracted for stability
        is a constant (a softmax does not depend on it), and the sums are
        ``send_u_recv`` scatters gathered back with ``index_select``.

    >>> import weft
    >>> from weft.geometric.nn import edge_softmax
    >>> a = edge_softmax(weft.to_tensor([0.0, 0.0, 5.0]), weft.to_tensor([1, 1, 0]), 2)
    >>> a.tolist()
    [0.5, 0.5, 1.0]
    """
    op = "edge_softmax"
    if not isinstance(logits, Tensor):
        raise TypeError(f"{op}: logits must be a Tensor, got {type(logits).__name__}")
    if logits._data.dtype.kind != "f":
        raise TypeError(f"{op}: logits must be a floating tensor, got "
                        f"{logits._data.dtype.name}")
    if logits._data.ndim not in (1, 2):
        raise ValueError(f"{op}: logits must be [E] or [E, H], got shape {logits.shape}")
    if isinstance(num_nodes, bool) or not isinstance(num_nodes, numbers.Integral) \
            or num_nodes < 0:
        raise ValueError(f"{op}: num_nodes must be a non-negative int, got {num_nodes!r}")
    e = logits._data.shape[0]
    if not isinstance(dst_index, Tensor):
        raise TypeError(f"{op}: dst_index must be a Tensor, got {type(dst_index).__name__}")
    if dst_index._data.ndim != 1 or dst_index._data.shape[0] != e:
        raise ValueError(f"{op}: dst_index must be [E] with E = {e} (the rows of logits), "
                         f"got shape {dst_index.shape}")
    if e and (int(dst_index._data.min()) < 0 or int(dst_index._data.max()) >= num_nodes):
        raise IndexError(f"{op}: dst_index holds ids outside [0, {num_nodes})")
    if e == 0:
        return logits * 1.0
    eid = Tensor._wrap(xp_of(logits).arange(e, dtype=dst_index._data.dtype))
    peak = send_u_recv(logits.detach(), eid, dst_index, "max", out_size=num_nodes)
    ex = exp(logits - index_select(peak, dst_index))
    total = send_u_recv(ex, eid, dst_index, "sum", out_size=num_nodes)
    return ex / index_select(total, dst_index)


def _bool_arg(v, op, arg):
    if not isinstance(v, (bool, np.bool_)):
        raise TypeError(f"{op}: {arg} must be a bool, got {type(v).__name__}")
    return bool(v)


class GCNConv(Layer):
    """Graph convolution of Kipf & Welling: ``D^-1/2 (A + I) D^-1/2 X W + b``.

    ``A[d, s]`` counts the edges ``s -> d`` (multi-edges count each time, an existing
    self loop adds to the added one), ``D`` is the diagonal of the row sums of
    ``A + I`` (in-degree plus one). Each edge carries the weight
    ``D[s]^-1/2 D[d]^-1/2``; propagation is ``send_ue_recv(XW, w, src, dst, 'mul',
    'sum')``.

    Args:
        in_features, out_features: sizes of ``W`` ``[in_features, out_features]``
            (XavierUniform).
        add_self_loops: add ``I`` (default True).
        normalize: apply the symmetric normalisation (False: plain sum of messages).
        cached: compute the edge weights once and reuse them while ``forward`` gets
            the same ``edge_index`` object (transductive training on one graph).
        bias: add the bias ``b`` ``[out_features]`` (zeros) (default True).
        weight_attr, bias_attr: :class:`weft.ParamAttr` for the parameters.

    ``forward(x, edge_index, edge_weight=None)``: ``edge_weight`` ``[E]`` replaces the
    entries of ``A`` (a constant: no gradient flows to it).

    >>> import weft
    >>> conv = weft.geometric.nn.GCNConv(4, 2)
    >>> ei = weft.to_tensor([[0, 1, 2], [1, 2, 0]])
    >>> conv(weft.ones([3, 4]), ei).shape
    [3, 2]
    """

    def __init__(self, in_features, out_features, add_self_loops=True, normalize=True,
                 cached=False, bias=True, weight_attr=None, bias_attr=None, name=None):
        super().__init__()
        op = "GCNConv"
        self.in_features = _check_int(in_features, op, "in_features", 1)
        self.out_features = _check_int(out_features, op, "out_features", 1)
        self.add_self_loops = _bool_arg(add_self_loops, op, "add_self_loops")
        self.normalize = _bool_arg(normalize, op, "normalize")
        self.cached = _bool_arg(cached, op, "cached")
        self.weight = self.create_parameter([self.in_features, self.out_features],
                                            attr=weight_attr)
        self.bias = (self.create_parameter([self.out_features], attr=bias_attr, is_bias=True)
                     if _bool_arg(bias, op, "bias") else None)
        self._cache = None

    def _edge_weights(self, edge_index, edge_weight, n, dtype):
        """(src, dst, weight) with self loops added and the normalisation applied."""
        op = "GCNConv"
        c = self._cache
        # the tensors by identity (a Tensor's == is elementwise), the rest by value
        if (self.cached and c is not None and c[0][0] is edge_index
                and c[0][1] is edge_weight and c[0][2:] == (n, dtype)):
            return c[1]
        key = (edge_index, edge_weight, n, dtype)
        src, dst = _edge_index_arg(edge_index, n, op)
        xp = xp_of(src)
        e = src._data.shape[0]
        if edge_weight is None:
            w = xp.ones(e, dtype)
        else:
            if not isinstance(edge_weight, Tensor) or edge_weight._data.shape != (e,):
                raise ValueError(f"{op}: edge_weight must be a [E] = [{e}] tensor, got "
                                 f"{getattr(edge_weight, 'shape', type(edge_weight).__name__)}")
            w = edge_weight._data.astype(dtype)
        if self.add_self_loops:
            src, dst = _with_self_loops(src, dst, n)
            w = xp.concatenate([w, xp.ones(n, dtype)])
        if self.normalize:
            deg = xp.bincount(dst._data, weights=w, minlength=n).astype(dtype)
            inv = xp.zeros_like(deg)
            pos = deg > 0
            inv[pos] = deg[pos] ** -0.5
            w = inv[src._data] * w * inv[dst._data]
        out = (src, dst, Tensor._wrap(w))
        if self.cached:
            self._cache = (key, out)
        return out

    def forward(self, x, edge_index, edge_weight=None):
        n = _num_nodes(x, "GCNConv")
        h = _project(x, self.weight, "GCNConv")
        src, dst, w = self._edge_weights(edge_index, edge_weight, n, h._data.dtype)
        out = send_ue_recv(h, w, src, dst, "mul", "sum", out_size=n)
        return out if self.bias is None else out + self.bias

    def extra_repr(self):
        return f"{self.in_features}, {self.out_features}, cached={self.cached}"


class SAGEConv(Layer):
    """GraphSAGE: ``agg_{s -> d}(x[s]) W_l + b + x[d] W_r``.

    Args:
        in_features, out_features: sizes of ``W_l`` and ``W_r`` (XavierUniform).
        aggr: ``'mean'`` (default; nodes without in-edges get 0), ``'sum'`` or ``'max'``
            (elementwise maximum over the distinct in-neighbours, 0 without any;
            repeated edges count once, and the gradient goes in full to every
            neighbour attaining the maximum).
        root_weight: add the ``x[d] W_r`` term (default True).
        bias: add ``b`` ``[out_features]`` (zeros).

    For sum/mean, ``agg(x) W == agg(x W)``: a sparse ``x`` is projected first, a dense
    one in whichever order costs fewer operations; ``'max'`` needs a dense ``x``.

    ``forward(x, edge_index)``: ``x`` is ``[N, F]``, or a pair ``(x_src, x_dst)`` for a
    bipartite block (a sampled mini-batch layer): source ids of ``edge_index`` index
    ``x_src``, destination ids index ``x_dst``, and the output has ``x_dst``'s rows.

    >>> import weft
    >>> conv = weft.geometric.nn.SAGEConv(4, 2, aggr="max")
    >>> conv(weft.ones([3, 4]), weft.to_tensor([[0, 1], [1, 2]])).shape
    [3, 2]
    >>> h = weft.ones([5, 4])      # 5 sampled nodes, the first 2 are the targets
    >>> conv((h, h[:2]), weft.to_tensor([[2, 3, 4], [0, 0, 1]])).shape
    [2, 2]
    """

    def __init__(self, in_features, out_features, aggr="mean", root_weight=True, bias=True,
                 weight_attr=None, bias_attr=None, name=None):
        super().__init__()
        op = "SAGEConv"
        self.in_features = _check_int(in_features, op, "in_features", 1)
        self.out_features = _check_int(out_features, op, "out_features", 1)
        if aggr not in ("mean", "sum", "max"):
            raise ValueError(f"{op}: aggr must be 'mean', 'sum' or 'max', got {aggr!r}")
        self.aggr = aggr
        self.root_weight = _bool_arg(root_weight, op, "root_weight")
        self.weight = self.create_parameter([self.in_features, self.out_features],
                                            attr=weight_attr)
        self.root = (self.create_parameter([self.in_features, self.out_features],
                                           attr=weight_attr) if self.root_weight else None)
        self.bias = (self.create_parameter([self.out_features], attr=bias_attr, is_bias=True)
                     if _bool_arg(bias, op, "bias") else None)

    def forward(self, x, edge_index):
        op = "SAGEConv"
        if isinstance(x, (tuple, list)):
            if len(x) != 2:
                raise ValueError(f"{op}: x must be a tensor or a pair (x_src, x_dst), got "
                                 f"a sequence of {len(x)}")
            x_src, x_dst = x
        else:
            x_src = x_dst = x
        n_src = _num_nodes(x_src, op)
        n = n_src if x_dst is x_src else _num_nodes(x_dst, op)
        src, dst = _edge_index_arg(edge_index, n_src, op, None if x_dst is x_src else n)
        if self.aggr == "max":
            if not type(x_src) is Tensor:
                raise TypeError(f"{op}: aggr='max' needs a dense x, got "
                                f"{type(x_src).__name__}")
            _project(x_src[:0], self.weight, op)   # the feature-count check, on no rows
            # a repeated edge would get the full gradient once per copy (send_u_recv's
            # tie rule); the maximum ignores repeats, so drop them
            key = xp_of(dst).unique(dst._data * n_src + src._data)
            src, dst = Tensor._wrap(key % n_src), Tensor._wrap(key // n_src)
            out = send_u_recv(x_src, src, dst, "max", out_size=n).matmul(self.weight)
        elif type(x_src) is Tensor and self._aggregate_first(n_src, n, src._data.shape[0]):
            _project(x_src[:0], self.weight, op)
            out = send_u_recv(x_src, src, dst, self.aggr, out_size=n).matmul(self.weight)
        else:
            out = send_u_recv(_project(x_src, self.weight, op), src, dst, self.aggr,
                              out_size=n)
        if self.root is not None:
            out = out + _project(x_dst, self.root, op)
        return out if self.bias is None else out + self.bias

    def _aggregate_first(self, n_src, n_dst, e):
        """Whether ``agg(x) W`` is cheaper than ``agg(x W)`` (equal for sum and mean):
        the first multiplies only the destination rows but moves ``in_features`` per
        edge, the second multiplies every source row and moves ``out_features`` per
        edge. On a sampled block the sources far outnumber the destinations."""
        fi, fo = self.in_features, self.out_features
        return n_dst * fi * fo + e * fi < n_src * fi * fo + e * fo

    def extra_repr(self):
        return f"{self.in_features}, {self.out_features}, aggr={self.aggr}"


class GATConv(Layer):
    """Graph attention (Velickovic et al.): for each head ``k``,
    ``out[d] = sum_{s -> d} alpha[e] (x W)[s]`` with
    ``alpha = softmax over the in-edges of d of LeakyReLU(a_s . (xW)[s] + a_d . (xW)[d])``.

    Args:
        in_features, out_features: ``W`` is ``[in_features, heads * out_features]``;
            ``a_s``, ``a_d`` are ``[heads, out_features]`` (all XavierUniform).
        heads: attention heads (default 1).
        concat: concatenate the heads to ``[N, heads * out_features]`` (default) or
            average them to ``[N, out_features]``.
        negative_slope: LeakyReLU slope of the scores (default 0.2).
        dropout: dropout probability on the attention coefficients in training.
        add_self_loops: add one self loop per node (default True; existing loops and
            multi-edges stay, each edge is one term of the softmax).
        bias: add a zero-initialised bias.

    The per-edge scores are ``send_uv`` of the per-node halves, the softmax is
    :func:`edge_softmax`, the weighted sum is ``send_ue_recv(..., 'mul', 'sum')``.

    >>> import weft
    >>> conv = weft.geometric.nn.GATConv(4, 3, heads=2)
    >>> conv(weft.ones([3, 4]), weft.to_tensor([[0, 1], [1, 2]])).shape
    [3, 6]
    """

    def __init__(self, in_features, out_features, heads=1, concat=True, negative_slope=0.2,
                 dropout=0.0, add_self_loops=True, bias=True, weight_attr=None,
                 bias_attr=None, name=None):
        super().__init__()
        op = "GATConv"
        self.in_features = _check_int(in_features, op, "in_features", 1)
        self.out_features = _check_int(out_features, op, "out_features", 1)
        self.heads = _check_int(heads, op, "heads", 1)
        self.concat = _bool_arg(concat, op, "concat")
        if isinstance(negative_slope, bool) or not isinstance(negative_slope, numbers.Real):
            raise TypeError(f"{op}: negative_slope must be a float, got "
                            f"{type(negative_slope).__name__}")
        self.negative_slope = float(negative_slope)
        if isinstance(dropout, bool) or not isinstance(dropout, numbers.Real) \
                or not 0 <= dropout < 1:
            raise ValueError(f"{op}: dropout must be a float in [0, 1), got {dropout!r}")
        self.dropout = float(dropout)
        self.add_self_loops = _bool_arg(add_self_loops, op, "add_self_loops")
        h, c = self.heads, self.out_features
        self.weight = self.create_parameter([self.in_features, h * c], attr=weight_attr)
        self.att_src = self.create_parameter([h, c], attr=weight_attr)
        self.att_dst = self.create_parameter([h, c], attr=weight_attr)
        self.bias = (self.create_parameter([h * c if self.concat else c], attr=bias_attr,
                                           is_bias=True, default_initializer=Constant(0.0))
                     if _bool_arg(bias, op, "bias") else None)

    def forward(self, x, edge_index):
        op = "GATConv"
        n = _num_nodes(x, op)
        src, dst = _edge_index_arg(edge_index, n, op)
        if self.add_self_loops:
            src, dst = _with_self_loops(src, dst, n)
        h, c = self.heads, self.out_features
        z = _project(x, self.weight, op).reshape([n, h, c])
        score_src = (z * self.att_src).sum(axis=-1)      # [N, H]
        score_dst = (z * self.att_dst).sum(axis=-1)
        logits = F.leaky_relu(send_uv(score_src, score_dst, src, dst, "add"),
                              self.negative_slope)   # [E, H]
        alpha = edge_softmax(logits, dst, n)
        if self.dropout > 0 and self.training:
            alpha = F.dropout(alpha, self.dropout, training=True)
        e = alpha._data.shape[0]
        out = send_ue_recv(z, alpha.reshape([e, h, 1]), src, dst, "mul", "sum", out_size=n)
        out = out.reshape([n, h * c]) if self.concat else out.mean(axis=1)
        return out if self.bias is None else out + self.bias

    def extra_repr(self):
        return f"{self.in_features}, {self.out_features}, heads={self.heads}"


__all__ = ["GCNConv", "SAGEConv", "GATConv", "edge_softmax"]
