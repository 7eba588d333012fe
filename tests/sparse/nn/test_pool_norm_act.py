"""max_pool3d, BatchNorm/SyncBatchNorm, the activations and softmax of weft.sparse.nn
against numpy loops; masked gradients by gradcheck/gradgradcheck in float64."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import weft
from weft.sparse.nn import functional as F
import weft.sparse.nn as snn

from ._ref import coo, random_sites


def _pool_ref(idx, vals, spatial, kernel, stride, pad, out_sp):
    """Per output site the max over the active inputs of its window (numpy loop)."""
    sites = {}
    for i in range(idx.shape[1]):
        b, p = idx[0, i], idx[1:, i]
        for kk in np.ndindex(*kernel):
            t = p + np.array(pad) - np.array(kk)
            if np.all(t >= 0) and np.all(t % stride == 0) and np.all(t // stride < out_sp):
                key = (b, *(t // stride))
                sites[key] = np.maximum(sites.get(key, -np.inf), vals[i])
    keys = sorted(sites)
    return (np.array(keys, dtype=np.int64).T.reshape(4, -1),
            np.array([sites[k] for k in keys]).reshape(-1, vals.shape[1]))


@settings(max_examples=30)
@given(st.integers(0, 2 ** 16), st.integers(1, 3), st.integers(1, 3), st.integers(0, 1),
       st.booleans(), st.sampled_from(["int64", "int32"]))
def test_max_pool3d_matches_loop(seed, k, s, pad, ceil_mode, itype):
    rng = np.random.default_rng(seed)
    spatial = [int(v) for v in rng.integers(max(k - 2 * pad, 1), 6, 3)]
    idx = random_sites(rng, 2, spatial, int(rng.integers(0, 20)))
    vals = rng.standard_normal((idx.shape[1], 2)) - 1.0  # mostly negative: implicit zeros must not win
    y = F.max_pool3d(coo(idx, vals, 2, spatial, index_dtype=itype), k, s, pad, ceil_mode=ceil_mode)
    out_sp = []
    for n in spatial:
        span = n + 2 * pad - k
        m = (-(-span // s) if ceil_mode else span // s) + 1
        if ceil_mode and (m - 1) * s >= n + pad:
            m -= 1
        out_sp.append(m)
    want_idx, want_vals = _pool_ref(idx, vals, spatial, (k,) * 3, s, [pad] * 3, np.array(out_sp))
    assert y.shape == [2, *out_sp, 2]
    np.testing.assert_array_equal(y.indices().numpy(), want_idx)
    np.testing.assert_array_equal(y.values().numpy(), want_vals)


def test_max_pool3d_gradient_goes_to_every_tie():
    idx = np.array([[0, 0, 0], [0, 0, 1], [0, 1, 1], [0, 0, 1]])
    vals = np.array([[2.0, -1.0], [2.0, -3.0], [1.0, -5.0]])
    x = weft.sparse.sparse_coo_tensor(idx, vals, [1, 2, 2, 2, 2], stop_gradient=False)
    F.max_pool3d(x, 2).values().sum().backward()
    np.testing.assert_array_equal(x.grad.values().numpy(), [[1, 1], [1, 0], [0, 0]])
    rng = np.random.default_rng(0)
    idx = random_sites(rng, 1, [4, 4, 4], 12)
    v = weft.to_tensor(rng.standard_normal((idx.shape[1], 2)), stop_gradient=False)
    f = lambda v: F.max_pool3d(weft.sparse.sparse_coo_tensor(idx, v, [1, 4, 4, 4, 2]), 2, 1, 1).values()  # noqa: E731
    assert weft.autograd.gradcheck(f, [v]) and weft.autograd.gradgradcheck(f, [v])


def test_max_pool3d_errors_and_layer():
    x = weft.sparse.sparse_coo_tensor([[0], [1], [1], [1]], [[1.0]], [1, 3, 3, 3, 1])
    with pytest.raises(AssertionError, match="NDHWC"):
        F.max_pool3d(x, 2, data_format="NCDHW")
    with pytest.raises(ValueError, match="kernel_size must be an int or a list of 3"):
        F.max_pool3d(x, [2, 2])
    with pytest.raises(ValueError, match="kernel_size must be >= 1"):
        F.max_pool3d(x, 0)
    with pytest.raises(ValueError, match="does not fit"):
        F.max_pool3d(x, 4)
    with pytest.raises(TypeError, match="SparseCooTensor"):
        F.max_pool3d(x.to_dense(), 2)
    layer = snn.MaxPool3D(2, stride=1, return_mask=True)
    y = layer(x)
    assert y.is_sparse_coo() and y.shape == [1, 2, 2, 2, 1] and y.nnz() == 8


def _bn_ref(v, w, b, eps):
    mean = v.mean(0)
    var = v.var(0)
    return (v - mean) / np.sqrt(var + eps) * w + b, mean, var


def test_batch_norm_matches_numpy_and_updates_stats():
    rng = np.random.default_rng(1)
    idx = random_sites(rng, 2, [5, 5, 5], 40)
    vals = rng.standard_normal((idx.shape[1], 3)) * 2 + 1
    x = coo(idx, vals.astype(np.float32), 2, [5, 5, 5])
    bn = snn.BatchNorm(3, momentum=0.8)
    y = bn(x)
    ref, mean, var = _bn_ref(vals, 1.0, 0.0, 1e-5)
    np.testing.assert_array_equal(y.indices().numpy(), idx)
    np.testing.assert_allclose(y.values().numpy(), ref, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(bn._mean.numpy(), 0.2 * mean, rtol=1e-5)
    np.testing.assert_allclose(bn._variance.numpy(), 0.8 + 0.2 * var, rtol=1e-5)
    bn.eval()
    want = (vals - bn._mean.numpy()) / np.sqrt(bn._variance.numpy() + 1e-5)
    np.testing.assert_allclose(bn(x).values().numpy(), want, rtol=1e-4, atol=1e-5)
    assert list(bn.state_dict()) == ["weight", "bias", "_mean", "_variance"]
    # hybrid 2-D input (sparse_dim 1) works too
    x2 = weft.sparse.sparse_coo_tensor([[0, 3]], [[1.0, 2.0], [3.0, 6.0]], [5, 2])
    np.testing.assert_allclose(snn.BatchNorm(2)(x2).values().numpy(), [[-1, -1], [1, 1]],
                               atol=1e-4)


def test_batch_norm_gradients_and_errors():
    rng = np.random.default_rng(2)
    idx = random_sites(rng, 1, [4, 4, 4], 10)
    bn = snn.BatchNorm(2)
    bn.weight.set_value(rng.standard_normal(2).astype(np.float32))
    v = weft.to_tensor(rng.standard_normal((idx.shape[1], 2)), stop_gradient=False)
    w = weft.to_tensor(rng.standard_normal(2), stop_gradient=False)
    b = weft.to_tensor(rng.standard_normal(2), stop_gradient=False)

    def f(v, w, b):
        x = weft.sparse.sparse_coo_tensor(idx, v, [1, 4, 4, 4, 2])
        return weft.nn.functional.batch_norm(weft.sparse.nn.functional.relu(x).values(),
                                             weft.zeros([2], "float64"), weft.ones([2], "float64"),
                                             w, b, training=True)
    assert weft.autograd.gradcheck(f, [v, w, b])
    x = weft.sparse.sparse_coo_tensor(idx, v.numpy().astype(np.float32), [1, 4, 4, 4, 2])
    with pytest.raises(ValueError, match="x has 2 channels but num_features is 3"):
        snn.BatchNorm(3)(x)
    with pytest.raises(NotImplementedError, match="CSR"):
        snn.BatchNorm(2)(weft.sparse.sparse_csr_tensor([0, 1], [0], [1.0], [1, 2]))
    with pytest.raises(ValueError, match="dense_dim"):
        snn.BatchNorm(2)(x.to_dense().to_sparse_coo(5))
    with pytest.raises(ValueError, match="data_format"):
        snn.BatchNorm(2, data_format="NCHW")


def test_sync_batch_norm_is_batch_norm_and_converts():
    rng = np.random.default_rng(3)
    idx = random_sites(rng, 1, [4, 4, 4], 10)
    x = coo(idx, rng.standard_normal((idx.shape[1], 2)).astype(np.float32), 1, [4, 4, 4])
    a, b = snn.BatchNorm(2), snn.SyncBatchNorm(2)
    np.testing.assert_array_equal(a(x).values().numpy(), b(x).values().numpy())
    net = weft.nn.Sequential(snn.SubmConv3D(2, 2, 3), snn.BatchNorm(2), snn.ReLU())
    net[1]._mean.set_value(np.array([1.0, 2.0], np.float32))
    conv = snn.SyncBatchNorm.convert_sync_batchnorm(net)
    assert type(conv[1]) is snn.SyncBatchNorm
    np.testing.assert_array_equal(conv[1]._mean.numpy(), [1.0, 2.0])
    assert list(conv.state_dict()) == list(net.state_dict())


@pytest.mark.parametrize("name,ref", [
    ("relu", lambda v: np.maximum(v, 0)), ("relu6", lambda v: np.clip(v, 0, 6)),
    ("leaky_relu", lambda v: np.where(v > 0, v, 0.01 * v))])
def test_activations_keep_pattern(name, ref):
    x = weft.sparse.sparse_coo_tensor([[0, 1, 3], [1, 0, 2]], [-1.0, 7.0, 0.5], [4, 3])
    y = getattr(F, name)(x)
    np.testing.assert_array_equal(y.indices().numpy(), x.indices().numpy())
    np.testing.assert_allclose(y.values().numpy(), ref(np.array([-1.0, 7.0, 0.5])))
    c = getattr(F, name)(x.to_sparse_csr())
    assert c.is_sparse_csr() and c.nnz() == 3
    layer = {"relu": snn.ReLU(), "relu6": snn.ReLU6(), "leaky_relu": snn.LeakyReLU()}[name]
    np.testing.assert_array_equal(layer(x).values().numpy(), y.values().numpy())
    v = weft.to_tensor([-1.5, 2.0, 0.5], dtype="float64", stop_gradient=False)
    f = lambda v: getattr(F, name)(weft.sparse.sparse_coo_tensor([[0, 1, 3]], v, [4])).values()  # noqa: E731
    assert weft.autograd.gradcheck(f, [v]) and weft.autograd.gradgradcheck(f, [v])


def test_leaky_relu_slope_and_duplicates():
    x = weft.sparse.sparse_coo_tensor([[1, 1]], [-2.0, 3.0], [3])  # one site holding 1.0
    assert F.leaky_relu(x, 0.5).to_dense().tolist() == [0.0, 1.0, 0.0]
    assert snn.LeakyReLU(0.5)(weft.sparse.sparse_coo_tensor([[0]], [-2.0], [1])).values().tolist() == [-1.0]


def _softmax_ref(dense, present, axis):
    """Softmax over the present entries along ``axis`` (absent entries excluded)."""
    e = np.where(present, np.exp(dense - np.where(present, dense, -np.inf).max(axis, keepdims=True)), 0)
    s = e.sum(axis, keepdims=True)
    return np.where(present, e / np.where(s == 0, 1, s), 0)


@settings(max_examples=25)
@given(st.integers(0, 2 ** 16), st.integers(0, 2), st.booleans())
def test_softmax_coo_any_axis(seed, axis, hybrid):
    rng = np.random.default_rng(seed)
    shape = [3, 4, 2]
    sd = 2 if hybrid else 3
    idx = random_sites(rng, shape[0], shape[1:sd], int(rng.integers(0, 10)))
    vals = rng.standard_normal((idx.shape[1], *shape[sd:]))
    x = weft.sparse.sparse_coo_tensor(idx, vals, shape)
    y = F.softmax(x, axis)
    present = np.zeros(shape, bool)
    present[tuple(idx)] = True
    want = _softmax_ref(x.to_dense().numpy(), present, axis)
    np.testing.assert_array_equal(y.indices().numpy(), idx)
    np.testing.assert_allclose(y.to_dense().numpy(), want, rtol=1e-12, atol=1e-15)


def test_softmax_csr_and_gradients():
    x = weft.sparse.sparse_csr_tensor([0, 2, 3, 3], [0, 2, 1], [1.0, 1.0, 5.0], [3, 3])
    assert F.softmax(x).values().tolist() == [0.5, 0.5, 1.0]
    y = F.softmax(x, axis=0)
    assert y.is_sparse_csr() and y.to_dense().tolist() == [[1, 0, 1], [0, 1, 0], [0, 0, 0]]
    assert snn.Softmax(axis=0)(x).to_dense().tolist() == y.to_dense().tolist()
    idx = np.array([[0, 0, 1, 1, 1], [0, 2, 0, 1, 2]])
    v = weft.to_tensor([0.3, -1.0, 2.0, 0.1, 0.7], dtype="float64", stop_gradient=False)
    for axis in (0, 1):
        f = lambda v: F.softmax(weft.sparse.sparse_coo_tensor(idx, v, [2, 3]), axis).values()  # noqa: E731
        assert weft.autograd.gradcheck(f, [v]) and weft.autograd.gradgradcheck(f, [v])
    with pytest.raises(TypeError, match="SparseCooTensor or SparseCsrTensor"):
        F.softmax(weft.ones([2, 2]))
    with pytest.raises(ValueError, match="axis 2 is out of range"):
        F.softmax(x, 2)
