"""The reverse-mode engine and the autograd members of Tensor (api-autograd.md §1-3, 6, 8)."""
import os
import threading
import warnings

import numpy as np
import pytest

import weft
from weft.autograd.engine import GraphFreedError, Primitive, apply, defvjp
from weft.autograd.inplace import inplace


def leaf(values, dtype="float32"):
    return weft.to_tensor(values, dtype=dtype, stop_gradient=False)


def inplace_scale(t, k, op="scale_"):
    """An in-place update written with the engine's helper (independent of Tensor methods)."""
    return inplace(t, lambda old: old * k, op)


# ----------------------------------------------------------------------------------
# weft.grad


def test_grad_returns_list_even_for_single_input():
    x = leaf([1.0, 2.0])
    res = weft.grad((x * x).sum(), x)
    assert isinstance(res, list) and len(res) == 1
    np.testing.assert_allclose(res[0].numpy(), [2.0, 4.0])
    assert res[0].stop_gradient


def test_grad_non_scalar_output_seeds_ones():
    x = leaf([1.0, 2.0, 3.0])
    (g,) = weft.grad(x ** 2, x)
    np.testing.assert_allclose(g.numpy(), [2.0, 4.0, 6.0])


def test_grad_grad_outputs_entries():
    x = leaf([1.0, 2.0])
    y1, y2 = x * 2, x * 3
    g = weft.grad([y1, y2], [x], grad_outputs=[weft.to_tensor([1.0, 10.0]), None])[0]
    np.testing.assert_allclose(g.numpy(), [2 + 3, 20 + 3])


def test_grad_unused_input_message_exact():
    x = leaf([1.0])
    z = leaf([2.0])
    msg = ("The 1-th input does not appear in the backward graph. Please check the input "
           "tensor or set allow_unused=True to get None result.")
    with pytest.raises(ValueError) as ei:
        weft.grad((x * 2).sum(), [x, z])
    assert str(ei.value) == msg


def test_grad_stop_gradient_input_counts_as_unused():
    x = leaf([1.0])
    c = weft.to_tensor([2.0])
    with pytest.raises(ValueError, match="The 1-th input does not appear"):
        weft.grad((x * c).sum(), [x, c])


def test_grad_allow_unused_gives_none():
    x = leaf([1.0])
    z = leaf([2.0])
    gx, gz = weft.grad((x * 2).sum(), [x, z], allow_unused=True)
    np.testing.assert_allclose(gx.numpy(), [2.0])
    assert gz is None


def test_grad_only_inputs_false_asserts():
    x = leaf([1.0])
    with pytest.raises(AssertionError, match="only_inputs=False is not supported yet"):
        weft.grad((x * 2).sum(), x, only_inputs=False)


def test_grad_create_graph_second_derivative():
    x = leaf([1.0, 2.0])
    (g,) = weft.grad((x ** 3).sum(), x, create_graph=True)
    assert not g.stop_gradient
    np.testing.assert_allclose(g.numpy(), [3.0, 12.0])
    (h,) = weft.grad(g.sum(), x)
    np.testing.assert_allclose(h.numpy(), [6.0, 12.0])


def test_grad_third_derivative():
    x = leaf([0.5], "float64")
    (g1,) = weft.grad(x.sin().sum(), x, create_graph=True)
    (g2,) = weft.grad(g1.sum(), x, create_graph=True)
    (g3,) = weft.grad(g2.sum(), x)
    np.testing.assert_allclose(g3.numpy(), [-np.cos(0.5)], rtol=1e-12)


def test_grad_does_not_touch_dot_grad():
    x = leaf([1.0, 2.0])
    weft.grad((x * x).sum(), x)
    assert x.grad is None


def test_grad_does_not_touch_retained_intermediate_grad():
    x = leaf([1.0, 2.0])
    h = x * 2
    h.retain_grads()
    weft.grad((h * h).sum(), x)
    assert h.grad is None


def test_grad_retain_graph_defaults_to_create_graph():
    x = leaf([1.0])
    y = (x * x).sum()
    weft.grad(y, x)
    with pytest.raises(GraphFreedError):
        weft.grad(y, x)
    y = (x * x).sum()
    weft.grad(y, x, retain_graph=True)
    np.testing.assert_allclose(weft.grad(y, x)[0].numpy(), [2.0])


def test_grad_with_respect_to_intermediate():
    x = leaf([1.0, 2.0])
    h = x * 3
    (gh,) = weft.grad((h * h).sum(), h)
    np.testing.assert_allclose(gh.numpy(), 2 * h.numpy())


def test_no_grad_vars_block_the_path():
    x = leaf([1.0, 2.0])
    h = x * x
    y = (h * x).sum()
    (g,) = weft.grad(y, x, no_grad_vars=[h])
    np.testing.assert_allclose(g.numpy(), h.numpy())   # only the direct x factor
    (g_full,) = weft.grad((x * x * x).sum(), x)
    np.testing.assert_allclose(g_full.numpy(), 3 * x.numpy() ** 2)


def test_no_grad_vars_on_leaf():
    x = leaf([1.0])
    z = leaf([2.0])
    gx, gz = weft.grad((x * z).sum(), [x, z], no_grad_vars=z, allow_unused=True)
    np.testing.assert_allclose(gx.numpy(), [2.0])
    assert gz is None


def test_grad_same_input_twice():
    x = leaf([1.0, 2.0])
    g1, g2 = weft.grad((x * x).sum(), [x, x])
    np.testing.assert_allclose(g1.numpy(), [2.0, 4.0])
    np.testing.assert_allclose(g2.numpy(), [2.0, 4.0])


def test_hook_applies_before_grad_captures_an_intermediate():
    x = leaf([1.0, 2.0])
    h = x * 1
    h.register_hook(lambda g: g * 10)
    np.testing.assert_allclose(weft.grad((h * 2).sum(), h)[0].numpy(), [20.0, 20.0])


def test_grad_outputs_shape_and_dtype_checked():
    x = leaf([1.0, 2.0])
    with pytest.raises(ValueError, match="shape"):
        weft.grad(x * 2, x, grad_outputs=weft.ones([3]))
    # another float dtype is cast, as Paddle does (issue 16); a non-float one is refused
    (g,) = weft.grad(x * 2, x, grad_outputs=weft.ones([2], dtype="float64"))
    assert g.dtype == x.dtype
    with pytest.raises(TypeError, match="dtype"):
        weft.grad(x * 2, x, grad_outputs=weft.ones([2], dtype="int64"))


# ----------------------------------------------------------------------------------
# Tensor.backward and autograd.backward


def test_backward_accumulates_with_retain_graph():
    x = leaf([1.0, 2.0])
    y = (x * 3).sum()
    y.backward(retain_graph=True)
    np.testing.assert_allclose(x.grad.numpy(), [3.0, 3.0])
    y.backward()
    np.testing.assert_allclose(x.grad.numpy(), [6.0, 6.0])


def test_second_backward_raises_graph_freed():
    x = leaf([1.0, 2.0])
    y = (x * x).sum()
    y.backward()
    assert issubclass(GraphFreedError, RuntimeError)
    assert weft.autograd.GraphFreedError is GraphFreedError
    with pytest.raises(GraphFreedError, match="retain_graph=True"):
        y.backward()


def test_graph_freed_even_when_nothing_saved():
    # weft raises uniformly, also for nodes whose vjps read nothing (Paddle re-runs them)
    x = leaf([1.0, 2.0])
    y = (x + 1).sum()
    y.backward()
    with pytest.raises(GraphFreedError):
        y.backward()


def test_backward_non_scalar_seeds_ones():
    x = leaf([1.0, 2.0])
    (x * x).backward()
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 4.0])


def test_backward_with_grad_tensor():
    x = leaf([1.0, 2.0])
    (x * x).backward(weft.to_tensor([1.0, 0.5]))
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 2.0])
    with pytest.raises(ValueError, match="shape"):
        (x * x).backward(weft.ones([3]))
    with pytest.raises(TypeError, match="dtype"):
        (x * x).backward(weft.ones([2], dtype="float64"))


def test_backward_on_stop_gradient_tensor_does_nothing():
    # Paddle: no error, nothing to do (issue 16); the seed is still checked
    t = weft.to_tensor([1.0])
    t.backward()
    assert t.grad is None
    with pytest.raises(ValueError, match="shape"):
        t.backward(weft.ones([2]))


def test_autograd_backward_several_roots():
    a = leaf([1.0])
    b = leaf([1.0])
    weft.autograd.backward([a * 2, b * 3], [weft.ones([1]), None])
    np.testing.assert_allclose(a.grad.numpy(), [2.0])
    np.testing.assert_allclose(b.grad.numpy(), [3.0])


def test_autograd_backward_shared_subgraph():
    a = leaf([2.0])
    h = a * a
    weft.autograd.backward([h * 2, h * 3])
    np.testing.assert_allclose(a.grad.numpy(), [5 * 2 * 2.0])


def test_autograd_backward_length_mismatch():
    a = leaf([1.0])
    with pytest.raises(AssertionError, match="The length of grad_tensors must be equal to "
                                             "tensors"):
        weft.autograd.backward([a * 2, a * 3], [weft.ones([1])])


# ----------------------------------------------------------------------------------
# .grad, clear_grad, retain_grads, is_leaf, gradient()


def test_clear_grad_sets_zeros_and_clear_gradient_false_sets_none():
    x = leaf([1.0, 2.0])
    (x * x).sum().backward()
    x.clear_grad()
    np.testing.assert_array_equal(x.grad.numpy(), [0.0, 0.0])
    assert x.grad.shape == [2] and x.grad.dtype == weft.float32
    x.clear_gradient()
    np.testing.assert_array_equal(x.grad.numpy(), [0.0, 0.0])
    x.clear_gradient(False)
    assert x.grad is None


def test_grad_setter_validates():
    x = leaf([1.0, 2.0])
    x.grad = weft.to_tensor([5.0, 6.0])
    np.testing.assert_allclose(x.grad.numpy(), [5.0, 6.0])
    with pytest.raises(ValueError, match="shape"):
        x.grad = weft.ones([3])
    with pytest.raises(TypeError):
        x.grad = [1.0, 2.0]
    x.grad = None
    assert x.grad is None and x._grad_ivar() is None


def test_retain_grads_on_intermediate():
    x = leaf([1.0])
    h = x * 3
    (h * 1).sum().backward()
    assert h.grad is None
    x2 = leaf([1.0])
    h2 = x2 * 2
    h2.retain_grads()
    (h2 * 3).sum().backward()
    np.testing.assert_allclose(h2.grad.numpy(), [3.0])
    x2.retain_grads()  # no-op on a leaf
    assert h2.is_leaf is False and x2.is_leaf is True


def test_is_leaf_and_stop_gradient_flags():
    x = leaf([1.0])
    c = weft.to_tensor([1.0])
    assert c.stop_gradient and c.is_leaf
    y = x * c
    assert not y.stop_gradient and not y.is_leaf
    z = c * 2
    assert z.stop_gradient and z.is_leaf


def test_gradient_is_deprecated_numpy_accessor():
    x = leaf([1.0, 2.0])
    with pytest.warns(DeprecationWarning):
        assert x.gradient() is None
    (x * 2).sum().backward()
    with pytest.warns(DeprecationWarning):
        g = x.gradient()
    assert isinstance(g, np.ndarray)
    np.testing.assert_allclose(g, [2.0, 2.0])


# ----------------------------------------------------------------------------------
# hooks


def test_intermediate_hook_scales_leaf_grad():
    x = leaf([1.0])
    h = x * 2
    h.register_hook(lambda g: g * 10)
    h.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [20.0])


def test_leaf_hook_sees_grad_and_none_keeps_it():
    x = leaf([1.0, 1.0])
    seen = []
    x.register_hook(lambda g: seen.append(g.numpy().copy()))
    (x * 2).sum().backward()
    np.testing.assert_allclose(seen[0], [2.0, 2.0])
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 2.0])


def test_leaf_hook_sees_the_total_gradient_once():
    x = leaf([1.0, 1.0])
    calls = []
    x.register_hook(lambda g: calls.append(g.numpy().copy()))
    (x * 2 + x * 3).sum().backward()
    assert len(calls) == 1
    np.testing.assert_allclose(calls[0], [5.0, 5.0])


def test_leaf_hook_return_replaces_stored_grad():
    x = leaf([1.0])
    x.register_hook(lambda g: g + 100)
    (x * 2).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [102.0])


def test_hooks_run_in_registration_order_and_remove():
    x = leaf([1.0])
    h = x * 1
    order = []
    h1 = h.register_hook(lambda g: order.append(1))
    h.register_hook(lambda g: order.append(2))
    h.register_hook(lambda g: g * 3)
    h1.remove()
    h.sum().backward()
    assert order == [2]
    np.testing.assert_allclose(x.grad.numpy(), [3.0])


def test_handle_remove_on_leaf():
    x = leaf([1.0])
    handle = x.register_hook(lambda g: g * 10)
    handle.remove()
    handle.remove()  # twice is harmless
    (x * 2).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [2.0])


def test_hook_on_stop_gradient_tensor_raises():
    with pytest.raises(RuntimeError, match="Cannot register hook on a tensor that stop "
                                           "gradient."):
        weft.to_tensor([1.0]).register_hook(lambda g: g)


def test_hook_must_be_callable():
    with pytest.raises(TypeError, match="callable"):
        leaf([1.0]).register_hook(3)


def test_reentrant_backward_inside_hook():
    x = leaf([1.0, 2.0])
    inner = leaf([3.0])
    seen = []

    inner_loss = (inner * inner).sum()

    def hook(g):
        # a nested, independent backward pass from inside the outer traversal
        inner_loss.backward()
        seen.append(inner.grad.numpy().copy())
        # hooks run with grad mode off (create_graph=False): a new graph needs enable_grad
        with weft.enable_grad():
            (inner * 5).sum().backward()
        seen.append(inner.grad.numpy().copy())
        return g * 2

    h = x * 1
    h.register_hook(hook)
    (h * h).sum().backward()
    np.testing.assert_allclose(seen[0], [6.0])
    np.testing.assert_allclose(seen[1], [11.0])
    np.testing.assert_allclose(x.grad.numpy(), 2 * 2 * x.numpy())


def test_reentrant_grad_inside_hook():
    x = leaf([1.0, 2.0])
    y = leaf([4.0])
    out = []

    def hook(g):
        with weft.enable_grad():
            out.append(weft.grad((y ** 2).sum(), y)[0].numpy().copy())

    h = x * 1
    h.register_hook(hook)
    h.sum().backward()
    np.testing.assert_allclose(out[0], [8.0])
    np.testing.assert_allclose(x.grad.numpy(), [1.0, 1.0])


# ----------------------------------------------------------------------------------
# detach, grad mode


def test_detach_shares_memory_and_has_no_history():
    x = leaf([1.0, 2.0])
    y = x * 2
    d = y.detach()
    assert d.stop_gradient and d.is_leaf
    assert np.shares_memory(d.numpy(), y.numpy())
    d.numpy()[0] = 42.0
    assert y.numpy()[0] == 42.0


def test_detach_inplace():
    x = leaf([1.0])
    y = x * 2
    r = y.detach_()
    assert r is y and y.stop_gradient and y.is_leaf


def test_no_grad_context_and_decorators():
    x = leaf([1.0])
    with weft.no_grad():
        assert not weft.is_grad_enabled()
        assert (x * 2).stop_gradient
    assert weft.is_grad_enabled()

    @weft.no_grad()
    def f(t):
        return t * 2

    @weft.no_grad
    def g(t):
        return t * 2

    assert f(x).stop_gradient and g(x).stop_gradient
    assert g.__name__ == "g"
    assert not (x * 2).stop_gradient


def test_no_grad_on_generator():
    x = leaf([1.0])

    @weft.no_grad()
    def gen():
        yield x * 2
        yield x * 3

    assert all(t.stop_gradient for t in gen())
    assert weft.is_grad_enabled()


def test_enable_grad_inside_no_grad():
    x = leaf([1.0])
    with weft.no_grad():
        with weft.enable_grad():
            y = x * 2
        z = x * 2
    assert not y.stop_gradient and z.stop_gradient

    @weft.enable_grad()
    def f(t):
        return t * 2

    with weft.no_grad():
        assert not f(x).stop_gradient


def test_set_grad_enabled_plain_call_and_context():
    x = leaf([1.0])
    weft.set_grad_enabled(False)
    assert weft.is_grad_enabled() is False
    assert (x * 2).stop_gradient
    weft.set_grad_enabled(True)
    assert weft.is_grad_enabled() is True
    with weft.set_grad_enabled(False):
        assert (x * 2).stop_gradient
    assert weft.is_grad_enabled()
    with weft.no_grad():
        with weft.set_grad_enabled(True):
            assert not (x * 2).stop_gradient
        assert not weft.is_grad_enabled()
    with pytest.raises(TypeError, match="bool"):
        weft.set_grad_enabled("yes")


def test_set_grad_enabled_as_decorator():
    x = leaf([1.0])

    @weft.set_grad_enabled(False)
    def f(t):
        return t * 2

    assert weft.is_grad_enabled()  # defining the decorator does not change the mode
    assert f(x).stop_gradient
    assert weft.is_grad_enabled()


def test_grad_mode_is_thread_local():
    x = leaf([1.0])
    inside = threading.Event()
    release = threading.Event()
    result = {}

    def worker():
        with weft.no_grad():
            result["worker"] = weft.is_grad_enabled()
            inside.set()
            release.wait(5)

    th = threading.Thread(target=worker)
    th.start()
    assert inside.wait(5)
    try:
        result["main"] = weft.is_grad_enabled()
        result["main_op"] = (x * 2).stop_gradient
    finally:
        release.set()
        th.join(5)
    assert result == {"worker": False, "main": True, "main_op": False}


def test_fresh_thread_starts_with_grad_enabled():
    out = []
    with weft.no_grad():
        th = threading.Thread(target=lambda: out.append(weft.is_grad_enabled()))
        th.start()
        th.join(5)
    assert out == [True]


# ----------------------------------------------------------------------------------
# in-place checks


def test_inplace_on_leaf_requiring_grad_raises():
    x = leaf([1.0, 2.0])
    with pytest.raises(ValueError, match="Leaf Tensor that doesn't stop gradient can't use "
                                         "inplace strategy"):
        inplace_scale(x, 2.0)
    with weft.no_grad():
        inplace_scale(x, 2.0)
    np.testing.assert_allclose(x.numpy(), [2.0, 4.0])


def test_inplace_version_counter_detected_at_backward():
    x = leaf([1.0, 2.0])
    h = x * 1
    y = h * h          # saves h
    inplace_scale(h, 3.0)
    with pytest.raises(RuntimeError, match="has been modified by an inplace operation. Its "
                                           "version is 1 but the expected version is 0"):
        y.sum().backward()


def test_inplace_does_not_rewire_earlier_consumers():
    x = leaf([1.0, 2.0])
    h = x + 1
    y = h + 0            # consumes h before the update
    inplace(h, lambda old: -old, "neg_")
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [1.0, 1.0])


def test_inplace_after_use_by_unsaving_op():
    x = leaf([1.0, 2.0])
    h = x + 1
    y = h + 0
    inplace_scale(h, 3.0)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [1.0, 1.0])


def test_inplace_result_differentiates_through_unsaving_update():
    x = leaf([1.0, 2.0])
    h = x * 1
    inplace(h, lambda old: -old, "neg_")
    h.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [-1.0, -1.0])


def test_inplace_result_differentiates_through_update():
    x = leaf([1.0, 2.0])
    h = x * 1
    inplace_scale(h, 3.0)   # old * 3: multiply saves `old`
    h.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [3.0, 3.0])


def test_inplace_detach_alias_sees_values_and_version():
    x = leaf([1.0, 2.0])
    h = x * 1
    d = h.detach()
    inplace_scale(h, 2.0)
    np.testing.assert_allclose(d.numpy(), [2.0, 4.0])
    assert d._version is h._version and h._version[0] == 1


def test_inplace_through_flatten_view_detected_at_backward():
    # flatten shares storage with its input (as reshape does), so a write through it
    # must invalidate the nodes that saved the input
    x = leaf([[1.0, 2.0], [3.0, 4.0]])
    h = x * 1
    y = h * h          # saves h
    inplace_scale(weft.flatten(h), 3.0)
    with pytest.raises(RuntimeError, match="has been modified by an inplace operation"):
        y.sum().backward()


def test_inplace_never_promotes():
    t = weft.to_tensor([1, 2], dtype="int32")
    with pytest.raises(TypeError, match="never promote"):
        inplace(t, lambda old: old * 1.5, "scale_")


# ----------------------------------------------------------------------------------
# complex and integer conventions


def test_complex_abs_squared_gradient():
    z = leaf([1 + 2j], "complex64")
    (z * z.conj()).real().sum().backward()
    np.testing.assert_allclose(z.grad.numpy(), [2 + 4j])


def test_complex_real_of_square_gradient():
    z = leaf([1 + 2j], "complex128")
    (g,) = weft.grad((z * z).real().sum(), z)
    np.testing.assert_allclose(g.numpy(), [2 - 4j])


def test_complex_intermediate_real_leaf():
    # a real leaf through a complex intermediate gets a real gradient
    x = leaf([0.5], "float64")
    z = weft.cast(x, "complex128") * (1 + 1j)
    (g,) = weft.grad((z * z.conj()).real().sum(), x)
    assert g.dtype == weft.float64
    np.testing.assert_allclose(g.numpy(), [4 * 0.5])


def test_integer_tensors_never_get_grads():
    i = weft.to_tensor([1, 2], stop_gradient=False)
    y = i * 2
    assert y.stop_gradient and y.is_leaf
    x = leaf([1.0, 1.0])
    z = (weft.cast(i, "float32") * x).sum()
    z.backward()
    assert i.grad is None
    np.testing.assert_allclose(x.grad.numpy(), [1.0, 2.0])


def test_gradient_dtype_matches_leaf_dtype():
    x = leaf([1.0, 2.0], "float32")
    y = weft.cast(x, "float64") * 2
    y.sum().backward()
    assert x.grad.dtype == weft.float32


def test_broadcast_gradient_summed_to_shape():
    x = leaf([[1.0], [2.0]])
    w = leaf([1.0, 2.0, 3.0])
    (x * w).sum().backward()
    assert x.grad.shape == [2, 1] and w.grad.shape == [3]
    np.testing.assert_allclose(x.grad.numpy(), [[6.0], [6.0]])
    np.testing.assert_allclose(w.grad.numpy(), [3.0, 3.0, 3.0])


# ----------------------------------------------------------------------------------
# multi-output primitives


_split = Primitive("test_two_outputs", lambda x: (x * 2, x * 3), n_out=2)


def _split_vjp(g, ans, x):
    g0, g1 = g
    return g0 * 2 + g1 * 3


defvjp(_split, _split_vjp, save=(), save_out=False)


def test_unused_output_of_multi_output_op_gets_zero_cotangent():
    x = leaf([1.0, 2.0])
    a, b = apply(_split, x)
    assert not a.stop_gradient and not b.stop_gradient
    a.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 2.0])
    x2 = leaf([1.0, 2.0])
    _, b2 = apply(_split, x2)
    (g,) = weft.grad(b2.sum(), x2)
    np.testing.assert_allclose(g.numpy(), [3.0, 3.0])


def test_both_outputs_used():
    x = leaf([1.0])
    a, b = apply(_split, x)
    (a * 10 + b).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [23.0])


def test_missing_vjp_names_the_primitive():
    raw = Primitive("test_rawcos", np.cos)
    x = leaf([1.0])
    y = apply(raw, x)
    with pytest.raises(RuntimeError, match="test_rawcos is not differentiable"):
        y.sum().backward()


# ----------------------------------------------------------------------------------
# graph dump


def test_dump_backward_graph_path_writes_dot(tmp_path):
    x = leaf([1.0, 2.0])
    y = (x.exp() * x).sum()
    p = tmp_path / "g.dot"
    y.backward(dump_backward_graph_path=str(p))
    text = p.read_text()
    assert text.startswith("digraph")
    assert "exp" in text and "multiply" in text and "sum" in text and "leaf" in text
    np.testing.assert_allclose(x.grad.numpy(), np.exp([1.0, 2.0]) * [2.0, 3.0], rtol=1e-6)


def test_dump_from_weft_grad(tmp_path):
    x = leaf([1.0])
    p = os.path.join(tmp_path, "h.dot")
    weft.grad((x * x).sum(), x, dump_backward_graph_path=p)
    with open(p) as f:
        assert "digraph backward" in f.read()


def test_no_warnings_in_simple_backward():
    x = leaf([1.0, 2.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        (x.sin() * x).sum().backward()


def test_grad_through_a_freed_intermediate_raises_graph_freed():
    # the second graph shares y1's node, which the first weft.grad freed: pruning must
    # not hide that behind "does not appear in the backward graph"
    x = weft.to_tensor([1.0, 2.0], stop_gradient=False)
    y1 = x * x
    z1, z2 = y1.sum(), (y1 * 2).sum()
    weft.grad(z1, x)
    with pytest.raises(weft.autograd.GraphFreedError, match="retain_graph=True"):
        weft.grad(z2, x)
