"""Argument checks shared by the functional modules."""
from __future__ import annotations

import numbers

from ...core.tensor import Tensor
from ...core.args import tensor_arg
from ...ops._support import require_float

_REDUCTIONS = ("mean", "sum", "none")


def float_arg(x, op, arg="x"):
    """``x`` as a real floating Tensor: ints and bools become the default float dtype,
    complex input raises ``TypeError``."""
    if type(x) is not Tensor:
        x = tensor_arg(x, arg, op)
    k = x._data.dtype.kind
    if k == "f":
        return x
    if k == "c":
        raise TypeError(f"{op}: {arg} must be a real floating tensor, got "
                        f"{x._data.dtype.name}")
    return require_float(x, op, arg)


def real_number(v, op, arg):
    """A Python float from an int/float (or a one-element real Tensor)."""
    if isinstance(v, Tensor):
        if v.size != 1 or v._data.dtype.kind not in "iuf":
            raise TypeError(f"{op}: {arg} must be a real number, got a {v.dtype.name} tensor "
                            f"of shape {v.shape}")
        v = v.item()
    if not isinstance(v, numbers.Real) or isinstance(v, bool):
        raise TypeError(f"{op}: {arg} must be a real number, got {type(v).__name__}")
    return float(v)


def check_reduction(reduction, op, allowed=_REDUCTIONS):
    if reduction not in allowed:
        raise ValueError(f"{op}: reduction must be one of {', '.join(map(repr, allowed))}, "
                         f"got {reduction!r}")
    return reduction


def int_label(label, op, arg="label"):
    """An integer class-index tensor (int32/int64 or other ints)."""
    label = tensor_arg(label, arg, op)
    if label._data.dtype.kind not in "iu":
        raise TypeError(f"{op}: {arg} must hold integer class indices, got "
                        f"{label._data.dtype.name}")
    return label


def same_place(a, b, op, an, bn):
    pa, pb = a.place, b.place
    if pa != pb:
        raise ValueError(f"{op}: {an} is on {pa} but {bn} is on {pb}")
