"""Devices ("places") and the backend array module behind each.

A CPU tensor holds a ``numpy.ndarray``, a GPU tensor a ``cupy.ndarray``. CuPy is
imported on first use only, so ``import weft`` never pays for it. Code that must
work on both asks a tensor for its array module (``xp``) instead of consulting
global state, in the manner of Chainer's ``get_array_module``.
"""
from __future__ import annotations

import numpy as np


class Place:
    __slots__ = ()
    is_gpu = False

    def __eq__(self, other):
        return type(self) is type(other) and self._key() == other._key()

    def __hash__(self):
        return hash((type(self).__name__, self._key()))

    def is_cpu_place(self):
        return not self.is_gpu

    def is_gpu_place(self):
        return self.is_gpu


class CPUPlace(Place):
    __slots__ = ()

    def _key(self):
        return 0

    def __repr__(self):
        return "Place(cpu)"


class CUDAPlace(Place):
    __slots__ = ("device_id",)
    is_gpu = True

    def __init__(self, device_id=0):
        if not isinstance(device_id, (int, np.integer)) or device_id < 0:
            raise ValueError(f"CUDAPlace: device_id must be a non-negative int, got {device_id!r}")
        self.device_id = int(device_id)

    def _key(self):
        return self.device_id

    def get_device_id(self):
        return self.device_id

    def __repr__(self):
        return f"Place(gpu:{self.device_id})"


CPU = CPUPlace()
_cupy = [None]          # the cupy module once imported, False if unavailable
_current = [CPU]


def _import_cupy():
    if _cupy[0] is None:
        try:
            import cupy  # noqa: PLC0415 - optional backend, loaded on first use

            _cupy[0] = cupy
        except Exception:  # ImportError, or a CUDA runtime that fails to load
            _cupy[0] = False
    return _cupy[0]


def cupy_or_raise(what="a GPU place"):
    cp = _import_cupy()
    if not cp:
        raise RuntimeError(f"{what} needs CuPy, which is not installed "
                           "(pip install 'weft[gpu]' or a cupy-cudaXX wheel)")
    try:
        n = cp.cuda.runtime.getDeviceCount()
    except Exception as e:  # no driver
        raise RuntimeError(f"{what} needs a CUDA device, but CuPy found none ({e})") from None
    if n == 0:
        raise RuntimeError(f"{what} needs a CUDA device, but CuPy found none")
    return cp


def is_compiled_with_cuda():
    """True when CuPy is importable and at least one CUDA device is present."""
    cp = _import_cupy()
    if not cp:
        return False
    try:
        return cp.cuda.runtime.getDeviceCount() > 0
    except Exception:
        return False


def device_count():
    return cp_device_count() if is_compiled_with_cuda() else 0


def cp_device_count():
    return _cupy[0].cuda.runtime.getDeviceCount()


def parse_place(p, arg="place"):
    """Accept a Place, 'cpu', 'gpu', 'gpu:1', 'cuda:0' or None (current device)."""
    if p is None:
        return _current[0]
    if isinstance(p, Place):
        return p
    if isinstance(p, str):
        s = p.strip().lower()
        if s == "cpu":
            return CPU
        for prefix in ("gpu", "cuda"):
            if s == prefix:
                return CUDAPlace(0)
            if s.startswith(prefix + ":") and s[len(prefix) + 1:].isdigit():
                return CUDAPlace(int(s[len(prefix) + 1:]))
    raise ValueError(f"{arg}: expected a Place or one of 'cpu', 'gpu', 'gpu:N', got {p!r}")


def set_device(device):
    """Make ``device`` ('cpu', 'gpu', 'gpu:N') the default place of new tensors."""
    place = parse_place(device, "device")
    if place.is_gpu:
        cp = cupy_or_raise(f"set_device({device!r})")
        if place.device_id >= cp.cuda.runtime.getDeviceCount():
            raise RuntimeError(f"set_device: gpu:{place.device_id} requested but only "
                               f"{cp.cuda.runtime.getDeviceCount()} device(s) exist")
    _current[0] = place
    return place


def get_device():
    """The default place as a string: 'cpu' or 'gpu:N'."""
    p = _current[0]
    return f"gpu:{p.device_id}" if p.is_gpu else "cpu"


def current_place():
    return _current[0]


def array_module(place):
    """numpy for CPU places, cupy for GPU places."""
    if place.is_gpu:
        return cupy_or_raise(repr(place))
    return np


def place_of_array(a):
    """The place an array lives on (numpy -> CPU, cupy -> its device)."""
    if isinstance(a, np.ndarray):
        return CPU
    dev = getattr(a, "device", None)
    if _cupy[0] and isinstance(a, _cupy[0].ndarray):
        return CUDAPlace(a.device.id)
    if dev is not None and hasattr(dev, "id") and type(a).__module__.startswith("cupy"):
        return CUDAPlace(dev.id)
    return CPU


def move_array(a, place):
    """Copy ``a`` to ``place`` unless it is there already."""
    src = place_of_array(a)
    if src == place:
        return a
    if place.is_gpu:
        cp = cupy_or_raise(repr(place))
        with cp.cuda.Device(place.device_id):
            return cp.asarray(a)
    return a.get()


def special_module(a):
    """``scipy.special`` for host arrays and scalars, ``cupyx.scipy.special`` for CuPy ones."""
    if type(a) is np.ndarray or not hasattr(a, "__cuda_array_interface__"):
        import scipy.special as sp  # noqa: PLC0415  (kept out of ``import weft``)

        return sp
    import cupyx.scipy.special as csp  # noqa: PLC0415

    return csp
