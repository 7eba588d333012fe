"""OpInfo entries for the weft.linalg functions built from other ops
(weft/linalg/_composite.py): matrix_transpose, vecdot, matrix_power, cholesky_solve,
cholesky_inverse, against numpy."""
import numpy as np

import weft
from tests.opinfo import (ALL_NUMERIC, COMPLEX, FLOAT_AND_COMPLEX, ErrorInput, OpInfo,
                          SampleInput, make_arg)


def _a(shape, dtype, rng):
    return make_arg(shape, dtype, rng, -1.0, 1.0)


def _wc(shape, dtype, rng):
    n = shape[-1]
    return (make_arg(shape, dtype, rng, -1.0, 1.0) + n * np.eye(n)).astype(dtype)


def _mH(a):
    return np.conj(np.swapaxes(a, -1, -2))


def _transpose_samples(dtype, rng):
    for shape in ((2, 3), (2, 3, 4), (1, 2, 1, 3), (0, 3), (2, 0, 1)):
        yield SampleInput(make_arg(shape, dtype, rng), name=str(shape))


def _transpose_errors(rng):
    yield ErrorInput(SampleInput(_a((3,), "float64", rng)), ValueError,
                     "matrix_transpose: x must be at least 2-D")


def _vecdot_samples(dtype, rng):
    yield SampleInput(make_arg((3,), dtype, rng), make_arg((3,), dtype, rng), name="1-D")
    yield SampleInput(make_arg((2, 3), dtype, rng), make_arg((3,), dtype, rng),
                      name="broadcast")
    yield SampleInput(make_arg((2, 3), dtype, rng), make_arg((4, 1, 3), dtype, rng),
                      name="broadcast both")
    yield SampleInput(make_arg((3, 2), dtype, rng), make_arg((3, 2), dtype, rng), axis=0,
                      name="axis 0")
    yield SampleInput(make_arg((2, 0), dtype, rng), make_arg((2, 0), dtype, rng),
                      name="empty")


def _ref_vecdot(x, y, axis=-1):
    return np.sum(np.conj(x) * y, axis=axis)


def _vecdot_errors(rng):
    f = "float64"
    yield ErrorInput(SampleInput(_a((2, 3), f, rng), _a((2, 4), f, rng)), ValueError,
                     r"vecdot: the shapes of x \[2, 3\] and y \[2, 4\] do not broadcast")


def _power_samples(dtype, rng):
    for n in (0, 1, 2, 3, 5, -1, -2):
        yield SampleInput(_wc((2, 3, 3), dtype, rng) / 3, n, name=f"n={n}")
    yield SampleInput(_wc((0, 2, 2), dtype, rng), 3, name="empty batch")
    yield SampleInput(_wc((0, 0), dtype, rng), -2, name="empty matrix")


def _power_errors(rng):
    f = "float64"
    yield ErrorInput(SampleInput(_wc((2, 2), f, rng), 2.5), TypeError,
                     "matrix_power: n must be a Python int")
    yield ErrorInput(SampleInput(_a((2, 3), f, rng), 2), ValueError,
                     "matrix_power: x must be a batch of square matrices")
    yield ErrorInput(SampleInput(np.zeros((2, 2)), -1), ValueError, "Input is not invertible")


def _ref_chol_solve(b, c, upper=False):
    a = _mH(c) @ c if upper else c @ _mH(c)
    return np.linalg.solve(a, b)


def _chol_solve_samples(dtype, rng):
    # the factor's unused triangle holds random values: it must not be read
    yield SampleInput(_a((3, 2), dtype, rng), _wc((3, 3), dtype, rng), name="lower")
    yield SampleInput(_a((2, 3, 1), dtype, rng), _wc((2, 3, 3), dtype, rng), upper=True,
                      name="upper batch")
    yield SampleInput(_a((3, 2), dtype, rng), _wc((2, 1, 3, 3), dtype, rng),
                      name="broadcast")
    yield SampleInput(_a((0, 2), dtype, rng), _wc((0, 0), dtype, rng), name="empty")


def _ref_chol_solve_read(b, c, upper=False):
    return _ref_chol_solve(b, np.triu(c) if upper else np.tril(c), upper)


def _chol_solve_errors(rng):
    f = "float64"
    yield ErrorInput(SampleInput(_a((3,), f, rng), _wc((3, 3), f, rng)), ValueError,
                     "cholesky_solve: the rank of input x must be greater than or equal to 2")
    yield ErrorInput(SampleInput(_a((2, 1), f, rng), _wc((3, 3), f, rng)), ValueError,
                     "cholesky_solve: x must have 3 rows")
    yield ErrorInput(SampleInput(np.ones((2, 1), np.int64), np.eye(2, dtype=np.int64)),
                     weft.UnsupportedDtypeError, "cholesky_solve: y has dtype int64")


def _chol_inv_samples(dtype, rng):
    yield SampleInput(_wc((3, 3), dtype, rng), name="lower")
    yield SampleInput(_wc((2, 3, 3), dtype, rng), upper=True, name="upper batch")
    yield SampleInput(_wc((0, 0), dtype, rng), name="empty")


def _ref_chol_inv(c, upper=False):
    c = np.triu(c) if upper else np.tril(c)
    return np.linalg.inv(_mH(c) @ c if upper else c @ _mH(c))


def _chol_inv_errors(rng):
    yield ErrorInput(SampleInput(_a((2, 3), "float64", rng)), ValueError,
                     "cholesky_inverse: x must be a batch of square matrices")


OPS = [
    OpInfo("linalg.matrix_transpose", weft.linalg.matrix_transpose,
           lambda x: np.swapaxes(x, -1, -2), _transpose_samples,
           dtypes=ALL_NUMERIC + COMPLEX, error_inputs=_transpose_errors),
    OpInfo("linalg.vecdot", weft.linalg.vecdot, _ref_vecdot, _vecdot_samples,
           dtypes=ALL_NUMERIC + COMPLEX, error_inputs=_vecdot_errors),
    OpInfo("linalg.matrix_power", weft.linalg.matrix_power, np.linalg.matrix_power,
           _power_samples, dtypes=FLOAT_AND_COMPLEX, error_inputs=_power_errors),
    OpInfo("linalg.cholesky_solve", weft.linalg.cholesky_solve, _ref_chol_solve_read,
           _chol_solve_samples, dtypes=FLOAT_AND_COMPLEX, error_inputs=_chol_solve_errors),
    OpInfo("linalg.cholesky_inverse", weft.linalg.cholesky_inverse, _ref_chol_inv,
           _chol_inv_samples, dtypes=FLOAT_AND_COMPLEX, error_inputs=_chol_inv_errors),
]
