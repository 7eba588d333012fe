"""Python operators on Tensor, each the same function as its named op (``a + b`` is
``weft.add(a, b)``), plus the in-place method family (``add_``, ``scale_`` ...)."""
from __future__ import annotations

from ..core.tensor import Tensor
from . import logic as _l
from . import math as _m
from .products import matmul


def _r(f):
    def rf(self, other):
        return f(other, self)
    return rf


Tensor.__add__ = _m.add
Tensor.__radd__ = _r(_m.add)
Tensor.__sub__ = _m.subtract
Tensor.__rsub__ = _r(_m.subtract)
Tensor.__mul__ = _m.multiply
Tensor.__rmul__ = _r(_m.multiply)
Tensor.__truediv__ = _m.divide
Tensor.__rtruediv__ = _r(_m.divide)
Tensor.__floordiv__ = _m.floor_divide
Tensor.__rfloordiv__ = _r(_m.floor_divide)
Tensor.__mod__ = _m.remainder
Tensor.__rmod__ = _r(_m.remainder)
Tensor.__pow__ = _m.pow
Tensor.__rpow__ = _r(_m.pow)
Tensor.__matmul__ = matmul
Tensor.__rmatmul__ = _r(matmul)
Tensor.__neg__ = _m.neg
Tensor.__pos__ = lambda self: self
Tensor.__abs__ = _m.abs
Tensor.__eq__ = _l.equal
Tensor.__ne__ = _l.not_equal
Tensor.__lt__ = _l.less_than
Tensor.__le__ = _l.less_equal
Tensor.__gt__ = _l.greater_than
Tensor.__ge__ = _l.greater_equal
Tensor.__hash__ = object.__hash__


def _logic_or_bitwise(logical, bitwise):
    def op(self, other):
        if self._data.dtype.kind == "b":
            return logical(self, other)
        return bitwise(self, other)
    return op


Tensor.__and__ = _logic_or_bitwise(_l.logical_and, _l.bitwise_and)
Tensor.__or__ = _logic_or_bitwise(_l.logical_or, _l.bitwise_or)
Tensor.__xor__ = _logic_or_bitwise(_l.logical_xor, _l.bitwise_xor)
Tensor.__rand__ = Tensor.__and__
Tensor.__ror__ = Tensor.__or__
Tensor.__rxor__ = Tensor.__xor__
Tensor.__invert__ = lambda self: (_l.logical_not(self) if self._data.dtype.kind == "b"
                                  else _l.bitwise_not(self))
