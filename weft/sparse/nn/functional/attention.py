"""Sparse attention with a CSR score pattern (api-sparse.md §4 ``attention``).

Scores are computed only at the stored positions of ``sparse_mask`` that the
optional dense masks allow (``key_padding_mask`` [B, L], ``attn_mask`` [L, L], 1 =
keep): ``s = <q[row], k[col]> / sqrt(d)``, a softmax over each query row's allowed
entries (``segment_softmax``), and ``out[row] = sum p * v[col]``. Everything is
written with the differentiable gather/scatter primitives, so gradients reach q, k
and v to any order. A query row with no allowed entry outputs zeros (weft's rule).
"""
from __future__ import annotations

import math

import numpy as np

from ....core.args import tensor_arg
from ....ops.reduction.aggregate import sum as _sum
from ....ops.shape.views import reshape_exact
from ... import _kernels as K
from ...convert import gather_rows, scatter_rows
from ...tensor import SparseBase, SparseCsrTensor, UnsupportedDtypeError
from .activation import segment_softmax


def _dense4(t, arg, op):
    t = tensor_arg(t, arg, op)
    if isinstance(t, SparseBase):
        raise TypeError(f"{op}: {arg} must be a dense Tensor, got {type(t).__name__}")
    if t.ndim != 4:
        raise ValueError(f"{op}: {arg} must be 4-D [batch, heads, seq_len, head_dim], got shape "
                         f"{t.shape}")
    if t._data.dtype not in (np.float32, np.float64):
        raise UnsupportedDtypeError(f"{op}: {arg} has dtype {t._data.dtype.name}; attention "
                                    "needs float32 or float64")
    return t


def _mask(m, shape, arg, op, xp):
    if m is None:
        return None
    m = tensor_arg(m, arg, op)
    if list(m.shape) != list(shape):
        raise ValueError(f"{op}: {arg} must have shape {list(shape)}, got {m.shape}")
    return xp.asarray(m._data) != 0


def attention(query, key, value, sparse_mask, key_padding_mask=None, attn_mask=None, name=None):
    """``softmax(q kᵀ / sqrt(d)) v`` over the stored positions of CSR ``sparse_mask``.

    ``query``/``key``/``value``: dense ``[B, H, L, d]`` (float32/64, one dtype);
    ``sparse_mask``: CSR ``[B*H, L, L]`` (its values are ignored);
    ``key_padding_mask`` ``[B, L]`` and ``attn_mask`` ``[L, L]``: 1 keeps, 0 drops.
    Returns dense ``[B, H, L, d]``; rows with no allowed position are zeros.

    >>> import weft
    >>> q = k = v = weft.ones([1, 1, 2, 2])
    >>> m = weft.sparse.sparse_csr_tensor([0, 1, 3], [0, 0, 1], [1.0, 1.0, 1.0], [1, 2, 2])
    >>> weft.sparse.nn.functional.attention(q, k, v, m).tolist()
    [[[[1.0, 1.0], [1.0, 1.0]]]]
    """
    op = "attention"
    q = _dense4(query, "query", op)
    k = _dense4(key, "key", op)
    v = _dense4(value, "value", op)
    if k.shape != q.shape or v.shape != q.shape:
        raise ValueError(f"{op}: query, key and value must have one shape, got {q.shape}, "
                         f"{k.shape} and {v.shape}")
    if k._data.dtype != q._data.dtype or v._data.dtype != q._data.dtype:
        raise TypeError(f"{op}: query, key and value must have one dtype")
    b, h, L, d = q.shape
    if not isinstance(sparse_mask, SparseCsrTensor):
        raise TypeError(f"{op}: sparse_mask must be a SparseCsrTensor [B*H, L, L], got "
                        f"{type(sparse_mask).__name__}")
    if list(sparse_mask._shape) != [b * h, L, L]:
        raise ValueError(f"{op}: sparse_mask must have shape {[b * h, L, L]}, got "
                         f"{list(sparse_mask._shape)}")
    xp = K.xp_of_array(q._data)
    nnz = sparse_mask._cols.shape[0]
    bh, rows = K.csr_batch_rows(sparse_mask._crows, nnz, b * h, L)
    rows = rows.astype(np.int64)
    bh = xp.zeros(nnz, np.int64) if bh is None else bh.astype(np.int64)
    cols = sparse_mask._cols.astype(np.int64)
    keep = xp.ones(nnz, dtype=bool)
    kp = _mask(key_padding_mask, [b, L], "key_padding_mask", op, xp)
    if kp is not None:
        keep &= kp[bh // h, cols]
    am = _mask(attn_mask, [L, L], "attn_mask", op, xp)
    if am is not None:
        keep &= am[rows, cols]
    sel = xp.nonzero(keep)[0]
    qi = (bh * L + rows)[sel]
    ki = (bh * L + cols)[sel]
    n = b * h * L
    qf = reshape_exact(q, [n, d])
    kf = reshape_exact(k, [n, d])
    vf = reshape_exact(v, [n, d])
    scores = _sum(gather_rows(qf, qi) * gather_rows(kf, ki), axis=-1) * (1.0 / math.sqrt(d))
    p = segment_softmax(scores, qi, n)
    out = scatter_rows(reshape_exact(p, [int(sel.shape[0]), 1]) * gather_rows(vf, ki), qi, n)
    return reshape_exact(out, [b, h, L, d])


__all__ = ["attention"]
