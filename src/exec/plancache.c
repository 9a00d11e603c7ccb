#include "exec/plancache.h"

#include "bind/typemap.h"
#include "util/alloc.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

typedef struct cc_cache_entry {
    cc_plan *plan;
    cc_call key;          /* arrays point into `store` */
    void *store;
    int in_use;
    unsigned long stamp;  /* last use, for eviction */
} cc_cache_entry;

struct cc_plancache {
    cc_cache_base base;   /* first: the communicator state destroys the cache through it */
    pthread_mutex_t lock;
    cc_cache_entry e[CC_PLAN_CACHE_SIZE];
    unsigned long clock;
    int t;
};

int cc_plancache_eligible(const cc_call *a, int t)
{
    int w = a->variant == CC_W;
    if (a->collective == CC_ALLGATHER || !w) {
        if (!cc_type_named(a->sendtype)) return 0;
    } else {
        for (int i = 0; i < t; i++)
            if ((i == 0 || a->sendtypes[i] != a->sendtypes[i - 1]) && !cc_type_named(a->sendtypes[i])) return 0;
    }
    if (!w) return cc_type_named(a->recvtype);
    for (int i = 0; i < t; i++)
        if ((i == 0 || a->recvtypes[i] != a->recvtypes[i - 1]) && !cc_type_named(a->recvtypes[i])) return 0;
    return 1;
}

int cc_plancache_eligible_rooted(const cc_call *a, int here)
{
    if (a->variant != CC_REGULAR) return 0;
    switch (a->collective) {
    case CC_GATHER: return (here && a->in_place ? 1 : cc_type_named(a->sendtype)) && (!here || cc_type_named(a->recvtype));
    case CC_SCATTER: return (here && a->in_place ? 1 : cc_type_named(a->recvtype)) && (!here || cc_type_named(a->sendtype));
    case CC_BCAST:
    case CC_REDUCE: return cc_type_named(a->recvtype);
    default: return 0;
    }
}

/* Arrays of a call: which are present depends on collective and variant. */
typedef struct arrays {
    const void *p[6];
    size_t sz[6];
} arrays;

static arrays arrays_of(const cc_call *a)
{
    arrays r;
    memset(&r, 0, sizeof r);
    if (a->variant == CC_REGULAR) return r;
    int w = a->variant == CC_W;
    r.p[0] = a->recvcounts, r.sz[0] = sizeof(int);
    r.p[1] = w ? (const void *)a->rdisplsw : (const void *)a->rdispls, r.sz[1] = w ? sizeof(MPI_Aint) : sizeof(int);
    if (w) r.p[2] = a->recvtypes, r.sz[2] = sizeof(MPI_Datatype);
    if (a->collective == CC_ALLTOALL) {
        r.p[3] = a->sendcounts, r.sz[3] = sizeof(int);
        r.p[4] = w ? (const void *)a->sdisplsw : (const void *)a->sdispls, r.sz[4] = r.sz[1];
        if (w) r.p[5] = a->sendtypes, r.sz[5] = sizeof(MPI_Datatype);
    }
    return r;
}

static int same(const cc_call *a, const cc_call *b, int t)
{
    if (a->collective != b->collective || a->variant != b->variant || a->sendbuf != b->sendbuf ||
        a->recvbuf != b->recvbuf || a->sendcount != b->sendcount || a->sendtype != b->sendtype ||
        a->op != b->op || a->in_place != b->in_place || a->root != b->root)
        return 0;
    if (a->variant != CC_W && a->recvtype != b->recvtype) return 0;
    if (a->variant == CC_REGULAR) return a->recvcount == b->recvcount;
    arrays x = arrays_of(a), y = arrays_of(b);
    for (int k = 0; k < 6; k++)
        if (x.p[k] && memcmp(x.p[k], y.p[k], x.sz[k] * (size_t)t) != 0) return 0;
    return 1;
}

static void entry_clear(cc_cache_entry *e)
{
    if (e->plan) {
        e->plan->cached = 0;
        cc_plan_free(e->plan);
    }
    free(e->store);
    memset(e, 0, sizeof *e);
}

/* Deep copy of a's arrays into e->key. */
static int entry_key(cc_cache_entry *e, const cc_call *a, int t)
{
    arrays x = arrays_of(a);
    size_t total = 0;
    for (int k = 0; k < 6; k++)
        if (x.p[k]) total += x.sz[k] * (size_t)t;
    e->key = *a;
    e->store = cc_alloc_array(total, 1);
    if (!e->store) return 0;
    char *s = e->store;
    const void **dst[6] = { (const void **)&e->key.recvcounts, NULL, (const void **)&e->key.recvtypes,
                            (const void **)&e->key.sendcounts, NULL, (const void **)&e->key.sendtypes };
    for (int k = 0; k < 6; k++) {
        if (!x.p[k]) continue;
        size_t n = x.sz[k] * (size_t)t;
        memcpy(s, x.p[k], n);
        if (k == 1) {
            if (a->variant == CC_W) e->key.rdisplsw = (const MPI_Aint *)s;
            else e->key.rdispls = (const int *)s;
        } else if (k == 4) {
            if (a->variant == CC_W) e->key.sdisplsw = (const MPI_Aint *)s;
            else e->key.sdispls = (const int *)s;
        } else {
            *dst[k] = s;
        }
        s += n;
    }
    return 1;
}

/* Free every cached plan (the communicator state goes away). */
static void cache_free(cc_cache_base *base)
{
    struct cc_plancache *pc = (struct cc_plancache *)base;
    for (int i = 0; i < CC_PLAN_CACHE_SIZE; i++) entry_clear(&pc->e[i]);
    pthread_mutex_destroy(&pc->lock);
    free(pc);
}

/* c's cache, made on first use without a lock: of two threads that race
 * here, one installs its cache and the other frees its own. */
static struct cc_plancache *cache_of(cc_comm *c)
{
    cc_cache_base *have = atomic_load(&c->cache);
    if (have) return (struct cc_plancache *)have;
    struct cc_plancache *pc = calloc(1, sizeof *pc);
    if (!pc) return NULL;
    pc->base.destroy = cache_free;
    pthread_mutex_init(&pc->lock, NULL);
    pc->t = c->nbh->t;
    if (atomic_compare_exchange_strong(&c->cache, &have, &pc->base)) return pc;
    cache_free(&pc->base);
    return (struct cc_plancache *)have;
}

cc_plan *cc_plancache_take(cc_comm *c, const cc_call *a)
{
    struct cc_plancache *pc = cache_of(c);
    if (!pc) return NULL;
    cc_plan *p = NULL;
    pthread_mutex_lock(&pc->lock);
    for (int i = 0; i < CC_PLAN_CACHE_SIZE && !p; i++) {
        cc_cache_entry *e = &pc->e[i];
        if (e->plan && !e->in_use && same(&e->key, a, pc->t)) {
            e->in_use = 1;
            e->stamp = ++pc->clock;
            p = e->plan;
        }
    }
    pthread_mutex_unlock(&pc->lock);
    return p;
}

int cc_plancache_put(cc_comm *c, const cc_call *a, cc_plan *p)
{
    struct cc_plancache *pc = cache_of(c);
    if (!pc) return 0;
    pthread_mutex_lock(&pc->lock);
    cc_cache_entry *victim = NULL;
    for (int i = 0; i < CC_PLAN_CACHE_SIZE; i++) {
        cc_cache_entry *e = &pc->e[i];
        if (e->in_use) continue;
        if (!e->plan) { victim = e; break; }
        if (!victim || e->stamp < victim->stamp) victim = e;
    }
    int taken = 0;
    if (victim) {
        entry_clear(victim);
        if (entry_key(victim, a, pc->t)) {
            victim->plan = p;
            victim->in_use = 1;
            victim->stamp = ++pc->clock;
            p->cached = 1;
            taken = 1;
        } else {
            entry_clear(victim);
        }
    }
    pthread_mutex_unlock(&pc->lock);
    return taken;
}

void cc_plancache_release(cc_comm *c, cc_plan *p)
{
    struct cc_plancache *pc = (struct cc_plancache *)atomic_load(&c->cache);
    pthread_mutex_lock(&pc->lock);
    for (int i = 0; i < CC_PLAN_CACHE_SIZE; i++)
        if (pc->e[i].plan == p) pc->e[i].in_use = 0;
    pthread_mutex_unlock(&pc->lock);
}
