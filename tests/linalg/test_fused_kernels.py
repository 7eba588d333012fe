"""The fused kernels of the LAPACK driver and the rules built on them: the small real
solve (one elimination of the augmented row-major [A | B]), the solve with kept LU
factors (``solve(keep=True)`` / ``lu_solve``) that the backward of ``solve`` reuses,
and the fused Cholesky backward. References: numpy / scipy LAPACK and the rules in
weft ops; gradients by gradcheck / gradgradcheck through the cached-factor path.
"""
from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg

import weft
from weft import _native
from weft.autograd import gradcheck, gradgradcheck
from weft.autograd.engine import apply
from weft.core import backend as reg
from weft.linalg import _solvers
from tests.linalg._data import DTYPES, TOL, mats as _mats
from tests._threads import assert_same_on_1_and_2_threads

C = _native.extension


def _well(shape, dtype, seed=0):
    return (_mats(shape, dtype, seed) + 2 * shape[-1] * np.eye(shape[-1])).astype(dtype)


def _spd(shape, dtype, seed=0):
    a = _mats(shape, dtype, seed)
    return (a @ np.conj(np.swapaxes(a, -1, -2)) + shape[-1] * np.eye(shape[-1])).astype(dtype)


def _close(x, y, dtype, scale=1):
    np.testing.assert_allclose(x, y, rtol=scale * TOL[dtype], atol=scale * TOL[dtype])


def _ref(a):
    return a.astype(np.complex128 if a.dtype.kind == "c" else np.float64)


@pytest.fixture(autouse=True)
def _lapack():
    reg.resolve("linalg", "cpu")   # registers the LAPACK pointers with the driver


@pytest.mark.parametrize("dtype", DTYPES)
def test_solve_and_kept_factors_match_numpy_and_getrf(dtype):
    """Every size around the vector width and the small-matrix limit (32), several
    right-hand-side counts; the kept factors are getrf's (same pivots)."""
    getrf = scipy.linalg.get_lapack_funcs("getrf", dtype=np.dtype(dtype))
    for n in (1, 2, 3, 5, 8, 9, 17, 32, 33):
        for k in (0, 1, 4, 9):
            a = _mats((3, n, n), dtype, n)
            b = _mats((3, n, k), dtype, k + 50)
            x, info, lu, piv = C.lapack_solve(0, a, b, True)
            assert not info.any()
            _close(x, np.linalg.solve(_ref(a), _ref(b)), dtype, scale=n)
            for i in range(3):
                rlu, rpiv, _ = getrf(a[i])
                np.testing.assert_array_equal(piv[i], rpiv + 1)
                _close(lu[i], rlu, dtype, scale=n)
            plain, info2 = C.lapack_solve(0, a, b)
            np.testing.assert_array_equal(plain, x)   # keeping the factors changes nothing
            for trans, op in ((0, lambda m: m), (1, lambda m: np.swapaxes(m, -1, -2)),
                              (2, lambda m: np.conj(np.swapaxes(m, -1, -2)))):
                y = C.lapack_lu_solve(0, lu, piv, b, trans)
                _close(y, np.linalg.solve(_ref(op(a)), _ref(b)), dtype, scale=n)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_fused_solve_singular_and_nan_inputs(dtype):
    a = _well((5, 6, 6), dtype)
    a[1, :, 2] = 0                  # a zero column: info is the first zero pivot, 3
    a[3] = 0                        # all zero: info 1
    a[4, 0, 0] = np.nan             # NaN: no crash, a NaN solution
    x, info = C.lapack_solve(0, a, _mats((5, 6, 2), dtype))
    assert info.tolist()[:4] == [0, 3, 0, 1]
    assert np.isnan(x[1]).all() and np.isnan(x[3]).all() and np.isnan(x[4]).any()
    assert np.isfinite(x[0]).all() and np.isfinite(x[2]).all()
    with pytest.raises(ValueError, match=r"Input is not invertible \(the matrix at batch "
                                         r"index \(1,\) is singular\)"):
        weft.linalg.solve(weft.to_tensor(a[:4]), weft.to_tensor(_mats((4, 6, 2), dtype)))


def test_lu_solve_refuses_bad_pivots():
    a = _well((2, 4, 4), "float64")
    b = _mats((2, 4, 1), "float64")
    _, _, lu, piv = C.lapack_solve(0, a, b, True)
    for bad in (np.zeros_like(piv), piv + 4, piv.astype(np.int64)):
        with pytest.raises(ValueError, match="lapack_lu_solve: pivot"):
            C.lapack_lu_solve(0, lu, np.ascontiguousarray(bad), b, 0)


def test_fused_kernels_do_not_depend_on_the_thread_count():
    a, b = _well((64, 12, 12), "float64"), _mats((64, 12, 3), "float64", 1)
    l = np.linalg.cholesky(_spd((64, 12, 12), "float32")).astype("float32")
    g = _mats((64, 12, 12), "float32", 2)

    def outputs():
        x, _, lu, piv = C.lapack_solve(0, a, b, True)
        return [x, lu, piv, C.lapack_lu_solve(0, lu, piv, b, 2), C.lapack_solve(0, a, b)[0],
                C.lapack_cholesky_backward(0, l, g)]

    assert_same_on_1_and_2_threads(outputs)


def test_solve_backward_reuses_the_forward_factors(monkeypatch):
    """With a gradient recorded, the forward factors once and the backward solves with
    the kept factors (lu_solve, adjoint): no second factorisation."""
    be = reg.resolve("linalg", "cpu")
    calls = []
    real_solve, real_lu_solve = type(be).solve, type(be).lu_solve
    monkeypatch.setattr(type(be), "solve",
                        lambda self, *a, **k: calls.append("solve") or real_solve(self, *a, **k))
    monkeypatch.setattr(type(be), "lu_solve", lambda self, *a: calls.append("lu_solve " + a[-1])
                        or real_lu_solve(self, *a))
    a = weft.to_tensor(_well((4, 5, 5), "float64"), stop_gradient=False)
    b = weft.to_tensor(_mats((4, 5, 2), "float64"), stop_gradient=False)
    weft.linalg.solve(a, b).sum().backward()
    assert calls == ["solve", "lu_solve C"]
    want = np.linalg.solve(np.swapaxes(a.numpy(), -1, -2), np.ones((4, 5, 2)))
    np.testing.assert_allclose(b.grad.numpy(), want, rtol=1e-12)
    x = np.linalg.solve(a.numpy(), b.numpy())
    np.testing.assert_allclose(a.grad.numpy(), -want @ np.swapaxes(x, -1, -2), rtol=1e-10)


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_solve_gradients_through_the_kept_factors(dtype):
    a = weft.to_tensor(_well((2, 4, 4), dtype), stop_gradient=False)
    b = weft.to_tensor(_mats((2, 4, 3), dtype, 1), stop_gradient=False)
    bt = weft.to_tensor(_mats((2, 3, 4), dtype, 2), stop_gradient=False)
    one = weft.to_tensor(_well((4, 4), dtype, 3), stop_gradient=False)   # broadcast batch
    la = weft.linalg
    assert gradgradcheck(lambda a, b: la.solve(a, b), (a, b))
    assert gradgradcheck(lambda a, b: la.solve(a, b, left=False), (a, bt))
    assert gradgradcheck(lambda a, b: la.solve(a, b), (one, b))
    assert gradcheck(lambda a: la.solve(a, b.detach()), (a,))
    # the adjoint orientation the backward records, as a node of its own: factors kept
    # by a forward with the same matrix (fresh for every evaluation: they belong to a)
    def adjoint(a, b):
        f = _solvers._Factors()
        apply(_solvers._solve, a, b, factors=f)
        assert f.lu is not None
        return apply(_solvers._solve, a, b, factors=f, adjoint=True)

    assert gradgradcheck(adjoint, (a, b))
    assert gradcheck(lambda a, b: apply(_solvers._solve, a, b, factors=None, adjoint=True),
                     (a, b))
    x = adjoint(a, b).numpy()
    np.testing.assert_allclose(x, np.linalg.solve(np.conj(np.swapaxes(a.numpy(), -1, -2)),
                                                  b.numpy()), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("dtype", DTYPES)
def test_fused_cholesky_backward_matches_the_rule_in_weft_ops(dtype):
    for n in (1, 2, 5, 8, 16, 33):
        l = np.linalg.cholesky(_spd((3, n, n), dtype, n)).astype(dtype)
        g = _mats((3, n, n), dtype, n + 1)
        got = C.lapack_cholesky_backward(0, l, g)
        want = _solvers._chol_vjp_ops(weft.to_tensor(g), weft.to_tensor(l)).numpy()
        _close(got, want, dtype, scale=n)
        np.testing.assert_array_equal(got, np.conj(np.swapaxes(got, -1, -2)))   # Hermitian
        # only the lower triangles of L and Ḡ are read
        noise = np.triu(_mats((3, n, n), dtype, 7), 1)
        np.testing.assert_array_equal(C.lapack_cholesky_backward(0, l + noise, g + noise), got)


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_cholesky_gradients_to_third_order(dtype):
    la = weft.linalg
    a = weft.to_tensor(_spd((2, 4, 4), dtype), stop_gradient=False)

    def chol(a, upper=False):   # a Hermitian matrix from a free one, as the op database does
        return la.cholesky((a + weft.conj(la.matrix_transpose(a))) * 0.5, upper=upper)

    assert gradgradcheck(chol, (a,))
    assert gradgradcheck(lambda a: chol(a, True), (a,))
    # the fused backward's own rules (the third derivative of cholesky)
    l = weft.to_tensor(np.linalg.cholesky(_spd((2, 4, 4), dtype, 1)), stop_gradient=False)
    g = weft.to_tensor(_mats((2, 4, 4), dtype, 2), stop_gradient=False)
    bwd = lambda l, g: apply(_solvers._chol_bwd, weft.tril(l), weft.tril(g))   # noqa: E731
    assert gradcheck(bwd, (l, g))
    assert gradgradcheck(bwd, (l, g))


def test_cholesky_not_positive_definite_names_the_batch_index():
    bad = _spd((2, 3, 5, 5), "float64")
    bad[1, 2] = -np.eye(5)
    with pytest.raises(ValueError, match=r"The 5-th input matrix \(batch index \(1, 2\)\) "
                                         "might not be positive definite"):
        weft.linalg.cholesky(weft.to_tensor(bad))


def test_single_least_squares_restores_the_blas_thread_setting():
    """gelsd / gelss of one matrix up to 1024 columns hold the BLAS to one thread (faster
    there), gelsy keeps its threads; each gives the user's setting back and numpy's
    solution."""
    from threadpoolctl import threadpool_info
    before = [(d["filepath"], d["num_threads"]) for d in threadpool_info()]
    a, b = _mats((40, 7), "float64"), _mats((40, 2), "float64", 1)
    want = np.linalg.lstsq(a, b, rcond=None)[0]
    for driver in ("gelsd", "gelss", "gelsy"):
        got = weft.linalg.lstsq(weft.to_tensor(a), weft.to_tensor(b), driver=driver)[0]
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-10, atol=1e-12)
        assert [(d["filepath"], d["num_threads"]) for d in threadpool_info()] == before
