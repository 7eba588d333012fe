"""Reduction and scan semantics the op database does not cover: Paddle's documented
examples, dtype rules, tie/zero/NaN gradient rules, in-place scans, warnings, and
hypothesis invariants."""
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import weft
from weft.autograd import gradcheck, gradgradcheck

NAN = float("nan")
INF = float("inf")


def t(a, **kw):
    return weft.to_tensor(a, **kw)


def leaf(a, dtype="float64"):
    return weft.to_tensor(np.asarray(a, dtype=dtype), stop_gradient=False)


def grad_of(f, x):
    return weft.grad(f(x), [x])[0].numpy()


@pytest.fixture
def no_warnings():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        yield


# ---------------------------------------------------------------------------------
# dtype rules


@pytest.mark.parametrize("dt", ["bool", "int8", "int32", "int64"])
def test_sum_and_nansum_of_bool_and_int_give_int64(dt):
    x = t(np.ones((2, 3), dtype=dt))
    assert weft.sum(x).dtype == weft.int64 and weft.sum(x).item() == 6
    assert weft.sum(x, axis=1).dtype == weft.int64
    assert weft.nansum(x).dtype == weft.int64
    assert weft.sum(x, dtype="float32").dtype == weft.float32


def test_scans_and_prod_keep_int32_and_bool_becomes_int64():
    x = t(np.array([1, 2, 3], np.int32))
    assert weft.cumsum(x).dtype == weft.int32
    assert weft.cumprod(x).dtype == weft.int32
    assert weft.prod(x).dtype == weft.int32
    assert weft.cumsum(x, dtype="int64").dtype == weft.int64
    assert weft.cumsum(t([True, True])).tolist() == [1, 2]
    assert weft.cumsum(t([True, True])).dtype == weft.int64


def test_float_results_of_integer_inputs_use_the_default_dtype():
    x = t([1, 2, 3, 4])
    for f in (weft.logsumexp, weft.var, weft.std, weft.median, weft.nanmean,
              lambda v: weft.quantile(v, 0.5), weft.norm):
        assert f(x).dtype == weft.float32
    v, i = weft.median(x, axis=0, mode="min")
    assert v.dtype == weft.int64 and v.item() == 2 and i.item() == 1


def test_index_outputs_and_counts_are_int64_or_int32():
    x = t([[1.0, 3.0], [2.0, 0.0]])
    assert weft.argmax(x).dtype == weft.int64
    assert weft.argmax(x, axis=0, dtype="int32").dtype == weft.int32
    assert weft.count_nonzero(x).dtype == weft.int64 and weft.count_nonzero(x).item() == 3
    assert weft.cummax(x, axis=1, dtype="int32")[1].dtype == weft.int32


def test_full_reductions_are_0d():
    x = t(np.arange(6.0).reshape(2, 3))
    for f in (weft.prod, weft.max, weft.amin, weft.all, weft.logsumexp, weft.var,
              weft.median, weft.norm, weft.count_nonzero, weft.nansum, weft.argmax):
        assert f(x).shape == [], f
    assert weft.quantile(x, 0.5).shape == []
    assert weft.argmax(x, keepdim=True).shape == [1, 1]
    assert weft.norm(x, keepdim=True).shape == [1, 1]


# ---------------------------------------------------------------------------------
# empty inputs and NaN


def test_empty_reductions():
    e = t(np.zeros((0, 3), np.float32))
    assert weft.sum(e).item() == 0
    assert weft.prod(e).item() == 1
    assert weft.prod(e, axis=0).tolist() == [1.0, 1.0, 1.0]
    assert np.isnan(weft.mean(e).item())
    assert weft.all(e).item() is True and weft.any(e).item() is False
    assert weft.max(e, axis=1).shape == [0]  # only the empty axis is an error
    for f in (weft.max, weft.min, weft.amax, weft.amin):
        with pytest.raises(ValueError, match=f"{f.__name__}: cannot reduce an empty tensor"):
            f(e)
        with pytest.raises(ValueError, match=f.__name__):
            f(e, axis=0)
    with pytest.raises(ValueError, match="argmin"):
        weft.argmin(e)


def test_nan_variants_are_silent_on_all_nan_slices(no_warnings):
    x = t([[NAN, NAN], [1.0, NAN]])
    assert np.isnan(weft.nanmean(x, axis=1).numpy()[0])
    assert weft.nanmean(x, axis=1).numpy()[1] == 1.0
    r = weft.nanmedian(x, axis=1).numpy()
    assert np.isnan(r[0]) and r[1] == 1.0
    assert np.isnan(weft.nanquantile(x, 0.3, axis=1).numpy()[0])
    assert weft.nansum(x, axis=1).tolist() == [0.0, 1.0]
    assert np.isnan(weft.median(x, axis=1).numpy()).all()
    assert np.isnan(weft.var(t([1.0])).item())


def test_max_and_min_propagate_nan_and_send_the_gradient_there():
    x = leaf([1.0, NAN, 3.0])
    assert np.isnan(weft.max(x).item()) and np.isnan(weft.min(x).item())
    np.testing.assert_array_equal(grad_of(weft.max, x), [0.0, 1.0, 0.0])


def test_nansum_and_nanmean_gradients_skip_nan():
    x = leaf([1.0, NAN, 3.0, 4.0])
    np.testing.assert_array_equal(grad_of(weft.nansum, x), [1, 0, 1, 1])
    np.testing.assert_allclose(grad_of(weft.nanmean, x), [1 / 3, 0, 1 / 3, 1 / 3])


# ---------------------------------------------------------------------------------
# gradient rules: ties, zeros, stability


@pytest.mark.parametrize("f", [weft.max, weft.amax])
def test_max_ties_split_the_gradient_evenly(f):
    x = leaf([[1.0, 3.0, 3.0], [2.0, 2.0, 2.0]])
    np.testing.assert_allclose(grad_of(lambda v: f(v, axis=1).sum(), x),
                               [[0, 0.5, 0.5], [1 / 3, 1 / 3, 1 / 3]])


@pytest.mark.parametrize("f", [weft.min, weft.amin])
def test_min_ties_split_the_gradient_evenly(f):
    x = leaf([0.0, 5.0, 0.0, 0.0])
    np.testing.assert_allclose(grad_of(f, x), [1 / 3, 0, 1 / 3, 1 / 3])


def test_prod_gradient_with_one_and_with_two_zeros():
    x = leaf([[2.0, 0.0, 3.0], [0.0, 4.0, 0.0], [1.0, 2.0, 3.0]])
    np.testing.assert_allclose(grad_of(lambda v: weft.prod(v, axis=1).sum(), x),
                               [[0, 6, 0], [0, 0, 0], [6, 3, 2]])
    assert gradcheck(lambda v: weft.prod(v, axis=1), [x])
    assert gradgradcheck(lambda v: weft.prod(v, axis=1), [x])
    assert gradgradcheck(lambda v: weft.prod(v, axis=[0, 1]), [x])


def test_prod_of_complex_with_zeros():
    x = leaf([1 + 1j, 0, 2 - 1j], "complex128")
    assert gradcheck(weft.prod, [x]) and gradgradcheck(weft.prod, [x])


def test_cumprod_gradient_with_zeros_is_exact_to_second_order():
    x = leaf([[2.0, 0.0, 3.0, 0.0, 1.5], [0.5, 1.5, 2.0, 1.0, 3.0]])
    g = grad_of(lambda v: weft.cumprod(v, dim=1).sum(), x)
    # d/dx1 of x0 + x0x1 + x0x1x2 + ... = x0 + x0x2 + x0x2x3 + x0x2x3x4
    np.testing.assert_allclose(g[0], [1.0, 2 + 6 + 0 + 0, 0.0, 0.0, 0.0])
    assert gradgradcheck(lambda v: weft.cumprod(v, dim=1), [x])
    xc = leaf([1 + 1j, 0, 2 - 1j, 0.5j], "complex128")
    assert gradcheck(lambda v: weft.cumprod(v, dim=0), [xc])
    assert gradgradcheck(lambda v: weft.cumprod(v, dim=0), [xc])


def test_logsumexp_is_stable_and_its_gradient_is_the_softmax():
    x = leaf([1000.0, 1000.0, 999.0])
    v = weft.logsumexp(x)
    np.testing.assert_allclose(v.item(), 1000 + np.log(2 + np.exp(-1.0)))
    e = np.exp([0.0, 0.0, -1.0])
    np.testing.assert_allclose(weft.grad(v, [x])[0].numpy(), e / e.sum())
    assert weft.logsumexp(t([-INF, -INF])).item() == -INF
    assert weft.logsumexp(t(np.zeros((2, 0))), axis=1).tolist() == [-INF, -INF]


def test_logcumsumexp_is_stable_in_value_and_gradient():
    x = leaf([-800.0, 0.0, 700.0, -INF, 701.0])  # the wide range takes the recurrence path
    r = weft.logcumsumexp(x)
    np.testing.assert_allclose(r.numpy(), np.logaddexp.accumulate(x.numpy()))
    g = weft.grad(r.sum(), [x])[0].numpy()
    assert np.isfinite(g).all() and g[3] == 0
    # finite-difference check on the finite entries
    y = leaf([-800.0, 0.0, 700.0, 3.0, 701.0])
    assert gradcheck(weft.logcumsumexp, [y])
    assert gradgradcheck(weft.logcumsumexp, [y])


def test_norm_gradient_at_zero_is_zero_not_nan():
    z = leaf([0.0, 0.0, 0.0])
    for p in (None, "fro", 2, 3.0, 0.5):
        np.testing.assert_array_equal(grad_of(lambda v: weft.norm(v, p=p), z), [0, 0, 0])
    m = leaf(np.zeros((2, 2)))
    np.testing.assert_array_equal(grad_of(lambda v: weft.norm(v, axis=[0, 1]), m), 0)
    np.testing.assert_array_equal(grad_of(lambda v: weft.dist(v, v * 1.0), m), 0)


def test_norm_inf_ties_split_and_std_of_constant_has_zero_gradient():
    x = leaf([-3.0, 3.0, 1.0])
    np.testing.assert_allclose(grad_of(lambda v: weft.norm(v, p=INF), x), [-0.5, 0.5, 0])
    c = leaf([2.0, 2.0, 2.0])
    np.testing.assert_array_equal(grad_of(weft.std, c), [0, 0, 0])


def test_svd_norms_differentiate_once_and_refuse_a_second_derivative():
    a = np.array([[3.0, 1.0], [1.0, 2.0], [0.0, 1.0]])
    x = leaf(a)
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    np.testing.assert_allclose(grad_of(lambda v: weft.norm(v, p="nuc"), x), u @ vh)
    np.testing.assert_allclose(grad_of(lambda v: weft.norm(v, p=2, axis=[0, 1]), x),
                               np.outer(u[:, 0], vh[0]))
    g = weft.grad(weft.norm(x, p="nuc"), [x], create_graph=True)[0]
    with pytest.raises(RuntimeError, match="second derivative of the nuc/2/-2 norm"):
        weft.grad(g.sum(), [x])


def test_median_and_quantile_route_the_gradient_to_the_selected_elements():
    x = leaf([4.0, 1.0, 3.0, 2.0])
    np.testing.assert_allclose(grad_of(weft.median, x), [0, 0, 0.5, 0.5])
    np.testing.assert_allclose(grad_of(lambda v: weft.median(v, axis=0, mode="min")[0], x),
                               [0, 0, 0, 1])
    # q = 0.4: position 1.2 between the sorted elements 2 (x[3]) and 3 (x[2])
    np.testing.assert_allclose(grad_of(lambda v: weft.quantile(v, 0.4), x), [0, 0, 0.2, 0.8])
    np.testing.assert_allclose(grad_of(lambda v: weft.quantile(v, 0.4, interpolation="lower"),
                                       x), [0, 0, 0, 1])


def test_cummax_routes_the_gradient_to_the_attaining_index():
    x = leaf([1.0, 3.0, 2.0, 3.0, 0.5])
    v, i = weft.cummax(x)
    assert i.tolist() == [0, 1, 1, 3, 3]  # ties: the later index (Paddle's >=)
    np.testing.assert_array_equal(weft.grad(v.sum(), [x])[0].numpy(), [1, 2, 0, 2, 0])
    assert gradgradcheck(lambda u: weft.cummin(u, axis=0)[0], [leaf([3.0, 1.0, 2.0, 0.5])])


# ---------------------------------------------------------------------------------
# Paddle semantics and documented examples


def test_var_and_std_are_unbiased_by_default():
    x = t([1.0, 2.0, 3.0, 4.0])
    np.testing.assert_allclose(weft.var(x).item(), 5 / 3, rtol=1e-6)
    np.testing.assert_allclose(weft.var(x, unbiased=False).item(), 1.25)
    np.testing.assert_allclose(weft.std(x, unbiased=False).item(), np.sqrt(1.25), rtol=1e-6)
    z = t([1 + 1j, 1 - 1j])
    assert weft.var(z).dtype == weft.float32 and weft.var(z).item() == 2.0


def test_median_modes_follow_paddle3():
    x = t([[1.0, 4.0, 2.0, 3.0], [5.0, 7.0, 6.0, 8.0]])
    assert weft.median(x, axis=1).tolist() == [2.5, 6.5]
    v, i = weft.median(x, axis=1, mode="min")
    assert v.tolist() == [2.0, 6.0] and i.tolist() == [2, 2]
    r = weft.median(x, mode="min")  # axis None: only the value
    assert isinstance(r, weft.Tensor) and r.item() == 4.0
    v, i = weft.nanmedian(t([[NAN, 2.0, 1.0]]), axis=1, mode="min", keepdim=True)
    assert v.tolist() == [[1.0]] and i.tolist() == [[2]]


def test_quantile_list_q_and_interpolations():
    x = t([[10.0, 20.0, 30.0, 40.0]])
    r = weft.quantile(x, [0.0, 0.5, 1.0], axis=1)
    assert r.shape == [3, 1] and r.numpy().ravel().tolist() == [10.0, 25.0, 40.0]
    assert weft.quantile(x, 0.5, axis=1, keepdim=True).shape == [1, 1]
    q = 1 / 6  # position exactly 0.5: Paddle's 'nearest' rounds half away from zero
    assert weft.quantile(x, q, axis=1, interpolation="nearest").tolist() == [20.0]
    assert weft.quantile(x, q, axis=1, interpolation="midpoint").tolist() == [15.0]
    assert weft.quantile(x, q, axis=1, interpolation="higher").tolist() == [20.0]
    assert weft.quantile(x, t([0.25, 0.75]), axis=1).shape == [2, 1]


def test_mode_prefers_the_smallest_value_and_its_last_index():
    x = t([[[1, 2, 2], [2, 3, 3]], [[0, 5, 5], [9, 9, 0]]], dtype="float32")
    v, i = weft.mode(x, 2)
    assert v.tolist() == [[2.0, 3.0], [5.0, 9.0]]
    assert i.tolist() == [[2, 2], [2, 1]]
    v, i = weft.mode(t([3, 1, 3, 1, 2]))
    assert v.item() == 1 and i.item() == 3


def test_cumsum_flattens_without_axis_and_0d_stays_0d():
    x = t([[1, 2], [3, 4]])
    assert weft.cumsum(x).tolist() == [1, 3, 6, 10]
    assert weft.cumprod(x, dim=1).tolist() == [[1, 2], [3, 12]]
    assert weft.cumsum(t(5.0)).shape == []
    v, i = weft.cummin(t([[3, 1], [0, 2]]))
    assert v.tolist() == [3, 1, 0, 0] and i.tolist() == [0, 1, 2, 2]


def test_inplace_scans_keep_the_shape_and_check_leaves():
    x = t([[1.0, 2.0], [3.0, 4.0]])
    assert x.cumsum_() is x and x.tolist() == [[1.0, 3.0], [6.0, 10.0]]
    y = t([[1.0, 2.0], [3.0, 4.0]])
    y.cumprod_(dim=0)
    assert y.tolist() == [[1.0, 2.0], [3.0, 8.0]]
    w = leaf([1.0, 2.0], "float32")
    with pytest.raises(ValueError, match="cumsum_"):
        w.cumsum_()
    h = w * 2
    h.cumsum_(axis=0)
    np.testing.assert_array_equal(weft.grad(h.sum(), [w])[0].numpy(), [4.0, 2.0])


def test_norm_paddle_examples():
    x = weft.reshape(weft.arange(24, dtype="float32"), [2, 3, 4]) - 12
    np.testing.assert_allclose(weft.norm(x, p="fro", axis=[0, 1]).numpy(),
                               [17.435596, 16.911535, 16.7332, 16.911535], rtol=1e-6)
    np.testing.assert_allclose(weft.norm(x, p=2, axis=-1).numpy(),
                               np.linalg.norm(x.numpy(), axis=-1), rtol=1e-6)
    assert weft.norm(x, p=INF).item() == 12.0
    np.testing.assert_allclose(weft.norm(x).item(), np.linalg.norm(x.numpy().ravel()),
                               rtol=1e-6)
    m = t([[1.0, -2.0], [3.0, 4.0]])
    assert weft.norm(m, p=1, axis=[0, 1]).item() == 6.0      # max column sum
    assert weft.norm(m, p=INF, axis=[0, 1]).item() == 7.0    # max row sum
    assert weft.norm(m, p=-1, axis=[1, 0]).item() == 3.0     # rows/columns swapped


def test_dist_paddle_examples():
    x = t([[3.0, 3.0], [3.0, 3.0]])
    y = t([[3.0, 3.0], [3.0, 1.0]])
    assert weft.dist(x, y, 0).item() == 1.0
    assert weft.dist(x, y, 2).item() == 2.0
    assert weft.dist(x, y, INF).item() == 2.0
    assert weft.dist(x, y, -INF).item() == 0.0


def test_trace_and_its_gradient():
    a = np.arange(24.0).reshape(2, 3, 4)
    x = leaf(a)
    r = weft.trace(x, offset=1, axis1=1, axis2=2)
    np.testing.assert_allclose(r.numpy(), np.trace(a, 1, 1, 2))
    g = weft.grad(r.sum(), [x])[0].numpy()
    np.testing.assert_array_equal(g, np.broadcast_to(np.eye(3, 4, 1), (2, 3, 4)))
    assert weft.trace(t([[1, 2], [3, 4]], dtype="int32")).dtype == weft.int32


def test_diff_paddle_examples_and_bool():
    x = t([1, 4, 5, 2])
    assert weft.diff(x).tolist() == [3, 1, -3]
    assert weft.diff(x, append=t([5, 6])).tolist() == [3, 1, -3, 3, 1]
    assert weft.diff(x, n=2, prepend=t([0])).tolist() == [2, -2, -4]
    assert weft.diff(t([True, True, False])).tolist() == [False, True]
    y = leaf([1.0, 4.0, 9.0])
    np.testing.assert_array_equal(grad_of(lambda v: weft.diff(v, append=t([0.0])).sum(), y),
                                  [-1, 0, 0])


def test_histogram_range_rules_and_dtypes():
    x = t([1.0, 2.0, 1.0])
    assert weft.histogram(x, bins=4, min=0, max=3).tolist() == [0, 2, 1, 0]
    h = weft.histogram(x, bins=2)  # data range [1, 2]
    assert h.tolist() == [2, 1] and h.dtype == weft.int64
    assert weft.histogram(t([5, 5]), bins=2).tolist() == [0, 2]  # widened to [4, 6]
    assert weft.histogram(t([0.5, 9.0]), bins=2, min=0, max=2).tolist() == [1, 0]
    hw = weft.histogram(x, bins=2, weight=t([0.5, 1.0, 0.25]))
    assert hw.dtype == weft.float32 and hw.tolist() == [0.75, 1.0]
    hd = weft.histogram(x, bins=2, density=True)
    np.testing.assert_allclose(hd.numpy(), [4 / 3, 2 / 3])
    assert x.histogram(bins=2).tolist() == [2, 1]


def test_bincount_paddle_examples_and_gradient():
    x = t([1, 2, 1, 4, 5])
    assert weft.bincount(x).tolist() == [0, 2, 1, 0, 1, 1]
    w = leaf([2.1, 0.4, 0.1, 0.5, 0.5], "float32")
    r = weft.bincount(x, weights=w)
    assert r.dtype == weft.float32
    np.testing.assert_allclose(r.numpy(), [0, 2.2, 0.4, 0, 0.5, 0.5], rtol=1e-6)
    g = weft.grad((r * t(np.arange(6.0, dtype="float32"))).sum(), [w])[0]
    assert g.tolist() == [1.0, 2.0, 1.0, 4.0, 5.0]
    assert weft.bincount(x, minlength=8).shape == [8]
    assert weft.bincount(x, weights=t([1, 2, 3, 4, 5])).dtype == weft.int64
    with pytest.raises(ValueError, match=r"x\[2\] = -1"):
        weft.bincount(t([0, 1, -1]))


def test_torch_style_keyword_aliases():
    x = t([[1.0, 5.0], [4.0, 2.0]])
    assert weft.max(input=x, dim=1).tolist() == [5.0, 4.0]
    assert x.logsumexp(dim=0, keepdim=True).shape == [1, 2]
    assert weft.median(input=x, dim=0).tolist() == [2.5, 3.5]
    assert weft.cumprod(input=x, dim=1).tolist() == [[1.0, 5.0], [4.0, 8.0]]
    assert weft.histogram(input=x, bins=2).tolist() == [2, 2]


# ---------------------------------------------------------------------------------
# argument errors


def test_argument_errors_name_the_function():
    x = t([[1.0, 2.0], [3.0, 4.0]])
    with pytest.raises(ValueError, match="median: mode must be"):
        weft.median(x, mode="mean")
    with pytest.raises(TypeError, match="cummax: dtype must be int32 or int64"):
        weft.cummax(x, dtype="float32")
    with pytest.raises(TypeError, match="max: complex input"):
        weft.max(t([1j]))
    with pytest.raises(TypeError, match="logsumexp: complex"):
        weft.logsumexp(t([1j]))
    with pytest.raises(ValueError, match="quantile: q must be in"):
        weft.quantile(x, [0.5, -0.1])
    with pytest.raises(ValueError, match="norm: p=3.0 is not supported for a matrix"):
        weft.norm(x, p=3, axis=[0, 1])
    with pytest.raises(ValueError, match="mode: axis 0 .* is empty"):
        weft.mode(t(np.zeros((0, 2))), axis=0)


# ---------------------------------------------------------------------------------
# invariants


_arrays = hnp.arrays(np.float64, hnp.array_shapes(min_dims=1, max_dims=3, max_side=4),
                     elements=st.floats(-100, 100, allow_nan=False, width=64))


@settings(derandomize=True, max_examples=25, deadline=None)
@given(_arrays, st.floats(0, 1))
def test_quantile_lies_between_min_and_max_and_median_is_the_half_quantile(a, q):
    x = t(a)
    v = weft.quantile(x, q).item()
    assert a.min() - 1e-9 <= v <= a.max() + 1e-9
    np.testing.assert_allclose(weft.median(x).item(), weft.quantile(x, 0.5).item())
    np.testing.assert_allclose(v, np.quantile(a, q), rtol=1e-12, atol=1e-12)


@settings(derandomize=True, max_examples=25, deadline=None)
@given(_arrays)
def test_scans_end_in_the_reduction(a):
    x = t(a)
    ax = a.ndim - 1
    np.testing.assert_allclose(weft.cumsum(x, axis=ax).numpy()[..., -1],
                               weft.sum(x, axis=ax).numpy(), atol=1e-9)
    np.testing.assert_allclose(weft.cummax(x, axis=ax)[0].numpy()[..., -1],
                               weft.max(x, axis=ax).numpy())
    np.testing.assert_allclose(weft.logcumsumexp(x, axis=ax).numpy()[..., -1],
                               weft.logsumexp(x, axis=ax).numpy(), rtol=1e-12, atol=1e-12)
    v, i = weft.cummin(x, axis=ax)
    np.testing.assert_array_equal(np.take_along_axis(a, i.numpy(), ax), v.numpy())


@settings(derandomize=True, max_examples=25, deadline=None)
@given(_arrays)
def test_mode_value_is_at_its_index_and_is_most_frequent(a):
    a = np.round(a / 50)  # few distinct values, so there are repeats
    v, i = weft.mode(t(a), axis=-1)
    np.testing.assert_array_equal(np.take_along_axis(a, i.numpy()[..., None], -1)[..., 0],
                                  v.numpy())
    for k in np.ndindex(a.shape[:-1]):
        row = list(a[k])
        assert row.count(v.numpy()[k]) == max(row.count(e) for e in row)
