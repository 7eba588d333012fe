"""Matrix products: matmul and its relatives."""
from __future__ import annotations

import numpy as np

from ..autograd.engine import Primitive, apply, defvjp
from ._support import binary_operands, tensor_arg
from .shape import reshape_exact as reshape, transpose


def _matmul_fwd(x, y):
    return np.matmul(x, y)


_matmul = Primitive("matmul", _matmul_fwd)


def _mT(t):
    nd = t.ndim
    if nd < 2:
        return t
    perm = list(range(nd))
    perm[-1], perm[-2] = perm[-2], perm[-1]
    return transpose(t, perm)


def _matmul_vjp_x(g, ans, x, y):
    from .math import conj  # noqa: PLC0415

    yc = conj(y) if y._data.dtype.kind == "c" else y
    if x.ndim == 1 and y.ndim == 1:
        return g * yc
    if y.ndim == 1:            # (..., n, k) @ (k,) -> (..., n)
        return reshape(g, g.shape + [1]) * yc
    if x.ndim == 1:            # (k,) @ (..., k, m) -> (..., m); the engine sums the batch
        return reshape(matmul(yc, reshape(g, g.shape + [1])), g.shape[:-1] + [y.shape[-2]])
    return matmul(g, _mT(yc))


def _matmul_vjp_y(g, ans, x, y):
    from .math import conj  # noqa: PLC0415

    xc = conj(x) if x._data.dtype.kind == "c" else x
    if x.ndim == 1 and y.ndim == 1:
        return g * xc
    if x.ndim == 1:            # (k,) @ (..., k, m): dy = outer(x, g)
        return reshape(xc, [-1, 1]) * reshape(g, g.shape[:-1] + [1, g.shape[-1]])
    if y.ndim == 1:            # (..., n, k) @ (k,): dy = sum over batch of x^T g
        return reshape(matmul(_mT(xc), reshape(g, g.shape + [1])), x.shape[:-2] + [x.shape[-1]])
    return matmul(_mT(xc), g)


defvjp(_matmul, _matmul_vjp_x, _matmul_vjp_y, save={0: (0, 1), 1: (0, 1)}, save_out=False)


def matmul(x, y, transpose_x=False, transpose_y=False, name=None):
    """Matrix product with numpy's broadcasting rules (1-D operands are vectors).

    >>> import weft
    >>> weft.matmul(weft.ones([2, 3]), weft.ones([3])).tolist()
    [3.0, 3.0]
    """
    x = tensor_arg(x, "x", "matmul")
    y = tensor_arg(y, "y", "matmul")
    x, y = binary_operands(x, y, "matmul")
    if x.ndim == 0 or y.ndim == 0:
        raise ValueError(f"matmul: x and y must be at least 1-D, got shapes {x.shape} and "
                         f"{y.shape}")
    if transpose_x:
        x = _mT(x)
    if transpose_y:
        y = _mT(y)
    k1 = x.shape[-1]
    k2 = y.shape[-2] if y.ndim >= 2 else y.shape[0]
    if k1 != k2:
        raise ValueError(f"matmul: x's last dimension ({k1}) must equal y's "
                         f"{'second-to-last' if y.ndim >= 2 else 'only'} dimension ({k2}); "
                         f"shapes {x.shape} and {y.shape}")
    try:
        np.broadcast_shapes(tuple(x.shape[:-2]), tuple(y.shape[:-2]))
    except ValueError:
        raise ValueError(f"matmul: batch dimensions of {x.shape} and {y.shape} do not "
                         "broadcast") from None
    return apply(_matmul, x, y)


__all__ = ["matmul"]
__tensor_methods__ = {"matmul": matmul}
