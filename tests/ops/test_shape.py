"""Focused tests for the shape families (weft/ops/shape_extra.py, weft/ops/_shape_join.py):
Paddle-specific semantics, dtype rules, in-place variants, error messages and round-trip
properties that the generic op-database tests do not cover."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import weft


def _leaf(a):
    return weft.to_tensor(np.asarray(a, dtype=np.float64), stop_gradient=False)


# ---------------------------------------------------------------------------------
# slicing: Paddle's clamping rules


def test_slice_paddle_doc_cases():
    x = weft.to_tensor([[1, 2, 3, 4], [5, 6, 7, 8]])
    assert weft.slice(x, axes=[0, 1], starts=[1, 0], ends=[2, 3]).tolist() == [[5, 6, 7]]
    assert weft.slice(x, axes=[0, 1], starts=[0, 1], ends=[-1, 1000]).tolist() == [[2, 3, 4]]
    # starts/ends as Tensors: a 1-D tensor, or a list holding 0-D tensors
    s = weft.to_tensor([0, 1])
    assert weft.slice(x, [0, 1], s, [2, 3]).tolist() == [[2, 3], [6, 7]]
    assert weft.slice(x, [1], [weft.to_tensor(-3)], [4]).tolist() == [[2, 3, 4], [6, 7, 8]]
    assert x.slice([1], [-100], [2]).tolist() == [[1, 2], [5, 6]]


def test_slice_end_before_start_is_an_error_equal_is_empty():
    x = weft.ones([3, 4])
    with pytest.raises(ValueError, match="slice: on axis 1 .* end 1 comes before the start 3"):
        weft.slice(x, [1], [3], [1])
    assert weft.slice(x, [1], [2], [2]).shape == [3, 0]
    assert weft.slice(x, [1], [5], [9]).shape == [3, 0]  # both clamped to 4


def test_strided_slice_negative_stride_end_minus_one_reaches_index_0():
    x = weft.arange(6)
    assert weft.strided_slice(x, [0], [5], [-1], [-1]).tolist() == [5, 4, 3, 2, 1, 0]
    assert weft.strided_slice(x, [0], [-1], [-6], [-1]).tolist() == [5, 4, 3, 2, 1]
    assert weft.strided_slice(x, [0], [100], [0], [-2]).tolist() == [5, 3, 1]
    assert weft.strided_slice(x, [0], [-100], [100], [4]).tolist() == [0, 4]


def test_slice_gradient_scatters_into_zeros_and_has_second_order():
    a = _leaf(np.arange(6.0).reshape(2, 3))
    y = weft.strided_slice(a, [1], [2], [-1], [-2])
    (g,) = weft.grad((y * y).sum(), a, create_graph=True)
    # columns 2 and 0 (end -1 with a negative stride runs through index 0)
    np.testing.assert_allclose(g.numpy(), [[0, 0, 4], [6, 0, 10]])
    (gg,) = weft.grad(g.sum(), a)
    np.testing.assert_allclose(gg.numpy(), [[2, 0, 2], [2, 0, 2]])


def test_slice_output_is_a_copy():
    x = weft.to_tensor([1.0, 2.0, 3.0])
    y = weft.slice(x, [0], [0], [2])
    y.numpy()[0] = 9.0
    assert x.tolist() == [1.0, 2.0, 3.0]


def test_crop():
    x = weft.arange(12).reshape([3, 4])
    assert weft.crop(x, [2, -1], [1, 2]).tolist() == [[6, 7], [10, 11]]
    assert x.crop(shape=weft.to_tensor([1, 2])).tolist() == [[0, 1]]
    with pytest.raises(ValueError, match=r"offsets\[1\] \+ shape\[1\] = 3 \+ 2 exceeds"):
        weft.crop(x, [1, 2], [0, 3])


# ---------------------------------------------------------------------------------
# concat / stack and friends


def test_concat_promotes_dtypes_and_each_gradient_keeps_its_input_dtype():
    a = weft.to_tensor([1, 2], dtype="int32")
    b = weft.to_tensor([0.5], dtype="float64")
    c = weft.to_tensor([True])
    out = weft.concat([a, b, c])
    assert out.dtype == weft.float64 and out.tolist() == [1.0, 2.0, 0.5, 1.0]
    assert weft.concat([a, c]).dtype == weft.int32
    x = weft.to_tensor([1.0, 2.0], dtype="float32", stop_gradient=False)
    y = weft.to_tensor([3.0], dtype="float64", stop_gradient=False)
    z = weft.concat([x, y])
    assert z.dtype == weft.float64
    gx, gy = weft.grad((z * weft.to_tensor([1.0, 2.0, 3.0], dtype="float64")).sum(), [x, y])
    assert gx.dtype == weft.float32 and gx.tolist() == [1.0, 2.0]
    assert gy.dtype == weft.float64 and gy.tolist() == [3.0]


def test_concat_axis_forms_and_aliases():
    xs = [weft.ones([2, 1]), weft.zeros([2, 2])]
    assert weft.concat(xs, axis=weft.to_tensor(1)).shape == [2, 3]
    assert weft.concat(xs, dim=-1).shape == [2, 3]
    assert weft.concat(tuple(xs), 1).shape == [2, 3]
    assert weft.stack(xs[:1] * 3, dim=1).shape == [2, 3, 1]
    with pytest.raises(TypeError, match="both axis= and its alias dim="):
        weft.concat(xs, axis=1, dim=1)


def test_concat_and_stack_error_messages_name_the_offender():
    with pytest.raises(ValueError, match=r"concat: x\[1\] has shape \[3, 3\] but x\[0\] has "
                                         r"shape \[2, 3\]; all dimensions except axis 1"):
        weft.concat([weft.ones([2, 3]), weft.ones([3, 3]), weft.ones([2, 5])], axis=1)
    with pytest.raises(ValueError, match=r"stack: x\[1\] has shape \[3\] but x\[0\] has shape"):
        weft.stack([weft.ones([2]), weft.ones([3])])
    with pytest.raises(ValueError, match="empty list"):
        weft.stack([])
    with pytest.raises(TypeError, match="concat: x must be a list or tuple"):
        weft.concat(weft.ones([2]))


def test_hstack_vstack_dstack_column_stack_shapes():
    a, b = weft.to_tensor([1, 2]), weft.to_tensor([3, 4])
    assert weft.hstack([a, b]).tolist() == [1, 2, 3, 4]
    assert weft.vstack([a, b]).tolist() == [[1, 2], [3, 4]]
    assert weft.row_stack([a, b]).tolist() == [[1, 2], [3, 4]]
    assert weft.column_stack([a, b]).tolist() == [[1, 3], [2, 4]]
    assert weft.dstack([a, b]).shape == [1, 2, 2]


# ---------------------------------------------------------------------------------
# split family


def test_split_sections_and_errors():
    x = weft.arange(10).reshape([2, 5])
    parts = weft.split(x, [2, -1, 1], axis=1)
    assert [p.shape for p in parts] == [[2, 2], [2, 2], [2, 1]]
    assert [p.shape for p in x.split(weft.to_tensor([3, 2]), dim=1)] == [[2, 3], [2, 2]]
    with pytest.raises(ValueError, match="split: sections \\[2, 2\\] sum to 4 but axis 1 has "
                                         "size 5"):
        weft.split(x, [2, 2], axis=1)
    with pytest.raises(ValueError, match="axis 1 of size 5 cannot be split into 2 equal"):
        weft.split(x, 2, axis=1)
    with pytest.raises(ValueError, match="equal"):
        weft.chunk(x, 2, axis=1)  # Paddle's chunk needs an even split, unlike torch's


def test_split_gradient_with_unused_outputs_is_zero_there():
    a = _leaf(np.arange(6.0))
    p0, p1, p2 = weft.split(a, 3)
    (g,) = weft.grad((p1 * p1).sum(), a, create_graph=True)
    np.testing.assert_allclose(g.numpy(), [0, 0, 4, 6, 0, 0])
    (gg,) = weft.grad(g.sum(), a)
    np.testing.assert_allclose(gg.numpy(), [0, 0, 2, 2, 0, 0])


def test_unbind_gradient_with_unused_outputs_and_unstack_num():
    a = _leaf(np.arange(6.0).reshape(3, 2))
    rows = weft.unbind(a, axis=0)
    (g,) = weft.grad(rows[2].sum() * 2, a)
    np.testing.assert_allclose(g.numpy(), [[0, 0], [0, 0], [2, 2]])
    assert len(weft.unstack(a, axis=1, num=2)) == 2
    with pytest.raises(ValueError, match="num = 3 but axis 1 of x has size 2"):
        weft.unstack(a, axis=1, num=3)


def test_tensor_split_with_unsorted_indices_gradient_sums_overlaps():
    a = _leaf(np.arange(5.0))
    parts = weft.tensor_split(a, [3, 1])  # a[0:3], a[3:1] (empty), a[1:5]
    assert [p.shape for p in parts] == [[3], [0], [4]]
    (g,) = weft.grad(parts[0].sum() + parts[2].sum(), a)
    np.testing.assert_allclose(g.numpy(), [1, 2, 2, 1, 1])


def test_hsplit_vsplit_dsplit():
    x = weft.ones([2, 4, 6])
    assert [p.shape for p in weft.hsplit(x, 2)] == [[2, 2, 6], [2, 2, 6]]
    assert [p.shape for p in weft.vsplit(x, [1])] == [[1, 4, 6], [1, 4, 6]]
    assert [p.shape for p in x.dsplit(3)] == [[2, 4, 2]] * 3
    with pytest.raises(ValueError, match="vsplit: x needs at least 2 dimension"):
        weft.vsplit(weft.ones([3]), 3)


# ---------------------------------------------------------------------------------
# reshapes, views, in-place variants


def test_flatten_rules():
    assert weft.flatten(weft.to_tensor(3.0)).shape == [1]
    x = weft.ones([2, 3, 4, 5])
    assert weft.flatten(x, 1, 2).shape == [2, 12, 5]
    assert x.flatten(start_dim=-2).shape == [2, 3, 20]
    assert weft.flatten(weft.ones([2, 0, 3]), 1).shape == [2, 0]
    with pytest.raises(ValueError, match="flatten: start_axis 2 comes after stop_axis 1"):
        weft.flatten(x, 2, 1)


def test_view_dtype_reinterprets_memory_and_is_not_differentiable():
    x = weft.to_tensor([1.0, -2.0], dtype="float32", stop_gradient=False)
    v = weft.view(x, "int32")
    assert v.dtype == weft.int32 and v.stop_gradient
    assert v.tolist() == np.array([1.0, -2.0], np.float32).view(np.int32).tolist()
    assert np.shares_memory(v.numpy(), x.numpy())
    w = weft.view(weft.to_tensor(np.arange(4.0, dtype=np.float32)), weft.float64)
    assert w.shape == [2]
    assert x.view([2, 1]).shape == [2, 1]
    assert weft.view_as(weft.ones([6]), weft.ones([2, 3])).shape == [2, 3]


def test_inplace_reshapes_change_the_tensor_itself():
    x = weft.arange(6)
    v = x._version[0]
    assert weft.reshape_(x, [2, 3]) is x and x.shape == [2, 3]
    assert x.unsqueeze_(0) is x and x.shape == [1, 2, 3]
    assert x.squeeze_() is x and x.shape == [2, 3]
    assert x.flatten_() is x and x.shape == [6]
    assert x._version[0] == v + 4
    assert x.tolist() == list(range(6))
    e = weft.ones([1, 0])
    assert weft.squeeze_(e, 0).shape == [0]


def test_inplace_reshape_autograd_rules():
    a = _leaf([1.0, 2.0, 3.0, 4.0])
    with pytest.raises(ValueError, match="reshape_: Leaf Tensor that doesn't stop gradient"):
        a.reshape_([2, 2])
    with weft.no_grad():
        b = _leaf([1.0, 2.0])
        b.unsqueeze_(0)
        assert b.shape == [1, 2]
    x = a * 1
    x.reshape_([2, 2])
    (g,) = weft.grad((x * x).sum(), a)
    np.testing.assert_allclose(g.numpy(), [2, 4, 6, 8])
    # a tensor saved for backward whose shape changed in place is detected
    x = a * 1
    y = x * x
    x.reshape_([2, 2])
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        weft.grad(y.sum(), a)


def test_t_moveaxis_swapaxes():
    v = weft.ones([3])
    assert weft.t(v) is v
    assert weft.ones([2, 3]).t().shape == [3, 2]
    with pytest.raises(ValueError, match="t: input must have at most 2 dimensions"):
        weft.t(weft.ones([1, 2, 3]))
    x = weft.to_tensor(np.arange(24).reshape(2, 3, 4))
    np.testing.assert_array_equal(weft.moveaxis(x, [0, 1], [-1, 0]).numpy(),
                                  np.moveaxis(x.numpy(), [0, 1], [-1, 0]))
    assert weft.swapaxes(x, 0, -1).shape == [4, 3, 2]
    assert x.swapdims(1, 2).shape == [2, 4, 3]


def test_broadcast_shape_and_tensors():
    assert weft.broadcast_shape([2, 1, 3], [4, 1]) == [2, 4, 3]
    assert weft.broadcast_shape([], [3]) == [3]
    assert weft.broadcast_shape((0, 1), [5]) == [0, 5]
    with pytest.raises(ValueError, match=r"y_shape of shape \[4\] does not broadcast"):
        weft.broadcast_shape([2, 3], [4])
    a = _leaf(np.ones((3, 1)))
    b = _leaf(np.ones(4))
    x, y = weft.broadcast_tensors([a, b])
    assert x.shape == y.shape == [3, 4]
    ga, gb = weft.grad((x * 2 + y).sum(), [a, b])
    np.testing.assert_allclose(ga.numpy(), np.full((3, 1), 8.0))
    np.testing.assert_allclose(gb.numpy(), np.full(4, 3.0))
    assert weft.expand_as(weft.ones([1, 3]), weft.ones([2, 3], dtype="int32")).shape == [2, 3]


# ---------------------------------------------------------------------------------
# repetition, reversal, rotation


def test_tile_and_repeat_interleave_semantics():
    x = weft.to_tensor([[1, 2], [3, 4]])
    np.testing.assert_array_equal(weft.tile(x, [2]).numpy(), np.tile(x.numpy(), [2]))
    np.testing.assert_array_equal(x.tile(weft.to_tensor([1, 2, 1])).numpy(),
                                  np.tile(x.numpy(), [1, 2, 1]))
    assert weft.repeat_interleave(x, 2).tolist() == [1, 1, 2, 2, 3, 3, 4, 4]
    assert x.repeat_interleave([1, 2], axis=0).tolist() == [[1, 2], [3, 4], [3, 4]]
    assert weft.repeat_interleave(x, weft.to_tensor([3]), dim=1).shape == [2, 6]


def test_repeat_interleave_tensor_repeats_gradient_segment_sums():
    a = _leaf([1.0, 2.0, 3.0, 4.0])
    r = weft.to_tensor([2, 0, 3, 1])
    y = weft.repeat_interleave(a, r)
    assert y.tolist() == [1, 1, 3, 3, 3, 4]
    w = weft.to_tensor(np.arange(1.0, 7.0))
    (g,) = weft.grad((y * y * w).sum(), a, create_graph=True)
    # d/da_i sum_{j in seg i} w_j a_i^2 = 2 a_i sum w_j
    np.testing.assert_allclose(g.numpy(), [2 * 1 * 3, 0, 2 * 3 * 12, 2 * 4 * 6])
    (gg,) = weft.grad(g.sum(), a)
    np.testing.assert_allclose(gg.numpy(), [6, 0, 24, 12])


def test_tile_gradient_sums_copies():
    a = _leaf([[1.0, 2.0]])
    y = weft.tile(a, [3, 2])
    (g,) = weft.grad(y.sum(), a)
    np.testing.assert_allclose(g.numpy(), [[6.0, 6.0]])


@pytest.mark.parametrize("k", [-5, -1, 0, 1, 2, 3, 6])
def test_rot90_matches_numpy(k):
    x = np.arange(24).reshape(2, 3, 4)
    np.testing.assert_array_equal(weft.rot90(weft.to_tensor(x), k, [2, 0]).numpy(),
                                  np.rot90(x, k, (2, 0)))


def test_roll_flip_aliases():
    x = weft.to_tensor(np.arange(6).reshape(2, 3))
    assert weft.roll(x, 1).tolist() == [[5, 0, 1], [2, 3, 4]]
    assert weft.roll(x, shifts=[1], dims=[1]).tolist() == [[2, 0, 1], [5, 3, 4]]
    assert weft.flip(x, dims=[0]).tolist() == [[3, 4, 5], [0, 1, 2]]
    assert x.flip(-1).tolist() == [[2, 1, 0], [5, 4, 3]]


# ---------------------------------------------------------------------------------
# complex <-> real


def test_as_complex_as_real_gradients_follow_the_convention():
    x = _leaf([[1.0, 2.0], [3.0, -1.0]])
    z = weft.as_complex(x)
    assert z.dtype == weft.complex128
    # L = sum |z|^2 = sum x^2, so dL/dx = 2x
    (g,) = weft.grad(weft.real(z * weft.conj(z)).sum(), x)
    np.testing.assert_allclose(g.numpy(), 2 * x.numpy())
    w = weft.to_tensor(np.array([1 + 2j, -3j]), stop_gradient=False)
    (gw,) = weft.grad((weft.as_real(w) * weft.to_tensor([[1.0, 10.0], [2.0, 20.0]],
                                                          dtype="float64")).sum(), w)
    np.testing.assert_allclose(gw.numpy(), [1 + 10j, 2 + 20j])
    assert weft.as_complex(weft.ones([2], dtype="float32")).dtype == weft.complex64


# ---------------------------------------------------------------------------------
# properties

_shapes = st.lists(st.integers(0, 4), min_size=1, max_size=3)


@settings(derandomize=True, max_examples=25, deadline=None)
@given(_shapes, st.integers(0, 2), st.integers(1, 3))
def test_split_concat_round_trip(shape, axis, k):
    axis = axis % len(shape)
    shape[axis] *= k
    x = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    parts = weft.split(weft.to_tensor(x), k, axis)
    assert len(parts) == k
    np.testing.assert_array_equal(weft.concat(parts, axis).numpy(), x)
    np.testing.assert_array_equal(weft.stack(weft.unbind(weft.to_tensor(x), axis), axis).numpy()
                                  if shape[axis] else x, x)


@settings(derandomize=True, max_examples=25, deadline=None)
@given(_shapes, st.integers(-7, 7))
def test_roll_and_flip_invert_themselves(shape, s):
    x = weft.to_tensor(np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape))
    ax = len(shape) - 1
    np.testing.assert_array_equal(weft.roll(weft.roll(x, s, ax), -s, ax).numpy(), x.numpy())
    np.testing.assert_array_equal(weft.flip(weft.flip(x, ax), ax).numpy(), x.numpy())
    np.testing.assert_array_equal(weft.roll(x, s).numpy(), np.roll(x.numpy(), s))


@settings(derandomize=True, max_examples=20, deadline=None)
@given(st.lists(st.integers(0, 3), min_size=0, max_size=3))
def test_as_real_as_complex_round_trip(shape):
    rng = np.random.default_rng(len(shape))
    z = (rng.normal(size=shape) + 1j * rng.normal(size=shape)).astype(np.complex64)
    r = weft.as_real(weft.to_tensor(z))
    assert r.shape == list(shape) + [2] and r.dtype == weft.float32
    np.testing.assert_array_equal(weft.as_complex(r).numpy(), z)
