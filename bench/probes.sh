#!/bin/sh
# Stability, agreement with the OS view and run time of xray probes over
# repeated runs: RUNS runs on a quiet machine, then RUNS with the other CPU
# busy (a spinning process pinned to CPU 1; xray binds itself to the CPU
# it starts on, which the scheduler picks among the idle ones, and its
# cores probe still sees every CPU).  For each value: the distinct
# results with their counts, and the OS view; for each probe: the wall time
# of 'xray PROBE' (process start and clock calibration included), mean and
# maximum, and the sum of the means; for values with an unrounded figure,
# its range over the runs.
# A value xray did not confirm is marked '?', and under each
# value that was unknown or unconfirmed, the reasons xray gave, counted.
# Then the confirmed values that contradict something: the published
# figure for this CPU (tests/data/cpus.tsv, within tests/lib.sh's
# tolerance), the OS view where xray flags a disagreement (a count at all,
# a capacity by 3 %; the view is named, since a hypervisor's CPUID can be
# the wrong side), or another run's confirmed value (counts and sizes as
# against the published figures; cycles, MHz and bytes per cycle by more
# than 10 %); and for each published figure, the runs that established it.
# Numbers, not pass/fail.
#
# Usage: bench/probes.sh [-x XRAY] [-b XRAY] [-n RUNS] [-c CFLAGS] [-q] [-t | -G] [-m MB] [-g SECONDS] PROBE...
#   e.g. bench/probes.sh -c '-O2 -march=native' freq latency throughput fma registers cores
#        bench/probes.sh dcache caches tlb
#   -q: quiet runs only.
#   -t: the probes together, one process a run (xray PROBE...), as a full
#      run has them: a probe then rests on what an earlier one measured,
#      and its seconds are its own share of the run; the whole process's
#      wall time follows.  Without -t each probe runs alone, measuring
#      what it rests on itself (bandwidth, sharing and interference: the
#      caches probe's levels).
#   -G: each probe alone, but what it rests on given (--given) from one
#      run of the dcache and caches probes by the same build before the
#      series: every probe's seconds are then its own work only, and
#      their sum is the least that probes run one a process can cost
#      without measuring anything twice.
#   -m MB: the busy CPU streams through MB megabytes instead of spinning
#      (dd from /dev/zero): a neighbour that takes the shared cache.
#   -b XRAY: a second build (before and after a change), run in turn with
#      the first, one run of each at a time, and reported after it: a
#      shared host's load moves within minutes, and two series run one
#      after the other would compare the hours, not the builds.
#   -g SECONDS: a pause before every run (default 0).  A process that
#      starts within seconds of another's exit gets the memory that one
#      freed without faulting it in again, where a guest's OS hands freed
#      large pages back to its host a while after: back to back, a run
#      that follows a hungrier one starts cheaper.  Linux reports freed
#      pages to its host 2 s after (free page reporting), so 3 s is past
#      that; the pause is not counted.
xray=./xray
xray_b=
runs=10
cflags=${CFLAGS:--O2}
busy=yes
stream=
together=
given=
gap=0
while getopts x:b:n:c:qm:tGg: o; do
  case $o in
    x) xray=$OPTARG ;;
    b) xray_b=$OPTARG ;;
    n) runs=$OPTARG ;;
    c) cflags=$OPTARG ;;
    q) busy= ;;
    t) together=yes ;;
    G) given=yes ;;
    g) case $OPTARG in *[!0-9.]* | "" | .) echo "$0: -g takes seconds, a number" >&2; exit 2 ;; esac
       gap=$OPTARG ;;
    m) case $OPTARG in *[!0-9]* | "") echo "$0: -m takes megabytes, a whole number" >&2; exit 2 ;; esac
       stream=$OPTARG ;;
    *) sed -n '2,43s/^# \{0,1\}//p' "$0"; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || { echo "usage: $0 [-x XRAY] [-b XRAY] [-n RUNS] [-c CFLAGS] [-q] [-t | -G] [-m MB] [-g SECONDS] PROBE..." >&2; exit 2; }
[ -z "$together" ] || [ -z "$given" ] || { echo "$0: -t and -G exclude each other (-G is for probes alone)" >&2; exit 2; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/xray-bench.XXXXXX") || exit 1
hog=
trap '[ -n "$hog" ] && kill $hog 2>/dev/null; rm -rf "$tmp"' 0
trap 'exit 130' 1 2 15

# series NAME: RUNS runs of every probe (with -t, RUNS runs of one process
# for them all); NAME VALUE OS lines in $tmp/NAME.v, NAME<tab>REASON lines
# in $tmp/NAME.r, PROBE SECONDS lines in $tmp/NAME.s (with -t, also
# '(whole-run) SECONDS' lines).  With -b, the second build's in turn,
# in $tmp/NAME.b.*.  With -G, each build's given values first, in
# $tmp/given.NAME (and given.NAME.b).
series() {
  s=$1
  shift
  for f in "$s" ${xray_b:+"$s.b"}; do
    : >"$tmp/$f.v"
    : >"$tmp/$f.r"
    : >"$tmp/$f.s"
    [ -n "$given" ] || continue
    case $f in *.b) x=$xray_b ;; *) x=$xray ;; esac
    "$x" --format=shell --cflags="$cflags" dcache caches >"$tmp/given.$f" 2>/dev/null ||
      { echo "$0: $x dcache caches failed: nothing to give (-G)" >&2; exit 1; }
  done
  i=1
  while [ "$i" -le "$runs" ]; do
    one "$xray" "$s" "$@"
    [ -z "$xray_b" ] || one "$xray_b" "$s.b" "$@"
    i=$((i + 1))
  done
}

# one XRAY NAME PROBE...: one run of the probes by XRAY into $tmp/NAME.*
one() {
  x=$1 name=$2
  shift 2
  for p in "$@"; do
    [ "$gap" = 0 ] || sleep "$gap"
    t0=$(date +%s.%N)
    if [ -n "$together" ]; then
      "$x" --format=json --cflags="$cflags" "$@" >"$tmp/out.json" 2>/dev/null
      t1=$(date +%s.%N)
      # each probe's own seconds in the run (the JSON's), then the run's wall
      awk '/"seconds": .*"probe": "/ { p = $0; sub(/.*"probe": "/, "", p); sub(/".*/, "", p)
             t = $0; sub(/.*"seconds": /, "", t); sub(/,.*/, "", t); if (!(p in seen)) { seen[p] = 1; print p, t } }' \
        "$tmp/out.json" >>"$tmp/$name.s"
      echo "$t0 $t1" | awk '{ printf "(whole-run) %.3f\n", $2 - $1 }' >>"$tmp/$name.s"
    else
      "$x" --format=json --cflags="$cflags" ${given:+"--given=$tmp/given.$name"} "$p" >"$tmp/out.json" 2>/dev/null
      t1=$(date +%s.%N)
      echo "$p $t0 $t1" | awk '{ printf "%s %.3f\n", $1, $3 - $2 }' >>"$tmp/$name.s"
    fi
    awk '/"name": "/ { n = $0; sub(/.*"name": "/, "", n); sub(/".*/, "", n);
                       v = $0; sub(/.*"value": /, "", v); sub(/,.*/, "", v);
                       u = $0; sub(/.*"unit": "/, "", u); sub(/".*/, "", u); gsub(/ /, "_", u);
                       e = "-"; if ($0 ~ /"exact": /) { e = $0; sub(/.*"exact": /, "", e); sub(/,.*/, "", e) }
                       next }
         n != "" && /"os": / { o = $0; sub(/.*"os": /, "", o); src = "-";
                       if (o ~ /^\{"value": /) { src = o; sub(/^\{"value": /, "", o); sub(/,.*/, "", o)
                         sub(/.*"source": "/, "", src); sub(/".*/, "", src); gsub(/ /, "_", src) } else o = "-";
                       if (v != "null" && $0 ~ /"confirmed": false/) v = v "?";
                       print n, v, o, e, u, ($0 ~ /"disagree": true/) ? 1 : 0, src; n = "" }' "$tmp/out.json" >>"$tmp/$name.v"
    # why a value is unknown or unconfirmed: NAME<tab>REASON lines
    awk '/"name": "/ { n = $0; sub(/.*"name": "/, "", n); sub(/".*/, "", n) }
         /"reason": "/ { r = $0; sub(/.*"reason": "/, "", r); sub(/"[^"]*$/, "", r); print n "\t" r }
         /"method": ".*(not confirmed|not exact): / {
           r = $0; sub(/.*(not confirmed|not exact): /, "", r); sub(/"[^"]*$/, "", r); print n "\t" r }' \
      "$tmp/out.json" >>"$tmp/$name.r"
    [ -z "$together" ] || break # the one process ran them all
  done
}

# report NAME XRAY: series NAME's values, reasons and seconds
report() {
  echo "$1: $runs runs of $2, $("$2" --version), cc $cflags${given:+, what the probes rest on given (-G)}"
  awk '{ k = $1; if (!(k in seen)) { order[++n] = k; seen[k] = 1 }
         c[k, $2]++; if (!((k, $2) in vs)) { vs[k, $2] = 1; vals[k] = vals[k] " " $2 } os[k] = $3
         if ($4 != "-" && $4 != "") { if (!(k in lo) || $4 < lo[k]) lo[k] = $4; if (!(k in hi) || $4 > hi[k]) hi[k] = $4 } }
       END { for (i = 1; i <= n; i++) { k = order[i]; m = split(vals[k], a, " "); s = "";
               for (j = 1; j <= m; j++) s = s (j > 1 ? ", " : "") a[j] " x" c[k, a[j]];
               printf "  %-26s %-40s OS %s\n", k, s, os[k];
               if (k in lo) printf "      unrounded: %g to %g (spread %.1f %% of the low end)\n", lo[k], hi[k], (lo[k] > 0 ? 100 * (hi[k] - lo[k]) / lo[k] : 0);
               if (why) while ((getline line < why) > 0) {
                 split(line, f, "\t"); if (f[1] == k) c2[substr(f[2], 1, 110)]++ }
               close(why); for (r in c2) printf "      why: %s x%d\n", r, c2[r]; delete c2 } }' \
    why="$tmp/$1.r" "$tmp/$1.v"
  awk '{ s[$1] += $2; if ($2 > mx[$1]) mx[$1] = $2; n[$1]++; if (!($1 in o)) o[$1] = ++k; name[o[$1]] = $1 }
       END { printf "  seconds per probe (mean/max)%s:", together ? ", each its own share of one process" : ""
             for (i = 1; i <= k; i++) if (name[i] != "(whole-run)") { printf " %s %.2f/%.2f", name[i], s[name[i]] / n[name[i]], mx[name[i]]; t += s[name[i]] / n[name[i]] }
             printf "\n  sum of the probes'"'"' means: %.2f s\n", t
             if (n["(whole-run)"]) printf "  the whole process (mean/max): %.2f/%.2f s\n", s["(whole-run)"] / n["(whole-run)"], mx["(whole-run)"] }' \
    together="$together" "$tmp/$1.s"
}

# This CPU's published figures as NAME FIGURE TOLERANCE lines (tests/lib.sh).
top_srcdir=$(cd "$(dirname "$0")/.." && pwd)
(
  tmp=$tmp/lib
  mkdir -p "$tmp" && . "$top_srcdir/tests/lib.sh" &&
    for n in $(names_published); do echo "$n $(published "$n") $(tolerance "$n")"; done
) >"$tmp/pub" 2>/dev/null

# contradictions NAME: confirmed values of series NAME that contradict the
# published figure, the OS view or each other; then what was established.
contradictions() {
  awk -v runs="$runs" -v pubf="$tmp/pub" '
    BEGIN { while ((getline l < pubf) > 0) { split(l, a, " "); pub[a[1]] = a[2]; ptol[a[1]] = a[3] } }
    function within(x, f, t,   lo, hi, r) { lo = f; hi = f; if (f ~ /\.\./) { split(f, r, /\.\./); lo = r[1]; hi = r[2] }
      return x >= lo * (1 - t) && x <= hi * (1 + t) }
    function tol(n, u) { if (n in ptol) return ptol[n]; if (n ~ /^XRAY_L1I_SIZE$|UOP/) return 0.03
      if (n ~ /^XRAY_L[2-9]_SIZE$/) return 0.10; if (u ~ /cycles|MHz|bytes\/cycle/) return 0.10; return 0 }
    { n = $1; v = $2; if (v == "null" || v ~ /\?$/) next
      if (!(n in seen)) { seen[n] = 1; order[++k] = n; unit[n] = $5 }
      c[n]++; if (!(n in lo) || v + 0 < lo[n]) lo[n] = v + 0; if (!(n in hi) || v + 0 > hi[n]) hi[n] = v + 0
      t = tol(n, $5)
      if (n in pub) { if (within(v + 0, pub[n], t)) est[n]++; else { bad++; printf "    %s %s confirmed, published %s\n", n, v, pub[n] } }
      if ($6 == 1 && !(n in pub)) { osbad[n]++; osv[n] = $3; oss[n] = $7 } }
    END { for (i = 1; i <= k; i++) { n = order[i]
            if (hi[n] > lo[n] && hi[n] > lo[n] * (1 + tol(n, unit[n]))) { bad++; printf "    %s confirmed from %s to %s in different runs\n", n, lo[n], hi[n] }
            if (n in osbad) printf "    %s disagrees with the OS view (%s %s) in %d confirmed runs\n", n, oss[n], osv[n], osbad[n] }
          printf "  confirmed values contradicting a published figure or each other: %d\n", bad
          printf "  published figures established (runs of %d):", runs
          for (n in pub) printf " %s %d", substr(n, 6), est[n] + 0; print "" }' "$tmp/$1.v"
}

series quiet "$@"
report quiet "$xray"
contradictions quiet
if [ -n "$xray_b" ]; then
  report quiet.b "$xray_b"
  contradictions quiet.b
fi
[ -n "$busy" ] || exit 0
spin='while :; do :; done'
[ -n "$stream" ] && spin="exec dd if=/dev/zero of=/dev/null bs=${stream}M 2>/dev/null"
if command -v taskset >/dev/null 2>&1 && [ "$(nproc)" -ge 2 ]; then
  taskset -c 1 sh -c "$spin" & hog=$!
else
  sh -c "$spin" & hog=$!
fi
series busy "$@"
report busy "$xray"
contradictions busy
if [ -n "$xray_b" ]; then
  report busy.b "$xray_b"
  contradictions busy.b
fi
