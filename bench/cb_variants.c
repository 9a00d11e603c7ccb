/* cartbench: the collectives, algorithms, executors and forms, and the
 * variants made from them (names as --variants and --list-variants use). */
#define _POSIX_C_SOURCE 200809L
#include "cb_variants.h"

#include <cartcoll.h>

#include <stdio.h>

#include <string.h>

const char *const op_name[NOPS_ALL] = { "allgather", "allgatherv", "allgatherw", "alltoall",
                                        "alltoallv", "alltoallw",  "allreduce",  "bcast",
                                        "gather",    "scatter",    "reduce",     "allreduce" };
const char *const op_mpi[NOPS_ALL] = { "MPI_Neighbor_allgather", "MPI_Neighbor_allgatherv",
                                       "MPI_Neighbor_alltoallw", "MPI_Neighbor_alltoall",
                                       "MPI_Neighbor_alltoallv", "MPI_Neighbor_alltoallw",
                                       "MPI_Neighbor_allgather + local sum",
                                       "one MPI_Isend per neighbour", "one MPI_Irecv per edge",
                                       "one MPI_Isend per neighbour", "one MPI_Irecv per edge + local sum",
                                       "MPI_Allreduce" };
const char *const comm_name[NCOMM] = { "nbh", "mpicart", "graph", "plain" };
const char *const alg_name[NALG] = { "auto", "direct", "combining", "torus" };
const int alg_const[NALG] = { CART_ALGORITHM_AUTO, CART_ALGORITHM_DIRECT, CART_ALGORITHM_COMBINING,
                              CART_ALGORITHM_TORUS };
const char *const ex_name[NEX] = { "auto", "datatype", "pack" };
const char *const form_name[NFORMS] = { "blocking", "nonblocking", "persistent" };
const char *const form_tag[NFORMS] = { "", "-i", "-p" };
const char *const kind_name[NVK] = { "cart", "mpi", "p2p", "floor" };

variant allvar[MAXVAR];
int nallvar;

void make_variants(void)
{
    for (int f = 0; f < NFORMS; f++) {
        if (f == F_PERSISTENT && !HAVE_MPI_PERSISTENT_NEIGHBOR) continue;
        variant *v = &allvar[nallvar++];
        *v = (variant){ 1, f, 0, 0, VK_MPI, "" };
        snprintf(v->name, sizeof v->name, "mpi%s", form_tag[f]);
    }
    /* p2p: blocking and persistent (a non-blocking form would post the same
     * messages as the blocking one); floor: persistent only */
    allvar[nallvar++] = (variant){ 1, F_BLOCKING, 0, 0, VK_P2P, "p2p" };
    allvar[nallvar++] = (variant){ 1, F_PERSISTENT, 0, 0, VK_P2P, "p2p-p" };
    allvar[nallvar++] = (variant){ 1, F_PERSISTENT, 0, 0, VK_FLOOR, "floor" };
    for (int f = 0; f < NFORMS; f++)
        for (int a = 0; a < NALG; a++)
            for (int e = 0; e < NEX; e++) {
                variant *v = &allvar[nallvar++];
                *v = (variant){ 0, f, a, e, VK_CART, "" };
                snprintf(v->name, sizeof v->name, "cart%s%s%s%s%s", form_tag[f], a ? "-" : "", a ? alg_name[a] : "",
                         e ? "-" : "", e ? ex_name[e] : "");
            }
}

int variant_allowed(const variant *v, int comm)
{
    if (v->kind == VK_P2P || v->kind == VK_FLOOR) return comm != COMM_PLAIN; /* neighbourhoods only */
    if (v->mpi || comm == COMM_NBH) return 1;
    if (comm != COMM_PLAIN && v->form == F_PERSISTENT) return 1;
    return v->alg == ALG_AUTO && v->ex == EX_AUTO;
}

/* The parts of a name after "mpi"/"p2p"/"floor"/"cart" come in this order,
 * each optional: form (b, i, p), algorithm, executor (cart only). */
enum { STAGE_FORM, STAGE_ALG, STAGE_EX, STAGE_DONE };

/* Take one part tok at or after *stage; 0 if it is none of the parts left. */
static int take_part(const char *tok, int *stage, int *form, int *alg, int *ex)
{
    if (*stage == STAGE_FORM && (!strcmp(tok, "b") || !strcmp(tok, "i") || !strcmp(tok, "p"))) {
        *form = tok[0] == 'b' ? F_BLOCKING : tok[0] == 'i' ? F_NONBLOCKING : F_PERSISTENT;
        *stage = STAGE_ALG;
        return 1;
    }
    for (int a = 0; *stage <= STAGE_ALG && a < NALG; a++)
        if (!strcmp(tok, alg_name[a])) {
            *alg = a;
            *stage = STAGE_EX;
            return 1;
        }
    for (int e = 0; e < NEX; e++)
        if (!strcmp(tok, ex_name[e])) {
            *ex = e;
            *stage = STAGE_DONE;
            return 1;
        }
    return 0;
}

int canonical_variant(const char *s)
{
    char buf[64], *save = NULL;
    snprintf(buf, sizeof buf, "%s", s);
    char *tok = strtok_r(buf, "-", &save);
    if (!tok) return -1;
    int kind = 0;
    while (kind < NVK && strcmp(tok, kind_name[kind])) kind++;
    if (kind == NVK) return -1;
    int form = kind == VK_FLOOR ? F_PERSISTENT : F_BLOCKING, alg = ALG_AUTO, ex = EX_AUTO, stage = STAGE_FORM;
    while ((tok = strtok_r(NULL, "-", &save))) {
        int ok = take_part(tok, &stage, &form, &alg, &ex);
        if (!ok || (kind != VK_CART && stage != STAGE_ALG)) return -1; /* the others take a form only */
    }
    for (int i = 0; i < nallvar; i++)
        if (allvar[i].kind == kind && allvar[i].form == form && allvar[i].alg == alg && allvar[i].ex == ex) return i;
    return -1;
}
