"""Turning Python data, numpy/CuPy arrays and DLPack producers into backend arrays.

The conversions themselves live beside the Tensor class (``weft.core.tensor``), whose
constructor uses them; this module is their public home and holds the registry of
converters that packages above core add for data they own."""
from __future__ import annotations

from .place import CPU
from .tensor import from_dlpack_array, to_array


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
