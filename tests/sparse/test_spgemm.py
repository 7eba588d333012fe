"""Sparse @ sparse matmul (SpGEMM), masked_matmul and addmm (api-sparse.md §3.3, §6):
values vs scipy over random shapes, canonical output, the native kernels, their
array fallback and argument checks, errors. Masked gradcheck/gradgradcheck and the
forward of masked_matmul/addmm are in the op database (tests/opdb/sparse_products.py)."""
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import weft
from weft import _C
from weft import sparse as S
from weft.autograd import gradgradcheck

from .test_matmul import _coo_parts, _make, _rand, _tol


def _pair(rng, m, k, n, density, dup, fmt, itype, dtype):
    """x [m, k], y [k, n] as weft tensors plus their scipy references."""
    out = []
    for a, b in ((m, k), (k, n)):
        r, c = _coo_parts(rng, a, b, density, dup)
        v = _rand(rng, r.shape[0], dtype)
        out.append((_make(fmt, r, c, v, [a, b], itype), sp.csr_matrix((v, (r, c)), shape=(a, b))))
    return out


def _structural(xr, yr):
    """Pattern of the structural product (1 where some product a_ik b_kj exists)."""
    px, py = xr.copy(), yr.copy()
    for t in (px, py):
        t.sum_duplicates()
        t.data = np.ones_like(t.data, dtype=np.float64)
    return (px @ py).toarray() != 0


def _check_canonical(out, shape):
    if isinstance(out, S.SparseCsrTensor):
        cr, cl = out.crows().numpy(), out.cols().numpy()
        for r in range(shape[0]):
            row = cl[cr[r]:cr[r + 1]]
            assert np.all(np.diff(row) > 0)
    else:
        assert out.is_coalesced()
        idx = out.indices().numpy()
        lin = idx[0].astype(np.int64) * max(shape[1], 1) + idx[1]
        assert np.all(np.diff(lin) > 0)


@settings(derandomize=True, max_examples=60, deadline=None)
@given(m=st.integers(0, 7), k=st.integers(0, 6), n=st.integers(0, 7),
       density=st.sampled_from([0.0, 0.15, 0.5, 1.0]), dup=st.booleans(),
       fmt=st.sampled_from(["csr", "coo"]), itype=st.sampled_from([np.int32, np.int64]),
       dtype=st.sampled_from(["float32", "float64", "complex64", "complex128"]),
       seed=st.integers(0, 99))
def test_spgemm_matches_scipy(m, k, n, density, dup, fmt, itype, dtype, seed):
    rng = np.random.default_rng(seed)
    (x, xr), (y, yr) = _pair(rng, m, k, n, density, dup, fmt, itype, dtype)
    out = S.matmul(x, y)
    assert type(out) is type(x) and out.shape == [m, n] and out.dtype == np.dtype(dtype)
    index = out.cols() if fmt == "csr" else out.indices()
    assert index.dtype == np.dtype(itype)
    np.testing.assert_allclose(out.to_dense().numpy(), (xr @ yr).toarray(), **_tol(dtype))
    _check_canonical(out, [m, n])
    # every structurally nonzero product is stored, even where it sums to zero
    assert out.nnz() == int(_structural(xr, yr).sum())


def test_mixed_index_dtypes_give_int64():
    rng = np.random.default_rng(0)
    (x, xr), (y, yr) = _pair(rng, 5, 4, 6, 0.5, False, "csr", np.int32, "float64")
    y = S.cast(y, index_dtype="int64")
    out = S.matmul(x, y)
    assert out.cols().dtype == np.int64
    np.testing.assert_allclose(out.to_dense().numpy(), (xr @ yr).toarray())


@pytest.mark.parametrize("fmt", ["csr", "coo"])
@pytest.mark.parametrize("itype", ["int32", "int64"])
def test_batched(fmt, itype):
    rng = np.random.default_rng(3)
    dx = rng.standard_normal((3, 4, 5)) * (rng.random((3, 4, 5)) < 0.4)
    dy = rng.standard_normal((3, 5, 6)) * (rng.random((3, 5, 6)) < 0.4)
    dx[1] = 0.0  # an empty batch
    dy[2, :, 3] = 0.0  # an empty column
    tx, ty = weft.to_tensor(dx), weft.to_tensor(dy)
    if fmt == "csr":
        x, y = S.cast(tx.to_sparse_csr(), index_dtype=itype), S.cast(ty.to_sparse_csr(),
                                                                      index_dtype=itype)
    else:
        x, y = S.cast(tx.to_sparse_coo(3), index_dtype=itype), S.cast(ty.to_sparse_coo(3),
                                                                       index_dtype=itype)
    out = S.matmul(x, y)
    assert type(out) is type(x) and out.shape == [3, 4, 6]
    np.testing.assert_allclose(out.to_dense().numpy(), dx @ dy, atol=1e-12)
    for b in range(3):
        ref = _structural(sp.csr_matrix(dx[b]), sp.csr_matrix(dy[b]))
        got = np.zeros((4, 6), bool)
        if fmt == "csr":
            cr = out.crows().numpy().reshape(3, 5)[b]
            cl = out.cols().numpy()[out.crows().numpy().reshape(3, 5)[:b, -1].sum():][:cr[-1]]
            rows = np.repeat(np.arange(4), np.diff(cr))
            got[rows, cl] = True
            for r in range(4):
                assert np.all(np.diff(cl[cr[r]:cr[r + 1]]) > 0)
        else:
            idx = out.indices().numpy()
            sel = idx[0] == b
            got[idx[1, sel], idx[2, sel]] = True
        np.testing.assert_array_equal(got, ref)
    if fmt == "coo":
        assert out.is_coalesced()


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "complex128"])
def test_power_law_native_matches_scipy(dtype):
    rng = np.random.default_rng(1)
    n, nnz = 2000, 20000
    rows = np.minimum((rng.pareto(1.2, nnz) * 3).astype(np.int64), n - 1)
    cols = rng.integers(0, n, nnz)
    a = sp.csr_matrix((_rand(rng, nnz, dtype), (rows, cols)), shape=(n, n))
    x = S.from_scipy(a)
    out = S.matmul(x, x)
    ref = a @ a
    ref.sort_indices()
    np.testing.assert_array_equal(out.crows().numpy(), ref.indptr)
    np.testing.assert_array_equal(out.cols().numpy(), ref.indices)
    np.testing.assert_allclose(out.values().numpy(), ref.data, **_tol(dtype))


@pytest.mark.parametrize("itype", [np.int32, np.int64])
def test_native_row_forms_match_a_loop_exactly(itype):
    """Each form the kernel picks for a row (no products, one scaled row of B, a short
    sorted list, the bitmap) gives the loop's columns and sums, added in the order
    (entry of A, entry of B): bit for bit, at the list/bitmap boundary too."""
    rng = np.random.default_rng(5)
    ncols = 300
    # B: row 0 canonical, row 1 unsorted with duplicates, rows 2-5 random, row 6 empty
    b_rows = [np.array([3, 7, 250]), np.array([9, 2, 9, 2, 40]), *(rng.integers(0, ncols, 8) for _ in range(4)),
              np.array([], np.int64)]
    # A's rows: empty, one entry on a canonical / a duplicated row of B, then rows
    # with 16, 17 (a duplicated entry of A among them), 21 and many products
    a_rows = [[], [0], [1], [6, 6], [2, 1, 0, 6], [2, 0, 0, 0], [2, 3, 6, 1], list(rng.integers(0, 7, 40))]
    def csr(rows):
        crows = np.concatenate([[0], np.cumsum([len(r) for r in rows])]).astype(itype)
        cols = np.concatenate([np.asarray(r, np.int64) for r in rows] + [np.zeros(0, np.int64)]).astype(itype)
        return crows, cols, rng.standard_normal(cols.size)
    a, b = csr(a_rows), csr(b_rows)
    assert [sum(len(b_rows[k]) for k in r) for r in a_rows][4:7] == [16, 17, 21]
    crows, cols, vals = _C.sparse_spgemm(*a, *b, ncols)
    for i in range(len(a_rows)):
        acc = {}
        for p in range(a[0][i], a[0][i + 1]):
            k = a[1][p]
            for q in range(b[0][k], b[0][k + 1]):
                j = int(b[1][q])
                acc[j] = acc.get(j, 0.0) + a[2][p] * b[2][q]
        got_c = cols[crows[i]:crows[i + 1]]
        assert got_c.tolist() == sorted(acc), i
        assert vals[crows[i]:crows[i + 1]].tolist() == [acc[j] for j in sorted(acc)], i


def test_wide_output_uses_sorted_rows():
    """More columns than the dense accumulator holds: the expand-sort-compress path."""
    rng = np.random.default_rng(2)
    n = 3_000_000
    r, c = rng.integers(0, 6, 40), rng.integers(0, 5, 40)
    xr = sp.csr_matrix((rng.standard_normal(40), (r, c)), shape=(6, 5))
    r2, c2 = rng.integers(0, 5, 60), rng.integers(0, n, 60)
    c2[:10] = c2[10:20]  # shared columns, so products merge
    r2[:10] = (r2[10:20] + 1) % 5
    yr = sp.csr_matrix((rng.standard_normal(60), (r2, c2)), shape=(5, n))
    x, y = S.from_scipy(xr), S.from_scipy(yr)
    out = S.matmul(x, y)
    ref = (xr @ yr).tocsr()
    ref.sort_indices()
    np.testing.assert_array_equal(out.crows().numpy(), ref.indptr)
    np.testing.assert_array_equal(out.cols().numpy(), ref.indices)
    np.testing.assert_allclose(out.values().numpy(), ref.data, rtol=1e-12)
    x.stop_gradient = y.stop_gradient = False
    g = rng.standard_normal(out.nnz())
    S.matmul(x, y).backward(S.sparse_csr_tensor(out.crows(), out.cols(), g, [6, n]))
    gd = sp.csr_matrix((g, out.cols().numpy(), out.crows().numpy()), shape=(6, n))
    full = (gd @ yr.T).toarray()
    rows = np.repeat(np.arange(6), np.diff(xr.indptr))
    np.testing.assert_allclose(x.grad.values().numpy(), full[rows, xr.indices], atol=1e-12)


def test_operator_and_method():
    x = S.sparse_csr_tensor([0, 1, 2], [1, 0], [2.0, 3.0], [2, 2])
    np.testing.assert_array_equal((x @ x).to_dense().numpy(), [[6.0, 0.0], [0.0, 6.0]])
    np.testing.assert_array_equal(x.matmul(x).values().numpy(), [6.0, 6.0])


# ----------------------------------------------------------------------------------
# masked_matmul


def test_masked_matmul_coo_keeps_mask_indices():
    idx = np.array([[2, 0, 2, 1], [1, 3, 1, 0]])  # unsorted, with a duplicate
    mask = S.sparse_coo_tensor(idx, np.ones(4), [3, 4])
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal((3, 2)), rng.standard_normal((2, 4))
    out = S.masked_matmul(weft.to_tensor(x), weft.to_tensor(y), mask)
    np.testing.assert_array_equal(out.indices().numpy(), idx)
    np.testing.assert_allclose(out.values().numpy(), (x @ y)[idx[0], idx[1]])


# ----------------------------------------------------------------------------------
# errors


def test_matmul_sparse_errors():
    x = S.sparse_csr_tensor([0, 1, 2], [1, 0], [2.0, 3.0], [2, 2])
    with pytest.raises(NotImplementedError, match=r"mixed layouts"):
        S.matmul(x, x.to_sparse_coo(2))
    with pytest.raises(ValueError, match=r"inner sizes do not match"):
        S.matmul(x, S.sparse_csr_tensor([0, 1, 1, 1], [0], [1.0], [3, 2]))
    b = weft.to_tensor(np.ones((2, 2, 2))).to_sparse_csr()
    with pytest.raises(ValueError, match=r"same rank"):
        S.matmul(x, b)
    with pytest.raises(ValueError, match=r"batch sizes must be equal"):
        S.matmul(b, weft.to_tensor(np.ones((3, 2, 2))).to_sparse_csr())
    with pytest.raises(TypeError, match=r"same dtype, got float32 and float64"):
        S.matmul(x, S.cast(x, value_dtype="float64"))
    hybrid = S.sparse_coo_tensor([[0, 1]], np.ones((2, 2)), [2, 2])
    with pytest.raises(ValueError, match=r"dense dimensions"):
        S.matmul(hybrid, hybrid)


def _csr(cr, cl, v, itype=np.int64):
    return np.asarray(cr, itype), np.asarray(cl, itype), np.asarray(v, np.float64)


def test_native_spgemm_rejects_malformed_input():
    a = _csr([0, 1, 2], [0, 1], [1.0, 2.0])
    b = _csr([0, 1, 2], [1, 0], [3.0, 4.0])
    cr, cl, v = _C.sparse_spgemm(*a, *b, 2)
    np.testing.assert_array_equal(cl, [1, 0])
    bad_cases = [
        ((a[0], np.array([0, 2]), a[2], *b, 2), IndexError, r"a_cols\[1\] = 2 is out of range"),
        ((*a, b[0], np.array([0, 5]), b[2], 2), IndexError, r"b_cols\[1\] = 5 is out of range"),
        ((np.array([1, 1, 2]), *a[1:], *b, 2), ValueError, r"a_crows\[0\] must be 0"),
        ((np.array([0, 2, 1]), *a[1:], *b, 2), ValueError, r"a_crows must not decrease"),
        ((np.array([0, 1, 3]), *a[1:], *b, 2), ValueError, r"the last value of a_crows \(3\) must equal"),
        ((*a[:2], a[2][:1], *b, 2), ValueError, r"a_values has 1 entries but a_cols has 2"),
        ((*a, *b[:2], b[2].astype(np.float32), 2), TypeError, r"b_values has dtype float32"),
        ((*a, b[0].astype(np.int32), *b[1:], 2), TypeError, r"b_crows has dtype int32"),
        ((*a, *b, -1), ValueError, r"ncols must be >= 0"),
        ((a[0], a[1], a[2].astype(np.int64), *b, 2), TypeError, r"a_values has dtype int64"),
        ((a[0][None], *a[1:], *b, 2), ValueError, r"a_crows must be 1-D"),
        ((*a[:2], np.ones(4)[::2], *b, 2), ValueError, r"a_values must be C-contiguous"),
        ((np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0), *b, 2), ValueError,
         r"a_crows must have at least one entry"),
    ]
    for args, exc, msg in bad_cases:
        with pytest.raises(exc, match="sparse_spgemm: " + msg):
            _C.sparse_spgemm(*args)


def test_native_sampled_rejects_malformed_input():
    p = _csr([0, 1, 2], [0, 1], [0.0, 0.0])[:2]
    x = _csr([0, 1, 2], [1, 0], [1.0, 2.0])
    y = _csr([0, 1, 2], [0, 1], [3.0, 4.0])
    out = _C.sparse_spgemm_sampled(*p, *x, *y, 2)
    np.testing.assert_allclose(out, [0.0, 0.0])  # X's row 0 holds column 1, Y's row 0 column 0
    bad_cases = [
        ((p[0], np.array([0, 2]), *x, *y, 2), IndexError, r"p_cols\[1\] = 2 is out of range"),
        ((*p, x[0], np.array([1, 7]), x[2], *y, 2), IndexError, r"x_cols\[1\] = 7"),
        ((*p, *x, y[0], np.array([-1, 0]), y[2], 2), IndexError, r"y_cols\[0\] = -1"),
        ((*p, np.array([0, 2]), np.array([0, 1]), x[2], *y, 2), ValueError,
         r"x_crows describes 1 rows but p_crows describes 2"),
        ((*p, *x, *y[:2], y[2].astype(np.complex128), 2), TypeError, r"y_values has dtype"),
        ((*p, *x, y[0], y[1].astype(np.int32), y[2], 2), TypeError, r"y_cols has dtype int32"),
    ]
    for args, exc, msg in bad_cases:
        with pytest.raises(exc, match="sparse_spgemm_sampled: " + msg):
            _C.sparse_spgemm_sampled(*args)


def test_int32_overflow_of_output_nnz_is_reported():
    # a column times a row: 50,000^2 stored entries exceed int32's range; the count
    # pass finds that from the row lengths alone, before any output is allocated
    n = 50_000
    a = (np.arange(n + 1, dtype=np.int32), np.zeros(n, np.int32), np.ones(n))
    b = (np.array([0, n], np.int32), np.arange(n, dtype=np.int32), np.ones(n))
    # 2.5e9 stored entries would need ~30 GB; the kernel must refuse before allocating
    with pytest.raises(ValueError, match=r"more than int32 indices can address"):
        _C.sparse_spgemm(*a, *b, n)


def _sp(fmt, shape, seed, dtype="float64", itype=np.int64, dup=True):
    rng = np.random.default_rng(seed)
    r, c = _coo_parts(rng, shape[0], shape[1], 0.5, dup)
    v = _rand(rng, r.shape[0], dtype)
    if fmt == "coo":
        return S.sparse_coo_tensor(np.stack([r, c]).astype(itype), v, list(shape),
                                   stop_gradient=False)
    return _make("csr", r, c, v, list(shape), itype, stop_gradient=False)


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_array_fallback_matches_native(monkeypatch, dtype):
    """The array-module path (used for GPU arrays) gives the native kernels' results."""
    from weft.sparse import spgemm as mod

    def run():
        x, y = _sp("csr", (5, 6), 21, dtype), _sp("csr", (6, 4), 22, dtype)
        out = S.matmul(x, y)
        g = _rand(np.random.default_rng(3), out.nnz(), dtype)
        out.backward(out._with_values(weft.to_tensor(g)))
        return [t.numpy() for t in (out.crows(), out.cols(), out.values(), x.grad.values(),
                                    y.grad.values())]

    native = run()
    monkeypatch.setattr(mod, "_HAS_NATIVE", False)
    fallback = run()
    for a, b in zip(native, fallback):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)
    x, y = _sp("coo", (3, 4), 23, dtype), _sp("coo", (4, 3), 24, dtype)
    assert gradgradcheck(lambda a, b: S.matmul(a, b), (x, y), masked=True)


def test_negative_zero_products_give_positive_zero_on_every_row_form():
    """Each sum starts from +0, as scipy's does, whichever form the kernel picks."""
    ncols = 40
    # B row 0: one entry -0.0 at column 5; rows 1-2: 8 entries each elsewhere
    b_rows = [[5], list(range(10, 18)), list(range(20, 28))]
    b_vals = [[-0.0], [1.0] * 8, [1.0] * 8]
    # A rows: scaled row of B (1 product), short list (2 products), bitmap (17 products)
    a_rows = [[0], [0, 0], [0, 1, 2]]
    def csr(rows, vals):
        crows = np.concatenate([[0], np.cumsum([len(r) for r in rows])]).astype(np.int64)
        return crows, np.concatenate([np.asarray(r, np.int64) for r in rows]), np.concatenate(vals)
    a = csr(a_rows, [np.ones(len(r)) for r in a_rows])
    b = csr(b_rows, [np.asarray(v, dtype=np.float64) for v in b_vals])
    crows, cols, vals = _C.sparse_spgemm(*a, *b, ncols)
    at5 = vals[cols == 5]
    assert at5.tolist() == [0.0, 0.0, 0.0] and not np.signbit(at5).any()
