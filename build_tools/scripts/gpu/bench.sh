#!/usr/bin/env bash
# The benchmark suite (tools/internal/benchsuite) on a GPU machine that has
# no Go toolchain and no clang: every SPEC §4 row in one table, CPU and GPU.
#
#   build_tools/scripts/gpu/bench.sh build   # here: build everything into .gpu-bench/
#   build_tools/scripts/gpu/bench.sh run     # there: run it, results under $OUT
#
# "build" compiles the suite (go build) and runs it with --build_only, which
# builds what the rows need into .gpu-bench/work: the CPU kernel object and
# module, the C reference harness, the hand-tuned simple_mul.cu as PTX
# (clang-16, sm_90) and simple_mul.glsl as SPIR-V (glslc), the user
# program's scalar user_program.cu and user_program.glsl likewise, and the
# CUDA and Vulkan modules of both. "run" runs the suite there with
# --prebuilt on that folder, so no compiler is needed; the compiler rows
# (which need clang and lld) are skipped there with a message: they are
# measured where clang is. The folder is ignored through .git/info/exclude;
# the Vulkan loader comes from .gl/ (see vulkan.sh and vulkan.md). On the
# device tool, the whole table in one call (about 3 minutes; the suite is
# stopped after 420 s so that what it logged comes back within 8 minutes):
#
#   carry:   [".gpu-bench", ".gl"]
#   command: bash build_tools/scripts/gpu/bench.sh run
#
# Extra arguments after "run" go to the suite (e.g. --only=cuda,
# --vulkan_probe). The table and the log are appended to $OUT/bench.txt as
# well as stdout. Every run also profiles the CPU scaling row: the suite
# writes a pprof CPU profile of local-task calls (one worker group per CPU)
# to $OUT/cpu_large.pprof (read it with go tool pprof -top), logs their
# context switches per call (getrusage; the cpu-large rows' notes give them
# for ours and for the C loop) and local-task against the C loop at 1, 2,
# 4, 8, 12 and 16 threads (cpu-large/scaling lines), and, where perf exists (the H200 image has
# none), "perf stat" counts context switches and migrations of a
# cpu-large-only run into $OUT/perf_stat.txt. "build" also puts the cuda
# driver's test binary into .gpu-bench/cuda-driver (run it there with
# ./cuda.test -test.v).
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
if [ "$(basename "$here")" = .gpu-bench ]; then
  root="$(dirname "$here")"
else
  root="$(cd "$here/../../.." && pwd)"
fi
dir="$root/.gpu-bench"

exclude_path() {
  local exclude
  exclude="$(git -C "$root" rev-parse --git-path info/exclude)"
  case "$exclude" in /*) ;; *) exclude="$root/$exclude" ;; esac
  mkdir -p "$(dirname "$exclude")"
  grep -qx "$1" "$exclude" 2>/dev/null || echo "$1" >>"$exclude"
}

build() {
  cd "$root"
  exclude_path '/.gpu-bench/'
  rm -rf "$dir"
  mkdir -p "$dir"
  (cd tools && go build -ldflags='-s -w' -o "$dir/benchsuite" ./internal/benchsuite)
  "$dir/benchsuite" --build_only --work_dir="$dir/work"
  # The cuda driver's tests (measurement hooks, dispatch overhead, memory
  # kinds), to run there beside the suite: cd .gpu-bench/cuda-driver && ./cuda.test -test.v
  mkdir -p "$dir/cuda-driver"
  (cd runtime && go test -c -ldflags='-s -w' -o "$dir/cuda-driver/cuda.test" ./hal/drivers/cuda)
  cp -r runtime/hal/drivers/cuda/testdata "$dir/cuda-driver/"
  cp "$0" "$dir/bench.sh"
  du -sh "$dir"
}

run() {
  local out="${OUT:-/tmp/bench-out}"
  mkdir -p "$out"
  exec > >(tee -a "$out/bench.txt") 2>&1
  cd "$dir"
  # The Vulkan loader, unpacked from .gl/ where the machine has none.
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
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.memory --format=csv,noheader || true
  echo "CPUs: $(nproc); $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null || true)"
  python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.cuda.is_available())' 2>&1 | tail -1 || true
  local start=$SECONDS status=0
  echo "== benchsuite --prebuilt --large_profile=$out/cpu_large.pprof $*"
  timeout --signal=KILL 420 ./benchsuite --prebuilt --work_dir=work --large_profile="$out/cpu_large.pprof" "$@" || status=$?
  echo "== benchsuite exit status $status after $((SECONDS - start)) s"
  if command -v perf >/dev/null 2>&1; then
    echo "== perf stat of the cpu-large rows (into $out/perf_stat.txt)"
    timeout --signal=KILL 60 perf stat -e context-switches,cpu-migrations,task-clock -o "$out/perf_stat.txt" \
      ./benchsuite --prebuilt --work_dir=work --only=cpu-large || true
    cat "$out/perf_stat.txt" 2>/dev/null || true
  else
    echo "== no perf on this machine: context switches come from getrusage (the cpu-large notes and the cpu-large/profile line)"
  fi
  echo "== done after $((SECONDS - start)) s"
  return "$status"
}

case "${1:-}" in
  build) build ;;
  run) shift; run "$@" ;;
  *) echo "usage: $0 build|run [suite flags]" >&2; exit 2 ;;
esac
