#!/usr/bin/env python3
"""Make what the list of collectives (maint/collectives.py, maint/api.py)
describes, and check the hand-written header against it (issue 27, item 1).

    python3 maint/gen.py                 write the generated files
    python3 maint/gen.py --check         fail when a committed file differs
                                         from what the list makes (test
                                         generated_current)
    python3 maint/gen.py --check-header [--header FILE]
                                         fail when include/cartcoll.h (or
                                         FILE) and the list disagree (test
                                         generated_header)

Generated, committed, never edited by hand:
  src/api/entry_points.gen.c   the Cart_ entry points of the [core] and
                               [ortho] collectives: each its call as a
                               cc_call and a thin call into the one front
                               (cc_front_call)
  src/api/part_entry_points.gen.c
                               the partitioned Cart_pX_init: each a thin
                               call into cc_part_call
  src/coll/collectives.gen.h   the descriptors' table (CC_COLLECTIVES)
  src/pmpi/wrappers.gen.c      the drop-in's MPI_Neighbor_X, MPI_Ineighbor_X,
                               MPI-4 MPI_Neighbor_X_init (rows with dropin)
  src/pmpi/fortran_wrappers.gen.c
                               Open MPI's Fortran spellings of the drop-in's
                               blocking and non-blocking collectives
  fortran/cartcoll_f08.f90, fortran/cartcoll_f08_glue.c
                               the Fortran module (fortran/gen_bindings.py)
Python standard library only; the build never runs it.
"""

import argparse
import os
import re
import sys

sys.dont_write_bytecode = True  # (the tests run it in the source tree)
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "fortran"))

import api  # noqa: E402
import collectives as C  # noqa: E402
import gen_bindings  # noqa: E402

MODE_CODE = {C.BLOCKING: "CC_MODE_BLOCKING", C.NONBLOCKING: "CC_MODE_NONBLOCKING", C.PERSISTENT: "CC_MODE_PERSISTENT"}
REGENERATE = "python3 maint/gen.py"


def wrap(head, items, tail, indent, width=118):
    """head + ', '.join(items) + tail, broken before an item that would pass width."""
    lines, cur = [], head
    for i, it in enumerate(items):
        piece = it + (", " if i < len(items) - 1 else "")
        if len(cur) + len(piece.rstrip()) > width and cur.strip():
            lines.append(cur.rstrip())
            cur = " " * indent + piece
        else:
            cur += piece
    return "\n".join(lines + [cur + tail])


def c_decl(p):
    t = p.ctype if p.ctype.endswith("*") else p.ctype + " "
    return f"{t}{p.name}{'[]' if p.array else ''}"


# ---------------------------------------------------------------- entry points

def field_of(c, p):
    """The field of the one call description (cc_call) that parameter p fills."""
    f = c.fields.get(p.name, p.name)
    if p.ctype == "const MPI_Aint":
        f += "w"  # cc_call keeps byte displacements apart (sdisplsw, rdisplsw)
    return f


def entry_point(fn):
    c, mode = fn.coll, fn.mode
    head = f"int {fn.name}("
    out = [wrap(head, [c_decl(p) for p in fn.params], ")", len(head))]
    data = [p for p in fn.params if p.name not in (c.comm, "info", "request")]
    info = "info" if mode == C.PERSISTENT else "MPI_INFO_NULL"
    request = "NULL" if mode == C.BLOCKING else "request"
    inits = [f".coll = &cc_coll_{c.name}"] + [f".{field_of(c, p)} = {p.name}" for p in data] + [f".comm = {c.comm}"]
    out.append("{")
    out.append(wrap("    cc_call c = { ", inits, " };", 18))
    out.append(f'    return cc_front_call("{fn.name}", &c, {MODE_CODE[mode]}, {info}, {request});')
    out.append("}")
    return "\n".join(out) + "\n"


def part_fields(c, p):
    """The fields of cc_pargs (src/part/pcoll.h) that parameter p fills."""
    return (c.part.fields.get(p.name) or C.PART_FIELDS[(p.name, p.array)]).split(",")


def part_entry_point(fn):
    """Cart_pX_init: its arguments as a cc_pargs, then its row of the
    partitioned layer (cc_part_call, src/api/partitioned.c)."""
    c = fn.coll
    head = f"int {fn.name}("
    out = [wrap(head, [c_decl(p) for p in fn.params], ")", len(head))]
    inits = []
    for p in fn.params:
        if p.name in (c.part.comm, "info", "request"):
            continue
        for f in part_fields(c, p):
            inits.append(f".{f} = {p.name}")
            if f in C.PART_TYPE_NULL:
                inits.append(f".{C.PART_TYPE_NULL[f]} = MPI_DATATYPE_NULL")
    out.append("{")
    out.append(wrap("    cc_pargs a = { ", inits, " };", 19))
    out.append(f"    return cc_part_call(CC_PC_{c.name.upper()}, &a, {c.part.comm}, info, request);")
    out.append("}")
    return "\n".join(out) + "\n"


ENTRY_HEAD = f"""\
/* Generated by maint/gen.py from maint/collectives.py: do not edit.
 * Regenerate with `{REGENERATE}` after changing the list and commit
 * the result (the test generated_current fails on a stale copy).
 *
 * The Cart_ entry points of the [core] and [ortho] collectives, blocking,
 * non-blocking and persistent: each describes its call (cc_call,
 * src/bind/call.h: its descriptor and its arguments) and calls the one
 * front, cc_front_call (src/api/front.c: the families of src/coll/).  The
 * partitioned ones are in part_entry_points.gen.c. */
#include "cartcoll.h"

#include "api/front.h"
"""


def entry_points_file():
    fns = [f for f in api.functions() if f.coll is not None and f.mode != "partitioned"]
    return ENTRY_HEAD + "".join("\n" + entry_point(f) for f in fns)


# A file of their own: their front (partitioned.c) makes them of the other
# entry points' Cart_X_init, so one file would call itself through it.
PART_HEAD = f"""\
/* Generated by maint/gen.py from maint/collectives.py: do not edit.
 * Regenerate with `{REGENERATE}` after changing the list and commit
 * the result (the test generated_current fails on a stale copy).
 *
 * The sixteen partitioned Cart_pX_init: each describes its arguments as a
 * cc_pargs (src/part/pcoll.h) and runs its row of the partitioned layer
 * through cc_part_call (src/api/partitioned.c). */
#include "cartcoll.h"

#include "api/front.h"
"""


def part_entry_points_file():
    fns = [f for f in api.functions() if f.coll is not None and f.mode == "partitioned"]
    return PART_HEAD + "".join("\n" + part_entry_point(f) for f in fns)


# ---------------------------------------------------------------- descriptors

DESC_HEAD = f"""\
/* Generated by maint/gen.py from maint/collectives.py: do not edit.
 * Regenerate with `{REGENERATE}`.
 *
 * The collective descriptors (cc_coll, src/coll/coll.h), one row each:
 *   X(lower, Upper, pinit, nbh, variant, plan, flags, MPI's arguments
 *     from cc_call *c...)
 * lower / Upper spell MPI's call (MPI_Ibcast, MPI_Bcast); pinit is
 * CC_PINIT_PTR (MPI's persistent form where the MPI has one) or
 * CC_PINIT_SUSPECT (not on MPICH); nbh: the collective with neighbourhood
 * meaning, 0 where it is undefined; variant: how the side with one block
 * per peer is described (bind/call.h); plan: its entry family of planning
 * there (src/coll/family.h), NULL where it has none.  The collectives MPI
 * has no call for, one row each in CC_COLLECTIVES_VIA:
 *   X(lower, nbh, variant, plan, flags, via)
 * via: the descriptor whose MPI call runs them with global meaning.
 * coll.h declares them, descriptors.c defines them. */
#ifndef CC_COLLECTIVES_GEN_H
#define CC_COLLECTIVES_GEN_H

"""


VARIANT = {C.V: "CC_VECTOR", C.W: "CC_W"}


def descriptor_row(c):
    d = c.descriptor
    variant = VARIANT.get(c.family, "CC_REGULAR")
    plan = f"&cc_family_{d.plan}" if d.plan else "NULL"
    if d.via:
        return wrap("    X(", [c.name, d.nbh, variant, plan, d.flags, d.via], ")", 6, width=114)
    fn = api.coll_function(c, C.BLOCKING)
    args = [f"c->{'comm' if p.name == c.comm else c.fields.get(p.name, p.name)}" for p in fn.params]
    pinit = {"trusted": "CC_PINIT_PTR", "suspect": "CC_PINIT_SUSPECT"}[d.pinit]
    items = [c.name, c.mpi[len("MPI_"):], pinit, d.nbh, variant, plan, d.flags] + args
    return wrap("    X(", items, ")", 6, width=114)


def x_list(name, rows):
    lines = []
    for r in rows:
        lines += [ln.ljust(118) + "\\" for ln in r.split("\n")]
    return f"#define {name}(X) \\\n" + "\n".join(lines).rstrip("\\").rstrip() + "\n"


def descriptors_file():
    mpi = [descriptor_row(C.by_name(n)) for n in C.DESCRIPTOR_ORDER]
    via = [descriptor_row(c) for c in C.COLLECTIVES if c.descriptor.via]
    return DESC_HEAD + x_list("CC_COLLECTIVES", mpi) + "\n" + x_list("CC_COLLECTIVES_VIA", via) + "\n#endif\n"


# ---------------------------------------------------------------- the drop-in

def dropin_params(c, mode):
    """The parameters of the drop-in's MPI_ wrapper of c in one mode: the
    Cart_ function's, the communicator spelled comm, MPI's request."""
    out = []
    for p in api.coll_function(c, mode).params:
        if p.name == c.comm:
            p = api.Param(p.ctype, "comm", p.array)
        elif p.ctype == "Cart_request *":
            p = api.Param("MPI_Request *", p.name, p.array)
        out.append(p)
    return out


def hang(head, items, tail):
    """wrap() with continuation lines under the first item."""
    return wrap(head, items, tail, len(head))


def dropin_name(c, mode):
    base = c.dropin[len("MPI_Neighbor_"):]
    return {C.BLOCKING: c.dropin, C.NONBLOCKING: f"MPI_Ineighbor_{base}", C.PERSISTENT: f"{c.dropin}_init"}[mode]


def dropin_wrapper(c, mode):
    """MPI's call where the drop-in does not take the communicator (or the
    request pointer is NULL: MPI's call raises that error), else the Cart_
    collective of the same name; requests wrapped by requests.c."""
    name, params = dropin_name(c, mode), dropin_params(c, mode)
    names = [p.name for p in params]
    head = f"int {name}("
    out = [wrap(head, [c_decl(p) for p in params], ")", len(head)), "{"]
    if mode == C.BLOCKING:
        out.append("    if (!pl_take(comm, 1, NULL))")
        out.append(hang(f"        return P{name}(", names, ");"))
        out.append(hang(f"    return {c.cname(mode)}(", names, ");"))
        return "\n".join(out + ["}"]) + "\n"
    cart_args = names[:-1] + ["&cr"]
    if mode == C.NONBLOCKING:
        out.append("    if (!request || !pl_take(comm, 1, NULL))")
    else:
        out.append("    int cart = 0;")
        out.append("    if (!request || !pl_take(comm, 0, &cart))")
    out.append(hang(f"        return P{name}(", names, ");"))
    out.append("    Cart_request cr = CART_REQUEST_NULL;")
    out.append(hang(f"    int rc = {c.cname(mode)}(", cart_args, ");"))
    out.append("    if (rc != MPI_SUCCESS) return rc;")
    out.append("    return pl_req_nonblocking(cr, request);" if mode == C.NONBLOCKING
               else "    return pl_req_persistent(cr, cart, request);")
    return "\n".join(out + ["}"]) + "\n"


WRAPPERS_HEAD = f"""\
/* Generated by maint/gen.py from maint/collectives.py (the rows with a
 * dropin name): do not edit.  Regenerate with `{REGENERATE}`.
 *
 * The drop-in's neighbourhood collectives (libcartcoll_preload.so): each
 * MPI_Neighbor_X, MPI_Ineighbor_X and (MPI-4) MPI_Neighbor_X_init is the
 * Cart_ collective of the same name on the same communicator where the
 * drop-in takes it (pl_take, classify.c), else MPI's own call, whose
 * request is then MPI's.  The program's request pointer is checked by
 * MPI's call (it raises the error) rather than here.  Non-blocking and
 * persistent operations are wrapped in a request the program can give to
 * any MPI call (requests.c).  Counting for the report: a blocking or
 * non-blocking call when it is made, a persistent one at each MPI_Start
 * (requests.c), not at init. */
#include "pmpi/preload.h"

#include <stddef.h>
"""

PERSISTENT_HEAD = """
/* MPI-4's persistent neighbourhood collectives (MPICH 4.0; Open MPI 4.1
 * has only its MPIX_ extension, which is left to MPI). */
#if MPI_VERSION >= 4
"""


def dropin_rows():
    return [c for c in C.COLLECTIVES if c.dropin]


def wrappers_file():
    rows = dropin_rows()
    text = WRAPPERS_HEAD
    for mode in (C.BLOCKING, C.NONBLOCKING):
        text += "".join("\n" + dropin_wrapper(c, mode) for c in rows)
    text += PERSISTENT_HEAD + "".join("\n" + dropin_wrapper(c, C.PERSISTENT) for c in rows)
    return text + "\n#endif\n"


def fortran_param(c, p):
    """(Fortran-side declaration, the argument the C call gets) of parameter
    p of the drop-in's wrapper of c, as Open MPI's Fortran layer passes it."""
    if p.ctype in ("const void *", "void *"):
        conv = "pl_f_sbuf" if p.ctype.startswith("const") else "pl_f_rbuf"
        return f"void *{p.name}", f"{conv}({p.name})"
    if p.ctype == "MPI_Comm":
        return f"MPI_Fint *{p.name}", "c"
    if p.array and p.ctype == "const MPI_Datatype":
        if p.name not in c.dropin_ftypes:
            sys.exit(f"gen.py: {c.name}: datatype array {p.name} not in the row's dropin_ftypes")
        return f"MPI_Fint *{p.name}", "t" if p.name == c.dropin_ftypes[0] else "t + out"
    ftype = {"int": "MPI_Fint", "const int": "MPI_Fint", "MPI_Datatype": "MPI_Fint",
             "const MPI_Aint": "MPI_Aint"}.get(p.ctype)
    if ftype is None:
        sys.exit(f"gen.py: {c.name}: no Fortran rule for parameter {c_decl(p)}")
    if p.array:
        return f"{ftype} *{p.name}", p.name
    return f"{ftype} *{p.name}", f"PMPI_Type_f2c(*{p.name})" if p.ctype == "MPI_Datatype" else f"*{p.name}"


def fortran_wrapper(c, mode):
    """Open MPI's Fortran spelling of the drop-in's wrapper (fortran.c says
    why): Open MPI's own binding where the drop-in is off (blocking) or does
    not take the communicator (non-blocking), else the handles converted
    and the drop-in's C wrapper called."""
    name = dropin_name(c, mode)
    lower = name[len("MPI_"):].lower()
    impl = f"f_{lower}"
    data = [p for p in dropin_params(c, mode) if p.name != "request"]
    decls, args = zip(*(fortran_param(c, p) for p in data))
    fnames = [p.name for p in data] + (["request"] if mode == C.NONBLOCKING else []) + ["ierror"]
    decls = list(decls) + (["MPI_Fint *request"] if mode == C.NONBLOCKING else []) + ["MPI_Fint *ierror"]
    head = f"static void {impl}("
    out = [wrap(head, decls, ")", len(head)), "{"]
    if mode == C.BLOCKING:
        out.append(hang("    OFF_GOES_TO_MPI(", [impl, f'"mpi_{lower}_"'] + fnames, ");"))
        out.append("    MPI_Comm c = PMPI_Comm_f2c(*comm);")
    else:
        out.append("    MPI_Comm c = PMPI_Comm_f2c(*comm);")
        out.append(hang("    PL_F_MPI_IF(", ["pl_f_not_taken(c)", impl, f'"mpi_{lower}_"'] + fnames, ");"))
    if c.dropin_ftypes:
        out.append("    int out;")
        out.append(f"    MPI_Datatype *t = pl_f_w_types(c, {c.dropin_ftypes[0]}, {c.dropin_ftypes[1]}, &out, ierror);")
        out.append("    if (!t) return;")
    if mode == C.BLOCKING:
        out.append(hang(f"    *ierror = {name}(", list(args), ");"))
    else:
        out.append("    MPI_Request r = MPI_REQUEST_NULL;")
        out.append(hang(f"    int rc = {name}(", list(args) + ["&r"], ");"))
    if c.dropin_ftypes:
        out.append("    free(t);")
    if mode == C.NONBLOCKING:
        out.append("    if (rc == MPI_SUCCESS) *request = PMPI_Request_c2f(r);")
        out.append("    *ierror = rc;")
    out.append("}")
    out.append(f"FORTRAN_NAMES({impl}, {lower}, {name.upper()});")
    return "\n".join(out) + "\n"


FORTRAN_WRAPPERS_HEAD = f"""\
/* Generated by maint/gen.py from maint/collectives.py (the rows with a
 * dropin name): do not edit.  Regenerate with `{REGENERATE}`.
 *
 * Open MPI's Fortran spellings of the drop-in's blocking MPI_Neighbor_X
 * and non-blocking MPI_Ineighbor_X (why the drop-in defines them:
 * fortran.c): each converts the handles (the conversions are fortran.c's)
 * and calls the drop-in's C wrapper (wrappers.gen.c).  Blocking: Open
 * MPI's own binding when the drop-in is off; non-blocking: whenever the
 * drop-in does not take the communicator (pl_f_not_taken).  Results are
 * written back as Open MPI's bindings do (the request handle on success).
 * Empty unless built against Open MPI. */
#define _GNU_SOURCE /* RTLD_NEXT */
#include "pmpi/fortran.h"

#ifdef OPEN_MPI

#include <stdlib.h>
"""

FORTRAN_WRAPPERS_TAIL = """
#else

/* MPICH and the MPIs built from it: nothing here (see fortran.c). */
typedef int cc_pmpi_fortran_wrappers_unused;

#endif
"""


def fortran_wrappers_file():
    rows = dropin_rows()
    text = FORTRAN_WRAPPERS_HEAD
    for mode in (C.BLOCKING, C.NONBLOCKING):
        text += "".join("\n" + fortran_wrapper(c, mode) for c in rows)
    return text + FORTRAN_WRAPPERS_TAIL


# ---------------------------------------------------------------- files

def outputs():
    files = {
        "src/api/entry_points.gen.c": entry_points_file(),
        "src/api/part_entry_points.gen.c": part_entry_points_file(),
        "src/coll/collectives.gen.h": descriptors_file(),
        "src/pmpi/wrappers.gen.c": wrappers_file(),
        "src/pmpi/fortran_wrappers.gen.c": fortran_wrappers_file(),
    }
    for name, text in gen_bindings.outputs(api.CONSTANTS, api.functions()).items():
        files["fortran/" + name] = text
    return files


def write_or_check(check):
    stale = []
    for rel, text in outputs().items():
        path = os.path.join(ROOT, rel)
        old = open(path).read() if os.path.exists(path) else None
        if old == text:
            continue
        if check:
            stale.append(rel)
        else:
            with open(path, "w") as fh:
                fh.write(text)
            print(f"gen.py: wrote {rel}")
    if stale:
        sys.exit(f"gen.py: out of date (run `{REGENERATE}` and commit): " + ", ".join(stale))
    if check:
        print("gen.py: generated files up to date")


# ---------------------------------------------------------------- the header

def parse_header(path):
    """The header's constants [(name, value)] and prototypes [(name, params)]."""
    src = open(path).read()
    src = re.sub(r"/\*.*?\*/", " ", src, flags=re.S)
    src = re.sub(r"//[^\n]*", " ", src)
    consts = [(m.group(1), int(m.group(2))) for m in
              re.finditer(r"^\s*#\s*define\s+(CART\w*)\s+\(?\s*(-?\d+)\s*\)?\s*$", src, flags=re.M)]
    protos = [(m.group(1), api.parse_params(" ".join(m.group(2).split())))
              for m in re.finditer(r"\bint\s+(Cart_\w+)\s*\(([^;{)]*)\)\s*;", src)]
    return consts, protos


def show(params):
    return ", ".join(c_decl(p) for p in params)


def check_header(path):
    """Every prototype of the header has its function in the list with the
    same parameters (types, names, arrays), in the same order, and the other
    way round; the same for the constants.  Returns the disagreements."""
    consts, protos = parse_header(path)
    listed = api.functions()
    errors = []
    have, want = dict(protos), {f.name: f.params for f in listed}
    for name, params in protos:
        if name not in want:
            errors.append(f"{name}: in the header, not in the list (maint/api.py, maint/collectives.py)")
        elif tuple(params) != tuple(want[name]):
            errors.append(f"{name}: parameters differ\n  header: {show(params)}\n  list:   {show(want[name])}")
    for f in listed:
        if f.name not in have:
            errors.append(f"{f.name}: in the list, not in the header")
    common = [n for n, _ in protos if n in want]
    if not errors and common != [f.name for f in listed if f.name in have]:
        errors.append("the functions are in another order in the header than in the list (maint/api.py)")
    if consts != list(api.CONSTANTS):
        errors.append(f"constants differ\n  header: {consts}\n  list:   {list(api.CONSTANTS)}")
    return errors


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--check", action="store_true", help="fail if a committed generated file is stale")
    ap.add_argument("--check-header", action="store_true", help="fail if the header and the list disagree")
    ap.add_argument("--header", default=os.path.join(ROOT, "include", "cartcoll.h"))
    args = ap.parse_args()
    C.validate()
    if args.check_header:
        errors = check_header(args.header)
        for e in errors:
            print(f"gen.py: {args.header}: {e}")
        if errors:
            sys.exit(1)
        print(f"gen.py: {args.header} agrees with the list ({len(api.functions())} functions)")
        return
    write_or_check(args.check)


if __name__ == "__main__":
    main()
