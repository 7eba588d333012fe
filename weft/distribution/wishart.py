"""Wishart(df, covariance_matrix=None, precision_matrix=None, scale_tril=None)."""
from __future__ import annotations

import math

import numpy as np

from .. import linalg, ops
from . import _gamma_sampling, _util, constraints
from .distribution import Distribution, _validating

__all__ = ["Wishart"]


def _mT(x):
    return x.transpose(list(range(len(x.shape) - 2)) + [len(x.shape) - 1, len(x.shape) - 2])


def _trace(x):
    return ops.diagonal(x, axis1=-2, axis2=-1).sum(axis=-1)


class Wishart(Distribution):
    """The Wishart distribution of ``p x p`` positive-definite matrices with ``df``
    degrees of freedom (``df > p - 1``) and scale matrix ``Σ``, given by exactly one of
    ``covariance_matrix`` (``Σ``), ``precision_matrix`` (``Σ⁻¹``) or ``scale_tril``
    (the Cholesky factor ``L`` of ``Σ``). Event shape ``(p, p)``; batch shape = the
    broadcast of ``df.shape`` and the matrices' batch dims.

    ``rsample`` is Bartlett's construction ``L A Aᵀ Lᵀ`` (``A`` lower triangular,
    ``A_ii² ~ χ²(df - i)``, ``A_ij ~ N(0, 1)`` below the diagonal): differentiable in
    ``L`` pathwise and in ``df`` through the chi-squared draws' implicit
    reparameterisation gradients. ``cdf``/``icdf`` raise ``NotImplementedError``.

    >>> import weft
    >>> from weft.distribution import Wishart
    >>> d = Wishart(weft.to_tensor(4.0), covariance_matrix=weft.eye(2))
    >>> d.event_shape, d.mean.tolist()
    ((2, 2), [[4.0, 0.0], [0.0, 4.0]])
    >>> d.sample([3]).shape
    [3, 2, 2]
    """

    arg_constraints = {"df": constraints.dependent, "scale_tril": constraints.lower_cholesky}
    support = constraints.positive_definite
    has_rsample = True

    def __init__(self, df, covariance_matrix=None, precision_matrix=None, scale_tril=None):
        given = [m is not None for m in (covariance_matrix, precision_matrix, scale_tril)]
        if sum(given) != 1:
            # MultivariateNormal's message (Paddle's wording)
            raise ValueError("Exactly one of covariance_matrix or precision_matrix or "
                             "scale_tril may be specified.")
        (m,) = _util.to_tensors(next(x for x in (covariance_matrix, precision_matrix,
                                                 scale_tril) if x is not None))
        if len(m.shape) < 2 or m.shape[-1] != m.shape[-2]:
            raise ValueError(f"Wishart: the matrix argument must be a batch of square "
                             f"matrices, got shape {m.shape}")
        (df,) = _util.to_tensors(df, dtype=m._data.dtype)
        p = m.shape[-1]
        batch = _util.broadcast_shape(df.shape, m.shape[:-2])
        self._p = p
        if scale_tril is not None:
            tril = m
        elif covariance_matrix is not None:
            tril = linalg.cholesky(m)
        else:
            # Σ = P⁻¹ from P's own factor (two triangular solves), then its factor
            lp = linalg.cholesky(m)
            tril = linalg.cholesky(linalg.cholesky_inverse(lp))
        self.df = ops.broadcast_to(df, batch)
        self.scale_tril = ops.broadcast_to(tril, batch + [p, p])
        self._dtype = m._data.dtype
        super().__init__(tuple(batch), (p, p))

    def _check_extra(self):
        if not bool((self.df > self._p - 1).all()):
            raise ValueError(f"Wishart: parameter 'df' must be greater than p - 1 = "
                             f"{self._p - 1}")

    @property
    def covariance_matrix(self):
        return self.scale_tril @ _mT(self.scale_tril)

    @property
    def precision_matrix(self):
        return linalg.cholesky_inverse(self.scale_tril)

    @property
    def mean(self):
        return self.df[..., None, None] * self.covariance_matrix

    @property
    def variance(self):
        s = self.covariance_matrix
        d = ops.diagonal(s, axis1=-2, axis2=-1)
        return self.df[..., None, None] * (s * s + d[..., :, None] * d[..., None, :])

    @property
    def mode(self):
        """``(df - p - 1) Σ`` for ``df > p + 1``; NaN elsewhere."""
        f = self.df - (self._p + 1.0)
        m = f[..., None, None] * self.covariance_matrix
        return ops.where((f > 0)[..., None, None], m, ops.full_like(m, math.nan))

    def _half_logdet(self):
        return ops.diagonal(self.scale_tril, axis1=-2, axis2=-1).log().sum(axis=-1)

    def rsample(self, shape=()):
        shape = _util.sample_shape_arg(shape, "Wishart.rsample")
        p = self._p
        lead = tuple(shape) + self.batch_shape
        # the diagonal: sqrt(chi2(df - i)) = sqrt(2 Gamma((df - i)/2))
        half = 0.5 * (self.df[..., None] - ops.arange(0, p, dtype=self._dtype))
        diag = (2.0 * _gamma_sampling.gamma(half, lead + (p,), "Wishart.rsample")).sqrt()
        with _util.Draw(self.df) as gen:
            z = _util.std_normal(gen, lead + (p, p), self._dtype)
        z = _util.wrap(np.tril(z, -1) if isinstance(z, np.ndarray) else
                       __import__("cupy").tril(z, -1))
        a = z + ops.diag_embed(diag)
        la = self.scale_tril @ a
        return la @ _mT(la)

    def _widened(self):
        """The float64 twin of a float32 Wishart (gradients reach the float32
        parameters through the casts): the log-density and entropy subtract terms of
        size df·p (log det, trace, multigammaln), which cost a nat in float32 at
        df = 1e6."""
        return Wishart(self.df.astype(np.float64),
                       scale_tril=self.scale_tril.astype(np.float64))

    def log_prob(self, value):
        value = self._value(value, check=False)
        if self._dtype != np.float64:
            if _validating():
                self._check_value(value)
            return self._widened().log_prob(value.astype(np.float64)).astype(self._dtype)
        p = self._p
        if _validating():
            self._check_value(value)
        sign_logdet = linalg.slogdet(value)
        sign, logdet = sign_logdet[0], sign_logdet[1]
        tril = self.scale_tril
        # tr(Σ⁻¹ X) = tr(L⁻¹ X L⁻ᵀ): two triangular solves, no inverse
        b = linalg.triangular_solve(tril, value, upper=False)
        c = linalg.triangular_solve(tril, _mT(b), upper=False)
        nu = self.df
        lp = (0.5 * (nu - p - 1.0) * logdet - 0.5 * _trace(c) - (0.5 * p * math.log(2.0)) * nu
              - nu * self._half_logdet() - ops.multigammaln(0.5 * nu, p))
        sym = ((value - _mT(value)).abs() <= 1e-6 * (value.abs() + 1.0)).all(axis=-1).all(axis=-1)
        ok = (sign > 0) & sym
        return ops.where(ok, lp, float("-inf"))

    def _check_value(self, value):
        sign = linalg.slogdet(value)[0]
        sym = ((value - _mT(value)).abs() <= 1e-6 * (value.abs() + 1.0)).all()
        if not (bool(sym) and bool((sign > 0).all())):
            raise ValueError("Wishart.log_prob: value is outside the support "
                             "PositiveDefinite()")

    def entropy(self):
        if self._dtype != np.float64:
            return self._widened().entropy().astype(self._dtype)
        p = self._p
        nu = self.df
        h = 0.5 * nu
        psi_p = ops.digamma(h)
        for j in range(1, p):
            psi_p = psi_p + ops.digamma(h - 0.5 * j)
        return ((p + 1.0) * self._half_logdet() + 0.5 * p * (p + 1.0) * math.log(2.0)
                + ops.multigammaln(h, p) - 0.5 * (nu - p - 1.0) * psi_p + 0.5 * nu * p)

