/* What the hand-written support files of the module cartcoll_f08 share
 * among themselves (cartcoll_f08_call.c, _requests.c, _buffers.c,
 * _counts.c, _sections.c): they were one file, cartcoll_f08_support.c, split
 * by concept (issue 27 item 8: no file over 600 lines).  Not for the
 * generated glue, which sees cartcoll_f08_support.h only; hidden, so the
 * library exports what it did before the split. */
#ifndef CARTCOLL_F08_INTERNAL_H
#define CARTCOLL_F08_INTERNAL_H

#include "cartcoll_f08_support.h"

#include <stddef.h>

#pragma GCC visibility push(hidden)

/* Temporaries kept with a request until the library frees it (its private
 * attachment, req/attach.h; cartcoll_f08_requests.c).  Complete here
 * because ccf_async_copy allocates one in advance (ccf_call.pre). */
struct ccf_kept {
    void **mem;
    int nmem;
    MPI_Datatype *types;
    int ntypes;
    ccf_copy copy[3]; /* ccf_async_copy's copies (their descriptors are copies too) */
    int ncopy;
    int active; /* started (or made, non-blocking) and not yet copied back */
};

/* cartcoll_f08_call.c: the call's temporaries. */
/* n bytes (at least one) freed with the call; NULL with an error recorded. */
void *ccf_alloc(ccf_call *c, size_t n);
/* Remember a datatype made here (freed with the call); 0 when it could not
 * be recorded (then it is freed at once and an error recorded). */
int ccf_track(ccf_call *c, MPI_Datatype *t);
/* Free temporaries and datatypes (and the arrays holding them). */
void ccf_release(void **mem, int nmem, MPI_Datatype *types, int ntypes);

/* cartcoll_f08_requests.c: keeping a call's temporaries with its request. */
/* Keep c's temporaries with req; 0 when there is no memory for that
 * (never with async copies: their entry was allocated with them). */
int ccf_keep(ccf_call *c, Cart_request req);
/* Free the copies and their descriptors. */
void ccf_free_copies(ccf_copy *copy, int n);

/* cartcoll_f08_buffers.c: copy the elements of a non-contiguous section d
 * (rank >= 1, no zero extent) into flat, in array element order, or back. */
void ccf_transfer(const CFI_cdesc_t *d, char *flat, int to_flat);

/* cartcoll_f08_counts.c: c->nsend, c->nrecv, the blocks of the six [core]
 * collectives on c->comm; 0 when the communicator is null or invalid. */
int ccf_block_counts(ccf_call *c);

#pragma GCC visibility pop

#endif
