"""The fused log-density primitives of weft.distribution (``_fused``): the blocked
paths (one law over many values) against scipy.stats and the autograd checks, with
the block made small so that small arrays cross several blocks and end in a partial
one; the cotangent of a ``sum`` (one number broadcast) takes the reduction's shortcut."""
import numpy as np
import pytest
import scipy.special as sps
import scipy.stats

import weft
from weft.autograd import gradcheck, gradgradcheck
from weft.distribution import Beta, Normal, _fused


@pytest.fixture
def small_block(monkeypatch):
    monkeypatch.setattr(_fused, "BLOCK", 4)


def _t(a, grad=True):
    return weft.to_tensor(np.asarray(a), stop_gradient=not grad)


def _normal(x, loc, scale):
    return Normal(loc, scale).log_prob(x)


def _beta(x, a, b):
    return Beta(a, b).log_prob(x)


@pytest.mark.parametrize("n", [5, 8, 11])
def test_normal_blocked_matches_scipy_and_gradchecks(small_block, n):
    rng = np.random.default_rng(n)
    x, loc, scale = _t(rng.standard_normal(n)), _t(0.3), _t(1.7)
    assert _fused.blockable(x._data, loc._data, scale._data)
    np.testing.assert_allclose(_normal(x, loc, scale).numpy(),
                               scipy.stats.norm.logpdf(x.numpy(), 0.3, 1.7), rtol=1e-14)
    assert gradcheck(_normal, [x, loc, scale])
    assert gradgradcheck(_normal, [x, loc, scale])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_normal_sum_gradient_takes_the_shortcut(small_block, dtype):
    # d/dμ Σ log p = Σ (x-μ)/σ², d/dσ = Σ ((x-μ)²/σ³ - 1/σ): the sum's cotangent is one
    # number broadcast, so the rules reduce without a full-size product
    rng = np.random.default_rng(1)
    xv = rng.standard_normal(37).astype(dtype)
    loc, scale = _t(np.asarray(0.3, dtype)), _t(np.asarray(1.7, dtype))
    lp = _normal(_t(xv, grad=False), loc, scale)
    gl, gs = weft.grad(lp.sum() * 2.0, [loc, scale])
    z = (xv.astype(np.float64) - 0.3) / 1.7
    tol = 1e-5 if dtype == "float32" else 1e-13
    np.testing.assert_allclose(float(gl), 2 * (z / 1.7).sum(), rtol=tol)
    np.testing.assert_allclose(float(gs), 2 * ((z * z - 1) / 1.7).sum(), rtol=tol)
    assert gl.dtype == loc.dtype and gs.dtype == scale.dtype
    # a full cotangent gives the weighted sums
    w = rng.uniform(0.5, 2, 37).astype(dtype)
    lp = _normal(_t(xv, grad=False), loc, scale)
    gl, gs = weft.grad(lp, [loc, scale], grad_outputs=[_t(w, grad=False)])
    np.testing.assert_allclose(float(gl), (w * z / 1.7).sum(), rtol=tol)
    np.testing.assert_allclose(float(gs), (w * (z * z - 1) / 1.7).sum(), rtol=tol)


@pytest.mark.parametrize("blocked", [True, False])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("sd", [1e-30, 1e30, 1e-40])
def test_normal_at_scales_far_from_one(monkeypatch, blocked, dtype, sd):
    # (x-μ)² and σ² leave float32's range at these scales (σ = 1e-40 is subnormal in
    # float32); z = (x-μ)/σ does not, and neither do the log-density and its gradients
    if blocked:
        monkeypatch.setattr(_fused, "BLOCK", 4)
    z = np.linspace(-3.0, 2.0, 11)
    xv = (0.25 * sd + z * sd).astype(dtype)
    loc, scale = _t(np.asarray(0.25 * sd, dtype)), _t(np.asarray(sd, dtype))
    x = _t(xv, grad=False) if blocked else _t(xv, grad=False)[::-1]
    lp = _normal(x, loc, scale)
    z64 = (x.numpy().astype(np.float64) - float(loc)) / float(scale)
    want = -0.5 * z64 ** 2 - np.log(float(scale)) - 0.5 * np.log(2 * np.pi)
    tol = 2e-6 if dtype == "float32" else 1e-13
    np.testing.assert_allclose(lp.numpy(), want, rtol=tol)
    gl, gs = weft.grad(lp.sum(), [loc, scale])
    # Σ z/σ and Σ (z²-1)/σ; at σ = 1e-40 they are beyond float32's range (±inf)
    big = float(np.finfo(dtype).max)
    for got, want in ((gl, z64.sum() / float(scale)), (gs, (z64 ** 2 - 1).sum() / float(scale))):
        if abs(want) > big:
            assert float(got) == np.sign(want) * np.inf
        else:
            np.testing.assert_allclose(float(got), want, rtol=tol * 10)


def test_normal_sum_gradient_matches_the_unblocked_path():
    rng = np.random.default_rng(2)
    xv = rng.standard_normal(3 * _fused.BLOCK + 5).astype(np.float32)
    res = []
    for x in (xv, xv[::-1]):      # the reversed view is not contiguous: whole-array path
        loc, scale = _t(np.float32(0.3)), _t(np.float32(1.7))
        res.append([float(g) for g in weft.grad(_normal(_t(x, grad=False), loc, scale).sum(),
                                                 [loc, scale])])
    np.testing.assert_allclose(res[0], res[1], rtol=1e-5)


@pytest.mark.parametrize("n", [5, 9])
def test_beta_blocked_matches_scipy_and_gradchecks(small_block, n):
    rng = np.random.default_rng(n)
    x, a, b = _t(rng.uniform(0.05, 0.95, n)), _t(2.5), _t(0.7)
    assert _fused.blockable(x._data, a._data, b._data)
    np.testing.assert_allclose(_beta(x, a, b).numpy(),
                               scipy.stats.beta.logpdf(x.numpy(), 2.5, 0.7), rtol=1e-14)
    assert gradcheck(_beta, [x, a, b])
    assert gradgradcheck(_beta, [x, a, b])


@pytest.mark.parametrize("blocked", [True, False])
@pytest.mark.parametrize("ab", [(1.0, 1.0), (1.0, 2.0), (2.0, 1.0), (0.5, 0.5), (2.5, 3.0)])
def test_beta_support_ends_and_corners(monkeypatch, blocked, ab):
    # the exact formula (xlogy / xlog1py, -inf outside [0, 1]) wherever the fast one
    # gives NaN: outside the support, NaN values, and the 0·log 0 corners
    if blocked:
        monkeypatch.setattr(_fused, "BLOCK", 4)
    xv = np.array([0, 1, -0.5, 1.5, np.nan, 0.3, 0, 1, 0.5, 0.2, 0.1, 0.9, 0.0])
    av, bv = ab
    want = np.where((xv >= 0) & (xv <= 1),
                    sps.xlogy(av - 1, xv) + sps.xlog1py(bv - 1, -xv) - sps.betaln(av, bv),
                    -np.inf)
    with np.errstate(all="raise"):     # no floating-point warning escapes
        got = _beta(_t(xv, grad=False), _t(av, grad=False), _t(bv, grad=False)).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-15)


def test_beta_gradients_at_the_ends():
    # outside [0, 1] every gradient is 0 (the density is constant there); at the corners
    # the 0/0 terms are 0 (xlogy's convention, mirrored for β at x = 1)
    x, a, b = _t([-0.5, 1.5, 0.0, 1.0]), _t(np.ones(4)), _t(np.ones(4))
    gx, ga, gb = weft.grad(_beta(x, a, b).sum(), [x, a, b])
    psi = sps.digamma(1.0) - sps.digamma(2.0)
    np.testing.assert_allclose(gx.numpy(), [0, 0, 0, 0])
    np.testing.assert_allclose(ga.numpy(), [0, 0, -psi, np.log(1.0) - psi])
    np.testing.assert_allclose(gb.numpy(), [0, 0, np.log1p(-0.0) - psi, -psi])


def test_log_prob_value_shape_error():
    with pytest.raises(ValueError, match=r"Normal.log_prob: value of shape \[3\]"):
        Normal(weft.zeros([4]), weft.ones([4])).log_prob(weft.zeros([3]))
    with pytest.raises(ValueError, match=r"Beta.log_prob: value of shape \[2, 3\]"):
        Beta(weft.ones([4]), weft.ones([4])).log_prob(weft.full([2, 3], 0.5))


# ---- ‖L⁻¹ dᵢ‖² by the native substitution kernel (MultivariateNormal with one factor)

def _factor(rng, k, dtype):
    a = np.tril(rng.uniform(-0.5, 0.5, (k, k))) + 1.5 * np.eye(k)
    return a.astype(dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("k,n", [(1, 1), (3, 17), (8, 16), (13, 5), (64, 1000), (70, 33), (5, 0)])
def test_mahalanobis_rows_against_a_float64_solve(k, n, dtype):
    import scipy.linalg
    rng = np.random.default_rng(k * 100 + n)
    L = _factor(rng, k, dtype)
    D = (rng.standard_normal((n, k)) * 3).astype(dtype)
    got = weft._native.extension.tri_mahalanobis_rows(L, D)
    z = scipy.linalg.solve_triangular(L.astype(np.float64), D.T.astype(np.float64), lower=True)
    want = (z * z).sum(0)
    assert got.dtype == np.dtype(dtype) and got.shape == (n,)
    tol = 2e-6 if dtype == "float32" else 1e-13
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol)
    # only the lower triangle is read
    up = L + np.triu(np.full((k, k), 7.0, dtype), 1)
    np.testing.assert_array_equal(weft._native.extension.tri_mahalanobis_rows(up, D), got)


def test_mahalanobis_rows_do_not_depend_on_the_thread_count():
    from tests._threads import assert_same_on_1_and_2_threads
    rng = np.random.default_rng(3)
    L, D = _factor(rng, 64, "float32"), rng.standard_normal((5001, 64)).astype("float32")
    assert_same_on_1_and_2_threads(lambda: [weft._native.extension.tri_mahalanobis_rows(L, D)])


def test_mahalanobis_rows_gradients():
    rng = np.random.default_rng(4)
    L = weft.to_tensor(_factor(rng, 4, "float64"), stop_gradient=False)
    D = weft.to_tensor(rng.standard_normal((6, 4)), stop_gradient=False)
    f = _fused.tri_mahalanobis_rows
    assert gradcheck(f, [L, D]) and gradgradcheck(f, [L, D])
    f(L, D).sum().backward()
    assert not np.triu(L.grad.numpy(), 1).any()   # the upper triangle is not an input


def test_mvn_with_one_factor_takes_the_kernel_and_matches_scipy():
    from weft.distribution import MultivariateNormal, _util
    rng = np.random.default_rng(5)
    k = 6
    L = _factor(rng, k, "float64")
    loc, x = rng.standard_normal(k), rng.standard_normal((4, 5, k))
    d = MultivariateNormal(weft.to_tensor(loc), scale_tril=weft.to_tensor(L))
    assert _fused.mahalanobis_rows_native(d._L, weft.to_tensor(x.reshape(-1, k)))
    want = scipy.stats.multivariate_normal(loc, L @ L.T).logpdf(x)
    np.testing.assert_allclose(d.log_prob(weft.to_tensor(x)).numpy(), want, rtol=1e-12)
    # a zero on the diagonal goes to the triangular solve (which reports a singular factor)
    sing = L.copy()
    sing[2, 2] = 0.0
    assert not _fused.mahalanobis_rows_native(weft.to_tensor(sing), weft.to_tensor(x[0]))
    assert _util is not None


def test_mahalanobis_rows_reject_bad_input():
    C = weft._native.extension
    with pytest.raises(ValueError, match="L must be square"):
        C.tri_mahalanobis_rows(np.ones((2, 3)), np.ones((4, 3)))
    with pytest.raises(ValueError, match="D has shape"):
        C.tri_mahalanobis_rows(np.eye(3), np.ones((4, 2)))
    with pytest.raises(TypeError, match="dtype"):
        C.tri_mahalanobis_rows(np.eye(3, dtype=np.float32), np.ones((4, 3)))
    with pytest.raises(ValueError, match="C-contiguous"):
        C.tri_mahalanobis_rows(np.eye(3), np.ones((3, 4)).T)


# ---- inverse-cdf draws by scanning rows (Categorical and friends, a few draws per row)

@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("rows,k,draws", [(7, 5, 3), (1, 1, 2), (50, 300, 1), (3, 17, 8), (0, 4, 2)])
def test_categorical_scan_is_searchsorted_on_each_rows_running_sum(rows, k, draws, dtype):
    rng = np.random.default_rng(rows * 31 + k)
    w = rng.random((rows, k)).astype(dtype)
    if rows:
        w[0, :min(2, k)] = 0.0            # zero weights are never drawn
    u = rng.random((draws, rows))
    got = weft._native.extension.categorical_scan(w, u)
    want = np.empty((draws, rows), np.int64)
    for r in range(rows):
        c = np.cumsum(w[r].astype(np.float64))
        want[:, r] = np.clip(np.searchsorted(c, u[:, r] * c[-1], side="right"), 0, k - 1)
    np.testing.assert_array_equal(got, want)


def test_categorical_scan_does_not_depend_on_the_thread_count():
    from tests._threads import assert_same_on_1_and_2_threads
    rng = np.random.default_rng(2)
    w, u = rng.random((4001, 300)).astype("float32"), rng.random((2, 4001))
    assert_same_on_1_and_2_threads(lambda: [weft._native.extension.categorical_scan(w, u)])


def test_categorical_draws_through_either_path_follow_the_probabilities():
    # a few draws per row (the scan) and many (the running sums): the same law
    from weft.distribution import Categorical
    p = np.array([[0.1, 0.0, 0.6, 0.3], [0.25, 0.25, 0.25, 0.25]])
    with np.errstate(divide="ignore"):
        d = Categorical(weft.to_tensor(np.log(p)))    # logits; log 0 = -inf: never drawn
    weft.seed(3)
    few = np.stack([d.sample([4]).numpy() for _ in range(2500)]).reshape(-1, 2)   # scan
    weft.seed(3)
    many = d.sample([10000]).numpy()                                              # cumsum
    for draws in (few, many):
        for r in range(2):
            freq = np.bincount(draws[:, r], minlength=4) / len(draws)
            np.testing.assert_allclose(freq, p[r], atol=0.02)
        assert not (draws[:, 0] == 1).any()


def test_categorical_scan_rejects_bad_input():
    C = weft._native.extension
    with pytest.raises(ValueError, match="u has shape"):
        C.categorical_scan(np.ones((3, 2)), np.ones((1, 4)))
    with pytest.raises(TypeError, match="u must be float64"):
        C.categorical_scan(np.ones((3, 2)), np.ones((1, 3), np.float32))
    with pytest.raises(ValueError, match="at least one column"):
        C.categorical_scan(np.ones((3, 0)), np.ones((1, 3)))
