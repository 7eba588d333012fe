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


def categorical_indices(gen, probs, lead):
    """Indices drawn from the rows of ``probs`` (a backend array ``batch + (K,)`` of
    non-negative weights), of shape ``lead + batch``.

    One inverse-cdf search for all rows at once: each row's cdf is shifted by its row
    number, so the concatenated cdfs are sorted and a single ``searchsorted`` of
    ``u + row`` finds every draw (float64 keeps the shifted cdf exact to ~1e-12)."""
    xp = np if _is_np(gen) else __import__("cupy")
    batch = probs.shape[:-1]
    k = probs.shape[-1]
    rows = int(np.prod(batch, dtype=np.int64))
    cdf = xp.cumsum(probs.reshape(rows, k), axis=-1, dtype=np.float64)
    cdf /= cdf[:, -1:]
    offs = xp.arange(rows, dtype=np.float64)
    cdf += offs[:, None]
    u = std_uniform(gen, tuple(lead) + (rows,), np.dtype(np.float64))
    u += offs
    idx = xp.searchsorted(cdf.ravel(), u.ravel(), side="right").reshape(u.shape)
    idx -= (xp.arange(rows, dtype=np.int64) * k)
    xp.clip(idx, 0, k - 1, out=idx)
    return idx.reshape(tuple(lead) + tuple(batch))


def softmax_array(logits):
    """Softmax of a backend array over its last axis (no graph: for samplers)."""
    xp = np if type(logits) is np.ndarray else __import__("cupy")
    e = logits - logits.max(axis=-1, keepdims=True)
    xp.exp(e, out=e)
    e /= e.sum(axis=-1, keepdims=True)
    return e


def enumerate_values(values, batch, expand):
    """``values`` (a Tensor of shape ``(n,) + event``) laid out along a new leading dim
    before ``batch`` (expanded when ``expand``, else of size 1)."""
    n = values.shape[0]
    event = values.shape[1:]
    v = values.reshape([n] + [1] * len(batch) + event)
    return ops.broadcast_to(v, [n] + list(batch) + event) if expand else v


def std_gamma(gen, alpha, shape, dtype):
    """Standard Gamma draws (rate 1) of concentration ``alpha`` (a backend array that
    broadcasts to ``shape``); no gradient (``weft.standard_gamma`` has one)."""
    w = _work(dtype)
    a = alpha.astype(w, copy=False)
    out = gen.standard_gamma(a, size=tuple(shape), dtype=w)
    return out if out.dtype == dtype else out.astype(dtype)


def std_beta(gen, a, b, shape, dtype):
    """Beta(a, b) draws as ``G_a / (G_a + G_b)`` (no gradient)."""
    ga = std_gamma(gen, a, shape, dtype)
    gb = std_gamma(gen, b, shape, dtype)
    gb += ga
    ga /= gb
    return ga


def tri_mahalanobis(lower, diff):
    """``‖L⁻¹ d‖²`` over the last axis for lower-triangular ``L`` (``batch_L + (k, k)``)
    and ``d`` (``sample + batch + (k,)``), with ONE triangular solve: the sample dims
    (and any batch dims ``L`` lacks) become right-hand-side columns, so a shared ``L``
    costs a single BLAS call however many vectors there are."""
    k = diff.shape[-1]
    nbl = len(lower.shape) - 2
    full = broadcast_shape(diff.shape[:-1], lower.shape[:-2])
    if diff.shape[:-1] != full:
        diff = ops.broadcast_to(diff, full + [k])
    lead = full[:len(full) - nbl]                  # dims L does not have
    bl = full[len(full) - nbl:]
    n = len(lead)
    # (lead, bl, k) -> (bl, k, lead) -> (bl, k, prod(lead))
    perm = list(range(n, n + nbl)) + [n + nbl] + list(range(n))
    cols = ops.transpose(diff, perm).reshape(bl + [k, -1]) if n else diff.unsqueeze(-1)
    from ..linalg import triangular_solve

    z = triangular_solve(lower, cols, upper=False)
    m = (z * z).sum(axis=-2)                        # (bl, prod(lead))
    if not n:
        return m.squeeze(-1)
    m = m.reshape(bl + lead)
    back = list(range(nbl, nbl + n)) + list(range(nbl))
    return ops.transpose(m, back)
