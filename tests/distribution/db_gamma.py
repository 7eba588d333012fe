"""Distribution-database entries of the Gamma-related families (helper ``distg``'s part
of ``weft.distribution``; see ``distdb.py`` for the entry format).

The generic rsample check (finite differences of a seeded expectation) cannot check
the implicit-reparameterisation families: finite differences differentiate numpy's
Marsaglia-Tsang transform of the fixed random stream, a different unbiased estimator
of the same gradient, equal to the implicit one in expectation but not draw by draw.
``tests/distribution/test_gamma_families.py`` checks those gradients instead (draw by
draw against the quantile derivative where the family is a Gamma, and as Monte-Carlo
expectations against quadrature with a standard-error tolerance otherwise).
"""
from __future__ import annotations

import numpy as np
from scipy import stats

import weft.distribution as D

from .distdb import METHODS, DistInfo, Param, positive, real

_IMPLICIT = "implicit reparameterisation (see db_gamma.py); test_gamma_families.py checks it"

DISTS = [
    DistInfo(
        "Gamma",
        build=lambda concentration, rate: D.Gamma(concentration, rate),
        params={"concentration": positive(0.5, 4.0), "rate": positive()},
        ref=lambda concentration, rate: stats.gamma(concentration, scale=1 / rate),
        methods=METHODS + ("mode",),
        closed={"mode": lambda p: np.maximum(p["concentration"] - 1, 0) / p["rate"]},
        has_rsample=True, rsample_fd_skip=_IMPLICIT,
        invalid=[{"concentration": np.array([0.0]), "rate": np.array([1.0])},
                 {"concentration": np.array([1.0]), "rate": np.array([-1.0])}],
        outside=lambda p: -np.ones_like(p["rate"]),
    ),
    DistInfo(
        "Chi2",
        build=lambda df: D.Chi2(df),
        params={"df": positive(1.0, 6.0)},
        ref=lambda df: stats.chi2(df),
        methods=METHODS + ("mode",),
        closed={"mode": lambda p: np.maximum(p["df"] - 2, 0)},
        has_rsample=True, rsample_fd_skip=_IMPLICIT,
        invalid=[{"df": np.array([-1.0])}],
        outside=lambda p: -np.ones_like(p["df"]),
    ),
]


def _simplex_values(rng, p, shape):
    return rng.dirichlet(np.ones(shape[-1]), size=shape[:-1])


class _DirichletRef:
    """scipy.stats.dirichlet is not vectorised over a batch: a loop over it."""

    def __init__(self, concentration):
        self.c = concentration

    def _each(self, fn, value=None):
        batch = self.c.shape[:-1]
        flat = self.c.reshape(-1, self.c.shape[-1])
        if value is None:
            return np.stack([fn(stats.dirichlet(a)) for a in flat]).reshape(
                batch + np.shape(fn(stats.dirichlet(flat[0])))) if flat.size else \
                np.zeros(batch)
        v = np.broadcast_to(value, value.shape[:value.ndim - self.c.ndim] + self.c.shape)
        lead = v.shape[:v.ndim - self.c.ndim]
        vf = v.reshape(lead + (-1, self.c.shape[-1]))
        out = np.stack([fn(stats.dirichlet(a), vf[..., i, :]) for i, a in enumerate(flat)],
                       axis=-1)
        return out.reshape(lead + batch)

    def logpdf(self, v):
        return self._each(lambda d, x: d.logpdf(np.moveaxis(x, -1, 0)), v)

    def pdf(self, v):
        return np.exp(self.logpdf(v))

    def mean(self):
        return self._each(lambda d: d.mean())

    def var(self):
        return self._each(lambda d: d.var())

    def std(self):
        return np.sqrt(self.var())

    def entropy(self):
        return self._each(lambda d: np.asarray(d.entropy()))


def _dirichlet_mode(p):
    a = p["concentration"]
    m = (a - 1) / (a.sum(-1, keepdims=True) - a.shape[-1])
    return np.where((a > 1).all(-1, keepdims=True), m, np.nan)


DISTS += [
    DistInfo(
        "Beta",
        build=lambda alpha, beta: D.Beta(alpha, beta),
        params={"alpha": positive(0.5, 4.0), "beta": positive(0.5, 4.0)},
        ref=lambda alpha, beta: stats.beta(alpha, beta),
        methods=METHODS,
        has_rsample=True, rsample_fd_skip=_IMPLICIT,
        invalid=[{"alpha": np.array([0.0]), "beta": np.array([1.0])},
                 {"alpha": np.array([1.0]), "beta": np.array([-1.0])}],
        outside=lambda p: 1.5 + np.zeros_like(p["alpha"]),
    ),
    DistInfo(
        "Dirichlet",
        build=lambda concentration: D.Dirichlet(concentration),
        params={"concentration": Param(lambda rng, s: rng.uniform(0.5, 3.0, s), event=(4,))},
        ref=lambda concentration: _DirichletRef(concentration),
        methods=("log_prob", "prob", "mean", "variance", "stddev", "entropy", "mode"),
        closed={"mode": _dirichlet_mode},
        raises={"cdf": NotImplementedError, "icdf": NotImplementedError},
        values=_simplex_values,
        # a perturbed value leaves the simplex (log_prob -inf): parameters only
        value_grad=False,
        event_shape=lambda p: (4,),
        has_rsample=True, rsample_fd_skip=_IMPLICIT,
        invalid=[{"concentration": np.array([[1.0, -1.0, 2.0, 1.0]])}],
        outside=lambda p: np.broadcast_to(np.array([0.5, 0.5, 0.5, -0.5]),
                                          p["concentration"].shape).copy(),
    ),
]


def _count(lo, hi):
    return Param(lambda rng, s: rng.integers(lo, hi, s).astype(np.float64), grad=False)


def _student_mean(p):
    return np.where(p["df"] > 1, p["loc"], np.nan)


DISTS += [
    DistInfo(
        "StudentT",
        build=lambda df, loc, scale: D.StudentT(df, loc, scale),
        # df > 4 keeps the fourth moment finite, so the sample-variance check is meaningful
        params={"df": positive(5.0, 10.0), "loc": real(), "scale": positive()},
        ref=lambda df, loc, scale: stats.t(df, loc, scale),
        methods=METHODS + ("mode",),
        closed={"mode": lambda p: p["loc"]},
        has_rsample=True, rsample_fd_skip=_IMPLICIT,
        invalid=[{"df": np.array([-1.0]), "loc": np.array([0.0]), "scale": np.array([1.0])},
                 {"df": np.array([2.0]), "loc": np.array([0.0]), "scale": np.array([0.0])}],
    ),
    DistInfo(
        "Binomial",
        build=lambda total_count, probs: D.Binomial(total_count, probs),
        params={"total_count": _count(1, 15), "probs": Param(lambda rng, s: rng.uniform(0.1, 0.9, s))},
        ref=lambda total_count, probs: stats.binom(total_count, probs),
        methods=METHODS + ("mode",),
        closed={"mode": lambda p: np.minimum(np.floor((p["total_count"] + 1) * p["probs"]),
                                             p["total_count"])},
        discrete=True,
        invalid=[{"total_count": np.array([3.0]), "probs": np.array([1.5])}],
        outside=lambda p: p["total_count"] + 1.0,
    ),
    DistInfo(
        "Poisson",
        build=lambda rate: D.Poisson(rate),
        params={"rate": positive(0.5, 8.0)},
        ref=lambda rate: stats.poisson(rate),
        methods=METHODS + ("mode",),
        closed={"mode": lambda p: np.floor(p["rate"])},
        discrete=True,
        invalid=[{"rate": np.array([-1.0])}],
        outside=lambda p: -np.ones_like(p["rate"]),
    ),
]


class _KumaraswamyRef:
    """Kumaraswamy has no scipy.stats class: the closed-form density and cdf, with the
    moments and entropy by numerical integration of the density (scipy.integrate)."""

    def __init__(self, concentration1, concentration0):
        self.a, self.b = concentration1, concentration0

    def logpdf(self, x):
        a, b = self.a, self.b
        return np.log(a * b) + (a - 1) * np.log(x) + (b - 1) * np.log1p(-x ** a)

    def pdf(self, x):
        return np.exp(self.logpdf(x))

    def cdf(self, x):
        return 1 - (1 - x ** self.a) ** self.b

    def ppf(self, q):
        return (1 - (1 - q) ** (1 / self.b)) ** (1 / self.a)

    def _integrate(self, f):
        from scipy.integrate import quad

        out = np.empty(np.shape(self.a))
        for i in np.ndindex(out.shape):
            a, b = self.a[i], self.b[i]

            def pdf(x, a=a, b=b):
                return a * b * x ** (a - 1) * (1 - x ** a) ** (b - 1)
            out[i] = quad(lambda x: f(x, pdf(x)), 0, 1, epsabs=1e-12, epsrel=1e-10,
                          limit=400)[0]
        return out

    def mean(self):
        return self._integrate(lambda x, p: x * p)

    def var(self):
        return self._integrate(lambda x, p: x * x * p) - self.mean() ** 2

    def std(self):
        return np.sqrt(self.var())

    def entropy(self):
        return self._integrate(lambda x, p: -p * np.log(p) if p > 0 else 0.0)


def _kumaraswamy_mode(p):
    a, b = p["concentration1"], p["concentration0"]
    ok = (a >= 1) & (b >= 1) & ((a > 1) | (b > 1))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(ok, ((a - 1) / (a * b - 1)) ** (1 / a), np.nan)


DISTS += [
    DistInfo(
        "Weibull",
        build=lambda scale, concentration: D.Weibull(scale, concentration),
        params={"scale": positive(), "concentration": positive(0.8, 3.0)},
        ref=lambda scale, concentration: stats.weibull_min(concentration, scale=scale),
        methods=METHODS + ("mode",),
        closed={"mode": lambda p: p["scale"] * (np.clip(p["concentration"] - 1, 0, None)
                                                / p["concentration"]) ** (1 / p["concentration"])},
        has_rsample=True,
        invalid=[{"scale": np.array([-1.0]), "concentration": np.array([1.0])}],
        outside=lambda p: -np.ones_like(p["scale"]),
    ),
    DistInfo(
        "Pareto",
        build=lambda scale, alpha: D.Pareto(scale, alpha),
        # alpha > 4 keeps the fourth moment finite for the sample-variance check
        params={"scale": positive(), "alpha": positive(4.5, 8.0)},
        ref=lambda scale, alpha: stats.pareto(alpha, scale=scale),
        methods=METHODS + ("mode",),
        closed={"mode": lambda p: p["scale"]},
        has_rsample=True,
        invalid=[{"scale": np.array([1.0]), "alpha": np.array([0.0])}],
        outside=lambda p: 0.5 * p["scale"],
    ),
    DistInfo(
        "Kumaraswamy",
        build=lambda concentration1, concentration0: D.Kumaraswamy(concentration1,
                                                                   concentration0),
        params={"concentration1": positive(0.7, 3.0), "concentration0": positive(0.7, 3.0)},
        ref=lambda concentration1, concentration0: _KumaraswamyRef(concentration1,
                                                                    concentration0),
        methods=METHODS + ("mode",),
        closed={"mode": _kumaraswamy_mode},
        has_rsample=True,
        invalid=[{"concentration1": np.array([-1.0]), "concentration0": np.array([1.0])}],
        outside=lambda p: 1.5 + np.zeros_like(p["concentration1"]),
    ),
    DistInfo(
        "InverseGamma",
        build=lambda concentration, rate: D.InverseGamma(concentration, rate),
        # concentration > 4: finite fourth moment for the sample-variance check
        params={"concentration": positive(4.5, 8.0), "rate": positive()},
        ref=lambda concentration, rate: stats.invgamma(concentration, scale=rate),
        methods=METHODS + ("mode",),
        closed={"mode": lambda p: p["rate"] / (p["concentration"] + 1)},
        has_rsample=True, rsample_fd_skip=_IMPLICIT,
        invalid=[{"concentration": np.array([0.0]), "rate": np.array([1.0])}],
        outside=lambda p: -np.ones_like(p["rate"]),
    ),
    DistInfo(
        "FisherSnedecor",
        build=lambda df1, df2: D.FisherSnedecor(df1, df2),
        # df2 > 8: finite fourth moment for the sample-variance check
        params={"df1": positive(2.5, 8.0), "df2": positive(9.0, 14.0)},
        ref=lambda df1, df2: stats.f(df1, df2),
        methods=METHODS + ("mode",),
        closed={"mode": lambda p: np.where(p["df1"] > 2, (p["df1"] - 2) / p["df1"]
                                           * p["df2"] / (p["df2"] + 2), 0.0)},
        has_rsample=True, rsample_fd_skip=_IMPLICIT,
        invalid=[{"df1": np.array([-1.0]), "df2": np.array([1.0])}],
        outside=lambda p: -np.ones_like(p["df1"]),
    ),
    DistInfo(
        "NegativeBinomial",
        build=lambda total_count, probs: D.NegativeBinomial(total_count, probs=probs),
        params={"total_count": positive(0.5, 6.0),
                "probs": Param(lambda rng, s: rng.uniform(0.1, 0.7, s))},
        ref=lambda total_count, probs: stats.nbinom(total_count, 1 - probs),
        methods=METHODS + ("mode",),
        closed={"mode": lambda p: np.maximum(np.floor((p["total_count"] - 1) * p["probs"]
                                                      / (1 - p["probs"])), 0.0)},
        discrete=True,
        invalid=[{"total_count": np.array([-1.0]), "probs": np.array([0.5])},
                 {"total_count": np.array([2.0]), "probs": np.array([1.0])}],
        outside=lambda p: -np.ones_like(p["probs"]),
    ),
    DistInfo(
        "NegativeBinomial(logits)",
        build=lambda total_count, logits: D.NegativeBinomial(total_count, logits=logits),
        params={"total_count": positive(0.5, 6.0), "logits": real(-2.0, 0.8)},
        ref=lambda total_count, logits: stats.nbinom(total_count, 1 / (1 + np.exp(logits))),
        discrete=True,
        batch_cases=("1-D", "broadcast"),
    ),
]


def _circ_var(p):
    from scipy.special import i0e, i1e

    return 1 - i1e(p["concentration"]) / i0e(p["concentration"])


DISTS += [
    DistInfo(
        "VonMises",
        build=lambda loc, concentration: D.VonMises(loc, concentration),
        params={"loc": real(-1.0, 1.0), "concentration": positive(0.3, 15.0)},
        ref=lambda loc, concentration: stats.vonmises(concentration, loc=loc),
        methods=("log_prob", "prob", "mean", "variance", "stddev", "entropy", "mode"),
        # circular variance (scipy's var() is the linear one)
        closed={"mean": lambda p: p["loc"], "mode": lambda p: p["loc"],
                "variance": _circ_var, "stddev": lambda p: np.sqrt(_circ_var(p))},
        raises={"cdf": NotImplementedError, "icdf": NotImplementedError},
        values=lambda rng, p, shape: rng.uniform(-np.pi, np.pi, shape),
        has_rsample=True, rsample_fd_skip=_IMPLICIT,
        # draws are wrapped into [-pi, pi) while scipy's law lives on [loc - pi, loc + pi):
        # test_gamma_families.py compares the centred draws with scipy instead
        ks=False, moments=False,
        invalid=[{"loc": np.array([0.0]), "concentration": np.array([-1.0])}],
        outside=lambda p: 4.0 + np.zeros_like(p["loc"]),
    ),
]


def _spd(rng, shape):
    """Random well-conditioned symmetric positive-definite matrices of ``shape``."""
    p = shape[-1]
    a = rng.uniform(-1, 1, shape)
    return a @ np.swapaxes(a, -1, -2) / p + 0.5 * np.eye(p)


class _WishartRef:
    """scipy.stats.wishart is not vectorised over a batch: a loop over it."""

    def __init__(self, df, covariance_matrix):
        self.df, self.cov = df, covariance_matrix
        self.batch = df.shape

    def _each(self, f):
        out = [f(stats.wishart(self.df[i], self.cov[i])) for i in np.ndindex(self.batch)]
        return np.asarray(out).reshape(self.batch + np.shape(out[0]))

    def logpdf(self, v):
        lead = v.shape[:v.ndim - len(self.batch) - 2]
        out = np.empty(lead + self.batch)
        for i in np.ndindex(self.batch):
            w = stats.wishart(self.df[i], self.cov[i])
            for j in np.ndindex(lead):
                out[j + i] = w.logpdf(v[j + i])
        return out

    def pdf(self, v):
        return np.exp(self.logpdf(v))

    def mean(self):
        return self._each(lambda w: w.mean())

    def var(self):
        return self._each(lambda w: w.var())

    def std(self):
        return np.sqrt(self.var())

    def entropy(self):
        return self._each(lambda w: np.asarray(w.entropy()))


def _wishart_values(rng, p, shape):
    return _spd(rng, shape) * 2.0


def _wishart_mode(p):
    f = p["df"] - 4.0
    return np.where((f > 0)[..., None, None], f[..., None, None] * p["covariance_matrix"],
                    np.nan)


DISTS += [
    DistInfo(
        "Wishart",
        # symmetrised, so that gradcheck's one-entry perturbations stay symmetric matrices
        # (cholesky's gradient is the one of a symmetric argument)
        build=lambda df, covariance_matrix: D.Wishart(
            df, covariance_matrix=0.5 * (covariance_matrix + covariance_matrix.transpose(
                list(range(covariance_matrix.ndim - 2)) + [covariance_matrix.ndim - 1,
                                                           covariance_matrix.ndim - 2]))),
        params={"df": positive(3.5, 7.0),
                "covariance_matrix": Param(lambda rng, s: _spd(rng, s), event=(3, 3))},
        ref=lambda df, covariance_matrix: _WishartRef(df, covariance_matrix),
        methods=("log_prob", "prob", "mean", "variance", "stddev", "entropy", "mode"),
        closed={"mode": _wishart_mode},
        raises={"cdf": NotImplementedError, "icdf": NotImplementedError},
        values=_wishart_values,
        event_shape=lambda p: (3, 3),
        # a perturbed value is no longer symmetric (log_prob -inf): parameters only
        value_grad=False,
        has_rsample=True, rsample_fd_skip=_IMPLICIT,
        invalid=[{"df": np.array([1.5]), "covariance_matrix": np.eye(3)[None]}],
        outside=lambda p: -np.broadcast_to(np.eye(3), p["covariance_matrix"].shape).copy(),
    ),
]
