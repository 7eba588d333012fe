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

from .. import _native, ops
from ..autograd import no_grad
from ..core import dtype as _dt
from ..ops.random import _Draw as _RandomDraw
from ..core.args import check_nonneg_shape, shape_arg, xp_of  # noqa: F401 (xp_of: for the families)
from ..core.tensor import Tensor, to_array
from . import _fused

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
    if real and (d.kind == "c" or any(
            (a._data.dtype.kind == "c") if isinstance(a, Tensor) else np.iscomplexobj(a)
            for a in args)):
        raise TypeError("distribution parameters must be real, got a complex value "
                        "(only Normal's loc may be complex)")
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

def Draw(like, seed=0):   # noqa: N802 (used as a context manager, like a class)
    """``with Draw(tensor, seed) as gen`` gives the backend generator of the tensor's
    place (or a private one for a nonzero ``seed``) with CuPy allocating there."""
    return _RandomDraw(like.place, seed)


def _is_np(gen):
    return isinstance(gen, np.random.Generator)


def _work(dtype):
    d = np.dtype(dtype)
    return d if d in (np.dtype("float32"), np.dtype("float64")) else np.dtype("float32")


def _array(out, dtype):
    """A backend array of ``dtype``: numpy returns scalars for 0-D draws and ufuncs."""
    if type(out) is not np.ndarray and not hasattr(out, "__cuda_array_interface__"):
        out = np.asarray(out)
    return out if out.dtype == dtype else out.astype(dtype)


def std_normal(gen, shape, dtype):
    return _array(gen.standard_normal(shape, dtype=_work(dtype)), dtype)


def std_uniform(gen, shape, dtype):
    """Uniform on [0, 1)."""
    w = _work(dtype)
    out = gen.random(shape, dtype=w) if _is_np(gen) else gen.random_sample(shape, dtype=w)
    return _array(out, dtype)


def open_uniform(gen, shape, dtype):
    """Uniform on (0, 1): the rare exact 0 is moved to the smallest normal number, so
    inverse-cdf samplers never see log(0)."""
    u = std_uniform(gen, shape, dtype)
    xp = np if _is_np(gen) else __import__("cupy")
    return xp.maximum(u, np.finfo(u.dtype).tiny, out=u)


def std_exponential(gen, shape, dtype):
    return _array(gen.standard_exponential(shape, dtype=_work(dtype)), dtype)


def wrap(arr):
    """A backend array (or the numpy scalar a 0-D ufunc gives) as a Tensor."""
    if type(arr) is not np.ndarray and not hasattr(arr, "__cuda_array_interface__"):
        arr = np.asarray(arr)
    return Tensor._wrap(arr)


# ----------------------------------------------------------------------------------
# numerically careful compositions (all differentiable weft ops)

def widened(fn, *args):
    """``fn(*args)`` evaluated in float64 and cast back to the dtype of ``args[0]``
    (with gradients through both casts). For expressions whose terms grow with the
    parameters and cancel (log-masses and log-densities of counts and degrees of
    freedom of size n: float32 keeps ~7 digits of a sum of terms of size n, and
    rounds once at the end instead); float64 passes through."""
    dtype = args[0]._data.dtype
    if dtype == np.float64:
        return fn(*args)
    out = fn(*(a.astype(np.float64) for a in args))
    if isinstance(out, tuple):
        return tuple(o.astype(dtype) for o in out)
    return out.astype(dtype)


def widened_if_large(params, fn, *args, limit=1e3):
    """``fn(*args)``, in float64 (:func:`widened`) when the arguments are float32 and
    some parameter in ``params`` exceeds ``limit``: log-densities with terms of size
    ``a log a`` in a shape ``a`` that cancel to a result of order one (Gamma, Chi2,
    Dirichlet at concentrations of 1e4 lose two to three digits in float32). One host
    check of the parameters; the common small-parameter case stays in float32."""
    if args[0]._data.dtype == np.float32 and any(
            p.size and float(p._data.max()) > limit for p in params):
        return widened(fn, *args)
    return fn(*args)


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


# up to this many draws per row, scanning rows beats forming every running sum
_SCAN_DRAWS = 8


def categorical_indices(gen, weights, lead):
    """Indices drawn from the rows of ``weights`` (a backend array ``batch + (K,)`` of
    non-negative, not necessarily normalised weights), of shape ``lead + batch``.

    One inverse-cdf search for every row at once: the running sum of the flattened
    weights (float64) is sorted across rows, so row ``r``'s draw is the position of
    ``start_r + u · total_r`` in it; a single ``searchsorted`` finds all draws."""
    xp = np if _is_np(gen) else __import__("cupy")
    batch = weights.shape[:-1]
    k = weights.shape[-1]
    rows = int(np.prod(batch, dtype=np.int64))
    draws = int(np.prod(lead, dtype=np.int64))
    if xp is np and draws <= _SCAN_DRAWS and k and weights.dtype in (np.float32, np.float64):
        # a few draws per row: scan each row's running sum (natively) instead of forming
        # all of them (csrc/core/categorical.cpp)
        u = std_uniform(gen, (draws, rows), np.dtype(np.float64))
        w = np.ascontiguousarray(weights.reshape(rows, k))
        idx = _native.extension.categorical_scan(w, u)
        return idx.reshape(tuple(lead) + tuple(batch))
    cum = xp.cumsum(weights.reshape(-1), dtype=np.float64)
    ends = cum[k - 1::k]
    starts = xp.concatenate([xp.zeros(1, np.float64), ends[:-1]])
    u = std_uniform(gen, tuple(lead) + (rows,), np.dtype(np.float64))
    u *= ends - starts
    u += starts
    idx = xp.searchsorted(cum, u.reshape(-1), side="right").reshape(u.shape)
    idx -= xp.arange(rows, dtype=np.int64) * k
    xp.clip(idx, 0, k - 1, out=idx)
    return idx.reshape(tuple(lead) + tuple(batch))


def softmax_weights(logits):
    """``exp(logits - max)`` over the last axis: softmax up to each row's scale (the
    samplers normalise on the fly)."""
    xp = np if type(logits) is np.ndarray else __import__("cupy")
    e = logits - logits.max(axis=-1, keepdims=True)
    return xp.exp(e, out=e)


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
    return _array(gen.standard_gamma(a, size=tuple(shape), dtype=w), dtype)


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
    if not n:
        cols = diff.unsqueeze(-1)
    elif not nbl:
        rows = diff.reshape([int(np.prod(lead)), k])
        if _fused.mahalanobis_rows_native(lower, rows):
            # one shared factor and many vectors: the native substitution kernel, about
            # 2.5x faster than OpenBLAS's trsm for k = 64 (csrc/linalg/mahalanobis.cpp)
            return _fused.tri_mahalanobis_rows(lower, rows).reshape(lead)
        # (N, k) -> its transposed view (k, N), which LAPACK reads in place (Fortran order)
        cols = ops.transpose(rows, [1, 0])
    else:
        # (lead, bl, k) -> (bl, k, lead) -> (bl, k, prod(lead))
        perm = list(range(n, n + nbl)) + [n + nbl] + list(range(n))
        cols = ops.transpose(diff, perm).reshape(bl + [k, int(np.prod(lead))])
    from ..linalg import triangular_solve

    z = triangular_solve(lower, cols, upper=False)
    m = _fused.sum_squares_cols(z)                  # (bl, prod(lead))
    if not n:
        return m.squeeze(-1)
    m = m.reshape(bl + lead)
    back = list(range(nbl, nbl + n)) + list(range(nbl))
    return ops.transpose(m, back)


def log1p_square(d, s=None):
    """``log(1 + (d/s)²)`` (``s > 0``; ``s=None``: ``log(1 + d²)``) without forming
    ``d/s`` where it overflows: above ``|d| = s`` as ``2 (log|d| - log s) +
    log1p((s/d)²)``, so a huge ratio (``x`` far out, or a tiny scale in float32) stays
    finite, and so do the gradients of both arguments. Each branch gets arguments
    that are safe where it is not taken."""
    # the plain log1p(z²) wherever z² is finite (one host check): the branches below
    # cost 4x, and are only needed for |z| beyond ~1e150 (float64) / 1e18 (float32)
    z = d if s is None else d / s
    with no_grad():
        lim = math.sqrt(float(np.finfo(z._data.dtype).max)) / 16.0
        plain = not bool((~ops.isfinite(z) | (z.abs() > lim)).any())
    if plain:
        return (z * z).log1p()
    ad = d.abs()
    big = ad > (1.0 if s is None else s)
    a = ops.where(big, ad, 2.0)
    small = ops.where(big, 0.0, d)
    if s is None:
        r = 1.0 / a
        return ops.where(big, 2.0 * a.log() + (r * r).log1p(), (small * small).log1p())
    sb = ops.where(big, s, 1.0)
    r = sb / a
    z = small / s
    return ops.where(big, 2.0 * (a.log() - sb.log()) + (r * r).log1p(), (z * z).log1p())


# coefficients of ψ(a + ½) - ψ(a) = 1/(2a) + Σ c_k a^-2k (asymptotic, from ψ's
# Bernoulli-number expansion); from a = 12 on, seven terms are below float64 rounding
_DIGAMMA_HALF_STEP = (1 / 8, -1 / 64, 1 / 128, -17 / 2048, 31 / 2048, -691 / 16384)


def digamma_half_step(a):
    """``ψ(a + ½) - ψ(a)`` for ``a > 0``. The plain difference cancels for large ``a``
    (both ~ log a, the difference ~ 1/(2a): every float32 digit is gone at a = 5e5),
    so above 12 the asymptotic series is used."""
    big = a > 12
    x = 1.0 / ops.where(big, a, 13.0)
    x2 = x * x
    acc = _DIGAMMA_HALF_STEP[-1]
    for c in reversed(_DIGAMMA_HALF_STEP[:-1]):
        acc = acc * x2 + c
    series = 0.5 * x + x2 * acc
    small = ops.where(big, 1.0, a)
    return ops.where(big, series, ops.digamma(small + 0.5) - ops.digamma(small))


# (2^n - 2)/n! for the second difference below, n = 2 .. 24
_SECOND_DIFF = tuple((2.0 ** n - 2.0) / math.factorial(n) for n in range(2, 25))


def lgamma_second_difference(x, e):
    """``lgamma(x + 2e) - 2 lgamma(x + e) + lgamma(x)`` for ``x >= 1`` and ``0 < e <=
    0.1`` from its Taylor series ``Σ ψ⁽ⁿ⁻¹⁾(x) (2ⁿ - 2)/n! eⁿ`` (terms shrink like
    (2e)ⁿ/n; 23 of them reach float64 rounding). The three lgamma values are ~e and
    their second difference ~e², so evaluated directly it keeps only a 1/e fraction of
    the digits."""
    out = 0.0
    en = e * e
    for n, c in enumerate(_SECOND_DIFF, start=2):
        out = out + ops.polygamma(x, n - 1) * (c * en)
        en = en * e
    return out
