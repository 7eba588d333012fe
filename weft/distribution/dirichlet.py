"""Dirichlet(concentration)."""
from __future__ import annotations

import math

import numpy as np

from .. import ops
from . import _gamma_sampling, _util, constraints
from .exponential_family import ExponentialFamily

__all__ = ["Dirichlet"]


def _log_density(x, a):
    return (ops.xlogy(a - 1.0, x).sum(axis=-1) + ops.lgamma(a.sum(axis=-1))
            - ops.lgamma(a).sum(axis=-1))


def _entropy(a):
    k = a.shape[-1]
    a0 = a.sum(axis=-1)
    return (ops.lgamma(a).sum(axis=-1) - ops.lgamma(a0) + (a0 - k) * ops.digamma(a0)
            - ((a - 1.0) * ops.digamma(a)).sum(axis=-1))


class Dirichlet(ExponentialFamily):
    """The Dirichlet distribution on the probability simplex, with concentration
    ``α`` of shape ``batch + [K]`` (``K >= 1`` categories; event shape ``[K]``).

    ``rsample`` (**weft+**) normalises Gamma draws that carry implicit-reparameterisation
    gradients. ``cdf``/``icdf`` are not defined (multivariate) and raise
    ``NotImplementedError``.

    >>> import weft
    >>> from weft.distribution import Dirichlet
    >>> d = Dirichlet(weft.to_tensor([1.0, 2.0, 3.0]))
    >>> d.event_shape, [round(v, 4) for v in d.mean.tolist()]
    ((3,), [0.1667, 0.3333, 0.5])
    >>> d.sample([4]).shape
    [4, 3]
    """

    arg_constraints = {"concentration": constraints.independent(constraints.positive, 1)}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, concentration):
        (c,) = _util.to_tensors(concentration)
        if len(c.shape) < 1:
            raise ValueError("Dirichlet: concentration must be at least 1-D (its last dim "
                             f"holds the categories), got shape {c.shape}")
        self.concentration = c
        self._dtype = c._data.dtype
        super().__init__(tuple(c.shape[:-1]), tuple(c.shape[-1:]))

    @property
    def mean(self):
        return self.concentration / self.concentration.sum(axis=-1, keepdim=True)

    @property
    def variance(self):
        a = self.concentration
        a0 = a.sum(axis=-1, keepdim=True)
        return a * (a0 - a) / (a0 * a0 * (a0 + 1.0))

    @property
    def mode(self):
        """``(α - 1)/(α₀ - K)`` where every ``α > 1``; NaN elsewhere."""
        a = self.concentration
        m = (a - 1.0) / (a.sum(axis=-1, keepdim=True) - a.shape[-1])
        ok = (a > 1).all(axis=-1, keepdim=True)
        return ops.where(ok, m, ops.full_like(m, math.nan))

    def sample(self, shape=()):
        shape = self._extend_shape(_util.sample_shape_arg(shape, "Dirichlet.sample"))
        return _gamma_sampling.dirichlet_sample(self.concentration, shape, "Dirichlet.sample")

    def rsample(self, shape=()):
        shape = self._extend_shape(_util.sample_shape_arg(shape, "Dirichlet.rsample"))
        return _gamma_sampling.dirichlet(self.concentration, shape, "Dirichlet.rsample")

    def log_prob(self, value):
        value = self._value(value)
        a = self.concentration
        lp = _util.widened_if_large((a,), _log_density, value, a)
        # the simplex up to rounding: a sum within a few ulps per category of 1
        tol = 16 * float(np.finfo(value._data.dtype).eps) * max(1, a.shape[-1])
        inside = (value >= 0).all(axis=-1) & ((value.sum(axis=-1) - 1.0).abs() <= tol)
        return ops.where(inside, lp, float("-inf"))

    def entropy(self):
        return _util.widened_if_large((self.concentration,), _entropy, self.concentration)

    @property
    def _natural_parameters(self):
        return (self.concentration,)

    def _log_normalizer(self, x):
        return ops.lgamma(x).sum(axis=-1) - ops.lgamma(x.sum(axis=-1))

    @property
    def _mean_carrier_measure(self):
        # h(x) = 1/prod(x): E[log h] = -sum E[log x_i] = -sum (psi(a_i) - psi(a0))
        a = self.concentration
        return -(ops.digamma(a) - ops.digamma(a.sum(axis=-1, keepdim=True))).sum(axis=-1)
