"""to_sparse_coo(k) on sparse input changes the number of sparse axes without
densifying the tensor: against the dense -> COO conversion and with gradcheck."""
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import weft
from weft import sparse as S
from weft.autograd import gradcheck, gradgradcheck


@st.composite
def _case(draw):
    shape = draw(st.lists(st.integers(0, 3), min_size=2, max_size=4))
    s = draw(st.integers(1, len(shape)))
    k = draw(st.integers(1, len(shape)))
    seed = draw(st.integers(0, 2 ** 16))
    return shape, s, k, seed


@given(_case(), st.booleans())
def test_relayout_matches_dense_conversion(case, duplicate):
    shape, s, k, seed = case
    rng = np.random.default_rng(seed)
    d = rng.standard_normal(shape) * (rng.random(shape) < 0.4)
    x = weft.to_tensor(d).to_sparse_coo(s)
    if duplicate and x.nnz():
        # the same entries twice, half the values each, unsorted: an uncoalesced input
        idx = np.concatenate([x.indices().numpy()] * 2, axis=1)[:, ::-1]
        v = np.concatenate([x.values().numpy() / 2] * 2)[::-1]
        x = S.sparse_coo_tensor(idx.copy(), v.copy(), shape)
    y = x.to_sparse_coo(k)
    assert y.sparse_dim() == k and y.shape == list(shape)
    np.testing.assert_allclose(y.to_dense().numpy(), d, atol=1e-12)
    if y.is_coalesced():
        assert S.coalesce(y).nnz() == y.nnz()
    if k > s:
        # more sparse axes: every position of every stored slice stays stored
        assert y.nnz() == x.nnz() * int(np.prod(shape[s:k]))
        assert y.is_coalesced() == x.is_coalesced()


@pytest.mark.parametrize("s, k", [(1, 3), (3, 1), (2, 3), (3, 2)])
def test_relayout_gradients(s, k):
    rng = np.random.default_rng(s * 10 + k)
    d = rng.standard_normal((3, 2, 4)) * (rng.random((3, 2, 4)) < 0.6)
    x = weft.to_tensor(d).to_sparse_coo(s)
    x.stop_gradient = False
    w = weft.to_tensor(rng.standard_normal((3, 2, 4)))

    def f(t):
        return (t.to_sparse_coo(k).to_dense() * w).sum()
    assert gradcheck(f, x, masked=True)
    assert gradgradcheck(f, x, masked=True)


def test_relayout_keeps_int32_indices():
    x = S.sparse_coo_tensor(np.array([[0, 2]], dtype=np.int32), [[1.0, 0.0], [0.0, 2.0]], [3, 2])
    y = x.to_sparse_coo(2)
    assert y.indices().dtype == np.int32 and y.indices().tolist() == [[0, 0, 2, 2], [0, 1, 0, 1]]
    assert y.to_sparse_coo(1).indices().dtype == np.int32


def test_csr_to_hybrid_coo_keeps_rows():
    c = weft.to_tensor([[0.0, 1.0, 0.0], [0.0, 0.0, 0.0], [2.0, 0.0, 3.0]]).to_sparse_csr()
    h = c.to_sparse_coo(1)
    assert h.indices().tolist() == [[0, 2]] and h.values().shape == [2, 3]
    np.testing.assert_array_equal(h.to_dense().numpy(), c.to_dense().numpy())
