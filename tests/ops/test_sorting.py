"""Sorting and searching semantics the op database does not cover: NaN placement,
stability, Paddle's documented examples, gradients routed to selected positions, and
invariants checked with hypothesis."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import weft

NAN = float("nan")


def t(a, **kw):
    return weft.to_tensor(a, **kw)


# ---------------------------------------------------------------------------------
# order: NaN is the largest value (Paddle PR #41070, torch), sorts are stable


def test_nan_last_ascending_first_descending():
    x = t([1.0, NAN, 3.0, 2.0])
    np.testing.assert_array_equal(weft.sort(x).numpy(), [1.0, 2.0, 3.0, NAN])
    np.testing.assert_array_equal(weft.sort(x, descending=True).numpy(), [NAN, 3.0, 2.0, 1.0])
    assert weft.argsort(x).tolist() == [0, 3, 2, 1]
    assert weft.argsort(x, descending=True).tolist() == [1, 2, 3, 0]


def test_topk_and_kthvalue_treat_nan_as_largest():
    x = t([1.0, NAN, 3.0])
    v, i = weft.topk(x, 2)
    np.testing.assert_array_equal(v.numpy(), [NAN, 3.0])
    assert i.tolist() == [1, 2]
    v, i = weft.topk(x, 2, largest=False)
    assert v.tolist() == [1.0, 3.0] and i.tolist() == [0, 2]
    v, i = weft.kthvalue(x, 3)
    assert np.isnan(v.item()) and i.item() == 1


@pytest.mark.parametrize("descending", [False, True])
def test_sorts_are_stable_in_both_directions(descending):
    x = t([2, 1, 2, 1, 2])
    order = weft.argsort(x, descending=descending, stable=True).tolist()
    assert order == ([0, 2, 4, 1, 3] if descending else [1, 3, 0, 2, 4])
    v, i = weft.topk(x, 3, largest=descending)
    assert i.tolist() == order[:3]


def test_descending_handles_integer_extremes():
    lo, hi = np.iinfo(np.int32).min, np.iinfo(np.int32).max
    x = t(np.array([0, lo, hi, lo], dtype=np.int32))
    assert weft.sort(x, descending=True).tolist() == [hi, 0, lo, lo]
    assert weft.argsort(x, descending=True).tolist() == [2, 0, 1, 3]


def test_sort_along_axis_and_dtypes():
    x = t(np.array([[3, 1, 2], [0, 5, 4]], dtype=np.int32))
    s = weft.sort(x, axis=0, descending=True)
    assert s.dtype == weft.int32 and s.tolist() == [[3, 5, 4], [0, 1, 2]]
    a = x.argsort(axis=1)
    assert a.dtype == weft.int64 and a.tolist() == [[1, 2, 0], [0, 2, 1]]
    assert weft.sort(t(2.5)).shape == [] and weft.argsort(t(2.5)).tolist() == 0


def test_topk_paddle_defaults_and_tensor_k():
    x = t([[1.0, 4.0, 2.0], [9.0, 7.0, 8.0]])
    v, i = x.topk(t(2))
    assert v.tolist() == [[4.0, 2.0], [9.0, 8.0]] and i.tolist() == [[1, 2], [0, 2]]
    v, i = weft.topk(x, 1, axis=0)
    assert v.tolist() == [[9.0, 7.0, 8.0]] and i.dtype == weft.int64


def test_kthvalue_default_axis_and_keepdim():
    x = t([[3.0, 1.0, 2.0], [6.0, 5.0, 4.0]])
    v, i = weft.kthvalue(x, 2)
    assert v.tolist() == [2.0, 5.0] and i.tolist() == [2, 1]
    v, i = x.kthvalue(1, axis=0, keepdim=True)
    assert v.shape == [1, 3] and i.tolist() == [[0, 0, 0]]


# ---------------------------------------------------------------------------------
# gradients go back to the selected positions


def test_sort_gradient_follows_the_permutation():
    x = t([3.0, 1.0, 2.0], stop_gradient=False)
    w = t([10.0, 20.0, 30.0])
    (g,) = weft.grad((weft.sort(x) * w).sum(), [x])
    assert g.tolist() == [30.0, 10.0, 20.0]


def test_topk_and_kthvalue_gradients_hit_only_selected():
    x = t([[1.0, 5.0, 3.0, 4.0]], stop_gradient=False)
    v, _ = weft.topk(x, 2)
    (g,) = weft.grad(v.sum(), [x])
    assert g.tolist() == [[0.0, 1.0, 0.0, 1.0]]
    v, _ = weft.kthvalue(x, 2, keepdim=False)
    (g,) = weft.grad((v * 7).sum(), [x])
    assert g.tolist() == [[0.0, 0.0, 7.0, 0.0]]


def test_sort_second_order():
    x = t([2.0, -1.0, 0.5], stop_gradient=False)
    y = weft.sort(x, descending=True)
    (g,) = weft.grad((y * y * t([1.0, 2.0, 3.0])).sum(), [x], create_graph=True)
    # d/dx_i of c_pi(i) x_i^2 = 2 c x: rank of 2.0 is 0, of 0.5 is 1, of -1.0 is 2
    np.testing.assert_allclose(g.numpy(), [4.0, -6.0, 2.0])
    (h,) = weft.grad(g.sum(), [x])
    np.testing.assert_allclose(h.numpy(), [2.0, 6.0, 4.0])


def test_index_outputs_are_not_differentiable():
    x = t([1.0, 2.0], stop_gradient=False)
    assert weft.argsort(x).stop_gradient
    assert weft.topk(x, 1)[1].stop_gradient
    assert weft.unique(x).stop_gradient


# ---------------------------------------------------------------------------------
# unique / unique_consecutive: Paddle's documented examples


def test_unique_paddle_example():
    x = t([2, 3, 3, 1, 5, 3])
    out, index, inverse, counts = weft.unique(x, return_index=True, return_inverse=True,
                                              return_counts=True)
    assert out.tolist() == [1, 2, 3, 5]
    assert index.tolist() == [3, 0, 1, 4]
    assert inverse.tolist() == [1, 2, 2, 0, 3, 2]
    assert counts.tolist() == [1, 1, 3, 1]
    x = t([[2, 1, 3], [3, 0, 1], [2, 1, 3]])
    assert weft.unique(x).tolist() == [0, 1, 2, 3]
    out, inv = weft.unique(x, return_inverse=True, axis=0)
    assert out.tolist() == [[2, 1, 3], [3, 0, 1]] and inv.tolist() == [0, 1, 0]


def test_unique_flags_order_and_dtype():
    x = t([[1.0, 1.0], [NAN, NAN]])
    out, counts = weft.unique(x, return_counts=True, dtype="int32")
    np.testing.assert_array_equal(out.numpy(), [1.0, NAN])
    assert counts.dtype == weft.int32 and counts.tolist() == [2, 2]
    out, inv = weft.unique(x, return_inverse=True)
    assert inv.shape == [4]  # flattened input -> 1-D inverse


def test_unique_consecutive_paddle_example():
    x = t([1, 1, 2, 2, 3, 1, 1, 2])
    out, inverse, counts = weft.unique_consecutive(x, return_inverse=True, return_counts=True)
    assert out.tolist() == [1, 2, 3, 1, 2]
    assert inverse.tolist() == [0, 0, 1, 1, 2, 3, 3, 4]
    assert counts.tolist() == [2, 2, 1, 2, 1]
    x = t([[2, 1, 3], [3, 0, 1], [2, 1, 3], [2, 1, 3]])
    out, counts = x.unique_consecutive(return_counts=True, axis=0)
    assert out.tolist() == [[2, 1, 3], [3, 0, 1], [2, 1, 3]] and counts.tolist() == [1, 1, 2]


def test_unique_errors():
    with pytest.raises(TypeError, match="unique: dtype must be int32 or int64"):
        weft.unique(t([1, 2]), dtype="float64")
    with pytest.raises(ValueError, match="unique_consecutive: axis 2 is out of range"):
        weft.unique_consecutive(t([[1, 2]]), axis=2)


# ---------------------------------------------------------------------------------
# searchsorted / bucketize


def test_searchsorted_paddle_example():
    seq = t([[1, 3, 5, 7, 9, 11], [2, 4, 6, 8, 10, 12]])
    values = t([[3, 6, 9, 10], [3, 6, 9, 10]])
    assert weft.searchsorted(seq, values).tolist() == [[1, 3, 4, 5], [1, 2, 4, 4]]
    assert weft.searchsorted(seq, values, right=True).tolist() == [[2, 3, 5, 5], [1, 3, 4, 5]]
    out = weft.searchsorted(t([1, 3, 5, 7, 9, 11, 13]), values, out_int32=True)
    assert out.dtype == weft.int32 and out.tolist() == [[1, 3, 4, 5], [1, 3, 4, 5]]


def test_searchsorted_mixed_dtypes_and_nan():
    seq = t([1.0, 2.0, 3.0])
    assert weft.searchsorted(seq, t([2, 5])).tolist() == [1, 3]
    assert weft.searchsorted(seq, t([NAN])).tolist() == [3]


def test_bucketize():
    b = t([2, 4, 6, 8])
    x = t([[0, 3, 6], [8, 9, 4]])
    assert weft.bucketize(x, b).tolist() == [[0, 1, 2], [3, 4, 1]]
    assert x.bucketize(b, right=True).tolist() == [[0, 1, 3], [4, 4, 2]]


def test_search_errors():
    with pytest.raises(ValueError, match=r"searchsorted: .* sorted_sequence has shape \[2, 3\]"):
        weft.searchsorted(t([[1, 2, 3], [4, 5, 6]]), t([[1], [2], [3]]))
    with pytest.raises(ValueError, match="bucketize: sorted_sequence must be 1-D"):
        weft.bucketize(t([1]), t([[1, 2]]))


# ---------------------------------------------------------------------------------
# properties


_floats = hnp.arrays(np.float64, hnp.array_shapes(min_dims=1, max_dims=3, max_side=5),
                     elements=st.floats(-1e3, 1e3) | st.just(NAN))


@settings(derandomize=True, max_examples=25, deadline=None)
@given(_floats, st.booleans(), st.integers(-1, 2))
def test_sort_is_an_ordered_permutation(a, descending, axis):
    axis = axis % a.ndim
    x = t(a)
    s = weft.sort(x, axis=axis, descending=descending).numpy()
    idx = weft.argsort(x, axis=axis, descending=descending).numpy()
    np.testing.assert_array_equal(np.take_along_axis(a, idx, axis), s)
    np.testing.assert_array_equal(np.sort(idx, axis=axis),
                                  np.broadcast_to(np.arange(a.shape[axis]).reshape(
                                      [-1 if d == axis else 1 for d in range(a.ndim)]), a.shape))
    key = np.where(np.isnan(s), 1e9, s)  # NaN is the largest value
    step = np.diff(key, axis=axis)
    assert np.all(step <= 0) if descending else np.all(step >= 0)
    nan_first = np.take(np.isnan(s), [0], axis=axis)
    if descending:
        assert np.array_equal(nan_first, np.any(np.isnan(a), axis=axis, keepdims=True))


@settings(derandomize=True, max_examples=25, deadline=None)
@given(hnp.arrays(np.int64, st.integers(1, 8), elements=st.integers(-5, 5)),
       hnp.arrays(np.int64, st.integers(0, 6), elements=st.integers(-7, 7)), st.booleans())
def test_searchsorted_brackets_each_value(seq, values, right):
    seq = np.sort(seq)
    pos = weft.searchsorted(t(seq), t(values), right=right).numpy()
    padded = np.concatenate([[-np.inf], seq, [np.inf]])
    below, above = padded[pos], padded[pos + 1]
    if right:
        assert np.all(below <= values) and np.all(values < above)
    else:
        assert np.all(below < values) and np.all(values <= above)


@settings(derandomize=True, max_examples=30, deadline=None)
@given(hnp.arrays(np.int32, hnp.array_shapes(min_dims=1, max_dims=2, max_side=6),
                  elements=st.integers(-3, 3)))
def test_unique_reconstructs_input(a):
    x = t(a)
    out, index, inverse, counts = weft.unique(x, True, True, True)
    flat = a.reshape(-1)
    np.testing.assert_array_equal(out.numpy()[inverse.numpy()], flat)
    np.testing.assert_array_equal(flat[index.numpy()], out.numpy())
    assert counts.numpy().sum() == flat.size
    out, inverse, counts = weft.unique_consecutive(x, True, True)
    np.testing.assert_array_equal(np.repeat(out.numpy(), counts.numpy()), flat)
    np.testing.assert_array_equal(out.numpy()[inverse.numpy()], flat)
