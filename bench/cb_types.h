/* cartbench: the types its calls, cases and op families share -- a
 * neighbourhood with its communicators (nbhctx), a case's buffers (kase), a
 * variant while its case runs (vstate) -- and the op table (cb_family) that
 * each family of collectives fills (cb_regular.c, cb_nreduce.c,
 * cb_global.c, cb_rooted.c; cb_ops.c picks one per collective).  Types
 * only: the files that use them sit above the families, which call nothing
 * above themselves. */
#ifndef CB_TYPES_H
#define CB_TYPES_H

#include <cartcoll.h>

#include "cb_options.h"
#include "cb_util.h"

#include <stddef.h>

/* A neighbourhood with its communicators and the MPI baseline's graph. */
typedef struct {
    cb_nbh nbh;
    int d, t, dims[32], periods[32];
    MPI_Comm comm[NALG][NEX]; /* Cart communicators with those defaults */
    MPI_Comm graph;           /* MPI_Dist_graph_create_adjacent equivalent (only
                               * when an mpi variant runs; else MPI_COMM_NULL) */
    MPI_Comm plain;           /* duplicate of world: p2p, floor, rooted baseline */
    int kind;                 /* COMM_*: the first --comm (COMM_PLAIN: --global-allreduce) */
    MPI_Comm alt[NCOMM];      /* the cartcoll variants' communicator on each --comm
                               * kind but COMM_NBH (comm[][] there); else MPI_COMM_NULL */
    int indeg, outdeg;
    int *src_idx, *dst_idx;   /* neighbour index of each graph in/out edge */
    int *exp_src, *exp_dst;   /* ranks of R - N[i], R + N[i] from MPI_Cart_coords/rank */
    int *p2p_src, *p2p_dst;   /* the same in plain, from row-major grid arithmetic */
    int nbh_ok;               /* Cart_neighbor_get and Cart_stencil agreed */
    int mpi_unsafe;           /* the MPI's neighbourhood collectives hang on this graph */
} nbhctx;

/* Receive buffers are filled with SENTINEL before each checked call (an int
 * still SENTINEL was never written); v/w layouts leave a GAP int after each
 * block, which must stay untouched. */
#define SENTINEL (-1)
#define GAP (-2)

/* One case: a neighbourhood, a collective and a block size, with the
 * buffers of cartcoll and of the MPI baseline. */
typedef struct {
    int op, m, t;
    int *cnt;                 /* ints of block i (send and receive) */
    int *sd, *rd;             /* cartcoll layout: block offsets in ints */
    size_t slen, rlen;        /* buffer lengths in ints */
    int *sbuf, *rbuf;         /* cartcoll buffers */
    MPI_Aint *sdb, *rdb;      /* byte displacements (w) */
    MPI_Datatype *types;      /* MPI_INT per block (w) */
    /* MPI baseline on the graph: its own buffers and compacted arrays */
    int *msbuf, *mrbuf;
    size_t mslen, mrlen;
    int *mscnt, *mrcnt, *msd, *mrd, *mpos;
    MPI_Aint *msdb, *mrdb;
    MPI_Datatype *mtypes;
    int *expect, *ref;        /* from the grid; the baseline's result */
    int *cref;                /* what cartcoll must deliver on COMM_MPICART: ref
                               * with blocks i, i^1 swapped (else ref itself) */
    double *dsbuf, *drbuf, *dmrbuf, *dexpect; /* allreduce: send, cartcoll and
                                               * MPI receive, the expected sum */
    double *dmgbuf;           /* OP_NALLREDUCE: the baseline's gathered blocks */
    long long bytes;          /* payload bytes received per process */
} kase;


/* A variant's point-to-point messages on c->plain (opaque, cb_p2p.c). */
typedef struct p2p_plan p2p_plan;

/* How cartbench's own point-to-point variants (p2p, p2p-p, floor) run: the
 * table cb_p2p.c fills (cb_p2p_runner).  A run carries it (vstate), so the
 * checks reach a variant's messages without knowing cb_p2p.c. */
typedef struct {
    /* Whether variant v (p2p, floor) can run collective op. */
    int (*supports)(const variant *v, int op);
    /* The messages of variant v for case k; persistent ones initialised.
     * NULL (and *rc an MPI error) on failure. */
    p2p_plan *(*create)(const kase *k, const nbhctx *c, const variant *v, int *rc);
    /* One operation: p2p into k->rbuf (the cartcoll layout), floor into its
     * packed receive buffer. */
    int (*run)(p2p_plan *p, const kase *k);
    /* Before a checked call: SENTINEL into floor's packed receive buffer,
     * so that bytes that never arrived show (nothing for p2p). */
    void (*clear)(p2p_plan *p);
    /* After it, floor only: the packed receive buffer into k->rbuf's blocks
     * (untimed, for the check). */
    void (*unpack)(const p2p_plan *p, const kase *k);
    void (*release)(p2p_plan *p);
} cb_p2p_ops;

/* A variant while its case runs. */
typedef struct {
    const variant *v;
    int comm;                 /* COMM_*: where a cartcoll variant runs */
    Cart_request creq;        /* persistent cartcoll request */
    MPI_Request mreq;         /* persistent MPI request */
    p2p_plan *p2p;            /* p2p and floor: their messages */
    const cb_p2p_ops *p2p_ops; /* p2p and floor: how they run */
    int err, bad;             /* local: a call failed / a check failed */
    int skip;                 /* an MPI baseline this MPI cannot run here */
    double *times;            /* one per timed repetition */
} vstate;

/* What differs between the families of collectives (the calls themselves
 * are cb_calls.c's, one switch per form): the case's buffers and expected
 * values, the check, and the baseline where MPI has no such collective.
 * A checked call is clear, the call, then verify. */
typedef struct {
    /* Buffers and the expected values of case k (zeroed) for op, m; 1 if
     * too large (skip), else 0. */
    int (*setup)(kase *k, const nbhctx *c, const options *o, int op, int m);
    /* Before a checked call: run s's receive buffers to values no correct
     * call leaves (where a collective writes in place: its input). */
    void (*clear)(vstate *s, const kase *k, const nbhctx *c);
    /* After it: s's result against the expected values (the regular
     * family's MPI baseline also sets the reference); sets s->bad and
     * reports the first difference once.  inject_fault: see --inject-fault. */
    void (*verify)(vstate *s, kase *k, const nbhctx *c, int inject_fault);
    /* The mpi variant's call where MPI has no such collective (rooted: by
     * point-to-point, blocking); NULL: MPI's. */
    int (*baseline)(const kase *k, const nbhctx *c);
    /* After MPI's call completed (the neighbourhood allreduce's local sum);
     * NULL: nothing. */
    void (*baseline_done)(const kase *k, const nbhctx *c);
    /* Whether an error report names the communicator of a cartcoll run. */
    int names_comm;
} cb_family;

#endif
