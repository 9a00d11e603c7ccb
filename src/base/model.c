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
        return cc_error_code(MPI_ERR_ARG, "environment variable %s = \"%.32s\" is not a non-negative number", name,
                             v);
    *out = x;
    *set = 1;
    return MPI_SUCCESS;
}

/* Nothing known yet: alpha, beta, overhead -1; phase_wait and cpu their
 * defaults. */
static const cc_cost_params unknown = { -1, -1, -1, CC_COST_PHASE_WAIT, CC_COST_CPU };

/* The environment's values over `unknown`; *set[k] says which of alpha,
 * beta, overhead it gave.  On a bad value: `unknown` and the error. */
static int env_model(cc_cost_params *m, int set[3])
{
    int sp, sc;
    *m = unknown;
    int rc = env_number("CARTCOLL_ALPHA", &m->alpha, &set[0]);
    if (rc == MPI_SUCCESS) rc = env_number("CARTCOLL_BETA", &m->beta, &set[1]);
    if (rc == MPI_SUCCESS) rc = env_number("CARTCOLL_OVERHEAD", &m->overhead, &set[2]);
    if (rc == MPI_SUCCESS) rc = env_number("CARTCOLL_PHASE_WAIT", &m->phase_wait, &sp);
    if (rc == MPI_SUCCESS) rc = env_number("CARTCOLL_CPU", &m->cpu, &sc);
    if (rc != MPI_SUCCESS) *m = unknown;
    return rc;
}

int cc_model_local(cc_cost_params *m, int *need)
{
    int set[3];
    int rc = env_model(m, set);
    if (rc != MPI_SUCCESS) return rc;
    pthread_mutex_lock(&lock);
    if (!set[0]) m->alpha = measured_alpha;
    if (!set[1]) m->beta = measured_beta;
    if (!set[2]) m->overhead = measured_overhead;
    pthread_mutex_unlock(&lock);
    *need = m->alpha < 0 || m->beta < 0;
    return MPI_SUCCESS;
}

int cc_model_fixed(cc_cost_params *m)
{
    int set[3];
    int rc = env_model(m, set);
    cc_model_defaults(m);
    return rc;
}

void cc_model_record(double a, double b, double o)
{
    pthread_mutex_lock(&lock);
    if (measured_alpha < 0 && a >= 0) measured_alpha = a, measured_beta = b, measured_overhead = o;
    pthread_mutex_unlock(&lock);
}

static long long bits_of(double x)
{
    long long b = 0;
    if (x > 0) memcpy(&b, &x, sizeof b);
    return b;
}

static double value_of(long long bits)
{
    double x;
    memcpy(&x, &bits, sizeof x);
    return x;
}

void cc_model_to_bits(const cc_cost_params *m, long long bits[CC_MODEL_FIELDS])
{
    const double v[CC_MODEL_FIELDS] = { m->alpha, m->beta, m->overhead, m->phase_wait, m->cpu };
    for (int k = 0; k < CC_MODEL_FIELDS; k++) bits[k] = bits_of(v[k]);
}

void cc_model_from_bits(const long long bits[CC_MODEL_FIELDS], cc_cost_params *m)
{
    *m = (cc_cost_params){ value_of(bits[0]), value_of(bits[1]), value_of(bits[2]), value_of(bits[3]),
                           value_of(bits[4]) };
    cc_model_defaults(m);
}

void cc_model_defaults(cc_cost_params *m)
{
    if (!(m->alpha > 0)) m->alpha = CC_DEFAULT_ALPHA;
    if (!(m->beta > 0)) m->beta = CC_DEFAULT_BETA;
    if (!(m->overhead > 0)) m->overhead = m->alpha * CC_DEFAULT_OVERHEAD;
}
