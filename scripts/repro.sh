#!/bin/sh
# Run the hostile-testing reproducers against an *installed* cartcoll, under
# timeouts, and check each behaves as its README says is right (issues 8
# and 26).
#
# Usage: scripts/repro.sh [--big] [--set 1|3] [openmpi|mpich] [repro dir]
#   --set 1 (default): ../shared/repro (first round);
#   --set 3: ../shared/repro3 (second round: D1-D8, every program must print
#            RESULT: PASS on both MPIs).
#   openmpi (default): every reproducer, 1-4 processes;
#   mpich: the cases its README runs on MPICH (MPICH busy-polls: few processes).
#   --big also runs bigcount_self with a 2.4 GB block (needs ~8 GB, ~30 s).
# The library is built (build/<mpi>) and installed into build/repro-<mpi>/prefix
# first; the reproducers are compiled with that prefix's header and library.
# Prints one line per case and "N passed, M failed"; exits 1 on a failure.
set -eu
big=0
set_=1
while :; do
    case ${1:-} in
    --big) big=1; shift ;;
    --set) set_=$2; shift 2 ;;
    *) break ;;
    esac
done
mpi=${1:-openmpi}
here=$(cd "$(dirname "$0")/.." && pwd)
case $set_ in
1) repro=${2:-$here/../shared/repro} ;;
3) repro=${2:-$here/../shared/repro3} ;;
*) echo "repro.sh: unknown set '$set_' (1 or 3)" >&2; exit 1 ;;
esac
[ -d "$repro" ] || { echo "repro.sh: no reproducers in $repro" >&2; exit 1; }
repro=$(cd "$repro" && pwd)
work=$here/build/repro-$mpi
prefix=$work/prefix
case $mpi in
openmpi) launch=mpirun.openmpi ;;
mpich) launch=mpiexec.mpich ;;
*) echo "repro.sh: unknown MPI '$mpi' (openmpi or mpich)" >&2; exit 1 ;;
esac
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1

make -C "$here" --no-print-directory "build-$mpi" >/dev/null
rm -rf "$prefix"
cmake --install "$here/build/$mpi" --prefix "$prefix" >/dev/null
libdir=$(find "$prefix" -name 'libcartcoll.so' -printf '%h\n' | head -n 1)
rm -rf "$work/bin"
mkdir -p "$work/bin"
for src in "$repro"/*.c; do
    name=$(basename "$src" .c)
    "mpicc.$mpi" -g -w -I"$prefix/include" -I"$repro" "$src" -L"$libdir" -lcartcoll \
        -Wl,-rpath,"$libdir" -o "$work/bin/$name"
done

passed=0
failed=0
# check <what> <expected text (grep -E)> <timeout s> <np> <program> [args...]
# A program name without a slash is a reproducer.  With anyexit=1 the exit
# status does not count (a fatal error handler aborts by design).
anyexit=0
check() {
    what=$1 want=$2 limit=$3 np=$4
    shift 4
    prog=$1
    shift
    case $prog in */*) ;; *) prog=$work/bin/$prog ;; esac
    out=$work/out.txt
    status=0
    timeout "$limit" "$launch" -n "$np" "$prog" "$@" >"$out" 2>&1 || status=$?
    if { [ $status -eq 0 ] || { [ $anyexit = 1 ] && [ $status -ne 124 ]; }; } && grep -Eq "$want" "$out" &&
        ! grep -Eq 'RESULT: FAIL|WRONG|Invalid (read|write|free)|(at|by) 0x[0-9A-F]+: (Cart_|cc_)' "$out"; then
        passed=$((passed + 1))
        echo "ok    $what"
    else
        failed=$((failed + 1))
        echo "FAIL  $what (expected /$want/ within ${limit}s; output follows)"
        tail -n 15 "$out" | sed 's/^/      /'
    fi
}

if [ "$set_" = 3 ]; then
    # D1: NULL displacement arrays and buffers, global meaning (1 process each)
    for k in 0 1 2 3 4 5 6; do check "null_displs $k (1)" 'RESULT: PASS' 60 1 null_displs $k; done
    # D2: a failed Cart_pready_list marks nothing
    check "pready_partial (2)" 'RESULT: PASS' 60 2 pready_partial
    # D3: MPI_Error_string gives the library's sentence (both MPIs)
    check "error_string_mpich (1)" 'RESULT: PASS' 60 1 error_string_mpich
    # D4: a freed, never started early bird leaves nothing behind
    for np in 2 3; do
        check "pscan_after_early s 1 ($np)" 'RESULT: PASS' 90 $np pscan_after_early s 1
        check "pscan_after_early m 1 ($np)" 'RESULT: PASS' 90 $np pscan_after_early m 1
    done
    # D5: inter-communicator bcast with a root other than rank 0 of its group
    for root in 0 1; do check "inter_bcast $root (4)" 'RESULT: PASS' 90 4 inter_bcast $root; done
    # D6: info values of numbers
    check "aggodd (3)" 'RESULT: PASS' 90 3 aggodd
    # D8: in-place alltoallv, then a non-blocking collective
    check "iallgatherv_after_inplace (3)" 'RESULT: PASS' 60 3 iallgatherv_after_inplace
    echo "repro.sh set 3 ($mpi): $passed passed, $failed failed"
    [ $failed -eq 0 ]
    exit
fi

# 1. type maps that do not run forward through memory
check "repro_typemap (1)" '^send struct.* ok$' 60 1 repro_typemap
for alg in direct combining torus auto; do
    for ex in datatype pack auto; do
        if [ "$mpi" = openmpi ]; then np=4; else np=2; fi
        check "reversed_type2 $alg $ex ($np)" 'RESULT: PASS' 60 $np reversed_type2 $alg $ex
    done
done
# 3. failed calls must not desynchronise the processes
for s in 1 2 3; do check "tag_diverge $s (2)" 'RESULT: PASS' 60 2 tag_diverge $s; done
# 11. different info on *_init: an error everywhere, no hang
if [ "$mpi" = openmpi ]; then np=4; else np=2; fi
for pair in "direct combining" "combining none" "auto torus" "pack datatype" "direct direct"; do
    # shellcheck disable=SC2086
    check "init_info_mismatch $pair ($np)" 'RESULT: PASS' 60 $np init_info_mismatch $pair
done
# 7. stencil counts in closed form
check "stencil_big 1 1 0 1000000 (1)" 'MPI_SUCCESS count=2000001 ' 30 1 stencil_big 1 1 0 1000000
check "stencil_big 3 2 0 1000 (1)" 'MPI_ERR_ARG' 30 1 stencil_big 3 2 0 1000
check "stencil_big 2 1 0 30000 (1)" 'MPI_SUCCESS count=1800060001 ' 30 1 stencil_big 2 1 0 30000

if [ "$mpi" = openmpi ]; then
    # 2. tag reuse after 32760 operations
    check "tag_wrap2d 32759 2000 combining (4)" 'RESULT: PASS' 300 4 tag_wrap2d 32759 2000 combining
    check "tag_wrap2d 32759 500 torus (4)" 'RESULT: PASS' 300 4 tag_wrap2d 32759 500 torus
    # 4. no collective hidden in a non-blocking call
    for alg in combining direct torus auto; do
        check "dup_first_nb $alg 0 (4)" 'RESULT: PASS' 60 4 dup_first_nb $alg 0
    done
    # 5. the same request twice in Cart_waitall: an error, valgrind clean
    # (its default handler is MPI_ERRORS_ARE_FATAL: the error aborts the run)
    if command -v valgrind >/dev/null 2>&1; then
        anyexit=1
        # (Open MPI's PMIx reports uninitialised bytes of its own: only a
        # report that passes through the library counts)
        check "repro_waitall_dup under valgrind (2)" 'requests\[0\] and requests\[1\] are the same request' 120 2 \
            "$(command -v valgrind)" -q "$work/bin/repro_waitall_dup"
        anyexit=0
    fi
    # 6. errors on a request whose communicator was freed
    check "repro_freed_comm_error (2)" 'class 7 \(MPI_ERR_REQUEST = 7\)' 60 2 repro_freed_comm_error
    # 9. MPI_BOTTOM with absolute displacements
    check "bottom_w (2)" 'RESULT: PASS' 60 2 bottom_w
    check "bottom_w (3)" 'RESULT: PASS' 60 3 bottom_w
    # 10. asynchronous progress
    export CARTCOLL_ASYNC_PROGRESS=1
    for alg in combining torus auto; do
        check "progress_dep cart $alg, CARTCOLL_ASYNC_PROGRESS=1 (4)" 'RESULT: PASS' 60 4 progress_dep cart $alg
    done
    unset CARTCOLL_ASYNC_PROGRESS
    # 8. blocks over 2 GiB to the process itself
    if [ $big = 1 ]; then
        for ex in datatype pack; do
            check "bigcount_self 600000000 $ex (1)" 'MPI_SUCCESS bad=0' 300 1 bigcount_self 600000000 $ex
        done
    fi
fi
echo "repro.sh ($mpi): $passed passed, $failed failed"
[ $failed -eq 0 ]
