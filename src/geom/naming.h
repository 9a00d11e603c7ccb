/* Cartesian naming (seed 000, Listings 3-6): where each rank of a
 * communicator sits in a grid.  A naming is a grid (either layout, see
 * geometry.h) plus the number of processes of the communicator; the two
 * need not match: positions at or beyond nprocs have no process, ranks at
 * or beyond the grid's size have no position.  Pure C, no MPI. */
#ifndef CC_NAMING_H
#define CC_NAMING_H

#include "geom/geometry.h"

typedef struct cc_naming {
    cc_grid grid;
    int nprocs; /* processes of the communicator */
} cc_naming;

/* Whether `rank` has a position: 0 <= rank < min(grid size, nprocs). */
int cc_naming_placed(const cc_naming *n, int rank);

/* Rank at coords + sign*off (off NULL: at coords), for any int coordinates
 * and offsets: periodic dimensions wrap; CC_NONE off a non-periodic
 * dimension or at a position without a process. */
int cc_naming_shift(const cc_naming *n, const int coords[], const int off[], int sign);

/* The stencil offsets (stencil_core.h: metric, shadow, depth, in that
 * order) that do not lead from `coords` off a non-periodic dimension.
 * Writes them to out (count*d ints) unless out is NULL; returns the count,
 * or -1 out of memory.  Counting alone is a closed form where no
 * non-periodic dimension cuts the stencil, else a walk of O(d) per vector
 * kept. */
long long cc_naming_neighbors(const cc_naming *n, const int coords[], int metric, int shadow, int depth,
                              int *out);

/* Cart_create_sub (as MPI_Cart_sub): the process at `coords` goes to the
 * part numbered by its position in the removed dimensions (*color), ranked
 * there by its position in the kept ones (*key), both in the naming's
 * layout, so relative order is kept.  Returns 0, or -1 out of memory. */
int cc_naming_split(const cc_naming *n, const int coords[], const int remain[], int *color, int *key);

#endif
