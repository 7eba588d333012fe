"""weft.geometric.nn: each conv layer against a dense numpy implementation of its
formula on small graphs with isolated nodes, self loops and multi-edges; gradcheck in
float64; GCN's cached normalisation; sparse features; edge_softmax; bad input."""
import numpy as np
import pytest

import weft
from weft.autograd import gradcheck
from weft.geometric.nn import GATConv, GCNConv, SAGEConv, edge_softmax

N = 7   # node 6 is isolated


def _graph(seed):
    rng = np.random.default_rng(seed)
    src = rng.integers(0, 6, 14)
    dst = rng.integers(0, 6, 14)
    # a self loop and a repeated edge, whatever the draw
    src = np.concatenate([src, [2, 0, 0]])
    dst = np.concatenate([dst, [2, 3, 3]])
    return np.stack([src, dst]).astype(np.int64)


def _counts(ei, n=N):
    a = np.zeros((n, n))
    np.add.at(a, (ei[1], ei[0]), 1.0)      # a[d, s] = edges s -> d
    return a


def _params(layer):
    return {k: v.numpy() for k, v in layer.named_parameters()}


def ref_gcn(x, ei, p, self_loops=True, normalize=True):
    a = _counts(ei) + (np.eye(N) if self_loops else 0)
    if normalize:
        deg = a.sum(1)
        dinv = np.where(deg > 0, np.maximum(deg, 1e-300) ** -0.5, 0.0)
        a = dinv[:, None] * a * dinv[None, :]
    return a @ x @ p["weight"] + p.get("bias", 0)


def ref_sage(x, ei, p, aggr):
    a = _counts(ei)
    if aggr == "max":
        agg = np.stack([x[a[d] > 0].max(0) if (a[d] > 0).any() else np.zeros(x.shape[1])
                        for d in range(N)])
    else:
        agg = a @ x
        if aggr == "mean":
            deg = a.sum(1, keepdims=True)
            agg = np.where(deg > 0, agg / np.maximum(deg, 1), 0.0)
    out = agg @ p["weight"] + p.get("bias", 0)
    return out + x @ p["root"] if "root" in p else out


def ref_gat(x, ei, p, heads, c, concat, slope, self_loops=True):
    m = _counts(ei) + (np.eye(N) if self_loops else 0)
    z = (x @ p["weight"]).reshape(N, heads, c)
    ss = (z * p["att_src"]).sum(-1)            # [N, H]
    sd = (z * p["att_dst"]).sum(-1)
    s = sd[:, None, :] + ss[None, :, :]        # [d, s, H]
    s = np.where(s > 0, s, slope * s)
    w = m[:, :, None] * np.exp(s - s.max(axis=1, keepdims=True))
    tot = w.sum(1, keepdims=True)
    alpha = np.where(tot > 0, w / np.where(tot > 0, tot, 1), 0.0)
    out = np.einsum("dsh,shc->dhc", alpha, z)
    out = out.reshape(N, heads * c) if concat else out.mean(1)
    return out + p.get("bias", 0)


def _x(seed, f=5):
    return np.random.default_rng(100 + seed).normal(size=(N, f))


def _randomize(layer, seed):
    """Non-zero biases, so the reference checks where they enter."""
    rng = np.random.default_rng(seed)
    for _, prm in layer.named_parameters():
        prm.set_value(rng.normal(size=prm.shape).astype(prm.numpy().dtype))
    return layer


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("kw", [{}, {"add_self_loops": False}, {"normalize": False},
                                {"bias": False}])
def test_gcn_matches_dense(seed, kw):
    ei, x = _graph(seed), _x(seed)
    conv = _randomize(GCNConv(5, 3, **kw).double(), seed)
    got = conv(weft.to_tensor(x), weft.to_tensor(ei)).numpy()
    want = ref_gcn(x, ei, _params(conv), kw.get("add_self_loops", True),
                   kw.get("normalize", True))
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("aggr", ["mean", "sum", "max"])
@pytest.mark.parametrize("root_weight", [True, False])
def test_sage_matches_dense(aggr, root_weight):
    for seed in (0, 1):
        ei, x = _graph(seed), _x(seed)
        conv = _randomize(SAGEConv(5, 3, aggr=aggr, root_weight=root_weight).double(), seed)
        got = conv(weft.to_tensor(x), weft.to_tensor(ei)).numpy()
        np.testing.assert_allclose(got, ref_sage(x, ei, _params(conv), aggr), rtol=1e-10,
                                   atol=1e-12)


@pytest.mark.parametrize("aggr", ["mean", "sum", "max"])
@pytest.mark.parametrize("fo", [2, 9])
def test_sage_bipartite_matches_dense(aggr, fo):
    """A sampled block: 9 source nodes, 4 destinations, a repeated edge and a
    destination without in-edges. With 2 outputs the layer projects before
    aggregating, with 9 it aggregates first: both orders are checked, with gradients."""
    rng = np.random.default_rng(7)
    ns, nd = 9, 4
    src = np.concatenate([rng.integers(0, ns, 20), [8, 8]])
    dst = np.concatenate([rng.integers(0, nd - 1, 20), [1, 1]])
    ei = weft.to_tensor(np.stack([src, dst]))
    xs, xd = rng.normal(size=(ns, 5)), rng.normal(size=(nd, 5))
    conv = _randomize(SAGEConv(5, fo, aggr=aggr).double(), 3)
    assert conv._aggregate_first(ns, nd, len(src)) == (fo == 9)
    got = conv((weft.to_tensor(xs), weft.to_tensor(xd)), ei).numpy()
    a = np.zeros((nd, ns))
    np.add.at(a, (dst, src), 1.0)
    if aggr == "max":
        agg = np.stack([xs[a[d] > 0].max(0) if a[d].any() else np.zeros(5) for d in range(nd)])
    else:
        agg = a @ xs / (np.maximum(a.sum(1, keepdims=True), 1) if aggr == "mean" else 1)
    p = _params(conv)
    want = agg @ p["weight"] + p["bias"] + xd @ p["root"]
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)
    ts = weft.to_tensor(xs, stop_gradient=False)
    td = weft.to_tensor(xd, stop_gradient=False)
    assert gradcheck(lambda u, v: conv((u, v), ei), [ts, td])
    with pytest.raises(IndexError, match="SAGEConv: edge_index holds destination id 4, out "
                                         "of range for 4 destination nodes"):
        conv((weft.to_tensor(xs), weft.to_tensor(xd)), weft.to_tensor([[0, 8], [4, 0]]))
    with pytest.raises(IndexError, match="SAGEConv: edge_index holds source id 9"):
        conv((weft.to_tensor(xs), weft.to_tensor(xd)), weft.to_tensor([[9], [0]]))
    with pytest.raises(ValueError, match=r"SAGEConv: x must be a tensor or a pair"):
        conv((weft.to_tensor(xs),) * 3, ei)


@pytest.mark.parametrize("heads,concat", [(1, True), (3, True), (2, False)])
@pytest.mark.parametrize("self_loops", [True, False])
def test_gat_matches_dense(heads, concat, self_loops):
    for seed in (0, 1):
        ei, x = _graph(seed), _x(seed)
        conv = _randomize(GATConv(5, 4, heads=heads, concat=concat, negative_slope=0.3,
                                  add_self_loops=self_loops).double(), seed)
        got = conv(weft.to_tensor(x), weft.to_tensor(ei)).numpy()
        want = ref_gat(x, ei, _params(conv), heads, 4, concat, 0.3, self_loops)
        assert got.shape == (N, heads * 4 if concat else 4)
        np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12)


def _check_grads(layer, ei):
    """gradcheck in x and in every parameter (swapped in for the perturbed copies)."""
    names = [k for k, _ in layer.named_parameters()]
    orig = [layer._parameters[k] for k in names]
    x = weft.to_tensor(_x(3), stop_gradient=False)

    def f(x, *ps):
        for k, p in zip(names, ps):
            layer._parameters[k] = p
        try:
            return layer(x, ei)
        finally:
            for k, p in zip(names, orig):
                layer._parameters[k] = p

    assert gradcheck(f, [x, *orig], fast_mode=False)


@pytest.mark.parametrize("make", [
    lambda: GCNConv(5, 3), lambda: SAGEConv(5, 3), lambda: SAGEConv(5, 3, aggr="max"),
    lambda: GATConv(5, 2, heads=2), lambda: GATConv(5, 2, heads=2, concat=False)],
    ids=["gcn", "sage_mean", "sage_max", "gat", "gat_mean"])
def test_gradcheck(make):
    _check_grads(_randomize(make().double(), 5), weft.to_tensor(_graph(2)))


def test_gcn_cached_normalisation_reused():
    ei = weft.to_tensor(_graph(0))
    x = weft.to_tensor(_x(0))
    conv = GCNConv(5, 3, cached=True).double()
    first = conv._edge_weights(ei, None, N, np.dtype("float64"))
    a = conv(x, ei)
    assert conv._edge_weights(ei, None, N, np.dtype("float64")) is first
    np.testing.assert_array_equal(conv(x, ei).numpy(), a.numpy())
    other = weft.to_tensor(_graph(1))          # a new edge_index object: recomputed
    assert conv._edge_weights(other, None, N, np.dtype("float64")) is not first
    plain = GCNConv(5, 3).double()
    assert plain._edge_weights(ei, None, N, np.dtype("float64")) is not \
        plain._edge_weights(ei, None, N, np.dtype("float64"))
    # the cache does not stop gradients reaching the weight
    conv.clear_gradients()
    conv(x, ei).sum().backward()
    assert conv.weight.grad is not None


def test_gcn_edge_weight():
    ei = _graph(0)
    w = np.random.default_rng(0).uniform(0.5, 2.0, ei.shape[1])
    x = _x(0)
    conv = GCNConv(5, 3).double()
    got = conv(weft.to_tensor(x), weft.to_tensor(ei), weft.to_tensor(w)).numpy()
    a = np.zeros((N, N))
    np.add.at(a, (ei[1], ei[0]), w)
    a += np.eye(N)
    dinv = a.sum(1) ** -0.5
    want = dinv[:, None] * a * dinv[None, :] @ x @ conv.weight.numpy()
    np.testing.assert_allclose(got, want, rtol=1e-10)


@pytest.mark.parametrize("layout", ["csr", "coo"])
def test_sparse_features_match_dense(layout):
    ei = weft.to_tensor(_graph(1))
    x = _x(1) * (np.random.default_rng(1).random((N, 5)) < 0.4)
    xs = weft.to_tensor(x).to_sparse_csr() if layout == "csr" else \
        weft.to_tensor(x).to_sparse_coo(2)
    for conv in (GCNConv(5, 3).double(), GATConv(5, 2, heads=2).double(),
                 SAGEConv(5, 3, aggr="sum").double()):
        dense = conv(weft.to_tensor(x), ei)
        (gd,) = weft.grad(dense.sum(), [conv.weight])
        sparse = conv(xs, ei)
        (gs,) = weft.grad(sparse.sum(), [conv.weight])
        np.testing.assert_allclose(sparse.numpy(), dense.numpy(), rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(gs.numpy(), gd.numpy(), rtol=1e-10, atol=1e-12)


def test_edge_softmax():
    rng = np.random.default_rng(0)
    dst = np.array([3, 0, 3, 3, 1, 0])
    logits = rng.normal(size=(6, 2)) * 30      # large: the shift keeps exp finite
    got = edge_softmax(weft.to_tensor(logits), weft.to_tensor(dst), 5).numpy()
    want = np.empty_like(logits)
    for d in np.unique(dst):
        e = np.exp(logits[dst == d] - logits[dst == d].max(0))
        want[dst == d] = e / e.sum(0)
    np.testing.assert_allclose(got, want, rtol=1e-12)
    t = weft.to_tensor(rng.normal(size=6), stop_gradient=False)
    assert gradcheck(lambda v: edge_softmax(v, weft.to_tensor(dst), 5), [t])
    empty = edge_softmax(weft.zeros([0, 2], "float64"), weft.to_tensor(np.zeros(0, np.int64)), 3)
    assert empty.shape == [0, 2]


def test_gat_attention_dropout_only_in_training():
    ei, x = weft.to_tensor(_graph(0)), weft.to_tensor(_x(0))
    conv = GATConv(5, 2, heads=2, dropout=0.5).double()
    conv.eval()
    np.testing.assert_array_equal(conv(x, ei).numpy(), conv(x, ei).numpy())
    conv.train()
    weft.seed(0)
    a = conv(x, ei).numpy()
    conv.eval()
    assert not np.allclose(a, conv(x, ei).numpy())


def test_bad_input():
    conv = GCNConv(5, 3)
    x = weft.ones([4, 5])
    with pytest.raises(IndexError, match="GCNConv: edge_index holds node id 4"):
        conv(x, weft.to_tensor([[0, 4], [1, 2]]))
    with pytest.raises(ValueError, match=r"GCNConv: edge_index must have shape \[2, E\]"):
        conv(x, weft.to_tensor([[0, 1, 2]]))
    with pytest.raises(TypeError, match="GCNConv: edge_index must be int32 or int64"):
        conv(x, weft.to_tensor([[0.0], [1.0]]))
    with pytest.raises(ValueError, match="GCNConv: x has 4 features but the layer expects 5"):
        conv(weft.ones([4, 4]), weft.to_tensor([[0], [1]]))
    with pytest.raises(ValueError, match="GCNConv: x must be 2-D"):
        conv(weft.ones([5]), weft.to_tensor([[0], [1]]))
    with pytest.raises(ValueError, match="SAGEConv: aggr must be"):
        SAGEConv(2, 2, aggr="min")
    with pytest.raises(TypeError, match="SAGEConv: aggr='max' needs a dense x"):
        SAGEConv(5, 2, aggr="max")(weft.ones([4, 5]).to_sparse_csr(), weft.to_tensor([[0], [1]]))
    with pytest.raises(ValueError, match="GATConv: dropout must be"):
        GATConv(2, 2, dropout=1.0)
    with pytest.raises(ValueError, match="GATConv: heads must be >= 1"):
        GATConv(2, 2, heads=0)
    with pytest.raises(TypeError, match="GCNConv: cached must be a bool"):
        GCNConv(2, 2, cached=1)
    with pytest.raises(IndexError, match="edge_softmax: dst_index holds ids outside"):
        edge_softmax(weft.ones([2]), weft.to_tensor([0, 3]), 3)
