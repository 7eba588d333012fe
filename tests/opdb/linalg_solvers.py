"""OpInfo entries for weft.linalg's solvers and factorisations (weft/linalg/_solvers.py):
inv, solve, triangular_solve, cholesky, det, slogdet, and matrix_exp
(weft/linalg/_expm.py), against numpy.linalg / scipy.linalg.

Matrices are well conditioned by construction (a random matrix plus n·I, or a
Hermitian one plus n·I for cholesky), so forward and gradient checks are meaningful
at the default tolerances."""
import numpy as np
import scipy.linalg as sl

import weft
from tests.opinfo import FLOAT_AND_COMPLEX, ErrorInput, OpInfo, SampleInput, square_matrix_errors
from tests.opinfo import conj_t as _mH, matrix_arg as _a, well_conditioned as _wc


_SQUARE = [((3, 3), "2-D"), ((2, 3, 3), "batch"), ((2, 1, 2, 2), "2 batch dims"),
           ((1, 1), "1x1"), ((0, 0), "empty matrix"), ((0, 2, 2), "empty batch")]


def _square_samples(dtype, rng):
    for shape, name in _SQUARE:
        yield SampleInput(_wc(shape, dtype, rng), name=name)


# ---------------------------------------------------------------------------------
# inv


def _inv_errors(rng):
    yield from square_matrix_errors("inv")(rng)
    singular = np.stack([np.eye(2), [[1.0, 2.0], [2.0, 4.0]]])
    yield ErrorInput(SampleInput(singular), ValueError,
                     r"inv: Input is not invertible \(the matrix at batch index \(1,\)")


# ---------------------------------------------------------------------------------
# solve


def _ref_solve(a, b, left=True):
    if not left:
        return np.swapaxes(np.linalg.solve(np.swapaxes(a, -1, -2), np.swapaxes(b, -1, -2)),
                           -1, -2)
    if b.ndim == 1 or (b.ndim == a.ndim - 1 and b.shape == a.shape[:-1]):
        return np.linalg.solve(a, b[..., None])[..., 0]
    return np.linalg.solve(a, b)


def _solve_samples(dtype, rng):
    yield SampleInput(_wc((3, 3), dtype, rng), _a((3, 2), dtype, rng), name="2-D")
    yield SampleInput(_wc((3, 3), dtype, rng), _a((3,), dtype, rng), name="vector")
    yield SampleInput(_wc((2, 3, 3), dtype, rng), _a((2, 3), dtype, rng), name="batch vector")
    yield SampleInput(_wc((2, 3, 3), dtype, rng), _a((3, 1), dtype, rng),
                      name="broadcast y")
    yield SampleInput(_wc((3, 3), dtype, rng), _a((2, 1, 3, 2), dtype, rng),
                      name="broadcast x")
    yield SampleInput(_wc((2, 1, 2, 2), dtype, rng), _a((3, 2, 1), dtype, rng),
                      name="broadcast both")
    yield SampleInput(_wc((2, 3, 3), dtype, rng), _a((2, 4, 3), dtype, rng), left=False,
                      name="left=False")
    yield SampleInput(_wc((0, 0), dtype, rng), _a((0, 2), dtype, rng), name="empty matrix")
    yield SampleInput(_wc((0, 2, 2), dtype, rng), _a((2, 1), dtype, rng), name="empty batch")


def _solve_errors(rng):
    f = "float64"
    yield ErrorInput(SampleInput(_a((2, 3), f, rng), _a((2, 1), f, rng)), ValueError,
                     "solve: x must be a batch of square matrices")
    yield ErrorInput(SampleInput(_wc((3, 3), f, rng), _a((2, 1), f, rng)), ValueError,
                     "solve: y must have 3 rows")
    yield ErrorInput(SampleInput(_wc((2, 2), f, rng), _a((2,), f, rng), left=False),
                     ValueError, "with left=False y must be a batch of matrices")
    yield ErrorInput(SampleInput(_wc((2, 3, 3), f, rng), _a((4, 3, 1), f, rng)), ValueError,
                     r"solve: the batch dimensions of x \[2\] and y \[4\] do not broadcast")
    yield ErrorInput(SampleInput(_wc((2, 2), f, rng), _a((2, 1), "float32", rng)), TypeError,
                     "same dtype")
    yield ErrorInput(SampleInput(np.ones((2, 2), np.int32), np.ones((2, 1), np.int32)),
                     weft.UnsupportedDtypeError, "solve: x has dtype int32")
    yield ErrorInput(SampleInput(np.zeros((3, 2, 2)), _a((2, 1), f, rng)), ValueError,
                     r"solve: Input is not invertible \(the matrix at batch index \(0,\)")


# ---------------------------------------------------------------------------------
# triangular_solve


def _ref_tri(a, b, upper=True, transpose=False, unitriangular=False):
    shape = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    n = int(np.prod(shape))
    a = np.broadcast_to(a, shape + a.shape[-2:]).reshape((n,) + a.shape[-2:])
    b = np.broadcast_to(b, shape + b.shape[-2:]).reshape((n,) + b.shape[-2:])
    out = np.stack([sl.solve_triangular(x, y, lower=not upper, trans=1 if transpose else 0,
                                        unit_diagonal=unitriangular)
                    for x, y in zip(a, b)]) if len(a) else \
        np.empty((0,) + b.shape[1:], np.result_type(a, b))
    return out.reshape(shape + out.shape[1:])


def _tri_samples(dtype, rng):
    yield SampleInput(_wc((3, 3), dtype, rng), _a((3, 2), dtype, rng), name="upper")
    yield SampleInput(_wc((3, 3), dtype, rng), _a((3, 2), dtype, rng), upper=False,
                      name="lower")
    yield SampleInput(_wc((2, 3, 3), dtype, rng), _a((3, 1), dtype, rng), transpose=True,
                      name="transpose, broadcast y")
    yield SampleInput(_wc((3, 3), dtype, rng), _a((2, 3, 2), dtype, rng), upper=False,
                      transpose=True, unitriangular=True, name="lower unit transpose")
    yield SampleInput(_a((3, 3), dtype, rng), _a((3, 2), dtype, rng), unitriangular=True,
                      name="unit upper")
    yield SampleInput(_wc((0, 0), dtype, rng), _a((0, 2), dtype, rng), name="empty matrix")
    yield SampleInput(_wc((0, 2, 2), dtype, rng), _a((2, 1), dtype, rng), name="empty batch")


def _tri_errors(rng):
    f = "float64"
    yield ErrorInput(SampleInput(_wc((3, 3), f, rng), _a((3,), f, rng)), ValueError,
                     "triangular_solve: y must be a batch of matrices")
    yield ErrorInput(SampleInput(_wc((3, 3), f, rng), _a((2, 1), f, rng)), ValueError,
                     "triangular_solve: y must have 3 rows")
    yield ErrorInput(SampleInput(np.triu(np.ones((3, 3))) - np.eye(3), _a((3, 1), f, rng)),
                     ValueError, "triangular_solve: Input is not invertible")
    yield ErrorInput(SampleInput(np.ones((2, 2), np.int64), np.ones((2, 1), np.int64)),
                     weft.UnsupportedDtypeError, "triangular_solve: x has dtype int64")


# ---------------------------------------------------------------------------------
# cholesky: the sample is any square matrix, made Hermitian positive definite inside
# the call so that gradcheck perturbs symmetrically (api-linalg.md §2.6)


def _hpd(x):
    n = x.shape[-1]
    xh = weft.conj(weft.linalg.matmul(weft.eye(n, dtype=x.dtype), x, transpose_y=True))
    return (x + xh) * 0.5 + n * weft.eye(n, dtype=x.dtype) if n else x


def _ref_hpd(x):
    n = x.shape[-1]
    return ((x + _mH(x)) * 0.5 + n * np.eye(n)).astype(x.dtype)


def _cholesky(x, upper=False):
    return weft.linalg.cholesky(_hpd(x), upper=upper)


def _ref_cholesky(x, upper=False):
    low = np.linalg.cholesky(_ref_hpd(x))
    return _mH(low) if upper else low


def _cholesky_samples(dtype, rng):
    for shape, name in _SQUARE:
        yield SampleInput(_a(shape, dtype, rng), name=name)
    yield SampleInput(_a((2, 3, 3), dtype, rng), upper=True, name="upper")


def _cholesky_errors(rng):
    yield from square_matrix_errors("cholesky")(rng)
    bad = np.stack([np.eye(2), np.eye(2), -np.eye(2)])
    yield ErrorInput(SampleInput(bad), ValueError,
                     "cholesky: Cholesky decomposition was not successful. The 2-th input "
                     "matrix might not be positive definite")


def _cholesky_direct_samples(dtype, rng):
    """Only the named triangle is read: the other one holds garbage."""
    for upper in (False, True):
        a = _ref_hpd(_a((2, 3, 3), dtype, rng))
        junk = np.triu(_a((2, 3, 3), dtype, rng), 1)
        a = a + (junk if not upper else _mH(junk))
        yield SampleInput(a, upper=upper, name=f"upper={upper}")


def _ref_cholesky_direct(a, upper=False):
    tri = np.triu(a) if upper else np.tril(a)
    full = tri + _mH(tri) - np.real(np.diagonal(tri, 0, -2, -1))[..., None] * np.eye(a.shape[-1])
    low = np.linalg.cholesky(full.astype(a.dtype))
    return _mH(low) if upper else low


# ---------------------------------------------------------------------------------
# slogdet


def _ref_slogdet(a):
    sign, logabs = np.linalg.slogdet(a)
    return np.stack([sign.astype(a.dtype), logabs.astype(a.dtype)])


def _slogdet_samples(dtype, rng):
    yield from _square_samples(dtype, rng)
    neg = _wc((2, 3, 3), dtype, rng)
    neg[0] = -neg[0]                      # an odd dimension: negative determinant
    yield SampleInput(neg, name="negative det")


def _slogdet_singular_samples(dtype, rng):
    yield SampleInput(np.zeros((2, 2), dtype), name="zero matrix")
    yield SampleInput(np.array([[1.0, 2.0], [2.0, 4.0]], dtype), name="rank 1")


# ---------------------------------------------------------------------------------
# det


def _det_samples(dtype, rng):
    for shape, name in _SQUARE:
        yield SampleInput(_a(shape, dtype, rng), name=name)


def _det_singular_samples(dtype, rng):
    """Singular matrices of rank n-1 and n-2 (products of thin factors): det is 0 and
    its gradient, the conjugate-transposed adjugate, must stay exact."""
    yield SampleInput((_a((3, 2), dtype, rng) @ _a((2, 3), dtype, rng)).astype(dtype),
                      name="rank 2 of 3")
    yield SampleInput((_a((2, 3, 1), dtype, rng) @ _a((2, 1, 3), dtype, rng)).astype(dtype),
                      name="rank 1 of 3, batch")
    yield SampleInput(np.zeros((2, 2), dtype), name="zero matrix")


def _expm_samples(dtype, rng):
    for shape, name in _SQUARE:
        yield SampleInput(_a(shape, dtype, rng), name=name)
    yield SampleInput((4 * _a((3, 3), dtype, rng)).astype(dtype), name="large norm (squaring)")


def _ref_expm(a):
    return sl.expm(a).astype(a.dtype) if a.size else a.copy()


OPS = [
    OpInfo("linalg.inv", weft.linalg.inv, np.linalg.inv, _square_samples,
           dtypes=FLOAT_AND_COMPLEX, error_inputs=_inv_errors),
    OpInfo("linalg.solve", weft.linalg.solve, _ref_solve, _solve_samples,
           dtypes=FLOAT_AND_COMPLEX, error_inputs=_solve_errors),
    OpInfo("linalg.triangular_solve", weft.linalg.triangular_solve, _ref_tri, _tri_samples,
           dtypes=FLOAT_AND_COMPLEX, error_inputs=_tri_errors),
    OpInfo("linalg.cholesky", _cholesky, _ref_cholesky, _cholesky_samples,
           dtypes=FLOAT_AND_COMPLEX),
    # the function itself (not through _hpd): which triangle is read, and its errors
    OpInfo("linalg.cholesky_triangle_read", weft.linalg.cholesky, _ref_cholesky_direct,
           _cholesky_direct_samples, dtypes=FLOAT_AND_COMPLEX, supports_grad=False,
           error_inputs=_cholesky_errors),
    OpInfo("linalg.det", weft.linalg.det, np.linalg.det, _det_samples,
           dtypes=FLOAT_AND_COMPLEX, error_inputs=square_matrix_errors("det")),
    # the adjugate's SVD form: exact first derivatives at singular input; its second
    # derivative is not exact where singular values repeat or for complex singular
    # input (the SVD is not smooth there; documented in weft/linalg/_solvers.py)
    OpInfo("linalg.det_singular", weft.linalg.det, np.linalg.det, _det_singular_samples,
           dtypes=FLOAT_AND_COMPLEX, supports_gradgrad=False),
    OpInfo("linalg.slogdet", weft.linalg.slogdet, _ref_slogdet, _slogdet_samples,
           dtypes=FLOAT_AND_COMPLEX, error_inputs=square_matrix_errors("slogdet")),
    OpInfo("linalg.slogdet_singular", weft.linalg.slogdet, _ref_slogdet,
           _slogdet_singular_samples, dtypes=FLOAT_AND_COMPLEX, supports_grad=False),
    OpInfo("linalg.matrix_exp", weft.linalg.matrix_exp, _ref_expm, _expm_samples,
           dtypes=FLOAT_AND_COMPLEX, error_inputs=square_matrix_errors("matrix_exp")),
]
