/* Copies of blocks: into and out of staging buffers (pack executor) and
 * from block to block (local copies), by memcpy where the type map allows
 * and by MPI_Pack/MPI_Unpack in runs below 2 GiB otherwise. */
#include "exec/plan.h"

#include <limits.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* MPI_Pack and MPI_Unpack count bytes in ints: a block of more than 2 GiB
 * goes through them in runs of whole elements, each below 2 GiB.  MPI_Pack's
 * native format is the type's bytes on every homogeneous system, so runs
 * packed one after the other equal the block packed at once. */
MPI_Aint cc_blk_run_limit(void)
{
    /* CARTCOLL_PACK_RUN lowers the limit so that tests reach the multi-run
     * path without 2 GiB blocks. */
    static atomic_long limit;
    long l = atomic_load(&limit);
    if (l == 0) {
        const char *e = getenv("CARTCOLL_PACK_RUN");
        long x = e && *e ? strtol(e, NULL, 10) : 0;
        l = x > 0 && x < INT_MAX ? x : INT_MAX;
        atomic_store(&limit, l);
    }
    return (MPI_Aint)l;
}

static int pack_runs(const cc_blk *b, char *buf, MPI_Comm comm, int unpack)
{
    MPI_Aint each = b->bytes / b->count, most = cc_blk_run_limit(); /* bytes > 0, so count > 0 */
    if (each > most) return MPI_ERR_COUNT;
    MPI_Aint per = most / each;
    for (MPI_Aint e = 0; e < b->count; e += per) {
        int n = (int)(b->count - e < per ? b->count - e : per), len = (int)(n * each), pos = 0, rc;
        char *addr = b->addr + e * b->extent;
        rc = unpack ? MPI_Unpack(buf, len, &pos, addr, n, b->type, comm) : MPI_Pack(addr, n, b->type, buf, len, &pos, comm);
        if (rc != MPI_SUCCESS) return rc;
        if (pos != len) return MPI_ERR_INTERN;
        buf += len;
    }
    return MPI_SUCCESS;
}

int cc_blk_pack(const cc_blk *b, char *buf, MPI_Aint cap, MPI_Aint *pos, MPI_Comm comm)
{
    if (b->bytes == 0) return MPI_SUCCESS;
    if (*pos + b->bytes > cap) return MPI_ERR_TRUNCATE;
    int rc = MPI_SUCCESS;
    if (b->data) memcpy(buf + *pos, b->data, (size_t)b->bytes);
    else rc = pack_runs(b, buf + *pos, comm, 0);
    if (rc == MPI_SUCCESS) *pos += b->bytes;
    return rc;
}

int cc_blk_unpack(const cc_blk *b, const char *buf, MPI_Aint cap, MPI_Aint *pos, MPI_Comm comm)
{
    if (b->bytes == 0) return MPI_SUCCESS;
    if (*pos + b->bytes > cap) return MPI_ERR_TRUNCATE;
    int rc = MPI_SUCCESS;
    if (b->data) memcpy(b->data, buf + *pos, (size_t)b->bytes);
    else rc = pack_runs(b, (char *)(uintptr_t)(buf + *pos), comm, 1);
    if (rc == MPI_SUCCESS) *pos += b->bytes;
    return rc;
}

int cc_blk_copy(const cc_blk *src, const cc_blk *dst, char *scratch, MPI_Aint cap, MPI_Comm comm, int tag)
{
    if (src->bytes > dst->bytes) return MPI_ERR_TRUNCATE;
    if (src->bytes == 0) return MPI_SUCCESS;
    cc_blk part = *dst;
    part.bytes = src->bytes;
    MPI_Aint pos = 0;
    if (src->data && dst->data) {
        if (src->data != dst->data) memmove(dst->data, src->data, (size_t)src->bytes);
        return MPI_SUCCESS;
    }
    MPI_Aint most = cc_blk_run_limit();
    if (src->data && part.bytes / part.count <= most) return cc_blk_unpack(&part, src->data, src->bytes, &pos, comm);
    if (dst->data && src->bytes / src->count <= most) return cc_blk_pack(src, dst->data, src->bytes, &pos, comm);
    if (scratch && src->bytes <= cap && src->bytes / src->count <= most && part.bytes / part.count <= most) {
        int rc = cc_blk_pack(src, scratch, cap, &pos, comm);
        pos = 0;
        return rc == MPI_SUCCESS ? cc_blk_unpack(&part, scratch, cap, &pos, comm) : rc;
    }
    /* Elements of more than 2 GiB: let MPI copy, as a message to ourselves
     * under the operation's own tag (no other message of it is pending). */
    int me;
    MPI_Comm_rank(comm, &me);
    return MPI_Sendrecv(src->addr, src->count, src->type, me, tag, dst->addr, dst->count, dst->type, me, tag, comm,
                        MPI_STATUS_IGNORE);
}

