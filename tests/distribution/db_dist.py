"""Distribution-database entries of the families in helper ``dist``'s part of
``weft.distribution`` (see ``distdb.py`` for the entry format)."""
from __future__ import annotations

import numpy as np
from scipy import stats

import weft.distribution as D

from .distdb import METHODS, DistInfo, Param, positive, real, unit

DISTS = [
    DistInfo(
        "Normal",
        build=lambda loc, scale: D.Normal(loc, scale),
        params={"loc": real(), "scale": positive()},
        ref=lambda loc, scale: stats.norm(loc, scale),
        methods=METHODS + ("mode",),
        closed={"mode": lambda p: p["loc"]},
        has_rsample=True,
        invalid=[{"loc": np.array([0.0]), "scale": np.array([-1.0])},
                 {"loc": np.array([np.nan]), "scale": np.array([1.0])}],
    ),
    DistInfo(
        "Exponential",
        build=lambda rate: D.Exponential(rate),
        params={"rate": positive()},
        ref=lambda rate: stats.expon(scale=1 / rate),
        methods=METHODS + ("mode",),
        closed={"mode": lambda p: np.zeros_like(p["rate"])},
        has_rsample=True,
        invalid=[{"rate": np.array([0.0])}, {"rate": np.array([-1.0])}],
        outside=lambda p: -np.ones_like(p["rate"]),
    ),
    DistInfo(
        "Uniform",
        build=lambda low, high: D.Uniform(low, high),
        params={"low": real(-2.0, 0.0), "high": real(0.5, 2.0)},
        ref=lambda low, high: stats.uniform(low, high - low),
        has_rsample=True,
        raises={"mode": NotImplementedError},
        invalid=[{"low": np.array([1.0]), "high": np.array([0.0])}],
        outside=lambda p: p["high"] + 0.5,
    ),
    DistInfo(
        "Laplace",
        build=lambda loc, scale: D.Laplace(loc, scale),
        params={"loc": real(), "scale": positive()},
        ref=lambda loc, scale: stats.laplace(loc, scale),
        methods=METHODS + ("mode",),
        closed={"mode": lambda p: p["loc"]},
        has_rsample=True,
        invalid=[{"loc": np.array([0.0]), "scale": np.array([0.0])}],
    ),
    DistInfo(
        "Cauchy",
        build=lambda loc, scale: D.Cauchy(loc, scale),
        params={"loc": real(), "scale": positive()},
        ref=lambda loc, scale: stats.cauchy(loc, scale),
        methods=("log_prob", "prob", "cdf", "icdf", "entropy", "mode"),
        closed={"mode": lambda p: p["loc"]},
        raises={"mean": ValueError, "variance": ValueError, "stddev": ValueError},
        moments=False,
        has_rsample=True,
        invalid=[{"loc": np.array([0.0]), "scale": np.array([-1.0])}],
    ),
    DistInfo(
        "Gumbel",
        build=lambda loc, scale: D.Gumbel(loc, scale),
        params={"loc": real(), "scale": positive()},
        ref=lambda loc, scale: stats.gumbel_r(loc, scale),
        methods=METHODS + ("mode",),
        closed={"mode": lambda p: p["loc"]},
        has_rsample=True,
        invalid=[{"loc": np.array([0.0]), "scale": np.array([-1.0])}],
    ),
    DistInfo(
        "LogNormal",
        build=lambda loc, scale: D.LogNormal(loc, scale),
        params={"loc": real(-1.0, 1.0), "scale": positive(0.2, 0.8)},
        ref=lambda loc, scale: stats.lognorm(scale, scale=np.exp(loc)),
        methods=METHODS + ("mode",),
        closed={"mode": lambda p: np.exp(p["loc"] - p["scale"] ** 2)},
        has_rsample=True,
        invalid=[{"loc": np.array([0.0]), "scale": np.array([-1.0])}],
        outside=lambda p: -np.ones_like(p["loc"]),
    ),
    DistInfo(
        "HalfNormal",
        build=lambda scale: D.HalfNormal(scale),
        params={"scale": positive()},
        ref=lambda scale: stats.halfnorm(scale=scale),
        methods=METHODS + ("mode",),
        closed={"mode": lambda p: np.zeros_like(p["scale"])},
        has_rsample=True,
        invalid=[{"scale": np.array([-1.0])}],
        outside=lambda p: -np.ones_like(p["scale"]),
    ),
    DistInfo(
        "HalfCauchy",
        build=lambda scale: D.HalfCauchy(scale),
        params={"scale": positive()},
        ref=lambda scale: stats.halfcauchy(scale=scale),
        methods=METHODS + ("mode",),
        closed={"mode": lambda p: np.zeros_like(p["scale"]),
                "mean": lambda p: np.full_like(p["scale"], np.inf),
                "variance": lambda p: np.full_like(p["scale"], np.inf),
                "stddev": lambda p: np.full_like(p["scale"], np.inf)},
        moments=False,
        has_rsample=True,
        invalid=[{"scale": np.array([-1.0])}],
        outside=lambda p: -np.ones_like(p["scale"]),
    ),
]


# ---------------------------------------------------------------------------------
# discrete families

def _norm(p):
    return p / p.sum(-1, keepdims=True)


def _categorical_prob(p, value):
    prob = _norm(p["logits"])
    v = value.astype(np.int64)
    return prob[v] if prob.ndim == 1 else np.take_along_axis(prob, v, -1)


def _softmax(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


class _MultinomialRef:
    """scipy.stats.multinomial with the variance (the covariance diagonal) and the
    probabilities normalised as weft does."""

    def __init__(self, probs, total_count):
        self.d = stats.multinomial(total_count, _norm(probs))

    def logpmf(self, x):
        return self.d.logpmf(x)

    def pmf(self, x):
        return self.d.pmf(x)

    def mean(self):
        return self.d.mean()

    def var(self):
        return np.diagonal(self.d.cov(), axis1=-2, axis2=-1)

    def std(self):
        return np.sqrt(self.var())

    def entropy(self):
        return self.d.entropy()


def _one_hot_values(rng, p, shape):
    k = shape[-1]
    return np.eye(k)[rng.integers(0, k, shape[:-1])]


def _one_hot_closed(key):
    def norm(p):
        return _norm(p["probs"]) if "probs" in p else _softmax(p["logits"])
    return {
        "log_prob": lambda p, v: (v * np.log(norm(p))).sum(-1),
        "prob": lambda p, v: np.exp((v * np.log(norm(p))).sum(-1)),
        "mean": lambda p: norm(p),
        "variance": lambda p: norm(p) * (1 - norm(p)),
        "stddev": lambda p: np.sqrt(norm(p) * (1 - norm(p))),
        "entropy": lambda p: -(norm(p) * np.log(norm(p))).sum(-1),
        "mode": lambda p: np.eye(norm(p).shape[-1])[norm(p).argmax(-1)],
    }


_NO_CDF = {"cdf": NotImplementedError, "icdf": NotImplementedError,
           "rsample": NotImplementedError}

DISTS += [
    DistInfo(
        "Bernoulli",
        build=lambda probs: D.Bernoulli(probs),
        params={"probs": unit()},
        ref=lambda probs: stats.bernoulli(probs),
        methods=METHODS + ("mode",),
        closed={"mode": lambda p: (p["probs"] > 0.5).astype(float)},
        discrete=True,
        has_rsample=True,
        invalid=[{"probs": np.array([1.5])}, {"probs": np.array([-0.1])}],
        outside=lambda p: np.full_like(p["probs"], 0.5),
    ),
    DistInfo(
        "Categorical",
        build=lambda logits: D.Categorical(logits),
        params={"logits": Param(lambda rng, s: rng.uniform(0.5, 2.5, s), event=(4,))},
        closed={"log_prob": lambda p, v: np.log(_categorical_prob(p, v)),
                "prob": _categorical_prob,
                "entropy": lambda p: -(_softmax(p["logits"]) *
                                       np.log(_softmax(p["logits"]))).sum(-1),
                "mean": lambda p: np.full(p["logits"].shape[:-1], np.nan),
                "variance": lambda p: np.full(p["logits"].shape[:-1], np.nan),
                "stddev": lambda p: np.full(p["logits"].shape[:-1], np.nan)},
        methods=("log_prob", "prob", "entropy", "mean", "variance", "stddev"),
        raises=_NO_CDF,
        values=lambda rng, p, shape: rng.integers(0, 4, shape).astype(float),
        value_shape=lambda batch, event: batch + (2,) if batch else (2,),
        discrete=True,
        moments=False,
        sample_dtype=np.int64,
    ),
    DistInfo(
        "Geometric",
        build=lambda probs: D.Geometric(probs),
        params={"probs": unit(0.2, 0.9)},
        ref=lambda probs: stats.geom(probs, loc=-1),
        methods=METHODS + ("mode",),
        closed={"mode": lambda p: np.zeros_like(p["probs"])},
        discrete=True,
        has_rsample=True,
        invalid=[{"probs": np.array([0.0])}, {"probs": np.array([1.5])}],
        outside=lambda p: -np.ones_like(p["probs"]),
    ),
    DistInfo(
        "Multinomial",
        build=lambda probs, total_count: D.Multinomial(total_count, probs),
        params={"probs": Param(lambda rng, s: rng.uniform(0.2, 1.0, s), event=(3,))},
        fixed={"total_count": 5},
        ref=lambda probs, total_count: _MultinomialRef(probs, total_count),
        methods=("log_prob", "prob", "mean", "variance", "stddev", "entropy"),
        raises=_NO_CDF,
        event_shape=lambda p: (3,),
        values=lambda rng, p, shape: rng.multinomial(5, _norm(p["probs"]), size=shape[:-1]),
        discrete=True,
        invalid=[{"probs": np.array([[-0.1, 0.5, 0.6]])}],
        outside=lambda p: np.broadcast_to(np.array([-1.0, 3.0, 3.0]), p["probs"].shape).copy(),
    ),
    DistInfo(
        "OneHotCategorical",
        build=lambda probs: D.OneHotCategorical(probs=probs),
        params={"probs": Param(lambda rng, s: rng.uniform(0.2, 1.0, s), event=(4,))},
        closed=_one_hot_closed("probs"),
        methods=("log_prob", "prob", "mean", "variance", "stddev", "entropy", "mode"),
        raises=_NO_CDF,
        event_shape=lambda p: (4,),
        values=_one_hot_values,
        discrete=True,
        invalid=[{"probs": np.array([[-0.1, 0.5, 0.6, 0.1]])}],
        outside=lambda p: np.broadcast_to(np.array([1.0, 1.0, 0.0, 0.0]),
                                          p["probs"].shape).copy(),
    ),
    DistInfo(
        "OneHotCategorical-logits",
        build=lambda logits: D.OneHotCategorical(logits=logits),
        params={"logits": Param(lambda rng, s: rng.normal(size=s), event=(4,))},
        closed=_one_hot_closed("logits"),
        methods=("log_prob", "prob", "mean", "variance", "stddev", "entropy", "mode"),
        raises=_NO_CDF,
        event_shape=lambda p: (4,),
        values=_one_hot_values,
        discrete=True,
    ),
]


# ---------------------------------------------------------------------------------
# multivariate normals

def _tril_gen(rng, s):
    """Lower-triangular factors with a positive diagonal, well conditioned."""
    a = np.tril(rng.normal(scale=0.5, size=s), -1)
    return a + np.eye(s[-1]) * rng.uniform(0.7, 1.5, s[:-1])[..., None, :]


def _cov_gen(rng, s):
    lo = _tril_gen(rng, s)
    return lo @ np.swapaxes(lo, -1, -2)


class _MVNRef:
    """scipy.stats.multivariate_normal looped over the batch."""

    def __init__(self, loc, cov):
        self.loc, self.cov = loc, cov
        self.batch = loc.shape[:-1]

    def _each(self, f):
        out = np.empty(self.batch)
        for i in np.ndindex(*self.batch):
            out[i] = f(stats.multivariate_normal(self.loc[i], self.cov[i]), i)
        return out

    def logpdf(self, x):
        out = np.empty(x.shape[:-1])
        lead = x.ndim - 1 - len(self.batch)
        for i in np.ndindex(*self.batch):
            sl = (slice(None),) * lead + i
            out[sl] = stats.multivariate_normal(self.loc[i], self.cov[i]).logpdf(x[sl])
        return out

    def pdf(self, x):
        return np.exp(self.logpdf(x))

    def mean(self):
        return self.loc

    def var(self):
        return np.diagonal(self.cov, axis1=-2, axis2=-1)

    def std(self):
        return np.sqrt(self.var())

    def entropy(self):
        return self._each(lambda d, i: d.entropy())


def _mvn_info(name, arg, gen, grad):
    def build(loc, m):
        return D.MultivariateNormal(loc, **{arg: m})

    def ref(loc, m):
        lo = m if arg == "scale_tril" else None
        cov = (lo @ np.swapaxes(lo, -1, -2) if arg == "scale_tril" else
               m if arg == "covariance_matrix" else np.linalg.inv(m))
        return _MVNRef(loc, cov)

    return DistInfo(
        name,
        build=build,
        params={"loc": Param(lambda rng, s: rng.normal(size=s), event=(3,)),
                "m": Param(gen, event=(3, 3), grad=grad)},
        ref=ref,
        methods=("log_prob", "prob", "mean", "variance", "stddev", "entropy", "mode"),
        closed={"mode": lambda p: p["loc"]},
        raises={"cdf": NotImplementedError, "icdf": NotImplementedError},
        event_shape=lambda p: (3,),
        values=lambda rng, p, shape: rng.normal(size=shape),
        has_rsample=True,
        invalid=[{"loc": np.zeros(3), "m": -np.eye(3)}],
        invalid_constructs=arg == "scale_tril",
        gradcheck_cases=("1-D",),
    )


class _LowRankRef(_MVNRef):
    def __init__(self, loc, cov_factor, cov_diag):
        cov = cov_factor @ np.swapaxes(cov_factor, -1, -2) + \
            cov_diag[..., None] * np.eye(cov_diag.shape[-1])
        super().__init__(loc, cov)


DISTS += [
    _mvn_info("MultivariateNormal", "scale_tril", _tril_gen, True),
    _mvn_info("MultivariateNormal-cov", "covariance_matrix", _cov_gen, False),
    _mvn_info("MultivariateNormal-precision", "precision_matrix", _cov_gen, False),
    DistInfo(
        "LowRankMultivariateNormal",
        build=lambda loc, cov_factor, cov_diag: D.LowRankMultivariateNormal(loc, cov_factor,
                                                                            cov_diag),
        params={"loc": Param(lambda rng, s: rng.normal(size=s), event=(3,)),
                "cov_factor": Param(lambda rng, s: rng.normal(size=s), event=(3, 2)),
                "cov_diag": Param(lambda rng, s: rng.uniform(0.5, 1.5, s), event=(3,))},
        ref=lambda loc, cov_factor, cov_diag: _LowRankRef(loc, cov_factor, cov_diag),
        methods=("log_prob", "prob", "mean", "variance", "stddev", "entropy", "mode"),
        closed={"mode": lambda p: p["loc"]},
        raises={"cdf": NotImplementedError, "icdf": NotImplementedError},
        event_shape=lambda p: (3,),
        values=lambda rng, p, shape: rng.normal(size=shape),
        has_rsample=True,
        invalid=[{"loc": np.zeros(3), "cov_factor": np.ones((3, 1)),
                  "cov_diag": -np.ones(3)}],
        invalid_constructs=False,
        gradcheck_cases=("1-D",),
    ),
]


# ---------------------------------------------------------------------------------
# continuous Bernoulli, relaxed families, logistic normal, mixtures, truncated normal

class _ContinuousBernoulliRef:
    """Closed forms of Loaiza-Ganem & Cunningham (2019), written independently of
    weft's expressions (atanh form of the normaliser); the entropy by quadrature."""

    def __init__(self, probs):
        self.p = probs

    def _logc(self):
        p = self.p
        return np.log(2 * np.arctanh(1 - 2 * p) / (1 - 2 * p))

    def logpdf(self, x):
        p = self.p
        return self._logc() + x * np.log(p) + (1 - x) * np.log1p(-p)

    def pdf(self, x):
        return np.exp(self.logpdf(x))

    def cdf(self, x):
        p = self.p
        return (p ** x * (1 - p) ** (1 - x) + p - 1) / (2 * p - 1)

    def ppf(self, q):
        p = self.p
        return np.log1p((2 * p - 1) * q / (1 - p)) / np.log(p / (1 - p))

    def mean(self):
        p = self.p
        return p / (2 * p - 1) + 1 / (2 * np.arctanh(1 - 2 * p))

    def var(self):
        p = self.p
        return p * (p - 1) / (1 - 2 * p) ** 2 + 1 / (2 * np.arctanh(1 - 2 * p)) ** 2

    def std(self):
        return np.sqrt(self.var())

    def entropy(self):
        from scipy.integrate import quad

        out = np.empty(self.p.shape)
        for i in np.ndindex(*self.p.shape):
            ref = _ContinuousBernoulliRef(self.p[i])
            out[i] = quad(lambda x: -ref.pdf(x) * ref.logpdf(x), 0, 1)[0]
        return out


def _away_from_half(rng, s):
    """Probabilities in [0.1, 0.4] ∪ [0.6, 0.9] (the closed forms; the Taylor branch
    near ½ is tested on its own)."""
    p = rng.uniform(0.1, 0.4, s)
    return np.where(rng.random(s) < 0.5, p, 1 - p)


class _RelaxedBernoulliRef:
    """``sigmoid(X)`` with ``X`` logistic(logits/T, 1/T), through scipy.stats.logistic."""

    def __init__(self, temperature, probs):
        logits = np.log(probs) - np.log1p(-probs)
        self.x = stats.logistic(logits / temperature, 1 / temperature)

    def logpdf(self, y):
        return self.x.logpdf(np.log(y) - np.log1p(-y)) - np.log(y * (1 - y))

    def pdf(self, y):
        return np.exp(self.logpdf(y))

    def cdf(self, y):
        return self.x.cdf(np.log(y) - np.log1p(-y))

    def ppf(self, q):
        return 1 / (1 + np.exp(-self.x.ppf(q)))


def _concrete_logpdf(p, y):
    """Maddison et al. (2017), eq. (1): the Concrete density on the simplex."""
    t = p["temperature"][..., None]
    pi = _norm(p["probs"])
    k = pi.shape[-1]
    from scipy.special import gammaln, logsumexp

    return (gammaln(k) + (k - 1) * np.log(t[..., 0])
            + (np.log(pi) - (t + 1) * np.log(y)).sum(-1)
            - k * logsumexp(np.log(pi) - t * np.log(y), axis=-1))


def _logistic_normal_logpdf(p, y):
    """Inverse stick breaking in numpy and the triangular Jacobian of the free
    coordinates: ``dy_i/dx_i = z_i (1 - z_i) (1 - Σ_{j<i} y_j)``."""
    k = y.shape[-1] - 1
    rest = 1 - np.cumsum(y[..., :-1], -1) + y[..., :-1]      # 1 - Σ_{j<i} y_j
    z = y[..., :-1] / rest
    x = np.log(z) - np.log1p(-z) + np.log(k - np.arange(k))
    logdet = (np.log(z) + np.log1p(-z) + np.log(rest)).sum(-1)
    return stats.norm(p["loc"], p["scale"]).logpdf(x).sum(-1) - logdet


class _MixtureRef:
    """A Normal mixture: closed forms over the component axis (weights softmax)."""

    def __init__(self, logits, loc, scale):
        self.w = _softmax(logits)
        self.loc, self.scale = loc, scale

    def logpdf(self, x):
        from scipy.special import logsumexp

        return logsumexp(np.log(self.w) + stats.norm(self.loc, self.scale).logpdf(x[..., None]),
                         axis=-1)

    def pdf(self, x):
        return np.exp(self.logpdf(x))

    def cdf(self, x):
        return (self.w * stats.norm(self.loc, self.scale).cdf(np.asarray(x)[..., None])).sum(-1)

    def mean(self):
        return (self.w * self.loc).sum(-1)

    def var(self):
        m = self.mean()[..., None]
        return (self.w * (self.scale ** 2 + (self.loc - m) ** 2)).sum(-1)

    def std(self):
        return np.sqrt(self.var())


def _dirichlet_values(k):
    return lambda rng, p, shape: rng.dirichlet(np.ones(k), size=shape[:-1])


_NO_MOMENTS = {"mean": NotImplementedError, "variance": NotImplementedError,
               "entropy": NotImplementedError}

DISTS += [
    DistInfo(
        "ContinuousBernoulli",
        build=lambda probs: D.ContinuousBernoulli(probs),
        params={"probs": Param(_away_from_half)},
        ref=lambda probs: _ContinuousBernoulliRef(probs),
        methods=METHODS + ("mode",),
        closed={"mode": lambda p: (p["probs"] > 0.5).astype(float)},
        has_rsample=True,
        invalid=[{"probs": np.array([1.5])}],
        outside=lambda p: np.full_like(p["probs"], 1.5),
    ),
    DistInfo(
        "RelaxedBernoulli",
        build=lambda temperature, probs: D.RelaxedBernoulli(temperature, probs=probs),
        params={"temperature": positive(0.5, 2.0), "probs": unit(0.2, 0.8)},
        ref=lambda temperature, probs: _RelaxedBernoulliRef(temperature, probs),
        methods=("log_prob", "prob", "cdf", "icdf"),
        raises=_NO_MOMENTS,
        moments=False,
        has_rsample=True,
        invalid=[{"temperature": np.array([-1.0]), "probs": np.array([0.5])}],
        outside=lambda p: np.full_like(p["probs"], 1.5),
    ),
    DistInfo(
        "RelaxedOneHotCategorical",
        build=lambda temperature, probs: D.RelaxedOneHotCategorical(temperature, probs=probs),
        params={"temperature": positive(0.5, 2.0),
                "probs": Param(lambda rng, s: rng.uniform(0.2, 1.0, s), event=(3,))},
        closed={"log_prob": _concrete_logpdf,
                "prob": lambda p, v: np.exp(_concrete_logpdf(p, v))},
        methods=("log_prob", "prob"),
        raises=dict(_NO_MOMENTS, cdf=NotImplementedError),
        event_shape=lambda p: (3,),
        values=_dirichlet_values(3),
        moments=False,
        has_rsample=True,
        invalid=[{"temperature": np.array([-1.0]), "probs": np.array([[0.2, 0.3, 0.5]])}],
    ),
    DistInfo(
        "LogisticNormal",
        build=lambda loc, scale: D.LogisticNormal(loc, scale),
        params={"loc": Param(lambda rng, s: rng.uniform(-1, 1, s), event=(3,)),
                "scale": Param(lambda rng, s: rng.uniform(0.5, 1.5, s), event=(3,))},
        closed={"log_prob": _logistic_normal_logpdf,
                "prob": lambda p, v: np.exp(_logistic_normal_logpdf(p, v))},
        methods=("log_prob", "prob"),
        raises=dict(_NO_MOMENTS, cdf=NotImplementedError),
        event_shape=lambda p: (4,),
        values=_dirichlet_values(4),
        moments=False,
        has_rsample=True,
        invalid=[{"loc": np.zeros((1, 3)), "scale": -np.ones((1, 3))}],
        outside=lambda p: np.broadcast_to(np.array([-0.5, 0.5, 0.5, 0.5]),
                                          p["loc"].shape[:-1] + (4,)).copy(),
    ),
    DistInfo(
        "MixtureSameFamily",
        build=lambda logits, loc, scale: D.MixtureSameFamily(D.Categorical(logits),
                                                             D.Normal(loc, scale)),
        params={"logits": Param(lambda rng, s: rng.normal(size=s), event=(3,)),
                "loc": Param(lambda rng, s: rng.uniform(-2, 2, s), event=(3,)),
                "scale": Param(lambda rng, s: rng.uniform(0.5, 1.5, s), event=(3,))},
        ref=lambda logits, loc, scale: _MixtureRef(logits, loc, scale),
        methods=("log_prob", "prob", "cdf", "mean", "variance", "stddev"),
        raises={"icdf": NotImplementedError, "entropy": NotImplementedError,
                "rsample": NotImplementedError},
        values=lambda rng, p, shape: rng.uniform(-3, 3, shape),
    ),
    DistInfo(
        "TruncatedNormal",
        build=lambda loc, scale, low, high: D.TruncatedNormal(loc, scale, low, high),
        params={"loc": real(-1.0, 1.0), "scale": positive(0.5, 2.0),
                "low": real(-2.0, -0.5), "high": real(0.0, 2.0)},
        ref=lambda loc, scale, low, high: stats.truncnorm((low - loc) / scale,
                                                          (high - loc) / scale, loc, scale),
        methods=METHODS + ("mode",),
        closed={"mode": lambda p: np.clip(p["loc"], p["low"], p["high"])},
        has_rsample=True,
        invalid=[{"loc": np.zeros(1), "scale": np.ones(1), "low": np.ones(1),
                  "high": np.zeros(1)}],
        outside=lambda p: p["high"] + 1.0,
    ),
]
