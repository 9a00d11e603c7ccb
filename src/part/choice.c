/* What the partitioned transports decide from the call's info, the
 * communicator's defaults and the environment, and agree on. */
#include "part/transport.h"

#include "base/errors.h"
#include "base/options.h"
#include "choose/choose.h"

#include <stdlib.h>

/* Whether every process of comm says yes (one small reduction). */
int cc_part_agree(MPI_Comm c, int yes)
{
    int all = 0;
    return MPI_Allreduce(&yes, &all, 1, MPI_INT, MPI_MIN, c) == MPI_SUCCESS && all;
}

int cc_part_aggregate_error(MPI_Comm comm, const char *who, int good)
{
    return cc_error(comm, MPI_ERR_ARG, "%s: %s", who,
                    good ? "another process's cartcoll_part_aggregate (info or CARTCOLL_PART_AGGREGATE) is not a "
                           "non-negative integer"
                         : "cartcoll_part_aggregate (info or CARTCOLL_PART_AGGREGATE) is not a non-negative integer "
                           "(bytes)");
}

/* Aggregation: adjacent partitions to one destination travel in one
 * message up to this many bytes.  Info key cartcoll_part_aggregate (bytes,
 * 0: never), else the environment's CARTCOLL_PART_AGGREGATE, else the cost
 * model's break-even: the size whose transfer costs as much as one more
 * message (overhead / beta), below which a message is mostly its fixed
 * cost.  Returns 0 on a bad value (not a non-negative integer). */
int cc_part_aggregate_bytes(MPI_Info info, const cc_nbh *n, long long *bytes)
{
    char v[64] = "";
    int found = 0;
    if (info != MPI_INFO_NULL) {
#if MPI_VERSION >= 4
        int len = (int)sizeof v;
        if (MPI_Info_get_string(info, "cartcoll_part_aggregate", &len, v, &found) != MPI_SUCCESS) return 0;
        if (found && len > (int)sizeof v) return 0;
#else
        if (MPI_Info_get(info, "cartcoll_part_aggregate", (int)sizeof v - 1, v, &found) != MPI_SUCCESS) return 0;
#endif
    }
    /* A key present in info is a value, also where it is empty (MPICH
     * stores ""); an empty environment variable is unset, as all of
     * cartcoll's are. */
    const char *e = found ? v : getenv("CARTCOLL_PART_AGGREGATE");
    if (found || (e && *e)) return cc_parse_bytes(e, bytes);
    cc_cost_params m;
    if (n) m = n->model;
    else (void)cc_model_fixed(&m); /* no neighbourhood: the environment's or default model */
    *bytes = m.beta > 0 && m.overhead > 0 ? (long long)(m.overhead / m.beta) : 0;
    return 1;
}

/* The algorithm this call's info, the communicator's defaults (create's
 * info) and the environment ask for, in that order. */
int cc_part_asked_algorithm(MPI_Info info, const where *w, const char *who)
{
    cc_choice ch = { CC_AUTO, CC_EXEC_AUTO, 0 };
    if (w->cs) ch = w->cs->nbh->defaults;
    else cc_options_env(&ch);
    cc_options_info(info, &ch, who);
    return ch.algorithm;
}
