"""Derivatives of the regularized incomplete gamma ``P(a, x)`` in its shape ``a``.

Neither scipy nor CuPy has them, and they have no closed form; the implicit
reparameterisation gradient of Gamma samples needs the first (``dz/da =
-dP/da / p(z)``) and second-order gradients the second. Everything here is array
code on float64 that runs unchanged on numpy and CuPy arrays (``xp``).

The results come *scaled*: ``scaled_shape_derivs(a, x, k)`` returns ``(lp, R)`` with
``d^k P / da^k = exp(lp) * R`` and ``lp = a log x - x - lgamma(a) = log(x p(x))``
(``p`` the Gamma(a, 1) density). The scale cancels against the density in
``dz/da = -x R``, so the sampler's gradient neither underflows nor overflows in the
tails. Three methods, by region:

* ``a < _QUAD_A`` and ``x < a + 1``: the power series ``P = x^a e^-x / Gamma(a+1) *
  sum_n x^n / ((a+1)...(a+n))``, differentiated term by term (each term's log
  derivative is ``-sum_k 1/(a+k)``); all terms share a sign where ``x < a``, so
  nothing cancels.
* ``a < _QUAD_A`` and ``x >= a + 1``: Legendre's continued fraction of
  ``Q = 1 - P``, differentiated by carrying the a-derivatives of the Wallis
  recurrences (the approach of Moore, Applied Statistics AS 187), rescaled every
  step.
* ``a >= _QUAD_A``: there both expansions need O(sqrt(a)) terms near the mode, so
  the derivatives are written as integrals, ``d^k P/da^k = E[m_k(log T) 1{T < x}]``
  with ``T ~ Gamma(a)``, ``m_1 = log T - psi(a)``, ``m_2 = m_1^2 - psi'(a)``, and
  because ``E[m_k(log T)] = 0`` the upper tail ``-E[m_k 1{T > x}]`` is used when
  ``x > a``. In ``u = log t`` the integrand is log-concave and close to a Gaussian;
  a Gauss-Legendre rule covers the side of ``log x`` up to where the integrand has
  fallen by ``e^-46`` (found by Newton's method on the convex log-decrement).
"""
from __future__ import annotations

import numpy as np

_QUAD_A = 12.0           # shapes from here on use quadrature
_EPS = 1e-16
_MAX_SERIES = 400        # x < a + 1 < 13: the terms fall below 1e-17 within ~110 steps
_MAX_CF = 5000           # the fraction needs most terms near x = a + 1 for tiny a
_DROP = 46.0             # e^-46 ~ 1e-20 relative to the integrand at log x
_N_GL = 48
_GL = []                 # Gauss-Legendre nodes and weights, computed on first use


def _gauss_legendre():
    if not _GL:
        _GL.extend(np.polynomial.legendre.leggauss(_N_GL))
    return _GL


def _sp(a):
    from ..core.place import special_module  # noqa: PLC0415

    return special_module(a)


def _xp(a):
    from ..core.args import xp_of  # noqa: PLC0415

    return xp_of(a)


def _trigamma(xp, sp, a):
    # an array order: cupyx's polygamma broadcasts its order with the argument
    return sp.polygamma(xp.full_like(a, 1.0), a)


def _series(xp, sp, a, x, order):
    """Scaled derivatives from the power series; ``a, x`` 1-D float64, ``x < a + 1``."""
    n = a.size
    t = xp.ones(n)
    s = xp.ones(n)
    h = xp.zeros(n)
    q = xp.zeros(n)
    s1 = xp.zeros(n)
    s2 = xp.zeros(n)
    live = xp.arange(n)
    aa, xx = a, x
    tt, hh, qq = t, h, q
    for k in range(1, _MAX_SERIES + 1):
        inv = 1.0 / (aa + k)
        tt = tt * (xx * inv)
        hh = hh - inv
        th = tt * hh
        s[live] += tt
        s1[live] += th
        if order == 2:
            qq = qq + inv * inv
            s2[live] += tt * (hh * hh + qq)
        if k % 8 == 0 or k == _MAX_SERIES:
            # keep only the entries whose terms still matter
            go = (tt > _EPS * s[live]) | (xp.abs(th) > _EPS * xp.abs(s1[live]))
            if not bool(go.all()):
                live, aa, xx, tt, hh, qq = (v[go] for v in (live, aa, xx, tt, hh, qq))
                if live.size == 0:
                    break
    ell = xp.log(x) - sp.digamma(a + 1.0)
    if order == 1:
        return (s * ell + s1) / a
    return (s * (ell * ell - _trigamma(xp, sp, a + 1.0)) + 2.0 * ell * s1 + s2) / a


def _cfrac(xp, sp, a, x, order):
    """Scaled derivatives from the continued fraction of Q; ``x >= a + 1``."""
    n = a.size
    z = xp.zeros
    # (A, B) at steps k-1 and k-2 with their first and second a-derivatives:
    # f = 1/(b1 + a2/(b2 + ...)), b_k = x + 2k - 1 - a, a_k = (k-1)(a - k + 1)
    A1, B1 = xp.ones(n), x + 1.0 - a
    A0, B0 = z(n), xp.ones(n)
    dA1, dB1, dA0, dB0 = z(n), -xp.ones(n), z(n), z(n)
    eA1, eB1, eA0, eB0 = z(n), z(n), z(n), z(n)
    f = 1.0 / B1
    df = z(n) + 1.0 / (B1 * B1)
    ef = 2.0 / (B1 * B1 * B1)
    out_f, out_df, out_ef = f.copy(), df.copy(), ef.copy()
    live = xp.arange(n)
    aa, xx = a, x
    for k in range(2, _MAX_CF + 1):
        bk = xx + (2 * k - 1) - aa
        ak = (k - 1) * (aa - (k - 1))
        A2 = bk * A1 + ak * A0
        B2 = bk * B1 + ak * B0
        dA2 = -A1 + bk * dA1 + (k - 1) * A0 + ak * dA0
        dB2 = -B1 + bk * dB1 + (k - 1) * B0 + ak * dB0
        if order == 2:
            eA2 = -2.0 * dA1 + bk * eA1 + 2.0 * (k - 1) * dA0 + ak * eA0
            eB2 = -2.0 * dB1 + bk * eB1 + 2.0 * (k - 1) * dB0 + ak * eB0
        # rescale both steps by 1/B_k (the recurrence is linear and homogeneous)
        r = 1.0 / B2
        A0, B0, dA0, dB0 = A1 * r, B1 * r, dA1 * r, dB1 * r
        A1, B1, dA1, dB1 = A2 * r, 1.0, dA2 * r, dB2 * r
        B1 = xp.ones_like(A1)
        fn = A1
        dfn = dA1 - fn * dB1
        conv = (xp.abs(fn - f) <= _EPS * xp.abs(fn)) & (xp.abs(dfn - df) <= _EPS * xp.abs(dfn))
        if order == 2:
            eA0, eB0 = eA1 * r, eB1 * r
            eA1, eB1 = eA2 * r, eB2 * r
            efn = eA1 - 2.0 * dfn * dB1 - fn * eB1
            conv &= xp.abs(efn - ef) <= _EPS * xp.abs(efn)
            ef = efn
        f, df = fn, dfn
        if k % 4 == 0 or k == _MAX_CF:
            out_f[live], out_df[live] = f, df
            if order == 2:
                out_ef[live] = ef
            if bool(conv.any()):
                go = ~conv
                if not bool(go.any()):
                    break
                live, aa, xx, f, df, ef = (v[go] for v in (live, aa, xx, f, df, ef))
                A0, B0, A1, B1, dA0, dB0, dA1, dB1, eA0, eB0, eA1, eB1 = (
                    v[go] for v in (A0, B0, A1, B1, dA0, dB0, dA1, dB1, eA0, eB0, eA1, eB1))
    m = xp.log(x) - sp.digamma(a)
    if order == 1:
        return -(m * out_f + out_df)
    return -((m * m - _trigamma(xp, sp, a)) * out_f + 2.0 * m * out_df + out_ef)


def _quadrature(xp, sp, a, x, order):
    """Scaled derivatives as Gauss-Legendre integrals over the tail beyond log x."""
    lower = x <= a
    # Newton on the convex, increasing log-decrement D(d) of the integrand at distance d
    # from log x (towards 0 for the lower tail, towards inf for the upper one)
    d = xp.sqrt(2.0 * _DROP / x)
    for _ in range(30):
        ed = xp.exp(xp.where(lower, -d, d))
        val = xp.where(lower, a * d - x * (1.0 - ed), x * (ed - 1.0) - a * d)
        der = xp.where(lower, a - x * ed, x * ed - a)
        step = (val - _DROP) / xp.maximum(der, 1e-300)
        d = xp.maximum(d - step, 0.5 * d)
        if bool((xp.abs(step) <= 1e-3 * d).all()):
            break
    nodes, weights = (xp.asarray(v) for v in _gauss_legendre())
    ux = xp.log(x)
    half = 0.5 * d
    mid = xp.where(lower, ux - half, ux + half)
    u = mid[:, None] + half[:, None] * nodes[None, :]
    w = xp.exp(a[:, None] * (u - ux[:, None]) - (xp.exp(u) - x[:, None]))
    m = u - sp.digamma(a)[:, None]
    if order == 2:
        m = m * m - _trigamma(xp, sp, a)[:, None]
    r = half * ((w * m) @ weights)
    return xp.where(lower, r, -r)


def _eps_for(*arrays):
    """Series/fraction cut-off: float64 precision unless every input is float32 or
    narrower. Then the result is rounded to float32, and 1e-8 keeps it within that
    rounding (Gamma-draw gradients at shapes 0.3, 2.5, 9: largest relative error 6.2e-8
    against the float64 result, 6.0e-8 with 1e-9) for about 7 % less time than 1e-9."""
    wide = any(getattr(v, "dtype", np.dtype(np.float64)).itemsize > 4 for v in arrays)
    return 1e-16 if wide else 1e-8


def scaled_shape_derivs(a, x, order, native=None):
    """``(lp, R)`` with ``d^order P(a, x) / da^order = exp(lp) * R`` (see the module
    docstring). ``a``, ``x``: broadcastable float arrays; computed in float64.
    Entries with ``x`` equal to 0 or inf get ``lp = -inf`` (the derivative is 0);
    ``a == 0`` entries are left to the caller (``lp`` is NaN there).

    Host arrays go to the native kernel (``csrc/special/igamma_shape.cpp``, the same
    methods as scalar code, parallel); CuPy arrays, or ``native=False``, to the
    array code below."""
    xp, sp = _xp(a), _sp(a)
    eps = _eps_for(a, x)
    a, x = xp.broadcast_arrays(xp.asarray(a, dtype=np.float64), xp.asarray(x, dtype=np.float64))
    shape = a.shape
    if native is None:
        native = xp is np
    if native:
        from .._native import extension  # noqa: PLC0415

        a, x = np.ascontiguousarray(a).ravel(), np.ascontiguousarray(x).ravel()
        lp, r = np.empty(a.shape), np.empty(a.shape)
        extension.gamma_shape_derivs(a, x, order, lp, r, eps)
        return lp.reshape(shape), r.reshape(shape)
    a, x = a.ravel(), x.ravel()
    lp = xp.full(a.shape, -np.inf)
    r = xp.zeros(a.shape)
    ok = (a > 0) & (x > 0) & xp.isfinite(x) & xp.isfinite(a)
    bad = xp.isnan(a) | xp.isnan(x) | (a < 0) | (x < 0) | (a == 0) | xp.isinf(a)
    lp[bad] = np.nan
    r[bad] = np.nan
    if bool(ok.any()):
        idx = xp.nonzero(ok)[0]
        ai, xi = a[idx], x[idx]
        lp[idx] = ai * xp.log(xi) - xi - sp.gammaln(ai)
        ri = xp.empty(ai.shape)
        for sel, method in (((ai < _QUAD_A) & (xi < ai + 1.0), _series),
                            ((ai < _QUAD_A) & (xi >= ai + 1.0), _cfrac),
                            (ai >= _QUAD_A, _quadrature)):
            if bool(sel.any()):
                ri[sel] = method(xp, sp, ai[sel], xi[sel], order)
        r[idx] = ri
    return lp.reshape(shape), r.reshape(shape)


def shape_derivative(a, x, order, native=None):
    """``d^order P(a, x) / da^order`` (float64); at ``a == 0`` the one-sided first
    derivative ``-E1(x)`` (the second is NaN there)."""
    xp, sp = _xp(a), _sp(a)
    lp, r = scaled_shape_derivs(a, x, order, native)
    with np.errstate(invalid="ignore", over="ignore"):
        out = xp.where(lp == -np.inf, 0.0, xp.exp(lp) * r)
    a, x = xp.broadcast_arrays(xp.asarray(a, dtype=np.float64), xp.asarray(x, dtype=np.float64))
    at0 = (a == 0) & (x > 0)
    if order == 1 and bool(at0.any()):
        out = xp.where(at0, -sp.exp1(xp.where(at0, x, 1.0)), out)
    return out


def gamma_sample_grad(a, z, native=None):
    """``dz/da = -(dP/da)(z; a) / p(z; a)`` for Gamma(a, 1) samples ``z`` (float64, or
    float32 from the native kernel when ``a`` and ``z`` are both float32): the implicit
    reparameterisation gradient. 0 where ``z`` is 0 or inf."""
    xp = _xp(a)
    if native is None:
        native = xp is np
    if native:
        from .._native import extension  # noqa: PLC0415

        eps = _eps_for(a, z)
        a64 = np.ascontiguousarray(a, dtype=np.float64)
        # float32 draws go in as they are (the kernel widens each one as it reads it)
        wz = np.float32 if np.result_type(a, z) == np.float32 else np.float64
        z64 = np.ascontiguousarray(z, dtype=wz)
        if a64.size != 1:
            a64, z64 = (np.ascontiguousarray(v) for v in np.broadcast_arrays(a64, z64))
        out = np.empty(z64.shape, wz)
        extension.gamma_sample_grad(a64.ravel(), z64.ravel(), out.reshape(-1), eps)
        return out
    lp, r = scaled_shape_derivs(a, z, 1, native)
    a, z = xp.broadcast_arrays(xp.asarray(a, dtype=np.float64), xp.asarray(z, dtype=np.float64))
    return xp.where(lp == -np.inf, 0.0, -z * r)
