"""Sparse max pooling (api-sparse.md §4 ``max_pool3d``).

The windows are a regular convolution's: the rulebook of a kernel of ones gives,
per window offset, the (input, output) pairs, and an output site is active when its
window holds an active input. The value is the per-channel maximum over the active
inputs only (implicit zeros take no part). The gradient goes to every active input
equal to its window's maximum (ties all receive it); that rule is linear in the
incoming gradient and written with the gather/scatter primitives, so it is
differentiable again (its own derivative in x is zero almost everywhere).
"""
from __future__ import annotations

import numpy as np

from ....autograd.engine import Primitive, apply, defvjp
from ....core.tensor import Tensor
from ... import _kernels as K
from ...convert import coalesce, gather_rows, scatter_rows, values
from ...tensor import wrap_coo
from .._rulebook import build, inherit
from .conv import _check_input, _int_seq, _padding


def _pool_fwd(v, rb):
    xp = K.xp_of_array(v)
    out = xp.full((rb.n_out,) + v.shape[1:], -np.inf, dtype=v.dtype)
    off = rb.host_offsets
    for k in range(len(off) - 1):
        a, b = off[k], off[k + 1]
        if b > a:
            # no output row repeats within one offset: a plain indexed update is exact
            dst = rb.out_rows[a:b]
            out[dst] = xp.maximum(out[dst], v[rb.in_rows[a:b]])
    return out


def _pool_vjp(g, ans, v, rb):
    # a constant mask (piecewise-constant in v), so the rule is linear in g
    a, m = v._data, ans._data
    tie = (a[rb.in_rows] == m[rb.out_rows]).astype(a.dtype)
    picked = gather_rows(g, rb.out_rows) * Tensor._wrap(tie)
    return scatter_rows(picked, rb.in_rows, rb.n_in)


_POOL = Primitive("sparse_max_pool", _pool_fwd)
defvjp(_POOL, _pool_vjp, save=(0,), save_out=True)


def max_pool3d(x, kernel_size, stride=None, padding=0, ceil_mode=False, data_format="NDHWC",
               name=None):
    """Max pooling of COO ``x`` ``[N, D, H, W, C]`` (sparse_dim 4) over active sites.

    ``kernel_size``/``stride``: int or 3-list (``stride=None``: the kernel size);
    ``padding``: int, 3-list, 6-list or pairs. An output site is active when its
    window holds an active input; its value is the per-channel maximum over those
    inputs only, so an all-negative window gives a negative maximum. ``ceil_mode``
    rounds the output size up (a last window must start inside the padded input).

    >>> import weft
    >>> x = weft.sparse.sparse_coo_tensor([[0, 0], [0, 1], [0, 1], [0, 1]], [[-3.0], [-1.0]],
    ...                                   [1, 2, 2, 2, 1])
    >>> y = weft.sparse.nn.functional.max_pool3d(x, 2)
    >>> y.shape, y.values().tolist()
    ([1, 1, 1, 1, 1], [[-1.0]])
    """
    op = "max_pool3d"
    if data_format != "NDHWC":  # Paddle's error type for this check (api-sparse.md §4)
        raise AssertionError(f"{op}: data_format must be 'NDHWC', got {data_format!r}")
    _check_input(x, 3, data_format, op)
    kernel = _int_seq(kernel_size, 3, op, "kernel_size", 1)
    stride = kernel if stride is None else _int_seq(stride, 3, op, "stride", 1)
    in_shape = tuple(x._shape[1:-1])
    front, back = _padding(padding, 3, kernel, stride, (1, 1, 1), in_shape, op)
    out = []
    for s in range(3):
        span = in_shape[s] + front[s] + back[s] - kernel[s]
        if span < 0:
            raise ValueError(f"{op}: kernel_size {kernel[s]} does not fit spatial axis {s} of "
                             f"size {in_shape[s]} with padding ({front[s]}, {back[s]})")
        n = (-(-span // stride[s]) if ceil_mode else span // stride[s]) + 1
        if ceil_mode and (n - 1) * stride[s] >= in_shape[s] + front[s]:
            n -= 1
        out.append(n)
    rb = build(x._indices, x._shape[0], in_shape, kernel, stride, front, (1, 1, 1), out, False)
    if rb is None:
        x = coalesce(x)
        rb = build(x._indices, x._shape[0], in_shape, kernel, stride, front, (1, 1, 1), out,
                   False)
    vals = apply(_POOL, values(x), rb=rb)
    inherit(rb.out_indices, x._indices)
    return wrap_coo(vals, rb.out_indices, [x._shape[0], *out, x._shape[-1]], True)


__all__ = ["max_pool3d"]
