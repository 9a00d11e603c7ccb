/* The fused local copies of a plan (cc_fuse_copies, cc_copy_run) against
 * running the same copies one by one: runs that continue each other fuse,
 * a source repeated into consecutive destinations replicates, copies that
 * overlap their run or are not contiguous stay apart, copies of 0 bytes
 * go.  The oracle is the unfused list run in order (memmove each); every
 * case also asserts how many operations are left, so a fusion that stops
 * happening, or one that happens where it must not, fails. */
#include "exec/plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;

#define N 256

/* Run ops[0..n) unfused on a copy of init (the oracle) and fused on
 * another; compare, and compare the fused count with want (-1: any). */
static void check(const char *what, cc_copyop *ops, int n, const char *init, int want)
{
    char a[N], b[N];
    memcpy(a, init, N);
    memcpy(b, init, N);
    /* the ops point into `a`: rebase them for b after the oracle ran */
    cc_copyop *f = malloc(sizeof(cc_copyop) * (size_t)(n + 1));
    for (int j = 0; j < n; j++) {
        f[j] = ops[j];
        f[j].src = b + (ops[j].src - init);
        f[j].dst = b + (ops[j].dst - init);
        ops[j].src = a + (ops[j].src - init);
        ops[j].dst = a + (ops[j].dst - init);
        memmove(ops[j].dst, ops[j].src, (size_t)ops[j].bytes);
    }
    int k = cc_fuse_copies(f, n);
    for (int j = 0; j < k; j++) cc_copy_run(&f[j]);
    if (memcmp(a, b, N)) {
        printf("FAIL %s: fused result differs\n", what);
        failures++;
    }
    if (want >= 0 && k != want) {
        printf("FAIL %s: %d operations after fusing, expected %d\n", what, k, want);
        failures++;
    }
    free(f);
}

/* A copy of bytes from init+s to init+d. */
static cc_copyop op(const char *init, int s, int d, int bytes)
{
    return (cc_copyop){ init + s, (char *)init + d, bytes, NULL, NULL, 1, 1 };
}

int main(void)
{
    char init[N];
    for (int i = 0; i < N; i++) init[i] = (char)(i * 7 + 1);
    cc_copyop ops[64];
    /* an alltoall's self blocks: 8 consecutive blocks of 4 bytes -> 1 memmove */
    for (int j = 0; j < 8; j++) ops[j] = op(init, 4 * j, 128 + 4 * j, 4);
    check("consecutive", ops, 8, init, 1);
    /* two runs with a gap -> 2 */
    for (int j = 0; j < 8; j++) ops[j] = op(init, 4 * j + (j >= 4) * 8, 128 + 4 * j + (j >= 4) * 8, 4);
    check("two runs", ops, 8, init, 2);
    /* an allgather's repeats: one source into 9 consecutive blocks -> 1 (replicated) */
    for (int j = 0; j < 9; j++) ops[j] = op(init, 0, 64 + 12 * j, 12);
    check("replicate", ops, 9, init, 1);
    /* replicate, then another source's repeats -> 2 */
    for (int j = 0; j < 6; j++) ops[j] = op(init, j < 3 ? 0 : 8, 64 + 8 * j, 8);
    check("two replications", ops, 6, init, 2);
    /* a chain whose run would overlap its own source: kept apart, order matters */
    for (int j = 0; j < 4; j++) ops[j] = op(init, 8 * j, 8 * j + 8, 8);
    check("overlapping chain", ops, 4, init, 4);
    /* replication whose destination run reaches its source: kept apart */
    for (int j = 0; j < 4; j++) ops[j] = op(init, 40, 16 + 8 * j, 8);
    check("replication onto its source", ops, 4, init, -1);
    /* copies of 0 bytes go; the rest fuses around them */
    ops[0] = op(init, 0, 100, 4);
    ops[1] = op(init, 50, 50, 0);
    ops[2] = op(init, 4, 104, 4);
    check("zero bytes", ops, 3, init, 1);
    /* a non-contiguous copy (src_blk set) breaks a run; it is not run here,
     * so the oracle skips it too: only the count is checked */
    cc_copyop x[3] = { op(init, 0, 100, 4), op(init, 4, 104, 4), op(init, 8, 108, 4) };
    static const cc_blk dummy;
    x[1].src_blk = x[1].dst_blk = &dummy;
    int k = cc_fuse_copies(x, 3);
    if (k != 3) {
        printf("FAIL non-contiguous: %d operations, expected 3\n", k);
        failures++;
    }
    if (!failures) printf("test_fuse: all cases OK\n");
    return failures != 0;
}
