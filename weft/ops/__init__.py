"""Dense ops: each family module lists its public functions in ``__all__`` and the
Tensor methods it provides in ``__tensor_methods__``; this package gathers both."""
from __future__ import annotations

import importlib

from ..autograd import engine as _engine
from ..core.tensor import Tensor

# order matters only for name clashes: later families win
_FAMILIES = [
    "cast", "shape", "math", "logic", "creation", "products",
    "special", "elementwise", "reduction", "shape_extra", "indexing", "sorting",
    "random", "pad",
]

__all__ = []
_methods = {}
for _name in _FAMILIES:
    try:
        _mod = importlib.import_module(f"{__name__}.{_name}")
    except ModuleNotFoundError as _e:
        if _e.name != f"{__name__}.{_name}":
            raise
        continue  # a family not written yet
    for _n in _mod.__all__:
        globals()[_n] = getattr(_mod, _n)
    __all__ += [n for n in _mod.__all__ if n not in __all__]
    _methods.update(getattr(_mod, "__tensor_methods__", {}))

for _n, _f in _methods.items():
    setattr(Tensor, _n, _f)

from . import operators as _operators  # noqa: E402,F401  (binds +, -, *, [], ...)

from .cast import cast as _cast  # noqa: E402
from .creation import zeros as _zeros  # noqa: E402
from .math import real as _real  # noqa: E402
from .reduction.aggregate import sum_to_shape as _sum_to_shape  # noqa: E402
from .shape.views import reshape_exact as _reshape_exact  # noqa: E402


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
