"""autograd sits on core only (design.md, Layout): no module under weft/autograd imports
weft.ops, weft.sparse, weft.nn, weft.geometric, weft.incubate or the weft top level,
not even inside a function. What it needs from ops it gets through ``engine.support``."""
import ast
import pathlib
import subprocess
import sys

import weft
import weft.autograd
import weft.incubate.autograd

AUTOGRAD = pathlib.Path(weft.autograd.__file__).parent
ROOT = AUTOGRAD.parent.parent
FORBIDDEN = ("weft.ops", "weft.sparse", "weft.nn", "weft.geometric", "weft.incubate")


def _module_name(path):
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imported(path, name=None):
    """``(line, module)`` for every import in ``path`` (module ``name``), relative ones
    resolved; a ``from pkg import name`` yields ``pkg.name`` too (name may be a
    submodule)."""
    name = name or _module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    tree = ast.parse(path.read_text(), str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                yield node.lineno, a.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - node.level + 1]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module
            yield node.lineno, mod
            for a in node.names:
                yield node.lineno, f"{mod}.{a.name}"
        elif isinstance(node, ast.Call):
            f = node.func
            fname = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", None)
            if fname not in ("import_module", "__import__") or not node.args:
                continue
            arg = node.args[0]
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                yield node.lineno, arg.value
            elif isinstance(arg, ast.JoinedStr) and arg.values and \
                    isinstance(arg.values[0], ast.FormattedValue) and \
                    isinstance(arg.values[0].value, ast.Name) and \
                    arg.values[0].value.id == "__name__":
                continue  # a submodule of the importing package itself
            else:
                yield node.lineno, "<computed>"


def _forbidden(mod):
    if mod == "weft" or mod == "<computed>":
        return True
    return any(mod == f or mod.startswith(f + ".") for f in FORBIDDEN)


def test_autograd_imports_nothing_above_core():
    files = sorted(AUTOGRAD.rglob("*.py"))
    assert len(files) > 5
    bad = [f"{p.relative_to(ROOT)}:{line}: {mod}" for p in files
           for line, mod in _imported(p) if _forbidden(mod)]
    assert not bad, "autograd imports from above its layer:\n" + "\n".join(bad)


def test_the_scan_sees_relative_and_function_level_imports(tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text("def f():\n    from ... import ops\n    from ...sparse import coo\n"
                     "    import importlib\n    importlib.import_module('weft.nn')\n")
    got = {m for _, m in _imported(probe, "weft.autograd.functional.probe")}
    assert {"weft.ops", "weft.sparse.coo", "weft.nn"} <= got
    assert all(_forbidden(m) for m in ("weft.ops", "weft.sparse.coo", "weft.nn", "weft"))


def test_autograd_loads_without_the_layers_above():
    # a bare weft package (its __init__ not run) and a finder that refuses the upper
    # layers: every autograd module must still import
    code = f"""
import importlib, importlib.abc, pkgutil, sys, types
FORBIDDEN = {FORBIDDEN!r}
class Refuse(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if any(name == f or name.startswith(f + ".") for f in FORBIDDEN):
            raise ImportError("layering: " + name)
sys.meta_path.insert(0, Refuse())
weft = types.ModuleType("weft")
weft.__path__ = [{str(ROOT / "weft")!r}]
sys.modules["weft"] = weft
import weft.autograd
for m in pkgutil.walk_packages(weft.autograd.__path__, "weft.autograd."):
    importlib.import_module(m.name)
print("ok")
"""
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr


def test_incubate_autograd_holds_aliases():
    ia = weft.incubate.autograd
    for name in ("vjp", "jvp", "forward_grad"):
        assert getattr(ia, name) is getattr(weft.autograd, name)
    from weft.autograd.functional import prim, transforms

    for name in ia.__all__:
        obj = getattr(ia, name)
        assert obj.__module__ in (prim.__name__, transforms.__name__), name
        assert getattr(transforms, name, None) is obj or getattr(prim, name, None) is obj
    # the function-based Jacobian is not the one weft.autograd.jacobian returns
    assert ia.Jacobian is transforms.Jacobian
    assert ia.Jacobian is not weft.autograd.functional.Jacobian
