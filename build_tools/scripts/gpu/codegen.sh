#!/usr/bin/env bash
# Generated GPU code (linalg loop nests on cuda and vulkan-spirv) on a GPU
# machine that has no Go toolchain: the compiler's GPU e2e tests, then
# users' programs (codegen/*.mlir: a 4096^3 f32 matmul, the same with f16
# operands accumulated in f32, an 8192x8192 row softmax, a 4096 dense layer
# with bias and relu) checked once and benchmarked through
# iree-benchmark-module, beside torch on the same GPU in the same run
# (codegen/torch_ref.py: f32 with TF32 off, f16 on tensor cores, and f32
# with TF32 on beside ours compiled with --iree-cuda-allow-tf32=true; and
# the f16 matmul on vulkan compiled with
# --iree-vulkan-cooperative-matrix=nv and =nv2 beside the default KHR one).
#
#   build_tools/scripts/gpu/codegen.sh build   # here: into .gpu-codegen/
#   build_tools/scripts/gpu/codegen.sh run     # there: results under $OUT
#
# "build" compiles the e2e, cuda-target and vulkan-target test binaries
# (go test -c, with their testdata), the tools, the programs for cuda and
# vulkan-spirv, and copies glslc with its libshaderc (the e2e tests
# compile for vulkan-spirv on the device machine). The folder is ignored
# through .git/info/exclude; the Vulkan loader comes from .gl/ (see
# vulkan.md). On the device tool:
#
#   carry:   [".gpu-codegen", ".gl"]
#   command: bash .gpu-codegen/codegen.sh run
#
# A shorter run (within one device call's limit, or for one change) may
# narrow it with environment variables: CODEGEN_TESTS, a -test.run pattern
# for the e2e tests (default GPU; "none" skips them and the cuda-target
# tests), CODEGEN_PROGRAMS (default: all, space-separated; "none" runs the
# tests only) and
# CODEGEN_DEVICES (default "cuda vulkan").
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
if [ "$(basename "$here")" = .gpu-codegen ]; then
  root="$(dirname "$here")"
else
  root="$(cd "$here/../../.." && pwd)"
fi
dir="$root/.gpu-codegen"
programs=(matmul matmul_f16 matmul_f16_nv matmul_f16_nv2 matmul_tf32 softmax dense)

build() {
  cd "$root"
  local exclude
  exclude="$(git rev-parse --git-path info/exclude)"
  grep -qx '/.gpu-codegen/' "$exclude" 2>/dev/null || echo '/.gpu-codegen/' >>"$exclude"
  rm -rf "$dir"
  mkdir -p "$dir/e2e" "$dir/cuda-target" "$dir/bin" "$dir/modules" "$dir/glslc"
  mkdir -p "$dir/vulkan-target"
  (cd compiler && go test -c -o "$dir/e2e/e2e.test" ./e2e && go test -c -o "$dir/cuda-target/cuda.test" ./target/cuda &&
    go test -c -o "$dir/vulkan-target/vulkan.test" ./target/vulkan)
  cp -r compiler/e2e/testdata "$dir/e2e/"
  cp -r compiler/target/cuda/testdata "$dir/cuda-target/"
  # The vulkan-spirv target's math checks on the device: every helper
  # against its bound, and the fused-fma division on NVIDIA.
  cp -r compiler/target/vulkan/testdata "$dir/vulkan-target/"
  # The Vulkan driver's tests: device limits, features and the
  # cooperative-matrix path checked against Go.
  mkdir -p "$dir/vulkan-driver"
  (cd runtime && go test -c -ldflags='-s -w' -o "$dir/vulkan-driver/vulkan.test" ./hal/drivers/vulkan)
  [ -d runtime/hal/drivers/vulkan/testdata ] && cp -r runtime/hal/drivers/vulkan/testdata "$dir/vulkan-driver/"
  for t in iree-compile iree-run-module iree-benchmark-module; do
    (cd tools && go build -ldflags='-s -w' -o "$dir/bin/$t" "./$t")
  done
  local glslc
  glslc="$(command -v glslc)"
  cp "$glslc" "$dir/glslc/"
  cp "$(ldd "$glslc" | awk '/libshaderc/ {print $3}')" "$dir/glslc/"
  for p in "${programs[@]}"; do
    [ -f "$here/codegen/$p.mlir" ] || continue # matmul_tf32: below
    for b in cuda vulkan-spirv; do
      # A program a backend cannot compile yet is reported at run time
      # (its module is missing) rather than stopping the build.
      # Vulkan programs are compiled for the GPU they run on, as a user
      # who knows their device passes --iree-vulkan-target.
      flags=()
      [ "$b" = vulkan-spirv ] && flags=(--iree-vulkan-target="${CODEGEN_VULKAN_TARGET:-h200}")
      "$dir/bin/iree-compile" --iree-hal-target-backends="$b" "${flags[@]}" "$here/codegen/$p.mlir" -o "$dir/modules/$p.$b.vmfb" ||
        echo "compiling $p for $b failed"
    done
  done
  # The f32 matmul with TF32 allowed (cuda only): tensor cores at TF32's
  # precision, beside torch's TF32 figure.
  "$dir/bin/iree-compile" --iree-hal-target-backends=cuda --iree-cuda-allow-tf32=true "$here/codegen/matmul.mlir" \
    -o "$dir/modules/matmul_tf32.cuda.vmfb" || echo "compiling matmul with TF32 failed"
  # The f16 matmul on NVIDIA's own cooperative matrix extensions (vulkan
  # only), beside the default VK_KHR_cooperative_matrix: nv, and nv2's
  # workgroup-scope matrices.
  for ext in nv nv2; do
    "$dir/bin/iree-compile" --iree-hal-target-backends=vulkan-spirv --iree-vulkan-target="${CODEGEN_VULKAN_TARGET:-h200}" \
      --iree-vulkan-cooperative-matrix=$ext "$here/codegen/matmul_f16.mlir" -o "$dir/modules/matmul_f16_$ext.vulkan-spirv.vmfb" ||
      echo "compiling matmul_f16 with --iree-vulkan-cooperative-matrix=$ext failed"
  done
  cp "$here/codegen/torch_ref.py" "$0" "$dir/"
  du -sh "$dir"
}

# inputs and the expected result of each program (all-ones inputs).
args() {
  case "$1" in
    matmul | matmul_tf32) echo "--input=4096x4096xf32=1 --input=4096x4096xf32=1" ;;
    matmul_f16*) echo "--input=4096x4096xf16=1 --input=4096x4096xf16=1" ;;
    softmax) echo "--input=8192x8192xf32=1" ;;
    dense) echo "--input=4096x4096xf32=1 --input=4096x4096xf32=1 --input=4096xf32=1" ;;
  esac
}
expected() {
  case "$1" in
    matmul | matmul_f16* | matmul_tf32) echo "--expected_output=4096x4096xf32=4096" ;;
    softmax) echo "--expected_output=8192x8192xf32=0.0001220703125" ;;
    dense) echo "--expected_output=4096x4096xf32=4097" ;;
  esac
}

run() {
  local out="${OUT:-/tmp/codegen-out}"
  mkdir -p "$out"
  exec > >(tee -a "$out/codegen.txt") 2>&1
  cd "$dir"
  if ! ldconfig -p 2>/dev/null | grep -q 'libvulkan\.so\.1 '; then
    for f in "$root"/.gl/*.deb; do
      [ -f "$f" ] && dpkg -x "$f" /
    done
    ldconfig || true
  fi
  export PATH="$dir/glslc:$PATH" LD_LIBRARY_PATH="$dir/glslc${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  local status=0
  local tests="${CODEGEN_TESTS:-GPU}" devices="${CODEGEN_DEVICES:-cuda vulkan}"
  if [ -n "${CODEGEN_PROGRAMS:-}" ]; then
    read -r -a programs <<<"$CODEGEN_PROGRAMS"
  fi
  echo "== machine"
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || true
  if [ "$tests" != none ]; then
    echo "== e2e GPU tests (cuda and vulkan-spirv) matching $tests"
    # The whole log goes to $OUT/e2e-tests.txt; the summary lines here.
    (cd e2e && timeout "${CODEGEN_TEST_TIMEOUT:-240}" ./e2e.test -test.run "$tests" -test.v >"$out/e2e-tests.txt" 2>&1) || status=1
    grep -E '^(--- |ok|FAIL|PASS|panic)|^\s+--- FAIL' "$out/e2e-tests.txt" | tail -80
    echo "== cuda target tests"
    (cd cuda-target && timeout 120 ./cuda.test -test.v 2>&1 | grep -E '^(--- |ok|FAIL|PASS)|_test.go' | tail -30) || status=1
    echo "== vulkan-spirv target math on the device"
    (cd vulkan-target && timeout 180 ./vulkan.test -test.run 'TestMath|TestFusedDivision|TestDivSqrt' -test.v 2>&1 |
      grep -E '^(--- |ok|FAIL|PASS)|quotients|worst|_test.go.*(want|skipping)' | tail -60) || status=1
    echo "== vulkan driver tests"
    (cd vulkan-driver && timeout 120 ./vulkan.test -test.v 2>&1 | grep -E '^(--- |ok|FAIL|PASS)|_test.go' | tail -40) || status=1
  fi
  if [ "${CODEGEN_PROGRAMS:-}" = none ]; then
    echo "== done (status $status)"
    return "$status"
  fi
  echo "== programs, checked once"
  # Each check's output stays on the machine (printed here when it fails),
  # so that $OUT holds only the log.
  local checks
  checks="$(mktemp -d)"
  for p in "${programs[@]}"; do
    for d in $devices; do
      b=$([ "$d" = cuda ] && echo cuda || echo vulkan-spirv)
      [ "$p.$d" = matmul_tf32.vulkan ] && continue # a cuda flag
      case "$p.$d" in matmul_f16_nv*.cuda) continue ;; esac # a vulkan flag
      # shellcheck disable=SC2046
      if timeout 60 bin/iree-run-module --device="$d" --module="modules/$p.$b.vmfb" $(args "$p") $(expected "$p") --output_max_element_count=4 >"$checks/$p.$d.txt" 2>&1; then
        echo "$p on $d: matches"
      else
        echo "$p on $d: FAILED"; tail -5 "$checks/$p.$d.txt"; status=1
      fi
    done
  done
  echo "== benchmarks (iree-benchmark-module, real time per call)"
  for p in "${programs[@]}"; do
    for d in $devices; do
      b=$([ "$d" = cuda ] && echo cuda || echo vulkan-spirv)
      [ "$p.$d" = matmul_tf32.vulkan ] && continue
      case "$p.$d" in matmul_f16_nv*.cuda) continue ;; esac
      # shellcheck disable=SC2046
      timeout 90 bin/iree-benchmark-module --device="$d" --module="modules/$p.$b.vmfb" $(args "$p") \
        --benchmark_repetitions=5 --benchmark_report_aggregates_only --benchmark_min_time=3x 2>&1 | grep -E 'median|error|ERROR' | sed "s/^/$p $d: /" || status=1
    done
  done
  echo "== torch"
  timeout 120 python3 torch_ref.py || status=1
  echo "== done (status $status)"
  return "$status"
}

case "${1:-}" in
  build) build ;;
  run) shift; run "$@" ;;
  *) echo "usage: $0 build|run" >&2; exit 2 ;;
esac
