"""The shape derivatives of the regularized incomplete beta (weft/ops/_ibeta_shape.py,
csrc/special/ibeta_shape.cpp) against mpmath, against finite differences of scipy, and
the native kernel against the array code (the CuPy path, run here on numpy)."""
import numpy as np
import pytest
import scipy.special as sps
from hypothesis import given, settings
from hypothesis import strategies as st

import weft
from weft.ops import _ibeta_shape
from tests._threads import assert_same_on_1_and_2_threads

mpmath = pytest.importorskip("mpmath", reason="mpmath gives the reference derivatives")

ORDERS = [(1, 0), (0, 1), (2, 0), (1, 1), (0, 2)]


def _mp_by_diff(a, b, x, da, db):
    # mpmath's own incomplete beta (hypergeometric series) differentiated numerically
    # in 40-digit arithmetic; fine for moderate shapes
    def f(s, t):
        return mpmath.betainc(s, t, 0, x, regularized=True)
    with mpmath.workdps(40):
        return float(mpmath.diff(f, (mpmath.mpf(a), mpmath.mpf(b)), (da, db)))


def _mp_by_quadrature(a, b, x, da, db):
    # d^k I / da^i db^j = int_0^x p(t) * (d^k p / da^i db^j)(t) / p(t) dt, where the
    # ratio is a polynomial in m_a = log t - psi(a) + psi(a+b), m_b = log(1-t) - psi(b)
    # + psi(a+b); the interval is split at +-2k standard deviations about the mean so
    # that the narrow peak of large shapes is resolved (mpmath's hypergeometric series
    # does not converge there)
    with mpmath.workdps(30):
        a, b, x = mpmath.mpf(a), mpmath.mpf(b), mpmath.mpf(x)
        s = a + b
        ca, cb = mpmath.digamma(s) - mpmath.digamma(a), mpmath.digamma(s) - mpmath.digamma(b)
        ta, tb, ts = mpmath.psi(1, a), mpmath.psi(1, b), mpmath.psi(1, s)
        lb = mpmath.log(mpmath.beta(a, b))

        def f(t):
            ma, mb = mpmath.log(t) + ca, mpmath.log1p(-t) + cb
            poly = {(1, 0): ma, (0, 1): mb, (2, 0): ma * ma - ta + ts, (1, 1): ma * mb + ts,
                    (0, 2): mb * mb - tb + ts}[(da, db)]
            return mpmath.exp((a - 1) * mpmath.log(t) + (b - 1) * mpmath.log1p(-t) - lb) * poly
        mean, sd = a / s, mpmath.sqrt(a * b / (s * s * (s + 1)))
        cuts = [mean + k * sd for k in range(-40, 41, 2) if 0 < mean + k * sd < x]
        return float(mpmath.quad(f, [0] + cuts + [x]))


# shapes from 1e-3 to 1e5; x at both ends, about the mean, on both sides of the switch
# x = (a+1)/(a+b+2) and of the series/fraction choice; the Stirling forms start at 10
MODERATE = [(2.0, 3.0, 0.4), (0.5, 0.5, 0.1), (0.5, 0.5, 0.9), (1e-3, 1e-3, 0.5),
            (1e-3, 2.0, 0.3), (5.0, 1e-3, 0.999), (30.0, 40.0, 0.45), (200.0, 300.0, 0.41),
            (0.1, 50.0, 1e-3), (50.0, 0.1, 0.99), (3.0, 4.0, 1e-8), (3.0, 4.0, 1.0 - 1e-9),
            (9.99, 10.01, 0.52), (12.0, 0.7, 0.97),
            # tiny shapes: the prefix's 1/a^2 terms must not cancel in second derivatives
            (1e-8, 2.0, 0.3), (2.0, 1e-8, 0.3), (1e-20, 3.0, 0.5), (1e-300, 1.0, 0.5)]
LARGE = [(1e3, 1e3, 0.49), (1e4, 2e4, 0.336), (1e5, 1e5, 0.4995), (1e5, 3.0, 0.99997),
         (2.5, 1e5, 2e-5), (1e5, 50.0, 0.9995)]


def _check(a, b, x, ref, native):
    # measured worst relative errors on this grid: 7e-13 first order, 3e-11 second order
    # (both paths); the tolerances leave a margin of ~100. A second derivative can cross
    # 0 (d2I/da db at a = b, x = 1/2): there it is held to 1e-13 of the largest one.
    want = {o: ref(a, b, x, *o) for o in ORDERS}
    scale2 = max(abs(want[o]) for o in ORDERS[2:])
    for (da, db), w in want.items():
        got = float(_ibeta_shape.shape_derivative(np.array(a), np.array(b), np.array(x),
                                                  da, db, native))
        if da + db == 1:
            assert got == pytest.approx(w, rel=1e-10), (da, db)
        else:
            assert got == pytest.approx(w, rel=5e-9, abs=1e-13 * scale2), (da, db)


@pytest.mark.parametrize("a,b,x", MODERATE)
@pytest.mark.parametrize("native", [True, False], ids=["native", "array"])
def test_against_mpmath(a, b, x, native):
    _check(a, b, x, _mp_by_diff, native)


@pytest.mark.parametrize("a,b,x", LARGE)
def test_large_shapes_against_mpmath_quadrature(a, b, x):
    _check(a, b, x, _mp_by_quadrature, True)


def test_against_finite_differences_of_scipy():
    # a broad derandomized grid, shapes 0.05 .. 500, x over the bulk of the law
    rng = np.random.default_rng(7)
    n = 400
    a = np.exp(rng.uniform(np.log(0.05), np.log(500.0), n))
    b = np.exp(rng.uniform(np.log(0.05), np.log(500.0), n))
    x = sps.betaincinv(a, b, rng.uniform(0.02, 0.98, n))
    ha, hb = 1e-5 * a, 1e-5 * b
    fd_a = (sps.betainc(a + ha, b, x) - sps.betainc(a - ha, b, x)) / (2 * ha)
    fd_b = (sps.betainc(a, b + hb, x) - sps.betainc(a, b - hb, x)) / (2 * hb)
    np.testing.assert_allclose(_ibeta_shape.shape_derivative(a, b, x, 1, 0), fd_a,
                               rtol=1e-5, atol=1e-9)
    np.testing.assert_allclose(_ibeta_shape.shape_derivative(a, b, x, 0, 1), fd_b,
                               rtol=1e-5, atol=1e-9)


@settings(max_examples=40, derandomize=True, deadline=None)
@given(la=st.floats(-6.0, 11.0), lb=st.floats(-6.0, 11.0), u=st.floats(0.0, 1.0),
       order=st.sampled_from(ORDERS))
def test_native_and_array_code_agree(la, lb, u, order):
    # shapes e^-6 .. e^11 (6e4); x the u-quantile, so every region and both sides occur
    a, b = np.array([np.exp(la)]), np.array([np.exp(lb)])
    x = np.clip(sps.betaincinv(a, b, np.array([u])), 0.0, 1.0)
    l1, r1 = _ibeta_shape.scaled_shape_derivs(a, b, x, *order, native=True)
    l2, r2 = _ibeta_shape.scaled_shape_derivs(a, b, x, *order, native=False)
    np.testing.assert_allclose(l1, l2, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(r1, r2, rtol=1e-9, atol=1e-300)


@pytest.mark.parametrize("native", [True, False], ids=["native", "array"])
def test_edges(native):
    a = np.array([2.0, 2.0, 0.0, -1.0, np.inf, np.nan, 2.0, 2.0, 1e-200, 1e14])
    b = np.array([3.0, 3.0, 1.0, 1.0, 1.0, 1.0, 3.0, 3.0, 1e-200, 1e14])
    x = np.array([0.0, 1.0, 0.5, 0.5, 0.5, 0.5, -0.1, 1.1, 0.5, 0.5])
    if not native:  # the array code would take its 50000 steps in Python first
        a, b, x = a[:-1], b[:-1], x[:-1]
    for order in ORDERS:
        out = _ibeta_shape.shape_derivative(a, b, x, *order, native=native)
        assert out[0] == 0 and out[1] == 0           # I is constant 0 / 1 there
        # outside the domain, and a b < 1e-300 (the scaled result would overflow)
        assert np.isnan(out[2:9]).all()
        # shapes of 1e14 need ~2e7 steps of the fraction: NaN, not a silent guess
        assert out.size == 9 or np.isnan(out[9])
    # the quantile ratio is 0 at the ends and -dz/da inside
    z = np.array([0.0, 1.0, 0.3])
    r = _ibeta_shape.quantile_ratio(np.full(3, 2.0), np.full(3, 3.0), z, 1, 0, native=native)
    dens = np.exp(sps.xlogy(1.0, 0.3) + sps.xlog1py(2.0, -0.3) - sps.betaln(2.0, 3.0))
    assert r[0] == 0 and r[1] == 0
    assert r[2] == pytest.approx(_ibeta_shape.shape_derivative(2.0, 3.0, 0.3, 1, 0) / dens,
                                 rel=1e-13)
    with pytest.raises(ValueError, match=r"\(da, db\) must be one of"):
        _ibeta_shape.shape_derivative(a, b, x, 1, 2, native=native)


def test_tails_stay_finite_for_the_quantile_gradient():
    # far in the tails both dI/da and the density underflow; their ratio does not
    a = weft.to_tensor(np.array([2.0, 40.0, 0.3]), stop_gradient=False)
    b = weft.to_tensor(np.array([3.0, 50.0, 0.2]), stop_gradient=False)
    q = weft.to_tensor(np.array([1e-300, 1e-200, 1.0 - 1e-16]))
    z = weft.betaincinv(a, b, q)
    ga, gb = weft.grad(z.sum(), [a, b])
    assert np.isfinite(ga.numpy()).all() and np.isfinite(gb.numpy()).all()
    # the lower tail: I ~ x^a / (a B) so z ~ (q a B)^(1/a), dz/da from that expansion
    zs = z.numpy()[0]
    h = 1e-6
    approx = lambda s: (1e-300 * s * np.exp(sps.betaln(s, 3.0))) ** (1.0 / s)  # noqa: E731
    assert ga.numpy()[0] == pytest.approx((approx(2.0 + h) - approx(2.0 - h)) / (2 * h),
                                          rel=1e-5)
    assert zs == pytest.approx(approx(2.0), rel=1e-10)


def test_third_order_in_the_shapes_raises():
    a = weft.to_tensor(2.0, dtype="float64", stop_gradient=False)
    b = weft.to_tensor(3.0, dtype="float64", stop_gradient=False)
    x = weft.to_tensor(0.4, dtype="float64", stop_gradient=False)
    for fn, op in ((weft.betainc, "betainc"), (weft.betaincinv, "betaincinv")):
        (g,) = weft.grad(fn(a, b, x), a, create_graph=True)
        (h,) = weft.grad(g, b, create_graph=True)
        with pytest.raises(NotImplementedError, match=f"{op}: derivatives of order 3 and more "
                                                      "with respect to the shape"):
            weft.grad(h, a, retain_graph=True)
        # the last argument is not limited: d3 / da db dx
        (hx,) = weft.grad(h, x)
        assert np.isfinite(hx.item())


def test_native_result_does_not_depend_on_the_thread_count():
    rng = np.random.default_rng(3)
    n = 3000
    a, b = np.exp(rng.uniform(-3, 6, n)), np.exp(rng.uniform(-3, 6, n))
    x = rng.uniform(0, 1, n)
    assert_same_on_1_and_2_threads(lambda: _ibeta_shape.scaled_shape_derivs(a, b, x, 1, 1)[:2])
