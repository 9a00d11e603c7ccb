#include "geom/geometry.h"

#include <limits.h>
#include <stdlib.h>

/* The dimension at place i, slowest first: one loop serves both layouts. */
static int dim_at(const cc_grid *g, int i) { return g->colmajor ? g->d - 1 - i : i; }

int cc_grid_rank(const cc_grid *g, const int coords[])
{
    int r = 0;
    for (int i = 0; i < g->d; i++) {
        int k = dim_at(g, i);
        r = r * g->dims[k] + coords[k];
    }
    return r;
}

void cc_grid_coords(const cc_grid *g, int rank, int coords[])
{
    for (int i = g->d - 1; i >= 0; i--) {
        int k = dim_at(g, i);
        coords[k] = rank % g->dims[k];
        rank /= g->dims[k];
    }
}

/* c + sign*o in [0, p) for periodic dims, or -1 if off a mesh.  long long
 * keeps INT_MIN offsets and their negation exact. */
static int moved_coord(long long c, long long o, int sign, int p, int periodic)
{
    long long x = c + (sign > 0 ? o : -o);
    if (periodic) {
        x %= p;
        if (x < 0) x += p;
        return (int)x;
    }
    return (x < 0 || x >= p) ? -1 : (int)x;
}

int cc_grid_shift(const cc_grid *g, const int coords[], const int off[], int sign)
{
    int r = 0;
    for (int i = 0; i < g->d; i++) {
        int k = dim_at(g, i);
        int x = moved_coord(coords[k], off ? off[k] : 0, sign, g->dims[k], g->periods[k]);
        if (x < 0) return CC_NONE;
        r = r * g->dims[k] + x;
    }
    return r;
}

int cc_grid_inside(const cc_grid *g, const int coords[], const int off[], int sign)
{
    for (int k = 0; k < g->d; k++)
        if (!g->periods[k] && moved_coord(coords[k], off[k], sign, g->dims[k], 0) < 0) return 0;
    return 1;
}

static int shortest(long long c, int p)
{
    /* Already shortest (most stencil offsets): no division. */
    if (2 * c <= p && 2 * c > -(long long)p) return (int)c;
    /* 32-bit division where it suffices: set-up reduces t*d offsets. */
    c = c >= INT_MIN && c <= INT_MAX ? (long long)((int)c % p) : c % p;
    if (c < 0) c += p;
    if (2 * c > p) c -= p;
    return (int)c;
}

void cc_grid_relative(const cc_grid *g, const int from[], const int to[], int rel[])
{
    for (int k = 0; k < g->d; k++) {
        long long c = (long long)to[k] - from[k];
        rel[k] = g->periods[k] ? shortest(c, g->dims[k]) : (int)c;
    }
}

int cc_grid_reduce(const cc_grid *g, const int off[], int out[])
{
    int dead = 0;
    for (int k = 0; k < g->d; k++) {
        if (g->periods[k]) {
            out[k] = shortest(off[k], g->dims[k]);
        } else {
            out[k] = off[k];
            long long a = off[k] < 0 ? -(long long)off[k] : off[k];
            if (a >= g->dims[k]) dead = 1;
        }
    }
    return dead;
}

/* Values -CC_RTAB..CC_RTAB are reduced through the table. */
#define CC_RTAB 64

void cc_grid_reduce_all(const cc_grid *g, int t, const int off[], int out[], unsigned char dead[])
{
    int d = g->d;
    int *tab = malloc(sizeof(int) * (2 * CC_RTAB + 1) * ((size_t)d + 1));
    if (!tab) {
        for (int i = 0; i < t; i++)
            dead[i] = (unsigned char)cc_grid_reduce(g, off + (size_t)i * d, out + (size_t)i * d);
        return;
    }
    for (int k = 0; k < d; k++)
        for (int x = -CC_RTAB; x <= CC_RTAB; x++)
            tab[(size_t)k * (2 * CC_RTAB + 1) + (size_t)(x + CC_RTAB)] = g->periods[k] ? shortest(x, g->dims[k]) : x;
    for (int i = 0; i < t; i++) {
        const int *v = off + (size_t)i * d;
        int *o = out + (size_t)i * d, gone = 0;
        for (int k = 0; k < d; k++) {
            unsigned x = (unsigned)v[k] + CC_RTAB;
            if (x <= 2 * CC_RTAB && g->periods[k]) {
                o[k] = tab[(size_t)k * (2 * CC_RTAB + 1) + x];
            } else if (g->periods[k]) {
                o[k] = shortest(v[k], g->dims[k]);
            } else {
                o[k] = v[k];
                long long a = v[k] < 0 ? -(long long)v[k] : v[k];
                gone |= a >= g->dims[k];
            }
        }
        dead[i] = (unsigned char)gone;
    }
    free(tab);
}
