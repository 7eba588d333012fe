"""Matrix products: matmul and its relatives."""
from __future__ import annotations

import numpy as np

from ..autograd.engine import Primitive, apply, defbatch, defvjp
from ..core.args import tensor_arg
from ._support import binary_operands
from .math import cj
from .shape.views import _transpose
from .shape.views import reshape_exact as reshape


def _matmul_fwd(x, y):
    return np.matmul(x, y)


_matmul = Primitive("matmul", _matmul_fwd)


def _mT(t):
    """Swap the last two axes (rules call the primitive: their shapes are known good)."""
    nd = t.ndim
    if nd < 2:
        return t
    perm = list(range(nd))
    perm[-1], perm[-2] = perm[-2], perm[-1]
    return apply(_transpose, t, perm=tuple(perm))


def _mm(a, b):
    return apply(_matmul, a, b)


# 1-D operands use vector-matrix products directly (no transposes or reshapes);
# broadcast batch dimensions are summed by the engine.
def _matmul_vjp_x(g, ans, x, y):
    yc = cj(y)
    if y.ndim == 1:            # (..., n, k) @ (k,): outer product g y^T
        return reshape(g, g.shape + [1]) * yc if x.ndim > 1 else g * yc
    if x.ndim == 1:            # (k,) @ (..., k, m) -> (..., m)
        if y.ndim == 2:
            return _mm(yc, g)
        return reshape(_mm(yc, reshape(g, g.shape + [1])), g.shape[:-1] + [y.shape[-2]])
    return _mm(g, _mT(yc))


def _matmul_vjp_y(g, ans, x, y):
    xc = cj(x)
    if x.ndim == 1:            # (k,) @ (..., k, m) -> (..., m): outer product x g^T
        if y.ndim == 1:
            return g * xc
        return reshape(xc, [x.shape[0], 1]) * reshape(g, g.shape[:-1] + [1, g.shape[-1]])
    if y.ndim == 1:            # (..., n, k) @ (k,) -> (..., n): g^T x
        if x.ndim == 2:
            return _mm(g, xc)
        return _mm(reshape(g, g.shape[:-1] + [1, g.shape[-1]]), xc)
    return _mm(_mT(xc), g)


defvjp(_matmul, _matmul_vjp_x, _matmul_vjp_y, save={0: (0, 1), 1: (0, 1)}, save_out=False)


def _matmul_bvjp_x(g, ans, x, y):
    """The x rule for a batch ``g`` of shape ``[B, *out]``: with a 1-D x the plain rule
    would put g on the wrong side of y (or broadcast B against k)."""
    if x.ndim > 1:             # the plain rule already broadcasts over g's batch axis
        return _matmul_vjp_x(g, ans, x, y)
    yc = cj(y)
    if y.ndim == 1:            # (k,) @ (k,): g is [B]
        return reshape(g, g.shape + [1]) * yc
    if y.ndim == 2:            # [B, m] @ (m, k)
        return _mm(g, _mT(yc))
    r = _mm(reshape(g, g.shape[:-1] + [1, g.shape[-1]]), _mT(yc))
    return reshape(r, r.shape[:-2] + r.shape[-1:])


def _matmul_bvjp_y(g, ans, x, y):
    if x.ndim == 1 and y.ndim == 1:   # g is [B]: one outer product per row
        return reshape(g, g.shape + [1]) * cj(x)
    return _matmul_vjp_y(g, ans, x, y)   # broadcasts over g's batch axis


defbatch(_matmul, _matmul_bvjp_x, _matmul_bvjp_y)


def check_batch_broadcast(x, y, op):
    """Raise unless the batch dimensions (all but the last two) of ``x`` and ``y``
    broadcast together."""
    try:
        np.broadcast_shapes(tuple(x.shape[:-2]), tuple(y.shape[:-2]))
    except ValueError:
        raise ValueError(f"{op}: batch dimensions of {x.shape} and {y.shape} do not "
                         "broadcast") from None


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
    check_batch_broadcast(x, y, "matmul")
    return apply(_matmul, x, y)


__all__ = ["matmul"]
__tensor_methods__ = {"matmul": matmul}
