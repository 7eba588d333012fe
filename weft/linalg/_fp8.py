"""``fp8_fp8_half_gemm_fused`` (api-linalg.md #39): Paddle's fused FP8 GEMM (a CUDA
kernel there), emulated on every device from the given values.

``out = act(scale · (op(x) @ op(y)) + bias)`` computed in float32, cast to
``output_dtype``. It is a reference emulation, not a fast path: inputs are up-cast to
float32 (float8 ones included, where the array library has a float8 dtype), so the
product is exact float32 GEMM, not an 8-bit one. Not differentiable (Paddle's is not).
"""
from __future__ import annotations

import math
import numbers

import numpy as np

from ..core.args import check_same_place, tensor_arg, xp_of
from ..core.dtype import UnsupportedDtypeError, bfloat16, is_floating
from ..core.tensor import Tensor

__all__ = ["fp8_fp8_half_gemm_fused"]

_ACTS = ("identity", "relu", "gelu")


def _operand(t, arg, op):
    t = tensor_arg(t, arg, op)
    d = t._data.dtype
    if not is_floating(d) and not d.name.startswith("float8"):
        raise UnsupportedDtypeError(f"{op}: {arg} has dtype {d.name}; a floating-point "
                                    "(float8, float16, bfloat16, float32 or float64) input is "
                                    "expected")
    if t.ndim < 2:
        raise ValueError(f"{op}: {arg} must be a batch of matrices [*, m, n] (at least 2-D), "
                         f"got shape {t.shape}")
    return t


def _gelu(z, xp):
    if xp is np:
        from scipy.special import erf  # noqa: PLC0415
    else:
        from cupyx.scipy.special import erf  # noqa: PLC0415
    return 0.5 * z * (1.0 + erf(z / math.sqrt(2.0)))   # the exact (erf) form, Paddle's default


def fp8_fp8_half_gemm_fused(x, y, transpose_x=False, transpose_y=False, bias=None, scale=1.0,
                            output_dtype="float16", act="identity", name=None):
    """``act(scale · (op(x) @ op(y)) + bias)``, ``op`` the transpose of the last two axes
    where ``transpose_x``/``transpose_y``, computed in float32 and cast to
    ``output_dtype`` ∈ {'float16', 'bfloat16'}; ``act`` ∈ {'identity', 'relu', 'gelu'}
    (gelu: the exact erf form). Batch dimensions broadcast as in ``matmul``; ``bias``
    broadcasts to the output. The output has ``stop_gradient=True``.

    >>> import weft
    >>> x = weft.to_tensor([[1.0, 2.0]], dtype="float32")
    >>> y = weft.to_tensor([[3.0], [-4.0]], dtype="float32")
    >>> weft.linalg.fp8_fp8_half_gemm_fused(x, y, scale=0.5, act="relu").tolist()
    [[0.0]]
    """
    op = "fp8_fp8_half_gemm_fused"
    if act not in _ACTS:
        raise ValueError(f"{op}: act must be 'identity', 'relu' or 'gelu', got {act!r}")
    if output_dtype not in ("float16", "bfloat16"):
        raise ValueError(f"{op}: output_dtype must be 'float16' or 'bfloat16', got "
                         f"{output_dtype!r}")
    if output_dtype == "bfloat16" and bfloat16 is None:
        raise NotImplementedError(f"{op}: output_dtype='bfloat16' needs the ml_dtypes package "
                                  "(weft's bfloat16 dtype); install it or use 'float16'")
    if not isinstance(scale, numbers.Real) or isinstance(scale, bool):
        raise TypeError(f"{op}: scale must be a real number, got {type(scale).__name__}")
    x, y = _operand(x, "x", op), _operand(y, "y", op)
    check_same_place(x, y, op)
    a, b = x._data.astype(np.float32), y._data.astype(np.float32)
    xp = xp_of(a)
    if transpose_x:
        a = xp.swapaxes(a, -1, -2)
    if transpose_y:
        b = xp.swapaxes(b, -1, -2)
    if a.shape[-1] != b.shape[-2]:
        raise ValueError(f"{op}: op(x) {tuple(a.shape)} and op(y) {tuple(b.shape)} do not "
                         "multiply: the inner dimensions differ")
    try:
        z = xp.matmul(a, b)
    except ValueError:
        raise ValueError(f"{op}: the batch dimensions of op(x) {tuple(a.shape)} and op(y) "
                         f"{tuple(b.shape)} do not broadcast") from None
    z = z * np.float32(scale)
    if bias is not None:
        bias = tensor_arg(bias, "bias", op)
        check_same_place(x, bias, op)
        try:
            z = z + xp.broadcast_to(bias._data.astype(np.float32), z.shape)
        except ValueError:
            raise ValueError(f"{op}: bias of shape {bias.shape} does not broadcast to the "
                             f"output's shape {tuple(z.shape)}") from None
    if act == "relu":
        z = xp.maximum(z, np.float32(0))
    elif act == "gelu":
        z = _gelu(z, xp).astype(np.float32)
    out = z.astype(bfloat16 if output_dtype == "bfloat16" else np.float16)
    return Tensor._wrap(out)
