"""Test-wide settings: deterministic hypothesis, float64-friendly numpy printing."""
import contextlib
import os

import numpy as np
import pytest
from hypothesis import HealthCheck, settings

# derandomized everywhere: a flaky test would block everyone's landing
settings.register_profile("ci", derandomize=True, deadline=None, max_examples=30,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("dev", derandomize=False, deadline=None, max_examples=100)
settings.load_profile(os.environ.get("WEFT_HYPOTHESIS_PROFILE", "ci"))


def _has_gpu():
    try:
        import weft

        return weft.is_compiled_with_cuda()
    except Exception:
        return False


HAS_GPU = _has_gpu()
requires_gpu = pytest.mark.skipif(not HAS_GPU, reason="needs CuPy and a CUDA device")


@contextlib.contextmanager
def on_device(device):
    """New tensors default to ``device`` inside (ops that create tensors follow it)."""
    import weft

    prev = weft.get_device()
    weft.set_device(device)
    try:
        yield
    finally:
        weft.set_device(prev)


@pytest.fixture(autouse=True)
def _restore_defaults():
    """Undo global-state changes a test may make (default dtype, device, grad mode)."""
    import weft
    from weft.autograd.grad_mode import mode

    dt = weft.get_default_dtype()
    dev = weft.get_device()
    gm = mode.enabled
    yield
    weft.set_default_dtype(dt)
    weft.set_device(dev)
    mode.enabled = gm


@pytest.fixture
def rng():
    return np.random.default_rng(0)


# the op database modules are data, not tests: importing them as doctest modules
# (--doctest-modules) would create an import cycle through tests.opinfo
collect_ignore = ["opdb", "opinfo.py"]
