#!/bin/sh
# memory.sh: resident memory per simulated process of cartbench under SMPI,
# for each smpi/privatization mode (issue 29, item 2; docs/scale.md,
# "Memory per simulated process").
#
#   scripts/smpi/memory.sh [--simgrid PREFIX] [--build DIR] [--np "256 1152"] [--modes "dlopen mmap no"]
#                          [--case moore:3,3] [--op alltoall] [--variants LIST]
#
# One smpirun per (mode, np) of one quick cell (default moore:3,3 alltoall
# m = 1, the p2p baseline and COMBINING with the pack executor) on the Hydra
# model, under /usr/bin/time: peak RSS of the simulator / np, wall and CPU
# seconds, the most memory maps the simulator held (sampled every 0.2 s:
# vm.max_map_count, 65530 by default, is a limit too), whether cartbench's
# checks passed and its simulated COMBINING time (the modes must agree).
# Ends with a linear fit RSS = a + b np per mode from the two smallest and
# largest np and its value at 16384.  Needs build/smpi(-NAME)/bench/cartbench
# (make build-smpi [SIMGRID_PREFIX=PREFIX]), or --build DIR (DIR/bench/cartbench:
# one binary under two SimGrids, A/B); one simulation at a time.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$(dirname "$here")")
simgrid=${SIMGRID_PREFIX:-} nps="256 1152" modes="dlopen mmap no" build=""
case_=moore:3,3 op=alltoall variants=cart-p-combining-pack
while [ $# -gt 0 ]; do
  case $1 in
    --simgrid) simgrid=$2; shift ;;
    --build) build=$2; shift ;;
    --np) nps=$2; shift ;;
    --modes) modes=$2; shift ;;
    --case) case_=$2; shift ;;
    --op) op=$2; shift ;;
    --variants) variants=$2; shift ;;
    -h|--help) sed -n '2,/^set -eu/p' "$0" | sed -n '/^#/s/^# \{0,1\}//p'; exit 0 ;;
    *) echo "memory.sh: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done
if [ -n "$simgrid" ]; then
  simgrid=${simgrid%/}; smpirun=$simgrid/bin/smpirun; : "${build:=$root/build/smpi-$(basename "$simgrid")}"
else
  smpirun=$(command -v smpirun) || { echo "memory.sh: smpirun not found" >&2; exit 2; }
  : "${build:=$root/build/smpi}"
fi
bench=$build/bench/cartbench
[ -x "$bench" ] || { echo "memory.sh: no $bench (make build-smpi)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "memory.sh: needs GNU time (/usr/bin/time)" >&2; exit 2; }
platform=$root/scripts/platforms/hydra.xml
. "$here/platform_model.sh"
cc_platform_model "$platform"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "# memory.sh: $case_ $op m=1 ($variants) on hydra.xml, $("$smpirun" -version 2>/dev/null | head -n 1)"
printf '%-7s %6s %8s %8s %8s %8s %8s %7s %-6s %s\n' mode np wall_s user_s sys_s rss_MB KB/proc maps check combining_us
for mode in $modes; do
  for np in $nps; do
    # scale.sh's hostfile: 32 processes per node, hydra-0 first
    awk -v np="$np" 'BEGIN { for (i = 0; i < np; i++) print "hydra-" int(i / 32) }' > "$tmp/hosts"
    rm -f "$tmp/out.csv"
    SMPI_PRIVATIZATION=$mode /usr/bin/time -f '%e %U %S %M' -o "$tmp/time" \
      "$smpirun" -np "$np" -platform "$platform" -hostfile "$tmp/hosts" --log=root.thres:critical \
      "$bench" --no-progress --reps 1 --warmup 2 -m 1 --ops "$op" --variants "$variants" \
      --csv "$tmp/out.csv" "$case_" > "$tmp/log" 2>&1 &
    pid=$! maps=0
    # the simulator (smpimain, smpirun's child): its memory maps, sampled
    while kill -0 "$pid" 2>/dev/null; do
      for c in $(pgrep -P "$pid" 2>/dev/null); do
        for s in $c $(pgrep -P "$c" 2>/dev/null); do
          n=$( { wc -l < "/proc/$s/maps"; } 2>/dev/null || echo 0)
          [ "$n" -gt "$maps" ] && maps=$n
        done
      done
      sleep 0.2
    done
    wait "$pid" 2>/dev/null || true
    # (GNU time writes "Command exited with non-zero status N" first on failure)
    set -- $(tail -n 1 "$tmp/time" 2>/dev/null) - - - 0
    wall=$1 user=$2 sys=$3 kb=$4
    if grep -q 'all cartcoll checks OK' "$tmp/log"; then check=OK; else check=FAIL; fi
    comb=$(awk -F, 'NR > 1 && $10 ~ /combining/ { print $20 }  # (nbh "moore:3,3" holds a comma)' "$tmp/out.csv" 2>/dev/null | head -n 1)
    printf '%-7s %6s %8s %8s %8s %8d %8d %7s %-6s %s\n' "$mode" "$np" "$wall" "$user" "$sys" $((kb / 1024)) $((kb / np)) "$maps" "$check" "${comb:--}"
    echo "$mode $np $kb $check" >> "$tmp/fit"
    [ $check = OK ] || sed -n '1,3p' "$tmp/log" | sed 's/^/#   /'
  done
done
# RSS = a + b np from each mode's smallest and largest np, at 16384
awk '$4 == "OK" { if (!($1 in n0) || $2 < n0[$1]) { n0[$1] = $2; k0[$1] = $3 }
                  if (!($1 in n1) || $2 > n1[$1]) { n1[$1] = $2; k1[$1] = $3 } }
  END { for (m in n0) if (n1[m] > n0[m]) {
          b = (k1[m] - k0[m]) / (n1[m] - n0[m]); a = k0[m] - b * n0[m]
          printf "# %s: %.0f MB + %.1f KB per process; at 16384: %.1f GB\n", m, a / 1024, b, (a + b * 16384) / 1048576 } }' "$tmp/fit"
