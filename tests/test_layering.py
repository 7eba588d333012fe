"""The layering of design.md, as import-linter contracts in pyproject.toml: core <-
autograd <- ops <- domain packages (sparse, nn, geometric, ...) <- legacy aliases and
examples, with imports inside functions counted. A change that makes an import run
back up fails here."""
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]


def test_import_contracts_hold():
    config = ROOT / "pyproject.toml"
    assert config.is_file(), f"pyproject.toml not found at {config}"
    run = subprocess.run(
        [sys.executable, "-c",
         "import sys; from importlinter.cli import lint_imports; "
         f"sys.exit(lint_imports(config_filename={str(config)!r}, no_cache=True))"],
        cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "BROKEN" not in run.stdout and "KEPT" in run.stdout


def test_import_weft_loads_no_optional_backend():
    code = ("import sys, weft; "
            "print(sorted(m for m in ('cupy', 'mkl_fft', 'mkl', 'torch', 'paddle', 'dask') "
            "if m in sys.modules))")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "[]"
