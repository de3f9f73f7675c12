#!/bin/sh
# The longest functions of the engine, probes and commands (lines from
# the name to the closing brace), and the longest files: the figures the
# redesign's size limits speak of.
# Usage: bench/longest.sh [N]   (default 10)
n=${1:-10}
cd "$(dirname "$0")/.." || exit 1
files=$(find src probes -name '*.c' | sort)
echo "longest functions:"
for f in $files; do
  awk -v f="$f" '/^[A-Za-z_][A-Za-z0-9_]*\(/ { name = $0; sub(/\(.*/, "", name); start = NR }
                 /^}/ && start { print NR - start + 1, f ":" name; start = 0 }' "$f"
done | sort -rn | head -n "$n" | awk '{ printf "  %4d  %s\n", $1, $2 }'
echo "longest files:"
wc -l $files | grep -v ' total$' | sort -rn | head -n "$n" | awk '{ printf "  %4d  %s\n", $1, $2 }'
