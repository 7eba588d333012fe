"""Optimizers against hand-written numpy references of Paddle's update rules, with weight
decay, gradient clipping, schedulers, parameter groups and state-dict round trips."""
import importlib.util
import math
import os
import sys

import numpy as np
import pytest

import weft
import weft.optimizer as O
from weft import nn
from weft.regularizer import L1Decay, L2Decay

try:
    from weft import load, save
except ImportError:  # not yet exported at the top level
    from weft.core.serialization import load, save

STEPS = 4
# importing torch takes seconds: only when already loaded or asked for (as tests/core does)
RUN_TORCH = importlib.util.find_spec("torch") is not None and (
    "torch" in sys.modules or os.environ.get("WEFT_TEST_TORCH") == "1")


def _grads(shape, n=STEPS, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(shape) for _ in range(n)]


def _run(opt_factory, p0_list, grads_list, sched=None):
    """Run the weft optimizer feeding the given gradients; returns final values."""
    params = [nn.create_parameter(list(p.shape), "float64") for p in p0_list]
    for p, v in zip(params, p0_list):
        p.set_value(v)
    opt = opt_factory(params)
    for k in range(STEPS):
        for p, gs in zip(params, grads_list):
            p.grad = weft.to_tensor(gs[k])
        opt.step()
        if sched is not None:
            sched.step()
    return [p.numpy() for p in params], opt


# ---------------------------------------------------------------------------------
# numpy references (Paddle's rules; the state is a dict per parameter)

def ref_sgd(p, g, s, lr):
    return p - lr * g


def ref_momentum(mu, nesterov=False):
    def rule(p, g, s, lr):
        v = s["v"] = mu * s.get("v", 0) + g
        return p - lr * (g + mu * v) if nesterov else p - lr * v
    return rule


def ref_adam(b1=0.9, b2=0.999, eps=1e-8, amsgrad=False, decoupled=0.0):
    def rule(p, g, s, lr):
        t = s["t"] = s.get("t", 0) + 1
        if decoupled:
            p = p * (1 - lr * decoupled)
        m = s["m"] = b1 * s.get("m", 0) + (1 - b1) * g
        v = s["v"] = b2 * s.get("v", 0) + (1 - b2) * g * g
        if amsgrad:
            v = s["vmax"] = np.maximum(s.get("vmax", 0), v)
        mhat, vhat = m / (1 - b1 ** t), v / (1 - b2 ** t)
        return p - lr * mhat / (np.sqrt(vhat) + eps)
    return rule


def ref_adagrad(eps=1e-6, init=0.0):
    def rule(p, g, s, lr):
        acc = s["a"] = s.get("a", init) + g * g
        return p - lr * g / (np.sqrt(acc) + eps)
    return rule


def ref_rmsprop(rho=0.95, eps=1e-6, mom=0.0, centered=False):
    def rule(p, g, s, lr):
        ms = s["ms"] = rho * s.get("ms", 0) + (1 - rho) * g * g
        if centered:
            mg = s["mg"] = rho * s.get("mg", 0) + (1 - rho) * g
            denom = np.sqrt(ms - mg * mg + eps)
        else:
            denom = np.sqrt(ms + eps)
        m = s["mom"] = mom * s.get("mom", 0) + lr * g / denom
        return p - m
    return rule


def ref_run(rule, p0_list, grads_list, lrs, l2=0.0, l1=0.0, clip=None):
    ps = [p.copy() for p in p0_list]
    states = [{} for _ in ps]
    for k in range(STEPS):
        gs = [g[k] for g in grads_list]
        if clip is not None:
            gs = clip(gs)
        gs = [g + l2 * p + l1 * np.sign(p) for g, p in zip(gs, ps)]
        ps = [rule(p, g, s, lrs[k]) for p, g, s in zip(ps, gs, states)]
    return ps


P0 = [np.random.default_rng(5).standard_normal((3, 2)),
      np.random.default_rng(6).standard_normal((2,))]
G = [_grads((3, 2), seed=1), _grads((2,), seed=2)]
CONST = [0.1] * STEPS

CASES = {
    "sgd": (lambda ps: O.SGD(0.1, parameters=ps), ref_sgd),
    "momentum": (lambda ps: O.Momentum(0.1, 0.8, parameters=ps), ref_momentum(0.8)),
    "nesterov": (lambda ps: O.Momentum(0.1, 0.8, parameters=ps, use_nesterov=True),
                 ref_momentum(0.8, True)),
    "adam": (lambda ps: O.Adam(0.1, parameters=ps), ref_adam()),
    "adam-betas": (lambda ps: O.Adam(0.1, 0.5, 0.7, 1e-3, parameters=ps),
                   ref_adam(0.5, 0.7, 1e-3)),
    "amsgrad": (lambda ps: O.Adam(0.1, parameters=ps, amsgrad=True), ref_adam(amsgrad=True)),
    "adamw": (lambda ps: O.AdamW(0.1, parameters=ps, weight_decay=0.3),
              ref_adam(decoupled=0.3)),
    "adagrad": (lambda ps: O.Adagrad(0.1, parameters=ps, initial_accumulator_value=0.2),
                ref_adagrad(init=0.2)),
    "rmsprop": (lambda ps: O.RMSProp(0.1, parameters=ps), ref_rmsprop()),
    "rmsprop-centered": (lambda ps: O.RMSProp(0.1, rho=0.9, momentum=0.5, centered=True,
                                              parameters=ps),
                         ref_rmsprop(0.9, mom=0.5, centered=True)),
}


@pytest.mark.parametrize("name", list(CASES))
def test_update_rules_match_numpy(name):
    make, rule = CASES[name]
    got, _ = _run(make, P0, G)
    want = ref_run(rule, P0, G, CONST)
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", ["sgd", "momentum", "adam", "adagrad", "rmsprop"])
@pytest.mark.parametrize("decay", ["float", "l2", "l1"])
def test_coupled_weight_decay(name, decay):
    make, rule = CASES[name]
    wd = {"float": 0.05, "l2": L2Decay(0.05), "l1": L1Decay(0.05)}[decay]

    def factory(ps):
        opt = make(ps)
        opt.regularization = O.Optimizer._regularizer(wd, name)
        for g in opt._param_groups:
            g["weight_decay"] = opt.regularization
        return opt

    got, _ = _run(factory, P0, G)
    want = ref_run(rule, P0, G, CONST, l2=0.05 if decay != "l1" else 0.0,
                   l1=0.05 if decay == "l1" else 0.0)
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


def test_weight_decay_argument_forms():
    ps = [nn.create_parameter([2], "float64")]
    assert isinstance(O.SGD(0.1, ps, weight_decay=0.1).regularization, L2Decay)
    assert O.SGD(0.1, ps, weight_decay=L1Decay(0.1)).regularization.coeff == 0.1
    with pytest.raises(TypeError, match="weight_decay must be"):
        O.SGD(0.1, ps, weight_decay="l2")
    with pytest.raises(TypeError, match="AdamW: weight_decay"):
        O.AdamW(0.1, parameters=ps, weight_decay=L2Decay(0.1))


def _clip_value(gs):
    return [np.clip(g, -0.5, 0.5) for g in gs]


def _clip_norm(gs):
    return [g * min(1.0, 0.7 / np.linalg.norm(g)) for g in gs]


def _clip_global(gs):
    n = math.sqrt(sum((g * g).sum() for g in gs))
    return [g * 0.9 / max(n, 0.9) for g in gs]


@pytest.mark.parametrize("clip,ref", [(nn.ClipGradByValue(0.5), _clip_value),
                                      (nn.ClipGradByNorm(0.7), _clip_norm),
                                      (nn.ClipGradByGlobalNorm(0.9), _clip_global)])
def test_gradient_clipping_then_decay(clip, ref):
    got, _ = _run(lambda ps: O.Adam(0.1, parameters=ps, grad_clip=clip, weight_decay=0.1),
                  P0, G)
    want = ref_run(ref_adam(), P0, G, CONST, l2=0.1, clip=ref)
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


def test_need_clip_false_is_not_clipped():
    p = nn.create_parameter([2], "float64")
    p.need_clip = False
    pairs = nn.ClipGradByGlobalNorm(0.1)([(p, weft.to_tensor(np.array([3.0, 4.0])))])
    np.testing.assert_array_equal(pairs[0][1].numpy(), [3.0, 4.0])


@pytest.mark.parametrize("sched_factory,lrs", [
    (lambda: O.lr.StepDecay(0.1, 2, 0.5), [0.1, 0.1, 0.05, 0.05]),
    (lambda: O.lr.ExponentialDecay(0.1, 0.5), [0.1, 0.05, 0.025, 0.0125]),
    (lambda: O.lr.LinearWarmup(0.1, 2, 0.0, 0.1), [0.0, 0.05, 0.1, 0.1]),
])
def test_schedulers_drive_the_learning_rate(sched_factory, lrs):
    sched = sched_factory()
    got, opt = _run(lambda ps: O.Momentum(sched, 0.5, parameters=ps), P0, G, sched=sched)
    want = ref_run(ref_momentum(0.5), P0, G, lrs)
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)
    assert opt.get_lr() == sched()


def test_adamw_decay_filter_and_lr_ratio():
    ps = [nn.create_parameter([3], "float64", name="keep_w"),
          nn.create_parameter([3], "float64", name="skip_b")]
    for p in ps:
        p.set_value(np.ones(3))
    opt = O.AdamW(0.1, parameters=ps, weight_decay=0.5,
                  apply_decay_param_fun=lambda n: n.endswith("_w"),
                  lr_ratio=lambda p: 0.5 if p.name == "skip_b" else 1.0)
    for p in ps:
        p.grad = weft.to_tensor(np.zeros(3))
    opt.step()
    # zero gradients: only the decay moves the parameters (Adam's step is 0)
    np.testing.assert_allclose(ps[0].numpy(), 1 - 0.1 * 0.5)
    np.testing.assert_allclose(ps[1].numpy(), 1.0)


def test_param_groups_and_param_attr_multipliers():
    a = nn.create_parameter([2], "float64")
    b = nn.create_parameter([2], "float64")
    c = nn.create_parameter([2], "float64", attr=nn.ParamAttr(learning_rate=3.0,
                                                              regularizer=L2Decay(1.0)))
    for p in (a, b, c):
        p.set_value(np.ones(2))
        p.grad = weft.to_tensor(np.ones(2))
    opt = O.SGD(0.1, parameters=[{"params": [a]},
                                 {"params": [b], "learning_rate": 0.5, "weight_decay": 1.0},
                                 {"params": c}])
    opt.step()
    np.testing.assert_allclose(a.numpy(), 1 - 0.1)
    np.testing.assert_allclose(b.numpy(), 1 - 0.05 * 2)     # decayed grad 1 + 1 * 1
    np.testing.assert_allclose(c.numpy(), 1 - 0.3 * 2)      # its own regularizer and lr
    with pytest.raises(ValueError, match="unknown options"):
        O.SGD(0.1, parameters=[{"params": [a], "beta1": 0.9}])
    mom = O.Adam(0.1, parameters=[{"params": [a], "beta1": 0.5}])
    assert mom._param_groups[0]["beta1"] == 0.5


def test_parameters_stay_leaves_and_skip_frozen():
    lin = nn.Linear(2, 2)
    lin.bias.trainable = False
    w, b0 = lin.weight, lin.bias.numpy().copy()
    opt = O.Adam(0.1, parameters=lin.parameters())
    lin(weft.ones([3, 2])).sum().backward()
    v = w._version[0]
    opt.step()
    assert lin.weight is w and w.is_leaf and not w.stop_gradient and w._version[0] == v + 1
    np.testing.assert_array_equal(lin.bias.numpy(), b0)
    opt.clear_grad()
    np.testing.assert_array_equal(w.grad.numpy(), 0.0)
    opt.clear_grad(set_to_zero=False)
    assert w.grad is None
    # after a step, gradients flow again through the updated parameter
    lin(weft.ones([1, 2])).sum().backward()
    assert w.grad is not None


def test_lr_get_set():
    ps = [nn.create_parameter([2], "float32")]
    opt = O.SGD(0.1, parameters=ps)
    opt.set_lr(0.3)
    assert opt.get_lr() == 0.3
    sched = O.lr.StepDecay(1.0, 1)
    opt.set_lr_scheduler(sched)
    assert opt.get_lr() == 1.0
    with pytest.raises(RuntimeError, match="LRScheduler"):
        opt.set_lr(0.1)
    with pytest.raises(TypeError, match="LRScheduler"):
        opt.set_lr_scheduler(0.1)


def test_constructor_errors():
    p = nn.create_parameter([2], "float32")
    with pytest.raises(ValueError, match="parameters must be given"):
        O.Adam(0.1)
    with pytest.raises(TypeError, match="single Tensor"):
        O.Adam(0.1, parameters=p)
    with pytest.raises(ValueError, match="empty parameter list"):
        O.Adam(0.1, parameters=[])
    with pytest.raises(TypeError, match="grad_clip must be"):
        O.SGD(0.1, [p], grad_clip=1.0)
    with pytest.raises(ValueError, match=r"beta1 must be in \[0.0, 1.0\)"):
        O.Adam(0.1, beta1=1.0, parameters=[p])
    with pytest.raises(ValueError, match="learning_rate is not set"):
        O.Adagrad(None, parameters=[p])
    with pytest.raises(ValueError, match="non-negative"):
        O.SGD(-1.0, [p])
    with pytest.raises(TypeError, match="parameters must be Tensors"):
        O.SGD(0.1, [np.zeros(2)])


def _train(model, opt, xs, ys):
    F = nn.functional
    for x, y in zip(xs, ys):
        F.cross_entropy(model(x), y).backward()
        opt.step()
        opt.clear_grad()


@pytest.mark.parametrize("make", [
    lambda ps: O.Adam(O.lr.StepDecay(0.05, 1, 0.5), parameters=ps, amsgrad=True),
    lambda ps: O.Momentum(0.05, parameters=ps, use_nesterov=True),
    lambda ps: O.RMSProp(0.01, parameters=ps, centered=True, momentum=0.3),
    lambda ps: O.Adagrad(0.05, parameters=ps),
])
def test_state_dict_round_trip_through_save_load(tmp_path, make):
    rng = np.random.default_rng(0)
    xs = [weft.to_tensor(rng.standard_normal((8, 4)).astype("float32")) for _ in range(4)]
    ys = [weft.to_tensor(rng.integers(0, 3, 8)) for _ in range(4)]

    def build():
        weft.seed(3)
        m = nn.Sequential(nn.Linear(4, 5), nn.ReLU(), nn.Linear(5, 3))
        return m, make(m.parameters())

    m1, o1 = build()
    assert not [k for k in o1.state_dict() if k != "LR_Scheduler"]  # nothing before a step
    _train(m1, o1, xs[:2], ys[:2])
    lr_at_save = o1.get_lr()
    path = str(tmp_path / "ckpt")
    save({"model": m1.state_dict(), "opt": o1.state_dict()}, path)
    _train(m1, o1, xs[2:], ys[2:])

    m2, o2 = build()   # a fresh model: other parameter names, matched by position
    ck = load(path)
    m2.set_state_dict(ck["model"])
    o2.set_state_dict(ck["opt"])
    assert o2.get_lr() == lr_at_save
    _train(m2, o2, xs[2:], ys[2:])
    for a, b in zip(m1.parameters(), m2.parameters()):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6, atol=1e-7)


def test_set_state_dict_shape_mismatch():
    a = nn.create_parameter([2], "float32")
    opt = O.Adam(0.1, parameters=[a])
    sd = {f"{a.name}_moment1_0": np.zeros(3)}
    with pytest.raises(ValueError, match="has shape"):
        opt.set_state_dict(sd)


@pytest.mark.skipif(not RUN_TORCH, reason="torch not loaded (set WEFT_TEST_TORCH=1)")
def test_matches_torch_optimizers():
    import torch

    pairs = [
        (lambda ps: O.Adam(0.05, parameters=ps, weight_decay=0.1),
         lambda ps: torch.optim.Adam(ps, lr=0.05, weight_decay=0.1)),
        (lambda ps: O.AdamW(0.05, parameters=ps, weight_decay=0.1, amsgrad=True),
         lambda ps: torch.optim.AdamW(ps, lr=0.05, weight_decay=0.1, amsgrad=True)),
        (lambda ps: O.Momentum(0.05, 0.9, parameters=ps, use_nesterov=True),
         lambda ps: torch.optim.SGD(ps, lr=0.05, momentum=0.9, nesterov=True)),
        (lambda ps: O.Adagrad(0.05, parameters=ps, epsilon=1e-10),
         lambda ps: torch.optim.Adagrad(ps, lr=0.05, eps=1e-10)),
    ]
    for mk_w, mk_t in pairs:
        got, _ = _run(mk_w, P0, G)
        tps = [torch.tensor(p, requires_grad=True) for p in P0]
        opt = mk_t(tps)
        for k in range(STEPS):
            for tp, gs in zip(tps, G):
                tp.grad = torch.tensor(gs[k])
            opt.step()
        for a, b in zip(got, tps):
            np.testing.assert_allclose(a, b.detach().numpy(), rtol=1e-10, atol=1e-12)
