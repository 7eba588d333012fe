"""Data types and Paddle-style type promotion.

weft's dtypes are numpy ``dtype`` objects, so ``t.dtype == weft.float32``,
``t.dtype == 'float32'`` and ``t.dtype == np.float32`` all hold, and arrays from
numpy and CuPy need no translation.

Promotion follows numpy's table between tensors. Python scalars are *weak*: they
never widen a tensor within its category (bool < int < float < complex), they
only move it to a higher category, landing on the default dtype of that category.
"""
from __future__ import annotations

import numpy as np


class UnsupportedDtypeError(TypeError, ValueError):
    """A dtype an op does not support: both a TypeError and a ValueError, shared by
    every module (api-sparse.md §0, api-linalg.md §0)."""


bool_ = np.dtype("bool")
int8 = np.dtype("int8")
uint8 = np.dtype("uint8")
int16 = np.dtype("int16")
int32 = np.dtype("int32")
int64 = np.dtype("int64")
float16 = np.dtype("float16")
float32 = np.dtype("float32")
float64 = np.dtype("float64")
complex64 = np.dtype("complex64")
complex128 = np.dtype("complex128")

_NAMED = {d.name: d for d in (bool_, int8, uint8, int16, int32, int64, float16,
                              float32, float64, complex64, complex128)}
_NAMED.update({"bool": bool_, "float": float32, "double": float64, "half": float16,
               "int": int64, "long": int64, "cfloat": complex64, "cdouble": complex128})

try:  # bfloat16 is optional: only where ml_dtypes is installed
    import ml_dtypes as _ml

    bfloat16 = np.dtype(_ml.bfloat16)
    _NAMED["bfloat16"] = bfloat16
except ImportError:  # pragma: no cover - depends on the environment
    bfloat16 = None

_default_float = [float32]

# category of a dtype: 0 bool, 1 integer, 2 floating, 3 complex
_KIND_RANK = {"b": 0, "i": 1, "u": 1, "f": 2, "c": 3, "V": 2}


def convert_dtype(dtype, arg="dtype"):
    """Turn a dtype spec (weft/numpy dtype, string, Python type) into a numpy dtype."""
    if isinstance(dtype, np.dtype):
        if dtype.name in _NAMED or dtype == bfloat16:
            return dtype
    elif isinstance(dtype, str):
        name = dtype[7:] if dtype.startswith("paddle.") else dtype
        name = name[5:] if name.startswith("weft.") else name
        d = _NAMED.get(name)
        if d is not None:
            return d
    elif dtype is float:
        return _default_float[0]
    elif dtype is int:
        return int64
    elif dtype is bool:
        return bool_
    elif dtype is complex:
        return complex64 if _default_float[0] != float64 else complex128
    else:
        try:
            d = np.dtype(dtype)
        except TypeError:
            d = None
        if d is not None and d.name in _NAMED:
            return d
    raise TypeError(f"{arg}: expected one of {sorted(set(_NAMED))}, got {dtype!r}")


def get_default_dtype():
    """The default floating dtype as a string, ``'float32'`` unless changed."""
    return _default_float[0].name


def set_default_dtype(d):
    """Set the default floating dtype: float16, float32 or float64."""
    d = convert_dtype(d, "d")
    if d.kind != "f":
        raise TypeError(f"set_default_dtype: expected a floating dtype, got {d.name}")
    _default_float[0] = d


def default_float():
    return _default_float[0]


def default_complex():
    return complex128 if _default_float[0] == float64 else complex64


def is_floating(d):
    return d.kind == "f" or d == bfloat16


def is_complex(d):
    return d.kind == "c"


def is_differentiable(d):
    return d.kind in "fc"


def to_complex(d):
    """The complex dtype with the precision of a real floating dtype."""
    return complex128 if d == float64 else complex64


def to_real(d):
    """The real dtype with the precision of a complex dtype (identity for reals)."""
    if d.kind != "c":
        return d
    return float64 if d == complex128 else float32


def promote_types(a, b):
    """Tensor-tensor promotion: numpy's table."""
    if a is b or a == b:
        return a
    return np.promote_types(a, b)


_scalar_cache: dict = {}


def scalar_result_type(d, scalar):
    """dtype of ``tensor(d) op scalar`` with weak Python scalar semantics."""
    key = (d, type(scalar))
    r = _scalar_cache.get(key)
    if r is not None:
        return r
    t = type(scalar)
    if t is bool or isinstance(scalar, np.bool_):
        srank = 0
    elif isinstance(scalar, (int, np.integer)):
        srank = 1
    elif isinstance(scalar, (float, np.floating)):
        srank = 2
    elif isinstance(scalar, (complex, np.complexfloating)):
        srank = 3
    else:
        raise TypeError(f"expected a Tensor or a Python number, got {t.__name__}")
    trank = _KIND_RANK[d.kind]
    if srank <= trank:
        r = d
    elif srank == 1:
        r = int64
    elif srank == 2:
        r = _default_float[0]
    elif trank == 2:  # complex scalar with a real floating tensor keeps the precision
        r = to_complex(d)
    else:
        r = default_complex()
    # the default float dtype can change, so only cache answers that do not depend on it
    if not (srank > trank and srank >= 2):
        _scalar_cache[key] = r
    return r


def dtype_of_scalar(x):
    """dtype of a Python scalar given to ``to_tensor`` (numpy scalars keep theirs)."""
    if isinstance(x, np.generic):
        return x.dtype
    if isinstance(x, bool):
        return bool_
    if isinstance(x, int):
        return int64
    if isinstance(x, float):
        return _default_float[0]
    if isinstance(x, complex):
        return default_complex()
    raise TypeError(f"expected a number, got {type(x).__name__}")
