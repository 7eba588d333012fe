"""The deprecated graph functions of weft.incubate: warnings naming the
replacement, Paddle's argument order and flags, identical results to
weft.geometric, and graph_khop_sampler against a reference of the spec's
algorithm."""
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import weft
import weft.geometric as G
from weft.incubate import graph as IG

ROW = [3, 7, 0, 9, 1, 4, 2, 9, 3, 9, 1, 9, 7]
COLPTR = [0, 2, 4, 5, 6, 7, 9, 11, 11, 13, 13]


def t(a, dtype="int64"):
    return weft.to_tensor(np.asarray(a, dtype=dtype))


def quiet(fn, *args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return fn(*args, **kw)


def csc(n, edges, dtype="int64"):
    edges = sorted(edges, key=lambda e: e[1])
    row = np.array([s for s, _ in edges], dtype=dtype)
    deg = np.bincount([d for _, d in edges], minlength=n) if edges else np.zeros(n, int)
    return row, np.concatenate([[0], np.cumsum(deg)]).astype(dtype)


# ---------------------------------------------------------------------------------
# deprecation warnings

X = [[0.0, 2.0, 3.0], [1.0, 4.0, 5.0], [2.0, 6.0, 7.0]]
CASES = [
    ("graph_send_recv", "send_u_recv",
     lambda: IG.graph_send_recv(t(X, "float32"), t([0, 1, 2, 0]), t([1, 2, 1, 0]))),
    ("graph_sample_neighbors", "sample_neighbors",
     lambda: IG.graph_sample_neighbors(t(ROW), t(COLPTR), t([0, 8]))),
    ("graph_reindex", "reindex_graph",
     lambda: IG.graph_reindex(t([0, 1]), t([5, 6]), t([1, 1], "int32"))),
    ("graph_khop_sampler", "khop_sampler",
     lambda: IG.graph_khop_sampler(t(ROW), t(COLPTR), t([0]), [1])),
] + [(f"segment_{r}", f"segment_{r}",
      (lambda r=r: getattr(IG, f"segment_{r}")(t(X, "float32"), t([0, 0, 1]))))
     for r in ("sum", "mean", "max", "min")]


@pytest.mark.parametrize("old,new,call", CASES, ids=[c[0] for c in CASES])
def test_deprecation_warning_names_replacement(old, new, call):
    with pytest.warns(DeprecationWarning, match=rf"weft\.incubate\.{old} is deprecated.*"
                                                rf"weft\.geometric\.{new}"):
        call()


# ---------------------------------------------------------------------------------
# forwarding

@pytest.mark.parametrize("pool", ["sum", "mean", "max", "min"])
def test_graph_send_recv_matches_send_u_recv(pool):
    x = t(X, "float64")
    src, dst = t([0, 1, 2, 0]), t([1, 2, 1, 0])
    got = quiet(IG.graph_send_recv, x, src, dst, pool_type=pool, out_size=4)
    want = G.send_u_recv(x, src, dst, reduce_op=pool, out_size=4)
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    assert got.shape == [4, 3]


def test_graph_send_recv_gradient_and_bad_pool():
    x = weft.to_tensor(np.array(X), stop_gradient=False)
    out = quiet(IG.graph_send_recv, x, t([0, 1, 2, 0]), t([1, 2, 1, 0]))
    out.sum().backward()
    assert x.grad.tolist() == [[2.0] * 3, [1.0] * 3, [1.0] * 3]  # observed in Paddle
    with pytest.raises(ValueError, match="pool_type should be `sum`, `mean`, `max` or `min`, "
                                         "but received prod"):
        quiet(IG.graph_send_recv, x, t([0]), t([0]), pool_type="prod")


@pytest.mark.parametrize("op", ["sum", "mean", "max", "min"])
def test_segment_matches_geometric(op):
    data = t([[1, 2, 3], [3, 2, 1], [4, 5, 6]], "float32")
    ids = t([0, 0, 1])
    got = quiet(getattr(IG, f"segment_{op}"), data, ids)
    np.testing.assert_array_equal(got.numpy(), getattr(G, f"segment_{op}")(data, ids).numpy())
    want = {"sum": [[4, 4, 4], [4, 5, 6]], "mean": [[2, 2, 2], [4, 5, 6]],
            "max": [[3, 2, 3], [4, 5, 6]], "min": [[1, 2, 1], [4, 5, 6]]}[op]
    assert got.tolist() == want


def test_graph_sample_neighbors_argument_order_and_flags():
    row, colptr, nodes = t(ROW), t(COLPTR), t([0, 8, 1, 2])
    eids = t(np.arange(13) + 100)
    # positional: eids, perm_buffer, sample_size, return_eids
    nbrs, cnt, e = quiet(IG.graph_sample_neighbors, row, colptr, nodes, eids, None, 2, True)
    assert nbrs.tolist() == [3, 7, 9, 7, 0, 9, 1] and cnt.tolist() == [2, 2, 2, 1]
    assert e.tolist() == [100, 101, 111, 112, 102, 103, 104]
    nbrs, cnt = quiet(IG.graph_sample_neighbors, row, colptr, nodes,
                      perm_buffer=t(np.arange(13)), flag_perm_buffer=True)
    assert cnt.tolist() == [2, 2, 2, 1]
    with pytest.raises(ValueError, match="`perm_buffer` should not be None if "
                                         "`flag_perm_buffer` is True"):
        quiet(IG.graph_sample_neighbors, row, colptr, nodes, flag_perm_buffer=True)
    with pytest.raises(ValueError, match="graph_sample_neighbors: `eids` should not be None"):
        quiet(IG.graph_sample_neighbors, row, colptr, nodes, return_eids=True)
    with pytest.raises(IndexError, match=r"graph_sample_neighbors: input_nodes\[0\] = 11"):
        quiet(IG.graph_sample_neighbors, row, colptr, t([11]))


def test_graph_reindex():
    x, nb, c = t([0, 1, 2]), t([8, 9, 0, 4, 7, 6, 7]), t([2, 3, 2], "int32")
    got = quiet(IG.graph_reindex, x, nb, c)
    want = G.reindex_graph(x, nb, c)
    assert [a.tolist() for a in got] == [a.tolist() for a in want]
    got = quiet(IG.graph_reindex, x, nb, c, t([0] * 10, "int32"), t([0] * 10, "int32"), True)
    assert [a.tolist() for a in got] == [a.tolist() for a in want]
    with pytest.raises(ValueError, match="`value_buffer` and `index_buffer` should not be None"):
        quiet(IG.graph_reindex, x, nb, c, flag_buffer_hashtable=True)
    with pytest.raises(ValueError, match=r"graph_reindex: sum\(count\) = 6"):
        quiet(IG.graph_reindex, x, nb, t([2, 2, 2], "int32"))


# ---------------------------------------------------------------------------------
# graph_khop_sampler

def ref_khop(row, colptr, nodes, sizes):
    """The spec's algorithm when every hop takes all neighbours (deterministic)."""
    frontier = list(dict.fromkeys(nodes))
    frontiers, edges, visited = [frontier], [], set(frontier)
    for h in range(len(sizes)):
        hop = [(s, v) for v in frontier for s in row[colptr[v]:colptr[v + 1]].tolist()]
        edges += hop
        if h == len(sizes) - 1:
            break
        frontier = sorted({s for s, _ in hop} - visited)
        if not frontier:
            break
        visited.update(frontier)
        frontiers.append(frontier)
    index = [v for f in frontiers for v in f]
    for s, _ in edges:
        if s not in index:
            index.append(s)
    pos = {v: i for i, v in enumerate(index)}
    return ([pos[s] for s, _ in edges], [pos[v] for _, v in edges], index,
            [pos[v] for v in nodes])


def test_khop_observed_structure():
    # matches Paddle 3.3.1 for one hop
    src, dst, index, nodes, eids = quiet(IG.graph_khop_sampler, t(ROW), t(COLPTR),
                                         t([0, 8, 1, 2]), [5], t(np.arange(13) + 100), True)
    assert src.shape == [7, 1] and dst.shape == [7, 1] and eids.shape == [7]
    assert src.flatten().tolist() == [4, 5, 6, 5, 0, 6, 2]
    assert dst.flatten().tolist() == [0, 0, 1, 1, 2, 2, 3]
    assert index.tolist() == [0, 8, 1, 2, 3, 7, 9] and nodes.tolist() == [0, 1, 2, 3]
    assert eids.tolist() == [100, 101, 111, 112, 102, 103, 104]
    # sources never expanded keep their order of first appearance (Paddle: [1, 0, 7, 9, 3])
    row, colptr = csc(10, [(7, 1), (0, 1), (9, 0), (3, 0)])
    src, dst, index, nodes = quiet(IG.graph_khop_sampler, t(row), t(colptr), t([1, 0]), [5])
    assert index.tolist() == [1, 0, 7, 9, 3] and src.flatten().tolist() == [2, 1, 3, 4]


def test_khop_two_hops_and_duplicates():
    src, dst, index, nodes = quiet(IG.graph_khop_sampler, t(ROW), t(COLPTR),
                                   t([0, 8, 1, 2, 0]), [-1, -1])
    want = ref_khop(np.array(ROW), np.array(COLPTR), [0, 8, 1, 2, 0], [-1, -1])
    assert src.flatten().tolist() == want[0] and dst.flatten().tolist() == want[1]
    assert index.tolist() == want[2] == [0, 8, 1, 2, 3, 7, 9, 4]
    assert nodes.tolist() == want[3] == [0, 1, 2, 3, 0]


@settings(max_examples=40)
@given(st.integers(1, 8).flatmap(lambda n: st.tuples(
    st.just(n),
    st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), min_size=1, max_size=25),
    st.lists(st.integers(0, n - 1), min_size=1, max_size=5),
    st.integers(1, 3), st.sampled_from(["int32", "int64"]))))
def test_khop_against_reference(case):
    n, edges, nodes, hops, dtype = case
    row, colptr = csc(n, edges, dtype)
    deg = np.diff(colptr)
    if deg[nodes].sum() == 0:
        with pytest.raises(ValueError, match="none of the input nodes has an in-edge"):
            quiet(IG.graph_khop_sampler, t(row, dtype), t(colptr, dtype), t(nodes, dtype),
                  [-1] * hops)
        return
    src, dst, index, rn = quiet(IG.graph_khop_sampler, t(row, dtype), t(colptr, dtype),
                                t(nodes, dtype), [-1] * hops)
    want = ref_khop(row, colptr, nodes, [-1] * hops)
    assert src.flatten().tolist() == want[0] and dst.flatten().tolist() == want[1]
    assert index.tolist() == want[2] and rn.tolist() == want[3]
    assert src.dtype == dst.dtype == index.dtype == rn.dtype == np.dtype(dtype)


@settings(max_examples=30)
@given(st.integers(1, 8).flatmap(lambda n: st.tuples(
    st.just(n),
    st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), min_size=1, max_size=30),
    st.lists(st.integers(0, n - 1), min_size=1, max_size=5),
    st.lists(st.integers(-1, 3), min_size=1, max_size=3))))
def test_khop_sampled_structure(case):
    n, edges, nodes, sizes = case
    row, colptr = csc(n, edges)
    if np.diff(colptr)[nodes].sum() == 0:
        return
    src, dst, index, rn, eids = quiet(IG.graph_khop_sampler, t(row), t(colptr), t(nodes), sizes,
                                      t(np.arange(len(row))), True)
    src, dst, index, eids = (a.numpy() for a in (src, dst, index, eids))
    assert len(set(index.tolist())) == len(index)
    assert index[rn.numpy()].tolist() == nodes
    # every edge is a real CSC slot: row[slot] -> its column
    col_of_slot = np.repeat(np.arange(n), np.diff(colptr))
    np.testing.assert_array_equal(index[src[:, 0]], row[eids])
    np.testing.assert_array_equal(index[dst[:, 0]], col_of_slot[eids])
    assert np.all(np.diff(dst[:, 0]) >= 0)  # by hop, then frontier position


def test_khop_errors():
    row, colptr = t(ROW), t(COLPTR)
    with pytest.raises(ValueError, match="`sorted_eid` should not be None if return_eids is True"):
        quiet(IG.graph_khop_sampler, row, colptr, t([0]), [2], return_eids=True)
    with pytest.raises(ValueError, match="input_nodes must not be empty"):
        quiet(IG.graph_khop_sampler, row, colptr, t([], "int64"), [2])
    with pytest.raises(ValueError, match="row must not be empty"):
        quiet(IG.graph_khop_sampler, t([], "int64"), t([0, 0]), t([0]), [2])
    with pytest.raises(ValueError, match="none of the input nodes has an in-edge"):
        quiet(IG.graph_khop_sampler, row, colptr, t([7, 9]), [2])
    with pytest.raises(IndexError, match=r"input_nodes\[1\] = 10 is out of range"):
        quiet(IG.graph_khop_sampler, row, colptr, t([0, 10]), [2])
    with pytest.raises(ValueError, match="row has dtype int64 but input_nodes has dtype int32"):
        quiet(IG.graph_khop_sampler, row, colptr, t([0], "int32"), [2])
    with pytest.raises(TypeError, match="sample_sizes must be a non-empty list"):
        quiet(IG.graph_khop_sampler, row, colptr, t([0]), 2)
    with pytest.raises(TypeError, match=r"sample_sizes\[1\] must be an int"):
        quiet(IG.graph_khop_sampler, row, colptr, t([0]), [2, 1.5])
    with pytest.raises(IndexError, match="row holds node id 12"):
        quiet(IG.graph_khop_sampler, t([12, 1]), t([0, 2, 2]), t([0]), [-1, -1])


def test_incubate_khop_sampler_is_the_geometric_one():
    # the legacy name only warns and delegates: the same seed gives the same sample
    row, colptr, nodes = t(ROW), t(COLPTR), t([0, 2])
    weft.seed(7)
    want = weft.geometric.khop_sampler(row, colptr, nodes, [2, 2])
    weft.seed(7)
    with pytest.warns(DeprecationWarning):
        got = IG.graph_khop_sampler(row, colptr, nodes, [2, 2])
    assert len(got) == len(want)
    for a, b in zip(got, want):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
