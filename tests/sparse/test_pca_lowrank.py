"""weft.sparse.pca_lowrank (api-sparse.md §3.2): against the SVD of the centered
dense matrix, reproducibility under weft.seed, argument errors, and gradients
(numerical checks, and the exact-SVD gradient when q captures the whole range)."""
import numpy as np
import pytest
import scipy.sparse as sp

import weft
from weft import sparse as S
from weft.autograd import gradcheck, gradgradcheck


def _planted(rng, n, m, rank, noise, dtype=np.float64):
    """A sparse matrix of exact low rank plus sparse noise: rows and columns fall in
    ``rank`` clusters and a sparse block matrix gives each pair of clusters one value,
    so whole blocks are zero and the spectrum has a clear gap after ``rank``."""
    rc, cc = rng.integers(0, rank, n), rng.integers(0, rank, m)
    block = rng.standard_normal((rank, rank)) * (rng.random((rank, rank)) < 0.3)
    block += np.diag(rng.uniform(2, 4, rank))
    dense = block[rc][:, cc] * 10
    dense += noise * rng.standard_normal((n, m)) * (rng.random((n, m)) < 0.05)
    return sp.csr_matrix(dense.astype(dtype))


def _principal_angles_cos(a, b):
    qa, qb = np.linalg.qr(a)[0], np.linalg.qr(b)[0]
    return np.linalg.svd(qa.T @ qb, compute_uv=False)


@pytest.mark.parametrize("center", [True, False])
@pytest.mark.parametrize("fmt", ["csr", "coo"])
def test_matches_dense_svd_on_full_rank_basis(center, fmt):
    """With q = min(N, M) the range finder captures everything: exact SVD."""
    rng = np.random.default_rng(0)
    a = sp.random(30, 12, density=0.3, random_state=1, format="csr")
    x = S.from_scipy(a) if fmt == "csr" else S.from_scipy(a.tocoo())
    weft.seed(5)
    u, s, v = S.pca_lowrank(x, q=12, center=center, niter=2)
    d = a.toarray()
    if center:
        d = d - d.mean(axis=0)
    ref = np.linalg.svd(d, compute_uv=False)
    assert u.shape == [30, 12] and s.shape == [12] and v.shape == [12, 12]
    np.testing.assert_allclose(s.numpy(), ref, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(u.numpy() @ np.diag(s.numpy()) @ v.numpy().T, d, atol=1e-9)
    np.testing.assert_allclose(u.numpy().T @ u.numpy(), np.eye(12), atol=1e-9)
    del rng


@pytest.mark.parametrize("dtype,tol", [(np.float64, 1e-6), (np.float32, 1e-3)])
def test_low_rank_plus_noise(dtype, tol):
    rng = np.random.default_rng(1)
    a = _planted(rng, 300, 200, 5, 0.01, dtype)
    assert a.nnz < 0.6 * 300 * 200
    weft.seed(0)
    u, s, v = S.pca_lowrank(S.from_scipy(a), q=7, center=True, niter=3)
    assert u.dtype == np.dtype(dtype) and s.dtype == np.dtype(dtype)
    d = a.toarray().astype(np.float64)
    d -= d.mean(axis=0)
    ru, rs, rvt = np.linalg.svd(d, full_matrices=False)
    # the dominant singular values agree; their subspaces coincide
    np.testing.assert_allclose(s.numpy()[:3], rs[:3], rtol=tol)
    assert np.all(_principal_angles_cos(u.numpy()[:, :3], ru[:, :3]) > 1 - tol)
    assert np.all(_principal_angles_cos(v.numpy()[:, :3], rvt[:3].T) > 1 - tol)
    assert np.all(np.diff(s.numpy()) <= 0)


def test_default_q_and_reproducible_seed():
    a = sp.random(20, 9, density=0.4, random_state=3, format="csr")
    x = S.from_scipy(a)
    weft.seed(11)
    u1, s1, v1 = S.pca_lowrank(x, niter=0)
    weft.seed(11)
    u2, s2, v2 = S.pca_lowrank(x, niter=0)
    assert s1.shape == [6] and u1.shape == [20, 6] and v1.shape == [9, 6]
    for p, q in ((u1, u2), (s1, s2), (v1, v2)):
        np.testing.assert_array_equal(p.numpy(), q.numpy())
    _, s3, _ = S.pca_lowrank(x, niter=0)  # the stream moved on: a different start
    assert not np.array_equal(s1.numpy(), s3.numpy())


def test_q_zero_and_errors():
    x = S.from_scipy(sp.random(5, 4, density=0.5, random_state=0, format="csr"))
    u, s, v = S.pca_lowrank(x, q=0)
    assert u.shape == [5, 0] and s.shape == [0] and v.shape == [4, 0]
    with pytest.raises(ValueError, match=r"pca_lowrank: Input must be sparse"):
        S.pca_lowrank(weft.ones([3, 3]))
    with pytest.raises(ValueError, match=r"q must be at most min\(N, M\) = 4"):
        S.pca_lowrank(x, q=5)
    with pytest.raises(ValueError, match=r"q must be >= 0"):
        S.pca_lowrank(x, q=-1)
    with pytest.raises(ValueError, match=r"niter must be >= 0"):
        S.pca_lowrank(x, niter=-1)
    with pytest.raises(ValueError, match=r"must be 2-D"):
        S.pca_lowrank(S.sparse_coo_tensor([[0], [0], [0]], [1.0], [2, 2, 2]))
    with pytest.raises(TypeError, match=r"pca_lowrank: x has dtype complex128"):
        S.pca_lowrank(S.sparse_coo_tensor([[0], [0]], np.array([1j]), [2, 2]))
    x.stop_gradient = False
    u, s, v = S.pca_lowrank(x, q=0)
    assert u.shape == [5, 0] and s.shape == [0] and v.shape == [4, 0]


def _invariant_outputs(x, q, center, niter):
    """Outputs that do not depend on the singular vectors' signs: S, the rank-q
    reconstruction U diag(S) Vᵀ and the projector U Uᵀ. The random start is reset
    on every call, so finite differences see one smooth function of x."""
    weft.seed(3)
    u, s, v = S.pca_lowrank(x, q=q, center=center, niter=niter)
    return s, (u * s.reshape([1, -1])) @ v.t(), u @ u.t()


@pytest.mark.parametrize("center", [True, False])
@pytest.mark.parametrize("fmt", ["csr", "coo"])
def test_gradcheck(center, fmt):
    a = sp.random(9, 7, density=0.45, random_state=2, format="csr")
    x = S.from_scipy(a) if fmt == "csr" else S.from_scipy(a.tocoo())
    x.stop_gradient = False
    assert gradcheck(lambda t: _invariant_outputs(t, 3, center, 1), [x], masked=True)
    assert gradcheck(lambda t: _invariant_outputs(t, 3, center, 1), [x], masked=True, fast_mode=False)


def test_gradgradcheck():
    x = S.from_scipy(sp.random(7, 6, density=0.5, random_state=4, format="csr"))
    x.stop_gradient = False
    assert gradgradcheck(lambda t: _invariant_outputs(t, 2, True, 1)[0], [x], masked=True)


@pytest.mark.parametrize("center", [True, False])
def test_gradient_of_the_full_rank_case_is_the_exact_svd_gradient(center):
    """q = min(N, M): S are the exact singular values of Ā = A - 1 cᵀ, so
    d sum(S) / dA = P U Vᵀ (P = I - 11ᵀ/N when centering), read at A's pattern."""
    a = sp.random(10, 6, density=0.4, random_state=7, format="csr")
    x = S.from_scipy(a)
    x.stop_gradient = False
    weft.seed(0)
    s = S.pca_lowrank(x, q=6, center=center, niter=1)[1]
    s.sum().backward()
    d = a.toarray()
    if center:
        d = d - d.mean(axis=0)
    u, _, vt = np.linalg.svd(d, full_matrices=False)
    g = u @ vt
    if center:
        g = g - g.mean(axis=0)
    assert isinstance(x.grad, S.SparseCsrTensor)
    np.testing.assert_array_equal(x.grad.cols().numpy(), a.indices)
    rows = np.repeat(np.arange(10), np.diff(a.indptr))
    np.testing.assert_allclose(x.grad.values().numpy(), g[rows, a.indices], atol=1e-10)


def test_float32_gradient_flows():
    a = sp.random(40, 20, density=0.2, random_state=3, format="csr", dtype=np.float32)
    x = S.from_scipy(a)
    x.stop_gradient = False
    u, s, v = S.pca_lowrank(x, q=4)
    assert u.dtype == s.dtype == v.dtype == np.float32
    s.sum().backward()
    assert x.grad.values().dtype == np.float32 and x.grad.nnz() == a.nnz
    assert np.all(np.isfinite(x.grad.values().numpy()))


def test_gradient_needs_q_within_the_rank():
    """Centring leaves rank <= N - 1, so q = N has a basis column with no gradient:
    a call that needs one says so; without gradients the call still works."""
    x = S.from_scipy(sp.random(4, 8, density=0.6, random_state=0, format="csr"))
    x.stop_gradient = False
    weft.seed(0)
    with pytest.raises(ValueError, match=r"pca_lowrank: gradients need q <= the rank of the "
                                         r"centred x, but q = 4 exceeds it \(centring leaves at most N - 1 = 3\)"):
        S.pca_lowrank(x, q=4)
    with weft.no_grad():
        assert S.pca_lowrank(x, q=4)[1].shape == [4]
    assert gradcheck(lambda t: _invariant_outputs(t, 3, True, 1), [x], masked=True)
    one_col = S.sparse_coo_tensor([[0, 1, 2], [0, 0, 0]], [1.0, 2.0, 3.0], [3, 3])
    one_col.stop_gradient = False
    with pytest.raises(ValueError, match=r"q = 2 exceeds it; pass a smaller q"):
        S.pca_lowrank(one_col, q=2, center=False)
