#!/bin/sh
# What xray --plot costs beyond the probes: this machine is recorded once
# (every probe, one run), then the recording is replayed with and without
# --plot, N times each, and the difference of the medians is printed, with
# what was drawn.  A replay answers from the recording, so the difference
# is the drawing alone.
#   sh bench/plot.sh [-n N]
set -e
xray=${XRAY:-./xray}
n=5
[ "$1" = -n ] && n=$2
dir=$(mktemp -d "${TMPDIR:-/tmp}/xray-plot.XXXXXX")
trap 'rm -rf "$dir"' 0
trap 'rm -rf "$dir"; exit 130' 1 2 15
"$xray" --record="$dir/rec" --repeat=1 >/dev/null 2>&1 || true
now() { date +%s.%N; }
i=0
while [ $i -lt "$n" ]; do
  t0=$(now)
  "$xray" --replay="$dir/rec" >/dev/null 2>&1 || true
  t1=$(now)
  rm -rf "$dir/p"
  "$xray" --replay="$dir/rec" --plot="$dir/p" >/dev/null 2>&1 || true
  t2=$(now)
  echo "$t0 $t1 $t2" | awk '{ printf "%.3f %.3f\n", $2 - $1, $3 - $2 }'
  i=$((i + 1))
done >"$dir/times"
a=$(sort -n "$dir/times" | awk -v n="$n" 'NR == int((n + 1) / 2) { print $1 }')
b=$(sort -n -k2 "$dir/times" | awk -v n="$n" 'NR == int((n + 1) / 2) { print $2 }')
echo "$a $b $n" | awk '{ printf "replay %.3f s, with --plot %.3f s (medians of %d): the plots take %.3f s\n", $1, $2, $3, $2 - $1 }'
echo "files: $(ls "$dir/p" | tr '\n' ' ')"
echo "marks: $(grep -c ' edge ' "$dir/p/plots.txt") found edges, $(grep -c ' os ' "$dir/p/plots.txt") OS views"
