/* Communicators built the way unmodified MPI programs build them, an
 * oracle made of point-to-point messages, and the report the drop-in must
 * print for them: shared by the drop-in's C test programs (plain MPI: they
 * include only mpi.h and this file). */
#ifndef PRELOAD_GRAPHS_H
#define PRELOAD_GRAPHS_H

#include <mpi.h>

enum { MAXN = 64, MAXG = 12 };

typedef struct {
    MPI_Comm comm;     /* the neighbourhood communicator */
    MPI_Comm base;     /* where its ranks live (reorder 0): the oracle runs here */
    int in, out, src[MAXN], dst[MAXN];
    int cart;          /* MPI_Cart_create: blocks matched by direction */
    int stencil;       /* the drop-in must run Cartesian schedules on it */
    int made;          /* made by an intercepted constructor: counted as seen */
    const char *name;
} graph;

extern int me, np, failures;

/* The communicators (collective over MPI_COMM_WORLD); returns how many. */
int make_graphs(graph *g);
void free_graphs(graph *g, int n);

/* Block i of this process to dst[i], block j from src[j] (MPI_INT), by
 * point-to-point messages: the standard's definition (the k-th edge u->v
 * meets the k-th occurrence of u among v's sources; on Cartesian
 * communicators by direction). */
void oracle(const graph *g, int *const *sblk, const int *scnt, int **rblk, const int *rcnt);

/* A mismatch is printed and counted. */
void check(const char *what, const graph *g, const int *got, const int *want, int n);

/* Counts one neighbourhood call (a non-blocking one, or one start of a
 * persistent one) on g for the expected report. */
void count_call(const graph *g);

/* The five collectives' arguments and expected results for one graph:
 * regular blocks of M ints, v/w blocks whose sizes differ from edge to
 * edge and from process to process (ragged), allgatherv with a send count
 * that differs from process to process.  `salt` changes the values. */
enum { M = 3, NCOLL = 5 };
enum { C_ALLTOALL, C_ALLGATHER, C_ALLTOALLV, C_ALLTOALLW, C_ALLGATHERV };
extern const char *const coll_name[NCOLL];
typedef struct {
    int sdata[NCOLL][MAXN * M], rdata[NCOLL][MAXN * M], want[NCOLL][MAXN * M];
    int scnt[MAXN], sdis[MAXN], rcnt[MAXN], rdis[MAXN], gcnt[MAXN], gdis[MAXN], vtotal, agcount;
    MPI_Aint sdw[MAXN], rdw[MAXN];
    MPI_Datatype ty[MAXN];
} blocks;
void make_blocks(const graph *g, blocks *b, int salt);
/* Receive buffers to 0xff.. and compare them with the oracle. */
void clear_blocks(blocks *b);
void check_blocks(const char *how, const graph *g, const blocks *b);

/* Rank 0 prints the report line the drop-in must print (on; run.sh derives
 * passthrough), summed over MPI_COMM_WORLD. */
void print_expected(const char *prog);

#endif
