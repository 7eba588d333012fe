"""DistGraph and DistCSR on a LocalCluster of 2 worker processes: sampling equal to
the single-machine samplers under one seed for 1, 2 and 3 parts, features, the
row-partitioned product and its gradients against weft.sparse.matmul, a full-batch
GCN step, a worker killed mid-run, and bad input.  Every wait is bounded."""
import os
import signal
import threading
import time

import numpy as np
import pytest

dd = pytest.importorskip("dask.distributed",
                         reason="dask.distributed is not installed (extra weft[distributed])")

import scipy.sparse as sp  # noqa: E402

import weft  # noqa: E402
from weft.geometric import khop_sampler, sample_neighbors  # noqa: E402
from weft.geometric.distributed import DistCSR, DistGraph, partition_graph  # noqa: E402

TIMEOUT = 30


@pytest.fixture(scope="module")
def client():
    cluster = dd.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                              dashboard_address=":0", worker_dashboard_address=":0")
    c = dd.Client(cluster, timeout=TIMEOUT)
    c.wait_for_workers(2, timeout=TIMEOUT)
    yield c
    c.close(timeout=TIMEOUT)
    cluster.close(timeout=TIMEOUT)


@pytest.fixture(scope="module")
def graph():
    return weft.datasets.synthetic_graph(400, 4000, 3, 4, seed=2)


@pytest.fixture(scope="module")
def parted(graph, tmp_path_factory):
    """{num_parts: directory} for 1, 2 and 3 parts (bfs, features stored)."""
    out = {}
    for k in (1, 2, 3):
        d = tmp_path_factory.mktemp(f"parts{k}")
        partition_graph((graph.row, graph.colptr), None, k, d, method="bfs" if k != 2 else "hash",
                        features=graph.x)
        out[k] = d
    return out


def _same(a, b):
    assert len(a) == len(b)
    for x, y in zip(a, b):
        assert x.numpy().dtype == y.numpy().dtype
        np.testing.assert_array_equal(x.numpy(), y.numpy())
        flags = y.numpy().flags      # results are ordinary arrays, whatever Dask handed over
        assert flags.writeable and flags.aligned and flags.c_contiguous


@pytest.mark.parametrize("parts,one_worker", [(1, False), (2, False), (3, False), (3, True)])
def test_sampling_equals_single_machine(client, graph, parted, parts, one_worker):
    g = graph
    eids = weft.to_tensor(np.arange(g.num_edges))
    seeds = weft.to_tensor(np.array([5, 17, 3, 399, 5, 250, 0, 123, 77]))
    workers = sorted(client.nthreads())[:1] if one_worker else None
    with DistGraph(client, parted[parts], timeout=TIMEOUT, workers=workers) as dg:
        for k in (3, -1, 0):
            weft.seed(7)
            a = sample_neighbors(g.row, g.colptr, seeds, k, eids=eids, return_eids=True)
            weft.seed(7)
            b = dg.sample_neighbors(seeds, k, return_eids=True)
            _same(a, b)
        for sizes in ([5, 3], [2, -1, 2]):
            weft.seed(11)
            a = khop_sampler(g.row, g.colptr, seeds, sizes, sorted_eids=eids, return_eids=True)
            weft.seed(11)
            b = dg.khop_sampler(seeds, sizes, return_eids=True)
            _same(a, b)
        # consecutive calls continue the same generator stream on both paths
        weft.seed(3)
        a1 = khop_sampler(g.row, g.colptr, seeds, [4, 4])
        a2 = sample_neighbors(g.row, g.colptr, seeds, 2)
        weft.seed(3)
        b1 = dg.khop_sampler(seeds, [4, 4])
        b2 = dg.sample_neighbors(seeds, 2)
        _same(a1, b1)
        _same(a2, b2)
        # one task per part that owns a node of the batch, never one per node
        dg.reset_stats()
        dg.sample_neighbors(weft.to_tensor(np.arange(400)), 2)
        assert dg.stats["tasks"] == parts
        assert len(set(dg.part_workers)) == (1 if one_worker else min(parts, 2))


def test_int32_graph_and_features(client, graph, tmp_path):
    g = graph
    row = g.row.numpy().astype(np.int32)
    colptr = g.colptr.numpy().astype(np.int32)
    partition_graph((row, colptr), None, 3, tmp_path, method="range", features=g.x)
    seeds32 = weft.to_tensor(np.array([9, 8, 300], np.int32))
    with DistGraph(client, tmp_path, timeout=TIMEOUT) as dg:
        weft.seed(0)
        a = khop_sampler(weft.to_tensor(row), weft.to_tensor(colptr), seeds32, [3, 3])
        weft.seed(0)
        _same(a, dg.khop_sampler(seeds32, [3, 3]))
        ids = np.array([399, 0, 0, 201, 57, 399])
        f = dg.fetch_features(weft.to_tensor(ids))
        np.testing.assert_array_equal(f.numpy(), g.x.numpy()[ids])
        assert f.numpy().dtype == np.float32
        assert dg.fetch_features(np.zeros(0, np.int64)).shape == [0, 3]
        st = dg.part_stats()
        assert sum(s["nodes"] for s in st) == 400 and sum(s["edges"] for s in st) == 4000


def _csr(n, m, density, seed, dtype=np.float64):
    a = sp.random(n, m, density, format="csr", random_state=seed, dtype=dtype)
    a.sort_indices()
    return a


def _weft_csr(a):
    return weft.sparse.sparse_csr_tensor(a.indptr.astype(np.int64), a.indices.astype(np.int64),
                                         a.data, list(a.shape))


@pytest.mark.parametrize("mode", ["halo", "broadcast"])
def test_spmm_forward_backward(client, mode):
    a = _csr(60, 45, 0.08, 1)
    rng = np.random.default_rng(0)
    assign = rng.integers(0, 3, 60)
    x0 = rng.normal(size=(45, 4))
    d = DistCSR(client, a, assign, mode=mode, timeout=TIMEOUT)
    x = weft.to_tensor(x0, stop_gradient=False)
    y = d @ x
    ref_x = weft.to_tensor(x0, stop_gradient=False)
    ref = weft.sparse.matmul(_weft_csr(a), ref_x)
    # each row is computed whole, by the same kernel: bitwise equal
    np.testing.assert_array_equal(y.numpy(), ref.numpy())
    d.reset_stats()
    d @ x
    st = d.stats
    assert st["tasks"] == 2                                   # one call per worker
    assert st["bytes_received"] == y.numpy().nbytes          # each row comes back once
    # halo: each part gets the rows of X its columns touch (here fewer than all)
    assert x0[:44].nbytes < st["bytes_sent"] <= (3 if mode == "halo" else 2) * x0.nbytes + 2000
    w = weft.to_tensor(rng.normal(size=(60, 4)))
    (y * w).sum().backward()
    (ref * w).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), ref_x.grad.numpy(), rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(x.grad.numpy(), a.T @ w.numpy(), rtol=1e-13, atol=1e-13)
    d.close()


def test_spmm_gradcheck_and_float32(client):
    a = _csr(7, 5, 0.4, 3)
    d = DistCSR(client, _weft_csr(a), 2, timeout=TIMEOUT)
    x = weft.to_tensor(np.random.default_rng(1).normal(size=(5, 2)), stop_gradient=False)
    assert weft.autograd.gradcheck(lambda t: d @ t, [x])
    assert weft.autograd.gradgradcheck(lambda t: d @ t, [x])
    a32 = _csr(30, 30, 0.1, 4, np.float32)
    d32 = DistCSR(client, a32, 2, mode="broadcast", timeout=TIMEOUT)
    x32 = np.random.default_rng(2).normal(size=(30, 3)).astype(np.float32)
    y = d32 @ weft.to_tensor(x32)
    assert y.numpy().dtype == np.float32
    np.testing.assert_allclose(y.numpy(), a32 @ x32, rtol=1e-5, atol=1e-6)
    one = DistCSR(client, a32, 1, timeout=TIMEOUT)           # the one-part fast path
    y1 = (one @ weft.to_tensor(x32)).numpy()
    assert y1.flags.writeable and y1.flags.aligned
    np.testing.assert_array_equal(y1, y.numpy())


def test_gcn_full_batch_on_partitioned_graph(client, graph, parted):
    """Two Adam steps of a 2-layer GCN (mean aggregation over in-neighbours plus
    self) on the distributed adjacency match the single-machine run."""
    g = graph
    n = g.num_nodes
    src, dst = g.edge_index.numpy()
    adj = sp.csr_matrix((np.ones(src.size), (dst, src)), (n, n)) + sp.eye(n)
    adj = sp.diags(1.0 / np.asarray(adj.sum(1)).ravel()) @ adj
    adj = adj.tocsr().astype(np.float32)
    adj.sort_indices()
    info = weft.geometric.distributed.load_partitioning(parted[3])
    dist = DistCSR(client, adj, info, timeout=TIMEOUT)
    local = _weft_csr(adj)
    train = g.train_index

    def run(prop):
        weft.seed(0)
        w1 = weft.create_parameter([3, 8], "float32")
        w2 = weft.create_parameter([8, 4], "float32")
        opt = weft.optimizer.Adam(learning_rate=0.05, parameters=[w1, w2])
        losses = []
        for _ in range(2):
            h = weft.nn.functional.relu(prop(g.x @ w1))
            loss = weft.nn.functional.cross_entropy(prop(h @ w2)[train], g.y[train])
            loss.backward()
            opt.step()
            opt.clear_grad()
            losses.append(loss.item())
        return np.array(losses), w1.numpy()

    l_dist, w_dist = run(lambda t: dist @ t)
    l_ref, w_ref = run(lambda t: weft.sparse.matmul(local, t))
    np.testing.assert_allclose(l_dist, l_ref, rtol=1e-5)
    np.testing.assert_allclose(w_dist, w_ref, rtol=1e-4, atol=1e-6)


def test_bad_input(client, graph, parted, tmp_path):
    with DistGraph(client, parted[2], timeout=TIMEOUT) as dg:
        with pytest.raises(IndexError, match=r"input_nodes\[1\] = 400 is out of range"):
            dg.sample_neighbors(weft.to_tensor([3, 400]), 2)
        with pytest.raises(IndexError, match=r"input_nodes\[0\] = -1 is out of range"):
            dg.khop_sampler(weft.to_tensor([-1]), [2])
        with pytest.raises(IndexError, match=r"ids\[2\] = 1000 is out of range"):
            dg.fetch_features(np.array([0, 1, 1000]))
        with pytest.raises(TypeError, match="int32 or int64"):
            dg.fetch_features(np.array([0.5]))
        with pytest.raises(ValueError, match="input_nodes must not be empty"):
            dg.khop_sampler(np.zeros(0, np.int64), [2])
        with pytest.raises(TypeError, match="sample_sizes must be a non-empty list"):
            dg.khop_sampler(np.array([1]), [])
    with pytest.raises(RuntimeError, match="closed"):
        dg.sample_neighbors(np.array([1]), 2)
    # no features stored
    partition_graph((graph.row, graph.colptr), None, 2, tmp_path / "nf")
    with DistGraph(client, tmp_path / "nf", timeout=TIMEOUT) as dg:
        with pytest.raises(ValueError, match="has no node features"):
            dg.fetch_features(np.array([0]))
    # a missing part, and a part of another partitioning: raised by the loading worker
    d = tmp_path / "broken"
    partition_graph((graph.row, graph.colptr), None, 2, d, method="range")
    os.remove(d / "part-00001.npz")
    with pytest.raises(FileNotFoundError, match="part 1 of partitioning .* is missing"):
        DistGraph(client, d, timeout=TIMEOUT)
    partition_graph((graph.row, graph.colptr), None, 2, tmp_path / "other", method="hash")
    os.replace(tmp_path / "other" / "part-00001.npz", d / "part-00001.npz")
    with pytest.raises(ValueError, match="is part 1 of partitioning"):
        DistGraph(client, d, timeout=TIMEOUT)
    with pytest.raises(TypeError, match="must be a dask.distributed.Client"):
        DistGraph("tcp://127.0.0.1:8786", parted[1])
    with pytest.raises(ValueError, match="timeout must be a positive number"):
        DistGraph(client, parted[1], timeout=0)
    # a deadline shorter than any round trip: TimeoutError naming the limit, no hang
    with pytest.raises(TimeoutError, match=r"did not finish within timeout=1e-06 s"):
        DistGraph(client, parted[3], timeout=1e-6)
    with pytest.raises(ValueError, match="are not workers of this client"):
        DistGraph(client, parted[1], timeout=TIMEOUT, workers=["tcp://10.9.9.9:1"])
    with pytest.raises(TypeError, match="workers must be a non-empty list"):
        DistGraph(client, parted[1], timeout=TIMEOUT, workers="tcp://10.9.9.9:1")
    a = _csr(10, 8, 0.3, 0)
    d = DistCSR(client, a, 2, timeout=TIMEOUT)
    with pytest.raises(ValueError, match=r"x must have shape \[8, K\]"):
        d @ weft.to_tensor(np.zeros((9, 2)))
    with pytest.raises(ValueError, match="has dtype float32 but the matrix has dtype float64"):
        d @ weft.to_tensor(np.zeros((8, 2), np.float32))
    with pytest.raises(ValueError, match=r"parts must be in \[1, rows = 10\]"):
        DistCSR(client, a, 11)
    with pytest.raises(ValueError, match=r"assignment of shape \[rows = 10\]"):
        DistCSR(client, a, np.zeros(3, np.int64))
    with pytest.raises(ValueError, match="mode must be one of"):
        DistCSR(client, a, 2, mode="ring")


def test_client_without_workers(parted):
    cluster = dd.LocalCluster(n_workers=0, processes=False, dashboard_address=":0")
    c = dd.Client(cluster, timeout=TIMEOUT)
    try:
        with pytest.raises(ValueError, match="the client has no workers"):
            DistGraph(c, parted[1], timeout=TIMEOUT)
        with pytest.raises(ValueError, match="the client has no workers"):
            DistCSR(c, _csr(4, 4, 0.5, 0), 2, timeout=TIMEOUT)
    finally:
        c.close(timeout=TIMEOUT)
        cluster.close(timeout=TIMEOUT)


def test_worker_killed_mid_run(client, graph, parted):
    """Kill the worker holding part 1 while a request is in flight: the call raises
    a RuntimeError naming the lost worker within seconds, never hangs."""
    dg = DistGraph(client, parted[2], timeout=TIMEOUT)
    victim = dg.part_workers[1]
    pid = client.run(os.getpid, workers=[victim])[victim]
    seeds = weft.to_tensor(np.arange(400))
    killer = threading.Timer(0.3, os.kill, (pid, signal.SIGKILL))
    t0 = time.monotonic()
    killer.start()
    try:
        with pytest.raises(RuntimeError, match="holding part.*was lost"):
            while time.monotonic() - t0 < TIMEOUT:   # sampling when the kill lands
                dg.khop_sampler(seeds, [3, 3])
    finally:
        killer.cancel()
    assert time.monotonic() - t0 < TIMEOUT
    dg.close()
    client.wait_for_workers(2, timeout=TIMEOUT)   # the nanny restarts it for later tests


def test_example_quick(client, capsys):
    from weft.examples import distributed_sage

    out = distributed_sage.main(["--quick"], client=client)
    text = capsys.readouterr().out
    # the distributed run sees the batches of the single-machine run: same accuracy
    assert out["single_acc"] == out["distributed_acc"]
    assert out["single_acc"] > 1 / 8          # 8 classes; it learned something
    assert "single-machine test accuracy:" in text and "distributed test accuracy:" in text
    assert "\nidentical (chance 12.5%)" in text
    with pytest.raises(SystemExit):
        distributed_sage.parse_args(["--workers", "0"])
