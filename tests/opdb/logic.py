"""OpInfo entries for weft/ops/logic.py: comparisons, logical and bitwise ops, float
classification, isclose/allclose/equal_all (none of them differentiable)."""
import numpy as np

import weft
from tests.opinfo import (ALL, ALL_NUMERIC, COMPLEX, FLOATS, INTS, ErrorInput, OpInfo,
                          SampleInput, make_arg)

_BOOL = (np.dtype("bool"),)


def _small(shape, dtype, rng, noncontig=False):
    """Values from a small set, so that equal elements (ties) are common."""
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return make_arg(shape, dtype, rng, noncontig=noncontig)
    a = rng.integers(-2, 3, size=shape)
    if dtype.kind == "c":
        a = a + 1j * rng.integers(-1, 2, size=shape)
    a = np.asarray(a).astype(dtype)
    if noncontig and a.ndim and a.size:
        big = np.empty(a.shape[:-1] + (a.shape[-1] * 2,), dtype)
        big[..., ::2] = a
        a = big[..., ::2]
    return a


def _cmp_samples(dtype, rng):
    yield SampleInput(_small((4,), dtype, rng), _small((4,), dtype, rng), name="same")
    yield SampleInput(_small((3, 4), dtype, rng), _small((4,), dtype, rng), name="broadcast")
    yield SampleInput(_small((3, 1), dtype, rng), _small((1, 4), dtype, rng),
                      name="broadcast both")
    yield SampleInput(_small((), dtype, rng), _small((), dtype, rng), name="0-D")
    yield SampleInput(_small((0, 4), dtype, rng), _small((4,), dtype, rng), name="empty")
    yield SampleInput(_small((2, 3), dtype, rng, noncontig=True), _small((2, 3), dtype, rng),
                      name="noncontig")
    if np.dtype(dtype) != np.bool_:
        yield SampleInput(_small((5,), dtype, rng), 1, name="scalar")


def _unary_samples(dtype, rng):
    yield SampleInput(_small((3, 4), dtype, rng), name="shape[3, 4]")
    yield SampleInput(_small((), dtype, rng), name="0-D")
    yield SampleInput(_small((0, 3), dtype, rng), name="empty")
    yield SampleInput(_small((2, 3), dtype, rng, noncontig=True), name="noncontig")


def _classify_samples(dtype, rng):
    a = make_arg((3, 4), dtype, rng)
    if np.dtype(dtype).kind in "fc":
        a[0, 0], a[1, 1], a[2, 2], a[2, 3] = np.nan, np.inf, -np.inf, 0
        if np.dtype(dtype).kind == "c":
            a[0, 1] = complex(1.0, np.nan)
            a[0, 2] = complex(np.inf, 0.0)
    yield SampleInput(a, name="specials")
    yield SampleInput(make_arg((), dtype, rng), name="0-D")
    yield SampleInput(make_arg((0, 3), dtype, rng), name="empty")
    yield SampleInput(make_arg((2, 3), dtype, rng, noncontig=True), name="noncontig")


def _close_samples(dtype, rng):
    # half the entries within the default tolerances of each other, half clearly apart
    x = make_arg((3, 4), dtype, rng)
    noise = rng.uniform(-1e-6, 1e-6, (3, 4)) * np.where(rng.random((3, 4)) < 0.5, 1, 1e5)
    y = (x + noise).astype(dtype)
    x[0, 0] = y[0, 0] = np.nan
    yield SampleInput(x, y, name="default tolerances")
    yield SampleInput(x, y, rtol=0.0, atol=1e-2, equal_nan=True, name="atol, equal_nan")
    yield SampleInput(x[1], y, name="broadcast")
    yield SampleInput(make_arg((), dtype, rng), make_arg((), dtype, rng), name="0-D")
    yield SampleInput(make_arg((0, 4), dtype, rng), make_arg((4,), dtype, rng), name="empty")


def _mismatch(op, dtype="int32"):
    def gen(rng):
        yield ErrorInput(SampleInput(_small((3,), dtype, rng), _small((4,), dtype, rng)),
                         ValueError, "broadcast|shape")
    return gen


def _bitwise_errors(name):
    def gen(rng):
        f = make_arg((3,), "float32", rng)
        i = _small((3,), "int32", rng)
        yield ErrorInput(SampleInput(f, i), TypeError, f"^{name}: x must be a bool or integer")
        yield ErrorInput(SampleInput(i, f), TypeError, f"^{name}: y must be a bool or integer")
        yield ErrorInput(SampleInput(i, _small((4,), "int32", rng)), ValueError, "broadcast")
    return gen


def _bitwise_not_errors(rng):
    yield ErrorInput(SampleInput(make_arg((3,), "float64", rng)), TypeError,
                     "bitwise_not: x must be a bool or integer")


def _close_errors(name):
    def gen(rng):
        x = make_arg((3,), "float64", rng)
        # allclose reports as "isclose:" (reported); the op name is not matched for now
        yield ErrorInput(SampleInput(x, x, rtol=-1.0), ValueError,
                         "rtol and atol must be non-negative")
        yield ErrorInput(SampleInput(x, make_arg((4,), "float64", rng)), ValueError, "broadcast")
    return gen


def _entry(name, ref, samples, dtypes, method=True, **kw):
    return OpInfo(name, getattr(weft, name), ref, samples, dtypes=dtypes,
                  method=name if method else None, supports_grad=False,
                  supports_gradgrad=False, **kw)


_ORDERED = _BOOL + ALL_NUMERIC
OPS = [
    _entry("equal", np.equal, _cmp_samples, ALL, error_inputs=_mismatch("equal")),
    _entry("not_equal", np.not_equal, _cmp_samples, ALL, error_inputs=_mismatch("not_equal")),
    _entry("less_than", np.less, _cmp_samples, _ORDERED, error_inputs=_mismatch("less_than")),
    _entry("less_equal", np.less_equal, _cmp_samples, _ORDERED,
           error_inputs=_mismatch("less_equal")),
    _entry("greater_than", np.greater, _cmp_samples, _ORDERED,
           error_inputs=_mismatch("greater_than")),
    _entry("greater_equal", np.greater_equal, _cmp_samples, _ORDERED,
           error_inputs=_mismatch("greater_equal")),
    _entry("less", np.less, _cmp_samples, FLOATS),
    _entry("greater", np.greater, _cmp_samples, FLOATS),
    _entry("logical_and", np.logical_and, _cmp_samples, ALL,
           error_inputs=_mismatch("logical_and", "bool")),
    _entry("logical_or", np.logical_or, _cmp_samples, ALL,
           error_inputs=_mismatch("logical_or", "bool")),
    _entry("logical_xor", np.logical_xor, _cmp_samples, ALL,
           error_inputs=_mismatch("logical_xor", "bool")),
    _entry("logical_not", np.logical_not, _unary_samples, ALL),
    _entry("bitwise_and", np.bitwise_and, _cmp_samples, _BOOL + INTS,
           error_inputs=_bitwise_errors("bitwise_and")),
    _entry("bitwise_or", np.bitwise_or, _cmp_samples, _BOOL + INTS,
           error_inputs=_bitwise_errors("bitwise_or")),
    _entry("bitwise_xor", np.bitwise_xor, _cmp_samples, _BOOL + INTS,
           error_inputs=_bitwise_errors("bitwise_xor")),
    _entry("bitwise_not", np.invert, _unary_samples, _BOOL + INTS,
           error_inputs=_bitwise_not_errors),
    _entry("isnan", np.isnan, _classify_samples, ALL_NUMERIC + COMPLEX),
    _entry("isinf", np.isinf, _classify_samples, ALL_NUMERIC + COMPLEX),
    _entry("isfinite", np.isfinite, _classify_samples, ALL_NUMERIC + COMPLEX),
    _entry("isclose", np.isclose, _close_samples, FLOATS + COMPLEX,
           error_inputs=_close_errors("isclose")),
    _entry("allclose", lambda x, y, **kw: np.asarray(np.allclose(x, y, **kw)), _close_samples,
           FLOATS + COMPLEX, error_inputs=_close_errors("allclose")),
    _entry("equal_all",
           lambda x, y: np.asarray(x.shape == y.shape and bool(np.array_equal(x, y))),
           lambda dtype, rng: [SampleInput(a, a.copy(), name="equal") for a in
                               [_small((3, 4), dtype, rng)]] +
           [SampleInput(_small((3, 4), dtype, rng), _small((3, 4), dtype, rng), name="differ"),
            SampleInput(_small((3,), dtype, rng), _small((4,), dtype, rng), name="shapes"),
            SampleInput(_small((), dtype, rng), _small((), dtype, rng), name="0-D")],
           ALL),
]
