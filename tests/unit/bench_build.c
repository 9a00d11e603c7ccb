/* Timing printout (asserts only success): build and localize the COMBINING
 * schedules of the d=5 radius-3 Moore neighbourhood (16806 vectors, zero
 * excluded) on a 2x2x1x1x1 periodic grid, where the library must do
 * create+init in under 10 ms per process, and for comparison on a grid
 * large enough that nothing is reduced (one process localized). */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include "check.h"
#include "geom/geometry.h"
#include "sched/localize.h"
#include "sched/schedule.h"
#include "geom/stencil_core.h"

#include <stdlib.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void run(const char *name, int d, const int *dims, const int *periods, int t, const int *raw, int nloc)
{
    cc_grid g = { d, 1, dims, periods, 0 };
    for (int k = 0; k < d; k++) g.size *= dims[k];
    int *red = malloc(sizeof(int) * (size_t)t * (size_t)d), co[5];
    unsigned char *skip = malloc((size_t)t);
    CHECK(red && skip);
    for (int coll = CC_ALLGATHER; coll <= CC_ALLTOALL; coll++) {
        double best_b = 1e9, best_l = 1e9;
        cc_schedule *s = NULL;
        for (int rep = 0; rep < 5; rep++) {
            double t0 = now();
            for (int i = 0; i < t; i++)
                skip[i] = (unsigned char)cc_grid_reduce(&g, raw + (size_t)i * d, red + (size_t)i * d);
            cc_nset ns = { d, t, red, skip, NULL };
            CHECK_EQ(cc_schedule_build(&ns, coll, CC_COMBINING, &s), CC_OK);
            double t1 = now();
            for (int q = 0; q < nloc; q++) {
                cc_local *l;
                cc_grid_coords(&g, q, co);
                CHECK_EQ(cc_localize(s, &g, co, &l), CC_OK);
                cc_local_free(l);
            }
            double t2 = now();
            if (t1 - t0 < best_b) best_b = t1 - t0;
            if ((t2 - t1) / nloc < best_l) best_l = (t2 - t1) / nloc;
            if (rep < 4) cc_schedule_free(s);
        }
        printf("%-30s %-9s combining: reduce+build %.3f ms, localize %.3f ms/process "
               "(%d phases, %d rounds, %d entries, %d copies, %d temps)\n",
               name, coll == CC_ALLTOALL ? "alltoall" : "allgather", 1e3 * best_b, 1e3 * best_l, s->nphases,
               s->nrounds, s->nentries, s->ncopies, s->ntemp);
        cc_schedule_free(s);
    }
    free(red);
    free(skip);
}

int main(void)
{
    int d = 5, t = (int)cc_stencil_count(5, CC_METRIC_CHEBYSHEV, 1, 3, 1 << 20);
    CHECK_EQ(t, 16806);
    int *raw = malloc(sizeof(int) * (size_t)t * (size_t)d);
    CHECK(raw);
    CHECK_EQ(cc_stencil_list(5, CC_METRIC_CHEBYSHEV, 1, 3, raw), t);
    int small[5] = { 2, 2, 1, 1, 1 }, big[5] = { 7, 7, 7, 7, 7 }, per[5] = { 1, 1, 1, 1, 1 };
    run("moore d=5 r=3 on 2x2x1x1x1", d, small, per, t, raw, 4);
    run("moore d=5 r=3 on 7^5", d, big, per, t, raw, 1);
    free(raw);
    return 0;
}
