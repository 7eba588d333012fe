"""Layout conversions and their gradients: ``to_dense``, ``to_sparse_coo``,
``to_sparse_csr``, ``coalesce``, ``values()`` and ``clone``.

All data movement between layouts reduces to two linear primitives on the leading
axis of a values array, each the other's vjp, so every conversion is differentiable
to any order (``create_graph=True``):

* ``sparse_gather(x, idx)``: ``x[idx]`` (dense -> stored values; mask_as, to_sparse_*)
* ``sparse_scatter(v, idx, n)``: ``n`` zero rows, ``out[idx[k]] += v[k]`` (stored
  values -> dense; summing duplicates in coalesce / COO->CSR)

Gradient rules (api-sparse.md §6): the gradient of a sparse input is read at its
stored positions (masked); ``to_dense`` passes the dense gradient back gathered at
the pattern; ``coalesce`` gives each original entry the gradient of the slot it was
merged into.
"""
from __future__ import annotations

import numpy as np

from ..autograd.engine import Primitive, apply, defvjp
from ..core.tensor import Tensor, add_methods
from ..ops.primitives import copy, index_add_zeros, take
from . import _kernels as K
from .tensor import (IDENTITY, SparseCooTensor, SparseCsrTensor, SparseLayoutError,
                     SparseBase, wrap_coo, wrap_csr)
from ._guard import public





def gather_rows(x, idx):
    """Differentiable ``x[idx]`` along axis 0 (``idx`` a backend int array)."""
    return take(x, idx, 0)


def scatter_rows(v, idx, n):
    """Differentiable ``n`` zero rows with ``v[k]`` added at row ``idx[k]``."""
    return index_add_zeros(v, idx, 0, (int(n),) + tuple(v._data.shape[1:]))


def _reshape(x, shape):
    from ..ops.shape.views import reshape_exact  # noqa: PLC0415  (no Paddle 0 = "keep" rule)

    shape = [int(s) for s in shape]
    return x if list(x._data.shape) == shape else reshape_exact(x, shape)


def _prod(s):
    n = 1
    for v in s:
        n *= int(v)
    return n


def _check_sparse(x, op, arg="x"):
    if not isinstance(x, SparseBase):
        raise TypeError(f"{op}: {arg} must be a sparse tensor (SparseCooTensor or "
                        f"SparseCsrTensor), got {type(x).__name__}")


# ----------------------------------------------------------------------------------
# accessors


def values(x, name=None):
    """The stored values of sparse ``x`` as a dense Tensor sharing its storage.

    Differentiable: a gradient w.r.t. the result reaches ``x`` at the same entries.

    >>> import weft
    >>> x = weft.sparse.sparse_coo_tensor([[0, 1]], [3.0, 4.0], [3])
    >>> x.values().tolist()
    [3.0, 4.0]
    """
    if not isinstance(x, SparseBase):
        if isinstance(x, Tensor):
            raise NotImplementedError("values(): only effective for sparse tensors, got a "
                                      "dense Tensor")
        raise TypeError(f"values: x must be a sparse tensor, got {type(x).__name__}")
    if x.stop_gradient:
        t = Tensor._wrap(x._data)
        t._version = x._version
        return t
    return apply(IDENTITY, x)


def clone(x, name=None):
    """A copy of sparse ``x`` (components and values); gradients flow back to ``x``."""
    _check_sparse(x, "clone")
    v = copy(x)
    if isinstance(x, SparseCooTensor):
        return wrap_coo(v, x._indices.copy(), x._shape, x._coalesced)
    return wrap_csr(v, x._crows.copy(), x._cols.copy(), x._shape, x._canonical)


# ----------------------------------------------------------------------------------
# positions of stored entries


def coo_linear(x):
    """Row-major position of each stored entry of COO ``x`` in its sparse shape."""
    sd = x._indices.shape[0]
    return K.linear_index(x._indices, x._shape[:sd])


def csr_components(x):
    """``(batch or None, rows, cols)`` arrays of every stored entry of CSR ``x``."""
    nnz = x._data.shape[0]
    if len(x._shape) == 2:
        return None, K.csr_rows(x._crows, nnz), x._cols
    b, m = x._shape[0], x._shape[1]
    batch, rows = K.csr_batch_rows(x._crows, nnz, b, m)
    return batch, rows, x._cols


def csr_linear(x):
    batch, rows, cols = csr_components(x)
    n = int(x._shape[-1])
    lin = rows.astype(np.int64) * n + cols.astype(np.int64)
    if batch is not None:
        lin += batch.astype(np.int64) * (int(x._shape[1]) * n)
    return lin


def csr_to_coo_indices(x):
    batch, rows, cols = csr_components(x)
    xp = K.xp_of_array(cols)
    if batch is None and len(x._shape) == 3:  # one batch: csr_components leaves it implicit
        batch = xp.zeros_like(cols)
    parts = [rows.astype(cols.dtype), cols] if batch is None else \
        [batch.astype(cols.dtype), rows.astype(cols.dtype), cols]
    return xp.ascontiguousarray(xp.stack(parts))


# ----------------------------------------------------------------------------------
# to_dense


@public
def to_dense(x, name=None):
    """Dense Tensor of ``x`` (duplicates summed); a dense ``x`` is returned as is.

    Differentiable for COO and CSR: the gradient is the dense gradient read at the
    stored positions.

    >>> import weft
    >>> x = weft.sparse.sparse_coo_tensor([[0, 0], [1, 1]], [1.0, 2.0], [2, 2])
    >>> x.to_dense().tolist()
    [[0.0, 3.0], [0.0, 0.0]]
    """
    if not isinstance(x, Tensor):
        raise TypeError(f"to_dense: x must be a Tensor, got {type(x).__name__}")
    if not isinstance(x, SparseBase):
        return x
    if isinstance(x, SparseCooTensor):
        sd = x._indices.shape[0]
        lin = coo_linear(x)
        flat = scatter_rows(x, lin, _prod(x._shape[:sd]))
    else:
        flat = scatter_rows(x, csr_linear(x), _prod(x._shape))
    return _reshape(flat, x._shape)


# ----------------------------------------------------------------------------------
# dense -> sparse


def _dense_pattern(d, sparse_dim):
    """Positions (row-major, in the first ``sparse_dim`` axes) with a nonzero slice."""
    xp = K.xp_of_array(d)
    p = _prod(d.shape[:sparse_dim])
    flat = d.reshape(p, -1) if p else d.reshape(0, max(_prod(d.shape[sparse_dim:]), 1))
    nz = flat != 0
    if nz.ndim == 2:
        nz = nz.any(axis=1) if nz.shape[1] != 1 else nz[:, 0]
    return xp.nonzero(nz)[0].astype(np.int64)


def _to_coo_from_dense(x, sparse_dim):
    d = x._data
    shape = tuple(d.shape)
    pos = _dense_pattern(d, sparse_dim)
    xp = K.xp_of_array(d)
    idx = K.unravel(pos, shape[:sparse_dim], np.int64, xp)
    flat = _reshape(x, (_prod(shape[:sparse_dim]),) + shape[sparse_dim:])
    vals = gather_rows(flat, pos)
    return wrap_coo(vals, idx, shape, coalesced=True)


def _sparse_dim_arg(sparse_dim, ndim, op):
    if sparse_dim is None:
        raise TypeError(f"{op}: missing required argument 'sparse_dim'")
    if not isinstance(sparse_dim, (int, np.integer)) or isinstance(sparse_dim, bool):
        raise TypeError(f"{op}: sparse_dim must be an int, got {type(sparse_dim).__name__}")
    if not 0 < sparse_dim <= ndim:
        raise ValueError(f"{op}: sparse_dim must be in [1, {ndim}] for a {ndim}-D tensor, got "
                         f"{sparse_dim}")
    return int(sparse_dim)


@public
def to_sparse_coo(x, sparse_dim=None, name=None):
    """COO form of ``x``: the first ``sparse_dim`` axes become sparse.

    Dense input: a position is stored when its trailing slice has a nonzero; the
    result is coalesced with int64 indices, and the gradient flows back to ``x`` at
    the stored positions. COO input: returned as is for the same ``sparse_dim``,
    re-laid-out otherwise. CSR input: COO with ``sparse_dim`` (default ndim).

    >>> import weft
    >>> x = weft.to_tensor([[0.0, 1.0, 0.0], [2.0, 0.0, 3.0]])
    >>> x.to_sparse_coo(2).indices().tolist()
    [[0, 1, 1], [1, 0, 2]]
    """
    op = "to_sparse_coo"
    if not isinstance(x, Tensor):
        raise TypeError(f"{op}: x must be a Tensor, got {type(x).__name__}")
    if isinstance(x, SparseCsrTensor):
        sd = len(x._shape) if sparse_dim is None else _sparse_dim_arg(sparse_dim, x.ndim, op)
        v = values(x)
        # row-major order of a canonical CSR is the coalesced order
        out = wrap_coo(v, csr_to_coo_indices(x), x._shape, coalesced=csr_is_canonical(x))
        return out if sd == len(x._shape) else _coo_relayout(out, sd)
    sd = _sparse_dim_arg(sparse_dim, x.ndim, op)
    if isinstance(x, SparseCooTensor):
        return x if sd == x._indices.shape[0] else _coo_relayout(x, sd)
    return _to_coo_from_dense(x, sd)


def _coo_relayout(x, k):
    """COO ``x`` with ``k`` sparse axes instead of its own, never densified whole.

    Fewer sparse axes: entries sharing their first ``k`` indices merge into one
    stored slice, the dropped sparse axes becoming dense (unstored positions are 0).
    More: each stored slice is split along the axes that become sparse, and every
    position of it is stored, zeros included: stored entries stay stored (as in
    every sparse op), so the pattern never depends on the values. Both are a gather
    or a scatter of the values, so gradients flow."""
    shape, s = x._shape, x._indices.shape[0]
    xp = K.xp_of_array(x._data)
    if k < s:
        c = coalesce(x)
        idx = c._indices
        sub = shape[k:s]
        width = _prod(sub)
        prefix = idx[:k]
        nnz = idx.shape[1]
        # entries are sorted, so each new prefix starts a run: its slot
        new = xp.ones(nnz, dtype=bool)
        if nnz > 1:
            new[1:] = xp.any(prefix[:, 1:] != prefix[:, :-1], axis=0)
        slot = xp.cumsum(new) - 1
        u = int(slot[-1]) + 1 if nnz else 0
        pos = slot * width + K.linear_index(idx[k:s], sub, xp)
        dense = tuple(shape[s:])
        vals = scatter_rows(values(c), pos, u * width)
        vals = _reshape(vals, (u,) + tuple(sub) + dense)
        return wrap_coo(vals, xp.ascontiguousarray(prefix[:, new]), shape, coalesced=True)
    sub = shape[s:k]
    width = _prod(sub)
    rest = tuple(shape[k:])
    nnz = x._data.shape[0]
    keep = xp.arange(nnz * width, dtype=np.int64)
    entry, p = keep // max(width, 1), keep % max(width, 1)
    # the index dtype is kept unless the axes turned sparse are too long for it
    it = x._indices.dtype
    it = it if max(sub, default=0) <= np.iinfo(it).max else np.dtype(np.int64)
    idx = xp.concatenate([x._indices[:, entry].astype(it, copy=False),
                          K.unravel(p, sub, it, xp)], axis=0)
    vals = _reshape(values(x), (nnz * width,) + rest)
    # row-major order survives when x was coalesced: entries ascend, and p within each
    return wrap_coo(vals, xp.ascontiguousarray(idx), shape, coalesced=x._coalesced)


def crows_from_rows(rows, batch, shape, dtype, xp):
    """Per-batch row pointers from the (sorted) batch/row of every entry."""
    if len(shape) == 2:
        m = int(shape[0])
        g = rows.astype(np.int64)
        b_count, m_rows = 1, m
    else:
        b_count, m_rows = int(shape[0]), int(shape[1])
        g = batch.astype(np.int64) * m_rows + rows.astype(np.int64)
    counts = xp.bincount(g, minlength=b_count * m_rows) if g.shape[0] else \
        xp.zeros(b_count * m_rows, dtype=np.int64)
    cr = xp.zeros((b_count, m_rows + 1), dtype=np.int64)
    cr[:, 1:] = xp.cumsum(counts.reshape(b_count, m_rows), axis=1)
    return cr.reshape(-1).astype(dtype)


@public
def to_sparse_csr(x, name=None):
    """CSR form of a 2-D/3-D dense tensor or COO tensor (CSR input returned as is).

    COO input must have ``dense_dim() == 0``; duplicates are summed and columns
    sorted. Gradients flow back masked to the pattern.

    >>> import weft
    >>> x = weft.to_tensor([[0.0, 1.0, 0.0], [2.0, 0.0, 3.0]])
    >>> x.to_sparse_csr().crows().tolist()
    [0, 1, 3]
    """
    op = "to_sparse_csr"
    if not isinstance(x, Tensor):
        raise TypeError(f"{op}: x must be a Tensor, got {type(x).__name__}")
    if isinstance(x, SparseCsrTensor):
        return x
    nd = x.ndim
    if nd not in (2, 3):
        raise ValueError(f"{op}: only support 2-D or 3-D tensors, got a {nd}-D tensor of "
                         f"shape {x.shape}")
    if isinstance(x, SparseCooTensor):
        if x.dense_dim() != 0:
            raise ValueError(f"{op}: a COO tensor with dense dimensions (dense_dim() = "
                             f"{x.dense_dim()}) has no CSR form; convert with "
                             f"to_sparse_coo({nd}) first")
        return _coo_to_csr(x)
    d = x._data
    xp = K.xp_of_array(d)
    pos = xp.nonzero(d.reshape(-1) != 0)[0].astype(np.int64)
    idx = K.unravel(pos, d.shape, np.int64, xp)
    vals = gather_rows(_reshape(x, (d.size,)), pos)
    batch = idx[0] if nd == 3 else None
    crows = crows_from_rows(idx[-2], batch, d.shape, np.int64, xp)
    return wrap_csr(vals, crows, xp.ascontiguousarray(idx[-1]), d.shape, canonical=True)


def want_inverse(x):
    from ..autograd.grad_mode import is_grad_enabled  # noqa: PLC0415

    return not x.stop_gradient and is_grad_enabled() and x._data.dtype.kind in "fc"


def _coo_to_csr(x):
    shape = x._shape
    xp = K.xp_of_array(x._data)
    want = want_inverse(x)
    if len(shape) == 2:
        crows, cols, vals, inv = K.coo_to_csr2d(x._indices, x._data, shape, want)
        v = merge_values(x, vals, inv)
        return wrap_csr(v, crows, cols, shape, canonical=True)
    c = coalesce(x)
    idx = c._indices
    crows = crows_from_rows(idx[1], idx[0], shape, idx.dtype, xp)
    return wrap_csr(values(c), crows, xp.ascontiguousarray(idx[2]), shape, canonical=True)


# The values a coalesce kernel already summed, recorded as the sum of x's values by
# ``inverse`` (entry -> slot): the gradient of every entry is that of its slot. The
# forward hands back the kernel's sums instead of scattering the values a second time
# (that second pass made a differentiable to_sparse_csr 2x slower than one without
# gradients); they are the same numbers, since the kernels add duplicates in input
# order as index_add does.
_MERGED = Primitive("sparse_merged_values", lambda v, inverse, merged: merged)
defvjp(_MERGED, lambda g, ans, v, inverse, merged: take(g, inverse, 0), None, save=(1,),
       save_out=False)


def merge_values(x, vals, inverse):
    """The merged values array as a Tensor, differentiable through ``inverse``."""
    if inverse is None:
        return Tensor._wrap(vals)
    return apply(_MERGED, x, inverse, merged=vals)


# ----------------------------------------------------------------------------------
# coalesce


@public
def coalesce(x, name=None):
    """Sort the indices of COO ``x`` row-major and sum duplicates (index dtype kept).

    CSR input (**weft+**) gives the canonical CSR: columns sorted inside each row,
    duplicates summed. The gradient of each original entry is that of the slot it
    was merged into.

    >>> import weft
    >>> x = weft.sparse.sparse_coo_tensor([[1, 0, 1], [0, 2, 0]], [1.0, 2.0, 3.0])
    >>> c = weft.sparse.coalesce(x)
    >>> c.indices().tolist(), c.values().tolist(), c.is_coalesced()
    ([[0, 1], [2, 0]], [2.0, 4.0], True)
    """
    if isinstance(x, SparseCsrTensor):
        return csr_canonical(x)
    if not isinstance(x, SparseCooTensor):
        if isinstance(x, Tensor):
            raise SparseLayoutError("coalesce: x must be a SparseCooTensor or "
                                    "SparseCsrTensor, got a dense Tensor")
        raise TypeError(f"coalesce: x must be a sparse tensor, got {type(x).__name__}")
    if x._coalesced:
        return x
    sd = x._indices.shape[0]
    idx, vals, inv = K.coalesce(x._indices, x._data, x._shape[:sd], want_inverse(x))
    return wrap_coo(merge_values(x, vals, inv), idx, x._shape, coalesced=True)


def csr_is_canonical(x):
    """Whether the columns of CSR ``x`` strictly increase inside every row (kept on
    ``x`` once known: one vectorised pass, several times cheaper than sorting)."""
    if x._canonical is None:
        cols = x._cols
        nnz = cols.shape[0]
        ok = True
        if nnz > 1:
            xp = K.xp_of_array(cols)
            shape = x._shape
            glob = x._crows if len(shape) == 2 else global_crows(x._crows, *shape[:2], xp)
            rising = cols[1:] > cols[:-1]
            # the first entry of a row may lie below the last of the previous one
            starts = glob[1:-1]
            rising[starts[(starts > 0) & (starts < nnz)].astype(np.int64) - 1] = True
            ok = bool(rising.all())
        x._canonical = ok
    return x._canonical


def csr_canonical(x):
    """CSR ``x`` with columns sorted inside each row and duplicates summed (``x``
    itself when it already is)."""
    if csr_is_canonical(x):
        return x
    shape = x._shape
    want = want_inverse(x)
    if len(shape) == 2:
        crows, cols, vals, inv = K.csr_canonical(x._crows, x._cols, x._data, shape[1], want)
        return wrap_csr(merge_values(x, vals, inv), crows, cols, shape, canonical=True)
    b, m, n = shape
    xp = K.xp_of_array(x._data)
    glob = global_crows(x._crows, b, m, xp)
    crows, cols, vals, inv = K.csr_canonical(glob, x._cols, x._data, n, want)
    return wrap_csr(merge_values(x, vals, inv), batched_crows(crows, b, m, xp), cols, shape,
                    canonical=True)


def global_crows(crows, b, m, xp):
    """Per-batch row pointers [b*(m+1)] -> one pointer array over b*m rows."""
    cr = crows.reshape(b, m + 1).astype(np.int64)
    offsets = xp.zeros(b, dtype=np.int64)
    if b > 1:
        offsets[1:] = xp.cumsum(cr[:, -1])[:-1]
    glob = xp.empty(b * m + 1, dtype=np.int64)
    glob[:-1] = (cr[:, :-1] + offsets[:, None]).reshape(-1)
    glob[-1] = int(cr[:, -1].sum()) if b else 0
    return glob.astype(crows.dtype)


def batched_crows(glob, b, m, xp):
    g = glob.astype(np.int64)
    starts = g[0:b * m + 1:m] if m else xp.zeros(b + 1, dtype=np.int64)
    out = xp.empty((b, m + 1), dtype=np.int64)
    for_rows = xp.arange(b)[:, None] * m + xp.arange(m + 1)[None, :]
    out[:] = g[for_rows] - starts[:b, None]
    return out.reshape(-1).astype(glob.dtype)


def _dense_to_sparse_coo_method(self, sparse_dim=None, name=None):
    return to_sparse_coo(self, sparse_dim)


def _dense_to_sparse_csr_method(self, name=None):
    return to_sparse_csr(self)


def _dense_to_dense_method(self, name=None):
    return self


def _dense_values_method(self, name=None):
    raise NotImplementedError("values(): only effective for sparse tensors, got a dense Tensor")


def _dense_layout_error(what):
    def f(self, name=None):
        raise SparseLayoutError(f"{what}(): only effective for sparse tensors, got a dense "
                                "Tensor")
    f.__name__ = what
    return f


def _dense_sparse_dim(self):
    return 0


def _dense_dense_dim(self):
    return self.ndim


# the methods of the sparse tensor types that this module implements (tensor.py, which
# defines the types, sits below it)
add_methods(SparseBase, {
    "values": lambda self, name=None: values(self),
    "to_dense": lambda self, name=None: to_dense(self),
    "to_sparse_coo": lambda self, sparse_dim=None, name=None: to_sparse_coo(self, sparse_dim),
    "to_sparse_csr": lambda self, name=None: to_sparse_csr(self),
    "coalesce": lambda self, name=None: coalesce(self),
    "clone": lambda self, name=None: clone(self),
})


def install_tensor_methods():
    """Sparse-related methods on dense Tensors (the sparse classes override them)."""
    add_methods(Tensor, {
        "to_sparse_coo": _dense_to_sparse_coo_method, "to_sparse_csr": _dense_to_sparse_csr_method,
        "to_dense": _dense_to_dense_method, "values": _dense_values_method,
        "indices": _dense_layout_error("indices"), "crows": _dense_layout_error("crows"),
        "cols": _dense_layout_error("cols"), "nnz": _dense_layout_error("nnz"),
        "sparse_dim": _dense_sparse_dim, "dense_dim": _dense_dense_dim})


__all__ = ["to_dense", "to_sparse_coo", "to_sparse_csr", "coalesce", "values"]

