"""Coverage-guided fuzzing of weft's native entry points with atheris (optional).

The regular suite runs a short, derandomized hypothesis fuzz of every ``weft._C``
kernel (``tests/native/test_fuzz_entry_points.py``). This harness drives the same
argument builders (valid calls mutated, plus independent random arrays) from
atheris' coverage feedback for as long as you let it run, and stops at the first
call that does anything other than return or raise ValueError / TypeError /
IndexError / OverflowError / MemoryError. A crash (segfault, abort) stops it too,
leaving the input that caused it as ``crash-*`` in the working directory.

Setup (atheris is never a dependency of weft)::

    pip install atheris
    python tools/fuzz_native.py -atheris_runs=200000          # all entry points
    python tools/fuzz_native.py --only sparse_csr_slice -max_total_time=600

Run it from the repository root with weft importable (the helper worktrees add
``PYTHONPATH=/tmp/wtsite WEFT_SRC=$PWD``). Other arguments go to libFuzzer
(``-max_total_time``, ``-jobs``, a corpus folder, ``crash-*`` files to replay).

Python-level coverage guides the search as it is. For feedback from the C++ code
as well, build the extension with Clang and ``-fsanitize=fuzzer-no-link,address``
(e.g. add them to the flags ``-DWEFT_SANITIZE=ON`` sets in CMakeLists.txt) and run
with ``LD_PRELOAD=$(python -c "import atheris, os; print(os.path.join(os.path.dirname(atheris.path()), 'asan_with_fuzzer.so'))")``
as atheris' documentation on native extensions describes. Combining this harness
with the sanitizer build of ``tools/sanitize.sh`` turns silent memory errors into
crashes it can report.
"""
from __future__ import annotations

import argparse
import os
import sys


def main(argv=None):
    argv = list(sys.argv if argv is None else argv)
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0], add_help=True)
    p.add_argument("--only", action="append", default=[], help="fuzz only this entry point (repeatable)")
    ours, rest = p.parse_known_args(argv[1:])
    try:
        import atheris
    except ImportError:
        sys.exit("fuzz_native: atheris is not installed (pip install atheris); it is optional")
    from hypothesis import given, settings
    from hypothesis import strategies as st

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    if root not in sys.path:
        sys.path.insert(0, root)
    with atheris.instrument_imports():
        from tests.native import test_fuzz_entry_points as F

    names = sorted(ours.only or F.BUILDERS)
    unknown = set(names) - set(F.BUILDERS)
    if unknown:
        sys.exit(f"fuzz_native: unknown entry points {sorted(unknown)}; known: {sorted(F.BUILDERS)}")

    @settings(database=None, deadline=None)
    @given(data=st.data())
    def one(data):
        name = data.draw(st.sampled_from(names))
        args = F.arguments(name, data.draw)
        with F.memory_cap():
            F.call(name, args)

    atheris.Setup([argv[0]] + rest, one.hypothesis.fuzz_one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
