#include "topo/nbh.h"

#include "base/errors.h"

#include <stdlib.h>
#include <string.h>

cc_nbh *cc_nbh_new(int d, const int dims[], const int periods[], int t, const int targets[],
                   const int weights[])
{
    cc_nbh *n = calloc(1, sizeof *n);
    if (!n) return NULL;
    size_t td = (size_t)t * (size_t)d;
    atomic_init(&n->refs, 1);
    pthread_mutex_init(&n->lock, NULL);
    n->d = d;
    n->t = t;
    n->dims = malloc(sizeof(int) * (size_t)d);
    n->periods = malloc(sizeof(int) * (size_t)d);
    n->coords = malloc(sizeof(int) * (size_t)d);
    n->raw = malloc(sizeof(int) * (td ? td : 1));
    n->red = malloc(sizeof(int) * (td ? td : 1));
    n->dead = malloc((size_t)t + 1);
    if (weights) n->weights = malloc(sizeof(int) * ((size_t)t + 1));
    if (!n->dims || !n->periods || !n->coords || !n->raw || !n->red || !n->dead ||
        (weights && !n->weights)) {
        cc_nbh_release(n);
        return NULL;
    }
    n->grid.d = d;
    n->grid.size = 1;
    for (int k = 0; k < d; k++) {
        n->dims[k] = dims[k];
        n->periods[k] = periods[k] != 0;
        n->grid.size *= dims[k];
    }
    n->grid.dims = n->dims;
    n->grid.periods = n->periods;
    if (td) memcpy(n->raw, targets, td * sizeof(int));
    for (int i = 0; i < t; i++)
        n->dead[i] = (unsigned char)cc_grid_reduce(&n->grid, n->raw + (size_t)i * d, n->red + (size_t)i * d);
    if (weights && t) memcpy(n->weights, weights, (size_t)t * sizeof(int));
    n->rank = CC_NONE;
    return n;
}

void cc_nbh_place(cc_nbh *n, int rank)
{
    n->rank = rank;
    cc_grid_coords(&n->grid, rank, n->coords);
}

void cc_nbh_release(cc_nbh *n)
{
    if (!n || atomic_fetch_sub(&n->refs, 1) != 1) return;
    for (int c = 0; c < 3; c++)
        for (int a = 0; a < 4; a++) {
            cc_schedule_free(n->sched[c][a]);
            cc_local_free(n->local[c][a]);
        }
    pthread_mutex_destroy(&n->lock);
    free(n->dims);
    free(n->periods);
    free(n->coords);
    free(n->raw);
    free(n->red);
    free(n->dead);
    free(n->weights);
    free(n);
}

cc_nset cc_nbh_nset(const cc_nbh *n)
{
    return (cc_nset){ n->d, n->t, n->red, n->dead };
}

int cc_nbh_schedule(cc_nbh *n, int collective, int algorithm, const cc_schedule **out)
{
    int rc = CC_OK;
    pthread_mutex_lock(&n->lock);
    if (!n->sched[collective][algorithm]) {
        cc_nset ns = cc_nbh_nset(n);
        rc = cc_schedule_build(&ns, collective, algorithm, &n->sched[collective][algorithm]);
    }
    *out = n->sched[collective][algorithm];
    pthread_mutex_unlock(&n->lock);
    return rc;
}

int cc_nbh_local(cc_nbh *n, int collective, int algorithm, const cc_local **out)
{
    const cc_schedule *s;
    int rc = cc_nbh_schedule(n, collective, algorithm, &s);
    if (rc) return rc;
    pthread_mutex_lock(&n->lock);
    if (!n->local[collective][algorithm])
        rc = cc_localize(s, &n->grid, n->coords, &n->local[collective][algorithm]);
    *out = n->local[collective][algorithm];
    pthread_mutex_unlock(&n->lock);
    return rc;
}

/* ---- the communicator attribute ---------------------------------------- */

static pthread_once_t keyval_once = PTHREAD_ONCE_INIT;
static int keyval = MPI_KEYVAL_INVALID;
/* Set while we duplicate a communicator for private use: the copy must not
 * carry the neighbourhood (it would get a private communicator of its own). */
static _Thread_local int making_private;

/* The tag bound of MPI_COMM_WORLD: always set, unlike on the Cartesian
 * communicators of some MPIs (Open MPI 4.1). */
static int world_tag_ub(void)
{
    void *v;
    int flag = 0, ub = 32767; /* the least the standard allows */
    if (MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &v, &flag) == MPI_SUCCESS && flag && *(int *)v >= 32767)
        ub = *(int *)v;
    /* CARTCOLL_TAG_UB lowers the bound, so that tests can wrap the tag
     * ranges in a few hundred operations. */
    const char *e = getenv("CARTCOLL_TAG_UB");
    long x = e && *e ? strtol(e, NULL, 10) : 0;
    if (x >= CC_TAG_FIRST + 8 && x < ub) ub = (int)x;
    return ub;
}

static cc_comm *comm_new(cc_nbh *nbh, MPI_Comm priv)
{
    cc_comm *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    atomic_init(&c->refs, 1);
    atomic_init(&c->user_freed, 0);
    pthread_mutex_init(&c->lock, NULL);
    c->nbh = nbh;
    c->priv = priv;
    c->pending = MPI_REQUEST_NULL;
    c->parent = MPI_COMM_NULL;
    c->user_eh = MPI_ERRHANDLER_NULL;
    c->tag_ub = world_tag_ub();
    /* half of the tags for persistent pairs, starting at an even offset */
    c->tag_split = CC_TAG_FIRST + (((c->tag_ub - CC_TAG_FIRST + 1) / 2) & ~1);
    return c;
}

/* MPI_Comm_dup of a neighbourhood communicator: the copy gets the
 * neighbourhood and a private communicator of its own.  MPI_Comm_dup is
 * collective, so the private one is started here, in the same order on
 * every process, as an MPI_Comm_idup: nothing blocks (the user's call may be
 * an MPI_Comm_idup too), and the first operation on the copy completes it. */
static int copy_fn(MPI_Comm old, int kv, void *extra, void *in, void *out, int *flag)
{
    (void)kv;
    (void)extra;
    *flag = 0;
    if (making_private) return MPI_SUCCESS;
    cc_comm *src = in, *c = comm_new(src->nbh, MPI_COMM_NULL);
    if (!c) return MPI_ERR_NO_MEM;
    making_private = 1;
    int rc = MPI_Comm_idup(old, &c->priv, &c->pending);
    making_private = 0;
    if (rc != MPI_SUCCESS) {
        pthread_mutex_destroy(&c->lock);
        free(c);
        return rc;
    }
    atomic_fetch_add(&src->nbh->refs, 1);
    /* Open MPI 4.1 progresses an idup on a communicator freed meanwhile
     * into a crash: freeing `old` completes the idup first (delete_fn). */
    c->parent = old;
    pthread_mutex_lock(&src->nbh->lock);
    c->next_dup = src->nbh->dups;
    src->nbh->dups = c;
    pthread_mutex_unlock(&src->nbh->lock);
    *(cc_comm **)out = c;
    *flag = 1;
    return MPI_SUCCESS;
}

/* Take c out of its neighbourhood's list of pending duplicates. */
static void unlist_dup(cc_comm *c)
{
    pthread_mutex_lock(&c->nbh->lock);
    for (cc_comm **p = &c->nbh->dups; *p; p = &(*p)->next_dup)
        if (*p == c) {
            *p = c->next_dup;
            break;
        }
    pthread_mutex_unlock(&c->nbh->lock);
    c->parent = MPI_COMM_NULL;
}

int cc_comm_finish_dup(cc_comm *c, int *flag)
{
    int rc = MPI_SUCCESS, done = 1;
    if (c->pending != MPI_REQUEST_NULL) {
        /* MPICH holds the parent until the idup completes and runs the
         * parent's delete callback from inside this very call: delete_fn
         * must then leave this request alone. */
        c->finishing = 1;
        rc = flag ? MPI_Test(&c->pending, &done, MPI_STATUS_IGNORE) : MPI_Wait(&c->pending, MPI_STATUS_IGNORE);
        c->finishing = 0;
        if (rc == MPI_SUCCESS && done) {
            MPI_Comm_set_errhandler(c->priv, MPI_ERRORS_RETURN);
            unlist_dup(c);
        }
    }
    if (flag) *flag = done;
    return rc;
}

static int delete_fn(MPI_Comm comm, int kv, void *val, void *extra)
{
    (void)kv;
    (void)extra;
    cc_comm *c = val;
    /* Duplicates still being made from this communicator: finish them now
     * (every process frees it collectively, so each idup completes). */
    for (;;) {
        cc_comm *d;
        pthread_mutex_lock(&c->nbh->lock);
        for (d = c->nbh->dups; d && (d->parent != comm || d->finishing); d = d->next_dup) ;
        pthread_mutex_unlock(&c->nbh->lock);
        if (!d) break;
        cc_comm_finish_dup(d, NULL);
    }
    /* Requests may outlive the communicator: keep its error handler for them. */
    if (MPI_Comm_get_errhandler(comm, &c->user_eh) != MPI_SUCCESS) c->user_eh = MPI_ERRHANDLER_NULL;
    atomic_store(&c->user_freed, 1);
    cc_comm_release(c);
    return MPI_SUCCESS;
}

static void make_keyval(void)
{
    if (MPI_Comm_create_keyval(copy_fn, delete_fn, &keyval, NULL) != MPI_SUCCESS) keyval = MPI_KEYVAL_INVALID;
}

void cc_comm_retain(cc_comm *c) { atomic_fetch_add(&c->refs, 1); }

void cc_comm_release(cc_comm *c)
{
    if (!c || atomic_fetch_sub(&c->refs, 1) != 1) return;
    if (c->cache) c->cache_free(c->cache);
    pthread_mutex_destroy(&c->lock);
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) {
        cc_comm_finish_dup(c, NULL);
        if (c->priv != MPI_COMM_NULL) MPI_Comm_free(&c->priv);
        if (c->user_eh != MPI_ERRHANDLER_NULL) MPI_Errhandler_free(&c->user_eh);
    }
    if (c->parent != MPI_COMM_NULL) unlist_dup(c); /* after MPI_Finalize */
    free(c->live);
    cc_nbh_release(c->nbh);
    free(c);
}

int cc_comm_attach(MPI_Comm cart, cc_nbh *nbh, MPI_Comm priv)
{
    pthread_once(&keyval_once, make_keyval);
    if (keyval == MPI_KEYVAL_INVALID) return cc_error_code(MPI_ERR_OTHER, "cannot create an MPI attribute key");
    cc_comm *c = comm_new(nbh, priv);
    if (!c) return cc_error_code(MPI_ERR_NO_MEM, "out of memory");
    int rc = MPI_Comm_set_attr(cart, keyval, c);
    if (rc != MPI_SUCCESS) {
        pthread_mutex_destroy(&c->lock);
        free(c);
        return rc;
    }
    return MPI_SUCCESS;
}

int cc_comm_get(MPI_Comm comm, cc_comm **out, const char *who)
{
    *out = NULL;
    if (comm == MPI_COMM_NULL) return cc_error_code(MPI_ERR_COMM, "%s: the communicator is MPI_COMM_NULL", who);
    int inter = 0;
    if (MPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS)
        return cc_error_code(MPI_ERR_COMM, "%s: the communicator is not valid", who);
    if (inter) return cc_error_code(MPI_ERR_COMM, "%s: inter-communicators have no Cartesian neighbourhood", who);
    pthread_once(&keyval_once, make_keyval);
    void *v = NULL;
    int flag = 0;
    if (keyval != MPI_KEYVAL_INVALID) MPI_Comm_get_attr(comm, keyval, &v, &flag);
    if (!flag)
        return cc_error_code(MPI_ERR_TOPOLOGY,
                             "%s: the communicator has no Cartesian neighbourhood (make one with "
                             "Cart_neighborhood_create)", who);
    *out = v;
    return MPI_SUCCESS;
}

int cc_comm_tag(cc_comm *c)
{
    unsigned long span = (unsigned long)(c->tag_ub - c->tag_split) + 1;
    return c->tag_split + (int)(c->seq++ % span);
}

static int pair_tag(const cc_comm *c, unsigned long q)
{
    unsigned long npairs = (unsigned long)(c->tag_split - CC_TAG_FIRST) / 2;
    return CC_TAG_FIRST + 2 * (int)(q % npairs);
}

void cc_comm_busy_pairs(cc_comm *c, int busy[CC_TAG_WINDOW])
{
    pthread_mutex_lock(&c->lock);
    for (int j = 0; j < CC_TAG_WINDOW; j++) {
        int tag = pair_tag(c, c->pseq + (unsigned long)j);
        busy[j] = 0;
        for (int k = 0; k < c->nlive && !busy[j]; k++) busy[j] = c->live[k] == tag;
    }
    pthread_mutex_unlock(&c->lock);
}

int cc_comm_npairs(const cc_comm *c) { return (c->tag_split - CC_TAG_FIRST) / 2; }

int cc_comm_take_pair(cc_comm *c, const int busy[CC_TAG_WINDOW])
{
    for (int j = 0; j < CC_TAG_WINDOW; j++)
        if (!busy[j]) {
            int tag = pair_tag(c, c->pseq + (unsigned long)j);
            c->pseq += (unsigned long)j + 1;
            return tag;
        }
    c->pseq += CC_TAG_WINDOW;
    return -1;
}

int cc_comm_hold_pair(cc_comm *c, int tag)
{
    int rc = MPI_SUCCESS;
    pthread_mutex_lock(&c->lock);
    if (c->nlive == c->caplive) {
        int cap = c->caplive ? 2 * c->caplive : 8;
        int *n = realloc(c->live, sizeof(int) * (size_t)cap);
        if (n) c->live = n, c->caplive = cap;
        else rc = MPI_ERR_NO_MEM;
    }
    if (rc == MPI_SUCCESS) c->live[c->nlive++] = tag;
    pthread_mutex_unlock(&c->lock);
    return rc;
}

void cc_comm_drop_pair(cc_comm *c, int tag)
{
    pthread_mutex_lock(&c->lock);
    for (int k = 0; k < c->nlive; k++)
        if (c->live[k] == tag) {
            c->live[k] = c->live[--c->nlive];
            break;
        }
    pthread_mutex_unlock(&c->lock);
}
