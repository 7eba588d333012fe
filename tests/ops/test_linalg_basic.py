"""The matrix-product family beyond the op database: Paddle-specific semantics (dot on
2-D inputs, cross's default axis, diagonal's default axes, tensordot's axes forms,
cdist modes), einsum parsing and derivatives, complex conventions, errors."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.spatial.distance import cdist as scipy_cdist

import weft
from weft.autograd import gradcheck, gradgradcheck


def t(a, **kw):
    return weft.to_tensor(a, **kw)


def leaf(a):
    return weft.to_tensor(np.asarray(a), stop_gradient=False)


# ---------------------------------------------------------------------------------
# matmul family


def test_matmul_transpose_flags_and_vectors():
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((4, 3)), rng.standard_normal((5, 4))
    np.testing.assert_allclose(weft.matmul(t(a), t(b), transpose_x=True, transpose_y=True).numpy(),
                               a.T @ b.T)
    v = rng.standard_normal(4)
    # a 1-D operand is a vector whatever the transpose flag says
    np.testing.assert_allclose(weft.matmul(t(v), t(a), transpose_x=True).numpy(), v @ a)
    assert weft.matmul(t(v), t(v)).shape == []


def test_matmul_complex_gradient_conjugates():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 3)) + 1j * rng.standard_normal((2, 3))
    y = rng.standard_normal((3, 2)) + 1j * rng.standard_normal((3, 2))
    g = rng.standard_normal((2, 2)) + 1j * rng.standard_normal((2, 2))
    xt, yt = leaf(x), leaf(y)
    gx, gy = weft.grad(weft.matmul(xt, yt), [xt, yt], grad_outputs=t(g))
    np.testing.assert_allclose(gx.numpy(), g @ y.conj().T)
    np.testing.assert_allclose(gy.numpy(), x.conj().T @ g)


def test_mm_bmm_mv_methods_and_errors():
    a = t(np.ones((2, 3, 4)))
    assert a.bmm(t(np.ones((2, 4, 5)))).shape == [2, 3, 5]
    assert weft.mm(a, t(np.ones((4,)))).shape == [2, 3]  # mm broadcasts like matmul
    assert t(np.ones((3, 4))).mv(t(np.ones(4))).tolist() == [4.0, 4.0, 4.0]
    with pytest.raises(ValueError, match=r"bmm: x and y must be 3-D, got shapes \[3, 4\]"):
        weft.bmm(t(np.ones((3, 4))), t(np.ones((4, 2))))
    with pytest.raises(ValueError, match="mv: vec must be 1-D"):
        weft.mv(t(np.ones((3, 4))), t(np.ones((4, 1))))


def test_dot_paddle_semantics():
    x = t([[1, 2, 3], [2, 4, 6]])
    y = t([[4, 5, 6], [4, 5, 6]])
    z = weft.dot(x, y)
    assert z.shape == [2] and z.dtype == weft.int64 and z.tolist() == [32, 64]
    assert weft.dot(t([1, 2, 3]), t([4, 5, 6])).shape == []
    # no conjugation of the first operand (unlike numpy.vdot)
    assert weft.dot(t([1j, 2.0]), t([1j, 1.0])).item() == 1 + 0j
    with pytest.raises(ValueError, match="dot: x and y must have the same shape"):
        weft.dot(x, t([[1, 2, 3]]))


def test_inner_outer():
    x, y = np.arange(6.0).reshape(2, 3), np.arange(12.0).reshape(4, 3)
    np.testing.assert_allclose(weft.inner(t(x), t(y)).numpy(), np.inner(x, y))
    assert weft.inner(t(x), 2.0).tolist() == (x * 2).tolist()
    np.testing.assert_allclose(t(x).outer(t(np.arange(2.0))).numpy(),
                               np.outer(x, np.arange(2.0)))


# ---------------------------------------------------------------------------------
# einsum


def test_einsum_notations():
    rng = np.random.default_rng(2)
    a, b = rng.standard_normal((2, 3)), rng.standard_normal((3, 4))
    np.testing.assert_allclose(weft.einsum("ij,jk", t(a), t(b)).numpy(), a @ b)
    np.testing.assert_allclose(weft.einsum("ij,jk->ik", [t(a), t(b)]).numpy(), a @ b)
    np.testing.assert_allclose(weft.einsum(" i j , j k -> k i ", t(a), t(b)).numpy(),
                               (a @ b).T)
    # implicit output: letters seen once in ASCII order (upper case first)
    assert weft.einsum("aB", t(a)).shape == [3, 2]
    # broadcast dimensions missing from an explicit output are summed
    np.testing.assert_allclose(weft.einsum("...i->i", t(a)).numpy(), a.sum(0))
    c = weft.einsum("ij,jk->ik", t(np.ones((2, 2), np.int32)), t(np.ones((2, 2))))
    assert c.dtype == weft.float64  # operands promote together


def test_einsum_result_never_aliases_an_operand():
    a = t(np.arange(4.0).reshape(2, 2))
    for eq in ("ij->ji", "ii->i", "ij->ij"):
        out = weft.einsum(eq, a)
        out.numpy()[...] = -1
        assert a.numpy().min() == 0.0, eq


@pytest.mark.parametrize("eq,shapes", [
    ("ii->i", [(3, 3)]), ("ii->", [(3, 3)]), ("iij->ji", [(2, 2, 3)]),
    ("ij,ij->ij", [(1, 3), (2, 3)]), ("ij,jk->ik", [(2, 1), (3, 2)]),
    ("...ij,...jk->...ik", [(2, 1, 2, 3), (3, 3, 2)]), ("i,i->", [(3,), (3,)]),
    ("bij,bkj->bik", [(2, 2, 3), (2, 4, 3)]), ("ijk->", [(2, 1, 2)]),
    ("i,j,k->ijk", [(2,), (3,), (2,)]), ("...i->i", [(2, 3)]), (",i->i", [(), (3,)]),
])
def test_einsum_gradients(eq, shapes):
    rng = np.random.default_rng(3)
    ops = [leaf(rng.standard_normal(s) + 1j * rng.standard_normal(s)) for s in shapes]
    assert gradcheck(lambda *o: weft.einsum(eq, *o), ops)
    assert gradgradcheck(lambda *o: weft.einsum(eq, *o), ops)


def test_einsum_same_tensor_twice():
    x = leaf([1.0, 2.0, 3.0])
    (g,) = weft.grad(weft.einsum("i,i->", x, x), [x], create_graph=True)
    assert g.tolist() == [2.0, 4.0, 6.0]
    (h,) = weft.grad(g.sum(), [x])
    assert h.tolist() == [2.0, 2.0, 2.0]


def test_einsum_errors():
    x = t(np.ones((2, 3)))
    with pytest.raises(TypeError, match="einsum: equation must be a str"):
        weft.einsum(x, x)
    with pytest.raises(ValueError, match="einsum: equation 'ij->i->j' has more than one"):
        weft.einsum("ij->i->j", x)
    with pytest.raises(ValueError, match="einsum: subscript 'i' is repeated in 'ii'"):
        weft.einsum("ii->i", x)
    with pytest.raises(ValueError, match="at least one operand"):
        weft.einsum("ij")


# ---------------------------------------------------------------------------------
# tensordot, kron, cross, diagonal


def test_tensordot_axes_forms():
    rng = np.random.default_rng(4)
    x, y = rng.standard_normal((2, 3, 4)), rng.standard_normal((3, 2, 4))
    td = weft.tensordot
    np.testing.assert_allclose(td(t(x), t(y), axes=[[0, 1], [1, 0]]).numpy(),
                               np.tensordot(x, y, axes=([0, 1], [1, 0])))
    # Paddle completes the shorter list with the tail of the longer one
    np.testing.assert_allclose(td(t(x), t(y), axes=[[0, 1, 2], [1, 0]]).numpy(),
                               np.tensordot(x, y, axes=([0, 1, 2], [1, 0, 2])))
    # a flat list, or a list holding one list, names the same axes of both
    z = rng.standard_normal((2, 5, 4))
    np.testing.assert_allclose(td(t(x), t(z), axes=[0, 2]).numpy(),
                               np.tensordot(x, z, axes=([0, 2], [0, 2])))
    np.testing.assert_allclose(td(t(x), t(z), axes=[[0]]).numpy(),
                               np.tensordot(x, z, axes=([0], [0])))
    np.testing.assert_allclose(td(t(x), t(z), axes=t([[0], [0]])).numpy(),
                               np.tensordot(x, z, axes=([0], [0])))
    assert td(t(x), t(y), axes=0).shape == [2, 3, 4, 3, 2, 4]


def test_kron_matches_numpy():
    a, b = np.arange(6).reshape(2, 3), np.arange(4).reshape(2, 1, 2)
    np.testing.assert_array_equal(t(a).kron(t(b)).numpy(), np.kron(a, b))
    x, y = leaf(np.ones((2, 2))), leaf(np.arange(3.0))
    gx, gy = weft.grad(weft.kron(x, y).sum(), [x, y])
    assert gx.tolist() == [[3.0, 3.0], [3.0, 3.0]] and gy.tolist() == [4.0, 4.0, 4.0]


def test_cross_default_axis_is_first_of_size_3():
    rng = np.random.default_rng(5)
    a, b = rng.standard_normal((3, 3)), rng.standard_normal((3, 3))
    np.testing.assert_allclose(weft.cross(t(a), t(b)).numpy(), np.cross(a, b, axis=0))
    np.testing.assert_allclose(t(a).cross(t(b), axis=-1).numpy(), np.cross(a, b, axis=-1))
    c, d = rng.standard_normal((2, 3, 3)), rng.standard_normal((2, 3, 3))
    np.testing.assert_allclose(weft.cross(t(c), t(d), axis=None).numpy(),
                               np.cross(c, d, axis=1))
    with pytest.raises(ValueError, match="cross: x and y must have the same shape"):
        weft.cross(t(a), t(np.ones(3)))


def test_diagonal_default_axes_are_the_first_two():
    x = np.arange(24).reshape(2, 3, 4)
    d = weft.diagonal(t(x))
    assert d.shape == [4, 2]
    np.testing.assert_array_equal(d.numpy(), np.diagonal(x))
    assert t([[1, 2], [3, 4]]).diagonal(offset=-1).tolist() == [3]
    xl = leaf(np.arange(12.0).reshape(3, 4))
    (g,) = weft.grad(weft.diagonal(xl, offset=1).sum(), [xl])
    np.testing.assert_array_equal(g.numpy(), np.eye(3, 4, 1))


# ---------------------------------------------------------------------------------
# cdist


@pytest.mark.parametrize("p,metric", [(2.0, "euclidean"), (1.0, "cityblock"),
                                      (float("inf"), "chebyshev"), (3.0, "minkowski")])
def test_cdist_matches_scipy(p, metric):
    rng = np.random.default_rng(6)
    x, y = rng.standard_normal((30, 3)), rng.standard_normal((4, 3))
    kw = {"p": p} if metric == "minkowski" else {}
    want = scipy_cdist(x, y, metric, **kw)
    for mode in ("use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist",
                 "donot_use_mm_for_euclid_dist"):
        np.testing.assert_allclose(weft.cdist(t(x), t(y), p=p, compute_mode=mode).numpy(),
                                   want, atol=1e-10)


def test_cdist_p0_counts_differences_and_batches_broadcast():
    x = t([[[0.0, 1.0, 2.0]], [[1.0, 1.0, 1.0]]])   # [2, 1, 3]
    y = t([[0.0, 1.0, 5.0], [1.0, 1.0, 1.0]])         # [2, 3], batch-broadcast
    assert weft.cdist(x, y, p=0).tolist() == [[[1.0, 2.0]], [[2.0, 0.0]]]


@pytest.mark.parametrize("p", [2.0, 1.0, 3.0, float("inf")])
def test_cdist_gradient_is_zero_at_zero_distance(p):
    x = leaf([[1.0, 2.0], [0.0, 0.0]])
    y = t([[1.0, 2.0]])
    (g,) = weft.grad(weft.cdist(x, y, p=p).sum(), [x])
    assert np.all(np.isfinite(g.numpy()))
    np.testing.assert_array_equal(g.numpy()[0], [0.0, 0.0])


def test_cdist_inf_ties_split_the_gradient():
    x = leaf([[0.0, 0.0]])
    (g,) = weft.grad(weft.cdist(x, t([[1.0, -1.0]]), p=float("inf")).sum(), [x])
    assert g.tolist() == [[-0.5, 0.5]]


# ---------------------------------------------------------------------------------
# properties


@settings(derandomize=True, max_examples=25, deadline=None)
@given(st.lists(st.integers(1, 3), min_size=1, max_size=3),
       st.lists(st.integers(1, 3), min_size=1, max_size=3))
def test_kron_shapes(sa, sb):
    a = np.arange(np.prod(sa)).reshape(sa)
    b = np.arange(np.prod(sb)).reshape(sb) - 2
    np.testing.assert_array_equal(weft.kron(t(a), t(b)).numpy(), np.kron(a, b))


@settings(derandomize=True, max_examples=25, deadline=None)
@given(st.integers(2, 4), st.integers(2, 4), st.integers(-3, 3), st.integers(0, 2),
       st.integers(0, 2))
def test_diagonal_matches_numpy(m, n, offset, a1, a2):
    x = np.arange(m * n * 2).reshape(m, n, 2)
    if a1 == a2:
        a2 = (a1 + 1) % 3
    np.testing.assert_array_equal(weft.diagonal(t(x), offset, a1, a2).numpy(),
                                  np.diagonal(x, offset, a1, a2))
