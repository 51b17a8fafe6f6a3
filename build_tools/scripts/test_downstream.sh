#!/usr/bin/env bash
# test_downstream.sh: builds and tests the downstream example workspace
# (build_tools/testdata/downstream), which loads this repository as @goiree
# with local_repository and uses its macros (iree_c_object,
# iree_bytecode_module, iree_run_module_test). Then runs its module once
# with `bazel run` so the printed result is visible.
#
# Usage: build_tools/scripts/test_downstream.sh [extra bazel test flags...]
#
# The downstream .bazelrc shares the disk and repository caches with this
# repository's, so the Go toolchain work is reused. Set
# GOIREE_DOWNSTREAM_OUTPUT_BASE to give Bazel a separate output base (for
# example to run beside another Bazel server).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
downstream=$root/build_tools/testdata/downstream

bazel=(bazel)
if [[ -x $root/bazelw ]]; then
  # bazelw checks the Debian packages (Bazel, clang, lld, glslc) first.
  bazel=("$root/bazelw")
fi
startup=()
if [[ -n ${GOIREE_DOWNSTREAM_OUTPUT_BASE:-} ]]; then
  startup=("--output_base=$GOIREE_DOWNSTREAM_OUTPUT_BASE")
fi

cd "$downstream"
echo "test_downstream.sh: bazel test //... in $downstream" >&2
"${bazel[@]}" "${startup[@]}" test //... "$@"
echo "test_downstream.sh: bazel run //kernels:program_run" >&2
"${bazel[@]}" "${startup[@]}" run //kernels:program_run
