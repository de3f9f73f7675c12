#!/bin/sh
# What replaying recordings establishes: for each recording (a folder made
# by `xray --record`), every published figure of its CPU
# (tests/data/cpus.tsv) whose probe's points it holds, as xray answers it
# from the recording: established (confirmed and right, within
# tests/lib.sh's tolerance), unconfirmed, unknown or WRONG (confirmed, not
# the figure); then the share established, per recording and in all.
# Numbers, not pass/fail (tests/replay.test holds the pass/fail rules).
#
# Usage: bench/replay.sh [-x XRAY] [-v] [DIR...]
#   default DIR: every folder of tests/data/machines
#   -v: the reason beside each value not established
xray=./xray
verbose=
while getopts x:v o; do
  case $o in
    x) xray=$OPTARG ;;
    v) verbose=yes ;;
    *) sed -n '2,12s/^# \{0,1\}//p' "$0"; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
top_srcdir=$(cd "$(dirname "$0")/.." && pwd)
. "$top_srcdir/tests/lib.sh"
[ $# -gt 0 ] || set -- "$top_srcdir"/tests/data/machines/*/
: >"$tmp/sum"
for rec in "$@"; do
  rec=${rec%/}
  [ -f "$rec/points.csv" ] || { echo "$0: $rec holds no points.csv (not a recording)" >&2; continue; }
  cpuinfo=$rec/cpuinfo
  : >"$tmp/all"
  for p in $(recorded_probes "$rec"); do
    "$xray" --replay="$rec" --format=shell "$p" >>"$tmp/all" 2>/dev/null
  done
  e=0 t=0 w=0 line=
  for name in $(names_published); do
    grep -q "^$name=\|^# $name " "$tmp/all" || continue
    t=$((t + 1))
    set -- $(verdict "$name" "$tmp/all")
    case $1 in
      established) e=$((e + 1)); s=ok ;;
      wrong) w=$((w + 1)); s=WRONG ;;
      unconfirmed) s=unconfirmed ;;
      *) s=unknown ;;
    esac
    line="$line ${name#XRAY_}:$s${2:+=$2}"
    if [ -n "$verbose" ] && [ "$s" != ok ]; then
      r=$(sed -n "s/^# $name unknown: //p; s/^# $name unconfirmed: //p" "$tmp/all" | head -1)
      line="$line [${r:-no reason given}]"
    fi
  done
  printf '%-18s %2d of %2d established, %d WRONG:%s\n' "${rec##*/}" $e $t $w "$line"
  echo "$e $t $w" >>"$tmp/sum"
done
awk '{ e += $1; t += $2; w += $3 }
     END { printf "all: %d of %d established (%.0f %%), %d confirmed wrong\n", e, t, t ? 100 * e / t : 0, w }' "$tmp/sum"
