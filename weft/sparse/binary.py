"""Element-wise binary sparse ops: ``add``, ``subtract``, ``multiply``, ``divide``
(api-sparse.md §3.4) and the sparse operators ``+ - * / -x`` and ``prune``.

Every op splits into a pattern step and a values step:

* pattern: the union of the operands' patterns (add, subtract, multiply: entries
  present in one operand only are computed against an implicit 0 and stored even
  when the result is 0), or every coordinate of the sparse dims (divide, so that
  ``to_dense()`` equals dense division including NaN/inf). The native kernels
  (csrc/sparse/elementwise.cpp) merge two canonical index sets and return, per
  output slot, the slot it reads in x and in y (-1 where absent); an array-module
  fallback does the same for GPU arrays.
* values: ``pick(values(x), slot_x) OP pick(values(y), slot_y)`` with ``pick`` a
  gather that reads 0 at -1. ``pick`` is linear and its vjp is ``pick`` with the
  inverse slot map, so gradients are masked to each operand's own pattern and the
  dense op supplies the rule (``multiply``: g·conj(y), g·conj(x) ...) to any order.

>>> import weft
>>> x = weft.sparse.sparse_coo_tensor([[0, 1], [1, 0]], [1.0, 2.0], [2, 2])
>>> y = weft.sparse.sparse_coo_tensor([[0, 1], [1, 1]], [3.0, 4.0], [2, 2])
>>> (x + y).to_dense().tolist(), (x * y).nnz()
([[0.0, 4.0], [2.0, 4.0]], 3)
"""
from __future__ import annotations

import numbers

import numpy as np

from .._native import extension as _C
from ..autograd.engine import Primitive, apply, defvjp
from ..core import dtype as _dt
from ..core.tensor import Tensor, add_methods
from . import _kernels as K
from .convert import (batched_crows, crows_from_rows, global_crows, _prod, coalesce, coo_linear,
                      csr_linear, values)
from .tensor import (SparseCooTensor, SparseCsrTensor, UnsupportedDtypeError, SparseBase,
                     wrap_coo, wrap_csr)
from ._guard import public

_HAS_NATIVE = hasattr(_C, "sparse_csr_merge")
_INT32_MAX = 2 ** 31 - 1


# ----------------------------------------------------------------------------------
# pick: out[k] = x[slot[k]], 0 where slot[k] == -1


class _SlotMap:
    """A partial injection from output slots to ``n_src`` source slots (-1 = none).

    Its transpose is the inverse map, built on first use (backward only)."""

    __slots__ = ("slot", "n_src", "_inv")

    def __init__(self, slot, n_src, inv=None):
        # slot: int32 or int64 backend array (the kernels give int32 below 2^31 entries)
        self.slot, self.n_src, self._inv = slot, int(n_src), inv

    def inverse(self):
        if self._inv is None:
            xp = K.xp_of_array(self.slot)
            wide = self.slot.shape[0] >= _INT32_MAX
            inv = xp.full(self.n_src, -1, dtype=np.int64 if wide else np.int32)
            hit = self.slot >= 0
            inv[self.slot[hit]] = xp.nonzero(hit)[0]
            self._inv = _SlotMap(inv, self.slot.shape[0], self)
        return self._inv


def _pick_fwd(x, m):
    slot = m.slot
    n = x.shape[0]
    if _HAS_NATIVE and type(x) is np.ndarray and type(slot) is np.ndarray and \
            x.dtype in K._NATIVE_VALUES:
        out = _C.sparse_pick(K._flat_values(x), slot)
        return out.reshape((slot.shape[0],) + x.shape[1:])
    xp = K.xp_of_array(x)
    if n == 0:
        return xp.zeros((slot.shape[0],) + x.shape[1:], dtype=x.dtype)
    out = xp.take(x, slot, axis=0)  # slot -1 reads the last row: cleared below
    miss = slot < 0
    if miss.any():
        out[miss] = 0
    return out


_PICK = Primitive("sparse_pick", _pick_fwd)
defvjp(_PICK, lambda g, ans, x, m: apply(_PICK, g, m=m.inverse()), save=(), save_out=False)


def _pick(v, slot):
    return apply(_PICK, v, m=_SlotMap(slot, v._data.shape[0]))


def _pick_add_fwd(vx, vy, mx, my, sign):
    if _HAS_NATIVE and all(type(a) is np.ndarray for a in (vx, vy, mx.slot, my.slot)) and \
            vx.dtype in K._NATIVE_VALUES and vx.dtype == vy.dtype and \
            mx.slot.dtype == my.slot.dtype:
        out = _C.sparse_pick_add(K._flat_values(vx), mx.slot, K._flat_values(vy), my.slot,
                                 sign < 0)
        return out.reshape((mx.slot.shape[0],) + vx.shape[1:])
    a, b = _pick_fwd(vx, mx), _pick_fwd(vy, my)
    return a - b if sign < 0 else a + b


# pick(vx, sx) ± pick(vy, sy) in one pass (add and subtract); vjps: picks back
_PICK_ADD = Primitive("sparse_pick_add", _pick_add_fwd)
defvjp(_PICK_ADD,
       lambda g, ans, vx, vy, mx, my, sign: apply(_PICK, g, m=mx.inverse()),
       lambda g, ans, vx, vy, mx, my, sign: (apply(_PICK, g, m=my.inverse()) if sign > 0 else
                                             _m().neg(apply(_PICK, g, m=my.inverse()))),
       save=(), save_out=False)


# ----------------------------------------------------------------------------------
# pattern merge on arrays (native kernels, array-module fallback)


def _merge_keys_xp(kx, ky, intersect):
    """Sorted unique keys of the union/intersection and the slot maps (any xp)."""
    xp = K.xp_of_array(kx)
    nx, ny = kx.shape[0], ky.shape[0]
    if intersect:
        pos = xp.searchsorted(ky, kx)
        found = pos < ny
        if ny:
            found &= ky[xp.minimum(pos, ny - 1)] == kx
        sx = xp.nonzero(found)[0].astype(np.int64)
        return kx[sx], sx, pos[sx].astype(np.int64)
    keys = xp.unique(xp.concatenate([kx, ky]))
    slots = []
    for k, n in ((kx, nx), (ky, ny)):
        s = xp.full(keys.shape[0], -1, dtype=np.int64)
        s[xp.searchsorted(keys, k)] = xp.arange(n, dtype=np.int64)
        slots.append(s)
    return keys, slots[0], slots[1]


def merge_keys(kx, ky, intersect=False):
    """Union/intersection of two strictly increasing key arrays: ``(keys, sx, sy)``."""
    if _HAS_NATIVE and type(kx) is np.ndarray and type(ky) is np.ndarray and \
            kx.dtype == ky.dtype and kx.dtype in (np.int32, np.int64):
        r = _C.sparse_merge_sorted(np.ascontiguousarray(kx), np.ascontiguousarray(ky), intersect)
        if r is not None:
            return r
    return _merge_keys_xp(kx, ky, intersect)


def _canonical(x):
    """``x`` coalesced (COO) or with sorted, unique cols (CSR); differentiable."""
    return coalesce(x)


def _index_dtype(x, y, need):
    """int32 when both operands use int32 and ``need`` fits, else int64."""
    a = x._indices if isinstance(x, SparseCooTensor) else x._crows
    b = y._indices if isinstance(y, SparseCooTensor) else y._crows
    if a.dtype == np.int32 and b.dtype == np.int32 and need <= _INT32_MAX:
        return np.dtype(np.int32)
    return np.dtype(np.int64)


def merge_patterns(x, y, intersect=False):
    """Merged pattern of two sparse tensors of one layout and shape.

    Returns ``(xc, yc, sx, sy, build)``: the canonical operands (differentiable
    views of ``x`` and ``y``), the slot maps of the result into ``values(xc)`` and
    ``values(yc)`` (-1 where absent) and ``build(v)``, which wraps a values Tensor
    in the result pattern (COO coalesced, CSR canonical)."""
    shape = x._shape
    if isinstance(x, SparseCooTensor):
        xc, yc = _canonical(x), _canonical(y)
        sd = xc._indices.shape[0]
        if _prod(shape[:sd]) >= 2 ** 63:
            raise NotImplementedError(f"sparse element-wise ops: a sparse shape {list(shape[:sd])} "
                                      "with 2^63 or more positions is not supported")
        keys, sx, sy = merge_keys(coo_linear(xc), coo_linear(yc), intersect)
        idt = _index_dtype(xc, yc, max(shape[:sd], default=0))
        idx = K.unravel(keys, shape[:sd], idt, K.xp_of_array(keys))
        return xc, yc, sx, sy, lambda v: wrap_coo(v, idx, shape, coalesced=True)
    idt = _index_dtype(x, y, x.nnz() + y.nnz())
    r = _merge_csr(x, y, idt, intersect) if _native_csr(x, y) else None
    if r is None:
        x, y = _canonical(x), _canonical(y)
        r = _merge_csr(x, y, idt, intersect)
    crows, cols, sx, sy = r
    return x, y, sx, sy, lambda v: wrap_csr(v, crows, cols, shape, canonical=True)


def _native_csr(x, y):
    return _HAS_NATIVE and all(type(a) is np.ndarray
                               for a in (x._crows, y._crows, x._cols, y._cols))


def _merge_csr(x, y, idt, intersect):
    """``(crows, cols, sx, sy)`` of CSR ``x`` and ``y``, or None when the native kernel
    finds a row whose cols are not strictly increasing (canonicalise and retry)."""
    shape = x._shape
    xp = K.xp_of_array(x._cols)
    b, m = (1, shape[0]) if len(shape) == 2 else shape[:2]

    def rows(t):
        cr = t._crows.astype(idt, copy=False)
        cr = cr if len(shape) == 2 else global_crows(cr, b, m, xp)
        return cr, t._cols.astype(idt, copy=False)

    if _native_csr(x, y):
        (crx, clx), (cry, cly) = rows(x), rows(y)
        r = _C.sparse_csr_merge(np.ascontiguousarray(crx), np.ascontiguousarray(clx),
                                np.ascontiguousarray(cry), np.ascontiguousarray(cly),
                                int(shape[-1]), intersect)
        if r is None:
            return None
        crows, cols, sx, sy = r
        if len(shape) == 3:
            crows = batched_crows(crows, b, m, xp)
        return crows, cols, sx, sy
    # array-module path (inputs canonical): merge row-major positions, split them back
    keys, sx, sy = merge_keys(csr_linear(x), csr_linear(y), intersect)
    idx = K.unravel(keys, shape, idt, xp)
    crows = crows_from_rows(idx[-2], idx[0] if len(shape) == 3 else None, shape, idt, xp)
    return crows, xp.ascontiguousarray(idx[-1]), sx, sy


def _full_pattern(x, y):
    """Divide's pattern: every coordinate of the sparse dims, with the slot maps."""
    shape = x._shape
    xc, yc = _canonical(x), _canonical(y)
    sd = len(shape) if isinstance(x, SparseCsrTensor) else xc._indices.shape[0]
    total = _prod(shape[:sd])
    xp = K.xp_of_array(xc._data)
    slots = []
    for t in (xc, yc):
        s = xp.full(total, -1, dtype=np.int64)
        lin = coo_linear(t) if isinstance(t, SparseCooTensor) else csr_linear(t)
        s[lin] = xp.arange(lin.shape[0], dtype=np.int64)
        slots.append(s)
    idt = _index_dtype(xc, yc, total)
    if isinstance(x, SparseCooTensor):
        idx = K.unravel(xp.arange(total, dtype=np.int64), shape[:sd], idt, xp)
        return xc, yc, slots[0], slots[1], lambda v: wrap_coo(v, idx, shape, coalesced=True)
    nb = shape[0] if len(shape) == 3 else 1
    m, n = shape[-2], shape[-1]
    crows = xp.tile(xp.arange(m + 1, dtype=idt) * n, nb)
    cols = xp.tile(xp.arange(n, dtype=idt), nb * m)
    return xc, yc, slots[0], slots[1], lambda v: wrap_csr(v, crows, cols, shape, canonical=True)


# ----------------------------------------------------------------------------------
# argument checks


def _check_pair(x, y, op):
    if not isinstance(x, SparseBase):
        if isinstance(x, Tensor):
            raise NotImplementedError(f"{op}: x must be a sparse tensor (SparseCooTensor or "
                                      "SparseCsrTensor); got a dense Tensor (use weft."
                                      f"{op} for dense operands)")
        raise TypeError(f"{op}: x must be a sparse tensor, got {type(x).__name__}")
    if type(x) is not type(y):
        raise NotImplementedError(f"{op}: x is a {type(x).__name__} but y is a "
                                  f"{type(y).__name__}; convert one operand so both have the "
                                  "same layout")
    if x._shape != y._shape:
        raise ValueError(f"{op}: x has shape {x.shape} but y has shape {y.shape}; sparse "
                         "element-wise ops need the same shape (no broadcasting)")
    if isinstance(x, SparseCooTensor) and x.sparse_dim() != y.sparse_dim():
        raise ValueError(f"{op}: x has sparse_dim {x.sparse_dim()} but y has sparse_dim "
                         f"{y.sparse_dim()}; they must match")
    _check_dtypes(x, y, op)


def _check_dtypes(x, y, op):
    dx, dy = x._data.dtype, y._data.dtype
    if dx.kind == "b":
        raise UnsupportedDtypeError(f"{op}: x has dtype bool; sparse element-wise ops support "
                                    "integer, floating and complex values")
    if dx != dy:
        raise UnsupportedDtypeError(f"{op}: x has dtype {dx.name} but y has dtype {dy.name}; "
                                    "they must match (cast one with astype)")


def _is_scalar(y):
    return isinstance(y, numbers.Number) and not isinstance(y, bool)


def _dense_other(x, y, op):
    """A clear error for the non-sparse ``y`` that ``op`` does not take."""
    if isinstance(y, Tensor):
        raise NotImplementedError(f"{op}: sparse x with a dense Tensor y is not supported"
                                  + ("; only add(COO, dense bias over the dense dims) is"
                                     if op == "add" else "; convert y to sparse first"))
    raise ValueError(f"{op}: argument 'y' must be Tensor, got {type(y).__name__}")


def _binary(x, y, op, combine, full=False, sign=0):
    """``combine(pick(x), pick(y))`` on the merged pattern; ``sign`` = ±1 fuses the
    picks of add / subtract into one pass."""
    _check_pair(x, y, op)
    xc, yc, sx, sy, build = (_full_pattern(x, y) if full else merge_patterns(x, y))
    vx, vy = values(xc), values(yc)
    if sign:
        return build(apply(_PICK_ADD, vx, vy, mx=_SlotMap(sx, vx._data.shape[0]),
                           my=_SlotMap(sy, vy._data.shape[0]), sign=sign))
    return build(combine(_pick(vx, sx), _pick(vy, sy)))


def _m():
    from ..ops import math  # noqa: PLC0415

    return math


# ----------------------------------------------------------------------------------
# public functions


@public
def add(x, y, name=None):
    """Element-wise ``x + y`` of two sparse tensors of one layout, shape and dtype.

    The result stores the union of both patterns (stored zeros included; COO
    coalesced, CSR canonical). A dense ``y`` is accepted for COO ``x`` as a bias
    broadcast over the dense dims (``y.shape`` broadcasts to
    ``x.values().shape[1:]``); it is added to every stored entry. Gradients are
    masked: ``(g, g)``, each read at its operand's stored positions; a dense bias
    gets ``g`` summed over the stored entries.

    >>> import weft
    >>> x = weft.sparse.sparse_coo_tensor([[0, 1]], [1.0, 2.0], [3])
    >>> y = weft.sparse.sparse_coo_tensor([[1, 2]], [-2.0, 5.0], [3])
    >>> z = weft.sparse.add(x, y)
    >>> z.indices().tolist(), z.values().tolist()
    ([[0, 1, 2]], [1.0, 0.0, 5.0])
    """
    op = "add"
    if isinstance(x, SparseCooTensor) and isinstance(y, Tensor) and not isinstance(y, SparseBase):
        return _add_bias(x, y, op)
    if isinstance(x, SparseBase) and not isinstance(y, SparseBase):
        _dense_other(x, y, op)
    return _binary(x, y, op, None, sign=1)


def _add_bias(x, y, op):
    dense = tuple(x._shape[x.sparse_dim():])
    try:
        fits = tuple(np.broadcast_shapes(tuple(y.shape), dense)) == dense
    except ValueError:
        fits = False
    if not fits:
        raise ValueError(f"{op}: a dense y added to a COO tensor must broadcast to its dense "
                         f"dims {list(dense)} (x.values().shape[1:]), got y of shape {y.shape}")
    if y._data.dtype != x._data.dtype:
        raise UnsupportedDtypeError(f"{op}: x has dtype {x._data.dtype.name} but y has dtype "
                                    f"{y._data.dtype.name}; they must match")
    xc = coalesce(x)
    return xc._with_values(_m().add(values(xc), y))


@public
def subtract(x, y, name=None):
    """Element-wise ``x - y`` of two sparse tensors (union pattern, stored zeros kept).

    Gradients (masked): ``(g, -g)``.

    >>> import weft
    >>> x = weft.sparse.sparse_csr_tensor([0, 1, 2], [0, 1], [1.0, 2.0], [2, 2])
    >>> weft.sparse.subtract(x, x).values().tolist()
    [0.0, 0.0]
    """
    op = "subtract"
    if isinstance(x, SparseBase) and not isinstance(y, SparseBase):
        _dense_other(x, y, op)
    return _binary(x, y, op, None, sign=-1)


@public
def multiply(x, y, name=None):
    """Element-wise ``x * y``; ``y`` sparse (same layout, shape, dtype) or a Python number.

    Sparse ``y``: the result stores the union of both patterns (0.0 where only one
    operand has an entry, as Paddle does). A number scales the stored values and
    keeps ``x``'s pattern. Gradients (masked): ``(g·conj(y), g·conj(x))``.

    >>> import weft
    >>> x = weft.sparse.sparse_coo_tensor([[0, 1]], [3.0, 2.0], [3])
    >>> y = weft.sparse.sparse_coo_tensor([[1, 2]], [4.0, 5.0], [3])
    >>> weft.sparse.multiply(x, y).values().tolist(), weft.sparse.multiply(x, 2).values().tolist()
    ([0.0, 8.0, 0.0], [6.0, 4.0])
    """
    op = "multiply"
    if isinstance(x, SparseBase) and _is_scalar(y):
        return x._with_values(_m().multiply(values(x), y))
    if isinstance(x, SparseBase) and not isinstance(y, SparseBase):
        _dense_other(x, y, op)
    return _binary(x, y, op, _m().multiply)


@public
def divide(x, y, name=None):
    """Element-wise ``x / y``; ``y`` sparse (same layout, shape, dtype) or a Python number.

    Sparse ``y``: as in Paddle, **every coordinate of the sparse dims is stored**,
    so ``to_dense()`` equals dense division (0/0 = NaN, x/0 = ±inf); this is the one
    densifying sparse op. Integer values give the default float dtype. A number
    scales the stored values and keeps ``x``'s pattern. Gradients (masked):
    ``(g/conj(y), -g·conj(x/y)/conj(y))``.

    >>> import weft
    >>> x = weft.sparse.sparse_coo_tensor([[0, 1]], [3.0, 2.0], [3])
    >>> y = weft.sparse.sparse_coo_tensor([[0, 1]], [2.0, 4.0], [3])
    >>> weft.sparse.divide(x, y).to_dense().tolist()
    [1.5, 0.5, nan]
    """
    op = "divide"
    if isinstance(x, SparseBase) and _is_scalar(y):
        return x._with_values(_m().divide(_float_values(x), y))
    if isinstance(x, SparseBase) and not isinstance(y, SparseBase):
        _dense_other(x, y, op)
    _check_pair(x, y, op)
    if x._data.dtype.kind in "iu":
        x, y = (t._with_values(_float_values(t)) for t in (x, y))
    return _binary(x, y, op, _m().divide, full=True)


def _float_values(x):
    v = values(x)
    if v._data.dtype.kind in "iub":
        from ..ops.cast import cast  # noqa: PLC0415

        v = cast(v, _dt.get_default_dtype())
    return v


@public
def prune(x, tol=0.0, name=None):
    """**weft+** Drop the stored entries of sparse ``x`` whose magnitude is ``<= tol``.

    For hybrid COO an entry (a dense slice) is dropped when every element of it is
    ``<= tol`` in magnitude; NaN entries are kept. The kept values stay
    differentiable (masked gradient through the kept entries).

    >>> import weft
    >>> x = weft.sparse.sparse_coo_tensor([[0, 1, 2]], [1.0, 0.0, -0.5], [3])
    >>> x.prune().indices().tolist(), x.prune(0.5).values().tolist()
    ([[0, 2]], [1.0])
    """
    from .structural import sparse_arg  # noqa: PLC0415

    x = sparse_arg(x, "prune")
    if not isinstance(tol, numbers.Real) or isinstance(tol, bool) or not tol >= 0:
        raise ValueError(f"prune: tol must be a real number >= 0, got {tol!r}")
    d = x._data
    xp = K.xp_of_array(d)
    small = xp.abs(d) <= tol
    if small.ndim > 1:
        small = small.reshape(small.shape[0], -1).all(axis=1)
    keep = xp.nonzero(~small)[0]
    from .convert import gather_rows  # noqa: PLC0415

    v = gather_rows(values(x), keep)
    if isinstance(x, SparseCooTensor):
        return wrap_coo(v, xp.ascontiguousarray(x._indices[:, keep]), x._shape, x._coalesced)
    shape = x._shape
    b, m = (1, shape[0]) if len(shape) == 2 else shape[:2]
    glob = x._crows if len(shape) == 2 else global_crows(x._crows, b, m, xp)
    kept_before = xp.zeros(d.shape[0] + 1, dtype=np.int64)
    kept_before[1:] = xp.cumsum(~small)
    crows = kept_before[glob.astype(np.int64)].astype(x._crows.dtype)
    if len(shape) == 3:
        crows = batched_crows(crows, b, m, xp)
    return wrap_csr(v, crows, xp.ascontiguousarray(x._cols[keep]), shape)


# ----------------------------------------------------------------------------------
# Tensor methods


def _add_method(self, y):
    return add(self, y)


def _sub_method(self, y):
    return subtract(self, y)


def _mul_method(self, y):
    return multiply(self, y)


def _div_method(self, y):
    return divide(self, y)


def _rmul_method(self, y):
    if _is_scalar(y):
        return multiply(self, y)
    return NotImplemented


def _rdensify(what):
    def f(self, y):
        raise ValueError(f"{what} with a sparse right operand would store every position; "
                         "use weft.sparse ops on two sparse tensors, or to_dense()")
    return f


def install_elementwise_methods():
    """``x + y``, ``x - y``, ``x * y``, ``x / y``, ``-x``, ``2.0 * x``, ``x.prune()`` and
    the named methods (``x.add(y)`` ...) on both sparse tensor types."""
    from .unary import neg as _neg  # noqa: PLC0415  (unary builds on this module)

    def neg(self, name=None):
        return _neg(self)

    methods = {"__add__": _add_method, "add": _add_method, "__sub__": _sub_method,
               "subtract": _sub_method, "__mul__": _mul_method, "multiply": _mul_method,
               "__truediv__": _div_method, "divide": _div_method, "__rmul__": _rmul_method,
               "__radd__": _rdensify("number + sparse"),
               "__rsub__": _rdensify("number - sparse"),
               "__rtruediv__": _rdensify("number / sparse"),
               "__neg__": neg, "neg": neg, "prune": prune}
    for cls in (SparseCooTensor, SparseCsrTensor):
        add_methods(cls, methods)


__all__ = ["add", "subtract", "multiply", "divide", "prune"]
