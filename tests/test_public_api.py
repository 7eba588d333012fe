"""The public surface of weft and of each public submodule, held against a checked-in
list (``tests/public_api.json``), so that a name disappears only deliberately.

After an intended change of the API, regenerate the list with
``WEFT_UPDATE_PUBLIC_API=1 python -m pytest tests/test_public_api.py`` and review the
diff. Submodule objects are listed only where they are public modules themselves; the
files a package happens to be made of are not part of its API.
"""
import importlib
import __future__
import json
import os
import pathlib
import types

import pytest

PUBLIC_MODULES = [
    "weft", "weft.autograd", "weft.datasets", "weft.distribution",
    "weft.distribution.constraints", "weft.device", "weft.device.cuda", "weft.fft",
    "weft.fft.backends", "weft.fft.scipy_backend", "weft.geometric", "weft.linalg", "weft.geometric.nn",
    "weft.geometric.distributed",
    "weft.incubate", "weft.incubate.autograd", "weft.nn", "weft.nn.functional",
    "weft.nn.initializer", "weft.nn.loss", "weft.optimizer", "weft.optimizer.lr",
    "weft.regularizer", "weft.sparse", "weft.sparse.nn", "weft.sparse.nn.functional", "weft.utils",
    "weft.utils.dlpack",
]
_LIST = pathlib.Path(__file__).with_name("public_api.json")


def public_names(name):
    mod = importlib.import_module(name)
    out = []
    for n in dir(mod):
        if n.startswith("_"):
            continue
        v = getattr(mod, n)
        if isinstance(v, __future__._Feature):  # `from __future__ import annotations`
            continue
        if isinstance(v, types.ModuleType) and v.__name__ not in PUBLIC_MODULES:
            continue
        out.append(n)
    return sorted(out)


def _current():
    for name in PUBLIC_MODULES:  # import all first: packages gain submodule attributes
        importlib.import_module(name)
    return {name: public_names(name) for name in PUBLIC_MODULES}


def test_public_api_unchanged():
    current = _current()
    if os.environ.get("WEFT_UPDATE_PUBLIC_API"):
        _LIST.write_text(json.dumps(current, indent=1, sort_keys=True) + "\n")
    expected = json.loads(_LIST.read_text())
    assert sorted(expected) == sorted(current), "the list of public modules changed"
    for name in PUBLIC_MODULES:
        missing = sorted(set(expected[name]) - set(current[name]))
        added = sorted(set(current[name]) - set(expected[name]))
        assert not missing and not added, (
            f"{name}: removed {missing}, added {added}; if intended, regenerate "
            "tests/public_api.json (see this file's docstring)")


@pytest.mark.parametrize("name", PUBLIC_MODULES)
def test_all_names_exist(name):
    mod = importlib.import_module(name)
    for n in getattr(mod, "__all__", ()):
        assert hasattr(mod, n), f"{name}.__all__ lists {n!r}, which is not defined"
