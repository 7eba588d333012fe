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
]
