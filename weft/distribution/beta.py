"""Beta(alpha, beta)."""
from __future__ import annotations

import math

import numpy as np

from .. import ops
from ..autograd import no_grad
from ..autograd.engine import Primitive, apply, defvjp
from ..core.args import xp_of
from ..core.place import special_module
from . import _fused, _gamma_sampling, _util, constraints
from .exponential_family import ExponentialFamily

__all__ = ["Beta"]


# ----------------------------------------------------------------------------------
# log Beta(x; α, β) = xlogy(α-1, x) + xlog1py(β-1, -x) - log B(α, β), -inf outside
# [0, 1], as one primitive. The forward computes (α-1) log x + (β-1) log1p(-x) - log B
# (in cache-sized blocks for one law over many values); where that is NaN -- a value
# outside [0, 1] or NaN, or the 0·log 0 corners α = 1 at x = 0 and β = 1 at x = 1 --
# the exact formula is computed over again for those entries alone.

def _exact(sp, x, a, b, lb):
    xp = xp_of(x)
    lp = sp.xlogy(a - 1, x) + sp.xlog1py(b - 1, -x) - lb
    return xp.where((x >= 0) & (x <= 1), lp, -np.inf).astype(x.dtype, copy=False)


def _log_prob_fwd(x, a, b):
    xp, sp = xp_of(x), special_module(x)
    lb = sp.betaln(a, b).astype(x.dtype, copy=False)
    a1, b1 = a - 1, b - 1
    with np.errstate(all="ignore"):
        if _fused.blockable(x, a, b):
            a, b = _fused.scalar(a), _fused.scalar(b)
            a1, b1, lb = _fused.scalar(a1), _fused.scalar(b1), _fused.scalar(lb)
            xf = x.reshape(-1)
            out = np.empty(x.shape, x.dtype)
            of = out.reshape(-1)
            t = np.empty(_fused.BLOCK, x.dtype)
            for s, e in _fused.blocks(x.size):
                xb, ob, tb = xf[s:e], of[s:e], t[:e - s]
                np.log(xb, out=ob)
                ob *= a1
                np.negative(xb, out=tb)
                np.log1p(tb, out=tb)
                tb *= b1
                ob += tb
                ob -= lb
                if np.isnan(np.add.reduce(ob)):   # one sum flags a NaN anywhere in it
                    bad = np.isnan(ob)
                    ob[bad] = _exact(sp, xb[bad], a, b, lb)
            return out
        out = xp.asarray(xp.log(x) * a1)     # numpy gives a scalar for 0-D operands
        xp.add(out, xp.log1p(-x) * b1, out=out)
        xp.subtract(out, lb, out=out)
        bad = xp.isnan(out)
        if bool(bad.any()):
            full = xp.broadcast_arrays(x, a, b, lb)
            out[bad] = _exact(sp, *(v[bad] for v in full))
        return out


def _log_prob_da(g, ans, x, a, b):
    inside, xs = _inside(x)
    # d/dα xlogy(α-1, x) = log x, taken as 0 at the corner α = 1, x = 0 (xlogy's rule)
    lx = ops.log(ops.where((a == 1) & (x == 0), ops.ones_like(xs), xs))
    return ops.where(inside, g * (lx - (ops.digamma(a) - ops.digamma(a + b))), 0.0)


def _log_prob_db(g, ans, x, a, b):
    inside, xs = _inside(x)
    # the mirror image: log(1-x), taken as 0 at the corner β = 1, x = 1
    l1x = ops.log1p(-ops.where((b == 1) & (x == 1), ops.zeros_like(xs), xs))
    return ops.where(inside, g * (l1x - (ops.digamma(b) - ops.digamma(a + b))), 0.0)


def _log_prob_dx(g, ans, x, a, b):
    inside, xs = _inside(x)
    # (α-1)/x - (β-1)/(1-x), each term 0 at its 0/0 corner (α = 1, x = 0 and β = 1,
    # x = 1), as xlogy's rule takes it; masked only there, so the terms stay
    # differentiable in α and β
    ca, cb = (a == 1) & (x == 0), (b == 1) & (x == 1)
    ta = ops.where(ca, ops.zeros_like(xs), (a - 1.0) / ops.where(ca, ops.ones_like(xs), xs))
    tb = ops.where(cb, ops.zeros_like(xs),
                   (b - 1.0) / ops.where(cb, ops.ones_like(xs), 1.0 - xs))
    return ops.where(inside, g * (ta - tb), 0.0)


def _inside(x):
    """The support mask and ``x`` with the entries outside it replaced by ½ (so rules
    stay finite where ``where`` discards them)."""
    inside = (x >= 0) & (x <= 1)
    return inside, ops.where(inside, x, ops.full_like(x, 0.5))


_log_prob = Primitive("beta_log_prob", _log_prob_fwd)
defvjp(_log_prob, _log_prob_dx, _log_prob_da, _log_prob_db, save_out=False)


# ----------------------------------------------------------------------------------
# The incomplete beta from the log of its argument, and its inverse to a log, for the
# families whose argument is a ratio like d1 x/(d1 x + d2) (StudentT, FisherSnedecor):
# formed from logs, neither x nor 1 - x rounds or over/underflows, and the side whose
# argument is below 1/2 is the accurate one. Below e^-600 the leading term of the
# series, I_x(a, b) = x^a/(a B(a, b)) (1 + a(1-b)x/(a+1) + ...), is exact to rounding
# and stays finite in log space where x itself underflows (StudentT(1).icdf(1e-300)
# needs x = 1e-599).

_TINY_LOG = -600.0


def host_any(mask):
    """One host check, to skip a branch no element takes (the branches cost as much as
    the incomplete beta itself)."""
    with no_grad():
        return bool(mask.any())


def ibeta_log_arg(a, b, log_x, lbeta=None):
    """``I_x(a, b)`` for ``x = exp(log_x)`` in ``[0, 1]``, with finite gradients in
    every argument where ``0 < x < 1`` (also where the other branch is masked).
    ``lbeta``: ``betaln(a, b)`` if the caller has it (of the unbroadcast shapes)."""
    e = log_x.exp()
    tiny = log_x < _TINY_LOG
    one = e >= 1     # (from log_x > -2^-54 on: the density there may be inf)
    odd = tiny | one
    if host_any(odd):
        e = ops.where(odd, ops.full_like(e, 0.5), e)
    out = ops.betainc(a, b, e)
    if host_any(tiny):
        zero = log_x == -math.inf
        lx = ops.where(tiny & ~zero, log_x, ops.full_like(log_x, 2 * _TINY_LOG))
        lead = (a * lx - a.log() - (ops.betaln(a, b) if lbeta is None else lbeta)).exp()
        out = ops.where(tiny, ops.where(zero, ops.zeros_like(lead), lead), out)
    return ops.where(one, ops.ones_like(out), out) if host_any(one) else out


def ibeta_inv_log(a, b, p, lbeta=None):
    """``log x`` with ``I_x(a, b) = p`` (``-inf`` at ``p = 0``), by ``betaincinv``, or
    by inverting the leading term where ``x < e^-600`` (whose log ``betaincinv``
    cannot give)."""
    zero = p == 0
    ps = ops.where(zero, ops.full_like(p, 0.5), p)
    lead = (ps.log() + a.log() + (ops.betaln(a, b) if lbeta is None else lbeta)) / a
    tiny = lead < _TINY_LOG
    x = ops.betaincinv(a, b, ops.where(tiny, ops.full_like(ps, 0.5), ps))
    out = ops.where(tiny, lead, x.log())
    return ops.where(zero, ops.full_like(out, -math.inf), out)


def _flat(a, b, log_t, log_u, lbeta):
    """Where the Beta(a, b) density at ``t`` is below 1 (no gradient)."""
    with no_grad():
        return (a - 1.0) * log_t + (b - 1.0) * log_u - lbeta < 0


def _swap(mask, a, b):
    return ops.where(mask, a, b), ops.where(mask, b, a)


def ibeta_both(a, b, log_t, log_u):
    """``(I_t(a, b), I_u(b, a))`` for ``t = exp(log_t)``, ``u = 1 - t = exp(log_u)``
    (the lower and upper masses), each accurate to its own size. The mass on the side
    whose argument is at most 1/2 is accurate from it; the other one is 1 minus that
    (an absolute error of rounding) unless it is the smaller one and the density there
    is below 1, where its own incomplete beta is better: its argument, near 1, is off
    by a rounding, which moves it by less (the lower tail of StudentT(1e6) at t = -10
    is 1e-23, and 1 minus the upper mass is 0; at (1/2, 0.005) and t = 1 - 1e-12 the
    density is 4e9, and the direct lower mass was 7e-7 off)."""
    lbeta = ops.betaln(a, b)
    small_t = log_t <= log_u
    sa, sb = _swap(small_t, a, b)
    v = ibeta_log_arg(sa, sb, ops.where(small_t, log_t, log_u), lbeta)
    w = 1.0 - v
    direct = (v > 0.5) & _flat(a, b, log_t, log_u, lbeta)
    if host_any(direct):
        # the other side where it is wanted, its own side elsewhere (finite gradients)
        other = ibeta_log_arg(sb, sa, ops.where(small_t != direct, log_t, log_u), lbeta)
        w = ops.where(direct, other, w)
    return ops.where(small_t, v, w), ops.where(small_t, w, v)


def ibeta_quantile_logs(a, b, p, s):
    """``(log t, log(1 - t))`` with ``I_t(a, b) = p`` and ``1 - I_t(a, b) = s`` (pass
    both, each as exact as the caller has it: one of them is rounded where the other
    is small). Inverted on the side where ``t`` or ``1 - t`` is at most 1/2 (chosen by
    the mass below 1/2), so that the other is ``log1p`` of it without rounding; but
    where the density there is below 1 and that side's mass is the larger, rounded
    one, the smaller mass is inverted instead (the mirror of :func:`ibeta_both`: at
    StudentT(1e4).icdf(1e-12), 1 - 2e-12 carried a 5e-5 relative error into the tail
    and 4e-7 into t)."""
    lbeta = ops.betaln(a, b)
    with no_grad():
        m = ops.betainc(a, b, ops.full_like(lbeta, 0.5))
    lower = p <= m

    def logs(use_t):
        sa, sb = _swap(use_t, a, b)
        side = ibeta_inv_log(sa, sb, ops.where(use_t, p, s), lbeta)
        rest = ops.log1p(-side.exp())
        return ops.where(use_t, side, rest), ops.where(use_t, rest, side)

    log_t, log_u = logs(lower)
    swap = _flat(a, b, log_t, log_u, lbeta) & ops.where(lower, p > s, s > p)
    if host_any(swap):
        log_t, log_u = logs(lower ^ swap)
    return log_t, log_u


class Beta(ExponentialFamily):
    """The Beta distribution with density ``x^(α-1) (1-x)^(β-1) / B(α, β)`` on ``[0, 1]``.

    ``rsample`` (**weft+**) draws ``Gα / (Gα + Gβ)`` from two Gamma draws with
    implicit-reparameterisation gradients. ``cdf`` is the regularized incomplete beta
    ``I_x(α, β)`` and ``icdf`` its inverse; both are differentiable in the value, and,
    as the spec defines them, their derivatives in ``α``, ``β`` raise
    ``NotImplementedError`` (``weft.betainc``/``weft.betaincinv`` of the parameters are
    differentiable in them).

    >>> import weft
    >>> from weft.distribution import Beta
    >>> d = Beta(weft.to_tensor([2.0]), weft.to_tensor([3.0]))
    >>> round(d.mean.item(), 4), round(d.cdf(weft.to_tensor(0.4)).item(), 4)
    (0.4, 0.5248)
    """

    arg_constraints = {"alpha": constraints.positive, "beta": constraints.positive}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, alpha, beta):
        self.alpha, self.beta = _util.broadcast_all(alpha, beta)
        self._dtype = self.alpha._data.dtype
        super().__init__(tuple(self.alpha.shape))

    @property
    def mean(self):
        return self.alpha / (self.alpha + self.beta)

    @property
    def variance(self):
        s = self.alpha + self.beta
        return self.alpha * self.beta / (s * s * (s + 1.0))

    @property
    def mode(self):
        """``(α - 1)/(α + β - 2)`` where ``α, β > 1``; NaN elsewhere (0, 1 or no
        unique mode)."""
        m = (self.alpha - 1.0) / (self.alpha + self.beta - 2.0)
        ok = (self.alpha > 1) & (self.beta > 1)
        return ops.where(ok, m, ops.full_like(m, math.nan))

    def rsample(self, shape=()):
        shape = self._extend_shape(_util.sample_shape_arg(shape, "Beta.rsample"))
        return _gamma_sampling.beta(self.alpha, self.beta, shape, "Beta.rsample")

    def log_prob(self, value):
        value = self._value(value)
        _fused.check_value(value, self.alpha, "Beta.log_prob")
        return apply(_log_prob, value, self.alpha, self.beta)

    def cdf(self, value):
        value = self._value(value, "cdf", check=False)
        a, b = self._shapes_without_grad("cdf")
        # float32 in float64: its incomplete beta was 1e-3 off in the tails of
        # Beta(1e4, 1e4)
        return _util.widened(ops.betainc, a, b, ops.clip(value, 0.0, 1.0))

    def icdf(self, value):
        q = self._validate_prob(self._value(value, "icdf", check=False))
        a, b = self._shapes_without_grad("icdf")
        # float32 in float64: its inverse gave 0.5037 for the median of Beta(1e-3, 1e-3)
        return _util.widened(ops.betaincinv, a, b, q)

    def _shapes_without_grad(self, method):
        # api-distribution.md §2 defines Beta's F/Q as differentiable in the value only,
        # the parameter gradients raising: a hook on a copy refuses any that arrives
        def refuse(g):
            raise NotImplementedError(
                f"Beta.{method}: the gradient with respect to alpha and beta is not "
                f"implemented (weft.betainc / weft.betaincinv of the parameters are "
                f"differentiable in them)")
        out = []
        for t in (self.alpha, self.beta):
            if not t.stop_gradient:
                t = t * 1.0
                if not t.stop_gradient:   # (under no_grad nothing is recorded)
                    t.register_hook(refuse)
            out.append(t)
        return out

    def entropy(self):
        a, b = self.alpha, self.beta
        s = a + b
        return (ops.betaln(a, b) - (a - 1.0) * ops.digamma(a) - (b - 1.0) * ops.digamma(b)
                + (s - 2.0) * ops.digamma(s))

    @property
    def _natural_parameters(self):
        return (self.alpha, self.beta)

    def _log_normalizer(self, x, y):
        return ops.lgamma(x) + ops.lgamma(y) - ops.lgamma(x + y)

    @property
    def _mean_carrier_measure(self):
        # h(x) = 1/(x(1-x)) with T(x) = (log x, log(1-x)): E[log h] = -E[log x] - E[log(1-x)]
        ds = ops.digamma(self.alpha + self.beta)
        return -(ops.digamma(self.alpha) - ds) - (ops.digamma(self.beta) - ds)
