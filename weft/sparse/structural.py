"""Structural sparse functions: ``transpose``, ``cast``, ``isnan``, ``is_same_shape``,
``mask_as`` (api-sparse.md §3.2).

Gradients are masked: ``transpose`` and ``cast`` pass the values' gradient through
(permuted back / cast back), ``mask_as`` sends the stored-entry gradient to the
dense source at the mask's positions.
"""
from __future__ import annotations

import numpy as np

from ..core import dtype as _dt
from ..core.tensor import Tensor, add_methods
from . import _kernels as K
from .convert import (merge_values, want_inverse, coalesce, coo_linear, csr_is_canonical,
                      csr_linear, csr_to_coo_indices, gather_rows, values)
from .tensor import SparseCooTensor, UnsupportedDtypeError, SparseBase, wrap_coo, wrap_csr
from ._guard import public

_CAST_INDEX = tuple(np.dtype(d) for d in ("int8", "int16", "int32", "int64", "uint8"))


def sparse_arg(x, op):
    if isinstance(x, SparseBase):
        return x
    if isinstance(x, Tensor):
        raise NotImplementedError(f"{op}: x must be a sparse tensor (SparseCooTensor or "
                                  "SparseCsrTensor); got a dense Tensor")
    raise TypeError(f"{op}: x must be a sparse tensor, got {type(x).__name__}")


def _perm_arg(perm, ndim, op):
    if isinstance(perm, Tensor):
        perm = perm.tolist()
    if not isinstance(perm, (list, tuple)):
        raise TypeError(f"{op}: perm must be a list or tuple of ints, got {type(perm).__name__}")
    out = []
    for p in perm:
        if not isinstance(p, (int, np.integer)) or isinstance(p, bool):
            raise TypeError(f"{op}: perm must hold ints, got {p!r}")
        out.append(int(p) + ndim if p < 0 else int(p))
    if sorted(out) != list(range(ndim)):
        raise ValueError(f"{op}: perm {list(perm)} is not a permutation of the {ndim} axes")
    return out


@public
def transpose(x, perm, name=None):
    """Permute the axes of sparse ``x``.

    COO: the index rows are permuted, entries keep their order (the result is not
    coalesced); for hybrid tensors sparse axes may only move among sparse axes and
    dense axes among dense axes. CSR: 2-D ``perm=[1, 0]`` or any permutation of a 3-D
    tensor; the result is canonical (sorted columns, duplicates summed).

    >>> import weft
    >>> x = weft.sparse.sparse_coo_tensor([[0, 1], [2, 0]], [1.0, 2.0], [2, 3])
    >>> weft.sparse.transpose(x, [1, 0]).indices().tolist()
    [[2, 0], [0, 1]]
    """
    op = "transpose"
    x = sparse_arg(x, op)
    nd = x.ndim
    perm = _perm_arg(perm, nd, op)
    shape = tuple(x._shape[p] for p in perm)
    if isinstance(x, SparseCooTensor):
        sd = x.sparse_dim()
        if sorted(perm[:sd]) != list(range(sd)):
            raise ValueError(f"{op}: perm {perm} moves a sparse axis of a hybrid COO tensor "
                             f"(sparse_dim {sd}, dense_dim {nd - sd}) into the dense part; "
                             "sparse axes may only be permuted among themselves")
        xp = K.xp_of_array(x._indices)
        idx = xp.ascontiguousarray(x._indices[perm[:sd]])
        v = values(x)
        dperm = [p - sd for p in perm[sd:]]
        if dperm != list(range(nd - sd)):
            from ..ops.shape.views import transpose as dense_transpose  # noqa: PLC0415

            v = dense_transpose(v, [0] + [1 + p for p in dperm])
        coalesced = x._coalesced and perm[:sd] == list(range(sd))
        return wrap_coo(v, idx, shape, coalesced)
    if nd == 2 and perm == [0, 1] or nd == 3 and perm == [0, 1, 2]:
        return x
    idx = csr_to_coo_indices(x)
    xp = K.xp_of_array(idx)
    idx = xp.ascontiguousarray(idx[perm])
    return csr_from_indices(x, idx, shape)


def csr_from_indices(x, idx, shape):
    """CSR with the entries of ``x`` (values in storage order) at indices ``idx``."""
    from .convert import crows_from_rows, coalesce  # noqa: PLC0415

    xp = K.xp_of_array(idx)
    if len(shape) == 2:
        crows, cols, vals, inv = K.coo_to_csr2d(idx, x._data, shape, want_inverse(x))
        return wrap_csr(merge_values(x, vals, inv), crows, cols, shape, canonical=True)
    # the COO's values come from values(x), an op on x: copying x's graph identity
    # instead would make a leaf x's gradient land on this temporary
    c = coalesce(wrap_coo(values(x), idx, shape))
    ci = c._indices
    crows = crows_from_rows(ci[1], ci[0], shape, ci.dtype, xp)
    return wrap_csr(values(c), crows, xp.ascontiguousarray(ci[2]), shape, canonical=True)


@public
def cast(x, index_dtype=None, value_dtype=None, name=None):
    """Cast the index arrays of sparse ``x`` to ``index_dtype`` and its values to
    ``value_dtype`` (``None`` keeps either). Differentiable in the values.

    ``index_dtype`` must be one of int8, int16, int32, int64, uint8 and wide enough
    for every axis of ``x`` (and for nnz, for CSR row pointers).

    >>> import weft
    >>> x = weft.sparse.sparse_coo_tensor([[0, 1]], [1.0, 2.0], [2])
    >>> y = weft.sparse.cast(x, 'int32', 'float64')
    >>> y.indices().dtype, y.dtype
    (dtype('int32'), dtype('float64'))
    """
    op = "cast"
    x = sparse_arg(x, op)
    idt = None
    if index_dtype is not None:
        try:
            idt = _dt.convert_dtype(index_dtype)
        except TypeError as e:
            raise TypeError(f"{op}: index_dtype: {e}") from None
        if idt not in _CAST_INDEX:
            raise UnsupportedDtypeError(f"{op}: index_dtype must be one of int8, int16, int32, "
                                        f"int64, uint8, got {idt.name}")
        limit = int(np.iinfo(idt).max)
        need = max([int(s) - 1 for s in x._shape] + [x.nnz() if x.is_sparse_csr() else 0, 0])
        if need > limit:
            raise ValueError(f"{op}: index_dtype {idt.name} (max {limit}) is too narrow for a "
                             f"tensor of shape {x.shape} with {x.nnz()} entries")
    v = values(x)
    if value_dtype is not None:
        try:
            vdt = _dt.convert_dtype(value_dtype)
        except TypeError as e:
            raise TypeError(f"{op}: value_dtype: {e}") from None
        if vdt != v._data.dtype:
            from ..ops.cast import cast as dense_cast  # noqa: PLC0415

            if not cast_is_additive(v._data.dtype, vdt):
                # duplicates stand for their sum, and this cast does not commute with
                # it (True + True is True but 1 + 1 is 2; int(0.5) + int(1.5) != int(2.0)):
                # merge them first, as the nonlinear unary ops do
                x = coalesce(x)
                v = values(x)
            v = dense_cast(v, vdt)
    if isinstance(x, SparseCooTensor):
        idx = x._indices if idt is None or idt == x._indices.dtype else x._indices.astype(idt)
        return wrap_coo(v, idx, x._shape, x._coalesced)
    cr, cl = x._crows, x._cols
    if idt is not None and idt != cr.dtype:
        cr, cl = cr.astype(idt), cl.astype(idt)
    return wrap_csr(v, cr, cl, x._shape, x._canonical)


def cast_is_additive(src, dst):
    """Whether casting entries and then summing them equals casting their sum (up to
    rounding): not across bool (whose sum is `or`), not float/complex -> integer."""
    if src.kind == "b" or dst.kind == "b":
        return False
    return not (src.kind in "fc" and dst.kind in "iu")


@public
def isnan(x, name=None):
    """Sparse bool tensor (same pattern) telling which stored values are NaN.

    >>> import weft
    >>> x = weft.sparse.sparse_coo_tensor([[0, 2]], [float('nan'), 1.0], [3])
    >>> weft.sparse.isnan(x).values().tolist()
    [True, False]
    """
    x = sparse_arg(x, "isnan")
    d = x._data
    xp = K.xp_of_array(d)
    if d.dtype.kind not in "fc":
        return x._same_pattern(xp.zeros(d.shape, dtype=bool))
    coo = isinstance(x, SparseCooTensor)
    if not (x._coalesced if coo else csr_is_canonical(x)):
        # duplicates stand for their sum, NaN for inf + -inf though neither part is:
        # each entry reads its slot's sum (the entries themselves are kept)
        idx = x._indices if coo else csr_to_coo_indices(x)
        _, sums, inv = K.coalesce(xp.ascontiguousarray(idx), d, x._shape[:idx.shape[0]], True)
        d = sums[inv]
    return x._same_pattern(xp.isnan(d))


def is_same_shape(x, y, name=None):
    """True when ``x`` and ``y`` (dense or sparse, any mix) have the same shape.

    >>> import weft
    >>> x = weft.sparse.sparse_coo_tensor([[0]], [1.0], [2])
    >>> weft.sparse.is_same_shape(x, weft.zeros([2]))
    True
    """
    for a, arg in ((x, "x"), (y, "y")):
        if not isinstance(a, Tensor):
            raise TypeError(f"is_same_shape: {arg} must be a Tensor, got {type(a).__name__}")
    return x.shape == y.shape


@public
def mask_as(x, mask, name=None):
    """The entries of dense ``x`` at the stored positions of sparse ``mask``.

    The result has ``mask``'s layout and exact indices (its values are ignored);
    the gradient flows back to ``x`` at those positions only.

    >>> import weft
    >>> m = weft.sparse.sparse_coo_tensor([[0, 1], [1, 0]], [1.0, 1.0], [2, 2])
    >>> weft.sparse.mask_as(weft.to_tensor([[1.0, 2.0], [3.0, 4.0]]), m).values().tolist()
    [2.0, 3.0]
    """
    op = "mask_as"
    if not isinstance(x, Tensor) or isinstance(x, SparseBase):
        raise TypeError(f"{op}: x must be a dense Tensor, got "
                        f"{'a sparse tensor' if isinstance(x, Tensor) else type(x).__name__}")
    if not isinstance(mask, SparseBase):
        raise TypeError(f"{op}: mask must be a sparse tensor, got {type(mask).__name__}")
    if x.shape != mask.shape:
        raise ValueError(f"{op}: x has shape {x.shape} but mask has shape {mask.shape}; they "
                         "must match")
    from .convert import _prod, _reshape  # noqa: PLC0415

    if isinstance(mask, SparseCooTensor):
        sd = mask.sparse_dim()
        flat = _reshape(x, (_prod(mask._shape[:sd]),) + tuple(mask._shape[sd:]))
        v = gather_rows(flat, coo_linear(mask))
        return wrap_coo(v, mask._indices, mask._shape, mask._coalesced)
    flat = _reshape(x, (_prod(mask._shape),))
    v = gather_rows(flat, csr_linear(mask))
    return wrap_csr(v, mask._crows, mask._cols, mask._shape, mask._canonical)


# the methods of the sparse tensor types that this module implements; _mask_dense is
# the engine's way to keep a dense gradient at a sparse tensor's stored entries
add_methods(SparseBase, {
    "is_same_shape": lambda self, y: is_same_shape(self, y),
    "astype": lambda self, dtype: cast(self, value_dtype=dtype),
    "cast": lambda self, index_dtype=None, value_dtype=None: cast(self, index_dtype, value_dtype),
    "_mask_dense": lambda self, g: mask_as(g, self),
})


def _dense_sparse_mask(self, mask):
    """``x.sparse_mask(mask)``: the entries of dense ``x`` at the stored positions of
    sparse ``mask``, as a sparse tensor of ``mask``'s layout (Paddle's name for
    :func:`weft.sparse.mask_as`)."""
    return mask_as(self, mask)


add_methods(Tensor, {"sparse_mask": _dense_sparse_mask})


__all__ = ["transpose", "cast", "isnan", "is_same_shape", "mask_as"]
