"""What every part of the checker shares: the precision classes of dtypes with their
default steps and tolerances, and moving values between tensors and host arrays."""
from __future__ import annotations

import numpy as np

from ...core import dtype as _dt
from ...core.args import xp_of
from ...core.place import move_array
from ...core.tensor import Tensor
from .complex import wide

# precision classes: 0 = 64-bit, 1 = 32-bit, 2 = float16, 3 = bfloat16
EPS = (1e-6, 1e-3, 1e-2, 1e-1)
TOL = ((1e-5, 1e-3), (1e-3, 1e-2), (1e-2, 5e-2), (5e-2, 1e-1))


def is_float(d):
    return d.kind in "fc" or (_dt.bfloat16 is not None and d == _dt.bfloat16)


def _prec(d):
    if _dt.bfloat16 is not None and d == _dt.bfloat16:
        return 3
    size = d.itemsize // 2 if d.kind == "c" else d.itemsize
    return {8: 0, 4: 1}.get(size, 2)


def host(t, dtype=None):
    a = t.numpy()
    return np.asarray(a, dtype=dtype if dtype is not None else wide(a.dtype))


def like(arr, t):
    """``arr`` (host) moved to the device of tensor ``t``."""
    return arr if type(t._data) is np.ndarray else move_array(arr, t.place)


def zeros_of(t):
    """Zeros shaped like ``t`` on its device: a constant, so no op is recorded."""
    return Tensor._wrap(xp_of(t).zeros(t._data.shape, dtype=t._data.dtype))


def is_sparse(a):
    f = getattr(a, "is_sparse", None)
    return callable(f) and f() is True
