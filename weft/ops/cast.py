"""dtype conversion: ``cast`` / ``Tensor.astype``, differentiable between float and complex."""
from __future__ import annotations

from ..autograd.engine import Primitive, apply, defvjp
from ._support import dtype_arg, tensor_arg

_cast = Primitive("cast", lambda x, dtype: x.astype(dtype))


def _cast_vjp(g, ans, x, dtype):
    # real -> complex: the engine keeps the real part; otherwise cast back
    return g


defvjp(_cast, _cast_vjp, save=(), save_out=False)


def cast(x, dtype):
    """Return ``x`` converted to ``dtype`` (a copy; differentiable between float types).

    >>> import weft
    >>> weft.cast(weft.to_tensor([1.7, -2.2]), 'int32').tolist()
    [1, -2]
    """
    x = tensor_arg(x, "x", "cast")
    d = dtype_arg(dtype, "cast")
    if d is None:
        raise TypeError("cast: dtype must be given")
    if x._data.dtype == d:
        return apply(_identity, x)
    return apply(_cast, x, dtype=d)


_identity = Primitive("assign", lambda x: x.copy())
defvjp(_identity, lambda g, ans, x: g, save=(), save_out=False)


def astype(x, dtype):
    return cast(x, dtype)


__all__ = ["cast"]
__tensor_methods__ = {"cast": cast, "astype": astype}
