"""The KL-divergence registry: ``register_kl`` and ``kl_divergence``.

Closed forms live in ``kl_pairs.py`` (registered when the package loads); this module
holds the dispatch (the most specific registered pair wins, with a
``RuntimeWarning`` when the left-first and right-first choices differ) and the generic
exponential-family fallback (the Bregman divergence of the log-normaliser).
"""
from __future__ import annotations

import warnings

from .distribution import Distribution
from .exponential_family import ExponentialFamily, _inner_to_batch

__all__ = ["kl_divergence", "register_kl"]

_REGISTRY = {}   # (type_p, type_q) -> f(p, q)
_CACHE = {}      # (type(p), type(q)) -> f or None, cleared on registration


def register_kl(cls_p, cls_q):
    """Decorator registering ``f(p, q)`` as KL(p ‖ q) for ``p`` of type ``cls_p`` and
    ``q`` of type ``cls_q`` (subclasses included, the most specific pair winning).

    >>> import weft
    >>> from weft.distribution import Normal, kl_divergence, register_kl
    >>> class MyNormal(Normal):
    ...     pass
    >>> @register_kl(MyNormal, MyNormal)
    ... def _kl_mine(p, q):
    ...     return weft.zeros(list(p.batch_shape))
    >>> float(kl_divergence(MyNormal(0.0, 1.0), MyNormal(1.0, 1.0)))
    0.0
    """
    for c in (cls_p, cls_q):
        if not issubclass(c, Distribution):   # a non-class raises TypeError here too
            raise TypeError("cls_p and cls_q must be subclass of Distribution")

    def decorator(f):
        _REGISTRY[cls_p, cls_q] = f
        _CACHE.clear()
        return f

    return decorator


def _rank(cls, base):
    """How specific ``base`` is for ``cls``: its position in ``cls``'s MRO."""
    return cls.__mro__.index(base)


def _dispatch(type_p, type_q):
    key = (type_p, type_q)
    if key in _CACHE:
        return _CACHE[key]
    matches = [(p, q) for (p, q) in _REGISTRY
               if issubclass(type_p, p) and issubclass(type_q, q)]
    if not matches:
        _CACHE[key] = None
        return None
    left = min(matches, key=lambda m: (_rank(type_p, m[0]), _rank(type_q, m[1])))
    right = min(matches, key=lambda m: (_rank(type_q, m[1]), _rank(type_p, m[0])))
    if left != right:
        warnings.warn(f"Ambiguous kl_divergence({type_p.__name__}, {type_q.__name__}). "
                      f"Please register_kl({left[0].__name__}, {right[1].__name__})",
                      RuntimeWarning, stacklevel=3)
    _CACHE[key] = fn = _REGISTRY[left]
    return fn


def _no_pair(p, q):
    return (f"No KL(p ‖ q) is implemented for p of type {type(p).__name__} and q of "
            f"type {type(q).__name__}; use weft.distribution.register_kl")


def kl_divergence(p, q):
    """KL(p ‖ q), batch shape the broadcast of the two batch shapes.

    >>> import weft
    >>> from weft.distribution import Exponential, kl_divergence
    >>> p, q = Exponential(weft.to_tensor(2.0)), Exponential(weft.to_tensor(1.0))
    >>> round(float(kl_divergence(p, q)), 4)     # log 2 + 1/2 - 1
    0.1931
    """
    for arg, d in (("p", p), ("q", q)):
        if not isinstance(d, Distribution):
            raise TypeError(f"kl_divergence: {arg} must be a Distribution, got "
                            f"{type(d).__name__}")
    fn = _dispatch(type(p), type(q))
    if fn is None:
        raise NotImplementedError(_no_pair(p, q))
    return fn(p, q)


@register_kl(ExponentialFamily, ExponentialFamily)
def _kl_expfamily_expfamily(p, q):
    """Bregman divergence of the log-normaliser:
    ``A(θq) - A(θp) - <θq - θp, ∇A(θp)>`` (same family only)."""
    if type(p) is not type(q):
        raise NotImplementedError(
            f"{_no_pair(p, q)} (the generic exponential-family KL needs p and q of the "
            "same type)")
    nb = len(p.batch_shape)
    theta_p, a_p, grads = p._log_normalizer_and_grad(p._natural_parameters)
    theta_q = q._natural_parameters
    result = q._log_normalizer(*theta_q) - a_p
    for tp, tq, g in zip(theta_p, theta_q, grads):
        result = result - _inner_to_batch(tq - tp, g, nb)
    return result
