"""Activations and softmax on the stored values of COO/CSR tensors (api-sparse.md §4).

``relu``, ``relu6`` and ``leaky_relu`` apply the dense activation to the stored
values and keep the pattern (a stored -1 becomes a stored 0). ``softmax`` works over
the stored entries only: implicit zeros act as -inf, so a line with one stored entry
gives 1.0. Along a sparse axis the entries sharing every other coordinate form one
group; its softmax is written with the differentiable gather/scatter primitives
(``segment_softmax``), so the gradient is masked and differentiable again.
"""
from __future__ import annotations

import numpy as np

from ....core.args import normalize_axis
from ....core.scatter import max_at
from ....core.tensor import Tensor
from ....nn import functional as _F
from ....ops.math.ufuncs import exp
from ... import _kernels as K
from ...convert import coalesce, csr_is_canonical, gather_rows, scatter_rows, values
from ...softmax import csr_row_softmax
from ...tensor import SparseCooTensor, SparseCsrTensor, UnsupportedDtypeError
from ...unary import _stored_values


def relu(x, name=None):
    """``max(v, 0)`` on the stored values of COO/CSR ``x``; the pattern is kept.

    >>> import weft
    >>> x = weft.sparse.sparse_coo_tensor([[0, 2]], [-1.0, 2.0], [3])
    >>> weft.sparse.nn.functional.relu(x).values().tolist()
    [0.0, 2.0]
    """
    x, v = _stored_values(x, "relu", False, False)
    return x._with_values(_F.relu(v))


def relu6(x, name=None):
    """``min(max(v, 0), 6)`` on the stored values of COO/CSR ``x``; the pattern is kept.

    >>> import weft
    >>> x = weft.sparse.sparse_coo_tensor([[0, 2]], [-1.0, 8.0], [3])
    >>> weft.sparse.nn.functional.relu6(x).values().tolist()
    [0.0, 6.0]
    """
    x, v = _stored_values(x, "relu6", False, False)
    return x._with_values(_F.relu6(v))


def leaky_relu(x, negative_slope=0.01, name=None):
    """``v if v > 0 else negative_slope * v`` on the stored values; pattern kept.

    >>> import weft
    >>> x = weft.sparse.sparse_coo_tensor([[0, 2]], [-1.0, 2.0], [3])
    >>> weft.sparse.nn.functional.leaky_relu(x, 0.5).values().tolist()
    [-0.5, 2.0]
    """
    x, v = _stored_values(x, "leaky_relu", False, False)
    return x._with_values(_F.leaky_relu(v, negative_slope))


def segment_softmax(v, group, ngroups):
    """Softmax of the rows of Tensor ``v`` ([n, ...]) within the groups ``group``
    (backend int array [n], values in [0, ngroups)); each trailing column separately.

    The group maximum is subtracted as a constant (softmax does not change under a
    shift), so only exp, gather and scatter carry gradients."""
    a = v._data
    xp = K.xp_of_array(a)
    m = xp.full((ngroups,) + a.shape[1:], -np.inf, dtype=a.dtype)
    if a.shape[0]:
        max_at(m, group, a)
    shift = m[group]
    shift = xp.where(xp.isfinite(shift), shift, 0)
    e = exp(v - Tensor._wrap(shift))
    return e / gather_rows(scatter_rows(e, group, ngroups), group)


def _coo_softmax(x, axis):
    sd = x._indices.shape[0]
    x = x if x._coalesced else coalesce(x)  # duplicates are one entry: their sum
    if axis >= sd:  # a dense axis: the dense softmax of every stored slice
        return x._with_values(_F.softmax(values(x), axis - sd + 1))
    idx = x._indices
    xp = K.xp_of_array(idx)
    others = [d for d in range(sd) if d != axis]
    if others:
        key = K.linear_index(idx[others], [x._shape[d] for d in others], xp)
        _, group = xp.unique(key, return_inverse=True)
        group = group.reshape(-1)
        ngroups = int(group.max()) + 1 if group.shape[0] else 0
    else:
        group = xp.zeros(idx.shape[1], dtype=np.int64)
        ngroups = 1
    return x._with_values(segment_softmax(values(x), group, ngroups))


def softmax(x, axis=-1, name=None):
    """Softmax over the stored entries of COO/CSR ``x`` along ``axis``; implicit zeros
    are excluded (they act as -inf), so a line with one stored entry gives 1.0.

    COO: any axis (sparse or dense); CSR: any axis (**weft+**; Paddle only -1).
    Gradient masked: ``y * (g - sum_line(y * g))`` at the stored entries.

    >>> import weft
    >>> x = weft.sparse.sparse_coo_tensor([[0, 0, 1], [0, 2, 1]], [1.0, 1.0, 5.0], [2, 3])
    >>> weft.sparse.nn.functional.softmax(x).values().tolist()
    [0.5, 0.5, 1.0]
    """
    op = "softmax"
    if not isinstance(x, (SparseCooTensor, SparseCsrTensor)):
        raise TypeError(f"{op}: x must be a SparseCooTensor or SparseCsrTensor, got "
                        f"{type(x).__name__}")
    if x._data.dtype.kind != "f":
        raise UnsupportedDtypeError(f"{op}: x has dtype {x._data.dtype.name}; softmax needs "
                                    "a floating dtype")
    axis = normalize_axis(axis, len(x._shape), op)
    if isinstance(x, SparseCsrTensor):
        if not csr_is_canonical(x):
            x = coalesce(x)  # duplicates are one entry: their sum
        if axis == len(x._shape) - 1:
            return csr_row_softmax(x)
        coo = x.to_sparse_coo(len(x._shape))
        return _coo_softmax(coo, axis).to_sparse_csr()
    return _coo_softmax(x, axis)


__all__ = ["relu", "relu6", "leaky_relu", "softmax"]
