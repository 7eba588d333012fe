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


def _t(x, dtype, grad=False):
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
        ts = {k: _t([v], dtype, grad) for k, v in self.params.items()}
        return self.build(**ts), ts

    def p64(self, dtype):
        """The parameters as the distribution sees them (rounded to ``dtype``)."""
        return {k: float(dtype(v)) for k, v in self.params.items()}


def _logpdf(dist):
    return lambda p, x: dist(**p).logpdf(x)


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
         rtol={F64: 1e-9}),   # scipy.special.betaln(5e5, ½) itself is off by 2e-10
    Case("StudentT-huge-df-entropy", lambda df, loc, scale: D.StudentT(df, loc, scale),
         {"df": 1e6, "loc": 0.0, "scale": 1.0}, "entropy",
         lambda p: _mp_t_entropy(p["df"]) + math.log(p["scale"]), rtol={F64: 1e-9}),
    Case("StudentT-tiny-scale-far", lambda df, loc, scale: D.StudentT(df, loc, scale),
         {"df": 0.01, "loc": 0.0, "scale": 1e-30}, "log_prob",
         _logpdf(lambda df, loc, scale: stats.t(df, loc, scale)), [-1e10, -7e-10, 1e3, 1e10]),
    Case("StudentT-cauchy-far", lambda df, loc, scale: D.StudentT(df, loc, scale),
         {"df": 1.0, "loc": 0.0, "scale": 1.0}, "log_prob",
         _logpdf(lambda df, loc, scale: stats.t(df, loc, scale)), [-3e29, 1e20]),
]


def _mp_t_entropy(df):
    with mp.workdps(50):
        nu = mp.mpf(df)
        h = (nu + 1) / 2
        return float(h * (mp.digamma(h) - mp.digamma(nu / 2)) + mp.log(nu) / 2
                     + mp.log(mp.beta(nu / 2, mp.mpf(1) / 2)))


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
    for v in case.inputs:
        d, ts = case.make(dtype, grad=True)
        x = _t([v], dtype, grad=True)
        lp = d.log_prob(x)
        if not np.isfinite(lp.numpy()).all():
            continue
        gs = weft.autograd.grad(lp.sum(), list(ts.values()) + [x], allow_unused=True)
        for name, g in zip(list(ts) + ["value"], gs):
            if g is not None:
                assert np.isfinite(g.numpy()).all(), (case.id, name, v, g.numpy())
