"""The matrix exponential ``matrix_exp``, batched, real and complex.

Forward: scipy.linalg.expm (Padé 13 with scaling and squaring; cupyx.scipy.linalg.expm
on the GPU). Rule: for ``Y = exp(X)`` the cotangent is the upper-right block of the
exponential of the block-triangular matrix ``[[Xᴴ, G], [0, Xᴴ]]`` (the Fréchet
derivative of exp in direction G, taken at Xᴴ), computed with ``matrix_exp`` itself so
that every order of derivative works.
"""
from __future__ import annotations

from ..autograd.engine import Primitive, apply, defvjp
from ..core.args import xp_of
from ..ops.math.ufuncs import cj
from ..ops.products import _mT
from ..ops.shape.join import concat
from ._common import matrix_arg, restore

__all__ = ["matrix_exp"]


def _expm_fwd(a):
    if xp_of(a).__name__ == "numpy":
        from scipy.linalg import expm  # noqa: PLC0415
    else:
        from cupyx.scipy.linalg import expm  # noqa: PLC0415
    if a.size == 0:
        return a.copy()
    if a.ndim > 2 and xp_of(a).__name__ != "numpy":
        # cupyx's expm takes one matrix (scipy's takes a batch)
        flat = a.reshape((-1,) + a.shape[-2:])
        return xp_of(a).stack([expm(m) for m in flat]).reshape(a.shape).astype(a.dtype, copy=False)
    return expm(a).astype(a.dtype, copy=False)


_expm = Primitive("linalg_matrix_exp", _expm_fwd)


def _expm_vjp(g, y, x):
    n = x.shape[-1]
    xh = cj(_mT(x))
    zero = xh * 0.0
    big = concat([concat([xh, g], axis=-1), concat([zero, xh], axis=-1)], axis=-2)
    return apply(_expm, big)[..., :n, n:]


defvjp(_expm, _expm_vjp, save_out=False)


def matrix_exp(x, name=None):
    """The matrix exponential of each square matrix in ``x [*, n, n]``.

    >>> import weft
    >>> a = weft.to_tensor([[0.0, 1.0], [0.0, 0.0]], dtype="float64")
    >>> weft.linalg.matrix_exp(a).tolist()
    [[1.0, 1.0], [0.0, 1.0]]
    """
    x, back = matrix_arg(x, "matrix_exp")
    return restore(apply(_expm, x), back)
