"""Masked gradients of the sparse foundation (api-sparse.md §6) and the engine hooks."""
import numpy as np
import pytest

import weft
from weft import sparse as S
from weft.autograd import GradcheckError, gradcheck, gradgradcheck

IDX = [[1, 0, 1, 2], [0, 2, 0, 1]]  # a duplicate at (1, 0), unsorted


def _coo(dtype="float64", index_dtype=np.int64, stop_gradient=False):
    rng = np.random.default_rng(0)
    v = rng.standard_normal(4)
    if np.dtype(dtype).kind == "c":
        v = v + 1j * rng.standard_normal(4)
    return S.sparse_coo_tensor(np.array(IDX, dtype=index_dtype), v.astype(dtype), [3, 3],
                               stop_gradient=stop_gradient)


def _dense(shape=(3, 3), dtype="float64", seed=1):
    a = np.random.default_rng(seed).standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        a = a + 1j * np.random.default_rng(seed + 1).standard_normal(shape)
    return weft.to_tensor(a.astype(dtype), stop_gradient=False)


def test_leaf_grad_is_masked_sparse_with_same_pattern():
    x = _coo(index_dtype=np.int32)
    w = weft.to_tensor(np.arange(9.0).reshape(3, 3))
    (x.to_dense() * w).sum().backward()
    g = x.grad
    assert isinstance(g, S.SparseCooTensor)
    assert g.indices().dtype == np.int32 and g.indices().tolist() == IDX
    np.testing.assert_array_equal(g.values().numpy(), [3.0, 2.0, 3.0, 7.0])
    # accumulation keeps the pattern
    (x.to_dense() * w).sum().backward()
    np.testing.assert_array_equal(x.grad.values().numpy(), [6.0, 4.0, 6.0, 14.0])


def test_backward_on_sparse_output_seeds_ones():
    d = _dense()
    s = d.to_sparse_csr()
    s.backward()
    np.testing.assert_array_equal(d.grad.numpy(), (d.numpy() != 0).astype(float))


def test_sparse_grad_tensor_must_match_pattern():
    x = _coo()
    y = S.coalesce(x)
    with pytest.raises(ValueError):
        y.backward(S.sparse_coo_tensor([[0], [0]], [1.0], [3, 3], dtype="float64"))


def test_values_grad_flows_into_values_tensor():
    v = weft.to_tensor([1.0, 2.0, 3.0], stop_gradient=False)
    x = S.sparse_coo_tensor([[0, 1, 2]], v, [4])
    assert not x.stop_gradient and not x.is_leaf
    (x.to_dense() * weft.to_tensor([1.0, 2.0, 3.0, 4.0])).sum().backward()
    np.testing.assert_array_equal(v.grad.numpy(), [1.0, 2.0, 3.0])


def test_values_accessor_grad_lands_in_sparse_leaf():
    x = _coo()
    (x.values() * 2.0).sum().backward()
    assert isinstance(x.grad, S.SparseCooTensor)
    np.testing.assert_array_equal(x.grad.values().numpy(), [2.0] * 4)


def test_retain_grads_on_sparse_non_leaf():
    x = _coo()
    c = S.coalesce(x)
    c.retain_grads()
    c.to_dense().sum().backward()
    assert isinstance(c.grad, S.SparseCooTensor) and c.grad.nnz() == c.nnz()


def test_weft_grad_returns_sparse():
    x = _coo()
    (g,) = weft.grad(x.to_dense().sum(), [x])
    assert isinstance(g, S.SparseCooTensor) and g.indices().tolist() == IDX


def test_coalesce_grad_each_entry_gets_slot_gradient():
    x = _coo()
    c = S.coalesce(x)
    w = weft.to_tensor([10.0, 20.0, 30.0])
    (c.values() * w).sum().backward()
    # slots after coalesce: (0,2), (1,0), (2,1); entries 0 and 2 merge into (1,0)
    np.testing.assert_array_equal(x.grad.values().numpy(), [20.0, 10.0, 20.0, 30.0])


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
@pytest.mark.parametrize("fn", [
    lambda s: s.to_dense(),
    lambda s: S.coalesce(s).values(),
    lambda s: S.transpose(s, [1, 0]).to_dense() * 2.0,
    lambda s: S.to_sparse_csr(s),
    lambda s: S.transpose(S.to_sparse_csr(s), [1, 0]).to_dense(),
    lambda s: S.cast(s, "int32").to_dense(),
    lambda s: s.clone().values(),
    lambda s: S.to_sparse_csr(s).to_sparse_coo(2),
], ids=["to_dense", "coalesce", "transpose", "to_csr", "csr_transpose", "cast", "clone",
        "csr_to_coo"])
def test_gradcheck_masked_sparse_input(fn, dtype):
    assert gradcheck(fn, _coo(dtype), masked=True)


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
@pytest.mark.parametrize("fn", [
    lambda a, m: S.mask_as(a, m),
    lambda a, m: a.to_sparse_coo(1),
    lambda a, m: a.to_sparse_csr().to_dense(),
    lambda a, m: S.mask_as(a, S.to_sparse_csr(m)).to_dense(),
], ids=["mask_as_coo", "to_coo", "to_csr", "mask_as_csr"])
def test_gradcheck_dense_source(fn, dtype):
    m = _coo(stop_gradient=True)
    assert gradcheck(lambda a: fn(a, m), _dense(dtype=dtype))


def test_gradgradcheck_through_conversions():
    x = _coo()
    assert gradgradcheck(lambda s: S.coalesce(s).to_dense() ** 3, x)
    d = _dense()
    m = _coo(stop_gradient=True)
    assert gradgradcheck(lambda a: S.mask_as(a, m).to_dense() ** 3, d)


def test_gradcheck_detects_wrong_pattern():
    x = _coo()

    def bad(s):
        # a values-shaped result whose gradient comes back dense: not the input pattern
        return s.to_dense().sum() * weft.ones([1], dtype="float64")
    assert gradcheck(bad, x)  # correct gradients pass
    with pytest.raises(NotImplementedError):
        gradcheck(lambda s: s.to_dense(), x, masked=False)


def test_gradcheck_sparse_output_pattern_change_detected():
    a = np.random.default_rng(0).standard_normal((3, 3))
    a[0, 0] = 0.0
    d = weft.to_tensor(a, stop_gradient=False)
    with pytest.raises(GradcheckError, match="pattern changed"):
        # perturbing the 0-valued entry changes the pattern of the dense->sparse conversion
        gradcheck(lambda t: t.to_sparse_coo(2), d)


def test_hybrid_transpose_grad():
    v = np.random.default_rng(0).standard_normal((2, 2, 3))
    x = S.sparse_coo_tensor([[0, 1]], v, [2, 2, 3], stop_gradient=False)
    assert gradcheck(lambda s: S.transpose(s, [0, 2, 1]).to_dense(), x)


def test_hook_on_sparse_non_leaf_sees_a_sparse_gradient():
    d = _dense()
    s = d.to_sparse_csr()  # a non-leaf: its history leads back to d
    seen = []

    def double(g):
        seen.append(g)
        return g * 2.0  # a sparse gradient of s's pattern
    h = s.register_hook(double)
    S.sin(s).values().sum().backward()
    (g,) = seen
    assert isinstance(g, S.SparseCsrTensor) and g.cols().tolist() == s.cols().tolist()
    np.testing.assert_allclose(g.values().numpy(), np.cos(s.values().numpy()))
    mask = d.numpy() != 0
    np.testing.assert_allclose(d.grad.numpy(), 2 * np.cos(d.numpy()) * mask)
    # a values-shaped dense return is accepted too; after remove() the hook is gone
    h.remove()
    assert not s._node.hooks[s._oidx]
    d.clear_grad()
    s = d.to_sparse_csr()
    s.register_hook(lambda g: g.values() * 0.0)
    S.sin(s).values().sum().backward()
    np.testing.assert_array_equal(d.grad.numpy(), np.zeros((3, 3)))


def test_to_sparse_csr_with_grad_reuses_the_kernel_sums():
    # issue 16 item 22: the differentiable conversion takes the coalesce kernel's sums
    # (no second scatter); they equal the sums without gradients bit for bit, and the
    # gradient of every duplicate is that of its slot
    rng = np.random.default_rng(7)
    idx = rng.integers(0, 5, (2, 40))
    vals = rng.standard_normal(40)
    plain = weft.sparse.sparse_coo_tensor(idx, vals, [5, 5]).to_sparse_csr()
    x = weft.sparse.sparse_coo_tensor(idx, vals, [5, 5], stop_gradient=False)
    y = x.to_sparse_csr()
    np.testing.assert_array_equal(y.values().numpy(), plain.values().numpy())
    np.testing.assert_array_equal(y.cols().numpy(), plain.cols().numpy())
    w = rng.standard_normal(y.nnz())
    (y.values() * weft.to_tensor(w)).sum().backward()
    slot = {(r, c): k for k, (r, c) in enumerate(zip(np.repeat(np.arange(5), np.diff(y.crows().numpy())),
                                                     y.cols().numpy()))}
    want = np.array([w[slot[(r, c)]] for r, c in idx.T])
    np.testing.assert_array_equal(x.grad.values().numpy(), want)
