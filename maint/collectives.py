"""The one list of cartcoll's collectives (issue 27, item 1).

One row per collective of include/cartcoll.h.  maint/gen.py makes from it
the C entry points (src/api/entry_points.gen.c), the collective descriptors
(src/coll/collectives.gen.h), the drop-in's wrappers (src/pmpi/*.gen.c) and
the Fortran module's bindings (through fortran/gen_bindings.py), and checks
the hand-written header against it.
Adding a collective = one row here (+ what is new about it), then
`python3 maint/gen.py` and commit what changes.

A row says:
  name        the Cart_ spelling without Cart_ (Cart_X, Cart_iX, Cart_X_init,
              Cart_pX_init)
  mpi         MPI's collective of the same meaning without topology (global
              meaning: src/coll/global.c calls it), None where MPI has none
  family      how the arguments describe the data (FAMILIES below)
  params      the C parameters before the communicator, as cartcoll.h spells
              them; the modes append `Cart_request *request` (i), `MPI_Info
              info, Cart_request *request` (_init)
  comm        the communicator's parameter name
  fields      parameter -> field of the one call description (cc_call,
              src/bind/call.h) where the names differ (MPI_Aint
              displacements go to sdisplsw / rdisplsw)
  descriptor  the cc_coll descriptor: flags (CC_F_* of src/coll/coll.h),
              nbh (the collective code with neighbourhood meaning, "0":
              undefined there), pinit ("trusted": MPI's persistent X_init
              where the MPI has one; "suspect": not on MPICH, whose 4.0
              versions deliver wrong data), via (where MPI has no such
              collective, mpi None: the descriptor whose MPI call runs it
              with global meaning, allgatherw as an alltoallw), plan (how
              it is planned with neighbourhood meaning: its entry family of
              src/coll/family.h, PLAN_FAMILIES; None where nbh is "0")
  modes       BLOCKING, NONBLOCKING, PERSISTENT: the forms the header has
  part        the partitioned form Cart_pX_init (PART): its parameters, the
              partition shape of each side, and where a parameter fills
              another cc_pargs field than PART_FIELDS says (fields)
  dropin      the drop-in's MPI_Neighbor_X, or None: maint/gen.py makes its
              wrappers, blocking, MPI_Ineighbor_X and MPI-4
              MPI_Neighbor_X_init (src/pmpi/wrappers.gen.c), and Open MPI's
              Fortran spellings of the blocking and i forms
              (src/pmpi/fortran_wrappers.gen.c)
  dropin_ftypes
              (send, receive) datatype arrays of the drop-in's Fortran
              spelling: converted to C handles for the call, as many as the
              communicator's out- and in-degree (pl_f_w_types); every
              datatype array of a dropin row is named here
  fortran     rules of the Fortran glue for non-contiguous array sections in
              non-blocking / persistent calls (FORTRAN_* below)

Python standard library only; run by hand, never by the build.
"""

from dataclasses import dataclass, field
from typing import Dict, Optional, Tuple

# Entry families of planning with neighbourhood meaning (src/coll/family.h:
# cc_family_<name>).
PLAN_FAMILIES = ("cart", "allreduce", "tree", "edges")

# Argument families.
REGULAR = "regular"      # one count and one datatype per side
V = "v"                  # counts and displacements (elements) on the side with one block per peer
W = "w"                  # counts, byte displacements and datatypes per block
REDUCTION = "reduction"  # sendbuf, recvbuf, count, datatype, op
BUFFER = "buffer"        # one buffer read at the root, written elsewhere (bcast)
NONE = "none"            # no data (barrier)
FAMILIES = (REGULAR, V, W, REDUCTION, BUFFER, NONE)

# Modes (forms of the call).
BLOCKING, NONBLOCKING, PERSISTENT = "blocking", "nonblocking", "persistent"
ALL_MODES = (BLOCKING, NONBLOCKING, PERSISTENT)

# Partition shape of one side of a partitioned call (API.md [part]):
WHOLE = "whole"          # one buffer of `parts` partitions, sent to / received from every peer
BLOCKS = "blocks"        # one block per peer, each of `parts` partitions
BLOCKS_V = "blocks_v"    # one block per peer, block i of parts[i] partitions

# Fortran rules for non-contiguous sections in non-blocking / persistent
# calls (fortran/gen_bindings.py): the six [core] collectives become the w
# form of their family with one datatype per block (FORTRAN_REWRITE); single-
# block buffers become one derived datatype (FORTRAN_SINGLE: buffer ->
# (count, datatype) parameters); every other section is a contiguous copy
# kept with the request; partitioned calls refuse sections (MPI_ERR_BUFFER).


# The field of the partitioned layer's call description (cc_pargs,
# src/part/pcoll.h) that a parameter of a Cart_p*_init fills, by name and
# by whether it is an array; a row's Part.fields overrides (a name to
# several fields: "a,b").  Datatype arrays also set the single type to
# MPI_DATATYPE_NULL (the layer tells w calls by it).
PART_FIELDS = {
    ("sendbuf", False): "sendbuf", ("recvbuf", False): "recvbuf",
    ("sendparts", False): "sp", ("sendparts", True): "sparts",
    ("recvparts", False): "rp", ("recvparts", True): "rparts",
    ("partitions", False): "sp", ("partitions", True): "sparts",
    ("sendcount", False): "sc", ("count", False): "sc", ("recvcount", False): "rc",
    ("sendcounts", True): "scnts", ("recvcounts", True): "rcnts",
    ("sdispls", True): "sdispls", ("rdispls", True): "rdispls", ("displs", True): "rdispls",
    ("sendtype", False): "stype", ("datatype", False): "stype", ("recvtype", False): "rtype",
    ("sendtypes", True): "stypes", ("recvtypes", True): "rtypes",
    ("op", False): "op", ("root", False): "root",
}
PART_TYPE_NULL = {"stypes": "stype", "rtypes": "rtype"}


@dataclass(frozen=True)
class Part:
    """The partitioned form Cart_p<name>_init."""
    params: str
    send: str
    recv: str
    comm: str = "comm"
    fields: Dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Descriptor:
    flags: str
    nbh: str
    pinit: str  # "trusted" | "suspect"
    via: Optional[str] = None  # rows without MPI's collective: whose MPI call runs them
    plan: Optional[str] = None  # entry family of planning with neighbourhood meaning (PLAN_FAMILIES)


@dataclass(frozen=True)
class Coll:
    name: str
    mpi: Optional[str]
    family: str
    params: str
    descriptor: Descriptor
    comm: str = "comm"
    fields: Dict[str, str] = field(default_factory=dict)
    rooted: bool = False
    modes: Tuple[str, ...] = ALL_MODES
    part: Optional[Part] = None
    dropin: Optional[str] = None
    dropin_ftypes: Tuple[str, ...] = ()
    fortran_rewrite: Optional[str] = None
    fortran_single: Dict[str, Tuple[str, str]] = field(default_factory=dict)

    def cname(self, mode: str) -> str:
        return {BLOCKING: f"Cart_{self.name}", NONBLOCKING: f"Cart_i{self.name}",
                PERSISTENT: f"Cart_{self.name}_init"}[mode]


# Parameter lists, as the header spells them.
SEND = "const void *sendbuf, int sendcount, MPI_Datatype sendtype"
RECV = "void *recvbuf, int recvcount, MPI_Datatype recvtype"
RECVV = "void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype"
RED = "const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op"
RED_FIELDS = {"count": "recvcount", "datatype": "recvtype"}
PSEND = "const void *sendbuf, int sendparts, MPI_Count sendcount, MPI_Datatype sendtype"
PRECV = "void *recvbuf, int recvparts, MPI_Count recvcount, MPI_Datatype recvtype"
PRED = "const void *sendbuf, void *recvbuf, int partitions, MPI_Count count, MPI_Datatype datatype, MPI_Op op"

CORE = dict(comm="cartcomm")

# The six [core] collectives (cartcoll.h [core]), in the header's order.
CORE_COLLECTIVES = (
    Coll("allgather", "MPI_Allgather", REGULAR, f"{SEND}, {RECV}", **CORE,
         descriptor=Descriptor("CC_F_SEND | CC_F_RECV", "CC_ALLGATHER", "suspect", plan="cart"),
         part=Part(f"{PSEND}, {PRECV}", send=WHOLE, recv=BLOCKS),
         dropin="MPI_Neighbor_allgather", fortran_rewrite="allgather"),
    Coll("allgatherv", "MPI_Allgatherv", V, f"{SEND}, {RECVV}", **CORE,
         fields={"displs": "rdispls"},
         descriptor=Descriptor("CC_F_SEND | CC_F_RECVV", "CC_ALLGATHER", "suspect", plan="cart"),
         part=Part(f"{PSEND}, void *recvbuf, const int recvparts[], const MPI_Count recvcounts[], "
                   "const MPI_Aint displs[], MPI_Datatype recvtype", send=WHOLE, recv=BLOCKS_V),
         dropin="MPI_Neighbor_allgatherv", fortran_rewrite="allgather"),
    Coll("allgatherw", None, W, f"{SEND}, void *recvbuf, const int recvcounts[], const MPI_Aint displs[], "
         "const MPI_Datatype recvtypes[]", **CORE,
         fields={"displs": "rdispls"},
         descriptor=Descriptor("CC_F_SEND | CC_F_RECVW", "CC_ALLGATHER", "trusted", via="alltoallw", plan="cart"),
         fortran_rewrite="allgather"),
    Coll("alltoall", "MPI_Alltoall", REGULAR, f"{SEND}, {RECV}", **CORE,
         descriptor=Descriptor("CC_F_SEND | CC_F_RECV", "CC_ALLTOALL", "trusted", plan="cart"),
         part=Part(f"{PSEND}, {PRECV}", send=BLOCKS, recv=BLOCKS),
         dropin="MPI_Neighbor_alltoall", fortran_rewrite="alltoall"),
    Coll("alltoallv", "MPI_Alltoallv", V, "const void *sendbuf, const int sendcounts[], const int sdispls[], "
         "MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype",
         **CORE,
         descriptor=Descriptor("CC_F_SENDV | CC_F_RECVV", "CC_ALLTOALL", "trusted", plan="cart"),
         part=Part("const void *sendbuf, const int sendparts[], const MPI_Count sendcounts[], const MPI_Aint sdispls[], "
                   "MPI_Datatype sendtype, void *recvbuf, const int recvparts[], const MPI_Count recvcounts[], "
                   "const MPI_Aint rdispls[], MPI_Datatype recvtype", send=BLOCKS_V, recv=BLOCKS_V),
         dropin="MPI_Neighbor_alltoallv", fortran_rewrite="alltoall"),
    Coll("alltoallw", "MPI_Alltoallw", W, "const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[], "
         "const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[], "
         "const MPI_Datatype recvtypes[]", **CORE,
         descriptor=Descriptor("CC_F_W", "CC_ALLTOALL", "trusted", plan="cart"),
         part=Part("const void *sendbuf, const int sendparts[], const MPI_Count sendcounts[], const MPI_Aint sdispls[], "
                   "const MPI_Datatype sendtypes[], void *recvbuf, const int recvparts[], "
                   "const MPI_Count recvcounts[], const MPI_Aint rdispls[], const MPI_Datatype recvtypes[]",
                   send=BLOCKS_V, recv=BLOCKS_V),
         dropin="MPI_Neighbor_alltoallw", dropin_ftypes=("sendtypes", "recvtypes"), fortran_rewrite="alltoall"),
)

# The collectives of seed 000 beyond the six (cartcoll.h [ortho]), in the
# header's order.
ORTHO_COLLECTIVES = (
    Coll("barrier", "MPI_Barrier", NONE, "",
         descriptor=Descriptor("0", "CC_BARRIER", "trusted", plan="edges")),
    Coll("bcast", "MPI_Bcast", BUFFER, "void *buffer, int count, MPI_Datatype datatype", rooted=True,
         fields={"buffer": "recvbuf", "count": "recvcount", "datatype": "recvtype"},
         descriptor=Descriptor("CC_F_ROOT | CC_F_RECV", "CC_BCAST", "trusted", plan="tree"),
         part=Part("void *buffer, int partitions, MPI_Count count, MPI_Datatype datatype", send=WHOLE, recv=WHOLE,
                   fields={"buffer": "sendbuf,recvbuf"}),
         fortran_single={"buffer": ("count", "datatype")}),
    Coll("gather", "MPI_Gather", REGULAR, f"{SEND}, {RECV}", rooted=True,
         descriptor=Descriptor("CC_F_ROOT | CC_F_SEND | CC_F_RECV_ROOT", "CC_GATHER", "suspect", plan="tree"),
         part=Part(f"{PSEND}, {PRECV}", send=WHOLE, recv=BLOCKS),
         fortran_single={"sendbuf": ("sendcount", "sendtype")}),
    Coll("gatherv", "MPI_Gatherv", V, f"{SEND}, {RECVV}", rooted=True, fields={"displs": "rdispls"},
         descriptor=Descriptor("CC_F_ROOT | CC_F_SEND | CC_F_RECVV_ROOT", "CC_GATHER", "suspect", plan="tree"),
         part=Part(f"{PSEND}, void *recvbuf, const int recvparts[], const MPI_Count recvcounts[], "
                   "const MPI_Aint displs[], MPI_Datatype recvtype", send=WHOLE, recv=BLOCKS_V),
         fortran_single={"sendbuf": ("sendcount", "sendtype")}),
    Coll("scatter", "MPI_Scatter", REGULAR, f"{SEND}, {RECV}", rooted=True,
         descriptor=Descriptor("CC_F_ROOT | CC_F_SEND_ROOT | CC_F_RECV", "CC_SCATTER", "suspect", plan="tree"),
         part=Part(f"{PSEND}, {PRECV}", send=BLOCKS, recv=WHOLE),
         fortran_single={"recvbuf": ("recvcount", "recvtype")}),
    Coll("scatterv", "MPI_Scatterv", V, "const void *sendbuf, const int sendcounts[], const int displs[], "
         f"MPI_Datatype sendtype, {RECV}", rooted=True, fields={"displs": "sdispls"},
         descriptor=Descriptor("CC_F_ROOT | CC_F_SENDV_ROOT | CC_F_RECV", "CC_SCATTER", "suspect", plan="tree"),
         part=Part("const void *sendbuf, const int sendparts[], const MPI_Count sendcounts[], const MPI_Aint displs[], "
                   f"MPI_Datatype sendtype, {PRECV}", send=BLOCKS_V, recv=WHOLE, fields={"displs": "sdispls"}),
         fortran_single={"recvbuf": ("recvcount", "recvtype")}),
    Coll("reduce", "MPI_Reduce", REDUCTION, RED, rooted=True, fields=RED_FIELDS,
         descriptor=Descriptor("CC_F_ROOT | CC_F_OP | CC_F_RECV", "CC_REDUCE", "trusted", plan="tree"),
         part=Part(PRED, send=WHOLE, recv=WHOLE)),
    Coll("allreduce", "MPI_Allreduce", REDUCTION, RED, fields=RED_FIELDS,
         descriptor=Descriptor("CC_F_OP | CC_F_RECV", "CC_ALLREDUCE", "trusted", plan="allreduce"),
         part=Part(PRED, send=WHOLE, recv=WHOLE)),
    Coll("reduce_scatter_block", "MPI_Reduce_scatter_block", REDUCTION,
         "const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op",
         fields={"datatype": "recvtype"},
         descriptor=Descriptor("CC_F_OP | CC_F_RECV | CC_F_NO_NBH", "0", "trusted"),
         part=Part("const void *sendbuf, void *recvbuf, int partitions, MPI_Count recvcount, MPI_Datatype datatype, "
                   "MPI_Op op", send=BLOCKS, recv=WHOLE, fields={"recvcount": "sc"})),
    Coll("reduce_scatter", "MPI_Reduce_scatter", REDUCTION,
         "const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op",
         fields={"datatype": "recvtype"},
         descriptor=Descriptor("CC_F_OP | CC_F_RECVV | CC_F_LOCAL_N | CC_F_NO_NBH", "0", "trusted"),
         part=Part("const void *sendbuf, void *recvbuf, const int partitions[], const MPI_Count recvcounts[], "
                   "MPI_Datatype datatype, MPI_Op op", send=BLOCKS_V, recv=WHOLE, fields={"recvcounts": "scnts"})),
    Coll("scan", "MPI_Scan", REDUCTION, RED, fields=RED_FIELDS,
         descriptor=Descriptor("CC_F_OP | CC_F_RECV | CC_F_NO_NBH", "0", "trusted"),
         part=Part(PRED, send=WHOLE, recv=WHOLE)),
    Coll("exscan", "MPI_Exscan", REDUCTION, RED, fields=RED_FIELDS,
         descriptor=Descriptor("CC_F_OP | CC_F_RECV | CC_F_NO_NBH", "0", "trusted"),
         part=Part(PRED, send=WHOLE, recv=WHOLE)),
)

COLLECTIVES = CORE_COLLECTIVES + ORTHO_COLLECTIVES

# The order of the partitioned forms in the header ([part]).
PART_ORDER = ("bcast", "gather", "gatherv", "scatter", "scatterv", "allgather", "allgatherv", "alltoall",
              "alltoallv", "alltoallw", "reduce", "allreduce", "reduce_scatter_block", "reduce_scatter", "scan",
              "exscan")

# The order of the descriptors' definitions with MPI's collective
# (src/coll/descriptors.c's table); the others follow in the list's order.
DESCRIPTOR_ORDER = ("barrier", "bcast", "gather", "gatherv", "scatter", "scatterv", "reduce", "allreduce",
                    "reduce_scatter_block", "reduce_scatter", "scan", "exscan", "allgather", "allgatherv",
                    "alltoall", "alltoallv", "alltoallw")


def by_name(name: str) -> Coll:
    for c in COLLECTIVES:
        if c.name == name:
            return c
    raise KeyError(name)


def validate() -> None:
    """Rules a row must keep (the generator and the header check run them)."""
    names = [c.name for c in COLLECTIVES]
    assert len(names) == len(set(names)), "a collective is listed twice"
    assert sorted(PART_ORDER) == sorted(c.name for c in COLLECTIVES if c.part), "PART_ORDER vs part rows"
    assert sorted(DESCRIPTOR_ORDER) == sorted(c.name for c in COLLECTIVES if c.mpi), "DESCRIPTOR_ORDER"
    for c in COLLECTIVES:
        assert c.family in FAMILIES, f"{c.name}: family {c.family}"
        assert c.descriptor, f"{c.name}: every row needs a descriptor"
        assert (c.mpi is None) == (c.descriptor.via is not None), f"{c.name}: no MPI collective <-> via"
        assert c.descriptor.via is None or by_name(c.descriptor.via).mpi, f"{c.name}: via a row MPI runs"
        assert (c.descriptor.nbh == "0") == (c.descriptor.plan is None), f"{c.name}: neighbourhood meaning <-> plan"
        assert c.descriptor.plan in PLAN_FAMILIES + (None,), f"{c.name}: plan {c.descriptor.plan}"
        names = [p.split()[-1].strip("*[]") for p in c.params.split(",") if p.strip()]
        has = lambda s: any(n.endswith(s) for n in names)  # noqa: E731
        assert (c.family == REDUCTION) == ("op" in names), f"{c.name}: reductions and only they have op"
        assert c.rooted == (c.descriptor is not None and "CC_F_ROOT" in c.descriptor.flags), f"{c.name}: rooted"
        assert (c.family == W) == has("types"), f"{c.name}: w family <-> datatype arrays"
        assert c.family not in (V, W) or has("counts"), f"{c.name}: v/w family needs counts arrays"
        assert not c.rooted or c.descriptor, f"{c.name}: rooted without descriptor"
        for p in list(c.fields) + list(c.fortran_single) + list(c.dropin_ftypes):
            assert p in names, f"{c.name}: field rule for unknown parameter {p}"
        if c.dropin:
            assert c.dropin.startswith("MPI_Neighbor_"), f"{c.name}: the drop-in's name is MPI_Neighbor_X"
            assert c.modes == ALL_MODES and not c.rooted, f"{c.name}: the drop-in wraps all three forms, no root"
            arrays = [n for n in names if n.endswith("types")]
            assert not arrays or len(c.dropin_ftypes) == 2 and set(c.dropin_ftypes) == set(arrays), \
                f"{c.name}: dropin_ftypes must name the (send, receive) datatype arrays"
        if c.part:
            for side in (c.part.send, c.part.recv):
                assert side in (WHOLE, BLOCKS, BLOCKS_V), f"{c.name}: partition shape {side}"
