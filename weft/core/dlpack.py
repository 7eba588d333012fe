"""DLPack exchange: ``from_dlpack`` / ``to_dlpack`` without copies.

Any producer with ``__dlpack__`` (numpy, CuPy, PyTorch, JAX, weft Tensors) or a
raw DLPack capsule (the legacy ``to_dlpack`` protocol) becomes a Tensor sharing
the producer's memory: host data through ``numpy.from_dlpack``, CUDA data through
``cupy.from_dlpack``.
"""
from __future__ import annotations

import ctypes

from .convert import from_dlpack_array
from .tensor import Tensor

_CPU_TYPES = (1, 3)  # kDLCPU, kDLCUDAHost

_api = ctypes.pythonapi
_api.PyCapsule_GetName.restype = ctypes.c_char_p
_api.PyCapsule_GetName.argtypes = [ctypes.py_object]
_api.PyCapsule_GetPointer.restype = ctypes.c_void_p
_api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]

# offset of DLTensor.device inside the capsule's struct: after ``void *data`` in
# DLManagedTensor; after version, manager_ctx, deleter and flags (32 bytes) in the
# versioned struct of DLPack >= 1.0
_DEVICE_OFFSET = {b"dltensor": 8, b"dltensor_versioned": 40}


def _is_capsule(obj):
    return type(obj).__name__ == "PyCapsule"


def _capsule_device(capsule):
    name = _api.PyCapsule_GetName(capsule)
    if name not in _DEVICE_OFFSET:
        if name in (b"used_dltensor", b"used_dltensor_versioned"):
            raise ValueError("from_dlpack: this DLPack capsule was already consumed; a capsule "
                             "can be imported only once")
        raise TypeError(f"from_dlpack: expected a DLPack capsule, got a capsule named {name!r}")
    ptr = _api.PyCapsule_GetPointer(capsule, name)
    dev = (ctypes.c_int32 * 2).from_address(ptr + _DEVICE_OFFSET[name])
    return int(dev[0]), int(dev[1])


class _Capsule:
    """Adapter that lets ``*.from_dlpack`` consume a bare capsule."""

    def __init__(self, capsule, device):
        self._capsule = capsule
        self._device = device

    def __dlpack__(self, stream=None, max_version=None, dl_device=None, copy=None):
        return self._capsule

    def __dlpack_device__(self):
        return self._device


def from_dlpack(dlpack):
    """A Tensor sharing the memory of a DLPack producer or capsule (``stop_gradient=True``).

    ``dlpack``: an object with ``__dlpack__`` (numpy/CuPy arrays, torch tensors, weft
    Tensors ...) or a capsule from a legacy ``to_dlpack``. Host data gives a CPU
    tensor, CUDA data a GPU tensor (needs CuPy).

    >>> import numpy as np, weft
    >>> from weft.core.dlpack import from_dlpack
    >>> a = np.arange(3.0)
    >>> t = from_dlpack(a)
    >>> a[0] = 7.0
    >>> t.tolist()
    [7.0, 1.0, 2.0]
    """
    if _is_capsule(dlpack):
        device = _capsule_device(dlpack)
        arr = from_dlpack_array(_Capsule(dlpack, device))
    elif hasattr(dlpack, "__dlpack__"):
        if isinstance(dlpack, Tensor) and dlpack.is_sparse():
            raise TypeError("from_dlpack: sparse tensors have no DLPack form; exchange their "
                            "components instead")
        try:
            arr = from_dlpack_array(dlpack)
        except BufferError as e:
            raise ValueError(f"from_dlpack: the producer refused to export its data ({e})") \
                from None
    else:
        raise TypeError(f"from_dlpack: expected an object with __dlpack__ or a DLPack capsule, "
                        f"got {type(dlpack).__name__}")
    return Tensor._wrap(arr)


def to_dlpack(x):
    """A DLPack capsule sharing ``x``'s memory (consumable once, e.g. by ``from_dlpack``).

    >>> import weft
    >>> from weft.core.dlpack import from_dlpack, to_dlpack
    >>> t = weft.to_tensor([1.0, 2.0])
    >>> from_dlpack(to_dlpack(t)).tolist()
    [1.0, 2.0]
    """
    if not isinstance(x, Tensor):
        raise TypeError(f"to_dlpack: x must be a Tensor, got {type(x).__name__}")
    if x.is_sparse():
        raise TypeError("to_dlpack: sparse tensors have no DLPack form; export their "
                        "components instead")
    return x._data.__dlpack__()


__all__ = ["from_dlpack", "to_dlpack"]
