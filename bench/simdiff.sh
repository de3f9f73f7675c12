#!/bin/sh
# Whether two builds of xray give the same simulated machines the same
# answers, byte for byte: runs the deterministic tests (tests/sim/*.test
# by default) once with each build's xray behind a wrapper that keeps the
# whole output of every simulated run (--simulate or XRAY_SIMULATE), and
# diffs the two sets.  Times (a run's seconds) are the only text taken
# out.  For changes that must not move a value: a faster simulator, a
# refactoring.  Prints the runs compared, and the diff (empty: the same).
#
# Usage: bench/simdiff.sh [-k] A B [TEST...]
#   A, B: configured build trees (each with its xray built)
#   TEST: test scripts under the source tree (default tests/sim/*.test)
#   -k: keep the outputs (their folder is printed)
keep=
while getopts k o; do
  case $o in
    k) keep=yes ;;
    *) sed -n '2,13s/^# \{0,1\}//p' "$0"; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
[ $# -ge 2 ] || { sed -n '2,13s/^# \{0,1\}//p' "$0"; exit 2; }
a=$(cd "$1" && pwd) && b=$(cd "$2" && pwd) || exit 2
shift 2
for d in "$a" "$b"; do
  [ -x "$d/xray" ] || { echo "$0: $d has no xray: build it there (make)" >&2; exit 2; }
done
src=$(cd "$(dirname "$0")/.." && pwd)
[ $# -gt 0 ] || set -- "$src"/tests/sim/*.test
out=$(mktemp -d "${TMPDIR:-/tmp}/simdiff.XXXXXX") || exit 2
[ -n "$keep" ] || trap 'rm -rf "$out"' 0
trap 'rm -rf "$out"; exit 130' 1 2 15

# The wrapper: each simulated run's command line and whole output in a
# file of its own, named by the line's checksum and the run's process.
cat >"$out/wrap" <<'EOF'
#!/bin/sh
case " $* ${XRAY_SIMULATE:+sim}" in
  *" --simulate"* | *" -s"* | *" sim") ;;
  *) exec "$SIMDIFF_XRAY" "$@" ;;
esac
# A test's own temporary folder (tests/lib.sh) is named anew each run.
tmpname='s|[^ ]*/xray-test\.[A-Za-z0-9]*|TMP|g'
key=$(printf '%s\n' "$XRAY_SIMULATE" "$@" | sed "$tmpname" | cksum | tr ' ' _)
"$SIMDIFF_XRAY" "$@" >"$SIMDIFF_DIR/$key.$$.raw" 2>&1
rc=$?
cat "$SIMDIFF_DIR/$key.$$.raw"
{ printf '$ XRAY_SIMULATE=%s xray %s\n' "$XRAY_SIMULATE" "$*" | sed "$tmpname"
  sed -e 's/^# seconds: .*/# seconds: -/' -e 's/"seconds": [0-9.]*/"seconds": -/g' \
      -e 's/; [0-9.]* s)/; - s)/' -e "$tmpname" "$SIMDIFF_DIR/$key.$$.raw"
  echo "exit $rc"; } >"$SIMDIFF_DIR/$key.$$"
rm -f "$SIMDIFF_DIR/$key.$$.raw"
exit $rc
EOF
chmod +x "$out/wrap"
for side in a b; do
  eval "d=\$$side"
  mkdir -p "$out/$side"
  for t in "$@"; do
    env top_srcdir="$src" top_builddir="$d" XRAY="$out/wrap" XRAY_GEN="$d/xray-gen" \
      CC="${CC:-cc}" MAKE="${MAKE:-make}" SIMDIFF_XRAY="$d/xray" SIMDIFF_DIR="$out/$side" \
      sh "$t" >"$out/$side.$(basename "$t").log" 2>&1
  done
  # The runs of one command line joined, in the order of their texts'
  # checksums (parallel cases finish in any order).
  (cd "$out/$side" && for k in $(ls | sed 's/\.[0-9]*$//' | sort -u); do
     for f in "$k".*; do echo "$(cksum <"$f" | tr ' ' _) $f"; done | sort |
       while read -r _ f; do cat "$f"; rm -f "$f"; done >"$k"
   done)
done
echo "simulated runs: $(ls "$out/a" | wc -l) distinct command lines under $a, $(ls "$out/b" | wc -l) under $b"
[ -n "$keep" ] && echo "outputs kept in $out"
diff -r "$out/a" "$out/b" && echo "no difference"
