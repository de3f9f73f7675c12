# Shared by the shell tests: TAP output, temporary directories removed on
# every exit path, and the helpers to run xray.
tap_n=0
tap_failed=0
plan() { echo "1..$1"; }
ok() { tap_n=$((tap_n + 1)); echo "ok $tap_n - $*"; }
not_ok() { tap_n=$((tap_n + 1)); tap_failed=$((tap_failed + 1)); echo "not ok $tap_n - $*"; }
skip() { tap_n=$((tap_n + 1)); echo "ok $tap_n - # SKIP $*"; }
check() { # check DESCRIPTION COMMAND...
  d=$1; shift
  if "$@"; then ok "$d"; else not_ok "$d"; fi
}
skip_all() { echo "1..0 # SKIP $*"; exit 0; }
# asan: whether xray is built with AddressSanitizer (--enable-sanitizers),
# whose shadow memory alone outgrows any ulimit -v a test can set.
asan() { case " $SAN_CFLAGS " in *sanitize=address*) return 0 ;; esac; return 1; }
finish() { exit $((tap_failed > 0)); }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/xray-test.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' 0
trap 'rm -rf "$tmp"; exit 130' 1 2 15

# This CPU as tests/data/cpus.tsv names it: VENDOR FAMILY MODEL; or the
# CPU that $cpuinfo describes (a recording's), where it is set.
cpu_id() {
  awk -F': *' '$1 ~ /^vendor_id/ && !v { v = $2 }
    $1 ~ /^cpu family/ && f == "" { f = $2 }
    $1 ~ /^model[ \t]*$/ && m == "" { m = $2 }
    $1 ~ /^CPU implementer/ && !v { v = "arm:" $2; f = "-" }
    $1 ~ /^CPU part/ && m == "" { m = $2 }
    END { if (v != "") print v, f, m }' "${cpuinfo:-/proc/cpuinfo}" 2>/dev/null
}
# published NAME: the published figure of NAME for this CPU, or nothing;
# published_source NAME: where it was published.
cpus_tsv=${XRAY_CPUS_TSV:-$top_srcdir/tests/data/cpus.tsv}
published_row() {
  set -- "$1" $(cpu_id)
  [ $# -eq 4 ] || return 0
  awk -F'\t' -v n="$1" -v v="$2" -v f="$3" -v m="$4" \
    '$1 == v && $2 == f && $3 == m && $4 == n { print $5 "\t" $6; exit }' "$cpus_tsv"
}
published() { published_row "$1" | cut -f1; }
published_source() {
  k=$(published_row "$1" | cut -f2)
  [ -n "$k" ] && sed -n "s/^# source $k: //p" "$cpus_tsv"
}
# ground NAME [VALUE WHAT]: what NAME is compared with, as "VALUE|WHERE":
# the published figure for this CPU where tests/data/cpus.tsv has one (the
# OS view under a hypervisor relays CPUID, which may be invented), else
# VALUE from WHAT (an OS view), else nothing.
ground() {
  g=$(published "$1")
  if [ -n "$g" ]; then echo "$g|published for $(cpu_id | tr ' ' /) ($(published_source "$1" | cut -c1-60))"
  elif [ -n "$2" ]; then echo "$2|$3"; fi
}
# sysfs_cache LEVEL TYPE FIELD: a field of cpu0's cache of that level and
# type (Data, Instruction, Unified), sizes in bytes; nothing if absent.
sysfs_cache() {
  for d in /sys/devices/system/cpu/cpu0/cache/index*; do
    [ "$(cat "$d/level" 2>/dev/null)" = "$1" ] && [ "$(cat "$d/type" 2>/dev/null)" = "$2" ] &&
      awk '{ v = $1 + 0; if ($1 ~ /K$/) v *= 1024; if ($1 ~ /M$/) v *= 1048576; print v }' "$d/$3" 2>/dev/null
  done
}
# procs_with TEXT: processes whose command line holds TEXT; procs_in_group
# PGID: live processes of that process group (a zombie has ended: its
# reaping is its new parent's, init's, business).  From /proc, so that no
# procps is needed.
procs_with() {
  for p in /proc/[0-9]*; do
    tr '\0' ' ' <"$p/cmdline" 2>/dev/null | grep -qF -- "$1" && echo "${p#/proc/}"
  done | grep -vx "$$" | wc -l
}
procs_in_group() {
  for p in /proc/[0-9]*; do
    sed 's/.*) //' "$p/stat" 2>/dev/null | awk -v g="$1" '$3 == g && $1 != "Z" { f = 1 } END { exit !f }' &&
      echo "${p#/proc/}"
  done | wc -l
}
# tolerance NAME: how far a value may lie from NAME's published figure, as
# a share of it: capacities read off an edge within 3 % (the L1I, the op
# cache: a loop's footprint is counted in whole statements) or 10 % (the
# L2: host page colours smear its edge), every other figure exact.
tolerance() {
  case $1 in
    XRAY_L1I_SIZE | XRAY_UOP_CACHE_OPS) echo 0.03 ;;
    XRAY_L2_SIZE) echo 0.10 ;;
    *) echo 0 ;;
  esac
}
# agrees NAME VALUE FIGURE: VALUE is FIGURE (a number, or LO..HI) within
# NAME's tolerance.
agrees() {
  awk -v a="$2" -v f="$3" -v t="$(tolerance "$1")" 'BEGIN {
    lo = f; hi = f; if (f ~ /\.\./) { split(f, r, /\.\./); lo = r[1]; hi = r[2] }
    exit !(a != "" && a + 0 >= lo * (1 - t) && a + 0 <= hi * (1 + t)) }'
}
# verdict NAME FILE [FIGURE]: NAME in FILE (xray --format=shell output)
# against FIGURE (default: its published figure for this CPU), as a word
# and the value: "established V" (confirmed and right), "wrong V"
# (confirmed, not the figure), "unconfirmed V" or "unknown".
verdict() {
  v=$(sed -n "s/^$1=//p" "$2")
  f=${3-$(published "$1")}
  if [ -z "$v" ]; then echo unknown
  elif grep -q "^# $1 unconfirmed" "$2"; then echo "unconfirmed $v"
  elif agrees "$1" "$v" "$f"; then echo "established $v"
  else echo "wrong $v"; fi
}
# recorded_probes DIR: the probes whose points a recording holds.
recorded_probes() {
  tail -n +2 "$1/points.csv" | cut -d, -f1 | sed 's/-.*//' | sort -u | tr '\n' ' '
}
# names_published: the names tests/data/cpus.tsv publishes for this CPU.
names_published() {
  set -- $(cpu_id)
  [ $# -eq 3 ] && awk -F'\t' -v v="$1" -v f="$2" -v m="$3" \
    '$1 == v && $2 == f && $3 == m { print $4 }' "$cpus_tsv"
}
# live: this test times this host.  Two timing experiments at once spoil
# each other on a machine of few CPUs, so under make -jN the live tests
# take turns: each holds the build tree's lock from here until it exits
# (deterministic tests run beside them).
live() {
  lock=${top_builddir:-.}/tests/live.lock
  if command -v flock >/dev/null 2>&1; then
    exec 9>"$lock" && flock 9
  else
    until mkdir "$lock.d" 2>/dev/null; do sleep 1; done
    trap 'rmdir "$lock.d"; rm -rf "$tmp"' 0
    trap 'rmdir "$lock.d"; rm -rf "$tmp"; exit 130' 1 2 15
  fi
}
# unlive: this test times nothing more from here; the next live test may
# start while it ends its deterministic part.
unlive() {
  if command -v flock >/dev/null 2>&1; then
    flock -u 9 && exec 9>&-
  else
    rmdir "$lock.d"
    trap 'rm -rf "$tmp"' 0
    trap 'rm -rf "$tmp"; exit 130' 1 2 15
  fi
}
# Deterministic cases side by side: par FUNCTION ARGS... runs one case in
# the background, at most par_jobs at once (XRAY_TEST_JOBS, or one per
# CPU); par_wait then prints their TAP lines in the order they were given,
# numbered here.  A case must not share files or variables with another.
# A new case starts as soon as any running one ends (each leaves a .done
# file; the shell has no portable wait for any child), not after the
# oldest: one long case would otherwise hold back the others' slot.
# Under make -jN (N > 1) make runs the tests side by side already: a test
# then runs its cases one at a time, so that the tests never ask for more
# than make's jobs, and a live test beside them keeps its CPU.
par_default() {
  for w in $MAKEFLAGS; do
    case $w in
      -j) echo 1; return ;;
      -j*[!0-9]*) ;;
      -j*) [ "${w#-j}" -gt 1 ] && { echo 1; return; } ;;
    esac
  done
  nproc 2>/dev/null || echo 1
}
par_jobs=${XRAY_TEST_JOBS:-$(par_default)}
par_n=0
par_ended() {
  set -- "$tmp"/par.*.done
  if [ -e "$1" ]; then echo $#; else echo 0; fi
}
par() {
  while [ $((par_n - $(par_ended))) -ge "$par_jobs" ]; do
    sleep 0.05 2>/dev/null || sleep 1
  done
  par_n=$((par_n + 1))
  { ("$@") >"$tmp/par.$par_n" 2>&1; : >"$tmp/par.$par_n.done"; } &
}
par_wait() {
  wait
  rm -f "$tmp"/par.*.done
  i=1
  while [ "$i" -le "$par_n" ]; do
    while IFS= read -r line; do
      case $line in
        "ok "*) ok "${line#ok * - }" ;;
        "not ok "*) not_ok "${line#not ok * - }" ;;
        *) echo "$line" ;;
      esac
    done <"$tmp/par.$i"
    i=$((i + 1))
  done
  par_n=0
}
