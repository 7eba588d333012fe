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
import threading

__all__ = ["FFTBackend", "PocketFFT", "CuFFT", "PlanCache"]


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


class PocketFFT(FFTBackend):
    """scipy.fft (pocketfft), with ``workers`` = weft's thread count on every call."""

    def __init__(self):
        import numpy
        import scipy.fft

        from .._native import get_num_threads
        super().__init__("pocketfft", scipy.fft, numpy)
        self._threads = get_num_threads
        # scipy.fft's public functions dispatch through uarray first (a few
        # microseconds a call); its pocketfft implementation is what they reach by
        # default, so weft calls it directly where this scipy has it
        try:
            from scipy.fft import _pocketfft as impl
            self._impl = impl if all(hasattr(impl, f) for f in
                                     ("fft", "ifft", "fftn", "ifftn", "rfft", "rfftn",
                                      "irfft", "irfftn")) else scipy.fft
        except ImportError:  # pragma: no cover - an older or newer scipy layout
            self._impl = scipy.fft

    def c2c(self, a, axes, forward, norm):
        impl, w = self._impl, self._threads()
        if len(axes) == 1:
            return (impl.fft if forward else impl.ifft)(a, None, axes[0], norm, workers=w)
        return (impl.fftn if forward else impl.ifftn)(a, None, axes, norm, workers=w)

    def r2c(self, a, axes, norm):
        impl, w = self._impl, self._threads()
        if len(axes) == 1:
            return impl.rfft(a, None, axes[0], norm, workers=w)
        return impl.rfftn(a, None, axes, norm, workers=w)

    def c2r(self, a, axes, n, norm):
        impl, w = self._impl, self._threads()
        if len(axes) == 1:
            return impl.irfft(a, n, axes[0], norm, workers=w)
        s = [a.shape[ax] for ax in axes[:-1]] + [n]
        return impl.irfftn(a, s, axes, norm, workers=w)


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
        import mkl_fft
        import numpy
        return FFTBackend("mkl", mkl_fft, numpy)
    if name == "cufft":
        return CuFFT()
    raise ValueError(f"weft.fft: no built-in backend named {name!r}")
