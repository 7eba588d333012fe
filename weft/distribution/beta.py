"""Beta(alpha, beta)."""
from __future__ import annotations

import math

from .. import ops
from . import _gamma_sampling, _util, constraints
from .exponential_family import ExponentialFamily

__all__ = ["Beta"]


class Beta(ExponentialFamily):
    """The Beta distribution with density ``x^(α-1) (1-x)^(β-1) / B(α, β)`` on ``[0, 1]``.

    ``rsample`` (**weft+**) draws ``Gα / (Gα + Gβ)`` from two Gamma draws with
    implicit-reparameterisation gradients. ``cdf`` is the regularized incomplete beta
    ``I_x(α, β)`` and ``icdf`` its inverse; both are differentiable in the value, and,
    as the spec defines them, their derivatives in ``α``, ``β`` raise
    ``NotImplementedError`` (``weft.betainc``/``weft.betaincinv`` of the parameters are
    differentiable in them).

    >>> import weft
    >>> from weft.distribution import Beta
    >>> d = Beta(weft.to_tensor([2.0]), weft.to_tensor([3.0]))
    >>> round(d.mean.item(), 4), round(d.cdf(weft.to_tensor(0.4)).item(), 4)
    (0.4, 0.5248)
    """

    arg_constraints = {"alpha": constraints.positive, "beta": constraints.positive}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, alpha, beta):
        self.alpha, self.beta = _util.broadcast_all(alpha, beta)
        self._dtype = self.alpha._data.dtype
        super().__init__(tuple(self.alpha.shape))

    @property
    def mean(self):
        return self.alpha / (self.alpha + self.beta)

    @property
    def variance(self):
        s = self.alpha + self.beta
        return self.alpha * self.beta / (s * s * (s + 1.0))

    @property
    def mode(self):
        """``(α - 1)/(α + β - 2)`` where ``α, β > 1``; NaN elsewhere (0, 1 or no
        unique mode)."""
        m = (self.alpha - 1.0) / (self.alpha + self.beta - 2.0)
        ok = (self.alpha > 1) & (self.beta > 1)
        return ops.where(ok, m, ops.full_like(m, math.nan))

    def rsample(self, shape=()):
        shape = self._extend_shape(_util.sample_shape_arg(shape, "Beta.rsample"))
        return _gamma_sampling.beta(self.alpha, self.beta, shape, "Beta.rsample")

    def log_prob(self, value):
        value = self._value(value)
        a, b = self.alpha, self.beta
        lp = ops.xlogy(a - 1.0, value) + ops.xlog1py(b - 1.0, -value) - ops.betaln(a, b)
        inside = (value >= 0) & (value <= 1)
        return ops.where(inside, lp, float("-inf"))

    def cdf(self, value):
        value = self._value(value, "cdf", check=False)
        a, b = self._shapes_without_grad("cdf")
        return ops.betainc(a, b, ops.clip(value, 0.0, 1.0))

    def icdf(self, value):
        q = self._validate_prob(self._value(value, "icdf", check=False))
        a, b = self._shapes_without_grad("icdf")
        return ops.betaincinv(a, b, q)

    def _shapes_without_grad(self, method):
        # api-distribution.md §2 defines Beta's F/Q as differentiable in the value only,
        # the parameter gradients raising: a hook on a copy refuses any that arrives
        def refuse(g):
            raise NotImplementedError(
                f"Beta.{method}: the gradient with respect to alpha and beta is not "
                f"implemented (weft.betainc / weft.betaincinv of the parameters are "
                f"differentiable in them)")
        out = []
        for t in (self.alpha, self.beta):
            if not t.stop_gradient:
                t = t * 1.0
                if not t.stop_gradient:   # (under no_grad nothing is recorded)
                    t.register_hook(refuse)
            out.append(t)
        return out

    def entropy(self):
        a, b = self.alpha, self.beta
        s = a + b
        return (ops.betaln(a, b) - (a - 1.0) * ops.digamma(a) - (b - 1.0) * ops.digamma(b)
                + (s - 2.0) * ops.digamma(s))

    @property
    def _natural_parameters(self):
        return (self.alpha, self.beta)

    def _log_normalizer(self, x, y):
        return ops.lgamma(x) + ops.lgamma(y) - ops.lgamma(x + y)

    @property
    def _mean_carrier_measure(self):
        # h(x) = 1/(x(1-x)) with T(x) = (log x, log(1-x)): E[log h] = -E[log x] - E[log(1-x)]
        ds = ops.digamma(self.alpha + self.beta)
        return -(ops.digamma(self.alpha) - ds) - (ops.digamma(self.beta) - ds)
