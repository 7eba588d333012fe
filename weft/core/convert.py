"""Turning Python data, numpy/CuPy arrays and DLPack producers into backend arrays."""
from __future__ import annotations

import numbers

import numpy as np

from . import dtype as _dt
from .place import CPU, array_module, move_array, parse_place, place_of_array
from .tensor import Tensor


def _infer_dtype(data):
    """dtype weft gives to nested Python data: bool < int64 < default float < complex."""
    rank = -1
    stack = [data]
    while stack:
        x = stack.pop()
        if isinstance(x, (list, tuple)):
            stack.extend(x)
            continue
        if isinstance(x, Tensor):
            x = x.numpy()
        if isinstance(x, np.ndarray):
            r = _dt._KIND_RANK.get(x.dtype.kind, 2)
        elif isinstance(x, (bool, np.bool_)):
            r = 0
        elif isinstance(x, numbers.Integral):
            r = 1
        elif isinstance(x, numbers.Real):
            r = 2
        elif isinstance(x, numbers.Complex):
            r = 3
        else:
            raise TypeError(f"to_tensor: data must be numbers, nested lists of numbers, "
                            f"arrays or Tensors; found an element of type {type(x).__name__}")
        rank = max(rank, r)
    # an empty list is a float tensor, as in numpy and Paddle
    return [_dt.default_float(), _dt.bool_, _dt.int64, _dt.default_float(),
            _dt.default_complex()][rank + 1]


def to_array(data, dtype=None, place=None, copy=True):
    """A backend array for ``data`` on ``place`` (default: the current device)."""
    target = parse_place(place)
    if dtype is not None:
        dtype = _dt.convert_dtype(dtype)
    if isinstance(data, Tensor):
        if data.is_sparse():
            raise TypeError("to_tensor: got a sparse tensor; use to_dense() first or "
                            "weft.sparse functions")
        arr = data._data
        if place is None:
            target = place_of_array(arr)
    elif isinstance(data, np.ndarray):
        arr = data
        if arr.dtype.kind in "OUSV" and arr.dtype.name not in ("bfloat16",):
            raise TypeError(f"to_tensor: numpy arrays of dtype {arr.dtype} are not supported")
    elif type(data).__module__.startswith("cupy"):
        arr = data
        if place is None:
            target = place_of_array(arr)
    elif isinstance(data, (bool, numbers.Number, np.generic)):
        d = dtype or _dt.dtype_of_scalar(data)
        arr = np.asarray(data, dtype=d)
    elif isinstance(data, (list, tuple)):
        d = dtype or _infer_dtype(data)
        try:
            arr = np.asarray([x.numpy() if isinstance(x, Tensor) else x for x in data]
                             if any(isinstance(x, Tensor) for x in data) else data, dtype=d)
        except ValueError as e:
            raise ValueError(f"to_tensor: data is a ragged nested sequence ({e})") from None
    elif hasattr(data, "__dlpack__"):
        arr = from_dlpack_array(data)
        if place is None:
            target = place_of_array(arr)
    elif hasattr(data, "__array__"):
        arr = np.asarray(data)
    else:
        raise TypeError(f"to_tensor: cannot convert data of type {type(data).__name__}")
    arr = move_array(arr, target)
    xp = array_module(target) if target.is_gpu else np
    if dtype is not None and arr.dtype != dtype:
        arr = arr.astype(dtype)
    elif copy:
        arr = xp.array(arr, copy=True)
    if arr.dtype.kind == "U":
        raise TypeError("to_tensor: strings are not numbers")
    return arr


def from_dlpack_array(obj):
    """Import a DLPack producer as a numpy or CuPy array without copying."""
    dev_type = obj.__dlpack_device__()[0] if hasattr(obj, "__dlpack_device__") else 1
    if int(dev_type) in (1, 3):  # kDLCPU, kDLCUDAHost
        return np.from_dlpack(obj)
    from .place import cupy_or_raise  # noqa: PLC0415

    return cupy_or_raise("a CUDA DLPack tensor").from_dlpack(obj)


# Kinds of data that a package above core turns into tensors itself (weft.sparse:
# scipy.sparse matrices and arrays). They register here, so that to_tensor, an op,
# need not import the package that sits above it.
_TENSOR_CONVERTERS = []


def register_tensor_converter(accepts, convert):
    """Have ``to_tensor(data, dtype, place, stop_gradient)`` call
    ``convert(data, dtype, place, stop_gradient)`` for every ``data`` where
    ``accepts(data)`` is true (checked in registration order, before the built-in
    conversions)."""
    _TENSOR_CONVERTERS.append((accepts, convert))


def tensor_converter(data):
    """The registered converter for ``data``, or None."""
    for accepts, convert in _TENSOR_CONVERTERS:
        if accepts(data):
            return convert
    return None


__all__ = ["to_array", "from_dlpack_array", "CPU", "register_tensor_converter",
           "tensor_converter"]
