"""MixtureSameFamily(mixture_distribution, component_distribution)."""
from __future__ import annotations

from .. import ops
from . import _util
from .categorical import Categorical
from .distribution import Distribution

__all__ = ["MixtureSameFamily"]


class MixtureSameFamily(Distribution):
    """A mixture of ``K`` components of one family: ``component_distribution`` has the
    components along the last batch dim (size K) and ``mixture_distribution`` is a
    :class:`Categorical` over them whose batch shape broadcasts with the rest of the
    components' batch shape. The mixing weights are ``softmax(logits)`` (the semantics
    of ``Categorical.sample``).

    >>> import weft
    >>> from weft.distribution import Categorical, MixtureSameFamily, Normal
    >>> mix = Categorical(weft.to_tensor([0.0, 0.0]))          # equal weights
    >>> comp = Normal(weft.to_tensor([-1.0, 1.0]), weft.to_tensor([1.0, 1.0]))
    >>> d = MixtureSameFamily(mix, comp)
    >>> d.mean.item(), round(d.variance.item(), 4), d.sample([3]).shape
    (0.0, 2.0, [3])
    """

    arg_constraints = {}

    def __init__(self, mixture_distribution, component_distribution):
        if not isinstance(mixture_distribution, Categorical):
            raise ValueError("MixtureSameFamily: mixture_distribution must be a Categorical, "
                             f"got {type(mixture_distribution).__name__}")
        if not isinstance(component_distribution, Distribution):
            raise ValueError("MixtureSameFamily: component_distribution must be a "
                             f"Distribution, got {type(component_distribution).__name__}")
        cb = tuple(component_distribution.batch_shape)
        k = mixture_distribution.logits.shape[-1]
        if not cb or cb[-1] != k:
            raise ValueError(f"MixtureSameFamily: the component batch shape {cb} must end with "
                             f"the number of mixture components {k}")
        try:
            batch = tuple(_util.broadcast_shape(mixture_distribution.batch_shape, cb[:-1]))
        except ValueError:
            raise ValueError(f"MixtureSameFamily: mixture batch shape "
                             f"{mixture_distribution.batch_shape} and component batch shape "
                             f"{cb[:-1]} (without K) do not broadcast") from None
        self._mixture_distribution = mixture_distribution
        self._component_distribution = component_distribution
        self._k = k
        self._event_ndims = len(component_distribution.event_shape)
        self._dtype = getattr(component_distribution, "_dtype", None)
        super().__init__(batch, component_distribution.event_shape)

    @property
    def mixture_distribution(self):
        return self._mixture_distribution

    @property
    def component_distribution(self):
        return self._component_distribution

    @property
    def support(self):
        return self._component_distribution.support

    @property
    def _like(self):
        return self._component_distribution._like

    def _log_weights(self, pad):
        """``log_softmax(logits)`` with ``pad`` trailing singleton dims."""
        lw = _util.log_softmax(self._mixture_distribution.logits, -1)
        return lw.reshape(lw.shape + [1] * pad) if pad else lw

    def _weights(self):
        return self._log_weights(self._event_ndims).exp()

    @property
    def mean(self):
        axis = -1 - self._event_ndims
        return (self._weights() * self._component_distribution.mean).sum(axis=axis)

    @property
    def variance(self):
        """Law of total variance: ``E[Var] + Var[E]`` over the components."""
        axis = -1 - self._event_ndims
        w = self._weights()
        means = self._component_distribution.mean
        mean = (w * means).sum(axis=axis, keepdim=True)
        within = (w * self._component_distribution.variance).sum(axis=axis)
        between = (w * (means - mean) ** 2).sum(axis=axis)
        return within + between

    def _pad(self, value):
        return value.unsqueeze(-1 - self._event_ndims)

    def log_prob(self, value):
        value = self._value(value)
        lp = self._component_distribution.log_prob(self._pad(value))
        return ops.logsumexp(lp + self._log_weights(0), axis=-1)

    def cdf(self, value):
        """``Σ_k w_k F_k(x)`` (univariate components)."""
        if self._event_ndims:
            raise NotImplementedError("MixtureSameFamily.cdf is defined for univariate "
                                      "components only")
        value = self._value(value, "cdf", check=False)
        f = self._component_distribution.cdf(self._pad(value))
        return (f * self._log_weights(0).exp()).sum(axis=-1)

    def sample(self, shape=()):
        """Draw a component index per sample, then that component's draw."""
        lead = _util.sample_shape_arg(shape, "MixtureSameFamily.sample")
        idx = self._mixture_distribution.sample(lead)                    # lead + mix batch
        comp = self._component_distribution.sample(lead)                 # lead + cb + event
        target = list(lead) + list(self.batch_shape)
        idx = ops.broadcast_to(idx, target) if idx.shape != target else idx
        e = self._event_ndims
        idx = idx.reshape(idx.shape + [1] + [1] * e)
        idx = ops.broadcast_to(idx, target + [1] + list(self.event_shape))
        out = ops.take_along_axis(comp, idx, axis=-1 - e)
        return out.squeeze(-1 - e).detach()
