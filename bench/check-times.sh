#!/bin/sh
# How long make check takes, and where: runs it (or reads a finished run)
# in the build tree DIR and lists its tests by the time each took, from
# the result files the test driver writes.  Serially (make check), a
# test's time is the gap between its result file and the one before; with
# -j, tests overlap and only the whole suite's time is shown.  Numbers,
# not pass/fail.
#
# With -c, each test's CPU time is taken too (user and system seconds of
# the processes it waited for), and the tests that took the most are
# listed with the whole suite's: with -j the CPUs' time, not the tests'
# order, bounds the suite's.
#
# Usage: bench/check-times.sh [-d DIR] [-j JOBS] [-n TOP] [-r] [-c]
#   -d DIR: the configured build tree (default .)
#   -j JOBS: make -jJOBS check (default 1)
#   -n TOP: the slowest TOP tests (default 10)
#   -r: read the last run's result files instead of running make check
#   -c: CPU seconds per test too (a run's .cpu files, kept beside .trs)
# make check's own output goes to DIR/check-times.out.
dir=. jobs=1 top=10 run=yes cpu=
while getopts d:j:n:rc o; do
  case $o in
    d) dir=$OPTARG ;;
    j) jobs=$OPTARG ;;
    n) top=$OPTARG ;;
    r) run= ;;
    c) cpu=yes ;;
    *) echo "usage: $0 [-d DIR] [-j JOBS] [-n TOP] [-r] [-c]" >&2; exit 2 ;;
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
  if [ -n "$cpu" ]; then
    # The wrapper runs a test as the harness starts it (by its path in
    # the tree, as in-tree builds give it) and then writes its children's
    # times (the shell's times builtin) into TEST.cpu beside TEST.trs.  It
    # opens nothing while the test runs: a file open then would take the
    # lowest free descriptor, the one a make inside the test reads as
    # make -j's job pipe.
    find tests -name '*.cpu' -exec rm -f {} + 2>/dev/null
    w=$(pwd)/check-times.wrap
    printf '#!/bin/sh\n"$@"\nrc=$?\ntimes >"${1%%.test}.cpu"\nexit $rc\n' >"$w"
    chmod +x "$w"
    make -j"$jobs" check LOG_COMPILER="$w" TEST_LOG_COMPILER="$w" >check-times.out 2>&1
  else
    make -j"$jobs" check >check-times.out 2>&1
  fi
  status=$?
  end=$(date +%s)
  echo "make -j$jobs check: $((end - start)) s, exit $status"
else
  start=$(find . -name '*.trs' -exec stat -c %Y {} + | sort -n | head -n 1)
  end=$(stat -c %Y test-suite.log 2>/dev/null || echo "$start")
  echo "last run: about $((end - start)) s from the first result to the summary (the first test's own time not counted)"
fi
awk '/^# (TOTAL|PASS|SKIP|FAIL|ERROR):/ { printf "%s %s  ", $2, $3 } END { print "" }' test-suite.log
if [ -n "$cpu" ]; then
  echo "most CPU (user + system seconds, test):"
  # The second line of times: the children's user and system time, as
  # 1m2.345s 0m0.678s.
  find tests -name '*.cpu' -exec awk 'FNR == 2 { n = FILENAME; sub(/^\.\//, "", n); sub(/\.cpu$/, "", n)
    t = 0; for (i = 1; i <= 2; i++) { split($i, a, /[ms]/); t += 60 * a[1] + a[2] }
    printf "%.1f %s\n", t, n }' {} + | sort -rn |
    awk -v top="$top" '{ s += $1 } NR <= top { print } END { printf "all tests: %.0f CPU seconds\n", s }'
fi
[ "$jobs" -eq 1 ] || exit 0
echo "slowest $top (seconds, test):"
find . -name '*.trs' -newermt "@$((start - 1))" -exec stat -c '%Y %n' {} + 2>/dev/null | sort -n |
  awk -v s="$start" '{ t = $1 - (NR == 1 ? s : prev); prev = $1; n = $2; sub(/^\.\//, "", n); sub(/\.trs$/, "", n); print t, n }' |
  sort -rn | head -n "$top"
