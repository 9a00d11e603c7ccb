#include "base/options.h"

#include "base/errors.h"
#include "sched/schedule.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const alg_names[] = { "auto", "direct", "combining", "torus" };
static const char *const exec_names[] = { "auto", "datatype", "pack" };

const char *cc_algorithm_name(int a) { return a >= 0 && a <= CC_TORUS ? alg_names[a] : "?"; }
const char *cc_executor_name(int e) { return e >= 0 && e <= CC_EXEC_PACK ? exec_names[e] : "?"; }

int cc_verbose(void)
{
    const char *v = getenv("CARTCOLL_VERBOSE");
    return v && *v && strcmp(v, "0") != 0;
}

int cc_parse_bytes(const char *v, long long *out)
{
    if (!v || !*v) return 0;
    long long x = 0;
    for (const char *c = v; *c; c++) {
        if (*c < '0' || *c > '9') return 0;
        int d = *c - '0';
        x = x > (LLONG_MAX - d) / 10 ? LLONG_MAX : x * 10 + d;
    }
    *out = x;
    return 1;
}

static int lookup(const char *v, const char *const *names, int n)
{
    for (int i = 0; i < n; i++)
        if (strcmp(v, names[i]) == 0) return i;
    return -1;
}

/* Parse one value; `source` says where it came from, for the message. */
static int parse(const char *v, int is_alg, int *out, const char *source)
{
    int x = is_alg ? lookup(v, alg_names, 4) : lookup(v, exec_names, 3);
    if (x < 0)
        return cc_error_code(MPI_ERR_ARG, "%s: unknown %s \"%.64s\" (expected %s)", source,
                             is_alg ? "algorithm" : "executor", v,
                             is_alg ? "auto, direct, combining or torus" : "auto, datatype or pack");
    *out = x;
    return MPI_SUCCESS;
}

static int parse_bool(const char *v, int *out, const char *source)
{
    static const char *const yes[] = { "1", "true", "yes", "on" }, *const no[] = { "0", "false", "no", "off" };
    if (lookup(v, yes, 4) >= 0) *out = 1;
    else if (lookup(v, no, 4) >= 0) *out = 0;
    else return cc_error_code(MPI_ERR_ARG, "%s: \"%.64s\" is not a boolean (expected true or false)", source, v);
    return MPI_SUCCESS;
}

int cc_options_env(cc_choice *out)
{
    out->algorithm = CC_AUTO;
    out->executor = CC_EXEC_AUTO;
    out->async = 0;
    const char *a = getenv("CARTCOLL_ALGORITHM"), *e = getenv("CARTCOLL_EXECUTOR");
    const char *p = getenv("CARTCOLL_ASYNC_PROGRESS");
    int rc = MPI_SUCCESS;
    if (a && *a) rc = parse(a, 1, &out->algorithm, "environment variable CARTCOLL_ALGORITHM");
    if (rc == MPI_SUCCESS && e && *e) rc = parse(e, 0, &out->executor, "environment variable CARTCOLL_EXECUTOR");
    if (rc == MPI_SUCCESS && p && *p) rc = parse_bool(p, &out->async, "environment variable CARTCOLL_ASYNC_PROGRESS");
    return rc;
}

/* Value of `key` in info, or NULL: ours are short words. */
static int info_value(MPI_Info info, const char *key, char *buf, int n, int *found)
{
    int flag = 0, len = 0;
    *found = 0;
    if (MPI_Info_get_valuelen(info, key, &len, &flag) != MPI_SUCCESS) return MPI_ERR_INFO;
    if (!flag) return MPI_SUCCESS;
    if (len >= n) return MPI_ERR_INFO_VALUE;
#if MPI_VERSION >= 4
    int buflen = n;
    if (MPI_Info_get_string(info, key, &buflen, buf, &flag) != MPI_SUCCESS) return MPI_ERR_INFO;
#else
    if (MPI_Info_get(info, key, n - 1, buf, &flag) != MPI_SUCCESS) return MPI_ERR_INFO;
#endif
    *found = flag;
    return MPI_SUCCESS;
}

int cc_options_info(MPI_Info info, cc_choice *inout, const char *who)
{
    if (info == MPI_INFO_NULL) return MPI_SUCCESS;
    static const char *const keys[] = { "cartcoll_algorithm", "cartcoll_executor", "cartcoll_async_progress" };
    for (int k = 0; k < 3; k++) {
        char v[64], src[128];
        int found, rc = info_value(info, keys[k], v, sizeof v, &found);
        if (rc == MPI_ERR_INFO_VALUE)
            return cc_error_code(MPI_ERR_ARG, "%s: the value of info key %s is too long", who, keys[k]);
        if (rc != MPI_SUCCESS)
            return cc_error_code(MPI_ERR_INFO, "%s: the info argument is not a valid MPI_Info", who);
        if (!found) continue;
        snprintf(src, sizeof src, "%s: info key %s", who, keys[k]);
        rc = k == 2 ? parse_bool(v, &inout->async, src)
                    : parse(v, k == 0, k == 0 ? &inout->algorithm : &inout->executor, src);
        if (rc != MPI_SUCCESS) return rc;
    }
    return MPI_SUCCESS;
}
