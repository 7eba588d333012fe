"""OpInfo entries for weft.linalg's LU family (weft/linalg/_lu.py): lu, lu_unpack and
lu_solve, against LAPACK getrf (scipy) and straightforward loops.

Gradient samples are well conditioned with a clear pivot order (distinct column maxima
with gaps), so the pivots stay constant under gradcheck's perturbations."""
import numpy as np
import scipy.linalg as sl

import weft
from tests.opinfo import FLOAT_AND_COMPLEX, ErrorInput, OpInfo, SampleInput
from tests.opinfo import matrix_arg as _a


def _flat(a):
    return a.reshape((int(np.prod(a.shape[:-2])),) + a.shape[-2:])


def _ref_lu_one(a, pivot):
    """(LU, 1-based pivots, info) of one matrix: scipy's getrf, or a Doolittle loop."""
    m, n = a.shape
    k = min(m, n)
    if not pivot:
        f = a.copy()
        info = 0
        for j in range(k):
            if f[j, j] == 0:
                info = info or j + 1
            else:
                for i in range(j + 1, m):
                    f[i, j] /= f[j, j]
            for i in range(j + 1, m):
                for c in range(j + 1, n):
                    f[i, c] -= f[i, j] * f[j, c]
        return f, np.arange(1, k + 1, dtype=np.int32), info
    getrf, = sl.get_lapack_funcs(("getrf",), (a,))
    f, p, _ = getrf(a)
    d = np.diagonal(f)[:k]
    zero = np.flatnonzero(d == 0)
    return f, (p + 1).astype(np.int32), int(zero[0]) + 1 if zero.size else 0


def _ref_lu(x, pivot=True, get_infos=False):
    batch, (m, n) = x.shape[:-2], x.shape[-2:]
    k = min(m, n)
    parts = [_ref_lu_one(a, pivot) for a in _flat(x)]
    f = np.stack([p[0] for p in parts]).reshape(x.shape) if parts else x.copy()
    piv = np.stack([p[1] for p in parts]).reshape(batch + (k,)) if parts else \
        np.ones(batch + (k,), np.int32) * np.arange(1, k + 1, dtype=np.int32)
    info = np.array([p[2] for p in parts], np.int32).reshape(batch)
    return (f, piv, info) if get_infos else (f, piv)


def _pivoted(shape, dtype, rng):
    """Matrices whose partial pivoting is stable under small perturbations: each
    column's candidate pivots differ by a clear margin."""
    a = _a(shape, dtype, rng)
    m, n = shape[-2:]
    for j in range(min(m, n)):
        a[..., (j * 2 + 1) % m, j] += 3.0 + j   # a dominant, distinct pivot per column
    return a.astype(dtype)


_SHAPES = [((3, 3), "2-D"), ((2, 3, 3), "batch"), ((2, 1, 2, 2), "2 batch dims"),
           ((3, 4), "wide"), ((4, 3), "tall"), ((2, 2, 3), "batch wide"),
           ((1, 1), "1x1"), ((0, 0), "empty matrix"), ((0, 2, 2), "empty batch"),
           ((0, 3), "no rows"), ((3, 0), "no columns")]


def _lu_samples(dtype, rng):
    for shape, name in _SHAPES:
        yield SampleInput(_pivoted(shape, dtype, rng), name=name)
    yield SampleInput(_pivoted((2, 3, 3), dtype, rng), get_infos=True, name="get_infos")
    yield SampleInput((_a((3, 3), dtype, rng) + 3 * np.eye(3)).astype(dtype), pivot=False,
                      get_infos=True, name="pivot=False")
    yield SampleInput((_a((2, 3, 4), dtype, rng) + 3 * np.eye(3, 4)).astype(dtype),
                      pivot=False, name="pivot=False wide")


def _lu_factor(x, **kw):
    return weft.linalg.lu(x, **kw)[0]


def _ref_lu_factor(x, **kw):
    return _ref_lu(x, **kw)[0]


def _lu_singular_samples(dtype, rng):
    yield SampleInput(np.zeros((3, 3), dtype), get_infos=True, name="zero matrix")
    yield SampleInput(np.array([[[1, 2], [2, 4]], [[0, 1], [1, 1]]], dtype), get_infos=True,
                      name="singular and pivoted (Paddle's [2, 2])")
    yield SampleInput(np.array([[1, 2], [3, 4], [5, 6]], dtype), get_infos=True,
                      name="Paddle's 3x2 ([3, 3])")
    yield SampleInput(np.array([[0, 1], [1, 1]], dtype), pivot=False, get_infos=True,
                      name="zero pivot without pivoting")


def _lu_errors(rng):
    yield ErrorInput(SampleInput(_a((3,), "float64", rng)), ValueError,
                     "lu: x must be a batch of matrices")
    yield ErrorInput(SampleInput(np.ones((2, 2), np.int64)), weft.UnsupportedDtypeError,
                     "lu: x has dtype int64")


# ---------------------------------------------------------------------------------
# lu_unpack


def _ref_unpack(x, y, unpack_ludata=True, unpack_pivots=True):
    m, n = x.shape[-2:]
    k = min(m, n)
    low = np.tril(x[..., :, :k], -1) + np.eye(m, k, dtype=x.dtype)
    up = np.triu(x[..., :k, :])
    ps = []
    for piv in y.reshape(int(np.prod(y.shape[:-1])), k):
        perm = list(range(m))
        for i, p in enumerate(piv):
            perm[i], perm[p - 1] = perm[p - 1], perm[i]
        p_mat = np.zeros((m, m), x.dtype)
        p_mat[perm, range(m)] = 1
        ps.append(p_mat)
    p_all = (np.stack(ps) if ps else np.zeros((0, m, m), x.dtype)).reshape(
        x.shape[:-2] + (m, m))
    empty = np.zeros((0,), x.dtype)
    return (p_all if unpack_pivots else empty, low if unpack_ludata else empty,
            up if unpack_ludata else empty)


def _unpack_samples(dtype, rng):
    for shape, name in _SHAPES:
        f, piv = _ref_lu(_pivoted(shape, dtype, rng))
        yield SampleInput(f, piv, name=name)
    f, piv = _ref_lu(_pivoted((2, 3, 3), dtype, rng))
    yield SampleInput(f, piv, unpack_ludata=False, name="unpack_ludata=False")
    yield SampleInput(f, piv, unpack_pivots=False, name="unpack_pivots=False")


def _unpack_errors(rng):
    f, piv = _ref_lu(_pivoted((3, 3), "float64", rng))
    yield ErrorInput(SampleInput(f, piv[:2]), ValueError,
                     r"lu_unpack: y must have shape \[3\]")
    yield ErrorInput(SampleInput(f, piv.astype(np.float64)), TypeError,
                     "lu_unpack: y must hold integer pivots")
    yield ErrorInput(SampleInput(f, piv + 5), ValueError,
                     r"lu_unpack: y must hold 1-based row indices in \[1, 3\]")


# ---------------------------------------------------------------------------------
# lu_solve


def _ref_lu_solve(b, lu, pivots, trans="N"):
    p, low, up = _ref_unpack(lu, pivots)
    a = p @ low @ up
    if trans == "T":
        a = np.swapaxes(a, -1, -2)
    elif trans == "C":
        a = np.conj(np.swapaxes(a, -1, -2))
    shape = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    a = np.broadcast_to(a, shape + a.shape[-2:])
    b = np.broadcast_to(b, shape + b.shape[-2:])
    if a.size == 0 or b.size == 0:
        return np.zeros(shape + b.shape[-2:], np.result_type(a, b))
    return np.linalg.solve(a, b)


def _lu_solve_samples(dtype, rng):
    f, piv = _ref_lu(_pivoted((3, 3), dtype, rng))
    for trans in ("N", "T", "C"):
        yield SampleInput(_a((3, 2), dtype, rng), f, piv, trans=trans, name=f"trans={trans}")
    f, piv = _ref_lu(_pivoted((2, 3, 3), dtype, rng))
    yield SampleInput(_a((3, 1), dtype, rng), f, piv, name="broadcast b")
    yield SampleInput(_a((2, 2, 3, 2), dtype, rng), f, piv, trans="C", name="broadcast lu")
    f, piv = _ref_lu(_pivoted((0, 0), dtype, rng))
    yield SampleInput(_a((0, 2), dtype, rng), f, piv, name="empty matrix")
    f, piv = _ref_lu(_pivoted((0, 2, 2), dtype, rng))
    yield SampleInput(_a((2, 1), dtype, rng), f, piv, name="empty batch")


def _lu_solve_errors(rng):
    d = "float64"
    f, piv = _ref_lu(_pivoted((3, 3), d, rng))
    yield ErrorInput(SampleInput(_a((3,), d, rng), f, piv), ValueError,
                     "lu_solve: `b` dimension must be gather than 2")
    yield ErrorInput(SampleInput(_a((3, 1), d, rng), f, piv, trans="X"), ValueError,
                     "lu_solve: trans must be 'N', 'T' or 'C', got 'X'")
    yield ErrorInput(SampleInput(_a((2, 1), d, rng), f, piv), ValueError,
                     "lu_solve: b must have 3 rows")
    yield ErrorInput(SampleInput(_a((3, 1), d, rng), f[:, :2], piv), ValueError,
                     "lu_solve: lu must be a batch of square matrices")
    yield ErrorInput(SampleInput(_a((3, 1), "float32", rng), f, piv), TypeError,
                     "lu_solve: b and lu must have the same dtype")
    fb, pb = _ref_lu(_pivoted((2, 3, 3), d, rng))
    yield ErrorInput(SampleInput(_a((4, 3, 1), d, rng), fb, pb), ValueError,
                     r"lu_solve: the batch dimensions")


OPS = [
    OpInfo("linalg.lu", weft.linalg.lu, _ref_lu, _lu_samples, dtypes=FLOAT_AND_COMPLEX,
           supports_grad=False, error_inputs=_lu_errors),
    # the packed factor alone: the differentiable output
    OpInfo("linalg.lu_factor", _lu_factor, _ref_lu_factor, _lu_samples,
           dtypes=FLOAT_AND_COMPLEX),
    # singular input and Paddle's observed pivots/infos: forward only (the pivot order of
    # these matrices changes under perturbation, so they have no gradient to check)
    OpInfo("linalg.lu_singular", weft.linalg.lu, _ref_lu, _lu_singular_samples,
           dtypes=FLOAT_AND_COMPLEX, supports_grad=False),
    OpInfo("linalg.lu_unpack", weft.linalg.lu_unpack, _ref_unpack, _unpack_samples,
           dtypes=FLOAT_AND_COMPLEX, error_inputs=_unpack_errors),
    OpInfo("linalg.lu_solve", weft.linalg.lu_solve, _ref_lu_solve, _lu_solve_samples,
           dtypes=FLOAT_AND_COMPLEX, error_inputs=_lu_solve_errors),
]
