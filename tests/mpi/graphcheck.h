/* Shared by test_graph.c and test_detect.c: a first-principles oracle of the
 * MPI neighbourhood meaning of a graph communicator, and the six [core]
 * Cart_ collectives run on it in three forms.
 *
 * view_build gathers every process's neighbour lists as the communicator
 * reports them (MPI_Dist_graph_neighbors / MPI_Graph_neighbors).  Receive
 * block j at v (from u = S[j], its k-th occurrence) must hold u's send block
 * at the index of u's k-th edge to v (send_index; --break-oracle takes the
 * last one instead).  call_build lays out blocks (regular, v, w variants;
 * MPI_INT and strided vectors), call_fill writes contents and sentinels,
 * call_check compares the buffers int by int and reports the first mismatch
 * of a case in full (failure).  run_form runs one collective blocking,
 * non-blocking (Cart_wait or a Cart_test loop) or persistent. */
#ifndef CC_GRAPHCHECK_H
#define CC_GRAPHCHECK_H

#include "mpitest.h"

#include <stddef.h>
#include <stdint.h>

/* ---- settings, set by the program ----------------------------------------- */

extern uint64_t opt_seed;          /* --seed (named in the replay line) */
extern int opt_verbose, opt_break; /* --verbose, --break-oracle */
extern int counts_set[3];          /* elements of the unit: 0, 1, 4 unless changed */
extern const char *replay_prog;    /* the replay line: program name ... */
extern const char *replay_note;    /* ... and what follows "--cases 1" */

/* ---- datatypes: element layouts in ints ----------------------------------- */

enum { TY_INT, TY_VEC2, TY_VEC4, NTY };
extern MPI_Datatype ty[NTY];
extern const int ty_size[NTY]; /* ints per element */
extern const int ty_ext[NTY];  /* extent in ints (= true extent) */
extern const int ty_pos[NTY][4];
extern const char *const ty_name[NTY];

int elem_pos(int t, int e);
int footprint(int t, int count);
void make_types(void);

/* ---- contents, hashing, lists ---------------------------------------------- */

int content(int u, int i, int round, int e);
#define SEND_GAP(pos) (-1000000 - (pos))
#define RECV_GAP(pos) (-3000000 - (pos))
const char *describe(int v, char *buf, size_t n);
uint64_t hsh(uint64_t salt, int a, int b, int c);
int edge_ints(uint64_t salt, int unit, int u, int v, int k);
int proc_ints(uint64_t salt, int unit, int u);
int occurrences(const int *list, int upto, int x);
void shuffle(mt_rng *r, int *a, int n);

/* ---- what the new communicator says: every process's neighbour lists ------- */

typedef struct {
    int p, me, topo, weighted;
    int *nin, *nout, *old; /* per rank; old: rank in comm_old */
    int **S, **D;          /* per rank, in the new communicator's ranks */
    int *mem;
} view_t;

void view_build(MPI_Comm g, MPI_Comm old, view_t *w);
void view_free(view_t *w);
int send_index(const view_t *w, int u, int v, int k);

/* ---- reporting: the first mismatch of a case in full, per rank -------------- */

extern int cur_case;
extern char case_desc[256];
extern const view_t *cur_view;

void fmt_list(char *buf, size_t n, const int *a, int len); /* "1,2,3" */
void failure(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int check_rc(int rc, const char *what);

/* ---- one call: blocks, buffers, arguments ----------------------------------- */

enum { C_ALLGATHER, C_ALLGATHERV, C_ALLGATHERW, C_ALLTOALL, C_ALLTOALLV, C_ALLTOALLW, NCOLL };
extern const char *const coll_name[NCOLL];
enum { F_BLOCKING, F_NONBLOCKING, F_PERSISTENT, F_CONCURRENT, NFORMS };
extern const char *const form_name[NFORMS];

typedef struct {
    int type, count, off, n; /* off, n in ints */
} blk;

typedef struct {
    int coll, nsb, nrb, slen, rlen, null_s, null_r, stype, rtype;
    blk *sb, *rb;
    int *sbuf, *rbuf, *sref, *rexp, *rown;
    int *eu, *ek, *ei; /* receive block j: sender, occurrence, sender's block (-2: from MPI_PROC_NULL, untouched) */
    int *scounts, *sdispls, *rcounts, *rdispls;
    MPI_Aint *sdispw, *rdispw;
    MPI_Datatype *stypes, *rtypes;
    mt_call mc;
} gcall;

void call_free(gcall *c);
void call_build(gcall *c, int coll, const view_t *w, uint64_t gsalt);
void call_fill(gcall *c, int me, int round);
int call_check(const gcall *c, int form, int round);

/* Private copies of a call's argument arrays and derived datatypes, for
 * the non-blocking and *_init calls: overwritten and freed right after the
 * call returns, as cartcoll.h allows. */
typedef struct {
    mt_call mc;
    int *ints;
    MPI_Aint *aints;
    MPI_Datatype *types, dup[NTY];
    int n;
} scratch;

void scratch_make(scratch *s, const gcall *c);
void scratch_scribble(scratch *s);
void scratch_free(scratch *s);
int complete(Cart_request *rq, int test_loop, const char *what);

/* ---- the forms ---------------------------------------------------------------- */

extern int callno; /* equal on every process of the graph: round numbers */
extern const char *const info_alg[5];
extern const char *const info_exec[4];

void run_form(MPI_Comm g, const view_t *w, int coll, int form, uint64_t gsalt);

#endif
