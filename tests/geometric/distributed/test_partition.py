"""weft.geometric.distributed partitioning (no Dask needed): the invariants of the
part files (every node owned once, every edge kept once with its owner's in-edges
in CSC order, id maps inverse), the edge cut against a loop, the locality-aware
method against random on graphs with locality, and bad input."""
import json
import os
import shutil

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import weft
from weft.geometric.distributed import (edge_cut, load_part, load_partitioning,
                                        partition_graph)

METHODS = ["hash", "range", "bfs"]


def _edges(n, edges, dtype="int64"):
    return np.array(edges, dtype=dtype).T.reshape(2, -1) if edges else np.zeros((2, 0), dtype)


@st.composite
def graphs(draw):
    """Small edge lists with isolated nodes, self loops and multi-edges."""
    n = draw(st.integers(1, 12))
    edges = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=40))
    dtype = draw(st.sampled_from(["int32", "int64"]))
    parts = draw(st.integers(1, n))
    method = draw(st.sampled_from(METHODS))
    feat = draw(st.booleans())
    return n, _edges(n, edges, dtype), parts, method, feat


def _check_invariants(path, ei, n, feats):
    info = load_partitioning(path)
    assert info.num_nodes == n and info.num_edges == ei.shape[1]
    # the CSC the parts must reproduce: edges stably sorted by destination
    perm = np.argsort(ei[1], kind="stable")
    g_src, g_dst = ei[0][perm], ei[1][perm]
    owned, eids, assign = [], [], info.assignment
    for p in range(info.num_parts):
        part = load_part(path, p)
        assert part.part == p and part.partition_id == info.partition_id
        assert np.all(np.diff(part.owned) > 0)                     # ascending, no repeats
        assert np.all(assign[part.owned] == p)
        assert part.colptr.dtype == ei.dtype and part.row.dtype == ei.dtype
        # id maps: local -> global -> local is the identity
        loc = part.local_ids(part.owned)
        assert np.array_equal(loc, np.arange(part.owned.size))
        l2g = part.local_to_global
        assert np.array_equal(l2g[:part.owned.size], part.owned)
        # each owned node's in-edges, in the slot order of the whole CSC
        for i, v in enumerate(part.owned):
            sl = slice(part.colptr[i], part.colptr[i + 1])
            expect = np.flatnonzero(g_dst == v)
            assert np.array_equal(part.eids[sl], expect)
            assert np.array_equal(part.row[sl], g_src[expect])
        assert np.array_equal(part.halo, np.setdiff1d(part.row, part.owned))
        assert info.part_nodes[p] == part.owned.size and info.part_edges[p] == part.row.size
        if feats is not None:
            assert np.array_equal(part.features, feats[part.owned])
        else:
            assert part.features is None
        owned.append(part.owned)
        eids.append(part.eids)
    assert np.array_equal(np.sort(np.concatenate(owned)), np.arange(n))          # owned once
    assert np.array_equal(np.sort(np.concatenate(eids)), np.arange(ei.shape[1]))  # kept once
    cut = np.mean([assign[s] != assign[d] for s, d in ei.T]) if ei.shape[1] else 0.0
    assert info.edge_cut == pytest.approx(cut)
    return info


@settings(max_examples=25)
@given(graphs())
def test_invariants(tmp_path_factory, g):
    n, ei, parts, method, feat = g
    path = tmp_path_factory.mktemp("p")
    feats = np.arange(n * 3, dtype=np.float32).reshape(n, 3) if feat else None
    info = partition_graph(weft.to_tensor(ei), n, parts, path, method=method, features=feats)
    assert info.num_parts == parts and info.method == method
    _check_invariants(path, ei, n, feats)
    sizes = np.bincount(info.assignment, minlength=parts)
    if method in ("range", "bfs"):
        assert sizes.min() >= 1
    shutil.rmtree(path)


def test_csc_input_same_as_edge_index(tmp_path):
    g = weft.datasets.synthetic_graph(60, 400, 2, 3, seed=1)
    a = partition_graph((g.row, g.colptr), None, 3, tmp_path / "a", method="bfs",
                        features=g.x)
    b = partition_graph(g.edge_index, 60, 3, tmp_path / "b", method="bfs", features=g.x)
    assert a.partition_id == b.partition_id
    _check_invariants(tmp_path / "a", g.edge_index.numpy(), 60, g.x.numpy())
    # user edge ids travel with their edges
    e = np.arange(400)[::-1].copy()
    partition_graph((g.row, g.colptr), None, 2, tmp_path / "c", eids=e)
    got = np.concatenate([load_part(tmp_path / "c", p).eids for p in range(2)])
    assert np.array_equal(np.sort(got), np.arange(400))
    part = load_part(tmp_path / "c", 0)
    slot = np.repeat(np.asarray(g.colptr.numpy())[part.owned], np.diff(part.colptr)) + \
        np.concatenate([np.arange(d) for d in np.diff(part.colptr)])
    assert np.array_equal(part.eids, e[slot])


def test_balance_and_methods(tmp_path):
    g = weft.datasets.synthetic_graph(1000, 8000, 2, 4, seed=0)
    for method in METHODS:
        info = partition_graph((g.row, g.colptr), None, 4, tmp_path / method, method=method)
        sizes = np.bincount(info.assignment, minlength=4)
        assert sizes.sum() == 1000
        if method == "range":
            assert np.array_equal(sizes, [250] * 4)
        if method == "bfs":   # 5 % imbalance allowed
            assert sizes.max() <= 1000 / 4 * 1.05 and sizes.min() >= 1000 / 4 * 0.95


def _grid(k):
    ids = np.arange(k * k).reshape(k, k)
    e = [(ids[:, :-1], ids[:, 1:]), (ids[:-1], ids[1:])]
    src = np.concatenate([a.ravel() for a, _ in e] + [b.ravel() for _, b in e])
    dst = np.concatenate([b.ravel() for _, b in e] + [a.ravel() for a, _ in e])
    return np.stack([src, dst])


def test_locality_beats_random(tmp_path):
    # on a graph with locality (a 2-D grid, ids in random order so that "range" has
    # nothing to exploit) the BFS-grown parts cut far fewer edges than hashing
    ei = _grid(30)
    relabel = np.random.default_rng(0).permutation(900)
    ei = relabel[ei]
    bfs = partition_graph(ei, 900, 4, tmp_path / "bfs", method="bfs")
    rnd = partition_graph(ei, 900, 4, tmp_path / "hash", method="hash")
    assert rnd.edge_cut > 0.6                 # ~3/4 of the edges for 4 random parts
    assert bfs.edge_cut < 0.25 * rnd.edge_cut
    assert edge_cut(ei, bfs.assignment) == pytest.approx(bfs.edge_cut)


def test_edge_cut_reference():
    rng = np.random.default_rng(3)
    ei = rng.integers(0, 20, (2, 100))
    a = rng.integers(0, 3, 20)
    expect = sum(a[s] != a[d] for s, d in ei.T) / 100
    assert edge_cut(ei, a, 20) == pytest.approx(expect)
    assert edge_cut(np.zeros((2, 0), np.int64), np.zeros(3, np.int64), 3) == 0.0
    with pytest.raises(ValueError, match="assignment must have shape"):
        edge_cut(ei, a[:5], 20)


def test_load_reads_only_its_part(tmp_path, monkeypatch):
    ei = _grid(6)
    partition_graph(ei, 36, 3, tmp_path, method="range")
    opened = []
    real = np.load

    def spy(file, *a, **k):
        opened.append(os.path.basename(str(file)))
        return real(file, *a, **k)

    monkeypatch.setattr(np, "load", spy)
    load_part(tmp_path, 1)
    assert opened == ["part-00001.npz"]


def test_errors(tmp_path):
    ei = _grid(5)
    with pytest.raises(ValueError, match="method must be one of"):
        partition_graph(ei, 25, 2, tmp_path / "x", method="metis")
    with pytest.raises(ValueError, match="num_parts must be <= num_nodes"):
        partition_graph(ei, 25, 26, tmp_path / "x")
    with pytest.raises(ValueError, match="num_parts must be >= 1"):
        partition_graph(ei, 25, 0, tmp_path / "x")
    with pytest.raises(TypeError, match="num_parts must be an int"):
        partition_graph(ei, 25, 2.0, tmp_path / "x")
    with pytest.raises(ValueError, match=r"edge_index must have shape \[2, E\]"):
        partition_graph(ei[:1], 25, 2, tmp_path / "x")
    with pytest.raises(TypeError, match="int32 or int64"):
        partition_graph(ei.astype(np.float32), 25, 2, tmp_path / "x")
    with pytest.raises(IndexError, match="out of range"):
        partition_graph(ei, 20, 2, tmp_path / "x")
    with pytest.raises(ValueError, match="features must have shape"):
        partition_graph(ei, 25, 2, tmp_path / "x", features=np.zeros((24, 2)))
    with pytest.raises(ValueError, match="eids must be 1-D with one entry per edge"):
        partition_graph(ei, 25, 2, tmp_path / "x", eids=np.arange(3))
    with pytest.raises(ValueError, match="colptr must have num_nodes"):
        partition_graph((np.array([0, 1]), np.array([0, 1, 2])), 5, 2, tmp_path / "x")
    with pytest.raises(ValueError, match="colptr must start at 0"):
        partition_graph((np.array([0, 1]), np.array([0, 2, 1])), None, 2, tmp_path / "x")
    with pytest.raises(ValueError, match="same dtype"):
        partition_graph((np.array([0, 1]), np.array([0, 1, 2], np.int32)), None, 2,
                        tmp_path / "x")

    d = tmp_path / "g"
    partition_graph(ei, 25, 2, d, method="range")
    with pytest.raises(FileExistsError, match="overwrite=True"):
        partition_graph(ei, 25, 2, d)
    with pytest.raises(ValueError, match=r"part must be in \[0, num_parts = 2\)"):
        load_part(d, 2)
    with pytest.raises(FileNotFoundError, match="no partitioned graph"):
        load_partitioning(tmp_path / "nothing")
    # a part of another partitioning of the same graph
    other = tmp_path / "other"
    partition_graph(ei, 25, 2, other, method="hash")
    shutil.copy(other / "part-00001.npz", d / "part-00001.npz")
    with pytest.raises(ValueError, match="is part 1 of partitioning .*, expected part 1 of"):
        load_part(d, 1)
    # a stale id passed by a client that read an older meta.json
    with pytest.raises(ValueError, match="now holds partitioning"):
        load_part(d, 0, partition_id="0" * 32)
    # a missing part
    os.remove(d / "part-00001.npz")
    with pytest.raises(FileNotFoundError, match="part 1 of partitioning .* is missing"):
        load_part(d, 1)
    # a part file whose arrays were changed
    partition_graph(ei, 25, 2, d, method="range", overwrite=True)
    with np.load(d / "part-00000.npz") as z:
        arrays = {k: z[k] for k in z.files}
    arrays["row"] = arrays["row"][::-1].copy()
    np.savez(d / "part-00000.npz", **arrays)
    with pytest.raises(ValueError, match="does not match the digest"):
        load_part(d, 0)
    meta = json.loads((d / "meta.json").read_text())
    meta["format"] = "something"
    (d / "meta.json").write_text(json.dumps(meta))
    with pytest.raises(ValueError, match="not a weft partitioning"):
        load_part(d, 0)


def test_sampler_positions_reproduce_the_whole_batch():
    """The native sampler's ``positions``: a subset of a batch, sampled with the
    positions its nodes hold in the batch, draws exactly what they drew there."""
    from weft._native import extension as C

    rng = np.random.default_rng(0)
    deg = rng.integers(0, 40, 60)
    colptr = np.concatenate([[0], np.cumsum(deg)]).astype(np.int64)
    row = rng.integers(0, 60, colptr[-1]).astype(np.int64)
    eids = np.arange(row.size, dtype=np.int64) + 7
    nodes = rng.integers(0, 60, 50).astype(np.int64)
    nb, cnt, e = C.sample_neighbors(row, colptr, nodes, 5, eids, 99, "t")
    off = np.concatenate([[0], np.cumsum(cnt)])
    pos = np.array([1, 4, 9, 30, 49], np.int64)
    nb2, cnt2, e2 = C.sample_neighbors(row, colptr, nodes[pos], 5, eids, 99, "t", positions=pos)
    assert np.array_equal(cnt2, cnt[pos])
    assert np.array_equal(nb2, np.concatenate([nb[off[i]:off[i + 1]] for i in pos]))
    assert np.array_equal(e2, np.concatenate([e[off[i]:off[i + 1]] for i in pos]))
    # default positions are 0..n-1
    same = C.sample_neighbors(row, colptr, nodes, 5, None, 99, "t",
                              positions=np.arange(50, dtype=np.int64))
    assert np.array_equal(same[0], nb)
    with pytest.raises(ValueError, match="positions must have one entry per input node"):
        C.sample_neighbors(row, colptr, nodes, 5, None, 99, "t", positions=pos)
    with pytest.raises(TypeError, match="positions must be an int64 array"):
        C.sample_neighbors(row, colptr, nodes[pos], 5, None, 99, "t",
                           positions=pos.astype(np.int32))
    with pytest.raises(ValueError, match=r"positions must be >= 0, but positions\[0\] = -1"):
        C.sample_neighbors(row, colptr, nodes[:1], 5, None, 99, "t",
                           positions=np.array([-1], np.int64))


def test_dask_is_optional(monkeypatch):
    """Partitioning needs no Dask; the distributed classes name the extra when it is
    missing, and importing the package imports no Dask."""
    import subprocess
    import sys

    from weft.geometric.distributed import DistGraph, _dask

    code = ("import sys, weft.geometric.distributed as d; "
            "print(any(m == 'dask' or m.startswith(('dask.', 'distributed')) for m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"
    monkeypatch.setitem(sys.modules, "dask.distributed", None)
    with pytest.raises(ImportError, match=r"pip install 'weft\[distributed\]'"):
        _dask.distributed()
    with pytest.raises(ImportError, match=r"weft\[distributed\]"):
        DistGraph(object(), "nowhere")
