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
