"""Helpers of the count families (Binomial, Poisson, NegativeBinomial): support checks
and the quantile by bisection over the integers."""
from __future__ import annotations

from .. import ops
from ..autograd import no_grad
from .constraints import is_dependent
from .distribution import _validating


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
    ``inf``)."""
    inf = float("inf")
    with no_grad():
        # ``lo`` has the broadcast shape of q and the batch; cdf(lo) = 0 < q for q > 0
        lo = ops.full_like(dist.cdf(ops.zeros_like(q)), -1.0)
        qb = ops.broadcast_to(q, lo.shape)
        if upper is not None:
            hi = ops.broadcast_to(upper, lo.shape) + 0.0
        else:
            hi = ops.zeros_like(lo)
            sure = qb >= 1
            for _ in range(1100):   # doubling reaches the largest float
                short = (dist.cdf(hi) < qb) & ~sure
                if not bool(short.any()):
                    break
                hi = ops.where(short, 2.0 * hi + 1.0, hi)
            hi = ops.where(sure, ops.full_like(hi, inf), hi)
        fin = hi < inf
        while True:
            gap = (hi - lo > 1) & fin
            if not bool(gap.any()):
                break
            mid = ops.where(gap, ((lo + hi) * 0.5).floor(), hi)
            up = dist.cdf(mid) >= qb
            hi = ops.where(gap & up, mid, hi)
            lo = ops.where(gap & ~up, mid, lo)
        bad = qb.isnan() | (qb < 0) | (qb > 1)
        return ops.where(bad, ops.full_like(hi, float("nan")), hi).detach()
