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

The weighting by ``w`` / ``1 / w`` is a flag of the primitives (``halved`` /
``doubled``), applied in place inside their forwards rather than as a separate
multiply.
"""
from __future__ import annotations

import numpy as np

from ..autograd.engine import Primitive, apply, defbatch, deflinear, defvjp
from ..core.backend import resolve

SWAP = {"backward": "forward", "forward": "backward", "ortho": "ortho"}

_ndarray = np.ndarray


def backend(a):
    """The fft backend table for array ``a``'s device kind."""
    be = resolve("fft", "cpu" if type(a) is _ndarray else "gpu", caller="weft.fft")
    if not hasattr(be, "c2r"):
        raise TypeError(f"weft.fft: the loaded fft backend {be!r} is not a function table; "
                        "an fft backend's loader must return a weft.fft.backends.FFTBackend")
    return be


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


def _middle(ndim, axis, n):
    """Index of the bins of a one-sided spectrum (length-n signal, on ``axis``) that
    stand for two bins of the full spectrum: all but DC and the even-n Nyquist bin."""
    idx = [slice(None)] * ndim
    idx[axis] = slice(1, half(n) - 1 if n % 2 == 0 else half(n))
    return tuple(idx)


def _r2c_fwd(a, axes, norm, inverse, doubled=False):
    if a.size == 0:
        shape = list(a.shape)
        shape[axes[-1]] = half(shape[axes[-1]])
        return _xp(a).zeros(shape, complex_of(a.dtype))
    n = a.shape[axes[-1]]
    if not inverse:
        y = backend(a).r2c(a, axes, norm)
    else:
        y = backend(a).r2c(a, axes, SWAP[norm])
        _xp(y).conjugate(y, out=y)
    if doubled:
        y[_middle(y.ndim, axes[-1], n)] *= 2
    return y


def _c2r_fwd(a, axes, n, norm, inverse, halved=False):
    if a.size == 0 or n == 0:
        shape = list(a.shape)
        shape[axes[-1]] = n
        return _xp(a).zeros(shape, real_of(complex_of(a.dtype)))
    if inverse:
        if halved:
            a = a.copy()
    else:
        a = _xp(a).conjugate(a)
        norm = SWAP[norm]
    if halved:
        a[_middle(a.ndim, axes[-1], n)] *= 0.5
    return backend(a).c2r(a, axes, n, norm)


def c2c(x, axes, forward, norm):
    return apply(_c2c, x, axes=axes, forward=forward, norm=norm)


def r2c(x, axes, norm, inverse, doubled=False):
    """rfftn (``inverse`` False) or ihfftn of real x; ``doubled``: then the bins of
    :func:`_middle` times 2."""
    return apply(_r2c, x, axes=axes, norm=norm, inverse=inverse, doubled=doubled)


def c2r(x, axes, n, norm, inverse, halved=False):
    """irfftn (``inverse`` True) or hfftn of the one-sided x; ``halved``: of x with the
    bins of :func:`_middle` times 1/2."""
    return apply(_c2r, x, axes=axes, n=n, norm=norm, inverse=inverse, halved=halved)


# The weights are the adjoints' own: with w = 1/2 on the middle bins (1 elsewhere)
# and w' = 1 / w, r2c's adjoint is c2r of w * g and c2r's is w' * r2c(g). Each
# primitive carries the weighting of its adjoint as a flag, and w * w' = 1 makes
# the flagged forms each other's adjoints again: the rules close under
# differentiation without a separate multiply.
def _r2c_vjp(g, ans, x, axes, norm, inverse, doubled=False):
    n = x.shape[axes[-1]]
    return c2r(g, axes, n, SWAP[norm], not inverse, halved=not doubled)


def _c2r_vjp(g, ans, x, axes, n, norm, inverse, halved=False):
    return r2c(g, axes, SWAP[norm], not inverse, doubled=not halved)


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

# forward mode: every transform (and the pad/crop) is linear, its own jvp
for _p in (_resize, _c2c, _r2c, _c2r):
    deflinear(_p)
