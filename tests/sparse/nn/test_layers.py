"""The layer classes of weft.sparse.nn: parameters, initialisation, state_dict,
forward equal to the functional form, training a step, constructor errors."""
import numpy as np
import pytest

import weft
import weft.sparse.nn as snn
from weft.sparse.nn import functional as F

from ._ref import coo, random_sites


def test_spec_names():
    assert sorted(n for n in snn.__all__ if n != "functional") == sorted(
        ["ReLU", "ReLU6", "LeakyReLU", "Softmax", "BatchNorm", "SyncBatchNorm", "Conv3D",
         "Conv2D", "SubmConv3D", "SubmConv2D", "MaxPool3D"])
    assert len(F.__all__) == 12


@pytest.mark.parametrize("cls,fn,dims,kw", [
    (snn.Conv3D, F.conv3d, 3, dict(stride=2, padding=1)),
    (snn.Conv2D, F.conv2d, 2, dict(stride=[1, 2], padding=[1, 0], dilation=[2, 1])),
    (snn.SubmConv3D, F.subm_conv3d, 3, dict(dilation=2)),
    (snn.SubmConv2D, F.subm_conv2d, 2, {})])
def test_conv_layers(cls, fn, dims, kw):
    weft.seed(0)
    layer = cls(3, 5, 3, **kw)
    assert layer.weight.shape == [3] * dims + [3, 5] and layer.bias.shape == [5]
    assert list(layer.state_dict()) == ["weight", "bias"]
    # Paddle's convolution init: Normal(0, sqrt(2 / fan_in)), bias zeros
    std = float(np.std(layer.weight.numpy()))
    assert 0.6 < std / np.sqrt(2.0 / (3 ** dims * 3)) < 1.4 and not layer.bias.numpy().any()
    rng = np.random.default_rng(0)
    spatial = [6] * dims
    idx = random_sites(rng, 2, spatial, 20)
    x = coo(idx, rng.standard_normal((idx.shape[1], 3)).astype(np.float32), 2, spatial)
    y = layer(x)
    ref = fn(x, layer.weight, layer.bias, **kw)
    np.testing.assert_array_equal(y.indices().numpy(), ref.indices().numpy())
    np.testing.assert_array_equal(y.values().numpy(), ref.values().numpy())
    y.values().sum().backward()
    assert layer.weight.grad.shape == layer.weight.shape and layer.bias.grad.shape == [5]
    np.testing.assert_allclose(layer.bias.grad.numpy(), y.nnz())
    nb = cls(3, 5, 3, bias_attr=False, **kw)
    assert nb.bias is None and list(nb.state_dict()) == ["weight"]


def test_layers_sharing_a_key_share_the_rulebook():
    from weft.sparse.nn import _rulebook as RB

    net = weft.nn.Sequential(snn.SubmConv3D(2, 4, 3, key="blk"), snn.ReLU(),
                             snn.SubmConv3D(4, 4, 3, key="blk"))
    rng = np.random.default_rng(1)
    idx = random_sites(rng, 1, [5, 5, 5], 30)
    x = coo(idx, rng.standard_normal((idx.shape[1], 2)).astype(np.float32), 1, [5, 5, 5])
    y = net(x)
    books = RB.keyed_rulebooks(x._indices)
    assert list(books) == ["blk"] and len(books["blk"]) == 1  # built once, used twice
    np.testing.assert_array_equal(y.indices().numpy(), idx)
    # the next batch has other sites: the layers build a rulebook for it
    idx2 = random_sites(rng, 1, [5, 5, 5], 25)
    x2 = coo(idx2, rng.standard_normal((idx2.shape[1], 2)).astype(np.float32), 1, [5, 5, 5])
    np.testing.assert_array_equal(net(x2).indices().numpy(), idx2)


def test_training_reduces_loss():
    weft.seed(1)
    rng = np.random.default_rng(2)
    idx = random_sites(rng, 2, [6, 6, 6], 40)
    x = coo(idx, rng.standard_normal((idx.shape[1], 2)).astype(np.float32), 2, [6, 6, 6])
    target = rng.standard_normal((idx.shape[1], 3)).astype(np.float32)
    net = weft.nn.Sequential(snn.SubmConv3D(2, 8, 3), snn.BatchNorm(8), snn.LeakyReLU(),
                             snn.SubmConv3D(8, 3, 3))
    opt = weft.optimizer.Adam(learning_rate=0.05, parameters=net.parameters())
    losses = []
    for _ in range(15):
        loss = ((net(x).values() - weft.to_tensor(target)) ** 2).mean()
        loss.backward()
        opt.step()
        opt.clear_grad()
        losses.append(float(loss))
    assert losses[-1] < 0.5 * losses[0]


@pytest.mark.parametrize("make,exc,match", [
    (lambda: snn.Conv3D(2, 3, 3, groups=2), AssertionError, "groups=1"),
    (lambda: snn.Conv3D(2, 3, 3, padding_mode="reflect"), AssertionError, "padding_mode"),
    (lambda: snn.SubmConv3D(2, 3, 3, backend="cuda"), AssertionError, "backend"),
    (lambda: snn.SubmConv3D(2, 3, 2), ValueError, "odd kernel sizes"),
    (lambda: snn.Conv3D(2, 3, [3, 3]), ValueError, "kernel_size must be an int or a list of 3"),
    (lambda: snn.Conv2D(2, 3, 3, stride=0), ValueError, "stride must be >= 1"),
    (lambda: snn.Conv3D(0, 3, 3), ValueError, "in_channels"),
    (lambda: snn.Conv3D(2, 3, 3, data_format="NCDHW"), ValueError, "data_format"),
    (lambda: snn.MaxPool3D(2, data_format="NCDHW"), AssertionError, "NDHWC"),
])
def test_constructor_errors(make, exc, match):
    with pytest.raises(exc, match=match):
        make()


def test_channel_mismatch_in_forward():
    layer = snn.SubmConv3D(4, 2, 3)
    x = weft.sparse.sparse_coo_tensor([[0], [1], [1], [1]], [[1.0, 2.0]], [1, 3, 3, 3, 2])
    with pytest.raises(ValueError, match="x has 2 channels but weight expects 4"):
        layer(x)
