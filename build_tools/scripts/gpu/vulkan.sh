#!/usr/bin/env bash
# Proves the Vulkan path on a GPU machine that has no Go toolchain.
#
#   build_tools/scripts/gpu/vulkan.sh build   # here: build everything into .gpu-vulkan/
#   build_tools/scripts/gpu/vulkan.sh run     # there: run it, results under $OUT
#
# "build" compiles the sample shaders with glslc, the test binaries of the
# vulkan driver and target (go test -c, with their testdata), iree-compile
# and iree-run-module, and the sample modules, and copies glslc with its
# libshaderc (the target tests generate SPIR-V there too). It also fetches
# the Vulkan loader .debs into .gl/ the way the device README says. Both
# folders are ignored through .git/info/exclude and travel with the device
# tool's `carry`:
#
#   carry: [".gpu-vulkan", ".gl"]
#   command: for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig;
#            bash build_tools/scripts/gpu/vulkan.sh run
#
# The binaries open libvulkan.so.1 at run time, so they start without it;
# where the loader finds no NVIDIA driver by itself, "run" points
# VK_DRIVER_FILES at the NVIDIA ICD.
#
# "run" prints the devices, runs the Vulkan sample (8xf32=96 ...), the
# elementwise-only program, 1,000,000 elements checked with
# --expected_output, the error for a SPIR-V object without the export's
# entry point, the driver and target tests, and the simple_mul and copy
# benchmarks over 64M elements in one process; everything is written to
# $OUT/vulkan.txt as well as stdout.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
if [ "$(basename "$here")" = .gpu-vulkan ]; then
  root="$(dirname "$here")"
else
  root="$(cd "$here/../../.." && pwd)"
fi
dir="$root/.gpu-vulkan"

exclude_path() {
  local exclude
  exclude="$(git -C "$root" rev-parse --git-path info/exclude)"
  case "$exclude" in /*) ;; *) exclude="$root/$exclude" ;; esac
  mkdir -p "$(dirname "$exclude")"
  grep -qx "$1" "$exclude" 2>/dev/null || echo "$1" >>"$exclude"
}

build() {
  cd "$root"
  exclude_path '/.gpu-vulkan/'
  exclude_path '/.gl/'
  rm -rf "$dir"
  mkdir -p "$dir/driver" "$dir/target" "$dir/bin" "$dir/modules" "$dir/spv" "$dir/glslc"
  local glslc
  glslc="$(command -v glslc)"
  for s in simple_mul simple_mul_inplace; do
    "$glslc" -fshader-stage=compute -o "$dir/spv/$s.spv" "samples/custom_dispatch/vulkan/shaders/$s.glsl"
  done
  cp "$glslc" "$dir/glslc/"
  cp "$(ldd "$glslc" | awk '/libshaderc/ {print $3}')" "$dir/glslc/"
  local ld='-s -w'
  (cd runtime && go test -c -ldflags="$ld" -o "$dir/driver/vulkan.test" ./hal/drivers/vulkan)
  cp -r runtime/hal/drivers/vulkan/testdata "$dir/driver/"
  (cd compiler && go test -c -ldflags="$ld" -o "$dir/target/vulkan.test" ./target/vulkan)
  cp -r compiler/target/vulkan/testdata "$dir/target/"
  (cd tools && go build -ldflags="$ld" -o "$dir/bin/" ./iree-compile ./iree-run-module)
  "$dir/bin/iree-compile" samples/custom_dispatch/vulkan/shaders/example.mlir -o "$dir/modules/sample.vmfb" \
    --iree-hal-executable-object-search-path="$dir/spv"
  "$dir/bin/iree-compile" compiler/target/vulkan/testdata/elementwise.mlir -o "$dir/modules/elementwise.vmfb"
  cp compiler/target/vulkan/testdata/missing_entry.mlir "$dir/modules/"
  cp "$0" "$dir/vulkan.sh"
  if ! ls .gl/libvulkan1_*.deb >/dev/null 2>&1; then
    local o='-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists=/tmp/amd64'
    mkdir -p .gl /tmp/amd64/partial
    # shellcheck disable=SC2086
    apt-get $o update >/dev/null
    # shellcheck disable=SC2086
    (cd .gl && apt-get $o download libvulkan1 libegl1 libglvnd0 libopengl0 libgl1 libglx0 libgles2)
  fi
  du -sh "$dir" .gl
}

run() {
  local out="${OUT:-/tmp/vulkan-out}"
  mkdir -p "$out"
  exec > >(tee "$out/vulkan.txt") 2>&1
  cd "$dir"
  export PATH="$dir/glslc:$PATH" LD_LIBRARY_PATH="$dir/glslc${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  if ! bin/iree-run-module --list_devices 2>/dev/null | grep -q '^vulkan.*NVIDIA'; then
    local icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
    [ -f "$icd" ] && export VK_DRIVER_FILES="$icd"
  fi
  echo "== devices (VK_DRIVER_FILES=${VK_DRIVER_FILES:-unset})"
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || true
  bin/iree-run-module --list_devices || true
  local status=0
  echo "== Vulkan sample: (a*b + b) * (a*b) through iree-run-module"
  bin/iree-run-module --device=vulkan --module=modules/sample.vmfb --function=mixed_invocation \
    --input=8xf32=2 --input=8xf32=4 || status=1
  echo "== elementwise-only program"
  bin/iree-run-module --device=vulkan --module=modules/elementwise.vmfb --function=chain \
    --input="5xf32=1 2 3 4 5" --input=5xf32=2 || status=1
  echo "== 1,000,000 elements, every one compared"
  bin/iree-run-module --device=vulkan --module=modules/sample.vmfb --function=mixed_invocation \
    --input=1000000xf32=2 --input=1000000xf32=4 --expected_output=1000000xf32=96 --print_max_element_count=4 || status=1
  echo "== SPIR-V object without the export's entry point (must fail)"
  if bin/iree-compile modules/missing_entry.mlir -o /tmp/missing.vmfb --iree-hal-executable-object-search-path=spv; then
    echo "compiled: expected an error"; status=1
  fi
  echo "== driver tests"
  (cd driver && ./vulkan.test -test.v -test.count=1) | grep -v '^=== RUN' || status=1
  echo "== target tests (compile with glslc, run on the device)"
  (cd target && ./vulkan.test -test.v -test.count=1) | grep -v '^=== RUN' || status=1
  echo "== benchmarks: simple_mul and device-local copy, 64M elements (256 MiB buffers)"
  (cd driver && ./vulkan.test -test.run='^$' -test.bench=. -test.benchtime=20x -vulkan.elements=67108864) || status=1
  echo "== done (status $status)"
  return $status
}

case "${1:-}" in
  build) build ;;
  run) run ;;
  *) echo "usage: $0 build|run" >&2; exit 2 ;;
esac
