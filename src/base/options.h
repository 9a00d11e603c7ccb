/* Options: algorithm and executor from info keys and the environment.
 *   cartcoll_algorithm = auto|direct|combining|torus   (CARTCOLL_ALGORITHM)
 *   cartcoll_executor  = auto|datatype|pack            (CARTCOLL_EXECUTOR)
 *   cartcoll_async_progress = true|false              (CARTCOLL_ASYNC_PROGRESS)
 * Precedence: *_init info, then the communicator's (create info), then the
 * environment, then auto. */
#ifndef CC_OPTIONS_H
#define CC_OPTIONS_H

#include <mpi.h>

#define CC_AUTO 0
enum { CC_EXEC_AUTO = 0, CC_EXEC_DATATYPE = 1, CC_EXEC_PACK = 2 };

typedef struct cc_choice {
    int algorithm;   /* CC_AUTO or CC_DIRECT/CC_COMBINING/CC_TORUS */
    int executor;    /* CC_EXEC_* */
    int async;       /* asynchronous progress asked for (cartcoll_async_progress, CARTCOLL_ASYNC_PROGRESS) */
} cc_choice;

/* Defaults from the environment (auto where unset).  On a bad value returns
 * an error code (class MPI_ERR_ARG) with the sentence, else MPI_SUCCESS. */
int cc_options_env(cc_choice *out);

/* Overrides *inout with the keys present in info (MPI_INFO_NULL: none).
 * `who` names the caller in messages.  Returns MPI_SUCCESS or an error code
 * (class MPI_ERR_ARG or MPI_ERR_INFO) with the sentence, not raised. */
int cc_options_info(MPI_Info info, cc_choice *inout, const char *who);

/* A byte count given as text (info values, environment variables): one or
 * more decimal digits and nothing else -- no sign, no spaces, no empty
 * string; values beyond 2^63 - 1 saturate.  Returns 1 and sets *out, or 0
 * (not a non-negative integer). */
int cc_parse_bytes(const char *v, long long *out);

/* CARTCOLL_VERBOSE set (and not 0): report decisions on stderr. */
int cc_verbose(void);

const char *cc_algorithm_name(int algorithm);
const char *cc_executor_name(int executor);

#endif
