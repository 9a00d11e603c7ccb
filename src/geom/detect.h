/* Detecting that a graph is a stencil (seed 000 sec. 3.2, extended to
 * meshes): the relative offsets of a process's neighbours on a grid, in a
 * canonical order, and the match of a process's lists against a stencil
 * restricted to the grid.  Pure C, no MPI.
 *
 * A graph is Cartesian on a grid with stencil S (a multiset of offsets,
 * sorted lexicographically) when every process R lists as destinations
 * exactly the N of S with R+N on the grid (with multiplicity) and as
 * sources exactly the R-N on the grid, in any order; "no process" entries
 * (MPI_PROC_NULL) may stand anywhere in either list.  Those get the offsets
 * that leave the grid there, in order, and any left over get none: either
 * way their blocks are never sent or written, which is MPI's meaning of
 * MPI_PROC_NULL.  On a torus every offset stays on the grid, so every
 * process lists all of S.  Offsets are the shortest representatives on periodic
 * dimensions and plain differences on the others, so the offset from one
 * process to another is unique: the k-th edge u->v and the k-th copy of its
 * offset correspond on both sides (MPI's rule for repeated edges).
 *
 * S is agreed from a multiplicity histogram over the box of the offsets
 * (the maximum over the processes: a process where N stays on the grid
 * lists all its copies). */
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

/* One side of a process's list (destinations: sign +1, sources: -1), where
 * ranks[i] may be CC_NONE (no process): offs[i*d..] = its offset as above
 * (zeros for CC_NONE); order[0..nv) = the indices of the nv entries with a
 * process, sorted by offset (stable), order[nv..n) = those of the CC_NONE
 * entries in list order.  tmp: n ints of scratch.  Returns nv, or -1 when
 * a rank is neither CC_NONE nor a position of the grid. */
int cc_detect_side(const cc_grid *g, const int me[], int n, const int ranks[], int sign, int *offs, int *order,
                   int *tmp);

/* sorted[j*d..] = offs[order[j]*d..] for j < nv: the side's offsets in
 * sorted order, contiguous. */
void cc_detect_gather(int d, const int *offs, const int *order, int nv, int *sorted);

/* Match one side (from cc_detect_side: n entries, nv with a process)
 * against stencil S (t offsets, sorted): perm[i] = the caller's index for
 * S[i]: the next entry with that offset where the process at me + sign*S[i]
 * exists, else the next CC_NONE entry in list order, else -1 (no block).
 * Returns 0 when the entries with a process are exactly S restricted to
 * the grid (CC_NONE entries left over stay unused), -1 otherwise (perm
 * then undefined). */
int cc_detect_match(const cc_grid *g, const int me[], int t, const int *S, int sign, int n, const int *offs,
                    const int *order, int nv, int *perm);

/* ---- the box [lo, hi] of offsets and its histogram ---------------------- */

/* lo[k], hi[k] = the smallest and largest coordinate k of the nv offsets
 * offs[order[j]*d..] (lo = 0, hi = -1 when nv = 0). */
void cc_detect_bounds(int d, const int *offs, const int *order, int nv, int lo[], int hi[]);

/* Number of cells of the box (prod of hi-lo+1; 0 when some hi < lo), or
 * -1 when it exceeds limit. */
long long cc_box_cells(int d, const int lo[], const int hi[], long long limit);

/* Index of offset off in the box (the last coordinate fastest, so cell
 * order is lexicographic order), or -1 outside it. */
long long cc_box_index(int d, const int lo[], const int hi[], const int off[]);

/* hist[cell] += 1 for each of the nv offsets offs[order[j]*d..].  Returns
 * 0, or -1 when one lies outside the box. */
int cc_detect_count(int d, const int lo[], const int hi[], const int *offs, const int *order, int nv, int *hist);

/* The stencil of a histogram: each cell's offset hist[cell] times, in cell
 * (= lexicographic) order, into out (NULL: count only).  Returns the number
 * of offsets, or -1 when a count is negative or the total exceeds limit. */
long long cc_detect_stencil(int d, const int lo[], const int hi[], long long cells, const int *hist,
                            long long limit, int *out);

/* An FNV-1a-like hash of n ints, a word at a time, kept to 62 bits (its
 * negation fits too). */
long long cc_hash_ints(const int *v, long long n, unsigned long long h);

#endif
