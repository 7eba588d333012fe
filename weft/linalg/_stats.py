"""Covariance and correlation matrices ``cov`` and ``corrcoef`` (numpy's formulas,
weights included), built from differentiable weft ops."""
from __future__ import annotations

import numbers

import numpy as np

from ..core import dtype as _dt
from ..core.args import check_same_place, tensor_arg
from ..ops.cast import cast
from ..ops.math.functions import complex as _complex
from ..ops.math.ufuncs import cj, imag, real, sqrt
from ..ops.primitives import diagonal as _diagonal
from ..ops.products import _mm, _mT
from ..ops.reduction.aggregate import sum as _sum
from ..ops.shape.views import reshape, unsqueeze

__all__ = ["corrcoef", "cov"]


def _observations(x, rowvar, op):
    x = tensor_arg(x, "x", op)
    if not 1 <= x.ndim <= 2:
        raise ValueError(f"{op}: Input(x) only support N-D (1<=N<=2) tensor, got shape "
                         f"{x.shape}")
    if x._data.dtype.kind in "biu":
        x = cast(x, _dt.get_default_dtype())
    elif x._data.dtype.kind == "f" and x._data.dtype.itemsize < 4:
        x = cast(x, "float32")
    if x.ndim == 1:
        x = unsqueeze(x, 0)
    elif not rowvar:
        x = _mT(x)
    return x


def _weights(w, n, op, arg, integer):
    if w is None:
        return None
    w = tensor_arg(w, arg, op)
    if w.ndim != 1 or w.shape[0] != n:
        raise ValueError(f"{op}: {arg} must be 1-D with one weight per observation ({n}), "
                         f"got shape {w.shape}")
    d = w._data
    if integer and d.dtype.kind not in "iu":
        raise TypeError(f"{op}: {arg} must hold integers, got dtype {d.dtype.name}")
    if d.size and bool((d < 0).any()):
        raise ValueError(f"{op}: {arg} must be non-negative")
    return w


def cov(x, rowvar=True, ddof=True, fweights=None, aweights=None, name=None):
    """Covariance matrix of the variables in ``x`` (1-D, or 2-D with one variable per
    row when ``rowvar``, per column otherwise). ``ddof`` True/False/int k: the
    normaliser is N − int(ddof); ``fweights`` (integer frequencies) and ``aweights``
    (observation weights) follow ``numpy.cov``. Output ``[V, V]``, or 0-D for a
    single variable.

    >>> import weft
    >>> weft.linalg.cov(weft.to_tensor([[0.0, 1.0, 2.0], [2.0, 1.0, 0.0]])).tolist()
    [[1.0, -1.0], [-1.0, 1.0]]
    """
    op = "cov"
    if isinstance(ddof, bool):
        ddof = int(ddof)
    elif not isinstance(ddof, numbers.Integral):
        raise TypeError(f"{op}: ddof must be a bool or an int, got {type(ddof).__name__}")
    ddof = int(ddof)
    x = _observations(x, rowvar, op)
    n = x.shape[1]
    fw = _weights(fweights, n, op, "fweights", True)
    aw = _weights(aweights, n, op, "aweights", False)
    for w in (fw, aw):
        if w is not None:
            check_same_place(x, w, op)
    w = None
    real_dtype = np.finfo(x._data.dtype).dtype
    if fw is not None:
        w = cast(fw, real_dtype)
    if aw is not None:
        a = cast(aw, real_dtype)
        w = a if w is None else w * a
    if w is None:
        mean = _sum(x, axis=1, keepdim=True) / n
        fact = n - ddof
    else:
        w_sum = _sum(w)
        mean = _sum(x * w, axis=1, keepdim=True) / w_sum
        if ddof == 0:
            fact = w_sum
        elif aw is None:
            fact = w_sum - ddof
        else:
            fact = w_sum - ddof * _sum(w * cast(aw, real_dtype)) / w_sum
    xc = x - mean
    xw = xc if w is None else xc * w
    c = _mm(xc, _mT(cj(xw))) / fact
    if c.shape[0] == 1:
        c = reshape(c, [])
    return c


def corrcoef(x, rowvar=True, name=None):
    """Pearson correlation coefficients: ``cov(x) / sqrt(diag ⊗ diag)``, entries clipped
    to [−1, 1] (for complex input the real and imaginary parts separately). 1-D input
    gives the 0-D tensor 1.0.

    >>> import weft
    >>> weft.linalg.corrcoef(weft.to_tensor([[1.0, 2.0, 3.0], [3.0, 2.0, 1.0]])).tolist()
    [[1.0, -1.0], [-1.0, 1.0]]
    """
    c = cov(x, rowvar)
    if c.ndim == 0:
        return c / c
    std = sqrt(real(_diagonal(c, 0, 0, 1)))
    c = c / unsqueeze(std, 1) / unsqueeze(std, 0)
    if c._data.dtype.kind == "c":
        return _complex(real(c).clip(-1.0, 1.0), imag(c).clip(-1.0, 1.0))
    return c.clip(-1.0, 1.0)
