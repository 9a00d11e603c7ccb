/* cartbench's process-wide state and helpers, below every other file:
 * the rank and size in MPI_COMM_WORLD, allocation, error reports. */
#ifndef CB_STATE_H
#define CB_STATE_H

#include <mpi.h>

#include <stddef.h>

/* Rank and size in MPI_COMM_WORLD, set once at start; rank 0 alone prints
 * rows and usage errors. */
extern int world_rank, world_size;

/* malloc that aborts the job when memory runs out (never returns NULL). */
void *xmalloc(size_t n);
/* "cartbench: rank R: WHAT: MPI's message for rc" on stderr. */
void report_error(const char *what, int rc);
/* Fill with x. */
void fill_ints(int *p, size_t n, int x);

#endif
