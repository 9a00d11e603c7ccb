/* A call's arguments as blocks: cc_call_block reads block i of either side
 * from the regular, v or w description; cc_blocks holds all of them, with
 * duplicates of the derived datatypes. */
#include "bind/binding.h"
#include "util/alloc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int cc_call_nsend(const cc_call *a, int t)
{
    return a->collective == CC_ALLTOALL || a->collective == CC_SCATTER ? t : 1;
}

int cc_call_nrecv(const cc_call *a, int t)
{
    int c = a->collective;
    return c == CC_ALLGATHER || c == CC_ALLTOALL || c == CC_GATHER ? t : 1;
}

int cc_call_reduces(const cc_call *a) { return a->collective == CC_REDUCE || a->collective == CC_ALLREDUCE; }

/* Whether a side has one block, at the start of its buffer. */
static int single(const cc_call *a, int side)
{
    return side == CC_SIDE_SEND ? cc_call_nsend(a, 2) == 1 : cc_call_nrecv(a, 2) == 1;
}

/* The count, type and byte displacement of block i of one side. */
static void block_layout(const cc_call *a, int side, int i, int *count, MPI_Datatype *type, MPI_Aint *disp,
                     int *disp_in_extents)
{
    int send = side == CC_SIDE_SEND;
    *disp_in_extents = 1;
    if (single(a, side)) {
        *count = send ? a->sendcount : a->recvcount;
        *type = send ? a->sendtype : a->recvtype;
        *disp = 0;
        return;
    }
    switch (a->variant) {
    case CC_REGULAR:
        *count = send ? a->sendcount : a->recvcount;
        *type = send ? a->sendtype : a->recvtype;
        *disp = (MPI_Aint)i * *count; /* in extents */
        break;
    case CC_VECTOR:
        *count = send ? a->sendcounts[i] : a->recvcounts[i];
        *type = send ? a->sendtype : a->recvtype;
        *disp = send ? a->sdispls[i] : a->rdispls[i];
        break;
    default:
        *count = send ? a->sendcounts[i] : a->recvcounts[i];
        *type = send ? a->sendtypes[i] : a->recvtypes[i];
        *disp = send ? a->sdisplsw[i] : a->rdisplsw[i];
        *disp_in_extents = 0;
        break;
    }
}

int cc_call_block(const cc_call *a, int side, int i, cc_blk *out, cc_typeinfo *ti)
{
    int count, in_ext, rc;
    MPI_Datatype type;
    MPI_Aint disp;
    block_layout(a, side, i, &count, &type, &disp, &in_ext);
    if (ti->type != type && (rc = cc_typeinfo_get(type, ti)) != MPI_SUCCESS) return rc;
    /* Integer arithmetic: the base may be MPI_BOTTOM with absolute
     * displacements (the w variants). */
    uintptr_t base = side == CC_SIDE_SEND ? (uintptr_t)a->sendbuf : (uintptr_t)a->recvbuf;
    out->addr = (char *)(base + (uintptr_t)(in_ext ? disp * ti->extent : disp));
    out->count = count;
    out->type = type;
    out->bytes = (MPI_Aint)count * ti->size;
    out->extent = ti->extent;
    out->data = cc_type_data(out->addr, count, ti);
    out->named = ti->predefined;
    return MPI_SUCCESS;
}

/* The user may free a datatype as soon as the call returns (MPI allows it
 * for pending operations), but we use the types later (packing, posting
 * later phases): work on duplicates of the derived ones. */
static int own_types(cc_blocks *b)
{
    enum { RECENT = 8 };
    MPI_Datatype from[RECENT], to[RECENT];
    int nrecent = 0, cap = 0, rc;
    for (int j = 0; j < b->nsend + b->t; j++) {
        cc_blk *blk = j < b->nsend ? &b->send[j] : &b->recv[j - b->nsend];
        int k = 0;
        while (k < nrecent && from[k] != blk->type) k++;
        if (k < nrecent) {
            blk->type = to[k];
            continue;
        }
        int ni, na, nd, comb;
        if ((rc = MPI_Type_get_envelope(blk->type, &ni, &na, &nd, &comb)) != MPI_SUCCESS) return rc;
        MPI_Datatype mine = blk->type;
        if (comb != MPI_COMBINER_NAMED) {
            if (b->nowned == cap) {
                cap = cap ? 2 * cap : 8;
                MPI_Datatype *o = realloc(b->owned, sizeof(MPI_Datatype) * (size_t)cap);
                if (!o) return MPI_ERR_NO_MEM;
                b->owned = o;
            }
            if ((rc = cc_type_keep(blk->type, &mine)) != MPI_SUCCESS) return rc;
            b->owned[b->nowned++] = mine;
        }
        k = nrecent < RECENT ? nrecent++ : RECENT - 1;
        from[k] = blk->type;
        to[k] = mine;
        blk->type = mine;
    }
    return MPI_SUCCESS;
}

/* A block the caller's buffers do not have (a permutation entry < 0: an
 * offset of a detected mesh that leads off the grid at this process). */
static int empty_block(cc_blk *b)
{
    *b = (cc_blk){ NULL, 0, MPI_BYTE, 0, 1, NULL, 1 };
    return MPI_SUCCESS;
}

/* A receive block this process does not have (a detected mesh: its
 * source is off the grid).  Nothing is written to it, but temporaries for
 * blocks passing through and the cost model take its layout and size, so
 * in a regular call it has the call's signature, the same on every
 * process: the receive count and type, or the send count and type where
 * the process receives nothing at all (its receive arguments are then not
 * significant).  v and w calls (which run DIRECT): empty. */
static int absent_block(const cc_call *a, int use_send, cc_blk *b)
{
    if (a->variant != CC_REGULAR) return empty_block(b);
    cc_typeinfo ti = CC_TYPEINFO_NONE;
    int rc = cc_call_block(a, use_send ? CC_SIDE_SEND : CC_SIDE_RECV, 0, b, &ti);
    b->addr = NULL;
    b->data = NULL;
    return rc;
}

/* Blocks 0..n) of a side of the regular variant with one block per
 * neighbour (block i is the caller's block perm[i], or i; perm[i] >= 0):
 * equal but for the address, so described from the first.  What
 * cc_call_block gives block by block, without re-reading the arguments
 * (thousands of blocks at set-up). */
static int regular_blocks(const cc_call *a, int side, int n, const int *perm, cc_blk *blk, cc_typeinfo *ti)
{
    if (n == 0) return MPI_SUCCESS;
    cc_blk first;
    int rc = cc_call_block(a, side, 0, &first, ti);
    if (rc != MPI_SUCCESS) return rc;
    uintptr_t base = side == CC_SIDE_SEND ? (uintptr_t)a->sendbuf : (uintptr_t)a->recvbuf;
    MPI_Aint step = (MPI_Aint)first.count * ti->extent; /* bytes from block to block */
    for (int i = 0; i < n; i++) {
        MPI_Aint k = perm ? perm[i] : i;
        blk[i] = first;
        blk[i].addr = (char *)(base + (uintptr_t)(k * step));
        blk[i].data = cc_type_data(blk[i].addr, first.count, ti);
    }
    return MPI_SUCCESS;
}

/* Whether every entry of perm[0..n) is a block (>= 0); NULL: the identity. */
static int all_present(const int *perm, int n)
{
    for (int i = 0; perm && i < n; i++)
        if (perm[i] < 0) return 0;
    return 1;
}

int cc_blocks_new(const cc_call *a, int nsend, int nrecv, const int *sperm, const int *rperm, cc_blocks **out)
{
    *out = NULL;
    int t = nrecv;
    cc_blocks *b = calloc(1, sizeof *b);
    if (!b) return MPI_ERR_NO_MEM;
    atomic_init(&b->refs, 1);
    b->t = t;
    b->nsend = nsend;
    b->reduces = cc_call_reduces(a);
    b->op = b->reduces ? a->op : MPI_OP_NULL;
    b->send = cc_alloc_array((size_t)b->nsend, sizeof(cc_blk));
    b->recv = cc_alloc_array((size_t)t, sizeof(cc_blk));
    int rc = b->send && b->recv ? MPI_SUCCESS : MPI_ERR_NO_MEM;
    cc_typeinfo ti = CC_TYPEINFO_NONE;
    int several = cc_call_nsend(a, 2) > 1;
    if (rc == MPI_SUCCESS && a->variant == CC_REGULAR && several && all_present(sperm, b->nsend)) {
        rc = regular_blocks(a, CC_SIDE_SEND, b->nsend, sperm, b->send, &ti);
    } else {
        for (int i = 0; i < b->nsend && rc == MPI_SUCCESS; i++) {
            int k = sperm && several ? sperm[i] : i; /* (t = 1: sperm[0] may be -1) */
            rc = k < 0 ? empty_block(&b->send[i]) : cc_call_block(a, CC_SIDE_SEND, k, &b->send[i], &ti);
        }
    }
    ti.type = MPI_DATATYPE_NULL;
    if (rc == MPI_SUCCESS && a->variant == CC_REGULAR && cc_call_nrecv(a, 2) > 1 && all_present(rperm, t)) {
        rc = regular_blocks(a, CC_SIDE_RECV, t, rperm, b->recv, &ti);
    } else {
        int receives = !rperm;
        for (int i = 0; rperm && i < t; i++) receives |= rperm[i] >= 0;
        for (int i = 0; i < t && rc == MPI_SUCCESS; i++) {
            int k = rperm ? rperm[i] : i;
            rc = k < 0 ? absent_block(a, !receives && nsend > 0, &b->recv[i])
                       : cc_call_block(a, CC_SIDE_RECV, k, &b->recv[i], &ti);
        }
    }
    if (rc == MPI_SUCCESS) rc = own_types(b);
    if (rc != MPI_SUCCESS) {
        cc_blocks_release(b);
        return rc;
    }
    *out = b;
    return MPI_SUCCESS;
}

void cc_blocks_release(cc_blocks *b)
{
    if (!b || atomic_fetch_sub(&b->refs, 1) != 1) return;
    for (int i = 0; i < b->nowned; i++) MPI_Type_free(&b->owned[i]);
    free(b->owned);
    free(b->send);
    free(b->recv);
    free(b->tempmem);
    free(b);
}

int cc_blocks_new_gathered(const cc_call *a, int t, cc_blocks **out)
{
    cc_blocks *b;
    int rc = cc_blocks_new(a, 1, 1, NULL, NULL, &b); /* send[0]; recv[0]: the result, type duplicated */
    if (rc != MPI_SUCCESS) return rc;
    cc_blk *recv = realloc(b->recv, sizeof(cc_blk) * ((size_t)t + 1));
    cc_typeinfo ti = CC_TYPEINFO_NONE;
    if (!recv) rc = MPI_ERR_NO_MEM;
    else {
        b->recv = recv;
        recv[t] = recv[0];
        b->result = &recv[t];
        b->t = t;
        rc = cc_typeinfo_get(recv[t].type, &ti);
    }
    /* the receive type's own layout, one block every `stride` bytes */
    const cc_blk *r = b->result;
    MPI_Aint origin = 0, span = r && r->count > 0 ? cc_type_span(r->count, &ti, &origin) : 0;
    MPI_Aint stride = (span + 15) & ~(MPI_Aint)15;
    if (rc == MPI_SUCCESS && !(b->tempmem = cc_alloc_array((size_t)t * (size_t)stride, 1))) rc = MPI_ERR_NO_MEM;
    for (int i = 0; rc == MPI_SUCCESS && i < t; i++) {
        recv[i] = *r;
        recv[i].addr = b->tempmem + (size_t)i * (size_t)stride + origin;
        recv[i].data = cc_type_data(recv[i].addr, r->count, &ti);
    }
    if (rc != MPI_SUCCESS) {
        cc_blocks_release(b);
        return rc;
    }
    *out = b;
    return MPI_SUCCESS;
}

