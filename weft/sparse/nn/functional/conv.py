"""Sparse convolutions over channel-last COO input (api-sparse.md §4): ``conv3d``,
``conv2d``, ``subm_conv3d``, ``subm_conv2d`` and their ``*_igemm`` twins.

Input ``x`` is a COO tensor ``[N, *spatial, C]`` with ``sparse_dim == 1 + S`` and
values ``[nnz, C]``; ``weight`` is dense ``[*kernel, C, M]``. The work happens on a
rulebook (``_rulebook.py``): every argument is checked first, then the rulebook is
built (or taken from the cache by ``key``) and the values go through the rulebook
convolution primitive, whose gradients reach the values (masked), the weight and
the bias, to any order.

Duplicate input coordinates are summed first (``coalesce``), as every weft op
treats them; the output then follows the coalesced order.
"""
from __future__ import annotations

import numbers
import warnings

import numpy as np

from ....core.tensor import Tensor
from ....core.args import tensor_arg
from ....core.dtype import UnsupportedDtypeError
from ....ops.shape.views import reshape_exact
from ...convert import coalesce, values
from ...tensor import SparseCooTensor, SparseBase, wrap_coo
from .._rulebook import build, cached, conv as _rb_conv, inherit

_FORMATS = {2: "NHWC", 3: "NDHWC"}


def _int_seq(v, n, op, arg, lo):
    """An int or a list/tuple of ``n`` ints, each >= lo, as a tuple."""
    if isinstance(v, Tensor):
        v = v.tolist()
    if isinstance(v, numbers.Integral) and not isinstance(v, bool):
        v = [int(v)] * n
    if not isinstance(v, (list, tuple)) or len(v) != n or not all(
            isinstance(e, numbers.Integral) and not isinstance(e, bool) for e in v):
        raise ValueError(f"{op}: {arg} must be an int or a list of {n} ints, got {v!r}")
    if any(int(e) < lo for e in v):
        raise ValueError(f"{op}: every entry of {arg} must be >= {lo}, got {list(v)}")
    return tuple(int(e) for e in v)


def _padding(padding, S, kernel, stride, dilation, in_shape, op):
    """Leading and trailing padding per axis from Paddle's forms: int, S-list,
    2S-list (front/back pairs), a list of [front, back] pairs (optionally with the
    batch and channel axes, which must be 0), 'same' or 'valid'."""
    if isinstance(padding, str):
        p = padding.lower()
        if p == "valid":
            return (0,) * S, (0,) * S
        if p == "same":
            front, back = [], []
            for s in range(S):
                out = -(-in_shape[s] // stride[s])
                total = max((out - 1) * stride[s] + dilation[s] * (kernel[s] - 1) + 1
                            - in_shape[s], 0)
                front.append(total // 2)
                back.append(total - total // 2)
            return tuple(front), tuple(back)
        raise ValueError(f"{op}: padding must be 'same', 'valid', an int or a list, got "
                         f"{padding!r}")
    if isinstance(padding, (list, tuple)) and padding and all(
            isinstance(e, (list, tuple)) for e in padding):
        pairs = [list(e) for e in padding]
        if len(pairs) == S + 2:
            if any(int(v) != 0 for v in pairs[0] + pairs[-1]):
                raise ValueError(f"{op}: padding of the batch and channel axes must be 0, got "
                                 f"{padding!r}")
            pairs = pairs[1:-1]
        if len(pairs) != S or any(len(e) != 2 for e in pairs):
            raise ValueError(f"{op}: padding as pairs must hold {S} (or {S + 2}) [front, back] "
                             f"pairs, got {padding!r}")
        flat = _int_seq([v for e in pairs for v in e], 2 * S, op, "padding", 0)
        return flat[0::2], flat[1::2]
    if isinstance(padding, (list, tuple)) and len(padding) == 2 * S:
        flat = _int_seq(padding, 2 * S, op, "padding", 0)
        return flat[0::2], flat[1::2]
    p = _int_seq(padding, S, op, "padding", 0)
    return p, p


def _check_input(x, S, data_format, op):
    if not isinstance(x, SparseCooTensor):
        kind = type(x).__name__
        raise TypeError(f"{op}: x must be a SparseCooTensor [N, {'D, ' if S == 3 else ''}H, W, C] "
                        f"(channel-last, sparse_dim {S + 1}), got {kind}")
    if data_format != _FORMATS[S]:
        raise ValueError(f"{op}: data_format must be '{_FORMATS[S]}' (channel-last), got "
                         f"{data_format!r}")
    if len(x._shape) != S + 2:
        raise ValueError(f"{op}: x must be {S + 2}-D [N, ..., C], got shape {list(x._shape)}")
    if x._indices.shape[0] != S + 1:
        raise ValueError(f"{op}: x must have sparse_dim {S + 1} (batch and {S} spatial axes "
                         f"sparse, channels dense), got sparse_dim {x._indices.shape[0]}")
    if x._data.dtype.kind != "f":
        raise UnsupportedDtypeError(f"{op}: x has dtype {x._data.dtype.name}; sparse "
                                    "convolution needs float16, float32 or float64 values")


def _check_weight(weight, bias, x, S, groups, op):
    weight = tensor_arg(weight, "weight", op)
    if isinstance(weight, SparseBase):
        raise TypeError(f"{op}: weight must be a dense Tensor, got {type(weight).__name__}")
    if weight.ndim != S + 2:
        raise ValueError(f"{op}: weight must be {S + 2}-D [*kernel ({S}), in_channels/groups, "
                         f"out_channels], got shape {weight.shape}")
    if isinstance(groups, bool) or not isinstance(groups, numbers.Integral):
        raise TypeError(f"{op}: groups must be an int, got {type(groups).__name__}")
    if groups != 1:  # Paddle's error type for this check (api-sparse.md §4)
        raise AssertionError(f"{op}: only support groups=1, got groups={groups}")
    c = x._shape[-1]
    if weight.shape[S] != c:
        raise ValueError(f"{op}: x has {c} channels but weight expects {weight.shape[S]} "
                         f"(weight shape {weight.shape}: [*kernel, in_channels, out_channels])")
    if weight._data.dtype != x._data.dtype:
        raise TypeError(f"{op}: weight has dtype {weight._data.dtype.name} but x has "
                        f"{x._data.dtype.name}; they must match")
    if bias is not None:
        bias = tensor_arg(bias, "bias", op)
        if list(bias.shape) != [weight.shape[-1]]:
            raise ValueError(f"{op}: bias must have shape [{weight.shape[-1]}] (out_channels), "
                             f"got {bias.shape}")
        if bias._data.dtype != x._data.dtype:
            raise TypeError(f"{op}: bias has dtype {bias._data.dtype.name} but x has "
                            f"{x._data.dtype.name}; they must match")
    return weight, bias


def _geometry(x, weight, stride, padding, dilation, subm, op):
    S = len(x._shape) - 2
    kernel = tuple(int(k) for k in weight.shape[:S])
    if any(k < 1 for k in kernel):
        raise ValueError(f"{op}: every kernel size must be >= 1, got weight shape {weight.shape}")
    dilation = _int_seq(dilation, S, op, "dilation", 1)
    in_shape = tuple(x._shape[1:-1])
    if subm:
        stride = _int_seq(stride, S, op, "stride", 1)
        if any(k % 2 == 0 for k in kernel):
            raise ValueError(f"{op}: a submanifold convolution needs odd kernel sizes (it is "
                             f"centred on every active site), got {list(kernel)}")
        if any(s != 1 for s in stride):
            warnings.warn(f"{op}: stride {list(stride)} is ignored, a submanifold convolution "
                          "keeps the input's sites (as in Paddle)", stacklevel=4)
        _padding(padding, S, kernel, stride, dilation, in_shape, op)  # still validated
        front = tuple(d * (k - 1) // 2 for k, d in zip(kernel, dilation))
        return kernel, (1,) * S, front, dilation, in_shape
    stride = _int_seq(stride, S, op, "stride", 1)
    front, back = _padding(padding, S, kernel, stride, dilation, in_shape, op)
    out = []
    for s in range(S):
        span = in_shape[s] + front[s] + back[s] - dilation[s] * (kernel[s] - 1) - 1
        if span < 0:
            raise ValueError(f"{op}: the kernel (size {kernel[s]}, dilation {dilation[s]}) does "
                             f"not fit spatial axis {s} of size {in_shape[s]} with padding "
                             f"({front[s]}, {back[s]})")
        out.append(span // stride[s] + 1)
    return kernel, stride, front, dilation, tuple(out)


def _conv(x, weight, bias, stride, padding, dilation, groups, data_format, key, subm, S, op):
    _check_input(x, S, data_format, op)
    weight, bias = _check_weight(weight, bias, x, S, groups, op)
    kernel, stride, front, dilation, out_sp = _geometry(x, weight, stride, padding, dilation,
                                                        subm, op)
    batch = x._shape[0]
    if x._indices.dtype == np.int32 and max(out_sp + (batch,)) >= 2 ** 31:
        raise ValueError(f"{op}: output shape {list(out_sp)} does not fit int32 indices; cast "
                         "x's indices to int64")

    def make(t):
        return build(t._indices, batch, x._shape[1:-1], kernel, stride, front, dilation,
                     out_sp, subm)

    geometry = (kernel, stride, front, dilation, out_sp, subm)
    rb = cached(key, x._indices, x._shape[:-1], geometry, lambda: make(x), op)
    if rb is None:  # repeated coordinates: sum them (coalesce) and build on the result
        x = coalesce(x)
        rb = make(x)
    w = reshape_exact(weight, [int(np.prod(kernel)), weight.shape[S], weight.shape[S + 1]])
    vals = _rb_conv(values(x), w, rb)
    if bias is not None:
        vals = vals + bias
    m = weight.shape[S + 1]
    if subm:
        return wrap_coo(vals, x._indices, list(x._shape[:-1]) + [m], x._coalesced)
    inherit(rb.out_indices, x._indices)
    return wrap_coo(vals, rb.out_indices, [batch, *out_sp, m], True)


def conv3d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, data_format="NDHWC",
           name=None):
    """Regular sparse 3-D convolution: an output site is active when its window holds
    at least one active input site (its value is stored even when it is 0).

    ``x``: COO ``[N, D, H, W, C]`` with sparse_dim 4; ``weight`` ``[kD, kH, kW, C, M]``;
    ``bias`` ``[M]``. ``padding``: int, 3-list, 6-list, a list of pairs, 'same' or
    'valid'. Output COO ``[N, D', H', W', M]`` (coalesced), ``D' = (D + pad_front +
    pad_back - dilation*(kD-1) - 1) // stride + 1``. Gradients to x (masked), weight and bias.

    >>> import weft
    >>> x = weft.sparse.sparse_coo_tensor([[0], [1], [1], [1]], [[1.0]], [1, 3, 3, 3, 1])
    >>> w = weft.ones([2, 2, 2, 1, 1])
    >>> y = weft.sparse.nn.functional.conv3d(x, w)
    >>> y.shape, y.nnz()
    ([1, 2, 2, 2, 1], 8)
    """
    return _conv(x, weight, bias, stride, padding, dilation, groups, data_format, None, False,
                 3, "conv3d")


def conv2d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, data_format="NHWC",
           name=None):
    """Regular sparse 2-D convolution: ``x`` COO ``[N, H, W, C]`` (sparse_dim 3),
    ``weight`` ``[kH, kW, C, M]``; as :func:`conv3d` otherwise.

    >>> import weft
    >>> x = weft.sparse.sparse_coo_tensor([[0], [2], [2]], [[1.0]], [1, 4, 4, 1])
    >>> y = weft.sparse.nn.functional.conv2d(x, weight=weft.ones([3, 3, 1, 2]), stride=2)
    >>> y.shape, y.indices().tolist()
    ([1, 1, 1, 2], [[0], [0], [0]])
    """
    return _conv(x, weight, bias, stride, padding, dilation, groups, data_format, None, False,
                 2, "conv2d")


def subm_conv3d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1,
                data_format="NDHWC", key=None, name=None):
    """Submanifold sparse 3-D convolution: the output has exactly x's sites (same
    order) and ``M`` channels; each output site sums over the active input sites of
    the kernel window centred on it.

    The kernel sizes must be odd; the effective padding is ``dilation*(k-1)/2``
    whatever ``padding`` says, and ``stride`` is ignored (a warning when it is not 1),
    as in Paddle. ``key`` names the input's active set within one forward pass: every
    call with that key on those sites shares one rulebook; the same key on other
    sites derived from the same input (e.g. after a strided convolution) raises
    ValueError, while a new input (the next batch) starts afresh.

    >>> import weft
    >>> x = weft.sparse.sparse_coo_tensor([[0, 0], [0, 0], [0, 1], [0, 0]], [[1.0], [2.0]],
    ...                                   [1, 2, 2, 2, 1])
    >>> y = weft.sparse.nn.functional.subm_conv3d(x, weft.ones([3, 3, 3, 1, 1]))
    >>> y.indices().tolist(), y.values().tolist()
    ([[0, 0], [0, 0], [0, 1], [0, 0]], [[3.0], [3.0]])
    """
    return _conv(x, weight, bias, stride, padding, dilation, groups, data_format, key, True,
                 3, "subm_conv3d")


def subm_conv2d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1,
                data_format="NHWC", key=None, name=None):
    """Submanifold sparse 2-D convolution: ``x`` COO ``[N, H, W, C]``, ``weight``
    ``[kH, kW, C, M]``; as :func:`subm_conv3d` otherwise.

    >>> import weft
    >>> x = weft.sparse.sparse_coo_tensor([[0, 0], [0, 1], [0, 1]], [[1.0], [2.0]], [1, 2, 2, 1])
    >>> weft.sparse.nn.functional.subm_conv2d(x, weft.ones([3, 3, 1, 1])).values().tolist()
    [[3.0], [3.0]]
    """
    return _conv(x, weight, bias, stride, padding, dilation, groups, data_format, key, True,
                 2, "subm_conv2d")


def subm_conv3d_igemm(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1,
                      data_format="NDHWC", key=None, name=None):
    """:func:`subm_conv3d` (Paddle's implicit-GEMM entry point; weft uses its one
    rulebook kernel on every device, so the results are identical)."""
    return _conv(x, weight, bias, stride, padding, dilation, groups, data_format, key, True,
                 3, "subm_conv3d_igemm")


def subm_conv2d_igemm(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1,
                      data_format="NHWC", key=None, name=None):
    """:func:`subm_conv2d` (Paddle's implicit-GEMM entry point; same results)."""
    return _conv(x, weight, bias, stride, padding, dilation, groups, data_format, key, True,
                 2, "subm_conv2d_igemm")


__all__ = ["conv2d", "conv3d", "subm_conv2d", "subm_conv3d", "subm_conv2d_igemm",
           "subm_conv3d_igemm"]
