"""Learning-rate schedulers: sequences against closed forms, Paddle's stepping
convention, state dicts and argument errors."""
import math

import numpy as np
import pytest

import weft
import weft.optimizer  # noqa: F401
from weft.optimizer import lr


def _seq(s, n, metric=None):
    out = []
    for k in range(n):
        out.append(s())
        if metric is None:
            s.step()
        else:
            s.step(metric[k])
    return out


def test_step_multistep_exponential():
    np.testing.assert_allclose(_seq(lr.StepDecay(1.0, 3, 0.5), 7),
                               [1, 1, 1, .5, .5, .5, .25])
    np.testing.assert_allclose(_seq(lr.MultiStepDecay(1.0, [1, 3], 0.1), 5),
                               [1, .1, .1, .01, .01])
    np.testing.assert_allclose(_seq(lr.ExponentialDecay(2.0, 0.5), 4), [2, 1, .5, .25])
    np.testing.assert_allclose(_seq(lr.LambdaDecay(1.0, lambda e: 1 / (e + 1)), 3),
                               [1, .5, 1 / 3])
    np.testing.assert_allclose(_seq(lr.PiecewiseDecay([2, 4], [1.0, 0.5, 0.1]), 6),
                               [1, 1, .5, .5, .1, .1])


def test_cosine_annealing_recursive_equals_closed_form_in_first_period():
    base, eta, T = 0.3, 0.01, 5
    got = _seq(lr.CosineAnnealingDecay(base, T, eta_min=eta), 2 * T + 1)
    closed = [eta + (base - eta) * (1 + math.cos(math.pi * e / T)) / 2 for e in range(2 * T + 1)]
    np.testing.assert_allclose(got, closed, rtol=1e-12)
    s = lr.CosineAnnealingDecay(base, T, eta_min=eta)
    s.step(3)
    assert s() == pytest.approx(closed[3]) and s.last_epoch == 3


def test_construction_steps_once():
    s = lr.StepDecay(0.1, 2)
    assert s.last_epoch == 0 and s() == 0.1 and s.base_lr == 0.1
    s = lr.ExponentialDecay(1.0, 0.5, last_epoch=2)
    assert s.last_epoch == 3 and s() == 0.125


def test_linear_warmup_wrapping_a_scheduler():
    inner = lr.StepDecay(1.0, 1, 0.5)
    s = lr.LinearWarmup(inner, warmup_steps=4, start_lr=0.0, end_lr=1.0)
    np.testing.assert_allclose(_seq(s, 7), [0, .25, .5, .75, 1, .5, .25])
    s2 = lr.LinearWarmup(lr.StepDecay(1.0, 1, 0.5), 4, 0.0, 1.0)
    s2.set_state_dict(s.state_dict())
    assert s2.last_epoch == s.last_epoch and s2() == s()
    assert s2.learning_rate.last_epoch == inner.last_epoch
    assert "LinearWarmup_LR" in s.state_dict()


def test_reduce_on_plateau():
    s = lr.ReduceOnPlateau(1.0, patience=1, factor=0.5, cooldown=1)
    losses = [5.0, 4.0, 4.0, 4.0, 4.0, 4.0, 4.0, 3.0]
    out = _seq(s, len(losses), losses)
    assert out == [1.0, 1.0, 1.0, 1.0, 0.5, 0.5, 0.5, 0.25]
    s = lr.ReduceOnPlateau(1.0, mode="max", patience=0, factor=0.1, min_lr=0.05,
                           threshold=0.5, threshold_mode="abs")
    _seq(s, 3, [1.0, 1.2, 1.4])
    assert s() == 0.05  # improvements below the absolute threshold do not count
    s.step(weft.to_tensor([3.0]))
    assert s.best == 3.0
    with pytest.raises(ValueError, match="one element"):
        s.step(weft.ones([2]))
    with pytest.raises(TypeError, match="metrics must be"):
        s.step("bad")
    st = s.state_dict()
    assert set(st) == {"cooldown_counter", "best", "num_bad_epochs", "last_epoch", "last_lr"}


def test_state_dict_round_trip():
    a = lr.CosineAnnealingDecay(0.5, 10)
    for _ in range(4):
        a.step()
    b = lr.CosineAnnealingDecay(0.5, 10)
    b.set_state_dict(a.state_dict())
    assert _seq(a, 3) == _seq(b, 3)
    with pytest.raises(RuntimeError, match="last_lr"):
        b.set_state_dict({"last_epoch": 1})


def test_scheduler_errors():
    with pytest.raises(TypeError, match="step_size must be an int"):
        lr.StepDecay(0.1, 1.5)
    with pytest.raises(ValueError, match="gamma should be < 1.0"):
        lr.StepDecay(0.1, 2, gamma=1.5)
    with pytest.raises(ValueError, match=r"gamma must be in \(0, 1\)"):
        lr.ExponentialDecay(0.1, 0.0)
    with pytest.raises(ValueError, match="T_max must be >= 1"):
        lr.CosineAnnealingDecay(0.1, 0)
    with pytest.raises(ValueError, match="end_lr"):
        lr.LinearWarmup(0.1, 2, 0.5, 0.1)
    with pytest.raises(ValueError, match="mode must be"):
        lr.ReduceOnPlateau(0.1, mode="median")
    with pytest.raises(ValueError, match="factor should be < 1.0"):
        lr.ReduceOnPlateau(0.1, factor=2.0)
    with pytest.raises(TypeError, match="learning_rate must be a number"):
        lr.StepDecay("0.1", 2)
    with pytest.raises(ValueError, match="non-negative"):
        lr.StepDecay(-0.1, 2)
