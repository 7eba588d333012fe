"""Derivatives of the regularized incomplete beta ``I_x(a, b)`` in its shapes ``a``, ``b``.

Neither scipy nor CuPy has them and they have no closed form. ``Beta``/``StudentT``/
``FisherSnedecor`` cdfs need the first derivatives, the implicit gradient of the
inverse (``dz/da = -(dI/da)(z) / p(z)``) too, and second-order gradients the second
ones (``d2/da2``, ``d2/da db``, ``d2/db2``). Everything here is array code on float64
that runs unchanged on numpy and CuPy arrays (``xp``); host arrays normally go to the
native kernel ``csrc/special/ibeta_shape.cpp``, which runs the same methods.

The results come *scaled*: ``scaled_shape_derivs`` returns ``(lp, R)`` with
``d^(i+j) I / da^i db^j = exp(lp) * R`` and ``lp = a log x + b log(1-x) - log B(a, b)
= log(x (1-x) p(x))`` (``p`` the Beta(a, b) density), so ``(dI/da)(z) / p(z) = z (1-z)
R`` neither underflows nor overflows in the tails.

Method: every quantity is carried as a *jet*, the value with its first (and second)
partial derivatives in ``(a, b)``, and the usual evaluation of ``I`` is run on jets,
so differentiating it term by term (Boik & Robison-Cox, 1998) needs no derivative
written out by hand. With ``I_x(a, b) = 1 - I_{1-x}(b, a)`` the side with ``x <= (a +
1)/(a + b + 2)`` is chosen (the swap exchanges the roles of ``a`` and ``b`` and flips
the sign); there

* ``b x <= 1`` and ``x <= 0.9``: the power series ``I = x^a / B(a, b) * sum_n
  (1-b)_n x^n / (n! (a + n))`` (Pochhammer ``(1-b)_n``);
* otherwise the continued fraction ``I = x^a (1-x)^b / (a B(a, b)) * 1/(1 + d1/(1 +
  d2/(1 + ...)))`` with ``d_{2m+1} = -(a+m)(a+b+m) x / ((a+2m)(a+2m+1))`` and ``d_{2m} =
  m(b-m) x / ((a+2m-1)(a+2m))``, through its Wallis recurrences rescaled at every step.

The prefix is written as ``x^a (1-x)^b / (a b B(a, b))`` times ``b``: ``a b B(a, b) =
Gamma(a+1) Gamma(b+1) / Gamma(a+b)`` has no pole as a shape goes to 0, so for tiny shapes
no terms of size ``1/a^2`` cancel in the second derivatives (the series' first term and
the fraction's ``d1`` are divided out alike). Its derivatives use digamma and trigamma
(``psi(a+b) - psi(a+1)`` ...); for shapes from 10 on, the prefix's value and these differences are
written with Stirling's series so that no two terms of size ``a`` or ``log a`` cancel
(first derivatives stay within ~1e-11 relative up to ``a, b ~ 1e6``).
"""
from __future__ import annotations

import numpy as np

# the device dispatch and the float32 cut-off are those of the incomplete gamma's
from ._igamma_shape import _eps_for, _sp, _xp

_MAX_SERIES = 4000       # x <= 0.9: terms fall like 0.9^n n^-b, below 1e-17 by ~400
_MAX_CF = 50000          # about 1.6 sqrt(max(a, b)) steps are needed near the switch point
_SERIES_X = 0.9


# ---------------------------------------------------------------------------------
# jets: (v, d/da, d/db) at order 1, (v, a, b, aa, ab, bb) at order 2; the components
# are arrays (or numbers) of one shape

def _jmul(x, y):
    if len(x) == 3:
        return (x[0] * y[0], x[0] * y[1] + x[1] * y[0], x[0] * y[2] + x[2] * y[0])
    return (x[0] * y[0], x[0] * y[1] + x[1] * y[0], x[0] * y[2] + x[2] * y[0],
            x[0] * y[3] + 2.0 * x[1] * y[1] + x[3] * y[0],
            x[0] * y[4] + x[1] * y[2] + x[2] * y[1] + x[4] * y[0],
            x[0] * y[5] + 2.0 * x[2] * y[2] + x[5] * y[0])


def _jfun(x, f0, f1, f2):
    """``f(x)`` for a jet ``x`` given ``f, f', f''`` at its value (chain rule)."""
    if len(x) == 3:
        return (f0, f1 * x[1], f1 * x[2])
    return (f0, f1 * x[1], f1 * x[2], f1 * x[3] + f2 * x[1] * x[1],
            f1 * x[4] + f2 * x[1] * x[2], f1 * x[5] + f2 * x[2] * x[2])


def _jrec(x):
    r = 1.0 / x[0]
    return _jfun(x, r, -r * r, 2.0 * r * r * r)


def _jadd(x, y):
    return tuple(u + v for u, v in zip(x, y))


def _jscale(x, c):
    return tuple(u * c for u in x)


def _jvar(v, which, order):
    """The jet of the variable ``a`` (``which == 1``) or ``b`` (2) at ``v``."""
    z = v * 0.0
    one = z + 1.0
    comps = [v, z, z] + ([z, z, z] if order == 2 else [])
    comps[which] = one
    return tuple(comps)


def _jconst(v, order):
    z = v * 0.0
    return (v,) + (z,) * (2 if order == 1 else 5)


def _digamma_tail(x):
    # psi(x) = log x - 1/(2x) - tail, x >= 10 (as csrc/special/psi.h)
    i2 = 1.0 / (x * x)
    return i2 * (1.0 / 12 - i2 * (1.0 / 120 - i2 * (1.0 / 252 - i2 * (1.0 / 240 - i2 * (
        1.0 / 132 - i2 * (691.0 / 32760 - i2 * (1.0 / 12)))))))


def _trigamma_tail(x):
    # psi'(x) = 1/x + 1/(2x^2) + tail, x >= 10
    i1 = 1.0 / x
    i2 = i1 * i1
    return i1 * i2 * (1.0 / 6 - i2 * (1.0 / 30 - i2 * (1.0 / 42 - i2 * (1.0 / 30 - i2 * (
        5.0 / 66 - i2 * (691.0 / 2730 - i2 * (7.0 / 6)))))))


def _stirling_tail(x):
    # lgamma(x) - [(x - 1/2) log x - x + log(2 pi)/2], x >= 10
    i1 = 1.0 / x
    i2 = i1 * i1
    return i1 * (1.0 / 12 - i2 * (1.0 / 360 - i2 * (1.0 / 1260 - i2 * (1.0 / 1680 - i2 * (
        1.0 / 1188 - i2 * (691.0 / 360360 - i2 * (1.0 / 156)))))))


def _log_ratio(xp, d, p, log_x, log_s):
    """``log(x (p+q)/p)`` with ``d = x (p+q) - p``: log1p near the mean."""
    near = xp.abs(d) < 0.5 * p
    return xp.where(near, xp.log1p(xp.where(near, d / p, 0.0)), log_x + log_s - xp.log(p))


def _log_scale(xp, sp, a, b, x, lx, l1x):
    """``a log x + b log(1-x) - log B(a, b)``; for ``a, b >= 10`` with Stirling's formula
    taking the terms of size ``a`` out analytically (nothing large cancels)."""
    s = a + b
    d = x * s - a
    big = (a >= 10.0) & (b >= 10.0)
    aa, bb, ss = (xp.where(big, v, 10.0) for v in (a, b, s))
    log_s = xp.log(ss)
    stirling = (aa * _log_ratio(xp, d, aa, lx, log_s) + bb * _log_ratio(xp, -d, bb, l1x, log_s)
                + 0.5 * (xp.log(aa / ss) + xp.log(bb)) - 0.5 * np.log(2.0 * np.pi)
                - _stirling_tail(aa) - _stirling_tail(bb) + _stirling_tail(ss))
    # one shape below 10: lgamma(hi) - lgamma(s) expanded the same way when hi >= 10
    lo, hi = xp.minimum(a, b), xp.maximum(a, b)
    mixed = ~big & (hi >= 10.0)
    hm, sm = xp.where(mixed, hi, 10.0), xp.where(mixed, s, 11.0)
    log_beta = xp.where(mixed, sp.gammaln(lo) - (hm - 0.5) * xp.log1p(lo / hm) - lo * xp.log(sm)
                        + lo + _stirling_tail(hm) - _stirling_tail(sm), sp.betaln(a, b))
    return xp.where(big, stirling, a * lx + b * l1x - log_beta)


def _gap(xp, sp, p, s, order):
    """``psi(s) - psi(p+1)`` less ``log(s/p)`` where ``p >= 10`` (the caller folds that log
    into ``log x``), and ``psi'(s) - psi'(p+1)``, without cancellation when ``s ~ p``.
    (``p + 1``: the prefix is written with ``p B(p, q) = Gamma(p+1) Gamma(q)/Gamma(s)``,
    which has no pole at ``p = 0``, so no terms of size ``1/p^2`` cancel.)"""
    big = p >= 10.0
    pb, sb = xp.where(big, p, 10.0), xp.where(big, s, 11.0)
    q = sb - pb
    g1 = xp.where(big, q / (2.0 * pb * sb) - _digamma_tail(sb) + _digamma_tail(pb) - 1.0 / pb,
                  sp.digamma(s) - sp.digamma(p + 1.0))
    if order == 1:
        return g1, None
    one = xp.full_like(p, 1.0)
    g2 = xp.where(big, -q / (pb * sb) - q * (sb + pb) / (2.0 * pb * pb * sb * sb)
                  + _trigamma_tail(sb) - _trigamma_tail(pb) + 1.0 / (pb * pb),
                  sp.polygamma(one, s) - sp.polygamma(one, p + 1.0))
    return g1, g2


def _prefix_derivs(xp, sp, p, q, x, lx, l1x, order, with_b_term):
    """The jet of ``p log x [+ q log(1-x)] - log(p q B(p, q))`` minus its value (only its
    derivatives matter: the value goes to ``lp``)."""
    s = p + q
    log_s = xp.log(s)
    d = x * s - p
    gp, tp = _gap(xp, sp, p, s, order)
    gq, tq = _gap(xp, sp, q, s, order)
    da = xp.where(p >= 10.0, _log_ratio(xp, d, p, lx, log_s), lx) + gp
    if with_b_term:
        db = xp.where(q >= 10.0, _log_ratio(xp, -d, q, l1x, log_s), l1x) + gq
    else:
        db = xp.where(q >= 10.0, xp.log1p(p / q), 0.0) + gq
    z = p * 0.0
    if order == 1:
        return (z, da, db)
    ts = sp.polygamma(xp.full_like(p, 1.0), s)
    return (z, da, db, tp, ts, tq)


def _jexp0(x):
    """``exp(x)`` of a jet whose value is 0."""
    one = x[0] * 0.0 + 1.0
    return _jfun(x, one, one, one)


def _series(xp, sp, a, b, x, lx, l1x, order, eps):
    """Jet of ``R = I / exp(lp)`` from the power series (``b x <= 1``, ``x <= 0.9``)."""
    n = a.size
    aj, bj = _jvar(a, 1, order), _jvar(b, 2, order)
    t = _jconst(xp.ones(n), order)      # (1-b)_k x^k / k!
    acc = _jconst(xp.zeros(n), order)
    live = xp.arange(n)
    aa, bb, xx, tt = aj, bj, x, t
    out = [c.copy() for c in acc]
    for k in range(1, _MAX_SERIES + 1):
        # t_k = t_{k-1} (k - b) x / k
        kb = tuple(-c for c in bb)
        kb = (kb[0] + k,) + kb[1:]
        tt = _jscale(_jmul(tt, kb), xx / k)
        ak = (aa[0] + k,) + aa[1:]
        term = _jmul(tt, _jrec(ak))
        acc = _jadd(acc, term)
        if k % 8 == 0 or k == _MAX_SERIES:
            for c, v in zip(out, acc):
                c[live] = v
            go = xp.zeros(live.shape, dtype=bool)
            for tc, ac in zip(term, acc):
                go |= xp.abs(tc) > eps * xp.abs(ac)
            if not bool(go.all()):
                live = live[go]
                if live.size == 0:
                    break
                aa, bb, tt, acc = (tuple(c[go] for c in j) for j in (aa, bb, tt, acc))
                xx = xx[go]
    # I = x^a / (a b B) * b * (1 + a sum): R = (1-x)^-b / (a b) * prefix * b * (...)
    g = _jmul(aj, tuple(out))
    g = (g[0] + 1.0,) + g[1:]
    pre = _prefix_derivs(xp, sp, a, b, x, lx, l1x, order, with_b_term=False)
    return _jscale(_jmul(_jmul(_jexp0(pre), g), bj), xp.exp(-b * l1x) / (a * b))


def _cf_d(aj, bj, x, k):
    """The jet of the continued fraction's coefficient ``d_k``."""
    m = k // 2
    if k == 1:
        # a cancels: -(a+b) x / (a+1), finite as a -> 0
        return _jscale(_jmul(_jadd(aj, bj), _jrec((aj[0] + 1.0,) + aj[1:])), -x)
    if k % 2:
        # -(a+m)(a+b+m) x / ((a+2m)(a+2m+1))
        am = (aj[0] + m,) + aj[1:]
        abm = _jadd(aj, bj)
        abm = (abm[0] + m,) + abm[1:]
        num = _jmul(am, abm)
        num = _jscale(num, -x)
        den = _jmul((aj[0] + 2 * m,) + aj[1:], (aj[0] + (2 * m + 1),) + aj[1:])
    else:
        # m (b - m) x / ((a+2m-1)(a+2m))
        num = _jscale((bj[0] - m,) + bj[1:], m * x)
        den = _jmul((aj[0] + (2 * m - 1),) + aj[1:], (aj[0] + 2 * m,) + aj[1:])
    return _jmul(num, _jrec(den))


def _jdiv(x, y):
    return _jmul(x, _jrec(y))


def _cfrac(xp, sp, a, b, x, lx, l1x, order, eps):
    """Jet of ``R = I / exp(lp)`` from the continued fraction (``x <= (a+1)/(a+b+2)``)."""
    n = a.size
    aj, bj = _jvar(a, 1, order), _jvar(b, 2, order)
    one, zero = _jconst(xp.ones(n), order), _jconst(xp.zeros(n), order)
    # A_k = A_{k-1} + d_{k-1} A_{k-2} (same for B), f = A/B; A_0 = 0, A_1 = 1, B_0 = B_1 = 1
    A0, B0, A1, B1 = zero, one, one, one
    f = one
    out = [c.copy() for c in f]
    live = xp.arange(n)
    aa, bb, xx = aj, bj, x
    for k in range(1, _MAX_CF + 1):
        d = _cf_d(aa, bb, xx, k)
        A2 = _jadd(A1, _jmul(d, A0))
        B2 = _jadd(B1, _jmul(d, B0))
        r = 1.0 / B2[0]
        A0, B0, A1, B1 = _jscale(A1, r), _jscale(B1, r), _jscale(A2, r), _jscale(B2, r)
        fn = _jdiv(A1, B1)
        # a derivative may sit at a zero crossing while the parts it is formed from
        # (A's and f B's components) do not: their size bounds the rounding noise
        conv = xp.ones(live.shape, dtype=bool)
        for u, v, pa, pb in zip(fn, f, A1, B1):
            conv &= xp.abs(u - v) <= eps * (xp.abs(u) + xp.abs(pa) + xp.abs(fn[0] * pb))
        f = fn
        if k % 4 == 0 or k == _MAX_CF:
            for c, v in zip(out, f):
                c[live] = v
            if bool(conv.any()):
                go = ~conv
                if not bool(go.any()):
                    break
                live = live[go]
                aa, bb, A0, B0, A1, B1, f = (tuple(c[go] for c in j)
                                             for j in (aa, bb, A0, B0, A1, B1, f))
                xx = xx[go]
    if live.size and k == _MAX_CF:
        # not converged (shapes beyond ~1e9 here, ~1e11 in the kernel): no result
        for c in out:
            c[live] = np.nan
    # I = x^a (1-x)^b / (a b B) * b * fraction
    pre = _prefix_derivs(xp, sp, a, b, x, lx, l1x, order, with_b_term=True)
    return _jscale(_jmul(_jmul(_jexp0(pre), tuple(out)), bj), 1.0 / (a * b))


_INDEX = {(1, 0): 1, (0, 1): 2, (2, 0): 3, (1, 1): 4, (0, 2): 5}


def _check_order(da, db):
    if (da, db) not in _INDEX:
        raise ValueError(f"ibeta shape derivative: (da, db) must be one of {sorted(_INDEX)}, "
                         f"got {(da, db)}")


def scaled_shape_derivs(a, b, x, da, db, native=None):
    """``(lp, R)`` with ``d^(da+db) I_x(a, b) / da^da db^db = exp(lp) * R`` (see the
    module docstring); ``da + db`` is 1 or 2. ``a``, ``b``, ``x``: broadcastable float
    arrays; computed in float64. Entries with ``x`` equal to 0 or 1 get ``lp = -inf``
    (the derivative is 0); shapes that are not finite and positive (or whose product is
    below 1e-300), or ``x`` outside ``[0, 1]``, give NaN.

    Host arrays go to the native kernel (``csrc/special/ibeta_shape.cpp``); CuPy arrays,
    or ``native=False``, to the array code above."""
    _check_order(da, db)
    xp, sp = _xp(a), _sp(a)
    eps = _eps_for(a, b, x)
    a, b, x = xp.broadcast_arrays(*(xp.asarray(v, dtype=np.float64) for v in (a, b, x)))
    shape = a.shape
    if native is None:
        native = xp is np
    if native:
        from .._native import extension  # noqa: PLC0415

        a, b, x = (np.ascontiguousarray(v).ravel() for v in (a, b, x))
        lp, r = np.empty(a.shape), np.empty(a.shape)
        extension.beta_shape_derivs(a, b, x, da, db, lp, r, eps)
        return lp.reshape(shape), r.reshape(shape)
    a, b, x = a.ravel(), b.ravel(), x.ravel()
    lp = xp.full(a.shape, -np.inf)
    r = xp.zeros(a.shape)
    fin = xp.isfinite(a) & xp.isfinite(b)
    bad = ~fin | ~(a > 0) | ~(b > 0) | ~((x >= 0) & (x <= 1))
    # R carries 1/(a b): shapes whose product is below 1e-300 would overflow it
    bad |= ~(a * b >= 1e-300) & (x > 0) & (x < 1)
    lp[bad] = np.nan
    r[bad] = np.nan
    ok = ~bad & (x > 0) & (x < 1)
    if bool(ok.any()):
        idx = xp.nonzero(ok)[0]
        ai, bi, xi = a[idx], b[idx], x[idx]
        lx, l1x = xp.log(xi), xp.log1p(-xi)
        lp[idx] = _log_scale(xp, sp, ai, bi, xi, lx, l1x)
        # I_x(a, b) = 1 - I_{1-x}(b, a): work where x <= (a + 1)/(a + b + 2)
        sw = xi > (ai + 1.0) / (ai + bi + 2.0)
        a2, b2 = xp.where(sw, bi, ai), xp.where(sw, ai, bi)
        x2 = xp.where(sw, 1.0 - xi, xi)
        lx2, l1x2 = xp.where(sw, l1x, lx), xp.where(sw, lx, l1x)
        order = da + db
        # the swapped frame's derivative: (da, db) -> (db, da), sign -1
        k_plain, k_swap = _INDEX[(da, db)], _INDEX[(db, da)]
        ri = xp.empty(ai.shape)
        use_series = (b2 * x2 <= 1.0) & (x2 <= _SERIES_X)
        for sel, method in ((use_series, _series), (~use_series, _cfrac)):
            if bool(sel.any()):
                jet = method(xp, sp, a2[sel], b2[sel], x2[sel], lx2[sel], l1x2[sel], order, eps)
                ri[sel] = xp.where(sw[sel], -jet[k_swap], jet[k_plain])
        r[idx] = ri
    return lp.reshape(shape), r.reshape(shape)


def shape_derivative(a, b, x, da, db, native=None):
    """``d^(da+db) I_x(a, b) / da^da db^db`` (float64)."""
    xp = _xp(a)
    lp, r = scaled_shape_derivs(a, b, x, da, db, native)
    # exp(lp + log|R|): for shapes near 0 exp(lp) alone may underflow while R overflows
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        return xp.where(lp == -np.inf, 0.0, xp.sign(r) * xp.exp(lp + xp.log(xp.abs(r))))


def quantile_ratio(a, b, z, da, db, native=None):
    """``(d^(da+db) I / da^da db^db)(z) / p(z)`` (float64, ``p`` the Beta(a, b) density):
    minus the implicit derivative of the quantile ``z`` at ``da + db == 1``; 0 where
    ``z`` is 0 or 1."""
    xp = _xp(a)
    lp, r = scaled_shape_derivs(a, b, z, da, db, native)
    a, b, z = xp.broadcast_arrays(*(xp.asarray(v, dtype=np.float64) for v in (a, b, z)))
    return xp.where(lp == -np.inf, 0.0, z * (1.0 - z) * r)
