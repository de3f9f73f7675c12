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
finish() { exit $((tap_failed > 0)); }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/xray-test.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' 0
trap 'rm -rf "$tmp"; exit 130' 1 2 15
