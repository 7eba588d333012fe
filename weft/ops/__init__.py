"""Dense ops, one module or subpackage per family. Each family lists its public functions
in ``__all__`` and the Tensor methods it provides in ``__tensor_methods__``; this package
re-exports the first and attaches the second (``weft.core.tensor.add_methods``).

``primitives`` holds the gather/scatter primitives the families share. Factorisations
(QR, SVD, solves) are ``weft.linalg``'s.
"""
from __future__ import annotations

from ..autograd import engine as _engine
from ..core.tensor import Tensor, add_methods
# the family modules first: a star import below rebinds a name that is both (`cast`)
from . import cast as _cast_f, creation as _creation_f, indexing as _indexing_f
from . import inplace as _inplace_f, logic as _logic_f, math as _math_f
from . import operators as _operators_f, products as _products_f
from . import random as _random_f, reduction as _reduction_f, shape as _shape_f
from . import sorting as _sorting_f, special as _special_f

from .cast import *  # noqa: F401,F403
from .creation import *  # noqa: F401,F403
from .indexing import *  # noqa: F401,F403
from .inplace import *  # noqa: F401,F403
from .logic import *  # noqa: F401,F403
from .math import *  # noqa: F401,F403
from .products import *  # noqa: F401,F403
from .random import *  # noqa: F401,F403
from .reduction import *  # noqa: F401,F403
from .shape import *  # noqa: F401,F403
from .sorting import *  # noqa: F401,F403
from .special import *  # noqa: F401,F403

_FAMILIES = (_cast_f, _shape_f, _math_f, _logic_f, _reduction_f, _creation_f, _products_f,
             _special_f, _inplace_f, _indexing_f, _sorting_f, _random_f, _operators_f)
__all__ = [n for fam in _FAMILIES for n in fam.__all__]
for _fam in _FAMILIES:
    add_methods(Tensor, _fam.__tensor_methods__)
del _fam


def _native_operators():
    """+ - * / on Tensors as native methods (csrc/core/engine.cpp) where the native
    apply is in use: their common cases skip the Python op's frame."""
    from .._native import extension  # noqa: PLC0415
    from ..autograd import engine  # noqa: PLC0415
    from .math import ufuncs as u  # noqa: PLC0415

    if engine.apply is engine._apply_py or not hasattr(extension, "autograd_operators"):
        return
    ops = (u.add, u.subtract, u.multiply, u.divide)
    for name, method in extension.autograd_operators(
            ops, [u._add, u._sub, u._mul, u._div], [False, False, False, True]).items():
        setattr(Tensor, name, method)


_native_operators()

from .cast import cast as _cast
from .creation import zeros as _zeros
from .math.ufuncs import real as _real
from .reduction.aggregate import sum_to_shape as _sum_to_shape
from .shape.views import reshape_exact as _reshape_exact


def _zeros_for(shape, dtype, node):
    # zeros on the device of the node's first tensor input
    for a in node.inputs:
        if isinstance(a, Tensor):
            from ..core.place import array_module  # noqa: PLC0415

            p = a.place
            xp = array_module(p)
            return Tensor._wrap(xp.zeros(tuple(shape), dtype=dtype))
    return _zeros(shape, dtype)


_engine.support.sum_to_shape = _sum_to_shape
_engine.support.real = _real
_engine.support.cast = _cast
_engine.support.zeros = _zeros_for
_engine.support.reshape = _reshape_exact
_engine.support.stack = globals()["stack"]
_engine.support.reshape_op = globals()["reshape"]
_engine.support.concat = globals()["concat"]
_engine.support.transpose = globals()["transpose"]
_engine.support.broadcast_to = globals()["broadcast_to"]
