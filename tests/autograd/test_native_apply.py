"""The native fast paths of the engine (csrc/core/engine.cpp) against the Python
definitions they replace (``engine._apply_py``, ``_topo``, ``_propagate_py``, the ops
behind Tensor's operators): same outputs, nodes and gradients, no leaked references;
the cases handed back to Python still take the Python path."""
import gc
import sys
import weakref

import numpy as np
import pytest

import weft
from weft.autograd import engine
from weft.ops.math import ufuncs
from weft.ops.reduction import aggregate

NATIVE = engine.apply is not engine._apply_py
pytestmark = pytest.mark.skipif(not NATIVE, reason="the native apply is disabled "
                                "(WEFT_PYTHON_APPLY=1 or an extension without it)")

_FIELDS = ("prim", "inputs", "edges", "params", "outs", "out_meta", "versions",
           "out_versions", "hooks", "retained", "packed")


def _leaves(rng):
    x = weft.to_tensor(rng.standard_normal((3, 4)), stop_gradient=False)
    y = weft.to_tensor(rng.standard_normal((3, 4)), stop_gradient=False)
    c = weft.to_tensor(rng.standard_normal((3, 4)))      # a constant
    n = weft.to_tensor(np.arange(12).reshape(3, 4))      # integers: no gradient
    return x, y, c, n


def _calls(x, y, c, n):
    return [
        (ufuncs._mul, (x, 1.01), {}),
        (ufuncs._add, (x, y), {}),
        (ufuncs._mul, (x, c), {}),
        (ufuncs._div, (c, y), {}),          # saves its output
        (ufuncs._tanh, (x,), {}),
        (ufuncs._mul, (c, c), {}),          # nothing requires grad: not recorded
        (ufuncs._add, (n, n), {}),          # integer output: not recorded
        (ufuncs._mul, (x, n), {}),
    ]


def _same(a, b):
    if isinstance(a, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(map(_same, a, b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, np.ndarray):
        return isinstance(b, np.ndarray) and a.dtype == b.dtype and np.array_equal(a, b)
    if isinstance(a, (int, float, bool)) or a is None:
        return a == b if type(a) is type(b) else False
    return a is b


def test_nodes_match_the_python_definition(rng):
    x, y, c, n = _leaves(rng)
    for prim, args, params in _calls(x, y, c, n):
        got = engine.apply(prim, *args, **params)
        want = engine._apply_py(prim, *args, **params)
        assert type(got) is type(want) and got.dtype == want.dtype, prim.name
        np.testing.assert_array_equal(got.numpy(), want.numpy())
        assert got.stop_gradient == want.stop_gradient, prim.name
        assert got._version == want._version and got._oidx == want._oidx
        if want._node is None:
            assert got._node is None, prim.name
            continue
        for f in _FIELDS:
            a, b = getattr(got._node, f), getattr(want._node, f)
            if f == "outs" and a is not None:   # each path saved its own output array
                a, b = [o.tolist() for o in a], [o.tolist() for o in b]
            if f == "out_versions":            # each output has its own counter
                a = [(i, v) for i, _, v in a]
                b = [(i, v) for i, _, v in b]
            assert _same(a, b) or a == b, (prim.name, f, a, b)


def test_keyword_parameters_reach_the_forward_and_the_node(rng):
    x = weft.to_tensor(rng.standard_normal((3, 4)), stop_gradient=False)
    s = aggregate.sum(x, axis=1, keepdim=True)
    np.testing.assert_allclose(s.numpy(), x.numpy().sum(1, keepdims=True))
    s.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.ones((3, 4)))


def test_gradients_agree_with_the_python_path(rng, monkeypatch):
    def loss(apply_fn):
        monkeypatch.setattr(engine, "apply", apply_fn)
        x = weft.to_tensor(np.linspace(-1, 1, 8), stop_gradient=False)
        h = x
        for _ in range(5):
            h = weft.tanh(h * 1.01 + 0.1)
        (h * h).sum().backward()
        return x.grad.numpy()
    np.testing.assert_allclose(loss(engine.apply), loss(engine._apply_py), rtol=0, atol=0)


def test_no_reference_is_leaked(rng):
    x = weft.to_tensor(rng.standard_normal(16), stop_gradient=False)
    data = x._data
    before = sys.getrefcount(data), sys.getrefcount(ufuncs._mul)
    for _ in range(2000):
        y = engine.apply(ufuncs._mul, x, 1.01)
        y = engine.apply(ufuncs._tanh, y)
    del y
    gc.collect()
    assert (sys.getrefcount(data), sys.getrefcount(ufuncs._mul)) == before
    out = engine.apply(ufuncs._mul, x, 2.0)
    ref = weakref.ref(out)
    node = weakref.ref(out._node)
    del out
    assert ref() is None and node() is None


def test_errors_and_non_primitives():
    with pytest.raises(TypeError, match="apply: the first argument must be a weft Primitive"):
        engine.apply(np.add, 1, 2)
    with pytest.raises(ValueError, match="broadcast"):
        engine.apply(ufuncs._add, weft.ones([2]), weft.ones([3]))


def test_forward_mode_and_saved_hooks_take_the_python_path(rng):
    # both are tested in depth elsewhere; here: they still see every recorded op
    x = weft.to_tensor(rng.standard_normal(4), stop_gradient=False)
    _, t = weft.autograd.jvp(lambda a: weft.tanh(a * 2.0), x, weft.ones([4], dtype="float64"))
    np.testing.assert_allclose(t.numpy(), 2 * (1 - np.tanh(2 * x.numpy()) ** 2))
    packed = []
    with weft.autograd.saved_tensors_hooks(lambda t: packed.append(1) or t, lambda t: t):
        y = x * x
    y.sum().backward()
    assert packed


# ---- the backward stages (engine._topo / engine._propagate for plain backward())

def _graph_grads(rng):
    """Gradients of a graph with broadcasting, a leaf used twice, a multi-output op,
    integer inputs and a reduction with parameters."""
    x = weft.to_tensor(rng.standard_normal((3, 4)), stop_gradient=False)
    b = weft.to_tensor(rng.standard_normal(4), stop_gradient=False)
    n = weft.to_tensor(np.arange(12).reshape(3, 4))
    h = weft.tanh(x * b + x) * n
    parts = weft.split(h, 2, axis=1)           # two outputs of one node
    loss = (parts[0] * 2.0).sum() + weft.sum(parts[1] ** 2, axis=0).sum()
    loss.backward()
    return x.grad.numpy(), b.grad.numpy()


def test_backward_matches_the_python_loop(rng, monkeypatch):
    native = _graph_grads(np.random.default_rng(1))
    monkeypatch.setattr(engine, "_native_topo", None)
    monkeypatch.setattr(engine, "_native_propagate", None)
    python = _graph_grads(np.random.default_rng(1))
    for a, b in zip(native, python):
        np.testing.assert_array_equal(a, b)


def test_topo_orders_consumers_first(rng):
    x = weft.to_tensor(rng.standard_normal(3), stop_gradient=False)
    y = x * 2.0
    z = y + y * 3.0
    order = engine._native_topo([z._node])
    assert order == engine._topo([z._node], set())
    assert order.index(z._node) < order.index(y._node)


def test_freed_graph_and_inplace_errors_as_in_python(rng):
    x = weft.to_tensor(rng.standard_normal(3), stop_gradient=False)
    y = (x * 2.0).sum()
    y.backward()
    with pytest.raises(engine.GraphFreedError, match="a second time"):
        y.backward()
    w = weft.to_tensor(rng.standard_normal(3), stop_gradient=False)
    a = w * 1.0
    b = a * a                       # saves a
    a.add_(weft.ones([3], dtype="float64"))
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        b.sum().backward()


def test_retain_graph_keeps_the_nodes(rng):
    x = weft.to_tensor(rng.standard_normal(3), stop_gradient=False)
    y = (weft.tanh(x) * 2.0).sum()
    y.backward(retain_graph=True)
    first = x.grad.numpy().copy()
    y.backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * first)


def test_hooks_send_the_pass_to_the_python_loop(rng):
    x = weft.to_tensor(rng.standard_normal(3), stop_gradient=False)
    h = x * 3.0
    seen = []
    h.register_hook(lambda g: seen.append(g.numpy().copy()))
    (h * h).sum().backward()
    np.testing.assert_allclose(seen[0], 2 * h.numpy())
    np.testing.assert_allclose(x.grad.numpy(), 18 * x.numpy())


# ---- Tensor's + - * / as native methods

@pytest.mark.parametrize("name", ["add", "subtract", "multiply", "divide"])
def test_operators_match_the_named_ops(name, rng):
    op = getattr(weft, name)
    f32 = weft.to_tensor(rng.uniform(1, 2, 5).astype("float32"), stop_gradient=False)
    f64 = weft.to_tensor(rng.uniform(1, 2, 5))
    c64 = weft.to_tensor((rng.uniform(1, 2, 5) + 1j).astype("complex64"))
    i64 = weft.to_tensor(np.arange(1, 6))
    p = weft.create_parameter([5], "float32")
    sym = {"add": "__add__", "subtract": "__sub__", "multiply": "__mul__", "divide": "__truediv__"}
    method = getattr(weft.Tensor, sym[name])
    assert type(method).__name__ == "method_descriptor"
    cases = [(f32, f32), (f32, 2.5), (f32, 3), (2.5, f32), (3, f32), (f64, f32), (i64, i64),
             (i64, 2), (c64, 2.0), (c64, c64), (p, 1.5), (f32, np.float64(2.0)),
             (f32, weft.to_tensor(np.float32(2.0)))]
    for x, y in cases:
        if isinstance(x, weft.Tensor):
            got = method(x, y)
        else:   # the reflected method of y
            got = getattr(weft.Tensor, "__r" + sym[name][2:])(y, x)
        want = op(x, y)
        assert got.dtype == want.dtype and got.shape == want.shape, (name, x, y)
        np.testing.assert_array_equal(got.numpy(), want.numpy())
        assert got.stop_gradient == want.stop_gradient
    with pytest.raises(TypeError):
        method(f32, "a string")


# ---- arrays that are not numpy's own type (CuPy's, on a GPU)

class _DeviceLike(np.ndarray):
    """Stands in for a CuPy array where no GPU is: not numpy's exact type, and it has
    ``__cuda_array_interface__``, so the native paths take their generic branches
    (attribute lookups instead of numpy's struct)."""

    @property
    def __cuda_array_interface__(self):
        return {}


def _dev(a):
    return np.asarray(a, dtype=float).view(_DeviceLike)


def test_generic_arrays_take_the_generic_branches():
    from weft.core.tensor import Tensor
    sq = engine.Primitive("test_device_like_square", lambda x: _dev(np.asarray(x) ** 2),
                          register=False)
    engine.defvjp(sq, lambda g, ans, x: Tensor._wrap(_dev(2 * np.asarray(g._data) *
                                                          np.asarray(x._data))))
    x = Tensor._wrap(_dev([1.0, 2.0, 3.0]))
    x.stop_gradient = False
    y = engine.apply(sq, x)
    assert type(y._data) is _DeviceLike and y._node is not None and not y.stop_gradient
    z = engine.apply(sq, y)
    order = engine._native_topo([z._node])
    assert order == [z._node, y._node]
    p = engine._Pass(None, None, False, False, True, 0)
    p.buffers[id(z._node)] = [Tensor._wrap(_dev([1.0, 1.0, 1.0]))]
    assert engine._native_propagate(p.buffers, p.leaf_acc, order, False)
    (leaf, g), = p.leaf_acc.values()
    assert leaf is x
    np.testing.assert_array_equal(np.asarray(g._data), 4 * np.array([1.0, 2.0, 3.0]) ** 3)
