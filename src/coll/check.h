/* The one check of a call (check.c), driven by its descriptor's flags,
 * for every meaning: MPI's own collective (global.c), and on a
 * neighbourhood before the call becomes blocks (neighbor.c).  Internal to
 * coll/. */
#ifndef CC_COLL_CHECK_H
#define CC_COLL_CHECK_H

#include "coll/coll.h"

/* Which parts of a call are significant on this process. */
typedef struct sides {
    int nsend, nrecv;  /* entries of the send and receive argument arrays */
    int send, recv;    /* scalar count and type */
    int sendv, recvv;  /* counts (displacements) arrays and one type */
    int sendw, recvw;  /* counts, displacements and types arrays */
} sides;

/* Check call c (request, root, operation, MPI_IN_PLACE where the meaning
 * (CC_MEANING_*) does not allow it, significant counts, arrays and
 * datatypes; with `buffers`, the buffers too: a neighbourhood's pipeline
 * checks its blocks instead) and say what is significant here (*s) and
 * whether this process is the root (*here).  Argument arrays have nsend /
 * nrecv entries (-1: one per process of the communicator, or of its
 * remote group); a v or w side without entries is not significant.
 * Returns MPI_SUCCESS or an error code (not raised). */
int cc_call_check(const char *who, const cc_call *c, int meaning, int nsend, int nrecv, int mode,
                  const Cart_request *request, int buffers, sides *s, int *here);

#endif
