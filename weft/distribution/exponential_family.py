"""ExponentialFamily: densities ``h(x) exp(<θ, T(x)> - A(θ))``."""
from __future__ import annotations

from ..autograd import enable_grad, grad
from .distribution import Distribution

__all__ = ["ExponentialFamily"]


def _as_leaves(params):
    """Natural parameters to differentiate ``A`` at: Tensors that already carry a graph
    are used as they are (so the result stays differentiable in the user's
    parameters); the others become fresh leaves."""
    out = []
    for p in params:
        if p.stop_gradient:
            p = p.detach()
            p.stop_gradient = False
        out.append(p)
    return out


def _inner_to_batch(a, b, batch_ndim):
    """``<a, b>`` summed over every dim after the first ``batch_ndim``."""
    prod = a * b
    extra = len(prod.shape) - batch_ndim
    return prod.sum(axis=list(range(batch_ndim, len(prod.shape)))) if extra > 0 else prod


class ExponentialFamily(Distribution):
    """Abstract exponential family. Subclasses provide ``_natural_parameters`` (a tuple
    of Tensors θ), ``_log_normalizer(*θ)`` (A) and ``_mean_carrier_measure``
    (E[log h(X)]); the entropy ``A(θ) - <θ, ∇A(θ)> - E[log h(X)]`` follows, with ∇A from
    weft's autograd (``create_graph=True``, so the entropy is differentiable), and the
    generic KL (the Bregman divergence of A) in :mod:`weft.distribution.kl`.

    >>> import weft
    >>> from weft.distribution import Exponential, ExponentialFamily
    >>> d = Exponential(weft.to_tensor([2.0]))
    >>> e = ExponentialFamily.entropy(d)       # the generic formula: 1 - log(2)
    >>> round(e.item(), 5)
    0.30685
    """

    @property
    def _natural_parameters(self):
        raise NotImplementedError(f"{type(self).__name__}._natural_parameters is not "
                                  "implemented")

    def _log_normalizer(self, *natural_params):
        raise NotImplementedError(f"{type(self).__name__}._log_normalizer is not "
                                  "implemented")

    @property
    def _mean_carrier_measure(self):
        raise NotImplementedError(f"{type(self).__name__}._mean_carrier_measure is not "
                                  "implemented")

    def _log_normalizer_and_grad(self, params):
        """``(A(θ), ∇A(θ))`` at the natural parameters ``params``."""
        with enable_grad():
            leaves = _as_leaves(params)
            a = self._log_normalizer(*leaves)
            grads = grad(a.sum(), leaves, create_graph=True)
        return leaves, a, grads

    def entropy(self):
        """``A(θ) - <θ, ∇A(θ)> - E[carrier]`` (batch shape)."""
        nb = len(self.batch_shape)
        leaves, a, grads = self._log_normalizer_and_grad(self._natural_parameters)
        result = a - self._mean_carrier_measure
        for p, g in zip(leaves, grads):
            result = result - _inner_to_batch(p, g, nb)
        return result
