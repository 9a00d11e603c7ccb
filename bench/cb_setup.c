/* cartbench --setup: the cost of planning, not of communicating.  For each
 * neighbourhood, --reps times (after --warmup untimed): Cart_neighborhood_
 * create on the processes' grid, then Cart_alltoall_init and
 * Cart_allgather_init (m ints per block, the first -m value) with each
 * algorithm (auto, direct, combining, torus: info cartcoll_algorithm),
 * each request and the communicator freed after.  Reported: the median
 * over repetitions of the slowest process's time of create + one _init
 * (create alone as its own row).  The automatic choice at create is
 * calibrated unless CARTCOLL_ALPHA/CARTCOLL_BETA are set; the
 * measurement is of a whole set-up as a program pays it. */
#define _POSIX_C_SOURCE 200809L
#include "cb_setup.h"

#include "cb_cases.h"
#include "cb_state.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int run_setup(const options *o, MPI_Comm world)
{
    static const char *const what[] = { "create", "create+alltoall_init", "create+allgather_init" };
    int failed = 0, m = o->nm > 0 && o->ms[0] > 0 ? o->ms[0] : 1;
    if (!world_rank)
        printf("# cartbench --setup: %d processes, %d repetitions after %d, median of the slowest process [ms]\n"
               "%-16s %8s %-24s %10s %10s %10s %10s\n",
               world_size, o->reps, o->warmup, "neighbourhood", "t", "what", "auto", "direct", "combining", "torus");
    double *x = xmalloc(sizeof(double) * (size_t)(o->reps > 0 ? o->reps : 1));
    for (int s = 0; s < o->nspecs && !failed; s++) {
        cb_nbh n;
        if (share_nbh(o->specs[s], &n, world)) {
            failed = 1;
            break;
        }
        int dims[32] = { 0 }, periods[32];
        for (int k = 0; k < n.d; k++) periods[k] = !o->mesh;
        MPI_Dims_create(world_size, n.d, dims);
        int *wts = xmalloc(sizeof(int) * ((size_t)n.t + 1)); /* weights 1: MPI_UNWEIGHTED upsets gcc */
        for (int i = 0; i < n.t; i++) wts[i] = 1;
        int *sb = xmalloc(sizeof(int) * (size_t)n.t * (size_t)m + 1), *rb = xmalloc(sizeof(int) * (size_t)n.t * (size_t)m + 1);
        double med[3][NALG];
        for (int w = 0; w < 3 && !failed; w++)
            for (int a = 0; a < NALG && !failed; a++) {
                if (w == 0 && a > 0) { /* create alone: one column */
                    med[w][a] = -1;
                    continue;
                }
                MPI_Info info = make_info(a, 0);
                for (int r = 0; r < o->warmup + o->reps && !failed; r++) {
                    MPI_Comm c;
                    Cart_request q = CART_REQUEST_NULL;
                    MPI_Barrier(world);
                    double t0 = MPI_Wtime();
                    int rc = Cart_neighborhood_create(world, n.d, dims, periods, n.t, n.v, wts,
                                                      MPI_INFO_NULL, 0, &c);
                    if (rc == MPI_SUCCESS && w == 1)
                        rc = Cart_alltoall_init(sb, m, MPI_INT, rb, m, MPI_INT, c, info, &q);
                    if (rc == MPI_SUCCESS && w == 2)
                        rc = Cart_allgather_init(sb, m, MPI_INT, rb, m, MPI_INT, c, info, &q);
                    double dt = MPI_Wtime() - t0, mx;
                    if (rc != MPI_SUCCESS) {
                        report_error(o->specs[s], rc);
                        failed = 1;
                    }
                    MPI_Allreduce(&dt, &mx, 1, MPI_DOUBLE, MPI_MAX, world);
                    if (r >= o->warmup) x[r - o->warmup] = mx;
                    if (q != CART_REQUEST_NULL) Cart_request_free(&q);
                    if (rc == MPI_SUCCESS) MPI_Comm_free(&c);
                }
                MPI_Info_free(&info);
                qsort(x, (size_t)o->reps, sizeof(double), cmp_double);
                med[w][a] = x[o->reps / 2];
            }
        if (!world_rank && !failed)
            for (int w = 0; w < 3; w++) {
                printf("%-16s %8d %-24s", n.name, n.t, what[w]);
                for (int a = 0; a < NALG; a++)
                    if (med[w][a] < 0) printf(" %10s", "");
                    else printf(" %10.3f", med[w][a] * 1e3);
                printf("\n");
            }
        free(sb);
        free(rb);
        free(wts);
        cb_nbh_free(&n);
    }
    free(x);
    return failed;
}
