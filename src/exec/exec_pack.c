/* Pack executor: a combined message is staged in a contiguous buffer --
 * plain copies for contiguous blocks, MPI_Pack/MPI_Unpack for the others --
 * and travels as MPI_PACKED.  A message of one contiguous block is sent
 * from (received into) the block itself; a direct message (one block from
 * the send buffer to its receive block) uses the user's datatypes, as the
 * datatype executor does, so both executors interoperate with the same
 * schedule.  Messages of more than 2 GiB, or with an element MPI_Pack
 * cannot take in one run, are described as the datatype executor does. */
#include "exec/plan.h"
#include "util/alloc.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* Describe one half; *staged gets the staging bytes it needs (0: none). */
static int message_half(cc_plan *p, const int *slots, int n, int direct, cc_msg *m, MPI_Aint *staged)
{
    const cc_blk *b = cc_binding_slot(&p->bind, slots[0]);
    *staged = 0;
    if (direct) {
        *m = (cc_msg){ b->addr, b->count, b->type, NULL };
        return MPI_SUCCESS;
    }
    /* MPI_PACKED counts bytes in an int, and MPI_Pack cannot split an
     * element: such a message travels as a struct datatype over its blocks
     * instead (a packed message matches a typed receive, and vice versa).
     * One pass over the blocks: their bytes, and whether one cannot be
     * packed. */
    MPI_Aint bytes = 0, most = cc_blk_run_limit();
    int unpackable = 0, one_run = b->data != NULL;
    for (int j = 0; j < n; j++) {
        const cc_blk *x = cc_binding_slot(&p->bind, slots[j]);
        /* contiguous blocks that continue each other (an alltoall's blocks
         * to one peer on a slab decomposition): sent from where they are */
        one_run &= x->data && x->data == b->data + bytes;
        bytes += x->bytes;
        unpackable |= !x->data && x->count > 0 && x->bytes / x->count > most;
    }
    unpackable |= bytes > INT_MAX;
    if (unpackable) {
        int *lens = malloc(sizeof(int) * (size_t)n);
        MPI_Aint *disps = malloc(sizeof(MPI_Aint) * (size_t)n);
        MPI_Datatype *types = malloc(sizeof(MPI_Datatype) * (size_t)n);
        int rc = lens && disps && types ? cc_msg_struct(p, slots, n, m, lens, disps, types) : MPI_ERR_NO_MEM;
        free(lens);
        free(disps);
        free(types);
        return rc;
    }
    if (one_run) {
        *m = (cc_msg){ b->data, (int)bytes, MPI_PACKED, NULL };
        return MPI_SUCCESS;
    }
    *m = (cc_msg){ NULL, (int)bytes, MPI_PACKED, NULL };
    *staged = bytes;
    return MPI_SUCCESS;
}

static MPI_Aint align16(MPI_Aint x) { return (x + 15) & ~(MPI_Aint)15; }

/* One message's slot operations ops[0..n): contiguous blocks that follow
 * each other in memory are staged by one memcpy (the first operation of a
 * run covers it, `span` entries; the others are skipped). */
static void fuse_span(cc_copyop *ops, int n)
{
    for (int j = 0; j < n;) {
        cc_copyop *h = &ops[j];
        int k = j + 1;
        while (!h->src_blk && k < n && !ops[k].src_blk && ops[k].src == h->src + h->bytes) {
            h->bytes += ops[k].bytes;
            h->span++;
            k++;
        }
        j = k;
    }
}

static int prepare(cc_plan *p)
{
    const cc_local *l = p->local;
    MPI_Aint most = 0;
    /* Staging offsets: rounds of one phase need distinct areas, phases reuse
     * the same buffer (the next phase is packed after the previous one was
     * unpacked).  First record offsets relative to the buffer, then place. */
    MPI_Aint *soff = cc_alloc_array((size_t)l->nrounds, sizeof(MPI_Aint));
    MPI_Aint *roff = cc_alloc_array((size_t)l->nrounds, sizeof(MPI_Aint));
    int rc = (!soff || !roff) ? MPI_ERR_NO_MEM : MPI_SUCCESS;
    for (int ph = 0; rc == MPI_SUCCESS && ph < l->nphases; ph++) {
        MPI_Aint used = 0, st;
        for (int r = l->phase_first[ph]; rc == MPI_SUCCESS && r < l->phase_first[ph + 1]; r++) {
            const cc_lround *lr = &l->rounds[r];
            soff[r] = roff[r] = -1;
            if (lr->send_rank >= 0) {
                rc = message_half(p, l->slots + lr->sfirst, lr->scount, lr->sdirect, &p->smsg[r], &st);
                if (st) soff[r] = used, used = align16(used + st);
            }
            if (rc == MPI_SUCCESS && lr->recv_rank >= 0) {
                rc = message_half(p, l->slots + lr->rfirst, lr->rcount, lr->rdirect, &p->rmsg[r], &st);
                if (st) roff[r] = used, used = align16(used + st);
            }
        }
        if (used > most) most = used;
    }
    if (rc == MPI_SUCCESS && most > 0 && !(p->stagebuf = malloc((size_t)most))) rc = MPI_ERR_NO_MEM;
    /* Slots resolved once: packing is then a loop of copies. */
    if (rc == MPI_SUCCESS && !(p->slotops = cc_alloc_array((size_t)l->nslots, sizeof(cc_copyop))))
        rc = MPI_ERR_NO_MEM;
    for (int j = 0; rc == MPI_SUCCESS && j < l->nslots; j++) {
        const cc_blk *b = cc_binding_slot(&p->bind, l->slots[j]);
        p->slotops[j] = (cc_copyop){ b->data, b->data, b->bytes, b->data ? NULL : b, b->data ? NULL : b, 1, 1 };
    }
    for (int r = 0; rc == MPI_SUCCESS && r < l->nrounds; r++) {
        const cc_lround *lr = &l->rounds[r];
        if (lr->send_rank >= 0) fuse_span(p->slotops + lr->sfirst, lr->scount);
        if (lr->recv_rank >= 0) fuse_span(p->slotops + lr->rfirst, lr->rcount);
    }
    for (int r = 0; rc == MPI_SUCCESS && r < l->nrounds; r++) {
        if (soff[r] >= 0) p->smsg[r].buf = p->smsg[r].stage = p->stagebuf + soff[r];
        if (roff[r] >= 0) p->rmsg[r].buf = p->rmsg[r].stage = p->stagebuf + roff[r];
    }
    free(soff);
    free(roff);
    return rc;
}

/* Copy the blocks of slots [first, first+n) into / out of a staging area. */
static int stage(cc_plan *p, int first, int n, char *buf, MPI_Aint cap, int out)
{
    MPI_Aint pos = 0;
    const cc_copyop *op = p->slotops + first;
    for (int j = 0; j < n; j += op->span, op += op->span) {
        if (!op->src_blk) {
            if (out) memcpy(buf + pos, op->src, (size_t)op->bytes);
            else memcpy(op->dst, buf + pos, (size_t)op->bytes);
            pos += op->bytes;
            continue;
        }
        int rc = out ? cc_blk_pack(op->src_blk, buf, cap, &pos, p->comm) : cc_blk_unpack(op->dst_blk, buf, cap, &pos, p->comm);
        if (rc != MPI_SUCCESS) return rc;
    }
    return MPI_SUCCESS;
}

/* One round's message: out = 1 packs what is sent, out = 0 unpacks what
 * was received (nothing where the message is not staged). */
static int stage_round(cc_plan *p, int r, int out)
{
    const cc_lround *lr = &p->local->rounds[r];
    const cc_msg *m = out ? &p->smsg[r] : &p->rmsg[r];
    if ((out ? lr->send_rank : lr->recv_rank) < 0 || !m->stage) return MPI_SUCCESS;
    return out ? stage(p, lr->sfirst, lr->scount, m->stage, m->count, 1)
               : stage(p, lr->rfirst, lr->rcount, m->stage, m->count, 0);
}

static int pack_round(cc_plan *p, int r) { return stage_round(p, r, 1); }
static int unpack_round(cc_plan *p, int r) { return stage_round(p, r, 0); }

const cc_exec cc_exec_pack = { prepare, pack_round, unpack_round };
