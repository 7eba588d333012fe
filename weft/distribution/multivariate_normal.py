"""MultivariateNormal and LowRankMultivariateNormal."""
from __future__ import annotations

from .. import linalg, ops
from . import _util, constraints
from .distribution import Distribution

__all__ = ["MultivariateNormal", "LowRankMultivariateNormal"]


def _diag(x):
    return ops.diagonal(x, axis1=-2, axis2=-1)


def _mT(x):
    return ops.swapaxes(x, -1, -2)


def _cholesky(m, arg, op):
    try:
        return linalg.cholesky(m)
    except ValueError as e:
        raise ValueError(f"{op}: {arg} must be positive definite ({e})") from None


def _precision_to_scale_tril(p):
    """Cholesky factor of ``P⁻¹`` without forming the inverse: with ``Lf`` the Cholesky
    factor of ``P`` with rows and columns reversed, ``L = (flip(Lf)ᵀ)⁻¹`` is lower
    triangular and ``L Lᵀ = P⁻¹``; one triangular solve against the identity."""
    lf = _cholesky(ops.flip(p, [-2, -1]), "precision_matrix", "MultivariateNormal")
    l_inv = _mT(ops.flip(lf, [-2, -1]))
    eye = ops.eye(p.shape[-1], dtype=p.dtype)
    return linalg.triangular_solve(l_inv, eye, upper=False)


class _GaussianBase(Distribution):
    support = constraints.real_vector
    has_rsample = True

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def covariance_matrix(self):
        lo = self.scale_tril
        return lo @ _mT(lo)

    @property
    def precision_matrix(self):
        return linalg.cholesky_inverse(self.scale_tril)


class MultivariateNormal(_GaussianBase):
    """The multivariate normal ``N(loc, Σ)``, given by exactly one of
    ``covariance_matrix``, ``precision_matrix`` or ``scale_tril`` (the lower Cholesky
    factor of Σ). Batch shape is the broadcast of ``loc.shape[:-1]`` and the matrix's
    batch dims; event shape ``loc.shape[-1:]``.

    >>> import weft
    >>> from weft.distribution import MultivariateNormal
    >>> d = MultivariateNormal(weft.zeros([2]),
    ...                        precision_matrix=weft.to_tensor([[2.0, 0.0], [0.0, 4.0]]))
    >>> [round(v, 6) for v in d.variance.tolist()], d.sample([5]).shape
    ([0.5, 0.25], [5, 2])
    """

    arg_constraints = {"loc": constraints.real_vector,
                       "covariance_matrix": constraints.positive_definite,
                       "precision_matrix": constraints.positive_definite,
                       "scale_tril": constraints.lower_cholesky}

    def __init__(self, loc, covariance_matrix=None, precision_matrix=None, scale_tril=None):
        given = [(n, m) for n, m in (("covariance_matrix", covariance_matrix),
                                     ("precision_matrix", precision_matrix),
                                     ("scale_tril", scale_tril)) if m is not None]
        if len(given) != 1:
            raise ValueError("Exactly one of covariance_matrix or precision_matrix or "
                             "scale_tril may be specified.")
        name, mat = given[0]
        loc, mat = _util.to_tensors(loc, mat)
        if len(loc.shape) < 1:
            raise ValueError("MultivariateNormal: loc must be at least one-dimensional, got "
                             "a 0-D tensor")
        k = loc.shape[-1]
        if len(mat.shape) < 2 or mat.shape[-2:] != [k, k]:
            raise ValueError(f"MultivariateNormal: {name} must have shape [..., {k}, {k}] to "
                             f"match loc, got {mat.shape}")
        self._dtype = loc._data.dtype
        self._given = (name, mat)
        batch = _util.broadcast_shape(loc.shape[:-1], mat.shape[:-2])
        self.loc = loc if loc.shape[:-1] == batch else ops.broadcast_to(loc, batch + [k])
        super().__init__(tuple(batch), (k,))
        # the factor keeps only its own batch dims (broadcast lazily), so a shared
        # matrix costs one factorisation and one solve per call
        if name == "scale_tril":
            self._L = mat
        elif name == "covariance_matrix":
            self._L = _cholesky(mat, name, "MultivariateNormal")
        else:
            self._L = _precision_to_scale_tril(mat)

    def _check_parameters(self):
        name, mat = self._given
        for n, v in (("loc", self.loc), (name, mat)):
            c = self.arg_constraints[n]
            if not bool(c.check(v).all()):
                raise ValueError(f"MultivariateNormal: parameter {n!r} must satisfy the "
                                 f"constraint {c!r}")

    def _full(self, m):
        shape = list(self.batch_shape) + list(m.shape[-2:])
        return m if m.shape == shape else ops.broadcast_to(m, shape)

    @property
    def scale_tril(self):
        return self._full(self._L)

    @property
    def covariance_matrix(self):
        if self._given[0] == "covariance_matrix":
            return self._full(self._given[1])
        return self._full(self._L @ _mT(self._L))

    @property
    def precision_matrix(self):
        if self._given[0] == "precision_matrix":
            return self._full(self._given[1])
        return self._full(linalg.cholesky_inverse(self._L))

    @property
    def variance(self):
        v = (self._L * self._L).sum(axis=-1)
        shape = list(self.batch_shape) + list(self.event_shape)
        return v if v.shape == shape else ops.broadcast_to(v, shape)

    def _half_log_det(self):
        return _diag(self._L).log().sum(axis=-1)

    def rsample(self, shape=()):
        """``loc + L ε`` (``ε`` standard normal); differentiable in every parameter."""
        full = self._extend_shape(_util.sample_shape_arg(shape, "MultivariateNormal.rsample"))
        with _util.Draw(self.loc) as gen:
            eps = _util.wrap(_util.std_normal(gen, full, self._dtype))
        if len(self._L.shape) == 2:       # one shared factor: a single GEMM
            return self.loc + eps @ _mT(self._L)
        return self.loc + (self._L @ eps.unsqueeze(-1)).squeeze(-1)

    def log_prob(self, value):
        value = self._value(value)
        k = self.event_shape[0]
        m = _util.tri_mahalanobis(self._L, value - self.loc)
        return -0.5 * (k * _util.LOG_2PI + m) - self._half_log_det()

    def entropy(self):
        k = self.event_shape[0]
        h = 0.5 * k * (1.0 + _util.LOG_2PI) + self._half_log_det()
        shape = list(self.batch_shape)
        return h if h.shape == shape else ops.broadcast_to(h, shape)


class LowRankMultivariateNormal(_GaussianBase):
    """A multivariate normal with covariance ``W Wᵀ + diag(D)`` (``W = cov_factor`` of
    shape ``[..., k, r]``, ``D = cov_diag``). ``log_prob`` and ``entropy`` use the
    Woodbury identity and the ``r × r`` capacitance ``I + Wᵀ D⁻¹ W``; a zero entry in
    ``D`` is accepted when ``W Wᵀ + diag(D)`` is still positive definite (the full
    Cholesky factor is used then).

    >>> import weft
    >>> from weft.distribution import LowRankMultivariateNormal
    >>> d = LowRankMultivariateNormal(weft.zeros([3]), weft.ones([3, 1]), weft.ones([3]))
    >>> d.variance.tolist(), d.sample([4]).shape
    ([2.0, 2.0, 2.0], [4, 3])
    """

    arg_constraints = {"loc": constraints.real_vector,
                       "cov_factor": constraints.independent(constraints.real, 2),
                       "cov_diag": constraints.independent(constraints.nonnegative, 1)}

    def __init__(self, loc, cov_factor, cov_diag):
        loc, w, dg = _util.to_tensors(loc, cov_factor, cov_diag)
        if len(loc.shape) < 1:
            raise ValueError("LowRankMultivariateNormal: loc must be at least one-dimensional")
        k = loc.shape[-1]
        if len(w.shape) < 2 or w.shape[-2] != k:
            raise ValueError(f"LowRankMultivariateNormal: cov_factor must have shape "
                             f"[..., {k}, rank], got {w.shape}")
        if len(dg.shape) < 1 or dg.shape[-1] != k:
            raise ValueError(f"LowRankMultivariateNormal: cov_diag must have shape [..., {k}], "
                             f"got {dg.shape}")
        self._dtype = loc._data.dtype
        batch = _util.broadcast_shape(loc.shape[:-1], w.shape[:-2], dg.shape[:-1])
        self.loc = ops.broadcast_to(loc, batch + [k]) if loc.shape[:-1] != batch else loc
        self.cov_factor = w if w.shape[:-2] == batch else \
            ops.broadcast_to(w, batch + w.shape[-2:])
        self.cov_diag = dg if dg.shape[:-1] == batch else ops.broadcast_to(dg, batch + [k])
        super().__init__(tuple(batch), (k,))
        self._full_path = bool((self.cov_diag == 0).any())
        if self._full_path:
            cov = self.cov_factor @ _mT(self.cov_factor) + ops.diag_embed(self.cov_diag)
            self._L = _cholesky(cov, "cov_factor @ cov_factor.T + diag(cov_diag)",
                                "LowRankMultivariateNormal")
        else:
            r = w.shape[-1]
            wt_dinv = _mT(self.cov_factor / self.cov_diag.unsqueeze(-1))
            cap = ops.eye(r, dtype=w.dtype) + wt_dinv @ self.cov_factor
            self._cap_tril = _cholesky(cap, "the capacitance matrix", "LowRankMultivariateNormal")

    @property
    def scale_tril(self):
        if self._full_path:
            return self._L
        return _cholesky(self.covariance_matrix, "covariance", "LowRankMultivariateNormal")

    @property
    def covariance_matrix(self):
        return self.cov_factor @ _mT(self.cov_factor) + ops.diag_embed(self.cov_diag)

    @property
    def precision_matrix(self):
        return linalg.cholesky_inverse(self.scale_tril)

    @property
    def variance(self):
        return (self.cov_factor * self.cov_factor).sum(axis=-1) + self.cov_diag

    def _log_det(self):
        if self._full_path:
            return 2.0 * _diag(self._L).log().sum(axis=-1)
        return 2.0 * _diag(self._cap_tril).log().sum(axis=-1) + self.cov_diag.log().sum(axis=-1)

    def rsample(self, shape=()):
        """``loc + W ε₁ + √D ε₂``."""
        lead = _util.sample_shape_arg(shape, "LowRankMultivariateNormal.rsample")
        r = self.cov_factor.shape[-1]
        full = self._extend_shape(lead)
        with _util.Draw(self.loc) as gen:
            e_w = _util.wrap(_util.std_normal(gen, tuple(full[:-1]) + (r,), self._dtype))
            e_d = _util.wrap(_util.std_normal(gen, full, self._dtype))
        return (self.loc + (self.cov_factor @ e_w.unsqueeze(-1)).squeeze(-1)
                + self.cov_diag.sqrt() * e_d)

    def log_prob(self, value):
        value = self._value(value)
        k = self.event_shape[0]
        diff = value - self.loc
        if self._full_path:
            m = _util.tri_mahalanobis(self._L, diff)
        else:
            # Woodbury: dᵀΣ⁻¹d = dᵀD⁻¹d - ‖L_C⁻¹ Wᵀ D⁻¹ d‖²
            scaled = diff / self.cov_diag
            proj = (scaled.unsqueeze(-2) @ self.cov_factor).squeeze(-2)
            m = (diff * scaled).sum(axis=-1) - _util.tri_mahalanobis(self._cap_tril, proj)
        return -0.5 * (k * _util.LOG_2PI + m + self._log_det())

    def entropy(self):
        k = self.event_shape[0]
        return 0.5 * (k * (1.0 + _util.LOG_2PI) + self._log_det())
