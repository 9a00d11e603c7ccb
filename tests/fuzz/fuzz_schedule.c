/* libFuzzer target: arbitrary bytes -> a grid and a neighbourhood, then the
 * simulator of tests/unit for both collectives and all algorithms; any
 * failure aborts.  Build and run with scripts/fuzz.sh.
 *
 * Layout (missing bytes read as 0): d (0..4), per dimension a size (1..4)
 * and a period bit, t (0..40), then t*d coordinates: within the grid,
 * in [-7, 7] (beyond it) or huge, see coordinate(). */
#include "sched/schedule.h"
#include "sched/schedule_trie.h"
#include "simulate.h"

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct reader {
    const uint8_t *p;
    size_t n, at;
} reader;

static unsigned byte(reader *r) { return r->at < r->n ? r->p[r->at++] : 0; }

/* Half of the byte values give a coordinate that reaches a process on a
 * dimension of size p (|c| < p: the long hops that exercise the TORUS
 * transits), most others [-7, 7], a few huge ones. */
static int coordinate(reader *r, int p)
{
    static const int huge[] = { INT_MIN, INT_MAX, -1000000007, 1000000007, 64, -64, 17, -17 };
    unsigned b = byte(r);
    if (b >= 248) return huge[b - 248];
    if (b < 128) return (int)(b % (2u * (unsigned)p - 1)) - (p - 1);
    return (int)(b % 15) - 7;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    reader r = { data, size, 0 };
    int d = (int)(byte(&r) % 5), dims[4], periods[4], offs[40 * 4];
    for (int k = 0; k < d; k++) {
        unsigned b = byte(&r);
        dims[k] = 1 + (int)(b % 4);
        periods[k] = (int)(b >> 7 & 1);
    }
    int t = (int)(byte(&r) % 41);
    for (int i = 0; i < t * d; i++) offs[i] = coordinate(&r, dims[i % d]);
    /* The allgather trees also with the heuristic dimension order. */
    for (int coll = CC_ALLGATHER; coll <= CC_ALLTOALL; coll++)
        for (int alg = CC_DIRECT; alg <= CC_TORUS; alg++)
            for (int heur = 0; heur <= (coll == CC_ALLGATHER && alg != CC_DIRECT); heur++) {
                sim_case c = { d, dims, periods, t, offs, coll, alg, 0 };
                sim_result res;
                char err[512];
                long long keep = cc_order_exact_limit;
                if (heur) cc_order_exact_limit = -1;
                int rc = sim_run(&c, &res, err, sizeof err);
                cc_order_exact_limit = keep;
                if (rc) {
                    fprintf(stderr, "fuzz_schedule%s: %s\n", heur ? " (heuristic order)" : "", err);
                    sim_print_case(&c);
                    fflush(stdout);
                    abort();
                }
            }
    return 0;
}
