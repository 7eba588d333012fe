"""The distribution database: one :class:`DistInfo` per family, run by the generic
tests in ``tests/distribution/test_families.py``.

Entries live in modules ``tests/distribution/db_*.py``, each defining a list
``DISTS``; they are gathered by ``dist_db()`` (adding a module is enough, nothing
else needs registering).

How to write an entry (``db_dist.py`` has many examples)::

    DistInfo(
        "Normal",                                  # test id (unique)
        build=lambda loc, scale: D.Normal(loc, scale),
        params={"loc": real(), "scale": positive()},   # Param generators, see below
        ref=lambda loc, scale: stats.norm(loc, scale), # frozen scipy.stats object
        has_rsample=True,
    )

- ``params``: an ordered dict name -> :class:`Param`. ``Param.gen(rng, shape)``
  returns a float64 numpy array of ``shape`` (which already includes the
  parameter's own trailing ``Param.event`` dims). The harness builds parameter sets
  for the batch shapes ``()``, ``(3,)``, ``(2, 3)`` and a broadcast case where the
  first parameter has batch shape ``(4, 1)`` and the others ``(4, 6)``; each is run in
  float32 and float64 (``dtypes``). Parameters are passed to ``build`` as Tensors;
  ``fixed`` holds extra constructor arguments that are not Tensors (ints, flags).
  ``Param(grad=False)`` excludes a parameter from the gradient checks.
- ``ref(**params)`` gets the broadcast float64 numpy parameters (and ``fixed``) and
  returns an object with scipy's frozen-distribution methods: ``logpdf``/``pdf``
  (``logpmf``/``pmf`` when ``discrete``), ``cdf``, ``ppf``, ``mean``, ``var``, ``std``,
  ``entropy``. Vectorised scipy objects work directly; for multivariate families
  write a small adapter (a loop over the batch is a fine reference).
  ``closed`` overrides single methods: ``closed["entropy"] = f(params) -> array``,
  ``closed["log_prob"] = f(params, value) -> array`` (value-taking methods get the
  value too).
- ``methods``: which of log_prob, prob, cdf, icdf, mean, variance, stddev, entropy,
  mode are compared with the reference; ``raises`` maps members that must raise to
  the exception type (e.g. ``{"icdf": NotImplementedError}``; properties included).
- ``values(rng, ref, shape)``: points of the support of shape ``shape`` (sample dims +
  batch + event); the default draws ``ref.ppf`` at uniform probabilities, which suits
  univariate families. ``event_shape(params)`` gives the event shape (default ``()``);
  ``value_shape(batch, event)`` the shape of the test values (default
  ``(2,) + batch + event``: a sample dim that broadcasts against the batch).
- ``has_rsample``: rsample exists and its gradients are checked against finite
  differences of a seeded expectation (``rsample_rtol``), unless ``rsample_fd_skip``
  says why that cannot work (implicit reparameterisation of a rejection sampler).
  ``discrete``: integer support (no value gradient, pmf names). Univariate continuous
  entries also get the Kolmogorov-Smirnov test (``ks``); ``moments`` checks sample mean
  and variance. Every entry's draws are checked to lie in its ``support``, and random
  batch and sample shapes (empty dims included) are tried on ``sample``/``log_prob``.
- ``gradcheck``: ``log_prob`` is gradchecked in float64 with respect to the
  parameters (and the value, for continuous entries: ``value_grad``) for the batch
  cases ``gradcheck_cases``.
- ``invalid``: parameter dicts (numpy, 1-D) that must raise ValueError under
  ``set_validate_args(True)`` (and construct without it, as in Paddle, unless
  ``invalid_constructs=False``: a covariance that is not positive definite cannot be
  factored); ``outside(params)``: values outside the support,
  which must give ``-inf`` log-densities (and ValueError under validation).
- ``sample_dtype``: ``None`` = the parameter dtype, or a numpy dtype (Categorical: int64).
"""
from __future__ import annotations

import importlib
import pkgutil
import zlib
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

F32, F64 = np.dtype("float32"), np.dtype("float64")
FLOATS = (F32, F64)
# value tolerances against the reference, by dtype (rtol, atol)
TOL = {F32: (1e-3, 1e-5), F64: (1e-5, 1e-9)}
METHODS = ("log_prob", "prob", "cdf", "icdf", "mean", "variance", "stddev", "entropy")
BATCH_SHAPES = {"0-D": (), "1-D": (3,), "2-D": (2, 3)}
BROADCAST = ((4, 1), (4, 6))


@dataclass
class Param:
    """A parameter generator: ``gen(rng, shape)`` -> float64 array of ``shape``."""

    gen: Callable[[np.random.Generator, tuple], np.ndarray]
    event: tuple = ()
    grad: bool = True


def real(lo=-2.0, hi=2.0):
    return Param(lambda rng, s: rng.uniform(lo, hi, s))


def positive(lo=0.5, hi=2.5):
    return Param(lambda rng, s: rng.uniform(lo, hi, s))


def unit(lo=0.1, hi=0.9):
    return Param(lambda rng, s: rng.uniform(lo, hi, s))


def _default_values(rng, ref, shape):
    return np.asarray(ref.ppf(rng.uniform(0.05, 0.95, shape)), dtype=np.float64)


@dataclass
class DistInfo:
    name: str
    build: Callable[..., Any]
    params: dict
    ref: Callable[..., Any] | None = None
    fixed: dict = field(default_factory=dict)
    closed: dict = field(default_factory=dict)
    methods: tuple = METHODS
    raises: dict = field(default_factory=dict)
    values: Callable | None = None
    event_shape: Callable[[dict], tuple] = lambda p: ()
    value_shape: Callable[[tuple, tuple], tuple] = lambda batch, event: (2,) + batch + event
    discrete: bool = False
    has_rsample: bool = False
    rsample_rtol: float = 1e-4
    # why finite differences of a seeded expectation cannot check this rsample (None:
    # they can); implicit-reparameterisation entries are checked in their own tests
    rsample_fd_skip: str | None = None
    moments: bool = True
    ks: bool | None = None           # None: on for univariate continuous entries
    invalid: list = field(default_factory=list)
    invalid_constructs: bool = True  # False: invalid parameters fail even unvalidated
    outside: Callable[[dict], np.ndarray] | None = None
    sample_dtype: Any = None
    dtypes: tuple = FLOATS
    batch_cases: tuple = ("0-D", "1-D", "2-D", "broadcast")
    tol: dict = field(default_factory=dict)      # method -> (rtol, atol) overrides
    gradcheck: bool = True
    gradcheck_cases: tuple = ("1-D", "broadcast")
    value_grad: bool | None = None   # None: on for continuous entries
    seed: int = 0

    def __repr__(self):
        return self.name

    # ---- parameter sets ---------------------------------------------------------
    def case(self, label):
        """Float64 numpy parameters (not broadcast) for the batch case ``label``."""
        rng = np.random.default_rng(zlib.crc32(f"{self.name}/{label}/{self.seed}".encode()))
        out = {}
        for i, (name, p) in enumerate(self.params.items()):
            if label == "broadcast":
                batch = BROADCAST[0] if i == 0 else BROADCAST[1]
            else:
                batch = BATCH_SHAPES[label]
            out[name] = np.asarray(p.gen(rng, tuple(batch) + tuple(p.event)), dtype=np.float64)
        return out

    def batch_shape(self, params):
        shapes = [v.shape[:v.ndim - len(self.params[k].event)] for k, v in params.items()]
        return tuple(np.broadcast_shapes(*shapes)) if shapes else ()

    def broadcast(self, params):
        """Parameters broadcast to the common batch shape (for the reference)."""
        batch = self.batch_shape(params)
        return {k: np.broadcast_to(v, batch + tuple(self.params[k].event)).copy()
                for k, v in params.items()}

    def reference(self, params):
        return self.ref(**self.broadcast(params), **self.fixed) if self.ref else None

    def make(self, params, dtype, leaves=False):
        """The weft distribution (parameters as Tensors of ``dtype``); with ``leaves``
        the differentiable ones require grad, and the tensors are returned too."""
        import weft

        ts = {}
        for k, v in params.items():
            t = weft.to_tensor(v.astype(dtype))
            if leaves and self.params[k].grad:
                t.stop_gradient = False
            ts[k] = t
        d = self.build(**ts, **self.fixed)
        return (d, ts) if leaves else d

    def sample_values(self, params, seed=1):
        """Points of the support of shape ``value_shape(batch, event)``."""
        rng = np.random.default_rng(seed)
        full = tuple(self.value_shape(self.batch_shape(params),
                                      tuple(self.event_shape(params))))
        if self.values is not None:
            return np.asarray(self.values(rng, self.broadcast(params), full), np.float64)
        return _default_values(rng, self.reference(params), full)

    @property
    def is_ks(self):
        if self.ks is not None:
            return self.ks
        return not self.discrete and self.event_shape(self.case("1-D")) == ()

    @property
    def grads_value(self):
        return (not self.discrete) if self.value_grad is None else self.value_grad


_DB = []


def dist_db():
    """Every entry of every ``db_*.py`` module (collected on first call, so that the
    entry modules can import this one)."""
    if not _DB:
        _DB.extend(_collect())
    return _DB


def _collect():
    import tests.distribution as pkg

    dists = []
    for m in pkgutil.iter_modules(pkg.__path__):
        if m.name.startswith("db_"):
            dists.extend(importlib.import_module(f"{pkg.__name__}.{m.name}").DISTS)
    names = [d.name for d in dists]
    dup = {n for n in names if names.count(n) > 1}
    assert not dup, f"duplicate distribution-database names: {dup}"
    return dists

