"""The batch-parallel LAPACK driver (csrc/linalg/lapack.cpp) behind the ``lapack``
backend of ``weft.linalg``: results equal numpy/scipy for every dtype, do not depend
on the thread count, failures name the batch index, oversized workspaces are refused
before LAPACK sees them, and ``weft.set_backend("linalg", ...)`` switches the backend.
"""
from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg

import weft
from weft import _native
from weft.core import backend as reg
from weft.linalg import backends as lb
from tests.linalg._data import DTYPES, TOL, mats as _mats
from tests._threads import assert_same_on_1_and_2_threads, outputs_on_1_and_2_threads



def _spd(shape, dtype, seed=0):
    a = _mats(shape, dtype, seed)
    n = shape[-1]
    return (a @ np.conj(np.swapaxes(a, -1, -2)) + n * np.eye(n)).astype(dtype)


def _close(x, y, dtype):
    np.testing.assert_allclose(x, y, rtol=TOL[dtype], atol=TOL[dtype])


def _t(a):
    return weft.to_tensor(a)


@pytest.mark.parametrize("dtype", DTYPES)
def test_native_forwards_equal_numpy_and_scipy(dtype):
    a = _mats((3, 2, 5, 5), dtype)
    b = _mats((3, 2, 5, 2), dtype, 1)
    s = _spd((3, 5, 5), dtype, 2)
    la = weft.linalg
    _close(la.inv(_t(a)).numpy(), np.linalg.inv(a), dtype)
    _close(la.solve(_t(a), _t(b)).numpy(), np.linalg.solve(a, b), dtype)
    _close(la.det(_t(a)).numpy(), np.linalg.det(a), dtype)
    sign, logabs = la.slogdet(_t(a)).numpy()
    rs, rl = np.linalg.slogdet(a)
    _close(sign, rs, dtype)
    _close(logabs, rl, dtype)
    _close(la.cholesky(_t(s)).numpy(), np.linalg.cholesky(s), dtype)
    _close(la.cholesky(_t(s), upper=True).numpy(), np.conj(np.swapaxes(np.linalg.cholesky(s), -1, -2)), dtype)
    l = np.linalg.cholesky(s)
    bs = b[0, 0]
    _close(la.cholesky_solve(_t(np.broadcast_to(bs, (3, 5, 2)).copy()), _t(l)).numpy(), np.linalg.solve(s, bs), dtype)
    u = np.triu(a[0, 0]) + 5 * np.eye(5, dtype=dtype)
    for upper, trans in [(True, False), (False, True)]:
        tri = u if upper else u.T
        want = scipy.linalg.solve_triangular(tri, b[0, 0], lower=not upper, trans=1 if trans else 0)
        got = la.triangular_solve(_t(tri), _t(b[0, 0]), upper=upper, transpose=trans).numpy()
        _close(got, want, dtype)
    w, v = la.eigh(_t(s))
    rw, rv = np.linalg.eigh(s)
    _close(w.numpy(), rw, dtype)
    _close(np.abs(v.numpy()), np.abs(rv), dtype)    # columns up to sign / phase
    _close(la.eigvalsh(_t(s), UPLO="U").numpy(), np.linalg.eigvalsh(s, UPLO="U"), dtype)
    for shape in [(2, 6, 4), (2, 4, 6)]:
        x = _mats(shape, dtype, 3)
        uu, ss, vh = la.svd(_t(x))
        _close(ss.numpy(), np.linalg.svd(x, compute_uv=False), dtype)
        _close((uu.numpy() * ss.numpy()[..., None, :]) @ vh.numpy(), x, dtype)
        _close(la.svdvals(_t(x)).numpy(), np.linalg.svd(x, compute_uv=False), dtype)
        for mode in ["reduced", "complete"]:
            q, r = la.qr(_t(x), mode=mode)
            rq, rr = np.linalg.qr(x, mode=mode)
            _close(q.numpy(), rq, dtype)
            _close(r.numpy(), rr, dtype)
        _close(la.qr(_t(x), mode="r").numpy(), np.linalg.qr(x, mode="r"), dtype)
    w, v = la.eig(_t(a[0]))
    rw, rv = scipy.linalg.eig(a[0, 0])
    _close(w.numpy()[0], rw, dtype)
    _close(v.numpy()[0], rv, dtype)
    f, piv = la.lu(_t(a))
    rlu, rpiv = scipy.linalg.lu_factor(a[1, 1])
    _close(f.numpy()[1, 1], rlu, dtype)
    np.testing.assert_array_equal(piv.numpy()[1, 1], rpiv + 1)
    tall = _mats((3, 8, 3), dtype, 4)
    rhs = _mats((3, 8, 2), dtype, 5)
    sol = la.lstsq(_t(tall), _t(rhs), driver="gelsd")
    for i in range(3):
        rx, _, rk, rsv = np.linalg.lstsq(tall[i], rhs[i], rcond=None)
        _close(sol[0].numpy()[i], rx, dtype)
        assert int(sol[2].numpy()[i]) == rk
        _close(sol[3].numpy()[i], rsv, dtype)


def _all_outputs():
    rng = np.random.default_rng(7)
    a = rng.standard_normal((12, 9, 9))
    s = a @ np.swapaxes(a, -1, -2) + 9 * np.eye(9)
    b = rng.standard_normal((12, 9, 3))
    la = weft.linalg
    outs = [la.inv(_t(a)), la.solve(_t(a), _t(b)), la.det(_t(a)), la.slogdet(_t(a)),
            la.cholesky(_t(s)), *la.eigh(_t(s)), *la.svd(_t(a)), *la.qr(_t(a)), *la.eig(_t(a)),
            *la.lu(_t(a)), la.triangular_solve(_t(s), _t(b)),
            la.lstsq(_t(a[:, :, :5]), _t(b), driver="gelsd")[0]]
    return [o.numpy().copy() for o in outs]


def test_results_do_not_depend_on_the_thread_count():
    assert_same_on_1_and_2_threads(_all_outputs)


def test_batched_call_restores_the_blas_thread_setting():
    from threadpoolctl import threadpool_info
    weft.linalg.inv(_t(_mats((4, 3, 3), "float64")))
    before = [(d["filepath"], d["num_threads"]) for d in threadpool_info()]
    weft.linalg.eigh(_t(_spd((8, 20, 20), "float64")))
    assert [(d["filepath"], d["num_threads"]) for d in threadpool_info()] == before


def test_failures_name_the_batch_index():
    a = np.stack([np.eye(3), np.eye(3), np.zeros((3, 3))]).reshape(3, 1, 3, 3)
    for f in (weft.linalg.inv, lambda x: weft.linalg.solve(x, weft.ones([3, 1, 3, 2], dtype="float64"))):
        with pytest.raises(ValueError, match=r"Input is not invertible \(the matrix at batch index \(2, 0\) is singular\)"):
            f(_t(a))
    bad = np.stack([np.eye(2), np.eye(2), -np.eye(2)])
    with pytest.raises(ValueError, match="The 2-th input matrix might not be positive definite"):
        weft.linalg.cholesky(_t(bad))
    with pytest.raises(ValueError, match=r"zero on the diagonal \(the matrix at batch index \(1,\) is singular\)"):
        weft.linalg.triangular_solve(_t(np.stack([np.eye(2), np.diag([1.0, 0.0])])),
                                     _t(np.ones((2, 2, 1))))


@pytest.mark.parametrize("op", ["eigh", "eigvalsh", "svd", "svdvals", "eig", "eigvals"])
def test_nan_input_to_iterative_routines_is_refused_not_passed_to_lapack(op):
    a = np.stack([np.eye(3), np.eye(3)])
    a[1, 2, 0] = np.nan     # in the lower triangle, which eigh reads
    with pytest.raises(np.linalg.LinAlgError, match=r"NaN or infinity \(the matrix at batch index \(1,\)\)"):
        getattr(weft.linalg, op)(_t(a))


def test_nan_outside_the_read_triangle_is_ignored_like_numpy():
    a = np.eye(3)
    a[0, 2] = np.nan
    np.testing.assert_array_equal(weft.linalg.eigvalsh(_t(a)).numpy(), np.linalg.eigvalsh(a))


def test_workspace_that_overflows_lapack_integers_is_refused_before_the_call():
    C = _native.extension
    # empty batches of huge matrices: nothing is allocated, the size checks still run
    with pytest.raises(ValueError, match="exceeds the 32-bit integer range"):
        C.lapack_eigh(0, np.zeros((0, 40000, 40000)), True, True)
    with pytest.raises(ValueError, match="exceeds the 32-bit integer range"):
        C.lapack_svd(0, np.zeros((0, 30000, 30000)), 1)
    with pytest.raises(ValueError, match="exceeds the 32-bit integer range"):
        C.lapack_lu(0, np.zeros((0, 1, 2 ** 31)))


def test_singular_cond_is_huge_or_infinite_for_every_dtype():
    for dtype in DTYPES:
        a = np.array([[1.0, 2.0], [2.0, 4.0]], dtype)
        eps = np.finfo(a.dtype).eps
        for p in (None, 2):
            assert weft.linalg.cond(_t(a), p).item() >= 1 / (100 * eps)
        assert weft.linalg.cond(_t(a), -2).item() <= 100 * eps


def test_set_backend_switches_the_table(monkeypatch):
    calls = []
    base = reg.resolve("linalg", "cpu")

    class Counting(lb.Lapack):
        def __init__(self):
            self.__dict__.update(base.__dict__)
            self.name = "counting"

        def solve(self, a, b):
            calls.append(a.shape)
            return super().solve(a, b)

    reg.register_backend("linalg", "counting", module="scipy", package="scipy", device="cpu",
                         load=Counting)
    try:
        a = _t(np.eye(2))
        weft.linalg.solve(a, a)
        assert calls == []
        with weft.backend("linalg", "counting"):
            assert weft.get_backend("linalg", "cpu") == "counting"
            np.testing.assert_array_equal(weft.linalg.solve(a, a).numpy(), np.eye(2))
        assert calls == [(2, 2)]
        weft.linalg.solve(a, a)
        assert len(calls) == 1
    finally:
        reg.unregister_backend("linalg", "counting")


@pytest.mark.skipif(not reg.is_available("linalg", "mkl") or reg.mkl_runtime() is None,
                    reason="the mkl backend needs mkl-service and the mkl wheel (weft[mkl])")
@pytest.mark.parametrize("dtype", DTYPES)
def test_mkl_backend_agrees_with_lapack(dtype):
    a = _mats((4, 6, 6), dtype)
    s = _spd((4, 6, 6), dtype)
    la = weft.linalg
    with weft.backend("linalg", "mkl"):
        got = [la.inv(_t(a)), la.det(_t(a)), la.cholesky(_t(s)), la.eigvalsh(_t(s)), la.svdvals(_t(a))]
    want = [la.inv(_t(a)), la.det(_t(a)), la.cholesky(_t(s)), la.eigvalsh(_t(s)), la.svdvals(_t(a))]
    for x, y in zip(got, want):
        _close(x.numpy(), y.numpy(), dtype)


@pytest.mark.skipif(not reg.is_available("linalg", "mkl") or reg.mkl_runtime() is None,
                    reason="the mkl backend needs mkl-service and the mkl wheel (weft[mkl])")
def test_mkl_batches_hold_each_worker_to_one_mkl_thread_and_restore_it():
    """A batch on the mkl backend sets MKL's per-thread count to 1 in each worker (the
    global limit does not reach calls from weft's pool) and gives the calling thread its
    own count back. MKL's results depend on the alignment of its buffers unless its
    conditional numerical reproducibility is on (MKL_CBWR), so 1 and 2 weft threads
    agree to rounding here, not bit for bit as on the default provider."""
    import ctypes
    mkl = ctypes.CDLL(reg.mkl_runtime())
    s = _spd((16, 24, 24), "float64")
    with weft.backend("linalg", "mkl"):
        weft.linalg.eigh(_t(s[:2]))                    # loads the backend
        before = mkl.MKL_Get_Max_Threads()
        one, two = outputs_on_1_and_2_threads(lambda: weft.linalg.eigvalsh(_t(s)).numpy())
        assert mkl.MKL_Get_Max_Threads() == before
    np.testing.assert_allclose(one, two, rtol=1e-13)
    np.testing.assert_allclose(weft.linalg.eigvalsh(_t(s)).numpy(), np.linalg.eigvalsh(s),
                               rtol=1e-12)

def test_gpu_host_fallback_warns_once():
    lb._warned.discard("demo_op")
    with pytest.warns(RuntimeWarning, match="demo_op: CuPy has no batched demo_op"):
        lb.host_fallback_warning("demo_op")
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        lb.host_fallback_warning("demo_op")    # the second time: silent


@pytest.mark.parametrize("dtype", DTYPES)
def test_small_lu_path_matches_lapack_getrf(dtype):
    """Up to 32 rows and columns the driver runs getf2's algorithm itself; the pivots
    and info must be LAPACK's and the factors LAPACK's up to rounding."""
    C = _native.extension
    reg.resolve("linalg", "cpu")
    getrf = scipy.linalg.get_lapack_funcs("getrf", dtype=np.dtype(dtype))
    cases = [_mats((m, n), dtype, s) for s, (m, n) in enumerate([(1, 1), (2, 2), (7, 4), (4, 7),
                                                                 (32, 32), (33, 33)])]
    z = np.zeros((4, 4), dtype)
    z[:, 1:] = _mats((4, 3), dtype, 9)          # a zero first column: info 1, no scaling
    tie = np.array([[1.0, 2.0], [-1.0, 3.0]], dtype)   # |1| = |-1|: the first one wins
    for a in cases + [z, tie, np.zeros((3, 3), dtype)]:
        lu, piv, info = C.lapack_lu(0, a[None])
        rlu, rpiv, rinfo = getrf(a)
        np.testing.assert_array_equal(piv[0], rpiv[: min(a.shape)] + 1)
        assert info[0] == rinfo
        _close(lu[0], rlu, dtype)
        if a.shape[0] == a.shape[1] and rinfo == 0:
            b = _mats((a.shape[0], 3), dtype, 4)
            x, _ = C.lapack_solve(0, a[None], b[None])
            _close(x[0], np.linalg.solve(a.astype(np.complex128), b), dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_triangular_solve_every_variant_matches_scipy(dtype):
    """trans N/T/C, upper/lower, unit diagonal or not, on both sides of the driver's
    small-matrix limit (32): against scipy.linalg.solve_triangular."""
    C = _native.extension
    reg.resolve("linalg", "cpu")
    for n in (5, 40):
        a = _mats((n, n), dtype, n) + 4 * np.eye(n, dtype=dtype)
        b = _mats((n, 3), dtype, n + 1)
        for upper in (True, False):
            for trans in (0, 1, 2):
                for unit in (False, True):
                    x, info = C.lapack_triangular_solve(0, a[None], b[None], upper, trans, unit)
                    want = scipy.linalg.solve_triangular(a, b, lower=not upper, trans=trans,
                                                         unit_diagonal=unit)
                    assert info[0] == 0
                    _close(x[0], want, dtype)
        z = np.triu(a)
        z[2, 2] = 0
        x, info = C.lapack_triangular_solve(0, z[None], b[None], True, 0, False)
        assert info[0] == 3 and np.isnan(x).all()


@pytest.mark.parametrize("dtype", DTYPES)
def test_single_large_triangular_system_matches_scipy(dtype):
    """One system above the small-matrix limit goes to scipy's trtrs on the caller's
    layout (a transposed, Fortran-ordered right-hand side is read in place): every
    variant against scipy.linalg.solve_triangular, and a zero pivot reported as info."""
    be = reg.resolve("linalg", "cpu")
    n = 40
    a = _mats((n, n), dtype, 7) + 4 * np.eye(n, dtype=dtype)
    for b in (_mats((n, 5), dtype, 8), _mats((50, n), dtype, 9).T):
        for batch in ((), (1,)):
            for upper in (True, False):
                for trans in "NTC":
                    for unit in (False, True):
                        x, info = be.triangular_solve(a.reshape(batch + a.shape),
                                                      b.reshape(batch + b.shape), upper, trans,
                                                      unit)
                        want = scipy.linalg.solve_triangular(a, b, lower=not upper,
                                                             trans=trans, unit_diagonal=unit)
                        assert x.shape == batch + b.shape and info.shape == batch
                        assert (info == 0).all()
                        _close(x.reshape(b.shape), want, dtype)
    z = np.triu(a)
    z[4, 4] = 0
    with pytest.raises(ValueError, match=r"not invertible.*zero on the diagonal"):
        weft.linalg.triangular_solve(weft.to_tensor(z), weft.to_tensor(_mats((n, 2), dtype, 3)))


@pytest.mark.parametrize("dtype", DTYPES)
def test_small_cholesky_path_matches_lapack_potrf(dtype):
    """Up to 32x32 the driver runs potf2's algorithm itself: the factor equals LAPACK's
    up to rounding and a failure reports LAPACK's info (the first bad pivot)."""
    C = _native.extension
    reg.resolve("linalg", "cpu")
    potrf = scipy.linalg.get_lapack_funcs("potrf", dtype=np.dtype(dtype))
    for n in (1, 3, 32, 33):
        s = _spd((n, n), dtype, n)
        l, info = C.lapack_cholesky(0, s[None])
        rl, rinfo = potrf(s, lower=True)
        assert info[0] == rinfo == 0
        _close(l[0], np.tril(rl), dtype)
        bad = s.copy()
        bad[n // 2, n // 2] = -1e3 * n      # the first non-positive pivot at n // 2
        _, info = C.lapack_cholesky(0, bad[None])
        assert info[0] == potrf(bad, lower=True)[1] == n // 2 + 1


def test_cusolver_table_wiring_with_a_numpy_stand_in(monkeypatch):
    """No GPU here: the cusolver table's code runs on a stand-in CuPy made of numpy
    (cupy.linalg -> numpy.linalg, cupyx.scipy.linalg -> scipy.linalg), checking its
    wiring and info conventions against the lapack table. It never ran on a GPU."""
    import sys
    import types
    fake = types.ModuleType("cupy")
    fake.__dict__.update({k: getattr(np, k) for k in dir(np) if not k.startswith("__")})
    fake.asnumpy = np.asarray
    fake.linalg = np.linalg
    cupyx = types.ModuleType("cupyx")
    cupyx.scipy = types.ModuleType("cupyx.scipy")
    cupyx.scipy.linalg = scipy.linalg
    for name, mod in {"cupy": fake, "cupy.linalg": np.linalg, "cupyx": cupyx,
                      "cupyx.scipy": cupyx.scipy, "cupyx.scipy.linalg": scipy.linalg}.items():
        monkeypatch.setitem(sys.modules, name, mod)
    gpu, cpu = lb.CuSolver(), reg.resolve("linalg", "cpu")
    lb._warned.add("lu")     # the host fallback's one-time warning is tested above
    a = _mats((3, 4, 4), "float64") + 4 * np.eye(4)
    b = _mats((3, 4, 2), "float64", 1)
    s = _spd((3, 4, 4), "float64", 2)
    for name, args in [("solve", (a, b)), ("inv", (a,)), ("cholesky", (s,)),
                       ("triangular_solve", (np.triu(a), b, True, "T", False)),
                       ("eigh", (s, True, True)), ("svd", (a, "S")), ("qr", (a, "reduced")),
                       ("lu", (a,)), ("eig", (a, False))]:
        got, want = getattr(gpu, name)(*args), getattr(cpu, name)(*args)
        for g, w in zip(got, want):
            assert (g is None) == (w is None)
            if g is None:
                continue
            if name in ("eigh", "svd") and g is not None and g.ndim == 3:
                g, w = np.abs(g), np.abs(w)       # vectors up to sign
            if name == "eig" and np.iscomplexobj(w):
                g, w = np.sort_complex(g), np.sort_complex(w)
            np.testing.assert_allclose(np.asarray(g), np.asarray(w), atol=1e-10)
    # cuSOLVER returns inf/NaN for a singular matrix where numpy raises: info from that
    result = np.stack([np.ones((2, 1)), np.full((2, 1), np.inf)])
    assert lb._finite_info(fake, result, np.ones((2, 2, 2))).tolist() == [0, 1]
    assert lb._finite_info(fake, result, np.full((2, 2, 2), np.nan)).tolist() == [0, 0]
    _, info = gpu.triangular_solve(np.stack([np.eye(2), np.diag([1.0, 0.0])]),
                                   np.ones((2, 2, 1)), True, "N", False)
    assert info.tolist() == [0, 1]


def test_concurrent_batches_restore_the_blas_setting():
    """Batches running in several Python threads at once share one BLAS limit, and the
    user's setting is back once all have finished."""
    import threading
    from threadpoolctl import threadpool_info
    s = _t(_spd((64, 24, 24), "float64"))
    weft.linalg.eigh(s)
    before = [(d["filepath"], d["num_threads"]) for d in threadpool_info()]
    errors = []

    def work():
        try:
            for _ in range(5):
                weft.linalg.eigh(s)
                weft.linalg.inv(s)
        except Exception as e:    # reported below
            errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert [(d["filepath"], d["num_threads"]) for d in threadpool_info()] == before
