#!/bin/sh
# from-trace.sh DIR VENDOR FAMILY MODEL NAME TICK_MHZ TRACE...
# Make a recording for `xray --replay` out of traces that `xray --trace`
# wrote before recordings existed (main at e513052).  Their kernel labels
# did not yet name every layout, so only the points whose label was already
# unambiguous are kept: icache's loops, the caches probe's page chases,
# the clock and the CPU pairs.  The rest (dcache and tlb strides, line
# pairs, conflict sets, operations) is dropped, and those probes answer
# "unknown" on replay.
#
# The traces printed x rounded to a whole page, so the caches scan's
# fractions of a page read 0 or 1.  The scan visits its grid in order
# (K_MIN r^i pages, r = 2^(1/6), rounded to a line below a page and to a
# page above, repeats skipped) with two draws a point, and no later step
# draws again below two pages; so the n-th pair of such lines is the n-th
# grid point, and its x is restored from the grid.  A line whose rounded
# x disagrees with the grid's stops the script.
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
  awk -F, -v OFS=, '
    FNR == 1 { n = 0; i = 0; x = 0 }    # each trace is a scan of its own
    $1 == "caches" && $2 == "chase-pages" && $3 < 2 {
      if (n % 2 == 0)           # the next grid point: two draws each
        do {
          g = 0.125 * 2 ^ (i / 6); i++
          g = g < 1 ? int(g * 64 + 0.5) / 64 : int(g + 0.5)
        } while (g <= x)
      x = g
      n++
      r = sprintf("%.0f", x)
      if (r != $3) {
        printf "from-trace.sh: %s line %d: x %s, but the grid gives %g\n", FILENAME, FNR, $3, x >"/dev/stderr"
        exit 1
      }
      $3 = x
      print
      next
    }
    $1 == "icache" || $1 == "freq" || $1 == "cores" || ($1 == "caches" && $2 == "chase-pages")' "$@"
} >"$dir/points.csv"
