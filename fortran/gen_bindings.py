"""The Fortran back-end of maint/gen.py: the bindings of cartcoll from the
list of the public API (maint/api.py, maint/collectives.py).

Makes:
  cartcoll_f08.f90       the module cartcoll_f08: constants, TYPE(Cart_request),
                         one subroutine per C function (same name and argument
                         order, mpi_f08 handle types, LOGICAL truth values,
                         TYPE(*), DIMENSION(..) buffers, optional ierror);
  cartcoll_f08_glue.c    one C function per binding that converts Fortran
                         handles, array sections and sentinels and calls the
                         library (helpers: cartcoll_f08_support.h).

Both outputs are committed; run maint/gen.py after the list grows and
commit what changes (the test generated_current fails when they are stale).

Every C parameter is mapped by its C type, with a few rules by name that the
header's conventions fix (API.md [fortran]):
  * periods, remain_dims, reorder, flag are LOGICAL (arrays need a length:
    LOGICAL_ARRAYS below);
  * weights, sourceweights, destweights, targetweights accept mpi_f08's
    MPI_UNWEIGHTED / MPI_WEIGHTS_EMPTY;
  * arrays of datatypes named send* / recv* have one entry per send /
    receive block of the communicator;
  * a Cart_request * output of a call with a buffer makes it non-blocking or
    persistent (ASYNCHRONOUS buffers, sections described by datatypes).
What a collective's sections become is its row's rule in
maint/collectives.py (fortran_rewrite, fortran_single, partitioned forms).
An unknown parameter type stops the script with an error, so nothing is
bound by guesswork.
"""

import sys

LOGICAL_SCALARS = {"reorder", "flag"}
# (function, parameter) -> the argument giving the array's length, or None
# for the naming's number of dimensions (queried through the glue).
LOGICAL_ARRAYS = {
    ("Cart_neighborhood_create", "periods"): "d",
    ("Cart_name", "periods"): "d",
    ("Cart_get", "periods"): "maxd",
    ("Cart_create_sub", "remain_dims"): None,
}
WEIGHTS = {"weights", "sourceweights", "destweights", "targetweights"}
# Request start and completion: hand-written glue (cartcoll_f08_requests.c)
# that also refreshes, copies back and releases temporaries kept with the
# request.
COMPLETION = {"Cart_start", "Cart_startall", "Cart_wait", "Cart_test", "Cart_waitall", "Cart_request_free"}
INOUT_REQUEST = {"Cart_start", "Cart_wait", "Cart_test", "Cart_request_free"}
HANDLES = {"MPI_Comm": "Comm", "MPI_Datatype": "Type", "MPI_Info": "Info", "MPI_Op": "Op"}

MAXLINE = 132


class Param:
    def __init__(self, func, ctype, name, array):
        self.name = name
        self.ctype = ctype
        self.array = array
        self.kind, self.extra = classify(func, ctype, name, array)


class Func:
    """One C function.  coll, mode: its row of maint/collectives.py and mode
    (None for functions that are not collectives)."""

    def __init__(self, name, params, coll=None, mode=None):
        self.name = name
        self.params = params
        # Non-blocking / persistent calls with a non-contiguous array section:
        # the six [core] collectives become their w form with one datatype
        # per block (rewrite); single-block buffers become one datatype
        # (single); every other section is a contiguous copy kept with the
        # request (refreshed at each start, copied back at completion),
        # except in partitioned calls (MPI_ERR_BUFFER).
        self.partitioned = mode == "partitioned"
        rules = coll is not None and not self.partitioned
        self.rewrite = coll.fortran_rewrite if rules else None
        self.single = dict(coll.fortran_single) if rules else {}
        kinds = {p.kind for p in params}
        self.bufs = [p for p in params if p.kind in ("buf_in", "buf_inout")]
        self.async_ = bool(self.bufs) and "req_out" in kinds
        self.persistent = self.async_ and name.endswith("_init")
        glue_kinds = {"comm_in", "comm_out", "handle_in", "dtypes_in", "weights_in", "weights_out", "buf_in",
                      "buf_inout"}
        self.direct = not (kinds & glue_kinds) and name not in COMPLETION
        self.lname = name.lower()
        self.glue = "cartcoll_f08_" + self.lname
        self.iface = "ccf_" + self.lname[len("cart_"):]

    def param(self, name):
        for p in self.params:
            if p.name == name:
                return p
        return None


def fail(msg):
    sys.exit("gen_bindings.py: " + msg)


def classify(func, ctype, name, array):
    t = " ".join(ctype.split())
    if t in HANDLES and not array:
        return ("comm_in" if t == "MPI_Comm" else "handle_in"), t
    if t == "MPI_Comm *" and not array:
        return "comm_out", t
    if t == "const MPI_Datatype" and array:
        if name.startswith("send"):
            return "dtypes_in", "CCF_SEND"
        if name.startswith("recv"):
            return "dtypes_in", "CCF_RECV"
        fail(f"{func}: {name}: an array of datatypes that is neither send* nor recv*")
    if t == "const MPI_Aint" and array:
        return "aint_arr_in", None
    if t == "MPI_Count" and not array:
        return "count_in", None
    if t == "const MPI_Count" and array:
        return "count_arr_in", None
    if t == "int" and not array:
        return ("logical_in" if name in LOGICAL_SCALARS else "int_in"), None
    if t == "int *" and not array:
        return ("logical_out" if name in LOGICAL_SCALARS else "int_out"), None
    if t in ("const int", "int") and array:
        out = t == "int"
        if (func, name) in LOGICAL_ARRAYS:
            return ("logical_arr_out" if out else "logical_arr_in"), LOGICAL_ARRAYS[(func, name)]
        if name in {"periods", "remain_dims"}:
            fail(f"{func}: {name}: a LOGICAL array without a length rule (add it to LOGICAL_ARRAYS)")
        if name in WEIGHTS:
            return ("weights_out" if out else "weights_in"), None
        return ("int_arr_out" if out else "int_arr_in"), None
    if t == "const void *" and not array:
        return "buf_in", None
    if t == "void *" and not array:
        return "buf_inout", None
    if t == "Cart_request *" and not array:
        return ("req_inout" if func in INOUT_REQUEST else "req_out"), None
    if t == "Cart_request" and array:
        return "req_arr", None
    if t == "Cart_request" and not array:
        return "req_in", None
    fail(f"{func}: parameter {name} of type '{ctype}{'[]' if array else ''}' has no Fortran mapping")


def functions_of(api_functions):
    """Func objects from maint/api.py's Function rows."""
    return [Func(f.name, [Param(f.name, p.ctype, p.name, p.array) for p in f.params], f.coll, f.mode or None)
            for f in api_functions]


def fortran_consts(consts, funcs):
    """The CART_ constants; a name equal to a subroutine's (Fortran ignores
    case) becomes CART_COLL_<rest>, as API.md fixes for the collective codes."""
    fnames = {f.name.lower() for f in funcs}
    out = []
    for name, value in consts:
        fname = name
        if name.lower() in fnames:
            fname = "CART_COLL_" + name[len("CART_"):]
            if fname.lower() in fnames:
                fail(f"{fname} collides with a subroutine too")
        out.append((fname, value))
    return out


# ---------------------------------------------------------------- Fortran

def wrap(head, items, tail, indent):
    """head + ', '.join(items) + tail, broken with '&' within MAXLINE."""
    lines = []
    cur = head
    for i, it in enumerate(items):
        piece = it + (", " if i < len(items) - 1 else "")
        if len(cur) + len(piece) + 2 > MAXLINE:
            lines.append(cur.rstrip() + " &")
            cur = " " * indent + piece
        else:
            cur += piece
    if len(cur) + len(tail) + 2 > MAXLINE:
        lines.append(cur.rstrip() + " &")
        cur = " " * indent + tail.lstrip()
    else:
        cur += tail
    return "\n".join(lines + [cur])


def f_user_decl(f, p):
    n = p.name
    asy = ", ASYNCHRONOUS" if f.async_ else ""
    k = p.kind
    if k == "comm_in":
        return f"TYPE(MPI_Comm), INTENT(IN) :: {n}"
    if k == "comm_out":
        return f"TYPE(MPI_Comm), INTENT(OUT) :: {n}"
    if k == "handle_in":
        return f"TYPE({p.extra}), INTENT(IN) :: {n}"
    if k == "dtypes_in":
        return f"TYPE(MPI_Datatype), INTENT(IN) :: {n}(*)"
    if k == "aint_arr_in":
        return f"INTEGER(KIND=MPI_ADDRESS_KIND), INTENT(IN) :: {n}(*)"
    if k == "count_in":
        return f"INTEGER(KIND=MPI_COUNT_KIND), INTENT(IN) :: {n}"
    if k == "count_arr_in":
        return f"INTEGER(KIND=MPI_COUNT_KIND), INTENT(IN) :: {n}(*)"
    if k == "int_in":
        return f"INTEGER, INTENT(IN) :: {n}"
    if k == "int_out":
        return f"INTEGER, INTENT(OUT) :: {n}"
    if k in ("int_arr_in", "weights_in"):
        return f"INTEGER, INTENT(IN) :: {n}(*)"
    if k == "int_arr_out":
        return f"INTEGER, INTENT(OUT) :: {n}(*)"
    if k == "weights_out":
        # No INTENT: MPI_UNWEIGHTED may be passed for both weight outputs.
        return f"INTEGER :: {n}(*)"
    if k == "logical_in":
        return f"LOGICAL, INTENT(IN) :: {n}"
    if k == "logical_out":
        return f"LOGICAL, INTENT(OUT) :: {n}"
    if k == "logical_arr_in":
        return f"LOGICAL, INTENT(IN) :: {n}(*)"
    if k == "logical_arr_out":
        return f"LOGICAL, INTENT(OUT) :: {n}(*)"
    if k == "buf_in":
        return f"TYPE(*), DIMENSION(..), INTENT(IN){asy} :: {n}"
    if k == "buf_inout":
        return f"TYPE(*), DIMENSION(..){asy} :: {n}"
    if k == "req_out":
        return f"TYPE(Cart_request), INTENT(OUT) :: {n}"
    if k == "req_inout":
        return f"TYPE(Cart_request), INTENT(INOUT) :: {n}"
    if k == "req_arr":
        return f"TYPE(Cart_request), INTENT(INOUT) :: {n}(*)"
    if k == "req_in":
        return f"TYPE(Cart_request), INTENT(IN) :: {n}"
    fail(f"no Fortran declaration for {k}")


def f_iface_decl(f, p):
    n = p.name
    asy = ", ASYNCHRONOUS" if f.async_ else ""
    k = p.kind
    if k in ("comm_in", "handle_in", "int_in", "logical_in"):
        return f"INTEGER(C_INT), VALUE :: {n}"
    if k in ("comm_out", "int_out", "logical_out"):
        return f"INTEGER(C_INT), INTENT(OUT) :: {n}"
    if k == "dtypes_in":
        return f"TYPE(MPI_Datatype), INTENT(IN) :: {n}(*)"
    if k == "aint_arr_in":
        return f"INTEGER(C_INTPTR_T), INTENT(IN) :: {n}(*)"
    if k == "count_in":
        return f"INTEGER(C_LONG_LONG), VALUE :: {n}"
    if k == "count_arr_in":
        return f"INTEGER(C_LONG_LONG), INTENT(IN) :: {n}(*)"
    if k in ("int_arr_in", "weights_in", "logical_arr_in"):
        return f"INTEGER(C_INT), INTENT(IN) :: {n}(*)"
    if k == "int_arr_out":
        return f"INTEGER(C_INT), INTENT(OUT) :: {n}(*)"
    if k == "weights_out":
        return f"INTEGER(C_INT) :: {n}(*)"
    if k == "logical_arr_out":
        return f"INTEGER(C_INT), INTENT(INOUT) :: {n}(*)"
    if k == "buf_in":
        return f"TYPE(*), DIMENSION(..), INTENT(IN){asy} :: {n}"
    if k == "buf_inout":
        return f"TYPE(*), DIMENSION(..){asy} :: {n}"
    if k == "req_out":
        return f"TYPE(Cart_request), INTENT(OUT) :: {n}"
    if k in ("req_inout",):
        return f"TYPE(Cart_request), INTENT(INOUT) :: {n}"
    if k == "req_arr":
        return f"TYPE(Cart_request), INTENT(INOUT) :: {n}(*)"
    if k == "req_in":
        return f"TYPE(Cart_request), VALUE :: {n}"
    fail(f"no interface declaration for {k}")


def f_actual(p):
    k, n = p.kind, p.name
    if k in ("comm_in", "comm_out", "handle_in"):
        return f"{n}%MPI_VAL"
    if k == "logical_in":
        return f"MERGE(1_C_INT, 0_C_INT, {n})"
    if k in ("logical_out", "logical_arr_in", "logical_arr_out"):
        return f"ccf_{n}"
    return n


def f_interface(f):
    args = [p.name for p in f.params]
    label = f.name if f.direct else f.glue
    out = [wrap(f"    INTEGER(C_INT) FUNCTION {f.iface}(", args, f') BIND(C, name="{label}")', 8)]
    out.append("      IMPORT")
    out.append("      IMPLICIT NONE")
    for p in f.params:
        out.append("      " + f_iface_decl(f, p))
    out.append(f"    END FUNCTION {f.iface}")
    return "\n".join(out)


def f_subroutine(f):
    args = [p.name for p in f.params] + ["ierror"]
    out = [wrap(f"  SUBROUTINE {f.name}(", args, ")", 6)]
    for p in f.params:
        out.append("    " + f_user_decl(f, p))
    out.append("    INTEGER, OPTIONAL, INTENT(OUT) :: ierror")
    out.append("    INTEGER(C_INT) :: ccf_rc")
    pre, post = [], []
    comm = next((p for p in f.params if p.kind == "comm_in"), None)
    for p in f.params:
        n = p.name
        if p.kind == "logical_out":
            out.append(f"    INTEGER(C_INT) :: ccf_{n}")
            post.append(f"    IF (ccf_rc == MPI_SUCCESS) {n} = ccf_{n} /= 0")
        elif p.kind in ("logical_arr_in", "logical_arr_out"):
            out.append(f"    INTEGER(C_INT), ALLOCATABLE :: ccf_{n}(:)")
            out.append(f"    INTEGER :: ccf_{n}_n, ccf_{n}_i, ccf_{n}_st")
            if p.extra is None:
                if not comm:
                    fail(f"{f.name}: {n} has the naming's length but the call has no communicator")
                length = f"ccf_naming_dims({comm.name}%MPI_VAL)"
            else:
                length = p.extra
            pre.append(f"    ccf_{n}_n = MAX({length}, 0)")
            pre.append(f"    ALLOCATE(ccf_{n}(MAX(ccf_{n}_n, 1)), STAT=ccf_{n}_st)")
            who = f'"{f.name}" // C_NULL_CHAR'
            commval = f"{comm.name}%MPI_VAL" if comm else "MPI_COMM_SELF%MPI_VAL"
            pre.append(f"    IF (ccf_{n}_st /= 0) THEN")
            pre.append(f"      ccf_rc = ccf_nomem({commval}, {who})")
            pre.append("      IF (PRESENT(ierror)) ierror = ccf_rc")
            pre.append("      RETURN")
            pre.append("    END IF")
            if p.kind == "logical_arr_in":
                pre.append(f"    DO ccf_{n}_i = 1, ccf_{n}_n")
                pre.append(f"      ccf_{n}(ccf_{n}_i) = MERGE(1_C_INT, 0_C_INT, {n}(ccf_{n}_i))")
                pre.append("    END DO")
            else:
                pre.append(f"    ccf_{n} = -1_C_INT")
                post.append(f"    IF (ccf_rc == MPI_SUCCESS) THEN")
                post.append(f"      DO ccf_{n}_i = 1, ccf_{n}_n")
                post.append(f"        IF (ccf_{n}(ccf_{n}_i) >= 0) {n}(ccf_{n}_i) = ccf_{n}(ccf_{n}_i) /= 0")
                post.append("      END DO")
                post.append("    END IF")
    out += pre
    out.append(wrap(f"    ccf_rc = {f.iface}(", [f_actual(p) for p in f.params], ")", 8))
    out += post
    out.append("    IF (PRESENT(ierror)) ierror = ccf_rc")
    out.append(f"  END SUBROUTINE {f.name}")
    return "\n".join(out)


F_HEAD = """\
! Generated by maint/gen.py (fortran/gen_bindings.py) from maint/api.py: do not edit.
!
! The Fortran 2008 bindings of cartcoll (API.md, section [fortran]).  Use
! together with mpi_f08:
!
!     USE mpi_f08
!     USE cartcoll_f08
!
! Every C function of cartcoll.h is a subroutine of the same name and
! argument order with a trailing INTEGER, OPTIONAL, INTENT(OUT) :: ierror.
! MPI handles are mpi_f08's types, truth values are LOGICAL, buffers are
! TYPE(*), DIMENSION(..) (any array, array section or scalar).  The
! collective codes of Cart_schedule_stats are CART_COLL_ALLGATHER ...
! CART_COLL_ALLREDUCE.  docs/fortran.md says how sections and Fortran's
! column-major arrays work with the library.
MODULE cartcoll_f08
  USE, INTRINSIC :: ISO_C_BINDING, ONLY: C_INT, C_INTPTR_T, C_LONG_LONG, C_PTR, C_NULL_PTR, C_CHAR, &
      C_NULL_CHAR, C_ASSOCIATED
  USE mpi_f08, ONLY: MPI_Comm, MPI_Datatype, MPI_Info, MPI_Op, MPI_ADDRESS_KIND, MPI_COUNT_KIND, MPI_SUCCESS, &
      MPI_COMM_SELF, MPI_IN_PLACE, MPI_BOTTOM, MPI_UNWEIGHTED, MPI_WEIGHTS_EMPTY
  IMPLICIT NONE
  PRIVATE

  ! A cartcoll request: the C library's Cart_request (an opaque pointer).
  TYPE, BIND(C), PUBLIC :: Cart_request
    TYPE(C_PTR) :: CART_VAL
  END TYPE Cart_request
  TYPE(Cart_request), PARAMETER, PUBLIC :: CART_REQUEST_NULL = Cart_request(C_NULL_PTR)

  PUBLIC :: OPERATOR(==), OPERATOR(/=)
  INTERFACE OPERATOR(==)
    MODULE PROCEDURE ccf_request_eq
  END INTERFACE
  INTERFACE OPERATOR(/=)
    MODULE PROCEDURE ccf_request_ne
  END INTERFACE
"""

F_SUPPORT_IFACES = """\
    SUBROUTINE ccf_register(in_place, bottom, unweighted, weights_empty) BIND(C, name="cartcoll_f08_register")
      IMPLICIT NONE
      TYPE(*), DIMENSION(..), INTENT(IN) :: in_place, bottom, unweighted, weights_empty
    END SUBROUTINE ccf_register
    INTEGER(C_INT) FUNCTION ccf_naming_dims(comm) BIND(C, name="cartcoll_f08_naming_dims")
      IMPORT
      IMPLICIT NONE
      INTEGER(C_INT), VALUE :: comm
    END FUNCTION ccf_naming_dims
    INTEGER(C_INT) FUNCTION ccf_nomem(comm, who) BIND(C, name="cartcoll_f08_nomem")
      IMPORT
      IMPLICIT NONE
      INTEGER(C_INT), VALUE :: comm
      CHARACTER(KIND=C_CHAR), INTENT(IN) :: who(*)
    END FUNCTION ccf_nomem
"""

F_CONTAINS = """\
CONTAINS

  ELEMENTAL LOGICAL FUNCTION ccf_request_eq(a, b)
    TYPE(Cart_request), INTENT(IN) :: a, b
    IF (C_ASSOCIATED(a%CART_VAL)) THEN
      ccf_request_eq = C_ASSOCIATED(a%CART_VAL, b%CART_VAL)
    ELSE
      ccf_request_eq = .NOT. C_ASSOCIATED(b%CART_VAL)
    END IF
  END FUNCTION ccf_request_eq

  ELEMENTAL LOGICAL FUNCTION ccf_request_ne(a, b)
    TYPE(Cart_request), INTENT(IN) :: a, b
    ccf_request_ne = .NOT. ccf_request_eq(a, b)
  END FUNCTION ccf_request_ne

  ! Called once by the C glue: the addresses of mpi_f08's sentinels.
  SUBROUTINE ccf_sentinels() BIND(C, name="cartcoll_f08_sentinels")
    CALL ccf_register(MPI_IN_PLACE, MPI_BOTTOM, MPI_UNWEIGHTED, MPI_WEIGHTS_EMPTY)
  END SUBROUTINE ccf_sentinels
"""


def fortran_module(consts, funcs):
    out = [F_HEAD]
    fc = fortran_consts(consts, funcs)
    out.append("  ! The constants of cartcoll.h (collective codes: CART_COLL_*).")
    for name, value in fc:
        out.append(f"  INTEGER, PARAMETER, PUBLIC :: {name} = {value}")
    out.append("")
    out.append("  ! The subroutines, in the order of cartcoll.h.")
    names = [f.name for f in funcs]
    for i in range(0, len(names), 4):
        out.append("  PUBLIC :: " + ", ".join(names[i:i + 4]))
    out.append("")
    out.append("  ! The C functions behind them: the library itself where nothing needs")
    out.append("  ! converting, else the glue (cartcoll_f08_glue.c).")
    out.append("  INTERFACE")
    out.append(F_SUPPORT_IFACES.rstrip("\n"))
    for f in funcs:
        out.append(f_interface(f))
    out.append("  END INTERFACE")
    out.append("")
    out.append(F_CONTAINS)
    for f in funcs:
        out.append(f_subroutine(f))
        out.append("")
    out.append("END MODULE cartcoll_f08")
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------- C glue

def c_param(p):
    k, n = p.kind, p.name
    if k in ("comm_in", "handle_in"):
        return f"MPI_Fint {n}"
    if k == "comm_out":
        return f"MPI_Fint *{n}"
    if k == "dtypes_in":
        return f"const MPI_Fint *{n}"
    if k == "aint_arr_in":
        return f"const MPI_Aint *{n}"
    if k == "count_in":
        return f"MPI_Count {n}"
    if k == "count_arr_in":
        return f"const MPI_Count *{n}"
    if k in ("int_in", "logical_in"):
        return f"int {n}"
    if k in ("int_out", "logical_out", "int_arr_out", "weights_out", "logical_arr_out"):
        return f"int *{n}"
    if k in ("int_arr_in", "weights_in", "logical_arr_in"):
        return f"const int *{n}"
    if k in ("buf_in", "buf_inout"):
        return f"CFI_cdesc_t *{n}"
    if k in ("req_out", "req_inout"):
        return f"Cart_request *{n}"
    if k == "req_arr":
        return f"Cart_request {n}[]"
    if k == "req_in":
        return f"Cart_request {n}"
    fail(f"no C parameter for {k}")


def c_side(f, side):
    """A ccf_side initializer for one side of the six [core] collectives."""
    if side == "send":
        buf = "sendbuf"
        if f.param("sendtypes"):
            return (f"{{ .d = sendbuf, .base = (void *)sendbuf_c, .nc = sendbuf_nc, .kind = CCF_W, "
                    f".counts = sendcounts, .adispls = sdispls, .types = sendtypes_c }}")
        if f.param("sendcounts"):
            return (f"{{ .d = sendbuf, .base = (void *)sendbuf_c, .nc = sendbuf_nc, .kind = CCF_V, "
                    f".counts = sendcounts, .idispls = sdispls, .type = sendtype_c }}")
        return (f"{{ .d = {buf}, .base = (void *){buf}_c, .nc = {buf}_nc, .kind = CCF_REG, "
                f".count = sendcount, .type = sendtype_c }}")
    displs = "rdispls" if f.param("rdispls") else "displs"
    if f.param("recvtypes"):
        return (f"{{ .d = recvbuf, .base = recvbuf_c, .nc = recvbuf_nc, .kind = CCF_W, "
                f".counts = recvcounts, .adispls = {displs}, .types = recvtypes_c }}")
    if f.param("recvcounts"):
        return (f"{{ .d = recvbuf, .base = recvbuf_c, .nc = recvbuf_nc, .kind = CCF_V, "
                f".counts = recvcounts, .idispls = {displs}, .type = recvtype_c }}")
    return (f"{{ .d = recvbuf, .base = recvbuf_c, .nc = recvbuf_nc, .kind = CCF_REG, "
            f".count = recvcount, .type = recvtype_c }}")


def c_wrap(head, items, tail, indent):
    lines = []
    cur = head
    for i, it in enumerate(items):
        piece = it + (", " if i < len(items) - 1 else "")
        if len(cur) + len(piece) > 118:
            lines.append(cur.rstrip())
            cur = " " * indent + piece
        else:
            cur += piece
    cur += tail
    return "\n".join(lines + [cur])


def c_glue(f):
    params = [c_param(p) for p in f.params] or ["void"]
    proto = c_wrap(f"int {f.glue}(", params, ")", 4)
    body = []
    comm = next((p for p in f.params if p.kind == "comm_in"), None)
    req = next((p for p in f.params if p.kind == "req_out"), None)
    needs_call = bool(f.bufs) or any(p.kind == "dtypes_in" for p in f.params)
    cargs = []
    if needs_call:
        body.append("    ccf_call ccf_c;")
        body.append("    int ccf_rc = CCF_PASS;")
        mode = "CCF_PERSISTENT" if f.persistent else "CCF_NONBLOCKING" if f.async_ else "CCF_BLOCKING"
        body.append(f'    ccf_begin(&ccf_c, "{f.name}", {mode});')
    # The communicator first: the glue's errors and block counts need it.
    for p in f.params:
        if p.kind == "comm_in":
            body.append(f"    MPI_Comm {p.name}_c = MPI_Comm_f2c({p.name});")
            if needs_call and p is comm:
                body.append(f"    ccf_set_comm(&ccf_c, {p.name}_c);")
    for p in f.params:
        k, n = p.kind, p.name
        if k == "comm_in":
            cargs.append(f"{n}_c")
        elif k == "handle_in":
            ct = p.extra
            body.append(f"    {ct} {n}_c = MPI_{HANDLES[ct]}_f2c({n});")
            cargs.append(f"{n}_c")
        elif k == "comm_out":
            body.append(f"    MPI_Comm {n}_c = MPI_COMM_NULL;")
            cargs.append(f"&{n}_c")
        elif k == "dtypes_in":
            body.append(f"    const MPI_Datatype *{n}_c = ccf_types(&ccf_c, {n}, {p.extra});")
            cargs.append(f"{n}_c")
        elif k == "weights_in":
            body.append(f"    const int *{n}_c = ccf_weights_in({n});")
            cargs.append(f"{n}_c")
        elif k == "weights_out":
            body.append(f"    int *{n}_c = ccf_weights_out({n});")
            cargs.append(f"{n}_c")
        else:
            cargs.append(n)
    for p in f.bufs:
        n = p.name
        const = "const " if p.kind == "buf_in" else ""
        out = 0 if p.kind == "buf_in" else 1
        body.append(f"    int {n}_nc;")
        body.append(f"    {const}void *{n}_c = ccf_buf(&ccf_c, {n}, {out}, &{n}_nc);")
        cargs[f.params.index(p)] = f"{n}_c"
    call = c_wrap(f"{f.name}(", cargs, ");", 8)
    if not needs_call:
        outs = [p for p in f.params if p.kind == "comm_out"]
        if outs:
            body.append("    int rc = " + call)
            for p in outs:
                body.append(f"    if (rc == MPI_SUCCESS) *{p.name} = MPI_Comm_c2f({p.name}_c);")
            body.append("    return rc;")
        else:
            body.append("    return " + call)
        return proto, proto + "\n{\n" + "\n".join(body) + "\n}\n"
    if f.async_:
        ncs = [p.name for p in f.bufs]
        anync = " || ".join(f"{n}_nc" for n in ncs)
        info = "info_c" if f.param("info") else "MPI_INFO_NULL"
        commc = f"{comm.name}_c"
        body.append(f"    if (!ccf_c.err && ({anync})) {{")
        fam = f.rewrite
        if fam:
            for var, side in (("ccf_s", "send"), ("ccf_r", "recv")):
                fields = c_side(f, side)[2:-2].split(", ")
                body.append(c_wrap(f"        ccf_side {var} = {{ ", fields, " };", 12))
            body.append(f"        ccf_rc = ccf_{fam}_sections(&ccf_c, &ccf_s, &ccf_r, {commc}, {info}, "
                        f"{1 if f.persistent else 0}, {req.name});")
        else:
            single = f.single
            partitioned = f.partitioned
            first = True
            for n in ncs:
                if n in single:
                    cnt, typ = single[n]
                    out = 0 if f.param(n).kind == "buf_in" else 1
                    body.append(f"        if ({n}_nc) {n}_c = ccf_single_or_copy(&ccf_c, {n}, (void *){n}_c, {out}, "
                                f"&{cnt}, &{typ}_c);")
            for n in ncs:
                if n not in single:
                    if partitioned:
                        kw = "if" if first else "else if"
                        first = False
                        body.append(f'        {kw} ({n}_nc) ccf_rc = ccf_unsupported_section(&ccf_c, "{n}");')
                    else:
                        out = 0 if f.param(n).kind == "buf_in" else 1
                        body.append(f"        if ({n}_nc) {n}_c = ccf_async_copy(&ccf_c, {n}, {out});")
        body.append("    }")
    body.append("    if (ccf_rc == CCF_PASS && ccf_c.err) ccf_rc = ccf_raise(&ccf_c);")
    body.append("    if (ccf_rc == CCF_PASS)")
    body.append(c_wrap(f"        ccf_rc = {f.name}(", cargs, ");", 12))
    for p in f.params:
        if p.kind == "comm_out":
            body.append(f"    if (ccf_rc == MPI_SUCCESS) *{p.name} = MPI_Comm_c2f({p.name}_c);")
    body.append(f"    return ccf_end(&ccf_c, ccf_rc, {req.name if req else 'NULL'});")
    return proto, proto + "\n{\n" + "\n".join(body) + "\n}\n"


def c_file(funcs):
    protos, defs = [], []
    for f in funcs:
        if f.direct or f.name in COMPLETION:
            continue
        proto, d = c_glue(f)
        protos.append(proto + ";")
        defs.append(d)
    head = ("/* Generated by maint/gen.py (fortran/gen_bindings.py) from maint/api.py: do not edit.\n"
            " *\n"
            " * One function per binding of the module cartcoll_f08 that needs converting:\n"
            " * Fortran handles to C (MPI_*_f2c), array sections and mpi_f08's sentinels\n"
            " * (cartcoll_f08_support.h), then the library's own function.  Bindings\n"
            " * with nothing to convert call the library directly (BIND(C) in the\n"
            " * module); request completion is hand-written (cartcoll_f08_requests.c). */\n"
            '#include "cartcoll_f08_support.h"\n\n')
    return head + "\n".join(protos) + "\n\n" + "\n".join(defs)


def outputs(consts, api_functions):
    """{file name: text} of the module and its glue."""
    funcs = functions_of(api_functions)
    return {"cartcoll_f08.f90": fortran_module(consts, funcs), "cartcoll_f08_glue.c": c_file(funcs)}
