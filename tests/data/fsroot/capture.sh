#!/bin/sh
# Record the files of /sys and /proc that xray's OS view reads into DIR,
# a tree that XRAY_FSROOT=DIR reads in their place (see xray(1)), e.g.
# to add a machine to tests/unit/test-os.
#
# Usage: tests/data/fsroot/capture.sh DIR
set -e
[ $# -eq 1 ] && [ -n "$1" ] || { echo "usage: $0 DIR" >&2; exit 2; }
if [ -e "$1" ] && [ -n "$(ls -A "$1" 2>/dev/null)" ]; then
  echo "$0: $1 exists and is not empty: name a new directory" >&2
  exit 1
fi
mkdir -p "$1"
root=$(cd "$1" && pwd)
cd /
for f in sys/devices/system/cpu/online \
         sys/devices/system/cpu/cpu[0-9]*/cache/index[0-9]*/level \
         sys/devices/system/cpu/cpu[0-9]*/cache/index[0-9]*/type \
         sys/devices/system/cpu/cpu[0-9]*/cache/index[0-9]*/size \
         sys/devices/system/cpu/cpu[0-9]*/cache/index[0-9]*/ways_of_associativity \
         sys/devices/system/cpu/cpu[0-9]*/cache/index[0-9]*/coherency_line_size \
         sys/devices/system/cpu/cpu[0-9]*/topology/core_id \
         sys/devices/system/cpu/cpu[0-9]*/topology/physical_package_id \
         sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq \
         proc/cpuinfo; do
  [ -r "$f" ] || continue
  mkdir -p "$root/${f%/*}"
  cat "$f" >"$root/$f"
done
