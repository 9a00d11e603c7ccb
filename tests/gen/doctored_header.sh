#!/bin/sh
# The twins of the test generated_header: a copy of include/cartcoll.h with
# one deliberate edit (a sed expression) must make maint/gen.py
# --check-header fail and name the disagreement (the test's
# PASS_REGULAR_EXPRESSION).
# usage: doctored_header.sh PYTHON GEN_PY HEADER OUT SED_EXPRESSION
py=$1 gen=$2 header=$3 out=$4 expr=$5
sed "$expr" "$header" > "$out" || exit 2
if cmp -s "$header" "$out"; then
    echo "doctored_header.sh: the edit '$expr' changed nothing"
    exit 2
fi
exec "$py" "$gen" --check-header --header "$out"
