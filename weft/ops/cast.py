"""dtype conversion: ``cast`` / ``Tensor.astype``, differentiable between float and complex."""
from __future__ import annotations

from ..autograd.engine import Primitive, apply, defbatch, deflinear, defvjp
from ..core.place import (CUDAPlace, Place, cupy_or_raise, move_array, parse_place,
                          place_of_array)
from ..core.tensor import Tensor
from .primitives import copy
from ..core.args import dtype_arg, tensor_arg

_cast = Primitive("cast", lambda x, dtype: x.astype(dtype))


def _cast_vjp(g, ans, x, dtype):
    # real -> complex: the engine keeps the real part; otherwise cast back
    return g


defvjp(_cast, _cast_vjp, save=(), save_out=False)
defbatch(_cast)
deflinear(_cast)   # forward mode: the tangent cast the same way


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
        return copy(x)
    return apply(_cast, x, dtype=d)


def astype(x, dtype):
    return cast(x, dtype)


__all__ = ["cast"]
__tensor_methods__ = {"cast": cast, "astype": astype}


def _move_fwd(x, place):
    return move_array(x, place)


_move = Primitive("to_place", _move_fwd)
defvjp(_move, lambda g, ans, x, place: _to_place(g, place_of_array(x._data)),
       save=(), save_out=False)
deflinear(_move)


def _to_place(x, place):
    if x.place == place:
        return x
    return apply(_move, x, place=place)


def to(x, *args, **kwargs):
    """Move and/or convert: ``t.to('gpu')``, ``t.to(weft.CPUPlace())``, ``t.to('float64')``,
    ``t.to('cpu', 'float64')``, ``t.to(device=..., dtype=...)`` (differentiable).

    >>> import weft
    >>> weft.to_tensor([1, 2]).to('float64').dtype
    dtype('float64')
    """
    device = kwargs.pop("device", None)
    dtype = kwargs.pop("dtype", None)
    kwargs.pop("blocking", None)
    if kwargs:
        raise TypeError(f"to: unexpected keyword arguments {sorted(kwargs)}")
    for a in args:
        if isinstance(a, Place) or (isinstance(a, str) and a.split(":")[0].lower() in
                                    ("cpu", "gpu", "cuda")):
            device = a
        elif isinstance(a, Tensor):
            device, dtype = a.place, a.dtype
        elif isinstance(a, bool) or a is None:
            continue  # Paddle's positional `blocking`
        else:
            dtype = a
    out = x
    if device is not None:
        place = parse_place(device, "device")
        if place.is_gpu:
            cupy_or_raise(f"to({device!r})")
        out = _to_place(out, place)
    if dtype is not None:
        d = dtype_arg(dtype, "to")
        if out._data.dtype != d:
            out = cast(out, d)
    return out


def _cpu(x):
    return to(x, "cpu")


def _cuda(x, device_id=None, blocking=True):
    return to(x, CUDAPlace(device_id or 0))


__tensor_methods__.update({"to": to, "cpu": _cpu, "cuda": _cuda})
