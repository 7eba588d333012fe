"""weft.sparse.matmul / mv (api-sparse.md §3.3): values vs scipy/numpy over random
shapes, the native kernels and their array fallback, plan reuse, errors, and the
kernels' argument checks. Masked gradcheck/gradgradcheck of matmul and mv (2-D and
batched, duplicates, int32) are in the op database (tests/opdb/sparse_products.py)."""
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import weft
from weft import _C
from weft import sparse as S


def _rand(rng, shape, dtype):
    a = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        a = a + 1j * rng.standard_normal(shape)
    return a.astype(dtype)


def _coo_parts(rng, m, k, density, dup):
    """Random COO triplets, unsorted, with duplicates when ``dup``."""
    nnz = int(rng.binomial(m * k, density)) if m * k else 0
    r = rng.integers(0, max(m, 1), nnz) if m else np.zeros(0, np.int64)
    c = rng.integers(0, max(k, 1), nnz) if k else np.zeros(0, np.int64)
    if dup and nnz:
        r, c = np.concatenate([r, r[:2]]), np.concatenate([c, c[:2]])
    perm = rng.permutation(r.shape[0])
    return r[perm], c[perm]


def _make(fmt, r, c, v, shape, itype, stop_gradient=True):
    coo = S.sparse_coo_tensor(np.stack([r, c]).astype(itype), v, shape,
                              stop_gradient=stop_gradient)
    if fmt == "coo":
        return coo
    m = sp.csr_matrix((v, (r, c)), shape=shape)
    m.sum_duplicates()
    m.sort_indices()
    return S.sparse_csr_tensor(m.indptr.astype(itype), m.indices.astype(itype), m.data, shape,
                               stop_gradient=stop_gradient)


def _tol(dtype):
    return dict(rtol=1e-4, atol=1e-4) if np.dtype(dtype) in (np.float32, np.complex64) else \
        dict(rtol=1e-10, atol=1e-10)


@settings(derandomize=True, max_examples=40, deadline=None)
@given(m=st.integers(0, 7), k=st.integers(0, 6), n=st.integers(0, 5),
       density=st.sampled_from([0.0, 0.2, 0.6, 1.0]), dup=st.booleans(),
       fmt=st.sampled_from(["csr", "coo"]), itype=st.sampled_from([np.int32, np.int64]),
       dtype=st.sampled_from(["float32", "float64", "complex128"]), seed=st.integers(0, 99))
def test_matmul_matches_scipy(m, k, n, density, dup, fmt, itype, dtype, seed):
    rng = np.random.default_rng(seed)
    r, c = _coo_parts(rng, m, k, density, dup)
    v = _rand(rng, r.shape[0], dtype)
    ref = sp.coo_matrix((v, (r, c)), shape=(m, k))  # scipy sums duplicates
    x = _make(fmt, r, c, v, [m, k], itype)
    y = _rand(rng, (k, n), dtype)
    out = S.matmul(x, weft.to_tensor(y))
    assert out.shape == [m, n] and out.dtype == np.dtype(dtype)
    np.testing.assert_allclose(out.numpy(), ref @ y, **_tol(dtype))
    d = _rand(rng, (n, m), dtype)
    out2 = S.matmul(weft.to_tensor(d), x)
    assert out2.shape == [n, k]
    np.testing.assert_allclose(out2.numpy(), (ref.T @ d.T).T, **_tol(dtype))
    if m and k:
        vec = _rand(rng, k, dtype)
        np.testing.assert_allclose(S.mv(x, weft.to_tensor(vec)).numpy(), ref @ vec, **_tol(dtype))


@pytest.mark.parametrize("fmt", ["csr", "coo"])
@pytest.mark.parametrize("itype", [np.int32, np.int64])
def test_batched_matches_numpy(fmt, itype):
    rng = np.random.default_rng(3)
    dense = rng.standard_normal((3, 4, 5)) * (rng.random((3, 4, 5)) < 0.4)
    dense[1] = 0.0  # an empty batch
    dense[2, 1] = 0.0  # an empty row
    t = weft.to_tensor(dense)
    x = t.to_sparse_csr() if fmt == "csr" else t.to_sparse_coo(3)
    if fmt == "csr":
        x = S.cast(x, index_dtype=itype)
    y = rng.standard_normal((3, 5, 2))
    np.testing.assert_allclose(S.matmul(x, weft.to_tensor(y)).numpy(), dense @ y, atol=1e-12)
    d = rng.standard_normal((3, 6, 4))
    np.testing.assert_allclose(S.matmul(weft.to_tensor(d), x).numpy(), d @ dense, atol=1e-12)


def test_operators_and_methods():
    x = S.sparse_csr_tensor([0, 1, 2], [1, 0], [2.0, 3.0], [2, 2])
    y = weft.to_tensor([[1.0, 2.0], [3.0, 4.0]])
    np.testing.assert_array_equal((x @ y).numpy(), [[6.0, 8.0], [3.0, 6.0]])
    np.testing.assert_array_equal((y @ x).numpy(), [[6.0, 2.0], [12.0, 6.0]])
    np.testing.assert_array_equal(x.matmul(y).numpy(), (x @ y).numpy())
    np.testing.assert_array_equal(x.to_sparse_coo(2).mv(weft.to_tensor([1.0, 10.0])).numpy(),
                                  [20.0, 3.0])


def test_large_power_law_native_path_matches_scipy():
    rng = np.random.default_rng(0)
    n, nnz = 3000, 40000
    rows = np.minimum((rng.pareto(1.2, nnz) * 3).astype(np.int64), n - 1)
    cols = rng.integers(0, n, nnz)
    a = sp.csr_matrix((rng.standard_normal(nnz).astype(np.float32), (rows, cols)), shape=(n, n))
    x = S.from_scipy(a)
    y = rng.standard_normal((n, 16)).astype(np.float32)
    np.testing.assert_allclose(S.matmul(x, weft.to_tensor(y)).numpy(), a @ y, rtol=1e-4,
                               atol=1e-3)


def _loop_spmv(cr, cl, v, x):
    out = np.zeros(cr.shape[0] - 1, v.dtype)
    for r in range(out.shape[0]):
        for k in range(cr[r], cr[r + 1]):
            out[r] += v[k] * x[cl[k]]
    return out


@settings(derandomize=True, max_examples=40, deadline=None)
@given(m=st.integers(0, 9), k=st.integers(0, 7), density=st.sampled_from([0.0, 0.3, 1.0]),
       itype=st.sampled_from([np.int32, np.int64]),
       dtype=st.sampled_from(["float32", "float64", "complex64", "complex128"]),
       seed=st.integers(0, 99))
def test_spmv_kernel_matches_loop(m, k, density, itype, dtype, seed):
    # unsorted columns with duplicates, straight into the kernel (mv hands it sorted CSR)
    rng = np.random.default_rng(seed)
    deg = rng.binomial(max(k, 1) * 2, density, m) if k else np.zeros(m, np.int64)
    cr = np.concatenate([[0], np.cumsum(deg)]).astype(itype)
    cl = rng.integers(0, max(k, 1), int(cr[-1])).astype(itype)
    v, x = _rand(rng, cl.shape[0], dtype), _rand(rng, k, dtype)
    out = _C.sparse_spmv(cr, cl, v, x)
    assert out.shape == (m,) and out.dtype == np.dtype(dtype)
    np.testing.assert_allclose(out, _loop_spmv(cr, cl, v, x), **_tol(dtype))


@pytest.mark.parametrize("itype", [np.int32, np.int64])
def test_spmv_power_law_matches_scipy_and_thread_count(itype):
    rng = np.random.default_rng(0)
    n, nnz = 3000, 200_000  # enough entries for the kernel to split rows among threads
    rows = np.minimum((rng.pareto(1.2, nnz) * 3).astype(np.int64), n - 1)
    a = sp.csr_matrix((rng.standard_normal(nnz).astype(np.float32),
                       (rows, rng.integers(0, n, nnz))), shape=(n, n))
    x = S.cast(S.from_scipy(a), index_dtype=itype)
    vec = rng.standard_normal(n).astype(np.float32)
    out = S.mv(x, weft.to_tensor(vec)).numpy()
    np.testing.assert_allclose(out, a.astype(np.float64) @ vec, rtol=1e-4, atol=1e-3)
    old = weft.get_num_threads()
    try:
        weft.set_num_threads(1)
        serial = S.mv(x, weft.to_tensor(vec)).numpy()
    finally:
        weft.set_num_threads(old)
    np.testing.assert_array_equal(out, serial)  # each row is summed by one thread, in order


def test_mv_strided_vec_and_array_fallback(monkeypatch):
    import importlib

    # the module of the primitives (mv itself is in weft.sparse.matmul)
    M = importlib.import_module("weft.sparse.spmm")
    rng = np.random.default_rng(6)
    a = sp.random(6, 5, density=0.5, format="csr", random_state=1)
    x = S.from_scipy(a)
    wide = weft.to_tensor(rng.standard_normal(10))
    vec = wide[::2]  # a strided view
    ref = a @ vec.numpy()
    np.testing.assert_allclose(S.mv(x, vec).numpy(), ref, rtol=1e-12)
    monkeypatch.setattr(M, "_HAS_SPMV", False)  # through the SpMM kernel
    np.testing.assert_allclose(S.mv(x, vec).numpy(), ref, rtol=1e-12)
    monkeypatch.setattr(M, "_HAS_NATIVE", False)  # the array-level path GPU arrays take
    np.testing.assert_allclose(S.mv(x, vec).numpy(), ref, rtol=1e-12)


# ----------------------------------------------------------------------------------
# gradients


def _sp(fmt, dtype="float64", itype=np.int64, shape=(3, 4)):
    r = np.array([0, 2, 0, 1, 2, 0])
    c = np.array([1, 3, 1, 0, 0, 3])  # duplicate (0, 1), unsorted
    v = _rand(np.random.default_rng(1), 6, dtype)
    if fmt == "coo":
        return S.sparse_coo_tensor(np.stack([r, c]).astype(itype), v, list(shape),
                                   stop_gradient=False)
    return _make("csr", r, c, v, list(shape), itype, stop_gradient=False)


def test_repeated_products_with_one_pattern():
    """A tensor keeps its products' plan (row ids, transposed pattern): reuse over
    steps, by tensors sharing the pattern with new values, and across patterns."""
    rng = np.random.default_rng(8)
    a = sp.random(30, 20, density=0.2, random_state=8, format="csr")
    b = sp.random(30, 20, density=0.3, random_state=9, format="csr")
    x, xb = S.from_scipy(a), S.from_scipy(b)
    d = rng.standard_normal((5, 30))
    for _ in range(2):
        np.testing.assert_allclose(S.matmul(weft.to_tensor(d), x).numpy(), d @ a.toarray(), rtol=1e-12)
    x2 = x * 3.0  # same pattern, new values
    np.testing.assert_allclose(S.matmul(weft.to_tensor(d), x2).numpy(), 3 * d @ a.toarray(), rtol=1e-12)
    np.testing.assert_allclose(S.matmul(weft.to_tensor(d), xb).numpy(), d @ b.toarray(), rtol=1e-12)
    # the gradient of the dense operand reads the transposed pattern at every step
    x2.stop_gradient = False
    w = weft.to_tensor(rng.standard_normal((20, 4)))
    for _ in range(2):
        x2.clear_gradient()
        g = rng.standard_normal((30, 4))
        S.matmul(x2, w).backward(weft.to_tensor(g))
        rows = np.repeat(np.arange(30), np.diff(a.indptr))
        np.testing.assert_allclose(x2.grad.values().numpy(), (g @ w.numpy().T)[rows, a.indices],
                                   rtol=1e-12)


# ----------------------------------------------------------------------------------
# errors


def test_errors():
    x = _sp("csr")
    y = weft.ones([4, 2], dtype="float64")
    with pytest.raises(ValueError, match=r"matmul: inner sizes do not match"):
        S.matmul(x, weft.ones([3, 2], dtype="float64"))
    with pytest.raises(ValueError, match=r"use weft.sparse.mv"):
        S.matmul(x, weft.ones([4], dtype="float64"))
    with pytest.raises(ValueError, match=r"same rank"):
        S.matmul(x, weft.ones([1, 4, 2], dtype="float64"))
    b = weft.to_tensor(np.ones((2, 3, 4))).to_sparse_csr()
    with pytest.raises(ValueError, match=r"batch sizes must be equal"):
        S.matmul(b, weft.ones([3, 4, 2], dtype="float64"))
    with pytest.raises(NotImplementedError, match=r"mixed layouts"):
        S.matmul(x.to_sparse_coo(2), weft.to_tensor(np.eye(4)).to_sparse_csr())
    # sparse @ sparse of one layout is a product now (tests in test_spgemm.py)
    eye = weft.to_tensor(np.eye(4)).to_sparse_csr()
    np.testing.assert_array_equal(S.matmul(x, eye).to_dense().numpy(), x.to_dense().numpy())
    with pytest.raises(TypeError, match=r"same dtype"):
        S.matmul(x, weft.ones([4, 2], dtype="float32"))
    with pytest.raises(S.UnsupportedDtypeError, match=r"int64"):
        S.matmul(S.cast(x, value_dtype="int64"), weft.ones([4, 2], dtype="int64"))
    with pytest.raises(TypeError, match=r"one of x and y must be a sparse"):
        S.matmul(y, y)
    with pytest.raises(ValueError, match=r"dense dimensions"):
        S.matmul(S.sparse_coo_tensor([[0, 1]], np.ones((2, 4)), [2, 4]), y)
    with pytest.raises(ValueError, match=r"mv: vec must be 1-D of length 4"):
        S.mv(x, weft.ones([3], dtype="float64"))
    with pytest.raises(TypeError, match=r"mv: x must be a sparse"):
        S.mv(y, weft.ones([2], dtype="float64"))


def test_native_kernel_checks():
    cr = np.array([0, 1, 2], np.int64)
    cl = np.array([0, 1], np.int64)
    v = np.ones(2)
    y = np.ones((2, 3))
    np.testing.assert_array_equal(_C.sparse_spmm(cr, cl, v, y), np.ones((2, 3)))
    for width in (1, 3, 4):  # the SpMV, generic and fixed-width loops check cols alike
        with pytest.raises(IndexError, match=r"cols\[1\] = 5 is out of range"):
            _C.sparse_spmm(cr, np.array([0, 5]), v, np.ones((2, width)))
        with pytest.raises(IndexError, match=r"cols\[4\] = -1 is out of range"):
            _C.sparse_spmm(np.array([0, 5]), np.array([0, 1, 0, 1, -1]), np.ones(5),
                           np.ones((2, width)))
    with pytest.raises(IndexError, match=r"cols\[0\] = 2 is out of range"):
        _C.sparse_sddmm(cr, np.array([2, 0]), np.ones((2, 2)), np.ones((2, 2)))
    with pytest.raises(ValueError, match=r"crows must not decrease"):
        _C.sparse_spmm(np.array([0, 2, 1, 2]), cl, v, np.ones((2, 3)))
    with pytest.raises(ValueError, match=r"last value of crows"):
        _C.sparse_spmm(np.array([0, 1, 1]), cl, v, y)
    with pytest.raises(TypeError, match=r"cols has dtype int32"):
        _C.sparse_spmm(cr, cl.astype(np.int32), v, y)
    with pytest.raises(TypeError, match=r"y has dtype float32"):
        _C.sparse_spmm(cr, cl, v, y.astype(np.float32))
    with pytest.raises(ValueError, match=r"C-contiguous"):
        _C.sparse_spmm(cr, cl, v, np.ones((3, 2)).T)
    with pytest.raises(ValueError, match=r"a has 3 rows"):
        _C.sparse_sddmm(cr, cl, np.ones((3, 2)), np.ones((2, 2)))
    with pytest.raises(ValueError, match=r"a has 2 columns but b has 3"):
        _C.sparse_sddmm(cr, cl, np.ones((2, 2)), np.ones((2, 3)))
    np.testing.assert_array_equal(_C.sparse_sddmm(cr, cl, np.ones((2, 2)), np.ones((2, 2))),
                                  [2.0, 2.0])


def test_spmv_kernel_checks():
    cr, cl = np.array([0, 1, 2], np.int64), np.array([0, 1], np.int64)
    v, x = np.ones(2), np.array([1.0, 2.0])
    np.testing.assert_array_equal(_C.sparse_spmv(cr, cl, v, x), [1.0, 2.0])
    assert _C.sparse_spmv(np.zeros(1, np.int32), np.zeros(0, np.int32), np.ones(0),
                          np.ones(3)).shape == (0,)
    with pytest.raises(IndexError, match=r"cols\[1\] = 5 is out of range \[0, 2\)"):
        _C.sparse_spmv(cr, np.array([0, 5]), v, x)
    long_cr = np.array([0, 9])  # a bad column inside the unrolled part of a long row
    for pos, bad in ((2, -1), (8, 2)):
        cols = np.zeros(9, np.int64)
        cols[pos] = bad
        with pytest.raises(IndexError, match=rf"cols\[{pos}\] = {bad} is out of range"):
            _C.sparse_spmv(long_cr, cols, np.ones(9), x)
    with pytest.raises(IndexError, match=r"out of range \[0, 0\)"):
        _C.sparse_spmv(cr, cl, v, np.ones(0))
    for bad_cr, msg in (([0, 2, 1, 2], r"crows must not decrease, but crows\[2\] = 1"),
                        ([0, 5, -1, 2], r"crows must not decrease"),
                        ([0, 1, 1], r"last value of crows \(1\)"),
                        ([1, 1, 2], r"crows\[0\] must be 0")):
        with pytest.raises(ValueError, match=msg):
            _C.sparse_spmv(np.array(bad_cr), cl, v, np.ones(2))
    with pytest.raises(ValueError, match=r"crows must have at least one entry"):
        _C.sparse_spmv(np.zeros(0, np.int64), np.zeros(0, np.int64), np.ones(0), x)
    with pytest.raises(TypeError, match=r"cols has dtype int32"):
        _C.sparse_spmv(cr, cl.astype(np.int32), v, x)
    with pytest.raises(TypeError, match=r"x has dtype float32"):
        _C.sparse_spmv(cr, cl, v, x.astype(np.float32))
    with pytest.raises(TypeError, match=r"values"):
        _C.sparse_spmv(cr, cl, np.ones(2, np.int64), np.ones(2, np.int64))
    with pytest.raises(ValueError, match=r"x must be 1-D"):
        _C.sparse_spmv(cr, cl, v, np.ones((2, 1)))
    with pytest.raises(ValueError, match=r"x must be C-contiguous"):
        _C.sparse_spmv(cr, cl, v, np.ones(4)[::2])
    with pytest.raises(ValueError, match=r"values has 3 entries but cols has 2"):
        _C.sparse_spmv(cr, cl, np.ones(3), x)


def test_writing_to_the_pattern_accessors_leaves_the_tensor_alone():
    """crows()/cols()/indices() share memory with the tensor but cannot write into it:
    the cached product plan and flags stay true (an in-place write copies first)."""
    x = S.sparse_csr_tensor([0, 1, 2], [0, 1], np.array([1.0, 2.0]), [2, 2])
    y = weft.to_tensor(np.eye(2))
    np.testing.assert_array_equal(S.matmul(y, x).numpy(), [[1.0, 0.0], [0.0, 2.0]])  # plan cached
    c = x.cols()
    c[0] = 1
    assert c.tolist() == [1, 1] and x.cols().tolist() == [0, 1]
    np.testing.assert_array_equal(S.matmul(y, x).numpy(), x.to_dense().numpy())
    coo = S.sparse_coo_tensor([[0, 1], [1, 0]], [1.0, 2.0], [2, 2]).coalesce()
    idx = coo.indices()
    idx[0, 0] = 1
    assert coo.indices().tolist() == [[0, 1], [1, 0]] and coo.is_coalesced()
