"""ndtri_exp: the array code CuPy uses (no ndtri_exp in cupyx) against scipy's."""
import numpy as np
import pytest
import scipy.special as sps

import weft
from weft.ops.special import _ndtri_exp_newton


@pytest.mark.parametrize("dtype, top, rtol", [("float64", 7e2, 1e-12), ("float32", 80.0, 2e-6)])
def test_newton_fallback_matches_scipy(dtype, top, rtol):
    y = -np.concatenate([np.logspace(-25, np.log10(top), 300), [1e4]]).astype(dtype)
    got = _ndtri_exp_newton(y, sps)
    want = sps.ndtri_exp(y.astype("float64"))
    assert got.dtype == y.dtype
    np.testing.assert_allclose(got, want.astype(dtype), rtol=rtol, atol=0)


def test_newton_fallback_edges():
    y = np.array([-np.inf, 0.0, 1.0, np.nan])
    got = _ndtri_exp_newton(y, sps)
    assert got[0] == -np.inf and got[1] == np.inf
    assert np.isnan(got[2]) and np.isnan(got[3])


def test_far_tail_value_and_gradient():
    y = weft.to_tensor([-800.0, -5.0, -1e-12], dtype="float64", stop_gradient=False)
    x = weft.ndtri_exp(y)
    np.testing.assert_allclose(x.numpy(), sps.ndtri_exp(y.numpy()), rtol=1e-14)
    (g,) = weft.grad(x.sum(), y)
    # dx/dy = Phi(x) / phi(x) = exp(y - log phi(x))
    xv = x.numpy()
    want = np.exp(y.numpy() + 0.5 * xv * xv + 0.5 * np.log(2 * np.pi))
    np.testing.assert_allclose(g.numpy(), want, rtol=1e-12)
