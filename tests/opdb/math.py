"""OpInfo entries for weft/ops/math.py (arithmetic and elementary functions)."""
import numpy as np
import scipy.special as sps

import weft
from tests.opinfo import (ALL_NUMERIC, COMPLEX, FLOAT_AND_COMPLEX, FLOATS, INTS, ErrorInput,
                          OpInfo, SampleInput, binary_samples, make_arg, unary_samples)


def _binary_errors(op):
    def gen(rng):
        yield ErrorInput(SampleInput(make_arg((3,), "float32", rng), make_arg((4,), "float32", rng)),
                         ValueError, "broadcast|shape")
        yield ErrorInput(SampleInput(make_arg((3,), "float32", rng), "abc"), TypeError,
                         f"{op}: y must be a Tensor")
    return gen


def _unary(name, ref, low=-3.0, high=3.0, dtypes=FLOAT_AND_COMPLEX, exclude_zero=False, **kw):
    return OpInfo(name, getattr(weft, name), ref, unary_samples(low, high, exclude_zero),
                  dtypes=dtypes, method=name, **kw)


def _binary(name, ref, dtypes=ALL_NUMERIC + COMPLEX, exclude_zero_rhs=False, **kw):
    return OpInfo(name, getattr(weft, name), ref, binary_samples(exclude_zero_rhs=exclude_zero_rhs),
                  dtypes=dtypes, method=name, error_inputs=_binary_errors(name), **kw)


def _where_samples(dtype, rng):
    c = make_arg((3, 4), "bool", rng)
    yield SampleInput(c, make_arg((3, 4), dtype, rng), make_arg((3, 4), dtype, rng), name="same",
                      grad_args=(1, 2))
    yield SampleInput(c, make_arg((4,), dtype, rng), make_arg((3, 1), dtype, rng),
                      name="broadcast", grad_args=(1, 2))
    yield SampleInput(make_arg((), "bool", rng), make_arg((), dtype, rng),
                      make_arg((), dtype, rng), name="0-D", grad_args=(1, 2))
    yield SampleInput(make_arg((0, 2), "bool", rng), make_arg((0, 2), dtype, rng),
                      make_arg((0, 2), dtype, rng), name="empty", grad_args=(1, 2))


def _where_errors(rng):
    x = make_arg((3,), "float32", rng)
    yield ErrorInput(SampleInput(make_arg((3,), "bool", rng), x, make_arg((4,), "float32", rng)),
                     ValueError, "broadcast|shape")
    yield ErrorInput(SampleInput(make_arg((3,), "bool", rng), x), ValueError, "both x and y")


OPS = [
    _binary("add", np.add),
    _binary("subtract", np.subtract),
    _binary("multiply", np.multiply),
    _binary("divide", np.true_divide, dtypes=FLOAT_AND_COMPLEX, exclude_zero_rhs=True),
    _binary("maximum", np.maximum, dtypes=ALL_NUMERIC),
    _binary("minimum", np.minimum, dtypes=ALL_NUMERIC),
    OpInfo("pow", weft.pow, np.power,
           lambda dtype, rng: [SampleInput(make_arg((3, 4), dtype, rng, 0.5, 2.0),
                                           make_arg((4,), dtype, rng, -2.0, 2.0)),
                               SampleInput(make_arg((5,), dtype, rng, 0.5, 2.0), 3,
                                           name="scalar exponent"),
                               SampleInput(make_arg((), dtype, rng, 0.5, 2.0), 0.5, name="0-D")],
           dtypes=FLOAT_AND_COMPLEX, method="pow"),
    _unary("neg", np.negative, dtypes=INTS + FLOAT_AND_COMPLEX),
    _unary("exp", np.exp),
    _unary("expm1", np.expm1, dtypes=FLOATS),
    _unary("log", np.log, 0.1, 3.0),
    _unary("log1p", np.log1p, -0.9, 3.0, dtypes=FLOATS),
    _unary("log2", np.log2, 0.1, 3.0),
    _unary("log10", np.log10, 0.1, 3.0),
    _unary("sqrt", np.sqrt, 0.1, 3.0),
    _unary("rsqrt", lambda x: 1 / np.sqrt(x), 0.1, 3.0, dtypes=FLOATS),
    _unary("square", np.square, dtypes=INTS + FLOAT_AND_COMPLEX),
    _unary("reciprocal", np.reciprocal, exclude_zero=True),
    _unary("abs", np.abs, dtypes=INTS + FLOAT_AND_COMPLEX, exclude_zero=True),
    _unary("sin", np.sin), _unary("cos", np.cos), _unary("tan", np.tan, -1.2, 1.2),
    _unary("asin", np.arcsin, -0.9, 0.9, dtypes=FLOATS),
    _unary("acos", np.arccos, -0.9, 0.9, dtypes=FLOATS),
    _unary("atan", np.arctan),
    _unary("sinh", np.sinh), _unary("cosh", np.cosh), _unary("tanh", np.tanh),
    _unary("asinh", np.arcsinh), _unary("acosh", np.arccosh, 1.1, 3.0, dtypes=FLOATS),
    _unary("atanh", np.arctanh, -0.9, 0.9, dtypes=FLOATS),
    _unary("sigmoid", sps.expit, dtypes=FLOATS),
    _unary("floor", np.floor, dtypes=FLOATS, supports_gradgrad=False),
    _unary("ceil", np.ceil, dtypes=FLOATS, supports_gradgrad=False),
    _unary("trunc", np.trunc, dtypes=FLOATS, supports_gradgrad=False),
    _unary("real", np.real, dtypes=FLOAT_AND_COMPLEX),
    _unary("imag", np.imag, dtypes=COMPLEX),
    _unary("conj", np.conj),
    _unary("angle", np.angle, dtypes=COMPLEX, exclude_zero=True, check_dtype=False),
    _unary("sign", np.sign, dtypes=INTS + FLOATS, supports_gradgrad=False),
    _unary("sgn", lambda z: np.where(z == 0, 0, z / np.where(z == 0, 1, np.abs(z))).astype(z.dtype),
           dtypes=FLOAT_AND_COMPLEX, exclude_zero=True),
    OpInfo("where", weft.where, np.where, _where_samples, dtypes=ALL_NUMERIC + COMPLEX,
           error_inputs=_where_errors),
]
