"""weft.autograd.gradcheck / gradgradcheck (api-autograd.md §7)."""
import numpy as np
import pytest

import weft
from weft.autograd import functional as ag_functional
from weft.autograd.engine import Primitive, apply, defvjp
from weft.autograd.gradcheck import analytic as gc_analytic
from weft.autograd.gradcheck import checker as gc_checker
from weft.autograd import GradcheckError, gradcheck, gradgradcheck
from weft.core.tensor import Tensor


def leaf(values, dtype="float64"):
    return weft.to_tensor(values, dtype=dtype, stop_gradient=False)


def rand(shape, dtype="float64", seed=0, low=-1.0, high=1.0):
    rng = np.random.default_rng(seed)
    a = rng.uniform(low, high, size=shape)
    if np.dtype(dtype).kind == "c":
        a = a + 1j * rng.uniform(low, high, size=shape)
    return leaf(a.astype(dtype), dtype)


# primitives with deliberately wrong or unusual derivative rules
_bad_sin = Primitive("test_bad_sin", np.sin)
defvjp(_bad_sin, lambda g, ans, x: g * x.cos() * 2, save_out=False)

_raw_cos = Primitive("test_raw_cos", np.cos)          # no vjp at all
_sin_raw_vjp = Primitive("test_sin_raw_vjp", np.sin)
defvjp(_sin_raw_vjp, lambda g, ans, x: g * apply(_raw_cos, x), save_out=False)

# a vjp that is right to first order but blind to its own dependence on x
_sin_const_vjp = Primitive("test_sin_const_vjp", np.sin)
defvjp(_sin_const_vjp, lambda g, ans, x: g * Tensor._wrap(np.cos(x._data)), save_out=False)

# holomorphic square with the conjugate forgotten: right for real, wrong for complex
_sq_noconj = Primitive("test_square_noconj", np.square)
defvjp(_sq_noconj, lambda g, ans, x: g * 2 * x, save_out=False)

_noise = np.random.default_rng(123)
_nondet_sq = Primitive("test_nondet_square", np.square)
defvjp(_nondet_sq, lambda g, ans, x: g * (2 * x + float(_noise.normal()) * 1e-4),
       save_out=False)

# correct everywhere except that a zero cotangent yields ones
_undef_sq = Primitive("test_undef_square", np.square)
defvjp(_undef_sq, lambda g, ans, x: weft.where(g == 0, g * 0 + 1, g * 2 * x), save_out=False)


# ----------------------------------------------------------------------------------
# passing checks

@pytest.mark.parametrize("fast_mode", [True, False])
@pytest.mark.parametrize("func", [
    lambda x: x ** 3 - 2 * x * x + x - 1,
    lambda x: (x * x).exp().log1p() * x.sin(),
    lambda x: (x.exp() + 2).log() / (1 + x * x),
    lambda x: (x * 0.5).tanh() * x.sigmoid(),
    lambda x: x.sum(),
], ids=["poly", "exp_log", "log_div", "tanh_sigmoid", "sum"])
def test_passes_on_real_functions(func, fast_mode):
    assert gradcheck(func, rand((3, 2)), fast_mode=fast_mode) is True


@pytest.mark.parametrize("fast_mode", [True, False])
def test_matmul_two_inputs(fast_mode):
    a, b = rand((2, 3), seed=1), rand((3, 4), seed=2)
    assert gradcheck(lambda p, q: weft.matmul(p, q), [a, b], fast_mode=fast_mode)
    assert gradcheck(lambda p, q: (p @ q).tanh(), (a, b), fast_mode=fast_mode)


@pytest.mark.parametrize("fast_mode", [True, False])
@pytest.mark.parametrize("func", [
    lambda z: (z * z.conj()).real(),        # |z|^2
    lambda z: (z * z).real(),               # Re(z^2)
    lambda z: z * z.conj(),                 # complex output, real-valued
    lambda z: z * z,                        # holomorphic
    lambda z: z.exp() * z.conj(),           # neither
    lambda z: z.abs(),
    lambda z: (z * 2).imag(),
], ids=["abs2", "re_sq", "z_conjz", "sq", "exp_conj", "abs", "imag"])
def test_passes_on_complex_functions(func, fast_mode):
    assert gradcheck(func, rand((3,), "complex128", seed=3, low=0.2), fast_mode=fast_mode)


def test_mixed_real_and_complex_inputs():
    x = rand((3,), seed=4)
    z = rand((3,), "complex128", seed=5)
    assert gradcheck(lambda a, b: (weft.cast(a, "complex128") * b).real(), [x, z])
    assert gradcheck(lambda a, b: weft.cast(a, "complex128") * b, [x, z], fast_mode=False)


def test_broadcasting_0d_and_empty_inputs():
    assert gradcheck(lambda a, b: a * b, [rand((3, 1)), rand((4,), seed=1)])
    assert gradcheck(lambda a: a * a, rand(()))
    assert gradcheck(lambda a: a * a, rand(()), fast_mode=False)
    assert gradcheck(lambda a: a.exp(), rand((0, 3)))
    assert gradcheck(lambda a: a.exp(), rand((0, 3)), fast_mode=False)


def test_non_checked_inputs_pass_through_unchanged():
    x = rand((3,))
    c = weft.to_tensor([1.0, 2.0, 3.0], dtype="float32")      # stop_gradient=True
    i = weft.to_tensor([1, 2, 3])
    seen = []

    def f(a, const, ints, k, s):
        seen.append((const, ints, k, s))
        return a * const * weft.cast(ints, "float64") * k

    assert gradcheck(f, [x, c, i, 2.5, "tag"])
    assert all(e[0] is c and e[1] is i and e[2] == 2.5 and e[3] == "tag" for e in seen)


def test_inputs_are_never_modified():
    x = rand((4,))
    before = x.numpy().copy()

    def f(a):
        return a * 3

    gradcheck(f, x)
    gradcheck(f, x, fast_mode=False)
    gradgradcheck(f, x)
    np.testing.assert_array_equal(x.numpy(), before)
    assert x.grad is None and not x.stop_gradient and x.is_leaf


def test_sequence_outputs_with_integer_outputs_ignored():
    x = rand((3,))

    def f(a):
        return a.sin(), weft.cast(a > 0, "int64"), a * a, "not a tensor"

    assert gradcheck(f, x)
    assert gradcheck(f, x, fast_mode=False)


def test_output_independent_of_input():
    x = rand((3,))
    assert gradcheck(lambda a: weft.ones([2], dtype="float64"), x)
    assert gradcheck(lambda a: (a * 0 + 1, weft.ones([2], dtype="float64")), x, fast_mode=False)


def test_only_integer_outputs_is_trivially_true():
    assert gradcheck(lambda a: weft.cast(a > 0, "int32"), rand((3,)))


def test_float32_inputs_use_float32_tolerances():
    x = rand((3, 2), "float32")
    assert gradcheck(lambda a: (a * a).exp(), x)
    assert gradcheck(lambda a: (a * a).exp(), x, fast_mode=False)
    assert gradcheck(lambda a: (a * a).exp(), x, check_grad_dtypes=True)


def test_float32_output_of_float64_input():
    # the function rounds to float32 inside: the less precise output sets eps and tolerances
    x = rand((5,))
    assert gradcheck(lambda a: weft.cast(a, "float32").exp(), x)
    assert gradcheck(lambda a: weft.cast(a, "float32").exp(), x, fast_mode=False)


def test_fallback_when_func_fails_in_float64():
    calls = []

    def only_float32(a):
        calls.append(a.dtype)
        if a.dtype != weft.float32:
            raise TypeError("float32 kernel only")
        return a.sin() * a

    assert gradcheck(only_float32, rand((4,), "float32"))
    assert weft.float64 in calls   # it tried float64 first
    with pytest.raises(TypeError, match="float32 kernel only"):
        gradcheck(lambda a: only_float32(a), rand((4,), "float64"))


def test_deterministic_and_independent_of_global_rng():
    x = rand((3,))
    state = np.random.get_state()[1].copy()
    weft_counts = []

    def f(a):
        weft_counts.append(1)
        return a * a

    assert gradcheck(f, x, seed=7)
    np.testing.assert_array_equal(np.random.get_state()[1], state)
    with pytest.raises(GradcheckError) as e1:
        gradcheck(lambda a: apply(_bad_sin, a), x, seed=3)
    with pytest.raises(GradcheckError) as e2:
        gradcheck(lambda a: apply(_bad_sin, a), x, seed=3)
    assert str(e1.value) == str(e2.value)


def test_fast_mode_cost_does_not_grow_with_input_size():
    for n in (2, 50):
        calls = []

        def f(a):
            calls.append(1)
            return a.exp()

        gradcheck(f, rand((n,)), num_directions=2)
        # one analytic forward, one float64 reference, two evaluations per direction
        assert len(calls) == 1 + 1 + 2 * 2


# ----------------------------------------------------------------------------------
# failing checks

@pytest.mark.parametrize("fast_mode", [True, False])
def test_wrong_vjp_raises_with_informative_message(fast_mode):
    x = rand((3,), seed=8)
    with pytest.raises(GradcheckError) as ei:
        gradcheck(lambda a: apply(_bad_sin, a), x, fast_mode=fast_mode)
    msg = str(ei.value)
    assert isinstance(ei.value, RuntimeError)
    assert msg.startswith("gradcheck: Jacobian mismatch")
    for part in ("input 0", "output 0", "analytic", "numerical", "atol 1e-05", "rtol 0.001"):
        assert part in msg, (part, msg)
    assert ("fast mode" in msg) == fast_mode
    if not fast_mode:
        assert "worst entry at input position" in msg


def test_slow_mode_reports_worst_entry_values():
    x = leaf([0.1, 0.2, 1.5])
    with pytest.raises(GradcheckError) as ei:
        gradcheck(lambda a: apply(_bad_sin, a), x, fast_mode=False)
    # the largest error |2cos - cos| = cos(x) is at the smallest x: position 0
    msg = str(ei.value)
    assert "input position [0], output position [0]" in msg
    assert f"analytic {2 * np.cos(0.1):.6g} but numerical {np.cos(0.1):.6g}" in msg


def test_failure_localises_the_output_and_input():
    x, y = rand((3,), seed=1), rand((2,), seed=2)
    with pytest.raises(GradcheckError, match="input 1 and output 2"):
        gradcheck(lambda a, b: (a.sin(), weft.cast(a > 0, "int64"), apply(_bad_sin, b)), [x, y])
    with pytest.raises(GradcheckError, match="input 1 and output 2"):
        gradcheck(lambda a, b: (a.sin(), weft.cast(a > 0, "int64"), apply(_bad_sin, b)), [x, y],
                  fast_mode=False)


def test_raise_exception_false_returns_false():
    x = rand((3,))
    assert gradcheck(lambda a: apply(_bad_sin, a), x, raise_exception=False) is False
    assert gradcheck(lambda a: apply(_bad_sin, a), x, raise_exception=False,
                     fast_mode=False) is False
    assert gradgradcheck(lambda a: apply(_sin_raw_vjp, a), x, raise_exception=False) is False


def test_tolerances_can_be_loosened():
    x = rand((3,))
    assert gradcheck(lambda a: apply(_bad_sin, a), x, atol=10.0)
    assert gradcheck(lambda a: apply(_bad_sin, a), x, rtol=2.0, atol=0.0)


@pytest.mark.parametrize("fast_mode", [True, False])
def test_complex_missing_conjugate_fails(fast_mode):
    z = rand((3,), "complex128", seed=9)
    x = rand((3,), seed=9)
    assert gradcheck(lambda a: apply(_sq_noconj, a), x, fast_mode=fast_mode)
    with pytest.raises(GradcheckError, match="part"):
        gradcheck(lambda a: apply(_sq_noconj, a), z, fast_mode=fast_mode)


def test_nondeterministic_backward():
    x = rand((3,))
    with pytest.raises(GradcheckError, match="nondeterministic backward.*nondet_tol = 0"):
        gradcheck(lambda a: apply(_nondet_sq, a), x, check_undefined_grad=False)
    with pytest.raises(GradcheckError, match="nondeterministic"):
        gradcheck(lambda a: apply(_nondet_sq, a), x, check_undefined_grad=False,
                  fast_mode=False)
    assert gradcheck(lambda a: apply(_nondet_sq, a), x, nondet_tol=1e-2, atol=1e-2,
                     check_undefined_grad=False)


def test_check_undefined_grad():
    x = rand((3,))
    with pytest.raises(GradcheckError, match="check_undefined_grad.*input 0"):
        gradcheck(lambda a: apply(_undef_sq, a), x)
    assert gradcheck(lambda a: apply(_undef_sq, a), x, check_undefined_grad=False)


def test_backward_error_becomes_gradcheck_error():
    x = rand((3,))
    with pytest.raises(GradcheckError, match="test_raw_cos is not differentiable"):
        gradcheck(lambda a: apply(_raw_cos, a), x)


def test_check_grad_dtypes(monkeypatch):
    x = rand((3,), "float32")
    assert gradcheck(lambda a: a * a, x, check_grad_dtypes=True)
    real_grad = gc_analytic._grad

    def widened(*args, **kwargs):   # an engine that forgot to cast gradients back
        return [None if g is None else weft.cast(g, "float64")
                for g in real_grad(*args, **kwargs)]

    monkeypatch.setattr(gc_analytic, "_grad", widened)
    with pytest.raises(GradcheckError, match="check_grad_dtypes.*float64.*float32"):
        gradcheck(lambda a: a * a, x, check_grad_dtypes=True)
    assert gradcheck(lambda a: a * a, x)


def test_check_backward_ad_false_skips_vjps():
    x = rand((3,))
    assert gradcheck(lambda a: apply(_bad_sin, a), x, check_backward_ad=False)


def test_slow_mode_warns_on_huge_jacobian(monkeypatch):
    monkeypatch.setattr(gc_checker, "_JACOBIAN_WARN", 5)
    with pytest.warns(UserWarning, match="entries"):
        gradcheck(lambda a: a * 2, rand((3,)), fast_mode=False)


# ----------------------------------------------------------------------------------
# argument validation and not-yet-available collaborators

def test_argument_errors():
    x = rand((2,))
    with pytest.raises(ValueError, match="nothing to check"):
        gradcheck(lambda a: a * 2, weft.to_tensor([1.0, 2.0], dtype="float64"))
    with pytest.raises(ValueError, match="nothing to check"):
        gradcheck(lambda a: a * 2, [weft.to_tensor([1, 2], stop_gradient=False), 3.0])
    with pytest.raises(TypeError, match="func must be callable"):
        gradcheck(3, x)
    with pytest.raises(TypeError, match="inputs"):
        gradcheck(lambda a: a, {"x": x})
    with pytest.raises(ValueError, match="eps"):
        gradcheck(lambda a: a, x, eps=0.0)
    with pytest.raises(ValueError, match="atol"):
        gradcheck(lambda a: a, x, atol=-1.0)
    with pytest.raises(ValueError, match="num_directions"):
        gradcheck(lambda a: a, x, num_directions=0)
    with pytest.raises(TypeError, match="fast_mode"):
        gradcheck(lambda a: a, x, fast_mode="yes")
    with pytest.raises(TypeError, match="func must return"):
        gradcheck(lambda a: 3.0, x)
    with pytest.raises(TypeError, match="masked"):
        gradcheck(lambda a: a, x, masked="yes")
    with pytest.raises(ValueError, match="seed"):
        gradcheck(lambda a: a, x, seed=-1)


def test_foreign_sparse_like_input_is_rejected():
    class FakeSparse:
        def is_sparse(self):
            return True

    with pytest.raises(TypeError, match="not a weft sparse tensor"):
        gradcheck(lambda a, s: a, [rand((2,)), FakeSparse()])


def _double_vjp_jvp(scale=1.0):
    """A stand-in for weft.autograd.jvp (real maps): J v by the double-vjp trick."""
    def jvp(func, xs, v):
        xs = list(xs)
        outs = func(*xs)
        ws = []
        for o in outs:
            w = weft.zeros_like(o)
            w.stop_gradient = False
            ws.append(w)
        gs = weft.grad(list(outs), xs, grad_outputs=ws, create_graph=True, allow_unused=True)
        s = None
        for g, t in zip(gs, v):
            if g is not None:
                s = (g * t).sum() if s is None else s + (g * t).sum()
        jv = weft.grad(s, ws, allow_unused=True)
        return outs, tuple(None if j is None else j * scale for j in jv)
    return jvp


def _install_jvp(monkeypatch, jvp):
    # gradcheck looks the jvp up on the functional package when a check runs
    monkeypatch.setattr(ag_functional, "jvp", jvp)


@pytest.mark.parametrize("fast_mode", [True, False])
def test_forward_ad_with_a_jvp(monkeypatch, fast_mode):
    _install_jvp(monkeypatch, _double_vjp_jvp())
    x, y = rand((3,), seed=1), rand((3,), seed=2)
    assert gradcheck(lambda a, b: (a.sin() * b, b.exp()), [x, y], check_forward_ad=True,
                     fast_mode=fast_mode)
    assert gradcheck(lambda a: a.tanh(), x, check_forward_ad=True, check_backward_ad=False,
                     fast_mode=fast_mode)
    _install_jvp(monkeypatch, _double_vjp_jvp(scale=2.0))
    with pytest.raises(GradcheckError, match="forward-mode Jacobian mismatch"):
        gradcheck(lambda a: a.tanh(), x, check_forward_ad=True, fast_mode=fast_mode)


@pytest.mark.parametrize("fast_mode", [True, False])
def test_forward_ad_with_the_library_jvp(fast_mode):
    x, y = rand((3,), seed=1), rand((3,), seed=2)
    z = rand((3,), "complex128", seed=3)
    assert gradcheck(lambda a, b: (a.sin() * b, b.exp()), [x, y], check_forward_ad=True,
                     fast_mode=fast_mode)
    assert gradcheck(lambda a: a * a.exp(), z, check_forward_ad=True, fast_mode=fast_mode)
    assert gradcheck(lambda a: (a * a.conj()).real(), z, check_forward_ad=True,
                     fast_mode=fast_mode)
    assert gradgradcheck(lambda a: a.tanh() * a, x, check_fwd_over_rev=True,
                         fast_mode=fast_mode)


def _fake_jacobian(scale=1.0):
    """A stand-in for weft.autograd.jacobian(ys, xs) with 1-D ys and one 1-D xs."""
    class J:
        def __init__(self, y, x):
            self.y, self.x = y, x

        def __getitem__(self, idx):
            rows = []
            for q in range(self.y.shape[0]):
                v = np.zeros(self.y.shape, dtype=self.y.dtype)
                v[q] = 1
                (g,) = weft.grad(self.y, self.x, grad_outputs=weft.to_tensor(v),
                                 retain_graph=True, allow_unused=True)
                rows.append(np.zeros(self.x.shape) if g is None else g.numpy())
            return weft.to_tensor(np.array(rows).reshape(self.y.shape[0], -1) * scale)

    def jacobian(ys, xs, batch_axis=None):
        return tuple(J(y, xs) for y in ys)
    return jacobian


def test_batched_grad_with_a_jacobian(monkeypatch):
    monkeypatch.setattr(ag_functional, "jacobian", _fake_jacobian())
    x, y = rand((2, 3), seed=1), rand((3,), seed=2)
    assert gradcheck(lambda a, b: (a * b, (a @ b).exp()), [x, y], check_batched_grad=True)
    monkeypatch.setattr(ag_functional, "jacobian", _fake_jacobian(2.0))
    with pytest.raises(GradcheckError, match="check_batched_grad"):
        gradcheck(lambda a, b: a * b, [x, y], check_batched_grad=True)


# ----------------------------------------------------------------------------------
# gradgradcheck

@pytest.mark.parametrize("fast_mode", [True, False])
@pytest.mark.parametrize("func", [
    lambda x: x.tanh(),
    lambda x: x.sigmoid(),
    lambda x: (x.tanh() * x).sigmoid().exp(),
    lambda x: x ** 3,
], ids=["tanh", "sigmoid", "chain", "cube"])
def test_gradgradcheck_passes(func, fast_mode):
    assert gradgradcheck(func, rand((2, 2)), fast_mode=fast_mode)


def test_gradgradcheck_matmul_chain():
    a, b = rand((2, 3), seed=1), rand((3, 2), seed=2)
    assert gradgradcheck(lambda p, q: (p @ q).tanh() @ q.transpose([1, 0]), [a, b])
    assert gradgradcheck(lambda p, q: (p @ q).sigmoid(), [a, b], fast_mode=False)


def test_gradgradcheck_complex():
    z = rand((3,), "complex128", seed=4)
    assert gradgradcheck(lambda t: t * t.exp(), z)
    assert gradgradcheck(lambda t: (t * t.conj()).real(), z, fast_mode=False)


def test_gradgradcheck_0d_and_empty():
    assert gradgradcheck(lambda t: t * t.exp(), rand((), "complex128"))
    assert gradgradcheck(lambda t: t.tanh(), rand(()), fast_mode=False)
    assert gradgradcheck(lambda t: t.tanh(), rand((0, 2)))


def test_gradgradcheck_float32():
    assert gradgradcheck(lambda t: t.tanh() * t, rand((3,), "float32"))


def test_gradgradcheck_explicit_grad_outputs():
    x = rand((3,))
    v = weft.to_tensor([1.0, -2.0, 0.5], dtype="float64")   # a constant: only x is checked
    assert gradgradcheck(lambda t: t.sin() * t, x, v)
    assert gradgradcheck(lambda t: t.sin() * t, x, [leaf([1.0, -2.0, 0.5])])
    with pytest.raises(ValueError, match="grad_outputs has 2 entries"):
        gradgradcheck(lambda t: t.sin(), x, [v, v])
    with pytest.raises(ValueError, match="shape"):
        gradgradcheck(lambda t: t.sin(), x, weft.ones([2], dtype="float64"))


def test_gradgradcheck_unused_input_gets_zeros():
    x, y = rand((2,), seed=1), rand((2,), seed=2)
    assert gradgradcheck(lambda a, b: a * a, [x, y])


def test_gradgradcheck_fails_on_non_differentiable_backward():
    x = rand((3,))
    assert gradcheck(lambda a: apply(_sin_raw_vjp, a), x)    # first order is fine
    with pytest.raises(GradcheckError) as ei:
        gradgradcheck(lambda a: apply(_sin_raw_vjp, a), x)
    msg = str(ei.value)
    assert msg.startswith("gradgradcheck:") and "test_raw_cos" in msg


def test_gradgradcheck_catches_a_backward_blind_to_x():
    x = rand((3,), low=0.5)
    assert gradcheck(lambda a: apply(_sin_const_vjp, a), x)
    with pytest.raises(GradcheckError, match="Jacobian mismatch for input 0 and the gradient of "
                                             "input 0"):
        gradgradcheck(lambda a: apply(_sin_const_vjp, a), x)


def test_gradgradcheck_argument_errors():
    x = rand((2,))
    with pytest.raises(ValueError, match="nothing to check"):
        gradgradcheck(lambda a: a, weft.to_tensor([1.0]))
    with pytest.raises(TypeError, match="check_rev_over_rev"):
        gradgradcheck(lambda a: a, x, check_rev_over_rev=1)
    with pytest.raises(TypeError, match="grad_outputs"):
        gradgradcheck(lambda a: a, x, grad_outputs=3)


# ----------------------------------------------------------------------------------
# the package and the function of the same name

_FIRST_IMPORTS = ["import weft", "import weft.autograd.gradcheck.report",
                  "from weft.autograd.gradcheck import checker",
                  "import importlib; importlib.import_module('weft.autograd.gradcheck.sparse')",
                  "from weft.autograd import gradcheck"]


@pytest.mark.parametrize("first", _FIRST_IMPORTS)
def test_gradcheck_attribute_is_the_function(first):
    # whatever loads first, weft.autograd.gradcheck is the function and the package's
    # modules stay reachable by from-import
    import subprocess
    import sys

    code = (f"{first}\nimport weft.autograd, types\n"
            "from weft.autograd.gradcheck import api, report\n"
            "g = weft.autograd.gradcheck\n"
            "assert g is api.gradcheck and callable(g), g\n"
            "assert not isinstance(g, types.ModuleType)\n"
            "assert weft.autograd.gradgradcheck is api.gradgradcheck\n"
            "assert weft.autograd.GradcheckError is report.GradcheckError\n"
            "print('ok')\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr


def test_gradcheck_public_surface():
    import importlib

    pkg = importlib.import_module("weft.autograd.gradcheck")
    assert sorted(pkg.__all__) == ["GradcheckError", "gradcheck", "gradgradcheck"]
    assert weft.autograd.gradcheck is pkg.gradcheck is gradcheck
    assert issubclass(GradcheckError, RuntimeError)
