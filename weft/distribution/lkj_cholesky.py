"""LKJCholesky(dim, concentration, sample_method): Cholesky factors of LKJ-distributed
correlation matrices."""
from __future__ import annotations

import math

import numpy as np

from .. import ops
from . import _util, constraints
from .distribution import Distribution

__all__ = ["LKJCholesky"]


class LKJCholesky(Distribution):
    """The LKJ distribution on ``dim × dim`` correlation matrices, density
    ``∝ det(C)^(η - 1)`` (η = ``concentration``), represented by the lower Cholesky
    factor ``L`` of ``C = L Lᵀ``. Event shape ``(dim, dim)``; batch shape
    ``concentration.shape``.

    Sampling is exact for every ``dim`` with either method (each off-diagonal
    correlation is marginally ``2·Beta(η - 1 + dim/2, η - 1 + dim/2) - 1``):

    - ``'onion'`` (Lewandowski, Kurowicka & Joe 2009, §3.2): row ``i`` of ``L`` is
      ``(√y · u, √(1 - y))`` with ``u`` uniform on the unit sphere of ℝⁱ and
      ``y ~ Beta(i/2, η + (dim - 2)/2 - (i - 1)/2)``;
    - ``'cvine'`` (§2.4): partial correlations of level ``j`` are
      ``2·Beta(b, b) - 1``, ``b = η + (dim - 2 - j)/2``, turned into ``L`` by stick
      breaking along each row.

    (Paddle's samplers and PyTorch's onion use ``Beta(i - 1/2, ·)`` for row ``i``,
    which is wrong for ``dim >= 3``.)

    >>> import weft
    >>> from weft.distribution import LKJCholesky
    >>> d = LKJCholesky(3, 2.0)
    >>> L = d.sample([4])
    >>> L.shape, bool((weft.matmul(L, L, transpose_y=True).diagonal(axis1=-2, axis2=-1)
    ...                - 1).abs().max() < 1e-5)
    ([4, 3, 3], True)
    """

    arg_constraints = {"concentration": constraints.positive}
    support = constraints.corr_cholesky

    def __init__(self, dim=2, concentration=1.0, sample_method="onion"):
        if not isinstance(dim, (int, np.integer)) or isinstance(dim, bool) or dim < 2:
            raise ValueError(f"Expected dim to be an integer greater than or equal to 2. "
                             f"Found dim={dim}.")
        if sample_method not in ("onion", "cvine"):
            raise ValueError("`method` should be one of 'cvine' or 'onion'.")
        self.dim = int(dim)
        self.sample_method = sample_method
        (self.concentration,) = _util.to_tensors(concentration)
        self._dtype = self.concentration._data.dtype
        super().__init__(tuple(self.concentration.shape), (self.dim, self.dim))

    def sample(self, sample_shape=()):
        """Exact draws of shape ``sample_shape + batch_shape + (dim, dim)``."""
        lead = _util.sample_shape_arg(sample_shape, "LKJCholesky.sample")
        d, dt = self.dim, self._dtype
        eta = self.concentration._data
        xp = _util.xp_of(eta)
        lb = tuple(lead) + tuple(self.batch_shape)
        with _util.Draw(self.concentration) as gen:
            if self.sample_method == "onion":
                i = xp.arange(1, d, dtype=dt)                       # rows 1 .. d-1
                a = xp.broadcast_to(i / 2, eta.shape + (d - 1,))
                b = eta[..., None] + (d - 2) / 2 - (i - 1) / 2
                y = _util.std_beta(gen, a, b, lb + (d - 1,), dt)
                u = xp.tril(_util.std_normal(gen, lb + (d, d), dt), -1)
                norm = xp.sqrt((u * u).sum(axis=-1, keepdims=True))
                norm[..., 0, :] = 1                                  # row 0 is empty
                w = u / norm
                w[..., 1:, :] *= xp.sqrt(y)[..., None]
                diag = xp.sqrt(xp.clip(1 - (w * w).sum(axis=-1), np.finfo(dt).tiny, None))
                out = w + diag[..., None] * xp.eye(d, dtype=dt)
            else:
                j = xp.arange(d, dtype=dt)                           # level of column j
                b = xp.broadcast_to(eta[..., None, None] + (d - 2 - j) / 2,
                                    eta.shape + (d, d))
                z = 2 * _util.std_beta(gen, b, b, lb + (d, d), dt) - 1
                z = xp.tril(z, -1)
                rest = xp.cumprod(xp.sqrt(1 - z * z), axis=-1)
                shifted = xp.concatenate([xp.ones(lb + (d, 1), dt), rest[..., :-1]], axis=-1)
                out = (z + xp.eye(d, dtype=dt)) * shifted
        return _util.wrap(xp.ascontiguousarray(out))

    def log_prob(self, value):
        """``Σ_{i>=1} (2(η - 1) + dim - i - 1) log L_ii`` minus the normaliser (the LKJ
        density of ``C`` times the Jacobian of ``L ↦ L Lᵀ``)."""
        value = self._value(value)
        d = self.dim
        diag = ops.diagonal(value, axis1=-2, axis2=-1)[..., 1:]
        order = ops.arange(2, d + 1, dtype=self._dtype)
        order = 2.0 * (self.concentration - 1).unsqueeze(-1) + d - order
        unnorm = (order * diag.log()).sum(axis=-1)
        dm1 = d - 1
        alpha = self.concentration + 0.5 * dm1
        denominator = ops.lgamma(alpha) * dm1
        numerator = ops.multigammaln(alpha - 0.5, dm1)
        pi_constant = 0.5 * dm1 * math.log(math.pi)
        return unnorm - (pi_constant + numerator - denominator)
