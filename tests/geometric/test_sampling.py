"""weft.geometric.sample_neighbors / weighted_sample_neighbors: Paddle's observed
example, structure on generated graphs, reproducibility, thread-count
independence, sampling distributions and input validation."""
import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import weft
from weft.geometric import sample_neighbors, weighted_sample_neighbors

ROW = [3, 7, 0, 9, 1, 4, 2, 9, 3, 9, 1, 9, 7]
COLPTR = [0, 2, 4, 5, 6, 7, 9, 11, 11, 13, 13]


def t(a, dtype="int64"):
    return weft.to_tensor(np.asarray(a, dtype=dtype))


def csc(n, edges, dtype="int64"):
    """(row, colptr) of edges (src, dst), slots grouped by dst in edge order."""
    edges = sorted(edges, key=lambda e: e[1])  # stable: multi-edges keep their order
    row = np.array([s for s, _ in edges], dtype=dtype)
    deg = np.bincount([d for _, d in edges], minlength=n) if edges else np.zeros(n, int)
    colptr = np.concatenate([[0], np.cumsum(deg)]).astype(dtype)
    return row, colptr


@st.composite
def graphs(draw):
    """Small CSC graphs with isolated nodes, self loops and multi-edges."""
    n = draw(st.integers(1, 8))
    edges = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=30))
    dtype = draw(st.sampled_from(["int32", "int64"]))
    row, colptr = csc(n, edges, dtype)
    nodes = np.array(draw(st.lists(st.integers(0, n - 1), max_size=10)), dtype=dtype)
    return row, colptr, nodes


# ---------------------------------------------------------------------------------
# Paddle's observed example (every node has k >= deg, so the output is fixed)

@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_observed_example(dtype):
    row, colptr, nodes = t(ROW, dtype), t(COLPTR, dtype), t([0, 8, 1, 2], dtype)
    nbrs, cnt = sample_neighbors(row, colptr, nodes, sample_size=2)
    assert nbrs.tolist() == [3, 7, 9, 7, 0, 9, 1] and nbrs.dtype == np.dtype(dtype)
    assert cnt.tolist() == [2, 2, 2, 1] and cnt.dtype == np.int32
    nbrs, cnt, eids = sample_neighbors(row, colptr, nodes, sample_size=2,
                                       eids=t(np.arange(13) + 100, dtype), return_eids=True)
    assert eids.tolist() == [100, 101, 111, 112, 102, 103, 104]
    assert eids.dtype == np.dtype(dtype)


def test_all_and_zero():
    row, colptr = t(ROW), t(COLPTR)
    nodes = t([6, 7, 8, 0])
    for k in (-1, -5, 100):
        nbrs, cnt = sample_neighbors(row, colptr, nodes, sample_size=k)
        assert nbrs.tolist() == [9, 1, 9, 7, 3, 7] and cnt.tolist() == [2, 0, 2, 2]
    nbrs, cnt = sample_neighbors(row, colptr, nodes, sample_size=0)
    assert nbrs.shape == [0] and cnt.tolist() == [0, 0, 0, 0]
    nbrs, cnt = sample_neighbors(row, colptr, t([], "int64"), sample_size=3)
    assert nbrs.shape == [0] and cnt.shape == [0]
    # a column of node ids is accepted, as in Paddle
    nbrs, cnt = sample_neighbors(row, colptr, t([[0], [8]]))
    assert nbrs.tolist() == [3, 7, 9, 7]


def test_weighted_all_is_csc_order_and_observed_zero_rule():
    row, colptr = t(ROW), t(COLPTR)
    w = weft.to_tensor(np.linspace(0.5, 2, 13).astype(np.float32))
    nbrs, cnt = weighted_sample_neighbors(row, colptr, w, t([0, 8, 1, 2]), sample_size=2)
    assert nbrs.tolist() == [3, 7, 9, 7, 0, 9, 1] and cnt.tolist() == [2, 2, 2, 1]
    # weights [0, 0, 0, 1], k = 2: the weighted neighbour plus one zero-weight one
    r, c = t([10, 11, 12, 13]), t([0, 4])
    w = weft.to_tensor(np.array([0, 0, 0, 1], np.float32))
    seen = set()
    for _ in range(20):
        nbrs, cnt = weighted_sample_neighbors(r, c, w, t([0]), sample_size=2)
        assert cnt.tolist() == [2] and 13 in nbrs.tolist()
        seen.update(nbrs.tolist())
    assert seen == {10, 11, 12, 13}


# ---------------------------------------------------------------------------------
# structure on generated graphs

def check_structure(row, colptr, nodes, k, nbrs, cnt, eids):
    assert cnt.dtype == np.int32 and nbrs.dtype == row.dtype
    off = 0
    for i, v in enumerate(nodes):
        a, b = colptr[v], colptr[v + 1]
        want = b - a if k < 0 else min(k, b - a)
        assert cnt[i] == want
        slots = eids[off:off + want]
        assert len(set(slots.tolist())) == want, "slots must be distinct"
        assert np.all((slots >= a) & (slots < b)), "slots must be in-edges of the node"
        assert np.all(np.diff(slots) > 0), "slots are listed in CSC order"
        np.testing.assert_array_equal(nbrs[off:off + want], row[slots])
        off += want
    assert off == len(nbrs) == len(eids)


@settings(max_examples=40)
@given(graphs(), st.integers(-2, 6))
def test_structure(g, k):
    row, colptr, nodes = g
    eids = np.arange(len(row), dtype=row.dtype)
    nbrs, cnt, e = sample_neighbors(t(row, row.dtype), t(colptr, row.dtype), t(nodes, row.dtype),
                                    sample_size=k, eids=t(eids, row.dtype), return_eids=True)
    check_structure(row, colptr, nodes, k, nbrs.numpy(), cnt.numpy(), e.numpy())


@settings(max_examples=40)
@given(graphs(), st.integers(-2, 6), st.sampled_from(["float32", "float64"]),
       st.integers(0, 2**31))
def test_weighted_structure(g, k, wdtype, wseed):
    row, colptr, nodes = g
    w = np.random.default_rng(wseed).uniform(0, 2, len(row)).astype(wdtype)
    w[::3] = 0  # zero weights mixed in
    eids = np.arange(len(row), dtype="int64")  # eids may have their own dtype
    nbrs, cnt, e = weighted_sample_neighbors(t(row, row.dtype), t(colptr, row.dtype),
                                             weft.to_tensor(w), t(nodes, row.dtype),
                                             sample_size=k, eids=t(eids), return_eids=True)
    e = e.numpy()
    check_structure(row, colptr, nodes, k, nbrs.numpy(), cnt.numpy(), e)
    # zero-weight slots only when every positive-weight slot of the node is taken
    off = 0
    for i, v in enumerate(nodes):
        a, b = colptr[v], colptr[v + 1]
        chosen = set(e[off:off + cnt[i]].tolist())
        positive = {s for s in range(a, b) if w[s] > 0}
        if any(w[s] == 0 for s in chosen):
            assert positive <= chosen
        off += cnt[i]


# ---------------------------------------------------------------------------------
# reproducibility

def big_graph(n=20000, deg=40, seed=0):
    rng = np.random.default_rng(seed)
    row = rng.integers(0, n, n * deg)
    colptr = np.arange(0, n * deg + 1, deg)
    return t(row), t(colptr), t(np.arange(n))


def test_seed_reproducible_and_fresh_per_call():
    row, colptr, nodes = big_graph(200, 10)
    weft.seed(42)
    a = sample_neighbors(row, colptr, nodes, sample_size=3)[0].numpy()
    b = sample_neighbors(row, colptr, nodes, sample_size=3)[0].numpy()
    weft.seed(42)
    c = sample_neighbors(row, colptr, nodes, sample_size=3)[0].numpy()
    assert np.array_equal(a, c) and not np.array_equal(a, b)


@pytest.mark.parametrize("weighted", [False, True])
def test_independent_of_thread_count(weighted):
    # large enough (400k samples) for the kernel to split the work across threads
    row, colptr, nodes = big_graph()
    w = weft.to_tensor(np.random.default_rng(1).uniform(0.1, 1, row.shape[0]))
    before = weft.get_num_threads()
    outs = []
    try:
        for nt in (1, 2, 3):
            weft.set_num_threads(nt)
            weft.seed(7)
            if weighted:
                outs.append(weighted_sample_neighbors(row, colptr, w, nodes, 20)[0].numpy())
            else:
                outs.append(sample_neighbors(row, colptr, nodes, 20)[0].numpy())
    finally:
        weft.set_num_threads(before)
    assert np.array_equal(outs[0], outs[1]) and np.array_equal(outs[0], outs[2])


# ---------------------------------------------------------------------------------
# distributions: duplicates of one node are sampled independently, so one call
# with the node repeated gives many independent draws

def slot_draws(deg, k, reps, weights=None, seed=0):
    """(reps, k) array of the slots drawn for one node of degree deg."""
    row = np.arange(deg) + 1000
    colptr = np.array([0, deg])
    weft.seed(seed)
    args = (t(row), t(colptr))
    if weights is None:
        out = sample_neighbors(*args, t(np.zeros(reps, np.int64)), sample_size=k)
    else:
        out = weighted_sample_neighbors(*args, weft.to_tensor(np.asarray(weights)),
                                        t(np.zeros(reps, np.int64)), sample_size=k)
    return out[0].numpy().reshape(reps, k) - 1000


@pytest.mark.parametrize("deg,k,reps", [(10, 3, 20000),    # Floyd, linear membership scan
                                        (100, 60, 2000),   # partial Fisher-Yates deck
                                        (1000, 50, 2000)])  # Floyd with a hash set
def test_uniform_marginals(deg, k, reps):
    s = slot_draws(deg, k, reps)
    assert all(len(set(r)) == k for r in s[:200])
    freq = np.bincount(s.ravel(), minlength=deg)
    p = k / deg
    sd = np.sqrt(reps * p * (1 - p))
    # 5 standard deviations per slot: a real bias (e.g. never choosing the last
    # slot, or favouring low slots) is far outside; chance failures ~1e-6 per slot
    assert np.all(np.abs(freq - reps * p) < 5 * sd), freq


def test_uniform_pairs():
    """Every 3-subset of 6 slots equally likely (chi-square over the 20 subsets)."""
    deg, k, reps = 6, 3, 24000
    s = slot_draws(deg, k, reps, seed=3)
    index = {c: i for i, c in enumerate(itertools.combinations(range(deg), k))}
    counts = np.bincount([index[tuple(r)] for r in s], minlength=len(index))
    expected = reps / len(index)
    chi2 = ((counts - expected) ** 2 / expected).sum()
    assert chi2 < 60, (chi2, counts)  # 19 dof: P(chi2 > 60) ~ 3e-6


def sequential_inclusion(w, k):
    """Exact inclusion probabilities of weighted sampling without replacement
    (successive draws proportional to weight among the remaining slots)."""
    w = np.asarray(w, float)
    p = np.zeros(len(w))
    for order in itertools.permutations(range(len(w)), k):
        prob, left = 1.0, w.sum()
        for j in order:
            prob *= w[j] / left
            left -= w[j]
        p[list(order)] += prob
    return p


@pytest.mark.parametrize("w,k", [([1, 2, 3, 4, 10], 2), ([0.5, 0.5, 4, 1, 1, 3], 3)])
def test_weighted_inclusion_matches_sequential_sampling(w, k):
    reps = 20000
    s = slot_draws(len(w), k, reps, weights=np.asarray(w, np.float64), seed=5)
    freq = np.bincount(s.ravel(), minlength=len(w)) / reps
    p = sequential_inclusion(w, k)
    sd = np.sqrt(p * (1 - p) / reps)
    assert np.all(np.abs(freq - p) < 5 * sd + 1e-12), (freq, p)


def test_weighted_matches_numpy_ares_monte_carlo():
    """Against numpy's own implementation of the same key scheme (u ** (1/w))."""
    w = np.array([0.2, 1.0, 1.0, 3.0, 0.7, 5.0, 0.1, 2.0])
    k, reps = 3, 20000
    rng = np.random.default_rng(0)
    keys = rng.uniform(size=(200000, len(w))) ** (1 / w)
    top = np.argpartition(-keys, k - 1, axis=1)[:, :k]
    p = np.bincount(top.ravel(), minlength=len(w)) / 200000
    s = slot_draws(len(w), k, reps, weights=w.astype(np.float32), seed=9)
    freq = np.bincount(s.ravel(), minlength=len(w)) / reps
    sd = np.sqrt(p * (1 - p) / reps + p * (1 - p) / 200000)
    assert np.all(np.abs(freq - p) < 5 * sd), (freq, p)


def test_weighted_special_weights():
    # +inf first (uniformly among themselves), then positive, then zero
    s = slot_draws(5, 1, 4000, weights=[np.inf, 1.0, np.inf, 0.0, 5.0], seed=1)
    freq = np.bincount(s.ravel(), minlength=5)
    assert freq[1] == freq[3] == freq[4] == 0 and abs(freq[0] - 2000) < 250
    s = slot_draws(5, 3, 2000, weights=[np.inf, 1.0, np.inf, 0.0, 0.0], seed=1)
    assert np.all(np.sort(s, axis=1)[:, :3] == [0, 1, 2])
    s = slot_draws(5, 4, 4000, weights=[0.0, 1.0, 0.0, 0.0, 5.0], seed=2)
    freq = np.bincount(s.ravel(), minlength=5)
    assert freq[1] == freq[4] == 4000
    assert all(abs(freq[j] - 4000 * 2 / 3) < 200 for j in (0, 2, 3))


# ---------------------------------------------------------------------------------
# errors

def test_errors():
    row, colptr, nodes = t(ROW), t(COLPTR), t([0, 8])
    with pytest.raises(ValueError, match="`eids` should not be None if `return_eids` is True"):
        sample_neighbors(row, colptr, nodes, 2, return_eids=True)
    with pytest.raises(ValueError, match="sample_neighbors: row has dtype int64 but input_nodes "
                                         "has dtype int32"):
        sample_neighbors(row, colptr, t([0], "int32"))
    with pytest.raises(ValueError, match="row has dtype int64 but colptr has dtype int32"):
        sample_neighbors(row, t(COLPTR, "int32"), nodes)
    with pytest.raises(TypeError, match="row must be an int32 or int64 tensor, got dtype float32"):
        sample_neighbors(t(ROW, "float32"), colptr, nodes)
    with pytest.raises(TypeError, match="int16"):
        sample_neighbors(row, colptr, t([0], "int16"))
    with pytest.raises(IndexError, match=r"input_nodes\[1\] = 10 is out of range \[0, 10\)"):
        sample_neighbors(row, colptr, t([0, 10]))
    with pytest.raises(IndexError, match=r"input_nodes\[0\] = -1"):
        sample_neighbors(row, colptr, t([-1]))
    with pytest.raises(ValueError, match="1-D"):
        sample_neighbors(t([ROW, ROW]), colptr, nodes)
    with pytest.raises(ValueError, match="colptr"):
        sample_neighbors(row, t([]), t([], "int64"))
    with pytest.raises(ValueError, match="colptr must be non-decreasing"):
        sample_neighbors(row, t([0, 5, 2, 13]), t([1]))
    with pytest.raises(ValueError, match=r"colptr\[1\] = 14"):
        sample_neighbors(row, t([0, 14, 13]), t([0]))
    with pytest.raises(ValueError, match=r"colptr\[-1\] must equal the number of edges "
                                         r"len\(row\) = 13, got 14"):
        sample_neighbors(row, t([0, 14]), t([0]))
    with pytest.raises(ValueError, match="eids must have one entry per edge"):
        sample_neighbors(row, colptr, nodes, eids=t([1, 2]), return_eids=True)
    with pytest.raises(ValueError, match="perm_buffer must have one entry per edge"):
        sample_neighbors(row, colptr, nodes, perm_buffer=t([1, 2]))
    with pytest.raises(TypeError, match="sample_size must be an int"):
        sample_neighbors(row, colptr, nodes, sample_size=2.0)
    with pytest.raises(TypeError, match="return_eids must be a bool"):
        sample_neighbors(row, colptr, nodes, return_eids="yes")
    with pytest.raises(TypeError, match="row must be a Tensor"):
        sample_neighbors(None, colptr, nodes)


def test_weighted_errors():
    row, colptr, nodes = t(ROW), t(COLPTR), t([0, 8])
    w = np.ones(13, np.float32)

    def call(weights, **kw):
        return weighted_sample_neighbors(row, colptr, weft.to_tensor(weights), nodes, 1, **kw)

    bad = w.copy()
    bad[11] = -1
    with pytest.raises(ValueError, match=r"non-negative and not NaN, but edge_weight\[11\] = -1"):
        call(bad)
    bad[11] = np.nan
    with pytest.raises(ValueError, match=r"edge_weight\[11\] = nan"):
        call(bad)
    bad[5] = -1  # not an in-edge of the input nodes: not read
    assert call(np.where(np.arange(13) == 5, -1, 1).astype(np.float32))[1].tolist() == [1, 1]
    with pytest.raises(TypeError, match="edge_weight must be a float32 or float64"):
        call(w.astype(np.float16))
    with pytest.raises(TypeError, match="edge_weight must be a float32 or float64"):
        call(np.ones(13, np.int64))
    with pytest.raises(ValueError, match="edge_weight must be 1-D with one entry per edge"):
        call(w[:5])
    with pytest.raises(ValueError, match="`eids` should not be None"):
        call(w, return_eids=True)
    with pytest.raises(TypeError, match="edge_weight must be a Tensor"):
        weighted_sample_neighbors(row, colptr, None, nodes)


@settings(max_examples=40)
@given(st.lists(st.integers(-3, 20), min_size=1, max_size=6),
       st.lists(st.integers(-3, 12), max_size=6), st.integers(-1, 3))
def test_malformed_csc_never_crashes(colptr, nodes, k):
    row = np.arange(10)
    try:
        nbrs, cnt = sample_neighbors(t(row), t(colptr), t(nodes), sample_size=k)
    except (ValueError, IndexError):
        return
    assert len(nbrs.numpy()) == int(cnt.numpy().sum())
