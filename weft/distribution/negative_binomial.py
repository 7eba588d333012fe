"""NegativeBinomial(total_count, probs=None, logits=None)."""
from __future__ import annotations

from .. import ops
from ..autograd import no_grad
from . import _discrete, _gamma_sampling, _util, constraints
from .distribution import Distribution

__all__ = ["NegativeBinomial"]


def _log_p_q(x, logits):
    """``(log p, log(1 - p))`` of probabilities ``x``, or of logits ``x`` (then without
    cancellation)."""
    if logits:
        return _util.log_sigmoid(x), _util.log_sigmoid(-x)
    return x.log(), (-x).log1p()


def _nb_log_pmf(k, r, lp, lq):
    """``log(r/(k + r)) + log C(k + r, k) + k log p + r log q``; from k + r = 65536 on
    with the binomial part in the saddle-point form of
    :func:`_discrete.binomial_log_pmf` (the lgamma sum cancels for large counts);
    r = 0 is a point mass at 0."""
    kr = k + r
    if not _discrete.needs_saddle(kr):
        comb = ops.where(kr == 0, 0.0, -ops.where(kr == 0, 1.0, kr).log()
                         - ops.betaln(k + 1.0, ops.where(kr == 0, 1.0, r)))
        return comb + ops.where(k > 0, k * lp, ops.zeros_like(k)) + r * lq
    empty = kr == 0
    krs = ops.where(empty, 1.0, kr)
    rs = ops.where(empty, 1.0, r)
    out = (rs / krs).log() + _discrete.binomial_log_pmf(k, krs, lp, lq, lp.exp(), lq.exp())
    return ops.where(empty, 0.0, out)


class NegativeBinomial(Distribution):
    """The number of successes (probability ``probs``) before ``total_count`` failures
    (PyTorch's convention): mass ``C(k + r - 1, k) p^k (1 - p)^r``. Give exactly one of
    ``probs`` and ``logits``. ``total_count`` is a positive real (not necessarily an
    integer). Samples are float counts drawn as Poisson(Gamma(r) p/(1 - p)).

    ``cdf(k) = I_{1-p}(r, k + 1)``; ``icdf`` is the smallest ``k`` with ``cdf(k) >= q``;
    the entropy sums over the support up to where the remaining mass is below
    ``1e-12`` (mean + 40 standard deviations).

    >>> import weft
    >>> from weft.distribution import NegativeBinomial
    >>> d = NegativeBinomial(weft.to_tensor([3.0]), probs=weft.to_tensor([0.4]))
    >>> d.mean.tolist(), d.mode.tolist()
    ([2.0], [1.0])
    """

    # probs (when given) must lie in [0, 1): checked in _check_extra
    arg_constraints = {"total_count": constraints.nonnegative}
    support = constraints.nonnegative_integer

    def __init__(self, total_count, probs=None, logits=None):
        if (probs is None) == (logits is None):
            raise ValueError("NegativeBinomial: give exactly one of probs or logits, got "
                             f"{'both' if probs is not None else 'neither'}")
        # the given parameter is stored, the other derived on access
        if probs is not None:
            self.total_count, self._probs = _util.broadcast_all(total_count, probs)
        else:
            self.total_count, self._logits = _util.broadcast_all(total_count, logits)
        self._dtype = self.total_count._data.dtype
        super().__init__(tuple(self.total_count.shape))

    @property
    def probs(self):
        """The success probability (a parameter Tensor, as in PyTorch)."""
        if "_probs" in vars(self):
            return self._probs
        return ops.sigmoid(self._logits)

    @property
    def logits(self):
        if "_logits" in vars(self):
            return self._logits
        return self._probs_to_logits(self._probs, is_binary=True)

    def _check_extra(self):
        if "_probs" in vars(self):
            p = self._probs
            if not bool(((p >= 0) & (p < 1)).all()):
                raise ValueError("NegativeBinomial: parameter 'probs' must satisfy the "
                                 "constraint HalfOpenInterval(0.0, 1.0)")

    def _log_p_q(self):
        given = "_logits" in vars(self)
        return _log_p_q(self._logits if given else self._probs, given)

    @property
    def mean(self):
        lp, lq = self._log_p_q()
        return self.total_count * (lp - lq).exp()

    @property
    def variance(self):
        lp, lq = self._log_p_q()
        return self.total_count * (lp - 2.0 * lq).exp()

    @property
    def mode(self):
        lp, lq = self._log_p_q()
        return ops.clip(((self.total_count - 1.0) * (lp - lq).exp()).floor(), min=0.0)

    def sample(self, shape=()):
        shape = self._extend_shape(_util.sample_shape_arg(shape, "NegativeBinomial.sample"))
        with no_grad():
            lp, lq = self._log_p_q()
            g = _gamma_sampling.gamma(self.total_count.detach(), shape,
                                      "NegativeBinomial.sample")
            lam = g * (lp - lq).exp()
            return _gamma_sampling.poisson(lam.detach(), shape)

    def log_prob(self, value):
        value = self._value(value, check=False)
        _discrete.check_support(self, value)
        k = _discrete.safe_count(value)
        given = "_logits" in vars(self)
        x = self._logits if given else self._probs
        out = _util.widened(lambda k, r, x: _nb_log_pmf(k, r, *_log_p_q(x, given)),
                                k, self.total_count, x)
        return ops.where(_discrete.is_count(value), out, float("-inf"))

    def cdf(self, value):
        value = self._value(value, "cdf", check=False)
        k = value.floor()
        inside = k >= 0
        ks = ops.where(inside, k, ops.zeros_like(k))
        _, lq = self._log_p_q()
        f = ops.betainc(self.total_count + 0.0 * ks, ks + 1.0, lq.exp())
        return ops.where(inside, f, ops.zeros_like(f))

    def _sf(self, k):
        """``1 - cdf(k)`` for integers ``k >= 0``: ``I_p(k + 1, total_count)``."""
        lp, _ = self._log_p_q()
        return ops.betainc(k + 1.0, self.total_count + 0.0 * k, lp.exp() + 0.0 * k)

    def icdf(self, value):
        q = self._validate_prob(self._value(value, "icdf", check=False))
        return _discrete.icdf_by_bisection(self, q)

    def entropy(self):
        """Summed over ``mean ± 40σ`` (+10) and 50 e-foldings of the geometric tail
        ``p^k`` beyond it (below ``total_count`` = 1 that tail is heavier than 40σ
        suggests: r = 1e-3, p = ½ lost 3e-3 of the mass). A window over 2^20 points is
        summed on a grid (see :func:`_discrete.windowed_entropy`), which needs a law
        that is smooth on the grid's step: not the case for ``total_count < 1`` (a
        spike at 0), which raises ``NotImplementedError`` there."""
        with no_grad():
            m, sd = self.mean, self.variance.sqrt()
            lp, _ = self._log_p_q()
            lo = ops.clip(m - 40.0 * sd - 10.0, min=0.0)
            hi = m + 40.0 * sd + 10.0 + 50.0 / (-lp)
            width = float(ops.max(hi - lo).item()) if lo.size else 0.0
            if width > _discrete._EXACT_MAX and bool((self.total_count < 1).any()):
                raise NotImplementedError(
                    "NegativeBinomial.entropy: total_count < 1 with a support window of "
                    f"{width:.3g} points (over 2^20) is not implemented: the law has a "
                    "spike at 0 that a coarse grid cannot sum")
        return _discrete.windowed_entropy(self, lo, hi)
