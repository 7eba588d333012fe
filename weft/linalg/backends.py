"""The function table every ``linalg`` backend provides.

The registry in :mod:`weft.core.backend` knows the three built-in backends of the
``linalg`` area: ``lapack`` (the CPU default: weft's batch-parallel LAPACK driver,
``csrc/linalg/lapack.cpp``, calling the LAPACK that scipy ships), ``mkl`` (the same
driver calling MKL's LAPACK, loaded at run time from the ``mkl`` wheel's runtime
library) and ``cusolver`` (CuPy arrays: ``cupy.linalg``, i.e. cuSOLVER). ``weft.linalg``
gives each its loader when it is imported, and every loader returns a
:class:`LinalgBackend`: the same calls whatever library is behind them, so the
functions of ``weft.linalg`` never ask which backend they got.

The calls take backend arrays ``[*, m, n]`` (any batch dimensions, already checked and
in float32/float64/complex64/complex128) and return arrays; ``info`` outputs are host
int32 arrays over the batch with LAPACK's meaning (0 success, > 0 the routine's
failure code, -1 a matrix holding NaN or infinity that an iterative routine refused),
and ``weft.linalg`` turns them into errors that name the batch index:

==========================================  ============================================
``lu(a)``                                   ``(lu, pivots int32 1-based, info)``
``slogdet(a)``                              ``(sign, log|det|)``
``solve(a, b, keep=False)``, ``inv(a)``     ``(x, info)``; batch dimensions broadcast;
                                            ``keep``: also ``(lu, pivots)`` as ``lu``
                                            gives them (None, None where a backend
                                            cannot keep its factors)
``lu_solve(lu, pivots, b, trans)``          ``op(A) x = b`` from those factors, ``trans``
                                            in 'N', 'T', 'C'
``cholesky(a)``                             ``(L, info)``, lower, reads a's lower triangle
``cholesky_solve(l, b)``                    ``x`` with ``l lᴴ x = b`` (l lower)
``cholesky_backward(l, g)``                 ``gA`` of ``A = l lᴴ`` for the cotangent
                                            ``g`` of ``l`` (CPU only: optional)
``triangular_solve(a, b, upper, trans,      ``(x, info)``, ``trans`` in 'N', 'T', 'C'
unit)``
``qr(a, mode)``                             ``(q, r)``; mode 'reduced', 'complete', 'r'
                                            (q None)
``ormqr(x, tau, c, left, trans)``           ``op(Q) c`` / ``c op(Q)``, Q of LAPACK size
``eigh(a, lower, vectors)``                 ``(w, v or None, info)``
``svd(a, job)``                             ``(u, s, vh, info)``; job 'N' (s only), 'S',
                                            'A'
``eig(a, vectors)``                         ``(w, v or None, info)``, complex
``gelsd(a, b, rcond)``                      ``(x, rank, s, info)``
==========================================  ============================================

Threads. The native driver runs a batch of matrices on weft's thread pool, one LAPACK
call per matrix; while it does, the BLAS under LAPACK is held to one thread with
``threadpoolctl`` (a context manager around the call that restores the user's
setting), so threads are not oversubscribed and every matrix is computed the same way
whatever weft's thread count: results do not depend on it. A single matrix runs on
the calling thread with the BLAS as the user configured it (multithreaded by
default), except least squares up to 1024 columns (see ``gelsd``), which is faster on
one BLAS thread. No backend changes a global thread setting otherwise.

>>> import numpy as np
>>> import weft.linalg
>>> from weft.core.backend import resolve
>>> be = resolve("linalg", "cpu")
>>> x, info = be.solve(np.array([[2.0, 0.0], [0.0, 4.0]]), np.array([[2.0], [4.0]]))
>>> x.ravel().tolist(), int(info)
([1.0, 1.0], 0)
"""
from __future__ import annotations

import ctypes
import importlib
import math
import threading
import warnings

import numpy as np

from .._native import extension as _C
from ..core.backend import mkl_runtime

__all__ = ["LinalgBackend", "Lapack", "CuSolver", "scipy_lapack_pointers", "mkl_lapack_pointers"]

_TRANS = {"N": 0, "T": 1, "C": 2}
_QR_MODES = {"reduced": 0, "complete": 1, "r": 2}
_SVD_JOBS = {"N": 0, "S": 1, "A": 2}


class LinalgBackend:
    """What every linalg backend has besides its calls: ``name``, ``device`` and ``lib``
    (the library module)."""

    name = "?"
    device = "cpu"
    lib = None

    def __repr__(self):
        lib = getattr(self.lib, "__name__", self.lib)
        return f"<weft linalg backend {self.name} ({lib})>"


# ---------------------------------------------------------------------------------
# registering LAPACK pointers with the native driver

_pyapi = ctypes.pythonapi
_pyapi.PyCapsule_New.restype = ctypes.py_object
_pyapi.PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
_pyapi.PyCapsule_GetName.restype = ctypes.c_char_p
_pyapi.PyCapsule_GetName.argtypes = [ctypes.py_object]
_pyapi.PyCapsule_GetPointer.restype = ctypes.c_void_p
_pyapi.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]

# A capsule keeps a pointer to its name, so the names live as long as the process.
_CAPSULE_NAMES: dict[str, bytes] = {}


def _capsule(name, pointer):
    tag = _CAPSULE_NAMES.setdefault(name, f"weft.lapack.{name}".encode())
    return _pyapi.PyCapsule_New(pointer, tag, None)


def scipy_lapack_pointers():
    """Addresses of the LAPACK routines the driver calls, from the capsules
    ``scipy.linalg.cython_lapack`` exports (C-callable, Fortran argument order)."""
    from scipy.linalg import cython_lapack  # noqa: PLC0415
    capi = cython_lapack.__pyx_capi__
    out = {}
    for name in _C.lapack_routines():
        cap = capi[name]
        out[name] = _pyapi.PyCapsule_GetPointer(cap, _pyapi.PyCapsule_GetName(cap))
    return out


def mkl_lapack_pointers():
    """Addresses of the driver's LAPACK routines in MKL's runtime library (the ``mkl``
    wheel, ``pip install weft[mkl]``), loaded now; LP64 integers, MKL's default."""
    path = mkl_runtime()
    if path is None:
        raise RuntimeError("the mkl backend needs MKL's runtime library libmkl_rt from the "
                           "mkl package; install it with pip install weft[mkl]")
    lib = ctypes.CDLL(path)
    out = {name: ctypes.cast(getattr(lib, name + "_"), ctypes.c_void_p).value
           for name in _C.lapack_routines()}
    # MKL's per-thread count: the driver holds each worker's MKL calls to one thread
    # while a batch runs (threadpoolctl's global limit does not reach them)
    out["MKL_Set_Num_Threads_Local"] = ctypes.cast(lib.MKL_Set_Num_Threads_Local,
                                                   ctypes.c_void_p).value
    return out


# ---------------------------------------------------------------------------------
# the native driver


def _flat(a, core=2):
    """``a [*batch, ...core]`` as a C-contiguous ``[B, ...core]`` array and ``batch``."""
    batch = tuple(a.shape[:-core])
    nb = int(np.prod(batch, dtype=np.int64))
    return batch, np.ascontiguousarray(a.reshape((nb,) + tuple(a.shape[-core:])))


def _broadcast(a, b):
    shape = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    return shape, np.broadcast_to(a, shape + a.shape[-2:]), np.broadcast_to(b, shape + b.shape[-2:])


class _OneBlasThread:
    """Holds every loaded BLAS to one thread while any batch runs, in any thread.

    threadpoolctl's limit is process-wide, so nested or concurrent batches share one
    limit: the first to start sets it and the last to finish restores the user's
    setting (limits set and restored per call from two Python threads could restore in
    the wrong order and leave the BLAS on one thread for good).
    """

    def __init__(self):
        self._lock = threading.Lock()
        self._depth = 0
        self._limiter = None
        self._pools = None

    def forget_libraries(self):
        """Call after loading a BLAS (MKL): the next limit lists the libraries again."""
        with self._lock:
            self._pools = None

    def __enter__(self):
        with self._lock:
            if self._depth == 0:
                if self._pools is None:   # listing the loaded libraries costs ~1 ms
                    from threadpoolctl import ThreadpoolController  # noqa: PLC0415
                    self._pools = ThreadpoolController().select(user_api="blas")
                self._limiter = self._pools.limit(limits=1)
            self._depth += 1
        return self

    def __exit__(self, *exc):
        with self._lock:
            self._depth -= 1
            if self._depth == 0:
                self._limiter.restore_original_limits()
                self._limiter = None
        return False


_one_blas_thread = _OneBlasThread()
# the largest min(m, n) for which a single least-squares problem holds the BLAS to one
# thread (see gelsd)
LSTSQ_ONE_THREAD = 1024


class Lapack(LinalgBackend):
    """weft's batch-parallel LAPACK driver over the routines of ``provider`` (0: the
    LAPACK scipy ships, 1: MKL), registered from ``pointers`` (name → address)."""

    def __init__(self, name, provider, pointers, lib):
        for routine, address in pointers.items():
            _C.lapack_register(provider, routine, _capsule(routine, address))
        self.name = name
        self.lib = lib
        self._p = provider
        _one_blas_thread.forget_libraries()   # a provider may have loaded a BLAS (MKL)

    def _run(self, fn, batch, *args):
        """``fn(provider, *args)``; with several matrices (``batch > 1``), the BLAS on one
        thread."""
        if batch > 1:
            with _one_blas_thread:
                return fn(self._p, *args)
        return fn(self._p, *args)

    def lu(self, a):
        batch, f = _flat(a)
        lu, piv, info = self._run(_C.lapack_lu, len(f), f)
        return lu.reshape(a.shape), piv.reshape(batch + piv.shape[1:]), info.reshape(batch)

    def slogdet(self, a):
        batch, f = _flat(a)
        sign, logabs = self._run(_C.lapack_slogdet, len(f), f)
        return sign.reshape(batch), logabs.reshape(batch)

    def solve(self, a, b, keep=False):
        if a.ndim == 2 and b.ndim > 2 and b.size:
            # one matrix, many right-hand sides: a single solve of [n, B·k]
            n, k = b.shape[-2], b.shape[-1]
            cols = np.moveaxis(b, -2, 0).reshape(n, -1)
            x, info, *factors = self.solve(a, cols, keep)
            x = np.moveaxis(x.reshape((n,) + b.shape[:-2] + (k,)), 0, -2)
            return (np.ascontiguousarray(x), np.broadcast_to(info, b.shape[:-2]).copy(),
                    *factors)
        shape, a, b = _broadcast(a, b)
        _, fa = _flat(a)
        _, fb = _flat(b)
        if not keep:
            x, info = self._run(_C.lapack_solve, len(fa), fa, fb)
            return x.reshape(shape + b.shape[-2:]), info.reshape(shape)
        x, info, lu, piv = self._run(_C.lapack_solve, len(fa), fa, fb, True)
        return (x.reshape(shape + b.shape[-2:]), info.reshape(shape), lu.reshape(a.shape),
                piv.reshape(shape + piv.shape[1:]))

    def lu_solve(self, lu, piv, b, trans):
        if lu.ndim == 2 and b.ndim > 2 and b.size:
            n, k = b.shape[-2], b.shape[-1]
            cols = np.moveaxis(b, -2, 0).reshape(n, -1)
            x = self.lu_solve(lu, piv, cols, trans)
            return np.ascontiguousarray(np.moveaxis(x.reshape((n,) + b.shape[:-2] + (k,)), 0, -2))
        shape, lu, b = _broadcast(lu, b)
        _, fl = _flat(lu)
        _, fb = _flat(b)
        _, fp = _flat(np.broadcast_to(piv, shape + piv.shape[-1:]), 1)
        x = self._run(_C.lapack_lu_solve, len(fl), fl, fp.astype(np.int32, copy=False), fb,
                      _TRANS[trans])
        return x.reshape(shape + b.shape[-2:])

    def inv(self, a):
        batch, f = _flat(a)
        x, info = self._run(_C.lapack_inv, len(f), f)
        return x.reshape(a.shape), info.reshape(batch)

    def cholesky(self, a):
        batch, f = _flat(a)
        l, info = self._run(_C.lapack_cholesky, len(f), f)
        return l.reshape(a.shape), info.reshape(batch)

    def cholesky_solve(self, l, b):
        shape, l, b = _broadcast(l, b)
        _, fl = _flat(l)
        _, fb = _flat(b)
        return self._run(_C.lapack_cholesky_solve, len(fl), fl, fb).reshape(shape + b.shape[-2:])

    def cholesky_backward(self, l, g):
        shape, l, g = _broadcast(l, g)
        _, fl = _flat(l)
        # g as it is (a view when it can be): the driver reads it through its strides
        fg = g.reshape((len(fl),) + g.shape[-2:])
        return self._run(_C.lapack_cholesky_backward, len(fl), fl, fg).reshape(shape + l.shape[-2:])

    def triangular_solve(self, a, b, upper, trans, unit):
        shape = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
        if self._p == 0 and a.shape[-1] > 32 and b.size and math.prod(shape) == 1:
            # one large system: scipy's own trtrs reads a Fortran-ordered right-hand side
            # (such as the transposed view of many stacked vectors) in place, where the
            # batch path would transpose it twice on the way in and once on the way out
            from scipy.linalg import get_lapack_funcs  # noqa: PLC0415
            a2, b2 = a.reshape(a.shape[-2:]), b.reshape(b.shape[-2:])
            (trtrs,) = get_lapack_funcs(("trtrs",), (a2, b2))
            x, info = trtrs(np.asfortranarray(a2), b2, lower=not upper, trans=_TRANS[trans],
                            unitdiag=bool(unit))
            if info < 0:
                raise RuntimeError(f"LAPACK trtrs rejected argument {-info}")
            return x.reshape(shape + b.shape[-2:]), np.full(shape, max(info, 0), np.int32)
        shape, a, b = _broadcast(a, b)
        _, fa = _flat(a)
        _, fb = _flat(b)
        x, info = self._run(_C.lapack_triangular_solve, len(fa), fa, fb, bool(upper),
                            _TRANS[trans], bool(unit))
        return x.reshape(shape + b.shape[-2:]), info.reshape(shape)

    def qr(self, a, mode):
        batch, f = _flat(a)
        q, r = self._run(_C.lapack_qr, len(f), f, _QR_MODES[mode])
        r = r.reshape(batch + r.shape[1:])
        return (None if mode == "r" else q.reshape(batch + q.shape[1:])), r

    def ormqr(self, x, tau, c, left, trans):
        batch, fx = _flat(x)
        _, ft = _flat(tau, 1)
        _, fc = _flat(c)
        out = self._run(_C.lapack_ormqr, len(fx), fx, ft, fc, bool(left), bool(trans))
        return out.reshape(c.shape)

    def eigh(self, a, lower, vectors):
        batch, f = _flat(a)
        w, v, info = self._run(_C.lapack_eigh, len(f), f, bool(lower), bool(vectors))
        return (w.reshape(batch + w.shape[1:]), v.reshape(a.shape) if vectors else None,
                info.reshape(batch))

    def svd(self, a, job):
        batch, f = _flat(a)
        u, s, vh, info = self._run(_C.lapack_svd, len(f), f, _SVD_JOBS[job])
        s = s.reshape(batch + s.shape[1:])
        if job == "N":
            return None, s, None, info.reshape(batch)
        return (u.reshape(batch + u.shape[1:]), s, vh.reshape(batch + vh.shape[1:]),
                info.reshape(batch))

    def eig(self, a, vectors):
        batch, f = _flat(a)
        w, v, info = self._run(_C.lapack_eig, len(f), f, bool(vectors))
        return (w.reshape(batch + w.shape[1:]), v.reshape(a.shape) if vectors else None,
                info.reshape(batch))

    def gelsd(self, a, b, rcond):
        shape, a, b = _broadcast(a, b)
        _, fa = _flat(a)
        _, fb = _flat(b)
        # gelsd's time goes mostly to the bidiagonal reduction and the divide-and-conquer
        # SVD of the min(m, n) square factor, many level-2 and small calls for which the
        # BLAS's threads only add synchronisation: a single matrix up to
        # LSTSQ_ONE_THREAD columns (or rows) runs faster on one BLAS thread (2000 x 500
        # measured on 2 cores: 70 ms on one thread, 120-170 ms on two when the machine is
        # quiet, 10-20 times slower when it is busy), so it runs as a batch does
        one = len(fa) > 1 or min(a.shape[-2:]) <= LSTSQ_ONE_THREAD
        x, rank, s, info = self._run(_C.lapack_gelsd, 2 if one else 1, fa, fb, float(rcond))
        return (x.reshape(shape + x.shape[1:]), rank.reshape(shape), s.reshape(shape + s.shape[1:]),
                info.reshape(shape))


# ---------------------------------------------------------------------------------
# CuPy (cuSOLVER)

_warned: set = set()
_warn_lock = threading.Lock()


def host_fallback_warning(op):
    """The one-time warning (per op and process) that ``op`` runs on the host for a
    GPU tensor because CuPy has no such routine (api-linalg.md, first paragraph)."""
    with _warn_lock:
        if op in _warned:
            return
        _warned.add(op)
    warnings.warn(f"weft.linalg.{op}: CuPy has no batched {op}, so GPU input is copied to the "
                  "host, computed there with LAPACK and copied back (warned once)",
                  RuntimeWarning, stacklevel=4)


def _finite_info(xp, r, a):
    """GPU solvers return inf/NaN for a failing matrix instead of an info code: 1 where
    the result is not finite but the input was."""
    core = tuple(range(r.ndim - 2, r.ndim))
    bad = ~xp.isfinite(r).all(axis=core) & xp.isfinite(a).all(axis=tuple(range(a.ndim - 2, a.ndim)))
    return xp.asnumpy(bad).astype(np.int32)


class CuSolver(LinalgBackend):
    """CuPy's ``cupy.linalg`` (cuSOLVER / cuBLAS) on the GPU; routines CuPy lacks run on
    the host through the native driver with a one-time warning."""

    device = "gpu"

    def __init__(self):
        self.xp = importlib.import_module("cupy")
        self.lib = importlib.import_module("cupy.linalg")
        self.name = "cusolver"

    def _host(self, op):
        host_fallback_warning(op)
        from ..core.backend import resolve  # noqa: PLC0415
        return resolve("linalg", "cpu")

    def _to_host(self, *arrays):
        return [self.xp.asnumpy(a) for a in arrays]

    def lu(self, a):   # cuSOLVER's getrf is not batched in CuPy
        lu, piv, info = self._host("lu").lu(*self._to_host(a))
        return self.xp.asarray(lu), self.xp.asarray(piv), info

    def slogdet(self, a):
        return self.lib.slogdet(a)

    def _broadcast(self, a, b):
        """a and b with their batch dims broadcast, as [n, ...] stacks (CuPy's solvers
        take equal batch shapes only), and that batch shape."""
        xp = self.xp
        shape = tuple(np.broadcast_shapes(a.shape[:-2], b.shape[:-2]))
        n = math.prod(shape)   # reshape(-1, ...) cannot infer n from an empty array
        a = xp.broadcast_to(a, shape + a.shape[-2:]).reshape((n,) + a.shape[-2:])
        b = xp.broadcast_to(b, shape + b.shape[-2:]).reshape((n,) + b.shape[-2:])
        return shape, a, b

    def solve(self, a, b, keep=False):
        # cupy.linalg.solve keeps no factors: the backward's solve with aᴴ factors again
        shape, fa, fb = self._broadcast(a, b)
        if fa.size == 0 or fb.size == 0:
            x = self.xp.zeros(fb.shape, dtype=fb.dtype)
        else:
            x = self.lib.solve(fa, fb)
        x = x.reshape(shape + b.shape[-2:])
        info = _finite_info(self.xp, x, self.xp.broadcast_to(a, shape + a.shape[-2:]))
        return (x, info, None, None) if keep else (x, info)

    def inv(self, a):
        x = self.lib.inv(a)
        return x, _finite_info(self.xp, x, a)

    def cholesky(self, a):
        xp = self.xp
        lower = xp.tril(a) + xp.conj(xp.swapaxes(xp.tril(a, -1), -1, -2))
        l = self.lib.cholesky(lower)
        return l, _finite_info(xp, l, a)

    def _tri(self, a, b, lower, trans, unit):
        from cupyx.scipy.linalg import solve_triangular  # noqa: PLC0415
        shape, a, b = self._broadcast(a, b)
        out = self.xp.zeros(b.shape, dtype=b.dtype)
        if a.shape[-1] == 0 or b.shape[-1] == 0:
            # cuBLAS trsm refuses a zero leading dimension: nothing to solve
            return out.reshape(shape + out.shape[-2:])
        for i in range(len(a)):
            out[i] = solve_triangular(a[i], b[i], trans=trans, lower=lower, unit_diagonal=unit,
                                      check_finite=False)
        return out.reshape(shape + out.shape[-2:])

    def cholesky_solve(self, l, b):
        y = self._tri(l, b, True, 0, False)
        return self._tri(l, y, True, 2, False)

    def triangular_solve(self, a, b, upper, trans, unit):
        xp = self.xp
        zero = ~(xp.diagonal(a, 0, -2, -1) != 0).all(axis=-1)
        info = xp.asnumpy(zero).astype(np.int32) if not unit else \
            np.zeros(a.shape[:-2], np.int32)
        if info.any():
            return None, np.broadcast_to(info, np.broadcast_shapes(a.shape[:-2], b.shape[:-2]))
        x = self._tri(a, b, not upper, _TRANS[trans], unit)
        return x, np.zeros(x.shape[:-2], np.int32)

    def qr(self, a, mode):
        if mode == "r":
            return None, self.lib.qr(a, mode="r")
        return self.lib.qr(a, mode=mode)

    def ormqr(self, x, tau, c, left, trans):
        out = self._host("ormqr").ormqr(*self._to_host(x, tau, c), left, trans)
        return self.xp.asarray(out)

    def eigh(self, a, lower, vectors):
        uplo = "L" if lower else "U"
        if vectors:
            w, v = self.lib.eigh(a, UPLO=uplo)
        else:
            w, v = self.lib.eigvalsh(a, UPLO=uplo), None
        return w, v, _finite_info(self.xp, w[..., None], a)

    def svd(self, a, job):
        if job == "N":
            s = self.lib.svd(a, compute_uv=False)
            return None, s, None, _finite_info(self.xp, s[..., None], a)
        u, s, vh = self.lib.svd(a, full_matrices=job == "A")
        return u, s, vh, _finite_info(self.xp, s[..., None], a)

    def eig(self, a, vectors):
        impl = getattr(self.lib, "eig" if vectors else "eigvals", None)
        if impl is None:   # CuPy before 14 has no general eigensolver
            w, v, info = self._host("eig").eig(*self._to_host(a), vectors)
            return self.xp.asarray(w), (self.xp.asarray(v) if vectors else None), info
        if vectors:
            w, v = impl(a)
        else:
            w, v = impl(a), None
        return w, v, np.zeros(a.shape[:-2], np.int32)

    def gelsd(self, a, b, rcond):
        x, rank, s, info = self._host("lstsq").gelsd(*self._to_host(a, b), rcond)
        return self.xp.asarray(x), rank, self.xp.asarray(s), info


# ---------------------------------------------------------------------------------


def _load(name):
    """The table of built-in backend ``name`` (the registry's loader calls this)."""
    if name == "lapack":
        be = Lapack("lapack", 0, scipy_lapack_pointers(), importlib.import_module("scipy.linalg"))
        be.lapack = importlib.import_module("scipy.linalg.lapack")
        return be
    if name == "mkl":
        return Lapack("mkl", 1, mkl_lapack_pointers(), mkl_runtime())
    if name == "cusolver":
        return CuSolver()
    raise ValueError(f"weft.linalg: no built-in backend named {name!r}")
