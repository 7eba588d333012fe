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
    # log C(k + r - 1, k) = lgamma(k + r) - lgamma(k + 1) - lgamma(r) cancels for large
    # arguments; as -log(k + r) - betaln(k + 1, r) it does not (k = r = 0, a point mass
    # at 0, is the limit 0)
    kr = k + r
    empty = kr == 0
    comb = ops.where(empty, 0.0, -ops.where(empty, 1.0, kr).log()
                     - ops.betaln(k + 1.0, ops.where(empty, 1.0, r)))
    # k log p is 0 at k = 0 even for p = 0
    return comb + ops.where(k > 0, k * lp, ops.zeros_like(k)) + r * lq


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

    def icdf(self, value):
        q = self._validate_prob(self._value(value, "icdf", check=False))
        return _discrete.icdf_by_bisection(self, q)

    def entropy(self):
        with no_grad():
            top = self.mean + 40.0 * self.variance.sqrt() + 10.0
            upper = int(ops.max(top).item()) if top.size else 0
        values = ops.arange(0, upper + 1, dtype=self._dtype).reshape(
            [-1] + [1] * len(self.batch_shape))
        return _discrete.entropy_sum(self.log_prob(values))
