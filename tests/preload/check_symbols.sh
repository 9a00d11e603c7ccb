#!/bin/sh
# The drop-in never intercepts the library it carries (cmake/CartcollPreload.cmake):
#   - no library object linked into it references (nm -u) an MPI_ name the
#     drop-in defines (nm -D: what a program's calls reach);
#   - it does not need libcartcoll.so (readelf -d).
# And it is not vacuous: the drop-in defines MPI_ names, and the objects
# call some of them through PMPI_ (they were built the drop-in's way).
#
# Usage: check_symbols.sh [--expect-violation] NM READELF DROPIN OBJECT...
# --expect-violation (the twin, test preload_symbols_detects_violation):
#   succeed only if the check fails, naming an object that references
#   MPI_Wait and a DROPIN that needs libcartcoll.so.
set -u
twin=0
[ "$1" = --expect-violation ] && { twin=1; shift; }
nm=$1 readelf=$2 dropin=$3
shift 3
out=$(mktemp)
trap 'rm -f "$out"' EXIT

check() {
    bad=0
    defined=$("$nm" -D --defined-only "$dropin" | awk '$3 ~ /^MPI_/ { print $3 }' | sort -u)
    [ -n "$defined" ] || { echo "$dropin: defines no MPI_ name"; bad=1; }
    # (one nm and one awk for all objects: lines "OBJECT: U NAME")
    "$nm" -A -u "$@" | awk -v defined="$defined" '
        BEGIN { n = split(defined, d, "\n"); for (i = 1; i <= n; i++) def[d[i]] = 1 }
        {
            name = $NF; obj = $1; sub(/:$/, "", obj)
            if (name in def) { print obj ": references " name ", which the drop-in defines"; bad = 1 }
            else if (name ~ /^PMPI_/ && (substr(name, 2) in def)) pmpi++
        }
        END {
            if (!pmpi) { print "no object calls a name the drop-in defines through PMPI_ (not the drop-in'"'"'s copy?)"; bad = 1 }
            exit bad
        }' || bad=1
    needed=$("$readelf" -d "$dropin" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
    for lib in $needed; do
        case $lib in libcartcoll.so*) echo "$dropin: needs $lib"; bad=1 ;; esac
    done
    return $bad
}

check "$@" >"$out" 2>&1
rc=$?
cat "$out"
if [ $twin -eq 0 ]; then
    [ $rc -eq 0 ] && echo "check_symbols: $# objects reference no MPI_ name the drop-in defines; it needs no libcartcoll.so"
    exit $rc
fi
[ $rc -ne 0 ] || { echo "check_symbols: the deliberate violations were not detected"; exit 1; }
grep -q ": references MPI_Wait, which the drop-in defines" "$out" ||
    { echo "check_symbols: the object calling MPI_Wait was not reported"; exit 1; }
grep -q ": needs libcartcoll.so" "$out" ||
    { echo "check_symbols: the dependency on libcartcoll.so was not reported"; exit 1; }
echo "check_symbols: both deliberate violations reported"
