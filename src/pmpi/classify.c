/* The drop-in's state, below its other files: the mode (CARTCOLL_PRELOAD),
 * the thread level, what each communicator is (classified once, kept in an
 * attribute that dups copy), the report's counters and the error codes of
 * its sentences about requests (pmpi/preload.h). */
#include "pmpi/preload.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MODE_OFF, MODE_ON, MODE_PASSTHROUGH };
enum { KIND_OTHER = 1, KIND_GRAPH, KIND_CARTESIAN }; /* attribute values */

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int mode = MODE_ON, report, threaded;
static int keyval = MPI_KEYVAL_INVALID;
static atomic_long seen, cartesian, calls, accelerated;

static void setup(void)
{
    const char *m = getenv("CARTCOLL_PRELOAD"), *r = getenv("CARTCOLL_PRELOAD_REPORT");
    if (m && !strcmp(m, "off")) mode = MODE_OFF;
    else if (m && !strcmp(m, "passthrough")) mode = MODE_PASSTHROUGH;
    report = r && *r && strcmp(r, "0") != 0;
    /* the table of requests locks only where threads may meet in MPI */
    int level = MPI_THREAD_SINGLE;
    PMPI_Query_thread(&level);
    threaded = level == MPI_THREAD_MULTIPLE;
    /* dups keep the classification (MPI_COMM_DUP_FN copies the value) */
    if (PMPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &keyval, NULL) != MPI_SUCCESS)
        keyval = MPI_KEYVAL_INVALID;
}

int pl_on(void)
{
    pthread_once(&once, setup);
    return mode != MODE_OFF;
}

int pl_threaded(void) { return threaded; }

void pl_remember(MPI_Comm c, int is_cart)
{
    if (keyval == MPI_KEYVAL_INVALID || c == MPI_COMM_NULL) return;
    int kind = is_cart ? KIND_CARTESIAN : KIND_GRAPH;
    PMPI_Comm_set_attr(c, keyval, (void *)(intptr_t)kind);
    atomic_fetch_add(&seen, 1);
    if (kind == KIND_CARTESIAN) atomic_fetch_add(&cartesian, 1);
}

/* What a communicator is, for a neighbourhood call (classified once; a
 * communicator made before the drop-in saw it is classified here). */
static int kind_of(MPI_Comm c)
{
    void *v = NULL;
    int flag = 0, topo = MPI_UNDEFINED;
    if (keyval != MPI_KEYVAL_INVALID && PMPI_Comm_get_attr(c, keyval, &v, &flag) == MPI_SUCCESS && flag)
        return (int)(intptr_t)v;
    if (PMPI_Topo_test(c, &topo) != MPI_SUCCESS) return KIND_OTHER;
    int kind = topo == MPI_CART ? KIND_CARTESIAN : topo == MPI_DIST_GRAPH || topo == MPI_GRAPH ? KIND_GRAPH : KIND_OTHER;
    if (keyval != MPI_KEYVAL_INVALID) PMPI_Comm_set_attr(c, keyval, (void *)(intptr_t)kind);
    return kind;
}

void pl_count(int cart)
{
    atomic_fetch_add(&calls, 1);
    if (cart) atomic_fetch_add(&accelerated, 1);
}

int pl_take(MPI_Comm comm, int count, int *is_cart)
{
    if (!pl_on()) return 0;
    int kind = kind_of(comm);
    if (kind == KIND_OTHER || (mode == MODE_PASSTHROUGH && kind != KIND_CARTESIAN)) return 0;
    if (count) pl_count(kind == KIND_CARTESIAN);
    if (is_cart) *is_cart = kind == KIND_CARTESIAN;
    return 1;
}

/* Error codes with a sentence, made once per sentence (MPI_Add_error_code
 * codes are a scarce resource); the class alone if that fails. */
int pl_request_error(int cls, const char *what)
{
    static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
    static const char *said[4];
    static int codes[4];
    int code = cls;
    pthread_mutex_lock(&mu);
    for (int i = 0; i < 4; i++) {
        if (said[i] == what) {
            code = codes[i];
            break;
        }
        if (!said[i]) {
            if (PMPI_Add_error_code(cls, &code) != MPI_SUCCESS || PMPI_Add_error_string(code, what) != MPI_SUCCESS)
                code = cls;
            said[i] = what, codes[i] = code;
            break;
        }
    }
    pthread_mutex_unlock(&mu);
    PMPI_Comm_call_errhandler(MPI_COMM_WORLD, code);
    return code;
}

int pl_report(long v[4])
{
    pthread_once(&once, setup);
    if (mode == MODE_OFF) return -1;
    v[0] = atomic_load(&seen), v[1] = atomic_load(&cartesian);
    v[2] = atomic_load(&calls), v[3] = atomic_load(&accelerated);
    return report;
}
