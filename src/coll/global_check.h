/* The local checks of a call with global (or inter-communicator) meaning,
 * shared by global.c (MPI's own collectives) and the seed-000 collectives'
 * neighbourhood front (cc_coll_check, coll.h).  Internal to coll/. */
#ifndef CC_GLOBAL_CHECK_H
#define CC_GLOBAL_CHECK_H

#include "coll/coll.h"

/* Which parts of a call are significant on this process (intra-
 * communicators; MPI checks inter-communicator calls itself). */
typedef struct sides {
    int nsend, nrecv;  /* entries of the send and receive argument arrays */
    int send, recv;    /* scalar count and type */
    int sendv, recvv;  /* counts (displacements) arrays and one type */
    int sendw, recvw;  /* counts, displacements and types arrays */
} sides;

/* Check call c of collective k (request, root, operation, significant
 * counts, arrays and datatypes; with `buffers`, the buffers too) and say
 * what is significant here (*s) and whether this process is the root
 * (*here).  Arrays have nsend / nrecv entries; -1: one per process of the
 * communicator.  Returns MPI_SUCCESS or an error code (not raised). */
int cc_global_check(const cc_coll *k, const char *who, const cc_mpicall *c, int inter, int mode,
                    const Cart_request *request, int nsend, int nrecv, int buffers, sides *s, int *here);

#endif
