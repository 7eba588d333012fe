"""Tensor creation: to_tensor, constant fills, ranges."""
from __future__ import annotations

import numbers

import numpy as np

from ..core import dtype as _dt
from ..core.convert import to_array
from ..core.place import array_module, parse_place
from ..core.tensor import Tensor
from ..core.args import check_nonneg_shape, dtype_arg, shape_arg, tensor_arg


def to_tensor(data, dtype=None, place=None, stop_gradient=True):
    """Copy ``data`` into a new leaf Tensor.

    ``data``: a Python number, nested lists, a numpy/CuPy array, a Tensor, a DLPack
    producer, or a scipy.sparse matrix (which gives a sparse tensor). Python floats
    become the default dtype (float32), ints int64, bools bool; arrays keep theirs.

    >>> import weft
    >>> weft.to_tensor([1.5, 2.0]).dtype
    dtype('float32')
    >>> weft.to_tensor(2).shape
    []
    """
    if _is_scipy_sparse(data):
        from ..sparse import from_scipy  # noqa: PLC0415  (sparse sits above ops)

        t = from_scipy(data, dtype=dtype, place=place)
        t.stop_gradient = stop_gradient
        return t
    if isinstance(data, Tensor) and data.is_sparse():
        t = data.clone() if dtype is None else data.astype(dtype)
        t = t.detach()
        t.stop_gradient = stop_gradient
        return t
    t = Tensor._wrap(to_array(data, dtype, place))
    t.stop_gradient = bool(stop_gradient)
    return t


def _is_scipy_sparse(x):
    mod = type(x).__module__
    if not mod.startswith("scipy.sparse"):
        return False
    import scipy.sparse as sp  # noqa: PLC0415

    return sp.issparse(x)


def _fill(shape, value, dtype, place, op):
    shape = check_nonneg_shape(shape_arg(shape, op), op)
    p = parse_place(place)
    xp = array_module(p) if p.is_gpu else np
    return Tensor._wrap(xp.full(tuple(shape), value, dtype=dtype))


def _default(dtype, op):
    return dtype_arg(dtype, op, _dt.default_float())


def zeros(shape, dtype=None, name=None, *, place=None, stop_gradient=True):
    """A tensor of zeros (default dtype float32)."""
    t = _fill(shape, 0, _default(dtype, "zeros"), place, "zeros")
    t.stop_gradient = stop_gradient
    return t


def ones(shape, dtype=None, name=None, *, place=None, stop_gradient=True):
    """A tensor of ones (default dtype float32)."""
    t = _fill(shape, 1, _default(dtype, "ones"), place, "ones")
    t.stop_gradient = stop_gradient
    return t


def empty(shape, dtype=None, name=None, *, place=None):
    """An uninitialised tensor; weft fills it with zeros so results never depend on garbage."""
    return _fill(shape, 0, _default(dtype, "empty"), place, "empty")


def full(shape, fill_value, dtype=None, name=None, *, place=None):
    """A tensor filled with ``fill_value`` (default dtype float32, as in Paddle)."""
    if isinstance(fill_value, Tensor):
        fill_value = fill_value.item()
    if not isinstance(fill_value, (numbers.Number, np.generic)):
        raise TypeError(f"full: fill_value must be a number, got {type(fill_value).__name__}")
    return _fill(shape, fill_value, _default(dtype, "full"), place, "full")


def _like(x, value, dtype, op):
    x = tensor_arg(x, "x", op)
    d = dtype_arg(dtype, op, x._data.dtype)
    xp = np if type(x._data) is np.ndarray else array_module(x.place)
    return Tensor._wrap(xp.full(x._data.shape, value, dtype=d))


def zeros_like(x, dtype=None, name=None):
    """Zeros with the shape (and by default dtype and place) of ``x``."""
    return _like(x, 0, dtype, "zeros_like")


def ones_like(x, dtype=None, name=None):
    """Ones with the shape (and by default dtype and place) of ``x``."""
    return _like(x, 1, dtype, "ones_like")


def empty_like(x, dtype=None, name=None):
    """Like :func:`zeros_like` (weft never hands out uninitialised memory)."""
    return _like(x, 0, dtype, "empty_like")


def full_like(x, fill_value, dtype=None, name=None):
    """``fill_value`` with the shape (and by default dtype and place) of ``x``."""
    if isinstance(fill_value, Tensor):
        fill_value = fill_value.item()
    return _like(x, fill_value, dtype, "full_like")


def arange(start=0, end=None, step=1, dtype=None, name=None):
    """Values in ``[start, end)`` spaced by ``step``; int64 for integer arguments.

    >>> import weft
    >>> weft.arange(5).tolist()
    [0, 1, 2, 3, 4]
    """
    vals = []
    for v in (start, end, step):
        if isinstance(v, Tensor):
            v = v.item()
        vals.append(v)
    start, end, step = vals
    if end is None:
        start, end = 0, start
    for nm, v in (("start", start), ("end", end), ("step", step)):
        if not isinstance(v, (numbers.Real, np.generic)) or isinstance(v, bool):
            raise TypeError(f"arange: {nm} must be a real number, got {type(v).__name__}")
    if step == 0:
        raise ValueError("arange: step must not be 0")
    if dtype is None:
        ints = all(isinstance(v, (int, np.integer)) for v in (start, end, step))
        d = _dt.int64 if ints else _dt.default_float()
    else:
        d = dtype_arg(dtype, "arange")
    p = parse_place(None)
    xp = array_module(p) if p.is_gpu else np
    return Tensor._wrap(xp.arange(start, end, step, dtype=d))


__all__ = ["to_tensor", "zeros", "ones", "empty", "full", "zeros_like", "ones_like",
           "empty_like", "full_like", "arange"]
__tensor_methods__ = {}
