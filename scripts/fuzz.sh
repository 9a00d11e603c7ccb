#!/bin/sh
# Fuzz the pure schedule layer (builders, stats, localizer) through the
# in-memory simulator: scripts/fuzz.sh [seconds, default 30].
# Builds tests/fuzz/fuzz_schedule.c with clang's libFuzzer, ASan and UBSan
# into $FUZZ_BUILD (default /tmp/cartcoll-fuzz) and runs it there; the
# corpus and any crash artifacts stay in that directory.  Exits 0 with a
# notice when clang or libFuzzer is unavailable, non-zero on a crash.
set -u
secs=${1:-30}
out=${FUZZ_BUILD:-/tmp/cartcoll-fuzz}
root=$(cd "$(dirname "$0")/.." && pwd)
cc=${FUZZ_CC:-clang}

if ! command -v "$cc" >/dev/null 2>&1; then
    echo "fuzz.sh: $cc not found, skipping"
    exit 0
fi
mkdir -p "$out/corpus" || exit 1
printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n);\nint LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { (void)d; (void)n; return 0; }\n' >"$out/probe.c"
if ! "$cc" -fsanitize=fuzzer,address,undefined "$out/probe.c" -o "$out/probe" >/dev/null 2>&1; then
    echo "fuzz.sh: $cc has no libFuzzer runtime, skipping"
    exit 0
fi

src="$root/src"
"$cc" -std=c11 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
    -Wall -Wextra -I"$src" -I"$root/tests/unit" \
    "$src/geom/geometry.c" "$src/geom/stencil_core.c" "$src/sched/schedule.c" "$src/sched/schedule_build.c" "$src/sched/schedule_direct.c" \
    "$src/sched/schedule_combining_alltoall.c" "$src/sched/schedule_combining_allgather.c" \
    "$src/sched/schedule_order.c" "$src/sched/schedule_torus.c" "$src/sched/schedule_stats.c" "$src/sched/schedule_reduce.c" \
    "$src/sched/localize.c" \
    "$root/tests/unit/simulate.c" "$root/tests/fuzz/fuzz_schedule.c" \
    -o "$out/fuzz_schedule" || exit 1

cd "$out" || exit 1
./fuzz_schedule -max_total_time="$secs" -max_len=1024 -timeout=20 -print_final_stats=1 \
    -artifact_prefix="$out/" corpus
