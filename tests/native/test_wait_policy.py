"""``import weft`` makes idle OpenMP workers sleep unless the user chose a policy
(see the comment in weft/__init__.py)."""
import os
import subprocess
import sys

import pytest

CODE = "import os, weft; print(os.environ['OMP_WAIT_POLICY'])"


@pytest.mark.parametrize("given, expected", [(None, "PASSIVE"), ("active", "active")])
def test_wait_policy_default_and_override(given, expected):
    env = {k: v for k, v in os.environ.items() if k != "OMP_WAIT_POLICY"}
    if given is not None:
        env["OMP_WAIT_POLICY"] = given
    out = subprocess.run([sys.executable, "-c", CODE], env=env, cwd="/", capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == expected
