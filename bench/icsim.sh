#!/bin/sh
# The static I-cache simulator's speed against a trace-driven simulation of
# the same path (tests/unit/test-icsim N: a loop nest of N million
# references, in a cache it fits and in one it crowds), RUNS times; and
# the wall time of xray icsim on real functions (glibc's qsort.o, the
# test kernels at -O2) with a given cache.  Numbers, not pass/fail.
#
# Usage: bench/icsim.sh [-n RUNS] [-m MILLIONS]   (from the build tree)
runs=5
m=100
while getopts n:m: o; do
  case $o in
    n) runs=$OPTARG ;;
    m) m=$OPTARG ;;
    *) sed -n '2,8s/^# \{0,1\}//p' "$0"; exit 2 ;;
  esac
done
srcdir=$(dirname "$0")/..
[ -x tests/unit/test-icsim ] || make tests/unit/test-icsim >/dev/null || exit 1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/xray-bench.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' 0
trap 'exit 130' 1 2 15
i=1
while [ "$i" -le "$runs" ]; do
  tests/unit/test-icsim "$m"
  i=$((i + 1))
done | awk '{ k = $2; r = $(NF - 1); sub(/x$/, "", r); n[k]++; s[k] += r
              if (!(k in lo) || r < lo[k]) lo[k] = r; if (r > hi[k]) hi[k] = r }
            END { for (k in n) printf "%s static is %.1fx faster than the trace (%.1f-%.1f, %d runs)\n",
                                 k, s[k] / n[k], lo[k], hi[k], n[k] }'
libc=$(cc -print-file-name=libc.a 2>/dev/null)
if [ -f "$libc" ]; then
  (cd "$tmp" && ar x "$libc" qsort.o)
  t0=$(date +%s.%N)
  ./xray icsim --cache=32K:8:64 "$tmp/qsort.o" >/dev/null
  t1=$(date +%s.%N)
  echo "$t0 $t1" | awk '{ printf "xray icsim qsort.o (every function, 4 placements): %.3f s\n", $2 - $1 }'
fi
cc -O2 -c "$srcdir/tests/data/icsim/kernels.c" -o "$tmp/k.o" &&
  t0=$(date +%s.%N) && ./xray icsim --cache=32K:8:64 "$tmp/k.o" >/dev/null && t1=$(date +%s.%N) &&
  echo "$t0 $t1" | awk '{ printf "xray icsim kernels.o -O2 (every function): %.3f s\n", $2 - $1 }'
