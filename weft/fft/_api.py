"""The 22 public functions of weft.fft: argument checks, dtype rules, pad / crop,
then one primitive of ``_prims``; and the frequency and shift helpers."""
from __future__ import annotations

import math
import numbers
import os
from collections.abc import Sequence

import numpy as np

from ..core import dtype as _dt
from ..core.args import dtype_arg, keyword_aliases, tensor_arg
from ..core.dtype import UnsupportedDtypeError
from ..core.tensor import Tensor
from ..ops import assign, cast, roll, to_tensor
from . import _prims
from ._prims import c2c, c2r, half, r2c, resize

_NORMS = ("backward", "forward", "ortho")
_intp_max = np.iinfo(np.intp).max


class ComplexInputError(UnsupportedDtypeError, RuntimeError):
    """Complex input to a real-input transform (rfft*, ihfft*): a
    weft.UnsupportedDtypeError (TypeError and ValueError) that is also the
    RuntimeError Paddle raises in eager mode (api-fft.md §1)."""


# -- keyword aliases -------------------------------------------------------------------

def _aliases(axis_name):
    """Accept Paddle 3's ``input`` for ``x`` and ``dim`` for ``axis_name``."""
    return keyword_aliases(input="x", dim=axis_name)


# -- argument checks (api-fft.md §3) ---------------------------------------------------

def _is_int(v):
    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))


def _check_norm(norm, op):
    if norm not in _NORMS:
        raise ValueError(f"{op}: Unexpected norm: {norm!r}. Norm should be forward, backward "
                         "or ortho")


def _check_n(n, op):
    if not _is_int(n):
        raise ValueError(f"{op}: Invalid FFT argument n({n!r}), it should be an integer.")
    if n <= 0:
        raise ValueError(f"{op}: Invalid FFT argument n({n}), it should be positive.")
    return int(n)


def _check_axis(axis, ndim, op):
    if not _is_int(axis):
        raise ValueError(f"{op}: Invalid FFT axis ({axis!r}), it should be an integer.")
    if not -ndim <= axis < ndim or ndim == 0:
        raise ValueError(f"{op}: Invalid FFT axis ({axis}), it should be in range "
                         f"[{-ndim}, {ndim})")
    return int(axis) % ndim - ndim   # negative: valid under a leading batch axis too


def _as_list(v):
    if isinstance(v, Tensor):
        v = v.tolist()
    elif isinstance(v, np.ndarray):
        v = v.tolist()
    if isinstance(v, Sequence) and not isinstance(v, str):
        return list(v)
    return None


def _check_s(s, ndim, op):
    lst = _as_list(s)
    if lst is None:
        raise ValueError(f"{op}: FFT sizes {s!r} contains invalid value ({s!r}): s must be a "
                         "sequence of positive ints")
    if len(lst) > ndim:
        raise ValueError(f"{op}: FFT sizes {lst} contains invalid value: it has {len(lst)} "
                         f"entries but the input has {ndim} dimension(s)")
    for v in lst:
        if not _is_int(v) or v <= 0:
            raise ValueError(f"{op}: FFT sizes {lst} contains invalid value ({v!r})")
    return [int(v) for v in lst]


def _check_axes(axes, ndim, op):
    lst = _as_list(axes)
    if lst is None:
        raise ValueError(f"{op}: FFT axes {axes!r} contains invalid value ({axes!r}): axes "
                         "must be a sequence of ints")
    if not lst:
        raise ValueError(f"{op}: FFT axes [] is empty: give at least one axis (or axes=None "
                         "for all of them)")
    if len(lst) > ndim:
        raise ValueError(f"{op}: FFT axes {lst} contains invalid value: it has {len(lst)} "
                         f"entries but the input has {ndim} dimension(s)")
    out = []
    for v in lst:
        if not _is_int(v) or not -ndim <= v < ndim:
            raise ValueError(f"{op}: FFT axes {lst} contains invalid value ({v!r}); axes must "
                             f"be ints in range [{-ndim}, {ndim})")
        out.append(int(v) % ndim - ndim)
    if len(set(out)) != len(out):
        dup = next(lst[i] for i, a in enumerate(out) if out.index(a) != i)
        raise ValueError(f"{op}: FFT axes {lst} contains a repeated axis ({dup}); each axis may "
                         "be transformed once")
    return out


def _nd_args(x, s, axes, op, two_d):
    """(s, axes) resolved: axes negative, s None or one int per axis."""
    ndim = x.ndim
    if two_d:
        for arg, v in (("s", s), ("axes", axes)):
            if v is not None:
                lst = _as_list(v)
                if lst is None or len(lst) != 2:
                    raise ValueError(f"{op}: Invalid FFT argument {arg}({v!r}), it should be "
                                     "a sequence of 2 integers.")
        if ndim < 2:
            raise ValueError(f"{op}: The rank of the input ({ndim}) should >= 2")
    if axes is not None:
        axes = _check_axes(axes, ndim, op)
    if s is not None:
        s = _check_s(s, ndim, op)
    if s is not None and axes is not None and len(s) != len(axes):
        raise ValueError(f"{op}: Length of s ({len(s)}) and length of axes ({len(axes)}) does "
                         "not match.")
    if axes is None:
        if ndim == 0:
            raise ValueError(f"{op}: the input is 0-D: there is no axis to transform")
        axes = list(range(-(len(s) if s is not None else ndim), 0))
    return s, axes


# -- dtypes ----------------------------------------------------------------------------

def _real_input(x, op):
    """x as a real float tensor: integers -> the default float dtype, float16 / bfloat16
    -> float32; bool refused; complex refused (r2c)."""
    d = x._data.dtype
    if d.kind == "f" and d.itemsize >= 4:
        return x
    if d.kind == "c":
        raise ComplexInputError(f"{op}: x has dtype {d.name}; {op} transforms real input "
                                "only (use the complex transform, e.g. fft / fftn)")
    return _float_or_refuse(x, d, op)


def _float_or_refuse(x, d, op):
    if d == np.bool_:
        raise UnsupportedDtypeError(f"{op}: x has dtype bool; FFTs take integer, float or "
                                    "complex tensors")
    if d.kind in "iu":   # the default float dtype, float32 when that is float16
        return cast(x, np.result_type(_dt.get_default_dtype(), np.float32))
    if _dt.is_floating(d) or d.kind == "f":      # float16, bfloat16: computed in float32
        return cast(x, "float32")
    raise UnsupportedDtypeError(f"{op}: x has dtype {d.name}; FFTs take integer, float or "
                                "complex tensors")


_AS_IS = frozenset(np.dtype(d) for d in ("float32", "float64", "complex64", "complex128"))


def _any_input(x, op):
    """x for c2c: complex as is; real as float32 / float64 (the backend makes it complex)."""
    d = x._data.dtype
    if d in _AS_IS or d.kind == "c" or (d.kind == "f" and d.itemsize >= 4):
        return x
    return _float_or_refuse(x, d, op)


def _complex_input(x, op):
    """x for c2r: complex as is; real or integer cast to complex first."""
    d = x._data.dtype
    if d.kind == "c":
        return x
    x = _any_input(x, op)
    return cast(x, _prims.complex_of(x._data.dtype))


# -- size guard ------------------------------------------------------------------------

def _memory_limit(x):
    if type(x._data) is np.ndarray:
        try:
            return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
        except (ValueError, OSError, AttributeError):   # pragma: no cover - non-POSIX
            return _intp_max
    return x._data.device.mem_info[1]


def _check_size(x, s, shapes, itemsize, op):
    """Refuse, before allocating, shapes whose arrays would not fit in memory (only
    an explicit n / s can ask for more than the input holds)."""
    if s is None:
        return
    for shape in shapes():
        count = math.prod(shape)
        nbytes = count * itemsize
        if count == 0 or nbytes < (1 << 30):
            continue
        limit = min(_memory_limit(x), _intp_max)
        if nbytes > limit:
            raise ValueError(f"{op}: the result of shape {list(shape)} would need {nbytes} "
                             f"bytes, more than the device's {limit} bytes of memory; reduce "
                             "n / s")


# -- the transforms --------------------------------------------------------------------

def _finish(y, out, op):
    if out is None:
        return y
    if not isinstance(out, Tensor):
        raise TypeError(f"{op}: out must be a Tensor, got {type(out).__name__}")
    if out.shape != y.shape or out.dtype != y.dtype:
        raise ValueError(f"{op}: out has shape {out.shape} and dtype {out.dtype.name}, but the "
                         f"result has shape {y.shape} and dtype {y.dtype.name}")
    assign(y, out)
    return out


def _transform(op, kind, x, s, axes, norm, flag, out):
    """kind 'c2c' (flag = forward), 'r2c' / 'c2r' (flag = inverse); s, axes resolved."""
    shape = x.shape
    if kind == "c2c":
        x = _any_input(x, op)
        if s is not None:
            isize = _prims.complex_of(x._data.dtype).itemsize
            _check_size(x, s, lambda: [_shape_with(shape, axes, s)], isize, op)
            if any(shape[a] != n for a, n in zip(axes, s)):
                x = resize(x, axes, s)
        y = c2c(x, tuple(axes), flag, norm)
    elif kind == "r2c":
        x = _real_input(x, op)
        lengths = s if s is not None else [shape[a] for a in axes]
        out_len = lengths[:-1] + [half(lengths[-1])]
        isize = _prims.complex_of(x._data.dtype).itemsize
        _check_size(x, s, lambda: [_shape_with(shape, axes, lengths),
                                         _shape_with(shape, axes, out_len)], isize, op)
        if s is not None and any(shape[a] != n for a, n in zip(axes, s)):
            x = resize(x, axes, s)
        y = r2c(x, tuple(axes), norm, flag)
    else:
        x = _complex_input(x, op)
        if s is not None:
            lengths = s
        else:
            m = shape[axes[-1]]
            if m == 1:
                raise ValueError(f"{op}: the input has length 1 on axis {axes[-1]}, so the "
                                 "default output length 2*(1-1) is 0; give n (or s)")
            lengths = [shape[a] for a in axes[:-1]] + [2 * (m - 1) if m else 0]
        in_len = lengths[:-1] + [half(lengths[-1])]
        isize = _prims.complex_of(x._data.dtype).itemsize
        _check_size(x, s, lambda: [_shape_with(shape, axes, in_len),
                                         _shape_with(shape, axes, lengths)], isize, op)
        if any(shape[a] != n for a, n in zip(axes, in_len)):
            x = resize(x, axes, in_len)
        y = c2r(x, tuple(axes), lengths[-1], norm, flag)
    return _finish(y, out, op)


def _shape_with(shape, axes, lengths):
    shape = list(shape)
    for a, n in zip(axes, lengths):
        shape[a] = n
    return shape


def _one_d(op, kind, flag, doc_example):
    def f(x, n=None, axis=-1, norm="backward", name=None, *, out=None):
        x = tensor_arg(x, "x", op)
        _check_norm(norm, op)
        ax = _check_axis(axis, x.ndim, op)
        s = None if n is None else [_check_n(n, op)]
        return _transform(op, kind, x, s, [ax], norm, flag, out)
    f.__name__ = f.__qualname__ = op
    f.__doc__ = doc_example
    return _aliases("axis")(f)


def _multi_d(op, kind, flag, two_d, doc_example):
    default_axes = (-2, -1) if two_d else None

    def f(x, s=None, axes=default_axes, norm="backward", name=None, *, out=None):
        x = tensor_arg(x, "x", op)
        _check_norm(norm, op)
        s, axes = _nd_args(x, s, axes, op, two_d)
        return _transform(op, kind, x, s, axes, norm, flag, out)
    f.__name__ = f.__qualname__ = op
    f.__doc__ = doc_example
    return _aliases("axes")(f)


_DOC_1D = """{what}

``n``: the transform length (the input is zero-padded at the end or cropped first{extra});
``axis``: the axis to transform; ``norm``: 'backward' (default), 'forward' or 'ortho'
(api-fft.md §2); ``out``: a tensor of the result's shape and dtype to receive it (and
be returned). Differentiable to any order.

>>> import weft
>>> {example}
"""

_DOC_ND = """{what}

``s``: the transform lengths, one per entry of ``axes`` (the input is zero-padded at
the end or cropped first{extra}); ``axes``: {axes}; ``norm``: 'backward' (default),
'forward' or 'ortho' (api-fft.md §2); ``out``: a tensor of the result's shape and dtype
to receive it (and be returned). Differentiable to any order.

>>> import weft
>>> {example}
"""

_X = "weft.to_tensor([1.0, 2.0, 3.0, 4.0])"
_X2 = "weft.to_tensor([[1.0, 2.0], [3.0, 4.0]])"
_C2R_EXTRA = "; for the one-sided last axis, ``n`` is the real output length, default " \
             "``2 * (m - 1)``, and the input is cropped or padded to ``n // 2 + 1``"
_SPECS_1D = [
    ("fft", "c2c", True, "The 1-D discrete Fourier transform.", "",
     f"weft.fft.fft({_X}).tolist() == [10, -2 + 2j, -2, -2 - 2j]\nTrue"),
    ("ifft", "c2c", False, "The 1-D inverse discrete Fourier transform.", "",
     "weft.fft.ifft(weft.to_tensor([4.0, 0.0, 0.0, 0.0])).tolist() == [1, 1, 1, 1]\n"
     "True"),
    ("rfft", "r2c", False, "The 1-D transform of real input: the ``n // 2 + 1`` "
     "non-negative frequency bins.", "",
     f"weft.fft.rfft({_X}).tolist() == [10, -2 + 2j, -2]\nTrue"),
    ("irfft", "c2r", True, "The inverse of :func:`rfft`: a real signal from its one-sided "
     "spectrum.", _C2R_EXTRA,
     "weft.fft.irfft(weft.to_tensor([10.0 + 0j, -2 + 2j, -2 + 0j])).tolist()\n"
     "[1.0, 2.0, 3.0, 4.0]"),
    ("hfft", "c2r", False, "The transform of a Hermitian-symmetric signal given by its "
     "first half: a real spectrum.", _C2R_EXTRA,
     "weft.fft.hfft(weft.to_tensor([1.0 + 0j, 2.0, 3.0])).tolist()\n"
     "[8.0, -2.0, 0.0, -2.0]"),
    ("ihfft", "r2c", True, "The inverse of :func:`hfft`: the first half of the "
     "Hermitian-symmetric signal of a real spectrum.", "",
     "weft.fft.ihfft(weft.to_tensor([8.0, -2.0, 0.0, -2.0])).tolist() == [1, 2, 3]\n"
     "True"),
]


def _nd_spec(base, two_d):
    name = base + ("2" if two_d else "n")
    kind, flag, what, extra = {
        "fft": ("c2c", True, "discrete Fourier transform", ""),
        "ifft": ("c2c", False, "inverse discrete Fourier transform", ""),
        "rfft": ("r2c", False, "transform of real input (one-sided on the last axis)", ""),
        "irfft": ("c2r", True, "inverse of the real-input transform", _C2R_EXTRA),
        "hfft": ("c2r", False, "transform of a Hermitian-symmetric signal (a real result)",
                 _C2R_EXTRA),
        "ihfft": ("r2c", True, "inverse of the Hermitian transform (one-sided on the last "
                  "axis)", ""),
    }[base]
    dims = "2-D" if two_d else "N-D"
    axes = ("exactly two axes, default ``(-2, -1)``" if two_d else
            "the axes, default all (or the last ``len(s)`` when ``s`` is given)")
    if kind != "c2c":
        example = f"weft.fft.{name}({_X2}).shape\n[2, 2]"
    else:
        example = f"weft.fft.{name}({_X2}).tolist() == [[10, -2], [-4, 0]]\nTrue" \
            if base == "fft" else f"weft.fft.{name}({_X2}).tolist() == " \
            "[[2.5, -0.5], [-1, 0]]\nTrue"
    doc = _DOC_ND.format(what=f"The {dims} {what}; the last entry of ``axes`` is the "
                         "one-sided axis." if kind != "c2c" else f"The {dims} {what}.",
                         extra=extra, axes=axes, example=example)
    return name, kind, flag, doc


_SPEC_1D = {spec[0]: spec for spec in _SPECS_1D}


def _make_1d(name):
    _, kind, flag, what, extra, example = _SPEC_1D[name]
    return _one_d(name, kind, flag, _DOC_1D.format(what=what, extra=extra, example=example))


def _make_nd(base, two_d):
    name, kind, flag, doc = _nd_spec(base, two_d)
    return _multi_d(name, kind, flag, two_d, doc)


# the 18 transforms, named one per line so that readers and tools see them
fft = _make_1d("fft")
ifft = _make_1d("ifft")
rfft = _make_1d("rfft")
irfft = _make_1d("irfft")
hfft = _make_1d("hfft")
ihfft = _make_1d("ihfft")
fft2 = _make_nd("fft", True)
ifft2 = _make_nd("ifft", True)
rfft2 = _make_nd("rfft", True)
irfft2 = _make_nd("irfft", True)
hfft2 = _make_nd("hfft", True)
ihfft2 = _make_nd("ihfft", True)
fftn = _make_nd("fft", False)
ifftn = _make_nd("ifft", False)
rfftn = _make_nd("rfft", False)
irfftn = _make_nd("irfft", False)
hfftn = _make_nd("hfft", False)
ihfftn = _make_nd("ihfft", False)


# -- helpers ---------------------------------------------------------------------------

def _freq(op, values, n, d, dtype, out, device, requires_grad):
    if not _is_int(n):
        raise TypeError(f"{op}: n must be an int, got {type(n).__name__}")
    if isinstance(d, Tensor):
        d = d.item()
    if not isinstance(d, numbers.Real) or isinstance(d, bool):
        raise TypeError(f"{op}: d must be a real number, got {type(d).__name__}")
    if n * d == 0:
        raise ValueError(f"{op}: d or n should not be 0.")
    if n < 0:
        raise ValueError(f"{op}: n must be positive, got {n}")
    dt = dtype_arg(dtype, op, np.dtype(_dt.get_default_dtype()))
    if dt.kind not in "fc":
        raise UnsupportedDtypeError(f"{op}: dtype must be a float or complex dtype, got "
                                    f"{dt.name}")
    t = to_tensor(values(int(n), float(d)).astype(dt), place=device,
                  stop_gradient=not requires_grad)
    if out is None:
        return t
    return _finish(t, out, op)


def fftfreq(n, d=1.0, dtype=None, name=None, *, out=None, device=None, requires_grad=False):
    """The sample frequencies of an ``n``-point FFT with sample spacing ``d``:
    ``[0, 1, ..., ceil(n/2) - 1, -floor(n/2), ..., -1] / (n * d)`` (as numpy.fft.fftfreq),
    in ``dtype`` (default: the default float dtype), on ``device``.

    >>> import weft
    >>> weft.fft.fftfreq(4, d=0.5).tolist()
    [0.0, 0.5, -1.0, -0.5]
    """
    return _freq("fftfreq", np.fft.fftfreq, n, d, dtype, out, device, requires_grad)


def rfftfreq(n, d=1.0, dtype=None, name=None, *, out=None, device=None, requires_grad=False):
    """The non-negative sample frequencies ``[0, 1, ..., n // 2] / (n * d)`` of an
    ``n``-point real FFT (as numpy.fft.rfftfreq).

    >>> import weft
    >>> weft.fft.rfftfreq(5).tolist()
    [0.0, 0.20000000298023224, 0.4000000059604645]
    """
    return _freq("rfftfreq", np.fft.rfftfreq, n, d, dtype, out, device, requires_grad)


def _shift(op, x, axes, sign):
    x = tensor_arg(x, "x", op)
    if axes is None:
        axes = list(range(x.ndim))
    elif _is_int(axes):
        axes = [axes]
    else:
        lst = _as_list(axes)
        if lst is None or not all(_is_int(a) for a in lst):
            raise TypeError(f"{op}: axes must be None, an int or a sequence of ints, got "
                            f"{axes!r}")
        axes = lst
    for a in axes:
        if not -x.ndim <= a < x.ndim:
            raise ValueError(f"{op}: axis {a} is out of range for a tensor with {x.ndim} "
                             f"dimension(s)")
    if not axes:
        return assign(x)
    shifts = [sign * (x.shape[a] // 2) for a in axes]
    return roll(x, shifts, [int(a) for a in axes])


@_aliases("axes")
def fftshift(x, axes=None, name=None):
    """Move the zero-frequency bin to the centre: roll each of ``axes`` (default: all) by
    half its length, as numpy.fft.fftshift. Differentiable.

    >>> import weft
    >>> weft.fft.fftshift(weft.fft.fftfreq(5)).tolist()
    [-0.4000000059604645, -0.20000000298023224, 0.0, 0.20000000298023224, 0.4000000059604645]
    """
    return _shift("fftshift", x, axes, 1)


@_aliases("axes")
def ifftshift(x, axes=None, name=None):
    """The inverse of :func:`fftshift` (rolls back by half of each length, odd lengths
    included), as numpy.fft.ifftshift. Differentiable.

    >>> import weft
    >>> weft.fft.ifftshift(weft.to_tensor([3, 4, 0, 1, 2])).tolist()
    [0, 1, 2, 3, 4]
    """
    return _shift("ifftshift", x, axes, -1)


__all__ = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fft2", "ifft2", "rfft2",
           "irfft2", "hfft2", "ihfft2", "fftn", "ifftn", "rfftn", "irfftn", "hfftn", "ihfftn",
           "fftfreq", "rfftfreq", "fftshift", "ifftshift"]
