/* Geometry: coordinates, ranks and offsets on a d-dimensional torus/mesh.
 * Pure C, no MPI.  Ranks are row-major (last dimension fastest, as in
 * MPI_Cart_create) unless the grid is column-major (first dimension
 * fastest, a Cart_name option); "no process" is CC_NONE. */
#ifndef CC_GEOMETRY_H
#define CC_GEOMETRY_H

#define CC_NONE (-1)

typedef struct cc_grid {
    int d;
    int size;            /* prod(dims) */
    const int *dims;     /* d sizes, each >= 1 */
    const int *periods;  /* d flags */
    int colmajor;        /* 0: row-major, so zero-initialised grids are MPI's layout */
} cc_grid;

/* Rank of in-range coordinates (in the grid's layout). */
int cc_grid_rank(const cc_grid *g, const int coords[]);

/* Coordinates of rank 0 <= rank < size. */
void cc_grid_coords(const cc_grid *g, int rank, int coords[]);

/* Rank of coords + sign*off (sign is +1 or -1), wrapping periodic
 * dimensions; CC_NONE when a non-periodic coordinate leaves the mesh.
 * Exact for any int coordinates and offsets; off NULL is the zero offset
 * (the rank of any coordinates, wrapped). */
int cc_grid_shift(const cc_grid *g, const int coords[], const int off[], int sign);

/* Whether coords + sign*off lies on the grid (always on periodic dims). */
int cc_grid_inside(const cc_grid *g, const int coords[], const int off[], int sign);

/* Offset from coordinates `from` to `to`: to - from, on periodic dimensions
 * the shortest representative (a tie, p even, gives +p/2). */
void cc_grid_relative(const cc_grid *g, const int from[], const int to[], int rel[]);

/* Reduce an offset vector for this grid: periodic coordinates to the
 * shortest representative in (-p/2, p/2] (so 0 for p = 1).  Returns 1 when
 * the vector can never reach a process (|c| >= p on a non-periodic
 * dimension), 0 otherwise. */
int cc_grid_reduce(const cc_grid *g, const int off[], int out[]);

/* cc_grid_reduce of t vectors off[i*d..], into out[i*d..] and dead[i]:
 * through a table of the small values of each periodic dimension, without
 * a division per coordinate (set-up reduces t*d of them). */
void cc_grid_reduce_all(const cc_grid *g, int t, const int off[], int out[], unsigned char dead[]);

#endif
