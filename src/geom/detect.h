/* Detecting that a graph is a stencil (seed 000 sec. 3.2): the relative
 * offsets of a process's neighbours on a grid, in a canonical order.  Pure
 * C, no MPI.  A graph is Cartesian when every process has the same sorted
 * list of destination offsets and its sources mirror them; the sorted list
 * is then the neighbourhood, and the sorting permutations map it onto each
 * process's own order of destinations and sources. */
#ifndef CC_DETECT_H
#define CC_DETECT_H

#include "geom/geometry.h"

/* out[i*d..] = offset from the process at `me` to ranks[i] (sign +1:
 * destinations) or from ranks[i] to `me` (sign -1: sources), the shortest
 * representative on periodic dimensions.  Returns 0, or -1 when a rank has
 * no position on the grid (CC_NONE, negative, beyond it). */
int cc_detect_offsets(const cc_grid *g, const int me[], int n, const int ranks[], int sign, int *out);

/* order[0..n) = indices that sort the n offset vectors lexicographically,
 * equal vectors by index (stable).  tmp: n ints of scratch. */
void cc_detect_order(int d, int n, const int *offs, int *order, int *tmp);

/* FNV-1a of n ints, kept to 62 bits (its negation fits too). */
long long cc_hash_ints(const int *v, long long n, unsigned long long h);

#endif
