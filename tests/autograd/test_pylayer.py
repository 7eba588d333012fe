"""PyLayer / PyLayerContext / once_differentiable and saved_tensors_hooks
(api-autograd.md §2, §5, §6.5, §8)."""
import threading

import numpy as np
import pytest

import weft
from weft.autograd.function import Function, PyLayer, PyLayerContext, once_differentiable
from weft.autograd.saved_hooks import saved_tensors_hooks


def leaf(values, dtype="float64"):
    return weft.to_tensor(values, dtype=dtype, stop_gradient=False)


class Scale(PyLayer):
    @staticmethod
    def forward(ctx, x, k=2.0):
        ctx.k = k
        ctx.grad_mode = weft.is_grad_enabled()
        y = x * k
        ctx.inner_stop = y.stop_gradient
        return y

    @staticmethod
    def backward(ctx, dy):
        return dy * ctx.k


class Tanh(PyLayer):
    @staticmethod
    def forward(ctx, x):
        y = weft.tanh(x)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, dy):
        (y,) = ctx.saved_tensor()
        return dy * (1 - y * y)


# ----------------------------------------------------------------------------------
# forward / apply


def test_function_is_pylayer():
    assert Function is PyLayer


def test_kwargs_reach_forward_and_grad_mode_off_inside():
    x = leaf([1.0, 2.0])
    ctxs = []

    class Spy(Scale):
        @staticmethod
        def forward(ctx, x, k=2.0):
            ctxs.append(ctx)
            return Scale.forward(ctx, x, k)

    y = Spy.apply(x, k=3.0)
    assert isinstance(ctxs[0], PyLayerContext)
    assert ctxs[0].grad_mode is False and ctxs[0].inner_stop is True
    assert y.stop_gradient is False
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [3.0, 3.0])


def test_outputs_stop_gradient_when_no_input_requires_grad():
    x = weft.to_tensor([1.0, 2.0])
    assert Scale.apply(x).stop_gradient
    with weft.no_grad():
        assert Scale.apply(leaf([1.0])).stop_gradient


def test_multi_output_and_non_tensor_outputs_pass_through():
    class Split(PyLayer):
        @staticmethod
        def forward(ctx, x):
            return x * 2, "tag", x * 3

        @staticmethod
        def backward(ctx, da, db):
            return da * 2 + db * 3

    x = leaf([1.0, 2.0])
    a, tag, b = Split.apply(x)
    assert tag == "tag"
    (a.sum() + b.sum()).backward()
    np.testing.assert_allclose(x.grad.numpy(), [5.0, 5.0])


def test_list_output_stays_a_list():
    class L(PyLayer):
        @staticmethod
        def forward(ctx, x):
            return [x * 2]

        @staticmethod
        def backward(ctx, d):
            return d * 2

    out = L.apply(leaf([1.0]))
    assert isinstance(out, list) and not out[0].stop_gradient


def test_non_tensor_args_are_skipped_in_backward_results():
    class Mix(PyLayer):
        @staticmethod
        def forward(ctx, x, k, y):
            return x * k + y

        @staticmethod
        def backward(ctx, d):
            return d * 2.0, d

    x, y = leaf([1.0]), leaf([1.0])
    Mix.apply(x, 2.0, y).sum().backward()
    assert x.grad.tolist() == [2.0] and y.grad.tolist() == [1.0]


def test_torch_style_backward_with_none_for_non_tensors():
    class Mix(PyLayer):
        @staticmethod
        def forward(ctx, x, k, y):
            return x * k + y

        @staticmethod
        def backward(ctx, d):
            return d * 2.0, None, d

    x, y = leaf([1.0]), leaf([1.0])
    Mix.apply(x, 2.0, y).sum().backward()
    assert x.grad.tolist() == [2.0] and y.grad.tolist() == [1.0]


def test_returning_input_keeps_its_history():
    class Ident(PyLayer):
        @staticmethod
        def forward(ctx, x):
            ctx.mark_not_inplace(x)
            return x

        @staticmethod
        def backward(ctx, d):
            return d * 10

    x = leaf([1.0, 2.0])
    h = x * 2
    y = Ident.apply(h)
    assert y is not h and h._node is not y._node
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [20.0, 20.0])


def test_base_class_needs_forward_and_backward():
    class NoBackward(PyLayer):
        @staticmethod
        def forward(ctx, x):
            return x

    # Paddle: a missing backward is an error when backward runs, not at apply (issue 16)
    y = NoBackward.apply(leaf([1.0]) * 1)
    with pytest.raises(NotImplementedError, match="defines no backward"):
        y.backward()
    with pytest.raises(TypeError, match="apply"):
        Scale()


# ----------------------------------------------------------------------------------
# backward results


def test_backward_returning_too_few_values_message():
    class Two(PyLayer):
        @staticmethod
        def forward(ctx, x, y):
            return x + y

        @staticmethod
        def backward(ctx, d):
            return d

    out = Two.apply(leaf([1.0]), leaf([2.0]))
    with pytest.raises(ValueError, match="^backward function should not return empty at 1 "
                                         "position$"):
        out.backward()


def test_backward_returning_too_many_values():
    class One(PyLayer):
        @staticmethod
        def forward(ctx, x):
            return x * 1

        @staticmethod
        def backward(ctx, d):
            return d, d

    with pytest.raises(ValueError, match="returned 2 gradients"):
        One.apply(leaf([1.0])).backward()


def test_none_gradient_for_any_input():
    class NoneFor(PyLayer):
        @staticmethod
        def forward(ctx, x, y):
            return x * y

        @staticmethod
        def backward(ctx, d):
            return None, d

    x, y = leaf([1.0]), leaf([2.0])
    NoneFor.apply(x, y).backward()
    assert x.grad is None and y.grad.tolist() == [1.0]


def test_wrong_gradient_shape_raises_and_dtype_is_cast():
    class BadShape(PyLayer):
        @staticmethod
        def forward(ctx, x):
            return x * 1

        @staticmethod
        def backward(ctx, d):
            return weft.ones([3], dtype="float64")

    with pytest.raises(ValueError, match=r"has shape \[3\] but the input has shape \[1\]"):
        BadShape.apply(leaf([1.0])).backward()

    class OtherDtype(PyLayer):
        @staticmethod
        def forward(ctx, x):
            return x * 1

        @staticmethod
        def backward(ctx, d):
            return weft.ones([1], dtype="float64")

    x = leaf([1.0], dtype="float32")
    OtherDtype.apply(x).backward()
    assert x.grad.dtype == weft.float32

    class NotATensor(PyLayer):
        @staticmethod
        def forward(ctx, x):
            return x * 1

        @staticmethod
        def backward(ctx, d):
            return 1.0

    with pytest.raises(ValueError, match="must be a Tensor or None"):   # Paddle: ValueError
        NotATensor.apply(leaf([1.0])).backward()


# ----------------------------------------------------------------------------------
# context


def test_mark_non_differentiable_gets_zero_grad():
    seen = []

    class MaxArg(PyLayer):
        @staticmethod
        def forward(ctx, x):
            v = weft.max(x)
            idx = weft.argmax(x)
            ctx.mark_non_differentiable(idx)
            ctx.save_for_backward(x)
            return v, idx

        @staticmethod
        def backward(ctx, dv, didx):
            seen.append(didx)
            (x,) = ctx.saved_tensor()
            return weft.cast(x == weft.max(x), x.dtype) * dv

    x = leaf([1.0, 3.0, 2.0])
    v, idx = MaxArg.apply(x)
    assert not v.stop_gradient and idx.stop_gradient
    v.backward()
    assert seen[0] is not None and seen[0].numpy().tolist() == 0
    np.testing.assert_allclose(x.grad.numpy(), [0.0, 1.0, 0.0])


def test_mark_non_differentiable_float_output():
    class Two(PyLayer):
        @staticmethod
        def forward(ctx, x):
            a, b = x * 2, x * 3
            ctx.mark_non_differentiable(b)
            return a, b

        @staticmethod
        def backward(ctx, da, db):
            assert float(db.sum()) == 0.0
            return da * 2

    a, b = Two.apply(leaf([1.0]))
    assert b.stop_gradient and not a.stop_gradient


@pytest.mark.parametrize("materialize", [True, False])
def test_set_materialize_grads(materialize):
    seen = []

    class Two(PyLayer):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(materialize)
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, da, db):
            seen.append(db)
            return da * 2

    x = leaf([1.0])
    a, b = Two.apply(x)
    a.sum().backward()
    if materialize:
        assert seen[0].tolist() == [0.0]
    else:
        assert seen[0] is None
    assert x.grad.tolist() == [2.0]


def test_set_grad_in_dtype_consistent_casts_incoming_grads():
    seen = []

    class F(PyLayer):
        @staticmethod
        def forward(ctx, x):
            ctx.set_grad_in_dtype_consistent(True)
            return weft.cast(x, "float32")

        @staticmethod
        def backward(ctx, d):
            seen.append(d.dtype)
            return weft.cast(d, "float64")

    x = leaf([1.0])
    F.apply(x).backward(weft.ones([1], dtype="float32"))
    assert seen == [weft.float32] and x.grad.dtype == weft.float64
    ctx = PyLayerContext()
    with pytest.raises(TypeError, match="must be a bool"):
        ctx.set_grad_in_dtype_consistent("yes")
    with pytest.raises(TypeError, match="must be a bool"):
        ctx.set_materialize_grads(1)


def test_ctx_argument_checks():
    ctx = PyLayerContext()
    with pytest.raises(TypeError, match="save_for_backward: argument 0"):
        ctx.save_for_backward([1.0])
    with pytest.raises(TypeError, match="mark_non_differentiable"):
        ctx.mark_non_differentiable(1)
    with pytest.raises(TypeError, match="mark_not_inplace"):
        ctx.mark_not_inplace("x")
    assert ctx.saved_tensor() == ()
    ctx.save_for_backward(None, weft.ones([1]))
    a, b = ctx.saved_tensor()
    assert a is None and b.shape == [1]


def test_saved_tensor_version_check():
    class Sq(PyLayer):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, d):
            (x,) = ctx.saved_tensor()
            return 2 * x * d

    x = leaf([1.0, 2.0])
    h = x * 1
    y = Sq.apply(h)
    with weft.no_grad():
        h.scale_(2.0) if hasattr(h, "scale_") else h.add_(weft.ones([2], dtype="float64"))
    with pytest.raises(RuntimeError, match="modified by an inplace operation. Its version is 1 "
                                           "but the expected version is 0"):
        y.sum().backward()


# ----------------------------------------------------------------------------------
# higher order, reentrancy, once_differentiable


def test_double_backward_through_tanh_pylayer():
    x = leaf([0.5])
    y = Tanh.apply(x)
    (g,) = weft.grad(y, x, create_graph=True)
    assert not g.stop_gradient
    np.testing.assert_allclose(g.numpy(), 1 - np.tanh(0.5) ** 2)
    (gg,) = weft.grad(g, x)
    np.testing.assert_allclose(gg.numpy(), [-0.7269], atol=1e-4)


def test_retain_graph_runs_backward_twice():
    x = leaf([0.5, 1.0])
    y = Tanh.apply(x).sum()
    y.backward(retain_graph=True)
    y.backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * (1 - np.tanh([0.5, 1.0]) ** 2))


def test_user_backward_runs_once_per_traversal():
    calls = []

    class Mul(PyLayer):
        @staticmethod
        def forward(ctx, x, y):
            ctx.save_for_backward(x, y)
            return x * y

        @staticmethod
        def backward(ctx, d):
            calls.append(1)
            x, y = ctx.saved_tensor()
            return d * y, d * x

    x, y = leaf([2.0]), leaf([3.0])
    out = Mul.apply(x, y)
    out.backward(retain_graph=True)
    assert len(calls) == 1 and x.grad.tolist() == [3.0] and y.grad.tolist() == [2.0]
    gx, gy = weft.grad(out, [x, y], retain_graph=True)
    assert len(calls) == 2 and gx.tolist() == [3.0] and gy.tolist() == [2.0]
    (gy,) = weft.grad(out, [y])          # pruned: only y is asked for
    assert len(calls) == 3 and gy.tolist() == [2.0]


def test_pylayer_in_a_larger_graph_with_hooks():
    x = leaf([1.0, 2.0])
    h = x * 3
    y = Scale.apply(h, k=2.0)
    y.register_hook(lambda g: g * 10)
    (y * y).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * (2 * 3 * np.array([1.0, 2.0])) * 10 * 2 * 3)


def test_backward_inside_pylayer_backward_reentrant():
    class Reent(PyLayer):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return weft.sin(x)

        @staticmethod
        def backward(ctx, d):
            (x,) = ctx.saved_tensor()
            with weft.enable_grad():
                xx = x.detach()
                xx.stop_gradient = False
                inner = weft.sin(xx).sum()
                (g,) = weft.grad(inner, xx)
                z = x.detach()
                z.stop_gradient = False
                (weft.sin(z) * 2).sum().backward()
            ctx.z = z
            return d * g

    x = leaf([0.3, 0.7])
    y = Reent.apply(x * 1.0)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.cos([0.3, 0.7]))


def test_backward_inside_hook_reentrant():
    x = leaf([1.0, 2.0])
    h = x * 2
    inner = []

    def hook(g):
        a = leaf([3.0])
        with weft.enable_grad():   # hooks run with grad mode = create_graph
            (a * a).sum().backward()
        inner.append(a.grad.tolist())
        return g

    h.register_hook(hook)
    h.sum().backward()
    assert inner == [[6.0]]
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 2.0])


def test_once_differentiable():
    class Sq(PyLayer):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        @once_differentiable
        def backward(ctx, d):
            assert not weft.is_grad_enabled()
            (x,) = ctx.saved_tensor()
            return 2 * x * d

    x = leaf([1.0, 2.0])
    y = Sq.apply(x).sum()
    (g,) = weft.grad(y, x, create_graph=True)
    np.testing.assert_allclose(g.numpy(), [2.0, 4.0])
    with pytest.raises(RuntimeError, match="once_differentiable"):
        weft.grad(g.sum(), x)
    x2 = leaf([1.0])
    Sq.apply(x2).backward()
    assert x2.grad.tolist() == [2.0]
    with pytest.raises(TypeError, match="once_differentiable"):
        once_differentiable(3)


def test_pylayer_gradcheck():
    rng = np.random.default_rng(0)
    x = leaf(rng.uniform(-1, 1, (3, 2)))
    assert weft.autograd.gradcheck(Tanh.apply, [x])
    assert weft.autograd.gradgradcheck(Tanh.apply, [x])


def test_pylayer_complex():
    class Conj(PyLayer):
        @staticmethod
        def forward(ctx, z):
            return weft.conj(z)

        @staticmethod
        def backward(ctx, d):
            return weft.conj(d)

    z = weft.to_tensor(np.array([1 + 2j, 3 - 1j]), stop_gradient=False)
    assert weft.autograd.gradcheck(Conj.apply, [z])


# ----------------------------------------------------------------------------------
# saved_tensors_hooks


def _logging_hooks(log):
    def pack(t):
        log.append("pack")
        return ("box", t.numpy().copy())

    def unpack(obj):
        log.append("unpack")
        return weft.to_tensor(obj[1])

    return pack, unpack


def test_saved_tensors_hooks_pack_unpack_counts():
    log = []
    a = leaf([1.0, 2.0], dtype="float32")
    with saved_tensors_hooks(*_logging_hooks(log)):
        y = a * a
    assert log == ["pack", "pack"]
    y.sum().backward()
    assert log == ["pack", "pack", "unpack", "unpack"]
    np.testing.assert_allclose(a.grad.numpy(), [2.0, 4.0])


def test_saved_tensors_hooks_value_replaced_by_unpack():
    # the unpacked value is what the rule reads: proves the rule does not use the original
    a = leaf([1.0, 2.0])
    with saved_tensors_hooks(lambda t: t, lambda t: t * 0 + 5):
        y = (a * a).sum()
    y.backward()
    np.testing.assert_allclose(a.grad.numpy(), [10.0, 10.0])


def test_saved_tensors_hooks_saved_outputs_and_create_graph():
    log = []
    x = leaf([0.3, -0.4])
    with saved_tensors_hooks(*_logging_hooks(log)):
        y = weft.tanh(x) * x
    (g,) = weft.grad(y.sum(), x, create_graph=True)
    (gg,) = weft.grad(g.sum(), x)
    t = np.tanh([0.3, -0.4])
    s = 1 - t ** 2
    np.testing.assert_allclose(g.numpy(), s * [0.3, -0.4] + t)
    np.testing.assert_allclose(gg.numpy(), 2 * s + np.array([0.3, -0.4]) * (-2 * t * s))
    assert log.count("pack") >= 2 and log.count("unpack") >= 2


def test_saved_tensors_hooks_nested_innermost_applies_and_no_hooks_outside():
    outer, inner = [], []
    x = leaf([1.0])
    with saved_tensors_hooks(*_logging_hooks(outer)):
        with saved_tensors_hooks(*_logging_hooks(inner)):
            y = x * x
        z = x * x
    w = x * x
    assert inner == ["pack", "pack"] and outer == ["pack", "pack"]
    (y + z + w).backward()
    assert inner.count("unpack") == 2 and outer.count("unpack") == 2
    assert x.grad.tolist() == [6.0]


def test_saved_tensors_hooks_apply_to_pylayer_saves():
    log = []
    x = leaf([0.5])
    with saved_tensors_hooks(*_logging_hooks(log)):
        y = Tanh.apply(x)
    assert "pack" in log
    y.backward()
    assert "unpack" in log
    np.testing.assert_allclose(x.grad.numpy(), 1 - np.tanh([0.5]) ** 2)


def test_saved_tensors_hooks_thread_local_and_errors():
    log = []
    x = leaf([1.0])
    res = []
    with saved_tensors_hooks(*_logging_hooks(log)):
        th = threading.Thread(target=lambda: res.append(x * x))
        th.start()
        th.join()
    assert log == []
    with pytest.raises(TypeError, match="pack_hook must be callable"):
        saved_tensors_hooks(1, lambda t: t)
    with pytest.raises(TypeError, match="unpack_hook must be callable"):
        saved_tensors_hooks(lambda t: t, None)
    with saved_tensors_hooks(lambda t: t, lambda o: "nope"):
        y = x * x
    with pytest.raises(TypeError, match="unpack_hook must return a Tensor"):
        y.backward()
    with saved_tensors_hooks(lambda t: t, lambda o: weft.ones([3], dtype="float64")):
        y = x * x
    with pytest.raises(ValueError, match="unpack_hook returned shape"):
        y.backward()
