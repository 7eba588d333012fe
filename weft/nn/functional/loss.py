"""Loss functions: cross_entropy, nll_loss, mse/l1/smooth_l1, binary cross-entropy
(on probabilities and on logits) and kl_div, with Paddle's signatures and reductions.

Class-index losses pick one entry per sample with a primitive whose adjoint (a
one-hot scatter) is again a primitive, so the pair differentiates to any order.
Sample weights and ignore masks are constants. ``mean`` reductions of weighted or
ignoring losses divide by the total weight of the targets that count, as Paddle does.
"""
from __future__ import annotations

import numpy as np

from ...autograd.engine import Primitive, apply, defvjp
from ...core.tensor import Tensor
from ...core.args import normalize_axis, xp_of
from ...ops.cast import cast
from ...ops.math.ufuncs import abs as _abs
from ...ops.math.ufuncs import exp, log, maximum, where
from ...ops.reduction.aggregate import mean as _mean
from ...ops.reduction.aggregate import sum as _sum
from ...ops.primitives import take_along
from ...ops.shape.views import reshape
from ._util import check_reduction, float_arg, int_label, real_number
from .activation import _log_softmax, _softplus

# ---------------------------------------------------------------------------------
# pick x[..., idx, ...] along an axis, and its adjoint


# ---------------------------------------------------------------------------------
# stable binary cross-entropy on probabilities (logs clamped at -100, as Paddle does)

def _bce_fwd(x, y):
    with np.errstate(divide="ignore"):
        lx = np.maximum(np.log(x), -100)
        l1x = np.maximum(np.log1p(-x), -100)
    return -(y * lx + (1 - y) * l1x)


_EPS12 = 1e-12


def _bce_vjp_x(g, ans, x, y):
    # (x - y) / (x (1 - x)), the denominator kept off 0 like PyTorch does
    return g * (x - y) / maximum(x * (1 - x), _const(x, _EPS12))


def _bce_vjp_y(g, ans, x, y):
    return g * (maximum(log(1 - x), _const(x, -100.0)) - maximum(log(x), _const(x, -100.0)))


def _const(like, v):
    return Tensor._wrap(xp_of(like).asarray(v, dtype=like._data.dtype))


_bce = Primitive("binary_cross_entropy", _bce_fwd)
defvjp(_bce, _bce_vjp_x, _bce_vjp_y, save_out=False)


# ---------------------------------------------------------------------------------
# helpers

def _reduce(loss, reduction):
    if reduction == "mean":
        return _mean(loss)
    if reduction == "sum":
        return _sum(loss)
    return loss


def _as_const(arr, like):
    return Tensor._wrap(arr.astype(like._data.dtype, copy=False))


def _check_weight(weight, c, op, like):
    w = float_arg(weight, op, "weight")
    if w.shape != [c]:
        raise ValueError(f"{op}: weight must have shape [{c}] (one entry per class), got "
                         f"{w.shape}")
    return w._data.astype(like._data.dtype, copy=False)


def _hard_label(label, input_shape, axis, op):
    """Class indices with the class axis removed; returns (indices, shape for 'none')."""
    label = int_label(label, op)
    want = input_shape[:axis] + input_shape[axis + 1:]
    ls = label.shape
    if ls == want:
        return label, ls
    if ls == input_shape[:axis] + [1] + input_shape[axis + 1:]:
        return Tensor._wrap(label._data.squeeze(axis)), ls
    raise ValueError(f"{op}: label must have shape {want} (or with a 1 at the class axis), "
                     f"got {ls} for input of shape {input_shape}")


def _targets(label, c, ignore_index, op):
    """(safe indices, valid mask or None): ``ignore_index`` entries are masked out and
    every other entry must be a class index."""
    d = label._data
    xp = xp_of(label)
    valid = d != ignore_index
    all_valid = bool(valid.all())
    if d.size:
        vals = d if all_valid else d[valid]
        if vals.size:
            lo, hi = int(vals.min()), int(vals.max())
            if lo < 0 or hi >= c:
                bad = lo if lo < 0 else hi
                raise IndexError(f"{op}: label contains {bad}, out of range for {c} classes "
                                 f"(expected in [0, {c - 1}] or ignore_index={ignore_index})")
    if all_valid:
        return label, None
    safe = xp.where(valid, d, 0)
    return Tensor._wrap(safe), valid


def _pick(x, idx, axis):
    """Differentiable ``x[..., idx, ...]``: one entry along ``axis`` per label."""
    picked = take_along(x, Tensor._wrap(xp_of(x).expand_dims(idx._data, axis)), axis)
    return reshape(picked, [s for i, s in enumerate(x.shape) if i != axis])


def _nll_from_logp(logp, label, axis, weight, ignore_index, reduction, op, out_shape):
    c = logp.shape[axis]
    idx, valid = _targets(label, c, ignore_index, op)
    nll = -_pick(logp, idx, axis)
    w = None
    if weight is not None:
        w = _check_weight(weight, c, op, logp)[idx._data]
        if valid is not None:
            w = w * valid
    elif valid is not None:
        w = valid.astype(logp._data.dtype)
    if w is not None:
        nll = nll * _as_const(w, logp)
    if reduction == "none":
        return reshape(nll, out_shape) if nll.shape != list(out_shape) else nll
    if reduction == "sum":
        return _sum(nll)
    if w is None:
        return _mean(nll)
    den = float(w.sum())
    return _sum(nll) / (den if den != 0 else 1.0)


# ---------------------------------------------------------------------------------
# public losses

def cross_entropy(input, label, weight=None, ignore_index=-100, reduction="mean",
                  soft_label=False, axis=-1, use_softmax=True, label_smoothing=0.0,
                  name=None):
    """Cross-entropy between the softmax of ``input`` (logits along ``axis``) and ``label``.

    Hard labels (``soft_label=False``): integer class indices with the class axis removed
    (``[N]``) or kept with size 1 (``[N, 1]``); entries equal to ``ignore_index`` give 0
    loss and do not count. Soft labels: a distribution of ``input``'s shape. ``weight``
    ``[C]`` weighs each target by its class (soft labels: by ``sum_c label_c w_c``).
    ``label_smoothing`` mixes the (one-hot) labels with the uniform distribution.
    ``use_softmax=False`` takes ``input`` as probabilities. Reductions: ``'none'``
    (label-shaped; soft labels keep the class axis with size 1), ``'sum'``, and
    ``'mean'`` = weighted sum / total weight of the targets that count.
    Computed through ``log_softmax`` in one stable op.

    **Paddle:** with a negative ``ignore_index``, no ``weight`` and ``'mean'``, Paddle
    divides by all N samples, ignored ones included; weft divides by the targets that
    count in every case. Paddle rejects ignored labels with ``label_smoothing``; weft
    masks them out.

    >>> import weft
    >>> x = weft.to_tensor([[2.0, 0.0], [0.0, 2.0]])
    >>> round(weft.nn.functional.cross_entropy(x, weft.to_tensor([0, 1])).item(), 4)
    0.1269
    """
    op = "cross_entropy"
    input = float_arg(input, op, "input")
    check_reduction(reduction, op)
    if input.ndim == 0:
        raise ValueError(f"{op}: input must be at least 1-D, got a 0-D tensor")
    ax = normalize_axis(axis, input.ndim, op)
    eps = real_number(label_smoothing, op, "label_smoothing")
    if not 0.0 <= eps <= 1.0:
        raise ValueError(f"{op}: label_smoothing must be in [0, 1], got {eps}")
    c = input.shape[ax]
    if use_softmax:
        logp = apply(_log_softmax, input, axis=ax)
    else:
        logp = log(input)
    shape = input.shape
    if not soft_label and eps == 0.0:
        idx, out_shape = _hard_label(label, shape, ax, op)
        return _nll_from_logp(logp, idx, ax, weight, ignore_index, reduction, op, out_shape)

    valid = None
    if soft_label:
        lab = float_arg(label, op, "label")
        if lab.shape != shape:
            raise ValueError(f"{op}: soft labels must have the input's shape {shape}, got "
                             f"{lab.shape}")
        if lab._data.dtype != input._data.dtype:
            lab = cast(lab, input._data.dtype)
    else:
        idx, _ = _hard_label(label, shape, ax, op)
        idx, valid = _targets(idx, c, ignore_index, op)
        xp = xp_of(input)
        oshape = [1] * input.ndim
        oshape[ax] = c
        hit = xp.expand_dims(idx._data, ax) == xp.arange(c).reshape(oshape)
        lab = _as_const(hit, input)
    if eps > 0.0:
        lab = lab * (1.0 - eps) + eps / c
    loss = -_sum(lab * logp, ax, keepdim=True)
    sw = None
    if weight is not None:
        w = float_arg(weight, op, "weight")
        if w.shape != [c]:
            raise ValueError(f"{op}: weight must have shape [{c}], got {w.shape}")
        wshape = [1] * input.ndim
        wshape[ax] = c
        sw = _sum(lab * reshape(cast(w, input._data.dtype), wshape), ax, keepdim=True)
    if valid is not None:
        vm = _as_const(xp_of(input).expand_dims(valid, ax), input)
        sw = vm if sw is None else sw * vm
    if sw is not None:
        loss = loss * sw
    if reduction == "none":
        return loss
    total = _sum(loss)
    if reduction == "sum":
        return total
    if sw is None:
        return _mean(loss)
    den = _sum(sw)
    return total / where(den == 0, den * 0 + 1, den)


def softmax_with_cross_entropy(logits, label, soft_label=False, ignore_index=-100,
                               numeric_stable_mode=True, return_softmax=False, axis=-1):
    """Per-sample cross-entropy with the class axis kept (size 1); optionally also the
    softmax (Paddle's legacy API)."""
    from .activation import softmax  # noqa: PLC0415

    logits = float_arg(logits, "softmax_with_cross_entropy", "logits")
    ax = normalize_axis(axis, logits.ndim, "softmax_with_cross_entropy")
    if soft_label:
        loss = cross_entropy(logits, label, ignore_index=ignore_index, reduction="none",
                             soft_label=True, axis=ax)
    else:
        label = int_label(label, "softmax_with_cross_entropy")
        if label.ndim == logits.ndim - 1:
            label = Tensor._wrap(xp_of(label).expand_dims(label._data, ax))
        loss = cross_entropy(logits, label, ignore_index=ignore_index, reduction="none",
                             axis=ax)
    return (loss, softmax(logits, ax)) if return_softmax else loss


def nll_loss(input, label, weight=None, ignore_index=-100, reduction="mean", name=None):
    """Negative log-likelihood of log-probabilities ``input`` ``[N, C, d1, ...]`` (class
    axis 1) at class indices ``label`` ``[N, d1, ...]``; ``weight``/``ignore_index`` and
    the ``mean`` rule as in :func:`cross_entropy`.

    >>> import weft
    >>> lp = weft.to_tensor([[-0.5, -1.0], [-2.0, -0.1]])
    >>> weft.nn.functional.nll_loss(lp, weft.to_tensor([0, 1])).item()
    0.30000001192092896
    """
    op = "nll_loss"
    input = float_arg(input, op, "input")
    check_reduction(reduction, op)
    if input.ndim < 2:
        raise ValueError(f"{op}: input must be at least 2-D [N, C, ...], got shape "
                         f"{input.shape}")
    label = int_label(label, op)
    want = [input.shape[0]] + input.shape[2:]
    if label.shape != want:
        raise ValueError(f"{op}: label must have shape {want}, got {label.shape}")
    return _nll_from_logp(input, label, 1, weight, ignore_index, reduction, op, want)


def _pair(input, label, op):
    input = float_arg(input, op, "input")
    label = float_arg(label, op, "label")
    if label._data.dtype != input._data.dtype:
        label = cast(label, input._data.dtype)
    try:
        np.broadcast_shapes(tuple(input.shape), tuple(label.shape))
    except ValueError:
        raise ValueError(f"{op}: input of shape {input.shape} and label of shape "
                         f"{label.shape} do not broadcast") from None
    return input, label


def mse_loss(input, label, reduction="mean", name=None):
    """``(input - label)**2``, reduced.

    >>> import weft
    >>> weft.nn.functional.mse_loss(weft.to_tensor([1.0, 3.0]), weft.to_tensor([0.0, 0.0])).item()
    5.0
    """
    check_reduction(reduction, "mse_loss")
    input, label = _pair(input, label, "mse_loss")
    d = input - label
    return _reduce(d * d, reduction)


def l1_loss(input, label, reduction="mean", name=None):
    """``|input - label|``, reduced.

    >>> import weft
    >>> weft.nn.functional.l1_loss(weft.to_tensor([1.0, -3.0]), weft.to_tensor([0.0, 0.0])).item()
    2.0
    """
    check_reduction(reduction, "l1_loss")
    input, label = _pair(input, label, "l1_loss")
    return _reduce(_abs(input - label), reduction)


def smooth_l1_loss(input, label, reduction="mean", delta=1.0, is_huber=True, name=None):
    """With ``d = |input - label|``: the Huber loss ``0.5 d**2`` for ``d < delta`` else
    ``delta (d - 0.5 delta)`` (``is_huber=True``, Paddle's default), or the smooth L1 loss
    ``0.5 d**2 / delta`` else ``d - 0.5 delta`` (``is_huber=False``).

    >>> import weft
    >>> weft.nn.functional.smooth_l1_loss(weft.to_tensor([0.5, 3.0]), weft.zeros([2]),
    ...                                   reduction='none').tolist()
    [0.125, 2.5]
    """
    check_reduction(reduction, "smooth_l1_loss")
    input, label = _pair(input, label, "smooth_l1_loss")
    delta = real_number(delta, "smooth_l1_loss", "delta")
    if delta <= 0:
        raise ValueError(f"smooth_l1_loss: delta must be positive, got {delta}")
    diff = input - label
    ad = _abs(diff)
    small = ad < delta
    if is_huber:
        loss = where(small, 0.5 * diff * diff, delta * (ad - 0.5 * delta))
    else:
        loss = where(small, (0.5 / delta) * diff * diff, ad - 0.5 * delta)
    return _reduce(loss, reduction)


def _weighted(loss, weight, op):
    if weight is None:
        return loss
    w = float_arg(weight, op, "weight")
    try:
        np.broadcast_shapes(tuple(loss.shape), tuple(w.shape))
    except ValueError:
        raise ValueError(f"{op}: weight of shape {w.shape} does not broadcast to the loss "
                         f"shape {loss.shape}") from None
    if w._data.dtype != loss._data.dtype:
        w = cast(w, loss._data.dtype)
    return loss * w


def binary_cross_entropy(input, label, weight=None, reduction="mean", name=None):
    """``-(label log(input) + (1 - label) log(1 - input))`` for probabilities ``input`` in
    [0, 1], each log clamped at -100 (so 0 and 1 are allowed), times ``weight``.

    >>> import weft
    >>> p = weft.to_tensor([0.5, 0.5])
    >>> round(weft.nn.functional.binary_cross_entropy(p, weft.to_tensor([1.0, 0.0])).item(), 4)
    0.6931
    """
    op = "binary_cross_entropy"
    check_reduction(reduction, op)
    input, label = _pair(input, label, op)
    d = input._data
    if d.size and bool(((d < 0) | (d > 1)).any()):
        raise ValueError(f"{op}: input must hold probabilities in [0, 1], got values in "
                         f"[{float(d.min())}, {float(d.max())}]")
    if input.shape != label.shape:
        raise ValueError(f"{op}: input and label must have the same shape, got {input.shape} "
                         f"and {label.shape}")
    return _reduce(_weighted(apply(_bce, input, label), weight, op), reduction)


def binary_cross_entropy_with_logits(logit, label, weight=None, reduction="mean",
                                     pos_weight=None, name=None):
    """Binary cross-entropy of ``sigmoid(logit)``, computed stably as
    ``(1 - y) x + (1 + (pos_weight - 1) y) softplus(-x)``; ``pos_weight`` ``[C]`` weighs
    the positive term per class, ``weight`` every term.

    >>> import weft
    >>> f = weft.nn.functional.binary_cross_entropy_with_logits
    >>> round(f(weft.to_tensor([0.0]), weft.to_tensor([1.0])).item(), 4)
    0.6931
    """
    op = "binary_cross_entropy_with_logits"
    check_reduction(reduction, op)
    logit, label = _pair(logit, label, op)
    if logit.shape != label.shape:
        raise ValueError(f"{op}: logit and label must have the same shape, got {logit.shape} "
                         f"and {label.shape}")
    sp = apply(_softplus, -logit, beta=1.0, threshold=float("inf"))
    if pos_weight is None:
        loss = (1 - label) * logit + sp
    else:
        pw = float_arg(pos_weight, op, "pos_weight")
        if pw._data.dtype != logit._data.dtype:
            pw = cast(pw, logit._data.dtype)
        loss = (1 - label) * logit + (1 + (pw - 1) * label) * sp
    return _reduce(_weighted(loss, weight, op), reduction)


def kl_div(input, label, reduction="mean", log_target=False, name=None):
    """Kullback-Leibler divergence ``label * (log(label) - input)`` of log-probabilities
    ``input`` from ``label`` (0 where ``label <= 0``); with ``log_target`` the label is a
    log-probability: ``exp(label) * (label - input)``. Reductions: ``'none'``, ``'sum'``,
    ``'mean'`` (over all elements) and ``'batchmean'`` (sum divided by ``shape[0]``).

    >>> import weft, math
    >>> lp = weft.to_tensor([math.log(0.5), math.log(0.5)])
    >>> round(weft.nn.functional.kl_div(lp, weft.to_tensor([0.25, 0.75]), 'sum').item(), 4)
    0.1308
    """
    op = "kl_div"
    check_reduction(reduction, op, ("mean", "batchmean", "sum", "none"))
    input, label = _pair(input, label, op)
    if log_target:
        loss = exp(label) * (label - input)
    else:
        pos = label > 0
        safe = where(pos, label, label * 0 + 1)
        loss = where(pos, label * (log(safe) - input), input * 0)
    if reduction == "batchmean":
        n = loss.shape[0] if loss.ndim else 1
        return _sum(loss) / max(n, 1)
    return _reduce(loss, reduction)


def square_error_cost(input, label):
    """``(input - label)**2`` elementwise (Paddle's unreduced MSE)."""
    input, label = _pair(input, label, "square_error_cost")
    d = input - label
    return d * d


__all__ = ["cross_entropy", "softmax_with_cross_entropy", "nll_loss", "mse_loss", "l1_loss",
           "smooth_l1_loss", "binary_cross_entropy", "binary_cross_entropy_with_logits",
           "kl_div", "square_error_cost"]
