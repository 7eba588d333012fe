"""Distribution-database entries of the families in helper ``dist``'s part of
``weft.distribution`` (see ``distdb.py`` for the entry format)."""
from __future__ import annotations

import numpy as np
from scipy import stats

import weft.distribution as D

from .distdb import METHODS, DistInfo, positive, real

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
