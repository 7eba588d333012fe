"""Helpers shared by the families: parameter conversion, broadcasting, sampling on
weft's generators, and a few numerically careful compositions of weft ops.

Everything here is device generic: backend arrays come from ``xp_of`` and random
draws from the generator of the parameters' place (numpy ``Generator`` on the CPU,
CuPy ``RandomState`` on a GPU), so ``weft.seed`` makes every family reproducible.
"""
from __future__ import annotations

import math
import numbers

import numpy as np

from .. import ops
from ..core import dtype as _dt
from ..core import random as _rng
from ..core.args import shape_arg, check_nonneg_shape, xp_of
from ..core.tensor import Tensor, to_array

LOG_2PI = math.log(2 * math.pi)
HALF_LOG_2PI = 0.5 * LOG_2PI
LOG_2 = math.log(2.0)
EULER = 0.57721566490153286061


# ----------------------------------------------------------------------------------
# parameters

def _is_number(v):
    return isinstance(v, (numbers.Number, np.number)) and not isinstance(v, (bool, np.bool_))


def float_dtype_of(args):
    """The common floating dtype of parameters ``args``: Tensors and numpy floating
    arrays keep theirs (the widest wins); Python values, lists and integer arrays give
    the default float dtype only when nothing else decides."""
    decided = []
    for a in args:
        if isinstance(a, Tensor):
            d = a._data.dtype
        elif isinstance(a, np.ndarray) or isinstance(a, np.floating):
            d = np.dtype(a.dtype)
        else:
            continue
        if d.kind in "fc":
            decided.append(d)
    if not decided:
        return np.dtype(_dt.default_float())
    return np.result_type(*decided)


def as_tensor(v, dtype, like=None):
    """``v`` as a Tensor of ``dtype`` (a Tensor keeps its graph; a cast is recorded)."""
    if isinstance(v, Tensor):
        return v if v._data.dtype == dtype else v.astype(dtype)
    arr = to_array(v, dtype, like.place if like is not None else None, copy=False)
    return Tensor._wrap(arr)


def to_tensors(*args, dtype=None, real=True):
    """Convert ``args`` to Tensors of one floating dtype (not broadcast)."""
    d = np.dtype(dtype) if dtype is not None else float_dtype_of(args)
    if real and d.kind == "c":
        d = np.dtype(_dt.to_real(d))
    if d.kind not in "fc":
        d = np.dtype(_dt.default_float())
    like = next((a for a in args if isinstance(a, Tensor)), None)
    return tuple(as_tensor(a, d, like) for a in args)


def broadcast_all(*args, dtype=None):
    """Convert and broadcast parameters together; returns Tensors of one dtype."""
    ts = to_tensors(*args, dtype=dtype)
    shape = broadcast_shape(*[t.shape for t in ts])
    return tuple(t if t.shape == shape else ops.broadcast_to(t, shape) for t in ts)


def broadcast_shape(*shapes):
    return list(np.broadcast_shapes(*[tuple(s) for s in shapes]))


def sample_shape_arg(shape, op):
    """``shape`` (int, list, tuple or 1-D Tensor) as a tuple of non-negative ints."""
    if shape is None:
        return ()
    if isinstance(shape, (int, np.integer)) and not isinstance(shape, bool):
        shape = [int(shape)]
    return tuple(check_nonneg_shape(shape_arg(shape, op), op))


def value_arg(value, dtype, op, like=None):
    """``value`` as a Tensor cast to the parameter dtype (Paddle casts, it does not
    promote: a float64 value of a float32 distribution gives a float32 result)."""
    if isinstance(value, Tensor):
        return value if value._data.dtype == dtype else value.astype(dtype)
    if value is None:
        raise TypeError(f"{op}: value must be a Tensor or array-like, got None")
    return as_tensor(value, dtype, like)


# ----------------------------------------------------------------------------------
# sampling

class Draw:
    """``with Draw(tensor, seed) as gen`` gives the backend generator of the tensor's
    place (or a private one for a nonzero ``seed``) with CuPy allocating there."""

    def __init__(self, like, seed=0):
        self.place = like.place
        self.seed = seed

    def __enter__(self):
        self._guard = _rng.device_guard(self.place)
        self._guard.__enter__()
        if self.seed:
            return _rng.private_generator(self.place, self.seed)
        return _rng.default_generator(self.place)

    def __exit__(self, *exc):
        return self._guard.__exit__(*exc)


def _is_np(gen):
    return isinstance(gen, np.random.Generator)


def _work(dtype):
    d = np.dtype(dtype)
    return d if d in (np.dtype("float32"), np.dtype("float64")) else np.dtype("float32")


def std_normal(gen, shape, dtype):
    w = _work(dtype)
    out = gen.standard_normal(shape, dtype=w)
    return out if out.dtype == dtype else out.astype(dtype)


def std_uniform(gen, shape, dtype):
    """Uniform on [0, 1)."""
    w = _work(dtype)
    out = gen.random(shape, dtype=w) if _is_np(gen) else gen.random_sample(shape, dtype=w)
    return out if out.dtype == dtype else out.astype(dtype)


def open_uniform(gen, shape, dtype):
    """Uniform on (0, 1): the rare exact 0 is moved to the smallest normal number, so
    inverse-cdf samplers never see log(0)."""
    u = std_uniform(gen, shape, dtype)
    xp = np if _is_np(gen) else __import__("cupy")
    return xp.maximum(u, np.finfo(u.dtype).tiny, out=u)


def std_exponential(gen, shape, dtype):
    w = _work(dtype)
    out = gen.standard_exponential(shape, dtype=w)
    return out if out.dtype == dtype else out.astype(dtype)


def wrap(arr):
    return Tensor._wrap(arr)


# ----------------------------------------------------------------------------------
# numerically careful compositions (all differentiable weft ops)

def softplus(x):
    """log(1 + e^x) without overflow."""
    return ops.logaddexp(x, ops.zeros_like(x))


def log_sigmoid(x):
    return -softplus(-x)


def log_softmax(x, axis=-1):
    return x - ops.logsumexp(x, axis=axis, keepdim=True)


def softmax(x, axis=-1):
    return ops.exp(log_softmax(x, axis))


def clamp_probs(p):
    eps = float(np.finfo(p._data.dtype).eps)
    return ops.clip(p, eps, 1 - eps)


def sum_rightmost(x, n):
    """Sum over the ``n`` rightmost dims (n = 0: unchanged)."""
    if n <= 0:
        return x
    return x.sum(axis=list(range(-n, 0)))


def full_like_shape(value, shape, like):
    return ops.full(list(shape), value, dtype=like.dtype)
