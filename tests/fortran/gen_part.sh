#!/bin/sh
# gen_part.sh PYTHON SOURCE_DIR FC CC [CFI_INCLUDE]
# Adding [part] later: gen_bindings.py run on include/cartcoll.h grown by the
# [part] prototypes of API.md (part_prototypes.h) must bind every one of
# them, and the module and the glue it writes must compile (not link: the
# library has no [part] yet).  Nothing is written into the source tree.
set -eu
py=$1 src=$2 fc=$3 cc=$4 cfi=${5:-}
work=$(mktemp -d "${TMPDIR:-/tmp}/cartcoll-part.XXXXXX")
trap 'rm -rf "$work"' EXIT
cat "$src/include/cartcoll.h" "$src/tests/fortran/part_prototypes.h" >"$work/cartcoll.h"
"$py" "$src/fortran/gen_bindings.py" --header "$work/cartcoll.h" --outdir "$work"
for f in $(sed -n 's/^int \(Cart_p[a-z_]*\)(.*/\1/p' "$src/tests/fortran/part_prototypes.h"); do
    grep -q "^  SUBROUTINE $f(" "$work/cartcoll_f08.f90" || { echo "gen_part: $f not bound" >&2; exit 1; }
done
# CCF_PART_FFLAGS / CCF_PART_CFLAGS: MPI's include directories where the
# compilers are not MPI wrappers (set by CMakeLists.txt).
# shellcheck disable=SC2086
(cd "$work" && "$fc" ${CCF_PART_FFLAGS:-} -c cartcoll_f08.f90)
# shellcheck disable=SC2086
"$cc" ${CCF_PART_CFLAGS:-} -std=c11 -Wall -Wextra -Werror -c -include "$src/tests/fortran/part_prototypes.h" -I"$src/include" \
    -I"$src/fortran" ${cfi:+-I"$cfi"} "$work/cartcoll_f08_glue.c" -o "$work/glue.o"
echo "gen_part: the [part] prototypes are bound and compile"
