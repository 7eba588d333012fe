"""weft.sparse foundation: types, creation invariants, conversions, scipy interop."""
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import weft
from weft import sparse as S

VALUE_DTYPES = ["float32", "float64", "complex64", "complex128"]


def _random_coo(rng, shape, nnz, dtype="float64", index_dtype=np.int64, dense=()):
    idx = np.stack([rng.integers(0, s, nnz) for s in shape]).astype(index_dtype) if nnz else \
        np.zeros((len(shape), 0), dtype=index_dtype)
    vals = rng.standard_normal((nnz,) + tuple(dense))
    if np.dtype(dtype).kind == "c":
        vals = vals + 1j * rng.standard_normal(vals.shape)
    return idx, vals.astype(dtype)


def _dense_ref(idx, vals, shape):
    out = np.zeros(tuple(shape), dtype=vals.dtype)
    np.add.at(out, tuple(idx), vals)
    return out


# ----------------------------------------------------------------------------------
# types and methods


def test_coo_basics():
    x = S.sparse_coo_tensor([[0, 1, 2], [1, 2, 0]], [1.0, 2.0, 3.0])
    assert isinstance(x, weft.Tensor) and isinstance(x, S.SparseCooTensor)
    assert x.shape == [3, 3] and x.ndim == 2 and x.dtype == weft.float32
    assert x.nnz() == 3 and x.sparse_dim() == 2 and x.dense_dim() == 0
    assert x.is_sparse() and x.is_sparse_coo() and not x.is_sparse_csr() and not x.is_dense()
    assert not x.is_coalesced() and x.stop_gradient
    assert x.indices().dtype == np.int64 and x.numel() == 9
    assert "sparse_coo" in repr(x)


def test_hybrid_shape_inference_and_int32_kept():
    idx = np.array([[0, 1], [1, 1]], dtype=np.int32)
    x = S.sparse_coo_tensor(idx, np.ones((2, 2)))
    assert x.shape == [2, 2, 2] and x.sparse_dim() == 2 and x.dense_dim() == 1
    assert x.indices().dtype == np.int32
    assert x._indices is idx  # no copy


def test_explicit_zero_counts():
    assert S.sparse_coo_tensor([[0], [0]], [0.0], [2, 2]).nnz() == 1


def test_numpy_and_asarray_raise():
    x = S.sparse_coo_tensor([[0]], [1.0], [2])
    with pytest.raises(TypeError, match="to_dense"):
        x.numpy()
    with pytest.raises(TypeError, match="to_dense"):
        np.asarray(x)


def test_layout_errors():
    coo = S.sparse_coo_tensor([[0]], [1.0], [2])
    csr = S.sparse_csr_tensor([0, 1], [0], [1.0], [1, 2])
    dense = weft.to_tensor([1.0])
    for f in (csr.indices, coo.crows, coo.cols, dense.indices, dense.crows, dense.nnz):
        with pytest.raises(S.SparseLayoutError):
            f()
    assert issubclass(S.SparseLayoutError, TypeError)
    assert issubclass(S.UnsupportedDtypeError, TypeError)
    assert issubclass(S.UnsupportedDtypeError, ValueError)
    with pytest.raises(NotImplementedError):
        dense.values()
    assert dense.to_dense() is dense
    assert dense.sparse_dim() == 0 and dense.dense_dim() == 1
    assert csr.sparse_dim() == 2 and csr.dense_dim() == 0


def test_to_tensor_clone_detach_astype():
    x = S.sparse_coo_tensor([[0, 1]], [1.0, 2.0], [3])
    y = weft.to_tensor(x)
    assert isinstance(y, S.SparseCooTensor) and y._data is not x._data
    z = weft.to_tensor(x, dtype="float64")
    assert z.dtype == weft.float64 and z.indices().tolist() == [[0, 1]]
    c = weft.to_tensor(sp.csr_array(np.eye(2)), stop_gradient=False)
    assert c.is_sparse_csr() and not c.stop_gradient
    d = x.detach()
    assert d._data is x._data and d.stop_gradient


# ----------------------------------------------------------------------------------
# creation (the §1 invariants' ValueErrors are error inputs of the op database entries
# sparse.sparse_coo_tensor / sparse.sparse_csr_tensor, tests/opdb/sparse_creation.py)


def test_csr_shape_inference_and_batched():
    x = S.sparse_csr_tensor([0, 1, 3], [2, 0, 1], [1.0, 2.0, 3.0])
    assert x.shape == [2, 3]
    b = S.sparse_csr_tensor([0, 1, 2, 0, 0, 1], [1, 0, 1], [1.0, 2.0, 3.0], [2, 2, 2])
    np.testing.assert_array_equal(b.to_dense().numpy(),
                                  [[[0, 1], [2, 0]], [[0, 0], [0, 3]]])


# ----------------------------------------------------------------------------------
# conversions vs numpy / scipy, hypothesis-driven


@st.composite
def coo_case(draw):
    nd = draw(st.integers(1, 3))
    shape = draw(st.lists(st.integers(0, 5), min_size=nd, max_size=nd))
    nnz = 0 if 0 in shape else draw(st.integers(0, 12))
    seed = draw(st.integers(0, 2 ** 16))
    idt = draw(st.sampled_from([np.int32, np.int64]))
    dt = draw(st.sampled_from(VALUE_DTYPES))
    return shape, nnz, seed, idt, dt


@settings(max_examples=40)
@given(coo_case())
def test_coo_coalesce_to_dense_matches_numpy(case):
    shape, nnz, seed, idt, dt = case
    rng = np.random.default_rng(seed)
    idx, vals = _random_coo(rng, shape, nnz, dt, idt)
    x = S.sparse_coo_tensor(idx, vals, shape)
    ref = _dense_ref(idx, vals, shape)
    np.testing.assert_allclose(x.to_dense().numpy(), ref, rtol=1e-5, atol=1e-6)
    c = S.coalesce(x)
    assert c.is_coalesced() and c.indices().dtype == idt and c.dtype == np.dtype(dt)
    ci = c.indices().numpy()
    lin = np.ravel_multi_index(tuple(ci), shape) if ci.shape[1] else np.zeros(0)
    assert np.all(np.diff(lin) > 0)  # sorted, unique
    np.testing.assert_allclose(c.to_dense().numpy(), ref, rtol=1e-5, atol=1e-6)
    # dense -> COO -> dense round trip, coalesced canonical form
    back = weft.to_tensor(ref).to_sparse_coo(len(shape))
    np.testing.assert_array_equal(back.to_dense().numpy(), ref)
    assert back.is_coalesced()


@settings(max_examples=40)
@given(st.integers(0, 6), st.integers(0, 6), st.integers(0, 25), st.integers(0, 2 ** 16),
       st.sampled_from([np.int32, np.int64]), st.sampled_from(VALUE_DTYPES))
def test_coo_csr_round_trip_vs_scipy(m, n, nnz, seed, idt, dt):
    if m * n == 0:
        nnz = 0
    rng = np.random.default_rng(seed)
    idx, vals = _random_coo(rng, [m, n], nnz, dt, idt)
    x = S.sparse_coo_tensor(idx, vals, [m, n])
    csr = x.to_sparse_csr()
    ref = sp.coo_array((vals, (idx[0], idx[1])), shape=(m, n)).tocsr()
    ref.sum_duplicates()
    np.testing.assert_array_equal(csr.crows().numpy(), ref.indptr)
    np.testing.assert_array_equal(csr.cols().numpy(), ref.indices)
    np.testing.assert_allclose(csr.values().numpy(), ref.data, rtol=1e-5, atol=1e-6)
    assert csr.crows().dtype == idt and csr.cols().dtype == idt
    back = csr.to_sparse_coo(2)
    np.testing.assert_allclose(back.to_dense().numpy(), ref.toarray(), rtol=1e-5, atol=1e-6)
    # scipy -> weft -> scipy
    w = S.from_scipy(ref)
    assert w.is_sparse_csr()
    np.testing.assert_allclose(S.to_scipy(w).toarray(), ref.toarray())
    wc = S.from_scipy(sp.coo_array((vals, (idx[0], idx[1])), shape=(m, n)))
    np.testing.assert_allclose(S.to_scipy(wc).toarray(), ref.toarray(), rtol=1e-5, atol=1e-6)
    # CSR transpose = CSC of scipy
    t = S.transpose(csr, [1, 0])
    rt = ref.T.tocsr()
    rt.sum_duplicates()
    np.testing.assert_array_equal(t.crows().numpy(), rt.indptr)
    np.testing.assert_array_equal(t.cols().numpy(), rt.indices)


def test_unsorted_csr_input_canonicalised():
    x = S.sparse_csr_tensor([0, 3, 3, 4], [2, 0, 2, 1], [1.0, 2.0, 3.0, 4.0], [3, 3])
    c = S.coalesce(x)
    assert c.crows().tolist() == [0, 2, 2, 3]
    assert c.cols().tolist() == [0, 2, 1]
    assert c.values().tolist() == [2.0, 4.0, 4.0]


def test_dense_to_sparse_paddle_examples():
    d = weft.to_tensor([[0.0, 1.0, 0.0], [2.0, 0.0, 3.0]])
    coo = d.to_sparse_coo(2)
    assert coo.indices().tolist() == [[0, 1, 1], [1, 0, 2]]
    assert d.to_sparse_csr().crows().tolist() == [0, 1, 3]
    h = weft.to_tensor([[[0.0, 0.0], [1.0, 0.0]], [[0.0, 0.0], [0.0, 0.0]]]).to_sparse_coo(2)
    assert h.indices().tolist() == [[0], [1]] and h.values().tolist() == [[1.0, 0.0]]
    with pytest.raises(TypeError):
        d.to_sparse_coo()
    with pytest.raises(ValueError):
        d.to_sparse_coo(3)
    with pytest.raises(ValueError, match="2-D or 3-D"):
        weft.to_tensor([1.0]).to_sparse_csr()
    z = weft.zeros([3, 2]).to_sparse_csr()
    assert z.crows().tolist() == [0, 0, 0, 0] and z.nnz() == 0


def test_uncoalesced_to_dense_sums():
    x = S.sparse_coo_tensor([[0, 0], [1, 1]], [1.0, 2.0], [2, 2])
    assert x.to_dense().numpy()[0, 1] == 3.0


def test_3d_csr_conversions():
    rng = np.random.default_rng(3)
    d = rng.standard_normal((3, 4, 5)) * (rng.random((3, 4, 5)) < 0.3)
    d[1] = 0  # an empty batch
    csr = weft.to_tensor(d).to_sparse_csr()
    assert csr.crows().shape == [15]
    np.testing.assert_array_equal(csr.to_dense().numpy(), d)
    coo = csr.to_sparse_coo(3)
    np.testing.assert_array_equal(coo.to_dense().numpy(), d)
    np.testing.assert_array_equal(coo.to_sparse_csr().crows().numpy(), csr.crows().numpy())
    t = S.transpose(csr, [0, 2, 1])
    np.testing.assert_array_equal(t.to_dense().numpy(), d.transpose(0, 2, 1))
    t2 = S.transpose(csr, [2, 0, 1])
    np.testing.assert_array_equal(t2.to_dense().numpy(), d.transpose(2, 0, 1))


def test_hybrid_coo_to_csr_rejected():
    x = S.sparse_coo_tensor([[0], [1]], [[1.0, 2.0]], [2, 2, 2])
    with pytest.raises(ValueError, match="dense_dim"):
        x.to_sparse_csr()


# ----------------------------------------------------------------------------------
# structural functions


def test_transpose_coo():
    x = S.sparse_coo_tensor([[0, 1], [2, 0]], [1.0, 2.0], [2, 3])
    t = S.transpose(x, [1, 0])
    assert t.indices().tolist() == [[2, 0], [0, 1]] and t.shape == [3, 2]
    assert not t.is_coalesced()
    np.testing.assert_array_equal(t.to_dense().numpy(), x.to_dense().numpy().T)
    h = S.sparse_coo_tensor([[0, 1]], np.arange(12.0).reshape(2, 2, 3), [2, 2, 3])
    ht = S.transpose(h, [0, 2, 1])
    np.testing.assert_array_equal(ht.to_dense().numpy(), h.to_dense().numpy().transpose(0, 2, 1))
    with pytest.raises(ValueError, match="sparse axes"):
        S.transpose(h, [1, 0, 2])
    with pytest.raises(ValueError, match="permutation"):
        S.transpose(x, [0, 0])


def test_cast_isnan_is_same_shape():
    x = S.sparse_coo_tensor([[0, 2]], [float("nan"), 1.0], [3])
    assert S.isnan(x).values().tolist() == [True, False]
    y = S.cast(x, "int32", "float64")
    assert y.indices().dtype == np.int32 and y.dtype == np.float64
    c = S.cast(S.sparse_csr_tensor([0, 1], [0], [1.0], [1, 2]), index_dtype="int32")
    assert c.crows().dtype == np.int32 and c.cols().dtype == np.int32
    with pytest.raises(ValueError, match="too narrow"):
        S.cast(S.sparse_coo_tensor([[0]], [1.0], [300]), index_dtype="int8")
    with pytest.raises(S.UnsupportedDtypeError):
        S.cast(x, index_dtype="float32")
    assert S.is_same_shape(x, weft.zeros([3])) and not S.is_same_shape(x, weft.zeros([2]))
    assert x.astype("float64").dtype == np.float64


@pytest.mark.parametrize("values, dtype", [
    ([True, True, False], "int64"),   # duplicates of a bool tensor merge by `or`
    ([0.5, 1.5, 2.0], "int32"),       # truncation does not commute with the sum
    ([2, -2, 3], "bool"),             # the duplicates cancel: False, not True
])
@pytest.mark.parametrize("fmt", ["coo", "csr"])
def test_cast_of_duplicates_is_the_cast_of_their_sum(values, dtype, fmt):
    # regression: cast used to convert each duplicate entry on its own
    x = S.sparse_coo_tensor([[0, 0, 1], [1, 1, 0]], np.array(values), [2, 2])
    if fmt == "csr":
        x = S.sparse_csr_tensor([0, 2, 3], [1, 1, 0], np.array(values), [2, 2])
    y = S.cast(x, value_dtype=dtype)
    assert y.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(y.to_dense().numpy(), x.to_dense().numpy().astype(dtype))


@pytest.mark.parametrize("fmt", ["coo", "csr"])
@pytest.mark.parametrize("dtype", ["float64", "complex64"])
def test_isnan_of_duplicates_is_that_of_their_sum(fmt, dtype):
    # regression: inf and -inf stored at one position (NaN in to_dense) gave False
    v = np.array([np.inf, -np.inf, 1.0, np.nan], dtype=dtype)
    x = S.sparse_coo_tensor([[0, 0, 1, 1], [1, 1, 0, 1]], v, [2, 2])
    if fmt == "csr":
        x = S.sparse_csr_tensor([0, 2, 4], [1, 1, 0, 1], v, [2, 2])
    y = S.isnan(x)
    assert y.nnz() == 4  # the entries are kept
    np.testing.assert_array_equal(y.to_dense().numpy(), np.isnan(x.to_dense().numpy()))


def test_from_scipy_formats_and_to_scipy():
    a = sp.random(5, 4, density=0.4, format="csc", random_state=1)
    for fmt in ("csr", "csc", "coo", "bsr", "lil", "dok"):
        w = S.from_scipy(a.asformat(fmt))
        np.testing.assert_allclose(w.to_dense().numpy(), a.toarray())
        assert w.is_sparse_csr() == (fmt in ("csr", "bsr"))
    i32 = sp.csr_array(a)
    i32.indptr = i32.indptr.astype(np.int32)
    i32.indices = i32.indices.astype(np.int32)
    assert S.from_scipy(i32).crows().dtype == np.int32
    with pytest.raises(TypeError):
        S.from_scipy(np.eye(2))
    with pytest.raises(ValueError, match="2-D"):
        S.to_scipy(S.sparse_coo_tensor([[0]], [1.0], [2]))
