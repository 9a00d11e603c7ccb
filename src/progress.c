/* The list of active requests of this process, so that waiting on one
 * request advances the others (MPI's progress rule for non-blocking
 * collectives). */
#include "request.h"

#include <pthread.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static Cart_request head;
static int count;
static atomic_int listed; /* count, readable without the lock */

void cc_progress_add(Cart_request r)
{
    pthread_mutex_lock(&lock);
    if (!r->listed) {
        r->prev = NULL;
        r->next = head;
        if (head) head->prev = r;
        head = r;
        r->listed = 1;
        count++;
        atomic_store(&listed, count);
    }
    pthread_mutex_unlock(&lock);
}

void cc_progress_remove(Cart_request r)
{
    pthread_mutex_lock(&lock);
    if (r->listed) {
        if (r->prev) r->prev->next = r->next;
        else head = r->next;
        if (r->next) r->next->prev = r->prev;
        r->listed = 0;
        count--;
        atomic_store(&listed, count);
    }
    pthread_mutex_unlock(&lock);
}

int cc_progress_others(Cart_request self)
{
    if (atomic_load(&listed) == 0) return 0;
    pthread_mutex_lock(&lock);
    int active = 0;
    /* Advance under the list lock: requests cannot leave the list (and be
     * freed) meanwhile; a request another thread is advancing is skipped.
     * Errors stay with the request and surface when its owner completes it. */
    for (Cart_request r = head; r; r = r->next) {
        if (r == self || r->state != CC_REQ_ACTIVE) continue;
        if (cc_request_trylock(r)) {
            int done = 0;
            (void)cc_request_advance(r, &done);
            cc_request_unlock(r);
            if (done) continue;
        }
        active++;
    }
    pthread_mutex_unlock(&lock);
    return active;
}
