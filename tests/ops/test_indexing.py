"""Indexing semantics the op database does not cover: numpy-equivalence of
``__getitem__``/``__setitem__`` on a hypothesis-generated family of keys, gradient
accumulation of repeated indices, in-place variants and the version counter,
Paddle's documented examples, index dtypes and out-of-range errors."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import weft


def t(a, **kw):
    return weft.to_tensor(a, **kw)


def leaf(a):
    return weft.to_tensor(np.asarray(a, dtype=np.float64), stop_gradient=False)


# ---------------------------------------------------------------------------------
# __getitem__ / __setitem__ against numpy on generated keys

SHAPE = (3, 4, 2)


@st.composite
def keys(draw):
    """A numpy-style key for SHAPE: ints, slices (negative steps), None, ``...``, int
    arrays (repeats, negatives) and 1-D/2-D bool masks, in any mixture numpy accepts."""
    kinds = draw(st.lists(st.sampled_from(["int", "slice", "arr", "mask", "mask2", "none"]),
                          max_size=4))
    width = {"none": 0, "mask2": 2}
    while sum(width.get(k, 1) for k in kinds) > len(SHAPE):
        kinds.pop()
    ell = draw(st.none() | st.integers(0, len(kinds)))
    # entries before the ellipsis index the leading dims, those after it the trailing ones
    dims, d = [], 0
    for i, k in enumerate(kinds):
        if ell is not None and i == ell:
            d = len(SHAPE) - sum(width.get(k2, 1) for k2 in kinds[i:])
        dims.append(d)
        d += width.get(k, 1)
    n_arr = draw(st.integers(1, 3))  # one length for all index arrays: they broadcast
    entries = []
    for k, d in zip(kinds, dims):
        if k == "none":
            entries.append(None)
            continue
        size = SHAPE[d]
        if k == "int":
            entries.append(draw(st.integers(-size, size - 1)))
        elif k == "slice":
            entries.append(slice(draw(st.none() | st.integers(-size - 1, size + 1)),
                                 draw(st.none() | st.integers(-size - 1, size + 1)),
                                 draw(st.none() | st.sampled_from([1, 2, -1, -2]))))
        elif k == "arr":
            entries.append(np.array(draw(st.lists(st.integers(-size, size - 1),
                                                  min_size=n_arr, max_size=n_arr))))
        else:
            shape = SHAPE[d:d + width.get(k, 1)]
            flat = draw(st.lists(st.booleans(), min_size=int(np.prod(shape)),
                                 max_size=int(np.prod(shape))))
            entries.append(np.array(flat).reshape(shape))
    if ell is not None:
        entries.insert(ell, Ellipsis)
    return tuple(entries)


def _valid(a, key):
    try:
        return np.asarray(a[key])
    except IndexError:
        return None


@settings(max_examples=60, deadline=None, derandomize=True)
@given(keys())
def test_getitem_matches_numpy_with_gradient(key):
    a = np.arange(np.prod(SHAPE), dtype=np.float64).reshape(SHAPE) / 7
    want = _valid(a, key)
    if want is None:
        with pytest.raises(IndexError):
            t(a)[key]
        return
    x = leaf(a)
    got = x[key]
    assert got.shape == list(want.shape)
    np.testing.assert_array_equal(got.numpy(), want)
    w = np.random.default_rng(0).standard_normal(want.shape)
    (gx,) = weft.grad((got * t(w)).sum(), x)
    ref = np.zeros(SHAPE)
    np.add.at(ref, key, w)  # repeated positions accumulate
    np.testing.assert_allclose(gx.numpy(), ref, atol=1e-12)


@settings(max_examples=40, deadline=None, derandomize=True)
@given(keys())
def test_setitem_matches_numpy_last_write_wins(key):
    a = np.arange(np.prod(SHAPE), dtype=np.float64).reshape(SHAPE)
    target = _valid(a, key)
    if target is None:
        return
    val = -1.0 - np.arange(target.size, dtype=np.float64).reshape(target.shape)
    x = t(a)
    x[key] = t(val)
    # the model: positions written in order, a later write replaces an earlier one
    ref = a.copy().reshape(-1)
    pos = np.arange(a.size).reshape(SHAPE)[key].reshape(-1)
    for p, v in zip(pos, val.reshape(-1)):
        ref[p] = v
    np.testing.assert_array_equal(x.numpy(), ref.reshape(SHAPE))


def test_zero_d_results_and_iteration():
    x = t([[1.0, 2.0], [3.0, 4.0]])
    assert x[1, 0].shape == [] and x[1, 0].item() == 3.0
    assert x[t(1)].tolist() == [3.0, 4.0]  # a 0-D integer tensor is an int
    assert [r.tolist() for r in x] == [[1.0, 2.0], [3.0, 4.0]]
    assert x[None, ..., 1].shape == [1, 2]
    assert x[[True, False]].shape == [1, 2]
    assert x[np.array([[0, 1]]), :].shape == [1, 2, 2]


def test_results_are_copies_not_views():
    x = t([1.0, 2.0, 3.0])
    y = x[1:]
    x[1] = 10.0
    assert y.tolist() == [2.0, 3.0]


def test_repeated_advanced_indices_accumulate_gradients():
    x = leaf([1.0, 2.0, 3.0])
    (g,) = weft.grad(x[[0, 0, 2, 0]].sum(), x)
    assert g.tolist() == [3.0, 0.0, 1.0]
    x = leaf(np.ones((2, 3)))
    (g,) = weft.grad(x[:, t([2, 2], dtype="int32")].sum(), x)
    assert g.tolist() == [[0.0, 0.0, 2.0], [0.0, 0.0, 2.0]]


def test_getitem_double_backward():
    x = leaf([1.0, 2.0, 3.0])
    y = (x[[1, 1, 2]] ** 2).sum()
    (g,) = weft.grad(y, x, create_graph=True)
    assert g.tolist() == [0.0, 8.0, 6.0]
    (gg,) = weft.grad(g.sum(), x)
    assert gg.tolist() == [0.0, 4.0, 2.0]


def test_getitem_errors_name_value_and_bound():
    x = t(np.zeros((3, 4)))
    with pytest.raises(IndexError, match=r"index 4 is out of range for axis 1 of size 4"):
        x[0, 4]
    with pytest.raises(IndexError, match=r"index\[2\] = -5 is out of range for axis 1"):
        x[:, [0, 1, -5]]
    with pytest.raises(TypeError, match="integer or bool"):
        x[t([0.0, 1.0])]
    with pytest.raises(IndexError, match="single ellipsis"):
        x[..., ...]


# ---------------------------------------------------------------------------------
# __setitem__: autograd, dtypes, in-place rules


def test_setitem_gradients_for_tensor_and_value():
    x = leaf(np.arange(6.0).reshape(2, 3))
    v = leaf([10.0, 20.0])
    y = x * 1.0
    y[:, 1] = v
    (y * t(np.arange(1.0, 7.0).reshape(2, 3))).sum().backward()
    assert x.grad.tolist() == [[1.0, 0.0, 3.0], [4.0, 0.0, 6.0]]
    assert v.grad.tolist() == [2.0, 5.0]


def test_setitem_broadcast_value_gradient_is_summed():
    v = leaf(2.0)
    y = weft.zeros([2, 3], dtype="float64")
    y[0] = v
    (y * 3.0).sum().backward()
    assert v.grad.item() == 9.0 and y.stop_gradient is False


def test_setitem_repeated_positions_last_write_wins_with_gradient():
    v = leaf([1.0, 2.0, 3.0])
    y = weft.zeros([2], dtype="float64")
    y[[0, 1, 0]] = v
    assert y.tolist() == [3.0, 2.0]
    y.sum().backward()
    assert v.grad.tolist() == [0.0, 1.0, 1.0]


def test_setitem_on_leaf_requiring_grad_raises_but_no_grad_allows():
    x = leaf([1.0, 2.0])
    with pytest.raises(ValueError, match="Leaf Tensor"):
        x[0] = 5.0
    with weft.no_grad():
        x[0] = 5.0
    assert x.tolist() == [5.0, 2.0]


def test_setitem_version_counter_detects_overwritten_saved_tensor():
    x = leaf([1.0, 2.0, 3.0])
    y = x * 2.0
    z = y * y  # saves y
    y[0] = 0.0
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.sum().backward()


def test_setitem_version_bumped_and_detach_shares_storage():
    x = t([1.0, 2.0])
    d = x.detach()
    v0 = x._version[0]
    x[1] = 7.0
    assert x._version[0] == v0 + 1 and d.tolist() == [1.0, 7.0]


def test_setitem_casts_value_to_target_dtype():
    x = t([1, 2, 3])
    x[0] = 2.7
    x[1:] = t([5.9, -1.5])
    assert x.dtype == weft.int64 and x.tolist() == [2, 5, -1]
    y = t([1.0, 2.0])
    y[0] = t(np.array(0.1, dtype=np.float64))
    assert y.dtype == weft.float32
    with pytest.raises(TypeError, match="complex"):
        y[0] = 1 + 2j
    with pytest.raises(ValueError, match="cannot be broadcast"):
        y[:] = t([1.0, 2.0, 3.0])


def test_setitem_into_broadcast_view_gets_own_storage():
    b = weft.broadcast_to(t([1.0, 2.0]), [2, 2])
    b[0, 0] = 9.0
    assert b.tolist() == [[9.0, 2.0], [1.0, 2.0]]


# ---------------------------------------------------------------------------------
# gather family


def test_gather_and_index_select_index_dtypes_and_ranges():
    x = t([[1, 2], [3, 4], [5, 6]])
    for dt in ("int32", "int64"):
        assert weft.gather(x, t([2, 0], dtype=dt)).tolist() == [[5, 6], [1, 2]]
    assert weft.gather(x, t([[1], [2]])).tolist() == [[3, 4], [5, 6]]  # Paddle's [N, 1]
    assert weft.gather(x, t(1)).tolist() == [3, 4]
    assert weft.gather(x, t([1, 0]), axis=t(1)).tolist() == [[2, 1], [4, 3], [6, 5]]
    with pytest.raises(IndexError, match=r"gather: index\[0\] = -1 is out of range for axis 0"):
        weft.gather(x, t([-1]))  # Paddle rejects negative gather indices
    with pytest.raises(IndexError, match=r"index_select: index\[1\] = 2 .* axis 1 of size 2"):
        weft.index_select(x, t([0, 2]), axis=1)
    with pytest.raises(TypeError, match="got float32"):
        weft.gather(x, t([0.0]))
    with pytest.raises(TypeError, match="got bool"):
        weft.index_select(x, t([True, False, True]))


def test_index_add_matches_add_at_bitwise_and_inplace():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((50, 3)).astype(np.float32)
    idx = rng.integers(0, 50, 400)
    v = rng.standard_normal((400, 3)).astype(np.float32)
    ref = x.copy()
    np.add.at(ref, idx, v)
    np.testing.assert_array_equal(weft.index_add(t(x), t(idx), 0, t(v)).numpy(), ref)
    xt = t(x)
    out = weft.index_add_(xt, t(idx, dtype="int32"), 0, t(v))
    assert out is xt
    np.testing.assert_array_equal(xt.numpy(), ref)
    with pytest.raises(IndexError, match=r"index_add_: index\[0\] = 50 .* size 50"):
        weft.index_add_(xt, t([50]), 0, t(v[:1]))


def test_index_add_gradients_and_double_backward():
    x = leaf(np.zeros((3, 2)))
    v = leaf(np.arange(4.0).reshape(2, 2))
    w = leaf(np.arange(6.0).reshape(3, 2))
    out = weft.index_add(x, t([2, 2]), 0, v)
    gx, gv = weft.grad((out * w).sum(), [x, v], create_graph=True)
    assert gx.tolist() == w.tolist()
    assert gv.tolist() == [[4.0, 5.0], [4.0, 5.0]]
    (gw,) = weft.grad(gv.sum(), w)
    assert gw.tolist() == [[0.0, 0.0], [0.0, 0.0], [2.0, 2.0]]


# ---------------------------------------------------------------------------------
# scatter family: Paddle's documented examples


def test_scatter_paddle_example_and_inplace():
    x = t([[1.0, 1.0], [2.0, 2.0], [3.0, 3.0]])
    index = t([2, 1, 0, 1])
    updates = t([[1.0, 1.0], [2.0, 2.0], [3.0, 3.0], [4.0, 4.0]])
    assert weft.scatter(x, index, updates, overwrite=False).tolist() == \
        [[3.0, 3.0], [6.0, 6.0], [1.0, 1.0]]
    assert weft.scatter(x, index, updates).tolist() == [[3.0, 3.0], [4.0, 4.0], [1.0, 1.0]]
    y = x.scatter_(index, updates)
    assert y is x and x.tolist() == [[3.0, 3.0], [4.0, 4.0], [1.0, 1.0]]


def test_scatter_gradients_follow_the_winning_update():
    x = leaf(np.ones((3, 2)))
    u = leaf(np.ones((3, 2)))
    gx, gu = weft.grad(weft.scatter(x, t([1, 1, 0]), u).sum(), [x, u])
    assert gx.tolist() == [[0.0, 0.0], [0.0, 0.0], [1.0, 1.0]]
    assert gu.tolist() == [[0.0, 0.0], [1.0, 1.0], [1.0, 1.0]]
    gx, gu = weft.grad(weft.scatter(x, t([1, 1, 0]), u, overwrite=False).sum(), [x, u])
    assert gu.tolist() == [[1.0, 1.0]] * 3


def test_gather_nd_and_scatter_nd_paddle_examples():
    x = t([[[1, 2], [3, 4], [5, 6]], [[7, 8], [9, 10], [11, 12]]])
    assert weft.gather_nd(x, t([[0, 1]])).tolist() == [[3, 4]]
    assert weft.gather_nd(x, t([[1, 2, 1]])).tolist() == [12]
    x = weft.rand([3, 5, 9, 10]) if hasattr(weft, "rand") else weft.zeros([3, 5, 9, 10])
    out = weft.scatter_nd_add(x, t([[1, 1], [0, 1], [1, 3]]), weft.ones([3, 9, 10]))
    assert out.shape == [3, 5, 9, 10]
    out = weft.scatter_nd(t([[1], [2], [1]]), t([9.0, 10.0, 11.0]), [4])
    assert out.tolist() == [0.0, 20.0, 10.0, 0.0]


def test_index_put_and_inplace():
    x = weft.zeros([3, 3])
    i = (t([0, 1, 1]), t([1, 2, 2]))
    assert weft.index_put(x, i, t([1.0, 2.0, 3.0])).tolist() == \
        [[0.0, 1.0, 0.0], [0.0, 0.0, 3.0], [0.0, 0.0, 0.0]]
    assert weft.index_put(x, i, t(1.0), accumulate=True).tolist()[1] == [0.0, 0.0, 2.0]
    x.index_put_((t([True, False, True]),), t([7.0, 8.0, 9.0]))
    assert x.tolist()[2] == [7.0, 8.0, 9.0]
    with pytest.raises(IndexError, match="out of range"):
        weft.index_put(x, (t([3]),), t(1.0))


def test_index_fill_negative_index_and_inplace():
    x = weft.ones([2, 3])
    assert weft.index_fill(x, t([-1]), 1, 0.0).tolist() == [[1.0, 1.0, 0.0]] * 2
    v = leaf(2.0)
    out = weft.index_fill(leaf(np.ones((2, 3))), t([0, 0]), 1, v)
    out.sum().backward()
    assert v.grad.item() == 2.0  # two filled entries, the repeat counts once
    x.index_fill_(t([0]), 0, 5.0)
    assert x.tolist() == [[5.0, 5.0, 5.0], [1.0, 1.0, 1.0]]


# ---------------------------------------------------------------------------------
# take_along_axis / put_along_axis


def test_take_along_axis_negative_and_broadcast():
    x = t([[1, 2, 3], [4, 5, 6], [7, 8, 9]])
    assert weft.take_along_axis(x, t([[0, 2]]), 1).tolist() == [[1, 3], [4, 6], [7, 9]]
    assert weft.take_along_axis(x, t([[-1]]), 0).tolist() == [[7, 8, 9]]
    assert weft.take_along_axis(x, t([[0], [1]]), 1, broadcast=False).tolist() == [[1], [5]]
    with pytest.raises(IndexError, match=r"indices\[0, 0\] = 3 .* axis 0 of size 3"):
        weft.take_along_axis(x, t([[3]]), 0)


def test_put_along_axis_paddle_examples_and_reductions():
    x = t([[10, 30, 20], [60, 40, 50]])
    assert weft.put_along_axis(x, t([[0]]), 99, 0).tolist() == [[99, 99, 99], [60, 40, 50]]
    index = t(np.zeros((2, 2), np.int32))
    value = t([[1, 2], [3, 4]])
    assert weft.put_along_axis(x, index, value, 0, "add", True, False).tolist() == \
        [[14, 36, 20], [60, 40, 50]]
    assert weft.put_along_axis(x, index, value, 0, "mul", True, False).tolist() == \
        [[30, 240, 20], [60, 40, 50]]
    assert weft.put_along_axis(x, index, value, 0, "mean", True, False).tolist() == \
        [[4, 12, 20], [60, 40, 50]]
    assert weft.put_along_axis(x, index, value, 0, "amax", False, False).tolist() == \
        [[3, 4, 20], [60, 40, 50]]
    assert weft.put_along_axis(x, index, value, 0, "amin", True, False).tolist() == \
        [[1, 2, 20], [60, 40, 50]]
    with pytest.raises(ValueError, match="reduce must be one of"):
        weft.put_along_axis(x, index, value, 0, "max")


def test_put_along_axis_gradients():
    a = leaf(np.ones((2, 3)))
    v = leaf([[1.0, 2.0, 3.0]])
    ga, gv = weft.grad(weft.put_along_axis(a, t([[1, 0, 1]]), v, 0, "add").sum(), [a, v])
    assert ga.tolist() == [[1.0] * 3] * 2 and gv.tolist() == [[1.0] * 3]
    ga, gv = weft.grad(weft.put_along_axis(a, t([[1, 0, 1]]), v, 0, "mean").sum(), [a, v])
    assert gv.tolist() == [[0.5] * 3]
    out = weft.put_along_axis(a, t([[1, 0, 1]]), v, 0, "mul")
    with pytest.raises(NotImplementedError, match="reduce='mul'"):
        out.sum().backward()


def test_put_along_axis_inplace():
    x = t([[1.0, 2.0], [3.0, 4.0]])
    r = x.put_along_axis_(t([[1], [0]]), 0.0, 1)
    assert r is x and x.tolist() == [[1.0, 0.0], [0.0, 4.0]]


# ---------------------------------------------------------------------------------
# masked ops, nonzero


def test_masked_ops():
    x = t([[1.0, 2.0], [3.0, 4.0]])
    m = t([True, False])
    assert weft.masked_select(x, m).tolist() == [1.0, 3.0]
    assert weft.masked_fill(x, m, -1.0).tolist() == [[-1.0, 2.0], [-1.0, 4.0]]
    assert weft.masked_scatter(x, m, t([7.0, 8.0, 9.0])).tolist() == [[7.0, 2.0], [8.0, 4.0]]
    with pytest.raises(ValueError, match="selects 2 positions but value has only 1"):
        weft.masked_scatter(x, m, t([7.0]))
    x.masked_fill_(m, 0.0)
    assert x.tolist() == [[0.0, 2.0], [0.0, 4.0]]
    x.masked_scatter_(t([False, True]), t([5.0, 6.0]))
    assert x.tolist() == [[0.0, 5.0], [0.0, 6.0]]
    with pytest.raises(ValueError, match="shape"):
        t([1.0, 2.0]).masked_fill_(t([[True], [False]]), 0.0)


def test_masked_scatter_gradient_reaches_used_values_only():
    x = leaf([1.0, 2.0, 3.0])
    v = leaf([10.0, 20.0, 30.0, 40.0])
    gx, gv = weft.grad(weft.masked_scatter(x, t([True, False, True]), v).sum(), [x, v])
    assert gx.tolist() == [0.0, 1.0, 0.0] and gv.tolist() == [1.0, 1.0, 0.0, 0.0]


def test_nonzero_layouts():
    x = t([[1.0, 0.0, 0.0], [0.0, 2.0, 0.0], [0.0, 0.0, 3.0]])
    out = weft.nonzero(x)
    assert out.dtype == weft.int64 and out.tolist() == [[0, 0], [1, 1], [2, 2]]
    rows, cols = weft.nonzero(x, as_tuple=True)
    assert rows.shape == [3, 1] and cols.tolist() == [[0], [1], [2]]
    assert weft.nonzero(t([0.0, 1.0, 0.0, 3.0])).tolist() == [[1], [3]]
    assert weft.nonzero(t(5)).shape == [1, 0]
