"""Semantics of weft.nn.functional that the generic OpInfo tests do not cover: Paddle's
cross-entropy options, dropout randomness, running statistics, clamps and errors."""
import math

import numpy as np
import pytest

import tests.opinfo  # noqa: F401  (loads the op database before one of its modules)
import weft
from tests.opdb.nn import _log_softmax, _ref_cross_entropy

F = weft.nn.functional


def t(a, sg=True):
    return weft.to_tensor(np.asarray(a), stop_gradient=sg)


# ---------------------------------------------------------------------------------
# cross_entropy

@pytest.fixture
def logits():
    return np.random.default_rng(0).standard_normal((6, 4))


LABELS = np.array([0, 3, -100, 1, 2, -100])


@pytest.mark.parametrize("kw", [
    {}, {"reduction": "sum"}, {"reduction": "none"}, {"ignore_index": 3},
    {"label_smoothing": 0.3}, {"label_smoothing": 0.3, "reduction": "none"},
])
@pytest.mark.parametrize("weighted", [False, True])
def test_cross_entropy_options_match_numpy(logits, kw, weighted):
    w = np.array([0.5, 1.0, 2.0, 3.0])
    lab = LABELS if "ignore_index" not in kw else np.array([0, 3, 3, 1, 2, 0])
    got = F.cross_entropy(t(logits), t(lab), weight=t(w) if weighted else None, **kw)
    want = _ref_cross_entropy(logits, lab, weight=w if weighted else None, **kw)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-10, atol=1e-12)


def test_cross_entropy_mean_divides_by_weight_of_counted_targets(logits):
    w = np.array([0.5, 1.0, 2.0, 3.0])
    lab = np.array([0, 3, 1, 1, 2, 0])
    per = -_log_softmax(logits)[np.arange(6), lab] * w[lab]
    keep = lab != 1
    got = F.cross_entropy(t(logits), t(lab), weight=t(w), ignore_index=1).item()
    assert got == pytest.approx(per[keep].sum() / w[lab][keep].sum(), rel=1e-12)
    # no weight: divide by the number of targets that count (also for the default -100)
    got = F.cross_entropy(t(logits), t(LABELS)).item()
    valid = LABELS != -100
    lp = -_log_softmax(logits)[np.arange(6), np.where(valid, LABELS, 0)]
    assert got == pytest.approx(lp[valid].mean(), rel=1e-12)


def test_cross_entropy_all_ignored_is_zero_with_zero_gradient(logits):
    x = t(logits, sg=False)
    loss = F.cross_entropy(x, t(np.full(6, -100)))
    assert loss.item() == 0.0
    loss.backward()
    assert np.all(x.grad.numpy() == 0)


def test_cross_entropy_label_shapes(logits):
    lab = np.array([0, 3, 2, 1, 2, 0])
    a = F.cross_entropy(t(logits), t(lab), reduction="none")
    b = F.cross_entropy(t(logits), t(lab[:, None]), reduction="none")
    assert a.shape == [6] and b.shape == [6, 1]
    np.testing.assert_allclose(a.numpy(), b.numpy()[:, 0])
    soft = np.eye(4)[lab]
    c = F.cross_entropy(t(logits), t(soft), soft_label=True, reduction="none")
    assert c.shape == [6, 1]
    np.testing.assert_allclose(c.numpy()[:, 0], a.numpy(), rtol=1e-12)


def test_cross_entropy_is_stable_for_huge_logits():
    x = t(np.array([[1e4, 0.0, -1e4], [-1e4, 1e4, 0.0]]), sg=False)
    loss = F.cross_entropy(x, t(np.array([0, 2])), reduction="none")
    assert np.all(np.isfinite(loss.numpy()))
    np.testing.assert_allclose(loss.numpy(), [0.0, 1e4])
    loss.sum().backward()
    assert np.all(np.isfinite(x.grad.numpy()))


def test_cross_entropy_gradient_is_softmax_minus_onehot(logits):
    x = t(logits, sg=False)
    lab = np.array([0, 3, 2, 1, 2, 0])
    F.cross_entropy(x, t(lab), reduction="sum").backward()
    p = np.exp(_log_softmax(logits))
    np.testing.assert_allclose(x.grad.numpy(), p - np.eye(4)[lab], atol=1e-12)


def test_cross_entropy_second_derivative():
    x = t(np.array([[0.3, -1.2, 0.5]]), sg=False)
    (g,) = weft.grad(F.cross_entropy(x, t(np.array([1]))), [x], create_graph=True)
    (h,) = weft.grad((g * t(np.array([[1.0, 0.0, 0.0]]))).sum(), [x])
    p = np.exp(_log_softmax(x.numpy()))[0]
    np.testing.assert_allclose(h.numpy()[0], p[0] * (np.eye(3)[0] - p), atol=1e-12)


def test_cross_entropy_errors(logits):
    x = t(logits)
    with pytest.raises(IndexError, match="label contains 4"):
        F.cross_entropy(x, t(np.array([0, 4, 1, 1, 1, 1])))
    with pytest.raises(ValueError, match="reduction"):
        F.cross_entropy(x, t(np.zeros(6, int)), reduction="avg")
    with pytest.raises(ValueError, match="soft labels"):
        F.cross_entropy(x, t(np.ones((6, 3))), soft_label=True)
    with pytest.raises(TypeError, match="integer class indices"):
        F.cross_entropy(x, t(np.zeros(6)))
    with pytest.raises(ValueError, match="0-D"):
        F.cross_entropy(t(1.0), t(0))


def test_nll_loss_matches_picked_log_probs():
    lp = _log_softmax(np.random.default_rng(1).standard_normal((4, 3, 2)), 1)
    lab = np.array([[0, 2], [1, 1], [2, 0], [0, 0]])
    got = F.nll_loss(t(lp), t(lab), reduction="none").numpy()
    want = -np.take_along_axis(lp, lab[:, None, :], 1)[:, 0]
    np.testing.assert_allclose(got, want)
    with pytest.raises(ValueError, match="label must have shape"):
        F.nll_loss(t(lp), t(lab[:, :1]))
    with pytest.raises(ValueError, match="at least 2-D"):
        F.nll_loss(t(lp[0, :, 0]), t(np.array(0)))


# ---------------------------------------------------------------------------------
# dropout

def test_dropout_is_reproducible_under_seed():
    x = weft.ones([50, 40])
    weft.seed(7)
    a = F.dropout(x, 0.3).numpy()
    b = F.dropout(x, 0.3).numpy()
    weft.seed(7)
    np.testing.assert_array_equal(F.dropout(x, 0.3).numpy(), a)
    assert not np.array_equal(a, b)
    vals = set(np.unique(a).tolist())
    assert vals <= {0.0, np.float32(1 / 0.7).item()}
    assert abs((a == 0).mean() - 0.3) < 0.05


def test_dropout_modes_axis_and_gradient():
    weft.seed(3)
    x = weft.to_tensor(np.ones((6, 8)), stop_gradient=False)
    y = F.dropout(x, 0.5, axis=1)
    cols = y.numpy()
    assert np.all(cols == cols[0])  # one mask entry per column, broadcast over rows
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), cols)
    d = F.dropout(weft.ones([100]), 0.25, mode="downscale_in_infer").numpy()
    assert set(np.unique(d).tolist()) <= {0.0, 1.0}
    e = F.dropout(weft.ones([3]), 0.25, training=False, mode="downscale_in_infer")
    np.testing.assert_allclose(e.numpy(), 0.75)
    assert np.all(F.dropout(weft.ones([5]), 1.0).numpy() == 0)
    z = weft.ones([3])
    assert F.dropout(z, 0.5, training=False) is z


def test_dropout_layer_follows_training_flag():
    d = weft.nn.Dropout(0.9)
    weft.seed(0)
    assert (d(weft.ones([1000])).numpy() == 0).mean() > 0.8
    d.eval()
    np.testing.assert_array_equal(d(weft.ones([10])).numpy(), 1.0)


# ---------------------------------------------------------------------------------
# activations

def test_activation_values_at_special_points():
    x = t(np.array([-1e4, -1.0, 0.0, 1.0, 1e4]))
    assert np.all(np.isfinite(F.softplus(x).numpy()))
    assert np.all(np.isfinite(F.log_sigmoid(x).numpy()))
    assert np.all(np.isfinite(F.elu(x).numpy()))
    np.testing.assert_allclose(F.gelu(t([1.0])).numpy(), [0.8413447460685429])
    np.testing.assert_allclose(F.gelu(t([1.0]), approximate="tanh").numpy(), [0.8411919906],
                               rtol=1e-8)
    np.testing.assert_allclose(F.softplus(t([30.0, 1.0]), beta=2, threshold=20).numpy(),
                               [30.0, math.log1p(math.exp(2.0)) / 2])


def test_relu_gradient_is_zero_at_zero_and_second_derivative_zero():
    x = t(np.array([-1.0, 0.0, 2.0]), sg=False)
    (g,) = weft.grad(F.relu(x).sum(), [x], create_graph=True)
    np.testing.assert_array_equal(g.numpy(), [0.0, 0.0, 1.0])
    (h,) = weft.grad((g * x).sum(), [x], allow_unused=True)
    np.testing.assert_array_equal(h.numpy(), [0.0, 0.0, 1.0])


def test_softmax_dtype_argument_and_errors():
    x = weft.to_tensor([1, 2, 3])
    y = F.softmax(x, dtype="float64")
    assert y.dtype == weft.float64
    np.testing.assert_allclose(y.numpy().sum(), 1.0)
    assert F.log_softmax(weft.to_tensor(2.0)).item() == 0.0
    with pytest.raises(ValueError, match="axis 2 is out of range"):
        F.softmax(weft.ones([2, 2]), axis=2)
    with pytest.raises(TypeError, match="floating dtype"):
        F.softmax(weft.ones([2]), dtype="int32")
    with pytest.raises(TypeError, match="real floating"):
        F.relu(weft.to_tensor([1j]))
    with pytest.raises(ValueError, match="scale must be greater"):
        F.selu(weft.ones([1]), scale=0.5)


# ---------------------------------------------------------------------------------
# embedding, one_hot, linear, normalize

def test_embedding_padding_and_gradient():
    w = weft.to_tensor(np.arange(12.0).reshape(4, 3), stop_gradient=False)
    ids = weft.to_tensor([[1, 2], [1, 3]])
    out = F.embedding(ids, w, padding_idx=2)
    np.testing.assert_array_equal(out.numpy()[0, 1], 0.0)
    out.sum().backward()
    np.testing.assert_array_equal(w.grad.numpy()[:, 0], [0.0, 2.0, 0.0, 1.0])


def test_embedding_scale_grad_by_freq_and_max_norm():
    w = weft.to_tensor(np.ones((3, 2)), stop_gradient=False)
    out = F.embedding(weft.to_tensor([0, 0, 1]), w, scale_grad_by_freq=True)
    np.testing.assert_array_equal(out.numpy(), 1.0)
    out.sum().backward()
    np.testing.assert_allclose(w.grad.numpy()[:, 0], [1.0, 1.0, 0.0])
    w2 = weft.to_tensor(np.array([[3.0, 4.0], [0.3, 0.4]]))
    F.embedding(weft.to_tensor([0, 1]), w2, max_norm=1.0)
    np.testing.assert_allclose(np.linalg.norm(w2.numpy(), axis=1), [1.0, 0.5], rtol=1e-6)


def test_one_hot_and_errors():
    oh = F.one_hot(weft.to_tensor([[0], [2]]), 3)
    assert oh.shape == [2, 1, 3] and oh.dtype == weft.float32
    with pytest.raises(IndexError, match="num_classes=3"):
        F.one_hot(weft.to_tensor([-1]), 3)
    with pytest.raises(TypeError, match="num_classes must be an int"):
        F.one_hot(weft.to_tensor([0]), 2.5)


def test_linear_promotes_and_validates():
    x = weft.ones([2, 3], dtype="float32")
    w = weft.ones([3, 4], dtype="float64")
    assert F.linear(x, w).dtype == weft.float64
    with pytest.raises(ValueError, match="must equal weight's first dimension"):
        F.linear(weft.ones([2, 4]), weft.ones([3, 4]))


def test_normalize_zero_vector_and_gradient():
    x = t(np.zeros((2, 3)), sg=False)
    y = F.normalize(x, axis=1)
    np.testing.assert_array_equal(y.numpy(), 0.0)
    y.sum().backward()
    assert np.all(np.isfinite(x.grad.numpy()))


# ---------------------------------------------------------------------------------
# normalisation

def test_batch_norm_updates_running_stats_paddle_style():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((8, 3))
    rm, rv = weft.zeros([3], dtype="float64"), weft.ones([3], dtype="float64")
    F.batch_norm(t(x), rm, rv, training=True, momentum=0.8)
    np.testing.assert_allclose(rm.numpy(), 0.2 * x.mean(0))
    np.testing.assert_allclose(rv.numpy(), 0.8 + 0.2 * x.var(0))  # biased batch variance
    y = F.batch_norm(t(x), rm, rv, training=True, use_global_stats=True)
    np.testing.assert_allclose(y.numpy(), (x - rm.numpy()) / np.sqrt(rv.numpy() + 1e-5))


def test_batch_norm_layer_train_and_eval():
    bn = weft.nn.BatchNorm1D(2, data_format="NLC")
    x = weft.randn([4, 5, 2])
    y = bn(x).numpy()
    np.testing.assert_allclose(y.mean((0, 1)), 0.0, atol=1e-5)
    assert bn._mean.stop_gradient and not bn.weight.stop_gradient
    bn.eval()
    r = bn(x).numpy()
    xm = x.numpy()
    np.testing.assert_allclose(r, (xm - bn._mean.numpy()) / np.sqrt(bn._variance.numpy() + 1e-5),
                               rtol=1e-5)
    with pytest.raises(ValueError, match="expected 2-D or 3-D"):
        bn(weft.ones([2, 2, 2, 2]))


def test_layer_norm_errors():
    with pytest.raises(ValueError, match="trailing dimensions"):
        F.layer_norm(weft.ones([2, 3]), [2])
    with pytest.raises(TypeError, match="normalized_shape"):
        F.layer_norm(weft.ones([2, 3]), 3.0)


# ---------------------------------------------------------------------------------
# losses

def test_binary_cross_entropy_clamps_and_validates():
    p = t(np.array([0.0, 1.0, 0.0]), sg=False)
    loss = F.binary_cross_entropy(p, t(np.array([1.0, 0.0, 0.0])), reduction="none")
    np.testing.assert_allclose(loss.numpy(), [100.0, 100.0, 0.0])
    loss.sum().backward()
    assert np.all(np.isfinite(p.grad.numpy()))
    with pytest.raises(ValueError, match=r"probabilities in \[0, 1\]"):
        F.binary_cross_entropy(t([1.5]), t([1.0]))


def test_bce_with_logits_large_logits_are_exact():
    x = t(np.array([-200.0, 200.0]))
    y = t(np.array([1.0, 0.0]))
    np.testing.assert_allclose(F.binary_cross_entropy_with_logits(x, y, reduction="none").numpy(),
                               [200.0, 200.0])


def test_kl_div_zero_labels_and_batchmean():
    x = t(np.log(np.array([[0.5, 0.5], [0.9, 0.1]])), sg=False)
    y = t(np.array([[1.0, 0.0], [0.5, 0.5]]))
    loss = F.kl_div(x, y, reduction="batchmean")
    want = (np.log(2) + 0.5 * np.log(0.5 / 0.9) + 0.5 * np.log(0.5 / 0.1)) / 2
    assert loss.item() == pytest.approx(want)
    loss.backward()
    np.testing.assert_allclose(x.grad.numpy(), -y.numpy() / 2)
    with pytest.raises(ValueError, match="batchmean"):
        F.kl_div(x, y, reduction="avg")


def test_losses_reject_mismatched_shapes():
    with pytest.raises(ValueError, match="do not broadcast"):
        F.mse_loss(weft.ones([3]), weft.ones([4]))
    with pytest.raises(ValueError, match="delta must be positive"):
        F.smooth_l1_loss(weft.ones([3]), weft.ones([3]), delta=0)


# ---------------------------------------------------------------------------------
# properties

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from hypothesis.extra import numpy as hnp  # noqa: E402


@settings(derandomize=True, max_examples=25, deadline=None)
@given(hnp.arrays(np.float64, hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=4),
                  elements=st.floats(-50, 50)),
       st.integers(0, 2))
def test_softmax_properties(x, axis):
    axis = axis % x.ndim
    s = F.softmax(t(x), axis).numpy()
    ls = F.log_softmax(t(x), axis).numpy()
    np.testing.assert_allclose(s.sum(axis), 1.0, rtol=1e-12)
    np.testing.assert_allclose(np.exp(ls), s, rtol=1e-10, atol=1e-300)
    # shift invariance
    np.testing.assert_allclose(F.softmax(t(x + 7.0), axis).numpy(), s, rtol=1e-9, atol=1e-300)


@settings(derandomize=True, max_examples=20, deadline=None)
@given(st.integers(1, 5), st.integers(2, 5), st.data())
def test_cross_entropy_equals_nll_of_log_softmax(n, c, data):
    x = data.draw(hnp.arrays(np.float64, (n, c), elements=st.floats(-20, 20)))
    lab = np.array(data.draw(st.lists(st.integers(0, c - 1), min_size=n, max_size=n)))
    a = F.cross_entropy(t(x), t(lab), reduction="none").numpy()
    b = F.nll_loss(F.log_softmax(t(x)), t(lab), reduction="none").numpy()
    np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


def test_inplace_variants():
    x = weft.to_tensor([-1.0, 2.0])
    assert F.relu_(x) is x and x.tolist() == [0.0, 2.0]
    leaf = weft.to_tensor([-1.0, 2.0], stop_gradient=False)
    with pytest.raises(ValueError, match="Leaf Tensor"):
        F.relu_(leaf)
