#!/usr/bin/env bash
# fuzz.sh: runs every Go fuzz target of the repository in turn and prints
# one line per target: time run, executions, new interesting inputs, and ok
# or FAIL with the failing input's file.
#
# Usage: build_tools/scripts/fuzz.sh [seconds-per-target] [target-regexp]
#
#   seconds-per-target  default 60
#   target-regexp       only targets whose "dir.FuzzName" matches (grep -E),
#                       e.g. 'runtime/vm' or 'FuzzParse$'
#
# Targets are found by grepping the three Go modules for `func Fuzz`, so new
# ones are picked up without editing this script. FUZZ_PARALLEL sets the
# fuzzing workers per target (go test -parallel; default: all CPUs).
# FUZZ_MINIMIZE bounds the time spent minimizing each new input
# (go test -fuzzminimizetime; default 5s rather than Go's 60s, during which
# slow targets such as FuzzRunModule show "0/sec" and stop exploring).
#
# A failing input is written by `go test` under the target's
# testdata/fuzz/<FuzzName>/, where the ordinary `go test` run (and CI) runs
# it from then on: commit it together with the fix. Full logs go to
# $FUZZ_LOG_DIR (default: a new directory under /tmp). The exit status is 1
# when any target failed. Long runs do not belong in CI; CI runs the
# checked-in corpora as plain tests.
set -uo pipefail

secs=${1:-60}
filter=${2:-}
if ! [[ $secs =~ ^[0-9]+$ ]] || (( secs == 0 )); then
  echo "fuzz.sh: seconds per target must be a positive integer, got '$secs'" >&2
  exit 2
fi
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
logs=${FUZZ_LOG_DIR:-$(mktemp -d /tmp/goiree-fuzz.XXXXXX)}
mkdir -p "$logs"
parallel=()
if [[ -n ${FUZZ_PARALLEL:-} ]]; then
  parallel=(-parallel="$FUZZ_PARALLEL")
fi

# Every "dir FuzzName" pair, dir relative to the repository root.
targets=$(cd "$root" && grep -rEo --include='*_test.go' '^func Fuzz[A-Za-z0-9_]+\(' compiler runtime tools |
  sed -E 's#^(.*)/[^/]+_test\.go:func (Fuzz[A-Za-z0-9_]+)\($#\1 \2#' | sort -u)
if [[ -n $filter ]]; then
  targets=$(awk -v re="$filter" '($1 "." $2) ~ re' <<<"$targets")
fi
if [[ -z $targets ]]; then
  echo "fuzz.sh: no fuzz targets${filter:+ match '$filter'}" >&2
  exit 2
fi

echo "fuzz.sh: $(wc -l <<<"$targets") targets, ${secs}s each, logs in $logs"
failed=0
while read -r dir name; do
  module=${dir%%/*}
  rest=${dir#"$module"}
  pkg=.${rest}
  log=$logs/${dir//\//_}.$name.log
  before=$(ls "$root/$dir/testdata/fuzz/$name" 2>/dev/null | sort)
  start=$SECONDS
  (cd "$root/$module" && go test "$pkg" -run '^$' -fuzz "^$name\$" -fuzztime="${secs}s" -fuzzminimizetime="${FUZZ_MINIMIZE:-5s}" "${parallel[@]}") >"$log" 2>&1
  rc=$?
  took=$((SECONDS - start))
  # The last progress line: "fuzz: elapsed: 60s, execs: 123 (2/sec), new interesting: 4 (total: 9)".
  progress=$(grep -E '^fuzz: elapsed: .*execs: ' "$log" | tail -1)
  execs=$(sed -nE 's/.*execs: ([0-9]+).*/\1/p' <<<"$progress")
  newin=$(sed -nE 's/.*new interesting: ([0-9]+).*/\1/p' <<<"$progress")
  total=$(sed -nE 's/.*\(total: ([0-9]+)\).*/\1/p' <<<"$progress")
  line=$(printf '%-44s %-26s %4ss  execs %10s  new %4s (corpus %s)' "$dir" "$name" "$took" "${execs:-?}" "${newin:-?}" "${total:-?}")
  if (( rc == 0 )); then
    echo "$line  ok"
  elif grep -qE '\[(build|setup) failed\]' "$log"; then
    failed=1
    echo "$line  BUILD FAILED log: $log"
    grep -m3 -vE '^(FAIL|#)' "$log" | sed 's/^/    /'
  else
    failed=1
    after=$(ls "$root/$dir/testdata/fuzz/$name" 2>/dev/null | sort)
    added=$(comm -13 <(echo "$before") <(echo "$after") | sed "s#^#$dir/testdata/fuzz/$name/#" | tr '\n' ' ')
    echo "$line  FAIL ${added:-(no new input file; see log)} log: $log"
    grep -m3 -E 'panic:|--- FAIL|Error|error' "$log" | sed 's/^/    /'
  fi
done <<<"$targets"
exit $failed
