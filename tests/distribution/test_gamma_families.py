"""The Gamma-related families beyond the generic database tests: implicit
reparameterisation gradients (draw by draw where the family is a Gamma, as
Monte-Carlo expectations with a standard-error tolerance otherwise), von Mises
draws, numerical edge cases and the errors of the spec."""
import math

import numpy as np
import pytest
import scipy.special as sps
from scipy import stats

import weft
import weft.distribution as D


def _leaf(v, n=None, dtype="float64"):
    a = np.full(n, v) if n is not None else np.asarray(v)
    return weft.to_tensor(np.asarray(a, dtype=dtype), stop_gradient=False)


@pytest.mark.parametrize("cls", ["Gamma", "Chi2"])
def test_gamma_rsample_gradient_is_the_quantile_derivative(cls):
    weft.seed(4)
    a = _leaf([0.3, 1.7, 6.0, 40.0])
    if cls == "Gamma":
        rate = _leaf([2.0, 0.5, 1.0, 3.0])
        d = D.Gamma(a, rate)
        conc, r = a.numpy(), rate.numpy()
    else:
        d = D.Chi2(a)
        conc, r = 0.5 * a.numpy(), np.full(4, 0.5)
    x = d.rsample()
    grads = weft.grad(x.sum(), [a, rate] if cls == "Gamma" else [a])
    u = sps.gammainc(conc, r * x.numpy())
    h = 1e-6 * conc
    dq = (sps.gammaincinv(conc + h, u) - sps.gammaincinv(conc - h, u)) / (2 * h) / r
    if cls == "Gamma":
        np.testing.assert_allclose(grads[0].numpy(), dq, rtol=1e-5)
        np.testing.assert_allclose(grads[1].numpy(), -x.numpy() / r, rtol=1e-10)
    else:
        np.testing.assert_allclose(grads[0].numpy(), 0.5 * dq, rtol=1e-5)


def _mc_check(sample_fn, leaves, exact, n=40000, nsigma=5.0):
    """The mean of per-draw gradients of ``sample_fn(leaves)`` (one draw per leaf
    entry) against ``exact``, within ``nsigma`` standard errors."""
    weft.seed(8)
    y = sample_fn(*leaves)
    grads = weft.grad(y.sum(), leaves)
    for g, want in zip(grads, exact):
        per = g.numpy().reshape(n, -1)
        mean, se = per.mean(0), per.std(0) / math.sqrt(n)
        assert np.all(np.isfinite(per))
        np.testing.assert_array_less(np.abs(mean - want), nsigma * se + 1e-12)


def test_beta_rsample_gradient():
    n, a, b = 40000, 1.5, 0.7
    _mc_check(lambda x, y: D.Beta(x, y).rsample(), [_leaf(a, n), _leaf(b, n)],
              [b / (a + b) ** 2, -a / (a + b) ** 2], n)


def test_dirichlet_rsample_gradient():
    n, alpha = 40000, np.array([0.6, 1.3, 2.4])
    conc = weft.to_tensor(np.tile(alpha, (n, 1)), stop_gradient=False)
    s = alpha.sum()
    # d E[X_0] / d alpha_j = (delta_0j s - alpha_0) / s^2
    want = (np.eye(3)[0] * s - alpha[0]) / s ** 2
    _mc_check(lambda c: D.Dirichlet(c).rsample()[:, 0], [conc], [want], n)


def test_student_t_rsample_gradient():
    n, nu, loc, scale = 40000, 8.0, 0.5, 1.5
    # E[(X - loc)^2] = scale^2 nu / (nu - 2)
    _mc_check(lambda v, s: (D.StudentT(v, loc, s).rsample() - loc) ** 2,
              [_leaf(nu, n), _leaf(scale, n)],
              [-2 * scale ** 2 / (nu - 2) ** 2, 2 * scale * nu / (nu - 2)], n)


def test_inverse_gamma_and_fisher_snedecor_rsample_gradients():
    n = 40000
    _mc_check(lambda a, b: D.InverseGamma(a, b).rsample(), [_leaf(5.0, n), _leaf(2.0, n)],
              [-2.0 / 16.0, 0.25], n)
    _mc_check(lambda d1, d2: D.FisherSnedecor(d1, d2).rsample(),
              [_leaf(5.0, n), _leaf(12.0, n)], [0.0, -2.0 / 100.0], n)


@pytest.mark.parametrize("kappa", [0.4, 3.0, 25.0])
def test_von_mises_rsample_gradient(kappa):
    n = 40000
    rho = sps.i1e(kappa) / sps.i0e(kappa)
    # E[cos(X - loc)] = I1/I0, whose kappa-derivative is 1 - rho/kappa - rho^2
    _mc_check(lambda k: (D.VonMises(0.3, k).rsample() - 0.3).cos(), [_leaf(kappa, n)],
              [1 - rho / kappa - rho ** 2], n)


def test_wishart_rsample_gradient():
    n = 20000
    cov = np.array([[1.5, 0.3], [0.3, 0.8]])
    df = _leaf(4.0, n)
    _mc_check(lambda v: D.Wishart(v, covariance_matrix=weft.to_tensor(cov)).rsample()[:, 0, 0],
              [df], [cov[0, 0]], n)


@pytest.mark.parametrize("kappa", [1e-4, 0.7, 5.0, 12.0, 400.0])
def test_von_mises_draws_match_scipy(kappa):
    weft.seed(6)
    d = D.VonMises(weft.to_tensor(2.5, dtype="float64"), weft.to_tensor(kappa, dtype="float64"))
    x = d.sample([20000]).numpy()
    assert np.all((x >= -np.pi) & (x < np.pi))
    centred = np.mod(x - 2.5 + np.pi, 2 * np.pi) - np.pi
    assert stats.kstest(centred, stats.vonmises(kappa).cdf).statistic < 0.02


def test_von_mises_cdf_derivative_against_mpmath():
    # dF/dk = int_{-pi}^{t} (cos s - I1/I0) p(s) ds, by mpmath quadrature (scipy's own
    # cdf is less accurate above kappa = 50: its central difference is off by 1e-7)
    import mpmath

    from weft.ops import _von_mises

    def ref(t, k):
        k = mpmath.mpf(k)
        i0 = mpmath.besseli(0, k)
        r = mpmath.besseli(1, k) / i0
        return float(mpmath.quad(lambda s: (mpmath.cos(s) - r) * mpmath.exp(k * mpmath.cos(s))
                                 / (2 * mpmath.pi * i0), [-mpmath.pi, t]))

    for kappa in (0.05, 2.0, 11.0, 49.0, 60.0, 500.0):
        th = np.linspace(-3.0, 3.0, 5) if kappa < 50 else np.linspace(-0.3, 0.3, 5)
        want = [ref(t, kappa) for t in th]
        # series below 50: rounding only; Hill's approximation above: 3e-13 measured
        np.testing.assert_allclose(_von_mises.cdf_dkappa(th, np.full(5, kappa)), want,
                                   rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_small_concentrations_give_finite_draws_and_gradients(dtype):
    weft.seed(3)
    a = _leaf([0.02, 0.05], dtype=dtype)
    for d in (D.Beta(a, a), D.Dirichlet(a), D.Gamma(a, 1.0)):
        x = d.rsample([500])
        (g,) = weft.grad(x.sum(), a)
        assert np.all(np.isfinite(x.numpy())) and np.all(np.isfinite(g.numpy()))
        assert np.all(np.isfinite(d.log_prob(x.detach()).numpy()))


def test_log_prob_at_support_edges():
    g = D.Gamma(weft.to_tensor([0.5, 1.0, 2.0], dtype="float64"), 2.0)
    assert g.log_prob(weft.to_tensor(0.0, dtype="float64")).tolist() == \
        [math.inf, math.log(2.0), -math.inf]
    b = D.Beta(weft.to_tensor([1.0, 3.0], dtype="float64"), weft.to_tensor([2.0, 1.0],
                                                                          dtype="float64"))
    np.testing.assert_allclose(b.log_prob(weft.to_tensor([0.0, 1.0], dtype="float64")).numpy(),
                               [math.log(2.0), math.log(3.0)])
    assert b.log_prob(weft.to_tensor(-0.1, dtype="float64")).tolist() == [-math.inf] * 2


def test_student_t_moments_follow_paddle():
    d = D.StudentT(weft.to_tensor([1.0, 2.0, 3.0]), 0.0, 1.0)
    v = d.variance.numpy()
    assert np.isnan(v[0]) and v[1] == np.inf and v[2] == pytest.approx(3.0)
    m = d.mean.numpy()
    assert np.isnan(m[0]) and m[1] == 0 and m[2] == 0


def test_cdf_shape_gradients_are_refused_clearly():
    a = _leaf(2.0)
    c = D.Beta(a, 3.0).cdf(weft.to_tensor(0.4, dtype="float64"))
    # api-distribution.md §2: Beta's F/Q are differentiable in the value only
    with pytest.raises(NotImplementedError, match="Beta.cdf: the gradient with respect to "
                                                  "alpha and beta is not implemented"):
        weft.grad(c, a)
    # the incomplete gamma has its shape derivative: Gamma.cdf is differentiable in it
    a = _leaf(2.0)
    c = D.Gamma(a, 1.5).cdf(weft.to_tensor(1.2, dtype="float64"))
    (g,) = weft.grad(c, a)
    h = 1e-6
    fd = (sps.gammainc(2.0 + h, 1.8) - sps.gammainc(2.0 - h, 1.8)) / (2 * h)
    assert g.item() == pytest.approx(fd, rel=1e-6)


def test_binomial_total_count_rules():
    assert D.Binomial(10.0, 0.4).mean.item() == pytest.approx(4.0)
    for bad in (2.5, -1, [1.0, 2.5]):
        with pytest.raises(ValueError, match="Binomial: total_count must hold non-negative"):
            D.Binomial(bad, 0.4)
    with pytest.raises(TypeError, match="Binomial: total_count must be an int or a Tensor"):
        D.Binomial("3", 0.4)
    d = D.Binomial(weft.to_tensor([3.0, 3.0]), weft.to_tensor([0.2, 0.7]))
    s = d.enumerate_support()
    assert s.shape == [4, 2] and s[:, 0].tolist() == [0.0, 1.0, 2.0, 3.0]
    assert d.enumerate_support(expand=False).shape == [4, 1]
    with pytest.raises(NotImplementedError, match="one total_count"):
        D.Binomial(weft.to_tensor([2.0, 3.0]), 0.5).enumerate_support()
    with pytest.raises(NotImplementedError, match="Binomial.rsample"):
        d.rsample([2])


def test_count_quantiles_at_the_ends():
    p = D.Poisson(weft.to_tensor([0.0, 3.0], dtype="float64"))
    q = p.icdf(weft.to_tensor([[0.0], [1.0], [0.5]], dtype="float64")).numpy()
    assert q[0].tolist() == [0.0, 0.0] and q[1, 1] == np.inf
    assert q[2].tolist() == stats.poisson([0.0, 3.0]).ppf(0.5).tolist()
    b = D.Binomial(7, weft.to_tensor(0.3, dtype="float64"))
    # q = 0: the smallest k with cdf(k) >= 0 is 0 (the spec's rule; scipy says -1)
    assert b.icdf(weft.to_tensor([0.0, 1.0, 0.999], dtype="float64")).tolist() == \
        [0.0] + stats.binom(7, 0.3).ppf([1.0, 0.999]).tolist()


def test_constructor_errors():
    with pytest.raises(ValueError, match="exactly one of probs or logits"):
        D.NegativeBinomial(3.0)
    with pytest.raises(ValueError, match="exactly one of probs or logits"):
        D.NegativeBinomial(3.0, probs=0.3, logits=0.1)
    eye = weft.eye(2)
    with pytest.raises(ValueError, match="Exactly one of covariance_matrix or precision_matrix"):
        D.Wishart(3.0)
    with pytest.raises(ValueError, match="Exactly one of covariance_matrix or precision_matrix"):
        D.Wishart(3.0, covariance_matrix=eye, scale_tril=eye)
    with pytest.raises(ValueError, match="square"):
        D.Wishart(3.0, covariance_matrix=weft.ones([2, 3]))
    with pytest.raises(ValueError, match="Dirichlet: concentration must be at least 1-D"):
        D.Dirichlet(weft.to_tensor(1.0))
    D.set_validate_args(True)
    try:
        with pytest.raises(ValueError, match="Wishart: parameter 'df' must be greater"):
            D.Wishart(0.5, covariance_matrix=eye)
    finally:
        D.set_validate_args(False)


def test_negative_binomial_logits_match_probs():
    logits = weft.to_tensor([-1.0, 0.5], dtype="float64")
    a = D.NegativeBinomial(2.5, logits=logits)
    b = D.NegativeBinomial(2.5, probs=weft.sigmoid(logits))
    k = weft.to_tensor([0.0, 3.0], dtype="float64")
    np.testing.assert_allclose(a.log_prob(k).numpy(), b.log_prob(k).numpy(), rtol=1e-12)
    np.testing.assert_allclose(a.probs.numpy(), b.probs.numpy(), rtol=1e-12)
    np.testing.assert_allclose(b.logits.numpy(), logits.numpy(), rtol=1e-12)
