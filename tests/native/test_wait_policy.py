"""``import weft`` makes idle OpenMP workers sleep unless the user chose a policy,
without leaving the setting in the process environment (see weft/__init__.py)."""
import os
import re
import subprocess
import sys

import pytest

import weft

CODE = "import os, weft; print(os.environ.get('OMP_WAIT_POLICY'))"


@pytest.mark.skipif(not weft._C.has_openmp(), reason="the extension was built without OpenMP")
@pytest.mark.parametrize("given, expected", [(None, "PASSIVE"), ("active", "ACTIVE")])
def test_wait_policy_default_and_override(given, expected):
    env = {k: v for k, v in os.environ.items() if k != "OMP_WAIT_POLICY"}
    env["OMP_DISPLAY_ENV"] = "true"
    if given is not None:
        env["OMP_WAIT_POLICY"] = given
    out = subprocess.run([sys.executable, "-c", CODE], env=env, cwd="/", capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    # the process environment is as the user left it
    assert out.stdout.strip() == str(given)
    shown = re.search(r"OMP_WAIT_POLICY\s*=\s*'(\w+)'", out.stderr)
    if shown is None:
        pytest.skip("the OpenMP runtime does not report its settings under OMP_DISPLAY_ENV "
                    "(libgomp and LLVM's libomp do)")
    assert shown.group(1).upper() == expected
