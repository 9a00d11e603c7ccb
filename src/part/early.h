/* The early bird's state (part.h): what early_setup.c plans at _init and
 * early.c runs. */
#ifndef CC_PART_EARLY_H
#define CC_PART_EARLY_H

#include <mpi.h>
#include <stdatomic.h>
#include <stddef.h>

#include "part/part.h"

typedef struct {
    MPI_Comm pcomm;         /* its own duplicate of the communicator */
    MPI_Request *sreq;      /* nsmsg persistent sends */
    atomic_int *sstarted;   /* nsmsg: started in this cycle (a copy: 1 claimed, 2 copied) */
    atomic_int nstarted;
    int nrmsg;              /* persistent receives: the senders' partitions */
    MPI_Request *rreq;
    int *rfirst;            /* nsrc + 1: first receive of source j */
    int *rblk, *rcnt;       /* nsrc: elements of receive block j, of its partitions */
    int *rfrom;             /* nsrc: the send block of this process whose messages fill receive
                             * block j (copied: an edge to itself), else -1 */
    int nsmsg;              /* send messages; those of block d are mfirst[d] ... mfirst[d+1]-1,
                             * each carrying adjacent partitions of that destination's block
                             * (aggregation) in order */
    int *mfirst;            /* ndest + 1 */
    int *magg;              /* nsmsg: partitions in the message (marks that send it) */
    int *pmsg;              /* BLOCKS, nsend: the message of send partition k */
    int agg;                /* WHOLE: partitions per message (every destination alike) */
    atomic_int *mmark;      /* nsmsg: partitions of the message marked for its destination */
    unsigned char *kself;   /* nsmsg: the message goes to this process itself (copied, no MPI) */
    const char *sbase;      /* the send buffer and ... */
    char *rbase;            /* ... the receive buffer, for those copies: */
    MPI_Aint *msoff, *mroff; /* nsmsg: byte offsets of the message in the send buffer and, for
                              * those to this process itself, in the receive buffer */
    size_t *mbytes;         /* nsmsg: its bytes */
} cc_part_eb;

/* The early bird's state for nsmsg send messages to ndest destinations,
 * nsend send partitions (pmsg: blockwise), nrmsg receives from nsrc
 * sources; NULL when out of memory.  pcomm is MPI_COMM_NULL. */
cc_part_eb *cc_part_eb_new(int ndest, int nsmsg, int nsend, int pmsg, int nsrc, int nrmsg);

extern const cc_part_ops cc_part_early_ops;

#endif
