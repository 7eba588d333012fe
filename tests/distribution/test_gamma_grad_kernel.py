"""weft._C.gamma_sample_grad, the implicit-reparameterisation gradient of Gamma draws,
runs the continued fraction four draws of one shape at a time; each lane must give
exactly the scalar loop's result (gamma_shape_derivs runs that loop one draw at a
time), whatever the mix of shapes, regions and special values, and for both
stopping tolerances (float32 and float64 results). Accuracy itself is checked against
scipy in tests/ops/test_standard_gamma.py."""
import numpy as np
import pytest

from weft._native import extension


def _scalar(a, z, eps):
    a, z = (np.ascontiguousarray(v, dtype=np.float64) for v in np.broadcast_arrays(a, z))
    lp, r = np.empty_like(z), np.empty_like(z)
    extension.gamma_shape_derivs(a.ravel(), z.ravel(), 1, lp.ravel(), r.ravel(), eps)
    with np.errstate(invalid="ignore"):
        return np.where(lp == -np.inf, 0.0, -z * r)


def _lanes(a, z, eps):
    out = np.empty_like(z)
    extension.gamma_sample_grad(np.ascontiguousarray(a), z, out, eps)
    return out


@pytest.mark.parametrize("eps", [1e-9, 1e-16])
@pytest.mark.parametrize("alpha", [0.3, 2.5, 40.0])
def test_one_shape_matches_the_scalar_loop(eps, alpha):
    rng = np.random.default_rng(int(alpha * 10))
    z = rng.standard_gamma(alpha, 4099)       # not a multiple of the lane count
    z[::97] = alpha + 1.0                     # the boundary between the methods
    a = np.array([alpha])
    np.testing.assert_array_equal(_lanes(a, z, eps), _scalar(a, z, eps))


@pytest.mark.parametrize("eps", [1e-9, 1e-16])
def test_mixed_shapes_and_special_values_match_the_scalar_loop(eps):
    rng = np.random.default_rng(7)
    n = 3001
    # runs of equal shapes of varying length, some alternating element by element
    a = np.repeat(rng.uniform(0.2, 30.0, 900), rng.integers(1, 15, 900))[:n]
    a[:50] = np.tile([1.5, 7.0], 25)
    a[60:70] = [700.0, np.nan, -1.0, 0.0, np.inf, 2.0, 2.0, 2.0, 2.0, 2.0]
    z = rng.standard_gamma(np.where(np.isfinite(a) & (a > 0), a, 1.0))
    z[70:80] = [0.0, np.inf, np.nan, -1.0, 1e-300, 1e300, 3.0, 3.0, 3.0, 3.0]
    np.testing.assert_array_equal(_lanes(a, z, eps), _scalar(a, z, eps))


@pytest.mark.parametrize("alpha", [0.3, 2.5, 40.0])
def test_float32_draws_round_the_float64_result_once(alpha):
    rng = np.random.default_rng(3)
    z32 = rng.standard_gamma(alpha, 2001).astype(np.float32)
    z32[:4] = [0.0, np.inf, np.nan, alpha + 1.0]
    a = np.array([alpha])
    want = _lanes(a, z32.astype(np.float64), 1e-9).astype(np.float32)
    out = np.empty_like(z32)
    extension.gamma_sample_grad(a, z32, out, 1e-9)
    np.testing.assert_array_equal(out, want)


def test_dtype_errors():
    a, z = np.array([2.0]), np.ones(3)
    with pytest.raises(TypeError, match="gamma_sample_grad: out must have z's dtype"):
        extension.gamma_sample_grad(a, z, np.empty(3, np.float32), 1e-9)
    with pytest.raises(TypeError, match="gamma_sample_grad: z must be float64 or float32"):
        extension.gamma_sample_grad(a, z.astype(np.int64), np.empty(3, np.int64), 1e-9)
    with pytest.raises(TypeError, match="gamma_sample_grad: a must be float64"):
        extension.gamma_sample_grad(a.astype(np.float32), z, np.empty(3), 1e-9)


def test_underflowed_draws_are_raised_and_do_not_move():
    # Gamma(0.02) draws underflow to 0 in float32 about a tenth of the time; rsample
    # raises them to the smallest normal number, and their gradient is 0
    import weft
    from weft.distribution import Gamma
    from weft.ops import _igamma_shape

    weft.seed(3)
    a = weft.to_tensor(np.float32(0.02), stop_gradient=False)
    x = Gamma(a, weft.to_tensor(np.float32(1.0))).rsample([4000])
    xv = x.numpy()
    tiny = np.finfo(np.float32).tiny
    raised = xv == tiny
    assert xv.min() == tiny and raised.sum() > 50
    (g_raised,) = weft.grad(x, [a], grad_outputs=[weft.to_tensor(raised.astype(np.float32))],
                            retain_graph=True)
    assert float(g_raised) == 0.0
    (g_rest,) = weft.grad(x, [a], grad_outputs=[weft.to_tensor((~raised).astype(np.float32))])
    want = _igamma_shape.gamma_sample_grad(np.float32(0.02), xv)[~raised].astype(np.float64).sum()
    np.testing.assert_allclose(float(g_rest), want, rtol=1e-5)


def test_sum_cotangent_shortcut_matches_the_full_product_to_second_order():
    # the cotangent of a sum is one number broadcast: standard_gamma's rule then sums the
    # gradient itself; first and second derivatives equal those of a full cotangent
    import weft
    from weft.distribution import Gamma

    res = []
    for broadcast in (True, False):
        weft.seed(5)
        a = weft.to_tensor(np.float64(1.7), stop_gradient=False)
        x = Gamma(a, weft.to_tensor(np.float64(2.0))).rsample([50])
        loss = x.sum() if broadcast else (x * weft.ones_like(x)).sum()
        (g,) = weft.grad(loss, [a], create_graph=True)
        (h,) = weft.grad(g, [a])
        assert g.shape == a.shape
        res.append((float(g), float(h)))
    np.testing.assert_allclose(res[0], res[1], rtol=1e-12)
