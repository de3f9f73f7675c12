#!/bin/sh
# Calls between the engine's layers, from the symbols each object file
# defines and uses (nm): one line per pair of layers, with the symbols.
# A call that goes up the layering of HACKING (cli, probes, run,
# real/sim/replay, machine/model, measure/kernels, isa) is marked UP;
# none should be.
# Run after make, from the build tree.
#
# Usage: bench/layers.sh
srcdir=$(dirname "$0")/..
for o in $(sed -n 's/\.c$/.o/p' "$srcdir/src/engine.list"); do
  # The xray program's objects carry its name (per-program flags).
  [ -f "$o" ] || [ ! -f "$(dirname "$o")/xray-$(basename "$o")" ] || o=$(dirname "$o")/xray-$(basename "$o")
  [ -f "$o" ] || { echo "$0: $o is missing: run make first" >&2; exit 1; }
  case $o in probes/*) l=probes ;; *) l=$(echo "$o" | cut -d/ -f2) ;; esac
  nm "$o" | awk -v l="$l" '$2 ~ /^[TDBR]$/ { print "def", l, $3 } $1 == "U" { print "use", l, $2 }'
done | awk '
  BEGIN {
    rank["cli"] = 7; rank["probes"] = 6; rank["run"] = 5; rank["real"] = 4; rank["sim"] = 4
    rank["replay"] = 4; rank["machine"] = 3; rank["measure"] = 2; rank["kernels"] = 2
    rank["model"] = 3
    rank["isa"] = 1
  }
  $1 == "def" { where[$3] = $2 }
  $1 == "use" { n++; ul[n] = $2; us[n] = $3 }
  END {
    for (i = 1; i <= n; i++) {
      d = where[us[i]]
      if (d == "" || d == ul[i]) continue
      k = ul[i] " -> " d
      if (!(k in seen)) { seen[k] = ""; keys[++nk] = k }
      if (index(seen[k] " ", " " us[i] " ") == 0) seen[k] = seen[k] " " us[i]
      if (rank[d] > rank[ul[i]] || (rank[d] == rank[ul[i]] && (d == "real" || d == "sim" || d == "replay" || d == "measure" || d == "kernels" || d == "model"))) up[k] = 1
    }
    for (i = 1; i <= nk; i++)
      printf "%-4s %-20s%s\n", (keys[i] in up) ? "UP" : "", keys[i], seen[keys[i]]
  }' | sort -k2
