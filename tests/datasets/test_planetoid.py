"""weft.datasets: the shipped Planetoid archives (counts of the README table, features
round trip, errors for bad names and broken files) and synthetic_graph."""
import os
import shutil

import numpy as np
import pytest
import scipy.sparse as sp

import weft
from weft.datasets import Planetoid, synthetic_graph
from weft.datasets.planetoid import _DATA_DIR

# name: nodes, features, feature nnz, edges, classes, train, val, test
TABLE = {"cora": (2708, 1433, 49216, 10556, 7, 140, 500, 1000),
         "citeseer": (3327, 3703, 105165, 9104, 6, 120, 500, 1000)}


@pytest.fixture(scope="module", params=sorted(TABLE))
def loaded(request):
    return request.param, Planetoid(request.param)


def test_counts_match_table(loaded):
    name, d = loaded
    n, f, nnz, e, c, tr, va, te = TABLE[name]
    assert (d.num_nodes, d.num_features, d.num_classes, d.num_edges) == (n, f, c, e)
    assert d.x.shape == [n, f] and d.x.nnz() == nnz and d.x.dtype == weft.float32
    assert d.y.shape == [n] and d.y.dtype == weft.int64
    assert d.edge_index.shape == [2, e] and d.edge_index.dtype == weft.int64
    assert [d.train_index.shape[0], d.val_index.shape[0], d.test_index.shape[0]] == [tr, va, te]
    for s in (d.train_index, d.val_index, d.test_index):
        assert s.dtype == weft.int64
    splits = [set(s.numpy().tolist()) for s in (d.train_index, d.val_index, d.test_index)]
    assert not (splits[0] & splits[1] or splits[0] & splits[2] or splits[1] & splits[2])
    # labelled nodes only in the splits (CiteSeer has -1 labels)
    y = d.y.numpy()
    assert all((y[sorted(s)] >= 0).all() for s in splits)


def test_arrays_round_trip_the_archive(loaded):
    name, d = loaded
    with np.load(os.path.join(_DATA_DIR, f"{name}.npz")) as z:
        want = sp.csr_array((z["x_data"], z["x_indices"], z["x_indptr"]),
                            shape=tuple(z["x_shape"]))
        got = weft.sparse.to_scipy(d.x)
        assert got.shape == want.shape and (got != want).nnz == 0
        np.testing.assert_array_equal(d.y.numpy(), z["y"])
        np.testing.assert_array_equal(d.edge_index.numpy(), z["edge_index"])
        for k in ("train_index", "val_index", "test_index"):
            np.testing.assert_array_equal(getattr(d, k).numpy(), z[k])
    ei = d.edge_index.numpy()
    assert (ei[0] != ei[1]).all()                                   # no self loops
    fwd = set(map(tuple, ei.T.tolist()))
    assert fwd == {(b, a) for a, b in fwd}                           # symmetric


def test_shipped_inside_the_package():
    pkg = os.path.dirname(os.path.abspath(weft.__file__))
    assert os.path.commonpath([pkg, _DATA_DIR]) == pkg
    assert Planetoid("Cora").path == os.path.join(_DATA_DIR, "cora.npz")


def test_unknown_name_lists_available():
    with pytest.raises(ValueError, match="pubmed.*available: 'cora', 'citeseer'"):
        Planetoid("pubmed")
    with pytest.raises(TypeError, match="name must be a str"):
        Planetoid(3)


def test_missing_archive_names_file(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"cora\.npz is missing"):
        Planetoid("cora", root=tmp_path)


def test_corrupted_archive_names_file(tmp_path):
    (tmp_path / "cora.npz").write_bytes(b"not a zip archive at all")
    with pytest.raises(ValueError, match=r"cora\.npz is corrupted"):
        Planetoid("cora", root=tmp_path)
    # truncated copy of the real archive
    raw = open(os.path.join(_DATA_DIR, "citeseer.npz"), "rb").read()
    (tmp_path / "citeseer.npz").write_bytes(raw[: len(raw) // 2])
    with pytest.raises(ValueError, match=r"citeseer\.npz is corrupted"):
        Planetoid("citeseer", root=str(tmp_path))


def test_archive_with_bad_arrays(tmp_path):
    with np.load(os.path.join(_DATA_DIR, "cora.npz")) as z:
        arrays = {k: z[k] for k in z.files}
    np.savez(tmp_path / "cora.npz", **{k: v for k, v in arrays.items() if k != "y"})
    with pytest.raises(ValueError, match=r"cora\.npz .*missing arrays \['y'\]"):
        Planetoid("cora", root=tmp_path)
    bad = dict(arrays, edge_index=arrays["edge_index"] + 5000)
    np.savez(tmp_path / "cora.npz", **bad)
    with pytest.raises(ValueError, match="edge_index must be"):
        Planetoid("cora", root=tmp_path)
    bad = dict(arrays, x_indptr=arrays["x_indptr"][:-1])
    np.savez(tmp_path / "cora.npz", **bad)
    with pytest.raises(ValueError, match="x_indptr"):
        Planetoid("cora", root=tmp_path)
    shutil.copy(os.path.join(_DATA_DIR, "cora.npz"), tmp_path / "cora.npz")
    assert Planetoid("cora", root=tmp_path).num_nodes == 2708


# ---------------------------------------------------------------------------------
# synthetic_graph


def test_synthetic_graph_structure():
    g = synthetic_graph(300, 3000, 5, 4, seed=3)
    assert (g.num_nodes, g.num_edges, g.num_features, g.num_classes) == (300, 3000, 5, 4)
    assert g.x.shape == [300, 5] and g.x.dtype == weft.float32
    assert g.y.dtype == weft.int64 and set(g.y.numpy().tolist()) <= set(range(4))
    src, dst = g.edge_index.numpy()
    assert g.edge_index.dtype == weft.int64 and src.shape == (3000,)
    assert (src != dst).all()
    assert np.unique(dst * 300 + src).size == 3000                  # distinct edges
    assert (np.diff(dst * 300 + src) > 0).all()                     # sorted (dst, src)
    colptr, row = g.colptr.numpy(), g.row.numpy()
    for v in (0, 17, 299):
        np.testing.assert_array_equal(row[colptr[v]:colptr[v + 1]], np.sort(src[dst == v]))
    y = g.y.numpy()
    assert (y[src] == y[dst]).mean() > 0.6                          # homophily
    deg = np.bincount(dst, minlength=300)
    assert deg.max() > 5 * deg.mean()                               # heavy tail
    # features carry the label: nearest class mean classifies well above chance
    x = g.x.numpy()
    means = np.stack([x[y == c].mean(0) for c in range(4)])
    pred = np.argmin(((x[:, None] - means) ** 2).sum(-1), axis=1)
    assert (pred == y).mean() > 0.5
    parts = [s.numpy() for s in (g.train_index, g.val_index, g.test_index)]
    assert sorted(np.concatenate(parts).tolist()) == list(range(300))
    # the CSC is what sample_neighbors takes
    nb, cnt = weft.geometric.sample_neighbors(g.row, g.colptr, weft.to_tensor([0, 5]))
    assert int(cnt.sum()) == nb.shape[0]


def test_synthetic_graph_deterministic_and_dense_limit():
    a, b = synthetic_graph(50, 200, 3, 2, seed=7), synthetic_graph(50, 200, 3, 2, seed=7)
    np.testing.assert_array_equal(a.edge_index.numpy(), b.edge_index.numpy())
    np.testing.assert_array_equal(a.x.numpy(), b.x.numpy())
    c = synthetic_graph(50, 200, 3, 2, seed=8)
    assert not np.array_equal(a.edge_index.numpy(), c.edge_index.numpy())
    full = synthetic_graph(6, 30, 2, 2, seed=0)                     # complete digraph
    assert full.edge_index.shape == [2, 30]
    assert synthetic_graph(4, 0, 2, 2).edge_index.shape == [2, 0]


def test_synthetic_graph_errors():
    with pytest.raises(ValueError, match="num_edges = 31 exceeds the 30"):
        synthetic_graph(6, 31, 2, 2)
    with pytest.raises(ValueError, match="num_nodes must be >= 1"):
        synthetic_graph(0, 0, 2, 2)
    with pytest.raises(TypeError, match="num_features must be an int"):
        synthetic_graph(5, 4, 2.0, 2)
    with pytest.raises(TypeError, match="seed must be an int"):
        synthetic_graph(5, 4, 2, 2, seed="x")
