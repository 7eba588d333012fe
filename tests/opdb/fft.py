"""OpInfo entries for weft.fft (weft/fft): the 18 transforms, each with samples over
the three norms, n / s larger and smaller than the axis, non-last and reordered axes;
the reference is scipy.fft. The shifts are differentiable too; the frequency helpers
have no tensor input (tests/fft/test_fft.py checks them)."""
import numpy as np
import scipy.fft as sfft

import weft
from tests.opinfo import COMPLEX, FLOATS, FLOAT_AND_COMPLEX, ALL, ErrorInput, OpInfo, \
    SampleInput, make_arg

_NORMS = ("backward", "forward", "ortho")


def _samples_1d(kind):
    def gen(dtype, rng):
        x = make_arg((3, 6), dtype, rng)
        for norm in _NORMS:
            yield SampleInput(x, norm=norm, name=f"norm={norm}")
        yield SampleInput(x, n=9, norm="ortho", name="n pads")
        yield SampleInput(x, n=4, norm="forward", name="n crops")
        yield SampleInput(make_arg((5, 2), dtype, rng), n=5 if kind == "c2r" else None,
                          axis=0, name="axis=0, odd")
        yield SampleInput(make_arg((0, 4), dtype, rng), name="empty batch")
        yield SampleInput(make_arg((2, 8), dtype, rng, noncontig=True), axis=-1,
                          name="noncontig")
    return gen


def _samples_nd(kind, two_d):
    def gen(dtype, rng):
        x = make_arg((2, 3, 4), dtype, rng)
        for norm in _NORMS:
            yield SampleInput(x, norm=norm, name=f"norm={norm}")
        yield SampleInput(x, s=[5, 3], norm="ortho", name="s pads and crops")
        yield SampleInput(x, axes=[-1, 0], norm="forward", name="reordered axes")
        yield SampleInput(x, s=[3, 5], axes=(0, 2), name="s with non-last axes")
        if not two_d:
            yield SampleInput(x, s=[4, 2], name="s without axes: the last len(s)")
            yield SampleInput(make_arg((3, 5), dtype, rng), name="all axes")
            yield SampleInput(x, axes=[1], name="one axis")
    return gen


def _errors_1d(op, kind):
    def gen(rng):
        x = make_arg((2, 4), "float64", rng)
        yield ErrorInput(SampleInput(x, n=2.5), ValueError, r"Invalid FFT argument n\(2.5\)")
        yield ErrorInput(SampleInput(x, n=0), ValueError, "it should be positive")
        yield ErrorInput(SampleInput(x, axis=(0, 1)), ValueError,
                         r"Invalid FFT axis \(\(0, 1\)\), it should be an integer")
        yield ErrorInput(SampleInput(x, axis=2), ValueError, r"should be in range \[-2, 2\)")
        yield ErrorInput(SampleInput(np.array(1.0)), ValueError, "Invalid FFT axis")
        yield ErrorInput(SampleInput(x, norm="none"), ValueError, "Unexpected norm")
        yield ErrorInput(SampleInput(x, norm=None), ValueError, "Unexpected norm")
        yield ErrorInput(SampleInput(x > 0), TypeError, "dtype bool")
        if kind == "r2c":
            yield ErrorInput(SampleInput(x.astype("complex128")), RuntimeError, "real input")
    return gen


def _errors_nd(op, kind, two_d):
    def gen(rng):
        x = make_arg((2, 3, 4), "float64", rng)
        yield ErrorInput(SampleInput(x, s=[-1, 3]), ValueError,
                         r"FFT sizes \[-1, 3\] contains invalid value \(-1\)")
        yield ErrorInput(SampleInput(x, s=[2, 2.5]), ValueError, "contains invalid value")
        yield ErrorInput(SampleInput(x, axes=[0, 3]), ValueError,
                         r"FFT axes \[0, 3\] contains invalid value \(3\)")
        yield ErrorInput(SampleInput(x, axes=[1, 1]), ValueError, "repeated axis")
        yield ErrorInput(SampleInput(x, norm=None), ValueError, "Unexpected norm")
        yield ErrorInput(SampleInput(x.astype(bool)), TypeError, "dtype bool")
        if kind == "r2c":
            yield ErrorInput(SampleInput(x.astype("complex64")), ValueError, "real input")
        if two_d:
            yield ErrorInput(SampleInput(x, s=3), ValueError,
                             r"Invalid FFT argument s\(3\), it should be a sequence of 2")
            yield ErrorInput(SampleInput(x, axes=(0, 1, 2)), ValueError,
                             r"axes\(\(0, 1, 2\)\), it should be a sequence of 2 integers")
            yield ErrorInput(SampleInput(x[0, 0]), ValueError,
                             r"The rank of the input \(1\) should >= 2")
            yield ErrorInput(SampleInput(x, s=[3, 4], axes=[1]), ValueError,
                             "sequence of 2 integers")
        else:
            yield ErrorInput(SampleInput(x, s=[3], axes=[0, 1]), ValueError,
                             r"Length of s \(1\) and length of axes \(2\) does not match")
            yield ErrorInput(SampleInput(x, axes=[]), ValueError, "empty")
            yield ErrorInput(SampleInput(x, s=[1, 2, 3, 4]), ValueError, "invalid value")
            yield ErrorInput(SampleInput(x, axes=3), ValueError, "contains invalid value")
    return gen


def _ref(name):
    f = getattr(sfft, name)
    return lambda x, **kw: f(x, **kw)


_KIND = {"fft": "c2c", "ifft": "c2c", "rfft": "r2c", "ihfft": "r2c", "irfft": "c2r",
         "hfft": "c2r"}
_DTYPES = {"c2c": FLOAT_AND_COMPLEX, "r2c": FLOATS, "c2r": FLOAT_AND_COMPLEX}

OPS = []
for _base, _kind in _KIND.items():
    OPS.append(OpInfo(f"fft.{_base}", getattr(weft.fft, _base), _ref(_base),
                      _samples_1d(_kind), dtypes=_DTYPES[_kind],
                      error_inputs=_errors_1d(_base, _kind)))
    for _two in (True, False):
        _name = _base + ("2" if _two else "n")
        OPS.append(OpInfo(f"fft.{_name}", getattr(weft.fft, _name), _ref(_name),
                          _samples_nd(_kind, _two), dtypes=_DTYPES[_kind],
                          error_inputs=_errors_nd(_name, _kind, _two)))


def _shift_samples(dtype, rng):
    yield SampleInput(make_arg((5,), dtype, rng), name="1-D odd")
    yield SampleInput(make_arg((4, 5), dtype, rng), name="2-D, all axes")
    yield SampleInput(make_arg((4, 5, 3), dtype, rng), axes=1, name="int axes")
    yield SampleInput(make_arg((4, 5, 3), dtype, rng), axes=(-1, 0), name="axes sequence")
    yield SampleInput(make_arg((), dtype, rng), name="0-D")
    yield SampleInput(make_arg((0, 3), dtype, rng), name="empty")


def _shift_ref(name):
    f = getattr(np.fft, name)
    # numpy's shifts fail on 0-D input (nothing to roll there); weft returns a copy
    return lambda x, **kw: x.copy() if x.ndim == 0 else f(x, **kw)


for _name in ("fftshift", "ifftshift"):
    OPS.append(OpInfo(f"fft.{_name}", getattr(weft.fft, _name), _shift_ref(_name),
                      _shift_samples, dtypes=ALL))
del _base, _kind, _two, _name, COMPLEX
