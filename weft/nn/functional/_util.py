"""Argument checks shared by the functional modules."""
from __future__ import annotations


from ...core.tensor import Tensor
from ...core.args import real_arg, tensor_arg
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


real_number = real_arg  # the name nn's modules use


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
