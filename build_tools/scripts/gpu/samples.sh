#!/usr/bin/env bash
# Our own samples and the kernels-from-source examples on a GPU machine
# that has no Go toolchain, no clang and no glslc (issue 14).
#
#   build_tools/scripts/gpu/samples.sh build   # here: build into .gpu-samples/
#   build_tools/scripts/gpu/samples.sh run     # there: run, results under $OUT
#
# "build" compiles here, with the compiler itself building every kernel
# source it is given (.cu with clang, .glsl with glslc, .c with clang), so
# what travels is modules and tool binaries only:
#   - samples/custom_dispatch/cuda/kernels: example.mlir (sm_52, sm_80 and
#     sm_90 PTX variants) and example_inline.mlir (hal.dispatch.extern);
#   - samples/custom_dispatch/vulkan/shaders: example.mlir and
#     example_inline.mlir;
#   - samples/custom_dispatch/cpu/plain_c: a C kernel without a shim, from
#     a prebuilt object and from kernels.c;
#   - compiler/kernelsrc/testdata: cuda_source.mlir (axpy.cu compiled by
#     the compiler for sm_52 and sm_80) and vulkan_source.mlir (fma.glsl).
# On the device tool:
#
#   carry:   [".gpu-samples", ".gl"]
#   command: bash build_tools/scripts/gpu/samples.sh run
#
# "run" runs each module on its device with --expected_output, so a wrong
# value fails the line, and prints the driver's -v=1 line that names the
# PTX image it loaded. Everything also goes to $OUT/samples.txt.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
if [ "$(basename "$here")" = .gpu-samples ]; then
  root="$(dirname "$here")"
else
  root="$(cd "$here/../../.." && pwd)"
fi
dir="$root/.gpu-samples"

build() {
  cd "$root"
  local exclude
  exclude="$(git rev-parse --git-path info/exclude)"
  mkdir -p "$(dirname "$exclude")"
  grep -qx '/.gpu-samples/' "$exclude" 2>/dev/null || echo '/.gpu-samples/' >>"$exclude"
  rm -rf "$dir"
  mkdir -p "$dir/bin" "$dir/modules" "$dir/objects"
  (cd tools && go build -ldflags='-s -w' -o "$dir/bin/" ./iree-compile ./iree-run-module)
  local compile="$dir/bin/iree-compile" cache="$dir/kernel-cache"
  local cu=samples/custom_dispatch/cuda/kernels vk=samples/custom_dispatch/vulkan/shaders
  local pc=samples/custom_dispatch/cpu/plain_c ks=compiler/kernelsrc/testdata
  # The samples' objects, built as their BUILD files build them.
  local clang
  clang="$(command -v clang-16 || command -v clang)"
  for a in 52 80 90; do
    "$clang" -x cuda --cuda-device-only -nocudainc -nocudalib --cuda-gpu-arch=sm_$a -O2 -S \
      -Wno-unknown-cuda-version -D'__global__=__attribute__((global))' \
      -include __clang_cuda_builtin_vars.h "$cu/kernels.cu" -o "$dir/objects/kernels_sm_$a.ptx"
  done
  for s in simple_mul simple_mul_inplace; do
    glslc -fshader-stage=compute -o "$dir/objects/$s.spv" "$vk/$s.glsl"
  done
  "$clang" -target x86_64-none-elf -std=c17 -ffreestanding -fvisibility=hidden -O2 -c \
    "$pc/kernels.c" -o "$dir/objects/kernels_x86_64.o"
  local common=(--iree-hal-executable-object-search-path="$dir/objects" --iree-hal-kernel-cache-dir="$cache")
  "$compile" "$cu/example.mlir" "${common[@]}" -o "$dir/modules/cuda_example.vmfb"
  "$compile" "$cu/example_inline.mlir" "${common[@]}" --iree-hal-target-device=cuda -o "$dir/modules/cuda_inline.vmfb"
  "$compile" "$vk/example.mlir" "${common[@]}" -o "$dir/modules/vulkan_example.vmfb"
  "$compile" "$vk/example_inline.mlir" "${common[@]}" --iree-hal-target-device=vulkan -o "$dir/modules/vulkan_inline.vmfb"
  "$compile" "$pc/example.mlir" "${common[@]}" --iree-hal-target-device=local \
    --iree-hal-local-target-device-backends=llvm-cpu -o "$dir/modules/plain_c.vmfb"
  (cd "$pc" && "$compile" example_inline.mlir "${common[@]}" --iree-hal-target-device=local \
    --iree-hal-local-target-device-backends=llvm-cpu -o "$dir/modules/plain_c_inline.vmfb")
  (cd "$ks" && "$compile" cuda_source.mlir "${common[@]}" -o "$dir/modules/cuda_source.vmfb")
  (cd "$ks" && "$compile" vulkan_source.mlir "${common[@]}" -o "$dir/modules/vulkan_source.vmfb")
  cp "$0" "$dir/samples.sh"
  du -sh "$dir"
}

run() {
  local out="${OUT:-/tmp/samples-out}"
  mkdir -p "$out"
  exec > >(tee "$out/samples.txt") 2>&1
  cd "$dir"
  if ! ldconfig -p | grep -q libvulkan.so.1 && [ -d "$root/.gl" ]; then
    for f in "$root"/.gl/*.deb; do dpkg -x "$f" /; done
    ldconfig
  fi
  local status=0
  echo "== device"
  nvidia-smi --query-gpu=name,compute_cap,driver_version --format=csv,noheader || true
  # module device function expected input...
  local rows=(
    "cuda_example cuda mixed_invocation 8xf32=96 8xf32=2 8xf32=4"
    "cuda_inline cuda mixed_invocation 8xf32=96 8xf32=2 8xf32=4"
    "cuda_source cuda run 8xf32=10 8xf32=2 8xf32=4"
    "vulkan_example vulkan mixed_invocation 8xf32=96 8xf32=2 8xf32=4"
    "vulkan_inline vulkan mixed_invocation 8xf32=96 8xf32=2 8xf32=4"
    "vulkan_source vulkan run 8xf32=13 8xf32=2 8xf32=4"
    "plain_c local-task mixed_invocation 8xf32=96 8xf32=2 8xf32=4"
    "plain_c_inline local-task mixed_invocation 8xf32=96 8xf32=2 8xf32=4"
  )
  for row in "${rows[@]}"; do
    read -r m d f want in1 in2 <<<"$row"
    echo "== $m on $d: @$f($in1, $in2), expecting $want"
    if bin/iree-run-module --module="modules/$m.vmfb" --device="$d" --function="$f" \
      --input="$in1" --input="$in2" --expected_output="$want" -v=1 2>&1 | grep -v '^I.*plugin'; then
      echo "ok: $m on $d"
    else
      echo "FAIL: $m on $d"
      status=1
    fi
  done
  echo "== done (status $status)"
  return $status
}

case "${1:-}" in
  build) build ;;
  run) run ;;
  *) echo "usage: $0 build|run" >&2; exit 2 ;;
esac
