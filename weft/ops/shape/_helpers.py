"""Argument helpers shared by the shape ops (lists of tensors and ints, keyword aliases, slices)."""
from __future__ import annotations

import builtins
import numpy as np

from ...core import dtype as _dt
from ...core.args import keyword_aliases, tensor_arg
from ...core.place import place_of_array
from ...core.tensor import Tensor


pyslice = builtins.slice  # the name slice is the public op below


aliases = keyword_aliases  # the shape ops' name for it


def tensor_list(x, op, arg="x", promote=True):
    """A non-empty list of Tensors on one device, promoted to a common dtype."""
    if isinstance(x, Tensor) or not isinstance(x, (list, tuple)):
        raise TypeError(f"{op}: {arg} must be a list or tuple of Tensors, got "
                        f"{type(x).__name__}")
    if len(x) == 0:
        raise ValueError(f"{op}: {arg} is an empty list; give at least one Tensor")
    ts = [tensor_arg(t, f"{arg}[{i}]", op) for i, t in enumerate(x)]
    d0 = ts[0]._data
    if any(type(t._data) is not type(d0) for t in ts) or type(d0) is not np.ndarray:
        p0 = place_of_array(d0)
        for i, t in enumerate(ts):
            pi = place_of_array(t._data)
            if pi != p0:
                raise ValueError(f"{op}: {arg}[{i}] is on {pi} but {arg}[0] is on {p0}; "
                                 "move them to one device first")
    if promote:
        d = d0.dtype
        for t in ts[1:]:
            if t._data.dtype != d:
                d = _dt.promote_types(d, t._data.dtype)
        if any(t._data.dtype != d for t in ts):
            from ..cast import cast  # noqa: PLC0415

            ts = [t if t._data.dtype == d else cast(t, d) for t in ts]
    return ts


def int_list(v, op, arg):
    """A list of ints from an int, a list/tuple of ints or 0-D/1-element Tensors, or a 1-D
    integer Tensor."""
    if isinstance(v, Tensor):
        if v._data.dtype.kind not in "iu":
            raise TypeError(f"{op}: {arg} must be an integer Tensor, got {v.dtype.name}")
        if v.ndim > 1:
            raise ValueError(f"{op}: {arg} must be a 1-D Tensor, got shape {v.shape}")
        return [int(a) for a in v.numpy().reshape(-1)]
    if isinstance(v, (int, np.integer)) and not isinstance(v, bool):
        return [int(v)]
    if not isinstance(v, (list, tuple)):
        raise TypeError(f"{op}: {arg} must be a list or tuple of ints, got {type(v).__name__}")
    out = []
    for i, a in enumerate(v):
        if isinstance(a, Tensor):
            if a._data.dtype.kind not in "iu" or a._data.size != 1:
                raise TypeError(f"{op}: {arg}[{i}] must be an int or a one-element integer "
                                f"Tensor, got {a.dtype.name} of shape {a.shape}")
            a = a.item()
        if not isinstance(a, (int, np.integer)) or isinstance(a, bool):
            raise TypeError(f"{op}: {arg}[{i}] must be an int, got {type(a).__name__}")
        out.append(int(a))
    return out


__all__ = []
