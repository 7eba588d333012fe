"""weft.geometric message passing: the spec's observed Paddle values, broadcasting,
gradients (ties, repeated edges, double backward), hypothesis graphs against numpy
loops, determinism across thread counts, the array-code (CuPy) path, bad input."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import weft
import weft.geometric as G
from tests.opinfo import tensors_of  # isort: skip  (loads the op database before its modules)
from tests.opdb.geometric import (OPS, ref_extreme_grad, ref_send_u_recv, ref_send_ue_recv,
                                  ref_send_uv)
from weft import _C
from weft.autograd import gradcheck, gradgradcheck
from weft.geometric import _kernels

T = weft.to_tensor
SRC, DST = [0, 1, 2, 0], [1, 2, 1, 0]
X3 = [[0.0, 2.0, 3.0], [1.0, 4.0, 5.0], [2.0, 6.0, 7.0]]


def _grad(fn, *xs):
    leaves = [T(np.asarray(x, np.float64), stop_gradient=False) for x in xs]
    out = fn(*leaves)
    return [g.numpy() for g in weft.grad(out.sum(), leaves)]


# ---------------------------------------------------------------------------------
# observed Paddle values (spec §1, §1.1)


def test_observed_sum_mean_gradients():
    for reduce, want in (("sum", [[2] * 3, [1] * 3, [1] * 3]),
                         ("mean", [[1.5] * 3, [1] * 3, [0.5] * 3])):
        (g,) = _grad(lambda x: G.send_u_recv(x, T(SRC), T(DST), reduce), X3)
        np.testing.assert_array_equal(g, want)


def test_observed_forward_values():
    x = T(X3)
    np.testing.assert_array_equal(G.send_u_recv(x, T(SRC), T(DST), "sum").numpy(),
                                  [[0, 2, 3], [2, 8, 10], [1, 4, 5]])
    np.testing.assert_array_equal(G.send_u_recv(x, T(SRC), T(DST), "max").numpy(),
                                  [[0, 2, 3], [2, 6, 7], [1, 4, 5]])
    np.testing.assert_array_equal(G.send_u_recv(x, T(SRC), T(DST), "min").numpy(),
                                  [[0, 2, 3], [0, 2, 3], [1, 4, 5]])


def test_max_ties_and_repeated_edges_get_full_gradient():
    # two equal sources both get 1.0; one source sent twice gets 2.0
    (g,) = _grad(lambda x: G.send_u_recv(x, T([0, 1]), T([0, 0]), "max"), [[1.0], [1.0]])
    np.testing.assert_array_equal(g, [[1.0], [1.0]])
    (g,) = _grad(lambda x: G.send_u_recv(x, T([0, 0]), T([0, 0]), "min"), [[3.0], [5.0]])
    np.testing.assert_array_equal(g, [[2.0], [0.0]])


def test_send_ue_recv_sub_div_values():
    x, y = T([[5.0]]), T([[2.0]])
    assert G.send_ue_recv(x, y, T([0]), T([0]), "sub").item() == 3.0
    assert G.send_ue_recv(x, y, T([0]), T([0]), "div").item() == 2.5


@pytest.mark.parametrize("xs,ys,want", [
    ((10, 8, 5), (4, 8, 1), [10, 8, 5]), ((10, 1), (4, 20), [10, 20]), ((10, 3), (4,), [10, 3]),
    ((10,), (4,), [10, 1]), ((10, 2, 3), (4, 3), [10, 2, 3])])
def test_send_ue_recv_broadcast_shapes(xs, ys, want):
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal(xs), rng.standard_normal(ys)
    src, dst = np.array([0, 3, 9, 3]), np.array([1, 1, 5, 0])
    out = G.send_ue_recv(T(x), T(y), T(src), T(dst), "mul", "sum")
    assert out.shape == want
    np.testing.assert_allclose(out.numpy(), ref_send_ue_recv(x, y, src, dst, "mul", "sum"))


def test_send_uv_shapes_and_u_recv_1d():
    rng = np.random.default_rng(1)
    src, dst = T([0, 2]), T([1, 1])
    assert G.send_uv(T(rng.random((3, 1, 4))), T(rng.random((3, 5, 1))), src, dst).shape == \
        [2, 5, 4]
    assert G.send_uv(T(rng.random((3, 4))), T(rng.random(3)), src, dst).shape == [2, 4]
    assert G.send_uv(T(rng.random(3)), T(rng.random(3)), src, dst).shape == [2, 1]
    assert G.send_u_recv(T(rng.random(3)), src, dst).shape == [3]


def test_out_size_forms_and_empty_edges():
    x = T(np.ones((3, 2), np.float32))
    e = T(np.zeros(0, np.int64))
    for size in (5, np.int64(5), T(5), T([5]), T(np.array([5], np.int32))):
        out = G.send_u_recv(x, T(SRC), T(DST), out_size=size)
        assert out.shape == [5, 2] and out.numpy()[3:].sum() == 0
    for size in (None, 0, -3):
        assert G.send_u_recv(x, T(SRC), T(DST), out_size=size).shape == [3, 2]
    for reduce in ("sum", "mean", "max", "min"):   # feature dims kept (Paddle drops them)
        out = G.send_u_recv(x, e, e, reduce, out_size=2)
        assert out.shape == [2, 2] and not out.numpy().any()
    assert G.send_ue_recv(x, T(np.zeros((0, 2), np.float32)), e, e).shape == [3, 2]
    assert G.send_uv(x, x, e, e).shape == [0, 2]


def test_column_index_and_int32():
    x = T(X3)
    a = G.send_u_recv(x, T(np.array(SRC, np.int32)[:, None]),
                      T(np.array(DST, np.int32)[:, None]), "mean")
    np.testing.assert_array_equal(a.numpy(), ref_send_u_recv(np.array(X3), SRC, DST, "mean"))


def test_integer_features_mean_truncates_and_div_by_zero_is_zero():
    x = T(np.array([[-7], [2]], np.int64))
    assert G.send_u_recv(x, T([0, 1]), T([0, 0]), "mean").numpy().tolist() == [[-2], [0]]
    y = T(np.array([[0], [2]], np.int64))
    out = G.send_ue_recv(x, y, T([0, 0]), T([0, 1]), "div", "sum")
    assert out.numpy().tolist() == [[0], [-3]]
    big = np.iinfo(np.int32)
    z = G.send_ue_recv(T(np.array([[big.min]], np.int32)), T(np.array([[-1]], np.int32)),
                       T([0]), T([0]), "div")
    assert z.numpy().tolist() == [[big.min]]   # wraps like numpy instead of trapping


def test_float16_accumulates_in_float32():
    n = 3000   # float16 accumulation would stall at 2048
    x = T(np.ones((1, 2), np.float16))
    out = G.send_u_recv(x, T(np.zeros(n, np.int64)), T(np.zeros(n, np.int64)))
    assert out.dtype == weft.float16 and out.numpy().tolist() == [[3000.0, 3000.0]]
    seg = G.segment_sum(T(np.ones((n, 1), np.float16)), T(np.zeros(n, np.int64)))
    assert seg.numpy().tolist() == [[3000.0]]


def test_bfloat16_kernel_bits():
    # the kernel takes bfloat16 as uint16 bit patterns (what weft passes for ml_dtypes'
    # bfloat16); accumulation is float32 and the result is rounded once
    vals = np.array([[1.0, -2.5], [3.0, 0.5], [1e-3, 256.0]], np.float32)
    bits = (vals.view(np.uint32) >> 16).astype(np.uint16)
    out = _C.graph_send_recv(bits, np.array([0, 1, 2]), np.array([0, 0, 1]), 2, "sum")
    got = (out.astype(np.uint32) << 16).view(np.float32)
    np.testing.assert_allclose(got, [[4.0, -2.0], [1e-3, 256.0]], rtol=1e-2)


@pytest.mark.skipif(weft.bfloat16 is None, reason="bfloat16 needs ml_dtypes")
def test_bfloat16_public():
    x = T(np.ones((2, 3), np.float32)).astype(weft.bfloat16)
    out = G.send_u_recv(x, T([0, 1]), T([0, 0]))
    assert out.dtype == weft.bfloat16 and out.astype("float32").numpy()[0].tolist() == [2.0] * 3


# ---------------------------------------------------------------------------------
# gradients


def _simple_graph(rng, n, e, rows):
    pairs = rng.permutation(n * rows)[:e]
    return pairs % n, pairs // n


@pytest.mark.parametrize("reduce", ["sum", "mean", "max", "min"])
def test_gradcheck_gradgradcheck_send_u_recv(reduce):
    rng = np.random.default_rng(2)
    src, dst = _simple_graph(rng, 5, 9, 4)
    x = T(rng.standard_normal((5, 2, 2)), stop_gradient=False)

    def f(a):
        return G.send_u_recv(a, T(src), T(dst), reduce, out_size=6)
    assert gradcheck(f, [x]) and gradgradcheck(f, [x])


@pytest.mark.parametrize("reduce", ["sum", "max"])
@pytest.mark.parametrize("message", ["add", "sub", "mul", "div"])
def test_gradcheck_send_ue_recv_broadcast(reduce, message):
    rng = np.random.default_rng(3)
    src, dst = _simple_graph(rng, 4, 7, 3)
    x = T(rng.standard_normal((4, 2, 1)), stop_gradient=False)
    y = T(rng.uniform(1, 2, (7, 3)), stop_gradient=False)

    def f(a, b):
        return G.send_ue_recv(a, b, T(src), T(dst), message, reduce)
    assert gradcheck(f, [x, y]) and gradgradcheck(f, [x, y])


def test_extreme_gradient_matches_spec_rule_with_multi_edges():
    rng = np.random.default_rng(4)
    x = rng.integers(0, 3, (6, 4)).astype(np.float64)   # many ties
    src, dst = rng.integers(0, 6, 30), rng.integers(0, 5, 30)
    g = rng.standard_normal((6, 4))
    for reduce in ("max", "min"):
        xt = T(x, stop_gradient=False)
        out = G.send_u_recv(xt, T(src), T(dst), reduce)
        (gx,) = weft.grad(out, [xt], grad_outputs=[T(g)])
        np.testing.assert_allclose(gx.numpy(), ref_extreme_grad(x, src, dst, out.numpy(), g,
                                                                reduce))
        # send_ue_recv with a zero edge feature routes the same way
        xt = T(x, stop_gradient=False)
        out2 = G.send_ue_recv(xt, T(np.zeros((30, 1))), T(src), T(dst), "add", reduce)
        (gx2,) = weft.grad(out2, [xt], grad_outputs=[T(g)])
        np.testing.assert_allclose(gx2.numpy(), gx.numpy())


def test_double_backward_values_sum():
    # d/dg of gx = sum over edges: the second derivative with respect to x of
    # <send_u_recv(x)^2, 1> is 2 * A^T A, checked on a tiny graph by hand
    x = T([[1.0], [2.0]], stop_gradient=False)
    out = G.send_u_recv(x, T([0, 1, 1]), T([0, 0, 1]), "sum")   # [x0 + x1, x1]
    (g,) = weft.grad((out * out).sum(), [x], create_graph=True)
    np.testing.assert_allclose(g.numpy(), [[6.0], [10.0]])
    (h,) = weft.grad(g.sum(), [x])
    np.testing.assert_allclose(h.numpy(), [[4.0], [6.0]])


def test_inplace_index_change_is_detected():
    x = T(X3, stop_gradient=False)
    src = T(SRC)
    out = G.send_u_recv(x, src, T(DST), "sum")
    src.add_(T([0, 0, 0, 0]))   # bumps the version even though the values are unchanged
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.sum().backward()


# ---------------------------------------------------------------------------------
# hypothesis graphs against the numpy loops


@st.composite
def graphs(draw):
    n = draw(st.integers(1, 6))
    e = draw(st.integers(0, 12))
    rows = draw(st.integers(0, 3)) + n    # out_size larger than needed: trailing empty rows
    src = draw(st.lists(st.integers(0, n - 1), min_size=e, max_size=e))
    dst = draw(st.lists(st.integers(0, n - 1), min_size=e, max_size=e))  # self loops, repeats
    itype = draw(st.sampled_from(["int32", "int64"]))
    seed = draw(st.integers(0, 2**16))
    return n, np.array(src, itype), np.array(dst, itype), rows, seed


@settings(max_examples=25)
@given(graphs(), st.sampled_from(["float32", "float64", "int32", "int64", "float16"]),
       st.sampled_from(["sum", "mean", "max", "min"]))
def test_send_u_recv_matches_loops(graph, dtype, reduce):
    n, src, dst, rows, seed = graph
    x = np.random.default_rng(seed).integers(-5, 6, (n, 3)).astype(dtype)
    got = G.send_u_recv(T(x), T(src), T(dst), reduce, out_size=rows).numpy()
    np.testing.assert_array_equal(got, ref_send_u_recv(x, src, dst, reduce, rows))


@settings(max_examples=25)
@given(graphs(), st.sampled_from(["float64", "int64"]),
       st.sampled_from(["sum", "mean", "max", "min"]),
       st.sampled_from(["add", "sub", "mul", "div"]))
def test_send_ue_recv_and_uv_match_loops(graph, dtype, reduce, message):
    n, src, dst, rows, seed = graph
    rng = np.random.default_rng(seed)
    x = rng.integers(-5, 6, (n, 2, 3)).astype(dtype)
    y = rng.integers(1, 4, (len(src), 3)).astype(dtype)
    got = G.send_ue_recv(T(x), T(y), T(src), T(dst), message, reduce, out_size=rows).numpy()
    np.testing.assert_allclose(got, ref_send_ue_recv(x, y, src, dst, message, reduce, rows))
    yn = rng.integers(1, 4, (n, 1, 3)).astype(dtype)
    got = G.send_uv(T(x), T(yn), T(src), T(dst), message).numpy()
    np.testing.assert_allclose(got, ref_send_uv(x, yn, src, dst, message))


def test_results_do_not_depend_on_thread_count():
    rng = np.random.default_rng(5)
    n, e = 3000, 200_000
    x = rng.standard_normal((n, 16)).astype(np.float32)
    src, dst = rng.integers(0, n, e), (rng.random(e) ** 3 * n).astype(np.int64)  # hubs
    y = rng.standard_normal((e, 16)).astype(np.float32)
    m = _C.graph_send_recv(x, src, dst, n, "max")
    before = weft.get_num_threads()
    outs = []
    try:
        for threads in (1, 2, 3):
            weft.set_num_threads(threads)
            outs.append([G.send_u_recv(T(x), T(src), T(dst), r).numpy() for r in ("sum", "mean")]
                        + [G.send_ue_recv(T(x), T(y), T(src), T(dst), "mul", "sum").numpy(),
                           _C.graph_route(x, x, m, src, dst, True),
                           _C.graph_route(x, x, m, src, dst, False)])
    finally:
        weft.set_num_threads(before)
    for other in outs[1:]:
        for a, b in zip(outs[0], other):
            assert np.array_equal(a, b)


# ---------------------------------------------------------------------------------
# the array-code path (what CuPy tensors run), exercised on numpy arrays


@pytest.fixture
def array_path():
    _kernels.force_array_path = True
    yield
    _kernels.force_array_path = False


@pytest.mark.parametrize("op", [o for o in OPS], ids=lambda o: o.name)
def test_array_path_matches_native(op, array_path):
    rng = np.random.default_rng(6)
    for dtype in ("float64", "int64", "float16"):
        for sample in op.sample_inputs(np.dtype(dtype), rng):
            args = [tensors_of(a) for a in sample.args]
            got = op.op(tensors_of(sample.input), *args, **sample.kwargs).numpy()
            want = op.ref(sample.input, *sample.args, **sample.ref_kwargs)
            tol = 1e-2 if dtype == "float16" else 1e-12
            np.testing.assert_allclose(got, want, rtol=tol, atol=tol, err_msg=str(sample))


def test_array_path_gradients(array_path):
    rng = np.random.default_rng(7)
    src, dst = _simple_graph(rng, 4, 7, 3)
    x = T(rng.standard_normal((4, 3)), stop_gradient=False)
    y = T(rng.uniform(1, 2, (7, 3)), stop_gradient=False)
    for reduce in ("sum", "mean", "max"):
        assert gradcheck(lambda a: G.send_u_recv(a, T(src), T(dst), reduce), [x])
        assert gradcheck(lambda a, b: G.send_ue_recv(a, b, T(src), T(dst), "div", reduce),
                         [x, y])
    assert gradcheck(lambda a: G.segment_max(a, T([0, 0, 2, 2])), [x])
    with pytest.raises(IndexError, match=r"dst_index\[0\] = 9 is out of range"):
        G.send_u_recv(x, T([0]), T([9]))


# ---------------------------------------------------------------------------------
# bad input never crashes the process


def test_malformed_input_raises():
    x = T(X3)
    with pytest.raises(IndexError, match=r"src_index\[0\] = -1 is out of range"):
        G.send_u_recv(x, T([-1]), T([0]))
    with pytest.raises(ValueError, match="must be 1-D"):
        G.send_u_recv(x, T([[0, 1]]), T([[0, 1]]))
    with pytest.raises(ValueError, match="at least 1 dimension"):
        G.send_u_recv(T(1.0), T([0]), T([0]))
    with pytest.raises(TypeError, match="out_size"):
        G.send_u_recv(x, T(SRC), T(DST), out_size=T([1.5]))
    with pytest.raises(ValueError, match="reduce_op should be"):
        G.send_u_recv(x, T(SRC), T(DST), reduce_op=None)
    with pytest.raises(IndexError):
        G.send_uv(x, x, T([0]), T([3]))
    with pytest.raises(IndexError):
        G.send_ue_recv(x, T([[1.0]]), T([5]), T([0]))
    with pytest.raises(ValueError, match="same shape"):
        G.send_uv(x, x, T([0, 1]), T([0]))


# ---------------------------------------------------------------------------------
# huge broadcast feature shapes (issue 16, item 18)

def test_empty_inputs_with_a_huge_broadcast_feature_shape_allocate_nothing():
    # [0, 65536, 1] x [0, 1, 65536] broadcasts to 2**32 features: the general-layout
    # offset tables (2 x 2**32 int64 = 64 GB) were built although no message exists
    import resource

    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    x, y = weft.zeros([0, 65536, 1]), weft.zeros([0, 1, 65536])
    e = weft.to_tensor(np.zeros(0, np.int64))
    assert G.send_ue_recv(x, y, e, e).shape == [0, 65536, 65536]
    assert G.send_uv(x, y, e, e, "mul").shape == [0, 65536, 65536]
    # ru_maxrss is in KiB on Linux: less than 64 MiB grew (the tables alone were 64 GiB)
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 64 * 1024


@pytest.mark.parametrize("xs, ys", [([2 ** 32, 1], [1, 2 ** 32]), ([2 ** 62, 1], [1, 4]),
                                    ([2 ** 31, 2 ** 31, 4], [1, 1, 1])])
def test_broadcast_feature_size_that_wraps_is_an_error(xs, ys):
    a = np.zeros((1, 1), np.float32)
    i = np.zeros(1, np.int64)
    with pytest.raises(ValueError, match=r"send_uv: the (broadcast )?feature size.* does not fit in int64"):
        _C.graph_edge_messages(a, a, i, i, "add", xs, ys, None, "send_uv")
    with pytest.raises(ValueError, match=r"send_ue_recv: the (broadcast )?feature size.* does not fit in int64"):
        _C.graph_send_ue_recv(a, a, i, i, 1, "add", "sum", xs, ys, "send_ue_recv")


def test_general_layout_still_broadcasts_when_edges_exist():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((3, 2, 1))
    y = rng.standard_normal((4, 1, 3))
    src, dst = np.array([0, 1, 2, 0]), np.array([1, 1, 0, 2])
    got = G.send_uv(weft.to_tensor(x), weft.to_tensor(y), weft.to_tensor(src), weft.to_tensor(dst), "add")
    np.testing.assert_allclose(got.numpy(), x[src] + y[dst])
