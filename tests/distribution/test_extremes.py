"""Families at extreme but valid inputs: far tails, quantiles next to 0 and 1, tiny and
huge parameters, float32 and float64.

Each case names a method, the parameters and the inputs, and a reference: scipy.stats
where it is accurate there, closed forms evaluated in mpmath otherwise (scipy is the
inaccurate one in a few of these corners, noted per case). The values must match to
``rtol`` and be finite where the reference is; the gradients of ``log_prob`` (and of
``rsample``) must be finite where the density is smooth.
"""
from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest
from scipy import stats

import weft
import weft.distribution as D

F32, F64 = np.float32, np.float64
RTOL = {F32: 2e-5, F64: 1e-10}
# scipy.special.betaln (weft's betaln on the CPU) is ~2e-10 off in absolute terms for
# arguments near 5e5, which bounds the float64 accuracy of the families built on it
_BETALN_LARGE = {F64: 1e-9}


def _t(x, dtype=F64, grad=False):
    t = weft.to_tensor(np.asarray(x, dtype=dtype))
    if grad:
        t.stop_gradient = False
    return t


def _mp(f, x):
    """An elementwise mpmath reference (50 digits) as float64."""
    with mp.workdps(50):
        return np.array([float(f(mp.mpf(float(v)))) for v in np.ravel(x)])


class Case:
    def __init__(self, cid, build, params, method, ref, inputs=None, dtypes=(F32, F64),
                 rtol=None):
        self.id, self.build, self.params, self.method = cid, build, params, method
        self.ref, self.inputs, self.dtypes, self.rtol = ref, inputs, dtypes, rtol or {}

    def make(self, dtype, grad=False):
        """Scalar parameters as batch (1,); array ones (event dims) as they are."""
        ts = {k: _t(v if np.ndim(v) else [v], dtype, grad) for k, v in self.params.items()}
        return self.build(**ts), ts

    def p64(self, dtype):
        """The parameters as the distribution sees them (rounded to ``dtype``)."""
        return {k: (np.asarray(v, dtype).astype(np.float64) if np.ndim(v) else float(dtype(v)))
                for k, v in self.params.items()}


def _logpdf(dist):
    return lambda p, x: dist(**p).logpdf(x)


def _tn(loc, scale, low, high):
    return D.TruncatedNormal(loc, scale, low, high)


def _tn_mass(a, b):
    """Φ(b) - Φ(a) in mpmath (mirrored in the upper tail)."""
    a, b = mp.mpf(a), mp.mpf(b)
    return mp.ncdf(-a) - mp.ncdf(-b) if a > 0 else mp.ncdf(b) - mp.ncdf(a)


def _tn_quantile(p, q):
    a, b = mp.mpf(p["low"]), mp.mpf(p["high"])
    return mp.sqrt(2) * mp.erfinv(2 * ((1 - q) * mp.ncdf(a) + q * mp.ncdf(b)) - 1)


def _tn_moments(p):
    """Mean, variance and entropy of N(0, 1) on [low, high] from the closed forms in
    80-digit arithmetic (enough for their cancellation)."""
    with mp.workdps(80):
        a, b = mp.mpf(p["low"]), mp.mpf(p["high"])

        def phi(z):
            return mp.npdf(z) if mp.isfinite(z) else mp.mpf(0)

        def zphi(z):
            return z * mp.npdf(z) if mp.isfinite(z) else mp.mpf(0)
        z = _tn_mass(a, b)
        m = (phi(a) - phi(b)) / z
        second = (zphi(a) - zphi(b)) / z
        return {"mean": float(m), "variance": float(1 + second - m * m),
                "entropy": float(mp.log(z) + mp.log(2 * mp.pi) / 2 + (1 + second) / 2)}


def _cb_log_odds(p):
    p = mp.mpf(p["probs"])
    return mp.log(p / (1 - p))


def _cb_logpdf(p, v):
    q = mp.mpf(p["probs"])
    return (mp.log(2 * mp.atanh(1 - 2 * q) / (1 - 2 * q)) + v * mp.log(q)
            + (1 - v) * mp.log1p(-q))


def _cb_cdf(p, v):
    lo = _cb_log_odds(p)
    return mp.expm1(v * lo) / mp.expm1(lo)


def _cb_icdf(p, q):
    lo = _cb_log_odds(p)
    return mp.log1p(q * mp.expm1(lo)) / lo


def _kumaraswamy_var(a, b):
    with mp.workdps(60):
        a, b = mp.mpf(a), mp.mpf(b)
        m1 = b * mp.beta(1 + 1 / a, b)
        return float(b * mp.beta(1 + 2 / a, b) - m1 * m1)


def _mp_binom(n, k, p):
    n, k, p = mp.mpf(n), mp.mpf(k), mp.mpf(p)
    return (mp.loggamma(n + 1) - mp.loggamma(k + 1) - mp.loggamma(n - k + 1)
            + k * mp.log(p) + (n - k) * mp.log1p(-p))


def _mp_nb(p, k):
    r, q = mp.mpf(p["total_count"]), mp.mpf(p["probs"])
    return (mp.loggamma(k + r) - mp.loggamma(k + 1) - mp.loggamma(r) + k * mp.log(q)
            + r * mp.log1p(-q))


def _mp_nb_entropy(p):
    with mp.workdps(30):
        total = mp.mpf(0)
        for k in range(0, 200):       # the mass beyond 200 is below 2^-200
            lp = _mp_nb(p, mp.mpf(k))
            total -= mp.exp(lp) * lp
        return float(total)


def _mp_relaxed_icdf(p, q):
    t, pr = mp.mpf(p["temperature"]), mp.mpf(p["probs"])
    x = (mp.log(pr / (1 - pr)) + mp.log(q / (1 - q))) / t
    return 1 / (1 + mp.exp(-x))


def _mp_relaxed_logpdf(p, y):
    """sigmoid(X), X logistic(logits/T, 1/T): the logistic density at logit(y) over
    y(1 - y)."""
    t, pr = mp.mpf(p["temperature"]), mp.mpf(p["probs"])
    z = t * mp.log(y / (1 - y)) - mp.log(pr / (1 - pr))
    return mp.log(t) - z - 2 * mp.log1p(mp.exp(-z)) - mp.log(y * (1 - y))


def _mp_vonmises(k):
    with mp.workdps(40):
        k = mp.mpf(k)
        ratio = mp.besseli(1, k) / mp.besseli(0, k)
        return {"variance": float(1 - ratio),
                "entropy": float(mp.log(2 * mp.pi * mp.besseli(0, k)) - k * ratio)}


def _mp_multinomial(n, k, p):
    with mp.workdps(40):
        p = [mp.mpf(v) for v in np.ravel(p)]
        total = sum(p)
        return float(mp.loggamma(n + 1) + sum(
            -mp.loggamma(mp.mpf(x) + 1) + (x * mp.log(q / total) if x else 0)
            for x, q in zip(np.ravel(k), p)))


def _mp_multinomial_entropy(n, p):
    """n H(p) - lgamma(n + 1) + Σ_i E[lgamma(K_i + 1)], K_i ~ Binomial(n, p_i), summed in
    mpmath over the marginals' mass (±12 standard deviations)."""
    with mp.workdps(40):
        p = [mp.mpf(v) for v in np.ravel(p)]
        total = sum(p)
        p = [q / total for q in p]
        out = -n * sum(q * mp.log(q) for q in p) - mp.loggamma(n + 1)
        for q in p:
            m, sd = n * q, mp.sqrt(n * q * (1 - q))
            for k in range(int(m - 12 * sd), int(m + 12 * sd) + 1):
                lb = (mp.loggamma(n + 1) - mp.loggamma(k + 1) - mp.loggamma(n - k + 1)
                      + k * mp.log(q) + (n - k) * mp.log1p(-q))
                out += mp.exp(lb) * mp.loggamma(k + 1)
        return float(out)


def _mp1(f, v):
    with mp.workdps(50):
        return float(f(mp.mpf(v)))


def _lognormal_var(loc, scale):
    with mp.workdps(50):
        s2 = mp.mpf(scale) ** 2
        return float(mp.expm1(s2) * mp.exp(2 * mp.mpf(loc) + s2))


def _mp_f_logpdf(p, x):
    with mp.workdps(60):
        h1, h2 = mp.mpf(p["df1"]) / 2, mp.mpf(p["df2"]) / 2

        def lp(v):
            s = h1 * 2 * v + h2 * 2
            return (h1 * mp.log(h1 * 2 * v / s) + h2 * mp.log(h2 * 2 / s) - mp.log(v)
                    - mp.log(mp.beta(h1, h2)))
        return _mp(lp, x)


def _mp_t_entropy(df):
    with mp.workdps(50):
        nu = mp.mpf(df)
        h = (nu + 1) / 2
        return float(h * (mp.digamma(h) - mp.digamma(nu / 2)) + mp.log(nu) / 2
                     + mp.log(mp.beta(nu / 2, mp.mpf(1) / 2)))



CASES = [
    # Cauchy / HalfCauchy: log(1 + z²) from (x - loc, scale); z = 1e40 overflowed float32
    Case("Cauchy-tiny-scale-far", lambda loc, scale: D.Cauchy(loc, scale),
         {"loc": 0.0, "scale": 1e-30}, "log_prob",
         _logpdf(lambda loc, scale: stats.cauchy(loc, scale)), [-1e10, -1e3, 3e-30, 1e10]),
    Case("HalfCauchy-tiny-scale-far", lambda scale: D.HalfCauchy(scale),
         {"scale": 1e-30}, "log_prob",
         _logpdf(lambda scale: stats.halfcauchy(scale=scale)), [0.0, 3e-30, 1e3, 1e10]),
    # HalfCauchy.icdf: tan(πq/2) gave 1.6e16 at q = 1 and lost digits near 1 in float32
    # (mpmath: scipy's own tan(πq/2) is 9e-10 off at q = 1 - 2⁻²³)
    Case("HalfCauchy-icdf-upper", lambda scale: D.HalfCauchy(scale), {"scale": 1.0},
         "icdf", lambda p, q: p["scale"] * _mp(lambda v: mp.tan(mp.pi * v / 2)
                                              if v < 1 else mp.inf, q),
         [1e-30, 0.25, 0.5, 0.999999, 1 - 2 ** -23, 1.0]),
    # HalfNormal.entropy: σ² under/overflowed float32
    Case("HalfNormal-entropy-tiny", lambda scale: D.HalfNormal(scale), {"scale": 1e-30},
         "entropy", lambda p: stats.halfnorm(scale=p["scale"]).entropy()),
    Case("HalfNormal-entropy-huge", lambda scale: D.HalfNormal(scale), {"scale": 1e30},
         "entropy", lambda p: stats.halfnorm(scale=p["scale"]).entropy()),
    # StudentT: lgamma((ν+1)/2) - lgamma(ν/2) and ψ((ν+1)/2) - ψ(ν/2) cancelled for
    # large ν (6% off in float32 at ν = 1e6); y² overflowed for a tiny scale
    Case("StudentT-huge-df", lambda df, loc, scale: D.StudentT(df, loc, scale),
         {"df": 1e6, "loc": 0.0, "scale": 1.0}, "log_prob",
         _logpdf(lambda df, loc, scale: stats.t(df, loc, scale)), [-11.0, -0.5, 0.0, 6.0],
         rtol=_BETALN_LARGE),
    Case("StudentT-huge-df-entropy", lambda df, loc, scale: D.StudentT(df, loc, scale),
         {"df": 1e6, "loc": 0.0, "scale": 1.0}, "entropy",
         lambda p: _mp_t_entropy(p["df"]) + math.log(p["scale"]), rtol=_BETALN_LARGE),
    Case("StudentT-tiny-scale-far", lambda df, loc, scale: D.StudentT(df, loc, scale),
         {"df": 0.01, "loc": 0.0, "scale": 1e-30}, "log_prob",
         _logpdf(lambda df, loc, scale: stats.t(df, loc, scale)), [-1e10, -7e-10, 1e3, 1e10]),
    Case("StudentT-cauchy-far", lambda df, loc, scale: D.StudentT(df, loc, scale),
         {"df": 1.0, "loc": 0.0, "scale": 1.0}, "log_prob",
         _logpdf(lambda df, loc, scale: stats.t(df, loc, scale)), [-3e29, 1e20]),
    # Gamma, Chi2, Dirichlet: terms of size a log a cancelled in float32 (Chi2 log_prob at
    # df = 1e6 was -8.0 for -8.17), now evaluated in float64 for large shapes
    Case("Gamma-huge-concentration", lambda concentration, rate: D.Gamma(concentration, rate),
         {"concentration": 1e4, "rate": 2.0}, "log_prob",
         _logpdf(lambda concentration, rate: stats.gamma(concentration, scale=1 / rate)),
         [4950.0, 5000.0, 5050.0]),
    Case("Gamma-huge-concentration-entropy",
         lambda concentration, rate: D.Gamma(concentration, rate),
         {"concentration": 1e4, "rate": 2.0}, "entropy",
         lambda p: stats.gamma(p["concentration"], scale=1 / p["rate"]).entropy()),
    Case("Chi2-huge-df", lambda df: D.Chi2(df), {"df": 1e6}, "log_prob",
         _logpdf(lambda df: stats.chi2(df)), [0.999e6, 1e6, 1.002e6]),
    Case("Chi2-huge-df-entropy", lambda df: D.Chi2(df), {"df": 1e6}, "entropy",
         lambda p: stats.chi2(p["df"]).entropy()),
    Case("Dirichlet-huge-concentration-entropy", lambda concentration: D.Dirichlet(concentration),
         {"concentration": np.array([1e4, 2e4, 3e4])}, "entropy",
         lambda p: stats.dirichlet(p["concentration"]).entropy()),
    # Bernoulli: the logits are clamped to eps, which put log_prob(1) at log(1.2e-7) and
    # the entropy at 1e-7 for p = 1e-12 in float32
    Case("Bernoulli-tiny-p", lambda probs: D.Bernoulli(probs), {"probs": 1e-12},
         "log_prob", lambda p, x: stats.bernoulli(p["probs"]).logpmf(x), [0.0, 1.0]),
    # (mpmath: scipy's entropy rounds 1 - p and is 8e-7 off itself)
    Case("Bernoulli-tiny-p-entropy", lambda probs: D.Bernoulli(probs), {"probs": 1e-12},
         "entropy", lambda p: _mp1(lambda v: -(v * mp.log(v) + (1 - v) * mp.log1p(-v)),
                                   p["probs"])),
    Case("Bernoulli-certain", lambda probs: D.Bernoulli(probs), {"probs": 0.0},
         "log_prob", lambda p, x: stats.bernoulli(p["probs"]).logpmf(x), [0.0, 1.0]),
    # (icdf(1) of a tiny p is 1: 1 - p rounded to 1 in float32 and gave 0)
    Case("Bernoulli-tiny-p-icdf", lambda probs: D.Bernoulli(probs), {"probs": 1e-12},
         "icdf", lambda p, q: (q > 1 - p["probs"]).astype(float), [0.0, 0.5, 1.0]),
    # Geometric: 1/p - 1 cancelled near p = 1; log(1 - p) rounded for a tiny p (float32
    # entropy 1 nat short); p = 1 gave icdf(1) = NaN (a point mass at 0: 0)
    Case("Geometric-near-one-mean", lambda probs: D.Geometric(probs),
         {"probs": 1 - 1e-12}, "mean", lambda p: _mp1(lambda v: (1 - v) / v, p["probs"]),
         dtypes=(F64,)),
    Case("Geometric-near-one-variance", lambda probs: D.Geometric(probs),
         {"probs": 1 - 1e-12}, "variance",
         lambda p: _mp1(lambda v: (1 - v) / v ** 2, p["probs"]), dtypes=(F64,)),
    Case("Geometric-tiny-p-entropy", lambda probs: D.Geometric(probs), {"probs": 1e-12},
         "entropy", lambda p: _mp1(lambda v: -((1 - v) * mp.log1p(-v) + v * mp.log(v)) / v,
                                   p["probs"])),
    Case("Geometric-certain-icdf", lambda probs: D.Geometric(probs), {"probs": 1.0},
         "icdf", lambda p, q: np.zeros_like(q), [0.0, 0.5, 1.0]),
    # LogNormal.variance: expm1(σ²)·exp(2μ + σ²) was inf·0 = NaN in float32 (the true
    # e^400 overflows: inf); and accurate for a tiny σ
    Case("LogNormal-variance-overflow", lambda loc, scale: D.LogNormal(loc, scale),
         {"loc": -700.0, "scale": 30.0}, "variance",
         lambda p: _lognormal_var(p["loc"], p["scale"])),
    Case("LogNormal-variance-tiny", lambda loc, scale: D.LogNormal(loc, scale),
         {"loc": 0.0, "scale": 1e-8}, "variance",
         lambda p: _lognormal_var(p["loc"], p["scale"])),
    # count families: log-masses whose terms of size n cancel (float32 lost a nat at
    # n = 1e6, float64 1e-5 at n = 1e9), now in Loader's saddle-point form (mpmath:
    # scipy's own logpmf is 2e-9 off at these sizes)
    Case("Binomial-large-n", lambda total_count, probs: D.Binomial(total_count, probs),
         {"total_count": 1e6, "probs": 0.5}, "log_prob", lambda p, x: _mp(
             lambda k: _mp_binom(p["total_count"], k, p["probs"]), x),
         [0.0, 3.0, 481479.0, 499738.0, 500000.0, 504145.0, 1e6]),
    Case("Binomial-huge-n", lambda total_count, probs: D.Binomial(total_count, probs),
         {"total_count": 1e9, "probs": 0.3}, "log_prob", lambda p, x: _mp(
             lambda k: _mp_binom(p["total_count"], k, p["probs"]), x),
         [2.99e8, 3e8, 3.0001e8], dtypes=(F64,)),
    Case("Binomial-large-n-tiny-p", lambda total_count, probs: D.Binomial(total_count, probs),
         {"total_count": 1e6, "probs": 1e-12}, "log_prob", lambda p, x: _mp(
             lambda k: _mp_binom(p["total_count"], k, p["probs"]), x), [0.0, 1.0, 2.0]),
    Case("Poisson-large-rate", lambda rate: D.Poisson(rate), {"rate": 1e6}, "log_prob",
         lambda p, x: _mp(lambda k: k * mp.log(p["rate"]) - p["rate"] - mp.loggamma(k + 1), x),
         [0.0, 988558.0, 999475.0, 1e6, 1008220.0]),
    Case("Poisson-huge-rate", lambda rate: D.Poisson(rate), {"rate": 1e12}, "log_prob",
         lambda p, x: _mp(lambda k: k * mp.log(p["rate"]) - p["rate"] - mp.loggamma(k + 1), x),
         [1e12 - 3e6, 1e12, 1e12 + 1e6], dtypes=(F64,)),
    Case("NegativeBinomial-large-r", lambda total_count, probs: D.NegativeBinomial(
         total_count, probs=probs), {"total_count": 1e6, "probs": 0.5}, "log_prob",
         lambda p, x: _mp(lambda k: _mp_nb(p, k), x), [0.0, 1.0, 998000.0, 1e6, 1004000.0]),
    Case("NegativeBinomial-tiny-r", lambda total_count, probs: D.NegativeBinomial(
         total_count, probs=probs), {"total_count": 1e-3, "probs": 0.5}, "log_prob",
         lambda p, x: _mp(lambda k: _mp_nb(p, k), x), [0.0, 1.0, 50.0]),
    Case("NegativeBinomial-zero-r", lambda total_count, probs: D.NegativeBinomial(
         total_count, probs=probs), {"total_count": 0.0, "probs": 0.3}, "log_prob",
         lambda p, x: np.where(x == 0, 0.0, -np.inf), [0.0, 1.0, 5.0]),
    # entropies: summed over a window around the mean (the full arange(0, max) took 20 GB
    # at n = 1e9), on a grid beyond 2^20 points, and Poisson's asymptotic series from
    # λ = 1000 (scipy's poisson entropy is 3x off at λ = 1e6)
    Case("Poisson-entropy-huge", lambda rate: D.Poisson(rate), {"rate": 1e12}, "entropy",
         lambda p: _mp1(lambda v: mp.log(2 * mp.pi * mp.e * v) / 2 - 1 / (12 * v)
                        - 1 / (24 * v ** 2) - mp.mpf(19) / (360 * v ** 3), p["rate"]),
         dtypes=(F64,)),
    Case("Binomial-entropy-huge-n", lambda total_count, probs: D.Binomial(total_count, probs),
         {"total_count": 1e12, "probs": 0.3}, "entropy",
         lambda p: _mp1(lambda v: mp.log(2 * mp.pi * mp.e * v * mp.mpf(0.3) * mp.mpf(0.7)) / 2,
                        p["total_count"]), rtol={F64: 1e-12}, dtypes=(F64,)),
    Case("NegativeBinomial-entropy-tiny-r", lambda total_count, probs: D.NegativeBinomial(
         total_count, probs=probs), {"total_count": 1e-3, "probs": 0.5}, "entropy",
         lambda p: _mp_nb_entropy(p), dtypes=(F64,)),
    # FisherSnedecor: h1 log(d1/d2) + (h1-1) log x - (h1+h2) log1p(d1 x/d2) lost every
    # float32 digit at df1 = 1e6 (mpmath: scipy's f.logpdf is that same sum)
    Case("FisherSnedecor-huge-df1", lambda df1, df2: D.FisherSnedecor(df1, df2),
         {"df1": 1e6, "df2": 1.0}, "log_prob", lambda p, x: _mp_f_logpdf(p, x),
         [7.3e-4, 0.0239, 0.93, 2.198, 1e3, 1e10], rtol=_BETALN_LARGE),
    Case("FisherSnedecor-huge-both", lambda df1, df2: D.FisherSnedecor(df1, df2),
         {"df1": 1e6, "df2": 1e6}, "log_prob", lambda p, x: _mp_f_logpdf(p, x),
         [0.9773, 0.99895, 1.0, 1.0128], rtol=_BETALN_LARGE),
    Case("FisherSnedecor-huge-both-entropy", lambda df1, df2: D.FisherSnedecor(df1, df2),
         {"df1": 1e6, "df2": 1e6}, "entropy",
         lambda p: stats.f(p["df1"], p["df2"]).entropy(), rtol={F64: 1e-8}),
    Case("FisherSnedecor-tiny-df", lambda df1, df2: D.FisherSnedecor(df1, df2),
         {"df1": 0.01, "df2": 0.01}, "log_prob", lambda p, x: _mp_f_logpdf(p, x),
         [1e-300, 1e-30, 1.0, 1e30, 1e300], dtypes=(F64,)),
    # ContinuousBernoulli: clamped logits (float32 log_prob 50% off at p = 1e-12); the
    # closed-form cdf/icdf cancelled at small values (float32 cdf 0 at v = 1e-11) and were
    # replaced by v inside lims (5e-4 off at p = 0.5009)
    Case("ContinuousBernoulli-tiny-p", lambda probs: D.ContinuousBernoulli(probs),
         {"probs": 1e-12}, "log_prob", lambda p, x: _mp(lambda v: _cb_logpdf(p, v), x),
         [0.0, 1e-12, 0.01, 0.5, 0.99, 1.0]),
    Case("ContinuousBernoulli-cdf-small", lambda probs: D.ContinuousBernoulli(probs),
         {"probs": 1e-4}, "cdf", lambda p, x: _mp(lambda v: _cb_cdf(p, v), x),
         [0.0, 1e-30, 1e-11, 1e-4, 0.5, 1.0]),
    Case("ContinuousBernoulli-cdf-inside-lims", lambda probs: D.ContinuousBernoulli(probs),
         {"probs": 0.5009}, "cdf", lambda p, x: _mp(lambda v: _cb_cdf(p, v), x),
         [1e-20, 0.25, 0.5, 0.75]),
    Case("ContinuousBernoulli-icdf-small", lambda probs: D.ContinuousBernoulli(probs),
         {"probs": 0.9999}, "icdf", lambda p, q: _mp(lambda v: _cb_icdf(p, v), q),
         [0.0, 1e-30, 1e-10, 0.5, 1 - 2 ** -20, 1.0]),
    Case("ContinuousBernoulli-icdf-inside-lims", lambda probs: D.ContinuousBernoulli(probs),
         {"probs": 0.4995}, "icdf", lambda p, q: _mp(lambda v: _cb_icdf(p, v), q),
         [1e-20, 0.25, 0.5, 0.75]),
    # TruncatedNormal: Z underflows beyond 38 σ ((aφ(a) - bφ(b))/Z was 0/0: NaN
    # variance); the closed-form moments cancel far out ([1000, 1000.01]: variance 24x
    # too large) and on short intervals ([5, 5 + 1e-8]: 3e-6 for 8e-18); float32 gave
    # Z = 0 on [-1e-8, 1e-8] (log_prob inf, cdf NaN) and one point for every quantile.
    # (mpmath: scipy.stats.truncnorm is itself wrong in most of these corners)
    *[Case(f"TruncatedNormal-{lo}-{hi}-{m}", _tn, {"loc": 0.0, "scale": 1.0, "low": lo,
                                                   "high": hi}, m,
           (lambda m: lambda p: _tn_moments(p)[m])(m), dtypes=dts)
      for lo, hi, dts in ((40.0, 50.0, (F32, F64)), (-math.inf, -30.0, (F32, F64)),
                          (1000.0, 1000.01, (F32, F64)), (5.0, 5.0 + 1e-8, (F64,)),
                          (-1e-8, 1e-8, (F32, F64)), (4.0, 6.0, (F32, F64)))
      for m in ("mean", "variance", "entropy")],
    Case("TruncatedNormal-narrow-log_prob", _tn, {"loc": 0.0, "scale": 1.0, "low": -1e-8,
                                                 "high": 1e-8}, "log_prob",
         lambda p, x: _mp(lambda v: -v * v / 2 - mp.log(2 * mp.pi) / 2
                          - mp.log(_tn_mass(p["low"], p["high"])), x), [-5e-9, 0.0, 5e-9]),
    Case("TruncatedNormal-narrow-cdf", _tn, {"loc": 0.0, "scale": 1.0, "low": -1e-8,
                                            "high": 1e-8}, "cdf",
         lambda p, x: _mp(lambda v: _tn_mass(p["low"], v) / _tn_mass(p["low"], p["high"]),
                          x), [-5e-9, 0.0, 5e-9]),
    # (the cdf just above the lower bound: two close log-cdfs cancelled there)
    Case("TruncatedNormal-cdf-at-low", _tn, {"loc": 0.0, "scale": 1.0, "low": 40.0,
                                            "high": 50.0}, "cdf",
         lambda p, x: _mp(lambda v: _tn_mass(p["low"], v) / _tn_mass(p["low"], p["high"]),
                          x), [40.0000000000025, 40.001, 40.1], dtypes=(F64,)),
    Case("TruncatedNormal-narrow-icdf", _tn, {"loc": 0.0, "scale": 1.0, "low": -1e-8,
                                             "high": 1e-8}, "icdf",
         lambda p, q: _mp(lambda v: _tn_quantile(p, v), q), [0.0, 0.1, 0.5, 0.9, 1.0],
         rtol={F32: 2e-5, F64: 1e-7}),   # ndtri_exp of a log-cdf near log ½: 1e-16/1e-8
    # Weibull: (x/scale)^k overflowed float32 at scale 1e-30 (log_prob -inf, cdf 1) and
    # lost digits as a subnormal at scale 1e30; Γ(1+2/k) - Γ(1+1/k)² cancelled (2% in
    # float32 at k = 1000)
    Case("Weibull-tiny-scale-far", lambda scale, concentration: D.Weibull(scale, concentration),
         {"scale": 1e-30, "concentration": 0.01}, "log_prob",
         _logpdf(lambda scale, concentration: stats.weibull_min(concentration, scale=scale)),
         [1e-29, 1e3, 1e10]),
    Case("Weibull-tiny-scale-cdf", lambda scale, concentration: D.Weibull(scale, concentration),
         {"scale": 1e-30, "concentration": 0.01}, "cdf",
         lambda p, x: stats.weibull_min(p["concentration"], scale=p["scale"]).cdf(x),
         [1e-29, 1e3, 1e10]),
    Case("Weibull-huge-scale-small", lambda scale, concentration: D.Weibull(scale, concentration),
         {"scale": 1e30, "concentration": 0.01}, "log_prob",
         _logpdf(lambda scale, concentration: stats.weibull_min(concentration, scale=scale)),
         [1.7e-15, 1.0]),
    Case("Weibull-large-k-variance", lambda scale, concentration: D.Weibull(scale, concentration),
         {"scale": 1.0, "concentration": 1000.0}, "variance",
         lambda p: _mp1(lambda k: mp.gamma(1 + 2 / k) - mp.gamma(1 + 1 / k) ** 2,
                        p["concentration"])),
    # Pareto: α log s - (α+1) log x subtracted terms of size α·log s; the cdf just above
    # the scale needs log1p((x - s)/s) (mpmath: scipy's 1 - (s/x)^α is the one off)
    Case("Pareto-large-alpha", lambda scale, alpha: D.Pareto(scale, alpha),
         {"scale": 1e30, "alpha": 1e4}, "log_prob",
         lambda p, x: _mp(lambda v: mp.log(p["alpha"]) + p["alpha"] * mp.log(p["scale"])
                          - (p["alpha"] + 1) * mp.log(v), x),
         [1.0000001e30, 1.00007e30, 1.0037e30, 1.1e30]),
    Case("Pareto-cdf-near-scale", lambda scale, alpha: D.Pareto(scale, alpha),
         {"scale": 1e-30, "alpha": 1e4}, "cdf",
         lambda p, x: _mp(lambda v: 1 - (mp.mpf(p["scale"]) / v) ** p["alpha"], x),
         [1.00000000000001e-30, 1.0000001e-30, 3e-30], dtypes=(F64,)),
    # Kumaraswamy: E[X²] - E[X]² cancelled when concentrated (half the float64 digits at
    # a = 1000, b = 0.01)
    Case("Kumaraswamy-concentrated-variance", lambda concentration1, concentration0:
         D.Kumaraswamy(concentration1, concentration0),
         {"concentration1": 1000.0, "concentration0": 0.01}, "variance",
         lambda p: _kumaraswamy_var(p["concentration1"], p["concentration0"]),
         rtol={F32: 2e-5, F64: 1e-8}),   # betaln's own accuracy near (1 + 1e-3, 0.01)
    Case("Kumaraswamy-both-large-variance", lambda concentration1, concentration0:
         D.Kumaraswamy(concentration1, concentration0),
         {"concentration1": 1000.0, "concentration0": 1000.0}, "variance",
         lambda p: _kumaraswamy_var(p["concentration1"], p["concentration0"]),
         rtol={F32: 2e-5, F64: 1e-8}),
    # InverseGamma.icdf was rate/gammaincinv(a, 1 - q): 0 below q = 1e-16
    Case("InverseGamma-icdf-small-q", lambda concentration, rate: D.InverseGamma(
         concentration, rate), {"concentration": 1.0, "rate": 1.0}, "icdf",
         lambda p, q: stats.invgamma(p["concentration"], scale=p["rate"]).ppf(q),
         [1e-300, 1e-30, 1e-10, 0.5, 1 - 1e-7, 1.0], dtypes=(F64,)),
    Case("InverseGamma-icdf-small-q-f32", lambda concentration, rate: D.InverseGamma(
         concentration, rate), {"concentration": 1e4, "rate": 1.0}, "icdf",
         lambda p, q: stats.invgamma(p["concentration"], scale=p["rate"]).ppf(q),
         [1e-30, 1e-10, 0.5], dtypes=(F32,)),
    Case("InverseGamma-large-a", lambda concentration, rate: D.InverseGamma(
         concentration, rate), {"concentration": 1e4, "rate": 1e30}, "log_prob",
         _logpdf(lambda concentration, rate: stats.invgamma(concentration, scale=rate)),
         [8.94e25, 1e26, 1.087e26]),
    # RelaxedBernoulli: logits from probs clamped to eps (-15.9 for p = 1e-12 in float32,
    # not -27.6) shifted the whole law
    Case("RelaxedBernoulli-tiny-p-icdf", lambda temperature, probs: D.RelaxedBernoulli(
         temperature, probs=probs), {"temperature": 1000.0, "probs": 1e-12}, "icdf",
         lambda p, q: _mp(lambda v: _mp_relaxed_icdf(p, v), q), [1e-30, 0.5, 0.999999]),
    Case("RelaxedBernoulli-tiny-p-log_prob", lambda temperature, probs: D.RelaxedBernoulli(
         temperature, probs=probs), {"temperature": 1.0, "probs": 1e-12}, "log_prob",
         lambda p, x: _mp(lambda v: _mp_relaxed_logpdf(p, v), x), [1e-20, 1e-12, 0.5]),
    # VonMises: k (cos d - 1) lost its digits near the mode (float32 cos d is 1 for
    # |d| < 3e-4), 1 - I1/I0 cancelled (float32 circular variance 0 from k = 1e7 on)
    *[Case(f"VonMises-{k:g}-{m}", lambda loc, concentration: D.VonMises(loc, concentration),
           {"loc": 0.0, "concentration": k}, m,
           (lambda m: lambda p: _mp_vonmises(p["concentration"])[m])(m))
      for k in (1e4, 1e7) for m in ("variance", "entropy")],
    Case("VonMises-1e7-log_prob", lambda loc, concentration: D.VonMises(loc, concentration),
         {"loc": 0.0, "concentration": 1e7}, "log_prob",
         lambda p, x: _mp(lambda v: p["concentration"] * mp.cos(v)
                          - mp.log(2 * mp.pi * mp.besseli(0, p["concentration"])), x),
         [0.0, 1e-4, 3e-4, 1e-3]),
    # Multinomial: lgamma(n + 1) - Σ lgamma(k + 1) + Σ k log p subtracted terms of size
    # n log n (float32 a nat off at n = 1e6, float64 4e-6 at 1e9) and the entropy summed
    # arange(n + 1) per category; both now in the saddle-point form
    Case("Multinomial-large-n", lambda probs: D.Multinomial(10 ** 6, probs),
         {"probs": np.array([0.2, 0.3, 0.5])}, "log_prob",
         lambda p, x: np.array([_mp_multinomial(10 ** 6, x, p["probs"])]),
         np.array([2e5, 3e5, 5e5])),
    Case("Multinomial-huge-n", lambda probs: D.Multinomial(10 ** 9, probs),
         {"probs": np.array([0.2, 0.3, 0.5])}, "log_prob",
         lambda p, x: np.array([_mp_multinomial(10 ** 9, x, p["probs"])]),
         np.array([2e8, 3.0001e8, 4.9999e8]), dtypes=(F64,)),
    Case("Multinomial-entropy-large-n", lambda probs: D.Multinomial(10 ** 4, probs),
         {"probs": np.array([0.2, 0.3, 0.5])}, "entropy",
         lambda p: _mp_multinomial_entropy(10 ** 4, p["probs"]), rtol={F32: 2e-5, F64: 1e-9}),
    # Wishart: log det, trace and multigammaln terms of size df·p cancel (float32 a nat
    # off at df = 1e6): float32 evaluated in float64
    Case("Wishart-huge-df", lambda df, cov: D.Wishart(df, covariance_matrix=cov),
         {"df": 1e6, "cov": np.eye(2)}, "log_prob",
         lambda p, x: np.array([stats.wishart(p["df"], p["cov"]).logpdf(x)]),
         1e6 * np.eye(2)),
    Case("Wishart-huge-df-entropy", lambda df, cov: D.Wishart(df, covariance_matrix=cov),
         {"df": 1e6, "cov": np.eye(2)}, "entropy",
         lambda p: stats.wishart(p["df"], p["cov"]).entropy()),
]


_PARAMS = [pytest.param(c, dt, id=f"{c.id}-{np.dtype(dt).name}") for c in CASES
           for dt in c.dtypes]


@pytest.mark.parametrize("case,dtype", _PARAMS)
def test_value(case, dtype):
    d, _ = case.make(dtype)
    p = case.p64(dtype)
    if case.inputs is None:
        got = getattr(d, case.method)
        got = (got() if callable(got) else got).numpy().reshape(-1)
        want = np.atleast_1d(np.asarray(case.ref(p), dtype=np.float64))
    else:
        x = np.asarray(case.inputs, dtype=dtype)
        got = getattr(d, case.method)(_t(x, dtype)).numpy().reshape(-1)
        want = np.asarray(case.ref(p, x.astype(np.float64)), dtype=np.float64).reshape(-1)
    # a reference beyond the float32 range must overflow to ±inf
    big = np.abs(want) > np.finfo(dtype).max
    want = np.where(big, np.sign(want) * np.inf, want)
    assert np.isfinite(got).tolist() == np.isfinite(want).tolist(), (got, want)
    fin = np.isfinite(want)
    np.testing.assert_array_equal(got[~fin], want[~fin])
    np.testing.assert_allclose(got[fin], want[fin], rtol=case.rtol.get(dtype, RTOL[dtype]),
                               atol=0)


_GRAD = [pytest.param(c, dt, id=f"{c.id}-{np.dtype(dt).name}") for c in CASES
         if c.method == "log_prob" for dt in c.dtypes]


@pytest.mark.parametrize("case,dtype", _GRAD)
def test_log_prob_grad_finite(case, dtype):
    """Where the log-density is finite, so are its gradients (value and parameters);
    one value at a time, since a parameter gradient sums over the values."""
    # (a matrix input, Wishart's, is one value)
    values = [case.inputs] if np.ndim(case.inputs) > 1 else case.inputs
    for v in values:
        d, ts = case.make(dtype, grad=True)
        x = _t(v if np.ndim(v) else [v], dtype, grad=True)
        lp = d.log_prob(x)
        if not np.isfinite(lp.numpy()).all():
            continue
        gs = weft.autograd.grad(lp.sum(), list(ts.values()) + [x], allow_unused=True)
        for name, g in zip(list(ts) + ["value"], gs):
            if g is not None:
                assert np.isfinite(g.numpy()).all(), (case.id, name, v, g.numpy())


_TN_GRAD = [(0.0, 1.0, 40.0, 50.0), (0.2, 1.5, -math.inf, -30.0), (0.0, 1.0, 30.0, math.inf),
            (0.1, 0.7, -math.inf, math.inf), (0.0, 1.0, 5.0, 5.05), (0.0, 2.0, 7.0, 8.0),
            (0.3, 1.0, -1.0, 2.0)]


@pytest.mark.parametrize("params", _TN_GRAD, ids=str)
def test_truncated_normal_gradients(params):
    """gradcheck (float64) of every differentiable member with respect to the finite
    parameters, across the narrow, far-tail and general branches and infinite bounds
    (whose 0·inf made the loc/scale gradients NaN); rsample's gradients are finite."""
    fin = [math.isfinite(v) for v in params]

    def build(*xs):
        it = iter(xs)
        return D.TruncatedNormal(*[next(it) if f else _t([v], F64)
                                   for v, f in zip(params, fin)])

    leaves = [_t([v], F64, grad=True) for v, f in zip(params, fin) if f]
    lo, hi = params[2], params[3]
    a = lo if math.isfinite(lo) else (hi - 3.0 if math.isfinite(hi) else -3.0)
    b = hi if math.isfinite(hi) else a + 3.0
    x = _t([a + (b - a) / 3, a + 2 * (b - a) / 3], F64)
    q = _t([0.1, 0.5, 0.9], F64)
    members = {"log_prob": lambda *p: build(*p).log_prob(x), "cdf": lambda *p: build(*p).cdf(x),
               "icdf": lambda *p: build(*p).icdf(q), "mean": lambda *p: build(*p).mean,
               "variance": lambda *p: build(*p).variance,
               "entropy": lambda *p: build(*p).entropy()}
    for name, f in members.items():
        assert weft.autograd.gradcheck(f, tuple(leaves), rtol=1e-4, atol=1e-7), name
    r = build(*leaves).rsample([64])
    for g in weft.autograd.grad(r.sum(), leaves):
        assert np.isfinite(g.numpy()).all()


def _mp_poisson_sf(k, rate):
    return mp.gammainc(k + 1, 0, mp.mpf(rate), regularized=True)      # P(X > k)


def _mp_nb_sf(k, r, p, terms=400):
    r, p = mp.mpf(r), mp.mpf(p)
    j = k + 1
    term = mp.exp(mp.loggamma(j + r) - mp.loggamma(j + 1) - mp.loggamma(r) + j * mp.log(p)
                  + r * mp.log1p(-p))
    total = mp.mpf(0)
    for _ in range(terms):                                              # P(X > k)
        total += term
        term *= (j + r) / (j + 1) * p
        j += 1
    return total


@pytest.mark.parametrize("name,build,sf", [
    ("Poisson(1e6)", lambda: D.Poisson(_t([1e6], F64)), lambda k: _mp_poisson_sf(k, 1e6)),
    ("Poisson(3)", lambda: D.Poisson(_t([3.0], F64)), lambda k: _mp_poisson_sf(k, 3.0)),
    ("NegativeBinomial(1e-3, 0.5)", lambda: D.NegativeBinomial(_t([1e-3], F64),
                                                              probs=_t([0.5], F64)),
     lambda k: _mp_nb_sf(k, 1e-3, 0.5)),
    ("NegativeBinomial(3, 0.3)", lambda: D.NegativeBinomial(_t([3.0], F64),
                                                           probs=_t([0.3], F64)),
     lambda k: _mp_nb_sf(k, 3.0, 0.3))], ids=lambda v: v if isinstance(v, str) else "")
def test_count_icdf_upper_tail(name, build, sf):
    """icdf(q) is the smallest k with P(X > k) <= 1 - q, checked in mpmath at the
    returned k and k - 1; the upper quantiles go through the survival function (the
    cdf rounds to 1 first: Poisson(1e6).icdf(1 - 1e-16) was 48 short, and scipy's ppf
    is off by one or more there too)."""
    qs = [0.7, 1 - 1e-10, 1 - 2 ** -53]
    ks = build().icdf(_t(qs, F64)).numpy().reshape(-1)
    with mp.workdps(40):
        for q, k in zip(qs, ks):
            tail = 1 - mp.mpf(q)
            assert sf(int(k)) <= tail < sf(int(k) - 1), (name, q, k)


def test_count_icdf_beyond_2_53():
    """Quantiles beyond 2^53, where neighbouring floats are more than 1 apart: the
    bisection stops where its midpoint no longer moves (it looped forever before). The
    median of NegativeBinomial(1e6, 1 - 1e-12), mean ~1e18, is checked against the
    Cornish-Fisher value mean + sd(z + (z² - 1)γ/6) at z = 0 (error ~ sd·γ² ~ 4e-6 sd)."""
    r, p = 1e6, 1 - 1e-12
    d = D.NegativeBinomial(_t([r], F64), probs=_t([p], F64))
    with mp.workdps(30):
        q = 1 - mp.mpf(p)
        mean = r * mp.mpf(p) / q
        sd = mp.sqrt(r * mp.mpf(p)) / q
        gamma = (1 + mp.mpf(p)) / mp.sqrt(r * mp.mpf(p))
        median = float(mean - sd * gamma / 6)
    got = d.icdf(_t([1e-10, 0.5, 1 - 1e-10], F64)).numpy().reshape(-1)
    assert np.all(np.isfinite(got)) and np.all(np.diff(got) > 0)
    assert abs(got[1] - median) < 1e-3 * float(sd)
