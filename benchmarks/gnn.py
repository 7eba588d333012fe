"""GNN training benchmarks: ``python -m benchmarks gnn``.

(a) Full-batch GCN epoch on Cora (forward + backward + Adam step; the model of
    ``python -m weft.examples.gcn``: 2 layers, 16 hidden, dropout 0.5 on the input
    and the hidden layer, weight decay 5e-4 on the first layer, row-normalised
    features). weft against a plain PyTorch version written here (normalised
    adjacency ``D^-1/2 (A+I) D^-1/2`` as ``torch.sparse_csr_tensor``, ``torch.sparse.mm``,
    ``nn.Linear``, Adam) with the features dense (``torch``) and as a CSR tensor too
    (``torch spX``, whose dropout acts on the stored values as weft's does), and
    against PyG's ``GCNConv`` (cached, dense features) when torch_geometric is
    importable. After timing, each implementation trains a fresh model for 200
    epochs and reports its test accuracy, to show they are the same model.
(b) GraphSAGE mini-batch training step on the synthetic graph of
    ``weft.datasets.synthetic_graph`` (200,000 nodes, 4,000,000 edges, 32 features,
    8 classes): 1024 seeds, 2-hop sampling (25, 10), two mean-SAGE layers (64
    hidden), cross-entropy, backward, Adam, sampling included. weft (the code of
    ``python -m weft.examples.graphsage``) against PyG's ``NeighborLoader`` +
    ``SAGEConv`` when torch_geometric has a sampler backend (pyg-lib or
    torch-sparse), else against Paddle's pipeline (``paddle.geometric.sample_neighbors``
    + ``reindex_graph`` + a SAGE layer of ``send_u_recv`` and ``paddle.nn.Linear``).
    Every library sees the same graph and the same sequence of seed batches;
    the mean sampled sizes of both are printed and checked to agree.

Threads: every case runs at the libraries' default thread counts and again with all
of them on one thread (rows marked ``1t``: weft's kernels, numpy's OpenBLAS, torch;
Paddle's CPU ops use one thread by default). On a loaded machine the one-thread
rows are the steadier comparison: a multi-threaded BLAS call waits for its slowest
thread, which a busy scheduler may not run for milliseconds. The load average at
the start is recorded in the notes.
"""
from __future__ import annotations

import contextlib
import ctypes
import os
import warnings

import numpy as np

from ._harness import Report, optional_import, timeit

CASE_GCN = "GCN epoch, Cora (fwd+bwd+Adam)"
CASE_SAGE = "GraphSAGE step, 1024 seeds (25,10), 200k/4M"
N_NODES, N_EDGES, FEATS, CLASSES, HIDDEN, BATCH, FANOUT = (
    200_000, 4_000_000, 32, 8, 64, 1024, (25, 10))
GCN_EPOCHS = 200


# ---------------------------------------------------------------------------------
# thread control

def _openblas_setter():
    """numpy's bundled OpenBLAS thread setter (None where numpy uses another BLAS)."""
    try:
        with open("/proc/self/maps") as f:
            libs = {ln.split()[-1] for ln in f if "openblas" in ln.lower()}
    except OSError:
        return None
    for path in sorted(libs):
        lib = ctypes.CDLL(path)
        for prefix in ("scipy_openblas", "openblas"):
            for suffix in ("64_", ""):
                get = getattr(lib, f"{prefix}_get_num_threads{suffix}", None)
                put = getattr(lib, f"{prefix}_set_num_threads{suffix}", None)
                if get is not None and put is not None:
                    return get, lambda n, put=put: put(ctypes.c_int(n))
    return None


@contextlib.contextmanager
def _one_thread():
    """Every library on one thread for the duration (restored afterwards)."""
    import weft

    torch = optional_import("torch")
    blas = _openblas_setter()
    saved = (weft.get_num_threads(), torch.get_num_threads() if torch else None,
             blas[0]() if blas else None)
    weft.set_num_threads(1)
    if torch is not None:
        torch.set_num_threads(1)
    if blas is not None:
        blas[1](1)
    try:
        yield
    finally:
        weft.set_num_threads(saved[0])
        if torch is not None:
            torch.set_num_threads(saved[1])
        if blas is not None:
            blas[1](saved[2])


THREADS = (("", contextlib.nullcontext), (" 1t", _one_thread))


# ---------------------------------------------------------------------------------
# (a) GCN on Cora

def _weft_gcn(data, seed=0):
    """(epoch, test_accuracy) closures for weft's GCN of the example."""
    import weft
    from weft.examples import gcn
    from weft.nn import functional as F

    weft.seed(seed)
    x = gcn.row_normalize(data.x)
    model = gcn.GCN(data.num_features, 16, data.num_classes, 0.5)
    rest = [q for q in model.parameters() if q is not model.conv1.weight]
    opt = weft.optimizer.Adam(learning_rate=0.01, parameters=[
        {"params": [model.conv1.weight], "weight_decay": 5e-4},
        {"params": rest, "weight_decay": 0.0}])
    y, ei, tr, te = data.y, data.edge_index, data.train_index, data.test_index

    def epoch():
        model.train()
        loss = F.cross_entropy(model(x, ei)[tr], y[tr])
        loss.backward()
        opt.step()
        opt.clear_grad()

    def test_acc():
        model.eval()
        with weft.no_grad():
            pred = model(x, ei)[te].argmax(axis=-1)
        return float((pred == y[te]).astype("float32").mean().item())
    return epoch, test_acc


def _cora_arrays(data):
    """Row-normalised features (CSR parts) and the normalised adjacency with self
    loops as CSR parts (rows = destinations), in numpy."""
    from weft.examples.gcn import row_normalize

    x = row_normalize(data.x)
    n = data.num_nodes
    ei = data.edge_index.numpy()
    loop = np.arange(n)
    src, dst = np.concatenate([ei[0], loop]), np.concatenate([ei[1], loop])
    deg = np.bincount(dst, minlength=n).astype(np.float64)
    w = (deg[src] ** -0.5 * deg[dst] ** -0.5).astype(np.float32)
    order = np.lexsort((src, dst))
    crow = np.zeros(n + 1, np.int64)
    np.cumsum(np.bincount(dst, minlength=n), out=crow[1:])
    return dict(x=(x.crows().numpy(), x.cols().numpy(), x.values().numpy(), x.shape),
                adj=(crow, src[order].astype(np.int64), w[order]), n=n,
                y=data.y.numpy(), tr=data.train_index.numpy(), te=data.test_index.numpy(),
                ei=ei, classes=data.num_classes)


def _torch_gcn(torch, a, sparse_x, seed=0):
    nn, F = torch.nn, torch.nn.functional
    torch.manual_seed(seed)
    n = a["n"]
    crow, col, vals, shape = a["x"]
    xs = [torch.from_numpy(crow), torch.from_numpy(col.astype(np.int64)),
          torch.from_numpy(vals)]
    x_dense = torch.sparse_csr_tensor(*xs, size=tuple(shape)).to_dense()
    adj = torch.sparse_csr_tensor(*(torch.from_numpy(v) for v in a["adj"]), size=(n, n))
    y, tr, te = (torch.from_numpy(a[k]) for k in ("y", "tr", "te"))

    class GCN(nn.Module):
        def __init__(self):
            super().__init__()
            # the bias comes after propagation (A (XW) + b), so Linear has none
            self.lin1 = nn.Linear(shape[1], 16, bias=False)
            self.lin2 = nn.Linear(16, a["classes"], bias=False)
            self.b1 = nn.Parameter(torch.zeros(16))
            self.b2 = nn.Parameter(torch.zeros(a["classes"]))

        def forward(self):
            if sparse_x:
                v = F.dropout(xs[2], 0.5, self.training)
                h = torch.sparse.mm(torch.sparse_csr_tensor(xs[0], xs[1], v, size=tuple(shape)),
                                    self.lin1.weight.t())
            else:
                h = self.lin1(F.dropout(x_dense, 0.5, self.training))
            h = F.relu(torch.sparse.mm(adj, h) + self.b1)
            h = self.lin2(F.dropout(h, 0.5, self.training))
            return torch.sparse.mm(adj, h) + self.b2

    model = GCN()
    rest = [p for p in model.parameters() if p is not model.lin1.weight]
    opt = torch.optim.Adam([{"params": [model.lin1.weight], "weight_decay": 5e-4},
                            {"params": rest, "weight_decay": 0.0}], lr=0.01)
    return _torch_loop(torch, model, (), opt, y, tr, te)


def _torch_loop(torch, model, inputs, opt, y, tr, te):
    F = torch.nn.functional

    def epoch():
        model.train()
        loss = F.cross_entropy(model(*inputs)[tr], y[tr])
        opt.zero_grad()
        loss.backward()
        opt.step()

    def test_acc():
        model.eval()
        with torch.no_grad():
            return float((model(*inputs)[te].argmax(-1) == y[te]).float().mean())
    return epoch, test_acc


def _pyg_gcn(torch, pyg_nn, a, seed=0):
    F = torch.nn.functional
    torch.manual_seed(seed)
    crow, col, vals, shape = a["x"]
    x = torch.sparse_csr_tensor(torch.from_numpy(crow), torch.from_numpy(col.astype(np.int64)),
                                torch.from_numpy(vals), size=tuple(shape)).to_dense()
    ei = torch.from_numpy(a["ei"].astype(np.int64))
    y, tr, te = (torch.from_numpy(a[k]) for k in ("y", "tr", "te"))

    class GCN(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = pyg_nn.GCNConv(shape[1], 16, cached=True)
            self.conv2 = pyg_nn.GCNConv(16, a["classes"], cached=True)

        def forward(self, x, ei):
            h = F.relu(self.conv1(F.dropout(x, 0.5, self.training), ei))
            return self.conv2(F.dropout(h, 0.5, self.training), ei)

    model = GCN()
    opt = torch.optim.Adam([{"params": model.conv1.parameters(), "weight_decay": 5e-4},
                            {"params": model.conv2.parameters(), "weight_decay": 0.0}],
                           lr=0.01)
    return _torch_loop(torch, model, (x, ei), opt, y, tr, te)


def _accuracy_after_training(make):
    epoch, test_acc = make()
    for _ in range(GCN_EPOCHS):
        epoch()
    return test_acc()


def bench_gcn(rep, quick):
    import weft

    data = weft.datasets.Planetoid("cora")
    a = _cora_arrays(data)
    makers = {"weft": lambda: _weft_gcn(data)}
    torch = optional_import("torch")
    if torch is not None:
        # torch flags its CSR support as beta and its invariant checks as off
        warnings.filterwarnings("ignore", message="Sparse (CSR tensor support|invariant)")
        makers["torch"] = lambda: _torch_gcn(torch, a, sparse_x=False)
        makers["torch spX"] = lambda: _torch_gcn(torch, a, sparse_x=True)
        pyg = optional_import("torch_geometric")
        if pyg is not None:
            import torch_geometric.nn as pyg_nn
            makers["PyG"] = lambda: _pyg_gcn(torch, pyg_nn, a)
        else:
            rep.note("torch_geometric not installed: no PyG GCNConv comparison")
    else:
        rep.note("torch not installed: no PyTorch GCN comparison")
    repeat, number = (3, 5) if quick else (15, 10)
    accs = {}
    for suffix, ctx in THREADS:
        for impl, make in makers.items():
            with ctx():
                epoch, _ = make()
                rep.add(CASE_GCN, impl + suffix, timeit(epoch, repeat, number, warmup=3))
                if not quick and not suffix:
                    accs[impl] = _accuracy_after_training(make)
    if accs:
        rep.note(f"GCN Cora test accuracy after {GCN_EPOCHS} epochs (seed 0): "
                 + ", ".join(f"{k} {100 * v:.1f}%" for k, v in accs.items()))
    return accs


# ---------------------------------------------------------------------------------
# (b) GraphSAGE mini-batch on the synthetic graph

def _batches(train, count, seed=1):
    rng = np.random.default_rng(seed)
    return [rng.choice(train, BATCH, replace=False) for _ in range(count)]


def _cycle(batches):
    state = {"i": 0}

    def nxt():
        b = batches[state["i"] % len(batches)]
        state["i"] += 1
        return b
    return nxt


def _weft_sage(g, batches):
    import weft
    from weft.examples.graphsage import GraphSAGE, sample_blocks
    from weft.nn import functional as F

    weft.seed(0)
    model = GraphSAGE([FEATS, HIDDEN, CLASSES])
    opt = weft.optimizer.Adam(learning_rate=0.01, parameters=model.parameters())
    nxt, sizes = _cycle([weft.to_tensor(b) for b in batches]), []

    def step():
        seeds = nxt()
        sampled, blocks, hop = sample_blocks(g.row, g.colptr, seeds, FANOUT)
        loss = F.cross_entropy(model.forward_blocks(g.x[sampled], blocks), g.y[seeds])
        loss.backward()
        opt.step()
        opt.clear_grad()
        sizes.append(hop)
    return step, sizes


def _paddle_sage(paddle, g, batches):
    geo, F = paddle.geometric, paddle.nn.functional
    paddle.seed(0)

    class SAGE(paddle.nn.Layer):
        """mean-SAGE on a block: lin_l(mean of source features) + lin_r(x_dst)."""

        def __init__(self, fin, fout):
            super().__init__()
            self.lin_l = paddle.nn.Linear(fin, fout)
            self.lin_r = paddle.nn.Linear(fin, fout, bias_attr=False)

        def forward(self, x, src, dst, n_dst):
            agg = geo.send_u_recv(x, src, dst, reduce_op="mean", out_size=n_dst)
            return self.lin_l(agg) + self.lin_r(x[:n_dst])

    convs = paddle.nn.LayerList([SAGE(FEATS, HIDDEN), SAGE(HIDDEN, CLASSES)])
    opt = paddle.optimizer.Adam(learning_rate=0.01, parameters=convs.parameters())
    row, colptr = paddle.to_tensor(g.row.numpy()), paddle.to_tensor(g.colptr.numpy())
    x, y = paddle.to_tensor(g.x.numpy()), paddle.to_tensor(g.y.numpy())
    nxt, sizes = _cycle([paddle.to_tensor(b) for b in batches]), []

    def step():
        seeds = nxt()
        nodes, blocks, hop = seeds, [], []
        for k in FANOUT:
            nbrs, cnt = geo.sample_neighbors(row, colptr, nodes, sample_size=k)
            src, dst, out = geo.reindex_graph(nodes, nbrs, cnt)
            blocks.append((src, dst, nodes.shape[0]))
            hop.append((out.shape[0], src.shape[0]))
            nodes = out
        h = paddle.gather(x, nodes)
        for i, (conv, (src, dst, n_dst)) in enumerate(zip(convs, blocks[::-1])):
            h = conv(h, src, dst, n_dst)
            if i + 1 < len(convs):
                h = F.relu(h)
        loss = F.cross_entropy(h, paddle.gather(y, seeds))
        loss.backward()
        opt.step()
        opt.clear_grad()
        sizes.append(hop)
    return step, sizes


def _pyg_sampler_backend():
    for name in ("pyg_lib", "torch_sparse"):
        if optional_import(name) is not None:
            return name
    return None


def _pyg_sage(torch, g, batches):
    from torch_geometric.data import Data
    from torch_geometric.loader import NeighborLoader
    from torch_geometric.nn import SAGEConv

    F = torch.nn.functional
    torch.manual_seed(0)
    data = Data(x=torch.from_numpy(g.x.numpy()), y=torch.from_numpy(g.y.numpy()),
                edge_index=torch.from_numpy(g.edge_index.numpy()))
    seeds = torch.from_numpy(np.concatenate(batches))
    loader = NeighborLoader(data, num_neighbors=list(FANOUT), input_nodes=seeds,
                            batch_size=BATCH, shuffle=False)
    convs = torch.nn.ModuleList([SAGEConv(FEATS, HIDDEN), SAGEConv(HIDDEN, CLASSES)])
    opt = torch.optim.Adam(convs.parameters(), lr=0.01)
    state, sizes = {"it": iter(loader)}, []

    def step():
        try:
            b = next(state["it"])
        except StopIteration:
            state["it"] = iter(loader)
            b = next(state["it"])
        h = b.x
        for i, conv in enumerate(convs):
            h = conv(h, b.edge_index)
            if i + 1 < len(convs):
                h = F.relu(h)
        loss = F.cross_entropy(h[:b.batch_size], b.y[:b.batch_size])
        opt.zero_grad()
        loss.backward()
        opt.step()
        sizes.append([(int(b.num_nodes), int(b.edge_index.shape[1]))])
    return step, sizes


def bench_sage(rep, quick):
    import weft

    g = weft.datasets.synthetic_graph(N_NODES, N_EDGES, FEATS, CLASSES, seed=0)
    batches = _batches(g.train_index.numpy(), 8)
    repeat = 3 if quick else 11
    peers = {"weft": _weft_sage(g, batches)}
    torch, backend = optional_import("torch"), None
    if torch is not None and optional_import("torch_geometric") is not None:
        backend = _pyg_sampler_backend()
    if backend is not None:
        peers["PyG"] = _pyg_sage(torch, g, batches)
        rep.note(f"GraphSAGE peer: PyG NeighborLoader ({backend}) + SAGEConv")
    else:
        paddle = optional_import("paddle")
        if paddle is not None:
            peers["paddle"] = _paddle_sage(paddle, g, batches)
            rep.note("GraphSAGE peer: Paddle sample_neighbors + reindex_graph + send_u_recv "
                     "SAGE (torch_geometric has no sampler backend here: pyg-lib and "
                     "torch-sparse are not installed)")
        else:
            rep.note("neither PyG with a sampler backend nor paddle installed: no peer")
    rates = {}
    for suffix, ctx in THREADS:
        for impl, (step, sizes) in peers.items():
            if suffix and impl == "paddle":
                continue    # Paddle's CPU ops run on one thread already
            with ctx():
                t = timeit(step, repeat, 1, warmup=2)
            rates[impl + suffix] = BATCH / t
            rep.add(CASE_SAGE, impl + suffix, t, seeds_per_s=BATCH / t,
                    mean_sizes=np.mean(np.asarray(sizes, dtype=np.float64), axis=0).tolist())
    for r in rep.rows:
        if r["case"] == CASE_SAGE:
            rep.note(f"{r['impl']}: {r['seeds_per_s']:,.0f} seeds/s; mean sampled "
                     "(nodes, edges) per hop " + ", ".join(f"({n:,.0f}, {e:,.0f})"
                                                           for n, e in r["mean_sizes"]))
    _check_sizes(rep)
    return rates


def _check_sizes(rep):
    """Both pipelines sample the same amount: the first hop's edge counts are
    min(25, in-degree) summed over the same seeds, the node counts are random but
    must agree within a few percent."""
    rows = [r for r in rep.rows if r["case"] == CASE_SAGE]
    base = rows[0]["mean_sizes"]
    for r in rows[1:]:
        if len(r["mean_sizes"]) != len(base):     # PyG reports the whole subgraph
            continue
        for (n0, e0), (n1, e1) in zip(base, r["mean_sizes"]):
            assert abs(n0 - n1) <= 0.05 * n0 and abs(e0 - e1) <= 0.05 * e0, (base, r)


def run(rep=None, quick=False):
    rep = rep if rep is not None else Report("gnn")
    import weft

    rep.note(f"load average at start {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs; "
             f"default threads: weft {weft.get_num_threads()}, OpenBLAS "
             f"{(_openblas_setter() or (lambda: '?',))[0]()}")
    bench_gcn(rep, quick)
    bench_sage(rep, quick)
    return rep


def summary(rep):
    lines = []
    for suffix, _ in THREADS:
        for peer in ("torch", "torch spX", "PyG"):
            r = rep.ratio(CASE_GCN, peer + suffix, "weft" + suffix)
            if r is not None:
                goal = "" if peer == "PyG" else f" (goal >= 1: {'met' if r >= 1 else 'NOT met'})"
                lines.append(f"{CASE_GCN}: {peer}{suffix} / weft{suffix} time = {r:.2f}x{goal}")
    for suffix, _ in THREADS:
        for peer in ("PyG", "paddle"):
            # Paddle has one row (one thread either way)
            r = rep.ratio(CASE_SAGE, peer if peer == "paddle" else peer + suffix,
                          "weft" + suffix)
            if r is not None:
                lines.append(f"{CASE_SAGE}: weft{suffix} / {peer} seeds/s = {r:.2f}x "
                             f"(goal > 1: {'met' if r > 1 else 'NOT met'})")
    return lines

