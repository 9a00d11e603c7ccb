/* In-place alltoall(v,w) with global meaning, then non-blocking and
 * persistent collectives on the same communicator (defect D8).
 *
 * Open MPI 4.1's libnbc lets a process whose receive blocks of an in-place
 * MPI_Ialltoallv / MPI_Ialltoallw (or MPIX_Alltoallv_init /
 * MPIX_Alltoallw_init) are all empty return without taking the
 * communicator's next non-blocking tag, which every other process takes:
 * the next non-blocking collective on the communicator never completes.
 * Every case runs on one duplicate of MPI_COMM_WORLD, so such a slip hangs
 * a later case (the ctest TIMEOUT fails the test).
 *
 * First collective: Cart_alltoallv (MPI_INT), Cart_alltoallw (MPI_INT and a
 * strided vector type by pair), Cart_alltoall, each with MPI_IN_PLACE,
 * blocking, non-blocking, persistent (two starts with new data); argument
 * arrays scrambled and derived types freed right after non-blocking and
 * *_init calls.  Block sizes by pair (symmetric, as in-place requires):
 * only rank 0 keeps one int for itself (the reproducer), the last rank
 * empty and the others exchanging, all empty, all non-empty.  Then one of:
 * Cart_iallgatherv with an indexed type and counts 0, 1, 2 (the
 * reproducer), Cart_iallreduce, Cart_alltoall_init.  Every result against
 * first principles: block j of rank r holds what j sent to r, every other
 * int keeps its sentinel. */
#include "mpitest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { COLL_V, COLL_W, COLL_R, NCOLL };
enum { FORM_BLOCKING, FORM_NONBLOCKING, FORM_PERSISTENT, NFORM };
enum { PAT_D8, PAT_SPARSE, PAT_ZERO, PAT_FULL, NPAT };
enum { NEXT_IALLGATHERV, NEXT_IALLREDUCE, NEXT_ALLTOALL_INIT, NNEXT };
enum { NBUF = 1 << 14, SENTINEL = -7 };

static const char *coll_name[] = { "alltoallv", "alltoallw", "alltoall" };
static const char *form_name[] = { "blocking", "non-blocking", "persistent" };
static const char *pat_name[] = { "only-rank-0-self", "last-rank-empty", "all-empty", "all-full" };
static const char *next_name[] = { "Cart_iallgatherv(indexed)", "Cart_iallreduce", "Cart_alltoall_init" };

static int buf[NBUF], sb[NBUF];
static MPI_Comm comm;
static int me, np;

/* The value of the k-th int of what src sends to dst in round `round`. */
static int value(int src, int dst, int k, int round)
{
    return 1 + k + 100 * dst + 10000 * src + 1000000 * round;
}

/* Elements in the block between i and j (the same both ways). */
static int count_of(int coll, int pat, int i, int j)
{
    if (coll == COLL_R) return pat == PAT_ZERO ? 0 : 2;
    switch (pat) {
    case PAT_D8: return i == 0 && j == 0;
    case PAT_SPARSE: return i == np - 1 || j == np - 1 ? 0 : 1 + (i + j) % 3;
    case PAT_ZERO: return 0;
    default: return 1 + (i + j) % 2;
    }
}

/* alltoallw: the block between i and j is of vector(2,1,2,MPI_INT)
 * (ints at 0 and 2 of each 3) where i + j is odd, else MPI_INT. */
static int strided(int coll, int i, int j) { return coll == COLL_W && (i + j) % 2; }

/* Where the k-th int of block j lies in buf (block starts in ints in at[]). */
static int int_at(int coll, const int *at, int j, int k)
{
    if (strided(coll, me, j)) return at[j] + 3 * (k / 2) + 2 * (k % 2);
    return at[j] + k;
}

static int ints_of(int coll, int pat, int j)
{
    return count_of(coll, pat, me, j) * (strided(coll, me, j) ? 2 : 1);
}

/* Block starts (in ints), with a gap int after every block (none for
 * alltoall: MPI places its blocks contiguously). */
static void layout(int coll, int pat, int *at)
{
    int off = 0;
    for (int j = 0; j < np; j++) {
        int c = count_of(coll, pat, me, j);
        at[j] = coll == COLL_R ? j * c : off;
        off += c * (strided(coll, me, j) ? 3 : 1) + 1;
    }
}

/* Send data: block j holds what this process sends to j; sentinels elsewhere. */
static void fill(int coll, int pat, const int *at, int round)
{
    for (int i = 0; i < NBUF; i++) buf[i] = SENTINEL;
    for (int j = 0; j < np; j++)
        for (int k = 0; k < ints_of(coll, pat, j); k++) buf[int_at(coll, at, j, k)] = value(me, j, k, round);
}

static void check_first(int coll, int pat, const int *at, int round, const char *what)
{
    static char mark[NBUF];
    memset(mark, 0, sizeof mark);
    int bad = 0;
    for (int j = 0; j < np; j++)
        for (int k = 0; k < ints_of(coll, pat, j); k++) {
            int x = int_at(coll, at, j, k);
            mark[x] = 1;
            if (buf[x] != value(j, me, k, round) && bad++ < 3)
                MT_CHECK(0, "%s: block %d int %d = %d, want %d (sent by %d)", what, j, k, buf[x],
                         value(j, me, k, round), j);
        }
    for (int x = 0; x < NBUF; x++)
        if (!mark[x] && buf[x] != SENTINEL && bad++ < 3) MT_CHECK(0, "%s: int %d outside the blocks changed to %d", what, x, buf[x]);
    MT_CHECK(bad == 0, "%s: %d wrong ints", what, bad);
}

/* The first collective, in place, in the given form. */
static void first(int coll, int form, int pat, const char *what)
{
    int counts[64], displs[64], at[64];
    MPI_Aint bdispls[64];
    MPI_Datatype types[64], vec;
    MPI_Type_vector(2, 1, 2, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    layout(coll, pat, at);
    int rcount = count_of(coll, pat, me, me);
    for (int j = 0; j < np; j++) {
        counts[j] = count_of(coll, pat, me, j);
        displs[j] = at[j];
        bdispls[j] = (MPI_Aint)at[j] * (MPI_Aint)sizeof(int);
        types[j] = strided(coll, me, j) ? vec : MPI_INT;
    }
    Cart_request rq = CART_REQUEST_NULL;
    int rc = MPI_SUCCESS, rounds = form == FORM_PERSISTENT ? 2 : 1;
    fill(coll, pat, at, 0);
    if (form == FORM_BLOCKING) {
        if (coll == COLL_V) rc = Cart_alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_INT, buf, counts, displs, MPI_INT, comm);
        else if (coll == COLL_W) rc = Cart_alltoallw(MPI_IN_PLACE, NULL, NULL, NULL, buf, counts, bdispls, types, comm);
        else rc = Cart_alltoall(MPI_IN_PLACE, 0, MPI_INT, buf, rcount, MPI_INT, comm);
    } else if (form == FORM_NONBLOCKING) {
        if (coll == COLL_V) rc = Cart_ialltoallv(MPI_IN_PLACE, NULL, NULL, MPI_INT, buf, counts, displs, MPI_INT, comm, &rq);
        else if (coll == COLL_W)
            rc = Cart_ialltoallw(MPI_IN_PLACE, NULL, NULL, NULL, buf, counts, bdispls, types, comm, &rq);
        else rc = Cart_ialltoall(MPI_IN_PLACE, 0, MPI_INT, buf, rcount, MPI_INT, comm, &rq);
    } else {
        if (coll == COLL_V)
            rc = Cart_alltoallv_init(MPI_IN_PLACE, NULL, NULL, MPI_INT, buf, counts, displs, MPI_INT, comm, MPI_INFO_NULL, &rq);
        else if (coll == COLL_W)
            rc = Cart_alltoallw_init(MPI_IN_PLACE, NULL, NULL, NULL, buf, counts, bdispls, types, comm, MPI_INFO_NULL,
                                     &rq);
        else rc = Cart_alltoall_init(MPI_IN_PLACE, 0, MPI_INT, buf, rcount, MPI_INT, comm, MPI_INFO_NULL, &rq);
    }
    MPI_Type_free(&vec);
    /* The request keeps its own copies of the arrays (and types). */
    for (int j = 0; j < np; j++) {
        counts[j] = -5;
        displs[j] = -5;
        bdispls[j] = -5;
        types[j] = MPI_DATATYPE_NULL;
    }
    MT_CHECK(rc == MPI_SUCCESS, "%s: call returned %d", what, rc);
    if (rc != MPI_SUCCESS) return;
    for (int round = 0; round < rounds; round++) {
        if (form == FORM_PERSISTENT) {
            fill(coll, pat, at, round);
            rc = Cart_start(&rq);
            MT_CHECK(rc == MPI_SUCCESS, "%s: Cart_start returned %d", what, rc);
        }
        if (form != FORM_BLOCKING) {
            rc = Cart_wait(&rq);
            MT_CHECK(rc == MPI_SUCCESS, "%s: Cart_wait returned %d", what, rc);
        }
        char r_what[300];
        snprintf(r_what, sizeof r_what, "%s, round %d", what, round);
        check_first(coll, pat, at, round, r_what);
    }
    if (form == FORM_PERSISTENT) Cart_request_free(&rq);
}

/* The reproducer's allgatherv: indexed type (2 ints at 3, 1 int at 0;
 * extent 5 ints), counts i % 3. */
static void next_iallgatherv(const char *what)
{
    static const int order[3] = { 3, 4, 0 };
    MPI_Datatype t;
    int bl[2] = { 2, 1 }, ds[2] = { 3, 0 };
    MPI_Type_indexed(2, bl, ds, MPI_INT, &t);
    MPI_Type_commit(&t);
    int counts[64], displs[64], off = 0;
    for (int i = 0; i < np; i++) {
        counts[i] = i % 3;
        displs[i] = off;
        off += counts[i] + 1;
    }
    for (int x = 0; x < NBUF; x++) {
        sb[x] = value(me, 0, x, 7);
        buf[x] = SENTINEL;
    }
    Cart_request rq;
    int rc = Cart_iallgatherv(sb, me % 3, t, buf, counts, displs, t, comm, &rq);
    MPI_Type_free(&t);
    MT_CHECK(rc == MPI_SUCCESS, "%s: Cart_iallgatherv returned %d", what, rc);
    if (rc != MPI_SUCCESS) return;
    rc = Cart_wait(&rq);
    MT_CHECK(rc == MPI_SUCCESS, "%s: Cart_wait returned %d", what, rc);
    static char mark[NBUF];
    memset(mark, 0, sizeof mark);
    int bad = 0;
    for (int i = 0; i < np; i++)
        for (int e = 0; e < i % 3; e++)
            for (int k = 0; k < 3; k++) {
                int x = 5 * (displs[i] + e) + order[k], want = value(i, 0, 5 * e + order[k], 7);
                mark[x] = 1;
                if (buf[x] != want && bad++ < 3)
                    MT_CHECK(0, "%s: from %d element %d int %d = %d, want %d", what, i, e, k, buf[x], want);
            }
    for (int x = 0; x < NBUF; x++)
        if (!mark[x] && buf[x] != SENTINEL && bad++ < 3) MT_CHECK(0, "%s: int %d outside the blocks changed", what, x);
    MT_CHECK(bad == 0, "%s: %d wrong ints", what, bad);
}

static void next_iallreduce(const char *what)
{
    int in[3] = { me + 1, 2 * me, 7 }, out[3] = { SENTINEL, SENTINEL, SENTINEL };
    Cart_request rq;
    int rc = Cart_iallreduce(in, out, 3, MPI_INT, MPI_SUM, comm, &rq);
    MT_CHECK(rc == MPI_SUCCESS, "%s: Cart_iallreduce returned %d", what, rc);
    if (rc != MPI_SUCCESS) return;
    rc = Cart_wait(&rq);
    MT_CHECK(rc == MPI_SUCCESS, "%s: Cart_wait returned %d", what, rc);
    int want[3] = { np * (np + 1) / 2, np * (np - 1), 7 * np };
    for (int k = 0; k < 3; k++) MT_CHECK(out[k] == want[k], "%s: sum[%d] = %d, want %d", what, k, out[k], want[k]);
}

static void next_alltoall_init(const char *what)
{
    for (int j = 0; j < np; j++) {
        sb[j] = value(me, j, 0, 9);
        buf[j] = SENTINEL;
    }
    buf[np] = SENTINEL;
    Cart_request rq;
    int rc = Cart_alltoall_init(sb, 1, MPI_INT, buf, 1, MPI_INT, comm, MPI_INFO_NULL, &rq);
    MT_CHECK(rc == MPI_SUCCESS, "%s: Cart_alltoall_init returned %d", what, rc);
    if (rc != MPI_SUCCESS) return;
    rc = Cart_start(&rq);
    if (rc == MPI_SUCCESS) rc = Cart_wait(&rq);
    MT_CHECK(rc == MPI_SUCCESS, "%s: start/wait returned %d", what, rc);
    Cart_request_free(&rq);
    for (int j = 0; j < np; j++)
        MT_CHECK(buf[j] == value(j, me, 0, 9), "%s: block %d = %d, want %d", what, j, buf[j], value(j, me, 0, 9));
    MT_CHECK(buf[np] == SENTINEL, "%s: int after the blocks changed", what);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "test_inplace_nbc");
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &np);
    if (np > 64) {
        if (me == 0) printf("test_inplace_nbc: at most 64 processes\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    /* --only N: case N alone (to see which cases fail on their own). */
    int only = argc > 2 && !strcmp(argv[1], "--only") ? atoi(argv[2]) : -1, ncases = 0;
    /* The reproducer's sequence first: nothing but MPI before it. */
    static const int order[NCOLL] = { COLL_V, COLL_W, COLL_R };
    for (int ci = 0; ci < NCOLL; ci++)
        for (int pat = 0; pat < NPAT; pat++) {
            int coll = order[ci];
            if (coll == COLL_R && pat != PAT_ZERO && pat != PAT_FULL) continue; /* regular: one count everywhere */
            for (int form = FORM_NONBLOCKING; form < FORM_NONBLOCKING + NFORM; form++)
                for (int next = 0; next < NNEXT; next++) {
                    int f = form % NFORM; /* non-blocking first: the reproducer's failing pair */
                    char what[256];
                    snprintf(what, sizeof what, "in-place %s %s, blocks %s, then %s", form_name[f], coll_name[coll],
                             pat_name[pat], next_name[next]);
                    if (only >= 0 && ncases != only) {
                        ncases++;
                        continue;
                    }
                    if (me == 0) printf("case %d: %s\n", ncases, what);
                    first(coll, f, pat, what);
                    if (next == NEXT_IALLGATHERV) next_iallgatherv(what);
                    else if (next == NEXT_IALLREDUCE) next_iallreduce(what);
                    else next_alltoall_init(what);
                    ncases++;
                }
        }
    if (me == 0) printf("%d cases\n", ncases);
    MPI_Comm_free(&comm);
    return mt_finish();
}
