/* cartbench's process-wide state and helpers (cb_state.h): set or called by
 * every other file, they call none of them. */
#define _POSIX_C_SOURCE 200809L
#include "cb_state.h"

#include <stdio.h>
#include <stdlib.h>

int world_rank, world_size;

void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "cartbench: out of memory (%zu bytes)\n", n);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    return p;
}

void report_error(const char *what, int rc)
{
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, msg, &len);
    fprintf(stderr, "cartbench: rank %d: %s: %s\n", world_rank, what, msg);
}

void fill_ints(int *p, size_t n, int x)
{
    for (size_t i = 0; i < n; i++) p[i] = x;
}
