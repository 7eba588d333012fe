"""What the database cannot say generically: Paddle's observed behaviour
(api-distribution.md §1-§2), error messages, exact LKJ sampling, numerically hard
corners, expand and enumerate_support."""
from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from scipy import stats

import weft
import weft.distribution as D


def _t(v, dtype="float64"):
    return weft.to_tensor(np.asarray(v, dtype=dtype))


# ----------------------------------------------------------------------------------
# common model (§1)

def test_parameter_dtypes_and_shapes():
    assert D.Normal(0.0, 1.0).sample([3]).shape == [3]
    assert D.Normal(0.0, 1.0).batch_shape == ()
    assert D.Normal(0.0, 1.0).loc.dtype == np.float32
    assert D.Normal(np.array([0.0]), np.array([1.0])).loc.dtype == np.float64
    # mixed Tensor / Python values: the Python value takes the Tensor's dtype
    d = D.Normal(_t([0.0, 1.0]), 2.0)
    assert d.scale.dtype == np.float64 and d.batch_shape == (2,)
    for cls in (D.Uniform, D.Laplace, D.Cauchy, D.Gumbel, D.LogNormal):
        assert cls(_t([0.0]), 2.0).batch_shape == (1,)
    # values are cast to the parameter dtype
    lp = D.Normal(0.0, 1.0).log_prob(_t([0.5]))
    assert lp.dtype == np.float32
    # int sample shapes everywhere
    assert D.Laplace(0.0, 1.0).sample(4).shape == [4]


def test_sample_has_no_gradient_and_rsample_has():
    loc = weft.to_tensor([0.0, 1.0], stop_gradient=False)
    d = D.Normal(loc, 1.0)
    assert d.sample([5]).stop_gradient
    (g,) = weft.grad(d.rsample([5]).sum(), loc)
    np.testing.assert_allclose(g.numpy(), [5.0, 5.0])


def test_seed_argument_of_normal_and_uniform():
    for d in (D.Normal(0.0, 1.0), D.Uniform(0.0, 1.0)):
        a = d.sample([4], seed=3).numpy()
        weft.randn([10])                       # the global stream moves on
        np.testing.assert_array_equal(d.sample([4], seed=3).numpy(), a)
        assert not np.array_equal(d.sample([4], seed=4).numpy(), a)
        weft.seed(1)
        b = d.sample([4]).numpy()
        weft.seed(1)
        np.testing.assert_array_equal(d.sample([4], seed=0).numpy(), b)


def test_complex_normal():
    d = D.Normal(weft.to_tensor(np.array([0.0 + 1.0j], dtype=np.complex64)), 2.0)
    x = d.sample([20000])
    assert x.dtype == np.complex64 and x.shape == [20000, 1]
    v = x.numpy()[:, 0]
    assert abs(np.mean(v) - 1j) < 0.05
    assert abs(np.var(v.real) - 2.0) < 0.1 and abs(np.var(v.imag) - 2.0) < 0.1
    z = np.complex64(0.3 - 0.2j)
    want = -abs(z - 1j) ** 2 / 4.0 - math.log(math.pi * 4.0)
    np.testing.assert_allclose(d.log_prob(weft.to_tensor(np.array([z]))).numpy(), [want],
                               rtol=1e-5)
    np.testing.assert_allclose(d.entropy().numpy(), [1 + math.log(math.pi * 4.0)], rtol=1e-6)
    with pytest.raises(NotImplementedError, match="complex"):
        d.cdf(weft.to_tensor(np.array([z])))
    # complex loc given as numpy arrays or Python numbers keeps its imaginary part
    assert D.Normal(np.array([1j]), 1.0).sample([2]).dtype == np.complex128
    assert D.Normal(1j, 1.0).loc.dtype == np.complex64 and D.Normal(1j, 1.0).loc.item() == 1j


def test_no_validation_by_default():
    D.Bernoulli(1.5).sample([2])
    D.Normal(0.0, -1.0).sample([2])
    D.Uniform(1.0, 0.0).sample([2])


def test_probs_method_names():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for d in (D.Normal(0.0, 1.0), D.Uniform(0.0, 1.0), D.LogNormal(0.0, 1.0)):
            np.testing.assert_allclose(d.probs(_t([0.5], "float32")).numpy(),
                                       d.prob(_t([0.5], "float32")).numpy())
        D.Categorical(_t([1.0, 3.0])).probs(weft.to_tensor([1]))
    with pytest.warns(DeprecationWarning):
        D.Laplace(0.0, 1.0).probs(_t([0.5], "float32"))
    assert isinstance(D.Bernoulli(0.3).probs, weft.Tensor)      # a parameter there


def test_base_class_members_raise():
    d = D.Distribution()
    calls = {"sample": lambda: d.sample([1]), "rsample": lambda: d.rsample([1]),
             "entropy": d.entropy, "mean": lambda: d.mean, "variance": lambda: d.variance,
             "mode": lambda: d.mode, "cdf": lambda: d.cdf(_t(0.0)),
             "icdf": lambda: d.icdf(_t(0.5)), "log_prob": lambda: d.log_prob(_t(0.0))}
    for member, call in calls.items():
        with pytest.raises(NotImplementedError, match=f"Distribution.{member}"):
            call()
    assert d.batch_shape == () and d.event_shape == ()
    assert d._extend_shape([2]) == (2,)


def test_paddle_private_hooks():
    d = D.Normal(0.0, 1.0)
    assert d._validate_args(1.0, _t(1.0)) and not d._validate_args(1.0, 2.0)
    a, b = d._broadcast_all(_t([1.0, 2.0]), 3.0)
    assert a.shape == b.shape == [2] and b.dtype == np.float64
    a, b = d._to_tensor(1.0, [2.0, 3.0])
    assert a.shape == [2] and a.dtype == np.float32
    v = d._check_values_dtype_in_probs(_t([1.0], "float32"), _t([2.0]))
    assert v.dtype == np.float32
    p = _t([0.2, 0.8])
    np.testing.assert_allclose(d._probs_to_logits(p, is_binary=True).numpy(),
                               np.log([0.25, 4.0]), rtol=1e-12)
    np.testing.assert_allclose(d._logits_to_probs(_t([0.0, math.log(3.0)])).numpy(),
                               [0.25, 0.75], rtol=1e-12)
    np.testing.assert_allclose(d._logits_to_probs(_t([0.0]), is_binary=True).numpy(), [0.5])


# ----------------------------------------------------------------------------------
# observed values and errors per family (§2)

def test_bernoulli_specifics():
    d = D.Bernoulli(_t([0.3, 0.8]))
    with pytest.raises(ValueError, match="temperature"):
        d.rsample([2], temperature=0.0)
    with pytest.raises(ValueError, match="temperature"):
        d.rsample([2], temperature=-1.0)
    weft.seed(0)
    r = d.rsample([5000], temperature=0.5).numpy()
    assert (r < 0).any()                           # logit space
    # sigmoid(r) is a relaxed Bernoulli draw: its mean is not far from p
    np.testing.assert_allclose((1 / (1 + np.exp(-r))).mean(0), [0.3, 0.8], atol=0.05)
    np.testing.assert_allclose(d.cdf(_t([-1.0, 0.5])).numpy(), [0.0, 0.2], rtol=1e-12)
    np.testing.assert_array_equal(d.icdf(_t([0.7, 0.3])).numpy(), [0.0, 1.0])
    np.testing.assert_array_equal(d.enumerate_support().numpy(), [[0, 0], [1, 1]])
    assert d.enumerate_support(expand=False).shape == [2, 1]


def test_categorical_specifics():
    d = D.Categorical(_t([1.0, 3.0], "float32"))
    np.testing.assert_allclose(d.probs(weft.to_tensor([0, 1])).numpy(), [0.25, 0.75])
    assert abs(d.entropy().item() - 0.365) < 1e-3
    weft.seed(3)
    freq = d.sample([20000]).numpy().mean()
    assert abs(freq - math.e ** 3 / (math.e + math.e ** 3)) < 0.01
    assert d.sample([2, 3]).shape == [2, 3] and d.sample([2, 3]).dtype == np.int64
    assert d.batch_shape == () and d.event_shape == ()
    b = D.Categorical(_t([[1.0, 3.0], [2.0, 2.0]]))
    assert b.sample([4]).shape == [4, 2]
    assert b.probs(weft.to_tensor([1, 0])).shape == [2, 2]   # the value for every row
    np.testing.assert_allclose(b.probs(weft.to_tensor([[1], [0]])).numpy(), [[0.75], [0.5]])
    with pytest.raises(ValueError, match="batch shape"):
        b.probs(weft.to_tensor([[1], [0], [1]]))
    assert np.isnan(b.mean.numpy()).all() and b.mean.shape == [2]
    np.testing.assert_array_equal(b.mode.numpy(), [1, 0])
    np.testing.assert_array_equal(b.enumerate_support().numpy(), [[0, 0], [1, 1]])
    for m in ("cdf", "icdf"):
        with pytest.raises(NotImplementedError):
            getattr(b, m)(_t([0.0, 1.0]))
    # the sampler follows softmax rows in a large batch too
    logits = np.random.default_rng(0).normal(size=(300, 5))
    weft.seed(4)
    s = D.Categorical(weft.to_tensor(logits)).sample([400]).numpy()
    counts = np.stack([(s == k).mean(0) for k in range(5)], -1)
    sm = np.exp(logits) / np.exp(logits).sum(-1, keepdims=True)
    assert np.abs(counts.mean(0) - sm.mean(0)).max() < 0.01


def test_cauchy_has_no_moments():
    d = D.Cauchy(0.0, 1.0)
    with pytest.raises(ValueError, match="Cauchy distribution has no mean."):
        d.mean
    with pytest.raises(ValueError):
        d.variance
    with pytest.raises(ValueError):
        d.stddev


def test_geometric_specifics():
    d = D.Geometric(_t([0.5, 0.3]))
    np.testing.assert_allclose(d.mean.numpy(), [1.0, 7 / 3])
    np.testing.assert_allclose(d.pmf(_t([2.0, 0.0])).numpy(), [0.125, 0.3])
    np.testing.assert_allclose(d.log_pmf(_t([2.0, 0.0])).numpy(), np.log([0.125, 0.3]))
    assert np.all(d.log_prob(_t([1.5, -1.0])).numpy() == -np.inf)
    np.testing.assert_allclose(d.cdf(_t([1.0, 1.5])).numpy(), [0.75, 1 - 0.7 ** 2])
    q = np.array([0.75, 0.5])
    np.testing.assert_allclose(d.icdf(_t(q)).numpy(), stats.geom([0.5, 0.3], loc=-1).ppf(q))


def test_gumbel_is_a_transformed_distribution():
    d = D.Gumbel(0.0, 1.0)
    assert isinstance(d, D.TransformedDistribution)
    assert isinstance(d.base_dist, D.Uniform) and d.transforms == []
    assert abs(d.mean.item() - 0.5772) < 1e-4


def test_independent_specifics():
    base = D.Normal(weft.zeros([2, 3]), 1.0)
    for r in (0, 3):
        with pytest.raises(ValueError, match=f"Expected 0 < reinterpreted_batch_rank <= 2, "
                                             f"but got {r}"):
            D.Independent(base, r)
    d = D.Independent(base, 2)
    assert d.batch_shape == () and d.event_shape == (2, 3)
    x = weft.to_tensor(np.random.default_rng(0).normal(size=(4, 2, 3)).astype("float32"))
    np.testing.assert_allclose(d.log_prob(x).numpy(), base.log_prob(x).numpy().sum((1, 2)),
                               rtol=1e-6)
    assert d.entropy().shape == [] and d.has_rsample and d.rsample([5]).shape == [5, 2, 3]
    for m in ("cdf", "icdf"):
        with pytest.raises(NotImplementedError):
            getattr(d, m)(x)


def test_laplace_icdf_observed():
    d = D.Laplace(0.0, 1.0)
    np.testing.assert_allclose(d.icdf(_t([0.5, 0.75])).numpy(), [0.0, math.log(2)],
                               atol=1e-12)


def test_multinomial_errors_and_samples():
    for n in (0, 2.5):
        with pytest.raises(ValueError, match="total_count must be int type and grater than "
                                             "zero"):
            D.Multinomial(n, _t([0.5, 0.5]))
    d = D.Multinomial(7, _t([[0.2, 0.8], [0.5, 0.5], [0.1, 0.9]], "float32"))
    s = d.sample([4])
    assert s.shape == [4, 3, 2] and s.dtype == np.float32
    np.testing.assert_array_equal(s.numpy().sum(-1), 7)
    for m in ("cdf", "icdf"):
        with pytest.raises(NotImplementedError):
            getattr(d, m)(s)
    with pytest.raises(NotImplementedError):
        d.rsample([1])


def test_multivariate_normal_specifics():
    with pytest.raises(ValueError, match="Exactly one of covariance_matrix or precision_matrix"):
        D.MultivariateNormal(weft.zeros([2]))
    with pytest.raises(ValueError, match="Exactly one"):
        D.MultivariateNormal(weft.zeros([2]), covariance_matrix=weft.eye(2),
                             scale_tril=weft.eye(2))
    with pytest.raises(ValueError, match="one-dimensional"):
        D.MultivariateNormal(weft.zeros([]), covariance_matrix=weft.eye(1))
    with pytest.raises(ValueError, match="positive definite"):
        D.MultivariateNormal(weft.zeros([2]), covariance_matrix=-weft.eye(2))
    d = D.MultivariateNormal(weft.zeros([3, 2]), covariance_matrix=weft.eye(2))
    assert d.batch_shape == (3,) and d.event_shape == (2,)
    d = D.MultivariateNormal(weft.zeros([2]), precision_matrix=_t([[2.0, 0.0], [0.0, 4.0]]))
    np.testing.assert_allclose(d.variance.numpy(), [0.5, 0.25], rtol=1e-12)
    np.testing.assert_allclose(d.covariance_matrix.numpy(), np.diag([0.5, 0.25]), atol=1e-15)
    np.testing.assert_allclose(d.precision_matrix.numpy(), np.diag([2.0, 4.0]), atol=1e-15)
    # a shared covariance and many values (the single-solve path), sample dims included
    rng = np.random.default_rng(0)
    a = rng.normal(size=(4, 4))
    cov = a @ a.T + np.eye(4)
    loc = rng.normal(size=(3, 4))
    x = rng.normal(size=(5, 3, 4))
    got = D.MultivariateNormal(_t(loc), covariance_matrix=_t(cov)).log_prob(_t(x)).numpy()
    want = np.stack([stats.multivariate_normal(loc[i], cov).logpdf(x[:, i]) for i in range(3)],
                    1)
    np.testing.assert_allclose(got, want, rtol=1e-12)
    np.testing.assert_allclose(D.MultivariateNormal(_t(loc), scale_tril=_t(
        np.linalg.cholesky(cov))).covariance_matrix.numpy()[0], cov, rtol=1e-12)
    # draws with one shared factor (a single GEMM) have the right moments
    weft.seed(8)
    s = D.MultivariateNormal(_t(loc[0]), covariance_matrix=_t(cov)).sample([40000]).numpy()
    np.testing.assert_allclose(s.mean(0), loc[0], atol=0.1)
    np.testing.assert_allclose(np.cov(s.T), cov, rtol=0.05, atol=0.1)


def test_low_rank_with_zero_diagonal():
    rng = np.random.default_rng(1)
    w = rng.normal(size=(3, 3))
    dg = np.array([0.0, 1.0, 0.0])
    d = D.LowRankMultivariateNormal(_t(np.zeros(3)), _t(w), _t(dg))
    x = rng.normal(size=(4, 3))
    cov = w @ w.T + np.diag(dg)
    np.testing.assert_allclose(d.log_prob(_t(x)).numpy(),
                               stats.multivariate_normal(np.zeros(3), cov).logpdf(x), rtol=1e-10)
    np.testing.assert_allclose(d.entropy().numpy(),
                               stats.multivariate_normal(np.zeros(3), cov).entropy(), rtol=1e-12)


def test_transformed_distribution_specifics():
    with pytest.raises(TypeError):
        D.TransformedDistribution(D.Normal(0.0, 1.0), D.ExpTransform())
    td = D.TransformedDistribution(D.Normal(weft.zeros([3]), 1.0), [D.StickBreakingTransform()])
    assert td.batch_shape == () and td.event_shape == (4,)
    x = _t([-1.0, 0.5, 2.0])
    a = D.TransformedDistribution(D.Normal(_t(0.0), _t(1.0)), [D.AffineTransform(1.0, 2.0)])
    np.testing.assert_allclose(a.log_prob(x).numpy(), stats.norm(1, 2).logpdf(x.numpy()),
                               rtol=1e-12)
    # a decreasing chain: F(y) = 1 - F_base(f⁻¹(y))
    dec = D.TransformedDistribution(D.Normal(_t(0.0), _t(1.0)),
                                    [D.AffineTransform(_t(1.0), _t(-2.0)), D.ExpTransform()])
    y = _t([0.5, 2.0, 5.0])
    want = stats.norm.sf((np.log(y.numpy()) - 1) / -2.0)
    want = 1 - stats.norm.cdf((np.log(y.numpy()) - 1) / -2.0)
    np.testing.assert_allclose(dec.cdf(y).numpy(), want, rtol=1e-10)
    np.testing.assert_allclose(dec.icdf(dec.cdf(y)).numpy(), y.numpy(), rtol=1e-10)
    with pytest.raises(NotImplementedError, match="monotone"):
        D.TransformedDistribution(D.Normal(_t(0.0), _t(1.0)), [D.AbsTransform()]).cdf(y)
    for m in ("mean", "variance"):
        with pytest.raises(NotImplementedError):
            getattr(a, m)
    with pytest.raises(NotImplementedError):
        a.entropy()


def test_uniform_specifics():
    d = D.Uniform(_t(0.0), _t(1.0))
    lp = d.log_prob(_t([0.0, 0.5, 1.0, -0.1])).numpy()
    np.testing.assert_array_equal(lp, [0.0, 0.0, -np.inf, -np.inf])
    np.testing.assert_array_equal(d.prob(_t([1.0, 2.0])).numpy(), [0.0, 0.0])
    with pytest.raises(NotImplementedError):
        d.mode
    lo = weft.to_tensor(0.0, dtype="float64", stop_gradient=False)
    hi = weft.to_tensor(2.0, dtype="float64", stop_gradient=False)
    r = D.Uniform(lo, hi).rsample([10])
    g_lo, g_hi = weft.grad(r.sum(), [lo, hi])
    u = (r.numpy() - 0.0) / 2.0
    np.testing.assert_allclose([g_lo.item(), g_hi.item()], [(1 - u).sum(), u.sum()])


def test_validation_errors_name_the_parameter():
    D.set_validate_args(True)
    try:
        with pytest.raises(ValueError, match="'scale'"):
            D.Normal(0.0, -1.0)
        with pytest.raises(ValueError, match="low"):
            D.Uniform(1.0, 0.0)
        with pytest.raises(ValueError, match="support"):
            D.Exponential(1.0).log_prob(_t([-1.0], "float32"))
        with pytest.raises(ValueError, match="probability"):
            D.Normal(0.0, 1.0).icdf(_t([1.5], "float32"))
    finally:
        D.set_validate_args(False)
    with pytest.raises(TypeError):
        D.set_validate_args("yes")


# ----------------------------------------------------------------------------------
# LKJCholesky

def test_lkj_errors():
    with pytest.raises(ValueError, match="dim"):
        D.LKJCholesky(1)
    with pytest.raises(ValueError, match="`method` should be one of 'cvine' or 'onion'."):
        D.LKJCholesky(3, 1.0, "vine")
    d = D.LKJCholesky(3, 1.0)
    for m in ("mean", "variance"):
        with pytest.raises(NotImplementedError):
            getattr(d, m)
    for m in ("entropy", "rsample"):
        with pytest.raises(NotImplementedError):
            getattr(d, m)()


@pytest.mark.parametrize("method", ["onion", "cvine"])
@pytest.mark.parametrize("dim,eta", [(3, 1.0), (4, 0.7), (5, 2.5)])
def test_lkj_sampling_is_exact(method, dim, eta):
    """Every off-diagonal correlation is marginally 2·Beta(b, b) - 1 with
    b = η - 1 + dim/2 (Paddle's and PyTorch's samplers give var 0.30 for dim 3, η = 1;
    the exact value is 0.25)."""
    weft.seed(7)
    L = D.LKJCholesky(dim, _t(eta), method).sample([20000]).numpy()
    C = L @ np.swapaxes(L, -1, -2)
    np.testing.assert_allclose(np.diagonal(C, axis1=-2, axis2=-1), 1.0, atol=1e-12)
    b = eta - 1 + dim / 2
    for i, j in [(1, 0), (dim - 1, 0), (dim - 1, dim - 2)]:
        r = C[:, i, j]
        assert stats.kstest((r + 1) / 2, stats.beta(b, b).cdf).statistic < 0.015, (i, j)
        assert abs(r.var() - 1 / (2 * b + 1)) < 0.01


def test_lkj_log_prob_dim2_is_the_beta_density():
    eta = 1.7
    r = np.linspace(-0.9, 0.9, 7)
    L = np.zeros((7, 2, 2))
    L[:, 0, 0] = 1
    L[:, 1, 0] = r
    L[:, 1, 1] = np.sqrt(1 - r * r)
    got = D.LKJCholesky(2, _t(eta)).log_prob(_t(L)).numpy()
    want = stats.beta(eta, eta).logpdf((r + 1) / 2) - math.log(2)
    np.testing.assert_allclose(got, want, rtol=1e-10)


def test_lkj_log_prob_dim3_integrates_to_one():
    """The density of the free coordinates (L10; L20, L21 in the unit disk) integrates
    to one (midpoint rule on a grid)."""
    eta = 2.0
    n = 60
    a = (np.arange(n) + 0.5) / n * 2 - 1
    b, c = np.meshgrid(a, a, indexing="ij")
    inside = b * b + c * c < 1
    b, c = b[inside], c[inside]
    A = np.repeat(a, b.size)
    B = np.tile(b, n)
    Cc = np.tile(c, n)
    L = np.zeros((A.size, 3, 3))
    L[:, 0, 0] = 1
    L[:, 1, 0], L[:, 1, 1] = A, np.sqrt(1 - A * A)
    L[:, 2, 0], L[:, 2, 1], L[:, 2, 2] = B, Cc, np.sqrt(1 - B * B - Cc * Cc)
    dens = np.exp(D.LKJCholesky(3, _t(eta)).log_prob(_t(L)).numpy())
    total = dens.sum() * (2 / n) ** 3
    assert abs(total - 1) < 0.01, total


# ----------------------------------------------------------------------------------
# numerically hard corners

def test_continuous_bernoulli_near_one_half():
    d = D.ContinuousBernoulli(_t([0.5]))
    np.testing.assert_allclose(d.mean.numpy(), [0.5])
    np.testing.assert_allclose(d.variance.numpy(), [1 / 12], rtol=1e-12)
    x = _t([0.3])
    lo = D.ContinuousBernoulli(_t([0.499 - 1e-13])).log_prob(x).numpy()
    hi = D.ContinuousBernoulli(_t([0.499 + 1e-13])).log_prob(x).numpy()
    np.testing.assert_allclose(lo, hi, atol=1e-11)         # continuous across the cut
    np.testing.assert_allclose(d.log_prob(x).numpy(), [0.0], atol=1e-12)


def test_truncated_normal_far_tails():
    for lo, hi in [(8.0, 9.0), (-30.0, -29.0), (-np.inf, -12.0), (5.0, np.inf)]:
        d = D.TruncatedNormal(_t(0.0), _t(1.0), _t(lo), _t(hi))
        ref = stats.truncnorm(lo, hi)
        x = _t([min(max(lo, -35.0) + 0.3, hi - 0.01)]) if np.isfinite(lo) else _t([hi - 0.3])
        np.testing.assert_allclose(d.log_prob(x).numpy(), ref.logpdf(x.numpy()), rtol=1e-8)
        np.testing.assert_allclose(d.mean.numpy(), ref.mean(), rtol=1e-6)
        np.testing.assert_allclose(d.cdf(x).numpy(), ref.cdf(x.numpy()), rtol=1e-6)
        s = d.sample([200]).numpy()
        assert np.isfinite(s).all() and (s >= lo).all() and (s <= hi).all()


def test_truncated_normal_rsample_gradient_is_finite_in_the_tail():
    loc = weft.to_tensor(0.0, dtype="float64", stop_gradient=False)
    d = D.TruncatedNormal(loc, _t(1.0), _t(6.0), _t(7.0))
    (g,) = weft.grad(d.rsample([50]).sum(), loc)
    assert np.isfinite(g.item())


@pytest.mark.parametrize("lo, hi", [(40.0, 41.0), (50.0, 60.0), (-60.0, -50.0), (100.0, np.inf),
                                    (-np.inf, -100.0), (-1e3, 1e3)])
def test_truncated_normal_icdf_beyond_the_range_of_ndtr(lo, hi):
    # Phi underflows below -37.5: the icdf works in log space (logaddexp, ndtri_exp)
    d = D.TruncatedNormal(_t(0.0), _t(1.0), _t(lo), _t(hi))
    q = np.array([0.0, 1e-6, 0.01, 0.5, 0.99, 1 - 1e-9, 1.0])
    np.testing.assert_allclose(d.icdf(_t(q)).numpy(), stats.truncnorm(lo, hi).ppf(q),
                               rtol=1e-12, atol=0)


def test_truncated_normal_icdf_on_a_narrow_interval():
    # the density is flat to 1e-18 over [0, 1e-9]: the quantile is low + q (high - low)
    # to within the rounding of the cdf value near 1/2 (about 1e-16; scipy errs as much)
    d = D.TruncatedNormal(_t(0.0), _t(1.0), _t(0.0), _t(1e-9))
    q = np.array([0.0, 1e-6, 0.01, 0.5, 0.99, 1.0])
    x = d.icdf(_t(q)).numpy()
    np.testing.assert_allclose(x, q * 1e-9, rtol=0, atol=5e-16)


def test_truncated_normal_rsample_gradients_far_out():
    # every parameter, bounds 45 standard deviations out: finite, and as the numerical
    # derivative of the seeded draws says
    args = [weft.to_tensor([v], dtype="float64", stop_gradient=False)
            for v in (0.5, 1.5, 68.0, 70.0)]

    def draws(*a):
        weft.seed(3)
        return D.TruncatedNormal(*a).rsample([4])

    assert weft.autograd.gradcheck(draws, args)


def test_relaxed_categorical_argmax_is_categorical():
    p = np.array([0.2, 0.3, 0.5])
    weft.seed(2)
    x = D.RelaxedOneHotCategorical(_t(0.3), probs=_t(p)).sample([20000]).numpy()
    np.testing.assert_allclose(np.bincount(x.argmax(-1), minlength=3) / 20000, p, atol=0.015)
    np.testing.assert_allclose(x.sum(-1), 1.0, atol=1e-12)


def test_logistic_normal_samples_are_stick_broken_normals():
    loc, scale = np.array([0.3, -0.5]), np.array([1.0, 0.5])
    d = D.LogisticNormal(_t(loc), _t(scale))
    weft.seed(5)
    y = d.sample([20000])
    x = D.StickBreakingTransform().inverse(y).numpy()
    for i in range(2):
        assert stats.kstest(x[:, i], stats.norm(loc[i], scale[i]).cdf).statistic < 0.015
    assert D.LogisticNormal(0.0, 1.0).event_shape == (2,)


def test_mixture_with_multivariate_components():
    rng = np.random.default_rng(3)
    logits = rng.normal(size=(2, 3))
    loc = rng.normal(size=(2, 3, 4))
    mix = D.MixtureSameFamily(D.Categorical(_t(logits)),
                              D.Independent(D.Normal(_t(loc), _t(np.ones((2, 3, 4)))), 1))
    assert mix.batch_shape == (2,) and mix.event_shape == (4,)
    x = rng.normal(size=(5, 2, 4))
    w = np.exp(logits) / np.exp(logits).sum(-1, keepdims=True)
    comp = stats.norm(loc[None], 1).logpdf(x[:, :, None]).sum(-1)
    from scipy.special import logsumexp
    np.testing.assert_allclose(mix.log_prob(_t(x)).numpy(), logsumexp(comp + np.log(w), -1),
                               rtol=1e-12)
    np.testing.assert_allclose(mix.mean.numpy(), (w[..., None] * loc).sum(1), rtol=1e-12)
    assert mix.sample([6]).shape == [6, 2, 4]
    with pytest.raises(NotImplementedError):
        mix.cdf(_t(x))
    with pytest.raises(ValueError, match="Categorical"):
        D.MixtureSameFamily(D.Normal(0.0, 1.0), D.Normal(_t([0.0]), 1.0))
    with pytest.raises(ValueError, match="end with"):
        D.MixtureSameFamily(D.Categorical(_t([1.0, 1.0])), D.Normal(_t([0.0, 1.0, 2.0]), 1.0))


# ----------------------------------------------------------------------------------
# generic members: expand, enumerate_support, the exponential-family formulas

@pytest.mark.parametrize("make", [
    lambda: D.Normal(_t([0.0, 1.0]), _t([1.0, 2.0])),
    lambda: D.Bernoulli(_t([0.2, 0.7])),
    lambda: D.LogNormal(_t([0.0, 1.0]), _t([1.0, 0.5])),
    lambda: D.Gumbel(_t([0.0, 1.0]), _t([1.0, 0.5])),
    lambda: D.Independent(D.Normal(_t([[0.0, 1.0]]), _t(1.0)), 1),
    lambda: D.MultivariateNormal(_t([[0.0, 1.0]]), covariance_matrix=_t(np.eye(2))),
    lambda: D.OneHotCategorical(probs=_t([[0.2, 0.8]])),
])
def test_expand(make):
    d = make()
    new = (3,) + d.batch_shape if len(d.batch_shape) == 1 and d.batch_shape[0] > 1 else (3, 2)
    if d.batch_shape == (1,):
        new = (3, 4)
    e = d.expand(new)
    assert e.batch_shape == new and e.event_shape == d.event_shape
    v = d.sample([1])[0]
    lp = e.log_prob(v).numpy()
    assert lp.shape == new
    np.testing.assert_allclose(lp, np.broadcast_to(d.log_prob(v).numpy(), new), rtol=1e-12)
    assert e.sample([2]).shape == [2, *new, *d.event_shape]
    if d.batch_shape != (1,):
        with pytest.raises(ValueError, match="cannot be expanded"):
            d.expand((5, 7))


def test_enumerate_support():
    d = D.OneHotCategorical(probs=_t([[0.2, 0.8], [0.5, 0.5], [0.1, 0.9]]))
    s = d.enumerate_support()
    assert s.shape == [2, 3, 2]
    np.testing.assert_array_equal(s.numpy()[:, 0], np.eye(2))
    assert d.enumerate_support(expand=False).shape == [2, 1, 2]
    c = D.Categorical(_t([[1.0, 2.0, 3.0]]))
    np.testing.assert_array_equal(c.enumerate_support().numpy(), [[0], [1], [2]])
    with pytest.raises(NotImplementedError):
        D.Normal(0.0, 1.0).enumerate_support()


@pytest.mark.parametrize("make", [
    lambda: D.Bernoulli(_t([0.2, 0.7])),
    lambda: D.Exponential(_t([0.5, 3.0])),
    lambda: D.ContinuousBernoulli(_t([0.2, 0.7])),
])
def test_exponential_family_generic_formulas(make):
    """The autograd-based entropy and Bregman KL agree with the closed forms."""
    d = make()
    np.testing.assert_allclose(D.ExponentialFamily.entropy(d).numpy(), d.entropy().numpy(),
                               rtol=1e-10)
    other = type(d)(_t([0.4, 0.9]))
    kl = D.kl._kl_expfamily_expfamily(d, other).numpy()
    # KL by quadrature/summation of the densities
    if isinstance(d, D.Bernoulli):
        p, q = d.probs.numpy(), other.probs.numpy()
        want = p * np.log(p / q) + (1 - p) * np.log((1 - p) / (1 - q))
    else:
        from scipy.integrate import quad
        want = []
        for i in range(2):
            hi = 1.0 if isinstance(d, D.ContinuousBernoulli) else np.inf

            def f(x, i=i):
                lp = d.log_prob(_t([x] * 2)).numpy()[i]
                lq = other.log_prob(_t([x] * 2)).numpy()[i]
                return np.exp(lp) * (lp - lq)
            want.append(quad(f, 0, hi)[0])
    np.testing.assert_allclose(kl, want, rtol=1e-6)


@pytest.mark.parametrize("make,ref", [
    (lambda: D.Normal(_t(0.5), _t(2.0)), stats.norm(0.5, 2.0)),
    (lambda: D.Laplace(_t(0.5), _t(2.0)), stats.laplace(0.5, 2.0)),
    (lambda: D.Cauchy(_t(0.5), _t(2.0)), stats.cauchy(0.5, 2.0)),
    (lambda: D.Gumbel(_t(0.5), _t(2.0)), stats.gumbel_r(0.5, 2.0)),
    (lambda: D.Exponential(_t(2.0)), stats.expon(scale=0.5)),
    (lambda: D.LogNormal(_t(0.5), _t(0.7)), stats.lognorm(0.7, scale=np.exp(0.5))),
])
def test_cdf_and_icdf_in_the_tails(make, ref):
    """Relative accuracy where the cdf is tiny or close to one (no cancellation)."""
    d = make()
    q = np.array([1e-300, 1e-30, 1e-10, 1e-3, 0.5, 1 - 1e-3, 1 - 1e-10])
    x = ref.ppf(q)
    np.testing.assert_allclose(d.icdf(_t(q)).numpy(), x, rtol=1e-9)
    keep = np.isfinite(x)
    np.testing.assert_allclose(d.cdf(_t(x[keep])).numpy(), ref.cdf(x[keep]), rtol=1e-9)
    np.testing.assert_allclose(d.log_prob(_t(x[keep])).numpy(), ref.logpdf(x[keep]), rtol=1e-9)


def test_complex_parameters_are_refused_outside_normal_loc():
    for make in (lambda: D.Uniform(1j, 2.0), lambda: D.Laplace(0.0, np.array([1j])),
                 lambda: D.Normal(0.0, 1j)):
        with pytest.raises(TypeError, match="real"):
            make()


@pytest.mark.parametrize("dtype,rtol", [("float32", 1e-6), ("float64", 1e-13)])
def test_continuous_bernoulli_moments_near_one_half(dtype, rtol):
    """The closed-form mean and variance subtract two terms of size ~1/(2p - 1); near
    p = ½ (outside the Taylor window ``lims``) they lost four digits in float32. Against
    the same closed forms evaluated with 50 digits (mpmath)."""
    mpmath = pytest.importorskip(
        "mpmath", reason="mpmath (installed with sympy, a test extra) gives the 50-digit reference")
    mpmath.mp.dps = 50
    ps = np.array([0.5, 0.4995, 0.5044, 0.55, 0.7499, 0.75, 0.76, 0.9, 0.3, 0.26, 0.01],
                  dtype=dtype)
    d = D.ContinuousBernoulli(weft.to_tensor(ps))
    mean, var = d.mean.numpy(), d.variance.numpy()
    for i, p in enumerate(ps):
        p = mpmath.mpf(float(p))
        if p == 0.5:
            want_m, want_v = mpmath.mpf(1) / 2, mpmath.mpf(1) / 12
        else:
            lr = mpmath.log(1 - p) - mpmath.log(p)
            want_m = p / (2 * p - 1) + 1 / lr
            want_v = p * (p - 1) / (1 - 2 * p) ** 2 + 1 / lr ** 2
        assert abs(float(mean[i]) - float(want_m)) <= rtol * float(want_m), (float(p), mean[i])
        # float32's variance keeps ~6 digits where the closed form takes over (|p - ½| = ¼)
        assert abs(float(var[i]) - float(want_v)) <= 10 * rtol * float(want_v), (float(p), var[i])
