"""Argument checks and conversions shared by every package of weft.

These sit in core so that autograd, ops and the domain packages (sparse, geometric,
nn, and later linalg, fft, distribution) take their operands the same way without
importing each other: a Tensor or array-like operand, an axis or list of axes, a
shape, a dtype, a place, an int parameter, the array module of a tensor, and the
same-device check. Every error names the op, the argument, what was expected and
what was given.
"""
from __future__ import annotations

import functools
import inspect
import numbers

import numpy as np

from . import dtype as _dt
from .convert import to_array
from .place import CPU, array_module, parse_place, place_of_array
from .tensor import Tensor

_ndarray = np.ndarray


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
    """A place given as a Place, a device string (``'cpu'``, ``'gpu:1'``) or None."""
    return parse_place(place)


def as_tensor_arg(x, arg, like=None):
    """Accept a Tensor, number or array-like as an op operand."""
    if isinstance(x, Tensor):
        return x
    if like is not None and isinstance(x, (bool, numbers.Number)):
        return Tensor._wrap(array_module(like.place).asarray(x, dtype=like.dtype))
    try:
        return Tensor._wrap(to_array(x, None, like.place if like is not None else None,
                                     copy=False))
    except TypeError as e:
        raise TypeError(f"{arg}: expected a Tensor, got {type(x).__name__} ({e})") from None


def _scalar_arg(v, op, arg, tensor_kinds, py_type, what):
    if isinstance(v, Tensor):
        if v.size != 1 or v.dtype.kind not in tensor_kinds:
            raise TypeError(f"{op}: {arg} must be {what}, got a {v.dtype.name} tensor of "
                            f"shape {v.shape}")
        v = v.item()
    if not isinstance(v, py_type) or isinstance(v, (bool, np.bool_)):
        raise TypeError(f"{op}: {arg} must be {what}, got {type(v).__name__}")
    return v


def int_arg(v, op, arg):
    """An int given as a Python or numpy integer or a one-element integer Tensor (bools
    are refused); for scalar parameters such as counts and seeds."""
    return int(_scalar_arg(v, op, arg, "iu", numbers.Integral, "an int"))


def keyword_aliases(**alias_of):
    """Decorator: accept the keyword ``alias`` for the parameter ``alias_of[alias]`` (Paddle
    3's torch-style names, ``input=`` for ``x=``, ``dim=`` for ``axis=``); passing both is a
    ``TypeError``."""
    def deco(f):
        @functools.wraps(f)
        def wrapper(*args, **kwargs):
            if kwargs:
                for alias, canon in alias_of.items():
                    if alias in kwargs:
                        if canon in kwargs:
                            raise TypeError(f"{f.__name__}: got both {canon}= and its alias "
                                            f"{alias}=")
                        kwargs[canon] = kwargs.pop(alias)
            return f(*args, **kwargs)
        return wrapper
    return deco


def accept_aliases(f):
    """Also accept Paddle 3's torch-style keywords ``input`` (for x) and ``dim`` (for axis)."""
    params = inspect.signature(f).parameters
    first = next(iter(params))
    has_axis = "axis" in params and "dim" not in params

    @functools.wraps(f)
    def wrapper(*args, **kwargs):
        if kwargs:
            if "input" in kwargs and first != "input":
                kwargs[first] = kwargs.pop("input")
            if has_axis and "dim" in kwargs:
                kwargs["axis"] = kwargs.pop("dim")
        return f(*args, **kwargs)

    return wrapper


def real_arg(v, op, arg):
    """A float given as a Python or numpy real number or a one-element real Tensor (bools
    are refused); for scalar parameters such as bounds, rates and scales."""
    return float(_scalar_arg(v, op, arg, "iuf", numbers.Real, "a real number"))


def diagonal_args(x, offset, axis1, axis2, op):
    """``(offset, axis1, axis2)`` checked for an op on the (axis1, axis2) diagonals of ``x``
    (at least 2-D, an int offset, two distinct valid axes), axes made non-negative."""
    if x.ndim < 2:
        raise ValueError(f"{op}: x must be at least 2-D, got shape {x.shape}")
    if not isinstance(offset, (int, np.integer)) or isinstance(offset, bool):
        raise TypeError(f"{op}: offset must be an int, got {type(offset).__name__}")
    a1 = normalize_axis(axis1, x.ndim, op, "axis1")
    a2 = normalize_axis(axis2, x.ndim, op, "axis2")
    if a1 == a2:
        raise ValueError(f"{op}: axis1 and axis2 must differ, got {axis1} and {axis2} for a "
                         f"{x.ndim}-D tensor")
    return int(offset), a1, a2


def slice_bounds(start, end, size, axis, op):
    """``(start, end)`` of a slice along an axis of ``size``: negative values count from the
    end, both are clamped to ``[0, size]``, and an end before the start is an error."""
    s = min(max(start + size if start < 0 else start, 0), size)
    e = min(max(end + size if end < 0 else end, 0), size)
    if e < s:
        raise ValueError(f"{op}: on axis {axis} (size {size}) the end {e} comes before the "
                         f"start {s} after clamping")
    return s, e


__all__ = ["accept_aliases", "keyword_aliases", "real_arg", "diagonal_args", "slice_bounds", "xp_of", "tensor_arg", "reject_sparse", "check_same_place", "normalize_axis",
           "normalize_axes", "shape_arg", "check_nonneg_shape", "dtype_arg", "place_arg",
           "as_tensor_arg", "int_arg", "CPU"]
