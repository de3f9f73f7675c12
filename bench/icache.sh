#!/bin/sh
# Accuracy, stability and run time of 'xray icache': 10 runs on a quiet
# machine, then 10 with the other CPU busy.  Prints each result beside the
# OS view.  Numbers, not pass/fail.  Usage: bench/icache.sh [XRAY] [RUNS]
xray=${1:-./xray}
runs=${2:-10}
pin=
os=
for d in /sys/devices/system/cpu/cpu0/cache/index*; do
  [ "$(cat "$d/level" 2>/dev/null)" = 1 ] && [ "$(cat "$d/type" 2>/dev/null)" = Instruction ] &&
    os=$(cat "$d/size")
done
hog=
trap '[ -n "$hog" ] && kill $hog 2>/dev/null' 0 1 2 15

series() {
  i=1
  while [ $i -le "$runs" ]; do
    t0=$(date +%s.%N)
    out=$($pin "$xray" --format=shell icache)
    t1=$(date +%s.%N)
    l1i=$(echo "$out" | sed -n 's/^XRAY_L1I_SIZE=//p')
    uop=$(echo "$out" | sed -n 's/^XRAY_UOP_CACHE_OPS=//p')
    printf '%-6s %2d  L1I %7s  op cache %5s  (OS L1I %s)  %.2f s\n' "$1" $i "${l1i:-unknown}" \
      "${uop:-unknown}" "${os:-none}" "$(echo "$t1 - $t0" | awk '{ print $1 - $3 }')"
    i=$((i + 1))
  done
}

series quiet
# The other CPU busy: a spinning process pinned away from the one we use.
if command -v taskset >/dev/null 2>&1 && [ "$(nproc)" -ge 2 ]; then
  taskset -c 1 sh -c 'while :; do :; done' & hog=$!
  pin="taskset -c 0"
else
  sh -c 'while :; do :; done' & hog=$!
fi
series busy
