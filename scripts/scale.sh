#!/bin/sh
# scale.sh: cartcoll at scale on a simulated cluster (SimGrid SMPI).
#
#   scripts/scale.sh --quick            a few cases at 256 processes (Hydra model)
#   scripts/scale.sh --full             the sweep of [Traff & Hunold 2019] at 1152 processes (Hydra)
#   scripts/scale.sh --titan            a subset at 16384 processes (Titan; SMPI_PRIVATIZATION=mmap)
#   scripts/scale.sh --local            this machine's model at 4 processes
#   scripts/scale.sh --np N --platform F [--cases "NBH..."] [-m LIST] [--ops LIST]
#   scripts/scale.sh --check-platforms [FILE...]   (no SimGrid needed; make check)
#   scripts/scale.sh --table CSV [P2P...]  the table of an existing CSV (a run cut short)
#   scripts/scale.sh --plot CSV [P2P...]   CSV.png: [Traff & Hunold 2019, Fig. 3-6] style plots (gnuplot)
#                                       P2P: CSVs whose rows stand in for the p2p of cells of CSV
#                                       run without it: p2p simulated on fewer processes (shown as
#                                       "@N"), else a lower bound at CSV's size (variant p2p-bound,
#                                       scripts/smpi/p2p_bound.py --csv; shown as ">=")
#   --variants LIST                     cartbench variants (default: p2p, every algorithm with
#                                       each executor, cart-p); a subset where a baseline is
#                                       too costly to simulate (docs/scale.md says which rows)
#   --no-p2p                            no one-message-per-neighbour baseline at all (cartbench
#                                       --baseline VARIANT with the first of --variants): its
#                                       column is then the closed form's (docs/scale.md)
#   --simgrid PREFIX (or SIMGRID_PREFIX=PREFIX): PREFIX/bin/smpirun and build/smpi-NAME
#                                       (a SimGrid from scripts/smpi/build-simgrid.sh)
#   SMPI_PRIVATIZATION=mmap|dlopen      smpirun's smpi/privatization (default dlopen; mmap:
#                                       a third of the memory, slower; scripts/smpi/memory.sh)
#   SMPI_CFG="--cfg=K:V ..."            more smpirun options (docs/scale.md: the work-amount
#                                       precision some alltoallv cells need on SimGrid 4.1)
#
# Needs build/smpi (make build-smpi: smpicc/smpirun from libsimgrid-dev), or
# with --simgrid .../NAME build/smpi-NAME (make build-smpi SIMGRID_PREFIX=...).
# Every case runs cartbench under smpirun with the platform file's model;
# the file's `cartcoll-model:` line gives cartcoll's cost model (exported as
# CARTCOLL_ALPHA, CARTCOLL_OVERHEAD, CARTCOLL_BETA) and `cartcoll-nodes:`
# the hosts and processes per host (ranks placed by node).  Rows go to
# OUT/scale-NAME.csv as they finish (cartbench's CSV); at the end a table
# per neighbourhood, collective and m: simulated times in us of the p2p
# baseline and each algorithm (persistent), auto = Cart_X_init with the
# automatic choice (model, then timed trials), auto/best; the exit status
# is 1 if auto is more than 10% slower than the best algorithm in a row.
set -eu

usage() { sed -n '2,/^set -eu/p' "$0" | sed -n '/^#/s/^# \{0,1\}//p'; exit "${1:-0}"; }

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
build="" simgrid=${SIMGRID_PREFIX:-}
out=$root/build/scale
mode=quick np="" platform="" variants="" nop2p="" cases="" ms="" ops="" reps=1 warmup=2 tune_warmup=20 name=""
# --check-platforms: every platform file (default scripts/platforms/*.xml)
# has the lines scale.sh reads, with positive numbers, and well-formed XML
# where python3 can tell.
check_platforms() {
  [ $# -gt 0 ] || set -- "$here"/platforms/*.xml
  bad=0
  for f in "$@"; do
    m=$(sed -n 's/.*cartcoll-model: *//p' "$f")
    n=$(sed -n 's/.*cartcoll-nodes: *//p' "$f")
    # alpha, overhead, beta: given and positive; phase-wait, cpu (-): optional, non-negative
    for k in alpha overhead beta phase-wait- cpu-; do
      case $k in *-) opt=1 what=non-negative k=${k%-} ;; *) opt="" what=positive ;; esac
      v=$(echo "$m" | tr ' ' '\n' | sed -n "s/^$k=//p")
      [ -n "$opt" ] && [ -z "$v" ] && continue
      if ! awk -v v="$v" -v opt="$opt" 'BEGIN { exit !(v ~ /^[0-9.]+(e-?[0-9]+)?$/ && (opt != "" || v + 0 > 0)) }'; then
        echo "$f: cartcoll-model's $k is not a $what number" >&2; bad=1
      fi
    done
    echo "$n" | grep -Eq 'hosts=[A-Za-z0-9_]+-[0-9]+\.\.[0-9]+ per-node=[1-9][0-9]*' ||
      { echo "$f: cartcoll-nodes is not hosts=PREFIX-FIRST..LAST per-node=N" >&2; bad=1; }
    grep -q '<cluster ' "$f" || { echo "$f: no <cluster>" >&2; bad=1; }
    if command -v python3 >/dev/null &&
       ! python3 -c 'import sys, xml.dom.minidom as m; m.parse(sys.argv[1])' "$f" 2>/dev/null; then
      echo "$f: not well-formed XML" >&2; bad=1
    fi
    [ $bad = 0 ] && echo "$f: ok"
  done
  exit $bad
}

# awk: csv() splits one CSV line (quotes respected); col[] maps the
# header's names to columns; alg_of() names an algorithm's column: a
# forced algorithm with a forced executor (cart-p-torus-pack) counts as the
# algorithm (cart-p-torus), the fastest executor standing for it.  Every
# file has its header.  Rows of files other than MAIN (--table/--plot CSV
# P2P...) give only bp[] and bnp[]: per (nbh, collective, m), the p2p time
# simulated on the most processes there, and how many; and lb[]: per
# (nbh, collective, m, np), a computed lower bound for p2p (p2p-bound).
csv_awk='
  function alg_of(v) {
    if (v ~ /^cart-p-(direct|combining|torus)-(pack|datatype)$/) sub(/-(pack|datatype)$/, "", v)
    return v
  }
  function csv(line, a,    n, i, c, q, f) {
    n = 0; f = ""; q = 0
    for (i = 1; i <= length(line); i++) {
      c = substr(line, i, 1)
      if (c == "\"") q = !q
      else if (c == "," && !q) { a[++n] = f; f = "" }
      else f = f c
    }
    a[++n] = f
    return n
  }
  FNR == 1 { nh = csv($0, h); for (i = 1; i <= nh; i++) col[h[i]] = i; next }
  FILENAME != MAIN {
    csv($0, r)
    k = r[col["nbh"]] SUBSEP r[col["collective"]] SUBSEP r[col["m"]]
    if (r[col["variant"]] == "p2p" && r[col["np"]] + 0 > bnp[k] + 0) { bnp[k] = r[col["np"]]; bp[k] = r[col["median_us"]] }
    if (r[col["variant"]] == "p2p-bound") lb[k, r[col["np"]]] = r[col["median_us"]]
    next
  }
'

# The table of a CSV: one row per (neighbourhood, collective, m); status 1
# where auto > 1.10 x best or a check failed.
table() {
awk -v MAIN="$1" "$csv_awk"'
  {
    csv($0, r)
    key = r[col["nbh"]] SUBSEP r[col["collective"]] SUBSEP r[col["m"]]
    if (!(key in seen)) { seen[key] = 1; order[n++] = key; np[key] = r[col["np"]] }
    v = alg_of(r[col["variant"]]); x = r[col["median_us"]]
    if (!((key, v) in t) || x + 0 < t[key, v] + 0) t[key, v] = x
    if (r[col["check"]] != "OK") ok[key] = ok[key] " " v ":" r[col["check"]]
  }
  END {
    printf "%-12s %-10s %5s %10s %10s %10s %10s %10s %9s %s\n", "nbh", "collective", "m", "p2p", "direct", "combining", "torus", "auto", "auto/best", "best"
    bad = 0
    for (i = 0; i < n; i++) {
      k = order[i]; split(k, f, SUBSEP)
      d = t[k, "cart-p-direct"]; c = t[k, "cart-p-combining"]; o = t[k, "cart-p-torus"]; a = t[k, "cart-p"]
      best = d; bn = "direct"
      if (c != "" && (best == "" || c + 0 < best + 0)) { best = c; bn = "combining" }
      if (o != "" && (best == "" || o + 0 < best + 0)) { best = o; bn = "torus" }
      rt = best > 0 && a != "" ? a / best : 0
      flag = rt > 1.10 ? "  <-- auto > 1.10 x best" : ""
      if (rt > 1.10 || (k in ok)) bad = 1
      rts = rt > 0 ? sprintf("%9.3f", rt) : sprintf("%9s", "-")   # no auto row (a run of forced variants)
      p = t[k, "p2p"]
      if (p == "" && (k in bp)) p = bp[k] "@" bnp[k]   # simulated on fewer processes
      if (p == "" && ((k, np[k]) in lb)) p = ">=" lb[k, np[k]]   # computed: a lower bound
      printf "%-12s %-10s %5s %10s %10s %10s %10s %10s %s %s%s%s\n", f[1], f[2], f[3], p, d, c, o, a, rts, bn, flag, ok[k]
    }
    exit bad
  }' "$@"
}

# Plots in the style of [Traff & Hunold 2019, Figures 3-6]: per collective and m, the
# time of each algorithm and of auto relative to the p2p baseline (below 1:
# faster), one group of bars per neighbourhood; PNG by gnuplot, next to
# the CSV (its .gp script and .dat data too).  A neighbourhood run without
# p2p (--no-p2p) at m = 1 is drawn against the closed form, one message per
# neighbour at a fixed cost each: a simulated p2p of the same panel scaled
# by t (docs/scale.md: within 5 ns in every m = 1 cell), marked "*"; one
# with a p2p row in another CSV (simulated on fewer processes: m = 100
# has no closed form) against that row, marked "(N)" (the table: "@N");
# else one with a p2p-bound row for its size against that lower bound,
# marked "(bound)": the bar is then at least the true ratio.
plot() {
  base=${1%.csv}
  command -v gnuplot >/dev/null || { echo "scale.sh: gnuplot not found (apt-get install gnuplot-nox)" >&2; exit 2; }
  awk -v MAIN="$1" "$csv_awk"'
    {
      csv($0, r)
      np = r[col["np"]]
      panel = r[col["collective"]] " m=" r[col["m"]]
      if (!(panel in pseen)) { pseen[panel] = 1; panels[npan++] = panel; mm[panel] = r[col["m"]]; pc[panel] = r[col["collective"]] }
      nb = r[col["nbh"]]
      if (!((panel, nb) in seen)) { seen[panel, nb] = 1; nbhs[panel, cnt[panel]++] = nb }
      tn[nb] = r[col["t"]]
      v = alg_of(r[col["variant"]]); x = r[col["median_us"]]
      if (!((panel, nb, v) in t) || x + 0 < t[panel, nb, v] + 0) t[panel, nb, v] = x
    }
    END {
      star = 0; shown = 0   # panels with a cell to draw (no baseline at all: left out)
      for (p = 0; p < npan; p++) {
        pn = panels[p]; block = ""
        rt = 0   # a simulated p2p of this panel, per neighbour (m = 1: the closed form)
        for (i = 0; i < cnt[pn]; i++) if (t[pn, nbhs[pn, i], "p2p"] > 0) { rt = t[pn, nbhs[pn, i], "p2p"] / tn[nbhs[pn, i]]; break }
        for (i = 0; i < cnt[pn]; i++) {
          nb = nbhs[pn, i]; b = t[pn, nb, "p2p"]; lab = nb
          if (b <= 0 && mm[pn] == 1 && rt > 0) { b = rt * tn[nb]; lab = nb "*"; star = 1 }
          k = nb SUBSEP pc[pn] SUBSEP mm[pn]   # the table key of bp[]
          if (b <= 0 && (k in bp)) { b = bp[k]; lab = nb " (" bnp[k] ")"; fewer = 1 }
          if (b <= 0 && ((k, np) in lb)) { b = lb[k, np]; lab = nb " (bound)"; bound = 1 }
          if (b <= 0) continue
          block = block sprintf("\"%s\" %.4f %.4f %.4f %.4f %.3f\n", lab, t[pn, nb, "cart-p-direct"] / b, t[pn, nb, "cart-p-combining"] / b,
                                t[pn, nb, "cart-p-torus"] / b, t[pn, nb, "cart-p"] / b, b)
        }
        if (block == "") continue
        printf "# %s\n%s\n\n", pn, block > DAT
        title[shown++] = pn
      }
      if (!shown) { print "scale.sh: nothing to draw: no cell has a p2p baseline" > "/dev/stderr"; exit 1 }
      cols = shown < 3 ? shown : 3; rows = int((shown + cols - 1) / cols)
      print "set terminal pngcairo size " 420 * cols "," 320 * rows " font \",9\"" > GP
      print "set output \"" PNG "\"" > GP
      print "set multiplot layout " rows "," cols " title \"" np " simulated processes: time relative to p2p (one message per neighbour; below 1 is faster)" (star ? "\\n* p2p not simulated: a simulated p2p of the panel scaled by t (the closed form at m = 1)" : "") (fewer ? "\\n(N): p2p simulated on N processes of the same model" : "") (bound ? "\\n(bound): p2p not simulated: against a lower bound from the torus routes, so the true ratio is at most the bar" : "") "\"" > GP
      print "set style data histograms; set style histogram clustered gap 1; set style fill solid 0.8 border -1" > GP
      print "set yrange [0:*]; set grid ytics; set xtics rotate by -30; set key below horizontal font \",8\"" > GP
      for (p = 0; p < shown; p++) {
        print "set title \"" title[p] "\"" > GP
        print "plot \"" DAT "\" index " p " using 2:xtic(1) title \"direct\", \"\" index " p " using 3 title \"combining\", \"\" index " p " using 4 title \"torus\", \"\" index " p " using 5 title \"auto\", 1 with lines lt 0 notitle" > GP
      }
      print "unset multiplot" > GP
    }' DAT="$base.dat" GP="$base.gp" PNG="$base.png" "$@" || return 1
  gnuplot "$base.gp" && echo "scale.sh: wrote $base.png ($base.gp, $base.dat)"
}

while [ $# -gt 0 ]; do
  case $1 in
    --check-platforms) shift; check_platforms "$@" ;;
    --table) shift; table "$@"; exit $? ;;
    --plot) shift; plot "$@"; exit $? ;;
    --quick) mode=quick ;;
    --full) mode=full ;;
    --titan) mode=titan ;;
    --local) mode=local ;;
    --np) np=$2; shift ;;
    --platform) platform=$2; shift ;;
    --cases) cases=$2; shift ;;
    -m) ms=$2; shift ;;
    --ops) ops=$2; shift ;;
    --reps) reps=$2; shift ;;
    --build) build=$2; shift ;;
    --simgrid) simgrid=$2; shift ;;
    --out) out=$2; shift ;;
    --name) name=$2; shift ;;
    --variants) variants=$2; shift ;;
    --no-p2p) nop2p=1 ;;
    -h|--help) usage 0 ;;
    *) echo "scale.sh: unknown argument $1" >&2; usage 2 >&2 ;;
  esac
  shift
done

case $mode in
  quick) : "${np:=256}" "${platform:=$here/platforms/hydra.xml}"
         : "${cases:=moore:2,3 moore:3,3}" "${ms:=1,100}" "${ops:=alltoall,allgather}" ;;
  full)  : "${np:=1152}" "${platform:=$here/platforms/hydra.xml}"
         : "${cases:=moore:2,3 moore:2,4 moore:2,5 moore:3,3 moore:3,4 moore:3,5 moore:4,3 moore:4,4 moore:4,5 moore:5,3 moore:5,4 moore:5,5}"
         : "${ms:=1,10,100}" "${ops:=alltoall,allgather,alltoallv}" ;;
  titan) : "${np:=16384}" "${platform:=$here/platforms/titan.xml}"
         : "${cases:=moore:3,3 moore:4,3 moore:3,5 moore:5,3}" "${ms:=1,100}" "${ops:=alltoall,allgather}"
         # one program for all 16384 (a third of the memory, 3 maps each)
         : "${SMPI_PRIVATIZATION:=mmap}"; export SMPI_PRIVATIZATION ;;
  local) : "${np:=4}" "${platform:=$here/platforms/local.xml}"
         : "${cases:=moore:2,3 moore:3,3 moore:4,3 moore:5,5}" "${ms:=1,100}" "${ops:=alltoall,allgather}" ;;
esac
: "${name:=$mode-$np}"

# Debian's SimGrid (smpirun on PATH, build/smpi) or one built from source
# into a prefix (PREFIX/bin/smpirun, build/smpi-NAME as make build-smpi
# SIMGRID_PREFIX=PREFIX names it).
if [ -n "$simgrid" ]; then
  simgrid=${simgrid%/}
  smpirun=$simgrid/bin/smpirun
  [ -x "$smpirun" ] || { echo "scale.sh: no $smpirun (scripts/smpi/build-simgrid.sh SRC $simgrid)" >&2; exit 2; }
  : "${build:=$root/build/smpi-$(basename "$simgrid")}"
else
  smpirun=$(command -v smpirun) || { echo "scale.sh: smpirun not found (apt-get install libsimgrid-dev)" >&2; exit 2; }
  : "${build:=$root/build/smpi}"
fi
[ -x "$build/bench/cartbench" ] || { echo "scale.sh: no $build/bench/cartbench (make build-smpi)" >&2; exit 2; }
[ -f "$platform" ] || { echo "scale.sh: no platform file $platform" >&2; exit 2; }

# SMPI loads one copy of the program per simulated process (dlopen), about
# 16 memory maps each (8-12 measured): 16384 processes need more than
# Linux's default vm.max_map_count (65530), else dlopen fails ("cannot
# apply additional memory protection after relocation").  With
# SMPI_PRIVATIZATION=mmap (smpirun's smpi/privatization) one program and
# about 3 maps per process (3.05 at 1152: scripts/smpi/memory.sh; docs/scale.md).
maps=$(cat /proc/sys/vm/max_map_count 2>/dev/null || echo 0)
per_maps=16
[ "${SMPI_PRIVATIZATION:-}" = mmap ] && per_maps=3
if [ "$maps" -gt 0 ] && [ "$maps" -lt $((np * per_maps)) ]; then
  echo "scale.sh: vm.max_map_count is $maps, $np processes need about $((np * per_maps)):" >&2
  echo "  sysctl -w vm.max_map_count=$((np * 2 * per_maps))   (as root), or SMPI_PRIVATIZATION=mmap" >&2
  exit 2
fi

# The platform's cost model and hosts.
model=$(sed -n 's/.*cartcoll-model: *//p' "$platform")
nodes=$(sed -n 's/.*cartcoll-nodes: *//p' "$platform")
[ -n "$model" ] && [ -n "$nodes" ] || { echo "scale.sh: $platform lacks cartcoll-model/cartcoll-nodes lines" >&2; exit 2; }
. "$here/smpi/platform_model.sh"
cc_platform_model "$platform"
hosts="" per=1
for kv in $nodes; do
  case $kv in hosts=*) hosts=${kv#hosts=} ;; per-node=*) per=${kv#per-node=} ;; esac
done
prefix=${hosts%%..*}; last=${hosts##*..}; first=${prefix##*-}; prefix=${prefix%-*}-
mkdir -p "$out"
hostfile=$out/hosts-$name
awk -v p="$prefix" -v f="$first" -v l="$last" -v per="$per" -v np="$np" 'BEGIN {
  n = 0
  for (h = f; h <= l && n < np; h++) for (k = 0; k < per && n < np; k++) { print p h; n++ }
  if (n < np) { print "too few slots: " n " < " np > "/dev/stderr"; exit 1 } }' > "$hostfile"

csv=$out/scale-$name.csv
rm -f "$csv"
# Each algorithm with each executor forced, so that nothing but auto tunes
# itself: the others need a single warm-up call in a deterministic
# simulation, auto one per trial of its candidates (--tune-warmup).
: "${variants:=p2p,cart-p-direct-pack,cart-p-direct-datatype,cart-p-combining-pack,cart-p-combining-datatype,cart-p-torus-pack,cart-p-torus-datatype,cart-p}"
# --no-p2p: the first variant is the baseline (cartbench runs p2p only as
# one); a default list then leaves p2p out
baseline=""
if [ -n "$nop2p" ]; then
  variants=$(echo "$variants" | tr , '\n' | grep -vx p2p | paste -sd, -)
  baseline="--baseline ${variants%%,*}"
fi
echo "# scale.sh $mode: $np simulated processes on $(basename "$platform") ($("$smpirun" -version 2>/dev/null | head -n 1)), CARTCOLL_ALPHA=$CARTCOLL_ALPHA CARTCOLL_OVERHEAD=$CARTCOLL_OVERHEAD CARTCOLL_BETA=$CARTCOLL_BETA CARTCOLL_PHASE_WAIT=${CARTCOLL_PHASE_WAIT:-} CARTCOLL_CPU=${CARTCOLL_CPU:-}"
start=$(date +%s)
for nbh in $cases; do
  for op in $(echo "$ops" | tr , ' '); do
    irr=""
    case $op in alltoallv|alltoallw) irr=--irregular ;; esac
    t0=$(date +%s)
    one=$out/one-$name.csv
    rm -f "$one"
    # shellcheck disable=SC2086
    if ! "$smpirun" -np "$np" -platform "$platform" -hostfile "$hostfile" --log=root.thres:critical ${SMPI_CFG:-} \
          "$build/bench/cartbench" --no-progress --reps "$reps" --warmup "$warmup" --tune-warmup "$tune_warmup" -m "$ms" --ops "$op" $irr \
          --variants "$variants" $baseline --max-mib 64 --csv "$one" "$nbh" > "$out/log-$name.txt" 2>&1; then
      echo "scale.sh: $nbh $op failed (see $out/log-$name.txt)" >&2
    fi
    if [ -f "$one" ]; then
      if [ -f "$csv" ]; then tail -n +2 "$one" >> "$csv"; else cp "$one" "$csv"; fi
    fi
    echo "#   $nbh $op: $(( $(date +%s) - t0 )) s" >&2
  done
done
echo "# simulated in $(( $(date +%s) - start )) s; rows in $csv"


table "$csv"
