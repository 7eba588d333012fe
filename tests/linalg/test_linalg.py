"""weft.linalg behaviour the op database cannot express: backward errors, the gauge
warning, the repeated-eigenvalue guard, identities between functions, half precision,
``out=`` and the aliases with the top level (api-linalg.md)."""
import warnings

import numpy as np
import pytest

import weft
from weft.autograd import GaugeWarning

L = weft.linalg


def _leaf(a):
    return weft.to_tensor(a, stop_gradient=False)


def test_same_objects_as_top_level():
    assert L.matmul is weft.matmul and L.diagonal is weft.diagonal
    assert L.norm is weft.norm and L.cross is weft.cross
    assert weft.inverse is L.inv


@pytest.mark.parametrize("mode", ["complete", "r"])
def test_qr_backward_refused_where_q_is_arbitrary(mode):
    x = _leaf(np.random.default_rng(0).standard_normal((4, 3)))
    out = L.qr(x, mode=mode)
    loss = (out[0] if mode == "complete" else out).sum()
    with pytest.raises(ValueError, match="derivative of qr is not implemented when mode="):
        loss.backward()


def test_qr_backward_refuses_dependent_columns():
    x = _leaf(np.array([[1.0, 2.0], [2.0, 4.0], [3.0, 6.0]]))
    q, r = L.qr(x)
    with pytest.raises(ValueError, match="linearly independent"):
        (q.sum() + r.sum()).backward()


def test_gauge_warning_for_phase_dependent_loss():
    rng = np.random.default_rng(1)
    a = rng.standard_normal((3, 3)) + 1j * rng.standard_normal((3, 3))
    x = _leaf(a + a.conj().T)
    _, v = L.eigh(x)
    with pytest.warns(GaugeWarning):
        weft.imag(v).sum().backward()
    x = _leaf(a)
    u, _, _ = L.svd(x)
    with pytest.warns(GaugeWarning):
        weft.imag(u).sum().backward()


def test_phase_invariant_loss_gives_no_warning():
    rng = np.random.default_rng(2)
    a = rng.standard_normal((3, 3)) + 1j * rng.standard_normal((3, 3))
    x = _leaf(a)
    u, s, vh = L.svd(x)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        weft.abs(u).sum().backward()


def test_repeated_eigenvalues_projector_gradient():
    # the projector onto a degenerate eigenspace is well defined; its gradient is finite
    # and matches the gradient computed on a slightly split spectrum
    rng = np.random.default_rng(3)
    q, _ = np.linalg.qr(rng.standard_normal((3, 3)))
    c = rng.standard_normal((3, 3))

    def grad(d):
        x = _leaf(q @ np.diag(d) @ q.T)
        _, v = L.eigh(x)
        p = L.matmul(v[:, 1:], v[:, 1:], transpose_y=True)
        (p * weft.to_tensor(c)).sum().backward()
        return x.grad.numpy()

    g = grad([1.0, 3.0, 3.0])
    assert np.isfinite(g).all()
    np.testing.assert_allclose(g, grad([1.0, 3.0, 3.0 + 1e-7]), atol=1e-5)
    x = _leaf(np.eye(3))
    L.eigvalsh(x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.eye(3), atol=1e-12)


def test_svdvals_gradient_of_zero_matrix_is_finite():
    x = _leaf(np.zeros((3, 2)))
    L.svdvals(x).sum().backward()
    assert np.isfinite(x.grad.numpy()).all()


def test_inv_inv_and_solve_residual():
    rng = np.random.default_rng(4)
    a = rng.standard_normal((5, 4, 4)) + 4 * np.eye(4)
    b = rng.standard_normal((5, 4, 2))
    x = weft.to_tensor(a)
    np.testing.assert_allclose(L.inv(L.inv(x)).numpy(), a, atol=1e-12)
    np.testing.assert_allclose(a @ L.solve(x, weft.to_tensor(b)).numpy(), b, atol=1e-12)


def test_half_precision_computed_in_float32():
    a = np.array([[4.0, 1.0], [1.0, 3.0]])
    x = weft.to_tensor(a).astype("float16")
    r = L.inv(x)
    assert r.dtype == x.dtype
    np.testing.assert_allclose(r.numpy().astype(np.float64), np.linalg.inv(a), rtol=2e-3)
    w = L.eigvalsh(x)
    assert w.dtype == x.dtype


def test_solve_out():
    a = weft.to_tensor(np.array([[2.0, 0.0], [0.0, 4.0]]))
    out = weft.zeros([2], dtype="float64")
    r = L.solve(a, weft.to_tensor(np.array([2.0, 4.0])), out=out)
    assert r is out
    assert out.tolist() == [1.0, 1.0]


def test_multi_dot_order_is_cost_optimal():
    # CLRS 15.2: chain 30x35, 35x15, 15x5, 5x10, 10x20, 20x25 -> ((A1(A2A3))((A4A5)A6))
    from weft.linalg._composite import _chain_order
    split = _chain_order([30, 35, 15, 5, 10, 20, 25])
    assert split[0][5] == 2 and split[0][2] == 0 and split[3][5] == 4
