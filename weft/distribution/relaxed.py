"""RelaxedBernoulli and RelaxedOneHotCategorical (the Concrete / Gumbel-softmax
relaxations)."""
from __future__ import annotations

import math

import numpy as np

from .. import ops
from . import _util, constraints
from .distribution import Distribution
from .one_hot_categorical import probs_or_logits
from .transform import ExpTransform, SigmoidTransform
from .transformed_distribution import TransformedDistribution

__all__ = ["RelaxedBernoulli", "RelaxedOneHotCategorical"]


def _binary_probs_or_logits(probs, logits, op):
    if (probs is None) == (logits is None):
        raise ValueError(f"{op}: exactly one of probs or logits must be given")
    if probs is not None:
        (p,) = _util.to_tensors(probs)
        # clamped only at the ends, to the nearest numbers inside (0, 1), so the logits
        # and the gradients stay finite there: clamping to eps put the logits of
        # p = 1e-12 at -15.9 (float32) instead of -27.6, shifting the whole relaxed law
        fi = np.finfo(p._data.dtype)
        q = ops.clip(p, float(fi.tiny), 1.0 - float(fi.epsneg))
        return p, q.log() - (-q).log1p()
    (lg,) = _util.to_tensors(logits)
    return ops.sigmoid(lg), lg


class _LogitRelaxedBernoulli(Distribution):
    """The logit of a RelaxedBernoulli draw: a logistic variable with location
    ``logits / T`` and scale ``1 / T``."""

    arg_constraints = {"temperature": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None):
        p, lg = _binary_probs_or_logits(probs, logits, "RelaxedBernoulli")
        (t,) = _util.to_tensors(temperature, dtype=lg._data.dtype)
        shape = _util.broadcast_shape(t.shape, lg.shape)
        self.temperature = t if t.shape == shape else ops.broadcast_to(t, shape)
        self.logits = lg if lg.shape == shape else ops.broadcast_to(lg, shape)
        self.probs = p if p.shape == shape else ops.broadcast_to(p, shape)
        self._dtype = lg._data.dtype
        super().__init__(tuple(shape))

    def rsample(self, shape=()):
        shape = self._extend_shape(_util.sample_shape_arg(shape, "RelaxedBernoulli.rsample"))
        with _util.Draw(self.logits) as gen:
            u = _util.open_uniform(gen, shape, self._dtype)
        xp = _util.xp_of(u)
        noise = _util.wrap(xp.log(u) - xp.log1p(-u))
        return (self.logits + noise) / self.temperature

    def log_prob(self, value):
        value = self._value(value)
        diff = self.logits - value * self.temperature
        return self.temperature.log() + diff - 2.0 * _util.softplus(diff)

    def cdf(self, value):
        value = self._value(value, "cdf", check=False)
        return ops.sigmoid(value * self.temperature - self.logits)

    def icdf(self, value):
        q = self._validate_prob(self._value(value, "icdf", check=False))
        return (self.logits + q.log() - (-q).log1p()) / self.temperature


class _Relaxed(TransformedDistribution):
    """A relaxed distribution: ``transform`` of a base holding ``temperature``,
    ``probs`` and ``logits``."""

    arg_constraints = {"temperature": constraints.positive}
    has_rsample = True

    def __init__(self, base, transform):
        self._dtype = base._dtype
        super().__init__(base, [transform])

    @property
    def temperature(self):
        return self.base.temperature

    @property
    def probs(self):
        return self.base.probs

    @property
    def logits(self):
        return self.base.logits


class RelaxedBernoulli(_Relaxed):
    """A relaxed Bernoulli on (0, 1): ``sigmoid((logits + L) / temperature)`` with
    ``L`` standard logistic; give exactly one of ``probs``/``logits``.

    >>> import weft
    >>> from weft.distribution import RelaxedBernoulli
    >>> d = RelaxedBernoulli(weft.to_tensor(0.5), probs=weft.to_tensor([0.2, 0.9]))
    >>> x = d.rsample([3])
    >>> x.shape, bool(((x > 0) & (x < 1)).all())
    ([3, 2], True)
    """

    support = constraints.unit_interval

    def __init__(self, temperature, probs=None, logits=None):
        super().__init__(_LogitRelaxedBernoulli(temperature, probs, logits),
                         SigmoidTransform())

    def log_prob(self, value):
        value = self._value(value)
        # the logit of a value on the boundary is ±inf: keep the -inf density finite-free
        inside = (value > 0) & (value < 1)
        safe = ops.where(inside, value, 0.5)
        lp = super().log_prob(safe)
        return ops.where(inside, lp, float("-inf"))


class _ExpRelaxedCategorical(Distribution):
    """The log of a RelaxedOneHotCategorical draw (the ExpConcrete distribution)."""

    arg_constraints = {"temperature": constraints.positive}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None):
        _, p, lg = probs_or_logits(probs, logits, "RelaxedOneHotCategorical")
        (t,) = _util.to_tensors(temperature, dtype=lg._data.dtype)
        batch = _util.broadcast_shape(t.shape, lg.shape[:-1])
        k = lg.shape[-1]
        self.temperature = t if t.shape == batch else ops.broadcast_to(t, batch)
        self.logits = lg if lg.shape[:-1] == batch else ops.broadcast_to(lg, batch + [k])
        self.probs = p if p.shape[:-1] == batch else ops.broadcast_to(p, batch + [k])
        self._dtype = lg._data.dtype
        super().__init__(tuple(batch), (k,))

    def rsample(self, shape=()):
        shape = self._extend_shape(_util.sample_shape_arg(shape,
                                                          "RelaxedOneHotCategorical.rsample"))
        with _util.Draw(self.logits) as gen:
            e = _util.std_exponential(gen, shape, self._dtype)
        xp = _util.xp_of(e)
        gumbel = _util.wrap(-xp.log(xp.maximum(e, np.finfo(e.dtype).tiny)))
        scores = (self.logits + gumbel) / self.temperature.unsqueeze(-1)
        return scores - ops.logsumexp(scores, axis=-1, keepdim=True)

    def log_prob(self, value):
        value = self._value(value)
        k = self.event_shape[0]
        t = self.temperature
        log_scale = math.lgamma(k) + (k - 1) * t.log()
        score = self.logits - value * t.unsqueeze(-1)
        score = (score - ops.logsumexp(score, axis=-1, keepdim=True)).sum(axis=-1)
        return score + log_scale


class RelaxedOneHotCategorical(_Relaxed):
    """The Gumbel-softmax (Concrete) distribution on the simplex:
    ``softmax((logits + G) / temperature)`` with ``G`` standard Gumbel; give exactly one
    of ``probs``/``logits``.

    >>> import weft
    >>> from weft.distribution import RelaxedOneHotCategorical
    >>> d = RelaxedOneHotCategorical(weft.to_tensor(0.5),
    ...                              probs=weft.to_tensor([0.2, 0.3, 0.5]))
    >>> x = d.rsample([4])
    >>> x.shape, bool((x.sum(-1) - 1).abs().max() < 1e-5)
    ([4, 3], True)
    """

    support = constraints.simplex

    def __init__(self, temperature, probs=None, logits=None):
        super().__init__(_ExpRelaxedCategorical(temperature, probs, logits), ExpTransform())
