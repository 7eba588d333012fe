"""Zero-preserving unary sparse ops (api-sparse.md §3.1) and ``pow`` (§3.2).

Each op applies the dense weft op to the stored values and keeps the pattern
(indices copied, same dtype and nnz; an uncoalesced COO or non-canonical CSR input
is canonicalised first for the nonlinear ops), so implicit zeros stay zero (every op here
has f(0) = 0) and the gradient is the dense rule read at the stored entries
(masked). The ops are generated from one table: name, dense op, and whether
integer values are first cast to the default float dtype (transcendental ops) or
kept (``abs``, ``neg``, ``square``). ``abs`` of complex values is real.

>>> import weft
>>> x = weft.sparse.sparse_coo_tensor([[0, 2]], [-1.0, 4.0], [3])
>>> weft.sparse.sqrt(x).values().tolist()
[nan, 2.0]
"""
from __future__ import annotations

import numbers

from ..core import dtype as _dt
from ..ops import math as _dense
from ..ops.cast import cast
from .convert import coalesce, values
from .structural import sparse_arg
from .tensor import SparseCooTensor, UnsupportedDtypeError

# (name of the dense op in weft.ops.math, integers cast to the default float dtype?, linear?)
_TABLE = (
    ("sin", True, False), ("tan", True, False), ("asin", True, False),
    ("atan", True, False), ("sinh", True, False), ("tanh", True, False),
    ("asinh", True, False), ("atanh", True, False),
    ("sqrt", True, False), ("square", False, False),
    ("log1p", True, False), ("abs", False, False), ("neg", False, True),
    ("deg2rad", True, True), ("rad2deg", True, True),
    ("expm1", True, False),
)


# the ops whose dense form takes real values only
_REAL_ONLY = frozenset({"deg2rad", "rad2deg"})


def _dense_op(name):
    return getattr(_dense, name)


def _stored_values(x, op, to_float, linear):
    """``(x', values)``: sparse ``x`` checked and, for a nonlinear op, canonicalised
    (a stored duplicate pair a, b must give f(a + b), not f(a) + f(b)); the values
    cast to the default float dtype if asked."""
    x = sparse_arg(x, op)
    if op in _REAL_ONLY and x._data.dtype.kind == "c":
        # api-sparse.md §0: an unsupported dtype is UnsupportedDtypeError (a TypeError)
        raise UnsupportedDtypeError(f"{op}: x must be a real tensor, got {x._data.dtype.name}")
    if not linear and not (isinstance(x, SparseCooTensor) and x._coalesced):
        x = coalesce(x)
    v = values(x)
    if to_float and v._data.dtype.kind in "iub":
        v = cast(v, _dt.get_default_dtype())
    return x, v


def _make(name, to_float, linear):
    def f(x, name=None):
        x, v = _stored_values(x, f.__name__, to_float, linear)
        return x._with_values(_dense_op(f.__name__)(v))

    f.__name__ = f.__qualname__ = name
    f.__doc__ = (
        f"Element-wise ``{name}`` of the stored values of COO/CSR ``x``; the pattern is kept.\n\n"
        + ("Integer values are cast to the default float dtype first. " if to_float else
           "Integer dtypes are kept. ")
        + "Out-of-domain values give NaN/inf as the dense op does. Gradient: masked.\n\n"
        ">>> import weft, numpy as np\n"
        ">>> x = weft.sparse.sparse_coo_tensor([[0, 2]], [0.5, -0.25], [3])\n"
        f">>> y = weft.sparse.{name}(x)\n"
        f">>> y.indices().tolist(), np.array_equal(y.to_dense().numpy(), "
        f"weft.{name}(x.to_dense()).numpy(), equal_nan=True)\n"
        "([[0, 2]], True)\n")
    return f


for _row in _TABLE:
    globals()[_row[0]] = _make(*_row)
del _row


def pow(x, factor, name=None):
    """Stored values of COO/CSR ``x`` raised to ``factor`` (int or float); pattern kept.

    Implicit zeros stay 0 even for ``factor <= 0`` (only stored entries are
    computed). Integer values with a float factor give the default float dtype.
    Gradient: masked, ``factor * v ** (factor - 1)`` at the stored entries.

    >>> import weft
    >>> x = weft.sparse.sparse_coo_tensor([[0, 2]], [2.0, 3.0], [3])
    >>> weft.sparse.pow(x, 2).values().tolist(), weft.sparse.pow(x, 0).to_dense().tolist()
    ([4.0, 9.0], [1.0, 0.0, 1.0])
    """
    if not isinstance(factor, numbers.Real) or isinstance(factor, bool):
        raise TypeError(f"pow: factor must be an int or a float, got {type(factor).__name__}")
    x, v = _stored_values(x, "pow", not isinstance(factor, numbers.Integral), factor == 1)
    return x._with_values(_dense.pow(v, factor))


__all__ = [row[0] for row in _TABLE] + ["pow"]
