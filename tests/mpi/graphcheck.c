/* The oracle and the collectives shared by test_graph.c and test_detect.c
 * (see graphcheck.h). */
#include "graphcheck.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint64_t opt_seed = 1;
int opt_verbose = 0, opt_break = 0;
const char *replay_prog = "test_graph";
const char *replay_note = "";

/* ---- datatypes: element layouts in ints ----------------------------------- */

MPI_Datatype ty[NTY];
const int ty_size[NTY] = { 1, 2, 4 }; /* ints per element */
const int ty_ext[NTY] = { 1, 4, 7 };  /* extent in ints (= true extent) */
const int ty_pos[NTY][4] = { { 0 }, { 0, 3 }, { 0, 2, 4, 6 } };
const char *const ty_name[NTY] = { "MPI_INT", "vector(2,1,3,int)", "vector(4,1,2,int)" };

/* Offset (ints) of int e of a block of type t, from the block's start. */
int elem_pos(int t, int e) { return (e / ty_size[t]) * ty_ext[t] + ty_pos[t][e % ty_size[t]]; }
int footprint(int t, int count) { return count ? count * ty_ext[t] : 0; }

void make_types(void)
{
    ty[TY_INT] = MPI_INT;
    MPI_Type_vector(2, 1, 3, MPI_INT, &ty[TY_VEC2]);
    MPI_Type_vector(4, 1, 2, MPI_INT, &ty[TY_VEC4]);
    MPI_Type_commit(&ty[TY_VEC2]);
    MPI_Type_commit(&ty[TY_VEC4]);
    for (int t = 0; t < NTY; t++) { /* the tables above must describe the types */
        MPI_Aint lb, ext;
        int sz;
        MPI_Type_get_extent(ty[t], &lb, &ext);
        MPI_Type_size(ty[t], &sz);
        MT_CHECK(lb == 0 && ext == (MPI_Aint)ty_ext[t] * (MPI_Aint)sizeof(int) &&
                     sz == ty_size[t] * (int)sizeof(int),
                 "type table of %s", ty_name[t]);
    }
}

/* ---- contents -------------------------------------------------------------- */

/* Element e of send block i of rank u in round r; positive, decodable. */
int content(int u, int i, int round, int e) { return 1 + e + 16 * (round + 16 * (i + 256 * u)); }

const char *describe(int v, char *buf, size_t n)
{
    if (v > 0) {
        int x = v - 1;
        snprintf(buf, n, "%d (= rank %d's send block %d, round %d, int %d)", v, x / 65536, (x / 256) % 256,
                 (x / 16) % 16, x % 16);
    } else if (v <= -3000000 && v > -4000000) {
        snprintf(buf, n, "%d (the receive buffer's initial value at offset %d)", v, -3000000 - v);
    } else if (v <= -1000000 && v > -2000000) {
        snprintf(buf, n, "%d (a send buffer gap value, offset %d)", v, -1000000 - v);
    } else {
        snprintf(buf, n, "%d", v);
    }
    return buf;
}

/* ---- hashing: equal on every process -------------------------------------- */

uint64_t hsh(uint64_t salt, int a, int b, int c)
{
    mt_rng r;
    mt_seed(&r, salt, ((uint64_t)(unsigned)(a + 1) << 42) ^ ((uint64_t)(unsigned)(b + 1) << 21) ^ (uint64_t)(unsigned)(c + 1));
    return mt_next(&r);
}

int counts_set[3] = { 0, 1, 4 }; /* elements of the unit (test_detect: 0, 1, 5) */

/* ints of the block on the k-th edge u->v (v/w alltoall), of u's allgather
 * block (v/w allgather) */
int edge_ints(uint64_t salt, int unit, int u, int v, int k) { return unit * counts_set[hsh(salt, u, v, k) % 3]; }
int proc_ints(uint64_t salt, int unit, int u) { return unit * counts_set[hsh(salt, u, -1, -1) % 3]; }

int occurrences(const int *list, int upto, int x)
{
    int n = 0;
    for (int i = 0; i < upto; i++) n += list[i] == x;
    return n;
}

void shuffle(mt_rng *r, int *a, int n)
{
    for (int i = n - 1; i > 0; i--) {
        int j = mt_uniform(r, 0, i), t = a[i];
        a[i] = a[j];
        a[j] = t;
    }
}

/* ---- what the new communicator says: every process's neighbour lists --------- */

void view_build(MPI_Comm g, MPI_Comm old, view_t *w)
{
    memset(w, 0, sizeof *w);
    MPI_Comm_rank(g, &w->me);
    MPI_Comm_size(g, &w->p);
    MPI_Topo_test(g, &w->topo);
    int in = 0, out = 0, oldrank;
    MPI_Comm_rank(old, &oldrank);
    if (w->topo == MPI_DIST_GRAPH) {
        MPI_Dist_graph_neighbors_count(g, &in, &out, &w->weighted);
    } else {
        MPI_Graph_neighbors_count(g, w->me, &in);
        out = in;
    }
    int *mine = malloc(sizeof(int) * (size_t)(in + out + 1)), *sw = malloc(sizeof(int) * (size_t)(in + 1)),
        *dw = malloc(sizeof(int) * (size_t)(out + 1));
    if (w->topo == MPI_DIST_GRAPH) {
        MPI_Dist_graph_neighbors(g, in, mine, w->weighted ? sw : MPI_UNWEIGHTED, out, mine + in,
                                 w->weighted ? dw : MPI_UNWEIGHTED);
    } else {
        MPI_Graph_neighbors(g, w->me, in, mine);
        memcpy(mine + in, mine, sizeof(int) * (size_t)in);
    }
    int trio[3] = { in, out, oldrank }, *all = malloc(sizeof(int) * 3 * (size_t)w->p);
    MPI_Allgather(trio, 3, MPI_INT, all, 3, MPI_INT, g);
    w->nin = malloc(sizeof(int) * 3 * (size_t)w->p);
    w->nout = w->nin + w->p;
    w->old = w->nin + 2 * w->p;
    int *cnt = malloc(sizeof(int) * 2 * (size_t)w->p), *dsp = cnt + w->p, total = 0;
    for (int r = 0; r < w->p; r++) {
        w->nin[r] = all[3 * r];
        w->nout[r] = all[3 * r + 1];
        w->old[r] = all[3 * r + 2];
        cnt[r] = w->nin[r] + w->nout[r];
        dsp[r] = total;
        total += cnt[r];
    }
    w->mem = malloc(sizeof(int) * (size_t)(total + 1));
    MPI_Allgatherv(mine, in + out, MPI_INT, w->mem, cnt, dsp, MPI_INT, g);
    w->S = malloc(sizeof(int *) * 2 * (size_t)w->p);
    w->D = w->S + w->p;
    for (int r = 0; r < w->p; r++) {
        w->S[r] = w->mem + dsp[r];
        w->D[r] = w->mem + dsp[r] + w->nin[r];
    }
    free(mine);
    free(sw);
    free(dw);
    free(all);
    free(cnt);
}

void view_free(view_t *w)
{
    free(w->nin);
    free(w->mem);
    free(w->S);
}

/* The oracle's matching rule: the index in u's destinations of u's k-th
 * edge to v; -1 where there is none.  --break-oracle takes the last one. */
int send_index(const view_t *w, int u, int v, int k)
{
    int seen = 0, last = -1;
    for (int i = 0; i < w->nout[u]; i++)
        if (w->D[u][i] == v) {
            if (seen++ == k && !opt_break) return i;
            last = i;
        }
    return opt_break ? last : -1;
}

/* ---- reporting: the first mismatch of a case in full, per rank ---------------- */

int cur_case = -1;
static int reported_case = -2;
char case_desc[256];
const view_t *cur_view;

void fmt_list(char *buf, size_t n, const int *a, int len)
{
    size_t at = 0;
    buf[0] = 0;
    for (int i = 0; i < len && at + 12 < n; i++) at += (size_t)snprintf(buf + at, n - at, "%s%d", i ? "," : "", a[i]);
}

void failure(const char *fmt, ...)
{
    mt_failures++;
    if (reported_case == cur_case) return;
    reported_case = cur_case;
    char msg[1024], sl[400], dl[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "%s: rank %d: FAIL %s: %s\n", mt_name, mt_rank, case_desc, msg);
    if (cur_view) {
        const view_t *w = cur_view;
        fmt_list(sl, sizeof sl, w->S[w->me], w->nin[w->me]);
        fmt_list(dl, sizeof dl, w->D[w->me], w->nout[w->me]);
        fprintf(stderr, "%s: rank %d:   (graph rank %d: sources [%s], destinations [%s]); replay: mpirun -n %d "
                        "%s --seed %llu --first %d --cases 1%s\n",
                mt_name, mt_rank, w->me, sl, dl, mt_size, replay_prog, (unsigned long long)opt_seed, cur_case,
                replay_note);
    }
    fflush(stderr);
}

int check_rc(int rc, const char *what)
{
    mt_checks++;
    if (rc == MPI_SUCCESS) return 1;
    char s[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, s, &len);
    failure("%s returned %d: %s", what, rc, s);
    return 0;
}

/* ---- one call: blocks, buffers, arguments ------------------------------------- */

const char *const coll_name[NCOLL] = { "Cart_allgather", "Cart_allgatherv", "Cart_allgatherw",
                                       "Cart_alltoall",  "Cart_alltoallv",  "Cart_alltoallw" };
const char *const form_name[NFORMS] = { "blocking", "non-blocking", "persistent", "concurrent non-blocking" };

static int gcd(int a, int b)
{
    while (b) {
        int t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* A type whose elements divide every block of `g` ints (0: any). */
static int pick_type(mt_rng *r, int g)
{
    int c[NTY], n = 0;
    for (int t = 0; t < NTY; t++)
        if (g % ty_size[t] == 0) c[n++] = t;
    return c[mt_uniform(r, 0, n - 1)];
}

/* Lay out blocks (type, count set): regular (back to back, count*extent
 * apart), v (shuffled, gaps of whole extents) or w (shuffled, gaps of any
 * ints).  Returns the buffer length in ints. */
static int layout(mt_rng *r, blk *b, int nb, int variant)
{
    int end = 0, cursor = mt_uniform(r, 0, 2);
    if (variant == 0) cursor = 0;
    int *order = malloc(sizeof(int) * (size_t)(nb + 1));
    for (int i = 0; i < nb; i++) order[i] = i;
    if (variant) shuffle(r, order, nb);
    for (int x = 0; x < nb; x++) {
        blk *k = &b[order[x]];
        if (variant == 0) {
            k->off = order[x] * k->count * ty_ext[k->type];
        } else {
            int ext = ty_ext[k->type];
            if (variant == 1) cursor = (cursor + ext - 1) / ext * ext + mt_uniform(r, 0, 2) * ext;
            else cursor += mt_uniform(r, 0, 3);
            k->off = cursor;
            cursor += footprint(k->type, k->count);
        }
        int e = k->off + footprint(k->type, k->count);
        if (e > end) end = e;
    }
    free(order);
    return end + 2;
}

void call_free(gcall *c)
{
    free(c->sb);
    free(c->rb);
    free(c->sbuf);
    free(c->rbuf);
    free(c->sref);
    free(c->rexp);
    free(c->rown);
    free(c->eu);
    free(c->scounts);
    free(c->sdispw);
    free(c->stypes);
    memset(c, 0, sizeof *c);
}

/* The argument arrays and the mt_call of a built call. */
static void call_args(gcall *c, int a2a, int nglob)
{
    int ns = c->nsb + 1, nr = c->nrb + 1;
    /* arguments */
    c->scounts = calloc(2 * (size_t)(ns + nr), sizeof(int));
    c->sdispls = c->scounts + ns;
    c->rcounts = c->sdispls + ns;
    c->rdispls = c->rcounts + nr;
    c->sdispw = calloc((size_t)(ns + nr), sizeof(MPI_Aint));
    c->rdispw = c->sdispw + ns;
    c->stypes = malloc(sizeof(MPI_Datatype) * (size_t)(ns + nr));
    c->rtypes = c->stypes + ns;
    for (int x = 0; x < ns + nr; x++) c->stypes[x] = MPI_INT;
    for (int i = 0; i < c->nsb; i++) {
        c->scounts[i] = c->sb[i].count;
        c->sdispls[i] = c->sb[i].off / ty_ext[c->sb[i].type];
        c->sdispw[i] = (MPI_Aint)c->sb[i].off * (MPI_Aint)sizeof(int);
        c->stypes[i] = ty[c->sb[i].type];
    }
    for (int j = 0; j < c->nrb; j++) {
        c->rcounts[j] = c->rb[j].count;
        c->rdispls[j] = c->rb[j].off / ty_ext[c->rb[j].type];
        c->rdispw[j] = (MPI_Aint)c->rb[j].off * (MPI_Aint)sizeof(int);
        c->rtypes[j] = ty[c->rb[j].type];
    }
    mt_call *m = &c->mc;
    m->sb = c->null_s ? NULL : c->sbuf;
    m->rb = c->null_r ? NULL : c->rbuf;
    m->st = ty[c->stype];
    m->rt = ty[c->rtype];
    m->sc = nglob / ty_size[c->stype];
    m->rc = nglob / ty_size[c->rtype];
    if (!a2a) m->sc = c->sb[0].count;
    m->scounts = c->scounts;
    m->sdispls = c->sdispls;
    m->rcounts = c->rcounts;
    m->rdispls = c->rdispls;
    m->sdispw = c->sdispw;
    m->rdispw = c->rdispw;
    m->stypes = c->stypes;
    m->rtypes = c->rtypes;
}

void call_build(gcall *c, int coll, const view_t *w, uint64_t gsalt)
{
    memset(c, 0, sizeof *c);
    mt_rng gr, lr;
    mt_seed(&gr, gsalt, 1);
    mt_seed(&lr, gsalt, 1000 + (uint64_t)w->me);
    int me = w->me, a2a = coll >= C_ALLTOALL, variant = coll % 3;
    int unit = mt_uniform(&gr, 1, 2), nglob = unit * counts_set[mt_uniform(&gr, 0, 2)];
    c->coll = coll;
    c->nsb = a2a ? w->nout[me] : 1;
    c->nrb = w->nin[me];
    int ns = c->nsb + 1, nr = c->nrb + 1;
    c->sb = calloc((size_t)ns, sizeof(blk));
    c->rb = calloc((size_t)nr, sizeof(blk));
    c->eu = malloc(sizeof(int) * 3 * (size_t)nr);
    c->ek = c->eu + nr;
    c->ei = c->ek + nr;
    /* block sizes, equal on both ends of every edge */
    int sg = 0, rg = 0;
    for (int i = 0; i < c->nsb; i++) {
        int v = a2a ? w->D[me][i] : -1;
        c->sb[i].n = variant == 0 ? nglob
                     : a2a        ? edge_ints(gsalt, unit, me, v, occurrences(w->D[me], i, v))
                                  : proc_ints(gsalt, unit, me);
        sg = gcd(sg, c->sb[i].n);
    }
    for (int j = 0; j < c->nrb; j++) {
        int u = w->S[me][j], k = occurrences(w->S[me], j, u);
        c->eu[j] = u;
        c->ek[j] = k;
        /* MPI_PROC_NULL (test_detect's meshes): the block stays untouched */
        c->ei[j] = u < 0 || u >= w->p ? -2 : a2a ? send_index(w, u, me, k) : 0;
        c->rb[j].n = variant == 0 ? nglob : a2a ? edge_ints(gsalt, unit, u, me, k) : proc_ints(gsalt, unit, u);
        rg = gcd(rg, c->rb[j].n);
    }
    /* types: one per side (regular, v; allgather's send block), or per
     * block (w); a regular call passes the common signature also on a side
     * without blocks (test_detect: detected meshes lay out blocks passing
     * through from it) */
    if (variant == 0 && sg == 0) sg = nglob;
    if (variant == 0 && rg == 0) rg = nglob;
    c->stype = pick_type(&lr, sg);
    c->rtype = pick_type(&lr, rg);
    for (int i = 0; i < c->nsb; i++) {
        blk *b = &c->sb[i];
        b->type = variant == 2 && a2a ? pick_type(&lr, b->n) : c->stype;
        b->count = b->n / ty_size[b->type];
    }
    for (int j = 0; j < c->nrb; j++) {
        blk *b = &c->rb[j];
        b->type = variant == 2 ? pick_type(&lr, b->n) : c->rtype;
        b->count = b->n / ty_size[b->type];
    }
    c->slen = layout(&lr, c->sb, c->nsb, a2a ? variant : 0);
    c->rlen = layout(&lr, c->rb, c->nrb, variant);
    c->sbuf = malloc(sizeof(int) * (size_t)c->slen);
    c->sref = malloc(sizeof(int) * (size_t)c->slen);
    c->rbuf = malloc(sizeof(int) * (size_t)c->rlen);
    c->rexp = malloc(sizeof(int) * (size_t)c->rlen);
    c->rown = malloc(sizeof(int) * (size_t)c->rlen);
    int sempty = 1, rempty = 1;
    for (int i = 0; i < c->nsb; i++) sempty &= c->sb[i].n == 0;
    for (int j = 0; j < c->nrb; j++) rempty &= c->rb[j].n == 0;
    c->null_s = sempty && mt_chance(&lr, 30);
    c->null_r = rempty && mt_chance(&lr, 30);
    call_args(c, a2a, nglob);
}

/* New contents for round `round`, and what must arrive. */
void call_fill(gcall *c, int me, int round)
{
    for (int x = 0; x < c->slen; x++) c->sbuf[x] = SEND_GAP(x);
    for (int i = 0; i < c->nsb; i++)
        for (int e = 0; e < c->sb[i].n; e++)
            c->sbuf[c->sb[i].off + elem_pos(c->sb[i].type, e)] = content(me, i, round, e);
    memcpy(c->sref, c->sbuf, sizeof(int) * (size_t)c->slen);
    for (int x = 0; x < c->rlen; x++) {
        c->rbuf[x] = c->rexp[x] = RECV_GAP(x);
        c->rown[x] = -1;
    }
    for (int j = 0; j < c->nrb; j++)
        for (int e = 0; e < c->rb[j].n; e++) {
            int x = c->rb[j].off + elem_pos(c->rb[j].type, e);
            if (c->ei[j] != -2) c->rexp[x] = c->ei[j] >= 0 ? content(c->eu[j], c->ei[j], round, e) : 0;
            c->rown[x] = j * 16 + e;
        }
}

int call_check(const gcall *c, int form, int round)
{
    char what[160], ex[160], got[160];
    snprintf(what, sizeof what, "%s %s (round %d)", coll_name[c->coll], form_name[form], round);
    mt_checks++;
    for (int x = 0; x < c->rlen; x++) {
        if (c->rbuf[x] == c->rexp[x]) continue;
        if (c->rown[x] < 0) {
            failure("%s: receive buffer offset %d lies in no receive block: expected %s, got %s", what, x,
                    describe(c->rexp[x], ex, sizeof ex), describe(c->rbuf[x], got, sizeof got));
        } else {
            int j = c->rown[x] / 16, e = c->rown[x] % 16;
            if (c->ei[j] == -2)
                failure("%s: receive block %d comes from MPI_PROC_NULL and must stay untouched; int %d at buffer "
                        "offset %d: expected %s, got %s",
                        what, j, e, x, describe(c->rexp[x], ex, sizeof ex), describe(c->rbuf[x], got, sizeof got));
            else if (c->ei[j] < 0)
                failure("%s: receive block %d comes from rank %d (occurrence %d of it in the sources), which has no "
                        "such edge to rank %d in its destinations",
                        what, j, c->eu[j], c->ek[j], cur_view->me);
            else
                failure("%s: receive block %d (%d x %s at offset %d), edge %d->%d (occurrence %d, the sender's send "
                        "block %d), int %d at buffer offset %d: expected %s, got %s",
                        what, j, c->rb[j].count, ty_name[c->rb[j].type], c->rb[j].off, c->eu[j], cur_view->me,
                        c->ek[j], c->ei[j], e, x, describe(c->rexp[x], ex, sizeof ex),
                        describe(c->rbuf[x], got, sizeof got));
        }
        return 0;
    }
    for (int x = 0; x < c->slen; x++)
        if (c->sbuf[x] != c->sref[x]) {
            failure("%s: the send buffer changed at offset %d: expected %s, got %s", what, x,
                    describe(c->sref[x], ex, sizeof ex), describe(c->sbuf[x], got, sizeof got));
            return 0;
        }
    return 1;
}

void scratch_make(scratch *s, const gcall *c)
{
    int ns = c->nsb + 1, nr = c->nrb + 1;
    s->n = ns + nr;
    s->mc = c->mc;
    s->ints = malloc(sizeof(int) * 2 * (size_t)s->n);
    s->aints = malloc(sizeof(MPI_Aint) * (size_t)s->n);
    s->types = malloc(sizeof(MPI_Datatype) * (size_t)s->n);
    memcpy(s->ints, c->scounts, sizeof(int) * 2 * (size_t)s->n);
    memcpy(s->aints, c->sdispw, sizeof(MPI_Aint) * (size_t)s->n);
    s->dup[TY_INT] = MPI_INT;
    for (int t = 1; t < NTY; t++) MPI_Type_dup(ty[t], &s->dup[t]);
    for (int x = 0; x < s->n; x++) {
        s->types[x] = MPI_INT;
        for (int t = 1; t < NTY; t++)
            if (c->stypes[x] == ty[t]) s->types[x] = s->dup[t];
    }
    s->mc.st = s->dup[c->stype];
    s->mc.rt = s->dup[c->rtype];
    s->mc.scounts = s->ints;
    s->mc.sdispls = s->ints + ns;
    s->mc.rcounts = s->ints + 2 * ns;
    s->mc.rdispls = s->ints + 2 * ns + nr;
    s->mc.sdispw = s->aints;
    s->mc.rdispw = s->aints + ns;
    s->mc.stypes = s->types;
    s->mc.rtypes = s->types + ns;
}

void scratch_scribble(scratch *s)
{
    for (int x = 0; x < 2 * s->n; x++) s->ints[x] = -77777;
    for (int x = 0; x < s->n; x++) {
        s->aints[x] = -77777;
        s->types[x] = MPI_DATATYPE_NULL;
    }
    for (int t = 1; t < NTY; t++) MPI_Type_free(&s->dup[t]);
}

void scratch_free(scratch *s)
{
    free(s->ints);
    free(s->aints);
    free(s->types);
}

int complete(Cart_request *rq, int test_loop, const char *what)
{
    int rc;
    if (test_loop) {
        int flag = 0;
        do rc = Cart_test(rq, &flag);
        while (rc == MPI_SUCCESS && !flag);
    } else {
        rc = Cart_wait(rq);
    }
    if (!check_rc(rc, what)) return 0;
    mt_checks++;
    if (*rq != CART_REQUEST_NULL) {
        failure("%s: the request is not CART_REQUEST_NULL after completion", what);
        return 0;
    }
    return 1;
}

/* ---- the forms --------------------------------------------------------------- */

int callno; /* equal on every process of the graph: round numbers */

const char *const info_alg[5] = { NULL, "direct", "combining", "torus", "auto" };
const char *const info_exec[4] = { NULL, "datatype", "pack", "auto" };

void run_form(MPI_Comm g, const view_t *w, int coll, int form, uint64_t gsalt)
{
    gcall c;
    char what[128];
    call_build(&c, coll, w, gsalt);
    snprintf(what, sizeof what, "%s %s", coll_name[coll], form_name[form]);
    if (opt_verbose && w->me == 0) printf("  %s\n", what);
    if (form == F_BLOCKING) {
        int round = callno++ % 16;
        call_fill(&c, w->me, round);
        if (check_rc(mt_collective(0, coll, &c.mc, g, MPI_INFO_NULL, NULL), what)) call_check(&c, form, round);
    } else if (form == F_NONBLOCKING) {
        int round = callno++ % 16;
        call_fill(&c, w->me, round);
        scratch s;
        scratch_make(&s, &c);
        Cart_request rq = CART_REQUEST_NULL;
        int rc = mt_collective(1, coll, &s.mc, g, MPI_INFO_NULL, &rq);
        scratch_scribble(&s);
        if (check_rc(rc, what) && complete(&rq, (int)(gsalt & 1), what)) call_check(&c, form, round);
        scratch_free(&s);
    } else {
        MPI_Info info = mt_info(info_alg[gsalt % 5], info_exec[(gsalt / 5) % 4]);
        scratch s;
        call_fill(&c, w->me, callno % 16);
        scratch_make(&s, &c);
        Cart_request rq = CART_REQUEST_NULL;
        int rc = mt_collective(2, coll, &s.mc, g, info, &rq);
        scratch_scribble(&s);
        mt_info_free(&info);
        if (check_rc(rc, what)) {
            /* 3 starts; sometimes 10, past the trials of auto-tuning */
            int starts = gsalt % 5 == 0 ? 10 : 3;
            for (int k = 0; k < starts; k++) {
                int round = callno++ % 16;
                call_fill(&c, w->me, round);
                if (!check_rc(Cart_start(&rq), "Cart_start")) break;
                int flag = 0;
                if ((gsalt >> (8 + k)) & 1) {
                    do rc = Cart_test(&rq, &flag);
                    while (rc == MPI_SUCCESS && !flag);
                } else {
                    rc = Cart_wait(&rq);
                }
                if (!check_rc(rc, "Cart_wait/Cart_test of a persistent request")) break;
                call_check(&c, form, round);
            }
            if (check_rc(Cart_request_free(&rq), "Cart_request_free"))
                MT_CHECK(rq == CART_REQUEST_NULL, "Cart_request_free left the request set");
        }
        scratch_free(&s);
    }
    call_free(&c);
}
