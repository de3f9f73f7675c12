#!/bin/sh
# Record this host for tests/data/machines in one command: NAME, a quiet
# run (xray --record --repeat=5), and NAME-busy, with the other CPU
# streaming through 32 MB for the whole run (dd from /dev/zero, a
# neighbour that takes the shared cache) and xray pinned to the first CPU
# (--repeat=3).  Probes: icache dcache caches tlb freq cores branch lru.
# Each folder gets a `known` file: the published figures of this CPU
# (tests/data/cpus.tsv) that replaying the recording establishes; those it
# does not are printed with xray's reasons, to be named in
# tests/data/machines/README (under "Values left out") or fixed.  An
# existing folder is never overwritten.
#
# Usage: bench/record.sh [-x XRAY] [-o DIR] [-q] NAME
#   -o DIR: where the folders go (default tests/data/machines)
#   -q: the quiet recording only
xray=./xray
out=
quiet_only=
while getopts x:o:q o; do
  case $o in
    x) xray=$OPTARG ;;
    o) out=$OPTARG ;;
    q) quiet_only=yes ;;
    *) sed -n '2,16s/^# \{0,1\}//p' "$0"; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
[ $# -eq 1 ] || { echo "usage: $0 [-x XRAY] [-o DIR] [-q] NAME" >&2; exit 2; }
case $1 in
  '' | *[!A-Za-z0-9._-]* | -*) echo "$0: NAME '$1': letters, digits, '.', '_' and '-' only" >&2; exit 2 ;;
esac
name=$1
top_srcdir=$(cd "$(dirname "$0")/.." && pwd)
out=${out:-$top_srcdir/tests/data/machines}
probes="icache dcache caches tlb freq cores branch lru"
. "$top_srcdir/tests/lib.sh"
hog=
trap '[ -n "$hog" ] && kill $hog 2>/dev/null; rm -rf "$tmp"' 0
trap 'exit 130' 1 2 15

[ -d "$out" ] || { echo "$0: $out is not a folder" >&2; exit 1; }
for d in "$name" ${quiet_only:-"$name-busy"}; do
  if [ -e "$out/$d" ]; then
    echo "$0: $out/$d exists; give another NAME or remove it" >&2
    exit 1
  fi
done

# known DIR: write DIR/known from a replay of DIR; print what is lost.
known() {
  dir=$1
  cpuinfo=$dir/cpuinfo
  : >"$tmp/all"
  for p in $(recorded_probes "$dir"); do
    "$xray" --replay="$dir" --format=shell "$p" >>"$tmp/all" 2>/dev/null
  done
  {
    echo "# Values the replay must establish: the published figures of this CPU"
    echo "# (tests/data/cpus.tsv) whose probes the recording holds, established"
    echo "# when bench/record.sh made the recording."
  } >"$dir/known"
  for n in $(names_published); do
    grep -q "^$n=\|^# $n " "$tmp/all" || continue
    v=$(verdict "$n" "$tmp/all")
    case $v in
      established*) echo "$n" >>"$dir/known" ;;
      *) echo "  lost: $n $v: $(sed -n "s/^# $n unknown: //p; s/^# $n unconfirmed: //p" \
           "$tmp/all" | head -1)" ;;
    esac
  done
  echo "$dir/known: $(grep -vc '^#' "$dir/known") published values established"
}

cpu0=$(awk '/^Cpus_allowed_list/ { split($2, a, /[,-]/); print a[1] }' /proc/self/status)
echo "recording $name: $probes, --repeat=5, quiet"
if ! "$xray" --record="$out/$name" --repeat=5 --format=shell $probes >"$tmp/quiet.out"; then
  echo "$0: xray --record failed" >&2
  exit 1
fi
known "$out/$name"
[ -n "$quiet_only" ] && exit 0

if [ "$(nproc)" -lt 2 ] || ! command -v taskset >/dev/null 2>&1; then
  echo "$0: no second CPU (or no taskset) to stream on: no busy recording" >&2
  exit 1
fi
other=$(taskset -c -p $$ | sed 's/.*: //' | tr ',' '\n' | sed 's/-.*//' | grep -vx "$cpu0" | head -1)
[ -n "$other" ] || other=1
taskset -c "$other" sh -c 'exec dd if=/dev/zero of=/dev/null bs=32M 2>/dev/null' &
hog=$!
echo "recording $name-busy: CPU $other streams through 32 MB, xray on CPU $cpu0, --repeat=3"
taskset -c "$cpu0" "$xray" --record="$out/$name-busy" --repeat=3 --format=shell $probes \
  >"$tmp/busy.out" || { echo "$0: xray --record failed (busy)" >&2; exit 1; }
kill $hog 2>/dev/null
hog=
known "$out/$name-busy"
