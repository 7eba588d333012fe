"""OpInfo entries for the weft.linalg functions built from other ops
(weft/linalg/_composite.py): matrix_transpose, vecdot, matrix_power, cholesky_solve,
cholesky_inverse, pinv, matrix_rank, multi_dot, cond, matrix_norm, vector_norm, and cov / corrcoef
(weft/linalg/_stats.py), against numpy."""
import numpy as np

import weft
from tests.opinfo import (ALL_NUMERIC, COMPLEX, FLOAT_AND_COMPLEX, ErrorInput, OpInfo,
                          SampleInput, make_arg)
from tests.opinfo import conj_t as _mH, matrix_arg as _a, well_conditioned as _wc


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


def _pinv_samples(dtype, rng):
    for shape in ((4, 3), (3, 4), (2, 3, 3), (2, 1, 2, 3), (0, 3), (2, 3, 0)):
        yield SampleInput(_a(shape, dtype, rng), name=str(shape))
    yield SampleInput(_a((2, 3, 3), dtype, rng), rcond=1e-3, name="rcond")


def _ref_pinv(x, rcond=1e-15, hermitian=False):
    if hermitian:
        x = _ref_herm(x)
    if x.size == 0:
        return np.zeros(x.shape[:-2] + (x.shape[-1], x.shape[-2]), x.dtype)
    return np.linalg.pinv(x, rcond=rcond, hermitian=hermitian).astype(x.dtype)


def _ref_herm(x):
    return ((x + _mH(x)) * 0.5).astype(x.dtype)


def _pinv_herm(x, rcond=1e-15, hermitian=True):
    perm = list(range(x.ndim))
    perm[-1], perm[-2] = perm[-2], perm[-1]
    return weft.linalg.pinv((x + weft.conj(x.transpose(perm))) * 0.5, rcond, hermitian)


def _pinv_herm_samples(dtype, rng):
    for shape in ((3, 3), (2, 2, 2)):
        yield SampleInput(_a(shape, dtype, rng), hermitian=True, name=str(shape))


def _pinv_rank_deficient(dtype, rng):
    low = (_a((2, 4, 2), dtype, rng) @ _a((2, 2, 3), dtype, rng)).astype(dtype)
    # the cut-off must sit above the rounding noise of the zero singular value (~eps ·
    # σ_max): below it the result is that noise inverted, which differs between LAPACK
    # builds (1e-8 is under float32's eps)
    cut = 1e-8 if np.finfo(dtype).eps < 1e-10 else 1e-4
    yield SampleInput(low, rcond=cut, name="rank 2 of 3")
    yield SampleInput(np.zeros((2, 3), dtype), name="zero")
    yield SampleInput(low, rcond=np.array([cut, 0.5]), name="rcond per batch")


def _ref_rank(x, tol=None, hermitian=False, atol=None, rtol=None):
    if x.size == 0:
        return np.zeros(x.shape[:-2], np.int64)
    if atol is not None or rtol is not None:
        s = np.abs(np.linalg.eigvalsh(x)) if hermitian else np.linalg.svd(x, compute_uv=False)
        a = 0.0 if atol is None else atol
        r = rtol if rtol is not None else (max(x.shape[-2:]) * np.finfo(s.dtype).eps
                                           if a <= 0 else 0.0)
        thr = np.maximum(a, r * s.max(-1))
        return (s > thr[..., None]).sum(-1).astype(np.int64)
    return np.asarray(np.linalg.matrix_rank(x, tol=tol, hermitian=hermitian), np.int64)


def _rank_samples(dtype, rng):
    low = (_a((3, 4, 2), dtype, rng) @ _a((3, 2, 3), dtype, rng)).astype(dtype)
    yield SampleInput(low, name="rank 2")
    yield SampleInput(_a((4, 3), dtype, rng), name="full")
    yield SampleInput(low, tol=0.5, name="tol")
    yield SampleInput(low, atol=0.5, rtol=0.01, name="atol rtol")
    yield SampleInput(low, atol=0.5, name="atol")
    yield SampleInput(np.zeros((2, 2), dtype), name="zero")
    yield SampleInput(_ref_herm(_a((2, 3, 3), dtype, rng)), hermitian=True, name="hermitian")
    yield SampleInput(_a((0, 3), dtype, rng), name="empty")


def _rank_errors(rng):
    x = _a((3, 3), "float64", rng)
    yield ErrorInput(SampleInput(x, tol=0.1, atol=0.1), ValueError,
                     "Only support to use tol alone or use atol and rtol without tol")
    yield ErrorInput(SampleInput(_a((3,), "float64", rng)), ValueError,
                     "matrix_rank: x must be a batch of matrices")


def _multi_dot_samples(dtype, rng):
    yield SampleInput([_a((3, 4), dtype, rng), _a((4, 2), dtype, rng)], name="two")
    yield SampleInput([_a((5, 1), dtype, rng), _a((1, 6), dtype, rng), _a((6, 2), dtype, rng),
                       _a((2, 3), dtype, rng)], name="four")
    yield SampleInput([_a((3,), dtype, rng), _a((3, 4), dtype, rng), _a((4,), dtype, rng)],
                      name="vector ends")
    yield SampleInput([_a((3,), dtype, rng), _a((3, 2), dtype, rng)], name="row vector")
    yield SampleInput([_a((2, 3), dtype, rng), _a((3, 0), dtype, rng), _a((0, 2), dtype, rng)],
                      name="empty inner")


def _multi_dot_errors(rng):
    f = "float64"
    yield ErrorInput(SampleInput([_a((2, 2), f, rng)]), ValueError, "should > 1")
    yield ErrorInput(SampleInput([_a((2, 2), f, rng), _a((2,), f, rng), _a((2, 2), f, rng)]),
                     ValueError, r"multi_dot: x\[1\] must be 2-D")
    yield ErrorInput(SampleInput([_a((2, 3), f, rng), _a((2, 2), f, rng)]), ValueError,
                     "cannot be multiplied")


_COND_P = (None, 2, -2, "fro", "nuc", 1, -1, np.inf, -np.inf)


def _cond_samples(dtype, rng):
    for p in _COND_P:
        yield SampleInput(_wc((2, 3, 3), dtype, rng), p, name=f"p={p}")
    yield SampleInput(_a((3, 4), dtype, rng), None, name="wide, p=None")
    yield SampleInput(_a((2, 4, 2), dtype, rng), -2, name="tall, p=-2")


def _cond_singular_samples(dtype, rng):
    s = np.stack([np.eye(2), [[1.0, 2.0], [2.0, 4.0]], np.diag([1.0, 0.0])]).astype(dtype)
    for p in _COND_P:
        # σ_max/σ_min of [[1, 2], [2, 4]] divides by the rounding noise LAPACK leaves in
        # σ_min, which differs between LAPACK builds (numpy links its own); that case is
        # checked as a bound in tests/linalg/test_lapack_driver.py
        yield SampleInput(s if p not in (None, 2, -2) else s[::2], p, name=f"singular p={p}")


def _ref_cond(x, p=None):
    real = np.finfo(x.dtype).dtype
    if p in (None, 2, -2):
        with np.errstate(all="ignore"):
            return np.asarray(np.linalg.cond(x, p)).astype(real)
    # numpy's inverse-based cond gives inf for an exactly singular matrix, except for
    # 'nuc', where the SVD of the NaN inverse fails: one matrix at a time, singular -> inf
    def one(m):
        try:
            np.linalg.inv(m)          # LU with a zero pivot: exactly singular
        except np.linalg.LinAlgError:
            return np.inf
        return np.linalg.cond(m, p)

    return np.asarray([one(m) for m in x.reshape((-1,) + x.shape[-2:])],
                      real).reshape(x.shape[:-2])


def _cond_errors(rng):
    f = "float64"
    yield ErrorInput(SampleInput(_a((3, 4), f, rng), "fro"), ValueError,
                     "cond: x must be a batch of square matrices")
    yield ErrorInput(SampleInput(_a((3, 3), f, rng), 3), ValueError, "cond: p must be one of")
    yield ErrorInput(SampleInput(np.zeros((0, 0))), ValueError, "empty matrix")


_MATRIX_P = ("fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf)


def _matrix_norm_samples(dtype, rng):
    for p in _MATRIX_P:
        yield SampleInput(_a((2, 3, 4), dtype, rng), p=p, name=f"p={p}")
    yield SampleInput(_a((3, 2, 4), dtype, rng), p="nuc", axis=[0, 2], name="axis [0, 2]")
    yield SampleInput(_a((3, 2, 4), dtype, rng), p=1, axis=[2, 0], keepdim=True,
                      name="axis [2, 0] keepdim")
    yield SampleInput(_a((2, 3), dtype, rng), p=-2, keepdim=True, name="keepdim 2-D")
    yield SampleInput(_a((0, 3), dtype, rng), name="empty, fro")


def _ref_matrix_norm(x, p="fro", axis=(-2, -1), keepdim=False):
    return np.asarray(np.linalg.norm(x, ord=p, axis=tuple(axis), keepdims=keepdim)).astype(
        np.finfo(x.dtype).dtype)


def _matrix_norm_errors(rng):
    f = "float64"
    yield ErrorInput(SampleInput(_a((3, 3), f, rng), p=0), ValueError,
                     "matrix_norm: just support p value")
    yield ErrorInput(SampleInput(_a((3,), f, rng)), ValueError,
                     "matrix_norm: x must be at least 2-D")
    yield ErrorInput(SampleInput(_a((3, 3), f, rng), axis=[0, 0]), ValueError, "must differ")


def _vector_norm_samples(dtype, rng):
    for p in (2.0, 1, 3.5, 0.5, 0, np.inf, -np.inf):
        yield SampleInput(_a((2, 3, 4), dtype, rng), p=p, name=f"all, p={p}")
    yield SampleInput(_a((2, 3, 4), dtype, rng), p=3, axis=1, name="axis 1")
    yield SampleInput(_a((2, 3, 4), dtype, rng), p=2, axis=[0, 2], keepdim=True,
                      name="two axes keepdim")
    yield SampleInput(_a((2, 3, 4), dtype, rng), p=np.inf, axis=[-1, 0], name="inf two axes")
    yield SampleInput(_a((2, 0), dtype, rng), p=2, axis=1, name="empty")


def _ref_vector_norm(x, p=2.0, axis=None, keepdim=False):
    a = np.abs(x)
    ax = tuple(range(x.ndim)) if axis is None else \
        tuple(axis) if isinstance(axis, (list, tuple)) else (axis,)
    real = np.finfo(x.dtype).dtype
    if p == np.inf:
        r = a.max(axis=ax, keepdims=keepdim)
    elif p == -np.inf:
        r = a.min(axis=ax, keepdims=keepdim)
    elif p == 0:
        r = (a != 0).sum(axis=ax, keepdims=keepdim)
    else:
        r = (a ** p).sum(axis=ax, keepdims=keepdim) ** (1.0 / p)
    return np.asarray(r).astype(real)


def _vector_norm_errors(rng):
    f = "float64"
    yield ErrorInput(SampleInput(_a((3,), f, rng), p="fro"), ValueError,
                     "only valid p type is int and float")
    yield ErrorInput(SampleInput(_a((3, 3), f, rng), axis=[1, 1]), ValueError, "repeated")


def _cov_samples(dtype, rng):
    fw = rng.integers(0, 4, 5)
    aw = rng.random(5)
    yield SampleInput(_a((3, 5), dtype, rng), name="rows")
    yield SampleInput(_a((5, 3), dtype, rng), rowvar=False, name="columns")
    yield SampleInput(_a((5,), dtype, rng), name="1-D")
    yield SampleInput(_a((3, 5), dtype, rng), ddof=False, name="ddof False")
    yield SampleInput(_a((3, 5), dtype, rng), ddof=2, name="ddof 2")
    yield SampleInput(_a((3, 5), dtype, rng), fweights=fw, name="fweights")
    yield SampleInput(_a((3, 5), dtype, rng), aweights=aw, name="aweights")
    yield SampleInput(_a((2, 5), dtype, rng), ddof=3, fweights=fw, aweights=aw, name="both")


def _ref_cov(x, rowvar=True, ddof=True, fweights=None, aweights=None):
    return np.asarray(np.cov(x, rowvar=rowvar, ddof=int(ddof), fweights=fweights,
                             aweights=aweights)).astype(x.dtype)


def _cov_errors(rng):
    f = "float64"
    yield ErrorInput(SampleInput(_a((2, 2, 2), f, rng)), ValueError,
                     r"only support N-D \(1<=N<=2\)")
    yield ErrorInput(SampleInput(_a((2, 3), f, rng), fweights=np.array([1.0, 2.0, 3.0])),
                     TypeError, "cov: fweights must hold integers")
    yield ErrorInput(SampleInput(_a((2, 3), f, rng), aweights=np.array([1.0, 2.0])),
                     ValueError, "cov: aweights must be 1-D with one weight per observation")
    yield ErrorInput(SampleInput(_a((2, 3), f, rng), fweights=np.array([1, -2, 3])),
                     ValueError, "non-negative")


def _corr_samples(dtype, rng):
    yield SampleInput(_a((3, 5), dtype, rng), name="rows")
    yield SampleInput(_a((5, 2), dtype, rng), rowvar=False, name="columns")
    yield SampleInput(_a((4,), dtype, rng), name="1-D")


def _ref_corr(x, rowvar=True):
    return np.asarray(np.corrcoef(x, rowvar=rowvar)).astype(x.dtype)


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
    OpInfo("linalg.pinv", weft.linalg.pinv, _ref_pinv, _pinv_samples,
           dtypes=FLOAT_AND_COMPLEX),
    OpInfo("linalg.pinv_hermitian", _pinv_herm, _ref_pinv, _pinv_herm_samples,
           dtypes=FLOAT_AND_COMPLEX),
    # truncated singular values: forward only (the gradient assumes a locally constant
    # rank, which a finite-difference check across the cut-off does not respect)
    OpInfo("linalg.pinv_rank_deficient", weft.linalg.pinv, _ref_pinv, _pinv_rank_deficient,
           dtypes=FLOAT_AND_COMPLEX, supports_grad=False),
    OpInfo("linalg.matrix_rank", weft.linalg.matrix_rank, _ref_rank, _rank_samples,
           dtypes=FLOAT_AND_COMPLEX, supports_grad=False, error_inputs=_rank_errors),
    OpInfo("linalg.multi_dot", weft.linalg.multi_dot, lambda x: np.linalg.multi_dot(x),
           _multi_dot_samples, dtypes=FLOAT_AND_COMPLEX, error_inputs=_multi_dot_errors),
    OpInfo("linalg.cond", weft.linalg.cond, _ref_cond, _cond_samples,
           dtypes=FLOAT_AND_COMPLEX, error_inputs=_cond_errors),
    OpInfo("linalg.cond_singular", weft.linalg.cond, _ref_cond, _cond_singular_samples,
           dtypes=FLOAT_AND_COMPLEX, supports_grad=False),
    OpInfo("linalg.matrix_norm", weft.linalg.matrix_norm, _ref_matrix_norm,
           _matrix_norm_samples, dtypes=FLOAT_AND_COMPLEX, error_inputs=_matrix_norm_errors),
    # p=0 is piecewise constant (gradient 0): checked by the forward test only
    OpInfo("linalg.vector_norm", weft.linalg.vector_norm, _ref_vector_norm,
           _vector_norm_samples, dtypes=FLOAT_AND_COMPLEX, error_inputs=_vector_norm_errors),
    OpInfo("linalg.cov", weft.linalg.cov, _ref_cov, _cov_samples, dtypes=FLOAT_AND_COMPLEX,
           error_inputs=_cov_errors),
    OpInfo("linalg.corrcoef", weft.linalg.corrcoef, _ref_corr, _corr_samples,
           dtypes=FLOAT_AND_COMPLEX),
]
