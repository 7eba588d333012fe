"""weft.incubate.autograd: vjp, jvp, Jacobian, Hessian, forward_grad, grad and the prim
flags (api-autograd.md §4, §8, §9)."""
import numpy as np
import pytest

import weft
from weft.incubate import autograd as ia


def leaf(values, dtype="float64"):
    return weft.to_tensor(values, dtype=dtype, stop_gradient=False)


def matsq(x):
    return x @ x


V = [[1.0, 0.0], [0.0, 0.0]]


# ----------------------------------------------------------------------------------
# vjp


def test_vjp_observed_values_and_flags():
    x = weft.ones([2, 2])
    out, g = ia.vjp(matsq, x)
    np.testing.assert_allclose(out.numpy(), [[2, 2], [2, 2]])
    np.testing.assert_allclose(g.numpy(), [[4, 4], [4, 4]])
    assert x.stop_gradient is True                      # inputs untouched
    assert out.stop_gradient is False and g.stop_gradient is False
    _, g = ia.vjp(matsq, x, weft.to_tensor(V))
    np.testing.assert_allclose(g.numpy(), [[2, 1], [1, 0]])


def test_vjp_structure_follows_xs():
    x = weft.ones([2, 2])
    _, g = ia.vjp(matsq, [x])
    assert isinstance(g, tuple) and len(g) == 1
    a, b = weft.ones([2]), weft.to_tensor([2.0, 3.0])
    out, (ga, gb) = ia.vjp(lambda a, b: (a * b, a.sum()), (a, b))
    assert isinstance(out, tuple) and len(out) == 2
    np.testing.assert_allclose(ga.numpy(), [3.0, 4.0])
    np.testing.assert_allclose(gb.numpy(), [1.0, 1.0])
    _, (ga, gb) = ia.vjp(lambda a, b: a * 2, [a, b])
    np.testing.assert_allclose(gb.numpy(), [0.0, 0.0])   # unused input: zeros


def test_vjp_keeps_inputs_that_require_grad_and_nests():
    x = leaf([1.0, 2.0])
    out, g = ia.vjp(lambda x: (x ** 3).sum(), x)
    (h,) = weft.grad(g.sum(), x)
    np.testing.assert_allclose(h.numpy(), [6.0, 12.0])
    c = weft.to_tensor([1.0, 2.0])
    _, hv = ia.vjp(lambda x: ia.vjp(lambda y: (y ** 3).sum(), x)[1], c,
                   weft.to_tensor([1.0, 0.0]))
    np.testing.assert_allclose(hv.numpy(), [6.0, 0.0])


def test_vjp_errors():
    x = weft.ones([2, 2])
    with pytest.raises(RuntimeError, match=r"^The v\[0\] has invalid shape: should be \[2, 2\] "
                                           r"but got \[3\]\.$"):
        ia.vjp(matsq, x, weft.ones([3]))
    with pytest.raises(RuntimeError, match="invalid length: should be 1 but got 2"):
        ia.vjp(matsq, x, [weft.ones([2, 2]), weft.ones([2, 2])])
    with pytest.raises(TypeError, match="func must be callable"):
        ia.vjp(3, x)
    with pytest.raises(TypeError, match="xs must be a Tensor"):
        ia.vjp(matsq, 3.0)
    with pytest.raises(TypeError, match=r"xs\[1\] must be a Tensor"):
        ia.vjp(matsq, [x, 1])
    with pytest.raises(TypeError, match="func must return"):
        ia.vjp(lambda x: 3, x)


# ----------------------------------------------------------------------------------
# jvp


def test_jvp_observed_values():
    x = weft.ones([2, 2])
    out, t = ia.jvp(matsq, x)
    np.testing.assert_allclose(t.numpy(), [[4, 4], [4, 4]])
    _, t = ia.jvp(matsq, x, weft.to_tensor(V))
    np.testing.assert_allclose(t.numpy(), [[2, 1], [1, 0]])
    assert t.stop_gradient is False and x.stop_gradient is True


def test_jvp_structure_follows_outputs():
    a, b = weft.to_tensor([1.0, 2.0]), weft.to_tensor([3.0, 4.0])
    out, ts = ia.jvp(lambda a, b: (a * b, weft.exp(a).sum(), b * 0 + 1),
                     [a, b], [weft.ones([2]), weft.zeros([2])])
    assert isinstance(ts, tuple) and len(ts) == 3
    np.testing.assert_allclose(ts[0].numpy(), [3.0, 4.0])
    np.testing.assert_allclose(ts[1].numpy(), np.exp([1.0, 2.0]).sum())
    np.testing.assert_allclose(ts[2].numpy(), [0.0, 0.0])
    _, t = ia.jvp(lambda a: a, a, weft.to_tensor([5.0, 6.0]))
    np.testing.assert_allclose(t.numpy(), [5.0, 6.0])
    _, t = ia.jvp(lambda a: weft.to_tensor([1.0]), a)
    np.testing.assert_allclose(t.numpy(), [0.0])


def test_jvp_matches_jacobian_times_v_and_is_differentiable():
    rng = np.random.default_rng(0)
    W = weft.to_tensor(rng.standard_normal((3, 4)))
    x = leaf(rng.standard_normal(4))
    v = weft.to_tensor(rng.standard_normal(4))
    _, t = ia.jvp(lambda x: weft.tanh(W @ x), x, v)
    J = ia.Jacobian(lambda x: weft.tanh(W @ x), x)[:]
    np.testing.assert_allclose(t.numpy(), J.numpy() @ v.numpy(), rtol=1e-12)
    # second order: d/dx <1, J(x) v>
    (g,) = weft.grad(t.sum(), x)
    eps = 1e-6

    def f(xx):
        return ((1 - np.tanh(W.numpy() @ xx) ** 2) * (W.numpy() @ v.numpy())).sum()

    num = [(f(x.numpy() + eps * e) - f(x.numpy() - eps * e)) / (2 * eps) for e in np.eye(4)]
    np.testing.assert_allclose(g.numpy(), num, rtol=1e-6, atol=1e-8)


def test_jvp_complex_matches_gradcheck():
    z = weft.to_tensor(np.array([1 + 2j, -0.5 + 0.3j]), stop_gradient=False)
    assert weft.autograd.gradcheck(lambda z: (z * z, weft.abs(z)), [z], check_forward_ad=True)


def test_jvp_errors():
    x = weft.ones([2, 2])
    with pytest.raises(RuntimeError, match=r"The v\[0\] has invalid shape"):
        ia.jvp(matsq, x, weft.ones([2]))
    with pytest.raises(TypeError, match="v must be a Tensor"):
        ia.jvp(matsq, x, 1.0)


# ----------------------------------------------------------------------------------
# Jacobian / Hessian


def test_jacobian_flattened_shapes_and_values():
    x = weft.ones([2, 2])
    J = ia.Jacobian(matsq, x)
    assert J.shape == (4, 4)
    want = np.array([[2, 1, 1, 0], [1, 2, 0, 1], [1, 0, 2, 1], [0, 1, 1, 2]], dtype=float)
    np.testing.assert_allclose(J[:].numpy(), want)
    np.testing.assert_allclose(J[1].numpy(), want[1])
    np.testing.assert_allclose(J[:, 2].numpy(), want[:, 2])
    np.testing.assert_allclose(J[1:3, ::2].numpy(), want[1:3, ::2])
    np.testing.assert_allclose(J[..., 0].numpy(), want[:, 0])
    assert len(J._rows.cache) == 4


def test_jacobian_multiple_inputs_and_outputs_concatenated():
    a, b = weft.to_tensor([1.0, 2.0]), weft.to_tensor([3.0])
    J = ia.Jacobian(lambda a, b: (a * b, (a * a).sum()), [a, b])
    assert J.shape == (3, 3)
    np.testing.assert_allclose(J[:].numpy(), [[3, 0, 1], [0, 3, 2], [2, 4, 0]])


def test_jacobian_batched():
    rng = np.random.default_rng(0)
    xb = weft.to_tensor(rng.standard_normal((3, 2, 2)))
    J = ia.Jacobian(lambda x: x * x, xb, is_batched=True)
    assert J.shape == (3, 4, 4)
    full = J[:].numpy()
    for k in range(3):
        np.testing.assert_allclose(full[k], np.diag(2 * xb.numpy()[k].ravel()))
    np.testing.assert_allclose(J[:, 1].numpy(), full[:, 1])
    with pytest.raises(ValueError, match="batch size"):
        ia.Jacobian(lambda x: x[:2], xb, is_batched=True)
    with pytest.raises(ValueError, match="0-D"):
        ia.Jacobian(lambda x: x, weft.to_tensor(1.0), is_batched=True)


def test_jacobian_has_no_operators():
    J = ia.Jacobian(matsq, weft.ones([2, 2]))
    with pytest.raises(TypeError):
        J + 1
    with pytest.raises(TypeError):
        J * J
    with pytest.raises(TypeError, match="is_batched must be a bool"):
        ia.Jacobian(matsq, weft.ones([2, 2]), is_batched=1)


def test_hessian_shapes_values_and_errors():
    a, b = weft.to_tensor([1.0, 2.0]), weft.to_tensor([3.0, 4.0])
    H = ia.Hessian(lambda a, b: (a * a * b).sum(), [a, b])
    assert H.shape == (4, 4)
    want = np.array([[6, 0, 2, 0], [0, 8, 0, 4], [2, 0, 0, 0], [0, 4, 0, 0]], dtype=float)
    np.testing.assert_allclose(H[:].numpy(), want)
    msg = (r"^The function given to Hessian should return as single element Tensor or batched "
           r"single element Tensor\.$")
    with pytest.raises(RuntimeError, match=msg):
        ia.Hessian(lambda x: x * x, a)
    with pytest.raises(RuntimeError, match=msg):
        ia.Hessian(lambda x: (x.sum(), x.sum()), a)
    xb = weft.to_tensor(np.arange(6.0).reshape(3, 2))
    Hb = ia.Hessian(lambda x: (x ** 3).sum(1), xb, is_batched=True)
    assert Hb.shape == (3, 2, 2)
    for k in range(3):
        np.testing.assert_allclose(Hb[k].numpy(), np.diag(6 * xb.numpy()[k]))
    with pytest.raises(RuntimeError, match=msg):
        ia.Hessian(lambda x: x * 1, xb, is_batched=True)


# ----------------------------------------------------------------------------------
# forward_grad / grad / prim flags


def test_forward_grad_eager():
    x = leaf([1.0, 2.0])
    y = weft.sin(x) * x
    t = ia.forward_grad(y, x)
    np.testing.assert_allclose(t.numpy(), np.cos([1.0, 2.0]) * [1, 2] + np.sin([1.0, 2.0]))
    v = weft.to_tensor([1.0, 0.0])
    a, b = ia.forward_grad([y, x * 3], [x], [v])
    np.testing.assert_allclose(a.numpy(), [np.cos(1.0) + np.sin(1.0), 0.0])
    np.testing.assert_allclose(b.numpy(), [3.0, 0.0])
    # the user's graph survives: backward still works afterwards
    y.sum().backward()
    assert x.grad is not None


def test_forward_grad_errors():
    x = leaf([1.0, 2.0])
    with weft.no_grad():
        y = x * 2
    with pytest.raises(ValueError, match=r"outputs\[0\] was not recorded"):
        ia.forward_grad(y, x)
    c = weft.to_tensor([1.0])
    with pytest.raises(ValueError, match=r"inputs\[0\] has stop_gradient=True"):
        ia.forward_grad(x * 2, c)
    with pytest.raises(ValueError, match=r"grad_inputs\[0\] has shape \[3\]"):
        ia.forward_grad(x * 2, x, weft.ones([3]))
    with pytest.raises(ValueError, match="grad_inputs has 2 entries"):
        ia.forward_grad(x * 2, x, [weft.ones([2]), weft.ones([2])])


def test_incubate_grad_structure():
    x, u = leaf([1.0, 2.0]), leaf([3.0])
    y = (x * x).sum()
    g = ia.grad(y, x)
    assert isinstance(g, weft.Tensor)
    np.testing.assert_allclose(g.numpy(), [2.0, 4.0])
    y = (x * x).sum()
    gs = ia.grad(y, [x, u])
    assert isinstance(gs, list) and gs[1] is None
    np.testing.assert_allclose(gs[0].numpy(), [2.0, 4.0])


def test_prim_flags():
    assert ia.prim_enabled() is False
    ia.enable_prim()
    try:
        assert ia.prim_enabled() is True
        x = weft.ones([2, 2])
        np.testing.assert_allclose(ia.vjp(matsq, x)[1].numpy(), 4.0)
    finally:
        ia.disable_prim()
    assert ia.prim_enabled() is False
