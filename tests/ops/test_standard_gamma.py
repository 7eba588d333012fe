"""standard_gamma: distribution, reproducibility and the implicit reparameterisation
gradient; the accuracy of gammainc's shape derivative against mpmath."""
import mpmath
import numpy as np
import pytest
import scipy.special as sps
import scipy.stats as st

import weft
from weft.ops import _igamma_shape


@pytest.mark.parametrize("alpha", [0.3, 1.0, 4.5, 60.0])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_distribution_matches_scipy(alpha, dtype):
    weft.seed(3)
    z = weft.standard_gamma(weft.full([20000], alpha, dtype=dtype))
    assert z.dtype == np.dtype(dtype) and z.shape == [20000]
    assert st.kstest(z.numpy().astype(np.float64), st.gamma(alpha).cdf).statistic < 0.02


def test_reproducible_and_shapes():
    a = weft.to_tensor([[0.5, 2.0], [3.0, 7.0]])
    weft.seed(11)
    z1 = weft.standard_gamma(a)
    weft.seed(11)
    z2 = weft.standard_gamma(a)
    assert np.array_equal(z1.numpy(), z2.numpy()) and z1.shape == [2, 2]
    assert weft.standard_gamma(weft.zeros([0, 3])).shape == [0, 3]
    assert weft.standard_gamma(weft.to_tensor(2.0)).shape == []
    assert z1.stop_gradient  # no parameter needs a gradient


def test_errors():
    with pytest.raises(ValueError, match="standard_gamma: the concentration must be non-negative"):
        weft.standard_gamma(weft.to_tensor([-1.0, 2.0]))
    with pytest.raises(TypeError, match="standard_gamma: x must be a floating tensor"):
        weft.standard_gamma(weft.to_tensor([1, 2]))


def test_implicit_gradient_is_the_quantile_derivative():
    # z = F^-1(u; a) for the u that z has: dz/da at fixed u is what the rule returns
    weft.seed(5)
    a = weft.to_tensor([0.05, 0.4, 1.0, 3.0, 11.0, 25.0, 300.0], dtype="float64",
                       stop_gradient=False)
    z = weft.standard_gamma(a)
    (g,) = weft.grad(z.sum(), a)
    an, zn = a.numpy(), z.numpy()
    u = sps.gammainc(an, zn)
    h = 1e-6 * an
    fd = (sps.gammaincinv(an + h, u) - sps.gammaincinv(an - h, u)) / (2 * h)
    np.testing.assert_allclose(g.numpy(), fd, rtol=1e-5)


@pytest.mark.parametrize("alpha", [0.7, 2.5])
def test_gradient_of_expectations(alpha):
    # d/da E[z] = 1 and d/da E[z^2] = d/da a(a+1) = 2a + 1; Monte-Carlo with 2e5 draws
    weft.seed(1)
    a = weft.to_tensor(alpha, dtype="float64", stop_gradient=False)
    z = weft.standard_gamma(weft.expand(a, [200000]))
    (g1,) = weft.grad(z.mean(), a, retain_graph=True)
    (g2,) = weft.grad((z * z).mean(), a)
    assert abs(g1.item() - 1.0) < 0.02
    assert abs(g2.item() - (2 * alpha + 1)) / (2 * alpha + 1) < 0.03


def test_second_derivative_of_sample():
    # z(a) = gammaincinv(a, u) at fixed u: d2z/da2 against a central difference of the
    # accurate first derivative
    weft.seed(2)
    a = weft.to_tensor([0.6, 4.0, 30.0], dtype="float64", stop_gradient=False)
    z = weft.standard_gamma(a)
    (g,) = weft.grad(z.sum(), a, create_graph=True)
    (gg,) = weft.grad(g.sum(), a)
    an = a.numpy()
    u = sps.gammainc(an, z.numpy())

    def dz(aa):
        return _igamma_shape.gamma_sample_grad(aa, sps.gammaincinv(aa, u))
    h = 1e-5 * an
    np.testing.assert_allclose(gg.numpy(), (dz(an + h) - dz(an - h)) / (2 * h), rtol=1e-5)


def _mp_shape_derivative(a, x, k):
    # the lower power series in 120-digit arithmetic, differentiated numerically by mpmath
    def p(aa):
        t = s = mpmath.mpf(1)
        n = 0
        while t > s * mpmath.mpf(10) ** -110:
            n += 1
            t = t * x / (aa + n)
            s += t
        return mpmath.exp(aa * mpmath.log(x) - x - mpmath.loggamma(aa + 1)) * s
    with mpmath.workdps(120):
        return float(mpmath.diff(p, mpmath.mpf(a), k, h=mpmath.mpf(10) ** -30))


@pytest.mark.parametrize("a,x", [(1e-3, 3e-4), (0.05, 2.0), (0.3, 0.9), (0.9, 5.0), (2.5, 2.25),
                                 (7.0, 7.35), (11.9, 59.5), (12.0, 10.8), (30.0, 0.003),
                                 (150.0, 135.0), (150.0, 300.0), (2000.0, 2100.0)])
@pytest.mark.parametrize("native", [True, False], ids=["native", "array"])
def test_shape_derivative_against_mpmath(a, x, native):
    # measured worst relative error over a 108-point grid: 2.5e-12 (first derivative);
    # the second loses digits to cancellation near the mode for large a (3e-8 at a=2000).
    # The native kernel (CPU) and the array code (CuPy, here run on numpy) both.
    for k, rtol in ((1, 1e-11), (2, 1e-7)):
        got = float(_igamma_shape.shape_derivative(np.array(a), np.array(x), k, native))
        assert got == pytest.approx(_mp_shape_derivative(a, x, k), rel=rtol)


def test_native_and_array_implementations_agree():
    rng = np.random.default_rng(0)
    a = np.exp(rng.uniform(np.log(1e-3), np.log(1e5), 3000))
    x = a * np.exp(rng.normal(0, 1, 3000) / np.sqrt(a + 1)) * rng.choice([1, 1, 0.01, 3], 3000)
    for k, rtol in ((1, 1e-9), (2, 1e-7)):
        l1, r1 = _igamma_shape.scaled_shape_derivs(a, x, k, native=True)
        l2, r2 = _igamma_shape.scaled_shape_derivs(a, x, k, native=False)
        # lp cancels a log x - x against lgamma(a) (1e6 at a = 1e5): equal to rounding
        np.testing.assert_allclose(l1, l2, rtol=1e-14, atol=1e-9)
        np.testing.assert_allclose(r1, r2, rtol=rtol)


@pytest.mark.parametrize("native", [True, False], ids=["native", "array"])
def test_shape_derivative_edges(native):
    out = _igamma_shape.shape_derivative(np.array([2.0, 2.0, 0.0, -1.0]),
                                         np.array([0.0, np.inf, 1.5, 1.0]), 1, native)
    assert out[0] == 0 and out[1] == 0
    assert out[2] == pytest.approx(-sps.exp1(1.5))
    assert np.isnan(out[3])
