"""Python operators on Tensor, each the same function as its named op (``a + b`` is
``weft.add(a, b)``); ``weft.ops`` attaches them with the other Tensor methods."""
from __future__ import annotations

from . import logic as _l
from . import math as _m
from .products import matmul


def _r(f):
    def rf(self, other):
        return f(other, self)
    return rf


def _logic_or_bitwise(logical, bitwise):
    # Python has one operator for both: bool tensors get the logical op
    def op(self, other):
        if self._data.dtype.kind == "b":
            return logical(self, other)
        return bitwise(self, other)
    return op


def _invert(self):
    return _l.logical_not(self) if self._data.dtype.kind == "b" else _l.bitwise_not(self)


_and = _logic_or_bitwise(_l.logical_and, _l.bitwise_and)
_or = _logic_or_bitwise(_l.logical_or, _l.bitwise_or)
_xor = _logic_or_bitwise(_l.logical_xor, _l.bitwise_xor)

__all__ = []
__tensor_methods__ = {
    "__add__": _m.add, "__radd__": _r(_m.add),
    "__sub__": _m.subtract, "__rsub__": _r(_m.subtract),
    "__mul__": _m.multiply, "__rmul__": _r(_m.multiply),
    "__truediv__": _m.divide, "__rtruediv__": _r(_m.divide),
    # Paddle keeps the Python 2 names (Paddle code calls x.__div__(y))
    "__div__": _m.divide, "__rdiv__": _r(_m.divide),
    "__floordiv__": _m.floor_divide, "__rfloordiv__": _r(_m.floor_divide),
    "__mod__": _m.remainder, "__rmod__": _r(_m.remainder),
    "__pow__": _m.pow, "__rpow__": _r(_m.pow),
    "__matmul__": matmul, "__rmatmul__": _r(matmul),
    "__neg__": _m.neg, "__pos__": lambda self: self, "__abs__": _m.abs,
    "__eq__": _l.equal, "__ne__": _l.not_equal, "__lt__": _l.less_than,
    "__le__": _l.less_equal, "__gt__": _l.greater_than, "__ge__": _l.greater_equal,
    # defining __eq__ would otherwise make tensors unhashable
    "__hash__": object.__hash__,
    "__and__": _and, "__or__": _or, "__xor__": _xor,
    "__rand__": _and, "__ror__": _or, "__rxor__": _xor, "__invert__": _invert,
}
