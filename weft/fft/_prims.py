"""The differentiable primitives of weft.fft: resize (crop / zero-pad), c2c, r2c, c2r.

Each takes arrays whose transformed lengths are final and axes as negative indices,
so a leading batch axis of cotangents (jacobian, hessian) leaves them valid: every
rule below is also its own batch rule.

The vjp rules are adjoints written with the same primitives (api-fft.md §5), so
derivatives of any order work. With ``swap`` exchanging 'backward' and 'forward':

- ``c2c(forward, norm)``: the adjoint is ``c2c(not forward, swap(norm))``;
- ``r2c(inverse, norm)`` (rfftn, or ihfftn = conj(rfftn(., swap(norm)))): the
  gradient of the real input is ``c2r(w * g, not inverse, swap(norm))`` with ``w`` = 1
  on the DC (and, for even n, Nyquist) bins and 1/2 on the others: the bins of a
  one-sided spectrum that stand for two bins of the full one count twice, and c2r
  doubles them back;
- ``c2r(inverse, norm)`` (irfftn, or hfftn = irfftn(conj(.), swap(norm))): the
  gradient of the half spectrum is ``(1 / w) * r2c(g, not inverse, swap(norm))``; the
  imaginary parts of the DC / Nyquist bins, which the forward ignores, get none
  (the r2c of a real cotangent is real there).
"""
from __future__ import annotations

import numpy as np

from ..autograd.engine import Primitive, apply, defbatch, defvjp
from ..core.backend import resolve
from ..core.tensor import Tensor

SWAP = {"backward": "forward", "forward": "backward", "ortho": "ortho"}

_ndarray = np.ndarray


def backend(a):
    """The fft backend table for array ``a``'s device kind."""
    return resolve("fft", "cpu" if type(a) is _ndarray else "gpu", caller="weft.fft")


def _xp(a):
    if type(a) is _ndarray:
        return np
    import cupy  # a non-numpy array reaching here is a CuPy one (weft's only other kind)
    return cupy


_COMPLEX_OF = {}
_REAL_OF = {}


def complex_of(dtype):
    """The complex dtype of matching precision (float32 -> complex64, ...)."""
    c = _COMPLEX_OF.get(dtype)
    if c is None:
        c = _COMPLEX_OF[dtype] = np.result_type(dtype, np.complex64)
    return c


def real_of(dtype):
    """The real dtype of matching precision (complex64 -> float32, ...)."""
    r = _REAL_OF.get(dtype)
    if r is None:
        r = _REAL_OF[dtype] = np.empty(0, dtype).real.dtype
    return r


def half(n):
    """Length of the one-sided spectrum of a length-n real signal (0 stays empty)."""
    return n // 2 + 1 if n else 0


# -- resize: crop or zero-pad at the end of each listed axis -------------------------

def _resize_fwd(a, axes, lengths):
    shape = list(a.shape)
    crop = [slice(None)] * a.ndim
    grow = False
    for ax, n in zip(axes, lengths):
        if n < shape[ax]:
            crop[ax] = slice(0, n)
        elif n > shape[ax]:
            grow = True
        shape[ax] = n
    a = a[tuple(crop)]
    if not grow:
        return a.copy()
    out = _xp(a).zeros(shape, a.dtype)
    out[tuple(slice(0, m) for m in a.shape)] = a
    return out


def resize(x, axes, lengths):
    return apply(_resize, x, axes=tuple(axes), lengths=tuple(lengths))


_resize = Primitive("fft_resize", _resize_fwd)
defvjp(_resize, lambda g, ans, x, axes, lengths:
       resize(g, axes, [x.shape[ax] for ax in axes]), save=(), save_out=False)
defbatch(_resize)


# -- the transforms --------------------------------------------------------------------

def _c2c_fwd(a, axes, forward, norm):
    if a.size == 0:
        return _xp(a).zeros(a.shape, complex_of(a.dtype))
    return backend(a).c2c(a, axes, forward, norm)


def _r2c_fwd(a, axes, norm, inverse):
    if a.size == 0:
        shape = list(a.shape)
        shape[axes[-1]] = half(shape[axes[-1]])
        return _xp(a).zeros(shape, complex_of(a.dtype))
    if not inverse:
        return backend(a).r2c(a, axes, norm)
    y = backend(a).r2c(a, axes, SWAP[norm])
    return _xp(y).conjugate(y, out=y)


def _c2r_fwd(a, axes, n, norm, inverse):
    if a.size == 0 or n == 0:
        shape = list(a.shape)
        shape[axes[-1]] = n
        return _xp(a).zeros(shape, real_of(complex_of(a.dtype)))
    if inverse:
        return backend(a).c2r(a, axes, n, norm)
    return backend(a).c2r(_xp(a).conjugate(a), axes, n, SWAP[norm])


def c2c(x, axes, forward, norm):
    return apply(_c2c, x, axes=axes, forward=forward, norm=norm)


def r2c(x, axes, norm, inverse):
    return apply(_r2c, x, axes=axes, norm=norm, inverse=inverse)


def c2r(x, axes, n, norm, inverse):
    return apply(_c2r, x, axes=axes, n=n, norm=norm, inverse=inverse)


def _weights(n, axis, like, doubled):
    """The bin weights of a one-sided spectrum of a length-n signal on ``axis`` (< 0),
    shaped to broadcast: 1 on DC and the even-n Nyquist bin, 1/2 (or 2 if
    ``doubled``) elsewhere."""
    m = half(n)
    w = np.full(m, 2.0 if doubled else 0.5)
    w[:1] = 1.0
    if n % 2 == 0 and m > 1:
        w[-1] = 1.0
    w = w.astype(real_of(like._data.dtype)).reshape((m,) + (1,) * (-axis - 1))
    if type(like._data) is not _ndarray:
        w = _xp(like._data).asarray(w)
    return Tensor._wrap(w)


def _r2c_vjp(g, ans, x, axes, norm, inverse):
    n = x.shape[axes[-1]]
    return c2r(g * _weights(n, axes[-1], g, False), axes, n, SWAP[norm], not inverse)


def _c2r_vjp(g, ans, x, axes, n, norm, inverse):
    return r2c(g, axes, SWAP[norm], not inverse) * _weights(n, axes[-1], g, True)


_c2c = Primitive("fft_c2c", _c2c_fwd)
defvjp(_c2c, lambda g, ans, x, axes, forward, norm: c2c(g, axes, not forward, SWAP[norm]),
       save=(), save_out=False)
defbatch(_c2c)

_r2c = Primitive("fft_r2c", _r2c_fwd)
defvjp(_r2c, _r2c_vjp, save=(), save_out=False)
defbatch(_r2c)

_c2r = Primitive("fft_c2r", _c2r_fwd)
defvjp(_c2r, _c2r_vjp, save=(), save_out=False)
defbatch(_c2r)
