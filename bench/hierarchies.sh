#!/bin/sh
# The data-side probes (dcache, caches) on random simulated hierarchies:
# an L1D and an L2 of odd sizes and ways (2 to 20), lines of 32 to 256
# bytes, LRU, tree-PLRU or random replacement, an L3 behind them or not,
# with and without page colouring and noise.  Where pages have colours
# (a hypervisor's random host pages), the L1D is indexed within a page,
# as every real L1D is (its ways at most a page each).  Each machine's truth is its
# OS view; a value is established when xray confirms it and it is the
# truth (sizes beyond the L1D within 10 %, latencies within 10 %, the rest
# exact), and WRONG when it is confirmed and is not.  Prints every machine
# that got a value wrong, with the values, then the counts and the share
# established.  Deterministic: machine i is the same in every run.
#
# Usage: bench/hierarchies.sh [-x XRAY] [-n MACHINES] [-f FIRST] [-j JOBS] [-v]
#   -n: how many machines (default 200), from number FIRST (default 1)
#   -j: machines run at once (default 2)
#   -v: every machine's line, not only the wrong ones
xray=./xray
n=200
first=1
jobs=2
verbose=
while getopts x:n:f:j:v o; do
  case $o in
    x) xray=$OPTARG ;;
    n) n=$OPTARG ;;
    f) first=$OPTARG ;;
    j) jobs=$OPTARG ;;
    v) verbose=yes ;;
    *) sed -n '2,16s/^# \{0,1\}//p' "$0"; exit 2 ;;
  esac
done
for v in "$n" "$first" "$jobs"; do
  case $v in '' | *[!0-9]*) echo "$0: -n, -f and -j take whole numbers" >&2; exit 2 ;; esac
done
# tests/lib.sh: the temporary folder (removed on every exit) and par.
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
. "$top_srcdir/tests/lib.sh"

# spec I: machine I's spec.
spec() {
  awk -v i="$1" 'function pick(n) { return int(rand() * n) }
    function level(min, max, lmin, span,   sets, size) {
      do {
        line = lines[lmin + pick(5 - lmin)]; ways = wl[pick(nw)]
        sets = 2 ^ pick(13); size = sets * ways * line
      } while (size < min || size > max || size % 1024 || (span && sets * line > span))
      return size }
    BEGIN { srand(i * 7919 + 13)
      split("32 64 128 256", lines, " "); nw = split("2 3 4 5 6 7 8 9 10 11 12 14 16 20", wl, " ")
      for (k = 1; k <= nw; k++) wl[k - 1] = wl[k]
      pol[0] = ""; pol[1] = ":plru"; pol[2] = ":random"
      # Page colours (colour=4K) stand for a hypervisor'"'"'s random host pages;
      # an L1D is indexed within the page then, as every real one is.
      colour = pick(2)
      l1 = level(8192, 98304, 1, colour ? 4096 : 0); l1line = line; l1ways = ways
      # The L2: 4 to 64 times the L1D, lines no shorter than the L1D'"'"'s.
      lm = l1line == 32 ? 1 : l1line == 64 ? 2 : l1line == 128 ? 3 : 4
      l2 = level(4 * l1, 64 * l1, lm, 0); l2line = line; l2ways = ways
      s = sprintf("l1d=%dK:%d:%d%s,l2=%dK:%d:%d%s", l1 / 1024, l1ways, l1line, pol[pick(4) == 0 ? 1 + pick(2) : 0],
                  l2 / 1024, l2ways, l2line, pol[pick(4) == 0 ? 1 : 0])
      if (pick(2)) {
        do { l3 = 1048576 * (2 + pick(31)); w3 = 8 + 2 * pick(7) } while (l3 < 3 * l2 || l3 % (w3 * l2line * 1024))
        s = s sprintf(",l3=%dM:%d:%d", l3 / 1048576, w3, l2line)
      }
      if (colour) s = s ",colour=4K"
      noise = pick(4)
      s = s sprintf(",noise=%d,seed=%d", noise, i)
      print s }'
}

# judge FILE: NAME VALUE TRUTH VERDICT lines from xray's JSON output.
judge() {
  awk '/"name": "/ { n = $0; sub(/.*"name": "/, "", n); sub(/".*/, "", n)
                     v = $0; sub(/.*"value": /, "", v); sub(/,.*/, "", v); next }
       n != "" && /"os": / {
         t = $0; sub(/.*"os": /, "", t)
         if (t ~ /^\{"value": /) { sub(/^\{"value": /, "", t); sub(/,.*/, "", t) } else t = ""
         c = $0 ~ /"confirmed": true/
         if (t != "") {
           tol = 0; if (n ~ /^XRAY_L[2-9]_SIZE$/ || n ~ /_LATENCY$/) tol = 0.10
           if (v == "null") verdict = "unknown"
           else if (!c) verdict = "unconfirmed"
           else { d = v - t; if (d < 0) d = -d; verdict = d <= tol * t ? "established" : "WRONG" }
           print n, v, t, verdict
         }
         n = "" }' "$1"
}

one() {
  s=$(spec "$1")
  "$xray" --simulate="$s" --format=json dcache caches >"$tmp/$1.json" 2>"$tmp/$1.err"
  judge "$tmp/$1.json" >"$tmp/$1.v"
  echo "$s" >"$tmp/$1.spec"
}

# JOBS machines at a time (tests/lib.sh's par: the next starts as soon as
# any ends).
par_jobs=$jobs
i=$first
last=$((first + n - 1))
while [ "$i" -le "$last" ]; do
  par one "$i"
  i=$((i + 1))
done
par_wait
i=$first
while [ "$i" -le "$last" ]; do
  if [ -n "$verbose" ] || grep -q WRONG "$tmp/$i.v"; then
    printf '%d %s:' "$i" "$(cat "$tmp/$i.spec")"
    awk '{ printf " %s=%s%s", substr($1, 6), $2, $4 == "WRONG" ? "(WRONG, truth " $3 ")" : $4 == "established" ? "" : "(" $4 ")" }' "$tmp/$i.v"
    echo
  fi
  cat "$tmp/$i.v" >>"$tmp/all"
  i=$((i + 1))
done
awk -v m="$n" '{ c[$4]++; t++; if ($4 == "WRONG") { w[$1]++ } }
     END { printf "%d machines, %d values with a truth: %d established (%.1f %%), %d unconfirmed, %d unknown, %d WRONG\n",
             m, t, c["established"], t ? 100 * c["established"] / t : 0, c["unconfirmed"], c["unknown"], c["WRONG"]
           for (k in w) printf "  wrong %s: %d\n", k, w[k] }' "$tmp/all"
