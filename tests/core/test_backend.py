"""The backend registry (weft.core.backend) and weft.show_config (design.md, core
decision 5): registration, choosing per device kind, thread-local overrides, lazy
loading, the errors, and that `import weft` loads no optional library."""
import io
import os
import subprocess
import sys
import threading
import types

import pytest

import weft
from weft.core import backend as reg

MISSING_MODULE = "weft_test_no_such_module_4f1c"


@pytest.fixture(autouse=True)
def _clean_registry():
    """Every test starts from, and leaves, the registry as `import weft` made it."""
    areas = {a: dict(reg._areas[a]) for a in reg._areas}
    chosen = dict(reg._chosen)
    yield
    reg._areas.clear()
    reg._areas.update(areas)
    reg._chosen.clear()
    reg._chosen.update(chosen)
    for key in [k for k in reg._loaded if k[0] not in areas or k[1] not in areas[k[0]]]:
        del reg._loaded[key]
    reg._overrides().clear()
    reg._local.saved.clear()


def _counting_area(area="demo"):
    """Area `area` with a cpu backend `a` (default) and `b`, and a gpu backend `g`, all
    backed by the stdlib `json` module; returns the load counts."""
    counts = {"a": 0, "b": 0, "g": 0}

    def loader(name):
        def load():
            counts[name] += 1
            return types.SimpleNamespace(name=name)
        return load

    reg.register_backend(area, "b", module="json", package="json", device="cpu",
                         load=loader("b"))
    reg.register_backend(area, "a", module="json", package="json", device="cpu",
                         load=loader("a"), default=True)
    reg.register_backend(area, "g", module="json", package="json", device="gpu",
                         load=loader("g"))
    return counts


# --- the built-in areas ---------------------------------------------------------------

def test_builtin_areas_and_defaults():
    assert reg.backends() == ["linalg", "fft"]
    assert [(b.name, b.device) for b in reg.backends("linalg")] == [
        ("lapack", "cpu"), ("mkl", "cpu"), ("cusolver", "gpu")]
    assert [(b.name, b.device) for b in reg.backends("fft")] == [
        ("pocketfft", "cpu"), ("mkl", "cpu"), ("cufft", "gpu")]
    assert weft.get_backend("linalg", "cpu") == "lapack"
    assert weft.get_backend("linalg", "gpu") == "cusolver"
    assert weft.get_backend("fft", "cpu") == "pocketfft"
    assert weft.get_backend("fft", "gpu") == "cufft"
    fft = {b.name: b for b in reg.backends("fft")}
    assert (fft["mkl"].module, fft["mkl"].package) == ("mkl_fft", "mkl_fft")
    assert (fft["cufft"].module, fft["cufft"].package) == ("cupy", "cupy-cuda12x")


def test_builtin_cpu_backends_load_their_libraries():
    import scipy.fft
    import scipy.linalg
    import scipy.linalg.lapack

    f = reg.resolve("fft", "cpu")
    assert f.name == "pocketfft" and f.lib is scipy.fft
    la = reg.resolve("linalg", weft.CPUPlace())
    assert la.lib is scipy.linalg and la.lapack is scipy.linalg.lapack
    assert reg.resolve("fft", "cpu") is f   # cached


@pytest.mark.parametrize("area,name,package", [("fft", "mkl", "mkl_fft"),
                                               ("linalg", "mkl", "mkl-service"),
                                               ("fft", "cufft", "cupy-cuda12x")])
def test_builtin_optional_backend_missing_names_its_package(area, name, package):
    info = {b.name: b for b in reg.backends(area)}[name]
    if reg.is_available(area, name):
        pytest.skip(f"{info.module} is installed here")
    before = dict(reg._chosen)
    with pytest.raises(RuntimeError) as e:
        weft.set_backend(area, name)
    assert str(e.value).startswith(f"weft.set_backend({area!r}, {name!r}): the {name} backend "
                                   f"needs the {package} package; install it with pip install "
                                   f"{package}")
    with pytest.raises(RuntimeError, match=f"weft.backend.*pip install {package}"):
        weft.backend(area, name)
    assert reg._chosen == before and reg._overrides() == {}   # nothing changed


def test_fft_mkl_message_is_exact_when_missing():
    if reg.is_available("fft", "mkl"):
        pytest.skip("mkl_fft is installed here")
    with pytest.raises(RuntimeError) as e:
        weft.set_backend("fft", "mkl")
    assert str(e.value) == ("weft.set_backend('fft', 'mkl'): the mkl backend needs the mkl_fft "
                            "package; install it with pip install mkl_fft (or weft[mkl])")


# --- registration ---------------------------------------------------------------------

def test_register_twice_raises():
    _counting_area()
    with pytest.raises(ValueError, match="area 'demo' already has a backend named 'a'"):
        reg.register_backend("demo", "a", module="json", package="json", device="gpu",
                             load=dict)
    with pytest.raises(ValueError, match="already has a default cpu backend, 'a'"):
        reg.register_backend("demo", "c", module="json", package="json", device="cpu",
                             load=dict, default=True)
    with pytest.raises(ValueError, match="area 'fft' already has a backend named 'mkl'"):
        reg.register_backend("fft", "mkl", module="json", package="json", device="cpu",
                             load=dict)


def test_register_checks_its_arguments():
    kw = dict(module="json", package="json", device="cpu", load=dict)
    with pytest.raises(ValueError, match="device must be 'cpu' or 'gpu', got 'tpu'"):
        reg.register_backend("demo", "x", **{**kw, "device": "tpu"})
    with pytest.raises(TypeError, match="load must be a callable"):
        reg.register_backend("demo", "x", **{**kw, "load": "json"})
    with pytest.raises(TypeError, match="area must be a non-empty str, got ''"):
        reg.register_backend("", "x", **kw)
    with pytest.raises(TypeError, match="package must be a non-empty str, got None"):
        reg.register_backend("demo", "x", **{**kw, "package": None})
    assert "demo" not in reg.backends()


def test_first_backend_of_a_kind_is_the_default_without_an_explicit_one():
    reg.register_backend("demo", "first", module="json", package="json", device="cpu", load=dict)
    reg.register_backend("demo", "second", module="json", package="json", device="cpu", load=dict)
    assert weft.get_backend("demo", "cpu") == "first"
    with pytest.raises(ValueError, match="area 'demo' has no gpu backend; its backends are "
                                         "'first' \\(cpu\\), 'second' \\(cpu\\)"):
        weft.get_backend("demo", "gpu")


def test_unregister_restores_the_default_and_drops_an_empty_area():
    _counting_area()
    weft.set_backend("demo", "b")
    reg.resolve("demo", "cpu")
    reg.unregister_backend("demo", "b")
    assert weft.get_backend("demo", "cpu") == "a"
    assert ("demo", "b") not in reg._loaded
    for name in ("a", "g"):
        reg.unregister_backend("demo", name)
    assert "demo" not in reg.backends()


# --- unknown names and missing packages -----------------------------------------------

def test_unknown_area_lists_the_known_ones():
    for call, fn in [(lambda: weft.set_backend("ffft", "x"), "weft.set_backend('ffft', 'x')"),
                     (lambda: weft.backend("ffft", "x"), "weft.backend('ffft', 'x')"),
                     (lambda: weft.get_backend("ffft"), "weft.get_backend('ffft')"),
                     (lambda: reg.resolve("ffft"), "weft.ffft")]:
        with pytest.raises(ValueError) as e:
            call()
        assert str(e.value) == f"{fn}: unknown area 'ffft'; the known areas are 'linalg', 'fft'"


def test_unknown_backend_lists_the_area_backends():
    with pytest.raises(ValueError) as e:
        weft.set_backend("fft", "fftw")
    assert str(e.value) == ("weft.set_backend('fft', 'fftw'): area 'fft' has no backend 'fftw'; "
                            "its backends are 'pocketfft' (cpu), 'mkl' (cpu), 'cufft' (gpu)")
    with pytest.raises(ValueError, match=r"weft.backend\('linalg', None\): area 'linalg' has no "
                                         r"backend None; its backends are 'lapack' \(cpu\)"):
        weft.backend("linalg", None)


def test_bad_device_argument():
    with pytest.raises(ValueError, match="device must be 'cpu', 'gpu', 'gpu:N', a Place or "
                                         "None, got 'tpu'"):
        weft.get_backend("fft", "tpu")


def test_missing_module_raises_at_choice_time_not_later():
    loads = []
    reg.register_backend("demo", "base", module="json", package="json", device="cpu",
                         load=dict, default=True)
    reg.register_backend("demo", "fast", module=MISSING_MODULE, package="fastlib",
                         device="cpu", load=lambda: loads.append(1) or object(), extra="fast")
    assert not reg.is_available("demo", "fast")
    msg = ("the fast backend needs the fastlib package; install it with pip install fastlib "
           "(or weft[fast])")
    with pytest.raises(RuntimeError) as e:
        weft.set_backend("demo", "fast")
    assert str(e.value) == f"weft.set_backend('demo', 'fast'): {msg}"
    with pytest.raises(RuntimeError) as e:
        weft.backend("demo", "fast")   # raised by the call itself, before any `with`
    assert str(e.value) == f"weft.backend('demo', 'fast'): {msg}"
    assert weft.get_backend("demo", "cpu") == "base" and loads == []


def test_missing_module_at_resolve_names_the_caller():
    reg.register_backend("demo", "gone", module=MISSING_MODULE, package="gonelib",
                         device="cpu", load=object)
    with pytest.raises(RuntimeError, match="weft.demo.op: the gone backend needs the gonelib "
                                           "package; install it with pip install gonelib$"):
        reg.resolve("demo", "cpu", caller="weft.demo.op")


def test_dotted_module_with_missing_parent_is_unavailable():
    reg.register_backend("demo", "x", module=MISSING_MODULE + ".sub", package="p", device="cpu",
                         load=object)
    assert reg.is_available("demo", "x") is False


def test_failing_loader_is_reported_and_not_cached():
    calls = []

    def load():
        calls.append(1)
        if len(calls) == 1:
            raise ImportError("libfoo.so: cannot open shared object file")
        return types.SimpleNamespace(ok=True)

    reg.register_backend("demo", "flaky", module="json", package="json", device="cpu", load=load)
    with pytest.raises(RuntimeError, match=r"weft.demo: the flaky backend of demo failed to "
                                           r"load \(ImportError: libfoo.so"):
        reg.resolve("demo", "cpu")
    assert reg.resolve("demo", "cpu").ok and len(calls) == 2


def test_loader_returning_none_is_an_error():
    reg.register_backend("demo", "none", module="json", package="json", device="cpu",
                         load=lambda: None)
    with pytest.raises(RuntimeError, match="returned None"):
        reg.resolve("demo", "cpu")


# --- choosing, lazily loading ---------------------------------------------------------

def test_loading_is_lazy_and_happens_once():
    counts = _counting_area()
    weft.set_backend("demo", "b")
    assert counts == {"a": 0, "b": 0, "g": 0}   # choosing probes, it does not load
    first = reg.resolve("demo", "cpu")
    assert first.name == "b" and reg.resolve("demo", "cpu") is first
    assert counts == {"a": 0, "b": 1, "g": 0}
    assert reg.resolve("demo", "gpu").name == "g"
    assert counts == {"a": 0, "b": 1, "g": 1}


def test_concurrent_first_use_loads_once():
    counts = _counting_area()
    start = threading.Barrier(8)
    got = []

    def worker():
        start.wait()
        got.append(reg.resolve("demo", "cpu"))

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert counts["a"] == 1 and len(got) == 8 and all(g is got[0] for g in got)


def test_set_backend_is_per_device_kind():
    _counting_area()
    weft.set_backend("demo", "b")
    assert weft.get_backend("demo", "cpu") == "b"
    assert weft.get_backend("demo", "gpu") == "g"
    assert weft.get_backend("demo", weft.CPUPlace()) == "b"
    assert weft.get_backend("demo", weft.CUDAPlace(1)) == "g"
    assert weft.get_backend("demo", "gpu:0") == "g"
    assert weft.get_backend("demo") == "b"   # the current device is the CPU
    weft.set_backend("demo", "a")
    assert weft.get_backend("demo", "cpu") == "a"


def test_set_backend_reaches_other_threads():
    _counting_area()
    weft.set_backend("demo", "b")
    seen = []
    t = threading.Thread(target=lambda: seen.append(weft.get_backend("demo", "cpu")))
    t.start()
    t.join()
    assert seen == ["b"]


# --- `with weft.backend(...)` ---------------------------------------------------------

def test_backend_context_nests_and_restores():
    _counting_area()
    weft.set_backend("demo", "b")
    with weft.backend("demo", "a"):
        assert weft.get_backend("demo", "cpu") == "a"
        assert reg.resolve("demo", "cpu").name == "a"
        with weft.backend("demo", "b"):
            assert weft.get_backend("demo", "cpu") == "b"
            with weft.backend("demo", "g"):   # the other device kind is independent
                assert weft.get_backend("demo", "cpu") == "b"
                assert weft.get_backend("demo", "gpu") == "g"
        assert weft.get_backend("demo", "cpu") == "a"
    assert weft.get_backend("demo", "cpu") == "b"


def test_backend_context_restores_on_exception():
    _counting_area()
    with pytest.raises(KeyError):
        with weft.backend("demo", "b"):
            with weft.backend("demo", "a"):
                raise KeyError("boom")
    assert weft.get_backend("demo", "cpu") == "a"
    assert reg._overrides() == {}


def test_set_backend_inside_a_context_takes_effect_after_it():
    _counting_area()
    with weft.backend("demo", "b"):
        weft.set_backend("demo", "a")
        assert weft.get_backend("demo", "cpu") == "b"   # the override still wins here
    assert weft.get_backend("demo", "cpu") == "a"


def test_one_context_object_can_be_reentered():
    _counting_area()
    ctx = weft.backend("demo", "b")
    with ctx:
        with weft.backend("demo", "a"):
            with ctx:
                assert weft.get_backend("demo", "cpu") == "b"
            assert weft.get_backend("demo", "cpu") == "a"
        assert weft.get_backend("demo", "cpu") == "b"
    assert weft.get_backend("demo", "cpu") == "a"


def test_one_context_object_shared_by_two_threads():
    # main enters first and leaves first: each exit must restore its own thread's choice
    _counting_area()
    reg.register_backend("demo", "c", module="json", package="json", device="cpu", load=dict)
    ctx = weft.backend("demo", "b")
    main_in, other_in, main_out = threading.Event(), threading.Event(), threading.Event()
    seen = []

    def other():
        assert main_in.wait(10)
        with ctx:
            other_in.set()
            assert main_out.wait(10)
        seen.append(weft.get_backend("demo", "cpu"))

    t = threading.Thread(target=other)
    t.start()
    with weft.backend("demo", "c"):
        with ctx:
            main_in.set()
            assert other_in.wait(10)
        assert weft.get_backend("demo", "cpu") == "c"
        main_out.set()
        t.join()
    assert seen == ["a"] and weft.get_backend("demo", "cpu") == "a"


def test_backend_context_is_thread_local():
    _counting_area()
    inside = threading.Event()
    checked = threading.Event()
    seen = {}

    def other():
        inside.wait(10)
        seen["during"] = weft.get_backend("demo", "cpu")
        seen["resolved"] = reg.resolve("demo", "cpu").name
        with weft.backend("demo", "b"):
            seen["own"] = weft.get_backend("demo", "cpu")
        checked.set()

    t = threading.Thread(target=other)
    t.start()
    with weft.backend("demo", "b"):
        inside.set()
        assert checked.wait(10)
        assert weft.get_backend("demo", "cpu") == "b"
    t.join()
    assert seen == {"during": "a", "resolved": "a", "own": "b"}
    assert weft.get_backend("demo", "cpu") == "a"


# --- show_config ----------------------------------------------------------------------

def test_show_config_reports_versions_native_build_and_backends():
    import numpy
    import scipy

    out = io.StringIO()
    assert weft.show_config(file=out) is None
    text = out.getvalue()
    lines = text.splitlines()
    assert lines[0] == f"weft {weft.__version__}"
    assert f"numpy {numpy.__version__}" in lines
    assert f"scipy {scipy.__version__}" in lines
    assert f"  threads:      {weft.get_num_threads()} (weft.get_num_threads())" in lines
    assert "  C++ standard: C++17 (__cplusplus 201703)" in lines
    assert ("  OpenMP:       yes" if weft._C.has_openmp() else "  OpenMP:       no") in text
    assert "CuPy" in text
    for area in reg.backends():
        for kind in ("cpu", "gpu"):
            active = weft.get_backend(area, kind)
            row = next(l for l in lines if f"{kind}: " in l and f"{active}*" in l)
            assert all(b.name in row for b in reg.backends(area) if b.device == kind)
        assert any(l.startswith(f"  {area} ") for l in lines)


def test_show_config_marks_the_active_and_the_missing():
    reg.register_backend("demo", "here", module="json", package="json", device="cpu",
                         load=object)
    reg.register_backend("demo", "away", module=MISSING_MODULE, package="awaylib",
                         device="cpu", load=object)
    out = io.StringIO()
    with weft.backend("demo", "here"):
        weft.show_config(file=out)
    row = next(l for l in out.getvalue().splitlines() if l.startswith("  demo "))
    assert row == "  demo    cpu: here*, away [not installed: pip install awaylib]"


def test_show_config_native_build():
    info = weft._C.build_info()
    assert info["cplusplus"] >= 201703 and info["compiler"] in ("gcc", "clang", "msvc", "unknown")
    assert (info["openmp"] is not None) == weft._C.has_openmp()
    out = io.StringIO()
    weft.show_config(file=out)
    clones = next(l for l in out.getvalue().splitlines() if l.startswith("  SIMD clones:"))
    assert all(c in clones for c in info["simd_clones"])


def test_show_config_with_an_extension_that_predates_build_info(monkeypatch):
    monkeypatch.delattr(weft._C, "build_info")
    out = io.StringIO()
    weft.show_config(file=out)
    text = out.getvalue()
    assert "  OpenMP:       " + ("yes" if weft._C.has_openmp() else "no") in text
    assert "compiler:" not in text and f"threads:      {weft.get_num_threads()}" in text


def test_show_config_lists_blas():
    out = io.StringIO()
    weft.show_config(file=out)
    text = out.getvalue()
    try:
        import threadpoolctl  # noqa: F401
    except ImportError:
        assert "numpy: blas" in text and "scipy: blas" in text
    else:
        assert "threads, " in text and "blas" in text


# --- nothing optional at import time --------------------------------------------------

def test_import_weft_loads_no_optional_library():
    # choosing and naming backends must not import them either
    code = ("import sys, weft; weft.get_backend('fft', 'gpu'); "
            "weft.set_backend('fft', 'pocketfft'); weft.get_backend('linalg'); "
            "optional = ('cupy', 'mkl', 'mkl_fft', 'threadpoolctl'); "
            "print(sorted(m for m in optional if m in sys.modules))")
    env = dict(os.environ)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "[]"
