/* Randomized end-to-end check of builders + localizer: every case is run
 * for both collectives and all three algorithms on a virtual grid (see
 * simulate.h).  Usage: test_simulate [seed [cases]]; the seed is printed
 * so that a failure can be replayed. */
#include "check.h"
#include "sched/schedule.h"
#include "sched/schedule_trie.h"
#include "simulate.h"
#include "geom/stencil_core.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

static unsigned long long rng_state;
static unsigned rnd(unsigned n)
{
    rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return n ? (unsigned)((rng_state >> 33) % n) : 0;
}

static long long ncases, nsims, nvolume;

/* Runs all collectives x algorithms, the allgather trees also with the
 * heuristic dimension order; on failure prints the case and exits. */
static void run_all(int d, const int *dims, const int *periods, int t, const int *offs, const char *what)
{
    ncases++;
    for (int coll = CC_ALLGATHER; coll <= CC_ALLTOALL; coll++)
        for (int alg = CC_DIRECT; alg <= CC_TORUS; alg++)
            for (int heur = 0; heur <= (coll == CC_ALLGATHER && alg != CC_DIRECT); heur++) {
                sim_case c = { d, dims, periods, t, offs, coll, alg, 0 };
                sim_result r;
                char err[512];
                long long keep = cc_order_exact_limit;
                if (heur) cc_order_exact_limit = -1;
                nsims++;
                int rc = sim_run(&c, &r, err, sizeof err);
                cc_order_exact_limit = keep;
                if (rc) {
                    fprintf(stderr, "FAILED (%s%s): %s\n", what, heur ? ", heuristic order" : "", err);
                    sim_print_case(&c);
                    exit(1);
                }
                nvolume += r.volume_checked;
            }
    /* Rooted collectives on the COMBINING and TORUS trees, three roots. */
    long long P = 1;
    for (int k = 0; k < d; k++) P *= dims[k];
    for (int coll = CC_BCAST; coll <= CC_SCATTER; coll++)
        for (int alg = CC_COMBINING; alg <= CC_TORUS; alg++)
            for (int ri = 0; ri < 3; ri++) {
                int root = ri == 0 ? 0 : ri == 1 ? (int)(P - 1) : (int)rnd((unsigned)P);
                sim_case c = { d, dims, periods, t, offs, coll, alg, root };
                sim_result r;
                char err[512];
                nsims++;
                if (sim_run(&c, &r, err, sizeof err)) {
                    fprintf(stderr, "FAILED (%s, rooted): %s\n", what, err);
                    sim_print_case(&c);
                    exit(1);
                }
            }
}

/* Fixed cases: Moore and von Neumann stencils, seed 002 Figure 2, meshes
 * where most blocks have no source, grids of size 1 and 2. */
static void fixed_cases(void)
{
    int offs[125 * 3];
    for (int d = 1; d <= 3; d++)
        for (int metric = CC_METRIC_MANHATTAN; metric <= CC_METRIC_CHEBYSHEV; metric++)
            for (int r = 1; r <= 2; r++) {
                int t = (int)cc_stencil_list(d, metric, 0, r, offs);
                static const int sizes[][3] = { { 1, 1, 1 }, { 2, 2, 2 }, { 3, 4, 2 }, { 5, 5, 5 }, { 4, 1, 3 } };
                for (int sz = 0; sz < 5; sz++)
                    for (int pm = 0; pm < (1 << d); pm++) {
                        int periods[3] = { pm & 1, pm >> 1 & 1, pm >> 2 & 1 };
                        if (d == 3 && sz == 3 && pm) continue; /* keep it short */
                        run_all(d, sizes[sz], periods, t, offs, "stencil");
                    }
            }
    static const int fig2[] = { -2, 1, 1, -1, 1, 1, 1, 1, 1, 2, 1, 1 };
    static const int dims[] = { 5, 3, 3 }, per[] = { 1, 1, 1 }, mesh[] = { 0, 0, 1 };
    run_all(3, dims, per, 4, fig2, "figure 2");
    run_all(3, dims, mesh, 4, fig2, "figure 2 mesh");
}

static void random_case(void)
{
    int d = rnd(10) == 0 ? 5 : 1 + (int)rnd(4);
    int dims[5], periods[5], offs[30 * 5];
    long long P = 1;
    for (int k = 0; k < d; k++) {
        unsigned x = rnd(10);
        dims[k] = x < 3 ? 1 : x < 6 ? 2 : 3 + (int)rnd(3);
        periods[k] = (int)rnd(2);
        P *= dims[k];
    }
    if (P > 400) /* bound the work of one case */
        for (int k = 0; k < d; k++) dims[k] = dims[k] > 3 ? 3 : dims[k];
    int t = (int)rnd(31), R = rnd(3) == 0 ? 7 : 1 + (int)rnd(3);
    if (rnd(8) == 0) { /* no reduction: the per-process volume is checked exactly */
        d = d > 3 ? 3 : d;
        for (int k = 0; k < d; k++) {
            dims[k] = 3 + (int)rnd(3);
            periods[k] = 1;
        }
        R = 1;
    }
    for (int i = 0; i < t; i++) {
        unsigned kind = rnd(10);
        int *v = offs + i * d;
        if (i > 0 && kind == 0) {
            memcpy(v, offs + (int)rnd((unsigned)i) * d, sizeof(int) * (size_t)d); /* repeat */
        } else if (kind == 1) {
            memset(v, 0, sizeof(int) * (size_t)d); /* zero vector */
        } else {
            for (int k = 0; k < d; k++) v[k] = rnd(3) ? (int)rnd(2u * R + 1) - R : 0;
        }
    }
    run_all(d, dims, periods, t, offs, "random");
}

int main(int argc, char **argv)
{
    unsigned long long seed = argc > 1 ? strtoull(argv[1], NULL, 0)
                                       : (unsigned long long)time(NULL) ^ ((unsigned long long)clock() << 20);
    long long n = argc > 2 ? atoll(argv[2]) : 10000;
    printf("test_simulate: seed %llu (replay: test_simulate %llu %lld)\n", seed, seed, n);
    fflush(stdout);
    rng_state = seed;
    clock_t t0 = clock();
    fixed_cases();
    for (long long c = 0; c < n; c++) random_case();
    printf("test_simulate: ok, %lld cases, %lld simulations (%lld with exact volume check), %.2f s\n", ncases,
           nsims, nvolume, (double)(clock() - t0) / CLOCKS_PER_SEC);
    return 0;
}
