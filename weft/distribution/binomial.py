"""Binomial(total_count, probs)."""
from __future__ import annotations

import numbers

import numpy as np

from .. import ops
from ..autograd import no_grad
from ..core.tensor import Tensor
from . import _discrete, _gamma_sampling, _util, constraints
from .distribution import Distribution

__all__ = ["Binomial"]


def _total_count(total_count, op):
    """Counts must be non-negative integers (integral floats accepted, **weft+**)."""
    if isinstance(total_count, Tensor):
        v = total_count._data
    elif isinstance(total_count, (numbers.Real, np.number, list, tuple, np.ndarray)) and \
            not isinstance(total_count, (bool, np.bool_)):
        v = np.asarray(total_count)
    else:
        raise TypeError(f"{op}: total_count must be an int or a Tensor, got "
                        f"{type(total_count).__name__}")
    xp = np if isinstance(v, np.ndarray) else __import__("cupy")
    if v.dtype.kind not in "iuf" or (v.size and not bool(xp.all((v >= 0) & (v == xp.floor(v))))):
        raise ValueError(f"{op}: total_count must hold non-negative integers, got "
                         f"{v if v.size <= 8 else 'a tensor with other values'}")
    return total_count


def _binomial_log_pmf(k, n, p):
    if _discrete.needs_saddle(n):
        return _discrete.binomial_log_pmf(k, n, p.log(), (-p).log1p(), p, 1.0 - p)
    return (-(n + 1.0).log() - ops.betaln(n - k + 1.0, k + 1.0)
            + ops.xlogy(k, p) + ops.xlog1py(n - k, -p))


class Binomial(Distribution):
    """The number of successes in ``total_count`` independent trials of probability
    ``probs``. ``total_count`` is an int or a Tensor of non-negative integers (an
    integral float is accepted, **weft+**; anything else raises ``ValueError``); it
    takes the dtype of ``probs``. Samples are float counts.

    ``cdf(k) = I_{1-p}(n - k, k + 1)``, differentiable in ``probs`` and, through the
    incomplete beta's shape derivatives, in ``total_count`` (the derivative of its
    continuous extension, as for ``log_prob``); ``icdf(q)`` is the smallest ``k`` with
    ``cdf(k) >= q``; the entropy is the exact sum over the support. ``rsample`` raises
    ``NotImplementedError`` (discrete).

    >>> import weft
    >>> from weft.distribution import Binomial
    >>> d = Binomial(10, weft.to_tensor([0.3, 0.6]))
    >>> d.mean.tolist(), d.mode.tolist()
    ([3.0, 6.0], [3.0, 6.0])
    >>> [round(v, 4) for v in d.cdf(weft.to_tensor(3.0)).tolist()]
    [0.6496, 0.0548]
    """

    arg_constraints = {"probs": constraints.unit_interval}
    has_enumerate_support = True

    def __init__(self, total_count, probs):
        total_count = _total_count(total_count, "Binomial")
        (probs,) = _util.to_tensors(probs)
        self.total_count, self.probs = _util.broadcast_all(total_count, probs,
                                                           dtype=probs._data.dtype)
        self._dtype = self.probs._data.dtype
        super().__init__(tuple(self.probs.shape))

    @constraints.dependent_property
    def support(self):
        return constraints.integer_interval(0, self.total_count)

    @property
    def logits(self):
        return self._probs_to_logits(self.probs, is_binary=True)

    @property
    def mean(self):
        return self.total_count * self.probs

    @property
    def variance(self):
        return self.total_count * self.probs * (1.0 - self.probs)

    @property
    def mode(self):
        return ops.minimum(((self.total_count + 1.0) * self.probs).floor(), self.total_count)

    def sample(self, shape=()):
        shape = self._extend_shape(_util.sample_shape_arg(shape, "Binomial.sample"))
        return _gamma_sampling.binomial(self.total_count, self.probs, shape)

    def log_prob(self, value):
        value = self._value(value, check=False)
        _discrete.check_support(self, value)
        n, p = self.total_count, self.probs
        k = _discrete.safe_count(value, n)
        # from n = 65536 on the saddle-point form, whose terms do not grow with n (the
        # lgamma sum lost a nat in float32 at n = 1e6 and 1e-5 in float64 at n = 1e9);
        # float32 runs in float64
        lp = _util.widened(_binomial_log_pmf, k, n, p)
        ok = _discrete.is_count(value) & (value <= n)
        return ops.where(ok, lp, float("-inf"))

    def cdf(self, value):
        """``I_{1-p}(n - k, k + 1)`` at ``k = floor(value)``. ``1 - p`` rounds (by up
        to 1.1e-16, which moved cdf(0) of Binomial(1e9, 1e-12) by 2e-8): the rounding
        ``δ = (1 - fl(1 - p)) - p``, exact, is added back as ``δ`` times the
        incomplete beta's slope there (the second-order term is below rounding).
        float32 runs in float64."""
        value = self._value(value, "cdf", check=False)
        return _util.widened(_cdf, value.floor(), self.total_count, self.probs)

    def _sf(self, k):
        """``1 - cdf(k) = I_p(k + 1, n - k)``: exact in ``p`` and accurate where the cdf
        rounds to 1 (the count icdf's upper quantiles; no gradient)."""
        return _util.widened(_sf, k.floor(), self.total_count, self.probs)

    def icdf(self, value):
        """The smallest ``k`` with ``cdf(k) >= q`` (through :meth:`_sf` above the
        median); ``icdf(1)`` is ``n`` (0 where ``p = 0``), which no bisection on the
        rounded masses reaches (it gave 504146 at n = 1e6, p = 1/2)."""
        q = self._validate_prob(self._value(value, "icdf", check=False))
        k = _discrete.icdf_by_bisection(self, q, self.total_count)
        top = ops.where(self.probs > 0, self.total_count, ops.zeros_like(self.total_count))
        return ops.where(q == 1, top + ops.zeros_like(k), k)

    def _support_values(self):
        top = int(ops.max(self.total_count).item()) if self.total_count.size else 0
        return ops.arange(0, top + 1, dtype=self._dtype)

    def entropy(self):
        """The exact sum over ``np ± 40σ`` (+10, within [0, n]), the only points with
        mass above float64 rounding (see :func:`_discrete.windowed_entropy`; a window
        over 2^20 points only occurs for σ > 1e4, where the law is smooth on the grid)."""
        with no_grad():
            m, sd = self.mean, self.variance.sqrt()
            lo = ops.clip(m - 40.0 * sd - 10.0, min=0.0)
            hi = ops.minimum(m + 40.0 * sd + 10.0, self.total_count)
        return _discrete.windowed_entropy(self, lo, hi)

    def enumerate_support(self, expand=True):
        """The values ``0 .. n`` along a new leading dim; every distribution of the batch
        must share one ``total_count``."""
        n = self.total_count
        if n.size and not bool((n == ops.max(n)).all()):
            raise NotImplementedError("Binomial.enumerate_support needs one total_count "
                                      "for the whole batch")
        values = self._support_values().reshape([-1] + [1] * len(self.batch_shape))
        if expand:
            values = ops.broadcast_to(values, [values.shape[0]] + list(self.batch_shape))
        return values


def _inner(k, n):
    """Where ``0 <= k < n``, and ``k``, ``n`` replaced off it by values that keep the
    incomplete beta finite (the ends are set afterwards)."""
    inner = (k >= 0) & (k < n)
    ks = ops.where(inner, k, ops.zeros_like(k))
    return inner, ks, ops.where(inner, n, ks + 1.0)


def _cdf(k, n, p):
    inner, ks, ns = _inner(k, n)
    a, b = ns - ks, ks + 1.0
    x = 1.0 - p
    f = ops.betainc(a, b, x)
    with no_grad():
        delta = (1.0 - x) - p
        slope = (ops.xlogy(a - 1.0, x) + ops.xlog1py(b - 1.0, -x) - ops.betaln(a, b)).exp()
        fix = ops.where(delta != 0, delta * slope, ops.zeros_like(f))
    f = ops.where(inner, f + fix, ops.zeros_like(f))
    f = ops.where(k >= n, ops.ones_like(f), f)
    return ops.where(k.isnan(), k, f)


def _sf(k, n, p):
    inner, ks, ns = _inner(k, n)
    s = ops.betainc(ks + 1.0, ns - ks, p + ops.zeros_like(ks))
    s = ops.where(inner, s, ops.zeros_like(s))
    return ops.where(k < 0, ops.ones_like(s), s)
