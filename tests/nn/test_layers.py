"""weft.nn.Layer and the layers: registration, traversal, state dicts, devices and
dtypes, hooks, containers, and every layer against numpy."""
import copy
import pickle

import numpy as np
import pytest

import weft
import weft.optimizer
from weft import nn

F = nn.functional

try:
    from weft import load, save
except ImportError:  # not yet exported at the top level
    from weft.core.serialization import load, save


class Net(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(3, 4)
        self.act = nn.ReLU()
        self.blocks = nn.LayerList([nn.Linear(4, 4), nn.Linear(4, 4)])
        self.scale = self.create_parameter([4], default_initializer=nn.initializer.Constant(2.0))
        self.register_buffer("steps", weft.zeros([1]))
        self.register_buffer("cache", weft.zeros([2]), persistable=False)

    def forward(self, x):
        h = self.act(self.fc1(x))
        for b in self.blocks:
            h = b(h)
        return h * self.scale


def test_registration_and_traversal():
    net = Net()
    names = [n for n, _ in net.named_parameters()]
    assert names == ["scale", "fc1.weight", "fc1.bias", "blocks.0.weight", "blocks.0.bias",
                     "blocks.1.weight", "blocks.1.bias"]
    assert len(net.parameters()) == 7
    assert [n for n, _ in net.named_sublayers()] == ["fc1", "act", "blocks", "blocks.0",
                                                     "blocks.1"]
    assert [type(c).__name__ for c in net.children()] == ["Linear", "ReLU", "LayerList"]
    assert list(net.state_dict()) == ["scale", "steps", "fc1.weight", "fc1.bias",
                                      "blocks.0.weight", "blocks.0.bias", "blocks.1.weight",
                                      "blocks.1.bias"]
    assert [n for n, _ in net.named_buffers()] == ["steps", "cache"]
    assert net.state_dict()["fc1.weight"] is net.fc1.weight
    assert net(weft.ones([2, 3])).shape == [2, 4]


def test_shared_parameter_listed_once():
    a = nn.Linear(2, 2)
    seq = nn.Sequential(a, a)
    assert len(seq.parameters()) == 2
    assert len(seq.sublayers()) == 1


def test_train_eval_propagate():
    net = Net()
    net.eval()
    assert not any(layer.training for layer in net.sublayers(include_self=True))
    assert net.train() is net and net.blocks[1].training


def test_setattr_rules():
    net = Net()
    with pytest.raises(TypeError, match="cannot assign a Tensor to the parameter 'scale'"):
        net.scale = weft.ones([4])
    net.steps = weft.ones([1])          # buffers accept tensors
    assert net.steps.item() == 1.0
    net.fc1 = None
    assert "fc1" not in [n for n, _ in net.named_sublayers()]

    class Bad(nn.Layer):
        def __init__(self):
            self.fc = nn.Linear(1, 1)

    with pytest.raises(RuntimeError, match="super"):
        Bad()
    with pytest.raises(KeyError, match="'.'"):
        net.register_buffer("a.b", weft.ones([1]))
    with pytest.raises(TypeError, match="Parameter"):
        net.add_parameter("p", weft.ones([1]))
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        _ = net.nothing


def test_delattr_and_add_sublayer():
    net = Net()
    del net.scale
    assert "scale" not in net.state_dict()
    net.add_sublayer("extra", nn.Tanh())
    assert isinstance(net.extra, nn.Tanh)


def test_state_dict_round_trip_through_save_load(tmp_path):
    weft.seed(0)
    a, b = Net(), Net()
    a.steps._data[...] = 5  # buffers are saved and restored too
    path = str(tmp_path / "net.pdparams")
    save(a.state_dict(), path)
    missing, unexpected = b.set_state_dict(load(path))
    assert missing == [] and unexpected == []
    for (ka, va), (kb, vb) in zip(a.state_dict().items(), b.state_dict().items()):
        assert ka == kb
        np.testing.assert_array_equal(va.numpy(), vb.numpy())
    x = weft.randn([2, 3])
    np.testing.assert_array_equal(a(x).numpy(), b(x).numpy())


def test_set_state_dict_reports_and_checks():
    net = Net()
    sd = {k: v.numpy().copy() for k, v in net.state_dict().items()}
    del sd["scale"]
    sd["bogus"] = np.zeros(1)
    missing, unexpected = net.set_state_dict(sd)
    assert missing == ["scale"] and unexpected == ["bogus"]
    with pytest.raises(ValueError, match="'fc1.bias' has shape"):
        net.set_state_dict({"fc1.bias": np.zeros(5)})
    by_name = {net.fc1.bias.name: np.full(4, 3.0)}
    net.set_state_dict(by_name, use_structured_name=False)
    np.testing.assert_array_equal(net.fc1.bias.numpy(), 3.0)


def test_to_dtype_keeps_identity_and_trains():
    net = nn.Sequential(nn.Linear(3, 2))
    w = net[0].weight
    opt = weft.optimizer.SGD(0.1, parameters=net.parameters())
    net.to(dtype="float64")
    assert net[0].weight is w and w.dtype == weft.float64 and not w.stop_gradient and w.is_leaf
    before = w.numpy().copy()
    net(weft.ones([1, 3], dtype="float64")).sum().backward()
    opt.step()
    assert not np.array_equal(before, w.numpy())
    assert net.float()[0].weight.dtype == weft.float32
    with pytest.raises(TypeError, match="floating"):
        net.to(dtype="int32")


def test_forward_hooks():
    lin = nn.Linear(2, 2, weight_attr=nn.initializer.Constant(1.0), bias_attr=False)
    calls = []
    h1 = lin.register_forward_pre_hook(lambda layer, inp: (inp[0] * 2,))
    h2 = lin.register_forward_post_hook(lambda layer, inp, out: calls.append(out.shape) or out + 1)
    np.testing.assert_array_equal(lin(weft.ones([1, 2])).numpy(), [[5.0, 5.0]])
    assert calls == [[1, 2]]
    h1.remove()
    h2.remove()
    np.testing.assert_array_equal(lin(weft.ones([1, 2])).numpy(), [[2.0, 2.0]])


def test_apply_and_clear_gradients():
    net = Net()
    seen = []
    net.apply(lambda layer: seen.append(type(layer).__name__))
    assert seen[-1] == "Net" and seen.count("Linear") == 3
    net(weft.ones([1, 3])).sum().backward()
    net.clear_gradients()
    assert all(np.all(p.grad.numpy() == 0) for p in net.parameters())


def test_parameter_attributes_pickle_and_deepcopy():
    lin = nn.Linear(2, 3)
    w = lin.weight
    assert isinstance(w, nn.Parameter) and w.trainable and w.persistable
    assert w.name.endswith(".w_0") and lin.bias.name.endswith(".b_0")
    assert repr(w).startswith("Parameter containing:")
    w2 = pickle.loads(pickle.dumps(w))
    assert isinstance(w2, nn.Parameter) and w2.name == w.name
    np.testing.assert_array_equal(w2.numpy(), w.numpy())
    lin2 = copy.deepcopy(lin)
    assert lin2.weight is not w
    np.testing.assert_array_equal(lin2.weight.numpy(), w.numpy())
    w.trainable = False
    assert w.stop_gradient


def test_param_attr():
    attr = nn.ParamAttr(name="my_w", initializer=nn.initializer.Constant(0.5), learning_rate=2.0,
                        trainable=False)
    lin = nn.Linear(2, 2, weight_attr=attr, bias_attr=False)
    assert lin.bias is None and lin.weight.name == "my_w" and lin.weight.stop_gradient
    assert lin.weight.optimize_attr["learning_rate"] == 2.0
    np.testing.assert_array_equal(lin.weight.numpy(), 0.5)
    with pytest.raises(TypeError, match="ParamAttr"):
        nn.Linear(2, 2, weight_attr=3)
    p = nn.create_parameter([2, 2], "float64", is_bias=True)
    assert p.dtype == weft.float64 and np.all(p.numpy() == 0)


def test_linear_matches_numpy():
    lin = nn.Linear(3, 2)
    x = np.random.default_rng(0).standard_normal((4, 3)).astype(np.float32)
    np.testing.assert_allclose(lin(weft.to_tensor(x)).numpy(),
                               x @ lin.weight.numpy() + lin.bias.numpy(), rtol=1e-6)
    assert "in_features=3, out_features=2" in repr(lin)
    with pytest.raises(TypeError, match="in_features must be an int"):
        nn.Linear(2.0, 3)


def test_embedding_layer():
    emb = nn.Embedding(5, 3, padding_idx=-1)
    np.testing.assert_array_equal(emb.weight.numpy()[4], 0.0)
    ids = weft.to_tensor([[0, 4], [1, 1]])
    out = emb(ids)
    np.testing.assert_array_equal(out.numpy(), emb.weight.numpy()[ids.numpy()])
    with pytest.raises(IndexError, match="index 5"):
        emb(weft.to_tensor([5]))
    with pytest.raises(ValueError, match="padding_idx"):
        nn.Embedding(5, 3, padding_idx=5)


def test_layer_norm_layer():
    ln = nn.LayerNorm([2, 3])
    assert ln.weight.shape == [6] and np.all(ln.weight.numpy() == 1)
    x = np.random.default_rng(0).standard_normal((4, 2, 3)).astype(np.float32)
    y = ln(weft.to_tensor(x)).numpy()
    ref = (x - x.mean((1, 2), keepdims=True)) / np.sqrt(x.var((1, 2), keepdims=True) + 1e-5)
    np.testing.assert_allclose(y, ref, rtol=1e-5, atol=1e-6)
    assert nn.LayerNorm(3, elementwise_affine=False).weight is None


def test_batchnorm_state_keys_and_weight_attr_false():
    bn = nn.BatchNorm1D(4, weight_attr=False)
    assert list(bn.state_dict()) == ["weight", "bias", "_mean", "_variance"]
    assert bn.weight.stop_gradient and not bn.bias.stop_gradient
    assert bn(weft.randn([3, 4, 5])).shape == [3, 4, 5]
    assert nn.BatchNorm2D(2)(weft.randn([2, 2, 3, 3])).shape == [2, 2, 3, 3]
    with pytest.raises(ValueError, match="data_format"):
        nn.BatchNorm1D(4, data_format="NCHW")


def test_sequential_container():
    seq = nn.Sequential(("a", nn.Linear(2, 3)), ("b", nn.ReLU()))
    assert isinstance(seq["a"], nn.Linear) and isinstance(seq[-1], nn.ReLU)
    assert len(seq[:1]) == 1 and isinstance(seq[:1], nn.Sequential)
    seq.append(nn.Linear(3, 1))
    assert seq(weft.ones([2, 2])).shape == [2, 1]
    del seq[1]
    assert len(seq) == 2 and [type(m).__name__ for m in seq] == ["Linear", "Linear"]
    with pytest.raises(IndexError, match="out of range"):
        seq[5]
    with pytest.raises(TypeError, match="must be a Layer"):
        nn.Sequential(nn.ReLU(), 3)


def test_layer_list_and_parameter_list():
    ll = nn.LayerList([nn.Linear(1, 1)])
    ll.append(nn.Linear(1, 2))
    ll.insert(0, nn.Tanh())
    assert [type(m).__name__ for m in ll] == ["Tanh", "Linear", "Linear"]
    assert list(ll._sub_layers) == ["0", "1", "2"]
    del ll[0]
    assert len(ll) == 2 and len(ll.parameters()) == 4
    ll.extend([nn.ReLU()])
    assert isinstance(ll[-1], nn.ReLU) and len(ll[1:]) == 2
    pl = nn.ParameterList([nn.create_parameter([2], "float32") for _ in range(3)])
    assert len(pl) == 3 and len(pl.parameters()) == 3 and pl[1] is list(pl)[1]


@pytest.mark.parametrize("layer,fn", [
    (nn.ReLU(), F.relu), (nn.LeakyReLU(0.2), lambda x: F.leaky_relu(x, 0.2)),
    (nn.ELU(0.5), lambda x: F.elu(x, 0.5)), (nn.GELU(), F.gelu), (nn.Sigmoid(), F.sigmoid),
    (nn.Tanh(), F.tanh), (nn.Softmax(axis=0), lambda x: F.softmax(x, 0)),
    (nn.SiLU(), F.silu), (nn.Softplus(beta=2.0), lambda x: F.softplus(x, 2.0)),
    (nn.Identity(), lambda x: x), (nn.Flatten(), lambda x: x.reshape([3, -1])),
])
def test_activation_layers(layer, fn):
    x = weft.randn([3, 2, 2])
    np.testing.assert_array_equal(layer(x).numpy(), fn(x).numpy())


def test_loss_layers():
    x, y = weft.randn([4, 3]), weft.to_tensor([0, 2, 1, 1])
    assert nn.CrossEntropyLoss()(x, y).item() == F.cross_entropy(x, y).item()
    p, q = weft.rand([4]), weft.rand([4])
    assert nn.MSELoss("sum")(p, q).item() == F.mse_loss(p, q, "sum").item()
    assert nn.BCELoss()(p, q).item() == F.binary_cross_entropy(p, q).item()
    assert nn.KLDivLoss("batchmean")(p, q).shape == []
    with pytest.raises(ValueError, match="reduction"):
        nn.L1Loss("avg")


def test_repr_nests():
    r = repr(Net())
    assert r.startswith("Net(\n  (fc1): Linear(in_features=3") and "(blocks): LayerList(" in r


def test_gradcheck_through_a_small_model():
    # the layers' own parameter gradients are checked by the OpInfo entries of their
    # functional forms; here the whole stack is checked end to end in the input
    weft.seed(1)
    net = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.LayerNorm(4), nn.Linear(4, 2),
                        nn.Softplus()).to(dtype="float64")
    x = weft.to_tensor(np.random.default_rng(0).standard_normal((5, 3)), stop_gradient=False)
    assert weft.autograd.gradcheck(net, [x])
    assert weft.autograd.gradgradcheck(net, [x])
