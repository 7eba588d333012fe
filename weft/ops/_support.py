"""Operands of the op families that need an op themselves: promotion of binary operands and
the float conversion of integer inputs, both by ``cast``. The plain argument checks are in
``weft.core.args``."""
from __future__ import annotations

import numbers

import numpy as np

from ..core import dtype as _dt
from ..core.args import check_same_place, reject_sparse, tensor_arg
from ..core.tensor import Tensor
from .cast import cast

_ndarray = np.ndarray
_scalar_types = (bool, int, float, complex)


def binary_operands(x, y, op, float_result=False):
    """Convert and promote the operands of a binary elementwise op.

    Tensors promote by numpy's table; Python scalars are weak (see
    ``weft.core.dtype``). ``float_result`` makes integer results the default float
    dtype (true division). Returns ``(x, y)`` where a scalar stays a Python scalar.
    """
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


def require_float(x, op, arg="x"):
    """Integer inputs of float-valued functions become the default float dtype."""
    if x._data.dtype.kind in "biu":
        return cast(x, _dt.default_float())
    return x


__all__ = ["binary_operands", "require_float"]
