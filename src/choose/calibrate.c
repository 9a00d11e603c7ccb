/* The cost model's parameters measured once per process (ping-pong, a
 * burst, a large exchange) and agreed among the processes; where they
 * come from otherwise (environment, defaults) is base/model.c. */
#include "choose/choose.h"

#include "base/errors.h"
#include "base/mpi_compat.h"

#include <stdlib.h>

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

int cc_model_agree(MPI_Comm priv, cc_cost_params *m)
{
    double a, b, o;
    measure(priv, &a, &b, &o);
    cc_model_record(a, b, o);
    if (m->alpha < 0) m->alpha = a;
    if (m->beta < 0) m->beta = b;
    if (m->overhead < 0) m->overhead = o;
    long long v[CC_MODEL_FIELDS], r[CC_MODEL_FIELDS];
    cc_model_to_bits(m, v);
    int rc = MPI_Allreduce(v, r, CC_MODEL_FIELDS, MPI_LONG_LONG, MPI_MAX, priv);
    if (rc != MPI_SUCCESS) return rc;
    cc_model_from_bits(r, m);
    return MPI_SUCCESS;
}
