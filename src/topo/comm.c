/* The communicator state: the attribute that carries a neighbourhood on a
 * communicator and its duplicates, the private communicator, and what
 * requests need once the user's communicator is freed. */
#include "topo/comm.h"

#include "base/errors.h"

#include <stdlib.h>
#include <string.h>

static pthread_once_t keyval_once = PTHREAD_ONCE_INIT;
static int keyval = MPI_KEYVAL_INVALID;
/* Set while we duplicate a communicator for private use: the copy must not
 * carry the neighbourhood (it would get a private communicator of its own). */
static _Thread_local int making_private;

int cc_world_tag_ub(void)
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
    c->tag_ub = cc_world_tag_ub();
    /* half of the tags for persistent pairs, starting at an even offset */
    c->tag_split = CC_TAG_FIRST + (((c->tag_ub - CC_TAG_FIRST + 1) / 2) & ~1);
    return c;
}

/* A cc_comm for nbh whose private communicator is an MPI_Comm_idup of
 * `parent`, started now (nothing blocks) and completed by the first
 * operation (cc_comm_finish_dup).  NULL with *rc set on failure. */
static cc_comm *comm_new_idup(cc_nbh *nbh, MPI_Comm parent, int *rc)
{
    cc_comm *c = comm_new(nbh, MPI_COMM_NULL);
    if (!c) {
        *rc = MPI_ERR_NO_MEM;
        return NULL;
    }
    making_private = 1;
    *rc = MPI_Comm_idup(parent, &c->priv, &c->pending);
    making_private = 0;
    if (*rc != MPI_SUCCESS) {
        pthread_mutex_destroy(&c->lock);
        free(c);
        return NULL;
    }
    /* Open MPI 4.1 progresses an idup on a communicator freed meanwhile
     * into a crash: freeing the parent completes the idup first (delete_fn). */
    c->parent = parent;
    pthread_mutex_lock(&nbh->lock);
    cc_list_push_front(&nbh->dups, &c->dup_link);
    pthread_mutex_unlock(&nbh->lock);
    return c;
}

/* Complete every pending idup of nbh's duplicates that reads `comm`. */
static void finish_dups_of(cc_nbh *nbh, MPI_Comm comm)
{
    for (;;) {
        cc_comm *d = NULL;
        pthread_mutex_lock(&nbh->lock);
        cc_list_foreach(it, &nbh->dups) {
            cc_comm *e = cc_list_entry(it, cc_comm, dup_link);
            if (e->parent == comm && !e->finishing) {
                d = e;
                break;
            }
        }
        pthread_mutex_unlock(&nbh->lock);
        if (!d) return;
        cc_comm_finish_dup(d, cc_comm_wait);
    }
}

void cc_comm_finish_copies(cc_comm *c)
{
    if (c->priv != MPI_COMM_NULL) finish_dups_of(c->nbh, c->priv);
}

int cc_comm_dup_plain(MPI_Comm comm, MPI_Comm *out)
{
    making_private = 1;
    int rc = MPI_Comm_dup(comm, out);
    making_private = 0;
    return rc;
}

/* MPI_Comm_dup of a neighbourhood communicator: the copy gets the
 * neighbourhood and a private communicator of its own.  MPI_Comm_dup is
 * collective, so the private one is started here, in the same order on
 * every process, as an MPI_Comm_idup: nothing blocks (the user's call may be
 * an MPI_Comm_idup too), and the first operation on the copy completes it.
 *
 * The idup reads the original's private communicator, not `old`: MPI is
 * choosing a context id for the user's copy of `old` at this very moment,
 * and Open MPI 4.1 runs two such choices on one communicator side by side,
 * matching their rounds differently on different processes (a hang,
 * open-mpi/ompi#2025).  For the same reason an earlier copy's idup of that
 * private communicator, and the original's own, are completed first:
 * every process started them in an earlier collective call, so this wait
 * cannot deadlock. */
static int copy_fn(MPI_Comm old, int kv, void *extra, void *in, void *out, int *flag)
{
    (void)old;
    (void)kv;
    (void)extra;
    *flag = 0;
    if (making_private) return MPI_SUCCESS;
    cc_comm *src = in;
    int rc = cc_comm_finish_dup(src, cc_comm_wait);
    if (rc != MPI_SUCCESS) return rc;
    finish_dups_of(src->nbh, src->priv);
    atomic_fetch_add(&src->nbh->refs, 1);
    cc_comm *c = comm_new_idup(src->nbh, src->priv, &rc);
    if (!c) {
        cc_nbh_release(src->nbh);
        return rc;
    }
    cc_comm_retain(src); /* its private communicator outlives the idup */
    c->parent_cc = src;
    *(cc_comm **)out = c;
    *flag = 1;
    return MPI_SUCCESS;
}

/* Take c out of its neighbourhood's list of pending duplicates. */
static void unlist_dup(cc_comm *c)
{
    pthread_mutex_lock(&c->nbh->lock);
    if (cc_list_linked(&c->dup_link)) cc_list_remove(&c->dup_link);
    pthread_mutex_unlock(&c->nbh->lock);
    c->parent = MPI_COMM_NULL;
}

int cc_comm_wait(MPI_Request *rq) { return MPI_Wait(rq, MPI_STATUS_IGNORE); }

int cc_comm_finish_dup(cc_comm *c, int (*wait)(MPI_Request *))
{
    if (c->pending == MPI_REQUEST_NULL) return MPI_SUCCESS;
    /* MPICH holds the parent until the idup completes and runs the parent's
     * delete callback from inside this very wait: delete_fn must then leave
     * this request alone. */
    c->finishing = 1;
    int rc = wait(&c->pending);
    c->finishing = 0;
    if (rc == MPI_SUCCESS) {
        MPI_Comm_set_errhandler(c->priv, MPI_ERRORS_RETURN);
        unlist_dup(c);
        cc_comm *p = c->parent_cc;
        c->parent_cc = NULL;
        cc_comm_release(p);
    }
    return rc;
}

static int delete_fn(MPI_Comm comm, int kv, void *val, void *extra)
{
    (void)kv;
    (void)extra;
    cc_comm *c = val;
    /* Duplicates still being made from this communicator: finish them now
     * (every process frees it collectively, so each idup completes). */
    finish_dups_of(c->nbh, comm);
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
    cc_cache_base *cache = atomic_load(&c->cache);
    if (cache) cache->destroy(cache);
    pthread_mutex_destroy(&c->lock);
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) {
        cc_comm_finish_dup(c, cc_comm_wait);
        if (c->priv != MPI_COMM_NULL) MPI_Comm_free(&c->priv);
        if (c->user_eh != MPI_ERRHANDLER_NULL) MPI_Errhandler_free(&c->user_eh);
    }
    if (c->parent != MPI_COMM_NULL) unlist_dup(c); /* after MPI_Finalize */
    cc_comm_release(c->parent_cc);                 /* idem */
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

int cc_comm_attach_idup(MPI_Comm comm, cc_nbh *nbh)
{
    pthread_once(&keyval_once, make_keyval);
    if (keyval == MPI_KEYVAL_INVALID) return cc_error_code(MPI_ERR_OTHER, "cannot create an MPI attribute key");
    int rc;
    cc_comm *c = comm_new_idup(nbh, comm, &rc);
    if (!c) return rc;
    if ((rc = MPI_Comm_set_attr(comm, keyval, c)) != MPI_SUCCESS) {
        cc_comm_finish_dup(c, cc_comm_wait);
        atomic_fetch_add(&nbh->refs, 1); /* the caller keeps its reference on failure */
        cc_comm_release(c);
    }
    return rc;
}

cc_comm *cc_comm_find(MPI_Comm comm)
{
    pthread_once(&keyval_once, make_keyval);
    void *v = NULL;
    int flag = 0;
    if (keyval == MPI_KEYVAL_INVALID || MPI_Comm_get_attr(comm, keyval, &v, &flag) != MPI_SUCCESS) return NULL;
    return flag ? v : NULL;
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
