#!/usr/bin/env bash
# Build weft._C with AddressSanitizer + UndefinedBehaviorSanitizer and run the
# native, sparse and geometric tests against it.
#
#   tools/sanitize.sh [pytest args...]      (default: tests/native tests/sparse tests/geometric)
#
# Needs GCC or Clang, CMake, pybind11 and the test dependencies of the normal build.
# The sanitized extension goes into a scratch copy of the package (weft/ and tests/
# under $WEFT_SAN_DIR, default build/sanitize/tree), so the source tree's own _C is
# left alone.  A Python extension cannot bring its ASan runtime itself (it must be the
# first library loaded), so the compiler's libasan is LD_PRELOADed.  Leak detection
# is off: CPython keeps interned objects alive at exit by design, which LSan reports.
# Any ASan or UBSan report aborts the run (printed to stderr), so a passing run means
# none fired.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${WEFT_SAN_BUILD:-$root/build/sanitize/cmake}"
tree="${WEFT_SAN_DIR:-$root/build/sanitize/tree}"
py="${PYTHON:-python}"
cxx="${CXX:-g++}"

cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DWEFT_SANITIZE=ON \
      -DCMAKE_CXX_COMPILER="$cxx" -DPython_EXECUTABLE="$(command -v "$py")" >/dev/null
cmake --build "$build" --parallel "${WEFT_SAN_JOBS:-2}"

rm -rf "$tree"
mkdir -p "$tree"
cp -r "$root/weft" "$root/tests" "$root/pyproject.toml" "$tree/"
find "$tree" -name '__pycache__' -prune -exec rm -rf {} +
rm -f "$tree"/weft/_C*.so
cp "$build"/_C*.so "$tree/weft/"

asan="$("$cxx" -print-file-name=libasan.so)"
[ -f "$asan" ] || { echo "sanitize.sh: libasan.so not found via $cxx" >&2; exit 2; }
ubsan="$("$cxx" -print-file-name=libubsan.so)"
preload="$asan"
[ -f "$ubsan" ] && preload="$asan:$ubsan"

if [ $# -eq 0 ]; then set -- tests/native tests/sparse tests/geometric; fi
cd "$tree"
# WEFT_SRC: the helper-worktree import hook (if installed) then imports this copy
export WEFT_SRC="$tree"
export PYTHONPATH="$tree${PYTHONPATH:+:$PYTHONPATH}"
# --capture=sys: pytest's default fd-level capture would swallow a report written to
# fd 2 by a process that then aborts; Python-level output is still captured
export ASAN_OPTIONS="detect_leaks=0:abort_on_error=1:halt_on_error=1:allocator_may_return_null=1:${ASAN_OPTIONS:-}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:${UBSAN_OPTIONS:-}"
LD_PRELOAD="$preload" "$py" -c "import weft, weft._C as c; print('sanitized _C:', c.__file__)"
LD_PRELOAD="$preload" exec "$py" -m pytest -q -p no:cacheprovider --capture=sys "$@"
