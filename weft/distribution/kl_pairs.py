"""Closed-form KL divergences registered with :func:`weft.distribution.register_kl`.

The pairs are those of the spec: 16 of Paddle's 17 pairs (§5, with weft's fixes: an exact
Binomial KL that is ``+inf`` where ``n_p > n_q``, a working Uniform–Uniform KL, the
corrected Geometric formula, Categorical's ``batch + [1]`` shape) and the 71 pairs
weft adds (§6). The ExponentialFamily Bregman fallback lives with the dispatcher in
``kl.py``.

Every formula is written in weft ops, so it is differentiable with respect to the
parameters of both arguments. Most cross-family pairs use one identity,

    KL(p ‖ q) = −H(p) − E_p[log q(X)],

where ``log q`` is affine in a few statistics of X (X, X², log X, log(1−X), e^{−X/β},
|X − μ|), so ``E_p[log q(X)]`` needs only the matching moments of p; the ``_elog_*``
functions below hold one such expectation per family of q, and the helpers after
them (``_beta_elogs``, ``*_log_mgf_neg``, …) the moments of the families of p. Where the support of p is not inside that
of q the result is ``+inf``; masked branches are evaluated at safe stand-in values so
that no NaN reaches a gradient through ``where``.

The classes are looked up by name in the package when it finishes loading
(``register_all`` is called at the end of ``weft/distribution/__init__.py``); ``PAIRS``
lists every registration by class name.
"""
from __future__ import annotations

import math

import numpy as np

from .. import ops
from ..linalg import triangular_solve
from ._util import EULER as _EULER
from ._util import HALF_LOG_2PI as _HALF_LOG_2PI
from ._util import as_tensor
from .kl import kl_divergence, register_kl

_INF = math.inf

PAIRS = []          # (p class name, q class name, function), in registration order


def _kl(p_names, q_names):
    """Record ``fn`` as the KL of every class name in ``p_names`` against every one in
    ``q_names`` (a name or a tuple of names each)."""
    p_names = (p_names,) if isinstance(p_names, str) else p_names
    q_names = (q_names,) if isinstance(q_names, str) else q_names

    def deco(fn):
        PAIRS.extend((p, q, fn) for p in p_names for q in q_names)
        return fn
    return deco


# ----------------------------------------------------------------------------------
# small helpers

def _zeros(x):
    return ops.zeros_like(x)


def _inf_where(bad, value):
    """``+inf`` where ``bad`` holds, else ``value`` (broadcast together)."""
    return ops.where(bad, ops.full_like(value, _INF), value)


def _safe(x, bad, fill):
    """``x`` with ``fill`` where ``bad`` holds: the stand-in keeps masked branches
    finite so that ``where`` passes no NaN back to the gradient."""
    return ops.where(bad, ops.full_like(x, fill), x)


def _batch_shape(p, q):
    return list(np.broadcast_shapes(tuple(p.batch_shape), tuple(q.batch_shape)))


def _all_inf(p, q, param):
    """+inf of the broadcast batch shape, dtype and place of p's ``param``."""
    return ops.full_like(ops.broadcast_to(param, _batch_shape(p, q)), _INF)


def _xlog1my(x, y):
    """``x * log(1 - y)``, 0 where ``x == 0`` (even for ``y == 1``); log1p keeps
    the small-``y`` digits."""
    zero = x == 0
    ys = ops.where(zero, _zeros(y), y)
    with np.errstate(divide="ignore"):      # y == 1 with x != 0: a true -inf
        return ops.where(zero, _zeros(x * ys), x * ops.log1p(-ys))


def _rel(a, b):
    """``(a − b) / b``: the relative change, exact to rounding when ``a ≈ b`` (the
    subtraction is exact there), unlike ``a / b − 1``."""
    return (a - b) / b


def _xm_log1p(x):
    """``x − log(1 + x)`` (≥ 0): with ``x`` from :func:`_rel`, the ratio terms
    ``r − 1 − log r`` of nearly equal distributions keep their relative accuracy."""
    return x - ops.log1p(x)


def _cast_like(x, like):
    return x if x.dtype == like.dtype else ops.cast(x, like.dtype)


def _xlogx(x):
    return ops.xlogy(x, x)


def _event_size_check(p, q, what):
    if tuple(p.event_shape) != tuple(q.event_shape):
        raise ValueError(f"kl_divergence: {what} needs equal event shapes, got "
                         f"{tuple(p.event_shape)} for p and {tuple(q.event_shape)} for q")


# ----------------------------------------------------------------------------------
# E_p[log q(X)] for each family of q, from the statistics of p it needs

def _elog_normal(q, mean, var):
    z = (mean - q.loc) / q.scale
    return -ops.log(q.scale) - _HALF_LOG_2PI - 0.5 * (var / ops.square(q.scale) + ops.square(z))


def _elog_exponential(q, mean):
    return ops.log(q.rate) - q.rate * mean


def _elog_gamma(q, mean, elog):
    a, r = q.concentration, q.rate
    return a * ops.log(r) - ops.lgamma(a) + (a - 1) * elog - r * mean


def _elog_gumbel(q, mean, log_mgf_neg):
    """``log_mgf_neg(t) = log E_p[exp(−tX)]``; E e^{−(X−μ)/β} = e^{μ/β}·E e^{−X/β}."""
    inv = ops.reciprocal(q.scale)
    return (-ops.log(q.scale) - (mean - q.loc) * inv
            - ops.exp(q.loc * inv + log_mgf_neg(inv)))


def _elog_laplace(q, mean_abs_dev):
    return -ops.log(2 * q.scale) - mean_abs_dev / q.scale


def _elog_beta(q, elog, elog1m):
    a, b = q.alpha, q.beta
    return -ops.betaln(a, b) + (a - 1) * elog + (b - 1) * elog1m


def _elog_cb(q, mean):
    """log q(x) of a ContinuousBernoulli is affine in x, so its mean under p is the
    interpolation of the two end values at E_p[X]."""
    lq0, lq1 = _cb_ends(q)
    return lq0 + mean * (lq1 - lq0)


def _elog_pareto(q, elog):
    a = q.alpha
    return ops.log(a) + a * ops.log(q.scale) - (a + 1) * elog


# ----------------------------------------------------------------------------------
# statistics of p

def _beta_elogs(p):
    a, b = p.alpha, p.beta
    dab = ops.digamma(a + b)
    return ops.digamma(a) - dab, ops.digamma(b) - dab


def _uniform_elogs(low, high):
    """E log X and E log(1 − X) for X ~ U(low, high) ⊂ [0, 1] (safe bounds given)."""
    w = high - low
    elog = (_xlogx(high) - _xlogx(low)) / w - 1
    elog1m = (_xlogx(1 - low) - _xlogx(1 - high)) / w - 1
    return elog, elog1m


def _normal_log_mgf_neg(p):
    return lambda t: -t * p.loc + 0.5 * ops.square(t * p.scale)


def _exponential_log_mgf_neg(p):
    return lambda t: -ops.log1p(t / p.rate)


def _gamma_log_mgf_neg(p):
    return lambda t: -p.concentration * ops.log1p(t / p.rate)


def _uniform_log_mgf_neg(p):
    def f(t):
        tw = t * (p.high - p.low)
        return -t * p.low + ops.log(-ops.expm1(-tw)) - ops.log(tw)
    return f


# ----------------------------------------------------------------------------------
# same family (Paddle's 16 closed forms, with weft's fixes)

def _scale_term(sp, sq):
    """``½(r² − 1) − log r`` for ``r = sp/sq``, as ``x − log1p(x) + x²/2``."""
    x = _rel(sp, sq)
    return _xm_log1p(x) + 0.5 * ops.square(x)


def _normal_kl(mp, sp, mq, sq):
    return _scale_term(sp, sq) + 0.5 * ops.square((mp - mq) / sq)


@_kl("Normal", "Normal")
def _normal_normal(p, q):
    if p.loc._data.dtype.kind == "c" or q.loc._data.dtype.kind == "c":
        # circular complex Gaussians (variance σ² split over the two parts):
        # log(σq²/σp²) + σp²/σq² + |μp − μq|²/σq² − 1
        return (2 * _scale_term(p.scale, q.scale)
                + ops.square(ops.abs(p.loc - q.loc) / q.scale))
    return _normal_kl(p.loc, p.scale, q.loc, q.scale)


@_kl("LogNormal", "LogNormal")
def _lognormal_lognormal(p, q):
    return _normal_kl(p.loc, p.scale, q.loc, q.scale)


@_kl("HalfNormal", "HalfNormal")
def _halfnormal_halfnormal(p, q):
    return _scale_term(p.scale, q.scale)


@_kl("Bernoulli", "Bernoulli")
def _bernoulli_bernoulli(p, q):
    a, b = p.probs, q.probs
    return (ops.xlogy(a, a) - ops.xlogy(a, b)) + (_xlog1my(1 - a, a) - _xlog1my(1 - a, b))


@_kl("Beta", "Beta")
def _beta_beta(p, q):
    a1, b1, a2, b2 = p.alpha, p.beta, q.alpha, q.beta
    elog, elog1m = _beta_elogs(p)
    return ops.betaln(a2, b2) - ops.betaln(a1, b1) + (a1 - a2) * elog + (b1 - b2) * elog1m


@_kl("Binomial", "Binomial")
def _binomial_binomial(p, q):
    """Exact: Σ_k Bin(k; n_p, a)·log(Bin(k; n_p, a) / Bin(k; n_q, b)); the terms not
    involving k's factorials have closed expectations, the rest is a sum over p's
    support that vanishes when n_p == n_q. +inf where n_p > n_q."""
    a, b = p.probs, q.probs
    n_p, n_q = _cast_like(p.total_count, a), _cast_like(q.total_count, b)
    bad = n_p > n_q
    n_qs = ops.where(bad, n_p, n_q)            # stand-in so the masked branch is finite
    kl = (n_p * (ops.xlogy(a, a) - ops.xlogy(a, b)) + n_p * _xlog1my(1 - a, a)
          - _xlog1my(n_qs - n_p * a, b) + ops.lgamma(n_p + 1) - ops.lgamma(n_qs + 1))
    if bool((n_p != n_qs).any()):               # the factorial terms differ somewhere
        kmax = int(n_p.max().item())
        shape = [kmax + 1] + [1] * len(kl.shape)
        k = ops.reshape(as_tensor(np.arange(kmax + 1), a._data.dtype, like=a), shape)
        inside = k <= n_p
        ks = ops.where(inside, k, _zeros(k * n_p))
        log_pmf = (ops.lgamma(n_p + 1) - ops.lgamma(ks + 1) - ops.lgamma(n_p - ks + 1)
                   + ops.xlogy(ks, a) + _xlog1my(n_p - ks, a))
        pmf = ops.where(inside, ops.exp(log_pmf), _zeros(log_pmf))
        kl = kl + (pmf * (ops.lgamma(n_qs - ks + 1) - ops.lgamma(n_p - ks + 1))).sum(axis=0)
    return _inf_where(bad, kl)


def _categorical_kl(lp, lq, keepdim):
    if lp.shape[-1] != lq.shape[-1]:
        raise ValueError(f"kl_divergence: the two categorical distributions need the same "
                         f"number of categories, got {lp.shape[-1]} and {lq.shape[-1]}")
    lp = lp - ops.logsumexp(lp, axis=-1, keepdim=True)
    lq = lq - ops.logsumexp(lq, axis=-1, keepdim=True)
    pr = ops.exp(lp)
    none = pr == 0                      # 0·log(0/q) = 0, also where q = 0
    d = ops.where(none, _zeros(lp), lp) - ops.where(none, _zeros(lq), lq)
    return (pr * d).sum(axis=-1, keepdim=keepdim)


@_kl("Categorical", "Categorical")
def _categorical_categorical(p, q):
    # Paddle's shape: batch + [1] (the sampler's softmax semantics, not log_prob's sum)
    return _categorical_kl(p.logits, q.logits, keepdim=True)


@_kl("OneHotCategorical", "OneHotCategorical")
def _onehot_onehot(p, q):
    return _categorical_kl(p.logits, q.logits, keepdim=False)


@_kl("Cauchy", "Cauchy")
def _cauchy_cauchy(p, q):
    # log(((σp+σq)² + Δ²) / (4σpσq)) = log1p(((σp−σq)² + Δ²) / (4σpσq)): no
    # cancellation for nearly equal arguments
    return ops.log1p((ops.square(p.scale - q.scale) + ops.square(p.loc - q.loc))
                     / (4 * p.scale * q.scale))


def _cb_ends(d):
    """log d(0) and log d(1) of a ContinuousBernoulli (log d(x) is affine in x)."""
    return d.log_prob(ops.zeros_like(d.probs)), d.log_prob(ops.ones_like(d.probs))


@_kl("ContinuousBernoulli", "ContinuousBernoulli")
def _cb_cb(p, q):
    # log p − log q is affine too: its mean needs no entropy (whose float32
    # cancellation near probs = ½ would dominate a small KL)
    p0, p1 = _cb_ends(p)
    q0, q1 = _cb_ends(q)
    return (p0 - q0) + p.mean * ((p1 - p0) - (q1 - q0))


@_kl("Dirichlet", "Dirichlet")
def _dirichlet_dirichlet(p, q):
    a, b = p.concentration, q.concentration
    sa = a.sum(axis=-1)
    return (ops.lgamma(sa) - ops.lgamma(b.sum(axis=-1))
            - (ops.lgamma(a) - ops.lgamma(b)).sum(axis=-1)
            + ((a - b) * (ops.digamma(a) - ops.digamma(ops.unsqueeze(sa, -1)))).sum(axis=-1))


@_kl("Exponential", "Exponential")
def _exponential_exponential(p, q):
    return _xm_log1p(_rel(q.rate, p.rate))


@_kl("Gamma", "Gamma")
def _gamma_gamma(p, q):
    a1, r1, a2, r2 = p.concentration, p.rate, q.concentration, q.rate
    x = _rel(r2, r1)          # a2·log(r1/r2) + (r2 − r1)·a1/r1 = a1·x − a2·log1p(x)
    return (ops.lgamma(a2) - ops.lgamma(a1) + (a1 - a2) * ops.digamma(a1)
            + a2 * _xm_log1p(x) + (a1 - a2) * x)


@_kl("Geometric", "Geometric")
def _geometric_geometric(p, q):
    """Failures before the first success: log(a/b) + (1−a)/a · log((1−a)/(1−b))."""
    a, b = p.probs, q.probs
    c = (1 - a) / a
    return ops.log(a) - ops.log(b) + _xlog1my(c, a) - _xlog1my(c, b)


@_kl("Laplace", "Laplace")
def _laplace_laplace(p, q):
    # |Δ|/bq + r·e^{−|Δ|/bp} − 1 − log r, with r = 1 + x
    lr = ops.log1p(_rel(p.scale, q.scale))
    d = ops.abs(p.loc - q.loc)
    return d / q.scale + ops.expm1(lr - d / p.scale) - lr


@_kl("Poisson", "Poisson")
def _poisson_poisson(p, q):
    # a·log(a/b) − a + b = a·(x − log1p(x)) with x = (b − a)/a; b where a = 0
    a, b = p.rate, q.rate
    zero = a == 0
    a_s = _safe(a, zero, 1.0)
    with np.errstate(divide="ignore"):      # b == 0 < a: a true +inf
        kl = a_s * _xm_log1p(_rel(b, a_s))
    return ops.where(zero, b + _zeros(kl), kl)


@_kl("Uniform", "Uniform")
def _uniform_uniform(p, q):
    bad = ops.logical_or(q.low > p.low, q.high < p.high)
    return _inf_where(bad, ops.log((q.high - q.low) / (p.high - p.low)))


@_kl("MultivariateNormal", ("MultivariateNormal", "LowRankMultivariateNormal"))
@_kl("LowRankMultivariateNormal", ("MultivariateNormal", "LowRankMultivariateNormal"))
def _mvn_mvn(p, q):
    """Through the Cholesky factors L_p, L_q of the covariances (for the low-rank
    family, of W Wᵀ + D): Σ log diag L_q − Σ log diag L_p
    + ½(‖L_q⁻¹ L_p‖²_F + ‖L_q⁻¹(μ_q − μ_p)‖² − k)."""
    _event_size_check(p, q, f"{type(p).__name__}–{type(q).__name__}")
    lp, lq = p.scale_tril, q.scale_tril
    k = p.event_shape[0]
    half_logdet = lambda l: ops.log(ops.diagonal(l, axis1=-2, axis2=-1)).sum(axis=-1)
    trace = ops.square(triangular_solve(lq, lp, upper=False)).sum(axis=[-2, -1])
    diff = ops.unsqueeze(q.loc - p.loc, -1)
    maha = ops.square(triangular_solve(lq, diff, upper=False)).sum(axis=[-2, -1])
    kl = half_logdet(lq) - half_logdet(lp) + 0.5 * (trace + maha - k)
    shape = _batch_shape(p, q)
    return kl if list(kl.shape) == shape else ops.broadcast_to(kl, shape)


# ----------------------------------------------------------------------------------
# same family, added by weft (§6)

@_kl("Gumbel", "Gumbel")
def _gumbel_gumbel(p, q):
    # −log r + (μp − μq)/βq + (r − 1)γ + exp((μq − μp)/βq + lgamma(1 + r)) − 1
    x = _rel(p.scale, q.scale)              # r − 1
    d = (p.loc - q.loc) / q.scale
    return -ops.log1p(x) + d + x * _EULER + ops.expm1(ops.lgamma(2 + x) - d)


@_kl("Pareto", "Pareto")
def _pareto_pareto(p, q):
    kl = q.alpha * ops.log(p.scale / q.scale) + _xm_log1p(_rel(q.alpha, p.alpha))
    return _inf_where(p.scale < q.scale, kl)


@_kl("Independent", "Independent")
def _independent_independent(p, q):
    rp, rq = p.reinterpreted_batch_rank, q.reinterpreted_batch_rank
    if rp != rq:
        raise NotImplementedError(f"kl_divergence(Independent, Independent) needs equal "
                                  f"reinterpreted ranks, got {rp} and {rq}")
    kl = kl_divergence(p.base, q.base)
    return kl.sum(axis=list(range(-rp, 0))) if rp else kl


def _same_transform(s, t):
    if s is t:
        return True
    if type(s) is not type(t):
        return False
    ds, dt = vars(s), vars(t)
    if ds.keys() != dt.keys():
        return False
    for k in ds:
        a, b = ds[k], dt[k]
        if hasattr(a, "numpy") and hasattr(b, "numpy"):
            if list(a.shape) != list(b.shape) or not np.array_equal(a.numpy(), b.numpy()):
                return False
        elif isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
            if len(a) != len(b) or not all(
                    _same_transform(x, y) if _is_transform(x) else _equal(x, y)
                    for x, y in zip(a, b)):
                return False
        elif _is_transform(a) and _is_transform(b):
            if not _same_transform(a, b):
                return False
        elif not _equal(a, b):
            return False
    return True


def _is_transform(x):
    from .transform import Transform

    return isinstance(x, Transform)


def _equal(a, b):
    try:
        return bool(a == b)
    except Exception:           # objects without a truthy ==: compare identity
        return a is b


@_kl("TransformedDistribution", "TransformedDistribution")
def _transformed_transformed(p, q):
    """KL is invariant under one bijection applied to both: identical chains give the
    KL of the bases (summed over the event dims the chain introduces)."""
    from .transform import Type

    tp, tq = p.transforms, q.transforms
    if len(tp) != len(tq) or not all(_same_transform(s, t) for s, t in zip(tp, tq)):
        raise NotImplementedError(
            f"kl_divergence({type(p).__name__}, {type(q).__name__}): only implemented for "
            "transformed distributions with identical transform chains")
    if not all(Type.is_injective(t._type) for t in tp):
        # a many-to-one map (|x|, softmax) merges mass: the KL shrinks, no closed form
        raise NotImplementedError(
            f"kl_divergence({type(p).__name__}, {type(q).__name__}): the chain has a "
            "non-injective transform, so the KL of the bases does not carry over")
    if tuple(p.event_shape) != tuple(q.event_shape):
        raise NotImplementedError("kl_divergence(TransformedDistribution, "
                                  "TransformedDistribution) needs equal event shapes")
    bp = p.base
    kl = kl_divergence(bp, q.base)
    extra = len(p.event_shape) - len(bp.event_shape)
    return kl.sum(axis=list(range(-extra, 0))) if extra > 0 else kl


# ----------------------------------------------------------------------------------
# cross-family closed forms: KL = −H(p) − E_p[log q(X)]

@_kl("Bernoulli", "Poisson")
def _bernoulli_poisson(p, q):
    a = p.probs
    neg_h = ops.xlogy(a, a) + _xlog1my(1 - a, a)
    return neg_h - ops.xlogy(a, q.rate) + q.rate


@_kl("Beta", "ContinuousBernoulli")
def _beta_cb(p, q):
    return -p.entropy() - _elog_cb(q, p.mean)


@_kl("Beta", "Exponential")
def _beta_exponential(p, q):
    return -p.entropy() - _elog_exponential(q, p.mean)


@_kl("Beta", "Gamma")
def _beta_gamma(p, q):
    return -p.entropy() - _elog_gamma(q, p.mean, _beta_elogs(p)[0])


@_kl("Beta", "Normal")
def _beta_normal(p, q):
    return -p.entropy() - _elog_normal(q, p.mean, p.variance)


@_kl(("Beta", "ContinuousBernoulli"), "Uniform")
def _unit_interval_uniform(p, q):
    bad = ops.logical_or(q.low > 0, q.high < 1)
    return _inf_where(bad, -p.entropy() + ops.log(q.high - q.low))


@_kl("ContinuousBernoulli", "Exponential")
def _cb_exponential(p, q):
    return -p.entropy() - _elog_exponential(q, p.mean)


@_kl("ContinuousBernoulli", "Normal")
def _cb_normal(p, q):
    return -p.entropy() - _elog_normal(q, p.mean, p.variance)


def _exponential_stats(p):
    inv = ops.reciprocal(p.rate)
    return inv, ops.square(inv), -_EULER - ops.log(p.rate)


@_kl("Exponential", "Gamma")
def _exponential_gamma(p, q):
    mean, _, elog = _exponential_stats(p)
    return -p.entropy() - _elog_gamma(q, mean, elog)


@_kl("Exponential", "Gumbel")
def _exponential_gumbel(p, q):
    return -p.entropy() - _elog_gumbel(q, ops.reciprocal(p.rate), _exponential_log_mgf_neg(p))


@_kl("Exponential", "Normal")
def _exponential_normal(p, q):
    mean, var, _ = _exponential_stats(p)
    return -p.entropy() - _elog_normal(q, mean, var)


@_kl("Gamma", "Exponential")
def _gamma_exponential(p, q):
    return -p.entropy() - _elog_exponential(q, p.concentration / p.rate)


@_kl("Gamma", "Gumbel")
def _gamma_gumbel(p, q):
    return -p.entropy() - _elog_gumbel(q, p.concentration / p.rate, _gamma_log_mgf_neg(p))


@_kl("Gamma", "Normal")
def _gamma_normal(p, q):
    a, r = p.concentration, p.rate
    return -p.entropy() - _elog_normal(q, a / r, a / ops.square(r))


@_kl("Gumbel", "Normal")
def _gumbel_normal(p, q):
    mean = p.loc + _EULER * p.scale
    var = (math.pi ** 2 / 6) * ops.square(p.scale)
    return -p.entropy() - _elog_normal(q, mean, var)


@_kl("Laplace", "Normal")
def _laplace_normal(p, q):
    return -p.entropy() - _elog_normal(q, p.loc, 2 * ops.square(p.scale))


@_kl("Normal", "Gumbel")
def _normal_gumbel(p, q):
    return -p.entropy() - _elog_gumbel(q, p.loc, _normal_log_mgf_neg(p))


@_kl("Normal", "Laplace")
def _normal_laplace(p, q):
    # E|X − μ| for X ~ N(m, s²): the mean of a folded normal
    d = p.loc - q.loc
    s = p.scale
    mad = (s * math.sqrt(2 / math.pi) * ops.exp(-0.5 * ops.square(d / s))
           + d * ops.erf(d / (s * math.sqrt(2))))
    return -p.entropy() - _elog_laplace(q, mad)


def _pareto_safe(p, least):
    """(alpha with a stand-in where alpha <= least, the mask): the moments of order
    ``least`` are infinite there, and so is the KL."""
    bad = p.alpha <= least
    return _safe(p.alpha, bad, least + 1.0), bad


def _pareto_neg_entropy(scale, alpha):
    return ops.log(alpha) - ops.log(scale) - ops.reciprocal(alpha) - 1


@_kl("Pareto", "Exponential")
def _pareto_exponential(p, q):
    a, bad = _pareto_safe(p, 1)
    mean = a * p.scale / (a - 1)
    return _inf_where(bad, _pareto_neg_entropy(p.scale, a) - _elog_exponential(q, mean))


@_kl("Pareto", "Gamma")
def _pareto_gamma(p, q):
    a, bad = _pareto_safe(p, 1)
    mean = a * p.scale / (a - 1)
    elog = ops.log(p.scale) + ops.reciprocal(a)
    return _inf_where(bad, _pareto_neg_entropy(p.scale, a) - _elog_gamma(q, mean, elog))


@_kl("Pareto", "Normal")
def _pareto_normal(p, q):
    a, bad = _pareto_safe(p, 2)
    mean = a * p.scale / (a - 1)
    var = ops.square(p.scale / (a - 1)) * a / (a - 2)
    return _inf_where(bad, _pareto_neg_entropy(p.scale, a) - _elog_normal(q, mean, var))


def _uniform_neg_entropy(p):
    return -ops.log(p.high - p.low)


def _uniform_in_unit(p):
    """Bounds with stand-ins where U(low, high) leaves [0, 1], and that mask."""
    bad = ops.logical_or(p.low < 0, p.high > 1)
    low = _safe(p.low, bad, 0.25)
    high = _safe(p.high, bad, 0.75)
    return low, high, bad


def _uniform_positive(p, lower):
    """Bounds with stand-ins where low < ``lower`` (a float or q's Tensor), and that
    mask."""
    bad = p.low < lower
    low = ops.where(bad, lower + ops.zeros_like(p.low), p.low)
    high = ops.where(bad, lower + 1 + ops.zeros_like(p.high), p.high)
    return low, high, bad


@_kl("Uniform", "Beta")
def _uniform_beta(p, q):
    low, high, bad = _uniform_in_unit(p)
    elog, elog1m = _uniform_elogs(low, high)
    return _inf_where(bad, -ops.log(high - low) - _elog_beta(q, elog, elog1m))


@_kl("Uniform", "ContinuousBernoulli")
def _uniform_cb(p, q):
    low, high, bad = _uniform_in_unit(p)
    return _inf_where(bad, -ops.log(high - low) - _elog_cb(q, 0.5 * (low + high)))


@_kl("Uniform", "Exponential")
def _uniform_exponential(p, q):
    low, high, bad = _uniform_positive(p, 0.0)
    return _inf_where(bad, -ops.log(high - low) - _elog_exponential(q, 0.5 * (low + high)))


@_kl("Uniform", "Gamma")
def _uniform_gamma(p, q):
    low, high, bad = _uniform_positive(p, 0.0)
    elog = _uniform_elogs(low, high)[0]
    return _inf_where(bad, -ops.log(high - low)
                      - _elog_gamma(q, 0.5 * (low + high), elog))


@_kl("Uniform", "Gumbel")
def _uniform_gumbel(p, q):
    return (_uniform_neg_entropy(p)
            - _elog_gumbel(q, 0.5 * (p.low + p.high), _uniform_log_mgf_neg(p)))


@_kl("Uniform", "Normal")
def _uniform_normal(p, q):
    w = p.high - p.low
    return _uniform_neg_entropy(p) - _elog_normal(q, 0.5 * (p.low + p.high), ops.square(w) / 12)


@_kl("Uniform", "Pareto")
def _uniform_pareto(p, q):
    low, high, bad = _uniform_positive(p, q.scale)
    w = high - low
    elog = (_xlogx(high) - _xlogx(low)) / w - 1
    return _inf_where(bad, -ops.log(w) - _elog_pareto(q, elog))


# ----------------------------------------------------------------------------------
# cross-family +inf: the support of p is not inside that of q

def _inf_kl(param):
    """The +inf KL of a family of p, whose parameter ``param`` gives the dtype and
    place of the result."""
    def fn(p, q):
        return _all_inf(p, q, getattr(p, param))
    fn.__name__ = f"_inf_kl_{param}"
    fn.__doc__ = "+inf: p puts mass where q has none."
    return fn


_BOUNDED_OR_POSITIVE = ("Beta", "ContinuousBernoulli", "Exponential", "Gamma", "Pareto",
                        "Uniform")
_kl("Beta", "Pareto")(_inf_kl("alpha"))
_kl("ContinuousBernoulli", "Pareto")(_inf_kl("probs"))
_kl("Exponential", ("Beta", "ContinuousBernoulli", "Pareto", "Uniform"))(_inf_kl("rate"))
_kl("Gamma", ("Beta", "ContinuousBernoulli", "Pareto", "Uniform"))(_inf_kl("concentration"))
_kl("Gumbel", _BOUNDED_OR_POSITIVE)(_inf_kl("loc"))
_kl("Laplace", _BOUNDED_OR_POSITIVE)(_inf_kl("loc"))
_kl("Normal", _BOUNDED_OR_POSITIVE)(_inf_kl("loc"))
_kl("Pareto", ("Beta", "ContinuousBernoulli", "Uniform"))(_inf_kl("scale"))


@_kl("Poisson", "Bernoulli")
def _poisson_bernoulli(p, q):
    """+inf, except for a Poisson of rate 0 (a point mass at 0): −log(1 − q)."""
    zero = p.rate == 0
    return _inf_where(ops.logical_not(zero), -_xlog1my(ops.ones_like(p.rate), q.probs))


@_kl("Poisson", "Binomial")
def _poisson_binomial(p, q):
    """+inf, except for a Poisson of rate 0: −n·log(1 − q)."""
    zero = p.rate == 0
    n = _cast_like(q.total_count, q.probs)
    return _inf_where(ops.logical_not(zero), -_xlog1my(n + ops.zeros_like(p.rate), q.probs))


# ----------------------------------------------------------------------------------

def register_all():
    """Register every pair of ``PAIRS`` whose two classes the package defines (called
    at the end of its ``__init__``; ``tests/distribution/test_kl_pairs.py`` checks
    that all of them are)."""
    from .. import distribution as _pkg

    for p_name, q_name, fn in PAIRS:
        cls_p, cls_q = getattr(_pkg, p_name, None), getattr(_pkg, q_name, None)
        if cls_p is not None and cls_q is not None:
            register_kl(cls_p, cls_q)(fn)
