"""Helpers of the count families (Binomial, Poisson, NegativeBinomial): support checks
and the quantile by bisection over the integers."""
from __future__ import annotations

import math

from .. import ops
from ..autograd import no_grad
from .constraints import is_dependent
from .distribution import _validating


_HALF_LOG_2PI = 0.5 * math.log(2 * math.pi)
# Stirling-series coefficients of stirlerr (below)
_STIRLING = (1 / 12, -1 / 360, 1 / 1260, -1 / 1680, 1 / 1188)


def stirlerr(n):
    """``lgamma(n + 1) - (n + ½) log n + n - ½ log 2π`` for ``n > 0``: by its series
    above 15, directly below (where the terms are small)."""
    big = n > 15
    nb = ops.where(big, n, 16.0)
    inv = 1.0 / nb
    inv2 = inv * inv
    acc = _STIRLING[-1]
    for c in reversed(_STIRLING[:-1]):
        acc = acc * inv2 + c
    ns = ops.where(big, 1.0, n)
    direct = ops.lgamma(ns + 1.0) - (ns + 0.5) * ns.log() + ns - _HALF_LOG_2PI
    return ops.where(big, acc * inv, direct)


def bd0(x, m):
    """The deviance term ``x log(x/m) + m - x`` (``x >= 0``, ``m > 0``), by its series in
    ``v = (x - m)/(x + m)`` where ``|v| < 0.1`` (the closed form subtracts terms of size
    x there)."""
    near = (x - m).abs() < 0.1 * (x + m)
    xs = ops.where(near, x, 1.0)
    ms = ops.where(near, m, 1.0)
    v = (xs - ms) / (xs + ms)
    v2 = v * v
    s = (xs - ms) * v
    e = 2.0 * xs * v
    for j in range(1, 12):          # |v| < 0.1: 11 terms reach float64 rounding
        e = e * v2
        s = s + e / (2 * j + 1)
    xf = ops.where(near, 2.0, x)
    mf = ops.where(near, 1.0, m)
    return ops.where(near, s, ops.xlogy(xf, xf / mf) + mf - xf)


# below this count the textbook log-mass sums lose at most ~n·log(n)·eps ≈ 1e-10
# (float64, also the working precision of float32) and cost a fifth of the saddle-point
# form, so that form is only used where a count or mean reaches it
SADDLE_FROM = 65536.0


def needs_saddle(*sizes):
    """Whether any of the Tensors ``sizes`` (counts, means) reaches ``SADDLE_FROM``
    (one host sync: the two forms cost 5-10x apart)."""
    with no_grad():
        return any(t.size and float(ops.max(t).item()) >= SADDLE_FROM for t in sizes)


def binomial_log_pmf(k, n, lp, lq, p, q):
    """``log C(n, k) + k log p + (n - k) log q`` for real ``0 <= k <= n`` in the
    saddle-point form (Loader, 2000): ``stirlerr(n) - stirlerr(k) - stirlerr(n - k) -
    bd0(k, np) - bd0(n - k, nq) + ½ log(n/(2π k (n - k)))``, whose terms do not grow
    with n. The textbook sum subtracts terms of size n: its absolute error is n·eps,
    1e-5 at n = 1e9 in float64 and a nat at n = 1e6 in float32. ``lp, lq`` are ``log p,
    log q`` (for the k = 0 and k = n ends, which are ``n log q`` and ``n log p``)."""
    inner = (k > 0) & (k < n)
    ks = ops.where(inner, k, 1.0)
    ns = ops.where(inner, n, 2.0)
    rest = ns - ks
    mid = (stirlerr(ns) - stirlerr(ks) - stirlerr(rest) - bd0(ks, ns * p) - bd0(rest, ns * q)
           + 0.5 * (ns.log() - ks.log() - rest.log()) - _HALF_LOG_2PI)
    # the ends: k = 0 gives n log q, k = n gives n log p (0 · log 0 = 0 at p or q = 0)
    at0 = ops.where(n > 0, n, 1.0) * lq
    at_n = ops.where(n > 0, n, 1.0) * lp
    ends = ops.where(k == 0, ops.where(n > 0, at0, 0.0), at_n)
    return ops.where(inner, mid, ends)


def is_count(value):
    """Where ``value`` is a non-negative integer."""
    return (value >= 0) & (value == value.floor())


def safe_count(value, upper=None):
    """``value`` with the entries off the support replaced by 0, so that the log-mass
    formula stays finite there (they are masked to -inf afterwards)."""
    ok = is_count(value)
    if upper is not None:
        ok = ok & (value <= upper)
    return ops.where(ok, value, ops.zeros_like(value))


def check_support(dist, value):
    """Under validation, values off the support raise ``ValueError``."""
    support = dist.support
    if _validating() and support is not None and not is_dependent(support):
        if not bool(support.check(value).all()):
            raise ValueError(f"{type(dist).__name__}.log_prob: value is outside the support "
                             f"{support!r}")


# the most support points an entropy sums one by one (per batch element); beyond, a
# regular integer grid of step h stands in for the sum (see windowed_entropy)
_EXACT_MAX = 1 << 20


def windowed_entropy(dist, lo, hi):
    """``-Σ p log p`` over the integers of ``[lo, hi]`` (Tensors of the batch shape,
    no gradient; the mass outside must be negligible). The window starts at each
    element's own ``lo``, so a large mean costs nothing; its length is the widest of
    the batch (points past an element's ``hi`` add their tiny mass, or nothing off
    the support). A window longer than 2^20 (a standard deviation above ~1e4) is
    summed on a grid of step ``h`` with weight ``h``: the trapezoid rule on a smooth
    function that decays at both ends, whose error ~exp(-2π²(σ/h)²) is far below
    rounding for ``h <= 1e-4 σ`` (the families check that their law is smooth on that
    scale). The old full ``arange(0, max)`` allocated O(mean) memory: 20 GB for
    Binomial(1e9, ½)."""
    with no_grad():
        lo = lo.floor()
        width = int(ops.max(hi.floor() - lo).item()) + 1 if lo.size else 1
    step = -(-width // _EXACT_MAX)
    count = -(-width // step)
    grid = ops.arange(0, count, dtype=lo.dtype) * float(step)
    values = lo + grid.reshape([-1] + [1] * len(lo.shape))
    return step * entropy_sum(dist.log_prob(values))


def entropy_sum(lp):
    """``-sum p log p`` over the leading (support) dim of log-masses ``lp``; entries off
    the support (``-inf``) add 0."""
    on = lp > float("-inf")
    lps = ops.where(on, lp, ops.zeros_like(lp))
    return -ops.where(on, lps.exp() * lps, ops.zeros_like(lp)).sum(axis=0)


def icdf_by_bisection(dist, q, upper=None):
    """The smallest integer ``k >= 0`` with ``dist.cdf(k) >= q`` (no gradient; NaN for
    ``q`` outside [0, 1]).

    ``upper``: a Tensor bound of the support (Binomial's n), or None for an unbounded
    support: the bracket then doubles until it holds every quantile (``q == 1`` gives
    ``inf``). A family with a survival function ``_sf(k) = 1 - cdf(k)`` is tested
    through it above the median (``sf(k) <= 1 - q``, with ``1 - q`` exact): the cdf
    rounds to 1 well before the upper quantiles (Poisson(1e6).icdf(1 - 1e-16) was 48
    short)."""
    inf = float("inf")
    sf = getattr(dist, "_sf", None)
    with no_grad():
        # ``lo`` has the broadcast shape of q and the batch; cdf(lo) = 0 < q for q > 0
        lo = ops.full_like(dist.cdf(ops.zeros_like(q)), -1.0)
        qb = ops.broadcast_to(q, lo.shape)
        high = qb > 0.5
        tail = 1.0 - qb

        # (each side only where some quantile is on it: both cost an incomplete beta
        # or gamma per bisection step)
        if sf is not None and not bool(high.any()):
            sf = None
        all_high = sf is not None and bool(high.all())

        def reached(k):
            if all_high:
                return sf(k) <= tail
            below = dist.cdf(k) >= qb
            return below if sf is None else ops.where(high, sf(k) <= tail, below)

        if upper is not None:
            hi = ops.broadcast_to(upper, lo.shape) + 0.0
        else:
            hi = ops.zeros_like(lo)
            sure = qb >= 1
            for _ in range(1100):   # doubling reaches the largest float
                short = ~reached(hi) & ~sure
                if not bool(short.any()):
                    break
                hi = ops.where(short, 2.0 * hi + 1.0, hi)
            hi = ops.where(sure, ops.full_like(hi, inf), hi)
        fin = hi < inf
        while True:
            # beyond 2^53 neighbouring floats are more than 1 apart: stop where the
            # midpoint no longer moves (that loop never ended for quantiles near 1e18)
            mid = ((lo + hi) * 0.5).floor()
            gap = (hi - lo > 1) & fin & (mid > lo) & (mid < hi)
            if not bool(gap.any()):
                break
            mid = ops.where(gap, mid, hi)
            up = reached(mid)
            hi = ops.where(gap & up, mid, hi)
            lo = ops.where(gap & ~up, mid, lo)
        bad = qb.isnan() | (qb < 0) | (qb > 1)
        return ops.where(bad, ops.full_like(hi, float("nan")), hi).detach()
