/* Duplicates of neighbourhood communicators and MPI's context ids (the
 * nbhcoll_np8 hang of stop 24's CI).
 *
 * MPI_Comm_dup of a neighbourhood communicator starts, inside the
 * attribute copy callback, an MPI_Comm_idup for the copy's private
 * communicator.  It used to duplicate the same communicator the user was
 * duplicating: two context-id agreements on one communicator at once,
 * which Open MPI 4.1 runs side by side and may pair up differently on
 * different processes (open-mpi/ompi#2025): one process in 100 runs of
 * test_nbhcoll at 8 processes hung in MPI_Comm_dup.
 *
 * Oracle, deterministic rather than waiting for a lost race: this program
 * is linked with the static library and interposes MPI_Comm_dup,
 * MPI_Comm_dup_with_info, MPI_Comm_idup, MPI_Iallreduce, MPI_Wait and
 * MPI_Test (the library's calls reach these too).  It records, per
 * process, the communicators whose context id is being agreed (a blocking
 * duplication running, an idup not yet completed) and fails when an
 * MPI_Comm_idup or a non-blocking collective starts on one of them.  Then every communicator is used: Cart_allgather
 * delivers the rank of in-neighbour j into block j (from first principles:
 * S[j] = R - N[j] on the torus, MPI_Cart_create's -e0, +e0, -e1, +e1).
 *
 * Scenarios, on a Cart_neighborhood_create torus and on an MPI_Cart_create
 * communicator adopted by its first Cart_ call: a dup used at once; two
 * dups before either is used; a dup of an unused dup; a user's
 * MPI_Comm_idup; MPI_Comm_dup_with_info; a dup taken while a persistent
 * request is active; a persistent and a partitioned request made on the
 * original before its dup is used (their set-up agreements are
 * non-blocking collectives); a dup whose original is freed before its
 * first use;
 * then --loops dups with random delays, used blocking, non-blocking or not
 * at all (the symptom; a hang is the test's timeout). */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include "mpitest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- the interposer ---------------------------------------------------------------- */

#define MAXTRACK 64
static MPI_Comm busy_dup[MAXTRACK]; /* blocking duplications running (nested: copy callbacks) */
static int nbusy_dup;
static struct {
    MPI_Comm comm;
    MPI_Request req;
} pend[MAXTRACK]; /* idups not yet completed */
static int npend;
static long idups, nested_idups, violations;
static char first_violation[200];

static void agreement_check(MPI_Comm comm, const char *who)
{
    const char *why = NULL;
    for (int i = 0; i < nbusy_dup && !why; i++)
        if (busy_dup[i] == comm) why = "inside an MPI_Comm_dup of that communicator";
    for (int i = 0; i < npend && !why; i++)
        if (pend[i].comm == comm) why = "while an earlier MPI_Comm_idup of it is pending";
    if (why && violations++ == 0)
        snprintf(first_violation, sizeof first_violation, "%s started on a communicator %s", who, why);
}

static void busy_push(MPI_Comm comm)
{
    if (nbusy_dup < MAXTRACK) busy_dup[nbusy_dup++] = comm;
}

int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
    busy_push(comm);
    int rc = PMPI_Comm_dup(comm, newcomm);
    nbusy_dup--;
    return rc;
}

int MPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm)
{
    busy_push(comm);
    int rc = PMPI_Comm_dup_with_info(comm, info, newcomm);
    nbusy_dup--;
    return rc;
}

int MPI_Comm_idup(MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request)
{
    idups++;
    nested_idups += nbusy_dup > 0; /* the library's, from a copy callback */
    agreement_check(comm, "MPI_Comm_idup");
    /* its agreement runs from here: copy callbacks inside see it busy */
    busy_push(comm);
    int rc = PMPI_Comm_idup(comm, newcomm, request);
    nbusy_dup--;
    if (rc == MPI_SUCCESS && *request != MPI_REQUEST_NULL && npend < MAXTRACK) {
        pend[npend].comm = comm;
        pend[npend++].req = *request;
    }
    return rc;
}

/* The library's agreements of persistent *_init calls: a non-blocking
 * collective on its private communicator, whose messages Open MPI 4.1
 * would match with a pending idup's rounds of that communicator (error 15,
 * MPI_ERR_TRUNCATE, in an NBC subrequest). */
int MPI_Iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                   MPI_Request *request)
{
    for (int i = 0; i < npend; i++)
        if (pend[i].comm == comm && violations++ == 0)
            snprintf(first_violation, sizeof first_violation,
                     "MPI_Iallreduce started on a communicator while an MPI_Comm_idup of it is pending");
    return PMPI_Iallreduce(sendbuf, recvbuf, count, datatype, op, comm, request);
}

/* A tracked request that completed (is MPI_REQUEST_NULL now). */
static void completed(MPI_Request before, MPI_Request after)
{
    if (after != MPI_REQUEST_NULL) return;
    for (int i = 0; i < npend; i++)
        if (pend[i].req == before) {
            pend[i] = pend[--npend];
            return;
        }
}

int MPI_Wait(MPI_Request *request, MPI_Status *status)
{
    MPI_Request before = *request;
    int rc = PMPI_Wait(request, status);
    if (npend) completed(before, *request);
    return rc;
}

int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    MPI_Request before = *request;
    int rc = PMPI_Test(request, flag, status);
    if (npend) completed(before, *request);
    return rc;
}

/* ---- neighbourhoods and the check of one communicator ------------------------------- */

#define T 4
static int dims[2], periods[2] = { 1, 1 };
static const int vn[T * 2] = { -1, 0, 1, 0, 0, -1, 0, 1 }; /* von Neumann, radius 1 */

/* In-neighbour j of this process on a communicator of `kind`. */
static int source(int kind, int j)
{
    int v[2] = { 0, 0 };
    if (kind == 0) { /* Cart_neighborhood_create: S[j] = R - N[j] */
        v[0] = vn[2 * j], v[1] = vn[2 * j + 1];
        return mt_shift(mt_rank, 2, dims, periods, v, -1);
    }
    v[j / 2] = j % 2 ? 1 : -1; /* MPI_Cart_create: -e0, +e0, -e1, +e1 */
    return mt_shift(mt_rank, 2, dims, periods, v, 1);
}

static const char *scenario = "";

/* Cart_allgather of each process's rank (blocking, or non-blocking +
 * Cart_wait) on c: block j must hold in-neighbour j's rank. */
static void use(MPI_Comm c, int kind, int nonblocking, const char *what)
{
    int r[T], me = mt_rank;
    for (int j = 0; j < T; j++) r[j] = -7;
    int rc;
    if (nonblocking) {
        Cart_request q = CART_REQUEST_NULL;
        rc = Cart_iallgather(&me, 1, MPI_INT, r, 1, MPI_INT, c, &q);
        if (rc == MPI_SUCCESS) rc = Cart_wait(&q);
    } else {
        rc = Cart_allgather(&me, 1, MPI_INT, r, 1, MPI_INT, c);
    }
    MT_CHECK(rc == MPI_SUCCESS, "%s: %s: Cart_allgather failed (%d)", scenario, what, rc);
    for (int j = 0; j < T && rc == MPI_SUCCESS; j++)
        MT_CHECK(r[j] == source(kind, j), "%s: %s: block %d holds %d, in-neighbour %d expected", scenario, what, j,
                 r[j], source(kind, j));
}

static MPI_Comm make(int kind)
{
    MPI_Comm c;
    if (kind == 0) {
        int rc = Cart_neighborhood_create(MPI_COMM_WORLD, 2, dims, periods, T, vn, MPI_UNWEIGHTED, MPI_INFO_NULL, 0,
                                          &c);
        MT_CHECK(rc == MPI_SUCCESS, "Cart_neighborhood_create failed (%d)", rc);
    } else {
        MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &c);
    }
    MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
    return c;
}

static void sleep_us(int us)
{
    struct timespec ts = { 0, 1000L * us };
    nanosleep(&ts, NULL);
}

/* ---- the scenarios ------------------------------------------------------------------- */

/* Two dups made before either is used: the second of c, or of the first
 * (nested); then both used, the second first. */
static void two_dups(MPI_Comm c, int kind, int nested)
{
    MPI_Comm d, e;
    MPI_Comm_dup(c, &d);
    MPI_Comm_dup(nested ? d : c, &e);
    use(e, kind, nested, nested ? "the dup of the dup" : "the second dup");
    use(d, kind, !nested, nested ? "the dup" : "the first dup");
    MPI_Comm_free(&e);
    MPI_Comm_free(&d);
}

/* A persistent Cart_allgather on c, started once; with `dup` set, an
 * MPI_Comm_dup of c into *dup while it is active. */
static void persistent_allgather(MPI_Comm c, int kind, MPI_Comm *dup)
{
    int me = mt_rank, r[T];
    for (int j = 0; j < T; j++) r[j] = -7;
    Cart_request pr = CART_REQUEST_NULL;
    int rc = Cart_allgather_init(&me, 1, MPI_INT, r, 1, MPI_INT, c, MPI_INFO_NULL, &pr);
    MT_CHECK(rc == MPI_SUCCESS, "%s: Cart_allgather_init failed (%d)", scenario, rc);
    if (rc != MPI_SUCCESS) {
        if (dup) MPI_Comm_dup(c, dup); /* collective: every process makes it */
        return;
    }
    MT_CHECK(Cart_start(&pr) == MPI_SUCCESS, "%s: Cart_start", scenario);
    if (dup) MPI_Comm_dup(c, dup);
    MT_CHECK(Cart_wait(&pr) == MPI_SUCCESS, "%s: Cart_wait", scenario);
    for (int j = 0; j < T; j++) MT_EQ(r[j], source(kind, j), scenario);
    Cart_request_free(&pr);
}

static void scenarios(int kind, int loops, mt_rng *lr)
{
    static const char *const kname[2] = { "Cart_neighborhood_create", "MPI_Cart_create" };
    char s[160];
    MPI_Comm c = make(kind), d;
    snprintf(s, sizeof s, "%s, first use", kname[kind]);
    scenario = s;
    use(c, kind, 0, "the original");

    snprintf(s, sizeof s, "%s, a dup used at once", kname[kind]);
    MPI_Comm_dup(c, &d);
    use(d, kind, 1, "the dup");
    MPI_Comm_free(&d);

    snprintf(s, sizeof s, "%s, two dups before either is used", kname[kind]);
    two_dups(c, kind, 0);

    snprintf(s, sizeof s, "%s, a dup of an unused dup", kname[kind]);
    two_dups(c, kind, 1);

    snprintf(s, sizeof s, "%s, the user's MPI_Comm_idup", kname[kind]);
    MPI_Request q;
    MPI_Comm_idup(c, &d, &q);
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    use(d, kind, 1, "the idup");
    MPI_Comm_free(&d);

    snprintf(s, sizeof s, "%s, MPI_Comm_dup_with_info", kname[kind]);
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Comm_dup_with_info(c, info, &d);
    MPI_Info_free(&info);
    use(d, kind, 0, "the dup");
    MPI_Comm_free(&d);

    snprintf(s, sizeof s, "%s, a dup while a persistent request is active", kname[kind]);
    persistent_allgather(c, kind, &d);
    use(d, kind, 1, "the dup");
    MPI_Comm_free(&d);

    snprintf(s, sizeof s, "%s, a persistent and a partitioned request made on the original before its dup is "
             "used", kname[kind]);
    MPI_Comm_dup(c, &d);
    persistent_allgather(c, kind, NULL);
    MPI_Comm_free(&d);
    MPI_Comm_dup(c, &d);
    int me = mt_rank, sb[T], rb[T];
    for (int j = 0; j < T; j++) sb[j] = me, rb[j] = -7;
    Cart_request pr = CART_REQUEST_NULL;
    long idups_before = idups;
    int rc = Cart_palltoall_init(sb, 1, 1, MPI_INT, rb, 1, 1, MPI_INT, c, MPI_INFO_NULL, &pr);
    MT_CHECK(rc == MPI_SUCCESS, "%s: Cart_palltoall_init failed (%d)", s, rc);
    /* its set-up duplicates c for its own messages: without a private
     * communicator of the neighbourhood's (nothing would use it) */
    MT_CHECK(idups == idups_before, "%s: Cart_palltoall_init started %ld MPI_Comm_idup", s, idups - idups_before);
    if (rc == MPI_SUCCESS) {
        MT_CHECK(Cart_start(&pr) == MPI_SUCCESS && Cart_pready_range(0, T - 1, pr) == MPI_SUCCESS &&
                     Cart_wait(&pr) == MPI_SUCCESS,
                 "%s: Cart_start/pready/wait", s);
        for (int j = 0; j < T; j++) MT_EQ(rb[j], source(kind, j), s);
        Cart_request_free(&pr);
    }
    use(d, kind, 0, "the dup");
    MPI_Comm_free(&d);

    snprintf(s, sizeof s, "%s, %d dups with random delays", kname[kind], loops);
    for (int i = 0; i < loops; i++) {
        sleep_us(mt_uniform(lr, 0, 50));
        MPI_Comm_dup(c, &d);
        sleep_us(mt_uniform(lr, 0, 50));
        int how = i % 3; /* the same on every process */
        if (how < 2) use(d, kind, how, "a dup");
        MPI_Comm_free(&d);
    }

    snprintf(s, sizeof s, "%s, a dup whose original is freed before its first use", kname[kind]);
    MPI_Comm_dup(c, &d);
    MPI_Comm_free(&c);
    use(d, kind, 1, "the dup");
    MPI_Comm_free(&d);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "test_dupcid");
    int loops = 200;
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--loops") && a + 1 < argc) loops = atoi(argv[++a]);
        else {
            if (mt_rank == 0) fprintf(stderr, "usage: test_dupcid [--loops N]\n");
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    MPI_Dims_create(mt_size, 2, dims);
    mt_rng lr;
    mt_seed(&lr, 99, (uint64_t)mt_rank);
    for (int kind = 0; kind < 2; kind++) scenarios(kind, loops, &lr);
    MT_CHECK(violations == 0, "%ld MPI_Comm_idup or MPI_Iallreduce calls overlapped a context-id agreement on "
             "their communicator; the first: %s", violations, first_violation);
    MT_CHECK(nested_idups > 0, "no MPI_Comm_idup from inside a duplication was seen (%ld in all): the interposer "
             "is not in the library's path, and this test could not fail", idups);
    return mt_finish();
}
