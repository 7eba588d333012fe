"""Draws shared by the Gamma-related families: Gamma, Dirichlet and Beta samples with
implicit reparameterisation gradients (Figurnov et al., 2018), and the discrete
samplers that numpy and CuPy provide (binomial, Poisson).

Gamma draws come from :func:`weft.ops.random._gamma_draw` (numpy's / CuPy's
Marsaglia-Tsang sampler on weft's generator; the gradient in the concentration is
``-(dP/da)(z)/p(z)``). Dirichlet and Beta draws are normalised Gamma draws, so their
gradients follow by the chain rule through the normalisation.
"""
from __future__ import annotations

import numpy as np

from .. import ops
from ..core.args import xp_of
from ..ops.random import _gamma_draw
from . import _util


def _tiny(t):
    return float(np.finfo(t._data.dtype).tiny)


def gamma(concentration, shape, op):
    """Gamma(concentration, 1) draws of ``shape`` (``concentration`` broadcasts to it).

    Small concentrations give draws that underflow to 0 (more often in float32); they
    are raised to the smallest normal number, so logs and ratios of draws stay finite
    (the gradient there is 0, as behind a clip; the draw does it in place)."""
    return _gamma_draw(concentration, tuple(shape), op, floor=_tiny(concentration))


def dirichlet(concentration, shape, op):
    """Dirichlet draws of ``shape`` (the last dim is the event), as normalised Gamma
    draws, kept inside the open simplex."""
    z = gamma(concentration, shape, op)
    x = z / z.sum(axis=-1, keepdim=True)
    return ops.clip(x, min=_tiny(x), max=1.0 - float(np.finfo(x._data.dtype).eps))


def dirichlet_sample(concentration, shape, op):
    """Dirichlet draws without gradient: the same normalised Gamma draws as
    :func:`dirichlet`, on the backend arrays in place (no graph, no temporaries)."""
    xp = xp_of(concentration)
    a = concentration._data
    if a.size and not bool(xp.all(a >= 0)):
        raise ValueError(f"{op}: the concentration must be non-negative (found a negative "
                         f"value or NaN)")
    d = a.dtype
    with _util.Draw(concentration) as gen:
        w = _util._work(d)
        g = gen.standard_gamma(a.astype(w, copy=False), size=tuple(shape), dtype=w)
    g = _util._array(g, w)
    finfo = np.finfo(w)
    xp.maximum(g, finfo.tiny, out=g)
    g /= g.sum(axis=-1, keepdims=True)
    xp.clip(g, finfo.tiny, 1.0 - finfo.eps, out=g)
    return _util.wrap(g if g.dtype == d else g.astype(d))


def beta(a, b, shape, op):
    """Beta(a, b) draws of ``shape``: ``Ga / (Ga + Gb)`` with both Gamma draws
    differentiable, kept inside (0, 1)."""
    ga = gamma(a, shape, op)
    gb = gamma(b, shape, op)
    x = ga / (ga + gb)
    return ops.clip(x, min=_tiny(x), max=1.0 - float(np.finfo(x._data.dtype).eps))


def _counts(draw, like, shape, dtype):
    with _util.Draw(like) as gen:
        out = draw(gen)
    out = _util._array(out, np.dtype(dtype)).reshape(shape)   # numpy gives scalars for 0-D
    return _util.wrap(out)


def binomial(total_count, probs, shape):
    """Binomial counts of ``shape`` as floats of ``probs``' dtype (no gradient)."""
    xp = xp_of(probs)
    n = xp.broadcast_to(total_count._data, shape).astype(np.int64)
    p = xp.broadcast_to(probs._data, shape).astype(np.float64)
    return _counts(lambda gen: gen.binomial(n, p), probs, shape, probs._data.dtype)


def poisson(rate, shape):
    """Poisson counts of ``shape`` as floats of ``rate``'s dtype (no gradient)."""
    xp = xp_of(rate)
    lam = xp.broadcast_to(rate._data, shape).astype(np.float64)
    return _counts(lambda gen: gen.poisson(lam), rate, shape, rate._data.dtype)
