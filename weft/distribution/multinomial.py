"""Multinomial(total_count, probs)."""
from __future__ import annotations

import math

import numpy as np

from .. import ops
from ..autograd import no_grad
from . import _discrete, _util, constraints
from .distribution import Distribution

__all__ = ["Multinomial"]


class Multinomial(Distribution):
    """Counts of ``total_count`` draws from the categories of ``probs`` (normalised on
    the last axis). Event shape ``probs.shape[-1:]``; draws are float counts.

    >>> import weft
    >>> from weft.distribution import Multinomial
    >>> d = Multinomial(4, weft.to_tensor([0.2, 0.3, 0.5]))
    >>> d.mean.tolist(), d.sample([2]).shape
    ([0.800000011920929, 1.2000000476837158, 2.0], [2, 3])
    >>> round(d.log_prob(weft.to_tensor([1.0, 1.0, 2.0])).exp().item(), 4)
    0.18
    """

    arg_constraints = {"probs": constraints.simplex}

    def __init__(self, total_count, probs):
        if not isinstance(total_count, (int, np.integer)) or isinstance(total_count, bool) \
                or total_count < 1:
            raise ValueError("input parameter total_count must be int type and grater than "
                             f"zero, got {total_count!r}")
        self.total_count = int(total_count)
        (probs,) = _util.to_tensors(probs)
        if len(probs.shape) < 1:
            raise ValueError("Multinomial: probs must have at least 1 dim (the categories), "
                             f"got shape {probs.shape}")
        self._dtype = probs._data.dtype
        self._raw = probs
        self.probs = probs / probs.sum(axis=-1, keepdim=True)
        super().__init__(tuple(probs.shape[:-1]), tuple(probs.shape[-1:]))

    def _check_parameters(self):
        if not bool((self._raw >= 0).all()):
            raise ValueError("Multinomial: parameter 'probs' must be non-negative")
        super()._check_parameters()

    @property
    def support(self):
        return constraints.multinomial(self.total_count)

    @property
    def mean(self):
        return self.total_count * self.probs

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, shape=()):
        """Float counts of shape ``shape + batch_shape + event_shape``."""
        lead = _util.sample_shape_arg(shape, "Multinomial.sample")
        out_shape = self._extend_shape(lead)
        p = self.probs._data.astype(np.float64)
        p = p / p.sum(axis=-1, keepdims=True)
        with _util.Draw(self.probs) as gen:
            if isinstance(gen, np.random.Generator):
                counts = gen.multinomial(self.total_count, p, size=out_shape[:-1])
            else:   # CuPy: n categorical draws per count vector, then counted
                k = p.shape[-1]
                idx = _util.categorical_indices(gen, p, (self.total_count,) + tuple(lead))
                xp = _util.xp_of(idx)
                counts = (idx[..., None] == xp.arange(k)).sum(axis=0)
        return _util.wrap(counts.astype(self._dtype))

    def log_prob(self, value):
        value = self._value(value)
        n = float(self.total_count)
        # ½ log(2πn) + stirlerr(n) - Σ h_i(k_i) (see _h): the textbook lgamma(n + 1) -
        # Σ lgamma(k + 1) + Σ k log p subtracts terms of size n log n (a nat in float32
        # at n = 1e6, 4e-6 in float64 at 1e9); float32 runs in float64 with the
        # probabilities renormalised there (float32 ones sum to 1 ± 1e-7, which moves
        # Σ k log p by n·1e-7)
        lp = _util.widened(lambda v, p: _log_norm(n) - _h(
            v, n * p / p.sum(axis=-1, keepdim=True)).sum(axis=-1), value, self.probs)
        ok = ((value >= 0) & (value == value.floor())).all(axis=-1) & \
            (value.sum(axis=-1) == n)
        return ops.where(ok, lp, float("-inf"))

    def entropy(self):
        """Exact: ``n H(cat) - lgamma(n+1) + Σ_i Σ_k Binom(k; n, p_i) lgamma(k+1)``."""
        return _util.widened(self._entropy, self.probs)

    def _entropy(self, p):
        """``Σ_i E[h_i(K_i)] - ½ log(2πn) - stirlerr(n)`` over the Binomial(n, p_i)
        marginals, ``h_i(k) = lgamma(k + 1) - k log(n p_i) + n p_i`` (= ``bd0(k, n p_i) +
        ½ log(2πk) + stirlerr(k)`` for k >= 1, ``n p_i`` at 0): the same as ``n H(p) -
        lgamma(n + 1) + Σ E[lgamma(K_i + 1)]`` without its terms of size n log n (1e-5
        absolute at n = 1e9). Each expectation runs over the window np ± 40σ (+10)
        where the marginal has mass; the full arange(n + 1) took O(n) memory."""
        n = self.total_count
        p = p / p.sum(axis=-1, keepdim=True)
        with no_grad():
            m = n * p
            sd = (m * (1.0 - p)).sqrt()
            lo = ops.clip(m - 40.0 * sd - 10.0, min=0.0).floor()
            width = int(ops.max(ops.minimum(m + 40.0 * sd + 10.0, float(n)) - lo).item()) + 1
        width = min(width, n + 1)
        k = lo + ops.arange(width, dtype=p.dtype).reshape([width] + [1] * len(p.shape))
        inside = k <= n
        ks = ops.where(inside, k, 0.0)
        nn = ops.full_like(ks, float(n))
        pb = p + 0.0 * ks
        log_binom = _discrete.binomial_log_pmf(ks, nn, pb.log(), (-pb).log1p(), pb, 1.0 - pb)
        weight = ops.where(inside, log_binom.exp(), 0.0)
        h = _h(ks, n * pb)
        used = weight > 0
        terms = ops.where(used, weight * ops.where(used, h, 0.0), 0.0)
        return terms.sum(axis=0).sum(axis=-1) - _log_norm(n)


def _log_norm(n):
    """``lgamma(n + 1) - n log n + n = ½ log(2πn) + stirlerr(n)`` (a Python float)."""
    nf = float(n)
    return 0.5 * math.log(2 * math.pi * nf) + float(
        _discrete.stirlerr(ops.to_tensor(np.array(nf))).item())


def _h(k, m):
    """``lgamma(k + 1) - k log m + m`` for counts ``k >= 0`` and means ``m = n p_i``:
    ``bd0(k, m) + ½ log(2πk) + stirlerr(k)`` for k >= 1 (terms of size log k, not
    k log k), ``m`` at 0; ``inf`` for k >= 1 where ``m = 0``."""
    pos = k >= 1
    kp = ops.where(pos, k, 1.0)
    mp = ops.where(pos & (m > 0), m, 1.0)
    inner = (_discrete.bd0(kp, mp) + 0.5 * kp.log() + _discrete._HALF_LOG_2PI
             + _discrete.stirlerr(kp))
    inner = ops.where(m > 0, inner, float("inf"))
    return ops.where(pos, inner, m)
