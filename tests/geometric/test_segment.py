"""weft.geometric segment reductions: the spec's observed values, empty and gapped
segments, tie gradients, hypothesis ids against numpy loops, bad input."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import weft
import weft.geometric as G
from tests.opinfo import OP_DB  # noqa: F401  # isort: skip  (loads the op database first)
from tests.opdb.geometric import ref_segment
from weft.autograd import gradcheck, gradgradcheck

T = weft.to_tensor
DATA = [[1.0, 2.0, 3.0], [3.0, 2.0, 1.0], [4.0, 5.0, 6.0]]
OPS = {"sum": G.segment_sum, "mean": G.segment_mean, "max": G.segment_max, "min": G.segment_min}


def test_observed_small_case():
    want = {"sum": [[4, 4, 4], [4, 5, 6]], "mean": [[2, 2, 2], [4, 5, 6]],
            "max": [[3, 2, 3], [4, 5, 6]], "min": [[1, 2, 1], [4, 5, 6]]}
    for name, fn in OPS.items():
        assert fn(T(DATA), T([0, 0, 1])).numpy().tolist() == want[name]


def test_ids_need_not_start_at_zero_or_be_contiguous():
    for fn in OPS.values():
        out = fn(T(DATA), T([1, 1, 2])).numpy()
        assert out.shape == (3, 3) and not out[0].any()
        out = fn(T(DATA), T([0, 0, 3])).numpy()
        assert out.shape == (4, 3) and not out[1:3].any()


def test_empty_data_keeps_feature_dims():
    for fn in OPS.values():
        out = fn(T(np.zeros((0, 2, 3), np.float32)), T(np.zeros(0, np.int64)))
        assert out.shape == [0, 2, 3] and out.dtype == weft.float32


def test_observed_max_gradients_ties_not_split():
    x = T([[1.0, 2.0, 3.0], [3.0, 2.0, 1.0]], stop_gradient=False)
    (g,) = weft.grad(G.segment_max(x, T([0, 0])).sum(), [x])
    assert g.numpy().tolist() == [[0, 1, 1], [1, 1, 0]]
    x = T([[5.0], [5.0], [5.0]], stop_gradient=False)
    (g,) = weft.grad(G.segment_min(x, T([0, 0, 0])).sum(), [x])
    assert g.numpy().tolist() == [[1.0], [1.0], [1.0]]


def test_mean_gradient_divides_by_count():
    x = T(DATA, stop_gradient=False)
    (g,) = weft.grad(G.segment_mean(x, T([0, 0, 2])).sum(), [x])
    np.testing.assert_allclose(g.numpy(), [[0.5] * 3, [0.5] * 3, [1.0] * 3])


@pytest.mark.parametrize("name", list(OPS))
def test_gradcheck(name):
    rng = np.random.default_rng(0)
    x = T(rng.standard_normal((6, 2, 2)), stop_gradient=False)
    ids = T(np.array([0, 0, 2, 2, 2, 5], np.int32))
    f = lambda a: OPS[name](a, ids)  # noqa: E731
    assert gradcheck(f, [x]) and gradgradcheck(f, [x])


def test_integer_and_half_data():
    d = np.array([[-7], [2], [9]], np.int32)
    assert G.segment_mean(T(d), T([0, 0, 1])).numpy().tolist() == [[-2], [9]]
    h = np.array([[1.5], [2.25], [-3.0]], np.float16)
    assert G.segment_sum(T(h), T([0, 0, 0])).numpy().tolist() == [[0.75]]


@st.composite
def segments(draw):
    n = draw(st.integers(0, 10))
    ids = sorted(draw(st.lists(st.integers(0, 6), min_size=n, max_size=n)))
    itype = draw(st.sampled_from(["int32", "int64"]))
    return np.array(ids, itype), draw(st.integers(0, 2**16))


@settings(max_examples=30)
@given(segments(), st.sampled_from(["float16", "float32", "float64", "int32", "int64"]),
       st.sampled_from(list(OPS)))
def test_matches_loops(seg, dtype, name):
    ids, seed = seg
    data = np.random.default_rng(seed).integers(-9, 10, (len(ids), 3)).astype(dtype)
    got = OPS[name](T(data), T(ids)).numpy()
    np.testing.assert_array_equal(got, ref_segment(data, ids, name))


def test_nan_propagates_in_max_and_routes_gradient():
    x = T([[1.0], [np.nan], [2.0]], stop_gradient=False)
    out = G.segment_max(x, T([0, 0, 0]))
    assert np.isnan(out.numpy()[0, 0])
    (g,) = weft.grad(out.sum(), [x])
    assert g.numpy().tolist() == [[0.0], [1.0], [0.0]]


def test_bad_input():
    x = T(DATA)
    with pytest.raises(ValueError, match=r"segment_ids\[1\]:2 > segment_ids\[2\]:1"):
        G.segment_sum(x, T([0, 2, 1]))
    with pytest.raises(IndexError, match="negative"):
        G.segment_max(x, T([-2, -1, 0]))
    with pytest.raises(ValueError, match="Unsupported index type"):
        G.segment_min(x, T([True, False, True]))
    with pytest.raises(ValueError, match="same size as dimension 0"):
        G.segment_mean(x, T([0, 0, 0, 0]))
    with pytest.raises(ValueError, match="must be 1-D"):
        G.segment_sum(x, T([[0, 0, 0]]))
    with pytest.raises(TypeError, match="data has dtype bool"):
        G.segment_sum(T([True, False]), T([0, 0]))
    with pytest.raises(ValueError, match="at least 1 dimension"):
        G.segment_sum(T(1.0), T([0]))
