"""weft.autograd.jacobian / hessian and their lazy Jacobian / Hessian objects
(api-autograd.md §4, §8)."""
import numpy as np
import pytest

import weft
from weft.autograd.functional import Hessian, Jacobian, hessian, jacobian


def leaf(values, dtype="float64"):
    return weft.to_tensor(values, dtype=dtype, stop_gradient=False)


def rows_evaluated(J):
    return len(J._rows.cache)


# ----------------------------------------------------------------------------------
# shapes and nesting


def test_unbatched_shapes_and_indexing():
    x = leaf([1.0, 2.0, 3.0])
    J = jacobian(x * x, x)
    assert isinstance(J, Jacobian) and J.shape == [3, 3]
    assert J[1].shape == [3] and J[1, :].shape == [3] and J[:, 1].shape == [3]
    assert J[1, 2].shape == []
    np.testing.assert_allclose(J[:].numpy(), np.diag([2.0, 4.0, 6.0]))
    np.testing.assert_allclose(J[..., 1].numpy(), [0.0, 4.0, 0.0])   # weft+ Ellipsis
    np.testing.assert_allclose(J[1, ...].numpy(), [0.0, 4.0, 0.0])
    np.testing.assert_allclose(J[[2, 0]].numpy(), [[0, 0, 6.0], [2.0, 0, 0]])
    np.testing.assert_allclose(J[-1].numpy(), [0, 0, 6.0])
    np.testing.assert_allclose(J[1:].numpy(), [[0, 4.0, 0], [0, 0, 6.0]])
    assert J[2:2].shape == [0, 3]


def test_scalar_output_and_scalar_input_drop_axes():
    x = leaf([1.0, 2.0, 3.0])
    J = jacobian((x * x).sum(), x)
    assert J.shape == [3]
    np.testing.assert_allclose(J[:].numpy(), [2.0, 4.0, 6.0])
    np.testing.assert_allclose(J[1].numpy(), 4.0)
    s = leaf(2.0)
    Jx = jacobian(x * s, s)
    assert Jx.shape == [3]
    np.testing.assert_allclose(Jx[:].numpy(), [1.0, 2.0, 3.0])
    np.testing.assert_allclose(Jx[2].numpy(), 3.0)
    J0 = jacobian(s * s, s)
    assert J0.shape == []
    with pytest.raises(IndexError, match=r"^0-D tensor can not be indexed\.$"):
        J0[0]
    np.testing.assert_allclose((J0 * 2).numpy(), 8.0)
    np.testing.assert_allclose(J0.numpy(), 4.0)


def test_batched_shapes():
    rng = np.random.default_rng(0)
    xb = leaf(rng.uniform(size=(4, 3)))
    J = jacobian(xb * xb, xb, batch_axis=0)
    assert J.shape == [4, 3, 3]
    full = J[:].numpy()
    for b in range(4):
        np.testing.assert_allclose(full[b], np.diag(2 * xb.numpy()[b]))
    np.testing.assert_allclose(J[1].numpy(), full[1])
    np.testing.assert_allclose(J[:, 2].numpy(), full[:, 2])
    np.testing.assert_allclose(J[..., 0].numpy(), full[..., 0])
    x1 = leaf(rng.uniform(size=4))
    J1 = jacobian(x1 * 3, x1, batch_axis=0)
    assert J1.shape == [4, 1, 1]
    np.testing.assert_allclose(J1[:].numpy(), np.full((4, 1, 1), 3.0))
    with pytest.raises(ValueError, match="batch size"):
        jacobian(xb[:2] * 1, xb, batch_axis=0)


def test_nesting_structures():
    a, b = leaf([1.0, 2.0]), leaf([3.0])
    y1, y2 = a * b, (a * a).sum()
    both = jacobian([y1, y2], [a, b])
    assert isinstance(both, tuple) and len(both) == 2 and all(len(r) == 2 for r in both)
    assert [[J.shape for J in r] for r in both] == [[[2, 2], [2, 1]], [[2], [1]]]
    ys_only = jacobian((y1, y2), a)
    assert isinstance(ys_only, tuple) and [J.shape for J in ys_only] == [[2, 2], [2]]
    xs_only = jacobian(y1, [a, b])
    assert isinstance(xs_only, tuple) and [J.shape for J in xs_only] == [[2, 2], [2, 1]]
    np.testing.assert_allclose(xs_only[1][:].numpy(), [[1.0], [2.0]])
    np.testing.assert_allclose(both[1][0][:].numpy(), [2.0, 4.0])
    # the blocks of one y share their rows: one VJP per row for all xs
    assert xs_only[0]._rows is xs_only[1]._rows and rows_evaluated(xs_only[0]) == 2
    np.testing.assert_allclose(xs_only[0][:].numpy(), np.diag([3.0, 3.0]))


def test_unused_x_gives_zeros():
    a, u = leaf([1.0, 2.0]), leaf([5.0])
    J = jacobian(a * 2, u)
    np.testing.assert_allclose(J[:].numpy(), [[0.0], [0.0]])
    c = weft.to_tensor([1.0, 2.0])
    np.testing.assert_allclose(jacobian(c * 2, a)[:].numpy(), np.zeros((2, 2)))


# ----------------------------------------------------------------------------------
# laziness, caching, differentiability


def test_lazy_rows_and_cache():
    x = leaf([1.0, 2.0, 3.0, 4.0])
    J = jacobian(weft.sin(x), x)
    assert rows_evaluated(J) == 0
    J[1]
    assert rows_evaluated(J) == 1
    J[1, 2]
    J[0:2]
    assert rows_evaluated(J) == 2
    J[:, 3]
    assert rows_evaluated(J) == 4
    r1 = J._rows.row(1)
    J[1]
    assert J._rows.row(1) is r1
    assert "rows evaluated: 4/4" in repr(J)


def test_rows_are_differentiable():
    x = leaf([0.5, -1.0])
    J = jacobian(weft.sin(x) * x, x)
    r = J[0]
    assert r.stop_gradient is False
    # d/dx0 of J[0,0] = d/dx0 (cos(x0) x0 + sin(x0)) = -sin x0 x0 + 2 cos x0
    (g,) = weft.grad(r[0], x, allow_unused=True)
    np.testing.assert_allclose(g.numpy()[0], -np.sin(0.5) * 0.5 + 2 * np.cos(0.5))


def test_operators_and_attribute_forwarding():
    x = leaf([1.0, 2.0])
    J = jacobian(x * x, x)
    M = np.diag([2.0, 4.0])
    for got, want in [(J + 1, M + 1), (1 + J, 1 + M), (J - 1, M - 1), (1 - J, 1 - M),
                      (J * 2, M * 2), (2 * J, 2 * M), (J / 2, M / 2), (J ** 2, M ** 2),
                      (J // 3, M // 3), (J % 3, M % 3), (J @ J, M @ M), (J + J, 2 * M),
                      (-J, -M)]:
        assert isinstance(got, weft.Tensor)
        np.testing.assert_allclose(got.numpy(), want)
    for got, want in [(J == J, M == M), (J != 0, M != 0), (J < 3, M < 3), (J <= 2, M <= 2),
                      (J > 2, M > 2), (J >= 2, M >= 2)]:
        np.testing.assert_array_equal(got.numpy(), want)
    np.testing.assert_allclose(J.numpy(), M)
    assert J.dtype == weft.float64
    np.testing.assert_allclose(np.asarray(J), M)
    rows = [r.numpy() for r in J]
    np.testing.assert_allclose(rows, M)
    with pytest.raises(TypeError):
        len(J)
    with pytest.raises(AttributeError):
        J._missing


# ----------------------------------------------------------------------------------
# errors


def test_jacobian_argument_errors():
    x = leaf([1.0, 2.0])
    with pytest.raises(ValueError, match=r"^batch_axis should be None or 0, but got 1\.$"):
        jacobian(x * 2, x, batch_axis=1)
    m = leaf(np.ones((2, 2)))
    with pytest.raises(ValueError, match="^xs.ndim should be 0 or 1 when is_batched=False but "
                                         "got 2$"):
        jacobian(x * 2, m)
    with pytest.raises(ValueError, match="^ys.ndim should be 0 or 1 when is_batched=False but "
                                         "got 2$"):
        jacobian(m * 2, x)
    with pytest.raises(ValueError, match="xs.ndim should be 1 or 2 when is_batched=True"):
        jacobian(x * 2, leaf(1.0), batch_axis=0)
    with pytest.raises(TypeError, match="xs must be a Tensor"):
        jacobian(x * 2, 3.0)
    with pytest.raises(TypeError, match=r"ys\[1\] must be a Tensor"):
        jacobian([x, 1], x)
    J = jacobian(x * x, x)
    with pytest.raises(IndexError, match="out of range"):
        J[2]
    with pytest.raises(IndexError, match="too many indices"):
        J[0, 0, 0]
    with pytest.raises(IndexError, match="single ellipsis"):
        J[..., ...]
    with pytest.raises(TypeError, match="ys must be a Tensor"):
        Jacobian([x], x)


# ----------------------------------------------------------------------------------
# hessian


def test_hessian_values_and_shapes():
    x = leaf([1.0, 2.0])
    H = hessian((x ** 3).sum(), x)
    assert isinstance(H, Hessian) and H.shape == [2, 2]
    np.testing.assert_allclose(H[:].numpy(), [[6.0, 0.0], [0.0, 12.0]])
    s = leaf(3.0)
    Hs = hessian(s ** 3, s)
    assert Hs.shape == []
    np.testing.assert_allclose(Hs.numpy(), 18.0)
    H1 = hessian((x ** 3).sum().reshape([1]), x)
    np.testing.assert_allclose(H1[:].numpy(), [[6.0, 0.0], [0.0, 12.0]])
    H2 = Hessian((x ** 3).sum(), x)
    np.testing.assert_allclose(H2[1].numpy(), [0.0, 12.0])


def test_hessian_batched():
    rng = np.random.default_rng(1)
    xb = leaf(rng.uniform(size=(3, 2)))
    H = hessian((xb ** 3).sum(1), xb, batch_axis=0)
    assert H.shape == [3, 2, 2]
    for b in range(3):
        np.testing.assert_allclose(H[b].numpy(), np.diag(6 * xb.numpy()[b]))
    H1 = hessian((xb ** 3).sum(1, keepdim=True), xb, batch_axis=0)
    np.testing.assert_allclose(H1[:].numpy(), H[:].numpy())


def test_hessian_sequence_blocks():
    a, b = leaf([1.0, 2.0]), leaf([3.0])
    f = (a * a * b).sum() + (b ** 3).sum()
    H = hessian(f, [a, b])
    assert isinstance(H, tuple) and all(isinstance(r, tuple) and len(r) == 2 for r in H)
    assert [[h.shape for h in r] for r in H] == [[[2, 2], [2, 1]], [[1, 2], [1, 1]]]
    np.testing.assert_allclose(H[0][0][:].numpy(), [[6.0, 0.0], [0.0, 6.0]])
    np.testing.assert_allclose(H[0][1][:].numpy(), [[2.0], [4.0]])
    np.testing.assert_allclose(H[1][0][:].numpy(), [[2.0, 4.0]])
    np.testing.assert_allclose(H[1][1][:].numpy(), [[18.0]])


def test_hessian_unused_and_linear_give_zeros():
    a, u = leaf([1.0, 2.0]), leaf([4.0])
    H = hessian((a * 3).sum(), [a, u])
    np.testing.assert_allclose(H[0][0][:].numpy(), np.zeros((2, 2)))
    np.testing.assert_allclose(H[1][1][:].numpy(), np.zeros((1, 1)))


def test_hessian_errors():
    x = leaf([1.0, 2.0])
    with pytest.raises(ValueError, match=r"^Only support ys.numel\(\)\(2\)==1 when batch_axis "
                                         r"is None\.$"):
        hessian(x * x, x)
    with pytest.raises(ValueError, match=r"^Only support batch_axis=0 yet\.$"):
        hessian((x * x).sum(), x, batch_axis=1)
    with pytest.raises(ValueError, match="batch_axis"):
        hessian((x * x).sum(), x, batch_axis="0")
    xb = leaf(np.ones((3, 2)))
    with pytest.raises(ValueError, match=r"\[B\] or \[B, 1\]"):
        hessian(xb * xb, xb, batch_axis=0)
    with pytest.raises(TypeError, match="ys must be a Tensor"):
        hessian([x.sum()], x)


def test_check_batched_grad_in_gradcheck_uses_jacobian(monkeypatch):
    monkeypatch.setattr(weft.autograd, "jacobian", jacobian, raising=False)
    rng = np.random.default_rng(2)
    x = leaf(rng.uniform(size=(2, 3)))
    assert weft.autograd.gradcheck(lambda x: weft.tanh(x) * x, [x], check_batched_grad=True)
