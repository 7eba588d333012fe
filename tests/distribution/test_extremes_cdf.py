"""cdf/icdf of the incomplete-beta families (StudentT, FisherSnedecor, Binomial, Beta)
at extreme but valid inputs, against mpmath (closed forms, sums or root-finding at 40
to 50 digits) or scipy where it is accurate; and gradcheck (float64) of the branches these
use: the complementary side where an argument rounds to 1, the leading term of the
series where it underflows, the correction of Binomial's rounded ``1 - p``.

Each reference is evaluated at the inputs and parameters as the distribution sees
them (rounded to its dtype)."""
from __future__ import annotations

import mpmath as mp
import numpy as np
import pytest
from scipy import special, stats

import weft
import weft.distribution as D
from weft.autograd import gradcheck

from .test_extremes import F32, F64, RTOL, _mp, _t


def _ibeta(a, b, x):
    return mp.betainc(mp.mpf(float(a)), mp.mpf(float(b)), 0, x, regularized=True)


def _mp_t_cdf(df):
    """½ I_{df/(df+t²)}(df/2, ½) below 0 (Cauchy: -atan(1/t)/π, without the
    cancellation of ½ + atan(t)/π)."""
    def f(t):
        if df == 1:
            return -mp.atan(1 / t) / mp.pi if t < 0 else mp.mpf(0.5) + mp.atan(t) / mp.pi
        lower = _ibeta(df / 2, 0.5, df / (df + t * t)) / 2
        return lower if t < 0 else 1 - lower
    return f


def _mp_f_cdf(d1, d2):
    """I_t(d1/2, d2/2) with t = d1 x/(d1 x + d2), as 1 - I_{1-t}(d2/2, d1/2) above ½."""
    def f(x):
        t = d1 * x / (d1 * x + d2)
        if t < 0.5:
            return _ibeta(d1 / 2, d2 / 2, t)
        return 1 - _ibeta(d2 / 2, d1 / 2, d2 / (d1 * x + d2))
    return f


def _mp_quantile(cdf, lo=-1500, hi=1500):
    """The x with cdf(x) = q for an increasing cdf on (0, inf), by bisection on
    log x (200 steps: far below 1e-10 relative)."""
    def f(q):
        a, b = mp.mpf(lo), mp.mpf(hi)
        for _ in range(200):
            m = (a + b) / 2
            a, b = (m, b) if cdf(mp.exp(m)) < q else (a, m)
        return mp.exp((a + b) / 2)
    return f


def _mp_f_quantile(d1, d2):
    return _mp_quantile(_mp_f_cdf(d1, d2))


def _mp_binom_sf(n, p):
    """P(X > k), summed term by term until the terms fall below 1e-45 of the sum."""
    def f(k):
        k = int(k)
        if k >= n:
            return mp.mpf(0)
        pp, j = mp.mpf(float(p)), k + 1
        term = mp.exp(mp.loggamma(n + 1) - mp.loggamma(j + 1) - mp.loggamma(n - j + 1)
                      + j * mp.log(pp) + (n - j) * mp.log1p(-pp))
        total = mp.mpf(0)
        while j <= n and term > total * mp.mpf(10) ** -45:
            total += term
            term *= mp.mpf(n - j) / (j + 1) * pp / (1 - pp)
            j += 1
        return total
    return f


def _student(df, loc=0.0, scale=1.0):
    return lambda dt: D.StudentT(_t([df], dt), _t([loc], dt), _t([scale], dt))


def _fisher(d1, d2):
    return lambda dt: D.FisherSnedecor(_t([d1], dt), _t([d2], dt))


def _beta(a, b):
    return lambda dt: D.Beta(_t([a], dt), _t([b], dt))


CASES = [
    # t² overflowed: float32 beyond |t| = 2e19, float64 beyond 1e154 (cdf 0 and 1)
    ("StudentT-f32-tiny-scale", _student(1.0, 0.0, 1e-30), F32, "cdf",
     [-1e-10, -1e-20, 1e-25, 1e-10], lambda x: _mp(_mp_t_cdf(1), np.asarray(x) / F32(1e-30))),
    ("StudentT-f64-huge-t", _student(1.0), F64, "cdf", [-1e200, -1e160, -3.0, 1e200],
     lambda x: _mp(_mp_t_cdf(1), x)),
    ("StudentT-f64-huge-t-df3", _student(3.0), F64, "cdf", [-1e100, -1e160],
     lambda x: _mp(_mp_t_cdf(3), x)),
    # the lower tail of a large df was 1/2 - I/2 with I rounding to 1 (0 at t = -10);
    # float32's own incomplete beta was 4% off at t = -5
    ("StudentT-huge-df-tail", _student(1e6), F64, "cdf", [-10.0, -30.0, -5.0, 2.0],
     lambda x: stats.t(1e6).cdf(x)),
    ("StudentT-huge-df-f32", _student(1e6), F32, "cdf", [-5.0, -3.0, 0.125, 4.0],
     lambda x: stats.t(1e6).cdf(x)),
    # 1/(1 + t²/df) = 1e-599 underflowed: icdf(1e-300) was -inf
    ("StudentT-icdf-tiny-q", _student(1.0), F64, "icdf", [1e-300, 1e-20, 0.3, 1 - 2 ** -53],
     lambda q: _mp(lambda v: -1 / mp.tan(mp.pi * v) if v < 0.5 else 1 / mp.tan(mp.pi * (1 - v)),
                   q)),
    ("StudentT-icdf-tiny-df", _student(0.05), F64, "icdf", [1e-3, 0.2, 0.4],
     lambda q: stats.t(0.05).ppf(q)),
    # the tail of a large df was inverted from |2q - 1|, rounded: 4e-7 off at 1e-12
    ("StudentT-icdf-large-df", _student(1e4), F64, "icdf", [1e-12, 1e-30, 0.3, 1 - 1e-12],
     lambda q: stats.t(1e4).ppf(q)),
    # d1 x/(d1 x + d2) rounded to 1: cdf(2.4e28) at (1, 0.01) was 1 instead of 0.3
    ("FisherSnedecor-cdf-small-df2", _fisher(1.0, 0.01), F64, "cdf",
     [1e-300, 1e-5, 1.0, 1e10, 2.4e28, 1e300],
     lambda x: _mp(_mp_f_cdf(1, 0.01), x)),
    ("FisherSnedecor-cdf-small-df2-f32", _fisher(1.0, 0.01), F32, "cdf", [1e10, 2.4e28, 1e38],
     lambda x: _mp(_mp_f_cdf(1, float(F32(0.01))), x)),
    # the upper quantiles went through y/(1 - y) with y rounded to 1: inf
    ("FisherSnedecor-icdf-small-df2", _fisher(1.0, 0.01), F64, "icdf", [1e-10, 0.5, 0.9],
     lambda q: _mp(_mp_f_quantile(1, 0.01), q)),
    ("FisherSnedecor-icdf-upper", _fisher(1.0, 1.0), F64, "icdf", [0.3, 1 - 1e-10, 1 - 2 ** -53],
     lambda q: _mp(_mp_f_quantile(1, 1), q)),
    ("FisherSnedecor-icdf-upper-half", _fisher(0.5, 0.5), F64, "icdf", [1e-10, 1 - 1e-10],
     lambda q: _mp(_mp_f_quantile(0.5, 0.5), q)),
    # 1 - p rounds: cdf(0) = (1 - p)^n was 2.2e-8 off at n = 1e9, p = 1e-12
    ("Binomial-cdf-tiny-p", lambda dt: D.Binomial(_t([1e9], dt), _t([1e-12], dt)), F64, "cdf",
     [0.0, 1.0, 2.0], lambda k: _mp(lambda v: 1 - _mp_binom_sf(10 ** 9, 1e-12)(v), k)),
    ("Binomial-cdf-tiny-p-f32", lambda dt: D.Binomial(_t([1e6], dt), _t([1e-7], dt)), F32,
     "cdf", [0.0, 1.0], lambda k: _mp(lambda v: 1 - _mp_binom_sf(10 ** 6, F32(1e-7))(v), k)),
    # float32's incomplete beta was 1e-3 off in the tails of Beta(1e4, 1e4)
    ("Beta-f32-large-shapes", _beta(1e4, 1e4), F32, "cdf", [0.48, 0.49, 0.5, 0.51, 0.52],
     lambda x: special.betainc(1e4, 1e4, x)),
    # and its inverse gave 0.5037 for the median of Beta(1e-3, 1e-3)
    ("Beta-f32-tiny-shapes-icdf", _beta(1e-3, 1e-3), F32, "icdf",
     [0.5, 0.5 + 2.0 ** -20, 0.5 - 2.0 ** -19],
     lambda q: _mp(_mp_quantile(lambda x: _ibeta(F32(1e-3), F32(1e-3), x), -2, 0), q)),
]


@pytest.mark.parametrize("cid,build,dtype,method,inputs,ref", CASES, ids=[c[0] for c in CASES])
def test_value(cid, build, dtype, method, inputs, ref):
    x = np.asarray(inputs, dtype=dtype)
    got = getattr(build(dtype), method)(_t(x, dtype)).numpy().reshape(-1).astype(F64)
    want = np.asarray(ref(x.astype(F64)), dtype=F64).reshape(-1)
    want = np.where(np.abs(want) > np.finfo(dtype).max, np.copysign(np.inf, want), want)
    assert np.isfinite(got).all() and np.isfinite(want).all(), (got, want)
    np.testing.assert_allclose(got, want, rtol=RTOL[dtype], atol=0)


@pytest.mark.parametrize("n,p", [(10 ** 6, 0.5), (10, 0.3), (7, 1e-12), (1000, 1.0), (5, 0.0)])
def test_binomial_icdf_at_one(n, p):
    """The smallest k with cdf(k) >= 1 is n (0 where p = 0): no bisection on rounded
    masses finds it (504146 at n = 1e6, p = 1/2)."""
    for dt in (F32, F64):
        got = D.Binomial(_t([n], dt), _t([p], dt)).icdf(_t([1.0], dt)).numpy()
        assert got.tolist() == [0.0 if p == 0 else float(n)]


@pytest.mark.parametrize("n,p", [(10 ** 6, 0.5), (10 ** 9, 1e-6), (40, 0.9)])
def test_binomial_icdf_upper_tail(n, p):
    """icdf(q) is the smallest k with P(X > k) <= 1 - q, checked in mpmath at k and
    k - 1 (through I_p(k + 1, n - k): the cdf rounds to 1 first; at n = 1e6 the old
    1 - 1e-16 quantile was 504080, mpmath's 504105, scipy's ppf 504145)."""
    qs = [0.7, 1 - 1e-10, 1 - 2 ** -53]
    ks = D.Binomial(_t([n]), _t([p])).icdf(_t(qs)).numpy().reshape(-1)
    sf = _mp_binom_sf(n, p)
    with mp.workdps(40):
        for q, k in zip(qs, ks):
            tail = 1 - mp.mpf(q)
            assert sf(int(k)) <= tail < sf(int(k) - 1), (q, k)


def test_student_t_gradients_in_tails():
    """gradcheck in df, loc, scale across the forms: the leading term (t = -1e170),
    the complementary mass of a large df (t = -30 at df = 1e4), both sides of t² = df,
    and the quantiles on both sides of the inversion."""
    df, loc, sc = _t([1.0, 1e4, 0.6, 3.0], grad=True), _t([0.0, 0.1, -0.2, 0.3], grad=True), \
        _t([1.0, 1.0, 0.5, 2.0], grad=True)
    x = _t([-1e170, -30.0, 0.2, 40.0])
    q = _t([1e-300, 1e-12, 0.6, 1 - 1e-9])
    assert gradcheck(lambda a, b, c: D.StudentT(a, b, c).cdf(x), (df, loc, sc),
                     rtol=1e-4, atol=1e-12)
    # (loc's derivative, 1, is invisible to differences next to -3e299)
    assert gradcheck(lambda a, c: D.StudentT(a, loc, c).icdf(q), (df, sc), rtol=1e-4)
    xv = _t([-1e170, -30.0, 0.2, 40.0], grad=True)
    g = weft.grad(D.StudentT(_t([1.0, 1e4, 0.6, 3.0]), 0.0, 1.0).cdf(xv).sum(), [xv])[0]
    want = np.exp(stats.t.logpdf(xv.numpy(), [1.0, 1e4, 0.6, 3.0]))
    np.testing.assert_allclose(g.numpy(), want, rtol=1e-9)


def test_fisher_snedecor_gradients_both_sides():
    """gradcheck in df1, df2 of cdf and icdf where t = d1 x/(d1 x + d2) is near 1 (the
    complementary mass), near 0, and where 1 - t underflows (the leading term)."""
    d1, d2 = _t([1.0, 3.0, 0.5, 40.0], grad=True), _t([0.01, 2.0, 0.3, 300.0], grad=True)
    x = _t([2.4e28, 1e-4, 1e300, 1.3])
    q = _t([0.5, 1e-8, 1 - 1e-9, 0.2])
    assert gradcheck(lambda a, b: D.FisherSnedecor(a, b).cdf(x), (d1, d2), rtol=1e-4,
                     atol=1e-12)
    assert gradcheck(lambda a, b: D.FisherSnedecor(a, b).icdf(q), (d1, d2), rtol=1e-4)
    xv = _t(x.numpy(), grad=True)
    g = weft.grad(D.FisherSnedecor(d1.detach(), d2.detach()).cdf(xv).sum(), [xv])[0]
    want = np.exp(stats.f.logpdf(x.numpy(), d1.numpy(), d2.numpy()))
    np.testing.assert_allclose(g.numpy(), want, rtol=1e-8)


def test_binomial_cdf_gradients():
    """gradcheck in probs where 1 - p rounds (the correction) and not; the gradient in
    total_count (integral: gradcheck cannot perturb it) against central differences of
    scipy's incomplete beta, its continuous extension."""
    n, p = _t([1e9, 50.0, 1e6], grad=True), _t([1e-5, 0.3, 3e-5], grad=True)
    k = _t([10010.0, 20.0, 25.0])
    assert gradcheck(lambda b: D.Binomial(n, b).cdf(k), (p,), eps=1e-11, rtol=1e-4, atol=1e-12)
    (g,) = weft.grad(D.Binomial(n, p).cdf(k).sum(), [n])
    nn, kk, pp = n.numpy(), k.numpy(), p.numpy()
    h = 1e-6 * nn
    want = (special.betainc(nn + h - kk, kk + 1, 1 - pp)
            - special.betainc(nn - h - kk, kk + 1, 1 - pp)) / (2 * h)
    np.testing.assert_allclose(g.numpy(), want, rtol=1e-5)


def test_beta_float32_gradient_in_value():
    """float32 runs in float64: the value gradient is the density, cast back."""
    x = _t([0.49, 0.5], F32, grad=True)
    g = weft.grad(D.Beta(_t([1e4], F32), _t([1e4], F32)).cdf(x).sum(), [x])[0]
    assert g.dtype == weft.float32
    want = stats.beta(1e4, 1e4).pdf(x.numpy().astype(F64))
    np.testing.assert_allclose(g.numpy(), want, rtol=1e-5)
