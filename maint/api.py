"""The whole public C API of include/cartcoll.h, in the header's order:
its constants, the functions that are not collectives (spelled here as the
header spells them) and, at their places, the collectives of
maint/collectives.py in each of their modes.  The Fortran bindings are made
from this; the test generated_header checks the header against it.
"""

import re
from dataclasses import dataclass
from typing import List, Tuple

import collectives as C

# The #define constants with a value (name, value), in the header's order.
CONSTANTS = (
    ("CARTCOLL_VERSION_MAJOR", 0), ("CARTCOLL_VERSION_MINOR", 3), ("CARTCOLL_VERSION_PATCH", 0),
    ("CART_ALGORITHM_AUTO", 0), ("CART_ALGORITHM_DIRECT", 1), ("CART_ALGORITHM_COMBINING", 2),
    ("CART_ALGORITHM_TORUS", 3),
    ("CART_ALLGATHER", 1), ("CART_ALLTOALL", 2), ("CART_BCAST", 3), ("CART_GATHER", 4), ("CART_SCATTER", 5),
    ("CART_REDUCE", 6), ("CART_ALLREDUCE", 7),
    ("CART_MANHATTAN", 1), ("CART_CHEBYSHEV", 2),
    ("CART_ROW_MAJOR", 1), ("CART_COL_MAJOR", 2),
)


@dataclass(frozen=True)
class Param:
    ctype: str   # "const int", "MPI_Comm *" (pointers end in " *")
    name: str
    array: bool  # declared name[]


@dataclass(frozen=True)
class Function:
    name: str
    params: Tuple[Param, ...]
    coll: object = None   # the collectives.Coll row, for collectives
    mode: str = ""        # its mode (collectives.BLOCKING ... or "partitioned")


def parse_params(text: str) -> Tuple[Param, ...]:
    """'const int a[], MPI_Comm *c' -> Params (one C declaration each)."""
    out = []
    for a in (x.strip() for x in text.split(",")):
        if not a or a == "void":
            continue
        m = re.match(r"^(.*?)\s*\b(\w+)\s*(\[\s*\])?$", a)
        if not m:
            raise ValueError(f"cannot parse parameter '{a}'")
        ctype = " ".join(m.group(1).split())
        if ctype.endswith("*"):
            ctype = ctype[:-1].strip() + " *"
        out.append(Param(ctype, m.group(2), bool(m.group(3))))
    return tuple(out)


def coll_function(c: C.Coll, mode: str) -> Function:
    """The C function of collective c in one mode."""
    if mode == "partitioned":
        name, params = f"Cart_p{c.name}_init", c.part.params
    else:
        name, params = c.cname(mode), c.params
    comm = c.part.comm if mode == "partitioned" else c.comm
    tail = (["int root"] if c.rooted else []) + [f"MPI_Comm {comm}"]
    if mode == C.NONBLOCKING:
        tail.append("Cart_request *request")
    elif mode in (C.PERSISTENT, "partitioned"):
        tail += ["MPI_Info info", "Cart_request *request"]
    text = ", ".join(([params] if params else []) + tail)
    return Function(name, parse_params(text), c, mode)


def _fns(*rows: Tuple[str, str]) -> List[Function]:
    return [Function(n, parse_params(p)) for n, p in rows]


def _colls(rows, mode) -> List[Function]:
    return [coll_function(c, mode) for c in rows if mode in c.modes]


CREATE_AND_QUERY = _fns(
    ("Cart_neighborhood_create", "MPI_Comm comm, int d, const int dims[], const int periods[], int t, "
     "const int targets[], const int weights[], MPI_Info info, int reorder, MPI_Comm *cartcomm"),
    ("Cart_neighbor_count", "MPI_Comm cartcomm, int *t"),
    ("Cart_neighbor_get", "MPI_Comm cartcomm, int maxin, int sources[], int sourceweights[], int maxout, "
     "int targets[], int targetweights[]"),
    ("Cart_neighborhood_get", "MPI_Comm cartcomm, int maxt, int relatives[], int weights[]"),
    ("Cart_relative_rank", "MPI_Comm comm, int rank, const int relative[], int *dest"),
    ("Cart_relative_coordinates", "MPI_Comm comm, int rank, int dest, int relative[]"),
    ("Cart_relative_shift", "MPI_Comm comm, int rank, const int relative[], int *inrank, int *outrank"),
    ("Cart_stencil_count", "int d, int metric, int shadow, int depth, int *count"),
    ("Cart_stencil", "int d, int metric, int shadow, int depth, int maxcount, int relatives[]"),
    ("Cart_schedule_stats", "MPI_Comm cartcomm, int collective, int algorithm, int *phases, int *rounds, "
     "int *volume"),
)

REQUESTS = _fns(
    ("Cart_start", "Cart_request *request"),
    ("Cart_startall", "int count, Cart_request requests[]"),
    ("Cart_wait", "Cart_request *request"),
    ("Cart_waitall", "int count, Cart_request requests[]"),
    ("Cart_test", "Cart_request *request, int *flag"),
    ("Cart_request_free", "Cart_request *request"),
)

NAMING = _fns(
    ("Cart_name", "MPI_Comm comm, int d, int dimorder, const int order[], const int periods[], int *size"),
    ("Cart_test_name", "MPI_Comm comm, int *flag, int *d, int *size"),
    ("Cart_get", "MPI_Comm comm, int *dimorder, int maxd, int order[], int periods[]"),
    ("Cart_rank", "MPI_Comm comm, const int coordinates[], int *rank"),
    ("Cart_coordinates", "MPI_Comm comm, int rank, int coordinates[]"),
    ("Cart_allranks", "MPI_Comm comm, int n, const int coordinates[], int ranks[]"),
    ("Cart_allranks_relative", "MPI_Comm comm, int source, int n, const int relatives[], int ranks[]"),
    ("Cart_neighbors_count", "MPI_Comm comm, int rank, int metric, int shadow, int depth, int *count"),
    ("Cart_neighbors", "MPI_Comm comm, int rank, int metric, int shadow, int depth, int maxcount, int relatives[]"),
    ("Cart_create_sub", "MPI_Comm comm, const int remain_dims[], MPI_Comm *subcomm"),
    ("Cart_comm_base", "MPI_Comm comm, MPI_Comm *basecomm"),
)

GRAPHS = _fns(
    ("Cart_dist_graph_create_adjacent", "MPI_Comm comm_old, int indegree, const int sources[], "
     "const int sourceweights[], int outdegree, const int destinations[], const int destweights[], MPI_Info info, "
     "int reorder, MPI_Comm *comm_dist_graph"),
    ("Cart_dist_graph_create", "MPI_Comm comm_old, int n, const int sources[], const int degrees[], "
     "const int destinations[], const int weights[], MPI_Info info, int reorder, MPI_Comm *comm_dist_graph"),
)

PARTITIONS = _fns(
    ("Cart_pready", "int partition, Cart_request request"),
    ("Cart_pready_range", "int partition_low, int partition_high, Cart_request request"),
    ("Cart_pready_list", "int length, const int partitions[], Cart_request request"),
    ("Cart_parrived", "Cart_request request, int partition, int *flag"),
    ("Cart_pready_to", "int partition, int dest, Cart_request request"),
    ("Cart_pready_range_to", "int partition_low, int partition_high, int dest, Cart_request request"),
    ("Cart_pready_list_to", "int length, const int partitions[], int dest, Cart_request request"),
    ("Cart_parrived_from", "Cart_request request, int partition, int source, int *flag"),
)


def functions() -> List[Function]:
    """Every function of the header, in its order (its sections: [core]
    create and queries, the six collectives by mode, requests, [ortho]
    naming, the seed-000 collectives by mode, graphs, [part])."""
    C.validate()
    part = [coll_function(C.by_name(n), "partitioned") for n in C.PART_ORDER]
    return (CREATE_AND_QUERY
            + _colls(C.CORE_COLLECTIVES, C.BLOCKING) + _colls(C.CORE_COLLECTIVES, C.NONBLOCKING)
            + _colls(C.CORE_COLLECTIVES, C.PERSISTENT)
            + REQUESTS + NAMING
            + _colls(C.ORTHO_COLLECTIVES, C.BLOCKING) + _colls(C.ORTHO_COLLECTIVES, C.NONBLOCKING)
            + _colls(C.ORTHO_COLLECTIVES, C.PERSISTENT)
            + GRAPHS + part + PARTITIONS)
