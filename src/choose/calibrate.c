/* The cost model's parameters: alpha, the per-message overhead and beta,
 * from the environment or measured once per process (ping-pong, a burst,
 * a large exchange) and agreed among the processes. */
#include "choose/choose.h"

#include "base/errors.h"
#include "base/mpi_compat.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define CC_DEFAULT_ALPHA 1e-6
#define CC_DEFAULT_BETA 1e-10
/* Per-message overhead as a fraction of alpha when it was not measured. */
#define CC_DEFAULT_OVERHEAD 0.25

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static double measured_alpha = -1, measured_beta = -1, measured_overhead = -1;

static int env_number(const char *name, double *out, int *set)
{
    const char *v = getenv(name);
    *set = 0;
    if (!v || !*v) return MPI_SUCCESS;
    char *end;
    double x = strtod(v, &end);
    if (*end || !(x >= 0) || !isfinite(x))
        return cc_error_code(MPI_ERR_ARG, "environment variable %s = \"%.32s\" is not a non-negative number of seconds",
                             name, v);
    *out = x;
    *set = 1;
    return MPI_SUCCESS;
}

int cc_model_local(double *alpha, double *beta, double *overhead, int *need)
{
    int sa, sb, so, rc = env_number("CARTCOLL_ALPHA", alpha, &sa);
    if (rc == MPI_SUCCESS) rc = env_number("CARTCOLL_BETA", beta, &sb);
    if (rc == MPI_SUCCESS) rc = env_number("CARTCOLL_OVERHEAD", overhead, &so);
    if (rc != MPI_SUCCESS) return rc;
    pthread_mutex_lock(&lock);
    if (!sa) *alpha = measured_alpha;
    if (!sb) *beta = measured_beta;
    if (!so) *overhead = measured_overhead;
    pthread_mutex_unlock(&lock);
    *need = *alpha < 0 || *beta < 0;
    return MPI_SUCCESS;
}

int cc_model_fixed(double *alpha, double *beta, double *overhead)
{
    int sa, sb, so;
    *alpha = *beta = *overhead = -1;
    int rc = env_number("CARTCOLL_ALPHA", alpha, &sa);
    if (rc == MPI_SUCCESS) rc = env_number("CARTCOLL_BETA", beta, &sb);
    if (rc == MPI_SUCCESS) rc = env_number("CARTCOLL_OVERHEAD", overhead, &so);
    cc_model_defaults(alpha, beta, overhead);
    return rc;
}

long long cc_model_bits(double x)
{
    long long b = 0;
    if (x > 0) memcpy(&b, &x, sizeof b);
    return b;
}

double cc_model_value(long long bits)
{
    double x;
    memcpy(&x, &bits, sizeof x);
    return x;
}

void cc_model_defaults(double *alpha, double *beta, double *overhead)
{
    if (!(*alpha > 0)) *alpha = CC_DEFAULT_ALPHA;
    if (!(*beta > 0)) *beta = CC_DEFAULT_BETA;
    if (!(*overhead > 0)) *overhead = *alpha * CC_DEFAULT_OVERHEAD;
}

/* Fastest of `reps` round trips of `bytes` with the partner (the lower
 * rank of the pair starts). */
static double pingpong(MPI_Comm c, int partner, char *buf, int bytes, int reps)
{
    int first = 0, rank;
    MPI_Comm_rank(c, &rank);
    first = rank < partner;
    double best = 1e30;
    for (int i = 0; i < reps; i++) {
        double t = MPI_Wtime();
        if (first) {
            MPI_Send(buf, bytes, MPI_BYTE, partner, 0, c);
            MPI_Recv(buf, bytes, MPI_BYTE, partner, 0, c, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(buf, bytes, MPI_BYTE, partner, 0, c, MPI_STATUS_IGNORE);
            MPI_Send(buf, bytes, MPI_BYTE, partner, 0, c);
        }
        t = MPI_Wtime() - t;
        if (t < best) best = t;
    }
    return best;
}

/* Fastest of `reps` exchanges of `n` concurrent messages of `bytes` each
 * way with the partner (what one phase of a schedule does). */
static double exchange(MPI_Comm c, int partner, char *sbuf, char *rbuf, int bytes, int n, int reps)
{
    MPI_Request rq[2 * 16];
    double best = 1e30;
    for (int i = 0; i < reps; i++) {
        double t = MPI_Wtime();
        for (int j = 0; j < n; j++) {
            MPI_Irecv(rbuf + (size_t)j * bytes, bytes, MPI_BYTE, partner, 0, c, &rq[2 * j]);
            MPI_Isend(sbuf + (size_t)j * bytes, bytes, MPI_BYTE, partner, 0, c, &rq[2 * j + 1]);
        }
        cc_waitall(2 * n, rq);
        t = MPI_Wtime() - t;
        if (t < best) best = t;
    }
    return best;
}

/* Measure alpha, beta and the per-message overhead against the partner
 * rank ^ 1 (-1 each where there is none or memory ran out). */
static void measure(MPI_Comm priv, double *a, double *b, double *o)
{
    enum { LARGE = 1 << 16, BURST = 16 };
    int rank, size;
    MPI_Comm_rank(priv, &rank);
    MPI_Comm_size(priv, &size);
    int partner = rank ^ 1;
    *a = *b = *o = -1;
    if (partner >= size) return;
    char *sbuf = calloc(LARGE, 1), *rbuf = calloc(LARGE, 1);
    if (sbuf && rbuf) {
        pingpong(priv, partner, sbuf, 1, 2); /* warm up the path */
        *a = pingpong(priv, partner, sbuf, 1, 8) / 2;
        double large = pingpong(priv, partner, sbuf, LARGE, 3) / 2;
        *b = large > *a ? (large - *a) / LARGE : 0;
        /* Each further concurrent message of a phase. */
        double one = exchange(priv, partner, sbuf, rbuf, 1, 1, 4);
        double burst = exchange(priv, partner, sbuf, rbuf, 1, BURST, 4);
        *o = burst > one ? (burst - one) / (BURST - 1) : 0;
    }
    free(sbuf);
    free(rbuf);
}

int cc_model_agree(MPI_Comm priv, double *alpha, double *beta, double *overhead)
{
    double a, b, o;
    measure(priv, &a, &b, &o);
    pthread_mutex_lock(&lock);
    if (measured_alpha < 0 && a >= 0) measured_alpha = a, measured_beta = b, measured_overhead = o;
    pthread_mutex_unlock(&lock);
    if (*alpha < 0) *alpha = a;
    if (*beta < 0) *beta = b;
    double v[3] = { *alpha, *beta, o }, r[3];
    int rc = MPI_Allreduce(v, r, 3, MPI_DOUBLE, MPI_MAX, priv);
    if (rc != MPI_SUCCESS) return rc;
    *alpha = r[0];
    *beta = r[1];
    *overhead = r[2];
    cc_model_defaults(alpha, beta, overhead);
    return MPI_SUCCESS;
}

/* An entry carries an instance of receive block perm[lo] (its signature
 * equals the send block's). */
