#include "sched/schedule_graph.h"

#include "geom/geometry.h"

#include <stdlib.h>

static cc_local *local_graph(int collective, int indeg, const int src[], int outdeg, const int dst[])
{
    int n = indeg > outdeg ? indeg : outdeg;
    cc_local *l = calloc(1, sizeof *l);
    if (!l) return NULL;
    l->phase_first = malloc(2 * sizeof(int));
    l->rounds = calloc((size_t)(n ? n : 1), sizeof(cc_lround));
    l->slots = malloc(sizeof(int) * 2 * (size_t)(n ? n : 1));
    if (!l->phase_first || !l->rounds || !l->slots) {
        cc_local_free(l);
        return NULL;
    }
    l->nphases = 1;
    l->phase_first[0] = 0;
    l->phase_first[1] = n;
    l->nrounds = l->max_phase_rounds = n;
    for (int i = 0; i < n; i++) {
        cc_lround *r = &l->rounds[i];
        r->id = i;
        r->send_rank = i < outdeg ? dst[i] : CC_NONE;
        r->recv_rank = i < indeg ? src[i] : CC_NONE;
        r->sfirst = l->nslots;
        r->scount = r->send_rank != CC_NONE;
        if (r->scount) l->slots[l->nslots++] = CC_SLOT(CC_SLOT_SEND, collective == CC_ALLGATHER ? 0 : i);
        r->rfirst = l->nslots;
        r->rcount = r->recv_rank != CC_NONE;
        if (r->rcount) l->slots[l->nslots++] = CC_SLOT(CC_SLOT_RECV, i);
        r->sdirect = r->rdirect = 1;
        l->sent += r->scount;
    }
    return l;
}

int cc_schedule_graph(int collective, int indeg, const int src[], int outdeg, const int dst[], cc_schedule **s,
                      cc_local **l)
{
    *s = calloc(1, sizeof **s);
    *l = local_graph(collective, indeg, src, outdeg, dst);
    if (!*s || !*l) {
        free(*s);
        cc_local_free(*l);
        *s = NULL;
        *l = NULL;
        return CC_ENOMEM;
    }
    (*s)->collective = collective;
    (*s)->algorithm = CC_DIRECT;
    (*s)->t = indeg;
    (*s)->nphases = 1;
    (*s)->nrounds = (*l)->nrounds;
    (*s)->nentries = (int)(*l)->sent;
    return CC_OK;
}
