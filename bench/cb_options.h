/* cartbench: the options of a run and the command line (cb_options.c). */
#ifndef CB_OPTIONS_H
#define CB_OPTIONS_H

#include "cb_variants.h"

#include <stddef.h>

typedef struct {
    char **specs; /* neighbourhood specifications, in command-line order */
    int nspecs;
    int *ms, nm;  /* block sizes */
    int ops[NOPS], nops;
    int vsel[MAXVAR], nvar; /* indices into allvar, baseline first */
    int baseline;     /* --baseline: index into allvar (mpi, p2p or floor) */
    int need_graph;   /* an mpi variant runs: make MPI's distributed graph */
    int reps, warmup, mesh, irregular, progress, calibrate, tolerate_mpi, summary;
    int tune_warmup;  /* --tune-warmup: warm-up calls of the self-tuning variants */
    int inject_fault; /* --inject-fault: corrupt one received int of the cartcoll variants */
    int comm;         /* COMM_*: the first --comm, COMM_PLAIN with --global-allreduce */
    int comms[NCOMM], ncomm; /* every --comm communicator, in the order given (comms[0] = comm) */
    run_sel run[MAXRUN];     /* the case's timed entries: variant-major, then comms */
    int nrun;
    int global;       /* --global-allreduce */
    int setup;        /* --setup: time create + *_init instead of operations */
    double max_mib, conf;
    const char *csv, *plot, *markdown;
} options;

/* --irregular applies to alltoallv/w: block i has m^(d-z) ints, z = the
 * non-zero coordinates of vector i (0 ints for the zero vector). */
static inline int irregular_blocks(const options *o, int op)
{
    return o->irregular && (op == OP_ALLTOALLV || op == OP_ALLTOALLW);
}

/* 0: run, 1: exit 0 (--help, --list-variants), 2: usage error (reported on
 * rank 0). */
int parse_options(int argc, char **argv, options *o);
/* Warm-up rounds of a case: the larger of --warmup and --tune-warmup. */
int warmup_rounds(const options *o);
/* Whether --comm lists kind. */
int has_comm(const options *o, int kind);
/* Run ri's name for output: the variant's, with "@COMM" for a cartcoll
 * variant when --comm lists several communicators. */
const char *run_label(const options *o, int ri, char *buf, size_t len);

#endif
