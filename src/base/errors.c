#include "base/errors.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Enough for every predefined class of MPI-4.1 and some headroom; classes
 * beyond this fall back to the bare class. */
#define NCLASS 80

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* Where codes cannot carry strings, the sentences of the last few errors of
 * this thread, so that raising an error decided earlier can still print it. */
#define RECENT 8
static _Thread_local struct {
    int cls;
    char msg[256];
} recent[RECENT];
static _Thread_local int recent_next;

static void remember(int cls, const char *msg)
{
    recent[recent_next].cls = cls;
    /* (kept short on purpose: the precision says so, for gcc -O3's
     * -Wformat-truncation) */
    snprintf(recent[recent_next].msg, sizeof recent[recent_next].msg, "%.*s",
             (int)sizeof recent[recent_next].msg - 1, msg);
    recent_next = (recent_next + 1) % RECENT;
}

static const char *recall(int cls)
{
    for (int k = 1; k <= RECENT; k++) {
        int j = (recent_next - k + RECENT) % RECENT;
        if (recent[j].cls == cls && recent[j].msg[0]) return recent[j].msg;
    }
    return NULL;
}
static int probed;          /* 0: not yet, 1: strings on codes work, -1: they do not, 2: our table */
static int codes[NCLASS][CC_ERR_RING];
static int next[NCLASS];

/* MPICH 4.0 takes a code that MPI_Add_error_code made for a predefined
 * class for an index into its own error stack: MPI_Error_string gives a
 * stale message of MPICH's instead of the string added for it.  There the
 * library keeps the sentences itself (texts[class][slot], allocated on the
 * slot's first use) and answers MPI_Error_string for its own codes, through
 * the profiling interface; every other code goes to PMPI_Error_string. */
#if defined(MPICH_VERSION) && !defined(CARTCOLL_NO_ERROR_STRING_HOOK)
#define CC_ERROR_STRING_HOOK 1
static char *texts[NCLASS][CC_ERR_RING];

int MPI_Error_string(int code, char *string, int *resultlen)
{
    int cls = -1, found = 0;
    if (code > MPI_SUCCESS && PMPI_Error_class(code, &cls) == MPI_SUCCESS && cls > MPI_SUCCESS && cls < NCLASS &&
        string && resultlen) {
        pthread_mutex_lock(&lock);
        for (int k = 0; k < CC_ERR_RING && !found; k++)
            if (codes[cls][k] == code && texts[cls][k]) {
                snprintf(string, MPI_MAX_ERROR_STRING, "%s", texts[cls][k]);
                *resultlen = (int)strlen(string);
                found = 1;
            }
        pthread_mutex_unlock(&lock);
    }
    return found ? MPI_SUCCESS : PMPI_Error_string(code, string, resultlen);
}
#endif

#ifndef CC_ERROR_STRING_HOOK
/* Can this MPI give a code of a predefined class a string of our own? */
static int probe(void)
{
    int code, cls, len;
    char s[MPI_MAX_ERROR_STRING];
    char msg[] = "cartcoll error-string probe"; /* not const: see code_with_string */
    if (MPI_Add_error_code(MPI_ERR_ARG, &code) != MPI_SUCCESS) return -1;
    if (MPI_Add_error_string(code, msg) != MPI_SUCCESS) return -1;
    if (MPI_Error_class(code, &cls) != MPI_SUCCESS || cls != MPI_ERR_ARG) return -1;
    if (MPI_Error_string(code, s, &len) != MPI_SUCCESS || strcmp(s, msg) != 0) return -1;
    codes[MPI_ERR_ARG][0] = code; /* reuse it as the first ring entry */
    return 1;
}
#endif

/* msg is not const: MPI before 4.0 (SimGrid SMPI 3.32) declares
 * MPI_Add_error_string(int, char *). */
static int code_with_string(int cls, char *msg)
{
    if (cls <= MPI_SUCCESS || cls >= NCLASS) return cls;
    pthread_mutex_lock(&lock);
#ifdef CC_ERROR_STRING_HOOK
    if (!probed) probed = 2;
#else
    if (!probed) probed = probe();
#endif
    int code = cls, kept = 0, *slot = &codes[cls][next[cls]];
    if (probed > 0 && !*slot && MPI_Add_error_code(cls, slot) != MPI_SUCCESS) *slot = 0;
    if (*slot && probed == 1) kept = MPI_Add_error_string(*slot, msg) == MPI_SUCCESS;
#ifdef CC_ERROR_STRING_HOOK
    char **text = &texts[cls][next[cls]];
    if (*slot && !*text) *text = malloc(MPI_MAX_ERROR_STRING);
    if (*slot && *text) {
        snprintf(*text, MPI_MAX_ERROR_STRING, "%s", msg);
        kept = 1;
    }
#endif
    if (kept) {
        code = *slot;
        next[cls] = (next[cls] + 1) % CC_ERR_RING;
    }
    pthread_mutex_unlock(&lock);
    remember(cls, msg); /* (also for codes with a string: an MPI's own fatal handler does not print ours) */
    return code;
}

/* Without strings on codes, the sentence would be lost: print it where a
 * user will see it before a fatal handler aborts. */
static void maybe_print(MPI_Comm comm, int code, const char *msg)
{
    /* the code carries the sentence, which the MPI's own handlers print
     * (not where the library keeps the sentences itself) */
    if (code != cc_error_class(code) && probed == 1) return;
    const char *v = getenv("CARTCOLL_VERBOSE_ERRORS");
    int verbose = v && *v && strcmp(v, "0") != 0;
    if (!verbose) {
        MPI_Errhandler eh;
        if (MPI_Comm_get_errhandler(comm, &eh) != MPI_SUCCESS) return;
        verbose = eh == MPI_ERRORS_ARE_FATAL;
        MPI_Errhandler_free(&eh);
    }
    if (verbose) fprintf(stderr, "cartcoll: %s\n", msg);
}

static int vcode(int cls, const char *fmt, va_list ap, char *msg, size_t n)
{
    vsnprintf(msg, n, fmt, ap);
    return code_with_string(cls, msg);
}

int cc_error_code(int cls, const char *fmt, ...)
{
    char msg[MPI_MAX_ERROR_STRING];
    va_list ap;
    va_start(ap, fmt);
    int code = vcode(cls, fmt, ap, msg, sizeof msg);
    va_end(ap);
    return code;
}

int cc_error_raise(MPI_Comm comm, int code)
{
    if (comm == MPI_COMM_NULL) comm = MPI_COMM_SELF;
    if (code == cc_error_class(code) || probed != 1) {
        const char *msg = recall(cc_error_class(code));
        char s[MPI_MAX_ERROR_STRING];
        int len;
        if (msg) maybe_print(comm, code, msg);
        else if (MPI_Error_string(code, s, &len) == MPI_SUCCESS) maybe_print(comm, code, s);
    }
    MPI_Comm_call_errhandler(comm, code);
    return code;
}

int cc_error(MPI_Comm comm, int cls, const char *fmt, ...)
{
    char msg[MPI_MAX_ERROR_STRING];
    va_list ap;
    va_start(ap, fmt);
    int code = vcode(cls, fmt, ap, msg, sizeof msg);
    va_end(ap);
    return cc_error_raise(comm, code);
}

int cc_error_mpi_code(int mpi_code, const char *what)
{
    char s[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(mpi_code, s, &len) != MPI_SUCCESS) snprintf(s, sizeof s, "error %d", mpi_code);
    return cc_error_code(cc_error_class(mpi_code), "%s: the MPI library reported: %s", what, s);
}

int cc_error_mpi(MPI_Comm comm, int mpi_code, const char *what)
{
    return cc_error_raise(comm, cc_error_mpi_code(mpi_code, what));
}

int cc_error_class(int code)
{
    int cls = MPI_ERR_OTHER;
    if (code == MPI_SUCCESS) return MPI_SUCCESS;
    if (MPI_Error_class(code, &cls) != MPI_SUCCESS) return MPI_ERR_OTHER;
    return cls;
}
