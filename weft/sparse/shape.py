"""Shape functions of sparse tensors: ``reshape`` and ``slice`` (api-sparse.md §3.2).

Both move or drop stored entries without combining them, so the output values are
the input values (``reshape``) or a gather of them (``slice``); the masked
gradient is the identity or the matching scatter back. ``reshape`` maps each
entry's row-major position in the old sparse shape to the new one. ``slice`` of
CSR runs the native row-parallel kernel (csrc/sparse/structural.cpp), which also
returns the slot of every kept entry; COO and GPU arrays filter with array ops.
CSR outputs are canonical (columns sorted inside rows, no duplicates): an input
that is not is canonicalised after the structural step.
"""
from __future__ import annotations

import numpy as np

from .._native import extension as _C
from ..core.args import slice_bounds
from ..core.tensor import Tensor
from ..ops.shape.join import _slice_args
from ..ops.shape._helpers import aliases, int_list
from . import _kernels as K
from .convert import (crows_from_rows, global_crows, _prod, csr_canonical, csr_linear,
                      gather_rows, values)
from .structural import csr_from_indices, sparse_arg
from .tensor import SparseCooTensor, wrap_coo, wrap_csr
from ._guard import public

_HAS_NATIVE = hasattr(_C, "sparse_csr_slice")
_INT32_MAX = 2 ** 31 - 1


def _index_dtype(dtype, shape):
    """``dtype`` unless some axis of ``shape`` does not fit it (then int64)."""
    fits = max([0] + [int(s) for s in shape]) <= np.iinfo(dtype).max
    return dtype if fits else np.dtype(np.int64)


def _target_shape(shape, old, op, dense=()):
    """Resolve Paddle's ``0`` (copy that axis) and ``-1`` (infer) against ``old``.

    The last ``len(dense)`` entries must give the ``dense`` dims of a hybrid COO tensor
    (a ``-1`` there stands for that dim); the sizes before them must hold as many
    positions as the sparse part of ``old``."""
    spec = int_list(shape, op, "shape")
    out, infer = [], None
    nsd = len(spec) - len(dense)
    for i, s in enumerate(spec):
        if s == 0:
            if i >= len(old):
                raise ValueError(f"{op}: shape[{i}] = 0 copies axis {i}, but x has only "
                                 f"{len(old)} axes")
            s = old[i]
        elif s == -1:
            if infer is not None:
                raise ValueError(f"{op}: shape {spec} has more than one -1")
            infer = i
            if i >= nsd >= 0:
                s = dense[i - nsd]
        elif s < 0:
            raise ValueError(f"{op}: shape[{i}] = {s} is negative (only -1 may be)")
        out.append(int(s))
    if nsd < 1 or out[nsd:] != list(dense):
        raise ValueError(f"{op}: x is a COO tensor of shape {list(old)} with dense dimensions "
                         f"{list(dense)}; they must reappear unchanged at the end of the new "
                         f"shape {spec} after at least one sparse axis")
    total = _prod(old[:len(old) - len(dense)])
    if infer is not None and infer < nsd:
        rest = _prod(out[:infer] + out[infer + 1:nsd])
        if rest == 0 or total % rest:
            raise ValueError(f"{op}: cannot infer the -1 in shape {spec} for x of shape "
                             f"{list(old)} ({_prod(old)} elements)")
        out[infer] = total // rest
    if _prod(out[:nsd]) != total:
        raise ValueError(f"{op}: shape {spec} has {_prod(out)} elements but x of shape "
                         f"{list(old)} has {_prod(old)}" + (
                             f" (sparse part: {_prod(out[:nsd])} positions, x has {total})"
                             if dense else ""))
    return out


def _is_canonical(crows, cols):
    """Whether columns strictly increase inside every row of the pointer array ``crows``."""
    xp = K.xp_of_array(cols)
    n = cols.shape[0]
    if n < 2:
        return True
    up = xp.empty(n, dtype=bool)
    up[0] = True
    up[1:] = cols[1:] > cols[:-1]
    starts = crows[:-1].astype(np.int64)
    up[starts[starts < n]] = True
    return bool(up.all())


def _canonical_csr(out, shape):
    glob = out._crows if len(shape) == 2 else \
        global_crows(out._crows, shape[0], shape[1], K.xp_of_array(out._crows))
    return out if _is_canonical(glob, out._cols) else csr_canonical(out)


@aliases(input="x")
@public
def reshape(x, shape, name=None):
    """Sparse ``x`` with a new shape (``-1`` infers one axis, ``0`` copies that axis).

    COO: only the sparse part is reshaped; the dense dimensions of a hybrid tensor
    must reappear unchanged at the end of ``shape``. CSR: the new shape must be
    2-D or 3-D. Stored entries keep their values (gradient passed straight back);
    ``input`` is accepted as an alias of ``x``.

    >>> import weft
    >>> x = weft.sparse.sparse_coo_tensor([[0, 1], [3, 0]], [1.0, 2.0], [2, 4])
    >>> weft.sparse.reshape(x, [4, -1]).indices().tolist()
    [[1, 2], [1, 0]]
    """
    op = "reshape"
    x = sparse_arg(x, op)
    old = list(x._shape)
    v = values(x)
    xp = K.xp_of_array(x._data)
    if isinstance(x, SparseCooTensor):
        sd = x.sparse_dim()
        new = _target_shape(shape, old, op, old[sd:])
        nsd = len(new) - (len(old) - sd)
        if _prod(new[:nsd]) >= 2 ** 63:
            raise NotImplementedError(f"{op}: sparse shapes of 2**63 or more positions are not "
                                      f"supported (new shape {new})")
        if new[:nsd] == old[:sd]:
            return wrap_coo(v, x._indices, new, x._coalesced)
        lin = K.linear_index(x._indices, old[:sd], xp)
        idx = K.unravel(lin, new[:nsd], _index_dtype(x._indices.dtype, new[:nsd]), xp)
        # row-major positions are unchanged, so a coalesced tensor stays coalesced
        return wrap_coo(v, idx, new, x._coalesced)
    new = _target_shape(shape, old, op)
    if len(new) not in (2, 3):
        raise ValueError(f"{op}: a CSR tensor can only be reshaped to 2-D or 3-D; got shape "
                         f"{new}")
    if new == old:
        return _canonical_csr(x, new)
    lin = csr_linear(x)
    idx = K.unravel(lin, new, _index_dtype(x._cols.dtype, new + [x.nnz()]), xp)
    n = lin.shape[0]
    if n < 2 or bool((lin[1:] > lin[:-1]).all()):
        batch = idx[0] if len(new) == 3 else None
        crows = crows_from_rows(idx[-2], batch, new, idx.dtype, xp)
        return wrap_csr(v, crows, xp.ascontiguousarray(idx[-1]), new)
    return csr_from_indices(x, idx, new)


# ----------------------------------------------------------------------------------
# slice


def _windows(x, axes, starts, ends, op):
    """Per-axis ``[start, end)`` after Paddle's negative counting and clamping."""
    if isinstance(axes, Tensor):
        axes = int_list(axes, op, "axes")
    axes, starts, ends, _ = _slice_args(x, axes, starts, ends, op)
    win = [(0, s) for s in x._shape]
    for a, s, e in zip(axes, starts, ends):
        win[a] = slice_bounds(s, e, x._shape[a], a, op)
    return win


def _slice_csr_arrays(crows, cols, shape3, win3):
    """``(crows, cols, slots)`` of the window ``win3`` of a [B, M, N] CSR pattern."""
    starts = [w[0] for w in win3]
    ends = [w[1] for w in win3]
    if _HAS_NATIVE and type(crows) is np.ndarray and crows.dtype in (np.int32, np.int64):
        return _C.sparse_csr_slice(np.ascontiguousarray(crows), np.ascontiguousarray(cols),
                                   list(shape3), starts, ends)
    xp = K.xp_of_array(cols)
    b, m, _ = shape3
    (b0, b1), (r0, r1), (c0, c1) = win3
    nnz = cols.shape[0]
    bt, rt = K.csr_batch_rows(crows, nnz, b, m)
    bt = xp.zeros(nnz, dtype=np.int64) if bt is None else bt.astype(np.int64)
    rt = rt.astype(np.int64)
    keep = ((bt >= b0) & (bt < b1) & (rt >= r0) & (rt < r1) & (cols >= c0) & (cols < c1))
    slots = xp.nonzero(keep)[0].astype(np.int64)
    nb, nr = b1 - b0, r1 - r0
    out_crows = crows_from_rows(rt[slots] - r0, bt[slots] - b0, (nb, nr, c1 - c0),
                                 crows.dtype, xp)
    return out_crows, (cols[slots] - c0).astype(cols.dtype), slots


@public
def slice(x, axes, starts, ends, name=None):
    """The window ``[starts[i], ends[i])`` of sparse ``x`` along each of ``axes``.

    As the dense ``slice``: negative values count from the end and values past an
    end are clamped; ``axes``/``starts``/``ends`` are lists of ints or 0-D Tensors,
    or 1-D Tensors, of equal length. Kept entries are re-based to the window
    origin. COO: any axes, including the dense axes of a hybrid tensor (sliced in
    the values); CSR: 2-D or 3-D. The gradient is scattered back to the kept
    entries.

    >>> import weft
    >>> x = weft.sparse.sparse_coo_tensor([[0, 1, 2], [1, 2, 0]], [1.0, 2.0, 3.0], [3, 3])
    >>> y = weft.sparse.slice(x, [0], [1], [100])
    >>> y.shape, y.indices().tolist(), y.values().tolist()
    ([2, 3], [[0, 1], [2, 0]], [2.0, 3.0])
    """
    op = "slice"
    x = sparse_arg(x, op)
    win = _windows(x, axes, starts, ends, op)
    shape = [e - s for s, e in win]
    v = values(x)
    if isinstance(x, SparseCooTensor):
        sd = x.sparse_dim()
        idx = x._indices
        xp = K.xp_of_array(idx)
        cut = [d for d in range(sd) if win[d] != (0, x._shape[d])]
        if cut:
            keep = xp.ones(idx.shape[1], dtype=bool)
            for d in cut:
                keep &= (idx[d] >= win[d][0]) & (idx[d] < win[d][1])
            slots = xp.nonzero(keep)[0].astype(np.int64)
            idx = idx[:, slots]
            off = xp.asarray([s for s, _ in win[:sd]], dtype=idx.dtype)[:, None]
            idx = xp.ascontiguousarray(idx - off)
            v = gather_rows(v, slots)
        dcut = [d for d in range(sd, x.ndim) if win[d] != (0, x._shape[d])]
        if dcut:
            from ..ops.shape.join import slice as dense_slice  # noqa: PLC0415

            v = dense_slice(v, [1 + d - sd for d in dcut], [win[d][0] for d in dcut],
                            [win[d][1] for d in dcut])
        # filtering and shifting by a constant keep row-major order and uniqueness
        return wrap_coo(v, idx, shape, x._coalesced)
    nd = x.ndim
    shape3 = ([1] if nd == 2 else []) + list(x._shape)
    win3 = ([(0, 1)] if nd == 2 else []) + win
    crows, cols, slots = _slice_csr_arrays(x._crows, x._cols, shape3, win3)
    # a window keeps each row's entries in order and shifts them all alike, so a
    # canonical x gives a canonical window
    out = wrap_csr(gather_rows(v, slots), crows, cols, shape, canonical=x._canonical or None)
    return out if x._canonical else _canonical_csr(out, shape)


__all__ = ["reshape", "slice"]
