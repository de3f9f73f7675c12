#!/bin/sh
# The model against the search: tests/dgemm's example project, configured
# with xray's installed macros, sizes its matrix multiply by the model of
# Yotov et al. (model.c); then the same kernel is searched exhaustively
# over NB, MU and NU, as ATLAS does.  Printed: each one's best MFLOPS (the
# best of the repeats), the ratio of the model's to the search's, and the
# time each spent (configure, against the search's builds and runs).  The
# best of thousands of noisy points is an optimistic figure, so the
# search's winner and the model's choice are then run in turn, ROUNDS
# times each (-d, default 15: on a host whose clock wanders, the best of
# a few runs is still several per cent from a program's real speed), and
# the ratio of their bests is printed too.
# Every point multiplies the same N x N matrices (-n, default 480: a
# multiple of most tiles' rows and columns, so that padding to whole
# tiles decides little; what it costs a tile counts against it).
# With -p, the model is fed published figures too (--with-xray-...
# options in PUBLISHED, e.g. "--with-xray-l1d-size=49152 ..."), to tell
# the model's error from the measurements'.
#   sh bench/dgemm.sh [-n N] [-r REPS] [-d ROUNDS] [-p PUBLISHED]
# Run from a built xray tree (it installs the macros into a scratch
# prefix); CFLAGS (default -O3 -march=native) are the project's flags.
set -e
n=480 reps=10 rounds=15 published=
while [ $# -gt 0 ]; do
  case $1 in
    -n) n=$2; shift 2 ;;
    -r) reps=$2; shift 2 ;;
    -d) rounds=$2; shift 2 ;;
    -p) published=$2; shift 2 ;;
    *) echo "usage: sh bench/dgemm.sh [-n N] [-r REPS] [-d ROUNDS] [-p PUBLISHED]" >&2; exit 2 ;;
  esac
done
top=$(pwd)
[ -f "$top/tests/dgemm/dgemm.c" ] || { echo "bench/dgemm.sh: run it from xray's top directory" >&2; exit 2; }
cflags=${CFLAGS:--O3 -march=native}
dir=$(mktemp -d "${TMPDIR:-/tmp}/xray-dgemm.XXXXXX")
trap 'rm -rf "$dir"' 0
trap 'rm -rf "$dir"; exit 130' 1 2 15
now() { date +%s.%N; }

make -s install-data prefix="$dir/inst" >"$dir/install.log" 2>&1
export ACLOCAL_PATH="$dir/inst/share/aclocal"

# configure DIR [OPTIONS]: the example project, configured; prints seconds
configure() {
  mkdir -p "$1"
  cp "$top"/tests/dgemm/configure.ac "$top"/tests/dgemm/Makefile.am "$top"/tests/dgemm/*.c "$1/"
  (cd "$1" && autoreconf -i >autoreconf.log 2>&1)
  shift_dir=$1
  shift
  t0=$(now)
  (cd "$shift_dir" && ./configure CFLAGS="$cflags" "$@" >configure.out 2>&1 && make >make.log 2>&1)
  t1=$(now)
  echo "$t0 $t1" | awk '{ printf "%.1f", $2 - $1 }'
}
best() { sort -n -k6 | tail -n 1; }

tm=$(configure "$dir/model")
model=$("$dir/model/dgemm" -n "$n" -r "$reps")
echo "model, xray's values ($tm s to configure and build): $model"
# The values the model rested on and what each rule chose (tile.h's
# comments).
sed -n '2,$s|^/\* \(.*\) \*/$|  \1|p' "$dir/model/tile.h"
# What configure said of the values the model uses most.
grep -h -e "^checking L1 data cache capacity" -e "^checking L2 cache capacity" "$dir/model/configure.out" || true
if [ -n "$published" ]; then
  # shellcheck disable=SC2086 # the options are words
  tp=$(configure "$dir/pub" $published)
  pub=$("$dir/pub/dgemm" -n "$n" -r "$reps")
  echo "model, published values ($tp s): $pub"
  sed -n '2,$s|^/\* \(.*\) \*/$|  \1|p' "$dir/pub/tile.h"
fi

# The search: every MU x NU whose accumulators the vector registers could
# hold twice over (beyond that every tile spills), and for each every NB
# that is a multiple of its MU VL rows and NU columns, up to 512.
vb=$(sed -n 's/^#define VB \([0-9]*\).*/\1/p' "$dir/model/tile.h")
ku=$(sed -n 's/^#define KU \([0-9]*\).*/\1/p' "$dir/model/tile.h")
pfd=$(sed -n 's/^#define PFD \([0-9]*\).*/\1/p' "$dir/model/tile.h")
t0=$(now)
: >"$dir/search"
for mu in 1 2 3 4 5 6 7 8; do
  for nu in 1 2 3 4 5 6 7 8 9 10 11 12; do
    [ $((mu * nu)) -le 64 ] || continue
    step=$(awk -v a=$((mu * vb / 8)) -v b=$nu 'BEGIN { x = a; y = b; while (y) { t = x % y; x = y; y = t }; print a / x * b }')
    nbs=$(seq "$step" "$step" 512 | tr '\n' ' ')
    [ -n "$nbs" ] || continue
    ${CC:-cc} $cflags -DVB="$vb" -DMU=$mu -DNU=$nu -DKU="$ku" -DPFD="$pfd" \
      -o "$dir/s" "$top/tests/dgemm/dgemm.c" -lm
    # shellcheck disable=SC2086 # the block sizes are words
    "$dir/s" -n "$n" -r "$reps" $nbs >>"$dir/search" 2>/dev/null
  done
done
t1=$(now)
ts=$(echo "$t0 $t1" | awk '{ printf "%.1f", $2 - $1 }')
searched=$(best <"$dir/search")
echo "search, $(wc -l <"$dir/search") points ($ts s): $searched"
# The duel: the model's binaries and the search's winner, in turn.
set -- $(echo "$searched" | sed 's/[()]//g')
${CC:-cc} $cflags -DVB="$vb" -DMU="${10}" -DNU="${12}" -DKU="$ku" -DPFD="$pfd" \
  -o "$dir/w" "$top/tests/dgemm/dgemm.c" -lm
: >"$dir/duel.m"
: >"$dir/duel.p"
: >"$dir/duel.s"
for i in $(seq "$rounds"); do
  "$dir/model/dgemm" -n "$n" -r "$reps" >>"$dir/duel.m"
  [ -z "$published" ] || "$dir/pub/dgemm" -n "$n" -r "$reps" >>"$dir/duel.p"
  "$dir/w" -n "$n" -r "$reps" "$2" >>"$dir/duel.s"
done
dm=$(best <"$dir/duel.m" | awk '{ print $6 }')
ds=$(best <"$dir/duel.s" | awk '{ print $6 }')
echo "$rounds $dm $ds" | awk '{ printf "in turn, best of %d runs each: model %.0f, search winner %.0f MFLOPS: %.3f of the speed\n", $1, $2, $3, $2 / $3 }'
if [ -n "$published" ]; then
  dp=$(best <"$dir/duel.p" | awk '{ print $6 }')
  echo "$dp $ds" | awk '{ printf "in turn, model with published values %.0f MFLOPS: %.3f of the search winner\n", $1, $1 / $2 }'
fi
m=$(echo "$model" | awk '{ print $6 }')
s=$(echo "$searched" | awk '{ print $6 }')
echo "$m $s $tm $ts" | awk '{ printf "model / search: %.3f of the speed, in %.3f of the time\n", $1 / $2, $3 / $4 }'
if [ -n "$published" ]; then
  p=$(echo "$pub" | awk '{ print $6 }')
  echo "$p $s" | awk '{ printf "model with published values / search: %.3f of the speed\n", $1 / $2 }'
fi
