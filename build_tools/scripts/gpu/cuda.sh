#!/usr/bin/env bash
# Proves the CUDA path on a GPU machine that has no Go toolchain.
#
#   build_tools/scripts/gpu/cuda.sh build   # here: build everything into .gpu-cuda/
#   build_tools/scripts/gpu/cuda.sh run     # there: run it, results under $OUT
#
# "build" compiles the kernels to PTX with clang-16 (sm_80), the test
# binaries of the cuda driver and target (go test -c, with their testdata),
# iree-compile and iree-run-module, and the sample modules. The folder is
# ignored through .git/info/exclude and travels with the device tool's
# `carry` (carry: [".gpu-cuda"], command: "bash build_tools/scripts/gpu/cuda.sh run").
# Binaries built here run there: its glibc is newer, and libcuda is opened
# at run time.
#
# "run" prints the device, runs the CUDA sample (8xf32=96 ...), the
# elementwise-only program, 256M elements checked correct, the error for a
# PTX without the requested export, the host time per dispatch against a
# raw cuLaunchKernel loop, and all driver and target tests; everything is
# written to $OUT/cuda.txt as well as stdout.
set -euo pipefail

root="$(cd "$(dirname "$0")/../../.." && pwd)"
dir="$root/.gpu-cuda"

build() {
  cd "$root"
  local exclude
  exclude="$(git rev-parse --git-path info/exclude)"
  mkdir -p "$(dirname "$exclude")"
  grep -qx '/.gpu-cuda/' "$exclude" 2>/dev/null || echo '/.gpu-cuda/' >>"$exclude"
  rm -rf "$dir"
  mkdir -p "$dir/driver" "$dir/target" "$dir/bin" "$dir/modules"
  local clang
  clang="$(command -v clang-16 || command -v clang)"
  "$clang" -x cuda --cuda-device-only -nocudainc -nocudalib --cuda-gpu-arch=sm_80 -O2 -S \
    -Wno-unknown-cuda-version compiler/target/cuda/testdata/kernels.cu -o "$dir/kernels_sm_80.ptx"
  # The committed PTX must be what clang makes of kernels.cu.
  diff -q <(grep -v '^//' "$dir/kernels_sm_80.ptx") <(grep -v '^//' compiler/target/cuda/testdata/kernels_sm_80.ptx)
  local ld='-s -w'
  (cd runtime && go test -c -ldflags="$ld" -o "$dir/driver/cuda.test" ./hal/drivers/cuda)
  cp -r runtime/hal/drivers/cuda/testdata "$dir/driver/"
  (cd compiler && go test -c -ldflags="$ld" -o "$dir/target/cuda.test" ./target/cuda)
  cp -r compiler/target/cuda/testdata "$dir/target/"
  (cd tools && go build -ldflags="$ld" -o "$dir/bin/" ./iree-compile ./iree-run-module)
  "$dir/bin/iree-compile" compiler/target/cuda/testdata/sample.mlir -o "$dir/modules/sample.vmfb" \
    --iree-hal-executable-object-search-path=compiler/target/cuda/testdata
  "$dir/bin/iree-compile" compiler/target/cuda/testdata/elementwise.mlir -o "$dir/modules/elementwise.vmfb"
  cp "$0" "$dir/cuda.sh"
  du -sh "$dir"
}

run() {
  local out="${OUT:-/tmp/cuda-out}"
  mkdir -p "$out"
  exec > >(tee "$out/cuda.txt") 2>&1
  cd "$dir"
  echo "== device"
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || true
  bin/iree-run-module --list_devices | grep '^cuda' || true
  echo "== CUDA sample: (a*b + b) * (a*b) through iree-run-module"
  bin/iree-run-module --device=cuda --module=modules/sample.vmfb --function=mixed_invocation \
    --input=8xf32=2 --input=8xf32=4
  echo "== elementwise-only program"
  bin/iree-run-module --device=cuda --module=modules/elementwise.vmfb --function=chain \
    --input="5xf32=1 2 3 4 5" --input=5xf32=2
  bin/iree-run-module --device=cuda --module=modules/elementwise.vmfb --function=relu_scale \
    --input="4xf32=-3 -0.5 1 2" --input="4xi32=1 1 -5 0"
  local status=0
  echo "== driver tests (transfers, offsets, missing export, JIT log, dispatch overhead)"
  (cd driver && ./cuda.test -test.v -test.count=1) | grep -v '^=== RUN' || status=1
  echo "== target tests (compile + run on the device) with 256M elements"
  (cd target && ./cuda.test -test.v -test.count=1 -cuda.large=268435456 -test.timeout=8m) | grep -v '^=== RUN' || status=1
  echo "== done (status $status)"
  return $status
}

case "${1:-}" in
  build) build ;;
  run) run ;;
  *) echo "usage: $0 build|run" >&2; exit 2 ;;
esac
