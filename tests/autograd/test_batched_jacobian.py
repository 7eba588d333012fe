"""The batched reverse pass behind jacobian/hessian: ``run_backward(batch=K)`` and the
primitives' batch rules (``engine.defbatch``), against one pass per cotangent and
against finite differences."""
import numpy as np
import pytest

import weft
from weft.autograd import engine
from weft.autograd.functional import rows as row_engine
from weft.autograd.functional import hessian, jacobian
from weft.incubate import autograd as inc

RNG = np.random.default_rng(7)


def leaf(a):
    return weft.to_tensor(np.asarray(a), stop_gradient=False)


def graph_prims(y):
    """Names of the primitives recorded between y and its leaves."""
    seen, stack, names = set(), [y._node], set()
    while stack:
        n = stack.pop()
        if n is None or id(n) in seen:
            continue
        seen.add(id(n))
        names.add(n.prim)
        stack.extend(e[0] for e in n.edges if e is not None)
    return names


def batched_vs_rows(y, xs, k=3, create_graph=False):
    """run_backward with K random cotangents at once equals K single passes."""
    cots = RNG.standard_normal((k,) + tuple(y.shape))
    if y._data.dtype.kind == "c":
        cots = cots + 1j * RNG.standard_normal(cots.shape)
    cots = cots.astype(y._data.dtype)
    got = engine.run_backward([y], [weft.to_tensor(cots)], retain_graph=True,
                              create_graph=create_graph, inputs=xs, allow_unused=True, batch=k)
    assert got is not None
    for r in range(k):
        want = engine.run_backward([y], [weft.to_tensor(cots[r])], retain_graph=True,
                                   create_graph=create_graph, inputs=xs, allow_unused=True)
        for g, w, x in zip(got, want, xs):
            if w is None:
                assert g is None
                continue
            assert g.shape == [k] + x.shape and g.dtype == x.dtype
            np.testing.assert_allclose(g.numpy()[r], w.numpy(), rtol=1e-12, atol=1e-12)
    return got


def numeric_jacobian(f, x0, eps=1e-6):
    x0 = np.asarray(x0, dtype=np.float64)
    y0 = np.asarray(f(x0))
    J = np.zeros((y0.size, x0.size))
    for j in range(x0.size):
        d = np.zeros(x0.size)
        d[j] = eps
        d = d.reshape(x0.shape)
        J[:, j] = (np.asarray(f(x0 + d)) - np.asarray(f(x0 - d))).ravel() / (2 * eps)
    return J


# each case: inputs (numpy), function of weft tensors; all its primitives have batch rules
SAFE = {
    "elementwise": ([RNG.uniform(0.5, 2, (3, 4)), RNG.uniform(0.5, 2, (4,))],
                    lambda a, b: weft.tanh(a * b) + weft.exp(a) / b - weft.log(a) ** 2
                    + weft.sqrt(b) - weft.sin(a - b) * weft.sigmoid(b) + weft.abs(-a) ** b),
    "scalar_broadcast": ([RNG.uniform(0.5, 2, ()), RNG.uniform(0.5, 2, (2, 3))],
                         lambda a, b: a * b + weft.maximum(b, a) - weft.minimum(a, b)),
    "matmul_2d_1d": ([RNG.standard_normal((4, 3)), RNG.standard_normal(3)],
                     lambda a, b: weft.matmul(a, b)),
    "matmul_1d_2d": ([RNG.standard_normal(4), RNG.standard_normal((4, 3))],
                     lambda a, b: weft.matmul(a, b)),
    "matmul_1d_1d": ([RNG.standard_normal(4), RNG.standard_normal(4)],
                     lambda a, b: weft.matmul(a, b)),
    "matmul_1d_3d": ([RNG.standard_normal(4), RNG.standard_normal((2, 4, 3))],
                     lambda a, b: weft.matmul(a, b)),
    "matmul_3d_1d": ([RNG.standard_normal((2, 3, 4)), RNG.standard_normal(4)],
                     lambda a, b: weft.matmul(a, b)),
    "matmul_bcast": ([RNG.standard_normal((2, 3, 4)), RNG.standard_normal((4, 5))],
                     lambda a, b: weft.matmul(a, b)),
    "reductions": ([RNG.standard_normal((2, 3, 4))],
                   lambda a: weft.sum(a, axis=1) * weft.mean(a, axis=[0, 2], keepdim=True)
                   .reshape([3, 1]).sum() + weft.sum(a * a, axis=1, keepdim=True)),
    "shape_ops": ([RNG.standard_normal((2, 3, 4)), RNG.standard_normal((3, 1))],
                  lambda a, b: weft.transpose(a, [2, 0, 1]).reshape([4, 6])
                  + weft.expand(b, [2, 3, 4]).reshape([4, 6]) ** 2),
    "basic_indexing": ([RNG.standard_normal((3, 4, 2))],
                       lambda a: a[1:, None, ::2] * a[..., 1:2, 0][:, None] + a[-1, 2]),
    "join_split": ([RNG.standard_normal((2, 3)), RNG.standard_normal((2, 2))],
                   lambda a, b: weft.concat([a, b * 2], axis=1)[:, 1:4]
                   * weft.stack([a[:, 0], b[:, 1]], axis=1).sum(axis=1, keepdim=True)
                   + weft.split(weft.exp(weft.concat([b, a], axis=1)), [2, 3], axis=1)[1]
                   + weft.slice(a, [1], [0], [1])
                   + weft.unbind(weft.sin(b), axis=1)[0][:, None]),
    "where": ([RNG.standard_normal((3, 4)), RNG.standard_normal(4)],
              lambda a, b: weft.where(a > 0, a * b, weft.exp(b))),
    "cast": ([RNG.standard_normal(5)],
             lambda a: weft.real(weft.cast(a, "complex128") * (1 + 2j)) * a),
}


@pytest.mark.parametrize("name", sorted(SAFE))
def test_batch_rules_match_single_passes_and_fd(name):
    arrays, f = SAFE[name]
    xs = [leaf(a) for a in arrays]
    y = f(*xs)
    unruled = {p.name for p in graph_prims(y) if p.bvjps is None}
    assert not unruled, f"primitives without batch rules in a 'safe' graph: {unruled}"
    batched_vs_rows(y, xs)
    batched_vs_rows(y, xs, create_graph=True)
    # the full Jacobian of the flattened output, one block per x, against differences
    yf = y.reshape([-1])
    Js = jacobian(yf, [x.reshape([-1]) if x.ndim != 1 else x for x in xs])
    for j, a in enumerate(arrays):
        def fj(v, j=j):
            args = [weft.to_tensor(b) for b in arrays]
            args[j] = weft.to_tensor(v.reshape(a.shape))
            return f(*args).numpy()
        if xs[j].ndim == 1:
            np.testing.assert_allclose(Js[j][:].numpy().reshape(-1, a.size),
                                       numeric_jacobian(fj, a.ravel()), rtol=1e-6, atol=1e-7)


def _jac_both_ways(make, monkeypatch, **kw):
    """J[:] of a fresh graph with batched passes and with one pass per row."""
    full = make()[:].numpy()
    with monkeypatch.context() as m:
        m.setattr(row_engine, "_BATCH_ELEMENTS", 0)   # one row per pass
        rows = make()[:].numpy()
    return full, rows


def test_full_jacobian_is_one_pass(monkeypatch):
    calls = []
    real = row_engine.run_backward

    def counting(*a, **k):
        calls.append(k.get("batch", 0))
        return real(*a, **k)

    monkeypatch.setattr(row_engine, "run_backward", counting)
    W = RNG.standard_normal((6, 5))
    x = leaf(RNG.standard_normal(5))
    J = jacobian(weft.tanh(weft.to_tensor(W) @ x), x)
    got = J[:].numpy()
    assert calls == [6]
    t = np.tanh(W @ x.numpy())
    np.testing.assert_allclose(got, (1 - t ** 2)[:, None] * W, rtol=1e-12)
    # cached rows are reused; J[2] after J[:] runs nothing
    np.testing.assert_allclose(J[2].numpy(), got[2])
    np.testing.assert_allclose(J[:, 1].numpy(), got[:, 1])
    assert calls == [6]


def test_partial_rows_then_rest(monkeypatch):
    W = RNG.standard_normal((5, 4))
    x = leaf(RNG.standard_normal(4))
    J = jacobian(weft.sin(weft.to_tensor(W) @ x), x)
    want = np.cos(W @ x.numpy())[:, None] * W
    np.testing.assert_allclose(J[3].numpy(), want[3])          # single row: its own pass
    np.testing.assert_allclose(J[[4, 0, 3]].numpy(), want[[4, 0, 3]])
    np.testing.assert_allclose(J[:, 2].numpy(), want[:, 2])
    np.testing.assert_allclose(J[::-1].numpy(), want[::-1])
    assert len(J._rows.cache) == 5


def test_chunked_blocks(monkeypatch):
    # a tiny element budget splits the rows into several blocks
    monkeypatch.setattr(row_engine, "_BATCH_ELEMENTS", 25)
    W = RNG.standard_normal((7, 3))
    x = leaf(RNG.standard_normal(3))
    J = jacobian(weft.exp(weft.to_tensor(W) @ x), x)
    want = np.exp(W @ x.numpy())[:, None] * W
    np.testing.assert_allclose(J[:].numpy(), want, rtol=1e-12)
    assert len({id(b) for b, _ in J._rows.cache.values()}) > 1


def test_unsupported_primitive_rows_inside_batched_pass(monkeypatch):
    # getitem, concat and cumsum have no batch rule: their plain rules run per row
    def make():
        x = leaf(np.linspace(0.1, 1.0, 6))
        y = weft.concat([x[1:4] * x[:3], weft.cumsum(x ** 2)]) * 3
        return jacobian(weft.tanh(y), x)

    y = make()._rows.y()
    assert any(p.bvjps is None for p in graph_prims(y))
    full, rows = _jac_both_ways(make, monkeypatch)
    np.testing.assert_allclose(full, rows, rtol=1e-12, atol=1e-14)

    def f(v):
        y = np.concatenate([v[1:4] * v[:3], np.cumsum(v ** 2)]) * 3
        return np.tanh(y)
    np.testing.assert_allclose(full, numeric_jacobian(f, np.linspace(0.1, 1.0, 6)), rtol=1e-6,
                               atol=1e-8)


def test_multi_output_unruled_primitive():
    # a multi-output primitive without batch rules (topk: values and indices)
    x = leaf(RNG.standard_normal(6))
    vals, _ = weft.topk(x * 2, 3)
    batched_vs_rows(weft.exp(vals), [x])


def test_hooks_send_the_pass_row_by_row():
    x = leaf(RNG.standard_normal(4))
    h = x * 3
    seen = []
    h.register_hook(lambda g: seen.append(g.shape))
    y = weft.sin(h)
    cot = weft.to_tensor(np.eye(4))
    assert engine.run_backward([y], [cot], retain_graph=True, inputs=[x], batch=4) is None
    assert seen == []                       # declined before anything ran
    J = jacobian(y, x)[:]
    assert seen == [[4]] * 4                # hooks saw per-row gradients
    np.testing.assert_allclose(J.numpy(), np.diag(3 * np.cos(3 * x.numpy())), rtol=1e-12)


def test_freed_graph_still_raises():
    x = leaf([1.0, 2.0])
    y = weft.exp(x)
    y.sum().backward()
    with pytest.raises(engine.GraphFreedError):
        jacobian(y, x)[:]


def test_rows_stay_differentiable():
    W = RNG.standard_normal((3, 3))
    x = leaf(RNG.standard_normal(3))
    J = jacobian(weft.tanh(weft.to_tensor(W) @ x), x)[:]
    (g,) = weft.grad(J.sum(), x)

    def s(v):
        t = np.tanh(W @ v)
        return ((1 - t ** 2)[:, None] * W).sum()
    np.testing.assert_allclose(g.numpy(), numeric_jacobian(s, x.numpy())[0], rtol=1e-6)


def test_hessian_through_batched_pass(monkeypatch):
    W = RNG.standard_normal((5, 4))

    def make():
        x = leaf(np.linspace(-1, 1, 4))
        return hessian(weft.tanh(weft.to_tensor(W) @ x).sum(), x)

    full, rows = _jac_both_ways(make, monkeypatch)
    t = np.tanh(W @ np.linspace(-1, 1, 4))
    want = W.T @ np.diag(-2 * t * (1 - t ** 2)) @ W
    np.testing.assert_allclose(full, want, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(rows, want, rtol=1e-12, atol=1e-14)


def test_third_derivative_through_batched_hessian():
    # d/dx of the Hessian's trace: create_graph kept through the batched pass
    x = leaf([0.3, -0.2])
    H = hessian((weft.sin(x) * x[0]).sum(), x)[:]
    (g,) = weft.grad(H[0, 0] + H[1, 1], x)

    def tr(v):
        h = np.array([[-np.sin(v[0]) * v[0] + 2 * np.cos(v[0]), np.cos(v[1])],
                      [np.cos(v[1]), -np.sin(v[1]) * v[0]]])
        return np.trace(h)
    np.testing.assert_allclose(g.numpy(), numeric_jacobian(tr, x.numpy())[0], rtol=1e-6)


def test_batch_axis_0(monkeypatch):
    B, N, M = 3, 4, 2
    W = RNG.standard_normal((N, M))
    x0 = RNG.standard_normal((B, N))

    def make_j():
        x = leaf(x0)
        return jacobian(weft.tanh(x @ weft.to_tensor(W)), x, batch_axis=0)

    def make_h():
        x = leaf(x0)
        return hessian((weft.tanh(x @ weft.to_tensor(W))).sum(axis=1), x, batch_axis=0)

    full, rows = _jac_both_ways(make_j, monkeypatch)
    t = np.tanh(x0 @ W)
    want = (1 - t ** 2)[:, :, None] * W.T[None]
    np.testing.assert_allclose(full, want, rtol=1e-12)
    np.testing.assert_allclose(rows, want, rtol=1e-12)
    full, rows = _jac_both_ways(make_h, monkeypatch)
    want = np.einsum("nm,bm,km->bnk", W, -2 * t * (1 - t ** 2), W)
    np.testing.assert_allclose(full, want, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(rows, want, rtol=1e-12, atol=1e-14)
    # a column of the batched Jacobian
    J = make_j()
    np.testing.assert_allclose(J[:, :, 1].numpy(), want_j := (1 - t ** 2) * W[1][None],
                               rtol=1e-12)
    assert want_j.shape == (B, M)
    # a lone row first, then the rest in a block: the pieces join along the row axis
    J = make_j()
    np.testing.assert_allclose(J[:, 1].numpy(), (1 - t[:, 1:2] ** 2) * W.T[1][None], rtol=1e-12)
    np.testing.assert_allclose(J[:].numpy(), (1 - t ** 2)[:, :, None] * W.T[None], rtol=1e-12)
    np.testing.assert_allclose(J[:, ::-1].numpy(), ((1 - t ** 2)[:, :, None] * W.T[None])
                               [:, ::-1], rtol=1e-12)


def test_complex(monkeypatch):
    z0 = RNG.standard_normal(3) + 1j * RNG.standard_normal(3)
    A = RNG.standard_normal((3, 3)) + 1j * RNG.standard_normal((3, 3))

    def make():
        z = leaf(z0)
        return jacobian(weft.exp(weft.to_tensor(A) @ z) * z, z)

    full, rows = _jac_both_ways(make, monkeypatch)
    np.testing.assert_allclose(full, rows, rtol=1e-12, atol=1e-14)
    z = leaf(z0)
    batched_vs_rows(weft.sin(weft.to_tensor(A) @ z) * weft.conj(z), [z], create_graph=True)


def test_several_xs_and_unused(monkeypatch):
    def make():
        a, b, c = leaf(RNG.standard_normal(3)), leaf(RNG.standard_normal(2)), leaf([1.0])
        y = weft.tanh(a) * b.sum()
        return jacobian(y, [a, b, c])

    Js = make()
    assert [J.shape for J in Js] == [[3, 3], [3, 2], [3, 1]]
    np.testing.assert_allclose(Js[2][:].numpy(), np.zeros((3, 1)))
    assert len({id(b) for b, _ in Js[0]._rows.cache.values()}) == 1


def test_incubate_objects_use_blocks(monkeypatch):
    W = RNG.standard_normal((4, 3))

    def f(x, y):
        return weft.tanh(weft.to_tensor(W) @ x) * y

    x0, y0 = weft.to_tensor(RNG.standard_normal(3)), weft.to_tensor(RNG.standard_normal(4))
    J = inc.Jacobian(f, [x0, y0])
    got = J[:].numpy()
    t = np.tanh(W @ x0.numpy())
    want = np.concatenate([((1 - t ** 2) * y0.numpy())[:, None] * W, np.diag(t)], axis=1)
    np.testing.assert_allclose(got, want, rtol=1e-12)
    assert len({id(b) for b, _ in J._rows.cache.values()}) == 1
    H = inc.Hessian(lambda x: weft.tanh(weft.to_tensor(W) @ x).sum(), x0)
    np.testing.assert_allclose(H[:].numpy(), W.T @ np.diag(-2 * t * (1 - t ** 2)) @ W,
                               rtol=1e-12, atol=1e-14)


def test_bad_batch_rule_result_is_reported():
    p = engine.Primitive("bad_batched", lambda x: x * 2)
    engine.defvjp(p, lambda g, ans, x: g * 2, save=())
    engine.defbatch(p, lambda g, ans, x: g[0] * 2)   # drops the batch axis
    x = leaf([1.0, 2.0, 3.0])
    y = engine.apply(p, x)
    with pytest.raises(RuntimeError, match="batch rule returned shape"):
        engine.run_backward([y], [weft.to_tensor(np.eye(3))], retain_graph=True, inputs=[x],
                            batch=3)
