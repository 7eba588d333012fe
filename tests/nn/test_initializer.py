"""weft.nn.initializer: Paddle's fan rules, distributions, reproducibility, errors."""
import math

import numpy as np
import pytest

import weft
from weft import nn
from weft.nn import initializer as I


def _param(shape, dtype="float32"):
    return nn.create_parameter(list(shape), dtype)


@pytest.mark.parametrize("shape,fans", [
    ([], (1, 1)), ([7], (7, 7)), ([3, 5], (3, 5)), ([8, 4, 3, 3], (36, 72)),
])
def test_fans(shape, fans):
    assert I._compute_fans(shape) == fans


def test_xavier_and_kaiming_bounds_and_spread():
    weft.seed(0)
    p = I.XavierUniform()(_param([300, 200]))
    lim = math.sqrt(6 / 500)
    assert np.abs(p.numpy()).max() <= lim and np.abs(p.numpy()).max() > 0.95 * lim
    p = I.XavierNormal(gain=2.0)(_param([300, 200]))
    assert p.numpy().std() == pytest.approx(2 * math.sqrt(2 / 500), rel=0.05)
    p = I.KaimingNormal()(_param([400, 100]))
    assert p.numpy().std() == pytest.approx(math.sqrt(2) / math.sqrt(400), rel=0.05)
    p = I.KaimingUniform(mode="fan_out", nonlinearity="leaky_relu", negative_slope=0.1)(
        _param([100, 400]))
    lim = math.sqrt(2 / 1.01) * math.sqrt(3 / 400)
    assert np.abs(p.numpy()).max() <= lim * (1 + 1e-6)
    p = I.KaimingNormal(fan_in=4.0)(_param([50, 60]))
    assert p.numpy().std() == pytest.approx(math.sqrt(2) / 2, rel=0.05)


def test_simple_initializers():
    weft.seed(0)
    np.testing.assert_array_equal(I.Constant(1.5)(_param([2, 2])).numpy(), 1.5)
    u = I.Uniform(2.0, 3.0)(_param([1000])).numpy()
    assert u.min() >= 2.0 and u.max() < 3.0
    n = I.Normal(1.0, 0.1)(_param([4000], "float64")).numpy()
    assert n.mean() == pytest.approx(1.0, abs=0.01) and n.dtype == np.float64
    tn = I.TruncatedNormal(0.0, 1.0, -0.5, 0.5)(_param([1000])).numpy()
    assert np.abs(tn).max() <= 0.5
    a = I.Assign(np.arange(6.0).reshape(2, 3))(_param([2, 3]))
    np.testing.assert_array_equal(a.numpy(), np.arange(6.0).reshape(2, 3))
    np.testing.assert_array_equal(I.Assign(weft.ones([2]))(_param([2])).numpy(), 1.0)


def test_initialization_is_reproducible_under_seed():
    weft.seed(11)
    a = nn.Linear(4, 5).weight.numpy()
    weft.seed(11)
    b = nn.Linear(4, 5).weight.numpy()
    np.testing.assert_array_equal(a, b)


def test_initializer_keeps_parameter_identity_and_bumps_version():
    p = _param([3])
    data, v = p._data, p._version[0]
    I.Constant(2.0)(p)
    assert p._data is data and p._version[0] == v + 1 and not p.stop_gradient


def test_calculate_gain():
    assert I.calculate_gain("tanh") == pytest.approx(5 / 3)
    assert I.calculate_gain("leaky_relu", 0.2) == pytest.approx(math.sqrt(2 / 1.04))
    assert I.calculate_gain("conv2d") == 1.0
    with pytest.raises(ValueError, match="not supported"):
        I.calculate_gain("swish")


def test_initializer_errors():
    with pytest.raises(ValueError, match="Assign: the value has shape"):
        I.Assign([1.0, 2.0])(_param([3]))
    with pytest.raises(TypeError, match="Constant: value must be a real number"):
        I.Constant("a")
    with pytest.raises(ValueError, match="low must not exceed high"):
        I.Uniform(1.0, 0.0)
    with pytest.raises(ValueError, match="mode must be"):
        I.KaimingNormal(mode="fan_avg")
    with pytest.raises(TypeError, match="expected a Tensor"):
        I.Constant(0.0)(np.zeros(2))
