#!/bin/sh
# from-trace.sh DIR VENDOR FAMILY MODEL NAME TICK_MHZ TRACE...
# Make a recording for `xray --replay` out of traces that `xray --trace`
# wrote before recordings existed (main at e513052).  Their kernel labels
# did not yet name every layout, so only the points whose label was already
# unambiguous are kept: icache's loops, the caches probe's page chases of
# two pages or more (smaller fractions were rounded), the clock and the
# CPU pairs.  The rest (dcache and tlb strides, line pairs, conflict sets,
# operations) is dropped, and those probes answer "unknown" on replay.
set -eu
[ $# -ge 7 ] || { echo "usage: $0 DIR VENDOR FAMILY MODEL NAME TICK_MHZ TRACE..." >&2; exit 2; }
dir=$1 vendor=$2 family=$3 model=$4 name=$5 mhz=$6
shift 6
mkdir -p "$dir"
printf 'vendor_id\t: %s\ncpu family\t: %s\nmodel\t\t: %s\nmodel name\t: %s\n' \
  "$vendor" "$family" "$model" "$name" >"$dir/cpuinfo"
core=$(awk -F, '$1 == "freq" && $4 > m { m = $4 } END { printf "%.0f", m * 1e6 }' "$@")
printf '# xray recording made from traces by from-trace.sh\ntick_hz %.0f\ncore_hz %s\npage 4096\ncpus 0 1\n' \
  "$(awk -v m="$mhz" 'BEGIN { print m * 1e6 }')" "$core" >"$dir/machine"
{
  echo "probe,kernel,x,cycles"
  awk -F, '$1 == "icache" || $1 == "freq" || $1 == "cores" ||
           ($1 == "caches" && $2 == "chase-pages" && $3 >= 2)' "$@"
} >"$dir/points.csv"
