"""Generic tests run on every entry of the distribution database (``distdb.py``)."""
from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

import weft
import weft.distribution as D

from .distdb import TOL, dist_db

DIST_DB = dist_db()

_REF_NAMES = {"log_prob": ("logpdf", "logpmf"), "prob": ("pdf", "pmf"), "cdf": ("cdf",),
              "icdf": ("ppf",), "mean": ("mean",), "variance": ("var",),
              "stddev": ("std",), "entropy": ("entropy",)}
_VALUE_METHODS = {"log_prob", "prob", "cdf", "icdf"}
_PROPERTIES = {"mean", "variance", "stddev", "mode", "batch_shape", "event_shape"}


def _cases():
    for info in DIST_DB:
        for dtype in info.dtypes:
            for label in info.batch_cases:
                yield pytest.param(info, dtype, label, id=f"{info.name}-{dtype.name}-{label}")


def _ref_value(info, method, params, value):
    if method in info.closed:
        f = info.closed[method]
        return f(info.broadcast(params), value) if method in _VALUE_METHODS else \
            f(info.broadcast(params))
    ref = info.reference(params)
    names = _REF_NAMES[method]
    name = names[1] if info.discrete and len(names) > 1 else names[0]
    fn = getattr(ref, name)
    return fn(value) if method in _VALUE_METHODS else fn()


def _call(d, method, value=None):
    if method in _PROPERTIES:
        return getattr(d, method)
    if method in _VALUE_METHODS:
        return getattr(d, method)(weft.to_tensor(value))
    return getattr(d, method)()


@pytest.mark.parametrize("info,dtype,label", list(_cases()))
def test_against_reference(info, dtype, label):
    params = info.case(label)
    d = info.make(params, dtype)
    batch = info.batch_shape(params)
    event = tuple(info.event_shape(params))
    assert d.batch_shape == batch and d.event_shape == event, (d.batch_shape, d.event_shape)
    values = info.sample_values(params)
    probs = np.random.default_rng(3).uniform(0.05, 0.95, info.value_shape(batch, ()))
    for method in info.methods:
        if method in info.raises:
            continue
        value = probs if method == "icdf" else values
        got = _call(d, method, value.astype(dtype))
        want = np.asarray(_ref_value(info, method, params, value), dtype=np.float64)
        rtol, atol = info.tol.get(method, TOL[dtype])
        assert got.dtype == dtype, (method, got.dtype)
        g = got.numpy()
        assert g.shape == np.broadcast_shapes(g.shape, want.shape) and \
            np.broadcast_shapes(g.shape, want.shape) == want.shape, (method, g.shape, want.shape)
        np.testing.assert_allclose(g, want, rtol=rtol, atol=atol, err_msg=method)


@pytest.mark.parametrize("info", DIST_DB, ids=str)
def test_sample_shapes_and_dtypes(info):
    params = info.case("1-D")
    d = info.make(params, np.float32)
    batch, event = d.batch_shape, d.event_shape
    want_dtype = np.dtype(info.sample_dtype or np.float32)
    for shape, lead in (([5], (5,)), ((2, 1), (2, 1)), ([], ()), (4, (4,))):
        s = d.sample(shape)
        assert tuple(s.shape) == lead + batch + event, (shape, s.shape)
        assert s.dtype == want_dtype and s.stop_gradient
    s = d.sample([50])
    support = d.support
    if support is not None and not D.constraints.is_dependent(support):
        assert bool(support.check(s).all()), f"draws outside the support {support!r}"
    if info.has_rsample:
        s = d.rsample([3])
        assert tuple(s.shape) == (3,) + batch + event and s.dtype == want_dtype
    else:
        assert not d.has_rsample
    assert d.has_rsample == info.has_rsample


@pytest.mark.parametrize("info", DIST_DB, ids=str)
def test_sample_moments_and_ks(info):
    if not info.moments and not info.is_ks:
        pytest.skip(f"{info.name}: no sample moments or KS statistic (declared in its entry)")
    params = info.case("1-D")
    d = info.make(params, np.float64)
    weft.seed(2024)
    n = 30000
    x = d.sample([n]).numpy().astype(np.float64)
    if info.moments:
        mean = np.asarray(_ref_value(info, "mean", params, None))
        var = np.asarray(_ref_value(info, "variance", params, None))
        sd = np.sqrt(var)
        np.testing.assert_array_less(np.abs(x.mean(0) - mean), 0.1 * (np.abs(mean) + sd))
        np.testing.assert_allclose(x.var(0), var, rtol=0.1)
    if info.is_ks:
        ref = info.reference(params)
        for i in range(x.shape[1]):
            cdf = _slice_cdf(info, params, i)
            stat = stats.kstest(x[:, i], cdf).statistic
            assert stat < 0.02, (i, stat)
        assert ref is not None


def _slice_cdf(info, params, i):
    one = {k: v[i:i + 1] for k, v in info.broadcast(params).items()}
    ref = info.ref(**one, **info.fixed)
    return lambda v: ref.cdf(np.asarray(v)[:, None])[:, 0]


def _expectation(info, ts, n, seed):
    weft.seed(seed)
    x = info.build(**ts, **info.fixed).rsample([n])
    # a smooth test function of the draw, averaged: its derivative in the parameters
    # is the reparameterisation gradient
    return (x.sin() + 0.1 * x * x).mean()


@pytest.mark.parametrize("info", [i for i in DIST_DB if i.has_rsample], ids=str)
def test_rsample_gradient_matches_finite_differences(info):
    if info.rsample_fd_skip:
        pytest.skip(f"{info.name}: {info.rsample_fd_skip}")
    params = info.case("1-D")
    _, ts = info.make(params, np.float64, leaves=True)
    n, h = 2000, 1e-6
    leaves = [k for k in ts if not ts[k].stop_gradient]
    f = _expectation(info, ts, n, seed=11)
    grads = weft.grad(f, [ts[k] for k in leaves])
    for k, g in zip(leaves, grads):
        base = params[k]
        for idx in [(0,) * base.ndim, tuple(s - 1 for s in base.shape)]:
            num = []
            for sign in (1, -1):
                p = {kk: weft.to_tensor(vv.copy()) for kk, vv in params.items()}
                arr = params[k].copy()
                arr[idx] += sign * h
                p[k] = weft.to_tensor(arr)
                num.append(_expectation(info, p, n, seed=11).item())
            fd = (num[0] - num[1]) / (2 * h)
            np.testing.assert_allclose(g.numpy()[idx], fd, rtol=info.rsample_rtol, atol=1e-6,
                                       err_msg=f"d/d{k}{list(idx)}")


@pytest.mark.parametrize("info", [i for i in DIST_DB if i.gradcheck], ids=str)
def test_gradcheck_log_prob(info):
    for label in info.gradcheck_cases:
        params = info.case(label)
        values = info.sample_values(params)
        names = list(params)
        grad_names = [k for k in names if info.params[k].grad]
        if not grad_names and not info.grads_value:
            pytest.skip(f"{info.name}: no differentiable parameter")

        def fn(*args):
            kw = dict(zip(names, args[:len(names)]))
            return info.build(**kw, **info.fixed).log_prob(args[len(names)])

        inputs = []
        for k in names:
            t = weft.to_tensor(params[k])
            t.stop_gradient = not info.params[k].grad
            inputs.append(t)
        v = weft.to_tensor(values)
        v.stop_gradient = not info.grads_value
        inputs.append(v)
        assert weft.autograd.gradcheck(fn, inputs)


@pytest.mark.parametrize("info", DIST_DB, ids=str)
def test_sampling_is_reproducible_under_seed(info):
    d = info.make(info.case("1-D"), np.float32)
    weft.seed(5)
    a = d.sample([7]).numpy()
    b = d.sample([7]).numpy()
    weft.seed(5)
    np.testing.assert_array_equal(d.sample([7]).numpy(), a)
    assert not np.array_equal(a, b) or info.discrete
    if info.has_rsample:
        weft.seed(9)
        r = d.rsample([3]).numpy()
        weft.seed(9)
        np.testing.assert_array_equal(d.rsample([3]).numpy(), r)


@pytest.mark.parametrize("info", [i for i in DIST_DB if i.raises], ids=str)
def test_undefined_members_raise(info):
    params = info.case("1-D")
    d = info.make(params, np.float64)
    values = info.sample_values(params)
    for method, exc in info.raises.items():
        with pytest.raises(exc):
            if method in ("sample", "rsample"):
                getattr(d, method)([2])
            else:
                _call(d, method, values)


@pytest.mark.parametrize("info", DIST_DB, ids=str)
def test_validation(info):
    params = info.case("1-D")
    D.set_validate_args(True)
    try:
        info.make(params, np.float64)   # valid parameters construct
        for bad in info.invalid:
            with pytest.raises(ValueError):
                info.make(bad, np.float64)
        if info.outside is not None:
            d = info.make(params, np.float64)
            with pytest.raises(ValueError):
                d.log_prob(weft.to_tensor(info.outside(info.broadcast(params))))
    finally:
        D.set_validate_args(False)
    for bad in info.invalid:         # off by default: Paddle never checks ranges
        if info.invalid_constructs:
            info.make(bad, np.float64)
        else:
            with pytest.raises(ValueError):
                info.make(bad, np.float64)
    if info.outside is not None:
        d = info.make(params, np.float64)
        lp = d.log_prob(weft.to_tensor(info.outside(info.broadcast(params)))).numpy()
        assert np.all(lp == -np.inf), lp


# ----------------------------------------------------------------------------------
# shapes: random batch shapes (empty dims included) and sample shapes

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


def _params_of_batch(info, batch, rng):
    return {k: np.asarray(p.gen(rng, tuple(batch) + tuple(p.event)), np.float64)
            for k, p in info.params.items()}


@pytest.mark.parametrize("info", DIST_DB, ids=str)
def test_shapes_for_random_batches(info):
    @settings(max_examples=6, derandomize=True, deadline=None)
    @given(batch=st.lists(st.integers(0, 3), max_size=2),
           lead=st.lists(st.integers(0, 2), max_size=2))
    def check(batch, lead):
        params = _params_of_batch(info, batch, np.random.default_rng(0))
        d = info.make(params, np.float64)
        event = tuple(info.event_shape(params))
        assert d.batch_shape == tuple(batch) and d.event_shape == event
        s = d.sample(lead)
        assert tuple(s.shape) == tuple(lead) + tuple(batch) + event
        if info.value_shape((7,), ()) != (2, 7):    # values laid out otherwise (Categorical)
            return
        lp = d.log_prob(s if info.sample_dtype is None else s.astype("float64"))
        assert tuple(lp.shape) == tuple(lead) + tuple(batch)
    check()
