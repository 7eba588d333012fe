"""weft.geometric.reindex_graph / reindex_heter_graph: Paddle's observed examples,
a Python reference on generated inputs (dense and hashed id ranges, duplicates in
x), and input validation."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import weft
from weft.geometric import reindex_graph, reindex_heter_graph


def t(a, dtype="int64"):
    return weft.to_tensor(np.asarray(a, dtype=dtype))


def ref_reindex(x, neighbors, counts):
    """Paddle's rule: a table filled in order of x (later duplicates win), then
    new neighbour ids appended in order of first appearance, types in order."""
    pos = {}
    for j, v in enumerate(x):
        pos[v] = j
    out = list(x)
    src, dst = [], []
    for nb, cnt in zip(neighbors, counts):
        for v in nb:
            if v not in pos:
                pos[v] = len(out)
                out.append(v)
            src.append(pos[v])
        for j, c in enumerate(cnt):
            dst += [pos[x[j]]] * c
    return src, dst, out


# ---------------------------------------------------------------------------------
# observed examples

@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_observed_examples(dtype):
    src, dst, out = reindex_graph(t([0, 1, 2], dtype), t([8, 9, 0, 4, 7, 6, 7], dtype),
                                  t([2, 3, 2], "int32"))
    assert src.tolist() == [3, 4, 0, 5, 6, 7, 6]
    assert dst.tolist() == [0, 0, 1, 1, 1, 2, 2]
    assert out.tolist() == [0, 1, 2, 8, 9, 4, 7, 6]
    assert src.dtype == dst.dtype == out.dtype == np.dtype(dtype)
    src, dst, out = reindex_graph(t([5, 3], dtype), t([9, 3, 9, 5, 1, 7], dtype),
                                  t([3, 3], "int32"))
    assert (src.tolist(), dst.tolist(), out.tolist()) == (
        [2, 1, 2, 0, 3, 4], [0, 0, 0, 1, 1, 1], [5, 3, 9, 1, 7])


def test_observed_heter_example():
    src, dst, out = reindex_heter_graph(
        t([0, 1, 2]), [t([8, 9, 0, 4, 7, 6, 7]), t([0, 2, 3, 5, 1])],
        [t([2, 3, 2], "int32"), t([1, 3, 1], "int32")])
    assert src.tolist() == [3, 4, 0, 5, 6, 7, 6, 0, 2, 8, 9, 1]
    assert dst.tolist() == [0, 0, 1, 1, 1, 2, 2, 0, 1, 1, 1, 2]
    assert out.tolist() == [0, 1, 2, 8, 9, 4, 7, 6, 3, 5]


def test_duplicates_in_x_resolve_to_last_position():
    # observed in Paddle 3.3.1
    src, dst, out = reindex_graph(t([5, 5]), t([5, 1, 5]), t([2, 1], "int32"))
    assert (src.tolist(), dst.tolist(), out.tolist()) == ([1, 2, 1], [1, 1, 1], [5, 5, 1])
    src, dst, out = reindex_heter_graph(t([5, 3, 5]), [t([5, 1, 5, 3, 2]), t([7, 5])],
                                        [t([2, 1, 2], "int32"), t([1, 0, 1], "int32")])
    assert src.tolist() == [2, 3, 2, 1, 4, 5, 2]
    assert dst.tolist() == [2, 2, 1, 2, 2, 2, 2]
    assert out.tolist() == [5, 3, 5, 1, 2, 7]


def test_count_int64_buffers_and_columns():
    src, dst, out = reindex_graph(t([[0], [1], [2]]), t([8, 9, 0, 4, 7, 6, 7]),
                                  t([2, 3, 2], "int64"), value_buffer=t([0] * 10, "int32"),
                                  index_buffer=t([0] * 10, "int32"))
    assert out.tolist() == [0, 1, 2, 8, 9, 4, 7, 6]
    src, dst, out = reindex_graph(t([4]), t([], "int64"), t([0], "int32"))
    assert src.shape == dst.shape == [0] and out.tolist() == [4]


# ---------------------------------------------------------------------------------
# generated inputs against the reference

@st.composite
def reindex_inputs(draw, heter=False):
    dtype = draw(st.sampled_from(["int32", "int64"]))
    hi = 2**31 - 1 if dtype == "int32" else 2**63 - 1
    # a narrow id range (dense table) or ids anywhere in the dtype (hash table)
    ids = draw(st.sampled_from([st.integers(0, 20), st.integers(-30, 30),
                                st.integers(-hi - 1, hi)]))
    pool = draw(st.lists(ids, min_size=1, max_size=12))
    elem = st.sampled_from(pool)
    x = draw(st.lists(elem, min_size=1, max_size=6))
    ntypes = draw(st.integers(1, 3)) if heter else 1
    nbs, cnts = [], []
    for _ in range(ntypes):
        cnt = draw(st.lists(st.integers(0, 4), min_size=len(x), max_size=len(x)))
        nbs.append(draw(st.lists(elem, min_size=sum(cnt), max_size=sum(cnt))))
        cnts.append(cnt)
    cdtype = draw(st.sampled_from(["int32", "int64"]))
    return dtype, cdtype, x, nbs, cnts


@settings(max_examples=60)
@given(reindex_inputs())
def test_against_reference(inp):
    dtype, cdtype, x, nbs, cnts = inp
    src, dst, out = reindex_graph(t(x, dtype), t(nbs[0], dtype), t(cnts[0], cdtype))
    want = ref_reindex(x, nbs, cnts)
    assert (src.tolist(), dst.tolist(), out.tolist()) == tuple(map(list, want))
    assert src.dtype == dst.dtype == out.dtype == np.dtype(dtype)


@settings(max_examples=40)
@given(reindex_inputs(heter=True))
def test_heter_against_reference(inp):
    dtype, cdtype, x, nbs, cnts = inp
    src, dst, out = reindex_heter_graph(t(x, dtype), [t(nb, dtype) for nb in nbs],
                                        [t(c, cdtype) for c in cnts])
    want = ref_reindex(x, nbs, cnts)
    assert (src.tolist(), dst.tolist(), out.tolist()) == tuple(map(list, want))


def test_large_hashed_ids():
    rng = np.random.default_rng(0)
    pool = rng.integers(-2**62, 2**62, 3000)
    x = pool[:500]
    nb = rng.choice(pool, 20000)
    cnt = np.full(500, 40, np.int32)
    src, dst, out = reindex_graph(t(x), t(nb), t(cnt, "int32"))
    want = ref_reindex(x.tolist(), [nb.tolist()], [cnt.tolist()])
    assert src.tolist() == want[0] and dst.tolist() == want[1] and out.tolist() == want[2]


def _fibonacci_colliding_ids(n):
    """Ids that all had home slot 0 under the old unmixed Fibonacci hash (key * C >> s):
    j * C^-1 mod 2^64, whose products with C are the small numbers j. With linear probing
    each insert walked the whole cluster (200,000 of them took > 10 s, issue 16 item 17);
    the keys are now mixed with a seeded SplitMix64 finalizer."""
    c = 0x9E3779B97F4A7C15
    ci = pow(c, -1, 2 ** 64)
    return np.array([(j * ci) % 2 ** 64 for j in range(1, n + 1)], dtype=np.uint64).view(np.int64)


def test_crafted_colliding_ids():
    ids = _fibonacci_colliding_ids(20000)
    x = ids[:100]
    nb = np.concatenate([ids[::-1], ids[:5000]])
    cnt = np.full(100, len(nb) // 100, np.int64)
    src, dst, out = reindex_graph(t(x), t(nb), t(cnt))
    want = ref_reindex(x.tolist(), [nb.tolist()], [cnt.tolist()])
    assert src.tolist() == want[0] and dst.tolist() == want[1] and out.tolist() == want[2]


# ---------------------------------------------------------------------------------
# errors

def test_errors():
    x, nb, c = t([0, 1, 2]), t([8, 9, 0, 4, 7, 6, 7]), t([2, 3, 2], "int32")
    with pytest.raises(ValueError, match="the first of dims should not be equal to 0"):
        reindex_graph(t([], "int64"), t([], "int64"), t([], "int32"))
    with pytest.raises(ValueError, match=r"reindex_graph: sum\(count\) = 8 but neighbors has 7"):
        reindex_graph(x, nb, t([3, 3, 2], "int32"))
    with pytest.raises(ValueError, match=r"count must have one entry per node of x \(3\), got 2"):
        reindex_graph(x, nb, t([2, 5], "int32"))
    with pytest.raises(ValueError, match=r"count\[1\] = -1 is negative"):
        reindex_graph(x, nb, t([8, -1, 0], "int32"))
    with pytest.raises(ValueError, match="neighbors has dtype int32 but x has dtype int64"):
        reindex_graph(x, t([8, 9, 0, 4, 7, 6, 7], "int32"), c)
    with pytest.raises(TypeError, match="x must be an int32 or int64 tensor, got dtype float32"):
        reindex_graph(weft.to_tensor([0.0, 1.0]), nb, c)
    with pytest.raises(TypeError, match="count must be an int32 or int64 tensor, got dtype float32"):
        reindex_graph(x, nb, t([2, 3, 2], "float32"))
    with pytest.raises(TypeError, match="value_buffer must be an int32 or int64 tensor"):
        reindex_graph(x, nb, c, value_buffer=weft.to_tensor([0.5]))
    with pytest.raises(ValueError, match="1-D"):
        reindex_graph(t([[0, 1], [2, 3]]), nb, c)
    # overflowing int64 counts are caught, not wrapped around to a matching sum
    with pytest.raises(ValueError, match=r"sum\(count\) = more than 2\*\*63"):
        reindex_graph(x, nb, t([2**62, 2**62, 2**62 + 7], "int64"))


def test_heter_errors():
    x = t([0, 1])
    with pytest.raises(TypeError, match="reindex_heter_graph: neighbors and count must be lists"):
        reindex_heter_graph(x, t([1, 2]), t([1, 1], "int32"))
    with pytest.raises(ValueError, match="same length"):
        reindex_heter_graph(x, [t([1, 2])], [t([1, 1], "int32"), t([0, 0], "int32")])
    with pytest.raises(ValueError, match=r"sum\(count\[1\]\) = 3 but neighbors\[1\] has 2"):
        reindex_heter_graph(x, [t([1, 2]), t([3, 4])], [t([1, 1], "int32"), t([2, 1], "int32")])
    with pytest.raises(ValueError, match=r"neighbors\[0\] has dtype int32"):
        reindex_heter_graph(x, [t([1, 2], "int32")], [t([1, 1], "int32")])
    src, dst, out = reindex_heter_graph(x, [], [])
    assert src.shape == [0] and out.tolist() == [0, 1]
