#!/bin/sh
# A consumer's configure with every AX_XRAY_* macro (tests/consumer's
# project, with the macros 'make install-data' installs), RUNS times from
# an empty cache: each run's wall seconds, the values config.h defines,
# the engine runs configure made (from config.log), and the mean time.
# The engine is built by the first run and reused by the later ones, as a
# consumer's configure run again reuses it (xray-probe.cmd); -b rebuilds
# it each time.  Numbers, not pass/fail.
#
# Usage: bench/consumer.sh [-n RUNS] [-b]     (from the build tree)
runs=3
rebuild=
while getopts n:b o; do
  case $o in
    n) case $OPTARG in *[!0-9]* | "" | 0) echo "$0: -n takes a whole number of runs" >&2; exit 2 ;; esac
       runs=$OPTARG ;;
    b) rebuild=yes ;;
    *) sed -n '2,9s/^# \{0,1\}//p' "$0"; exit 2 ;;
  esac
done
srcdir=$(cd "$(dirname "$0")/.." && pwd)
[ -f Makefile ] || { echo "$0: run it from a configured build tree (no Makefile here)" >&2; exit 2; }
for t in autoreconf automake autoconf; do
  command -v $t >/dev/null 2>&1 || { echo "$0: $t is not installed" >&2; exit 2; }
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/xray-consumer.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' 0
trap 'exit 130' 1 2 15

${MAKE:-make} install-data prefix="$tmp/inst" >"$tmp/install.log" 2>&1 ||
  { echo "$0: make install-data failed:" >&2; tail -n 5 "$tmp/install.log" >&2; exit 1; }
p=$tmp/project
mkdir -p "$p/m4"
for f in configure.ac Makefile.am; do
  sed -e 's|@INIT@||' -e 's|@MACRODIR@|m4|' -e 's|@EXTRA@||' "$srcdir/tests/consumer/$f" >"$p/$f"
done
cp "$srcdir/tests/consumer/main.c" "$srcdir/tests/consumer/hot.c" "$p/"
(cd "$p" && ACLOCAL_PATH="$tmp/inst/share/aclocal" autoreconf -i >autoreconf.log 2>&1) ||
  { echo "$0: autoreconf failed:" >&2; tail -n 5 "$p/autoreconf.log" >&2; exit 1; }

i=1
total=0
while [ "$i" -le "$runs" ]; do
  [ -n "$rebuild" ] && rm -f "$p/xray-probe" "$p/xray-probe.cmd"
  t0=$(date +%s.%N)
  (cd "$p" && ./configure >configure.out 2>&1) || { echo "$0: configure failed:" >&2; tail -n 5 "$p/configure.out" >&2; exit 1; }
  t1=$(date +%s.%N)
  s=$(awk "BEGIN { print $t1 - $t0 }")
  total=$(awk "BEGIN { print $total + $s }")
  printf 'run %d: %.1f s, %d values defined, %d engine runs\n' "$i" "$s" \
    "$(grep -c '^#define XRAY_' "$p/config.h")" "$(grep -c 'xray-probe.* --format=shell' "$p/config.log")"
  i=$((i + 1))
done
printf 'mean of %d: %.1f s\n' "$runs" "$(awk "BEGIN { print $total / $runs }")"
# The last run's closing summary (AX_XRAY_CONFIG_HEADER): what it left
# undefined.
sed -n 's/^configure: \(include\/xray_config.h: \|  \(unknown\|measured but\)\)/\1/p' "$p/configure.out"
