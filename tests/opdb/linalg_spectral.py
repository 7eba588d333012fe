"""OpInfo entries for weft.linalg's eigh, eigvalsh, svd and svdvals
(weft/linalg/_spectral.py) and qr, householder_product (weft/linalg/_qr.py), against
numpy.linalg and LAPACK's orgqr/ungqr.

Eigen- and singular vectors are unique only up to a sign (real) or phase (complex)
per column, so the entries compare and differentiate gauge-invariant functions of
them: ``|V|`` elementwise (a column's phase multiplies all its entries) and the
reconstruction ``U diag(S) Vᴴ``. The eigh samples are made Hermitian inside the call,
so gradcheck perturbs symmetrically. Random matrices have distinct eigen/singular
values with probability 1, which the gauge-invariant checks need."""
import numpy as np
import scipy.linalg.lapack as lp

import weft
from tests.opinfo import FLOAT_AND_COMPLEX, ErrorInput, OpInfo, SampleInput
from tests.opinfo import conj_t as _mH, matrix_arg as _a

_SQUARE = [((3, 3), "2-D"), ((2, 3, 3), "batch"), ((2, 1, 2, 2), "2 batch dims"),
           ((1, 1), "1x1"), ((0, 0), "empty matrix"), ((0, 2, 2), "empty batch")]
_RECT = [((4, 3), "tall"), ((3, 4), "wide"), ((2, 3, 3), "batch square"),
         ((2, 1, 4, 2), "2 batch dims"), ((0, 3), "no rows"), ((2, 0, 3), "empty")]


def _herm(x):
    """(x + xᴴ)/2 in weft ops (identity-free transpose keeps any batch shape)."""
    perm = list(range(x.ndim))
    perm[-1], perm[-2] = perm[-2], perm[-1]
    return (x + weft.conj(x.transpose(perm))) * 0.5


def _ref_herm(x):
    return ((x + _mH(x)) * 0.5).astype(x.dtype)


def _square_samples(dtype, rng):
    for shape, name in _SQUARE:
        yield SampleInput(_a(shape, dtype, rng), name=name)
    yield SampleInput(_a((2, 3, 3), dtype, rng), UPLO="U", name="UPLO=U")


def _rect_samples(dtype, rng):
    for shape, name in _RECT:
        yield SampleInput(_a(shape, dtype, rng), name=name)


def _errors(op, square):
    def gen(rng):
        yield ErrorInput(SampleInput(_a((3,), "float64", rng)), ValueError,
                         f"{op}: x must be a batch of matrices")
        yield ErrorInput(SampleInput(np.ones((2, 2), np.int64)), weft.UnsupportedDtypeError,
                         f"{op}: x has dtype int64")
        if square:
            yield ErrorInput(SampleInput(_a((2, 3), "float64", rng)), ValueError,
                             f"{op}: x must be a batch of square matrices")
            yield ErrorInput(SampleInput(_a((2, 2), "float64", rng), UPLO="X"), ValueError,
                             f"{op}: UPLO must be L or U")
    return gen


def _eigh(x, UPLO="L"):  # noqa: N803
    w, v = weft.linalg.eigh(_herm(x), UPLO=UPLO)
    return w, weft.abs(v)


def _ref_eigh(x, UPLO="L"):  # noqa: N803
    w, v = np.linalg.eigh(_ref_herm(x), UPLO=UPLO)
    return w, np.abs(v)


def _eigvalsh(x, UPLO="L"):  # noqa: N803
    return weft.linalg.eigvalsh(_herm(x), UPLO=UPLO)


def _ref_eigvalsh(x, UPLO="L"):  # noqa: N803
    return np.linalg.eigvalsh(_ref_herm(x), UPLO=UPLO)


def _triangle_samples(dtype, rng):
    """The function itself on non-Hermitian input: only the UPLO triangle is read."""
    for uplo in ("L", "U"):
        yield SampleInput(_a((2, 3, 3), dtype, rng), UPLO=uplo, name=f"UPLO={uplo}")


def _svd(x, full_matrices=False):
    u, s, vh = weft.linalg.svd(x, full_matrices=full_matrices)
    k = s.shape[-1]
    # |U| and |Vᴴ| for the first k columns/rows (the rest are arbitrary when full), and
    # the reconstruction, which also checks that the three agree with each other
    rec = weft.linalg.matmul(u[..., :, :k] * s.unsqueeze(-2).astype(u.dtype), vh[..., :k, :])
    return weft.abs(u[..., :, :k]), s, weft.abs(vh[..., :k, :]), rec


def _ref_svd(x, full_matrices=False):
    u, s, vh = np.linalg.svd(x, full_matrices=False)
    return np.abs(u), s, np.abs(vh), x


def _svd_samples(dtype, rng):
    yield from _rect_samples(dtype, rng)
    yield SampleInput(_a((4, 3), dtype, rng), full_matrices=True, name="full, tall")
    yield SampleInput(_a((2, 2, 3), dtype, rng), full_matrices=True, name="full, wide")


def _svd_full_shapes(dtype, rng):
    for shape in ((4, 3), (3, 4), (2, 0, 3)):
        yield SampleInput(_a(shape, dtype, rng), full_matrices=True, name=f"full {shape}")


def _svd_full(x, full_matrices):
    u, s, vh = weft.linalg.svd(x, full_matrices=full_matrices)
    # the extra columns are any orthonormal completion: check U and Vᴴ are unitary
    eye_u = weft.linalg.matmul(u, weft.conj(u), transpose_y=True)
    eye_v = weft.linalg.matmul(vh, weft.conj(vh), transpose_y=True)
    return eye_u, s, eye_v


def _ref_svd_full(x, full_matrices):
    m, n = x.shape[-2:]
    batch = x.shape[:-2]
    s = np.linalg.svd(x, compute_uv=False)
    return (np.broadcast_to(np.eye(m, dtype=x.dtype), batch + (m, m)), s,
            np.broadcast_to(np.eye(n, dtype=x.dtype), batch + (n, n)))


OPS = [
    OpInfo("linalg.eigh", _eigh, _ref_eigh, _square_samples, dtypes=FLOAT_AND_COMPLEX),
    OpInfo("linalg.eigh_triangle_read", lambda x, UPLO="L": _ref_free(weft.linalg.eigh(x, UPLO)),
           lambda x, UPLO="L": _ref_free(np.linalg.eigh(x, UPLO=UPLO)), _triangle_samples,
           dtypes=FLOAT_AND_COMPLEX, supports_grad=False, error_inputs=_errors("eigh", True)),
    OpInfo("linalg.eigvalsh", _eigvalsh, _ref_eigvalsh, _square_samples,
           dtypes=FLOAT_AND_COMPLEX),
    OpInfo("linalg.eigvalsh_triangle_read", weft.linalg.eigvalsh, np.linalg.eigvalsh,
           _triangle_samples, dtypes=FLOAT_AND_COMPLEX, supports_grad=False,
           error_inputs=_errors("eigvalsh", True)),
    OpInfo("linalg.svd", _svd, _ref_svd, _svd_samples, dtypes=FLOAT_AND_COMPLEX,
           error_inputs=_errors("svd", False)),
    OpInfo("linalg.svd_full_matrices", _svd_full, _ref_svd_full, _svd_full_shapes,
           dtypes=FLOAT_AND_COMPLEX, supports_grad=False),
    OpInfo("linalg.svdvals", weft.linalg.svdvals,
           lambda x: np.linalg.svd(x, compute_uv=False), _rect_samples,
           dtypes=FLOAT_AND_COMPLEX, error_inputs=_errors("svdvals", False)),
]

# qr: weft calls the same LAPACK as numpy, so Q and R (signs included) compare directly


def _qr_samples(dtype, rng):
    yield from _rect_samples(dtype, rng)
    for shape in ((3, 3), (2, 3, 5), (3, 4)):
        yield SampleInput(_a(shape, dtype, rng), mode="complete", name=f"complete {shape}")


def _qr_nograd_samples(dtype, rng):
    for shape in ((4, 3), (2, 5, 2), (3, 0)):
        yield SampleInput(_a(shape, dtype, rng), mode="complete", name=f"complete {shape}")
    for shape in ((4, 3), (2, 3, 5), (0, 3)):
        yield SampleInput(_a(shape, dtype, rng), mode="r", name=f"r {shape}")


def _qr_errors(rng):
    yield from _errors("qr", False)(rng)
    yield ErrorInput(SampleInput(_a((3, 3), "float64", rng), mode="raw"), ValueError,
                     "qr: QR received unrecognized mode 'raw'")


def _ref_householder(x, tau):
    f = lp.zungqr if np.iscomplexobj(x) else lp.dorgqr
    if x.size == 0:
        return x.copy()
    xs = x.reshape((-1,) + x.shape[-2:])
    ts = tau.reshape((len(xs), tau.shape[-1]))
    out = [f(a.astype(np.complex128 if x.dtype.kind == "c" else np.float64),
             t.astype(np.complex128 if x.dtype.kind == "c" else np.float64),
             lwork=max(1, 4 * a.shape[1]))[0] for a, t in zip(xs, ts)]
    return np.stack(out).reshape(x.shape).astype(x.dtype)


def _householder_samples(dtype, rng):
    yield SampleInput(_a((4, 3), dtype, rng), _a((3,), dtype, rng), name="k = n")
    yield SampleInput(_a((4, 3), dtype, rng), _a((2,), dtype, rng), name="k < n")
    yield SampleInput(_a((2, 3, 3), dtype, rng), _a((2, 3), dtype, rng), name="batch square")
    yield SampleInput(_a((2, 1, 5, 2), dtype, rng), _a((2, 1, 1), dtype, rng),
                      name="2 batch dims")
    yield SampleInput(_a((0, 3, 2), dtype, rng), _a((0, 2), dtype, rng), name="empty batch")


def _householder_errors(rng):
    f = "float64"
    yield ErrorInput(SampleInput(_a((2, 3), f, rng), _a((2,), f, rng)), AssertionError,
                     "at least as many rows as columns")
    yield ErrorInput(SampleInput(_a((4, 3), f, rng), _a((4,), f, rng)), AssertionError,
                     "k <= 3")
    yield ErrorInput(SampleInput(_a((4, 3), f, rng), _a((3,), "float32", rng)), TypeError,
                     "same dtype")


OPS += [
    OpInfo("linalg.householder_product", weft.linalg.householder_product, _ref_householder,
           _householder_samples, dtypes=FLOAT_AND_COMPLEX, error_inputs=_householder_errors),
    OpInfo("linalg.qr", weft.linalg.qr, np.linalg.qr, _qr_samples, dtypes=FLOAT_AND_COMPLEX,
           error_inputs=_qr_errors),
    # tall complete and 'r': forward only (their backward raises, tests/linalg/test_linalg.py)
    OpInfo("linalg.qr_nondifferentiable_modes", weft.linalg.qr, np.linalg.qr,
           _qr_nograd_samples, dtypes=FLOAT_AND_COMPLEX, supports_grad=False),
]


def _ref_free(wv):
    """Eigenvalues and |eigenvectors| (free of the per-column phase)."""
    w, v = wv
    return w, (weft.abs(v) if isinstance(v, weft.Tensor) else np.abs(v))
