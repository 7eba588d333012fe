"""Normal(loc, scale): the Gaussian (complex Gaussian for a complex ``loc``)."""
from __future__ import annotations

import math

import numpy as np

from .. import ops
from ..autograd.engine import Primitive, apply, defvjp
from ..core.args import xp_of
from ..core.tensor import Tensor
from . import _fused, _util, constraints
from .distribution import Distribution

__all__ = ["Normal"]

_LOG_PI = math.log(math.pi)


# ----------------------------------------------------------------------------------
# log N(x; μ, σ) = -½ z² - (log σ + ½ log 2π) with z = (x - μ)/σ, as one primitive: the
# forward writes only its result (in cache-sized blocks for one law over many values),
# and the gradients of μ and σ are the reductions Σ g z and Σ g z² (_fused). z comes
# first: (x - μ)² and σ² leave float32's range at scales like 1e-30 or 1e30, z does not.

def _log_prob_fwd(x, loc, scale):
    xp = xp_of(x)
    neg_c = -(xp.log(scale) + _util.HALF_LOG_2PI)
    if _fused.blockable(x, loc, scale):
        m, neg_c = _fused.scalar(loc), _fused.scalar(neg_c)
        scale_by = _fused.scaler(_fused.scalar(scale), math.sqrt(0.5))   # z / sqrt 2
        xf = x.reshape(-1)
        out = np.empty(x.shape, x.dtype)
        of = out.reshape(-1)
        for s, e in _fused.blocks(x.size):
            ob = of[s:e]
            np.subtract(xf[s:e], m, out=ob)
            scale_by(ob)
            np.multiply(ob, ob, out=ob)
            np.subtract(neg_c, ob, out=ob)
        return out
    out = xp.asarray(x - loc)    # numpy gives a scalar for 0-D operands
    xp.divide(out, scale, out=out)
    xp.multiply(out, out, out=out)
    xp.multiply(out, 0.5, out=out)
    xp.subtract(neg_c, out, out=out)
    return out


_log_prob = Primitive("normal_log_prob", _log_prob_fwd)
defvjp(_log_prob,
       lambda g, ans, x, loc, scale: g * (((loc - x) / scale) / scale),
       lambda g, ans, x, loc, scale: _fused.moment_sum(g, x, loc, scale, 1) / scale,
       lambda g, ans, x, loc, scale: ((_fused.moment_sum(g, x, loc, scale, 2)
                                       - _fused.moment_sum(g, x, loc, scale, 0)) / scale),
       save_out=False)


def _normal_params(loc, scale):
    """``loc`` may be complex (a complex Gaussian); ``scale`` stays real."""
    is_complex = loc._data.dtype.kind == "c" if isinstance(loc, Tensor) else \
        np.iscomplexobj(loc)
    if is_complex:
        if not isinstance(loc, Tensor):
            loc = ops.to_tensor(np.asarray(loc) if not isinstance(loc, complex) else
                                np.asarray(loc, dtype=_util._dt.default_complex()))
        (scale,) = _util.to_tensors(scale, dtype=_util._dt.to_real(loc._data.dtype))
        shape = _util.broadcast_shape(loc.shape, scale.shape)
        return (loc if loc.shape == shape else ops.broadcast_to(loc, shape),
                scale if scale.shape == shape else ops.broadcast_to(scale, shape))
    return _util.broadcast_all(loc, scale)


class Normal(Distribution):
    """The normal distribution ``N(loc, scale²)``.

    ``loc`` may be complex: then draws are complex Gaussian, real and imaginary parts
    independent with variance ``scale² / 2`` each.

    >>> import weft
    >>> from weft.distribution import Normal
    >>> d = Normal(weft.to_tensor([0.0, 1.0]), weft.to_tensor([1.0, 2.0]))
    >>> d.sample([3]).shape, [round(v, 4) for v in d.log_prob(weft.to_tensor(0.0)).tolist()]
    ([3, 2], [-0.9189, -1.7371])
    >>> round(Normal(0.0, 1.0).cdf(weft.to_tensor(1.0)).item(), 4)
    0.8413
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc, scale, name=None):
        self.name = name if name is not None else "Normal"
        self.loc, self.scale = _normal_params(loc, scale)
        self._dtype = self.loc._data.dtype
        self._complex = self._dtype.kind == "c"
        super().__init__(tuple(self.loc.shape))

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def stddev(self):
        return self.scale

    @property
    def variance(self):
        return self.scale * self.scale

    def entropy(self):
        """``½ + ½ log(2π) + log σ`` (complex: ``1 + log(π σ²)``)."""
        if self._complex:
            return 1.0 + _LOG_PI + 2.0 * self.scale.log()
        return (0.5 + _util.HALF_LOG_2PI) + self.scale.log()

    def _eps(self, shape, seed=0):
        shape = self._extend_shape(_util.sample_shape_arg(shape, "Normal.sample"))
        with _util.Draw(self.loc, seed) as gen:
            if self._complex:
                return shape, _normal_complex(gen, shape, self._dtype)
            return shape, _util.std_normal(gen, shape, self._dtype)

    def sample(self, shape=(), seed=0):
        """Draws of shape ``shape + batch_shape`` without gradient; a nonzero ``seed``
        makes this call reproducible on its own."""
        _, eps = self._eps(shape, seed)
        # in place on the fresh draw: one pass for the scale, one for the shift
        eps *= self.scale._data
        eps += self.loc._data
        return _util.wrap(eps)

    def rsample(self, shape=()):
        """``loc + scale * ε`` with ``ε ~ N(0, 1)``; differentiable in both parameters."""
        _, eps = self._eps(shape)
        return self.loc + self.scale * _util.wrap(eps)

    def log_prob(self, value):
        value = self._value(value)
        if self._complex:
            z = (value - self.loc) / self.scale
            return -(z * z.conj()).real() - (_LOG_PI + 2.0 * self.scale.log())
        _fused.check_value(value, self.loc, "Normal.log_prob")
        return apply(_log_prob, value, self.loc, self.scale)

    def probs(self, value):
        """The density at ``value`` (Paddle's name; same as :meth:`prob`)."""
        return self.prob(value)

    def cdf(self, value):
        """``Φ((x - loc) / scale)``."""
        self._real_only("cdf")
        value = self._value(value, "cdf", check=False)
        return ops.ndtr((value - self.loc) / self.scale)

    def icdf(self, value):
        """``loc + scale Φ⁻¹(q)``."""
        self._real_only("icdf")
        q = self._validate_prob(self._value(value, "icdf", check=False))
        return self.loc + self.scale * ops.ndtri(q)

    def _real_only(self, op):
        if self._complex:
            raise NotImplementedError(f"Normal.{op} is not defined for a complex Normal")


def _normal_complex(gen, shape, dtype):
    real = np.dtype(_util._dt.to_real(dtype))
    z = _util.std_normal(gen, tuple(shape) + (2,), real) * real.type(math.sqrt(0.5))
    return z.view(dtype).reshape(shape)
