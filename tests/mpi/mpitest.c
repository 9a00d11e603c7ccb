#include "mpitest.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int mt_rank = 0, mt_size = 1;
long mt_failures = 0, mt_checks = 0;
const char *mt_name = "mpitest";
mt_errlog mt_err;
MPI_Errhandler mt_errhandler = MPI_ERRHANDLER_NULL;

void mt_init(int *argc, char ***argv, const char *name)
{
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &mt_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &mt_size);
    mt_name = name;
    setvbuf(stdout, NULL, _IOLBF, 0);
}

void mt_fail(const char *file, int line, const char *fmt, ...)
{
    /* Report the first failures in full; count all of them. */
    if (mt_failures++ < 25) {
        char msg[1024];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
        fprintf(stderr, "%s: rank %d: FAIL %s:%d: %s\n", mt_name, mt_rank, file, line, msg);
        fflush(stderr);
    } else if (mt_failures == 26) {
        fprintf(stderr, "%s: rank %d: further failures not shown\n", mt_name, mt_rank);
    }
}

int mt_finish(void)
{
    long mine[2] = { mt_failures, mt_checks }, sum[2] = { 0, 0 };
    MPI_Allreduce(mine, sum, 2, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (mt_rank == 0)
        printf("%s: %s on %d processes: %ld checks, %ld failures\n", mt_name, sum[0] ? "FAIL" : "PASS", mt_size,
               sum[1], sum[0]);
    if (mt_errhandler != MPI_ERRHANDLER_NULL) {
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
        MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
        MPI_Errhandler_free(&mt_errhandler);
    }
    MPI_Finalize();
    return sum[0] ? 1 : 0;
}

void mt_seed(mt_rng *r, uint64_t seed, uint64_t stream)
{
    r->s = seed * 0x9E3779B97F4A7C15ull ^ (stream + 1) * 0xD1B54A32D192ED03ull;
    (void)mt_next(r);
}

uint64_t mt_next(mt_rng *r)
{
    uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

int mt_uniform(mt_rng *r, int lo, int hi)
{
    return lo + (int)(mt_next(r) % (uint64_t)(hi - lo + 1));
}

int mt_chance(mt_rng *r, int percent)
{
    return mt_uniform(r, 0, 99) < percent;
}

void mt_coords(int rank, int d, const int dims[], int coords[])
{
    for (int k = d - 1; k >= 0; k--) {
        coords[k] = rank % dims[k];
        rank /= dims[k];
    }
}

int mt_rank_of(int d, const int dims[], const int coords[])
{
    int r = 0;
    for (int k = 0; k < d; k++) r = r * dims[k] + coords[k];
    return r;
}

int mt_shift(int rank, int d, const int dims[], const int periods[], const int vec[], int sign)
{
    int c[16];
    mt_coords(rank, d, dims, c);
    for (int k = 0; k < d; k++) {
        long x = (long)c[k] + (long)sign * vec[k];
        if (periods[k]) {
            x %= dims[k];
            if (x < 0) x += dims[k];
        } else if (x < 0 || x >= dims[k]) {
            return MPI_PROC_NULL;
        }
        c[k] = (int)x;
    }
    return mt_rank_of(d, dims, c);
}

const char *const mt_alg_name[4] = { "auto", "direct", "combining", "torus" };
const char *const mt_exec_name[3] = { "auto", "datatype", "pack" };

MPI_Info mt_info(const char *alg, const char *exec)
{
    if (!alg && !exec) return MPI_INFO_NULL;
    MPI_Info info;
    MPI_Info_create(&info);
    if (alg) MPI_Info_set(info, "cartcoll_algorithm", alg);
    if (exec) MPI_Info_set(info, "cartcoll_executor", exec);
    return info;
}

void mt_info_free(MPI_Info *info)
{
    if (*info != MPI_INFO_NULL) MPI_Info_free(info);
}

static void record_error(MPI_Comm *comm, int *code, ...)
{
    mt_err.calls++;
    mt_err.code = *code;
    mt_err.comm = *comm;
}

void mt_install_errhandler(void)
{
    MPI_Comm_create_errhandler(record_error, &mt_errhandler);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, mt_errhandler);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, mt_errhandler);
    mt_err_reset();
}

void mt_err_reset(void)
{
    mt_err.calls = 0;
    mt_err.code = MPI_SUCCESS;
    mt_err.comm = MPI_COMM_NULL;
}

/* Whether MPI_Error_string of a cartcoll error code gives the library's
 * sentence (it names the function): a failing local call, with
 * MPI_ERRORS_RETURN on MPI_COMM_SELF for the moment. */
int mt_error_strings_work(void)
{
    static int known = -1;
    if (known < 0) {
        MPI_Errhandler old;
        MPI_Comm_get_errhandler(MPI_COMM_SELF, &old);
        MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
        int n = 0, len = 0, rc = Cart_stencil_count(2, 99, 0, 1, &n);
        char buf[MPI_MAX_ERROR_STRING] = "";
        known = rc != MPI_SUCCESS && MPI_Error_string(rc, buf, &len) == MPI_SUCCESS && len > 0 &&
                strstr(buf, "Cart_stencil_count") != NULL;
        MPI_Comm_set_errhandler(MPI_COMM_SELF, old);
        MPI_Errhandler_free(&old);
    }
    return known;
}

int mt_error_class(int code)
{
    int cls = -1;
    if (MPI_Error_class(code, &cls) != MPI_SUCCESS) return -1;
    return cls;
}

double mt_now(void)
{
    return MPI_Wtime();
}

/* ---- added for test_typemaps ---------------------------------------------- */

int mt_finish_tally(long passed, long failed)
{
    long mine[2] = { mt_failures, mt_checks }, sum[2] = { 0, 0 };
    MPI_Allreduce(mine, sum, 2, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    int bad = sum[0] > 0 || failed > 0;
    if (mt_rank == 0) {
        printf("%s: %s on %d processes: %ld checks, %ld failures\n", mt_name, bad ? "FAIL" : "PASS", mt_size, sum[1],
               sum[0]);
        printf("%s: %ld passed, %ld failed\n", mt_name, passed, failed);
    }
    if (mt_errhandler != MPI_ERRHANDLER_NULL) {
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
        MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
        MPI_Errhandler_free(&mt_errhandler);
    }
    MPI_Finalize();
    return bad;
}

/* The neighbour lists of cart without MPI_PROC_NULL; returns t or -1. */
static int neighbor_lists(MPI_Comm cart, int **src, int **dst, int *nin, int *nout)
{
    int t = 0;
    *src = *dst = NULL;
    if (Cart_neighbor_count(cart, &t) != MPI_SUCCESS) return -1;
    *src = malloc(sizeof(int) * (size_t)(t + 1));
    *dst = malloc(sizeof(int) * (size_t)(t + 1));
    if (!*src || !*dst || Cart_neighbor_get(cart, t, *src, MPI_UNWEIGHTED, t, *dst, MPI_UNWEIGHTED) != MPI_SUCCESS)
        return -1;
    *nin = *nout = 0;
    for (int i = 0; i < t; i++) {
        if ((*src)[i] != MPI_PROC_NULL) (*src)[(*nin)++] = (*src)[i];
        if ((*dst)[i] != MPI_PROC_NULL) (*dst)[(*nout)++] = (*dst)[i];
    }
    return t;
}

int mt_neighbor_graph(MPI_Comm cart, MPI_Comm *graph)
{
    int *src, *dst, nin = 0, nout = 0, rc = MPI_ERR_OTHER;
    int t = neighbor_lists(cart, &src, &dst, &nin, &nout);
    int *w = malloc(sizeof(int) * (size_t)(t + 1));
    if (t >= 0 && w) {
        for (int i = 0; i <= t; i++) w[i] = 1;
        rc = MPI_Dist_graph_create_adjacent(cart, nin, src, w, nout, dst, w, MPI_INFO_NULL, 0, graph);
    }
    free(w);
    free(src);
    free(dst);
    return rc;
}

int mt_neighbor_graph_usable(MPI_Comm cart)
{
#ifdef MPICH_VERSION
    int *src, *dst, nin = 0, nout = 0;
    int ok = neighbor_lists(cart, &src, &dst, &nin, &nout) >= 0 && nin == nout;
    for (int i = 0; ok && i < nin; i++)
        for (int j = 0; j < i; j++)
            if (src[i] == src[j] || dst[i] == dst[j]) ok = 0;
    free(src);
    free(dst);
    int all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, cart);
    return all;
#else
    (void)cart;
    return 1;
#endif
}

int mt_collective(int mode, int coll, const mt_call *c, MPI_Comm cart, MPI_Info info, Cart_request *req)
{
    const void *sb = c->sb;
    void *rb = c->rb;
    switch (mode * 6 + coll) {
    case 0: return Cart_allgather(sb, c->sc, c->st, rb, c->rc, c->rt, cart);
    case 1: return Cart_allgatherv(sb, c->sc, c->st, rb, c->rcounts, c->rdispls, c->rt, cart);
    case 2: return Cart_allgatherw(sb, c->sc, c->st, rb, c->rcounts, c->rdispw, c->rtypes, cart);
    case 3: return Cart_alltoall(sb, c->sc, c->st, rb, c->rc, c->rt, cart);
    case 4: return Cart_alltoallv(sb, c->scounts, c->sdispls, c->st, rb, c->rcounts, c->rdispls, c->rt, cart);
    case 5: return Cart_alltoallw(sb, c->scounts, c->sdispw, c->stypes, rb, c->rcounts, c->rdispw, c->rtypes, cart);
    case 6: return Cart_iallgather(sb, c->sc, c->st, rb, c->rc, c->rt, cart, req);
    case 7: return Cart_iallgatherv(sb, c->sc, c->st, rb, c->rcounts, c->rdispls, c->rt, cart, req);
    case 8: return Cart_iallgatherw(sb, c->sc, c->st, rb, c->rcounts, c->rdispw, c->rtypes, cart, req);
    case 9: return Cart_ialltoall(sb, c->sc, c->st, rb, c->rc, c->rt, cart, req);
    case 10: return Cart_ialltoallv(sb, c->scounts, c->sdispls, c->st, rb, c->rcounts, c->rdispls, c->rt, cart, req);
    case 11:
        return Cart_ialltoallw(sb, c->scounts, c->sdispw, c->stypes, rb, c->rcounts, c->rdispw, c->rtypes, cart, req);
    case 12: return Cart_allgather_init(sb, c->sc, c->st, rb, c->rc, c->rt, cart, info, req);
    case 13: return Cart_allgatherv_init(sb, c->sc, c->st, rb, c->rcounts, c->rdispls, c->rt, cart, info, req);
    case 14: return Cart_allgatherw_init(sb, c->sc, c->st, rb, c->rcounts, c->rdispw, c->rtypes, cart, info, req);
    case 15: return Cart_alltoall_init(sb, c->sc, c->st, rb, c->rc, c->rt, cart, info, req);
    case 16:
        return Cart_alltoallv_init(sb, c->scounts, c->sdispls, c->st, rb, c->rcounts, c->rdispls, c->rt, cart, info,
                                   req);
    case 17:
        return Cart_alltoallw_init(sb, c->scounts, c->sdispw, c->stypes, rb, c->rcounts, c->rdispw, c->rtypes, cart,
                                   info, req);
    }
    return MPI_ERR_INTERN;
}
