"""Sparse tensor creation and scipy interop: ``sparse_coo_tensor``, ``sparse_csr_tensor``,
``from_scipy``, ``to_scipy``.

The constructors check every invariant of api-sparse.md §1 before anything else
reads the components and raise ``ValueError`` naming the argument and the
offending position/value (the native kernels check again before touching memory).
"""
from __future__ import annotations

import numpy as np

from ..core import dtype as _dt
from ..core.convert import register_tensor_converter, to_array
from ..core.place import move_array, parse_place, place_of_array
from ..core.tensor import Tensor
from . import _kernels as K
from ._guard import check_crows, first_bad, public
from .tensor import new_coo, new_csr, SparseBase, SparseCooTensor

_INDEX_DTYPES = (np.dtype(np.int32), np.dtype(np.int64))


def _index_arg(a, arg, op, place):
    """An int32/int64 backend array for ``a`` (int32 kept without a copy)."""
    if isinstance(a, SparseBase):
        raise TypeError(f"{op}: {arg} must be a dense integer array, got a sparse tensor")
    if isinstance(a, Tensor):
        arr = a._data
    elif isinstance(a, np.ndarray) or type(a).__module__.startswith("cupy"):
        arr = a
    else:
        try:
            arr = np.asarray(a)
        except (ValueError, TypeError) as e:
            raise TypeError(f"{op}: {arg} must be an integer array-like, got "
                            f"{type(a).__name__} ({e})") from None
        if arr.size == 0 and arr.dtype.kind == "f":
            arr = arr.astype(np.int64)   # [] / [[], []] parse as float64
    if arr.dtype.kind not in "iu":
        raise TypeError(f"{op}: {arg} must have an integer dtype (int32 or int64), got "
                        f"{arr.dtype}")
    if arr.dtype not in _INDEX_DTYPES:
        arr = arr.astype(np.int64)
    if place is not None:
        arr = move_array(arr, place)
    xp = K.xp_of_array(arr)
    return xp.ascontiguousarray(arr)


def _values_arg(v, dtype, op, place):
    """``(values Tensor, backend array)``; a Tensor keeps its graph."""
    if isinstance(v, SparseBase):
        raise TypeError(f"{op}: values must be dense, got a sparse tensor")
    if isinstance(v, Tensor):
        t = v
        if place is not None and t.place != place:
            from ..ops.cast import _to_place  # noqa: PLC0415

            t = _to_place(t, place)
        if dtype is not None and t._data.dtype != dtype:
            from ..ops.cast import cast  # noqa: PLC0415

            t = cast(t, dtype)
        return t
    try:
        arr = to_array(v, dtype, place)
    except (ValueError, TypeError) as e:
        raise TypeError(f"{op}: values must be a Tensor or array-like, got "
                        f"{type(v).__name__} ({e})") from None
    return Tensor._wrap(arr)


def _shape_list(shape, op):
    from ..core.args import shape_arg  # noqa: PLC0415

    s = shape_arg(shape, op)
    for d, v in enumerate(s):
        if v < 0:
            raise ValueError(f"{op}: shape[{d}] = {v} is negative")
    return s


def _finish(t, values, stop_gradient):
    from .tensor import adopt  # noqa: PLC0415

    if not values.stop_gradient:
        return adopt(t, values)
    t.stop_gradient = bool(stop_gradient)
    return t


def sparse_coo_tensor(indices, values, shape=None, dtype=None, place=None, stop_gradient=True,
                      name=None):
    """A COO sparse tensor from ``indices`` [sparse_dim, nnz] and ``values`` [nnz, *dense].

    ``indices`` keeps its int dtype (int32 stays int32; lists give int64). ``values``:
    Python floats give the default dtype, ints int64; ``dtype`` casts. ``shape=None``
    infers ``max(indices[d]) + 1`` per sparse axis followed by ``values.shape[1:]``.
    No coalescing (``is_coalesced()`` is False). With ``stop_gradient=False`` the
    result is a leaf whose ``.grad`` is sparse with its pattern; a ``values`` Tensor
    that requires grad receives the gradient instead (the result is then a non-leaf).

    Raises ValueError for indices that are not 2-D, negative or outside ``shape``, a
    ``values`` whose leading size is not nnz, a 0-D ``values``, or a ``shape`` smaller
    than the indices need.

    >>> import weft
    >>> x = weft.sparse.sparse_coo_tensor([[0, 1, 2], [1, 2, 0]], [1.0, 2.0, 3.0])
    >>> x.shape, x.dtype
    ([3, 3], dtype('float32'))
    """
    op = "sparse_coo_tensor"
    p = None if place is None else parse_place(place)
    d = None if dtype is None else _dt.convert_dtype(dtype)
    idx = _index_arg(indices, "indices", op, p)
    if idx.ndim != 2:
        raise ValueError(f"{op}: 'indices' must be 2-D [sparse_dim, nnz], got shape "
                         f"{list(idx.shape)}")
    v = _values_arg(values, d, op, p if p is not None else place_of_array(idx))
    if p is None and v.place != place_of_array(idx):
        idx = move_array(idx, v.place)
    sd, nnz = int(idx.shape[0]), int(idx.shape[1])
    if v._data.ndim == 0:
        raise ValueError(f"{op}: values must have at least 1 dimension [nnz, *dense_shape], "
                         "got a 0-D value")
    if v._data.shape[0] != nnz:
        raise ValueError(f"{op}: the leading dimension of values ({v._data.shape[0]}) must "
                         f"equal the number of index columns nnz = {nnz}")
    if sd == 0 and nnz:
        raise ValueError(f"{op}: 'indices' has no rows (sparse_dim = 0)")
    dense_shape = list(v._data.shape[1:])
    xp = K.xp_of_array(idx)
    for dd in range(sd):
        if nnz and bool((idx[dd] < 0).any()):
            k = int(xp.argmax(idx[dd] < 0))
            raise ValueError(f"{op}: indices[{dd}][{k}] = {int(idx[dd][k])} is negative")
    need = [int(idx[dd].max()) + 1 if nnz else 0 for dd in range(sd)]
    if shape is None:
        full = need + dense_shape
    else:
        full = _shape_list(shape, op)
        if len(full) != sd + len(dense_shape):
            raise ValueError(f"{op}: shape {full} has {len(full)} dimensions but indices has "
                             f"{sd} sparse and values {len(dense_shape)} dense dimensions")
        if full[sd:] != dense_shape:
            raise ValueError(f"{op}: the dense part of shape {full[sd:]} must equal "
                             f"values.shape[1:] = {dense_shape}")
        for dd in range(sd):
            if need[dd] > full[dd]:
                k = first_bad(idx[dd], full[dd])
                raise ValueError(f"{op}: indices[{dd}][{k}] = {int(idx[dd][k])} is out of "
                                 f"range for shape[{dd}] = {full[dd]}; the minimum shape "
                                 f"required is {need + dense_shape}")
    t = new_coo(v._data, idx, full, coalesced=False)
    return _finish(t, v, stop_gradient)


def sparse_csr_tensor(crows, cols, values, shape=None, dtype=None, place=None,
                      stop_gradient=True, name=None):
    """A CSR sparse tensor (2-D ``[M, N]`` or batched 3-D ``[B, M, N]``).

    ``crows`` [B*(M+1)] holds each batch's row pointers (each starting at 0, non-
    decreasing, ending at that batch's nnz); ``cols`` [nnz] the column of each entry,
    with ``crows``' int dtype; ``values`` [nnz]. Columns need not be sorted inside a
    row. ``shape=None`` (2-D only) infers ``[len(crows)-1, max(cols)+1]``.

    >>> import weft
    >>> x = weft.sparse.sparse_csr_tensor([0, 2, 3], [0, 2, 1], [1.0, 2.0, 3.0], [2, 3])
    >>> x.to_dense().tolist()
    [[1.0, 0.0, 2.0], [0.0, 3.0, 0.0]]
    """
    op = "sparse_csr_tensor"
    p = None if place is None else parse_place(place)
    d = None if dtype is None else _dt.convert_dtype(dtype)
    cr = _index_arg(crows, "crows", op, p)
    cl = _index_arg(cols, "cols", op, p)
    for a, arg in ((cr, "crows"), (cl, "cols")):
        if a.ndim != 1:
            raise ValueError(f"{op}: {arg} must be 1-D, got shape {list(a.shape)}")
    if cr.dtype != cl.dtype:
        if isinstance(crows, (list, tuple)) or isinstance(cols, (list, tuple)):
            target = cl.dtype if isinstance(crows, (list, tuple)) else cr.dtype
            cr, cl = cr.astype(target), cl.astype(target)
        else:
            raise ValueError(f"{op}: crows ({cr.dtype}) and cols ({cl.dtype}) must have the "
                             "same index dtype")
    v = _values_arg(values, d, op, p if p is not None else place_of_array(cr))
    if p is None and v.place != place_of_array(cr):
        cr, cl = move_array(cr, v.place), move_array(cl, v.place)
    nnz = int(cl.shape[0])
    if v._data.ndim != 1:
        raise ValueError(f"{op}: values must be 1-D [nnz], got shape {list(v._data.shape)}")
    if v._data.shape[0] != nnz:
        raise ValueError(f"{op}: values has {v._data.shape[0]} entries but cols has {nnz}")
    if cr.shape[0] < 1:
        raise ValueError(f"{op}: crows must have at least one entry")
    if shape is None:
        _check_unbatched_crows(cr, op)
        full = [int(cr.shape[0]) - 1, int(cl.max()) + 1 if nnz else 0]
    else:
        full = _shape_list(shape, op)
        if len(full) not in (2, 3):
            raise ValueError(f"{op}: shape must have 2 or 3 dimensions, got {full}")
    b = 1 if len(full) == 2 else full[0]
    m, n = full[-2], full[-1]
    if cr.shape[0] != b * (m + 1):
        if b == 1:
            raise ValueError(f"{op}: The length({cr.shape[0]}) of crows must be equal to the "
                             f"rows({m})+1")
        raise ValueError(f"{op}: The length({cr.shape[0]}) of crows must be equal to "
                         f"batch({b}) * (rows({m})+1) = {b * (m + 1)}")
    check_crows(cr, b, m, nnz, op)
    if nnz:
        k = first_bad(cl, n)
        if k >= 0:
            raise ValueError(f"{op}: cols[{k}] = {int(cl[k])} is out of range [0, {n}) for "
                             f"shape {full}")
    t = new_csr(v._data, cr, cl, full)
    return _finish(t, v, stop_gradient)


def _check_unbatched_crows(cr, op):
    """Without ``shape`` the tensor is 2-D: crows falling back to 0 is most likely a
    batched (3-D) layout, which can only be told apart from a malformed one by shape."""
    if cr.shape[0] > 1:
        back = (cr[1:] == 0) & (cr[:-1] > 0)
        if bool(back.any()):
            pos = int(K.xp_of_array(cr).argmax(back)) + 1
            raise ValueError(f"{op}: crows returns to 0 at crows[{pos}], as the row pointers of "
                             "a batched (3-D) CSR tensor do; a 3-D CSR tensor needs "
                             "shape=[batch, rows, cols] (without shape the tensor is 2-D and "
                             "crows must be non-decreasing)")


# ----------------------------------------------------------------------------------
# scipy interop


def _is_scipy_sparse(a):
    if not type(a).__module__.startswith(("scipy.sparse", "cupyx.scipy.sparse")):
        return False
    if type(a).__module__.startswith("cupyx"):
        return True
    import scipy.sparse as sp  # noqa: PLC0415

    return sp.issparse(a)


def from_scipy(data, dtype=None, place=None, stop_gradient=True):
    """A sparse Tensor from a scipy.sparse (or cupyx.scipy.sparse) matrix or array.

    CSR and BSR inputs give a SparseCsrTensor (``indptr``/``indices`` shared on CPU
    when no dtype/place change is needed); every other format gives a
    SparseCooTensor (``is_coalesced()`` follows scipy's ``has_canonical_format``).
    Index arrays keep int32 when scipy has them.

    >>> import scipy.sparse as sp, weft
    >>> x = weft.sparse.from_scipy(sp.csr_array([[0.0, 1.0], [2.0, 0.0]]))
    >>> x.is_sparse_csr(), x.to_dense().tolist()
    (True, [[0.0, 1.0], [2.0, 0.0]])
    """
    op = "from_scipy"
    if not _is_scipy_sparse(data):
        raise TypeError(f"{op}: data must be a scipy.sparse matrix or array, got "
                        f"{type(data).__name__}")
    if data.ndim != 2:
        raise ValueError(f"{op}: only 2-D scipy sparse inputs are supported, got ndim "
                         f"{data.ndim}")
    fmt = data.format
    shape = [int(s) for s in data.shape]
    if fmt in ("csr", "bsr"):
        a = data.tocsr() if fmt == "bsr" else data
        cr, cl = a.indptr, a.indices
        if cr.dtype != cl.dtype:
            cr, cl = cr.astype(np.int64), cl.astype(np.int64)
        return sparse_csr_tensor(cr, cl, a.data, shape, dtype=dtype, place=place,
                                 stop_gradient=stop_gradient)
    a = data.tocoo() if fmt != "coo" else data
    coords = getattr(a, "coords", None)
    row, col = (coords[0], coords[1]) if coords is not None else (a.row, a.col)
    xp = K.xp_of_array(row)
    itype = np.result_type(row.dtype, col.dtype)
    idx = xp.stack([row.astype(itype, copy=False), col.astype(itype, copy=False)])
    t = sparse_coo_tensor(idx, a.data, shape, dtype=dtype, place=place,
                          stop_gradient=stop_gradient)
    t._coalesced = bool(getattr(a, "has_canonical_format", False))
    return t


@public
def to_scipy(x, name=None):
    """The scipy.sparse array of a 2-D sparse tensor (cupyx.scipy.sparse on GPU).

    COO (without dense dimensions) gives ``coo_array``, CSR gives ``csr_array``; the
    components are shared, not copied, on CPU. Duplicates stay as stored.

    >>> import weft
    >>> x = weft.sparse.sparse_coo_tensor([[0, 1], [1, 0]], [1.0, 2.0], [2, 2])
    >>> weft.sparse.to_scipy(x).toarray().tolist()
    [[0.0, 1.0], [2.0, 0.0]]
    """
    op = "to_scipy"
    if not isinstance(x, SparseBase):
        raise TypeError(f"{op}: x must be a SparseCooTensor or SparseCsrTensor, got "
                        f"{type(x).__name__}")
    if x.ndim != 2:
        raise ValueError(f"{op}: scipy sparse arrays are 2-D; x has shape {x.shape}")
    gpu = type(x._data) is not np.ndarray
    if gpu:
        import cupyx.scipy.sparse as sp  # noqa: PLC0415

        coo_cls, csr_cls = sp.coo_matrix, sp.csr_matrix
    else:
        import scipy.sparse as sp  # noqa: PLC0415

        coo_cls, csr_cls = sp.coo_array, sp.csr_array
    if isinstance(x, SparseCooTensor):
        if x.dense_dim():
            raise ValueError(f"{op}: a COO tensor with dense dimensions (dense_dim() = "
                             f"{x.dense_dim()}) has no scipy form")
        out = coo_cls((x._data, (x._indices[0], x._indices[1])), shape=tuple(x._shape))
        if x._coalesced and not gpu:
            out.has_canonical_format = True
        return out
    return csr_cls((x._data, x._cols, x._crows), shape=tuple(x._shape))


__all__ = ["sparse_coo_tensor", "sparse_csr_tensor", "from_scipy", "to_scipy"]


def _to_tensor(data, dtype, place, stop_gradient):
    t = from_scipy(data, dtype=dtype, place=place)
    t.stop_gradient = stop_gradient
    return t


# weft.to_tensor(scipy_matrix) gives a sparse tensor (ops sit below sparse: see
# weft.core.convert.register_tensor_converter)
register_tensor_converter(_is_scipy_sparse, _to_tensor)
