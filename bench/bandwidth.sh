#!/bin/sh
# xray's bandwidth per level beside likwid-bench's, run one after the other
# in this script over the same footprints, at the same vector width.
#
#   sh bench/bandwidth.sh [-n RUNS] [-f CFLAGS] [XRAY]
#
# For every value xray measured (XRAY_BW_*), likwid-bench runs the kernel
# of the same width (load/store/copy/stream, _sse, _avx or _avx512 after
# XRAY_BW_WIDTH) over the footprint xray used (its method says it), on one
# core (-w S0:SIZE:1) or every usable one.  Prints each pair in GB/s and
# their ratio, per run; then per value the ratio's median and xray's
# spread (max/min - 1) over the runs.  likwid-bench counts bytes as xray
# does (what the loads and stores name), in MB of 1e6 bytes.
set -u
runs=3
cflags=
while getopts n:f: o; do
  case $o in
  n) runs=$OPTARG ;;
  f) cflags=$OPTARG ;;
  *) echo "usage: $0 [-n RUNS] [-f CFLAGS] [XRAY]" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
xray=${1:-./xray}
command -v likwid-bench >/dev/null 2>&1 || {
  echo "$0: likwid-bench is not installed (Debian: apt-get install likwid)" >&2
  exit 1
}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT HUP INT TERM

i=1
while [ "$i" -le "$runs" ]; do
  if [ -n "$cflags" ]; then
    "$xray" --cflags="$cflags" --format=json bandwidth >"$tmp/x.json" || exit 1
  else
    "$xray" --format=json bandwidth >"$tmp/x.json" || exit 1
  fi
  width=$(sed -n 's/.*"XRAY_BW_WIDTH", "value": \([0-9]*\),.*/\1/p' "$tmp/x.json")
  case $width in
  16) suf=_sse ;; 32) suf=_avx ;; 64) suf=_avx512 ;;
  *) echo "$0: no likwid-bench kernel of width ${width:-unknown}" >&2; exit 1 ;;
  esac
  # name, GB/s, method: one value a line.
  awk '
    /"name": "XRAY_BW_(L[0-9]|MEM)_/ {
      name = $0; sub(/.*"name": "/, "", name); sub(/".*/, "", name)
      g = $0; if (g !~ /"gb_per_s"/) { name = ""; next }
      sub(/.*"gb_per_s": /, "", g); sub(/[,}].*/, "", g)
      getline; getline
      while ($0 !~ /"method"/ && (getline) > 0) ;
      meth = $0; sub(/.*"method": "/, "", meth)
      print name, g, meth
    }' "$tmp/x.json" >"$tmp/vals"
  while read -r name gbs meth; do
    case $name in
    *_WRITE_NT*) continue ;;
    *_READ*) k=load ;; *_WRITE*) k=store ;; *_COPY*) k=copy ;; *_TRIAD*) k=stream ;;
    *) continue ;;
    esac
    bytes=$(echo "$meth" | sed -n 's/.*arrays of \([0-9]*\) bytes.*/\1/p')
    threads=$(echo "$meth" | sed -n 's/^[a-z-]*, \([0-9]*\) thread.*/\1/p')
    [ -n "$bytes" ] && [ -n "$threads" ] || continue
    kb=$((bytes * threads / 1024))
    lk=$(likwid-bench -t "$k$suf" -w "S0:${kb}kB:$threads" 2>/dev/null |
      awk '/^MByte\/s:/ { print $2 / 1000 }')
    [ -n "$lk" ] || lk=nan
    printf '%d %-26s %10.1f %10s %8s\n' "$i" "$name" "$gbs" "$lk" \
      "$(awk -v a="$gbs" -v b="$lk" 'BEGIN { if (b + 0 > 0) printf "%.3f", a / b; else print "-" }')"
  done <"$tmp/vals" >>"$tmp/rows"
  i=$((i + 1))
done

printf '%-4s %-26s %10s %10s %8s\n' run value xray-GB/s likwid-GB/s ratio
cat "$tmp/rows"
echo
printf '%-26s %8s %8s %8s\n' value ratio-med xray-spr n
sort -k2,2 -k5,5n "$tmp/rows" | awk '
  { n[$2]++; r[$2, n[$2]] = $5; x = $3 + 0
    if (!($2 in lo) || x < lo[$2]) lo[$2] = x; if (x > hi[$2]) hi[$2] = x }
  END { for (v in n) { m = r[v, int((n[v] + 1) / 2)]
          printf "%-26s %8s %7.1f%% %8d\n", v, m, (lo[v] > 0 ? 100 * (hi[v] / lo[v] - 1) : 0), n[v] } }' |
  sort
