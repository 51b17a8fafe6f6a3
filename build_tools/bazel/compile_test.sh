#!/usr/bin/env bash
# Runs iree-compile for iree_compile_test (build_tools/bazel/module.bzl) on
# objects taken from the test's runfiles:
#
#   compile_test.sh <iree-compile> <program.mlir> [iree-compile flags...] -- <object>...
#
# Each object's directory becomes an --iree-hal-executable-object-search-path;
# the output goes to the test's temporary directory. The test passes when
# iree-compile succeeds.
set -euo pipefail

if [[ $# -lt 2 ]]; then
  echo "compile_test.sh: usage: compile_test.sh <iree-compile> <program.mlir> [flags...] -- <object>..." >&2
  exit 2
fi
tool=$1
src=$2
shift 2
flags=()
while [[ $# -gt 0 && $1 != "--" ]]; do
  flags+=("$1")
  shift
done
if [[ $# -gt 0 ]]; then
  shift
fi
search=()
declare -A seen=()
for object in "$@"; do
  if [[ ! -f $object ]]; then
    echo "compile_test.sh: object $object is not in the runfiles (cwd $PWD)" >&2
    exit 1
  fi
  dir=$(dirname "$object")
  if [[ -z ${seen[$dir]:-} ]]; then
    seen[$dir]=1
    search+=("--iree-hal-executable-object-search-path=$dir")
  fi
done
out=${TEST_TMPDIR:-$(mktemp -d)}/$(basename "$src" .mlir).out
echo "+ iree-compile $src -o $out ${search[*]} ${flags[*]}" >&2
"$tool" "$src" -o "$out" "${search[@]}" "${flags[@]}"
echo "iree-compile succeeded: $(wc -c <"$out") bytes in $out" >&2
