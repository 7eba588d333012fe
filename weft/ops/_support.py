"""Argument handling shared by the op families: operands, promotion, axes, devices."""
from __future__ import annotations

import numbers

import numpy as np

from ..core import dtype as _dt
from ..core.convert import as_tensor_arg, int_arg, to_array
from ..core.place import CPU, array_module, place_of_array
from ..core.tensor import Tensor

_ndarray = np.ndarray
_scalar_types = (bool, int, float, complex)


def xp_of(t):
    """The array module (numpy or cupy) of a tensor or backend array."""
    d = t._data if isinstance(t, Tensor) else t
    return np if type(d) is _ndarray else array_module(place_of_array(d))


def tensor_arg(x, arg, op):
    """``x`` as a Tensor; lists, numbers and arrays are converted."""
    if isinstance(x, Tensor):
        if type(x) is not Tensor and x.is_sparse():
            reject_sparse(op, arg)
        return x
    if x is None:
        raise TypeError(f"{op}: {arg} must be a Tensor, got None")
    try:
        return Tensor._wrap(to_array(x, copy=False))
    except TypeError:
        raise TypeError(f"{op}: {arg} must be a Tensor or array-like, got "
                        f"{type(x).__name__}") from None


def reject_sparse(op, arg):
    """Dense ops never take sparse tensors: computing on the stored values alone would
    silently give a wrong (values-shaped) result."""
    raise NotImplementedError(f"{op}: {arg} is a sparse tensor; dense ops do not take sparse "
                              "inputs — use the weft.sparse function of the same name where "
                              "one exists, or convert with x.to_dense()")


def check_same_place(x, y, op):
    """Raise ValueError when two tensors live on different devices."""
    a, b = x._data, y._data
    if type(a) is _ndarray and type(b) is _ndarray:
        return
    pa, pb = place_of_array(a), place_of_array(b)
    if pa != pb:
        raise ValueError(f"{op}: x is on {pa} but y is on {pb}; move one with .to() first")


def binary_operands(x, y, op, float_result=False):
    """Convert and promote the operands of a binary elementwise op.

    Tensors promote by numpy's table; Python scalars are weak (see
    ``weft.core.dtype``). ``float_result`` makes integer results the default float
    dtype (true division). Returns ``(x, y)`` where a scalar stays a Python scalar.
    """
    cast = _cast()
    xt = isinstance(x, Tensor)
    yt = isinstance(y, Tensor)
    if xt and type(x) is not Tensor and x.is_sparse():
        reject_sparse(op, "x")
    if yt and type(y) is not Tensor and y.is_sparse():
        reject_sparse(op, "y")
    if xt and yt:
        check_same_place(x, y, op)
        dx, dy = x._data.dtype, y._data.dtype
        d = dx if dx == dy else _dt.promote_types(dx, dy)
        if float_result and d.kind in "biu":
            d = _dt.default_float()
        if dx != d:
            x = cast(x, d)
        if dy != d:
            y = cast(y, d)
        return x, y
    if xt:
        t, s, first = x, y, True
    elif yt:
        t, s, first = y, x, False
    else:
        x = tensor_arg(x, "x", op)
        return binary_operands(x, y, op, float_result)
    if isinstance(s, np.generic) and s.ndim == 0:
        s = s.item()
    if not isinstance(s, _scalar_types):
        s = tensor_arg(s, "y" if first else "x", op)
        return binary_operands(x if first else s, s if first else y, op, float_result)
    d0 = t._data.dtype
    d = _dt.scalar_result_type(d0, s)
    if float_result and d.kind in "biu":
        d = _dt.default_float()
    if d != d0:
        t = cast(t, d)
    if d.kind in "biu" and isinstance(s, numbers.Integral) and not isinstance(s, bool):
        # an integer scalar beyond the tensor's range: numpy raises OverflowError
        info = np.iinfo(d)
        if not info.min <= s <= info.max:
            raise ValueError(f"{op}: the scalar {s} does not fit in {d.name}")
    return (t, s) if first else (s, t)


def _cast():
    # cast is itself an op built on this module, so it is looked up on first use
    global _cast_fn
    if _cast_fn is None:
        from .cast import cast  # noqa: PLC0415

        _cast_fn = cast
    return _cast_fn


_cast_fn = None


def normalize_axis(axis, ndim, op, arg="axis"):
    """One axis in ``[-ndim, ndim)`` (0-D tensors accept 0 and -1) as a non-negative int."""
    if isinstance(axis, Tensor):
        axis = axis.item()
    if not isinstance(axis, (int, np.integer)) or isinstance(axis, bool):
        raise TypeError(f"{op}: {arg} must be an int, got {type(axis).__name__}")
    n = max(ndim, 1)
    if not -n <= axis < n:
        raise ValueError(f"{op}: {arg} {axis} is out of range for a tensor with {ndim} "
                         f"dimension(s) (expected in [{-n}, {n - 1}])")
    return int(axis) % n


def normalize_axes(axis, ndim, op, arg="axis"):
    """``None`` -> all axes; an int or a list/tuple -> a sorted tuple of unique axes."""
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, Tensor):
        axis = axis.tolist()
    if isinstance(axis, (list, tuple)):
        axes = tuple(normalize_axis(a, ndim, op, arg) for a in axis)
        if len(set(axes)) != len(axes):
            raise ValueError(f"{op}: {arg} has repeated axes: {list(axis)}")
        if ndim == 0:
            return ()
        return tuple(sorted(axes))
    a = normalize_axis(axis, ndim, op, arg)
    return () if ndim == 0 else (a,)


def shape_arg(shape, op, arg="shape"):
    """A shape given as an int, list/tuple of ints (or 0-D Tensors), or a 1-D Tensor."""
    if isinstance(shape, Tensor):
        shape = shape.tolist()
        if not isinstance(shape, list):
            shape = [shape]
    if isinstance(shape, (int, np.integer)) and not isinstance(shape, bool):
        shape = [shape]
    if not isinstance(shape, (list, tuple)):
        raise TypeError(f"{op}: {arg} must be a list of ints, got {type(shape).__name__}")
    out = []
    for s in shape:
        if isinstance(s, Tensor):
            s = s.item()
        if not isinstance(s, (int, np.integer)) or isinstance(s, bool):
            raise TypeError(f"{op}: {arg} must hold ints, got {s!r}")
        out.append(int(s))
    return out


def check_nonneg_shape(shape, op, arg="shape"):
    for s in shape:
        if s < 0:
            raise ValueError(f"{op}: {arg} must be non-negative, got {list(shape)}")
    return shape


def dtype_arg(dtype, op, default=None):
    if dtype is None:
        return default
    try:
        return _dt.convert_dtype(dtype)
    except TypeError as e:
        raise TypeError(f"{op}: {e}") from None


def place_arg(place):
    from ..core.place import parse_place  # noqa: PLC0415

    return parse_place(place)


def require_float(x, op, arg="x"):
    """Integer inputs of float-valued functions become the default float dtype."""
    if x._data.dtype.kind in "biu":
        from .cast import cast  # noqa: PLC0415

        return cast(x, _dt.default_float())
    return x


__all__ = ["xp_of", "tensor_arg", "binary_operands", "normalize_axis", "normalize_axes",
           "shape_arg", "dtype_arg", "place_arg", "require_float", "as_tensor_arg", "CPU",
           "check_same_place", "check_nonneg_shape", "int_arg"]
