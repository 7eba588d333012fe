"""Comparisons, logical and bitwise ops, and float classification (no gradients)."""
from __future__ import annotations

import numpy as np

from ..autograd.engine import Primitive, apply
from ..core.tensor import Tensor
from ..core.args import check_same_place, tensor_arg, xp_of
from ._support import binary_operands


def _cmp(ufunc, opname, doc):
    prim = Primitive(opname, ufunc)

    def op(x, y, name=None):
        if type(x) is Tensor and type(y) is Tensor and x._data.dtype == y._data.dtype \
                and type(x._data) is type(y._data) is np.ndarray:
            return apply(prim, x, y)
        x, y = binary_operands(x, y, prim.name)
        return apply(prim, x, y)

    op.__name__ = op.__qualname__ = opname
    op.__doc__ = doc
    return op


equal = _cmp(np.equal, "equal", "Elementwise ``x == y`` as a bool tensor.")
not_equal = _cmp(np.not_equal, "not_equal", "Elementwise ``x != y`` as a bool tensor.")
less_than = _cmp(np.less, "less_than", "Elementwise ``x < y`` as a bool tensor.")
less_equal = _cmp(np.less_equal, "less_equal", "Elementwise ``x <= y`` as a bool tensor.")
greater_than = _cmp(np.greater, "greater_than", "Elementwise ``x > y`` as a bool tensor.")
greater_equal = _cmp(np.greater_equal, "greater_equal",
                     "Elementwise ``x >= y`` as a bool tensor.")
less = less_than
greater = greater_than


def _truth(a):
    # CuPy's logical ufuncs have no complex loops; a complex value is true where != 0
    return a != 0 if a.dtype.kind == "c" else a


def _logical(ufunc, opname):
    prim = Primitive(opname, lambda x, y: ufunc(_truth(x), _truth(y)))

    def op(x, y, out=None, name=None):
        x = tensor_arg(x, "x", opname)
        y = tensor_arg(y, "y", opname)
        check_same_place(x, y, opname)
        r = apply(prim, x, y)
        return _write_out(r, out)

    op.__name__ = op.__qualname__ = opname
    op.__doc__ = f"Elementwise {opname.split('_')[1]} of the truth values of x and y."
    return op


def _write_out(r, out):
    if out is None:
        return r
    out._data = r._data
    out._version[0] += 1
    return out


logical_and = _logical(np.logical_and, "logical_and")
logical_or = _logical(np.logical_or, "logical_or")
logical_xor = _logical(np.logical_xor, "logical_xor")
_lnot = Primitive("logical_not", lambda x: np.logical_not(_truth(x)))


def logical_not(x, out=None, name=None):
    """Elementwise logical not."""
    return _write_out(apply(_lnot, tensor_arg(x, "x", "logical_not")), out)


def _bitwise(ufunc, opname):
    prim = Primitive(opname, ufunc)

    def op(x, y, out=None, name=None):
        x = tensor_arg(x, "x", opname)
        if x._data.dtype.kind not in "biu":
            raise TypeError(f"{opname}: x must be a bool or integer tensor, got "
                            f"{x._data.dtype.name}")
        x, y = binary_operands(x, y, opname)
        if isinstance(y, Tensor) and y._data.dtype.kind not in "biu":
            raise TypeError(f"{opname}: y must be a bool or integer tensor, got "
                            f"{y._data.dtype.name}")
        return _write_out(apply(prim, x, y), out)

    op.__name__ = op.__qualname__ = opname
    op.__doc__ = f"Elementwise bitwise {opname.split('_')[1]} of bool or integer tensors."
    return op


bitwise_and = _bitwise(np.bitwise_and, "bitwise_and")
bitwise_or = _bitwise(np.bitwise_or, "bitwise_or")
bitwise_xor = _bitwise(np.bitwise_xor, "bitwise_xor")
_bnot = Primitive("bitwise_not", np.invert)


def bitwise_not(x, out=None, name=None):
    """Elementwise bitwise not of a bool or integer tensor."""
    x = tensor_arg(x, "x", "bitwise_not")
    if x._data.dtype.kind not in "biu":
        raise TypeError(f"bitwise_not: x must be a bool or integer tensor, got "
                        f"{x._data.dtype.name}")
    return _write_out(apply(_bnot, x), out)


_isnan = Primitive("isnan", np.isnan)
_isinf = Primitive("isinf", np.isinf)
_isfinite = Primitive("isfinite", np.isfinite)


def isnan(x, name=None):
    """True where x is NaN."""
    return apply(_isnan, tensor_arg(x, "x", "isnan"))


def isinf(x, name=None):
    """True where x is +inf or -inf."""
    return apply(_isinf, tensor_arg(x, "x", "isinf"))


def isfinite(x, name=None):
    """True where x is neither NaN nor infinite."""
    return apply(_isfinite, tensor_arg(x, "x", "isfinite"))


_isclose = Primitive("isclose", lambda x, y, rtol, atol, equal_nan:
                     np.isclose(x, y, rtol=rtol, atol=atol, equal_nan=equal_nan))


def _isclose_checked(x, y, rtol, atol, equal_nan, op):
    x, y = binary_operands(x, y, op)
    if rtol < 0 or atol < 0:
        raise ValueError(f"{op}: rtol and atol must be non-negative, got {rtol}, {atol}")
    return apply(_isclose, x, y, rtol=float(rtol), atol=float(atol), equal_nan=bool(equal_nan))


def isclose(x, y, rtol=1e-05, atol=1e-08, equal_nan=False, name=None):
    """``|x - y| <= atol + rtol * |y|`` elementwise (numpy's rule)."""
    return _isclose_checked(x, y, rtol, atol, equal_nan, "isclose")


def allclose(x, y, rtol=1e-05, atol=1e-08, equal_nan=False, name=None):
    """0-D bool tensor: whether ``isclose`` holds everywhere."""
    r = _isclose_checked(x, y, rtol, atol, equal_nan, "allclose")
    return Tensor._wrap(xp_of(r).asarray(r._data.all()))


def equal_all(x, y, name=None):
    """0-D bool tensor: same shape and all elements equal."""
    x = tensor_arg(x, "x", "equal_all")
    y = tensor_arg(y, "y", "equal_all")
    check_same_place(x, y, "equal_all")
    xp = xp_of(x)
    if x._data.shape != y._data.shape:
        return Tensor._wrap(xp.asarray(False))
    return Tensor._wrap(xp.asarray((x._data == y._data).all()))


__all__ = ["equal", "not_equal", "less_than", "less_equal", "greater_than", "greater_equal",
           "less", "greater", "logical_and", "logical_or", "logical_xor", "logical_not",
           "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not", "isnan", "isinf",
           "isfinite", "isclose", "allclose", "equal_all"]
__tensor_methods__ = {n: globals()[n] for n in __all__}
