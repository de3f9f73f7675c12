#!/bin/sh
# Calls between the engine's layers, from the symbols each object file
# defines and uses (nm): one line per pair of layers, with the symbols;
# then the headers each source of a layer includes, one line per pair
# of layers ("include"), with the files.  A call or an include that goes
# up the layering of HACKING (cli, probes, run, real/sim/replay/icsim,
# machine/model, measure/kernels, isa) or sideways between two backends
# or two leaves is marked UP; none should be.  src/cli/ may include
# anything (src/xray-internal.h gathers every layer for it and the
# tests); src/machine/ops.h, the ops table, only machine/ and the
# backends include.
# Run after make, from the build tree.
#
# Usage: bench/layers.sh
srcdir=$(dirname "$0")/..
# The rule both parts apply: layer l may use layer d when d is l, or lies
# lower and is not a sibling backend or leaf.
ranks='
  BEGIN {
    rank["cli"] = 7; rank["probes"] = 6; rank["run"] = 5; rank["real"] = 4; rank["sim"] = 4
    rank["replay"] = 4; rank["icsim"] = 4; rank["machine"] = 3; rank["model"] = 3
    rank["measure"] = 2; rank["kernels"] = 2; rank["isa"] = 1
  }
  function up(l, d) {
    return d != l && (rank[d] > rank[l] || (rank[d] == rank[l] && (d == "real" || d == "sim" \
      || d == "replay" || d == "icsim" || d == "measure" || d == "kernels" || d == "model" \
      || d == "machine")))
  }'
for o in $(sed -n 's/\.c$/.o/p' "$srcdir/src/engine.list"); do
  # The xray program's objects carry its name (per-program flags).
  [ -f "$o" ] || [ ! -f "$(dirname "$o")/xray-$(basename "$o")" ] || o=$(dirname "$o")/xray-$(basename "$o")
  [ -f "$o" ] || { echo "$0: $o is missing: run make first" >&2; exit 1; }
  case $o in probes/*) l=probes ;; *) l=$(echo "$o" | cut -d/ -f2) ;; esac
  nm "$o" | awk -v l="$l" '$2 ~ /^[TDBR]$/ { print "def", l, $3 } $1 == "U" { print "use", l, $2 }'
done | awk "$ranks"'
  $1 == "def" { where[$3] = $2 }
  $1 == "use" { n++; ul[n] = $2; us[n] = $3 }
  END {
    for (i = 1; i <= n; i++) {
      d = where[us[i]]
      if (d == "" || d == ul[i]) continue
      k = ul[i] " -> " d
      if (!(k in seen)) { seen[k] = ""; keys[++nk] = k }
      if (index(seen[k] " ", " " us[i] " ") == 0) seen[k] = seen[k] " " us[i]
      if (up(ul[i], d)) bad[k] = 1
    }
    for (i = 1; i <= nk; i++)
      printf "%-4s %-20s%s\n", (keys[i] in bad) ? "UP" : "", keys[i], seen[keys[i]]
  }' | sort -k2
# Includes: every source and header of a layer below cli.  A quoted
# include names its layer's directory ("machine/machine.h",
# "../probes/probes.h"), or none: a header beside the file.
for f in "$srcdir"/src/*/*.[ch] "$srcdir"/probes/*.[ch]; do
  case $f in */src/cli/*) continue ;; */probes/*) l=probes ;; *) l=$(basename "$(dirname "$f")") ;; esac
  sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f" |
    while read -r h; do
      case $h in
        xray.h | config.h) continue ;;
        machine/ops.h) d=machine-ops ;;
        ../probes/*) d=probes ;;
        */*) d=${h%%/*} ;;
        *) [ -f "$(dirname "$f")/$h" ] && d=$l || d=${h%.h} ;;
      esac
      echo "$l $d ${f#"$srcdir"/}:$h"
    done
done | awk "$ranks"'
  $1 != $2 || $2 == "xray-internal" {
    k = "include " $1 " -> " $2
    if (!(k in seen)) { seen[k] = ""; keys[++nk] = k }
    seen[k] = seen[k] " " $3
    if (up($1, $2) || $2 == "xray-internal") bad[k] = 1
    # The ops table is for the backends alone: a probe measures through machine.c.
    if ($2 == "machine-ops" && $1 != "machine" && $1 != "real" && $1 != "sim" && $1 != "replay") bad[k] = 1
  }
  END {
    for (i = 1; i <= nk; i++)
      printf "%-4s %-28s%s\n", (keys[i] in bad) ? "UP" : "", keys[i], seen[keys[i]]
  }' | sort -k2
