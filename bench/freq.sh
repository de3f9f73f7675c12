#!/bin/sh
# Accuracy, stability and run time of 'xray freq' against an independent
# measure of the core clock (tests/live/mhz.c: an inline-asm add chain
# timed with clock_gettime), over repeated rounds.  Each round runs, on
# the first and on the last CPU of this shell's affinity mask in turn,
# the reference, xray freq and the reference again, all three bound to
# that CPU with taskset.  A line per run: the CPU, the two references
# (clock, median burst), xray's value and status, its wall time
# and its ratio to the nearer end of the references' span (1 inside it).
# A run is steady where, as in tests/live/freq.test, each reference's
# median burst is within 1 % of its clock, the two references are
# within 1 % of each other and xray confirmed its value.  At the end, for
# steady runs: the ratio's range and median and how many lie within 0.5 %;
# for each CPU: the median of its references (CPUs can run at clocks some
# per cent apart).  Numbers, not pass/fail.
#
# Usage: bench/freq.sh [-x XRAY] [-n ROUNDS] [-C CC]
xray=./xray
rounds=10
cc=${CC:-cc}
while getopts x:n:C: o; do
  case $o in
    x) xray=$OPTARG ;;
    n) case $OPTARG in *[!0-9]* | "") echo "$0: -n takes a whole number of rounds" >&2; exit 2 ;; esac
       rounds=$OPTARG ;;
    C) cc=$OPTARG ;;
    *) sed -n '2,17s/^# \{0,1\}//p' "$0"; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
[ $# -eq 0 ] || { echo "usage: $0 [-x XRAY] [-n ROUNDS] [-C CC]" >&2; exit 2; }
command -v taskset >/dev/null 2>&1 || { echo "$0: needs taskset (util-linux)" >&2; exit 1; }
cpus=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status)
[ -n "$cpus" ] || { echo "$0: no Cpus_allowed_list in /proc/self/status" >&2; exit 1; }
lo_cpu=${cpus%%[-,]*} hi_cpu=${cpus##*[-,]}
src=$(dirname "$0")/../tests/live/mhz.c
tmp=$(mktemp -d "${TMPDIR:-/tmp}/xray-freq.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' 0
trap 'exit 130' 1 2 15
"$cc" -O2 -o "$tmp/mhz" "$src" || { echo "$0: cannot build $src" >&2; exit 1; }

echo "$("$xray" --version | head -n 1); $(grep -m 1 'model name' /proc/cpuinfo | sed 's/.*: //'); CPUs $cpus"
printf '%-5s %-4s %-16s %-16s %-8s %-11s %-6s %s\n' round cpu "before(fast/med)" "after(fast/med)" xray status secs ratio
r=1
while [ "$r" -le "$rounds" ]; do
  for cpu in $lo_cpu $hi_cpu; do
    before=$(taskset -c "$cpu" "$tmp/mhz")
    t0=$(date +%s.%N)
    taskset -c "$cpu" "$xray" --format=shell freq >"$tmp/out" 2>/dev/null
    t1=$(date +%s.%N)
    after=$(taskset -c "$cpu" "$tmp/mhz")
    x=$(sed -n 's/^XRAY_CPU_MHZ=//p' "$tmp/out")
    grep -q '^# XRAY_CPU_MHZ unconfirmed' "$tmp/out" && st=unconfirmed || st=confirmed
    echo "$r $cpu $before $after ${x:-0} $st $t0 $t1"
    [ "$lo_cpu" = "$hi_cpu" ] && break
  done
  r=$((r + 1))
done | awk '
  { b = $3; mb = $4; a = $5; ma = $6; x = $7; lo = a < b ? a : b; hi = a < b ? b : a
    steady = $8 == "confirmed" && hi <= 1.01 * lo && mb >= 0.99 * b && ma >= 0.99 * a
    ratio = x < lo ? x / lo : x > hi ? x / hi : 1
    printf "%-5s %-4s %-16s %-16s %-8s %-11s %-6.2f %.4f%s\n", $1, $2, b "/" mb, a "/" ma, x,
           steady ? "steady" : ($8 == "confirmed" ? "ref-moved" : "unconfirmed"), $10 - $9, ratio,
           steady && (ratio < 0.995 || ratio > 1.005) ? " OUTSIDE 0.5%" : ""
    ref[$2, ++nref[$2]] = b; ref[$2, ++nref[$2]] = a; if (!($2 in seen)) { seen[$2] = 1; order[++nc] = $2 }
    secs += $10 - $9; runs++
    if (steady) { s[++ns] = ratio; if (ratio >= 0.995 && ratio <= 1.005) within++ } }
  function median(v, n,   i, j, t) {
    for (i = 2; i <= n; i++) for (j = i; j > 1 && v[j - 1] > v[j]; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
    return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2 }
  END {
    printf "runs %d, steady %d; xray freq %.2f s a run on average\n", runs, ns, runs ? secs / runs : 0
    if (ns) { m = median(s, ns); printf "steady runs: ratio %.4f-%.4f, median %.4f; %d of %d within 0.5 %%\n", s[1], s[ns], m, within, ns }
    for (c = 1; c <= nc; c++) { k = order[c]; n = nref[k]; for (i = 1; i <= n; i++) v[i] = ref[k, i]
      printf "CPU %s: reference median %.1f MHz over %d readings\n", k, median(v, n), n } }'
