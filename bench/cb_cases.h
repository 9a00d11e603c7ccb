/* cartbench: a neighbourhood's communicators and the baseline's graph, a
 * case's set-up through its family (cb_ops.h), and their release
 * (cb_cases.c). */
#ifndef CB_CASES_H
#define CB_CASES_H

#include "cb_types.h"

/* Info with cartcoll_algorithm and cartcoll_executor set; the caller frees it. */
MPI_Info make_info(int alg, int ex);
/* Rank 0 parses spec (and reads a file), every process receives the
 * neighbourhood; -1 (on every process) if the spec is bad. */
int share_nbh(const char *spec, cb_nbh *nbh, MPI_Comm world);
/* Communicators for the variants in need (and always [0][0]), the checks of
 * Cart_neighbor_get and Cart_stencil, the baseline graph; -1 on an MPI error. */
int setup_nbh(nbhctx *c, const options *o, MPI_Comm world, const int need[NALG][NEX]);
/* Whether the neighbourhood suits --comm (mpicart: exactly -e_0, +e_0,
 * -e_1, ...); 0 if so, else -1 with a message (rank 0). */
int comm_fits(const cb_nbh *n, int comm);
/* Free what setup_nbh made and the neighbourhood itself. */
void free_nbh(nbhctx *c);
/* Lay out the case; 1 if it is too large (skip), 0 otherwise. */
int setup_case(kase *k, const nbhctx *c, const options *o, int op, int m);
/* Free what setup_case made. */
void free_case(kase *k);

#endif
