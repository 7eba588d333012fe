"""OpInfo entries for weft.nn.functional (activations, losses, normalisation, linear,
embedding, dropout, one_hot), with numpy/scipy references written from the formulas
(Paddle's semantics where they differ from PyTorch's)."""
import math

import numpy as np
import scipy.special as sps

import weft
from tests.opinfo import INTS, ErrorInput, OpInfo, SampleInput, make_arg, unary_samples

F = weft.nn.functional


# ---------------------------------------------------------------------------------
# references

def _log_softmax(x, axis=-1):
    if x.size == 0:
        return x.copy()
    if x.ndim == 0:
        return np.zeros_like(x)
    return x - sps.logsumexp(x, axis=axis, keepdims=True)


def _softmax(x, axis=-1):
    return np.exp(_log_softmax(x, axis))


def _reduce(loss, reduction):
    if reduction == "mean":
        return np.asarray(loss.mean(), dtype=loss.dtype)
    if reduction == "sum":
        return np.asarray(loss.sum(), dtype=loss.dtype)
    return loss


def _ref_gelu(x, approximate=False):
    if approximate:
        k = math.sqrt(2 / math.pi)
        return 0.5 * x * (1 + np.tanh(k * (x + 0.044715 * x ** 3)))
    return (0.5 * x * (1 + sps.erf(x / math.sqrt(2)))).astype(x.dtype)


def _ref_softplus(x, beta=1, threshold=20):
    return np.where(x * beta > threshold, x, np.logaddexp(0, x * beta) / beta).astype(x.dtype)


def _ref_elu(x, alpha=1.0):
    return np.where(x > 0, x, alpha * np.expm1(np.minimum(x, 0))).astype(x.dtype)


def _ref_selu(x, scale=1.0507009873554804934193349852946,
              alpha=1.6732632423543772848170429916717):
    return (scale * np.where(x > 0, x, alpha * np.expm1(np.minimum(x, 0)))).astype(x.dtype)


def _ref_celu(x, alpha=1.0):
    return (np.maximum(x, 0) + np.minimum(0, alpha * np.expm1(np.minimum(x, 0) / alpha))
            ).astype(x.dtype)


def _ref_linear(x, w, b=None):
    y = x @ w
    return y + b if b is not None else y


def _ref_embedding(ids, w, padding_idx=None):
    out = w[ids]
    if padding_idx is not None:
        out = np.where((ids == padding_idx % w.shape[0])[..., None], 0, out).astype(w.dtype)
    return out


def _ref_layer_norm(x, normalized_shape, weight=None, bias=None, epsilon=1e-5):
    k = 1 if isinstance(normalized_shape, int) else len(normalized_shape)
    axes = tuple(range(x.ndim - k, x.ndim))
    mu = x.mean(axes, keepdims=True)
    var = x.var(axes, keepdims=True)
    y = (x - mu) / np.sqrt(var + epsilon)
    shape = x.shape[x.ndim - k:]
    if weight is not None:
        y = y * weight.reshape(shape)
    if bias is not None:
        y = y + bias.reshape(shape)
    return y.astype(x.dtype)


def _ref_batch_norm(x, rm, rv, weight=None, bias=None, training=False, momentum=0.9,
                    epsilon=1e-5, data_format="NCHW", use_global_stats=None):
    ax = 1 if data_format in ("NC", "NCL", "NCHW") else x.ndim - 1
    shape = [1] * x.ndim
    shape[ax] = x.shape[ax]
    glob = (not training) if use_global_stats is None else use_global_stats
    if glob:
        mu, var = rm.reshape(shape), rv.reshape(shape)
    else:
        axes = tuple(i for i in range(x.ndim) if i != ax)
        mu, var = x.mean(axes, keepdims=True), x.var(axes, keepdims=True)
    y = (x - mu) / np.sqrt(var + epsilon)
    if weight is not None:
        y = y * weight.reshape(shape)
    if bias is not None:
        y = y + bias.reshape(shape)
    return y.astype(x.dtype)


def _ref_normalize(x, p=2, axis=1, epsilon=1e-12):
    ax = 0 if x.ndim == 1 else axis
    n = np.sum(np.abs(x) ** p, axis=ax, keepdims=True) ** (1.0 / p)
    return (x / np.maximum(n, epsilon)).astype(x.dtype)


def _ref_cross_entropy(x, label, weight=None, ignore_index=-100, reduction="mean",
                       soft_label=False, axis=-1, use_softmax=True, label_smoothing=0.0):
    ax = axis % x.ndim
    c = x.shape[ax]
    logp = _log_softmax(x, ax) if use_softmax else np.log(x)
    lp = np.moveaxis(logp, ax, -1)
    if soft_label:
        lab = np.moveaxis(label, ax, -1)
        valid = np.ones(lab.shape[:-1], bool)
    else:
        lab_i = label
        if lab_i.ndim == x.ndim:
            lab_i = np.squeeze(lab_i, ax)
        valid = lab_i != ignore_index
        lab = np.eye(c)[np.where(valid, lab_i, 0)]
    hard = not soft_label and label_smoothing == 0
    if label_smoothing:
        lab = lab * (1 - label_smoothing) + label_smoothing / c
    loss = -(lab * lp).sum(-1)
    if weight is not None:
        w = (lab * weight).sum(-1) if not hard else weight[np.where(valid, lab_i, 0)]
    else:
        w = np.ones_like(loss)
    w = w * valid
    loss = loss * w
    if reduction == "none":
        if hard:
            return loss.reshape(label.shape).astype(x.dtype)
        return np.expand_dims(loss, ax).astype(x.dtype)
    if reduction == "sum":
        return np.asarray(loss.sum(), dtype=x.dtype)
    den = w.sum()
    return np.asarray(loss.sum() / (den if den != 0 else 1), dtype=x.dtype)


def _ref_nll(x, label, weight=None, ignore_index=-100, reduction="mean"):
    lp = np.moveaxis(x, 1, -1)
    valid = label != ignore_index
    safe = np.where(valid, label, 0)
    picked = np.take_along_axis(lp, safe[..., None], -1)[..., 0]
    w = (weight[safe] if weight is not None else np.ones_like(picked)) * valid
    loss = -picked * w
    if reduction == "none":
        return loss.astype(x.dtype)
    if reduction == "sum":
        return np.asarray(loss.sum(), dtype=x.dtype)
    den = w.sum()
    return np.asarray(loss.sum() / (den if den != 0 else 1), dtype=x.dtype)


def _ref_smooth_l1(x, y, reduction="mean", delta=1.0, is_huber=True):
    d = np.abs(x - y)
    if is_huber:
        loss = np.where(d < delta, 0.5 * d * d, delta * (d - 0.5 * delta))
    else:
        loss = np.where(d < delta, 0.5 * d * d / delta, d - 0.5 * delta)
    return _reduce(loss.astype(x.dtype), reduction)


def _ref_bce(p, y, weight=None, reduction="mean"):
    loss = -(y * np.maximum(np.log(p), -100) + (1 - y) * np.maximum(np.log1p(-p), -100))
    if weight is not None:
        loss = loss * weight
    return _reduce(loss.astype(p.dtype), reduction)


def _ref_bce_logits(x, y, weight=None, reduction="mean", pos_weight=None):
    pw = 1.0 if pos_weight is None else pos_weight
    loss = -(pw * y * -np.logaddexp(0, -x) + (1 - y) * -np.logaddexp(0, x))
    if weight is not None:
        loss = loss * weight
    return _reduce(loss.astype(x.dtype), reduction)


def _ref_kl(x, y, reduction="mean", log_target=False):
    if log_target:
        loss = np.exp(y) * (y - x)
    else:
        loss = np.where(y > 0, y * (np.log(np.where(y > 0, y, 1)) - x), 0)
    loss = loss.astype(x.dtype)
    if reduction == "batchmean":
        return np.asarray(loss.sum() / x.shape[0], dtype=x.dtype)
    return _reduce(loss, reduction)


# ---------------------------------------------------------------------------------
# samples

def _act(name, fn, ref, low=-3.0, high=3.0, kwargs=None, **kw):
    kwargs = kwargs or {}

    def gen(dtype, rng):
        for s in unary_samples(low, high)(dtype, rng):
            yield SampleInput(s.input, name=s.name, **kwargs)
    return OpInfo(f"nn.functional.{name}", fn, lambda x, **k: ref(x, **k), gen, **kw)


def _softmax_samples(dtype, rng):
    yield SampleInput(make_arg((3, 4), dtype, rng), name="last axis")
    yield SampleInput(make_arg((3, 4, 2), dtype, rng), axis=1, name="axis=1")
    yield SampleInput(make_arg((5,), dtype, rng, -30, 30), axis=0, name="large values")
    yield SampleInput(make_arg((), dtype, rng), axis=0, name="0-D")
    yield SampleInput(make_arg((0, 3), dtype, rng), name="empty")
    yield SampleInput(make_arg((2, 3), dtype, rng, noncontig=True), name="noncontig")


def _linear_samples(dtype, rng):
    yield SampleInput(make_arg((4, 3), dtype, rng), make_arg((3, 5), dtype, rng),
                      make_arg((5,), dtype, rng), name="2-D")
    yield SampleInput(make_arg((2, 3, 3), dtype, rng), make_arg((3, 2), dtype, rng),
                      make_arg((2,), dtype, rng), name="3-D input")
    yield SampleInput(make_arg((3,), dtype, rng), make_arg((3, 4), dtype, rng), name="1-D, no bias")
    yield SampleInput(make_arg((0, 3), dtype, rng), make_arg((3, 2), dtype, rng),
                      make_arg((2,), dtype, rng), name="empty batch")
    yield SampleInput(make_arg((2, 3), dtype, rng, noncontig=True), make_arg((3, 2), dtype, rng),
                      None, name="noncontig")


def _linear_errors(rng):
    x = make_arg((2, 3), "float32", rng)
    yield ErrorInput(SampleInput(x, make_arg((4, 2), "float32", rng)), ValueError,
                     "last dimension")
    yield ErrorInput(SampleInput(x, make_arg((3,), "float32", rng)), ValueError, "2-D")
    yield ErrorInput(SampleInput(x, make_arg((3, 2), "float32", rng),
                                 make_arg((3,), "float32", rng)), ValueError, "bias")


def _embedding_samples(dtype, rng):
    w = make_arg((6, 3), dtype, rng)
    yield SampleInput(np.array([[0, 2, 5], [2, 2, 1]]), w, name="2-D ids")
    yield SampleInput(np.array([1, 3, 3, 0]), make_arg((6, 3), dtype, rng), padding_idx=3,
                      name="padding_idx")
    yield SampleInput(np.array([4, 5]), make_arg((6, 2), dtype, rng), padding_idx=-1,
                      name="negative padding_idx")
    yield SampleInput(np.array(2), make_arg((6, 2), dtype, rng), name="0-D ids")
    yield SampleInput(np.zeros((0,), np.int64), make_arg((6, 2), dtype, rng), name="empty")


def _embedding_errors(rng):
    w = make_arg((4, 2), "float32", rng)
    yield ErrorInput(SampleInput(np.array([0, 4]), w), IndexError, "out of range")
    yield ErrorInput(SampleInput(np.array([0.5]), w), TypeError, "integer")
    yield ErrorInput(SampleInput(np.array([0]), w, padding_idx=7), ValueError, "padding_idx")


def _one_hot_samples(dtype, rng):
    yield SampleInput(np.array([0, 3, 1], dtype=dtype), 4)
    yield SampleInput(np.array([[1], [2]], dtype=dtype), 3, name="2-D")
    yield SampleInput(np.array([0, 2], dtype=dtype), -1, name="inferred classes")
    yield SampleInput(np.zeros((0,), dtype=dtype), 3, name="empty")


def _one_hot_ref(x, num_classes):
    c = int(x.max()) + 1 if num_classes == -1 else num_classes
    return np.eye(c, dtype=np.float32)[x.astype(np.int64)]


def _one_hot_errors(rng):
    yield ErrorInput(SampleInput(np.array([0, 3]), 3), IndexError, "out of range")
    yield ErrorInput(SampleInput(np.array([0.0]), 3), TypeError, "integer")


def _normalize_samples(dtype, rng):
    yield SampleInput(make_arg((3, 4), dtype, rng), name="p=2 axis=1")
    yield SampleInput(make_arg((3, 4), dtype, rng, exclude_zero=True), p=1, axis=0, name="p=1")
    yield SampleInput(make_arg((2, 3, 2), dtype, rng, exclude_zero=True), p=3, axis=-1, name="p=3")
    yield SampleInput(make_arg((5,), dtype, rng), name="1-D")


def _layer_norm_samples(dtype, rng):
    yield SampleInput(make_arg((3, 4), dtype, rng), 4, name="last axis")
    yield SampleInput(make_arg((2, 3, 4), dtype, rng), [3, 4], make_arg((3, 4), dtype, rng),
                      make_arg((3, 4), dtype, rng), name="two axes, affine")
    yield SampleInput(make_arg((2, 3), dtype, rng), [3], make_arg((3,), dtype, rng), None,
                      epsilon=1e-3, name="weight only")
    yield SampleInput(make_arg((2, 2, 3), dtype, rng), [2, 3], make_arg((6,), dtype, rng),
                      make_arg((6,), dtype, rng), name="flattened affine")


def _layer_norm_errors(rng):
    x = make_arg((2, 3), "float32", rng)
    yield ErrorInput(SampleInput(x, 4), ValueError, "trailing")
    yield ErrorInput(SampleInput(x, 3, make_arg((4,), "float32", rng)), ValueError, "weight")


def _batch_norm_samples(dtype, rng):
    def stats(c):
        return make_arg((c,), dtype, rng), make_arg((c,), dtype, rng, 0.5, 2.0)
    g = (0, 3, 4)
    rm, rv = stats(3)
    yield SampleInput(make_arg((4, 3), dtype, rng), rm, rv, make_arg((3,), dtype, rng),
                      make_arg((3,), dtype, rng), training=True, grad_args=g, name="train NC")
    rm, rv = stats(2)
    yield SampleInput(make_arg((3, 2, 4), dtype, rng), rm, rv, make_arg((2,), dtype, rng),
                      make_arg((2,), dtype, rng), training=True, data_format="NCL",
                      grad_args=g, name="train NCL")
    rm, rv = stats(4)
    yield SampleInput(make_arg((3, 2, 4), dtype, rng), rm, rv, make_arg((4,), dtype, rng),
                      make_arg((4,), dtype, rng), training=True, data_format="NLC",
                      grad_args=g, name="train NLC")
    rm, rv = stats(3)
    yield SampleInput(make_arg((4, 3), dtype, rng), rm, rv, make_arg((3,), dtype, rng),
                      make_arg((3,), dtype, rng), training=False, grad_args=g, name="eval")
    rm, rv = stats(3)
    yield SampleInput(make_arg((4, 3, 2, 2), dtype, rng), rm, rv, None, None, training=True,
                      use_global_stats=True, grad_args=(0,), name="use_global_stats NCHW")


def _batch_norm_errors(rng):
    x = make_arg((4, 3), "float32", rng)
    s = make_arg((2,), "float32", rng)
    yield ErrorInput(SampleInput(x, s, s), ValueError, "one per channel")
    yield ErrorInput(SampleInput(x, make_arg((3,), "float32", rng), make_arg((3,), "float32", rng),
                                 data_format="NCX"), ValueError, "data_format")


def _dropout_samples(dtype, rng):
    yield SampleInput(make_arg((3, 4), dtype, rng), p=0.0, name="p=0")
    yield SampleInput(make_arg((3, 4), dtype, rng), p=0.7, training=False, name="eval upscale")
    yield SampleInput(make_arg((3, 4), dtype, rng), p=0.3, training=False,
                      mode="downscale_in_infer", name="eval downscale")
    yield SampleInput(make_arg((), dtype, rng), p=0.0, name="0-D")


def _dropout_ref(x, p=0.5, axis=None, training=True, mode="upscale_in_train"):
    if not training and mode == "downscale_in_infer":
        return (x * (1 - p)).astype(x.dtype)
    return x


def _dropout_errors(rng):
    x = make_arg((3,), "float32", rng)
    yield ErrorInput(SampleInput(x, p=1.5), ValueError, "p must be in")
    yield ErrorInput(SampleInput(x, p=0.5, mode="bad"), ValueError, "mode")
    yield ErrorInput(SampleInput(x, p="a"), TypeError, "p must be")


def _ce_samples(dtype, rng):
    x = make_arg((5, 4), dtype, rng)
    lab = np.array([0, 3, 1, 2, 2])
    yield SampleInput(x, lab, name="hard mean")
    yield SampleInput(x, lab.reshape(5, 1), reduction="none", name="[N,1] labels none")
    yield SampleInput(x, np.array([0, -100, 1, 2, -100]), reduction="mean", name="ignore default")
    yield SampleInput(x, np.array([0, 3, 1, 2, 1]), make_arg((4,), dtype, rng, 0.5, 2.0),
                      ignore_index=1, grad_args=(0,), name="weight + ignore_index")
    yield SampleInput(x, lab, make_arg((4,), dtype, rng, 0.5, 2.0), reduction="sum",
                      grad_args=(0,), name="weight sum")
    soft = rng.dirichlet(np.ones(4), size=5).astype(dtype)
    yield SampleInput(x, soft, soft_label=True, reduction="none", name="soft none")
    yield SampleInput(x, soft, make_arg((4,), dtype, rng, 0.5, 2.0), soft_label=True,
                      grad_args=(0, 1), name="soft weight mean")
    yield SampleInput(x, lab, label_smoothing=0.2, name="label smoothing")
    yield SampleInput(x, np.array([0, -100, 1, 2, 3]), make_arg((4,), dtype, rng, 0.5, 2.0),
                      label_smoothing=0.1, grad_args=(0,), name="smoothing + weight + ignore")
    yield SampleInput(make_arg((2, 3, 4), dtype, rng), np.array([[0, 1, 2, 0], [2, 2, 1, 0]]),
                      axis=1, reduction="none", name="axis=1 3-D")
    yield SampleInput(make_arg((4, 3), dtype, rng, 0.1, 1.0), np.array([0, 2, 1, 1]),
                      use_softmax=False, name="probabilities")
    yield SampleInput(make_arg((0, 3), dtype, rng), np.zeros((0,), np.int64), reduction="sum",
                      name="empty")


def _ce_errors(rng):
    x = make_arg((3, 4), "float32", rng)
    yield ErrorInput(SampleInput(x, np.array([0, 4, 1])), IndexError, "out of range")
    yield ErrorInput(SampleInput(x, np.array([0, 1])), ValueError, "label must have shape")
    yield ErrorInput(SampleInput(x, np.array([0, 1, 2]), reduction="avg"), ValueError,
                     "reduction")
    yield ErrorInput(SampleInput(x, np.array([0.0, 1.0, 2.0])), TypeError, "integer")
    yield ErrorInput(SampleInput(x, np.array([0, 1, 2]), make_arg((3,), "float32", rng)),
                     ValueError, "weight")
    yield ErrorInput(SampleInput(x, np.array([0, 1, 2]), label_smoothing=2.0), ValueError,
                     "label_smoothing")


def _nll_samples(dtype, rng):
    lp = _log_softmax(make_arg((5, 4), dtype, rng))
    yield SampleInput(lp, np.array([0, 3, 1, 2, 2]), name="mean")
    yield SampleInput(lp, np.array([0, 3, 1, 2, 2]), make_arg((4,), dtype, rng, 0.5, 2.0),
                      ignore_index=2, grad_args=(0,), name="weight + ignore")
    yield SampleInput(_log_softmax(make_arg((2, 3, 4), dtype, rng), 1),
                      np.array([[0, 1, 2, 0], [2, 2, 1, 0]]), reduction="none", name="[N,C,d]")
    yield SampleInput(lp, np.array([0, 3, 1, 2, 2]), reduction="sum", name="sum")


def _pair_samples(low=-3.0, high=3.0, kwargs_list=({"reduction": "mean"},)):
    def gen(dtype, rng):
        for kw in kwargs_list:
            yield SampleInput(make_arg((3, 4), dtype, rng, low, high),
                              make_arg((3, 4), dtype, rng, low, high), name=str(kw), **kw)
        yield SampleInput(make_arg((4,), dtype, rng, low, high),
                          make_arg((4,), dtype, rng, low, high), reduction="none", name="none")
        yield SampleInput(make_arg((), dtype, rng, low, high), make_arg((), dtype, rng, low, high),
                          reduction="sum", name="0-D")
    return gen


def _bce_samples(dtype, rng):
    p = make_arg((3, 4), dtype, rng, 0.05, 0.95)
    y = make_arg((3, 4), dtype, rng, 0.0, 1.0)
    yield SampleInput(p, y, name="mean")
    yield SampleInput(p, y, make_arg((3, 4), dtype, rng, 0.5, 2.0), reduction="sum",
                      name="weight sum")
    yield SampleInput(make_arg((5,), dtype, rng, 0.05, 0.95), make_arg((5,), dtype, rng, 0, 1),
                      reduction="none", name="none")


def _bce_logits_samples(dtype, rng):
    x = make_arg((3, 4), dtype, rng, -5, 5)
    y = make_arg((3, 4), dtype, rng, 0.0, 1.0)
    yield SampleInput(x, y, name="mean")
    yield SampleInput(x, y, make_arg((3, 4), dtype, rng, 0.5, 2.0), reduction="sum",
                      pos_weight=make_arg((4,), dtype, rng, 0.5, 3.0), name="weights")
    yield SampleInput(make_arg((5,), dtype, rng, -40, 40), make_arg((5,), dtype, rng, 0, 1),
                      reduction="none", name="large logits")


def _kl_samples(dtype, rng):
    x = _log_softmax(make_arg((3, 4), dtype, rng))
    y = rng.dirichlet(np.ones(4), size=3).astype(dtype)
    yield SampleInput(x, y, name="mean")
    yield SampleInput(x, y, reduction="batchmean", name="batchmean")
    yield SampleInput(x, np.log(y), reduction="sum", log_target=True, name="log_target")
    y0 = y.copy()
    y0[0, 1] = 0
    yield SampleInput(x, y0, reduction="none", grad_args=(0,), name="zero label")


def _label_smooth_samples(dtype, rng):
    yield SampleInput(make_arg((3, 4), dtype, rng, 0, 1), epsilon=0.1)
    yield SampleInput(make_arg((2, 3), dtype, rng, 0, 1), make_arg((3,), dtype, rng, 0, 1),
                      epsilon=0.3, name="prior")


def _label_smooth_ref(label, prior_dist=None, epsilon=0.1):
    prior = 1.0 / label.shape[-1] if prior_dist is None else prior_dist
    return ((1 - epsilon) * label + epsilon * prior).astype(label.dtype)


_SOFTPLUS = {"beta": 2.0, "threshold": 4.0}

OPS = [
    _act("relu", F.relu, lambda x: np.maximum(x, 0)),
    _act("relu6", F.relu6, lambda x: np.clip(x, 0, 6), low=-3.0, high=9.0),
    _act("leaky_relu", F.leaky_relu, lambda x, negative_slope=0.01:
         np.where(x > 0, x, negative_slope * x).astype(x.dtype), kwargs={"negative_slope": 0.2}),
    _act("elu", F.elu, _ref_elu, kwargs={"alpha": 1.5}),
    _act("selu", F.selu, _ref_selu),
    _act("celu", F.celu, _ref_celu, kwargs={"alpha": 2.0}),
    _act("gelu", F.gelu, _ref_gelu),
    _act("gelu_tanh", lambda x, **k: F.gelu(x, approximate=True),
         lambda x: _ref_gelu(x, True).astype(x.dtype)),
    _act("silu", F.silu, lambda x: (x * sps.expit(x)).astype(x.dtype)),
    _act("softplus", F.softplus, _ref_softplus, kwargs=_SOFTPLUS),
    _act("log_sigmoid", F.log_sigmoid, lambda x: (-np.logaddexp(0, -x)).astype(x.dtype),
         low=-30, high=30),
    _act("sigmoid", F.sigmoid, lambda x: sps.expit(x).astype(x.dtype)),
    _act("tanh", F.tanh, np.tanh),
    OpInfo("nn.functional.softmax", F.softmax, _softmax, _softmax_samples),
    OpInfo("nn.functional.log_softmax", F.log_softmax, _log_softmax, _softmax_samples),
    OpInfo("nn.functional.linear", F.linear, _ref_linear, _linear_samples,
           error_inputs=_linear_errors),
    OpInfo("nn.functional.embedding", F.embedding, _ref_embedding, _embedding_samples,
           error_inputs=_embedding_errors),
    OpInfo("nn.functional.one_hot", F.one_hot, _one_hot_ref, _one_hot_samples, dtypes=INTS,
           supports_grad=False, error_inputs=_one_hot_errors),
    OpInfo("nn.functional.normalize", F.normalize, _ref_normalize, _normalize_samples),
    OpInfo("nn.functional.layer_norm", F.layer_norm, _ref_layer_norm, _layer_norm_samples,
           error_inputs=_layer_norm_errors, atol=1e-4),
    OpInfo("nn.functional.batch_norm", F.batch_norm, _ref_batch_norm, _batch_norm_samples,
           error_inputs=_batch_norm_errors, atol=1e-4),
    OpInfo("nn.functional.dropout", F.dropout, _dropout_ref, _dropout_samples,
           error_inputs=_dropout_errors),
    OpInfo("nn.functional.cross_entropy", F.cross_entropy, _ref_cross_entropy, _ce_samples,
           error_inputs=_ce_errors),
    OpInfo("nn.functional.nll_loss", F.nll_loss, _ref_nll, _nll_samples),
    OpInfo("nn.functional.mse_loss", F.mse_loss,
           lambda x, y, reduction="mean": _reduce((x - y) ** 2, reduction),
           _pair_samples(kwargs_list=({"reduction": "mean"}, {"reduction": "sum"}))),
    OpInfo("nn.functional.l1_loss", F.l1_loss,
           lambda x, y, reduction="mean": _reduce(np.abs(x - y), reduction), _pair_samples()),
    OpInfo("nn.functional.smooth_l1_loss", F.smooth_l1_loss, _ref_smooth_l1,
           _pair_samples(kwargs_list=({"reduction": "mean"}, {"delta": 0.5, "reduction": "sum"},
                                      {"delta": 2.0, "is_huber": False}))),
    OpInfo("nn.functional.binary_cross_entropy", F.binary_cross_entropy, _ref_bce,
           _bce_samples),
    OpInfo("nn.functional.binary_cross_entropy_with_logits",
           F.binary_cross_entropy_with_logits, _ref_bce_logits, _bce_logits_samples),
    OpInfo("nn.functional.kl_div", F.kl_div, _ref_kl, _kl_samples),
    OpInfo("nn.functional.label_smooth", F.label_smooth, _label_smooth_ref,
           _label_smooth_samples),
]
