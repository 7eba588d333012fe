"""Regressions from issue 16 (Paddle's own tests and a malformed-input probe)."""
import numpy as np
import pytest

import weft
import weft.geometric as G


def _leaf(values):
    return weft.to_tensor(np.asarray(values, dtype=np.float64), stop_gradient=False)


# -- item 15: an output saved for backward is version-checked like a saved input ----------

@pytest.mark.parametrize("op", [weft.exp, weft.tanh, weft.nn.functional.sigmoid])
def test_inplace_change_of_saved_output_raises(op):
    x = _leaf([0.5, 1.0])
    y = op(x)
    z = y * 2
    y.multiply_(weft.to_tensor([2.0, 2.0], dtype="float64"))
    with pytest.raises(RuntimeError, match=r"output 0 of .* modified by an inplace"):
        z.sum().backward()


def test_inplace_change_of_saved_send_u_recv_max_output_raises():
    x = _leaf([[1.0], [2.0], [3.0]])
    y = G.send_u_recv(x, weft.to_tensor([0, 1, 2]), weft.to_tensor([1, 1, 0]), reduce_op="max")
    z = y * 1
    y.add_(weft.ones_like(y))
    with pytest.raises(RuntimeError, match="modified by an inplace"):
        z.sum().backward()


def test_saved_output_untouched_still_differentiates():
    x = _leaf([0.5, 1.0])
    y = weft.exp(x)
    (y * 2).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * np.exp([0.5, 1.0]))


# -- item 16: numpy() of a tensor that requires grad is a read-only view ------------------

def test_numpy_of_tensor_requiring_grad_is_read_only():
    x = _leaf([1.0, 2.0])
    y = x * 3
    for t in (x, y):
        a = t.numpy()
        assert not a.flags.writeable
        with pytest.raises(ValueError):
            a[0] = 5.0
        with pytest.raises(ValueError):
            np.asarray(t)[0] = 5.0
    # zero-copy stays: the view sees later (legitimate) in-place updates
    a = y.numpy()
    y.add_(weft.ones_like(y))
    assert a[0] == 4.0
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [3.0, 3.0])


def test_numpy_of_constant_and_detached_is_writable_view():
    c = weft.to_tensor([1.0, 2.0])
    c.numpy()[0] = 7.0
    assert c.tolist() == [7.0, 2.0]
    x = _leaf([1.0, 2.0])
    x.detach().numpy()[1] = 9.0
    assert x.tolist() == [1.0, 9.0]
    assert np.array(x).flags.writeable   # np.array copies


# -- item 10: batched CSR transpose sends its gradient to a leaf input --------------------

@pytest.mark.parametrize("perm", [[0, 2, 1], [1, 0, 2], [2, 1, 0], [1, 2, 0]])
def test_batched_csr_transpose_gradient_reaches_leaf(perm):
    rng = np.random.default_rng(0)
    d = rng.standard_normal((2, 3, 4)) * (rng.random((2, 3, 4)) < 0.5)
    d[:, 0, 0] = 1.0  # every batch stores something
    x = weft.to_tensor(d).to_sparse_csr()
    x.stop_gradient = False
    y = weft.sparse.transpose(x, perm)
    w = rng.standard_normal(d.transpose(perm).shape)
    (y.to_dense() * weft.to_tensor(w)).sum().backward()
    assert x.grad is not None
    np.testing.assert_allclose(x.grad.to_dense().numpy(),
                               w.transpose(np.argsort(perm)) * (d != 0))
    assert weft.autograd.gradcheck(lambda v: weft.sparse.transpose(v, perm).to_dense(), [x])


def test_csr_reshape_to_3d_gradient_reaches_leaf():
    d = np.zeros((4, 6))
    d[0, 1], d[2, 5], d[3, 0] = 1.0, 2.0, 3.0
    x = weft.to_tensor(d).to_sparse_csr()
    x.stop_gradient = False
    y = weft.sparse.reshape(x, [2, 2, 6])
    (y.to_dense() * 2).sum().backward()
    assert x.grad is not None
    np.testing.assert_allclose(x.grad.to_dense().numpy(), 2.0 * (d != 0))
