#!/usr/bin/env bash
# Runs iree-run-module for iree_run_module_test and iree_run_module
# (build_tools/bazel/module.bzl). The first argument is the tool's runfiles
# path, the rest are its flags. Under `bazel test` the command is echoed to
# the test log first.
set -euo pipefail

if [[ $# -lt 1 ]]; then
  echo "run_module.sh: usage: run_module.sh <iree-run-module> [flags...]" >&2
  exit 2
fi
tool=$1
shift
if [[ ! -x $tool ]]; then
  echo "run_module.sh: $tool is not an executable in the runfiles (cwd $PWD)" >&2
  exit 1
fi
if [[ -n ${TEST_SRCDIR:-} ]]; then
  echo "+ iree-run-module $*" >&2
fi
exec "$tool" "$@"
