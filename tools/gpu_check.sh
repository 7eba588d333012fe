#!/bin/bash
# tools/gpu_check.sh [outdir]: weft's checks on a machine with an NVIDIA GPU and CuPy.
#
# Builds weft in place (no build isolation: such machines often reach no package
# index), prints weft.show_config(), then runs the whole suite and every GPU case of
# the op database, with enough workers for a many-core host. The logs go to outdir
# (default: build/gpu_check). Exits non-zero when a stage fails; the logs say which
# tests. CI never has a GPU, so these checks run only where one is at hand.
set -u -o pipefail
cd "$(dirname "$0")/.."
out="${1:-build/gpu_check}"
mkdir -p "$out"
workers="${WEFT_GPU_CHECK_WORKERS:-$(python3 -c 'import os; print(min(16, os.cpu_count() or 2))')}"
export PYTHONUNBUFFERED=1 OMP_NUM_THREADS="${OMP_NUM_THREADS:-4}"

python3 -m pip install -q --no-build-isolation --no-deps -e . >"$out/build.log" 2>&1 ||
  { tail -40 "$out/build.log"; exit 1; }
python3 -c "import weft; weft.show_config(); assert weft.is_compiled_with_cuda(), 'no GPU seen'" |
  tee "$out/config.txt" || exit 1

status=0
# the suite (its GPU tests included); the layering lint needs import-linter, which such
# machines may lack
lint=()
python3 -c "import importlinter" 2>/dev/null || lint=(--deselect tests/test_layering.py::test_import_contracts_hold)
python3 -m pytest -q -n "$workers" -p no:cacheprovider tests weft --doctest-modules \
  --ignore=tests/test_ops.py "${lint[@]}" --tb=short -rfE 2>&1 | tee "$out/suite.log" | tail -30 || status=1
# the op database on the GPU
python3 -m pytest -q -n "$workers" -p no:cacheprovider tests/test_ops.py -k gpu \
  --tb=short -rfE 2>&1 | tee "$out/ops.log" | tail -30 || status=1
exit $status
