/* Bad input: every public function and every check documented in
 * cartcoll.h, with a recording error handler on the communicators (and on
 * MPI_COMM_SELF / MPI_COMM_WORLD) instead of MPI_ERRORS_ARE_FATAL.
 *
 * For each bad call: the error class is the documented one, the handler of
 * the right communicator was invoked once with the returned code, output
 * arguments are unchanged, and MPI_Error_string gives a non-empty sentence
 * that names the function (on MPICH through the library's own
 * MPI_Error_string).
 *
 *   test_errors GROUP      GROUP = create | iso | onesided | collectives |
 *                                  requests | queries | edge | nullargs |
 *                                  allornothing | infovalues | all
 * Each group is a separate CTest test with its own timeout, so a hang in one
 * (e.g. a process left waiting in Cart_neighborhood_create) fails that group
 * only.  Collectives check their arguments locally (cartcoll.h), so their
 * errors are tested with the same bad argument on every process.
 */
#include "mpitest.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int strings_work;
static long n_errors_checked;

static const char *class_name(int c)
{
    switch (c) {
    case MPI_SUCCESS: return "MPI_SUCCESS";
    case MPI_ERR_ARG: return "MPI_ERR_ARG";
    case MPI_ERR_COMM: return "MPI_ERR_COMM";
    case MPI_ERR_DIMS: return "MPI_ERR_DIMS";
    case MPI_ERR_COUNT: return "MPI_ERR_COUNT";
    case MPI_ERR_TYPE: return "MPI_ERR_TYPE";
    case MPI_ERR_BUFFER: return "MPI_ERR_BUFFER";
    case MPI_ERR_TOPOLOGY: return "MPI_ERR_TOPOLOGY";
    case MPI_ERR_RANK: return "MPI_ERR_RANK";
    case MPI_ERR_REQUEST: return "MPI_ERR_REQUEST";
    default: return "another class";
    }
}

#define HANDLER_SELF_OR_WORLD ((const MPI_Comm *)0)
static MPI_Comm handler_any_storage;
#define HANDLER_ANY (&handler_any_storage) /* documentation leaves it open */
static MPI_Comm W, S; /* MPI_COMM_WORLD and MPI_COMM_SELF, addressable */

/* Check a failed call.  `comm` is the communicator whose handler must have
 * been invoked (HANDLER_SELF_OR_WORLD: either of them, for calls whose
 * communicator argument is MPI_COMM_NULL). */
static void expect_error(int line, int rc, int cls, const MPI_Comm *comm, const char *fn, const char *what)
{
    n_errors_checked++;
    int got = mt_error_class(rc);
    mt_checks++;
    if (rc == MPI_SUCCESS || got != cls) {
        mt_fail(__FILE__, line, "%s (%s): returned %d (%s), expected class %s", fn, what, rc, class_name(got),
                class_name(cls));
        mt_err_reset();
        return;
    }
    MT_CHECK(mt_err.calls == 1, "%s (%s): error handler invoked %d times, expected once (line %d)", fn, what,
             mt_err.calls, line);
    MT_CHECK(mt_err.calls == 0 || mt_err.code == rc, "%s (%s): handler got code %d, call returned %d (line %d)", fn,
             what, mt_err.code, rc, line);
    if (mt_err.calls) {
        int ok = comm == HANDLER_ANY ? 1
                 : comm          ? mt_err.comm == *comm
                                 : (mt_err.comm == MPI_COMM_SELF || mt_err.comm == MPI_COMM_WORLD);
        MT_CHECK(ok, "%s (%s): handler invoked on the wrong communicator (line %d)", fn, what, line);
    }
    char s[MPI_MAX_ERROR_STRING] = "";
    int len = 0;
    MPI_Error_string(rc, s, &len);
    MT_CHECK(len > 0 && s[0], "%s (%s): empty MPI_Error_string (line %d)", fn, what, line);
    if (strings_work)
        MT_CHECK(strstr(s, fn) != NULL, "%s (%s): MPI_Error_string \"%s\" does not name the function (line %d)", fn,
                 what, s, line);
    mt_err_reset();
}
#define EXPECT(rc, cls, comm, fn, what) expect_error(__LINE__, (rc), (cls), (comm), (fn), (what))

static void expect_success(int line, int rc, const char *fn, const char *what)
{
    mt_checks++;
    if (rc != MPI_SUCCESS) mt_fail(__FILE__, line, "%s (%s): returned %d, expected MPI_SUCCESS", fn, what, rc);
    MT_CHECK(mt_err.calls == 0, "%s (%s): error handler invoked on success (line %d)", fn, what, line);
    mt_err_reset();
}
#define SUCCESS(rc, fn, what) expect_success(__LINE__, (rc), (fn), (what))

/* A 1-D periodic ring of all processes with neighbours -1, +1. */
static MPI_Comm make_ring(void)
{
    int dims[1] = { mt_size }, periods[1] = { 1 }, targets[2] = { -1, 1 }, w[2] = { 1, 1 };
    MPI_Comm c = MPI_COMM_NULL;
    int rc = Cart_neighborhood_create(MPI_COMM_WORLD, 1, dims, periods, 2, targets, w, MPI_INFO_NULL, 0, &c);
    if (rc != MPI_SUCCESS || c == MPI_COMM_NULL) {
        mt_fail(__FILE__, __LINE__, "cannot create the ring neighbourhood (%d)", rc);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    MPI_Comm_set_errhandler(c, mt_errhandler);
    return c;
}

/* ---- Cart_neighborhood_create: local errors on every process ------------- */

static MPI_Comm marker_comm; /* a value no failed call may write */

static int create(MPI_Comm comm, int d, const int *dims, const int *periods, int t, const int *targets,
                  const int *weights, MPI_Info info, MPI_Comm *out)
{
    *out = marker_comm;
    return Cart_neighborhood_create(comm, d, dims, periods, t, targets, weights, info, 0, out);
}

static void check_unchanged(MPI_Comm c, const char *what)
{
    MT_CHECK(c == marker_comm, "Cart_neighborhood_create (%s): output communicator changed on error", what);
}

static void group_create(void)
{
    const char *fn = "Cart_neighborhood_create";
    int p = mt_size, dims[4] = { p, 1, 1, 1 }, periods[4] = { 1, 0, 1, 0 }, targets[8] = { 1, 0, -1, 0, 0, 1, 0, -1 };
    int w[4] = { 1, 2, 3, 4 }, rc;
    MPI_Comm out;

    rc = create(MPI_COMM_NULL, 2, dims, periods, 4, targets, w, MPI_INFO_NULL, &out);
    EXPECT(rc, MPI_ERR_COMM, HANDLER_SELF_OR_WORLD, fn, "comm = MPI_COMM_NULL");
    check_unchanged(out, "MPI_COMM_NULL");

    if (p >= 2) { /* an inter-communicator */
        MPI_Comm half, inter;
        int color = mt_rank < p / 2;
        MPI_Comm_split(MPI_COMM_WORLD, color, mt_rank, &half);
        MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, color ? p / 2 : 0, 77, &inter);
        MPI_Comm_set_errhandler(inter, mt_errhandler);
        int one[1] = { 1 }, per[1] = { 1 }, tg[1] = { 1 };
        rc = create(inter, 1, one, per, 1, tg, MPI_UNWEIGHTED, MPI_INFO_NULL, &out);
        EXPECT(rc, MPI_ERR_COMM, &inter, fn, "inter-communicator");
        check_unchanged(out, "inter-communicator");
        MPI_Comm_free(&inter);
        MPI_Comm_free(&half);
    }

    rc = create(MPI_COMM_WORLD, 0, dims, periods, 0, targets, w, MPI_INFO_NULL, &out);
    EXPECT(rc, MPI_ERR_DIMS, &W, fn, "d = 0");
    check_unchanged(out, "d = 0");
    rc = create(MPI_COMM_WORLD, -3, dims, periods, 0, targets, w, MPI_INFO_NULL, &out);
    EXPECT(rc, MPI_ERR_DIMS, &W, fn, "d = -3");
    check_unchanged(out, "d < 0");

    rc = create(MPI_COMM_WORLD, 2, NULL, periods, 4, targets, w, MPI_INFO_NULL, &out);
    EXPECT(rc, MPI_ERR_ARG, &W, fn, "dims = NULL");
    check_unchanged(out, "dims NULL");

    int d0[2] = { p, 0 }, dn[2] = { -p, -1 }, dbig[2] = { p, 2 };
    rc = create(MPI_COMM_WORLD, 2, d0, periods, 4, targets, w, MPI_INFO_NULL, &out);
    EXPECT(rc, MPI_ERR_DIMS, &W, fn, "a dimension of size 0");
    check_unchanged(out, "dims 0");
    rc = create(MPI_COMM_WORLD, 2, dn, periods, 4, targets, w, MPI_INFO_NULL, &out);
    EXPECT(rc, MPI_ERR_DIMS, &W, fn, "negative dimensions (product positive)");
    check_unchanged(out, "dims < 0");
    rc = create(MPI_COMM_WORLD, 2, dbig, periods, 4, targets, w, MPI_INFO_NULL, &out);
    EXPECT(rc, MPI_ERR_DIMS, &W, fn, "prod(dims) > size");
    check_unchanged(out, "prod > size");

    rc = create(MPI_COMM_WORLD, 2, dims, NULL, 4, targets, w, MPI_INFO_NULL, &out);
    EXPECT(rc, MPI_ERR_ARG, &W, fn, "periods = NULL");
    check_unchanged(out, "periods NULL");

    rc = create(MPI_COMM_WORLD, 2, dims, periods, -1, targets, w, MPI_INFO_NULL, &out);
    EXPECT(rc, MPI_ERR_ARG, &W, fn, "t = -1");
    check_unchanged(out, "t < 0");

    rc = create(MPI_COMM_WORLD, 2, dims, periods, 4, NULL, w, MPI_INFO_NULL, &out);
    EXPECT(rc, MPI_ERR_ARG, &W, fn, "targets = NULL with t = 4");
    check_unchanged(out, "targets NULL");

    int wneg[4] = { 1, -2, 3, 4 };
    rc = create(MPI_COMM_WORLD, 2, dims, periods, 4, targets, wneg, MPI_INFO_NULL, &out);
    EXPECT(rc, MPI_ERR_ARG, &W, fn, "a negative weight");
    check_unchanged(out, "negative weight");

    rc = create(MPI_COMM_WORLD, 2, dims, periods, 4, targets, NULL, MPI_INFO_NULL, &out);
    EXPECT(rc, MPI_ERR_ARG, &W, fn, "weights = NULL with t = 4");
    check_unchanged(out, "weights NULL");

    static const char *const bad[][2] = { { "cartcoll_algorithm", "fastest" }, { "cartcoll_executor", "zero-copy" },
                                          { "cartcoll_algorithm", "" }, { "cartcoll_executor", "combining" } };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        MPI_Info info;
        MPI_Info_create(&info);
        MPI_Info_set(info, bad[i][0], bad[i][1][0] ? bad[i][1] : " ");
        char what[96];
        snprintf(what, sizeof what, "info %s = \"%s\"", bad[i][0], bad[i][1][0] ? bad[i][1] : " ");
        rc = create(MPI_COMM_WORLD, 2, dims, periods, 4, targets, w, info, &out);
        EXPECT(rc, MPI_ERR_ARG, &W, fn, what);
        check_unchanged(out, what);
        MPI_Info_free(&info);
    }

    rc = Cart_neighborhood_create(MPI_COMM_WORLD, 2, dims, periods, 4, targets, w, MPI_INFO_NULL, 0, NULL);
    EXPECT(rc, MPI_ERR_ARG, &W, fn, "cartcomm = NULL");

    /* t*d overflows an int: must be refused before targets is read. */
    int small[4] = { 0, 0, 0, 0 };
    rc = create(MPI_COMM_WORLD, 4, dims, periods, INT_MAX / 2, small, MPI_UNWEIGHTED, MPI_INFO_NULL, &out);
    EXPECT(rc, MPI_ERR_COUNT, &W, fn, "t*d larger than an int");
    check_unchanged(out, "t*d too large");

    /* After all that, a valid create still works and agrees. */
    rc = create(MPI_COMM_WORLD, 2, dims, periods, 4, targets, w, MPI_INFO_NULL, &out);
    SUCCESS(rc, fn, "valid call after the errors");
    if (rc == MPI_SUCCESS && out != MPI_COMM_NULL && out != marker_comm) MPI_Comm_free(&out);
}

/* ---- non-isomorphic input: every process fails with MPI_ERR_ARG ---------- */

static void group_iso(void)
{
    const char *fn = "Cart_neighborhood_create";
    int p = mt_size, rc;
    MPI_Comm out;
    if (p < 2) {
        if (!mt_rank) printf("test_errors iso: needs 2 processes, skipped\n");
        return;
    }
    int odd = mt_rank == 1; /* the process that differs */
    int dims2[2] = { p, 1 }, per2[2] = { 1, 0 }, tg[8] = { 1, 0, -1, 0, 0, 1, 1, 1 }, w[4] = { 1, 1, 1, 1 };

    { /* d differs */
        int dims3[3] = { p, 1, 1 }, per3[3] = { 1, 0, 0 }, tg3[12] = { 1, 0, 0, -1, 0, 0, 0, 1, 0, 1, 1, 0 };
        rc = odd ? create(MPI_COMM_WORLD, 3, dims3, per3, 4, tg3, w, MPI_INFO_NULL, &out)
                 : create(MPI_COMM_WORLD, 2, dims2, per2, 4, tg, w, MPI_INFO_NULL, &out);
        EXPECT(rc, MPI_ERR_ARG, &W, fn, "d differs on rank 1");
        check_unchanged(out, "d differs");
    }
    { /* dims differ (same product) */
        int other[2] = { 1, p };
        rc = create(MPI_COMM_WORLD, 2, odd ? other : dims2, per2, 4, tg, w, MPI_INFO_NULL, &out);
        EXPECT(rc, MPI_ERR_ARG, &W, fn, "dims differ on rank 1");
        check_unchanged(out, "dims differ");
    }
    { /* periods differ */
        int other[2] = { 0, 0 };
        rc = create(MPI_COMM_WORLD, 2, dims2, odd ? other : per2, 4, tg, w, MPI_INFO_NULL, &out);
        EXPECT(rc, MPI_ERR_ARG, &W, fn, "periods differ on rank 1");
        check_unchanged(out, "periods differ");
    }
    { /* periods differ only in "truth value representation" is NOT a difference: skip */
    }
    { /* t differs */
        rc = create(MPI_COMM_WORLD, 2, dims2, per2, odd ? 3 : 4, tg, w, MPI_INFO_NULL, &out);
        EXPECT(rc, MPI_ERR_ARG, &W, fn, "t differs on rank 1");
        check_unchanged(out, "t differs");
    }
    { /* one coordinate of one target differs */
        int other[8];
        memcpy(other, tg, sizeof other);
        other[5] = 2;
        rc = create(MPI_COMM_WORLD, 2, dims2, per2, 4, odd ? other : tg, w, MPI_INFO_NULL, &out);
        EXPECT(rc, MPI_ERR_ARG, &W, fn, "a target differs on rank 1");
        check_unchanged(out, "target differs");
    }
    { /* same set of targets, different order */
        int other[8] = { -1, 0, 1, 0, 0, 1, 1, 1 };
        rc = create(MPI_COMM_WORLD, 2, dims2, per2, 4, odd ? other : tg, w, MPI_INFO_NULL, &out);
        EXPECT(rc, MPI_ERR_ARG, &W, fn, "target order differs on rank 1");
        check_unchanged(out, "target order differs");
    }
    { /* the last process differs in the last target */
        int other[8];
        memcpy(other, tg, sizeof other);
        other[7] = -1;
        rc = create(MPI_COMM_WORLD, 2, dims2, per2, 4, mt_rank == p - 1 ? other : tg, w, MPI_INFO_NULL, &out);
        EXPECT(rc, MPI_ERR_ARG, &W, fn, "last target differs on the last rank");
        check_unchanged(out, "last target differs");
    }
    { /* the info algorithm differs: processes would run different schedules */
        MPI_Info info = mt_info(odd ? "torus" : "direct", NULL);
        rc = create(MPI_COMM_WORLD, 2, dims2, per2, 4, tg, w, info, &out);
        mt_info_free(&info);
        EXPECT(rc, MPI_ERR_ARG, &W, fn, "info cartcoll_algorithm differs on rank 1");
        check_unchanged(out, "info algorithm differs");
        if (rc == MPI_SUCCESS && out != MPI_COMM_NULL) MPI_Comm_free(&out);
    }
    { /* the info executor differs */
        MPI_Info info = mt_info(NULL, odd ? "pack" : "datatype");
        rc = create(MPI_COMM_WORLD, 2, dims2, per2, 4, tg, w, info, &out);
        mt_info_free(&info);
        EXPECT(rc, MPI_ERR_ARG, &W, fn, "info cartcoll_executor differs on rank 1");
        check_unchanged(out, "info executor differs");
        if (rc == MPI_SUCCESS && out != MPI_COMM_NULL) MPI_Comm_free(&out);
    }
    /* A valid create still works. */
    rc = create(MPI_COMM_WORLD, 2, dims2, per2, 4, tg, w, MPI_INFO_NULL, &out);
    SUCCESS(rc, fn, "valid call after non-isomorphic ones");
    if (rc == MPI_SUCCESS && out != MPI_COMM_NULL && out != marker_comm) MPI_Comm_free(&out);
}

/* ---- a local error on one process only: all fail, none hangs ------------- */

static void group_onesided(void)
{
    const char *fn = "Cart_neighborhood_create";
    int p = mt_size, rc;
    MPI_Comm out;
    if (p < 2) {
        if (!mt_rank) printf("test_errors onesided: needs 2 processes, skipped\n");
        return;
    }
    int dims2[2] = { p, 1 }, per2[2] = { 1, 0 }, tg[8] = { 1, 0, -1, 0, 0, 1, 1, 1 }, w[4] = { 1, 1, 1, 1 };
    int bad = mt_rank == 1, last = mt_rank == p - 1;

    rc = create(MPI_COMM_WORLD, 2, dims2, per2, 4, bad ? NULL : tg, w, MPI_INFO_NULL, &out);
    EXPECT(rc, MPI_ERR_ARG, &W, fn, "targets = NULL on rank 1 only");
    check_unchanged(out, "targets NULL on one rank");

    int wneg[4] = { 1, 1, -1, 1 };
    rc = create(MPI_COMM_WORLD, 2, dims2, per2, 4, tg, last ? wneg : w, MPI_INFO_NULL, &out);
    EXPECT(rc, MPI_ERR_ARG, &W, fn, "negative weight on the last rank only");
    check_unchanged(out, "negative weight on one rank");

    rc = create(MPI_COMM_WORLD, 2, mt_rank == 0 ? NULL : dims2, per2, 4, tg, w, MPI_INFO_NULL, &out);
    EXPECT(rc, MPI_ERR_ARG, &W, fn, "dims = NULL on rank 0 only");
    check_unchanged(out, "dims NULL on one rank");

    rc = create(MPI_COMM_WORLD, 2, dims2, bad ? NULL : per2, 4, tg, w, MPI_INFO_NULL, &out);
    EXPECT(rc, MPI_ERR_ARG, &W, fn, "periods = NULL on rank 1 only");
    check_unchanged(out, "periods NULL on one rank");

    /* d = 0 on one rank: that rank reports its own class, the others MPI_ERR_ARG. */
    rc = create(MPI_COMM_WORLD, bad ? 0 : 2, dims2, per2, 4, tg, w, MPI_INFO_NULL, &out);
    EXPECT(rc, bad ? MPI_ERR_DIMS : MPI_ERR_ARG, &W, fn, "d = 0 on rank 1 only");
    check_unchanged(out, "d = 0 on one rank");

    int dbig[2] = { p + 1, 1 };
    rc = create(MPI_COMM_WORLD, 2, bad ? dbig : dims2, per2, 4, tg, w, MPI_INFO_NULL, &out);
    EXPECT(rc, bad ? MPI_ERR_DIMS : MPI_ERR_ARG, &W, fn, "prod(dims) > size on rank 1 only");
    check_unchanged(out, "prod > size on one rank");

    rc = create(MPI_COMM_WORLD, 2, dims2, per2, last ? -2 : 4, tg, w, MPI_INFO_NULL, &out);
    EXPECT(rc, MPI_ERR_ARG, &W, fn, "t < 0 on the last rank only");
    check_unchanged(out, "t < 0 on one rank");

    MPI_Info info = bad ? mt_info("bogus", NULL) : MPI_INFO_NULL;
    rc = create(MPI_COMM_WORLD, 2, dims2, per2, 4, tg, w, info, &out);
    mt_info_free(&info);
    EXPECT(rc, MPI_ERR_ARG, &W, fn, "bad info value on rank 1 only");
    check_unchanged(out, "bad info on one rank");

    rc = Cart_neighborhood_create(MPI_COMM_WORLD, 2, dims2, per2, 4, tg, w, MPI_INFO_NULL, 0, bad ? NULL : &out);
    EXPECT(rc, MPI_ERR_ARG, &W, fn, "cartcomm = NULL on rank 1 only");
    if (rc == MPI_SUCCESS && !bad && out != MPI_COMM_NULL) MPI_Comm_free(&out);

    rc = create(MPI_COMM_WORLD, 2, dims2, per2, 4, tg, w, MPI_INFO_NULL, &out);
    SUCCESS(rc, fn, "valid call after one-sided errors");
    if (rc == MPI_SUCCESS && out != MPI_COMM_NULL && out != marker_comm) MPI_Comm_free(&out);
}

/* ---- collectives ----------------------------------------------------------- */

enum { C_AG, C_AGV, C_AGW, C_A2A, C_A2AV, C_A2AW };
static const char *const cname[3][6] = {
    { "Cart_allgather", "Cart_allgatherv", "Cart_allgatherw", "Cart_alltoall", "Cart_alltoallv", "Cart_alltoallw" },
    { "Cart_iallgather", "Cart_iallgatherv", "Cart_iallgatherw", "Cart_ialltoall", "Cart_ialltoallv",
      "Cart_ialltoallw" },
    { "Cart_allgather_init", "Cart_allgatherv_init", "Cart_allgatherw_init", "Cart_alltoall_init",
      "Cart_alltoallv_init", "Cart_alltoallw_init" },
};

typedef struct {
    const void *sbuf;
    int scount;
    MPI_Datatype stype;
    const int *scounts, *sdispls;
    const MPI_Aint *sdispw;
    const MPI_Datatype *stypes;
    void *rbuf;
    int rcount;
    MPI_Datatype rtype;
    const int *rcounts, *rdispls;
    const MPI_Aint *rdispw;
    const MPI_Datatype *rtypes;
    MPI_Comm comm;
    MPI_Info info;
    Cart_request *req;
} cargs;

static int ccall(int coll, int mode, const cargs *a)
{
    switch (mode * 6 + coll) {
    case 0 + C_AG: return Cart_allgather(a->sbuf, a->scount, a->stype, a->rbuf, a->rcount, a->rtype, a->comm);
    case 0 + C_AGV:
        return Cart_allgatherv(a->sbuf, a->scount, a->stype, a->rbuf, a->rcounts, a->rdispls, a->rtype, a->comm);
    case 0 + C_AGW:
        return Cart_allgatherw(a->sbuf, a->scount, a->stype, a->rbuf, a->rcounts, a->rdispw, a->rtypes, a->comm);
    case 0 + C_A2A: return Cart_alltoall(a->sbuf, a->scount, a->stype, a->rbuf, a->rcount, a->rtype, a->comm);
    case 0 + C_A2AV:
        return Cart_alltoallv(a->sbuf, a->scounts, a->sdispls, a->stype, a->rbuf, a->rcounts, a->rdispls, a->rtype,
                              a->comm);
    case 0 + C_A2AW:
        return Cart_alltoallw(a->sbuf, a->scounts, a->sdispw, a->stypes, a->rbuf, a->rcounts, a->rdispw, a->rtypes,
                              a->comm);
    case 6 + C_AG:
        return Cart_iallgather(a->sbuf, a->scount, a->stype, a->rbuf, a->rcount, a->rtype, a->comm, a->req);
    case 6 + C_AGV:
        return Cart_iallgatherv(a->sbuf, a->scount, a->stype, a->rbuf, a->rcounts, a->rdispls, a->rtype, a->comm,
                                a->req);
    case 6 + C_AGW:
        return Cart_iallgatherw(a->sbuf, a->scount, a->stype, a->rbuf, a->rcounts, a->rdispw, a->rtypes, a->comm,
                                a->req);
    case 6 + C_A2A:
        return Cart_ialltoall(a->sbuf, a->scount, a->stype, a->rbuf, a->rcount, a->rtype, a->comm, a->req);
    case 6 + C_A2AV:
        return Cart_ialltoallv(a->sbuf, a->scounts, a->sdispls, a->stype, a->rbuf, a->rcounts, a->rdispls, a->rtype,
                               a->comm, a->req);
    case 6 + C_A2AW:
        return Cart_ialltoallw(a->sbuf, a->scounts, a->sdispw, a->stypes, a->rbuf, a->rcounts, a->rdispw, a->rtypes,
                               a->comm, a->req);
    case 12 + C_AG:
        return Cart_allgather_init(a->sbuf, a->scount, a->stype, a->rbuf, a->rcount, a->rtype, a->comm, a->info,
                                   a->req);
    case 12 + C_AGV:
        return Cart_allgatherv_init(a->sbuf, a->scount, a->stype, a->rbuf, a->rcounts, a->rdispls, a->rtype, a->comm,
                                    a->info, a->req);
    case 12 + C_AGW:
        return Cart_allgatherw_init(a->sbuf, a->scount, a->stype, a->rbuf, a->rcounts, a->rdispw, a->rtypes, a->comm,
                                    a->info, a->req);
    case 12 + C_A2A:
        return Cart_alltoall_init(a->sbuf, a->scount, a->stype, a->rbuf, a->rcount, a->rtype, a->comm, a->info,
                                  a->req);
    case 12 + C_A2AV:
        return Cart_alltoallv_init(a->sbuf, a->scounts, a->sdispls, a->stype, a->rbuf, a->rcounts, a->rdispls,
                                   a->rtype, a->comm, a->info, a->req);
    case 12 + C_A2AW:
        return Cart_alltoallw_init(a->sbuf, a->scounts, a->sdispw, a->stypes, a->rbuf, a->rcounts, a->rdispw,
                                   a->rtypes, a->comm, a->info, a->req);
    }
    return MPI_ERR_INTERN;
}

enum {
    M_NEG_SCOUNT, M_NEG_RCOUNT, M_NULL_STYPE, M_NULL_RTYPE, M_UNCOMMITTED_STYPE, M_UNCOMMITTED_RTYPE, M_NULL_SBUF,
    M_NULL_RBUF, M_IN_PLACE, M_NULL_RCOUNTS, M_NULL_RDISPLS, M_NULL_RTYPES, M_NULL_SCOUNTS, M_NULL_SDISPLS,
    M_NULL_STYPES, M_MISMATCH, M_COMM_WORLD, M_COMM_PLAINCART, M_COMM_NULL, M_NULL_REQ, M_BAD_INFO_ALG,
    M_BAD_INFO_EXEC, NMUT
};
static const char *const mut_name[NMUT] = {
    "negative send count", "negative receive count", "MPI_DATATYPE_NULL send type", "MPI_DATATYPE_NULL receive type",
    "uncommitted send type", "uncommitted receive type", "NULL send buffer, MPI_INT, count > 0",
    "NULL receive buffer, MPI_INT, count > 0", "MPI_IN_PLACE", "NULL receive counts", "NULL receive displacements",
    "NULL receive types", "NULL send counts", "NULL send displacements", "NULL send types",
    "send/receive block size mismatch", "MPI_COMM_WORLD (no neighbourhood)", "MPI_Cart_create communicator",
    "MPI_COMM_NULL", "NULL request pointer", "bad info cartcoll_algorithm", "bad info cartcoll_executor",
};

static void group_collectives(void)
{
    MPI_Comm ring = make_ring();
    MPI_Comm plain;
    int pd[1] = { mt_size }, pp[1] = { 1 };
    MPI_Cart_create(MPI_COMM_WORLD, 1, pd, pp, 0, &plain);
    MPI_Comm_set_errhandler(plain, mt_errhandler);
    MPI_Datatype unc;
    MPI_Type_contiguous(1, MPI_INT, &unc); /* never committed */
    MPI_Info badalg = mt_info("fastest", NULL), badexec = mt_info(NULL, "magic");

    int sb[8], rb[8];
    for (int i = 0; i < 8; i++) sb[i] = 100 * mt_rank + i;
    int counts1[2] = { 1, 1 }, counts_neg[2] = { 1, -1 }, counts_big[2] = { 1, 2 }, displs[2] = { 0, 1 };
    MPI_Aint dispw[2] = { 0, sizeof(int) };
    MPI_Datatype ints[2] = { MPI_INT, MPI_INT }, tnull[2] = { MPI_INT, MPI_DATATYPE_NULL }, tunc[2] = { MPI_INT, unc };
    int marker_storage;
    Cart_request marker = (Cart_request)(void *)&marker_storage;

    for (int mode = 0; mode < 3; mode++)
        for (int coll = 0; coll < 6; coll++)
            for (int m = 0; m < NMUT; m++) {
                int variant = coll % 3, gather = coll < 3, a2avw = coll == C_A2AV || coll == C_A2AW;
                int regular_recv = variant == 0, w_recv = variant == 2;
                if ((m == M_NULL_RCOUNTS || m == M_NULL_RDISPLS) && variant == 0) continue;
                if (m == M_NULL_RTYPES && variant != 2) continue;
                if ((m == M_NULL_SCOUNTS || m == M_NULL_SDISPLS) && !a2avw) continue;
                if (m == M_NULL_STYPES && coll != C_A2AW) continue;
                if (m == M_NULL_REQ && mode == 0) continue;
                if ((m == M_BAD_INFO_ALG || m == M_BAD_INFO_EXEC) && mode != 2) continue;
                /* w displacements may be absolute addresses from MPI_BOTTOM
                 * (MPI_Get_address): a NULL buffer is valid there
                 * (test_defects checks it works). */
                if ((m == M_NULL_SBUF && coll == C_A2AW) || (m == M_NULL_RBUF && w_recv)) continue;
                /* Not errors since the one interface set: MPI_COMM_WORLD has the global
                 * meaning (test_global) and an MPI_Cart_create communicator MPI's
                 * Cartesian neighbourhood meaning (test_cartcomm). */
                if (m == M_COMM_WORLD || m == M_COMM_PLAINCART) continue;
                Cart_request req = marker;
                cargs a = { sb, 1, MPI_INT, counts1, displs, dispw, ints, rb, 1, MPI_INT, counts1, displs, dispw,
                            ints, ring, MPI_INFO_NULL, &req };
                int cls = MPI_ERR_ARG;
                MPI_Comm hc = ring;
                switch (m) {
                case M_NEG_SCOUNT:
                    if (a2avw) a.scounts = counts_neg;
                    else a.scount = -1;
                    cls = MPI_ERR_COUNT;
                    break;
                case M_NEG_RCOUNT:
                    if (regular_recv) a.rcount = -1;
                    else a.rcounts = counts_neg;
                    cls = MPI_ERR_COUNT;
                    break;
                case M_NULL_STYPE:
                    if (coll == C_A2AW) a.stypes = tnull;
                    else a.stype = MPI_DATATYPE_NULL;
                    cls = MPI_ERR_TYPE;
                    break;
                case M_NULL_RTYPE:
                    if (w_recv) a.rtypes = tnull;
                    else a.rtype = MPI_DATATYPE_NULL;
                    cls = MPI_ERR_TYPE;
                    break;
                case M_UNCOMMITTED_STYPE:
                    if (coll == C_A2AW) a.stypes = tunc;
                    else a.stype = unc;
                    cls = MPI_ERR_TYPE;
                    break;
                case M_UNCOMMITTED_RTYPE:
                    if (w_recv) a.rtypes = tunc;
                    else a.rtype = unc;
                    cls = MPI_ERR_TYPE;
                    break;
                case M_NULL_SBUF: a.sbuf = NULL; cls = MPI_ERR_BUFFER; break;
                case M_NULL_RBUF: a.rbuf = NULL; cls = MPI_ERR_BUFFER; break;
                case M_IN_PLACE: a.sbuf = MPI_IN_PLACE; cls = MPI_ERR_BUFFER; break;
                case M_NULL_RCOUNTS: a.rcounts = NULL; break;
                case M_NULL_RDISPLS:
                    a.rdispls = NULL;
                    a.rdispw = NULL;
                    break;
                case M_NULL_RTYPES: a.rtypes = NULL; break;
                case M_NULL_SCOUNTS: a.scounts = NULL; break;
                case M_NULL_SDISPLS:
                    a.sdispls = NULL;
                    a.sdispw = NULL;
                    break;
                case M_NULL_STYPES: a.stypes = NULL; break;
                case M_MISMATCH:
                    if (regular_recv) a.rcount = 2;
                    else a.rcounts = counts_big;
                    break;
                case M_COMM_WORLD:
                    a.comm = MPI_COMM_WORLD;
                    hc = MPI_COMM_WORLD;
                    cls = MPI_ERR_TOPOLOGY;
                    break;
                case M_COMM_PLAINCART:
                    a.comm = plain;
                    hc = plain;
                    cls = MPI_ERR_TOPOLOGY;
                    break;
                case M_COMM_NULL: a.comm = MPI_COMM_NULL; cls = MPI_ERR_COMM; break;
                case M_NULL_REQ: a.req = NULL; break;
                case M_BAD_INFO_ALG: a.info = badalg; break;
                case M_BAD_INFO_EXEC: a.info = badexec; break;
                }
                (void)gather;
                for (int i = 0; i < 8; i++) rb[i] = -99;
                char what[128];
                snprintf(what, sizeof what, "%s", mut_name[m]);
                int rc = ccall(coll, mode, &a);
                EXPECT(rc, cls, m == M_COMM_NULL ? HANDLER_SELF_OR_WORLD : &hc, cname[mode][coll], what);
                int untouched = 1;
                for (int i = 0; i < 8; i++) untouched &= rb[i] == -99;
                MT_CHECK(untouched, "%s (%s): receive buffer written by a failed call", cname[mode][coll], what);
                if (mode) MT_CHECK(req == marker, "%s (%s): request changed by a failed call", cname[mode][coll], what);
                /* A call that wrongly succeeded must not leave an operation behind. */
                if (rc == MPI_SUCCESS && mode && req != marker && req != CART_REQUEST_NULL) {
                    if (mode == 2) Cart_request_free(&req);
                    else Cart_wait(&req);
                }
            }

    /* The neighbourhood still works after all the failed calls. */
    for (int i = 0; i < 8; i++) rb[i] = -99;
    int rc = Cart_alltoall(sb, 1, MPI_INT, rb, 1, MPI_INT, ring);
    SUCCESS(rc, "Cart_alltoall", "valid call after the errors");
    int left = (mt_rank + 1) % mt_size, right = (mt_rank - 1 + mt_size) % mt_size;
    /* block 0 comes from R - (-1) = R + 1 (its block 0), block 1 from R - 1 (its block 1) */
    MT_CHECK(rb[0] == 100 * left + 0 && rb[1] == 100 * right + 1, "valid alltoall after errors: got %d %d", rb[0],
             rb[1]);

    mt_info_free(&badalg);
    mt_info_free(&badexec);
    MPI_Type_free(&unc);
    MPI_Comm_free(&plain);
    MPI_Comm_free(&ring);
}

/* ---- requests --------------------------------------------------------------- */

static void group_requests(void)
{
    MPI_Comm ring = make_ring();
    int sb[2] = { 10 * mt_rank, 10 * mt_rank + 1 }, rb[2], rb2[2], rc, flag;
    Cart_request null = CART_REQUEST_NULL, pr = CART_REQUEST_NULL, pr2 = CART_REQUEST_NULL, nb = CART_REQUEST_NULL;

    rc = Cart_start(NULL);
    EXPECT(rc, MPI_ERR_ARG, &S, "Cart_start", "request pointer NULL");
    rc = Cart_start(&null);
    EXPECT(rc, MPI_ERR_REQUEST, &S, "Cart_start", "CART_REQUEST_NULL");
    MT_CHECK(null == CART_REQUEST_NULL, "Cart_start changed CART_REQUEST_NULL");

    rc = Cart_alltoall_init(sb, 1, MPI_INT, rb, 1, MPI_INT, ring, MPI_INFO_NULL, &pr);
    SUCCESS(rc, "Cart_alltoall_init", "valid");
    rc = Cart_allgather_init(sb, 1, MPI_INT, rb2, 1, MPI_INT, ring, MPI_INFO_NULL, &pr2);
    SUCCESS(rc, "Cart_allgather_init", "valid");

    /* wait/test on inactive requests and CART_REQUEST_NULL return at once */
    Cart_request keep = pr;
    rc = Cart_wait(&pr);
    SUCCESS(rc, "Cart_wait", "inactive persistent request");
    MT_CHECK(pr == keep, "Cart_wait on an inactive persistent request changed the handle");
    flag = 0;
    rc = Cart_test(&pr, &flag);
    SUCCESS(rc, "Cart_test", "inactive persistent request");
    MT_CHECK(flag && pr == keep, "Cart_test on an inactive request: flag %d, handle %s", flag,
             pr == keep ? "kept" : "changed");
    rc = Cart_wait(&null);
    SUCCESS(rc, "Cart_wait", "CART_REQUEST_NULL");
    flag = 0;
    rc = Cart_test(&null, &flag);
    SUCCESS(rc, "Cart_test", "CART_REQUEST_NULL");
    MT_CHECK(flag && null == CART_REQUEST_NULL, "Cart_test on CART_REQUEST_NULL: flag %d", flag);
    Cart_request nulls[3] = { CART_REQUEST_NULL, CART_REQUEST_NULL, CART_REQUEST_NULL };
    rc = Cart_waitall(3, nulls);
    SUCCESS(rc, "Cart_waitall", "all CART_REQUEST_NULL");
    rc = Cart_waitall(0, nulls);
    SUCCESS(rc, "Cart_waitall", "count 0");

    /* free: NULL and active */
    rc = Cart_request_free(&null);
    EXPECT(rc, MPI_ERR_REQUEST, &S, "Cart_request_free", "CART_REQUEST_NULL");

    rc = Cart_start(&pr);
    SUCCESS(rc, "Cart_start", "valid");
    keep = pr;
    rc = Cart_start(&pr);
    EXPECT(rc, MPI_ERR_REQUEST, &ring, "Cart_start", "already active");
    MT_CHECK(pr == keep, "Cart_start on an active request changed the handle");
    rc = Cart_request_free(&pr);
    EXPECT(rc, MPI_ERR_REQUEST, &ring, "Cart_request_free", "active request");
    MT_CHECK(pr == keep, "Cart_request_free on an active request changed the handle");
    /* Cart_startall with an active entry starts none */
    Cart_request two[2] = { pr2, pr };
    rc = Cart_startall(2, two);
    EXPECT(rc, MPI_ERR_REQUEST, &ring, "Cart_startall", "second entry active");
    rc = Cart_wait(&pr);
    SUCCESS(rc, "Cart_wait", "active persistent request");
    MT_CHECK(pr == keep, "Cart_wait made a persistent request something else");
    MT_CHECK(rb[0] == 10 * ((mt_rank + 1) % mt_size) && rb[1] == 10 * ((mt_rank - 1 + mt_size) % mt_size) + 1,
             "persistent alltoall result %d %d", rb[0], rb[1]);
    /* pr2 must still be inactive: starting it again must work. */
    rc = Cart_start(&pr2);
    SUCCESS(rc, "Cart_start", "request that the failed Cart_startall must not have started");
    rc = Cart_wait(&pr2);
    SUCCESS(rc, "Cart_wait", "valid");
    MT_CHECK(rb2[0] == 10 * ((mt_rank + 1) % mt_size) && rb2[1] == 10 * ((mt_rank - 1 + mt_size) % mt_size),
             "persistent allgather result %d %d", rb2[0], rb2[1]);

    /* Cart_startall with CART_REQUEST_NULL among valid ones starts none */
    Cart_request three[3] = { pr, pr2, CART_REQUEST_NULL };
    rc = Cart_startall(3, three);
    EXPECT(rc, MPI_ERR_REQUEST, HANDLER_ANY, "Cart_startall", "third entry CART_REQUEST_NULL");
    rc = Cart_request_free(&pr2); /* fails if Cart_startall started it */
    SUCCESS(rc, "Cart_request_free", "request Cart_startall must not have started");
    MT_CHECK(pr2 == CART_REQUEST_NULL, "Cart_request_free did not set CART_REQUEST_NULL");
    if (rc != MPI_SUCCESS) { /* it was started: complete and free to keep going */
        Cart_wait(&pr2);
        Cart_request_free(&pr2);
    }
    rc = Cart_request_free(&pr);
    SUCCESS(rc, "Cart_request_free", "inactive persistent");
    if (rc != MPI_SUCCESS) {
        Cart_wait(&pr);
        Cart_request_free(&pr);
    }

    /* Cart_start on a non-blocking request, and startall containing one */
    rc = Cart_ialltoall(sb, 1, MPI_INT, rb, 1, MPI_INT, ring, &nb);
    SUCCESS(rc, "Cart_ialltoall", "valid");
    keep = nb;
    rc = Cart_start(&nb);
    EXPECT(rc, MPI_ERR_REQUEST, &ring, "Cart_start", "non-blocking request");
    MT_CHECK(nb == keep, "Cart_start on a non-blocking request changed the handle");
    /* Before any call that advances requests (an *_init agrees with the
     * other processes and makes progress meanwhile): nb is still active. */
    rc = Cart_request_free(&nb);
    EXPECT(rc, MPI_ERR_REQUEST, &ring, "Cart_request_free", "active non-blocking request");
    rc = Cart_alltoall_init(sb, 1, MPI_INT, rb2, 1, MPI_INT, ring, MPI_INFO_NULL, &pr);
    SUCCESS(rc, "Cart_alltoall_init", "valid");
    Cart_request mix[2] = { pr, nb };
    rc = Cart_startall(2, mix);
    EXPECT(rc, MPI_ERR_REQUEST, &ring, "Cart_startall", "second entry non-blocking");
    rc = Cart_wait(&nb);
    SUCCESS(rc, "Cart_wait", "non-blocking");
    MT_CHECK(nb == CART_REQUEST_NULL, "Cart_wait did not free a non-blocking request");
    rc = Cart_request_free(&pr); /* fails if the startall above started it */
    SUCCESS(rc, "Cart_request_free", "request Cart_startall must not have started");
    if (rc != MPI_SUCCESS) {
        Cart_wait(&pr);
        Cart_request_free(&pr);
    }
    MPI_Comm_free(&ring);
}

/* ---- queries ---------------------------------------------------------------- */

static void group_queries(void)
{
    int p = mt_size, rc;
    int dims[2] = { p, 1 }, periods[2] = { 1, 0 }, tg[6] = { 1, 0, -1, 0, 0, 1 }, w[3] = { 4, 5, 6 };
    MPI_Comm cart = MPI_COMM_NULL, plain, graph;
    rc = Cart_neighborhood_create(MPI_COMM_WORLD, 2, dims, periods, 3, tg, w, MPI_INFO_NULL, 0, &cart);
    SUCCESS(rc, "Cart_neighborhood_create", "valid");
    MPI_Comm_set_errhandler(cart, mt_errhandler);
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &plain);
    MPI_Comm_set_errhandler(plain, mt_errhandler);
    int self = mt_rank, one = 1;
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &self, &one, 1, &self, &one, MPI_INFO_NULL, 0, &graph);
    MPI_Comm_set_errhandler(graph, mt_errhandler);

    int t = -7;
    rc = Cart_neighbor_count(MPI_COMM_WORLD, &t);
    EXPECT(rc, MPI_ERR_TOPOLOGY, &W, "Cart_neighbor_count", "MPI_COMM_WORLD");
    MT_CHECK(t == -7, "Cart_neighbor_count wrote t on error");
    rc = Cart_neighbor_count(plain, &t);
    EXPECT(rc, MPI_ERR_TOPOLOGY, &plain, "Cart_neighbor_count", "MPI_Cart_create communicator");
    rc = Cart_neighbor_count(cart, NULL);
    EXPECT(rc, MPI_ERR_ARG, &cart, "Cart_neighbor_count", "t = NULL");
    rc = Cart_neighbor_count(MPI_COMM_NULL, &t);
    MT_CHECK(rc != MPI_SUCCESS, "Cart_neighbor_count(MPI_COMM_NULL) succeeded");
    mt_err_reset();

    int s[4], sw[4], d[4], dw[4], rel[8], rw[4];
    for (int i = 0; i < 4; i++) s[i] = sw[i] = d[i] = dw[i] = rw[i] = rel[i] = rel[i + 4] = -7;
#define UNTOUCHED(arr, n) (memcmp((arr), (int[8]){ -7, -7, -7, -7, -7, -7, -7, -7 }, sizeof(int) * (n)) == 0)
    rc = Cart_neighbor_get(cart, 2, s, sw, 3, d, dw);
    EXPECT(rc, MPI_ERR_ARG, &cart, "Cart_neighbor_get", "maxin < t");
    MT_CHECK(UNTOUCHED(s, 4) && UNTOUCHED(sw, 4) && UNTOUCHED(d, 4) && UNTOUCHED(dw, 4),
             "Cart_neighbor_get wrote output on error (maxin)");
    rc = Cart_neighbor_get(cart, 3, s, sw, 1, d, dw);
    EXPECT(rc, MPI_ERR_ARG, &cart, "Cart_neighbor_get", "maxout < t");
    MT_CHECK(UNTOUCHED(s, 4) && UNTOUCHED(sw, 4) && UNTOUCHED(d, 4) && UNTOUCHED(dw, 4),
             "Cart_neighbor_get wrote output on error (maxout)");
    rc = Cart_neighbor_get(MPI_COMM_WORLD, 3, s, sw, 3, d, dw);
    EXPECT(rc, MPI_ERR_TOPOLOGY, &W, "Cart_neighbor_get", "MPI_COMM_WORLD");
    rc = Cart_neighbor_get(cart, 3, NULL, sw, 3, d, dw);
    EXPECT(rc, MPI_ERR_ARG, &cart, "Cart_neighbor_get", "sources = NULL");
    MT_CHECK(UNTOUCHED(d, 4), "Cart_neighbor_get wrote targets on error");

    rc = Cart_neighborhood_get(cart, 2, rel, rw);
    EXPECT(rc, MPI_ERR_ARG, &cart, "Cart_neighborhood_get", "maxt < t");
    MT_CHECK(UNTOUCHED(rel, 8) && UNTOUCHED(rw, 4), "Cart_neighborhood_get wrote output on error");
    rc = Cart_neighborhood_get(graph, 3, rel, rw);
    EXPECT(rc, MPI_ERR_TOPOLOGY, &graph, "Cart_neighborhood_get", "distributed graph communicator");
    rc = Cart_neighborhood_get(cart, 3, NULL, rw);
    EXPECT(rc, MPI_ERR_ARG, &cart, "Cart_neighborhood_get", "relatives = NULL");

    int rv[2] = { 1, 0 }, dest = -7, in = -7, out = -7, rcoord[2] = { -7, -7 };
    MPI_Comm cs[2] = { cart, plain };
    for (int k = 0; k < 2; k++) {
        MPI_Comm c = cs[k];
        const char *on = k ? "MPI_Cart_create communicator" : "neighbourhood communicator";
        char what[128];
        snprintf(what, sizeof what, "rank -1 on a %s", on);
        rc = Cart_relative_rank(c, -1, rv, &dest);
        EXPECT(rc, MPI_ERR_RANK, &cs[k], "Cart_relative_rank", what);
        snprintf(what, sizeof what, "rank = size on a %s", on);
        rc = Cart_relative_rank(c, p, rv, &dest);
        EXPECT(rc, MPI_ERR_RANK, &cs[k], "Cart_relative_rank", what);
        MT_CHECK(dest == -7, "Cart_relative_rank wrote dest on error");
        rc = Cart_relative_shift(c, p + 3, rv, &in, &out);
        EXPECT(rc, MPI_ERR_RANK, &cs[k], "Cart_relative_shift", what);
        MT_CHECK(in == -7 && out == -7, "Cart_relative_shift wrote output on error");
        rc = Cart_relative_coordinates(c, p, 0, rcoord);
        EXPECT(rc, MPI_ERR_RANK, &cs[k], "Cart_relative_coordinates", "rank = size");
        rc = Cart_relative_coordinates(c, 0, -2, rcoord);
        EXPECT(rc, MPI_ERR_RANK, &cs[k], "Cart_relative_coordinates", "dest = -2");
        MT_CHECK(rcoord[0] == -7 && rcoord[1] == -7, "Cart_relative_coordinates wrote output on error");
        rc = Cart_relative_rank(c, 0, NULL, &dest);
        EXPECT(rc, MPI_ERR_ARG, &cs[k], "Cart_relative_rank", "relative = NULL");
        rc = Cart_relative_rank(c, 0, rv, NULL);
        EXPECT(rc, MPI_ERR_ARG, &cs[k], "Cart_relative_rank", "dest = NULL");
        rc = Cart_relative_shift(c, 0, rv, NULL, &out);
        EXPECT(rc, MPI_ERR_ARG, &cs[k], "Cart_relative_shift", "inrank = NULL");
        rc = Cart_relative_coordinates(c, 0, 0, NULL);
        EXPECT(rc, MPI_ERR_ARG, &cs[k], "Cart_relative_coordinates", "relative = NULL");
    }
    MPI_Comm nc[2] = { MPI_COMM_WORLD, graph };
    for (int k = 0; k < 2; k++) {
        const char *on = k ? "distributed graph communicator" : "MPI_COMM_WORLD";
        rc = Cart_relative_rank(nc[k], 0, rv, &dest);
        EXPECT(rc, MPI_ERR_TOPOLOGY, &nc[k], "Cart_relative_rank", on);
        rc = Cart_relative_shift(nc[k], 0, rv, &in, &out);
        EXPECT(rc, MPI_ERR_TOPOLOGY, &nc[k], "Cart_relative_shift", on);
        rc = Cart_relative_coordinates(nc[k], 0, 0, rcoord);
        EXPECT(rc, MPI_ERR_TOPOLOGY, &nc[k], "Cart_relative_coordinates", on);
    }

    int cnt = -7, st[16];
    for (int i = 0; i < 16; i++) st[i] = -7;
    static const int badargs[][5] = {
        /* d, metric, shadow, depth, class */
        { 2, 0, 0, 1, MPI_ERR_ARG },  { 2, 3, 0, 1, MPI_ERR_ARG },     { 2, CART_MANHATTAN, -1, 1, MPI_ERR_ARG },
        { 2, CART_MANHATTAN, 2, 1, MPI_ERR_ARG }, { 2, CART_CHEBYSHEV, 0, -1, MPI_ERR_ARG },
        { 0, CART_CHEBYSHEV, 0, 1, MPI_ERR_DIMS }, { -1, CART_MANHATTAN, 0, 1, MPI_ERR_DIMS },
        { 40, CART_CHEBYSHEV, 0, 5, MPI_ERR_ARG }, /* 11^40 vectors: does not fit an int */
    };
    for (size_t i = 0; i < sizeof badargs / sizeof badargs[0]; i++) {
        const int *b = badargs[i];
        char what[96];
        snprintf(what, sizeof what, "d=%d metric=%d shadow=%d depth=%d", b[0], b[1], b[2], b[3]);
        rc = Cart_stencil_count(b[0], b[1], b[2], b[3], &cnt);
        EXPECT(rc, b[4], &S, "Cart_stencil_count", what);
        MT_CHECK(cnt == -7, "Cart_stencil_count wrote count on error (%s)", what);
        rc = Cart_stencil(b[0], b[1], b[2], b[3], 16, st);
        EXPECT(rc, b[4], &S, "Cart_stencil", what);
        MT_CHECK(UNTOUCHED(st, 8) && UNTOUCHED(st + 8, 8), "Cart_stencil wrote output on error (%s)", what);
    }
    rc = Cart_stencil_count(2, CART_CHEBYSHEV, 0, 1, NULL);
    EXPECT(rc, MPI_ERR_ARG, &S, "Cart_stencil_count", "count = NULL");
    rc = Cart_stencil(2, CART_CHEBYSHEV, 1, 1, 7, st); /* 8 vectors */
    EXPECT(rc, MPI_ERR_ARG, &S, "Cart_stencil", "maxcount 7 < 8");
    MT_CHECK(UNTOUCHED(st, 8) && UNTOUCHED(st + 8, 8), "Cart_stencil wrote output on error (maxcount)");
    rc = Cart_stencil(2, CART_CHEBYSHEV, 1, 1, 8, NULL);
    EXPECT(rc, MPI_ERR_ARG, &S, "Cart_stencil", "relatives = NULL");

    int ph = -7, ro = -7, vo = -7;
    static const int badstats[][2] = { { 0, CART_ALGORITHM_DIRECT }, { 8, CART_ALGORITHM_DIRECT },
                                       { CART_ALLTOALL, -1 }, { CART_ALLGATHER, 4 } };
    for (size_t i = 0; i < sizeof badstats / sizeof badstats[0]; i++) {
        char what[64];
        snprintf(what, sizeof what, "collective %d, algorithm %d", badstats[i][0], badstats[i][1]);
        rc = Cart_schedule_stats(cart, badstats[i][0], badstats[i][1], &ph, &ro, &vo);
        EXPECT(rc, MPI_ERR_ARG, &cart, "Cart_schedule_stats", what);
        MT_CHECK(ph == -7 && ro == -7 && vo == -7, "Cart_schedule_stats wrote output on error (%s)", what);
    }
    rc = Cart_schedule_stats(MPI_COMM_WORLD, CART_ALLTOALL, CART_ALGORITHM_DIRECT, &ph, &ro, &vo);
    EXPECT(rc, MPI_ERR_TOPOLOGY, &W, "Cart_schedule_stats", "MPI_COMM_WORLD");
    rc = Cart_schedule_stats(plain, CART_ALLTOALL, CART_ALGORITHM_DIRECT, &ph, &ro, &vo);
    EXPECT(rc, MPI_ERR_TOPOLOGY, &plain, "Cart_schedule_stats", "MPI_Cart_create communicator");
    MT_CHECK(ph == -7 && ro == -7 && vo == -7, "Cart_schedule_stats wrote output on error");
    rc = Cart_schedule_stats(cart, CART_ALLTOALL, CART_ALGORITHM_DIRECT, NULL, NULL, NULL);
    SUCCESS(rc, "Cart_schedule_stats", "all outputs NULL");

    MPI_Comm_free(&graph);
    MPI_Comm_free(&plain);
    MPI_Comm_free(&cart);
}

/* ---- NULL arrays and buffers on every path (issue 26, D1) ----------------
 * Global meaning (a duplicate of MPI_COMM_SELF, where every process is the
 * root, and of MPI_COMM_WORLD), inter-communicator meaning (group {0} and
 * the rest, the root MPI_ROOT in group {0}) and neighbourhood meaning (the
 * ring), blocking, non-blocking and persistent (checked at _init): every
 * NULL displacement/count array gets MPI_ERR_ARG and every NULL buffer with
 * elements of a predefined type to move MPI_ERR_BUFFER, from the library,
 * the same on both MPIs.  Before the fix MPICH crashed in most of these. */
enum { NA_SELF = 1, NA_WORLD = 2, NA_INTER = 4, NA_RING = 8 };
typedef struct nullcase {
    const char *fn, *what;
    int cls, where;
} nullcase;
static const nullcase nullcases[] = {
    { "gatherv", "displs NULL", MPI_ERR_ARG, NA_SELF },
    { "scatterv", "displs NULL", MPI_ERR_ARG, NA_SELF },
    { "allgatherv", "displs NULL", MPI_ERR_ARG, NA_SELF | NA_WORLD | NA_INTER | NA_RING },
    { "alltoallv", "sdispls NULL", MPI_ERR_ARG, NA_SELF | NA_WORLD | NA_INTER | NA_RING },
    { "alltoallv", "rdispls NULL", MPI_ERR_ARG, NA_SELF | NA_WORLD | NA_INTER | NA_RING },
    { "reduce_scatter", "recvcounts NULL", MPI_ERR_ARG, NA_SELF | NA_WORLD },
    { "allreduce", "recvbuf NULL", MPI_ERR_BUFFER, NA_SELF | NA_WORLD | NA_INTER | NA_RING },
    { "allreduce", "sendbuf NULL", MPI_ERR_BUFFER, NA_SELF | NA_WORLD | NA_INTER | NA_RING },
    { "bcast", "buffer NULL", MPI_ERR_BUFFER, NA_SELF | NA_WORLD | NA_INTER | NA_RING },
    { "gather", "recvbuf NULL", MPI_ERR_BUFFER, NA_SELF },
    { "scatter", "sendbuf NULL", MPI_ERR_BUFFER, NA_SELF },
    { "alltoall", "recvbuf NULL", MPI_ERR_BUFFER, NA_SELF | NA_WORLD | NA_INTER | NA_RING },
    { "allgatherv", "recvbuf NULL", MPI_ERR_BUFFER, NA_SELF | NA_WORLD | NA_INTER | NA_RING },
    { "reduce_scatter_block", "sendbuf NULL", MPI_ERR_BUFFER, NA_SELF | NA_WORLD },
    { "scan", "recvbuf NULL", MPI_ERR_BUFFER, NA_SELF | NA_WORLD },
    { "alltoallw", "sdispls NULL", MPI_ERR_ARG, NA_SELF | NA_WORLD | NA_INTER | NA_RING },
    { "allgatherw", "displs NULL", MPI_ERR_ARG, NA_SELF | NA_WORLD | NA_INTER | NA_RING },
    { "reduce", "both buffers NULL", MPI_ERR_BUFFER, NA_SELF | NA_INTER | NA_RING },
    { "allreduce", "count 0, NULL buffers", MPI_SUCCESS, NA_SELF | NA_WORLD | NA_INTER | NA_RING },
    { "alltoallv", "counts 0, NULL sendbuf", MPI_SUCCESS, NA_SELF | NA_WORLD | NA_INTER | NA_RING },
};

/* Case k in mode m (0 blocking, 1 non-blocking, 2 persistent) on comm with
 * root `root`; buffers hold 64 ints, arrays n entries. */
static int nullcall(int k, int m, MPI_Comm comm, int root, Cart_request *rq)
{
    static int sb[64], rb[64], c1[64], c0[64], d[64];
    static MPI_Aint dw[64];
    static MPI_Datatype ty[64];
    for (int i = 0; i < 64; i++) c1[i] = 1, c0[i] = 0, d[i] = i, dw[i] = (MPI_Aint)(sizeof(int) * (size_t)i), ty[i] = MPI_INT;
    MPI_Info I = MPI_INFO_NULL;
    MPI_Datatype T = MPI_INT;
    MPI_Op SUM = MPI_SUM;
#define NA3(blocking, nonblocking, persistent) \
    (m == 0 ? (blocking) : m == 1 ? (nonblocking) : (persistent))
    switch (k) {
    case 0: return NA3(Cart_gatherv(sb, 1, T, rb, c1, NULL, T, root, comm), Cart_igatherv(sb, 1, T, rb, c1, NULL, T, root, comm, rq),
                       Cart_gatherv_init(sb, 1, T, rb, c1, NULL, T, root, comm, I, rq));
    case 1: return NA3(Cart_scatterv(sb, c1, NULL, T, rb, 1, T, root, comm), Cart_iscatterv(sb, c1, NULL, T, rb, 1, T, root, comm, rq),
                       Cart_scatterv_init(sb, c1, NULL, T, rb, 1, T, root, comm, I, rq));
    case 2: return NA3(Cart_allgatherv(sb, 1, T, rb, c1, NULL, T, comm), Cart_iallgatherv(sb, 1, T, rb, c1, NULL, T, comm, rq),
                       Cart_allgatherv_init(sb, 1, T, rb, c1, NULL, T, comm, I, rq));
    case 3: return NA3(Cart_alltoallv(sb, c1, NULL, T, rb, c1, d, T, comm), Cart_ialltoallv(sb, c1, NULL, T, rb, c1, d, T, comm, rq),
                       Cart_alltoallv_init(sb, c1, NULL, T, rb, c1, d, T, comm, I, rq));
    case 4: return NA3(Cart_alltoallv(sb, c1, d, T, rb, c1, NULL, T, comm), Cart_ialltoallv(sb, c1, d, T, rb, c1, NULL, T, comm, rq),
                       Cart_alltoallv_init(sb, c1, d, T, rb, c1, NULL, T, comm, I, rq));
    case 5: return NA3(Cart_reduce_scatter(sb, rb, NULL, T, SUM, comm), Cart_ireduce_scatter(sb, rb, NULL, T, SUM, comm, rq),
                       Cart_reduce_scatter_init(sb, rb, NULL, T, SUM, comm, I, rq));
    case 6: return NA3(Cart_allreduce(sb, NULL, 1, T, SUM, comm), Cart_iallreduce(sb, NULL, 1, T, SUM, comm, rq),
                       Cart_allreduce_init(sb, NULL, 1, T, SUM, comm, I, rq));
    case 7: return NA3(Cart_allreduce(NULL, rb, 1, T, SUM, comm), Cart_iallreduce(NULL, rb, 1, T, SUM, comm, rq),
                       Cart_allreduce_init(NULL, rb, 1, T, SUM, comm, I, rq));
    case 8: return NA3(Cart_bcast(NULL, 1, T, root, comm), Cart_ibcast(NULL, 1, T, root, comm, rq),
                       Cart_bcast_init(NULL, 1, T, root, comm, I, rq));
    case 9: return NA3(Cart_gather(sb, 1, T, NULL, 1, T, root, comm), Cart_igather(sb, 1, T, NULL, 1, T, root, comm, rq),
                       Cart_gather_init(sb, 1, T, NULL, 1, T, root, comm, I, rq));
    case 10: return NA3(Cart_scatter(NULL, 1, T, rb, 1, T, root, comm), Cart_iscatter(NULL, 1, T, rb, 1, T, root, comm, rq),
                        Cart_scatter_init(NULL, 1, T, rb, 1, T, root, comm, I, rq));
    case 11: return NA3(Cart_alltoall(sb, 1, T, NULL, 1, T, comm), Cart_ialltoall(sb, 1, T, NULL, 1, T, comm, rq),
                        Cart_alltoall_init(sb, 1, T, NULL, 1, T, comm, I, rq));
    case 12: return NA3(Cart_allgatherv(sb, 1, T, NULL, c1, d, T, comm), Cart_iallgatherv(sb, 1, T, NULL, c1, d, T, comm, rq),
                        Cart_allgatherv_init(sb, 1, T, NULL, c1, d, T, comm, I, rq));
    case 13: return NA3(Cart_reduce_scatter_block(NULL, rb, 1, T, SUM, comm), Cart_ireduce_scatter_block(NULL, rb, 1, T, SUM, comm, rq),
                        Cart_reduce_scatter_block_init(NULL, rb, 1, T, SUM, comm, I, rq));
    case 14: return NA3(Cart_scan(sb, NULL, 1, T, SUM, comm), Cart_iscan(sb, NULL, 1, T, SUM, comm, rq),
                        Cart_scan_init(sb, NULL, 1, T, SUM, comm, I, rq));
    case 15: return NA3(Cart_alltoallw(sb, c1, NULL, ty, rb, c1, dw, ty, comm), Cart_ialltoallw(sb, c1, NULL, ty, rb, c1, dw, ty, comm, rq),
                        Cart_alltoallw_init(sb, c1, NULL, ty, rb, c1, dw, ty, comm, I, rq));
    case 16: return NA3(Cart_allgatherw(sb, 1, T, rb, c1, NULL, ty, comm), Cart_iallgatherw(sb, 1, T, rb, c1, NULL, ty, comm, rq),
                        Cart_allgatherw_init(sb, 1, T, rb, c1, NULL, ty, comm, I, rq));
    case 17: return NA3(Cart_reduce(NULL, NULL, 1, T, SUM, root, comm), Cart_ireduce(NULL, NULL, 1, T, SUM, root, comm, rq),
                        Cart_reduce_init(NULL, NULL, 1, T, SUM, root, comm, I, rq));
    case 18: return NA3(Cart_allreduce(NULL, NULL, 0, T, SUM, comm), Cart_iallreduce(NULL, NULL, 0, T, SUM, comm, rq),
                        Cart_allreduce_init(NULL, NULL, 0, T, SUM, comm, I, rq));
    /* (NULL for both buffers would be aliased buffers, which MPICH refuses) */
    default: return NA3(Cart_alltoallv(NULL, c0, d, T, rb, c0, d, T, comm), Cart_ialltoallv(NULL, c0, d, T, rb, c0, d, T, comm, rq),
                        Cart_alltoallv_init(NULL, c0, d, T, rb, c0, d, T, comm, I, rq));
    }
#undef NA3
}

static void group_nullargs(void)
{
    static const char *const mode_name[3] = { "", "i", "_init" };
    static const char *const where_name[4] = { "dup of MPI_COMM_SELF", "dup of MPI_COMM_WORLD", "inter-communicator",
                                               "ring neighbourhood" };
    MPI_Comm comms[4] = { MPI_COMM_NULL, MPI_COMM_NULL, MPI_COMM_NULL, MPI_COMM_NULL };
    MPI_Comm_dup(MPI_COMM_SELF, &comms[0]);
    MPI_Comm_dup(MPI_COMM_WORLD, &comms[1]);
    int low = mt_rank == 0;
    if (mt_size >= 2) {
        MPI_Comm half;
        MPI_Comm_split(MPI_COMM_WORLD, low, mt_rank, &half);
        MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, low ? 1 : 0, 26, &comms[2]);
        MPI_Comm_free(&half);
    }
    comms[3] = make_ring();
    for (int w = 0; w < 4; w++) {
        if (comms[w] == MPI_COMM_NULL) continue;
        MPI_Comm_set_errhandler(comms[w], mt_errhandler);
        int root = w == 2 ? (low ? MPI_ROOT : 0) : 0;
        for (int k = 0; k < (int)(sizeof nullcases / sizeof nullcases[0]); k++) {
            const nullcase *c = &nullcases[k];
            if (!(c->where & (1 << w))) continue;
            for (int m = 0; m < 3; m++) {
                char fn[64], what[160];
                snprintf(fn, sizeof fn, "Cart_%s%s%s", m == 1 ? "i" : "", c->fn, m == 2 ? mode_name[2] : "");
                snprintf(what, sizeof what, "%s, %s", c->what, where_name[w]);
                Cart_request rq = CART_REQUEST_NULL;
                int rc = nullcall(k, m, comms[w], root, &rq);
                if (c->cls != MPI_SUCCESS) {
                    EXPECT(rc, c->cls, &comms[w], fn, what);
                    MT_CHECK(rq == CART_REQUEST_NULL, "%s (%s): request set by a failed call", fn, what);
                } else {
                    SUCCESS(rc, fn, what);
                }
                if (rq != CART_REQUEST_NULL) { /* (a wrongly accepted call: complete it, if it can) */
                    if (m == 2) Cart_start(&rq);
                    Cart_wait(&rq);
                    if (m == 2) Cart_request_free(&rq);
                }
                mt_err_reset();
            }
        }
        MPI_Comm_free(&comms[w]);
    }
}

/* ---- all-or-nothing partitioned calls (issue 26, D2 and D7) ----------------
 * A Cart_pready* call that fails (a partition given twice, or already
 * marked) marks nothing, so the correct follow-up completes the exchange
 * with the right data; Cart_request_free refuses a started request until
 * Cart_wait / Cart_test completed it, also once progress (Cart_parrived)
 * has finished it.  Four transports: the early bird (palltoall, pallgather
 * on the ring: blocks and one buffer to every destination), the pipelined
 * transport (palltoall with COMBINING) and global meaning (palltoall on a
 * duplicate of MPI_COMM_WORLD: the persistent collective on the whole
 * buffers).  Data from first principles. */
enum { AN_EARLY, AN_GATHER, AN_PIPE, AN_GLOBAL, AN_N };
static void allornothing_case(int kind, MPI_Comm ring, MPI_Comm world)
{
    static const char *const kname[AN_N] = { "early bird palltoall", "early bird pallgather",
                                            "pipelined palltoall", "global palltoall" };
    enum { CNT = 4, PARTS = 2 }; /* elements and partitions per block */
    int nblk = kind == AN_GLOBAL ? mt_size : 2, nsendblk = kind == AN_GATHER ? 1 : nblk;
    int nsendparts = nsendblk * PARTS, nrecvparts = nblk * PARTS;
    int *sb = malloc(sizeof(int) * (size_t)(nblk * CNT)), *rb = malloc(sizeof(int) * (size_t)(nblk * CNT));
    for (int i = 0; i < nblk * CNT; i++) sb[i] = 1000 * mt_rank + 100 * (i / CNT) + i % CNT, rb[i] = -1;
    MPI_Comm comm = kind == AN_GLOBAL ? world : ring;
    MPI_Info info = kind == AN_PIPE ? mt_info("combining", NULL) : MPI_INFO_NULL;
    Cart_request rq = CART_REQUEST_NULL;
    int rc = kind == AN_GATHER ? Cart_pallgather_init(sb, PARTS, CNT / PARTS, MPI_INT, rb, PARTS, CNT / PARTS, MPI_INT, comm, info, &rq)
                               : Cart_palltoall_init(sb, PARTS, CNT / PARTS, MPI_INT, rb, PARTS, CNT / PARTS, MPI_INT, comm, info, &rq);
    mt_info_free(&info);
    SUCCESS(rc, kname[kind], "_init");
    if (rc != MPI_SUCCESS) goto out;
    for (int rep = 0; rep < 2; rep++) {
        SUCCESS(Cart_start(&rq), "Cart_start", kname[kind]);
        int last = nsendparts - 1, twice[2] = { last, last }, mixed[3] = { 0, last, 0 };
        EXPECT(Cart_pready_list(2, twice, rq), MPI_ERR_ARG, HANDLER_ANY, "Cart_pready_list", "a partition given twice");
        EXPECT(Cart_pready_list(3, mixed, rq), MPI_ERR_ARG, HANDLER_ANY, "Cart_pready_list", "partition 0 given twice");
        SUCCESS(Cart_pready(0, rq), "Cart_pready", "partition 0, after failed lists");
        int again[2] = { 1, 0 };
        if (last >= 1) {
            EXPECT(Cart_pready_list(2, again, rq), MPI_ERR_ARG, HANDLER_ANY, "Cart_pready_list", "partition 0 marked before");
            EXPECT(Cart_pready_range(0, last, rq), MPI_ERR_ARG, HANDLER_ANY, "Cart_pready_range", "partition 0 marked before");
        }
        if (kind == AN_GATHER && last >= 1) { /* one buffer to every destination: per-destination marks */
            int dup_to[2] = { 1, 1 };
            EXPECT(Cart_pready_list_to(2, dup_to, 0, rq), MPI_ERR_ARG, HANDLER_ANY, "Cart_pready_list_to",
                   "a partition given twice");
            EXPECT(Cart_pready_range_to(0, last, 1, rq), MPI_ERR_ARG, HANDLER_ANY, "Cart_pready_range_to",
                   "partition 0 marked for every destination before");
            SUCCESS(Cart_pready_to(1, 0, rq), "Cart_pready_to", "partition 1 for destination 0 only");
            EXPECT(Cart_pready_range(1, last, rq), MPI_ERR_ARG, HANDLER_ANY, "Cart_pready_range",
                   "partition 1 marked for destination 0 before");
            SUCCESS(Cart_pready_to(1, 1, rq), "Cart_pready_to", "partition 1 for destination 1");
            if (last >= 2) SUCCESS(Cart_pready_range(2, last, rq), "Cart_pready_range", "the rest");
        } else if (last >= 1) {
            SUCCESS(Cart_pready_range(1, last, rq), "Cart_pready_range", "the rest, after failed calls");
        }
        /* every receive partition arrived: the operation may be finished,
         * but it is still active until completed */
        for (int k = 0; k < nrecvparts; k++) {
            int flag = 0;
            while (!flag && Cart_parrived(rq, k, &flag) == MPI_SUCCESS) {
            }
        }
        Cart_request keep = rq;
        EXPECT(Cart_request_free(&rq), MPI_ERR_REQUEST, HANDLER_ANY, "Cart_request_free", "started, not completed");
        MT_CHECK(rq == keep, "Cart_request_free of an active request changed the handle");
        SUCCESS(Cart_wait(&rq), "Cart_wait", kname[kind]);
        for (int j = 0; j < nblk; j++) {
            int src = kind == AN_GLOBAL ? j : (mt_rank + (j == 0 ? 1 : -1) + mt_size) % mt_size;
            int blk = kind == AN_GLOBAL ? mt_rank : kind == AN_GATHER ? 0 : j;
            for (int e = 0; e < CNT; e++)
                MT_CHECK(rb[j * CNT + e] == 1000 * src + 100 * blk + e, "%s rep %d: receive block %d element %d = %d, "
                         "expected %d", kname[kind], rep, j, e, rb[j * CNT + e], 1000 * src + 100 * blk + e);
        }
        for (int i = 0; i < nblk * CNT; i++) rb[i] = -1;
    }
    SUCCESS(Cart_request_free(&rq), "Cart_request_free", kname[kind]);
out:
    free(sb);
    free(rb);
}

static void group_allornothing(void)
{
    MPI_Comm ring = make_ring(), world;
    MPI_Comm_dup(MPI_COMM_WORLD, &world);
    MPI_Comm_set_errhandler(world, mt_errhandler);
    for (int kind = 0; kind < AN_N; kind++) allornothing_case(kind, ring, world);
    MPI_Comm_free(&world);
    MPI_Comm_free(&ring);
}

/* ---- info values of numbers (issue 26, D6) -----------------------------------
 * cartcoll_part_aggregate takes decimal digits and nothing else, the same on
 * both MPIs: every other value fails with MPI_ERR_ARG at _init (the early
 * bird of palltoall, the pipelined allreduce), every integer runs the
 * exchange right.  (Open MPI's MPI_Info_set refuses "" itself: skipped.) */
static void group_infovalues(void)
{
    static const char *const bad[] = { "", " ", "abc", "7abc", "-1", "-0x1", "1e3", "0x10", "1.5", "- 3", " 7",
                                       "+7", "7 " };
    static const char *const good[] = { "0", "1", "00", "4096", "99999999999999999999" };
    MPI_Comm ring = make_ring();
    int n = (int)(sizeof bad / sizeof bad[0]), ng = (int)(sizeof good / sizeof good[0]);
    for (int v = 0; v < n + ng; v++) {
        const char *val = v < n ? bad[v] : good[v - n];
        MPI_Info info;
        MPI_Info_create(&info);
        if (MPI_Info_set(info, "cartcoll_part_aggregate", val) != MPI_SUCCESS) {
            mt_err_reset(); /* this MPI refuses the value itself */
            MPI_Info_free(&info);
            continue;
        }
        char what[96];
        snprintf(what, sizeof what, "cartcoll_part_aggregate = \"%s\"", val);
        int sb[8], rb[8], sum[4], in[4];
        for (int i = 0; i < 8; i++) sb[i] = 1000 * mt_rank + 100 * (i / 4) + i % 4, rb[i] = -1;
        for (int i = 0; i < 4; i++) in[i] = mt_rank + i, sum[i] = -1;
        Cart_request a = CART_REQUEST_NULL, r = CART_REQUEST_NULL;
        int rc = Cart_palltoall_init(sb, 2, 2, MPI_INT, rb, 2, 2, MPI_INT, ring, info, &a);
        if (v < n) EXPECT(rc, MPI_ERR_ARG, &ring, "Cart_palltoall_init", what);
        else SUCCESS(rc, "Cart_palltoall_init", what);
        int rc2 = Cart_pallreduce_init(in, sum, 2, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD, info, &r);
        if (v < n) EXPECT(rc2, MPI_ERR_ARG, &W, "Cart_pallreduce_init", what);
        else SUCCESS(rc2, "Cart_pallreduce_init", what);
        MPI_Info_free(&info);
        if (v < n) continue;
        if (rc != MPI_SUCCESS || rc2 != MPI_SUCCESS) continue;
        Cart_start(&a);
        Cart_start(&r);
        SUCCESS(Cart_pready_range(0, 3, a), "Cart_pready_range", what);
        SUCCESS(Cart_pready_range(0, 1, r), "Cart_pready_range", what);
        SUCCESS(Cart_wait(&a), "Cart_wait", what);
        SUCCESS(Cart_wait(&r), "Cart_wait", what);
        for (int j = 0; j < 2; j++) {
            int src = (mt_rank + (j == 0 ? 1 : -1) + mt_size) % mt_size;
            for (int e = 0; e < 4; e++)
                MT_CHECK(rb[j * 4 + e] == 1000 * src + 100 * j + e, "palltoall (%s): block %d element %d = %d, "
                         "expected %d", what, j, e, rb[j * 4 + e], 1000 * src + 100 * j + e);
        }
        for (int i = 0; i < 4; i++)
            MT_CHECK(sum[i] == mt_size * (mt_size - 1) / 2 + mt_size * i, "pallreduce (%s): element %d = %d, "
                     "expected %d", what, i, sum[i], mt_size * (mt_size - 1) / 2 + mt_size * i);
        Cart_request_free(&a);
        Cart_request_free(&r);
    }
    MPI_Comm_free(&ring);
}

/* ---- valid edge inputs that must not be refused ---------------------------- */

static void group_edge(void)
{
    MPI_Comm ring = make_ring();
    int rc;
    /* count 0 with NULL buffers */
    int zero[2] = { 0, 0 }, displs[2] = { 0, 0 };
    MPI_Aint dw[2] = { 0, 0 };
    MPI_Datatype ints[2] = { MPI_INT, MPI_INT };
    rc = Cart_alltoall(NULL, 0, MPI_INT, NULL, 0, MPI_INT, ring);
    SUCCESS(rc, "Cart_alltoall", "count 0, NULL buffers");
    rc = Cart_allgatherv(NULL, 0, MPI_INT, NULL, zero, displs, MPI_INT, ring);
    SUCCESS(rc, "Cart_allgatherv", "count 0, NULL buffers");
    rc = Cart_alltoallw(NULL, zero, dw, ints, NULL, zero, dw, ints, ring);
    SUCCESS(rc, "Cart_alltoallw", "count 0, NULL buffers");

    /* MPI_BOTTOM with absolute addresses in the datatypes (w variant) */
    int sb[2] = { 1000 + mt_rank, 2000 + mt_rank }, rb[2] = { -1, -1 };
    MPI_Datatype st[2], rt[2];
    for (int i = 0; i < 2; i++) {
        MPI_Aint a;
        int one = 1;
        MPI_Get_address(&sb[i], &a);
        MPI_Type_create_hindexed(1, &one, &a, MPI_INT, &st[i]);
        MPI_Get_address(&rb[i], &a);
        MPI_Type_create_hindexed(1, &one, &a, MPI_INT, &rt[i]);
        MPI_Type_commit(&st[i]);
        MPI_Type_commit(&rt[i]);
    }
    int ones[2] = { 1, 1 };
    rc = Cart_alltoallw(MPI_BOTTOM, ones, dw, st, MPI_BOTTOM, ones, dw, rt, ring);
    SUCCESS(rc, "Cart_alltoallw", "MPI_BOTTOM with absolute-address datatypes");
    int up = (mt_rank + 1) % mt_size, down = (mt_rank - 1 + mt_size) % mt_size;
    MT_CHECK(rb[0] == 1000 + up && rb[1] == 2000 + down, "Cart_alltoallw with MPI_BOTTOM: got %d %d, expected %d %d",
             rb[0], rb[1], 1000 + up, 2000 + down);
    for (int i = 0; i < 2; i++) {
        MPI_Type_free(&st[i]);
        MPI_Type_free(&rt[i]);
    }

    /* t = 0 neighbourhood; collectives on it do nothing */
    int dims[1] = { mt_size }, per[1] = { 0 };
    MPI_Comm empty;
    rc = Cart_neighborhood_create(MPI_COMM_WORLD, 1, dims, per, 0, NULL, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &empty);
    SUCCESS(rc, "Cart_neighborhood_create", "t = 0 with targets NULL");
    if (rc == MPI_SUCCESS && empty != MPI_COMM_NULL) {
        int x = 5;
        rc = Cart_allgather(&x, 1, MPI_INT, NULL, 0, MPI_INT, empty);
        SUCCESS(rc, "Cart_allgather", "t = 0");
        MPI_Comm_free(&empty);
    }
    MPI_Comm_free(&ring);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "test_errors");
    const char *group = argc > 1 ? argv[1] : "all";
    mt_install_errhandler();
    W = MPI_COMM_WORLD;
    S = MPI_COMM_SELF;
    MPI_Comm_dup(MPI_COMM_SELF, &marker_comm);
    strings_work = mt_error_strings_work();
    /* every MPI: MPICH through the library's MPI_Error_string (issue 26, D3) */
    MT_CHECK(strings_work, "MPI_Error_string of a cartcoll error code does not give the library's sentence");
    if (!mt_rank)
        printf("test_errors %s: this MPI %s attach strings to codes of predefined classes\n", group,
               strings_work ? "can" : "cannot (function names in messages not checked)");
    int all = !strcmp(group, "all"), any = 0;
    if (all || !strcmp(group, "create")) any = 1, group_create();
    if (all || !strcmp(group, "iso")) any = 1, group_iso();
    if (all || !strcmp(group, "onesided")) any = 1, group_onesided();
    if (all || !strcmp(group, "collectives")) any = 1, group_collectives();
    if (all || !strcmp(group, "requests")) any = 1, group_requests();
    if (all || !strcmp(group, "queries")) any = 1, group_queries();
    if (all || !strcmp(group, "edge")) any = 1, group_edge();
    if (all || !strcmp(group, "nullargs")) any = 1, group_nullargs();
    if (all || !strcmp(group, "allornothing")) any = 1, group_allornothing();
    if (all || !strcmp(group, "infovalues")) any = 1, group_infovalues();
    if (!any) {
        if (!mt_rank) fprintf(stderr, "test_errors: unknown group %s\n", group);
        mt_failures++;
    }
    long mine = n_errors_checked, mx = 0;
    MPI_Reduce(&mine, &mx, 1, MPI_LONG, MPI_MAX, 0, MPI_COMM_WORLD);
    if (!mt_rank) printf("test_errors %s: %ld failing calls checked per process\n", group, mx);
    MPI_Comm_free(&marker_comm);
    return mt_finish();
}
