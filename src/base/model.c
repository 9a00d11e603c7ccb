/* The cost model's parameters: from the environment, kept from this
 * process's measurement, or the defaults (base/model.h). */
#include "base/model.h"

#include "base/errors.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define CC_DEFAULT_ALPHA 1e-6
#define CC_DEFAULT_BETA 1e-10
/* Per-message overhead as a fraction of alpha when it was not measured. */
#define CC_DEFAULT_OVERHEAD 0.25

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static double measured_alpha = -1, measured_beta = -1, measured_overhead = -1;

static int env_number(const char *name, double *out, int *set)
{
    const char *v = getenv(name);
    *set = 0;
    if (!v || !*v) return MPI_SUCCESS;
    char *end;
    double x = strtod(v, &end);
    if (*end || !(x >= 0) || !isfinite(x))
        return cc_error_code(MPI_ERR_ARG, "environment variable %s = \"%.32s\" is not a non-negative number of seconds",
                             name, v);
    *out = x;
    *set = 1;
    return MPI_SUCCESS;
}

int cc_model_local(double *alpha, double *beta, double *overhead, int *need)
{
    int sa, sb, so, rc = env_number("CARTCOLL_ALPHA", alpha, &sa);
    if (rc == MPI_SUCCESS) rc = env_number("CARTCOLL_BETA", beta, &sb);
    if (rc == MPI_SUCCESS) rc = env_number("CARTCOLL_OVERHEAD", overhead, &so);
    if (rc != MPI_SUCCESS) return rc;
    pthread_mutex_lock(&lock);
    if (!sa) *alpha = measured_alpha;
    if (!sb) *beta = measured_beta;
    if (!so) *overhead = measured_overhead;
    pthread_mutex_unlock(&lock);
    *need = *alpha < 0 || *beta < 0;
    return MPI_SUCCESS;
}

int cc_model_fixed(double *alpha, double *beta, double *overhead)
{
    int sa, sb, so;
    *alpha = *beta = *overhead = -1;
    int rc = env_number("CARTCOLL_ALPHA", alpha, &sa);
    if (rc == MPI_SUCCESS) rc = env_number("CARTCOLL_BETA", beta, &sb);
    if (rc == MPI_SUCCESS) rc = env_number("CARTCOLL_OVERHEAD", overhead, &so);
    cc_model_defaults(alpha, beta, overhead);
    return rc;
}

void cc_model_record(double a, double b, double o)
{
    pthread_mutex_lock(&lock);
    if (measured_alpha < 0 && a >= 0) measured_alpha = a, measured_beta = b, measured_overhead = o;
    pthread_mutex_unlock(&lock);
}

long long cc_model_bits(double x)
{
    long long b = 0;
    if (x > 0) memcpy(&b, &x, sizeof b);
    return b;
}

double cc_model_value(long long bits)
{
    double x;
    memcpy(&x, &bits, sizeof x);
    return x;
}

void cc_model_defaults(double *alpha, double *beta, double *overhead)
{
    if (!(*alpha > 0)) *alpha = CC_DEFAULT_ALPHA;
    if (!(*beta > 0)) *beta = CC_DEFAULT_BETA;
    if (!(*overhead > 0)) *overhead = *alpha * CC_DEFAULT_OVERHEAD;
}
