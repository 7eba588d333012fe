"""OpInfo entries for weft/ops/elementwise.py and the in-place method family.

In-place variants run on ``x * 1`` (a non-leaf copy of the sample), so the generic
gradient checks differentiate through the in-place update itself; their Tensor
binding is tested in tests/ops/test_elementwise.py (the method mutates its input,
which the generic method check cannot compare).
"""
import numpy as np
import scipy.special as sps

import weft
from tests.opinfo import (ALL_NUMERIC, COMPLEX, FLOAT_AND_COMPLEX, FLOATS, INTS, ErrorInput,
                          OpInfo, SampleInput, binary_samples, make_arg, unary_samples)


def _binary_errors(rng):
    yield ErrorInput(SampleInput(make_arg((3,), "float32", rng), make_arg((4,), "float32", rng)),
                     ValueError, "broadcast|shape")
    yield ErrorInput(SampleInput(make_arg((3,), "float32", rng), "abc"), TypeError, "must be")


def _real_binary_errors(name):
    def gen(rng):
        yield from _binary_errors(rng)
        yield ErrorInput(SampleInput(make_arg((3,), "complex64", rng),
                                     make_arg((3,), "float32", rng)),
                         TypeError, f"{name}: x must be a real tensor")
    return gen


def _binary(name, ref, dtypes=FLOATS, low=-3.0, high=3.0, errors=None, **kw):
    return OpInfo(name, getattr(weft, name), ref, binary_samples(low, high), dtypes=dtypes,
                  method=name, error_inputs=errors or _real_binary_errors(name), **kw)


# ---------------------------------------------------------------------------------
# sample generators of the ops with extra arguments

def _float_power_samples(dtype, rng):
    # positive bases (integer ones from 1 up, so that negative exponents stay finite)
    lo = 1.0 if np.dtype(dtype).kind in "iu" else 0.5

    def base(s, **kw):
        return make_arg(s, dtype, rng, lo, 2.0, **kw)

    yield SampleInput(base((3, 4)), make_arg((4,), dtype, rng, -2.0, 2.0), name="broadcast")
    yield SampleInput(base((5,)), 2, name="int exponent")
    yield SampleInput(base(()), 0.5, name="0-D")
    yield SampleInput(base((0, 2)), make_arg((2,), dtype, rng), name="empty")
    yield SampleInput(base((2, 3), noncontig=True), make_arg((2, 3), dtype, rng, -1.0, 1.0),
                      name="noncontig")


def _clip_samples(dtype, rng):
    ints = np.dtype(dtype).kind in "iu"
    lo, hi = (-1, 2) if ints else (-1.0, 1.5)
    yield SampleInput(make_arg((3, 4), dtype, rng), min=lo, max=hi, name="both")
    yield SampleInput(make_arg((5,), dtype, rng), min=lo, name="min only")
    yield SampleInput(make_arg((5,), dtype, rng), max=hi, name="max only")
    yield SampleInput(make_arg((5,), dtype, rng), name="no bounds")
    yield SampleInput(make_arg((), dtype, rng), min=lo, max=hi, name="0-D")
    yield SampleInput(make_arg((0, 3), dtype, rng), min=lo, max=hi, name="empty")
    yield SampleInput(make_arg((2, 3), dtype, rng, noncontig=True), min=lo, max=hi,
                      name="noncontig")
    yield SampleInput(make_arg((4,), dtype, rng), min=np.array(lo, dtype=dtype),
                      max=np.array([hi], dtype=dtype), name="array bounds")


def _clip_ref(x, min=None, max=None):
    if min is None and max is None:
        return x.copy()
    lo = None if min is None else np.asarray(min).item()
    hi = None if max is None else np.asarray(max).item()
    return np.clip(x, lo, hi).astype(x.dtype)


def _clip_errors(rng):
    x = make_arg((3,), "float32", rng)
    yield ErrorInput(SampleInput(x, min="a"), TypeError, "clip: min must be a number")
    yield ErrorInput(SampleInput(x, max=np.ones(2)), ValueError,
                     "clip: max must be a number or a one-element Tensor")
    yield ErrorInput(SampleInput(make_arg((3,), "complex64", rng), 0.0), TypeError, "real")
    yield ErrorInput(SampleInput(make_arg((3,), "int32", rng), min=float("nan")), ValueError,
                     "NaN")


def _frac_ref(x):
    if x.dtype.kind in "iu":
        return np.zeros_like(x)
    return (x - np.trunc(x)).astype(x.dtype)


def _lerp_samples(dtype, rng):
    def a(s, **kw):
        return make_arg(s, dtype, rng, **kw)

    yield SampleInput(a((3, 4)), a((3, 4)), 0.3, name="scalar weight")
    yield SampleInput(a((3, 4)), a((4,)), make_arg((3, 1), dtype, rng, 0.0, 1.0),
                      name="broadcast")
    yield SampleInput(a(()), a(()), make_arg((), dtype, rng, 0.0, 1.0), name="0-D")
    yield SampleInput(a((0, 2)), a((2,)), 0.5, name="empty")
    yield SampleInput(a((2, 3), noncontig=True), a((2, 3)), a((2, 3), noncontig=True),
                      name="noncontig")


def _lerp_errors(rng):
    x = make_arg((3,), "float32", rng)
    yield ErrorInput(SampleInput(x, x, "a"), TypeError, "lerp: weight must be a number")
    yield ErrorInput(SampleInput(x, make_arg((4,), "float32", rng), 0.5), ValueError,
                     "broadcast")


def _xlogy_samples(dtype, rng):
    yield SampleInput(make_arg((3, 4), dtype, rng), make_arg((4,), dtype, rng, 0.2, 3.0),
                      name="broadcast")
    yield SampleInput(make_arg((5,), dtype, rng), make_arg((5,), dtype, rng, 0.2, 3.0),
                      name="same")
    # x == 0 gives 0 even where y == 0; y > 0 keeps the gradient defined
    yield SampleInput(np.zeros(3, dtype), np.array([0.0, 1.0, 2.0], dtype), grad_args=(),
                      name="x=0")
    yield SampleInput(np.zeros(3, dtype), np.array([0.5, 1.0, 2.0], dtype), name="x=0, y>0")
    yield SampleInput(make_arg((), dtype, rng), make_arg((), dtype, rng, 0.2, 3.0), name="0-D")
    yield SampleInput(make_arg((0, 3), dtype, rng), make_arg((3,), dtype, rng, 0.2, 3.0),
                      name="empty")
    yield SampleInput(make_arg((4,), dtype, rng), 2.5, name="scalar y")


def _nan_to_num_samples(dtype, rng):
    a = make_arg((3, 4), dtype, rng)
    a[0, 0], a[1, 1], a[2, 2] = np.nan, np.inf, -np.inf
    # forward only: a numerical derivative cannot perturb inf or NaN
    yield SampleInput(a, grad_args=(), name="nonfinite")
    yield SampleInput(a.copy(), nan=1.0, posinf=9.0, neginf=-9.0, grad_args=(),
                      name="replacements")
    yield SampleInput(make_arg((5,), dtype, rng), name="finite")
    yield SampleInput(np.array(np.nan, dtype), nan=2.0, grad_args=(), name="0-D nan")
    yield SampleInput(make_arg((), dtype, rng), name="0-D")
    yield SampleInput(make_arg((0, 3), dtype, rng), name="empty")
    yield SampleInput(make_arg((2, 3), dtype, rng, noncontig=True), name="noncontig")


def _nan_to_num_errors(rng):
    x = make_arg((3,), "float32", rng)
    yield ErrorInput(SampleInput(x, nan="a"), TypeError, "nan_to_num: nan must be a number")
    yield ErrorInput(SampleInput(x, posinf=[1.0]), TypeError, "posinf must be a number")
    yield ErrorInput(SampleInput(make_arg((3,), "complex64", rng)), TypeError, "real")


def _scale_samples(dtype, rng):
    yield SampleInput(make_arg((3, 4), dtype, rng), scale=2.0, bias=1.0, name="after")
    yield SampleInput(make_arg((3, 4), dtype, rng), scale=-0.5, bias=2.0,
                      bias_after_scale=False, name="before")
    yield SampleInput(make_arg((), dtype, rng), scale=3.0, name="0-D")
    yield SampleInput(make_arg((0, 2), dtype, rng), scale=3.0, name="empty")
    yield SampleInput(make_arg((2, 3), dtype, rng, noncontig=True), 1.5, 0.5, name="noncontig")


def _scale_ref(x, scale=1.0, bias=0.0, bias_after_scale=True):
    r = x * scale + bias if bias_after_scale else (x + bias) * scale
    return np.asarray(r).astype(x.dtype)


def _scale_errors(rng):
    x = make_arg((3,), "float32", rng)
    yield ErrorInput(SampleInput(x, scale="a"), TypeError, "scale: scale must be a number")
    yield ErrorInput(SampleInput(x, act="gelu"), ValueError, "scale: act must be None")
    yield ErrorInput(SampleInput(make_arg((3,), "bool", rng)), TypeError, "bool")


def _polar_ref(a, t):
    z = a * np.exp(1j * t)
    return z.astype(np.result_type(a.dtype, np.complex64))


def _complex_errors(rng):
    c = make_arg((3,), "complex64", rng)
    yield ErrorInput(SampleInput(c, c.real.copy()), TypeError, "complex: real must be a real")
    yield ErrorInput(SampleInput(make_arg((3,), "float32", rng),
                                 make_arg((2,), "float32", rng)), ValueError, "broadcast")


ELEMENTWISE = [
    OpInfo("float_power", weft.float_power, np.float_power, _float_power_samples,
           dtypes=INTS + FLOAT_AND_COMPLEX),
    _binary("atan2", np.arctan2, dtypes=INTS + FLOATS),
    _binary("fmax", np.fmax, dtypes=ALL_NUMERIC),
    _binary("fmin", np.fmin, dtypes=ALL_NUMERIC),
    OpInfo("clip", weft.clip, _clip_ref, _clip_samples, dtypes=ALL_NUMERIC, method="clip",
           error_inputs=_clip_errors),
    OpInfo("frac", weft.frac, _frac_ref, unary_samples(), dtypes=INTS + FLOATS, method="frac"),
    _binary("hypot", np.hypot),
    OpInfo("lerp", weft.lerp, lambda x, y, w: np.asarray(x + w * (y - x)).astype(x.dtype),
           _lerp_samples, dtypes=FLOAT_AND_COMPLEX, method="lerp", error_inputs=_lerp_errors),
    _binary("logaddexp", np.logaddexp),
    OpInfo("xlogy", weft.xlogy, lambda x, y: np.asarray(sps.xlogy(x, y)).astype(x.dtype),
           _xlogy_samples, dtypes=FLOATS, method="xlogy",
           error_inputs=_real_binary_errors("xlogy")),
    OpInfo("nan_to_num", weft.nan_to_num, np.nan_to_num, _nan_to_num_samples, dtypes=FLOATS,
           method="nan_to_num", error_inputs=_nan_to_num_errors),
    OpInfo("deg2rad", weft.deg2rad, np.deg2rad, unary_samples(-360.0, 360.0), dtypes=FLOATS,
           method="deg2rad"),
    OpInfo("rad2deg", weft.rad2deg, np.rad2deg, unary_samples(), dtypes=FLOATS,
           method="rad2deg"),
    OpInfo("complex", weft.complex,
           lambda re, im: (re + 1j * im).astype(np.result_type(re.dtype, np.complex64)),
           binary_samples(scalar_rhs=False), dtypes=FLOATS, error_inputs=_complex_errors),
    OpInfo("polar", weft.polar, _polar_ref, binary_samples(0.1, 3.0), dtypes=FLOATS),
    OpInfo("scale", weft.scale, _scale_ref, _scale_samples, dtypes=ALL_NUMERIC, method="scale",
           error_inputs=_scale_errors),
]


# ---------------------------------------------------------------------------------
# in-place variants, differentiated through the update of a non-leaf copy

def _ip(name):
    fn = getattr(weft, name)

    def op(x, *args, **kwargs):
        return fn(x * 1, *args, **kwargs)
    op.__name__ = name
    return op


def _ip_binary_samples(low=-3.0, high=3.0, exclude_zero_rhs=False, rlow=None, rhigh=None):
    """Binary samples whose second operand broadcasts to the (updated) first one."""
    rlow = low if rlow is None else rlow
    rhigh = high if rhigh is None else rhigh

    def gen(dtype, rng):
        def rhs(s):
            return make_arg(s, dtype, rng, rlow, rhigh, exclude_zero=exclude_zero_rhs)

        yield SampleInput(make_arg((3, 4), dtype, rng, low, high), rhs((4,)), name="broadcast")
        yield SampleInput(make_arg((4,), dtype, rng, low, high), rhs((4,)), name="same")
        yield SampleInput(make_arg((), dtype, rng, low, high), rhs(()), name="0-D")
        yield SampleInput(make_arg((2, 3), dtype, rng, low, high, noncontig=True), rhs((2, 3)),
                          name="noncontig")
    return gen


def _ip_unary(name, ref, low=-3.0, high=3.0, dtypes=FLOATS, exclude_zero=False, **kw):
    return OpInfo(name, _ip(name), ref, unary_samples(low, high, exclude_zero,
                                                      shapes=[(3, 4)]), dtypes=dtypes, **kw)


def _ip_binary(name, ref, dtypes=FLOATS, **kw):
    sample_kw = {k: kw.pop(k) for k in ("low", "high", "exclude_zero_rhs", "rlow", "rhigh")
                 if k in kw}
    return OpInfo(name, _ip(name), ref, _ip_binary_samples(**sample_kw), dtypes=dtypes, **kw)


def _ip_like(name, base, **kw):
    """An in-place twin reusing the samples and reference of the out-of-place entry."""
    return OpInfo(name, _ip(name), base.ref, base.sample_inputs,
                  dtypes=kw.pop("dtypes", base.dtypes), **kw)


_BY_NAME = {o.name: o for o in ELEMENTWISE}
_step = {"supports_gradgrad": False}

INPLACE = [
    _ip_binary("add_", np.add, dtypes=INTS + FLOAT_AND_COMPLEX),
    _ip_binary("subtract_", np.subtract, dtypes=INTS + FLOATS),
    _ip_binary("multiply_", np.multiply, dtypes=INTS + FLOAT_AND_COMPLEX),
    _ip_binary("divide_", np.true_divide, exclude_zero_rhs=True, dtypes=FLOAT_AND_COMPLEX),
    _ip_binary("floor_divide_", np.floor_divide, exclude_zero_rhs=True, dtypes=INTS + FLOATS,
               **_step),
    _ip_binary("remainder_", np.remainder, exclude_zero_rhs=True, dtypes=INTS + FLOATS),
    _ip_binary("mod_", np.remainder, exclude_zero_rhs=True, dtypes=FLOATS),
    _ip_binary("floor_mod_", np.remainder, exclude_zero_rhs=True, dtypes=FLOATS),
    _ip_binary("pow_", np.power, low=0.5, high=2.0, rlow=-2.0, rhigh=2.0),
    _ip_binary("hypot_", np.hypot),
    _ip_unary("neg_", np.negative, dtypes=INTS + FLOATS),
    _ip_unary("exp_", np.exp, dtypes=FLOAT_AND_COMPLEX),
    _ip_unary("expm1_", np.expm1),
    _ip_unary("log_", np.log, 0.1, 3.0), _ip_unary("log1p_", np.log1p, -0.9, 3.0),
    _ip_unary("log2_", np.log2, 0.1, 3.0), _ip_unary("log10_", np.log10, 0.1, 3.0),
    _ip_unary("sqrt_", np.sqrt, 0.1, 3.0, dtypes=FLOAT_AND_COMPLEX),
    _ip_unary("rsqrt_", lambda x: 1 / np.sqrt(x), 0.1, 3.0),
    _ip_unary("square_", np.square, dtypes=INTS + FLOATS),
    _ip_unary("reciprocal_", np.reciprocal, exclude_zero=True),
    _ip_unary("abs_", np.abs, dtypes=INTS + FLOATS, exclude_zero=True),
    _ip_unary("sin_", np.sin, dtypes=FLOAT_AND_COMPLEX), _ip_unary("cos_", np.cos),
    _ip_unary("tan_", np.tan, -1.2, 1.2),
    _ip_unary("asin_", np.arcsin, -0.9, 0.9), _ip_unary("acos_", np.arccos, -0.9, 0.9),
    _ip_unary("atan_", np.arctan),
    _ip_unary("sinh_", np.sinh), _ip_unary("cosh_", np.cosh), _ip_unary("tanh_", np.tanh),
    _ip_unary("asinh_", np.arcsinh), _ip_unary("acosh_", np.arccosh, 1.1, 3.0),
    _ip_unary("atanh_", np.arctanh, -0.9, 0.9),
    _ip_unary("sigmoid_", sps.expit),
    _ip_unary("floor_", np.floor, **_step), _ip_unary("ceil_", np.ceil, **_step),
    _ip_unary("round_", np.round, **_step), _ip_unary("trunc_", np.trunc, **_step),
    _ip_like("clip_", _BY_NAME["clip"]),
    _ip_like("scale_", _BY_NAME["scale"]),
    _ip_like("frac_", _BY_NAME["frac"], dtypes=FLOATS),
    _ip_like("lerp_", _BY_NAME["lerp"], dtypes=FLOATS),
    _ip_like("nan_to_num_", _BY_NAME["nan_to_num"]),
    OpInfo("zero_", _ip("zero_"), np.zeros_like, unary_samples(shapes=[(3, 4)]),
           dtypes=ALL_NUMERIC + COMPLEX),
    OpInfo("fill_", _ip("fill_"), lambda x, v: np.full_like(x, v),
           lambda dtype, rng: [SampleInput(make_arg((3, 4), dtype, rng), 2, name="int value"),
                               SampleInput(make_arg((), dtype, rng), 7, name="0-D")],
           dtypes=ALL_NUMERIC),
]

OPS = ELEMENTWISE + INPLACE
