"""Behaviour of lu / lu_unpack / lu_solve, lstsq and eig / eigvals beyond the op
database: gauge warnings, dtypes of the auxiliary outputs, half precision."""
import warnings

import numpy as np
import pytest

import weft
from weft.autograd import GaugeWarning

L = weft.linalg


def _leaf(a):
    return weft.to_tensor(a, stop_gradient=False)


def test_eig_gauge_dependent_loss_warns_and_invariant_does_not():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((3, 3)) + 1j * rng.standard_normal((3, 3))
    _, v = L.eig(_leaf(a))
    with pytest.warns(GaugeWarning):
        weft.imag(v).sum().backward()
    _, v = L.eig(_leaf(a))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        weft.abs(v).sum().backward()


def test_eig_of_real_input_is_complex_with_unit_vectors_and_real_gradient():
    a = np.array([[0.0, -2.0], [1.0, 0.5]], np.float32)
    x = _leaf(a)
    w, v = L.eig(x)
    assert w.dtype == np.complex64 and v.dtype == np.complex64
    np.testing.assert_allclose(np.linalg.norm(v.numpy(), axis=0), 1.0, rtol=1e-5)
    np.testing.assert_allclose(a @ v.numpy(), v.numpy() * w.numpy(), atol=1e-5)
    weft.real(L.eigvals(x)).sum().backward()
    assert x.grad.dtype == np.float32
    np.testing.assert_allclose(x.grad.numpy(), np.eye(2), atol=1e-5)   # d tr(A) / dA


def test_lu_half_precision_and_pivot_free_round_trip():
    a = np.array([[4.0, 3.0], [6.0, 3.0]], np.float16)
    f, piv, info = L.lu(weft.to_tensor(a), get_infos=True)
    assert f.dtype == np.float16 and piv.dtype == np.int32 and info.dtype == np.int32
    assert piv.tolist() == [2, 2] and info.tolist() == 0
    b = np.array([[1.0], [2.0]])
    f, piv = L.lu(weft.to_tensor(a.astype(np.float64)), pivot=False)
    assert piv.tolist() == [1, 2]
    x = L.lu_solve(weft.to_tensor(b), f, piv)
    np.testing.assert_allclose(x.numpy(), np.linalg.solve(a.astype(np.float64), b))


def test_lstsq_outputs_carry_no_gradient_but_the_solution_does():
    rng = np.random.default_rng(1)
    x = _leaf(rng.standard_normal((5, 3)).astype(np.float32))
    y = weft.to_tensor(rng.standard_normal((5, 2)).astype(np.float32))
    sol, res, rank, sv = L.lstsq(x, y, driver="gelsd")
    assert not sol.stop_gradient
    assert res.stop_gradient and rank.stop_gradient and sv.stop_gradient
    assert res.dtype == np.float32 and rank.dtype == np.int32 and sv.dtype == np.float32
