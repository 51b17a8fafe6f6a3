#!/usr/bin/env bash
# IREE's own check-style e2e programs (the list of the iree-conformance
# tool's e2e suite) compiled for a GPU backend and run with
# iree-check-module on its device: the op table of generated GPU code.
#
#   IREE_GIT=<iree git dir> build_tools/scripts/gpu/iree_e2e.sh build
#       here: the tools and glslc into .gpu-iree-e2e/ (ignored), and IREE's
#       listed files read from IREE_GIT into .gpu-iree-e2e/src/<rev>/
#   build_tools/scripts/gpu/iree_e2e.sh run <backend> <device> [jobs]
#       here or on the device machine: one line per file (ok, FAIL with
#       the first error), then the count; results under $OUT when set
#
# The files are read, never committed: the folder is listed in
# .git/info/exclude. On the device tool:
#
#   carry:   [".gpu-iree-e2e", ".gl"]
#   command: bash .gpu-iree-e2e/iree_e2e.sh run cuda cuda 16
#
# LIST names the suite file (default: the iree-conformance tool's e2e list
# beside this checkout, ../shared/tools/iree-conformance/lists/e2e.txt).
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
if [ "$(basename "$here")" = .gpu-iree-e2e ]; then
  root="$(dirname "$here")"
else
  root="$(cd "$here/../../.." && pwd)"
fi
dir="$root/.gpu-iree-e2e"
# The two IREE revisions the conformance lists name.
declare -A rev=([seed]=ad23611856453012ac644aecc91a42c4df54192e [head]=b48a5955575cf8924ffc191f3b0804976e5738b9)

build() {
  : "${IREE_GIT:?IREE_GIT must name an iree-org/iree git directory}"
  local list="${LIST:-$root/../shared/tools/iree-conformance/lists/e2e.txt}"
  [ -f "$list" ] || { echo "iree_e2e.sh: no list at $list (set LIST)" >&2; exit 2; }
  cd "$root"
  local exclude
  exclude="$(git rev-parse --git-path info/exclude)"
  grep -qx '/.gpu-iree-e2e/' "$exclude" 2>/dev/null || echo '/.gpu-iree-e2e/' >>"$exclude"
  rm -rf "$dir"
  mkdir -p "$dir/bin" "$dir/glslc" "$dir/src"
  for t in iree-compile iree-check-module; do
    (cd tools && go build -ldflags='-s -w' -o "$dir/bin/$t" "./$t")
  done
  local glslc
  glslc="$(command -v glslc)"
  cp "$glslc" "$dir/glslc/"
  cp "$(ldd "$glslc" | awk '/libshaderc/ {print $3}')" "$dir/glslc/"
  grep -v '^#' "$list" | awk 'NF == 2' >"$dir/list.txt"
  while read -r r path; do
    mkdir -p "$dir/src/$r/$(dirname "$path")"
    git -C "$IREE_GIT" show "${rev[$r]}:$path" >"$dir/src/$r/$path"
  done <"$dir/list.txt"
  cp "$0" "$dir/"
  du -sh "$dir"
}

# one <rev> <path> <backend> <device>: compile and check one file, print its line.
one() {
  local r="$1" path="$2" backend="$3" device="$4"
  local tmp
  tmp="$(mktemp -d)"
  local line
  if ! timeout 120 "$dir/bin/iree-compile" --iree-hal-target-backends="$backend" "$dir/src/$r/$path" -o "$tmp/m.vmfb" >"$tmp/err" 2>&1; then
    line="FAIL $r $path: iree-compile: $(grep -m1 -i 'error' "$tmp/err" || head -c 200 "$tmp/err")"
  elif ! timeout 120 "$dir/bin/iree-check-module" --device="$device" --module="$tmp/m.vmfb" >"$tmp/err" 2>&1; then
    line="FAIL $r $path: iree-check-module: $(grep -m1 -E '[^[:space:]]' "$tmp/err" | cut -c1-200)"
  else
    line="ok   $r $path"
  fi
  echo "${line:0:240}"
  rm -rf "$tmp"
}

run() {
  local backend="${1:?backend}" device="${2:?device}" jobs="${3:-1}"
  local out="${OUT:-/tmp/iree-e2e-out}"
  mkdir -p "$out"
  if ! ldconfig -p 2>/dev/null | grep -q 'libvulkan\.so\.1 '; then
    for f in "$root"/.gl/*.deb; do
      [ -f "$f" ] && dpkg -x "$f" /
    done
    ldconfig || true
  fi
  export PATH="$dir/glslc:$PATH" LD_LIBRARY_PATH="$dir/glslc${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  export -f one
  export dir
  local log="$out/iree-e2e.$backend.$device.txt"
  xargs -P "$jobs" -L 1 bash -c 'one "$0" "$1" "$2" "$3"' <<<"$(awk -v b="$backend" -v d="$device" '{print $1, $2, b, d}' "$dir/list.txt")" | sort -k3 >"$log"
  cat "$log"
  echo "IREE e2e on $backend/$device: $(grep -c '^ok' "$log") of $(wc -l <"$dir/list.txt") files pass"
}

case "${1:-}" in
  build) build ;;
  run) shift; run "$@" ;;
  *) echo "usage: $0 build | run <backend> <device> [jobs]" >&2; exit 2 ;;
esac
