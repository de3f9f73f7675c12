#!/bin/sh
# How long make check takes, and where: runs it (or reads a finished run)
# in the build tree DIR and lists its tests by the time each took, from
# the result files the test driver writes.  Serially (make check), a
# test's time is the gap between its result file and the one before; with
# -j, tests overlap and only the whole suite's time is shown.  Numbers,
# not pass/fail.
#
# Usage: bench/check-times.sh [-d DIR] [-j JOBS] [-n TOP] [-r]
#   -d DIR: the configured build tree (default .)
#   -j JOBS: make -jJOBS check (default 1)
#   -n TOP: the slowest TOP tests (default 10)
#   -r: read the last run's result files instead of running make check
# make check's own output goes to DIR/check-times.out.
dir=. jobs=1 top=10 run=yes
while getopts d:j:n:r o; do
  case $o in
    d) dir=$OPTARG ;;
    j) jobs=$OPTARG ;;
    n) top=$OPTARG ;;
    r) run= ;;
    *) echo "usage: $0 [-d DIR] [-j JOBS] [-n TOP] [-r]" >&2; exit 2 ;;
  esac
done
for v in "$jobs" "$top"; do
  case $v in '' | *[!0-9]* | 0) echo "$0: -j and -n take a whole number above 0, not '$v'" >&2; exit 2 ;; esac
done
[ -f "$dir/Makefile" ] || { echo "$0: $dir is not a configured build tree (no Makefile): run ./configure there" >&2; exit 2; }
cd "$dir" || exit 2
if [ -n "$run" ]; then
  # The programs are built first, so that the first test's time is its own.
  make -j"$jobs" check TESTS= >/dev/null 2>&1
  start=$(date +%s)
  make -j"$jobs" check >check-times.out 2>&1
  status=$?
  end=$(date +%s)
  echo "make -j$jobs check: $((end - start)) s, exit $status"
else
  start=$(find . -name '*.trs' -exec stat -c %Y {} + | sort -n | head -n 1)
  end=$(stat -c %Y test-suite.log 2>/dev/null || echo "$start")
  echo "last run: about $((end - start)) s from the first result to the summary (the first test's own time not counted)"
fi
awk '/^# (TOTAL|PASS|SKIP|FAIL|ERROR):/ { printf "%s %s  ", $2, $3 } END { print "" }' test-suite.log
[ "$jobs" -eq 1 ] || exit 0
echo "slowest $top (seconds, test):"
find . -name '*.trs' -newermt "@$((start - 1))" -exec stat -c '%Y %n' {} + 2>/dev/null | sort -n |
  awk -v s="$start" '{ t = $1 - (NR == 1 ? s : prev); prev = $1; n = $2; sub(/^\.\//, "", n); sub(/\.trs$/, "", n); print t, n }' |
  sort -rn | head -n "$top"
