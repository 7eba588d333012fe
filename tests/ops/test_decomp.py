"""weft.ops.decomp (reduced QR, thin SVD, triangular solve; used by
sparse.pca_lowrank): factorisations against numpy/scipy, gradients against finite
differences to second order, the repeated-singular-value rule, and errors."""
import numpy as np
import pytest
import scipy.linalg
from hypothesis import given, settings
from hypothesis import strategies as st

import weft
from weft.autograd import gradcheck, gradgradcheck
from weft.ops.decomp import qr_reduced, svd_thin, tri_solve


def _leaf(a):
    t = weft.to_tensor(a)
    t.stop_gradient = False
    return t


def _svd_invariants(x):
    """Outputs free of the singular vectors' signs: s, U diag(s) Vᵀ, U Uᵀ, V Vᵀ."""
    u, s, vt = svd_thin(x)
    return s, (u * s.reshape([1, -1])) @ vt, u @ u.t(), vt.t() @ vt


@settings(derandomize=True, max_examples=40, deadline=None)
@given(m=st.integers(0, 6), n=st.integers(0, 6), dtype=st.sampled_from([np.float32, np.float64]),
       seed=st.integers(0, 999))
def test_factorisations_match_numpy(m, n, dtype, seed):
    a = np.random.default_rng(seed).standard_normal((m, n)).astype(dtype)
    tol = dict(atol=1e-5, rtol=1e-5) if dtype == np.float32 else dict(atol=1e-12, rtol=1e-12)
    u, s, vt = svd_thin(weft.to_tensor(a))
    k = min(m, n)
    assert u.shape == [m, k] and s.shape == [k] and vt.shape == [k, n]
    assert u.dtype == s.dtype == vt.dtype == dtype
    np.testing.assert_allclose(s.numpy(), np.linalg.svd(a, compute_uv=False), **tol)
    np.testing.assert_allclose((u.numpy() * s.numpy()) @ vt.numpy(), a, **tol)
    if m >= n:
        q, r = qr_reduced(weft.to_tensor(a))
        assert q.shape == [m, n] and r.shape == [n, n] and q.dtype == r.dtype == dtype
        np.testing.assert_allclose(q.numpy() @ r.numpy(), a, **tol)
        np.testing.assert_allclose(q.numpy().T @ q.numpy(), np.eye(n), **tol)
        np.testing.assert_array_equal(np.tril(r.numpy(), -1), 0)


@pytest.mark.parametrize("lower", [True, False])
def test_tri_solve_matches_scipy_and_reads_one_triangle(lower):
    rng = np.random.default_rng(0)
    a = rng.standard_normal((5, 5)) + 5 * np.eye(5)
    b = rng.standard_normal((5, 3))
    y = tri_solve(weft.to_tensor(a), weft.to_tensor(b), lower).numpy()
    tri = np.tril(a) if lower else np.triu(a)
    np.testing.assert_allclose(y, scipy.linalg.solve(tri, b), rtol=1e-12)


@pytest.mark.parametrize("fast_mode", [True, False])
@pytest.mark.parametrize("shape", [(5, 3), (4, 4), (3, 1), (1, 1), (3, 0)])
def test_qr_gradients(shape, fast_mode):
    x = _leaf(np.random.default_rng(1).standard_normal(shape))
    assert gradcheck(qr_reduced, [x], fast_mode=fast_mode)
    # each output alone: the other one's cotangent is zero
    assert gradcheck(lambda t: qr_reduced(t)[0], [x], fast_mode=fast_mode)
    assert gradcheck(lambda t: qr_reduced(t)[1], [x], fast_mode=fast_mode)
    assert gradgradcheck(qr_reduced, [x])


@pytest.mark.parametrize("fast_mode", [True, False])
@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (4, 4), (1, 3), (0, 3)])
def test_svd_gradients(shape, fast_mode):
    x = _leaf(np.random.default_rng(2).standard_normal(shape))
    assert gradcheck(_svd_invariants, [x], fast_mode=fast_mode)
    assert gradgradcheck(_svd_invariants, [x])


@pytest.mark.parametrize("lower", [True, False])
def test_tri_solve_gradients(lower):
    rng = np.random.default_rng(3)
    a = _leaf(rng.standard_normal((4, 4)) + 4 * np.eye(4))
    b = _leaf(rng.standard_normal((4, 2)))
    assert gradcheck(lambda a, b: tri_solve(a, b, lower), [a, b], fast_mode=False)
    assert gradgradcheck(lambda a, b: tri_solve(a, b, lower), [a, b])
    tri_solve(a, b, lower).sum().backward()
    # the other triangle is never read, so it gets no gradient
    other = np.triu(a.grad.numpy(), 1) if lower else np.tril(a.grad.numpy(), -1)
    np.testing.assert_array_equal(other, 0)


def test_svd_repeated_values_give_the_subspace_gradient():
    """A = Q diag(2, 2, 1) Wᵀ. The projector onto the top-2 left singular subspace does
    not depend on the basis LAPACK picks inside the repeated pair, so its gradient is
    defined; the rule's 1/(s_j² - s_i²) inside the pair is masked to 0 and the result
    must match finite differences of the projector computed by numpy."""
    rng = np.random.default_rng(4)
    q = np.linalg.qr(rng.standard_normal((5, 3)))[0]
    w = np.linalg.qr(rng.standard_normal((3, 3)))[0]
    a = q @ np.diag([2.0, 2.0, 1.0]) @ w.T
    weights = rng.standard_normal((5, 5))

    def loss_np(m):
        u = np.linalg.svd(m, full_matrices=False)[0][:, :2]
        return float(np.sum(weights * (u @ u.T)))

    x = _leaf(a)
    u = svd_thin(x)[0][:, :2]
    (weft.to_tensor(weights) * (u @ u.t())).sum().backward()
    h, num = 1e-6, np.zeros_like(a)
    for idx in np.ndindex(*a.shape):
        e = np.zeros_like(a)
        e[idx] = h
        num[idx] = (loss_np(a + e) - loss_np(a - e)) / (2 * h)
    assert np.all(np.isfinite(x.grad.numpy()))
    np.testing.assert_allclose(x.grad.numpy(), num, atol=1e-6)
    # and the nuclear norm sum(s), whose gradient is U Vᵀ = Q Wᵀ
    x2 = _leaf(a)
    svd_thin(x2)[1].sum().backward()
    np.testing.assert_allclose(x2.grad.numpy(), q @ w.T, atol=1e-12)


def test_errors():
    with pytest.raises(ValueError, match=r"qr_reduced: x must have at least as many rows"):
        qr_reduced(weft.ones([2, 3]))
    with pytest.raises(ValueError, match=r"svd_thin: x must be a 2-D Tensor"):
        svd_thin(weft.ones([3]))
    with pytest.raises(weft.UnsupportedDtypeError, match=r"svd_thin: x has dtype complex128"):
        svd_thin(weft.to_tensor(np.eye(2) * 1j))
    with pytest.raises(weft.UnsupportedDtypeError, match=r"qr_reduced: x has dtype int64"):
        qr_reduced(weft.to_tensor(np.eye(2, dtype=np.int64)))


def test_qr_backward_of_dependent_columns_raises():
    x = _leaf(np.array([[1.0, 2.0], [2.0, 4.0], [3.0, 6.0]]))
    q, r = qr_reduced(x)  # the forward is fine
    with pytest.raises(ValueError, match=r"qr_reduced: the gradient needs linearly independent "
                                         r"columns, but x of shape \[3, 2\] has numerical rank below 2"):
        q.sum().backward()
