"""Every distribution-database family on the GPU (CuPy): the same numbers as on the
CPU, draws of the right shape, dtype and place whose moments match the reference,
and reparameterised gradients that arrive on the GPU.

Skipped where CuPy or a CUDA device is missing (CI never has one).
"""
from __future__ import annotations

import numpy as np
import pytest

import weft
import weft.distribution as D
from tests.conftest import on_device as _on
from tests.conftest import requires_gpu

from .distdb import TOL, dist_db
from .test_families import _call, _ref_value

DIST_DB = dist_db()
pytestmark = requires_gpu


def _host(t):
    return t.numpy()  # a copy from the GPU


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["float32", "float64"])
@pytest.mark.parametrize("info", DIST_DB, ids=str)
def test_methods_match_the_cpu(info, dtype):
    """Every compared method, on the broadcast batch case: GPU result == CPU result
    to the dtype's tolerance, computed on the GPU (result placed there)."""
    dtype = np.dtype(dtype)
    if dtype not in info.dtypes:
        pytest.skip(f"{info.name} is not tested in {dtype.name}")
    params = info.case("broadcast")
    values = info.sample_values(params)
    probs = np.random.default_rng(3).uniform(0.05, 0.95,
                                             info.value_shape(info.batch_shape(params), ()))
    cpu = info.make(params, dtype)
    with _on("gpu"):
        gpu = info.make(params, dtype)
    for method in info.methods:
        if method in info.raises:
            continue
        value = (probs if method == "icdf" else values).astype(dtype)
        want = _call(cpu, method, value)
        with _on("gpu"):
            got = _call(gpu, method, value)
        assert got.place.is_gpu_place(), f"{method}: result on {got.place}"
        assert got.dtype == want.dtype, (method, got.dtype, want.dtype)
        rtol, atol = info.tol.get(method, TOL[dtype])
        np.testing.assert_allclose(_host(got), _host(want), rtol=rtol, atol=atol,
                                   err_msg=f"{info.name}.{method} gpu vs cpu")


@pytest.mark.parametrize("info", DIST_DB, ids=str)
def test_draws_on_the_gpu(info):
    """Shapes, dtype, place and support of GPU draws, their moments against the
    reference (as on the CPU), and reproducibility under ``weft.seed``."""
    params = info.case("1-D")
    with _on("gpu"):
        d = info.make(params, np.float64)
        weft.seed(11)
        x = d.sample([20000])
        weft.seed(11)
        again = d.sample([20000])
    assert x.place.is_gpu_place()
    batch, event = d.batch_shape, d.event_shape
    assert tuple(x.shape) == (20000,) + batch + event
    assert x.dtype == np.dtype(info.sample_dtype or np.float64)
    xs = _host(x)
    np.testing.assert_array_equal(xs, _host(again))
    support = d.support
    if support is not None and not D.constraints.is_dependent(support):
        with _on("gpu"):
            assert bool(_host(support.check(x)).all()), f"GPU draws outside {support!r}"
    if info.moments:
        xs = xs.astype(np.float64)
        mean = np.asarray(_ref_value(info, "mean", params, None))
        sd = np.sqrt(np.asarray(_ref_value(info, "variance", params, None)))
        np.testing.assert_array_less(np.abs(xs.mean(0) - mean), 0.1 * (np.abs(mean) + sd))
        np.testing.assert_allclose(xs.var(0), sd * sd, rtol=0.15)


@pytest.mark.parametrize("info", [i for i in DIST_DB if i.has_rsample], ids=str)
def test_rsample_gradients_on_the_gpu(info):
    """The pathwise / implicit gradient of a smooth, bounded expectation (its
    derivative stays integrable for heavy-tailed families such as Cauchy): computed
    on the GPU, finite, and within Monte-Carlo error of the same estimate on the CPU
    (the two devices draw different streams)."""
    params = info.case("1-D")
    grads = {}
    for device in ("cpu", "gpu"):
        with _on(device):
            d, ts = info.make(params, np.float64, leaves=True)
            weft.seed(5)
            x = d.rsample([20000])
            (x.tanh() + (-0.25 * x * x).exp()).mean().backward()
        grads[device] = {k: t.grad for k, t in ts.items() if t.grad is not None}
    assert grads["gpu"].keys() == grads["cpu"].keys() and grads["gpu"]
    for k, g in grads["gpu"].items():
        assert g.place.is_gpu_place(), (k, g.place)
        gv, cv = _host(g), _host(grads["cpu"][k])
        assert np.isfinite(gv).all(), (k, gv)
        # two independent 20000-draw estimates of the same derivative
        np.testing.assert_allclose(gv, cv, rtol=0.1, atol=0.05, err_msg=f"d/d{k}")

