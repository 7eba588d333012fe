"""The function table every ``fft`` backend provides.

The registry in :mod:`weft.core.backend` knows the three built-in backends of the
``fft`` area (``pocketfft`` through scipy.fft, the CPU default; ``mkl`` through
mkl_fft; ``cufft`` through CuPy); ``weft.fft`` gives each its loader when it is
imported, and every loader returns an :class:`FFTBackend`: the same three calls,
whatever library is behind them, so the transforms in ``weft.fft`` never ask which
backend they got.

The three calls take arrays whose transformed lengths are already final (``weft.fft``
pads and crops first, differentiably) and a ``norm`` of ``'backward'``, ``'forward'``
or ``'ortho'``:

- ``c2c(a, axes, forward, norm)``: complex (or real) in, complex out, same shape;
- ``r2c(a, axes, norm)``: real in, the one-sided forward transform out (the last entry
  of ``axes`` shortened to ``n // 2 + 1``);
- ``c2r(a, axes, n, norm)``: a one-sided spectrum (last axis ``n // 2 + 1`` long) in,
  the real inverse transform out, ``n`` long on the last axis.

A plugin backend returns an instance of :class:`FFTBackend` (or a subclass) built on
any module with numpy.fft's ``fftn``/``ifftn``/``rfftn``/``irfftn`` (and optionally
the 1-D ``fft``/``ifft``/``rfft``/``irfft``), e.g. numpy.fft itself:

>>> import numpy
>>> from weft.fft.backends import FFTBackend
>>> be = FFTBackend("numpy", numpy.fft)
>>> be.c2c(numpy.array([1.0, 0.0, 0.0, 0.0]), (-1,), True, "backward").tolist()
[(1+0j), (1+0j), (1+0j), (1+0j)]

No backend changes a global thread setting: pocketfft gets ``workers=`` per call
(:func:`weft.get_num_threads`); mkl_fft runs as MKL is configured.
"""
from __future__ import annotations

import collections
import importlib
import math
import threading

__all__ = ["FFTBackend", "PocketFFT", "MKLFFT", "CuFFT", "PlanCache"]


class FFTBackend:
    """A backend built on a numpy.fft-like module ``lib`` (array module ``xp``)."""

    device = "cpu"

    def __init__(self, name, lib, xp=None):
        self.name = name
        self.lib = lib
        self.xp = xp if xp is not None else importlib.import_module("numpy")

    def _kw(self):
        """Extra keywords of every library call (none here; pocketfft adds workers)."""
        return {}

    def c2c(self, a, axes, forward, norm):
        lib, kw = self.lib, self._kw()
        if len(axes) == 1:
            f = lib.fft if forward else lib.ifft
            return f(a, axis=axes[0], norm=norm, **kw)
        f = lib.fftn if forward else lib.ifftn
        return f(a, axes=axes, norm=norm, **kw)

    def r2c(self, a, axes, norm):
        lib, kw = self.lib, self._kw()
        if len(axes) == 1:
            return lib.rfft(a, axis=axes[0], norm=norm, **kw)
        return lib.rfftn(a, axes=axes, norm=norm, **kw)

    def c2r(self, a, axes, n, norm):
        lib, kw = self.lib, self._kw()
        if len(axes) == 1:
            return lib.irfft(a, n, axis=axes[0], norm=norm, **kw)
        s = [a.shape[ax] for ax in axes[:-1]] + [n]
        return lib.irfftn(a, s=s, axes=axes, norm=norm, **kw)

    def __repr__(self):
        return f"<weft fft backend {self.name} ({self.lib.__name__})>"


# pocketfft's normalisation codes: 0 none, 1 by 1/sqrt(n), 2 by 1/n
_INORM = {True: {"backward": 0, "ortho": 1, "forward": 2},
          False: {"backward": 2, "ortho": 1, "forward": 0}}


class PocketFFT(FFTBackend):
    """scipy.fft (pocketfft), with ``workers`` = weft's thread count on every call.

    scipy.fft's public functions dispatch through uarray and then check and convert
    their arguments (about 5 us a call); weft has done both already, so where this
    scipy has the compiled pocketfft module those functions end in
    (``scipy.fft._pocketfft.pypocketfft``, whose documented signature is checked on
    load against the public functions), weft calls it directly: a call of a small
    transform costs about 0.6 us instead. Otherwise it calls scipy.fft's public
    functions with scipy's own backend selected (``set_backend("scipy", only=True)``):
    inside ``scipy.fft.set_backend(weft.fft.scipy_backend)`` those calls would
    otherwise come back to weft and recurse.
    """

    def __init__(self):
        import numpy
        import scipy.fft

        from .._native import get_num_threads
        super().__init__("pocketfft", scipy.fft, numpy)
        self._threads = get_num_threads
        self._pfft = _compiled_pocketfft(scipy.fft, numpy)
        self._scipy_only = lambda: scipy.fft.set_backend("scipy", only=True)

    def c2c(self, a, axes, forward, norm):
        pfft = self._pfft
        if pfft is None:
            with self._scipy_only():
                return super().c2c(a, axes, forward, norm)
        nd = a.ndim
        return pfft.c2c(a, [ax % nd for ax in axes], forward, _INORM[forward][norm], None,
                        self._threads())

    def r2c(self, a, axes, norm):
        pfft = self._pfft
        if pfft is None:
            with self._scipy_only():
                return super().r2c(a, axes, norm)
        nd = a.ndim
        return pfft.r2c(a, [ax % nd for ax in axes], True, _INORM[True][norm], None,
                        self._threads())

    def c2r(self, a, axes, n, norm):
        pfft = self._pfft
        if pfft is None:
            with self._scipy_only():
                return super().c2r(a, axes, n, norm)
        nd = a.ndim
        return pfft.c2r(a, [ax % nd for ax in axes], n, False, _INORM[False][norm], None,
                        self._threads())

    def _kw(self):
        return {"workers": self._threads()}


def _compiled_pocketfft(sfft, np):
    """scipy's compiled pocketfft module if it behaves as documented, else None.

    scipy up to 1.17 ships it as ``scipy.fft._pocketfft.pypocketfft``; 1.18 replaced
    it by ducc0's successor of pocketfft, ``scipy.fft._duccfft.pyduccfft``, with the
    same four functions and signatures (both are checked below before use)."""
    # compared with scipy's own transforms, even when this backend is first loaded
    # inside ``scipy.fft.set_backend(weft.fft.scipy_backend)``
    with sfft.set_backend("scipy", only=True):
        for path in ("scipy.fft._pocketfft.pypocketfft", "scipy.fft._duccfft.pyduccfft"):
            pfft = _checked_pocketfft(path, sfft, np)
            if pfft is not None:
                return pfft
    return None


def _checked_pocketfft(path, sfft, np):
    try:
        pfft = importlib.import_module(path)
        x = np.arange(1.0, 7.0).reshape(2, 3)
        z = x + 1j * x[::-1]
        ok = (np.allclose(pfft.c2c(z, [0, 1], True, 1, None, 1), sfft.fftn(z, norm="ortho"))
              and np.allclose(pfft.c2c(z, [1], False, 2, None, 1), sfft.ifft(z))
              and np.allclose(pfft.r2c(x, [1, 0], True, 2, None, 1),
                              sfft.rfftn(x, axes=(1, 0), norm="forward"))
              and np.allclose(pfft.c2r(z, [0, 1], 4, False, 0, None, 1),
                              sfft.irfftn(z, s=(2, 4), norm="forward")))
        return pfft if ok else None
    except Exception:   # another scipy layout or signature: use the public functions
        return None


class MKLFFT(FFTBackend):
    """mkl_fft, and MKL's DFTI directly for forward real transforms over several axes
    (one descriptor instead of mkl_fft's passes: see :mod:`weft.fft._dfti`), with a
    :class:`PlanCache` of those descriptors. Transforms are computed unnormalised
    ('backward') and weft applies the norm: mkl_fft 2.x scales 'ortho' (and
    'forward') N-D transforms over some of the axes by the size of the whole array
    instead of the transformed axes."""

    def __init__(self, cache_size=16):
        import mkl_fft
        import numpy
        super().__init__("mkl", mkl_fft, numpy)
        self.plans = PlanCache(self._plan, cache_size)
        self._dfti = False   # not loaded yet; None where MKL's runtime is not found

    @staticmethod
    def _scaled(y, n, forward, norm):
        # the library applied 1 (forward) or 1/n (inverse); make it `norm`'s factor
        if norm == "backward":
            return y
        if norm == "ortho":
            f = 1 / math.sqrt(n) if forward else math.sqrt(n)
        else:   # 'forward'
            f = 1 / n if forward else n
        y *= y.real.dtype.type(f)
        return y

    def _plan(self, layout):
        from . import _dfti
        if self._dfti is False:
            from ..core.backend import mkl_runtime
            path = mkl_runtime()
            self._dfti = _dfti.DFTI(path) if path is not None else None
        if self._dfti is None:
            return None
        try:
            return self._dfti.real_plan(layout)
        except _dfti.DFTIError:   # a setting this MKL lacks: mkl_fft does the transform
            return None

    def _direct_r2c(self, real, spec, axes):
        """``spec`` = the unnormalised r2c of ``real`` by one DFTI descriptor; False
        where there is none for this layout."""
        from ._dfti import plan_layout
        if not (real.flags.aligned and spec.flags.aligned):
            return False
        layout = plan_layout(real, spec, axes)
        plan = None if layout is None else self.plans.get("cpu", layout)
        if plan is None:
            return False
        plan.forward(real, spec)
        return True

    def c2c(self, a, axes, forward, norm):
        n = math.prod(a.shape[ax] for ax in axes)
        return self._scaled(super().c2c(a, axes, forward, "backward"), n, forward, norm)

    def r2c(self, a, axes, norm):
        axes = [ax % a.ndim for ax in axes]
        n = math.prod(a.shape[ax] for ax in axes)
        y = None
        if len(axes) > 1:
            shape = list(a.shape)
            shape[axes[-1]] = shape[axes[-1]] // 2 + 1
            y = self.xp.empty(shape, self.xp.result_type(a.dtype, self.xp.complex64))
            if not self._direct_r2c(a, y, axes):
                y = None
        if y is None:
            y = super().r2c(a, axes, "backward")
        return self._scaled(y, n, True, norm)

    def c2r(self, a, axes, n, norm):
        # not by one DFTI descriptor: for a spectrum that is not Hermitian along the
        # other axes (a cotangent, say) MKL's N-D inverse differs from the transform
        # weft defines (c2c over the other axes, then c2r along the last, as numpy)
        size = math.prod(a.shape[ax] for ax in axes[:-1]) * n
        return self._scaled(super().c2r(a, axes, n, "backward"), size, False, norm)


class PlanCache:
    """A least-recently-used cache of FFT plans, bounded in entries, one per device.

    ``make(key)`` builds a plan on a miss (it may return None: "no plan, let the
    library choose", cached like a plan); ``get(device, key)`` returns the cached
    plan, marking it most recently used, and evicts the least recently used plan of
    that device once it holds more than ``size``. Thread-safe.

    >>> made = []
    >>> cache = PlanCache(lambda key: made.append(key) or f"plan {key}", size=2)
    >>> cache.get(0, "a"), cache.get(0, "b"), cache.get(0, "a"), cache.get(0, "c")
    ('plan a', 'plan b', 'plan a', 'plan c')
    >>> cache.keys(0), made, cache.keys(1)
    (['a', 'c'], ['a', 'b', 'c'], [])
    """

    _MISSING = object()

    def __init__(self, make, size=16):
        if not isinstance(size, int) or isinstance(size, bool) or size < 1:
            raise ValueError(f"PlanCache: size must be a positive int, got {size!r}")
        self._make = make
        self.size = size
        self._plans = {}   # device -> OrderedDict key -> plan, least recent first
        self._lock = threading.Lock()

    def get(self, device, key):
        with self._lock:
            plans = self._plans.setdefault(device, collections.OrderedDict())
            plan = plans.get(key, self._MISSING)
            if plan is not self._MISSING:
                plans.move_to_end(key)
                return plan
        plan = self._make(key)          # outside the lock: planning may take a while
        with self._lock:
            plans = self._plans.setdefault(device, collections.OrderedDict())
            plans[key] = plan
            plans.move_to_end(key)
            while len(plans) > self.size:
                plans.popitem(last=False)
        return plan

    def keys(self, device):
        with self._lock:
            return list(self._plans.get(device, ()))

    def clear(self):
        with self._lock:
            self._plans.clear()


class CuFFT(FFTBackend):
    """cuFFT through CuPy (``cupyx.scipy.fft``), with a per-device LRU cache of plans
    made by ``cupyx.scipy.fftpack.get_fft_plan``; CuPy's own global plan cache is
    left as the user configured it. Transforms cuFFT cannot plan as one (N-D over
    axes that are not adjacent, or more than three) get ``plan=None``: CuPy plans
    them itself."""

    device = "gpu"

    def __init__(self, cache_size=16):
        import cupy
        import cupyx.scipy.fft as cufft
        import cupyx.scipy.fftpack as fftpack
        super().__init__("cufft", cufft, cupy)
        self._get_plan = fftpack.get_fft_plan
        self.plans = PlanCache(self._plan, cache_size)

    def _plan(self, key):
        shape, dtype, axes, value_type, out_lengths = key
        a = self.xp.empty(shape, dtype)   # get_fft_plan reads shape, dtype and layout
        try:
            return self._get_plan(a, out_lengths, axes, value_type=value_type)
        except (ValueError, NotImplementedError):
            return None

    def _planned(self, a, axes, value_type, out_lengths):
        a = self.xp.ascontiguousarray(a)
        key = (a.shape, a.dtype.str, tuple(axes), value_type, tuple(out_lengths))
        return a, self.plans.get(a.device.id, key)

    def c2c(self, a, axes, forward, norm):
        if a.dtype.kind != "c":   # a C2C plan is made for complex input
            a = a.astype(self.xp.result_type(a.dtype, self.xp.complex64))
        a, plan = self._planned(a, axes, "C2C", [a.shape[ax] for ax in axes])
        f = self.lib.fftn if forward else self.lib.ifftn
        return f(a, axes=axes, norm=norm, plan=plan)

    def r2c(self, a, axes, norm):
        a, plan = self._planned(a, axes, "R2C", [a.shape[ax] for ax in axes])
        return self.lib.rfftn(a, axes=axes, norm=norm, plan=plan)

    def c2r(self, a, axes, n, norm):
        s = [a.shape[ax] for ax in axes[:-1]] + [n]
        a, plan = self._planned(a, axes, "C2R", s)   # a C2R plan knows the output lengths
        return self.lib.irfftn(a, s=s, axes=axes, norm=norm, plan=plan)


def _load(name):
    """The table of built-in backend ``name`` (the registry's loader calls this)."""
    if name == "pocketfft":
        return PocketFFT()
    if name == "mkl":
        return MKLFFT()
    if name == "cufft":
        return CuFFT()
    raise ValueError(f"weft.fft: no built-in backend named {name!r}")
