#!/usr/bin/env bash
# Multi-architecture CUDA variants on a GPU machine that has no Go
# toolchain: IREE's own CUDA sample (sm_52 and sm_80 variants) compiled and
# run through our tools, at both IREE revisions the conformance runner uses.
#
#   build_tools/scripts/gpu/cuda_variants.sh build   # here: into .gpu-cuda-variants/
#   build_tools/scripts/gpu/cuda_variants.sh run     # there: results under $OUT
#
# "build" reads IREE's samples/custom_dispatch/cuda/kernels/{example.mlir,
# kernels.cu} at the Dec 2022 commit and at the snapshot's HEAD from
# $IREE_GIT (default /work/.mirror/iree-org+iree/repo) into the ignored
# folder (nothing of IREE's is committed), builds kernels.cu to PTX for
# sm_52 and sm_80 with clang-16 as IREE's CMakeLists does (no CUDA headers:
# the few attributes the kernels need are defined on the command line),
# and builds iree-compile, iree-run-module, iree-dump-module and the test
# binaries of the cuda driver and target. On the device tool:
#
#   carry:   [".gpu-cuda-variants"]
#   command: bash build_tools/scripts/gpu/cuda_variants.sh run
#
# "run", there, for each revision: compiles example.mlir as its RUN line
# does (iree-compile with the object search path, targets from the
# program), shows the module's payload (two PTX images per executable),
# runs mixed_invocation with -v=1 so the driver logs which image it loaded
# (sm_80 on any device of compute capability 8.0 or newer), and checks
# 8xf32=96; then the same program with its sm_80 target removed, so the
# sm_52 PTX (hand-written and generated) runs through the JIT; then the
# driver's and target's multi-arch tests (selection, a payload whose
# newest image is too new, the sm_52 replacements of max.NaN, min.NaN and
# tanh.approx against Go). Everything goes to $OUT/cuda_variants.txt too.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
if [ "$(basename "$here")" = .gpu-cuda-variants ]; then
  root="$(dirname "$here")"
else
  root="$(cd "$here/../../.." && pwd)"
fi
dir="$root/.gpu-cuda-variants"
revs=(seed:ad23611856453012ac644aecc91a42c4df54192e head:HEAD)
sample=samples/custom_dispatch/cuda/kernels

build() {
  cd "$root"
  local exclude
  exclude="$(git rev-parse --git-path info/exclude)"
  mkdir -p "$(dirname "$exclude")"
  grep -qx '/.gpu-cuda-variants/' "$exclude" 2>/dev/null || echo '/.gpu-cuda-variants/' >>"$exclude"
  local iree="${IREE_GIT:-/work/.mirror/iree-org+iree/repo}"
  git --git-dir="$iree" rev-parse --verify -q HEAD >/dev/null || {
    echo "no IREE git directory at $iree (set IREE_GIT)" >&2
    exit 1
  }
  local clang
  clang="$(command -v clang-16 || command -v clang)"
  rm -rf "$dir"
  mkdir -p "$dir/bin" "$dir/driver" "$dir/target"
  for r in "${revs[@]}"; do
    local name="${r%%:*}" rev="${r#*:}"
    local w="$dir/$name"
    mkdir -p "$w/$sample"
    git --git-dir="$iree" show "$rev:$sample/example.mlir" >"$w/example.mlir"
    git --git-dir="$iree" show "$rev:$sample/kernels.cu" >"$w/kernels.cu"
    for a in 52 80; do
      "$clang" -x cuda --cuda-device-only -nocudainc -nocudalib --cuda-gpu-arch=sm_$a -O2 -S \
        -Wno-unknown-cuda-version -D'__global__=__attribute__((global))' \
        -D'__device__=__attribute__((device))' -D'__shared__=__attribute__((shared))' \
        -include __clang_cuda_builtin_vars.h "$w/kernels.cu" -o "$w/$sample/kernels_sm_$a.ptx"
    done
    # The same program for sm_52 only: the device list and objects map
    # without their sm_80 entries.
    python3 - "$w/example.mlir" "$w/example_sm52.mlir" <<'EOF'
import re, sys
src = open(sys.argv[1]).read()
out = re.sub(r",\s*#nvptx_sm_80_target(?=\s*\])", "", src)
out = re.sub(r",\s*#nvptx_sm_80_target = \[[^\]]*\]", "", out)
if out == src or "sm_80.ptx" in out:
    sys.exit("could not remove the sm_80 target from " + sys.argv[1])
open(sys.argv[2], "w").write(out)
EOF
  done
  local ld='-s -w'
  (cd tools && go build -ldflags="$ld" -o "$dir/bin/" ./iree-compile ./iree-run-module ./iree-dump-module)
  (cd runtime && go test -c -ldflags="$ld" -o "$dir/driver/cuda.test" ./hal/drivers/cuda)
  cp -r runtime/hal/drivers/cuda/testdata "$dir/driver/"
  (cd compiler && go test -c -ldflags="$ld" -o "$dir/target/cuda.test" ./target/cuda)
  cp -r compiler/target/cuda/testdata "$dir/target/"
  # Compile here too, so that a compile failure shows before device time.
  for r in "${revs[@]}"; do
    local w="$dir/${r%%:*}"
    for f in example example_sm52; do
      (cd "$w" && "$dir/bin/iree-compile" "$f.mlir" --iree-hal-executable-object-search-path=. -o "$f.vmfb")
    done
  done
  cp "$0" "$dir/cuda_variants.sh"
  du -sh "$dir"
}

run() {
  local out="${OUT:-/tmp/cuda-variants-out}"
  mkdir -p "$out"
  exec > >(tee "$out/cuda_variants.txt") 2>&1
  cd "$dir"
  local status=0
  echo "== device"
  nvidia-smi --query-gpu=name,compute_cap,driver_version --format=csv,noheader || true
  for r in "${revs[@]}"; do
    local name="${r%%:*}"
    local w="$dir/$name"
    for f in example example_sm52; do
      echo "== $name $sample/$f.mlir: compile (as its RUN line), payloads, run with -v=1"
      (cd "$w" && "$dir/bin/iree-compile" "$f.mlir" --iree-hal-executable-object-search-path=. -o "$f.vmfb") || status=1
      bin/iree-dump-module "$w/$f.vmfb" | grep -E '^rodata|PTX \(' || true
      local got
      got="$(bin/iree-run-module --device=cuda --module="$w/$f.vmfb" --function=mixed_invocation \
        --input=8xf32=2 --input=8xf32=4 -v=1 --logtostderr 2>&1)" || status=1
      echo "$got"
      if grep -q '8xf32=96 96 96 96 96 96 96 96' <<<"$got"; then echo "ok: 8xf32=96"; else echo "FAIL: no 8xf32=96"; status=1; fi
      local want=sm_80
      [ "$f" = example_sm52 ] && want=sm_52
      if grep -q "cuda executable @executable: loading the $want PTX image" <<<"$got"; then
        echo "ok: the hand-written kernels ran from the $want image"
      else
        echo "FAIL: no log line saying the $want image of @executable was loaded"
        status=1
      fi
    done
  done
  echo "== driver tests: image selection, multi-arch payload, no runnable image, a payload from before per-arch images"
  (cd driver && ./cuda.test -test.v -test.count=1 -test.run 'SelectImage|MultiArch|NoRunnable|Legacy|Dispatch$|ParseExecutable') |
    grep -v '^=== RUN' || status=1
  echo "== target tests: multi_arch.mlir as sm_52+sm_80 and sm_52 only, op coverage, the sample"
  (cd target && ./cuda.test -test.v -test.count=1 -test.run 'MultiArch|OpsOnCUDA|SampleOnCUDA|GeneratedPTX') |
    grep -v '^=== RUN' || status=1
  echo "== done (status $status)"
  return $status
}

case "${1:-}" in
  build) build ;;
  run) run ;;
  *) echo "usage: $0 build|run" >&2; exit 2 ;;
esac
