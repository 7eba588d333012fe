"""Forward mode (weft.autograd.forward; api-autograd.md §4, jvp "forward rules where
registered, else double-vjp").

Driven by the op database: each differentiable entry whose graph holds a primitive
with a registered forward rule is run through ``weft.autograd.jvp`` (the forward
pass), and its tangents are compared with the double-vjp trick over the whole
function (the path jvp took before forward rules existed) and with central finite
differences in float64 / complex128. The same is done for the entry's vjp map
(forward over reverse), which reaches the rules of the ops that backward passes use.
Then: every primitive with a forward rule is reached; higher derivatives of jvp
results; nesting; the fall-backs (PyLayer, no rule); composed linalg functions.
"""
from __future__ import annotations

import numpy as np
import pytest

import weft
from tests.opinfo import OP_DB
from tests.test_ops import _differentiable_call, _graph_primitives, _rng
from weft.autograd import engine, registry
from weft.autograd.functional.transforms import _inputs, _outputs, _tangents

# a few samples per entry and dtype keep the file fast; the generators are seeded
# (tests/test_ops.py's _rng), so the same samples run every time
_PER_ENTRY = 3
_EPS = 1e-6
# against the double-vjp trick: the same mathematics, rounded differently
_SAME = dict(atol=1e-9, rtol=1e-7)
# against central differences: gradcheck's float64 tolerances (api-autograd.md §7)
_FD = dict(atol=1e-5, rtol=1e-3)

# primitives with a forward rule that the CPU op database cannot reach, and why
_UNREACHED = {
    # a move between devices: CPU -> CPU records nothing (as in tests/test_ops.py)
    "to_place": "needs a GPU",
    # the node saved_tensors_hooks inserts: test_saved_tensors_hooks_forward_over_reverse
    "unpacked_saved_tensor": "autograd machinery, not an op",
}


def _modules():
    import importlib

    for mod in ("weft.nn.functional", "weft.geometric", "weft.sparse.softmax", "weft.sparse.nn",
                "weft.linalg", "weft.fft"):
        importlib.import_module(mod)


_modules()


def _rule_names():
    return {r.name for r in weft.autograd.rules() if r.jvp and r.module.startswith("weft.")}


def _float_outs(out):
    ys, _ = _outputs(out, "test")
    return [y for y in ys if type(y) is weft.Tensor and y._data.dtype.kind in "fc"]


def _grad_map(func, leaves, rng):
    """``(vjp_map, args)``: the map ``(x, w) -> J(x)ᴴ w`` of ``func`` at ``args`` (the
    leaves and a drawn cotangent ``w``), recorded with create_graph, so that forward
    mode runs through the ops of the backward pass (gradgradcheck's fwd-over-rev map)."""
    ys = _float_outs(func(*leaves))
    ws = [weft.to_tensor(_draw(rng, y)) for y in ys]
    for w in ws:
        w.stop_gradient = False
    n = len(leaves)

    def vjp_map(*args):
        xs, w = list(args[:n]), list(args[n:])
        gs = weft.grad(_float_outs(func(*xs)), xs, w, create_graph=True, allow_unused=True)
        return tuple(g for g in gs if g is not None)
    return vjp_map, list(leaves) + ws


def _draw(rng, t):
    shape = tuple(t.shape)
    a = rng.standard_normal(shape)
    if t._data.dtype.kind == "c":
        a = a + 1j * rng.standard_normal(shape)
    return a.astype(t._data.dtype)


def _samples(op, dtype):
    """Up to _PER_ENTRY of the entry's samples with differentiable dense inputs, spread
    over its list (later samples hold other variants: tensor repeats, batches ...)."""
    usable = []
    for sample in op.samples(dtype, _rng(op, dtype)):
        func, leaves = _differentiable_call(op, sample)
        if leaves and all(type(x) is weft.Tensor for x in leaves):
            usable.append((sample, func, leaves))
    if len(usable) <= _PER_ENTRY:
        return usable
    picks = np.linspace(0, len(usable) - 1, _PER_ENTRY).round().astype(int)
    return [usable[i] for i in sorted(set(picks))]


def _compare(func, leaves, rng, label):
    """jvp (forward pass) == double-vjp trick == central differences, for ``func``."""
    vs = [weft.to_tensor(_draw(rng, x)) for x in leaves]
    _, got = weft.autograd.jvp(func, leaves, vs)
    xl, _ = _inputs(leaves, "jvp")
    ys, _ = _outputs(func(*xl), "jvp")
    old = _tangents(ys, xl, vs)
    got = list(got) if isinstance(got, (tuple, list)) else [got]
    with weft.no_grad():
        plus = func(*[weft.to_tensor(x.numpy() + _EPS * v.numpy()) for x, v in zip(leaves, vs)])
        minus = func(*[weft.to_tensor(x.numpy() - _EPS * v.numpy()) for x, v in zip(leaves, vs)])
    plus, _ = _outputs(plus, "test")
    minus, _ = _outputs(minus, "test")
    checked = 0
    for k, (y, g, o, p, m) in enumerate(zip(ys, got, old, plus, minus)):
        if type(y) is not weft.Tensor or y._data.dtype.kind not in "fc":
            continue
        assert g.shape == y.shape and g.dtype == y.dtype, f"{label} output {k}"
        g, o = g.numpy(), o.numpy()
        np.testing.assert_allclose(g, o, **_SAME, err_msg=f"{label} output {k}: vs double vjp")
        with np.errstate(all="ignore"):
            fd = (p.numpy() - m.numpy()) / (2 * _EPS)
        finite = np.isfinite(fd)
        np.testing.assert_allclose(g[finite], fd[finite], **_FD,
                                   err_msg=f"{label} output {k}: vs finite differences")
        checked += 1
    return checked


def _cases():
    rules = _rule_names()
    out = []
    for op in OP_DB:
        if not op.supports_grad or "dense" not in op.layout or "cpu" not in op.device:
            continue
        if op.skips.get("grad") or op.skips.get("grad@dense"):
            continue
        for d in (np.dtype("float64"), np.dtype("complex128")):
            if d in op.grad_dtypes and d in op.dtypes:
                out.append(pytest.param(op, d, id=f"{op.name}-{d.name}"))
    return out, rules


_CASES, _RULES = _cases()


@pytest.mark.parametrize("op,dtype", _CASES)
def test_forward_rules_match_double_vjp_and_finite_differences(op, dtype):
    rng = np.random.default_rng([7, sum(map(ord, op.name)), dtype.num])
    for sample, func, leaves in _samples(op, dtype):
        prims = _graph_primitives(_float_outs(func(*leaves)))
        if prims & _RULES:
            _compare(func, leaves, rng, f"{op.name} {sample}")
        if op.supports_gradgrad:
            gmap, args = _grad_map(func, leaves, rng)
            gprims = _graph_primitives(list(gmap(*args)))
            if gprims & _RULES - prims:
                # the backward pass holds ruled primitives the forward does not
                _compare(gmap, args, rng, f"{op.name} {sample} (vjp map)")


def test_every_forward_rule_is_reached():
    reached = set()
    for op, dtype in ((p.values[0], p.values[1]) for p in _CASES):
        rng = np.random.default_rng(0)
        for _, func, leaves in _samples(op, dtype):
            reached |= _graph_primitives(_float_outs(func(*leaves)))
            if op.supports_gradgrad:
                gmap, args = _grad_map(func, leaves, rng)
                reached |= _graph_primitives(list(gmap(*args)))
    missing = sorted(_RULES - reached - set(_UNREACHED))
    assert not missing, f"primitives with a forward rule that no checked sample reaches: {missing}"
    assert set(_UNREACHED) <= set(registry._PRIMITIVES)
    assert not set(_UNREACHED) & reached


# ----------------------------------------------------------------------------------
# composed functions, higher order, nesting, fall-backs


def _spd(rng, n, batch=()):
    a = rng.standard_normal(batch + (n, n))
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


def _linalg_chain(a, b):
    """Solves, inverses, a factorisation and determinants composed."""
    s = a @ weft.linalg.matrix_transpose(a) + 4 * weft.eye(a.shape[-1], dtype=a.dtype)
    l = weft.linalg.cholesky(s)
    x = weft.linalg.cholesky_solve(b, l)
    y = weft.linalg.solve(s, x) + weft.linalg.inv(s + a) @ b
    lu, piv = weft.linalg.lu(s)
    z = weft.linalg.lu_solve(y, lu, piv)
    logdet = weft.linalg.slogdet(s)[1]
    t = weft.linalg.triangular_solve(l, z, upper=False)
    return weft.tanh(t) * weft.linalg.det(a).unsqueeze(-1).unsqueeze(-1) + logdet.sum()


def test_linalg_chain_against_finite_differences():
    rng = np.random.default_rng(3)
    a = weft.to_tensor(rng.standard_normal((2, 3, 3)))
    b = weft.to_tensor(rng.standard_normal((2, 3, 2)))
    assert _compare(_linalg_chain, [a, b], rng, "linalg chain") == 1


def test_linalg_chain_complex_against_finite_differences():
    rng = np.random.default_rng(4)
    a = weft.to_tensor(rng.standard_normal((3, 3)) + 1j * rng.standard_normal((3, 3)))
    b = weft.to_tensor(rng.standard_normal((3, 2)) + 1j * rng.standard_normal((3, 2)))

    def f(a, b):
        s = a @ weft.conj(weft.linalg.matrix_transpose(a)) + 4 * weft.eye(3, dtype=a.dtype)
        x = weft.linalg.cholesky_solve(b, weft.linalg.cholesky(s))
        return (weft.linalg.solve(s, x) + weft.linalg.inv(a) @ b) * weft.linalg.det(a), \
            weft.linalg.slogdet(a)
    assert _compare(f, [a, b], rng, "complex linalg chain") == 2


def test_jvp_results_are_differentiable_like_the_double_vjp_ones():
    # higher order: the tangent of a forward rule is built from weft ops, so gradients
    # of it equal those of the double-vjp tangent, and gradcheck passes on it
    rng = np.random.default_rng(5)
    a0 = weft.to_tensor(_spd(rng, 3))
    b0 = weft.to_tensor(rng.standard_normal((3, 2)))
    va = weft.to_tensor(rng.standard_normal((3, 3)))
    vb = weft.to_tensor(rng.standard_normal((3, 2)))

    def f(a, b):
        return weft.linalg.solve(a, b) * weft.linalg.det(a) + weft.sin(weft.linalg.inv(a) @ b)

    def tangent(a, b, va, vb):
        # gradcheck evaluates its function under no_grad, where jvp (like the tape it
        # follows) records nothing and gives zero tangents
        with weft.enable_grad():
            return weft.autograd.jvp(f, [a, b], [va, vb])[1]

    def old_tangent(a, b, va, vb):
        xl, _ = _inputs([a, b], "jvp")
        return _tangents([f(*xl)], xl, [va, vb])[0]

    leaves = [t.clone() for t in (a0, b0, va, vb)]
    for t in leaves:
        t.stop_gradient = False
    g_new = weft.grad((tangent(*leaves) ** 2).sum(), leaves)
    g_old = weft.grad((old_tangent(*leaves) ** 2).sum(), leaves)
    for n, o in zip(g_new, g_old):
        np.testing.assert_allclose(n.numpy(), o.numpy(), **_SAME)
    assert weft.autograd.gradcheck(tangent, leaves)
    assert weft.autograd.gradgradcheck(lambda a, b: f(a, b), leaves[:2], check_fwd_over_rev=True)
    assert weft.autograd.gradcheck(f, leaves[:2], check_forward_ad=True)


def test_linalg_chain_tangent_passes_gradcheck():
    # every linalg forward rule (cholesky, cholesky_solve and lu_solve on the triangular
    # solve, solve, inv, lu, slogdet, det) differentiated again, against the old path
    rng = np.random.default_rng(8)
    leaves = [weft.to_tensor(rng.standard_normal(s)) for s in ((3, 3), (3, 2), (3, 3), (3, 2))]
    for t in leaves:
        t.stop_gradient = False

    def tangent(a, b, va, vb):
        with weft.enable_grad():
            return weft.autograd.jvp(_linalg_chain, [a, b], [va, vb])[1]

    xl, _ = _inputs(leaves[:2], "jvp")
    old = _tangents([_linalg_chain(*xl)], xl, leaves[2:])[0]
    new = tangent(*leaves)
    np.testing.assert_allclose(new.numpy(), old.numpy(), **_SAME)
    g_new = weft.grad((new * new).sum(), leaves)
    g_old = weft.grad((old * old).sum(), leaves)
    for n, o in zip(g_new, g_old):
        np.testing.assert_allclose(n.numpy(), o.numpy(), **_SAME)
    assert weft.autograd.gradcheck(tangent, leaves)


def test_forward_over_forward_nests():
    # d²/dx² of sin(x) x along (1, 1): a jvp inside a jvp's function
    x = weft.to_tensor([0.3, -1.2, 2.0], dtype="float64")
    ones = weft.ones([3], dtype="float64")

    def inner(x):
        return weft.autograd.jvp(lambda y: weft.sin(y) * y, x, ones)[1]

    _, second = weft.autograd.jvp(inner, x, ones)
    xn = x.numpy()
    np.testing.assert_allclose(second.numpy(), 2 * np.cos(xn) - xn * np.sin(xn), rtol=1e-12)


def test_primitive_without_rule_uses_its_double_vjp():
    # cdist has no forward rule: its tangent comes from a double vjp of that primitive
    assert engine.defjvp is not None and registry.get("cdist").jvp is None
    rng = np.random.default_rng(6)
    x = weft.to_tensor(rng.standard_normal((4, 3)))
    y = weft.to_tensor(rng.standard_normal((5, 3)))
    assert _compare(lambda x, y: weft.exp(-weft.cdist(x, y)), [x, y], rng, "cdist") == 1


def test_pylayer_falls_back_to_the_whole_function_trick():
    class Cube(weft.autograd.PyLayer):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x * x

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensor()
            return 3 * g * x * x

    x = weft.to_tensor([1.0, 2.0], dtype="float64")
    v = weft.to_tensor([1.0, -1.0], dtype="float64")
    _, t = weft.autograd.jvp(lambda x: weft.sin(Cube.apply(x)), x, v)
    xn = x.numpy()
    np.testing.assert_allclose(t.numpy(), np.cos(xn ** 3) * 3 * xn ** 2 * v.numpy(), rtol=1e-12)


def test_tangents_follow_the_tape():
    # detach and stop_gradient cut tangents as they cut gradients; in-place updates keep them
    x = weft.to_tensor([1.0, 2.0], dtype="float64")
    v = weft.ones([2], dtype="float64")

    def f(x):
        y = x * 3
        y.exp_()                      # in place: y now holds exp(3x), on its new node
        return y, x.detach() * x, weft.sin(x).detach()

    _, (ty, tdet, tcut) = weft.autograd.jvp(f, x, v)
    xn = x.numpy()
    np.testing.assert_allclose(ty.numpy(), 3 * np.exp(3 * xn), rtol=1e-12)
    np.testing.assert_allclose(tdet.numpy(), xn, rtol=1e-12)
    assert not tcut.numpy().any()


def test_the_normal_path_has_no_pass_open():
    assert engine._fwd_active == 0
    weft.autograd.jvp(lambda x: x * 2, weft.ones([2]))
    assert engine._fwd_active == 0


def test_a_failing_function_closes_its_pass():
    def bad(x):
        raise KeyError("boom")

    with pytest.raises(KeyError):
        weft.autograd.jvp(bad, weft.ones([2]))
    assert engine._fwd_active == 0


def test_saved_tensors_hooks_forward_over_reverse():
    # the unpacked saved tensors of a create_graph backward carry their tangents
    # (through the unpacked_saved_tensor node): a Hessian-vector product
    x = weft.to_tensor([0.4, -0.7, 1.3], dtype="float64")
    v = weft.to_tensor([1.0, 2.0, -1.0], dtype="float64")

    def grad_f(x):
        with weft.autograd.saved_tensors_hooks(lambda t: t * 1, lambda t: t):
            y = (weft.sin(x) * x).sum()
        g = weft.grad(y, x, create_graph=True)[0]
        assert "unpacked_saved_tensor" in _graph_primitives([g])
        return g

    _, hv = weft.autograd.jvp(grad_f, x, v)
    xn, vn = x.numpy(), v.numpy()
    np.testing.assert_allclose(hv.numpy(), (2 * np.cos(xn) - xn * np.sin(xn)) * vn, rtol=1e-12)


@pytest.mark.parametrize("cplx", [False, True])
def test_cholesky_tangent_takes_the_hermitian_part_of_da(cplx):
    # the convention of the vjp (api-linalg.md §2): a non-Hermitian dA counts as
    # (dA + dAᴴ)/2, i.e. the derivative of cholesky((A + Aᴴ)/2) at Hermitian A
    rng = np.random.default_rng(9)
    m = rng.standard_normal((3, 3)) + (1j * rng.standard_normal((3, 3)) if cplx else 0)
    a = weft.to_tensor(m @ m.conj().T + 3 * np.eye(3))
    da = weft.to_tensor(rng.standard_normal((3, 3)) + (1j * rng.standard_normal((3, 3))
                                                       if cplx else 0))

    def sym_chol(a):
        return weft.linalg.cholesky((a + weft.conj(weft.linalg.matrix_transpose(a))) * 0.5)

    _, t = weft.autograd.jvp(weft.linalg.cholesky, a, da)
    _, want = weft.autograd.jvp(sym_chol, a, da)
    np.testing.assert_allclose(t.numpy(), want.numpy(), **_SAME)
    assert _compare(sym_chol, [a], rng, "cholesky of the Hermitian part") == 1
