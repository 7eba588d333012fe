"""weft.fft beyond the op database (tests/opdb/fft.py): dtype rules, zero-length axes,
out=, keyword aliases, the helpers against numpy, backends, round trips, gradients of
composed transforms, the size guard and the cuFFT plan cache."""
import numpy as np
import pytest
import scipy.fft as sfft
from hypothesis import given, settings, strategies as st

import weft
from weft.core import backend as reg
from weft.fft.backends import FFTBackend, PlanCache

ONE_D = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"]
ALL_T = ONE_D + [b + k for k in ("2", "n") for b in ONE_D]
R2C = {"rfft", "ihfft", "rfft2", "ihfft2", "rfftn", "ihfftn"}
C2R = {"irfft", "hfft", "irfft2", "hfft2", "irfftn", "hfftn"}


def _rng(seed=0):
    return np.random.default_rng(seed)


def _x(shape, dtype, rng):
    a = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        a = a + 1j * rng.standard_normal(shape)
    return a.astype(dtype)


# -- dtype rules (api-fft.md §1) --------------------------------------------------------

@pytest.mark.parametrize("name", ALL_T)
def test_integer_input_uses_the_default_float_dtype(name):
    x = np.arange(24).reshape(2, 3, 4) % 5
    got = getattr(weft.fft, name)(weft.to_tensor(x))
    want = getattr(sfft, name)(x.astype("float32"))
    assert got.dtype == want.dtype   # complex64 / float32, as scipy on float32
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-4, atol=1e-4)
    weft.set_default_dtype("float64")
    try:
        assert getattr(weft.fft, name)(weft.to_tensor(x)).dtype == \
            getattr(sfft, name)(x.astype("float64")).dtype
    finally:
        weft.set_default_dtype("float32")


@pytest.mark.parametrize("name", ALL_T)
def test_float16_is_computed_in_float32(name):
    x = _x((2, 3, 4), "float16", _rng())
    got = getattr(weft.fft, name)(weft.to_tensor(x))
    want = getattr(sfft, name)(x.astype("float32"))
    assert got.dtype == want.dtype
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("name", sorted(R2C))
def test_complex_input_to_a_real_transform_is_refused(name):
    x = weft.to_tensor(_x((2, 4), "complex128", _rng()))
    with pytest.raises(weft.UnsupportedDtypeError, match="real input") as e:
        getattr(weft.fft, name)(x)
    assert isinstance(e.value, (TypeError, ValueError, RuntimeError))
    assert isinstance(e.value, TypeError) and isinstance(e.value, ValueError) and \
        isinstance(e.value, RuntimeError)


@pytest.mark.parametrize("name", sorted(C2R))
def test_c2r_of_real_input_casts_to_complex(name):
    x = _x((4, 6), "float32", _rng())
    got = getattr(weft.fft, name)(weft.to_tensor(x))
    assert got.dtype == np.float32 and got.shape == [4, 10]
    np.testing.assert_allclose(got.numpy(), getattr(sfft, name)(x.astype("complex64")),
                               rtol=1e-4, atol=1e-4)


# -- lengths, axes, zero-length ---------------------------------------------------------

@pytest.mark.parametrize("name", ["fft", "ifft", "rfft", "ihfft"])
def test_zero_length_axis_gives_an_empty_result(name):
    out = getattr(weft.fft, name)(weft.zeros([0]))
    assert out.shape == [0] and out.dtype == np.complex64


@pytest.mark.parametrize("name", ["irfft", "hfft"])
def test_zero_length_c2r(name):
    f = getattr(weft.fft, name)
    out = f(weft.zeros([3, 0], dtype="complex128"))
    assert out.shape == [3, 0] and out.dtype == np.float64
    padded = f(weft.zeros([3, 0], dtype="complex128"), n=4)   # zero-padded to 3 bins
    assert padded.shape == [3, 4] and not padded.numpy().any()


def test_zero_length_with_n_pads():
    np.testing.assert_array_equal(weft.fft.fft(weft.zeros([0]), n=3).numpy(), np.zeros(3))


def test_c2r_of_length_one_needs_n():
    with pytest.raises(ValueError, match="give n"):
        weft.fft.irfft(weft.to_tensor([1.0 + 0j]))
    assert weft.fft.irfft(weft.to_tensor([2.0 + 0j]), n=1).tolist() == [2.0]


def test_odd_irfft_length_needs_n():
    x = _x((5,), "float64", _rng())
    assert weft.fft.irfft(weft.fft.rfft(weft.to_tensor(x))).shape == [4]
    np.testing.assert_allclose(weft.fft.irfft(weft.fft.rfft(weft.to_tensor(x)), n=5).numpy(), x)


def test_nd_defaults():
    x = weft.zeros([2, 3, 4])
    assert weft.fft.fftn(x, s=[5, 5]).shape == [2, 5, 5]
    assert weft.fft.rfftn(x).shape == [2, 3, 3]
    assert weft.fft.irfftn(x, axes=(2, 0)).shape == [2, 3, 4]
    assert weft.fft.irfftn(x, axes=(0, 1)).shape == [2, 4, 4]


@pytest.mark.parametrize("name", ["irfftn", "rfftn", "hfftn", "ihfftn"])
def test_one_sided_axis_is_the_last_of_axes(name):
    x = _x((4, 6, 3), "float64" if name in R2C else "complex128", _rng(1))
    for axes in [(1, 0), (0, 2, 1), (-1, -3)]:
        got = getattr(weft.fft, name)(weft.to_tensor(x), axes=axes)
        np.testing.assert_allclose(got.numpy(), getattr(sfft, name)(x, axes=axes),
                                   rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name", ALL_T)
@pytest.mark.parametrize("norm", ["backward", "forward", "ortho"])
def test_every_transform_matches_scipy_on_5d_input(name, norm):
    rng = _rng(7)
    dtype = "float64" if name in R2C else "complex128"
    x = _x((2, 3, 2, 4, 3), dtype, rng)
    f, ref = getattr(weft.fft, name), getattr(sfft, name)
    if name in ONE_D:
        cases = [dict(), dict(n=7, axis=1), dict(n=2, axis=-2)]
    elif name.endswith("2"):
        cases = [dict(), dict(s=(5, 2), axes=(0, 3))]
    else:
        cases = [dict(), dict(s=(3, 6), axes=(4, 1)), dict(axes=(2,))]
    for kw in cases:
        np.testing.assert_allclose(f(weft.to_tensor(x), norm=norm, **kw).numpy(),
                                   ref(x, norm=norm, **kw), rtol=1e-7, atol=1e-12,
                                   err_msg=str(kw))


# -- out=, aliases ----------------------------------------------------------------------

def test_out_receives_the_result_and_is_returned():
    x = weft.to_tensor(_x((4,), "float64", _rng()))
    out = weft.zeros([4], dtype="complex128")
    y = weft.fft.fft(x, out=out)
    assert y is out
    np.testing.assert_allclose(out.numpy(), sfft.fft(x.numpy()))
    with pytest.raises(ValueError, match="out has shape"):
        weft.fft.fft(x, out=weft.zeros([5], dtype="complex128"))
    with pytest.raises(ValueError, match="dtype"):
        weft.fft.fft(x, out=weft.zeros([4], dtype="complex64"))
    f = weft.zeros([3])
    assert weft.fft.rfftfreq(4, out=f) is f and f.tolist() == [0.0, 0.25, 0.5]


def test_keyword_aliases():
    x = _x((3, 4), "complex128", _rng())
    t = weft.to_tensor(x)
    np.testing.assert_allclose(weft.fft.fft(input=t, dim=0).numpy(), sfft.fft(x, axis=0))
    np.testing.assert_allclose(weft.fft.fftn(input=t, dim=[0]).numpy(), sfft.fftn(x, axes=[0]))
    np.testing.assert_allclose(weft.fft.ifft2(t, dim=(1, 0)).numpy(), sfft.ifft2(x, axes=(1, 0)))
    np.testing.assert_array_equal(weft.fft.fftshift(input=t, dim=1).numpy(),
                                  np.fft.fftshift(x, axes=1))
    with pytest.raises(TypeError, match="multiple values|alias"):
        weft.fft.fft(t, input=t)
    with pytest.raises(TypeError, match="alias"):
        weft.fft.fft(x=t, input=t)


def test_name_is_ignored_and_sparse_is_refused():
    x = weft.to_tensor([[1.0, 0.0], [0.0, 2.0]])
    assert weft.fft.fft2(x, name="y").shape == [2, 2]
    with pytest.raises(NotImplementedError, match="sparse"):
        weft.fft.fft(x.to_sparse_coo(2))


def test_huge_n_is_refused_before_allocation():
    x = weft.zeros([4])
    with pytest.raises(ValueError, match="would need"):
        weft.fft.fft(x, n=2 ** 60)
    with pytest.raises(ValueError, match="would need"):
        weft.fft.irfftn(weft.zeros([2, 2], dtype="complex64"), s=[2 ** 40, 2 ** 30])


# -- helpers ----------------------------------------------------------------------------

@pytest.mark.parametrize("n", [1, 2, 5, 8, 17])
@pytest.mark.parametrize("d", [1.0, 0.5, 3, -0.25])
def test_frequency_helpers_equal_numpy(n, d):
    for name in ("fftfreq", "rfftfreq"):
        got = getattr(weft.fft, name)(n, d, dtype="float64")
        np.testing.assert_array_equal(got.numpy(), getattr(np.fft, name)(n, d))
        f32 = getattr(weft.fft, name)(n, d)
        assert f32.dtype == np.float32 and f32.stop_gradient
        np.testing.assert_array_equal(f32.numpy(),
                                      getattr(np.fft, name)(n, d).astype("float32"))


def test_frequency_helper_options_and_errors():
    assert weft.fft.fftfreq(5).tolist() == pytest.approx([0, 0.2, 0.4, -0.4, -0.2])
    assert not weft.fft.fftfreq(4, requires_grad=True).stop_gradient
    assert weft.fft.rfftfreq(4, device="cpu").place.is_cpu_place()
    for call in (lambda: weft.fft.fftfreq(0), lambda: weft.fft.rfftfreq(4, d=0.0)):
        with pytest.raises(ValueError, match="d or n should not be 0"):
            call()
    with pytest.raises(TypeError, match="n must be an int"):
        weft.fft.fftfreq(2.5)
    with pytest.raises(weft.UnsupportedDtypeError):
        weft.fft.fftfreq(4, dtype="int32")


@pytest.mark.parametrize("shape", [(5,), (4,), (3, 4), (2, 5, 3), (1,), (0, 3)])
def test_shifts_equal_numpy_for_every_axes_value(shape):
    x = np.arange(int(np.prod(shape))).reshape(shape)
    nd = len(shape)
    choices = [None] + list(range(-nd, nd)) + [tuple(range(nd)), (nd - 1, 0), [0, 0]]
    for axes in choices:
        for name in ("fftshift", "ifftshift"):
            got = getattr(weft.fft, name)(weft.to_tensor(x), axes=axes)
            np.testing.assert_array_equal(got.numpy(), getattr(np.fft, name)(x, axes=axes),
                                          err_msg=f"{name} axes={axes}")
    with pytest.raises(ValueError, match="out of range"):
        weft.fft.fftshift(weft.to_tensor(x), axes=nd)


def test_shift_gradients():
    x = weft.to_tensor(_x((3, 4), "float64", _rng()), stop_gradient=False)
    assert weft.autograd.gradcheck(lambda t: weft.fft.ifftshift(weft.fft.fftshift(t) * t), [x])


# -- round trips (hypothesis) -----------------------------------------------------------

_shapes = st.lists(st.integers(1, 6), min_size=1, max_size=3)


@settings(max_examples=40, derandomize=True, deadline=None)
@given(shape=_shapes, seed=st.integers(0, 2 ** 16), norm=st.sampled_from(
    ["backward", "forward", "ortho"]))
def test_round_trips(shape, seed, norm):
    rng = _rng(seed)
    x = _x(shape, "complex128", rng)
    r = _x(shape, "float64", rng)
    t, rt = weft.to_tensor(x), weft.to_tensor(r)
    np.testing.assert_allclose(weft.fft.ifft(weft.fft.fft(t, norm=norm), norm=norm).numpy(), x,
                               atol=1e-12)
    np.testing.assert_allclose(weft.fft.ifftn(weft.fft.fftn(t, norm=norm), norm=norm).numpy(),
                               x, atol=1e-12)
    n = shape[-1]
    np.testing.assert_allclose(
        weft.fft.irfft(weft.fft.rfft(rt, norm=norm), n, norm=norm).numpy(), r, atol=1e-12)
    np.testing.assert_allclose(
        weft.fft.irfftn(weft.fft.rfftn(rt, norm=norm), s=shape, norm=norm).numpy(), r,
        atol=1e-12)
    np.testing.assert_allclose(
        weft.fft.hfft(weft.fft.ihfft(rt, norm=norm), n, norm=norm).numpy(), r, atol=1e-12)
    np.testing.assert_array_equal(weft.fft.fftshift(weft.fft.ifftshift(rt)).numpy(), r)
    np.testing.assert_array_equal(weft.fft.ifftshift(weft.fft.fftshift(rt)).numpy(), r)


# -- gradients beyond the op database ---------------------------------------------------

def test_filter_gradient_third_order():
    rng = _rng(3)
    x = weft.to_tensor(_x((8,), "float64", rng), stop_gradient=False)
    h = weft.to_tensor(_x((5,), "complex128", rng))

    def f(t):
        return (weft.fft.irfft(weft.fft.rfft(t) * h, n=8) ** 2).sum()

    (g,) = weft.grad(f(x), x, create_graph=True)
    (gg,) = weft.grad(g.sum(), x, create_graph=True)
    (ggg,) = weft.grad((gg * gg).sum(), x)
    assert ggg.shape == [8]
    assert weft.autograd.gradgradcheck(f, [x])


def test_jacobian_of_a_transform_is_its_matrix():
    x = weft.to_tensor(_x((4,), "float64", _rng()), stop_gradient=False)
    y = weft.fft.rfft(x, norm="ortho")
    for part, want in ((y.real(), sfft.rfft(np.eye(4), axis=0, norm="ortho").real),
                       (y.imag(), sfft.rfft(np.eye(4), axis=0, norm="ortho").imag)):
        jac = weft.autograd.jacobian(part, x)
        np.testing.assert_allclose(jac[:].numpy(), want, atol=1e-12)


# -- backends ---------------------------------------------------------------------------

def test_resolve_gives_the_table():
    be = reg.resolve("fft", "cpu")
    assert be.name == "pocketfft" and be.lib is sfft
    assert all(callable(getattr(be, f)) for f in ("c2c", "r2c", "c2r"))


@pytest.mark.skipif(not reg.is_available("fft", "mkl"), reason="mkl_fft is not installed")
@pytest.mark.parametrize("name", ALL_T)
def test_mkl_backend_agrees_with_pocketfft(name):
    rng = _rng(11)
    for dtype, rtol in (("float32", 1e-4), ("float64", 1e-10)):
        x = _x((3, 4, 6), dtype if name in R2C else np.result_type(dtype, np.complex64), rng)
        kw = {"n": 5} if name in ONE_D else {"s": (3, 5)}
        want = getattr(weft.fft, name)(weft.to_tensor(x), norm="ortho", **kw)
        with weft.backend("fft", "mkl"):
            assert reg.resolve("fft", "cpu").name == "mkl"
            got = getattr(weft.fft, name)(weft.to_tensor(x), norm="ortho", **kw)
        assert got.dtype == want.dtype
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=rtol, atol=rtol)



_MKL = pytest.mark.skipif(not reg.is_available("fft", "mkl") or reg.mkl_runtime() is None,
                          reason="mkl_fft or MKL's runtime library (the mkl package) is "
                                 "not installed")


def _mkl_table():
    with weft.backend("fft", "mkl"):
        return reg.resolve("fft", "cpu")


@_MKL
@pytest.mark.parametrize("shape, axes, view", [
    ((4, 6, 8), (1, 2), None),
    ((4, 6, 8), (0, 1), None),                  # batch axis last
    ((4, 6, 8), (0, 2), None),                  # batch axis between
    ((4, 6, 7), (0, 1, 2), None),               # no batch, odd last length
    ((5, 7), (1, 0), None),                     # halved axis first in memory
    ((3, 4, 5, 6), (1, 3), None),               # batch axes do not merge: mkl_fft
    ((6, 10, 8), (1, 2), np.s_[::2, 1:9, :]),   # strided view, batch merges
    ((6, 10, 8), (0, 1), np.s_[:, ::-1, :]),    # negative stride: mkl_fft
])
def test_mkl_direct_real_transform_matches_scipy(shape, axes, view):
    be = _mkl_table()
    rng = _rng(5)
    for dtype, tol in (("float32", 2e-6), ("float64", 1e-14)):
        x = rng.standard_normal(shape).astype(dtype)
        if view is not None:
            x = x[view]
        for norm in ("backward", "ortho", "forward"):
            got = be.r2c(x, list(axes), norm)
            want = sfft.rfftn(x, axes=axes, norm=norm)
            assert got.dtype == want.dtype and got.shape == want.shape
            np.testing.assert_allclose(got, want, rtol=0, atol=tol * np.abs(want).max())


@_MKL
def test_mkl_direct_plans_are_cached_and_bounded():
    be = _mkl_table()
    be.plans.clear()
    rng = _rng(6)
    shapes = [(2, 3, n) for n in range(4, 4 + be.plans.size + 3)]
    for shape in shapes:
        be.r2c(rng.standard_normal(shape), [1, 2], "backward")
    keys = be.plans.keys("cpu")
    assert len(keys) == be.plans.size
    assert keys[-1][1] == shapes[-1][1:]          # (dtype, lengths, ...)
    be.r2c(rng.standard_normal(shapes[-1]), [1, 2], "backward")
    assert be.plans.keys("cpu") == keys           # a hit builds nothing


@_MKL
def test_mkl_without_its_runtime_falls_back_to_mkl_fft(monkeypatch):
    from weft.fft.backends import MKLFFT
    monkeypatch.setattr(reg, "mkl_runtime", lambda: None)
    be = MKLFFT()
    x = _x((3, 4, 6), "float64", _rng(7))
    np.testing.assert_allclose(be.r2c(x, [0, 2], "ortho"),
                               sfft.rfftn(x, axes=(0, 2), norm="ortho"), atol=1e-13)
    # the layout was looked up, and "no descriptor" is what the cache holds for it
    (key,) = be.plans.keys("cpu")
    assert be.plans.get("cpu", key) is None


@_MKL
def test_mkl_rfft2_gradients():
    x = weft.to_tensor(_x((2, 3, 5), "float64", _rng(8)), stop_gradient=False)
    with weft.backend("fft", "mkl"):
        assert weft.autograd.gradcheck(
            lambda t: weft.fft.rfft2(t, norm="ortho").abs(), (x,))


def test_a_plugin_backend_built_on_numpy_fft():
    calls = []

    class Counting(FFTBackend):
        def c2c(self, a, axes, forward, norm):
            calls.append("c2c")
            return super().c2c(a, axes, forward, norm)

    reg.register_backend("fft", "numpy-test", module="numpy", package="numpy", device="cpu",
                         load=lambda: Counting("numpy", np.fft))
    try:
        x = _x((3, 4), "complex128", _rng())
        with weft.backend("fft", "numpy-test"):
            got = weft.fft.fft2(weft.to_tensor(x), norm="forward")
        np.testing.assert_allclose(got.numpy(), sfft.fft2(x, norm="forward"))
        assert calls == ["c2c"]
    finally:
        reg.unregister_backend("fft", "numpy-test")


def test_a_backend_that_is_not_a_table_is_reported():
    import types
    reg.register_backend("fft", "bare-test", module="numpy", package="numpy", device="cpu",
                         load=lambda: types.SimpleNamespace(name="bare", lib=np.fft))
    try:
        with weft.backend("fft", "bare-test"), pytest.raises(TypeError, match="FFTBackend"):
            weft.fft.fft(weft.to_tensor([1.0, 2.0]))
    finally:
        reg.unregister_backend("fft", "bare-test")


def test_pocketfft_uses_weft_thread_count(monkeypatch):
    be = reg.resolve("fft", "cpu")
    seen = []
    monkeypatch.setattr(be, "_threads", lambda: seen.append(1) or 1)
    weft.fft.fft(weft.to_tensor([1.0, 2.0]))
    assert seen


def test_set_loader_keeps_the_choice():
    reg.register_backend("demo-fft", "a", module="json", package="json", device="cpu",
                         load=lambda: "old")
    try:
        weft.set_backend("demo-fft", "a")
        assert reg.resolve("demo-fft", "cpu") == "old"
        reg.set_loader("demo-fft", "a", lambda: "new")
        assert reg.resolve("demo-fft", "cpu") == "new"
        assert weft.get_backend("demo-fft", "cpu") == "a"
        with pytest.raises(ValueError, match="has no backend"):
            reg.set_loader("demo-fft", "b", lambda: 1)
        with pytest.raises(TypeError, match="callable"):
            reg.set_loader("demo-fft", "a", 3)
    finally:
        reg.unregister_backend("demo-fft", "a")


class _FakeArray:
    def __init__(self, shape, dtype, device=0):
        self.shape, self.dtype = tuple(shape), np.dtype(dtype)
        self.device = type("D", (), {"id": device})()


def test_plan_cache_is_lru_bounded_per_device():
    made = []
    cache = PlanCache(lambda key: made.append(key) or object(), size=2)
    p0 = cache.get(0, "a")
    cache.get(0, "b")
    assert cache.get(0, "a") is p0          # a hit refreshes "a"
    cache.get(0, "c")                       # evicts "b", the least recently used
    assert cache.keys(0) == ["a", "c"]
    cache.get(1, "b")                       # another device has its own entries
    assert cache.keys(1) == ["b"] and cache.keys(0) == ["a", "c"]
    assert made == ["a", "b", "c", "b"]
    none_cache = PlanCache(lambda key: made.append(key), size=1)
    assert none_cache.get(0, "x") is None and none_cache.get(0, "x") is None
    assert made.count("x") == 1             # "no plan" is cached like a plan
    with pytest.raises(ValueError):
        PlanCache(lambda k: 1, size=0)


def test_cufft_table_plans_through_the_cache():
    # CuFFT's logic on a stand-in for CuPy (no GPU here): which plans it asks for,
    # and that it passes them to the transforms
    from weft.fft.backends import CuFFT

    class Lib:
        def __init__(self):
            self.calls = []

        def _f(self, name):
            def f(a, s=None, axes=None, norm=None, plan=None):
                self.calls.append((name, a.shape, s, tuple(axes), norm, plan))
                return a
            return f

        def __getattr__(self, name):
            return self._f(name)

    class Xp:
        @staticmethod
        def ascontiguousarray(a):
            return a

        @staticmethod
        def empty(shape, dtype):
            return _FakeArray(shape, dtype)

    be = CuFFT.__new__(CuFFT)
    FFTBackend.__init__(be, "cufft", Lib(), Xp)
    plans = []
    be._get_plan = lambda a, shape, axes, value_type: plans.append(
        (a.shape, shape, axes, value_type)) or f"plan{len(plans)}"
    be.plans = PlanCache(be._plan, 2)
    a = _FakeArray((4, 8), "complex64")
    be.c2c(a, (-1,), True, "backward")
    be.c2c(a, (-1,), False, "ortho")        # same plan: an inverse uses the forward plan
    be.c2r(_FakeArray((4, 5), "complex64"), (-2, -1), 8, "forward")
    be.r2c(_FakeArray((4, 8), "float32"), (-1,), "backward")
    assert plans == [((4, 8), (8,), (-1,), "C2C"), ((4, 5), (4, 8), (-2, -1), "C2R"),
                     ((4, 8), (8,), (-1,), "R2C")]
    assert [c[0] for c in be.lib.calls] == ["fftn", "ifftn", "irfftn", "rfftn"]
    assert [c[-1] for c in be.lib.calls] == ["plan1", "plan1", "plan2", "plan3"]
    assert be.lib.calls[2][2] == [4, 8]
    assert len(be.plans.keys(0)) == 2       # bounded: the oldest plan was evicted


# -- weft as a scipy.fft backend --------------------------------------------------------

@pytest.mark.parametrize("name", ALL_T)
def test_scipy_backend_runs_scipy_calls_through_weft(name, monkeypatch):
    import weft.fft._api as api
    rng = _rng(5)
    x = _x((3, 4, 5), "float64" if name in R2C else "complex128", rng)
    calls = []
    real = getattr(api, name)
    monkeypatch.setattr(api.__dict__[name], "__wrapped__", real, raising=False)
    from weft.fft import scipy_backend
    impl = scipy_backend._IMPL[name]
    monkeypatch.setitem(scipy_backend._IMPL, name,
                        lambda *a, **k: calls.append(name) or impl(*a, **k))
    kw = {"n": 6, "axis": 1} if name in ONE_D else {"s": (2, 6), "axes": (0, 2)}
    with sfft.set_backend(scipy_backend, only=True):
        got = getattr(sfft, name)(x, norm="ortho", **kw)
    assert calls == [name] and isinstance(got, np.ndarray)
    np.testing.assert_allclose(got, getattr(sfft, name)(x, norm="ortho", **kw), rtol=1e-10,
                               atol=1e-12)


def test_scipy_backend_keeps_scipy_dtype_rules_and_falls_back():
    from weft.fft import scipy_backend
    ints = np.arange(6)
    with sfft.set_backend(scipy_backend):
        assert sfft.fft(ints).dtype == np.complex128       # scipy computes ints in float64
        assert sfft.rfft(ints.astype("float32")).dtype == np.complex64
        np.testing.assert_allclose(sfft.dct(ints.astype(float)), sfft.dct(ints.astype(float)))
        np.testing.assert_allclose(sfft.fft([1.0, 2.0]), [3, -1])
    assert scipy_backend.__ua_function__(sfft.dct, (ints,), {}) is NotImplemented
    assert scipy_backend.__ua_function__(sfft.fft, (ints,), {"plan": object()}) \
        is NotImplemented
    assert scipy_backend.__ua_function__(sfft.fft, (object(),), {}) is NotImplemented


@pytest.mark.parametrize("name", ["fft", "rfft2", "irfftn"])
def test_scipy_backend_without_compiled_pocketfft_does_not_recurse(name, monkeypatch):
    """Where this scipy's compiled pocketfft module has another layout (scipy 1.18
    on the GPU machine), weft's CPU backend calls scipy.fft's public functions; under
    ``set_backend(weft.fft.scipy_backend)`` they must reach scipy, not weft again."""
    from weft.core import backend as reg
    from weft.fft import scipy_backend
    be = reg.resolve("fft", "cpu")
    if be.name != "pocketfft":
        pytest.skip(f"the active CPU fft backend is {be.name}")
    monkeypatch.setattr(be, "_pfft", None)
    x = _x((4, 6), "complex128" if name == "irfftn" else "float64", _rng(9))
    want = getattr(sfft, name)(x, norm="ortho")
    for only in (False, True):
        with sfft.set_backend(scipy_backend, only=only):
            got = getattr(sfft, name)(x, norm="ortho")
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
