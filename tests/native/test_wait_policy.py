"""weft leaves the OpenMP runtime that other libraries share exactly as it found it.

weft's kernels run on its own thread pool (csrc/common/parallel.h), whose idle
workers sleep; the extension neither links an OpenMP runtime nor touches the
``OMP_*`` environment.  The OpenMP runtime (libgomp, shared by PyTorch,
scikit-learn and numpy's BLAS builds) reads its settings once, when it loads, so
these tests load it after ``import weft`` in a fresh process and compare what it
reports with a process that never imported weft.
"""
import ctypes.util
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import weft
from weft import _native

LIBGOMP = ctypes.util.find_library("gomp")

# Imports weft (or not), then loads libgomp the way a later library would; prints
# what the process environment holds and what libgomp says through its API.  With
# OMP_DISPLAY_ENV=verbose libgomp also prints its settings to stderr as it loads.
PROBE = r"""
import ctypes, json, os, sys
if sys.argv[1] == "weft":
    import numpy as np
    import weft
    weft.set_num_threads(2)
    weft._native.index_add_(np.zeros(4), np.arange(10**5) % 4, np.ones(10**5))  # pool started
maps = open("/proc/self/maps").read() if os.path.exists("/proc/self/maps") else ""
before = "libgomp" in maps or "libomp" in maps or "libiomp" in maps
gomp = ctypes.CDLL(sys.argv[2])
print(json.dumps({"env": {k: v for k, v in os.environ.items() if k.startswith(("OMP_", "GOMP_"))},
                  "runtime_loaded_before": before,
                  "max_threads": gomp.omp_get_max_threads(),
                  "dynamic": gomp.omp_get_dynamic()}))
"""


def _probe(with_weft, extra_env=None):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OMP_", "GOMP_", "KMP_"))}
    env["OMP_DISPLAY_ENV"] = "verbose"
    env.update(extra_env or {})
    out = subprocess.run([sys.executable, "-c", PROBE, "weft" if with_weft else "none", LIBGOMP],
                         env=env, cwd="/", capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    # libgomp's display block; thread affinity lines name this process's CPUs and
    # are the same in both, so the whole block is compared.
    block = [line.strip() for line in out.stderr.splitlines() if "=" in line or "OPENMP" in line]
    return json.loads(out.stdout.strip().splitlines()[-1]), block


@pytest.mark.skipif(LIBGOMP is None, reason="no libgomp on this system to probe")
@pytest.mark.parametrize("user_env", [{}, {"OMP_WAIT_POLICY": "active", "OMP_NUM_THREADS": "3"},
                                      {"OMP_WAIT_POLICY": "passive"}])
def test_openmp_runtime_loaded_after_weft_sees_the_users_settings(user_env):
    plain, plain_block = _probe(False, user_env)
    after, after_block = _probe(True, user_env)
    user = dict(user_env, OMP_DISPLAY_ENV="verbose")
    assert plain["env"] == user and after["env"] == user
    assert not after["runtime_loaded_before"], "import weft loaded an OpenMP runtime"
    assert (after["max_threads"], after["dynamic"]) == (plain["max_threads"], plain["dynamic"])
    if not plain_block:
        pytest.skip("this libgomp does not report its settings under OMP_DISPLAY_ENV")
    # OMP_WAIT_POLICY and GOMP_SPINCOUNT among them: how long idle threads spin
    assert any("GOMP_SPINCOUNT" in line for line in plain_block)
    assert after_block == plain_block


def test_weft_does_not_link_an_openmp_runtime():
    assert not weft._C.has_openmp()
    assert weft._C.build_info()["thread_pool"] == "weft"


def test_kernels_from_several_python_threads_agree_with_numpy():
    # Kernels release the GIL; a call arriving while the pool serves another runs
    # serially on its own thread.  Every result must still be exact.
    import threading
    rng = np.random.default_rng(0)
    index = rng.integers(0, 50, size=200_000)
    src = rng.standard_normal(200_000)
    expected = np.zeros(50)
    np.add.at(expected, index, src)
    before = _native.get_num_threads()
    _native.set_num_threads(4)
    results, errors = [None] * 6, []

    def work(i):
        try:
            for _ in range(5):
                out = np.zeros(50)
                _native.index_add_(out, index, src)
                results[i] = out
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)
    try:
        workers = [threading.Thread(target=work, args=(i,)) for i in range(6)]
        for t in workers:
            t.start()
        for t in workers:
            t.join(timeout=60)
    finally:
        _native.set_num_threads(before)
    assert not errors
    for out in results:
        np.testing.assert_array_equal(out, expected)


def test_default_thread_count_reads_omp_num_threads_without_writing_it():
    code = "import os, weft; print(weft.get_num_threads(), os.environ.get('OMP_NUM_THREADS'))"
    env = {k: v for k, v in os.environ.items() if not k.startswith("OMP_")}
    env["OMP_NUM_THREADS"] = "3,2"
    out = subprocess.run([sys.executable, "-c", code], env=env, cwd="/", capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["3", "3,2"]
