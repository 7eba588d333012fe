"""Common layers in functional form: linear, dropout, embedding, one_hot, normalize,
label_smooth (and ``pad``, which lives in ``weft.ops.pad``)."""
from __future__ import annotations

import numbers

import numpy as np

from ...autograd.engine import Primitive, apply, defvjp
from ...core import random as _rng
from ...core.tensor import Tensor
from ...core.args import normalize_axes, normalize_axis, tensor_arg, xp_of
from ...ops._support import binary_operands
from ...ops.cast import cast
from ...ops.primitives import take
from ...ops.products import matmul
from ...ops.math.ufuncs import abs as _abs
from ...ops.math.ufuncs import maximum, sqrt
from ...ops.pad import pad
from ...ops.reduction.aggregate import sum as _sum
from ...ops.reduction.aggregate import amax
from ...ops.shape.views import reshape_exact
from ._util import float_arg, int_label, real_number

# ---------------------------------------------------------------------------------
# linear: one primitive for x @ W + b (the bias is added in place into the product)


def _linear_fwd(x, w, b):
    out = np.matmul(x, w)
    if b is not None:
        out += b
    return out


def _linear_vjp_w(g, ans, x, w, b):
    # exact sizes, not Paddle's reshape rules: with a zero-size weight ([n, 0] or
    # [0, m]) or x, -1 is ambiguous and a 0 would copy the input's dimension
    n, m = w.shape
    if x.ndim == 1:
        return reshape_exact(x, [n, 1]) * reshape_exact(g, [1, m])
    rows = int(np.prod(x.shape[:-1]))
    return matmul(reshape_exact(x, [rows, n]), reshape_exact(g, [rows, m]), transpose_x=True)


_linear = Primitive("linear", _linear_fwd)
defvjp(_linear,
       lambda g, ans, x, w, b: matmul(g, w, transpose_y=True),
       _linear_vjp_w,
       lambda g, ans, x, w, b: g,  # the engine sums the broadcast bias gradient
       save=(0, 1), save_out=False)


def linear(x, weight, bias=None, name=None):
    """``x @ weight + bias`` with ``weight`` of shape ``[in_features, out_features]``
    (Paddle's layout, the transpose of PyTorch's) and ``bias`` of shape ``[out_features]``.

    >>> import weft
    >>> x = weft.ones([2, 3]); w = weft.ones([3, 4]); b = weft.zeros([4])
    >>> weft.nn.functional.linear(x, w, b).shape
    [2, 4]
    """
    x = float_arg(x, "linear")
    weight = float_arg(weight, "linear", "weight")
    if weight.ndim != 2:
        raise ValueError(f"linear: weight must be 2-D [in_features, out_features], got shape "
                         f"{weight.shape}")
    if x.ndim == 0:
        raise ValueError("linear: x must be at least 1-D, got a 0-D tensor")
    if x.shape[-1] != weight.shape[0]:
        raise ValueError(f"linear: x's last dimension ({x.shape[-1]}) must equal weight's "
                         f"first dimension ({weight.shape[0]}); shapes {x.shape} and "
                         f"{weight.shape}")
    if x._data.dtype != weight._data.dtype:
        x, weight = binary_operands(x, weight, "linear")
    if bias is not None:
        bias = float_arg(bias, "linear", "bias")
        if bias.shape not in ([weight.shape[1]], [1], []) and \
                bias.shape != [1, weight.shape[1]]:
            raise ValueError(f"linear: bias must have shape [{weight.shape[1]}], got "
                             f"{bias.shape}")
        if bias._data.dtype != x._data.dtype:
            bias = cast(bias, x._data.dtype)
    return apply(_linear, x, weight, bias)


# ---------------------------------------------------------------------------------
# dropout

_MODES = ("upscale_in_train", "downscale_in_infer")


def _uniform(gen, shape):
    if isinstance(gen, np.random.Generator):
        return gen.random(shape, dtype=np.float32)
    return gen.random_sample(shape, dtype=np.float32)


def _keep_mask(x, p, axes):
    """A boolean keep-mask (probability ``1 - p``) drawn from the device's generator;
    with ``axes`` it varies only along those axes and broadcasts over the rest."""
    shape = tuple(s if (axes is None or i in axes) else 1 for i, s in enumerate(x.shape))
    place = x.place
    with _rng.device_guard(place):
        u = _uniform(_rng.default_generator(place), shape)
    return u >= p


def dropout(x, p=0.5, axis=None, training=True, inplace=False, mode="upscale_in_train",
            name=None):
    """Randomly zero elements of ``x`` with probability ``p``.

    ``mode='upscale_in_train'`` scales the kept values by ``1 / (1 - p)`` in training
    and is the identity at inference; ``'downscale_in_infer'`` keeps values unscaled in
    training and multiplies by ``1 - p`` at inference. ``axis`` (int or list) draws one
    mask entry per index of those axes only, broadcast over the others. The mask comes
    from weft's generator of ``x``'s device, so ``weft.seed`` makes it reproducible.

    >>> import weft
    >>> x = weft.ones([2, 3])
    >>> weft.nn.functional.dropout(x, p=0.5, training=False).tolist()
    [[1.0, 1.0, 1.0], [1.0, 1.0, 1.0]]
    """
    x = tensor_arg(x, "x", "dropout")
    if isinstance(p, bool) or not isinstance(p, numbers.Real):
        raise TypeError(f"dropout: p must be a float in [0, 1], got {type(p).__name__}")
    p = float(p)
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout: p must be in [0, 1], got {p}")
    if mode not in _MODES:
        raise ValueError(f"dropout: mode must be 'upscale_in_train' or 'downscale_in_infer', "
                         f"got {mode!r}")
    axes = None
    if axis is not None:
        axes = set(normalize_axes(axis, x.ndim, "dropout"))
    if x._data.dtype.kind not in "fc":
        raise TypeError(f"dropout: x must be a floating tensor, got {x._data.dtype.name}")
    if not training:
        if mode == "upscale_in_train" or p == 0.0:
            return x
        return x * (1.0 - p)
    if p == 0.0:
        return x
    keep = _keep_mask(x, p, axes)
    scale = 1.0 if mode == "downscale_in_infer" else (0.0 if p == 1.0 else 1.0 / (1.0 - p))
    # built directly in x's dtype: a float64 intermediate would cost a third of the op
    dt = x._data.dtype
    m = Tensor._wrap(xp_of(x).multiply(keep, dt.type(scale), dtype=dt))
    if inplace:
        from ...autograd.inplace import inplace as _inplace  # noqa: PLC0415

        return _inplace(x, lambda old: old * m, "dropout")
    return x * m


# ---------------------------------------------------------------------------------
# embedding: a row gather and its adjoint scatter-add, each the other's vjp


def _check_ids(ids, n, op):
    d = ids._data
    if d.size == 0:
        return
    lo, hi = int(d.min()), int(d.max())
    if lo < 0 or hi >= n:
        bad = lo if lo < 0 else hi
        raise IndexError(f"{op}: x contains the index {bad}, out of range for a weight with "
                         f"{n} rows (expected in [0, {n - 1}])")


def embedding(x, weight, padding_idx=None, max_norm=None, norm_type=2.0, sparse=False,
              scale_grad_by_freq=False, name=None):
    """Look up rows of ``weight`` ``[num_embeddings, dim]`` at the integer ids ``x``;
    the result has shape ``x.shape + [dim]``.

    ``padding_idx`` (negative counts from the end): positions holding it output zeros
    and send no gradient to that row. ``max_norm``: rows looked up whose ``norm_type``
    norm exceeds it are rescaled to it in place in ``weight`` first (as PyTorch does).
    ``scale_grad_by_freq`` divides each row's gradient by the id's count in ``x``.
    ``sparse`` is accepted; the gradient is dense.

    >>> import weft
    >>> w = weft.arange(6, dtype='float32').reshape([3, 2])
    >>> weft.nn.functional.embedding(weft.to_tensor([2, 0]), w).tolist()
    [[4.0, 5.0], [0.0, 1.0]]
    """
    ids = int_label(x, "embedding", "x")
    weight = float_arg(weight, "embedding", "weight")
    if weight.ndim != 2:
        raise ValueError(f"embedding: weight must be 2-D [num_embeddings, embedding_dim], got "
                         f"shape {weight.shape}")
    n = weight.shape[0]
    if padding_idx is not None:
        if isinstance(padding_idx, bool) or not isinstance(padding_idx, numbers.Integral):
            raise TypeError(f"embedding: padding_idx must be an int, got "
                            f"{type(padding_idx).__name__}")
        if not -n <= padding_idx < n:
            raise ValueError(f"embedding: padding_idx must be in [{-n}, {n}), got "
                             f"{padding_idx}")
        padding_idx = int(padding_idx) % n
    if not isinstance(sparse, bool):
        raise TypeError(f"embedding: sparse must be a bool, got {type(sparse).__name__}")
    _check_ids(ids, n, "embedding")
    if max_norm is not None:
        _renorm_rows(weight, ids, real_number(max_norm, "embedding", "max_norm"),
                     real_number(norm_type, "embedding", "norm_type"))
    out = take(weight, ids, 0)
    if scale_grad_by_freq and not out.stop_gradient:
        xp = xp_of(ids)
        flat = ids._data.reshape(-1)
        counts = xp.bincount(flat, minlength=n)[flat].reshape(ids._data.shape + (1,))
        inv = Tensor._wrap((1.0 / counts).astype(weight._data.dtype))
        # same values, gradient scaled by 1/count: out + (out - stop(out)) * (1/c - 1)
        out = out + (out - out.detach()) * (inv - 1.0)
    if padding_idx is not None:
        keep = (ids._data != padding_idx)[..., None]
        out = out * Tensor._wrap(keep.astype(weight._data.dtype))
    return out


def _renorm_rows(weight, ids, max_norm, norm_type):
    xp = xp_of(weight)
    w = weight._data
    rows = xp.unique(ids._data.reshape(-1))
    sel = w[rows]
    if norm_type == float("inf"):
        norms = xp.abs(sel).max(axis=1)
    else:
        norms = (xp.abs(sel) ** norm_type).sum(axis=1) ** (1.0 / norm_type)
    big = norms > max_norm
    if bool(big.any()):
        scale = (max_norm / (norms[big] + 1e-7)).astype(w.dtype)
        w[rows[big]] = sel[big] * scale[:, None]
        weight._version[0] += 1


# ---------------------------------------------------------------------------------
# one_hot, normalize, label_smooth

def one_hot(x, num_classes=-1, name=None):
    """One-hot encoding of the integer tensor ``x``: shape ``x.shape + [num_classes]``,
    float32 (Paddle's dtype). ``num_classes=-1`` uses ``max(x) + 1``. Not differentiable.

    >>> import weft
    >>> weft.nn.functional.one_hot(weft.to_tensor([0, 2]), 3).tolist()
    [[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]
    """
    x = int_label(x, "one_hot", "x")
    if isinstance(num_classes, Tensor):
        num_classes = num_classes.item()
    if isinstance(num_classes, bool) or not isinstance(num_classes, numbers.Integral):
        raise TypeError(f"one_hot: num_classes must be an int, got "
                        f"{type(num_classes).__name__}")
    d = x._data
    xp = xp_of(x)
    if num_classes == -1:
        num_classes = int(d.max()) + 1 if d.size else 0
    if num_classes < 0:
        raise ValueError(f"one_hot: num_classes must be positive (or -1), got {num_classes}")
    if d.size:
        lo, hi = int(d.min()), int(d.max())
        if lo < 0 or hi >= num_classes:
            bad = lo if lo < 0 else hi
            raise IndexError(f"one_hot: x contains {bad}, out of range for num_classes="
                             f"{num_classes} (expected in [0, {num_classes - 1}])")
    out = (d[..., None] == xp.arange(num_classes)).astype(np.float32)
    return Tensor._wrap(out)


def normalize(x, p=2, axis=1, epsilon=1e-12, name=None):
    """``x / max(||x||_p, epsilon)`` along ``axis`` (for 1-D ``x`` the axis is 0).

    >>> import weft
    >>> weft.nn.functional.normalize(weft.to_tensor([[3.0, 4.0]])).tolist()
    [[0.6000000238418579, 0.800000011920929]]
    """
    x = float_arg(x, "normalize")
    p = real_number(p, "normalize", "p")
    eps = real_number(epsilon, "normalize", "epsilon")
    if x.ndim == 0:
        raise ValueError("normalize: x must be at least 1-D, got a 0-D tensor")
    ax = 0 if x.ndim == 1 else normalize_axis(axis, x.ndim, "normalize")
    if p == 2:
        n = sqrt(_sum(x * x, ax, keepdim=True))
    elif p == 1:
        n = _sum(_abs(x), ax, keepdim=True)
    elif p == float("inf"):
        n = amax(_abs(x), ax, keepdim=True)
    elif p > 0:
        n = _sum(_abs(x) ** p, ax, keepdim=True) ** (1.0 / p)
    else:
        raise ValueError(f"normalize: p must be positive, got {p}")
    return x / maximum(n, Tensor._wrap(xp_of(x).asarray(eps, dtype=x._data.dtype)))


def label_smooth(label, prior_dist=None, epsilon=0.1, name=None):
    """``(1 - epsilon) * label + epsilon * prior`` (uniform ``1 / num_classes`` prior by
    default, over the last axis).

    >>> import weft
    >>> y = weft.nn.functional.label_smooth(weft.to_tensor([[1.0, 0.0]]), epsilon=0.2)
    >>> [round(v, 4) for v in y[0].tolist()]
    [0.9, 0.1]
    """
    label = float_arg(label, "label_smooth", "label")
    eps = real_number(epsilon, "label_smooth", "epsilon")
    if not 0.0 <= eps <= 1.0:
        raise ValueError(f"label_smooth: epsilon must be in [0, 1], got {eps}")
    if label.ndim == 0:
        raise ValueError("label_smooth: label must be at least 1-D")
    if prior_dist is None:
        return label * (1.0 - eps) + eps / label.shape[-1]
    prior = float_arg(prior_dist, "label_smooth", "prior_dist")
    return label * (1.0 - eps) + prior * eps


__all__ = ["linear", "dropout", "embedding", "one_hot", "normalize", "label_smooth", "pad"]
