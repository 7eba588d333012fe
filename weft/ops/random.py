"""Random sampling: rand, randn, randint, randperm, uniform, normal, bernoulli, poisson,
multinomial, and the in-place fills ``uniform_``, ``normal_``, ``exponential_``,
``bernoulli_``.

Every function draws from the generator of the device its result lives on
(``weft.core.random``), so ``weft.seed(n)`` makes all of them reproducible. Results
are new leaves with ``stop_gradient=True``. Floating results default to
``weft.get_default_dtype()``; dtypes the backend cannot sample directly (float16,
bfloat16) are drawn in float32 and rounded.
"""
from __future__ import annotations

import math
import numbers

import numpy as np

from ..autograd.engine import Primitive, apply, defbatch, defvjp
from ..autograd.inplace import inplace
from ..core import dtype as _dt
from ..core import random as _rng
from ..core.place import current_place
from ..core.tensor import Tensor
from ..core.args import (check_nonneg_shape, real_arg, check_same_place, dtype_arg, int_arg, shape_arg,
                         tensor_arg, xp_of)
from .special import _gamma_zgrad
# loaded with weft.ops so that its primitives are always registered (weft.distribution's
# VonMises draws through it)
from . import _von_mises  # noqa: F401

# ----------------------------------------------------------------------------------
# argument helpers


def _shape(shape, op):
    if shape is None:
        raise TypeError(f"{op}: shape must be given (a list of ints), got None")
    return tuple(check_nonneg_shape(shape_arg(shape, op), op))


def _float_dtype(dtype, op, complex_ok=False):
    d = dtype_arg(dtype, op, _dt.default_float())
    if _dt.is_floating(d) or (complex_ok and d.kind == "c"):
        return d
    allowed = "a floating or complex dtype" if complex_ok else "a floating dtype"
    raise TypeError(f"{op}: dtype must be {allowed}, got {d.name}")


def _real(v, op, arg):
    v = real_arg(v, op, arg)
    if math.isnan(v):
        raise ValueError(f"{op}: {arg} must not be NaN")
    return v


def _work(d):
    """The dtype the backend samples in for a result of dtype ``d``."""
    if d.kind == "c":
        return _dt.to_real(d)
    return d if d in (_dt.float32, _dt.float64) else _dt.float32


def _finish(arr, d):
    return Tensor._wrap(arr if arr.dtype == d else arr.astype(d))


def _place_of(t):
    return t.place


# ----------------------------------------------------------------------------------
# draws on a backend generator: numpy Generator (CPU) or CuPy RandomState (GPU)

def _is_np(gen):
    return isinstance(gen, np.random.Generator)


def _uniform01(gen, shape, w):
    return gen.random(shape, dtype=w) if _is_np(gen) else gen.random_sample(shape, dtype=w)


def _normal01(gen, shape, d):
    """Standard normal of dtype ``d``; complex: real and imaginary parts N(0, 1/2)."""
    w = _work(d)
    if d.kind != "c":
        return gen.standard_normal(shape, dtype=w)
    z = gen.standard_normal(shape + (2,), dtype=w) * w.type(math.sqrt(0.5))
    return z.view(d).reshape(shape)


def _exponential01(gen, shape, w):
    return gen.standard_exponential(shape, dtype=w)


def _integers(gen, low, high, shape, d):
    if _is_np(gen):
        return gen.integers(low, high, size=shape, dtype=d)
    return gen.randint(low, high, size=shape, dtype=d)


class _Draw:
    """``with _Draw(place) as gen:`` gives the generator of ``place`` (or a private one
    for a nonzero ``seed``) with CuPy allocating on that device."""

    def __init__(self, place, seed=0):
        self.place = place
        self.seed = seed

    def __enter__(self):
        self._guard = _rng.device_guard(self.place)
        self._guard.__enter__()
        if self.seed:
            return _rng.private_generator(self.place, self.seed)
        return _rng.default_generator(self.place)

    def __exit__(self, *exc):
        return self._guard.__exit__(*exc)


# ----------------------------------------------------------------------------------
# seeding (thin wrappers over weft.core.random)

def seed(seed):
    """Seed every device's generator; returns the CPU generator (a
    :class:`weft.core.random.Generator` with ``manual_seed``, ``initial_seed``,
    ``get_state``, ``set_state``).

    >>> import weft
    >>> _ = weft.seed(42); a = weft.rand([2])
    >>> _ = weft.seed(42); bool((weft.rand([2]) == a).all())
    True
    """
    return _rng.seed(seed)


def get_rng_state(device=None):
    """Generator states of ``device`` (default: the current one) as a list: one entry for
    the CPU, one per GPU for a GPU device.

    >>> import weft
    >>> s = weft.get_rng_state(); a = weft.randn([3])
    >>> weft.set_rng_state(s); bool((weft.randn([3]) == a).all())
    True
    """
    return _rng.get_rng_state(device)


def set_rng_state(state_list, device=None):
    """Restore states from :func:`get_rng_state`; the streams then repeat exactly."""
    _rng.set_rng_state(state_list, device)


def get_cuda_rng_state():
    """The states of all GPU generators (``get_rng_state('gpu')``)."""
    return _rng.get_rng_state("gpu")


def set_cuda_rng_state(state_list):
    """Restore the states of all GPU generators."""
    _rng.set_rng_state(state_list, "gpu")


# ----------------------------------------------------------------------------------
# sampling functions

def rand(shape, dtype=None, name=None):
    """Uniform samples in ``[0, 1)`` of the given shape (default dtype float32).

    >>> import weft
    >>> x = weft.rand([2, 3])
    >>> x.shape, x.dtype, bool(((x >= 0) & (x < 1)).all())
    ([2, 3], dtype('float32'), True)
    """
    shape = _shape(shape, "rand")
    d = _float_dtype(dtype, "rand")
    with _Draw(current_place()) as gen:
        return _finish(_uniform01(gen, shape, _work(d)), d)


def randn(shape, dtype=None, name=None):
    """Standard normal samples (default dtype float32; complex dtypes give a standard
    complex normal, each part with variance 1/2).

    >>> import weft
    >>> weft.randn([4]).shape
    [4]
    """
    shape = _shape(shape, "randn")
    d = _float_dtype(dtype, "randn", complex_ok=True)
    with _Draw(current_place()) as gen:
        return _finish(_normal01(gen, shape, d), d)


def standard_normal(shape, dtype=None, name=None):
    """Same as :func:`randn`."""
    shape = _shape(shape, "standard_normal")
    d = _float_dtype(dtype, "standard_normal", complex_ok=True)
    with _Draw(current_place()) as gen:
        return _finish(_normal01(gen, shape, d), d)


def _int_range(low, high, op):
    low = int_arg(low, op, "low")
    if high is None:
        if low <= 0:
            raise ValueError(f"{op}: with high=None the range is [0, low), so low must be "
                             f"positive, got low={low}")
        return 0, low
    high = int_arg(high, op, "high")
    if high <= low:
        raise ValueError(f"{op}: high must be greater than low, got low={low}, high={high}")
    return low, high


def _check_fits(low, high, d, op):
    if d.kind in "iu":
        info = np.iinfo(d)
        if low < info.min or high - 1 > info.max:
            raise ValueError(f"{op}: the range [{low}, {high}) does not fit in {d.name}")
    elif d.kind == "b" and (low < 0 or high > 2):
        raise ValueError(f"{op}: the range [{low}, {high}) does not fit in bool")


def randint(low=0, high=None, shape=[1], dtype=None, name=None):  # noqa: B006 (Paddle's default)
    """Uniform integers in ``[low, high)`` (``[0, low)`` when ``high`` is None); dtype
    int32 or int64 (default).

    >>> import weft
    >>> x = weft.randint(0, 5, [10])
    >>> x.dtype, bool(((x >= 0) & (x < 5)).all())
    (dtype('int64'), True)
    """
    low, high = _int_range(low, high, "randint")
    shape = _shape(shape, "randint")
    d = dtype_arg(dtype, "randint", _dt.int64)
    if d not in (_dt.int32, _dt.int64):
        raise TypeError(f"randint: dtype must be int32 or int64, got {d.name}")
    _check_fits(low, high, d, "randint")
    with _Draw(current_place()) as gen:
        return _finish(_integers(gen, low, high, shape, d), d)


def randint_like(x, low=0, high=None, dtype=None, name=None):
    """Uniform integers in ``[low, high)`` with the shape (and by default the dtype and
    place) of ``x``; the dtype may be bool, integer or floating.

    >>> import weft
    >>> weft.randint_like(weft.zeros([2, 2]), 0, 3).dtype
    dtype('float32')
    """
    x = tensor_arg(x, "x", "randint_like")
    low, high = _int_range(low, high, "randint_like")
    d = dtype_arg(dtype, "randint_like", x.dtype)
    if d.kind == "c":
        raise TypeError(f"randint_like: dtype must be bool, integer or floating, got {d.name}")
    _check_fits(low, high, d, "randint_like")
    with _Draw(_place_of(x)) as gen:
        return _finish(_integers(gen, low, high, tuple(x._data.shape), _dt.int64), d)


def randperm(n, dtype="int64", name=None):
    """A random permutation of ``0 .. n-1`` (dtype int32, int64, float32 or float64).

    >>> import weft
    >>> sorted(weft.randperm(5).tolist())
    [0, 1, 2, 3, 4]
    """
    n = int_arg(n, "randperm", "n")
    if n < 0:
        raise ValueError(f"randperm: n must be non-negative, got {n}")
    d = dtype_arg(dtype, "randperm", _dt.int64)
    if d not in (_dt.int32, _dt.int64, _dt.float32, _dt.float64):
        raise TypeError(f"randperm: dtype must be int32, int64, float32 or float64, got "
                        f"{d.name}")
    with _Draw(current_place()) as gen:
        return _finish(gen.permutation(n), d)


def uniform(shape, dtype=None, min=-1.0, max=1.0, seed=0, name=None):  # noqa: A002
    """Uniform samples in ``[min, max)``. A nonzero ``seed`` draws from a generator
    seeded with it alone (the same seed always gives the same values), as in Paddle.

    >>> import weft
    >>> a = weft.uniform([3], min=2.0, max=3.0, seed=5)
    >>> bool((a == weft.uniform([3], min=2.0, max=3.0, seed=5)).all())
    True
    """
    shape = _shape(shape, "uniform")
    d = _float_dtype(dtype, "uniform")
    lo, hi = _real(min, "uniform", "min"), _real(max, "uniform", "max")
    if lo > hi:
        raise ValueError(f"uniform: min must not exceed max, got min={lo}, max={hi}")
    s = _rng.check_seed(seed, "uniform")
    with _Draw(current_place(), s) as gen:
        w = _work(d)
        u = _uniform01(gen, shape, w)
        return _finish(u * w.type(hi - lo) + w.type(lo), d)


def _check_std(std, op):
    xp = xp_of(std)
    if bool(xp.any(~(std >= 0))):
        raise ValueError(f"{op}: std must be non-negative (and not NaN)")


def normal(mean=0.0, std=1.0, shape=None, name=None):
    """Normal samples ``mean + std * N(0, 1)``.

    ``mean`` and ``std`` are numbers or Tensors; with a Tensor the result has the
    broadcast shape of the two (``shape`` is ignored) and lives on its device; with
    numbers ``shape`` is required. A complex ``mean`` gives complex samples.

    >>> import weft
    >>> weft.normal(weft.zeros([2, 3]), 1.0).shape
    [2, 3]
    """
    mt, st = isinstance(mean, Tensor), isinstance(std, Tensor)
    if not mt and not st:
        if not isinstance(mean, numbers.Number) or isinstance(mean, bool):
            raise TypeError(f"normal: mean must be a number or a Tensor, got "
                            f"{type(mean).__name__}")
        s = _real(std, "normal", "std")
        if s < 0:
            raise ValueError(f"normal: std must be non-negative, got {s}")
        shp = _shape(shape, "normal")
        d = _dt.default_complex() if isinstance(mean, complex) else _dt.default_float()
        with _Draw(current_place()) as gen:
            z = _normal01(gen, shp, d)
            return _finish(z * _work(d).type(s) + (mean if d.kind == "c" else
                                                    _work(d).type(mean)), d)
    ref = mean if mt else std
    if mt and st:
        check_same_place(mean, std, "normal")
    m = mean._data if mt else mean
    sd = std._data if st else std
    xp = xp_of(ref)
    if st:
        if std.dtype.kind == "c":
            raise TypeError("normal: std must be real, got a complex tensor")
        _check_std(sd, "normal")
    elif _real(std, "normal", "std") < 0:
        raise ValueError(f"normal: std must be non-negative, got {std}")
    kinds = [t.dtype for t in (mean, std) if isinstance(t, Tensor)]
    d = kinds[0] if len(kinds) == 1 else _dt.promote_types(*kinds)
    if d.kind in "biu":
        d = _dt.default_float()
    if not mt:
        if not isinstance(mean, numbers.Number) or isinstance(mean, bool):
            raise TypeError(f"normal: mean must be a number or a Tensor, got "
                            f"{type(mean).__name__}")
        if isinstance(mean, complex) and d.kind != "c":
            d = _dt.to_complex(d)
    try:
        shp = np.broadcast_shapes(np.shape(m), np.shape(sd))
    except ValueError:
        raise ValueError(f"normal: mean of shape {list(np.shape(m))} and std of shape "
                         f"{list(np.shape(sd))} do not broadcast") from None
    with _Draw(_place_of(ref)) as gen:
        z = _normal01(gen, tuple(shp), d)
        w = _work(d)
        out = xp.asarray(sd, dtype=w) * z + xp.asarray(m, dtype=d)
        return _finish(out, d)


def _probs(x, op):
    x = tensor_arg(x, "x", op)
    if not _dt.is_floating(x.dtype):
        raise TypeError(f"{op}: x must hold floating probabilities, got {x.dtype.name}")
    return x


def bernoulli(x, p=None, name=None):
    """0/1 samples, 1 with probability ``x`` elementwise (or ``p`` for every element when
    given); the result has the shape, dtype and place of ``x``.

    >>> import weft
    >>> weft.bernoulli(weft.to_tensor([0.0, 1.0])).tolist()
    [0.0, 1.0]
    """
    x = _probs(x, "bernoulli")
    xp = xp_of(x)
    if p is None:
        probs = x._data
        if probs.size and not bool(xp.all((probs >= 0) & (probs <= 1))):
            raise ValueError("bernoulli: x must hold probabilities in [0, 1] (found a value "
                             "outside, or NaN)")
    else:
        probs = _real(p, "bernoulli", "p")
        if not 0 <= probs <= 1:
            raise ValueError(f"bernoulli: p must be in [0, 1], got {probs}")
    with _Draw(_place_of(x)) as gen:
        u = _uniform01(gen, tuple(x._data.shape), _work(x.dtype))
        return _finish(u < probs, x.dtype)


def poisson(x, name=None):
    """Poisson samples with rates ``x`` (non-negative), of the same shape, dtype and place.

    >>> import weft
    >>> weft.poisson(weft.zeros([3])).tolist()
    [0.0, 0.0, 0.0]
    """
    x = _probs(x, "poisson")
    xp = xp_of(x)
    lam = x._data
    if lam.size and not bool(xp.all(lam >= 0)):
        raise ValueError("poisson: the rates x must be non-negative (found a negative value "
                         "or NaN)")
    with _Draw(_place_of(x)) as gen:
        lam = lam if lam.dtype in (_dt.float32, _dt.float64) else lam.astype(_dt.float32)
        return _finish(gen.poisson(lam), x.dtype)


def multinomial(x, num_samples=1, replacement=False, name=None):
    """Category indices drawn with weights ``x`` (1-D: one distribution; 2-D: one per
    row; weights need not be normalised). Without replacement no row repeats an
    index, so ``num_samples`` may not exceed the number of nonzero weights. int64.

    >>> import weft
    >>> sorted(weft.multinomial(weft.to_tensor([1.0, 2.0, 3.0]), 3).tolist())
    [0, 1, 2]
    """
    x = tensor_arg(x, "x", "multinomial")
    if x.dtype.kind not in "iuf":
        raise TypeError(f"multinomial: x must hold real weights, got {x.dtype.name}")
    if x.ndim not in (1, 2):
        raise ValueError(f"multinomial: x must be 1-D or 2-D, got shape {x.shape}")
    k = int_arg(num_samples, "multinomial", "num_samples")
    if k < 1:
        raise ValueError(f"multinomial: num_samples must be positive, got {k}")
    n = x.shape[-1]
    if n == 0:
        raise ValueError("multinomial: x has no categories (its last dimension is 0)")
    xp = xp_of(x)
    w = x._data.astype(np.float64).reshape(-1, n)
    rows = w.shape[0]
    if rows and not bool(xp.all(xp.isfinite(w) & (w >= 0))):
        raise ValueError("multinomial: x must hold finite non-negative weights (found a "
                         "negative value, inf or NaN)")
    pos = w > 0
    if rows and not bool(xp.all(xp.any(pos, axis=-1))):
        raise ValueError("multinomial: every distribution in x needs a positive weight (a "
                         "row sums to 0)")
    if not replacement and rows:
        nz = int(pos.sum(axis=-1).min())
        if k > nz:
            raise ValueError(f"multinomial: cannot draw {k} samples without replacement from "
                             f"a distribution with {nz} nonzero weight(s)")
    with _Draw(_place_of(x)) as gen:
        if replacement:
            idx = _sample_with_replacement(xp, gen, w, pos, k)
        else:
            idx = _sample_without_replacement(xp, gen, w, pos, k)
    return Tensor._wrap(idx.astype(np.int64).reshape(tuple(x._data.shape[:-1]) + (k,)))


def _sample_with_replacement(xp, gen, w, pos, k):
    # Inverse CDF for all rows in one searchsorted: row i's CDF is shifted into
    # [i, i + 1], so the concatenation stays sorted.
    rows, n = w.shape
    cdf = xp.cumsum(w, axis=-1)
    cdf /= cdf[:, -1:]
    cdf[:, -1] = 1.0
    off = xp.arange(rows, dtype=np.float64)[:, None]
    u = _uniform01(gen, (rows, k), np.dtype(np.float64))
    idx = xp.searchsorted((cdf + off).ravel(), (u + off).ravel(), side="right")
    idx = idx.reshape(rows, k) - (xp.arange(rows) * n)[:, None]
    # u + i can round up to i + 1 for large i; stay on the row's last possible category
    last = n - 1 - xp.argmax(pos[:, ::-1], axis=-1)
    return xp.minimum(idx, last[:, None])


def _sample_without_replacement(xp, gen, w, pos, k):
    # Efraimidis-Spirakis: the k smallest keys E_j / w_j (E_j ~ Exp(1)) are a draw
    # without replacement, in drawing order; zero weights get key +inf.
    rows, n = w.shape
    e = _exponential01(gen, (rows, n), np.dtype(np.float64))
    keys = xp.where(pos, e / xp.where(pos, w, 1.0), np.inf)
    if k < n:
        part = xp.argpartition(keys, k - 1, axis=-1)[:, :k]
        order = xp.argsort(xp.take_along_axis(keys, part, axis=-1), axis=-1)
        return xp.take_along_axis(part, order, axis=-1)
    return xp.argsort(keys, axis=-1)


# ----------------------------------------------------------------------------------
# Gamma samples with implicit reparameterisation gradients (Figurnov et al., 2018)

# forward: the sample drawn beforehand (a param); the rule is the implicit gradient
# dz/dalpha = -(dP/dalpha)(z) / p(z), P the Gamma CDF, with P's accurate shape
# derivative (weft/ops/_igamma_shape.py); ``ans`` is on the graph under
# create_graph, so second derivatives see z's own dependence on alpha
_standard_gamma = Primitive("standard_gamma", lambda alpha, sample, floor=None: sample)


def _standard_gamma_vjp(g, ans, alpha, sample, floor=None):
    dz = apply(_gamma_zgrad, alpha, ans)
    if floor is not None:
        # draws that underflowed and were raised to ``floor`` do not move with alpha (as
        # behind a clip, which this saves: one full-size pass forward, two backward)
        dz = dz * Tensor._wrap((ans._data != floor).astype(ans._data.dtype))
    gd = g._data
    if alpha._data.size == 1 and gd.size > 1 and not any(gd.strides):
        # one number broadcast (the cotangent of a sum) and one shape: g Σ dz/dα, with
        # no full-size product for the engine to sum again
        return (dz.sum() * g[(0,) * gd.ndim]).reshape(list(alpha.shape))
    return g * dz


defvjp(_standard_gamma, _standard_gamma_vjp)
defbatch(_standard_gamma)


def _gamma_draw(alpha, shape, op, floor=None):
    """Gamma(alpha, 1) samples of ``shape`` (``alpha`` broadcast to it), differentiable
    in ``alpha`` by implicit reparameterisation. ``alpha``: a floating Tensor >= 0.

    ``floor``: draws below it (underflows of small ``alpha``) are raised to it, and
    their gradient is 0."""
    a = alpha._data
    xp = xp_of(alpha)
    if a.size and not bool(xp.all(a >= 0)):
        raise ValueError(f"{op}: the concentration must be non-negative (found a negative "
                         f"value or NaN)")
    d = alpha.dtype
    with _Draw(_place_of(alpha)) as gen:
        w = _work(d)
        # numpy's Generator and CuPy's RandomState share this signature
        z = gen.standard_gamma(a.astype(w, copy=False), size=shape, dtype=w)
    z = z if z.dtype == d else z.astype(d)
    if not isinstance(z, np.ndarray) and not hasattr(z, "__cuda_array_interface__"):
        z = np.asarray(z, dtype=d)
    raised = None
    if floor is not None and z.size and bool(z.min() < floor):   # one read, no temporary
        xp.maximum(z, floor, out=z)
        raised = floor
    return apply(_standard_gamma, alpha, sample=z, floor=raised)


def standard_gamma(x, name=None):
    """Samples of the standard Gamma distribution with concentration ``x`` (rate 1),
    of the shape, dtype and place of ``x`` (a floating Tensor with entries >= 0).

    Draws from weft's generator (``weft.seed``). **weft+**: the samples are
    differentiable in ``x`` by implicit reparameterisation (Figurnov et al., 2018):
    ``dz/dx = -(dP/dx)(z; x) / p(z; x)``, ``P`` the Gamma CDF, with the accurate
    shape derivative of :func:`weft.gammainc` (second derivatives work too).

    >>> import weft
    >>> _ = weft.seed(0)
    >>> a = weft.to_tensor([0.5, 2.0, 9.0], stop_gradient=False)
    >>> z = weft.standard_gamma(a)
    >>> z.shape, bool((z > 0).all())
    ([3], True)
    >>> g = weft.grad(z.sum(), a)[0]   # implicit reparameterisation gradient
    >>> bool((g > 0).all())
    True
    """
    x = tensor_arg(x, "x", "standard_gamma")
    if not _dt.is_floating(x.dtype):
        raise TypeError(f"standard_gamma: x must be a floating tensor, got {x.dtype.name}")
    return _gamma_draw(x, tuple(x._data.shape), "standard_gamma")


# ----------------------------------------------------------------------------------
# in-place fills

def _fill_(x, draw, op, dtypes="f", seed=0):
    """Overwrite ``x`` with ``draw(gen, shape, work_dtype)``; gradients to the old value
    are zero (the new values do not depend on it)."""
    if not isinstance(x, Tensor):
        raise TypeError(f"{op}: x must be a Tensor, got {type(x).__name__}")
    d = x.dtype
    if d.kind not in dtypes and not (d == _dt.bfloat16 and "f" in dtypes):
        kind = "floating" if dtypes == "f" else "real"
        raise TypeError(f"{op}: x must be a {kind} tensor, got {d.name}")

    def compute(old):
        with _Draw(_place_of(x), seed) as gen:
            new = _finish(draw(gen, tuple(x._data.shape), _work(d) if d.kind == "f" else
                               np.dtype(np.float32)), d)
        if old.stop_gradient:
            return new
        from .math.ufuncs import where  # noqa: PLC0415

        with _rng.device_guard(_place_of(x)):
            return where(Tensor._wrap(xp_of(x).asarray(True)), new, old)

    return inplace(x, compute, op)


def uniform_(x, min=-1.0, max=1.0, seed=0, name=None):  # noqa: A002
    """Fill ``x`` in place with uniform samples in ``[min, max)``; returns ``x``.

    >>> import weft
    >>> x = weft.zeros([3]); _ = x.uniform_(0.0, 1.0)
    >>> bool(((x >= 0) & (x < 1)).all())
    True
    """
    lo, hi = _real(min, "uniform_", "min"), _real(max, "uniform_", "max")
    if lo > hi:
        raise ValueError(f"uniform_: min must not exceed max, got min={lo}, max={hi}")
    s = _rng.check_seed(seed, "uniform_")
    return _fill_(x, lambda gen, shape, w: _uniform01(gen, shape, w) * w.type(hi - lo)
                  + w.type(lo), "uniform_", seed=s)


def normal_(x, mean=0.0, std=1.0, name=None):
    """Fill ``x`` in place with normal samples; returns ``x``."""
    m, s = _real(mean, "normal_", "mean"), _real(std, "normal_", "std")
    if s < 0:
        raise ValueError(f"normal_: std must be non-negative, got {s}")
    return _fill_(x, lambda gen, shape, w: gen.standard_normal(shape, dtype=w) * w.type(s)
                  + w.type(m), "normal_")


def exponential_(x, lam=1.0, name=None):
    """Fill ``x`` in place with exponential samples of rate ``lam`` (mean ``1/lam``);
    returns ``x``.

    >>> import weft
    >>> x = weft.exponential_(weft.zeros([4]), lam=2.0)
    >>> bool((x >= 0).all())
    True
    """
    lam = _real(lam, "exponential_", "lam")
    if not lam > 0:
        raise ValueError(f"exponential_: lam must be positive, got {lam}")
    return _fill_(x, lambda gen, shape, w: _exponential01(gen, shape, w) / w.type(lam),
                  "exponential_")


def bernoulli_(x, p=0.5, name=None):
    """Fill ``x`` in place with 0/1 samples, 1 with probability ``p`` (a number or a
    Tensor broadcastable to ``x``); returns ``x``."""
    if not isinstance(x, Tensor):
        raise TypeError(f"bernoulli_: x must be a Tensor, got {type(x).__name__}")
    if isinstance(p, Tensor):
        if p.size and not bool(xp_of(p).all((p._data >= 0) & (p._data <= 1))):
            raise ValueError("bernoulli_: p must hold probabilities in [0, 1]")
        try:
            np.broadcast_shapes(tuple(p._data.shape), tuple(x._data.shape))
        except ValueError:
            raise ValueError(f"bernoulli_: p of shape {p.shape} does not broadcast to x") \
                from None
        pv = p._data
    else:
        pv = _real(p, "bernoulli_", "p")
        if not 0 <= pv <= 1:
            raise ValueError(f"bernoulli_: p must be in [0, 1], got {pv}")
    return _fill_(x, lambda gen, shape, w: _uniform01(gen, shape, np.dtype(np.float64)) < pv,
                  "bernoulli_", dtypes="biuf")


__all__ = ["seed", "get_rng_state", "set_rng_state", "get_cuda_rng_state",
           "set_cuda_rng_state", "rand", "randn", "standard_normal", "randint", "randint_like",
           "randperm", "uniform", "normal", "bernoulli", "poisson", "multinomial", "uniform_",
           "normal_", "exponential_", "bernoulli_", "standard_gamma"]
__tensor_methods__ = {"uniform_": uniform_, "normal_": normal_, "exponential_": exponential_,
                      "bernoulli_": bernoulli_, "bernoulli": bernoulli, "poisson": poisson,
                      "multinomial": multinomial}
