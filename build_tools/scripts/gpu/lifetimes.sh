#!/usr/bin/env bash
# Buffer lifetimes on a GPU machine that has no Go toolchain, no clang and
# no glslc (issue 15): 10,000 calls of a compiled program at 16M f32 on
# cuda and on vulkan, with the GPU's memory sampled by nvidia-smi.
#
#   build_tools/scripts/gpu/lifetimes.sh build   # here: build into .gpu-lifetimes/
#   build_tools/scripts/gpu/lifetimes.sh run     # there: run, results under $OUT
#
# The program is compiler/e2e/testdata/lifetime_{cuda,vulkan}.mlir: a user
# kernel (lifetime.cu as sm_80 PTX, lifetime_mul*.glsl as SPIR-V), a
# generated add, an in-place user kernel and a generated subtract, so every
# call makes intermediates the program must release. "build" compiles the
# kernels and both modules, the tools (iree-run-module,
# iree-benchmark-module) and the cuda driver's test binary. "run" first
# runs the cuda driver's TestStreamOrderedPool (is the stream-ordered pool
# in use, or why not; 2000 allocations and releases of 64 MiB), then, for
# each driver:
#
#   1. checks one call at 16M elements with iree-run-module
#      (--expected_output: step(3, 2) = (3*2+2)*(3*2) - 3 = 45 everywhere)
#      and prints its --print_statistics (everything released: 0B live);
#   2. makes 10,000 calls with iree-benchmark-module
#      --benchmark_min_time=10000x --print_statistics (each call's result
#      released before the next, as IREE's tool does), while nvidia-smi
#      samples memory.used every 100 ms into $OUT/smi_<driver>.csv;
#   3. summarizes the samples: the first, the largest after warm-up (the
#      first 20% of the samples) and the last; flat means the largest after
#      warm-up is within a few MiB of the value at the end of warm-up.
#
# On the device tool:
#
#   carry:   [".gpu-lifetimes", ".gl"]
#   command: bash build_tools/scripts/gpu/lifetimes.sh run
#
# Everything is also written to $OUT/lifetimes.txt. "run" takes optional
# arguments: the element count (default 16777216) and the call count
# (default 10000).
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
if [ "$(basename "$here")" = .gpu-lifetimes ]; then
  root="$(dirname "$here")"
else
  root="$(cd "$here/../../.." && pwd)"
fi
dir="$root/.gpu-lifetimes"

build() {
  cd "$root"
  local exclude
  exclude="$(git rev-parse --git-path info/exclude)"
  mkdir -p "$(dirname "$exclude")"
  grep -qx '/.gpu-lifetimes/' "$exclude" 2>/dev/null || echo '/.gpu-lifetimes/' >>"$exclude"
  rm -rf "$dir"
  mkdir -p "$dir/bin" "$dir/objects"
  local td=compiler/e2e/testdata
  local clang glslc
  clang="$(command -v clang-16 || command -v clang)"
  glslc="$(command -v glslc)"
  "$clang" -x cuda --cuda-device-only -nocudainc -nocudalib --cuda-gpu-arch=sm_80 -O2 -S \
    -Wno-unknown-cuda-version "$td/lifetime.cu" -o "$dir/objects/lifetime_sm_80.ptx"
  for s in lifetime_mul lifetime_mul_inplace; do
    "$glslc" -fshader-stage=compute -o "$dir/objects/$s.spv" "$td/$s.glsl"
  done
  local ld='-s -w'
  (cd tools && go build -ldflags="$ld" -o "$dir/bin/" ./iree-compile ./iree-run-module ./iree-benchmark-module)
  (cd runtime && go test -c -ldflags="$ld" -o "$dir/bin/cuda.test" ./hal/drivers/cuda)
  for d in cuda vulkan; do
    "$dir/bin/iree-compile" "$td/lifetime_$d.mlir" \
      --iree-hal-executable-object-search-path="$dir/objects" -o "$dir/lifetime_$d.vmfb"
  done
  cp "$0" "$dir/lifetimes.sh"
  du -sh "$dir"
}

# summarize prints the memory.used samples of a CSV from nvidia-smi
# (timestamp, memory.used [MiB]).
summarize() {
  awk -F', ' '
    { v = $2 + 0; s[n++] = v }
    END {
      if (n == 0) { print "  no samples"; exit }
      w = int(n / 5); warm = s[w]; mx = warm
      for (i = w; i < n; i++) if (s[i] > mx) mx = s[i]
      printf "  %d samples: first %d MiB, after warm-up (sample %d) %d MiB, largest after warm-up %d MiB, last %d MiB, growth after warm-up %d MiB\n", n, s[0], w, warm, mx, s[n-1], mx - warm
    }' "$1"
}

run() {
  local n="${1:-16777216}" calls="${2:-10000}"
  local out="${OUT:-/tmp/lifetimes-out}"
  mkdir -p "$out"
  exec > >(tee -a "$out/lifetimes.txt") 2>&1
  cd "$dir"
  if ! ldconfig -p 2>/dev/null | grep -q 'libvulkan\.so\.1 '; then
    for f in "$root"/.gl/*.deb; do
      [ -f "$f" ] && dpkg -x "$f" /
    done
    ldconfig || true
  fi
  local icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
  if [ -z "${VK_DRIVER_FILES:-}" ] && [ -f "$icd" ] && ! ls /usr/share/vulkan/icd.d/nvidia* /etc/vulkan/icd.d/nvidia* >/dev/null 2>&1; then
    export VK_DRIVER_FILES="$icd"
  fi
  echo "== machine (VK_DRIVER_FILES=${VK_DRIVER_FILES:-unset})"
  nvidia-smi --query-gpu=name,driver_version,memory.total,memory.used --format=csv,noheader || true
  local status=0
  echo "== cuda driver: the stream-ordered pool (TestStreamOrderedPool)"
  if ! ./bin/cuda.test -test.run 'TestStreamOrderedPool' -test.v; then
    echo "FAIL: the cuda pool test"
    status=1
  fi
  for d in cuda vulkan; do
    echo "== $d: one call at $n elements, checked"
    if ! ./bin/iree-run-module --device="$d" --module="lifetime_$d.vmfb" --function=step \
      --input="${n}xf32=3" --input="${n}xf32=2" --expected_output="${n}xf32=45" \
      --output_max_element_count=4 --print_statistics; then
      echo "FAIL: $d: the checked call failed"
      status=1
      continue
    fi
    echo "== $d: $calls calls at $n elements, nvidia-smi memory.used every 100 ms"
    nvidia-smi --query-gpu=timestamp,memory.used --format=csv,noheader,nounits -lms 100 >"$out/smi_$d.csv" &
    local smi=$!
    sleep 1
    if ! ./bin/iree-benchmark-module --device="$d" --module="lifetime_$d.vmfb" --function=step \
      --input="${n}xf32=3" --input="${n}xf32=2" --benchmark_min_time="${calls}x" --print_statistics; then
      echo "FAIL: $d: the $calls calls failed"
      status=1
    fi
    sleep 1
    kill "$smi" 2>/dev/null || true
    wait "$smi" 2>/dev/null || true
    summarize "$out/smi_$d.csv"
  done
  return "$status"
}

case "${1:-}" in
  build) build ;;
  run) shift; run "$@" ;;
  *) echo "usage: $0 build|run [elements [calls]]" >&2; exit 2 ;;
esac
