/* Message tags of a communicator: the counter of blocking and non-blocking
 * operations and the pairs held by persistent requests (DEVELOPERS.md,
 * "Tags and ordering"). */
#include "topo/comm.h"

#include <pthread.h>
#include <stdlib.h>

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
