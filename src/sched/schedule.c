/* Schedule container: building blocks shared by all builders, dispatch. */
#include "sched/schedule.h"
#include "util/alloc.h"

#include <stdlib.h>
#include <string.h>

/* Grow *arr (element size `sz`) so that index n fits. */
static int grow(void **arr, int *cap, int n, size_t sz)
{
    if (n < *cap) return CC_OK;
    int nc = *cap ? *cap : 16;
    while (nc <= n) {
        if (nc > (1 << 29)) return CC_ETOOBIG;
        nc *= 2;
    }
    void *p = realloc(*arr, (size_t)nc * sz);
    if (!p) return CC_ENOMEM;
    *arr = p;
    *cap = nc;
    return CC_OK;
}

enum { CAP_PHASES, CAP_ROUNDS, CAP_ENTRIES, CAP_COPIES, CAP_VECS, CAP_TEMP, CAP_FOLDS };

int cc_sched_begin(cc_schedule *s, const cc_nset *ns, int collective, int algorithm)
{
    s->collective = collective;
    s->algorithm = algorithm;
    s->d = ns->d;
    s->t = ns->t;
    size_t d = (size_t)ns->d, t = (size_t)ns->t, td = t * d;
    s->order = cc_alloc_array((size_t)d, sizeof(int));
    s->perm = cc_alloc_array((size_t)t, sizeof(int));
    s->offs = cc_alloc_array((size_t)td, sizeof(int));
    if (!s->order || !s->perm || !s->offs) return CC_ENOMEM;
    for (int k = 0; k < ns->d; k++) s->order[k] = k;
    for (int i = 0; i < ns->t; i++) s->perm[i] = i;
    if (td) memcpy(s->offs, ns->offs, td * sizeof(int));
    return CC_OK;
}

int cc_sched_phase(cc_schedule *s, int kpos)
{
        int rc = grow((void **)&s->phases, &s->cap_[CAP_PHASES], s->nphases, sizeof(cc_phase));
    if (rc) return rc;
    s->phases[s->nphases++] = (cc_phase){ kpos, s->nrounds, 0, s->nfolds, 0 };
    return CC_OK;
}

/* Appends a round to the open phase and returns its (zeroed) peer vector. */
static int *open_round(cc_schedule *s)
{
    if (grow((void **)&s->rounds, &s->cap_[CAP_ROUNDS], s->nrounds, sizeof(cc_round)) ||
        grow((void **)&s->vecs, &s->cap_[CAP_VECS], (s->nvecs + 1) * s->d, sizeof(int)))
        return NULL;
    int *v = s->vecs + (size_t)s->nvecs * s->d;
    memset(v, 0, (size_t)s->d * sizeof(int));
    s->rounds[s->nrounds++] = (cc_round){ s->nvecs++, s->nentries, 0 };
    s->phases[s->nphases - 1].count++;
    return v;
}

int cc_sched_round(cc_schedule *s, const int vec[])
{
    int *v = open_round(s);
    if (!v) return CC_ENOMEM;
    memcpy(v, vec, (size_t)s->d * sizeof(int));
    return CC_OK;
}

int cc_sched_round_axis(cc_schedule *s, int dim, int shift)
{
    int *v = open_round(s);
    if (!v) return CC_ENOMEM;
    v[dim] = shift;
    return CC_OK;
}

int cc_sched_entry(cc_schedule *s, int src, int dst, int lo, int hi, int moved)
{
        int rc = grow((void **)&s->entries, &s->cap_[CAP_ENTRIES], s->nentries, sizeof(cc_entry));
    if (rc) return rc;
    s->entries[s->nentries++] = (cc_entry){ src, dst, lo, hi, moved };
    s->rounds[s->nrounds - 1].count++;
    return CC_OK;
}

int cc_sched_copy(cc_schedule *s, int src, int dst, int leaf)
{
        int rc = grow((void **)&s->copies, &s->cap_[CAP_COPIES], s->ncopies, sizeof(cc_copy));
    if (rc) return rc;
    s->copies[s->ncopies++] = (cc_copy){ src, dst, leaf };
    return CC_OK;
}

int cc_sched_temp(cc_schedule *s, int like)
{
        int rc = grow((void **)&s->temp_like, &s->cap_[CAP_TEMP], s->ntemp, sizeof(int));
    if (rc) return rc;
    s->temp_like[s->ntemp] = like;
    return s->ntemp++;
}

int cc_sched_fold(cc_schedule *s, int src, int dst)
{
    int rc = grow((void **)&s->folds, &s->cap_[CAP_FOLDS], s->nfolds, sizeof(cc_fold));
    if (rc) return rc;
    s->folds[s->nfolds++] = (cc_fold){ src, dst };
    s->phases[s->nphases - 1].fcount++;
    return CC_OK;
}

void cc_sched_finish(cc_schedule *s)
{
    /* Rounds without entries carry nothing; phases without rounds or folds
     * do nothing. */
    int nr = 0, np = 0;
    for (int p = 0; p < s->nphases; p++) {
        cc_phase ph = s->phases[p];
        int first = nr;
        for (int r = ph.first; r < ph.first + ph.count; r++)
            if (s->rounds[r].count > 0) s->rounds[nr++] = s->rounds[r];
        if (nr > first || ph.fcount > 0) s->phases[np++] = (cc_phase){ ph.kpos, first, nr - first, ph.ffirst, ph.fcount };
    }
    s->nrounds = nr;
    s->nphases = np;
}

void cc_schedule_free(cc_schedule *s)
{
    if (!s) return;
    free(s->order);
    free(s->perm);
    free(s->offs);
    free(s->phases);
    free(s->rounds);
    free(s->entries);
    free(s->copies);
    free(s->vecs);
    free(s->temp_like);
    free(s->folds);
    free(s);
}

int cc_bucket_sort(const int *idx, int n, const int *key, int nkeys, int *out)
{
    int *cnt = calloc((size_t)nkeys + 1, sizeof(int));
    if (!cnt) return CC_ENOMEM;
    for (int i = 0; i < n; i++) cnt[key[idx[i]] + 1]++;
    for (int k = 0; k < nkeys; k++) cnt[k + 1] += cnt[k];
    for (int i = 0; i < n; i++) out[cnt[key[idx[i]]]++] = idx[i];
    free(cnt);
    return CC_OK;
}
