#!/bin/sh
# Bad input, hostile strings, a hostile environment and signals, tried on
# xray as a new user or a build system would: for each case, the exit
# status, the first line xray wrote to stderr, and what was left behind
# (files in TMPDIR and temporaries beside the outputs, stray compilers,
# a device or FIFO replaced).  A table, not pass/fail; counts at the end.
# The shell's own notes on jobs it saw end by a signal ("Terminated") go
# to stderr between the rows.
#
# Usage: bench/hostile.sh [-x XRAY] [-g XRAY_GEN]
xray=./xray
gen=./xray-gen
while getopts x:g: o; do
  case $o in
    x) xray=$OPTARG ;;
    g) gen=$OPTARG ;;
    *) sed -n '2,8s/^# \{0,1\}//p' "$0"; exit 2 ;;
  esac
done
case $xray in /*) ;; *) xray=$(pwd)/$xray ;; esac
case $gen in /*) ;; *) gen=$(pwd)/$gen ;; esac
cc=${CC:-cc}
w=$(mktemp -d "${TMPDIR:-/tmp}/xray-hostile.XXXXXX") || exit 1
trap 'rm -rf "$w"' 0
trap 'exit 130' 1 2 15
T=$w/tmp
mkdir "$T" "$w/out"
sim=l1d=32K:8:64,seed=3
n=0 crashes=0 leftovers=0 silent=0

# leftover: what a case left in TMPDIR or beside its outputs
leftover() {
  find "$T" "$w/out" -mindepth 1 2>/dev/null | sed "s|$w/||" | tr '\n' ' '
  pgrep -f "$w/slowcc" >/dev/null 2>&1 && printf 'a compiler still running '
}

# row GROUP CASE STATUS: one line of the table
row() {
  n=$((n + 1))
  msg=$(head -n 1 "$w/err" | cut -c 1-90)
  left=$(leftover)
  [ "$3" -ge 128 ] && [ "$3" != 130 ] && [ "$3" != 143 ] && [ "$3" != 129 ] && [ "$3" != 131 ] &&
    [ "$3" != 141 ] && [ "$3" != 138 ] && [ "$3" != 140 ] && [ "$3" != 142 ] && crashes=$((crashes + 1))
  [ -n "$left" ] && leftovers=$((leftovers + 1))
  [ "$3" -ne 0 ] && [ "$3" -lt 128 ] && [ -z "$msg" ] && silent=$((silent + 1))
  printf '%-10s %-44s %4s  %-90s %s\n' "$1" "$2" "$3" "${msg:--}" "${left:-none}"
  rm -rf "$T"/* "$w/out"/*
}

# try GROUP CASE ARGS...: xray with ARGS, output to a file
try() {
  g=$1 c=$2; shift 2
  TMPDIR=$T "$xray" "$@" >"$w/stdout" 2>"$w/err"
  row "$g" "$c" $?
}

printf '%-10s %-44s %4s  %-90s %s\n' group case exit "message (first line)" leftovers

# --- outputs
try outputs "-o /dev/full" --simulate=$sim -o /dev/full dcache
[ -c /dev/full ] || echo "  !! /dev/full is no longer a device"
try outputs "-o /dev/null" --simulate=$sim -o /dev/null dcache
[ -c /dev/null ] || echo "  !! /dev/null is no longer a device"
mkfifo "$w/fifo"; (cat "$w/fifo" >/dev/null &)
try outputs "-o FIFO" --simulate=$sim -o "$w/fifo" dcache
[ -p "$w/fifo" ] || echo "  !! the FIFO was replaced"
echo old >"$w/target"; chmod 640 "$w/target"; ln -s target "$w/link"
try outputs "-o symlink (target replaced, link kept)" --simulate=$sim -o "$w/link" dcache
{ [ -L "$w/link" ] && [ "$(stat -c %a "$w/target")" = 640 ]; } || echo "  !! link or mode lost"
try outputs "-o a new file" --simulate=$sim -o "$w/new" dcache
ln -s nowhere "$w/dangling"
try outputs "-o symlink to nothing" --simulate=$sim -o "$w/dangling" dcache
try outputs "-o a directory" --simulate=$sim -o "$w" dcache
try outputs "-o in a missing directory" --simulate=$sim -o "$w/none/x" dcache
try outputs "-o ''" --simulate=$sim -o '' dcache
try outputs "-t ''" --simulate=$sim -t '' dcache
try outputs "--record onto a file" --simulate=$sim --record="$w/target" dcache
TMPDIR=$T "$xray" --simulate=$sim dcache >/dev/full 2>"$w/err"; row outputs "stdout /dev/full" $?
TMPDIR=$T "$xray" --help >/dev/full 2>"$w/err"; row outputs "--help >/dev/full" $?
TMPDIR=$T "$xray" --list >/dev/full 2>"$w/err"; row outputs "--list >/dev/full" $?
"$gen" --lang=bin --stmt=nop8 --count=100000 >/dev/full 2>"$w/err"; row outputs "xray-gen >/dev/full" $?
"$gen" --lang=c --stmt='p0 = p0 + p1' --type=long --vars=2 >/dev/full 2>"$w/err"
row outputs "xray-gen --lang=c >/dev/full" $?

# --- parsers
for b in 0x10 inf nan -1 0 1e400 3601 '' 2s; do try parsers "--budget='$b'" --budget="$b" dcache; done
for s in noise=nan,l1d=32K:8:64 clock=0x10 clock=1e-300 clock=3000,drift=nan \
  l1d=32K:8:64,seed=0 l1d=32K:8:64,seed=18446744073709551616 l1i=09482016K:8:64 \
  l1d=1K:288230376151711744:64 l1d=32K:8:64,tlb1=17592186044416:1:1M l1i=18014398509482016K:8:64 \
  l1d=1K:32:64 l1d=1000:8:64 l9=1K:1:64 '' ',,,' '=' l1d=32K:8:64,tenant=2:nan \
  l1d=32K:8:64,l2=1M:8:64,tenant=5:1 fetch=nan:1:1:1 l1d=32K:8:64:lru:0 uop=4096:8192; do
  try parsers "--simulate='$(printf %.34s "$s")'" --simulate="$s" dcache
done
long=$(awk 'BEGIN { for (i = 0; i < 40; i++) printf "x" }')
try parsers "--ops with a 40-character type" --ops="$long:+" latency
try parsers "--ops=long:%" --ops=long:% latency
try parsers "--ops=''" --ops= latency
try parsers "--types=long,int (two integer types)" --types=long,int registers
try parsers "--repeat=0" --record="$w/rec" --repeat=0 dcache
try parsers "--repeat=x" --record="$w/rec" --repeat=x dcache
try parsers "--kernel=asm" --kernel=asm icache
try parsers "--cc=''" --cc= latency
try parsers "17 probe names" --simulate=$sim dcache dcache dcache dcache dcache dcache dcache dcache \
  dcache dcache dcache dcache dcache dcache dcache dcache dcache
try parsers "--replay of a file" --replay="$w/target" dcache
printf 'tick_hz 0x10\n' >"$w/rec1.machine"; mkdir -p "$w/rec1"; mv "$w/rec1.machine" "$w/rec1/machine"
try parsers "--replay: tick_hz 0x10" --replay="$w/rec1" dcache
"$gen" --lang=c --stmt='p9 = p0' --type=long --vars=2 >/dev/null 2>"$w/err"; row parsers "xray-gen: variable past nvars" $?
"$gen" --lang=c --stmt='p0 == p0' --type=long --vars=2 >/dev/null 2>"$w/err"; row parsers "xray-gen: no assignment" $?
"$gen" --lang=bin --stmt=nop8 --count=-5 >/dev/null 2>"$w/err"; row parsers "xray-gen: --count=-5" $?

# --- escaping: hostile CFLAGS through every format
nl='
'
bad="-O2${nl}XRAY_INJECTED=1 */ int broken; /* \$(touch $w/pwned) \"q\" $(printf '\377\342\202')"
for f in shell header json text; do
  TMPDIR=$T "$xray" --simulate=$sim --cflags="$bad" --format=$f dcache >"$w/o.$f" 2>"$w/err"
  row escaping "hostile CFLAGS, --format=$f" $?
done
(XRAY_INJECTED=; eval "$(cat "$w/o.shell")"; [ -z "$XRAY_INJECTED" ]) >/dev/null 2>&1 ||
  echo "  !! shell format: eval set a name from CFLAGS"
[ -e "$w/pwned" ] && echo "  !! shell format: a command substitution ran"
printf '#include "%s"\nint main(void) { return 0; }\n' "$w/o.header" >"$w/h.c"
$cc -o "$w/h" "$w/h.c" 2>/dev/null || echo "  !! header format: does not compile"
iconv -f UTF-8 -t UTF-8 "$w/o.json" >/dev/null 2>&1 || echo "  !! json: not valid UTF-8"

# --- environment: the first line is the first unknown value's reason
# (what a user reads), then xray's stderr.
# env_row CASE PATTERN STATUS
env_row() {
  { grep -m1 "$2" "$w/stdout" | cut -c1-90; cat "$w/err"; } >"$w/err2"
  mv "$w/err2" "$w/err"
  row environment "$1" "$3"
}
TMPDIR=/nonexistent "$xray" --ops=long:+ latency >"$w/stdout" 2>"$w/err"
env_row "TMPDIR missing" unknown $?
longdir=$w/$(awk 'BEGIN { for (i = 0; i < 250; i++) printf "d" }')
mkdir -p "$longdir" 2>/dev/null
TMPDIR=$longdir "$xray" --ops=long:+ latency >"$w/stdout" 2>"$w/err"
env_row "TMPDIR of 300 characters" unknown $?
: >"$w/afile"
TMPDIR=$w/afile "$xray" --ops=long:+ latency >"$w/stdout" 2>"$w/err"
env_row "TMPDIR a file" unknown $?
# A full TMPDIR: a tmpfs of 8 KB, filled (root only).
if [ "$(id -u)" = 0 ] && mkdir "$w/full" && mount -t tmpfs -o size=8k tmpfs "$w/full" 2>/dev/null; then
  dd if=/dev/zero of="$w/full/fill" bs=1k count=64 2>/dev/null
  TMPDIR=$w/full "$xray" --ops=long:+ latency >"$w/stdout" 2>"$w/err"
  env_row "TMPDIR full" unknown $?
  ls -A "$w/full" | grep -vx fill | sed 's/^/  !! left in the full TMPDIR: /'
  umount "$w/full"
fi
for v in 20000 40000 60000; do
  (ulimit -v $v; TMPDIR=$T exec "$xray" caches) >"$w/stdout" 2>"$w/err"
  env_row "ulimit -v $v, caches" unknown $?
done
if command -v taskset >/dev/null 2>&1; then
  taskset -c 0 "$xray" cores >"$w/stdout" 2>"$w/err"
  env_row "taskset -c 0, cores" SMT $?
fi
TMPDIR=$T "$xray" --cc=/nonexistent/cc --ops=long:+ latency >"$w/stdout" 2>"$w/err"
env_row "a compiler that does not exist" unknown $?

# --- signals: during a compile (a compiler that takes a second) and
# during measuring; perl starts xray with SIGINT and SIGQUIT at their
# defaults, as an interactive shell would.
printf '#!/bin/sh\nsleep 1\nexec %s "$@"\n' "$cc" >"$w/slowcc"
chmod +x "$w/slowcc"
for sig in INT TERM HUP QUIT PIPE USR1 USR2 ALRM; do
  for when in compile measurement; do
    if [ $when = compile ]; then
      set -- --cc="$w/slowcc" --ops=long:+ -o "$w/out/res" latency; d=0.5
    else
      set -- --simulate=l1d=32K:8:64,l2=1M:8:64,l3=8M:16:64 -o "$w/out/res" -t "$w/out/trace" caches; d=0.3
    fi
    TMPDIR=$T perl -e '$SIG{INT} = $SIG{QUIT} = "DEFAULT"; exec @ARGV or die' "$xray" "$@" 2>"$w/err" &
    pid=$!
    sleep $d
    kill -$sig $pid 2>/dev/null
    wait $pid; st=$?
    sleep 0.3
    row signals "SIG$sig during a $when" $st
  done
done

echo "$n cases; crashes (ended by a signal xray was not sent): $crashes; cases leaving files: $leftovers;"
echo "failures without a message: $silent"
