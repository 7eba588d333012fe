"""Native sparse kernels (csrc/sparse/convert.cpp): malformed input raises, never crashes;
results are independent of the thread count and match scipy."""
import numpy as np
import pytest
import scipy.sparse as sp

import weft
from weft import _C

I64 = np.int64
GOOD_IDX = np.array([[0, 1, 1], [2, 0, 2]], dtype=I64)
GOOD_VAL = np.ones((3, 1))

COALESCE_BAD = [
    (dict(indices=np.array([0, 1, 1]), values=GOOD_VAL, shape=[3]), ValueError, "2-D"),
    (dict(indices=GOOD_IDX.astype(np.float64), values=GOOD_VAL, shape=[2, 3]), TypeError,
     "indices has dtype"),
    (dict(indices=GOOD_IDX.astype(np.int16), values=GOOD_VAL, shape=[2, 3]), TypeError,
     "indices has dtype"),
    (dict(indices=np.array([[0, -1, 1], [2, 0, 2]]), values=GOOD_VAL, shape=[2, 3]),
     ValueError, r"indices\[0\]\[1\] = -1 is out of range"),
    (dict(indices=GOOD_IDX, values=GOOD_VAL, shape=[2, 2]), ValueError,
     r"indices\[1\]\[0\] = 2 is out of range \[0, 2\)"),
    (dict(indices=GOOD_IDX, values=np.ones((2, 1)), shape=[2, 3]), ValueError, "values has 2 rows"),
    (dict(indices=GOOD_IDX, values=np.ones(3), shape=[2, 3]), ValueError, "values must be 2-D"),
    (dict(indices=GOOD_IDX, values=np.ones((3, 1), dtype=np.float16), shape=[2, 3]), TypeError,
     "values has dtype"),
    (dict(indices=GOOD_IDX, values=GOOD_VAL, shape=[2]), ValueError, "shape has 1 entries"),
    (dict(indices=GOOD_IDX, values=GOOD_VAL, shape=[2, -3]), ValueError, "negative"),
    (dict(indices=np.asfortranarray(np.array([[0, 1], [1, 0]])), values=np.ones((2, 1)),
          shape=[2, 2]), ValueError, "C-contiguous"),
    (dict(indices=np.zeros((0, 0), dtype=I64), values=np.ones((0, 1)), shape=[]), ValueError,
     "at least one row"),
    (dict(indices=GOOD_IDX, values=GOOD_VAL, shape=[2 ** 40, 3]), ValueError, "too large"),
    (dict(indices=np.zeros((3, 1), I64), values=np.ones((1, 1)), shape=[1, 2 ** 40, 2 ** 40]),
     ValueError, "2\\^63|2 rows"),
]


@pytest.mark.parametrize("to_csr", [False, True])
@pytest.mark.parametrize("kw, exc, pattern", COALESCE_BAD)
def test_coalesce_malformed(kw, exc, pattern, to_csr):
    with pytest.raises(exc, match=pattern if not to_csr or "shape has" not in pattern else
                       "shape has|2 rows"):
        _C.sparse_coalesce(kw["indices"], kw["values"], kw["shape"], to_csr, True)


def test_coo_to_csr_needs_two_rows():
    with pytest.raises(ValueError, match="2 rows"):
        _C.sparse_coalesce(np.array([[0, 1, 1]]), GOOD_VAL, [2], True, False)


CR = np.array([0, 2, 3], dtype=I64)
CL = np.array([1, 0, 1], dtype=I64)
CSR_BAD = [
    (dict(crows=CR[None], cols=CL, ncols=2), ValueError, "crows must be 1-D"),
    (dict(crows=np.zeros(0, I64), cols=np.zeros(0, I64), ncols=2), ValueError, "at least one"),
    (dict(crows=np.array([1, 2, 3]), cols=CL, ncols=2), ValueError, r"crows\[0\] = 1"),
    (dict(crows=np.array([0, 3, 2]), cols=CL, ncols=2), ValueError, "non-decreasing"),
    (dict(crows=np.array([0, 2, 4]), cols=CL, ncols=2), ValueError, "last value of crows"),
    (dict(crows=CR, cols=np.array([1, 0, 5]), ncols=2), ValueError, r"cols\[2\] = 5"),
    (dict(crows=CR, cols=np.array([1, -3, 0]), ncols=2), ValueError, r"cols\[1\] = -3"),
    (dict(crows=CR, cols=CL.astype(np.int32), ncols=2), TypeError, "must match"),
    (dict(crows=CR.astype(np.uint8), cols=CL.astype(np.uint8), ncols=2), TypeError, "dtype"),
    (dict(crows=CR, cols=CL, ncols=-1), ValueError, "negative"),
]


@pytest.mark.parametrize("kw, exc, pattern", CSR_BAD)
def test_csr_canonical_malformed(kw, exc, pattern):
    vals = np.ones((kw["cols"].shape[0], 1))
    with pytest.raises(exc, match=pattern):
        _C.sparse_csr_canonical(kw["crows"], kw["cols"], vals, kw["ncols"], True)
    with pytest.raises(ValueError, match="values has"):
        _C.sparse_csr_canonical(CR, CL, np.ones((2, 1)), 2, False)


@pytest.mark.parametrize("crows, nnz, exc, pattern", [
    (np.array([1, 2]), 2, ValueError, r"crows\[0\] = 1"),
    (np.array([0, 2, 1]), 2, ValueError, "non-decreasing"),
    (np.array([0, 2, 3]), 2, ValueError, "last value"),
    (np.array([0, 2]), -1, ValueError, "negative"),
    (np.zeros(0, I64), 0, ValueError, "at least one"),
    (np.array([[0, 1]]), 1, ValueError, "1-D"),
    (np.array([0.0, 1.0]), 1, TypeError, "dtype"),
])
def test_csr_rows_malformed(crows, nnz, exc, pattern):
    with pytest.raises(exc, match=pattern):
        _C.sparse_csr_rows(crows, nnz)


def _power_law(rng, n, nnz, index_dtype):
    rows = np.minimum((rng.pareto(1.2, nnz) * 3).astype(np.int64), n - 1)
    cols = rng.integers(0, n, nnz)
    return np.stack([rows, cols]).astype(index_dtype), rng.standard_normal(nnz)


@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
def test_native_matches_scipy_and_thread_count(index_dtype):
    rng = np.random.default_rng(0)
    n = 3000
    idx, vals = _power_law(rng, n, 60000, index_dtype)  # long rows exercise the radix path
    ref = sp.coo_array((vals, (idx[0], idx[1])), shape=(n, n)).tocsr()
    ref.sum_duplicates()
    old = weft.get_num_threads()
    outs = []
    try:
        for th in (1, 2):
            weft.set_num_threads(th)
            outs.append(_C.sparse_coalesce(idx, vals[:, None].copy(), [n, n], True, True))
    finally:
        weft.set_num_threads(old)
    (cr, cl, v, inv), (cr2, cl2, v2, inv2) = outs
    np.testing.assert_array_equal(cr, ref.indptr)
    np.testing.assert_array_equal(cl, ref.indices)
    np.testing.assert_allclose(v[:, 0], ref.data, rtol=1e-12, atol=1e-12)
    assert cr.dtype == index_dtype and cl.dtype == index_dtype
    np.testing.assert_array_equal(v, v2)  # bitwise: duplicates summed in input order
    np.testing.assert_array_equal(inv, inv2)
    # inverse maps every entry to its merged slot
    np.testing.assert_array_equal(cl[inv], idx[1])


def test_coalesce_three_sparse_dims_complex():
    rng = np.random.default_rng(1)
    shape = [4, 3, 5]
    idx = np.stack([rng.integers(0, s, 50) for s in shape])
    vals = (rng.standard_normal((50, 2)) + 1j * rng.standard_normal((50, 2))).astype(np.complex64)
    out_idx, out_vals, inv = _C.sparse_coalesce(idx, vals, shape, False, True)
    dense = np.zeros(shape + [2], np.complex64)
    np.add.at(dense, tuple(idx), vals)
    got = np.zeros_like(dense)
    got[tuple(out_idx)] = out_vals
    np.testing.assert_allclose(got, dense, rtol=1e-5, atol=1e-6)
    lin = np.ravel_multi_index(tuple(out_idx), shape)
    assert np.all(np.diff(lin) > 0)
