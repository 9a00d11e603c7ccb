/* The cost model's parameters (sched/schedule_cost.h's cc_cost_params:
 * alpha, beta, the per-message overhead, the phase wait, the CPU scale):
 * where they come from -- the environment, values this process measured
 * earlier, the defaults -- and how processes agree on them in a MAX
 * reduction.  Below topo/ because every neighbourhood carries them
 * (cc_nbh.model) and topo/ sets them when it adopts or detects one; the
 * measurement itself (messages) and the cost model are choose/'s
 * (choose/calibrate.c, choose/choose.c). */
#ifndef CC_MODEL_H
#define CC_MODEL_H

#include "sched/schedule_cost.h"

/* The parameters as long longs for a MAX reduction (cc_model_bits). */
enum { CC_MODEL_FIELDS = 5 };

/* This process's parameters: alpha/beta/overhead from CARTCOLL_ALPHA/
 * CARTCOLL_BETA/CARTCOLL_OVERHEAD (seconds: a phase's latency, per byte,
 * each further message of a phase; scripts/scale.sh gives a simulated
 * platform's), or measured earlier (-1 where unknown); phase_wait and cpu
 * from CARTCOLL_PHASE_WAIT and CARTCOLL_CPU, else their defaults; *need is
 * set when a measurement is still needed.  Returns MPI_SUCCESS or an error
 * code (bad environment value, *m then all unknown or default), not
 * raised. */
int cc_model_local(cc_cost_params *m, int *need);

/* Model values every process knows without communicating: the
 * environment's, else the defaults (for neighbourhoods set up without a
 * collective call: MPI_Cart_create communicators).  Returns MPI_SUCCESS or
 * an error code (bad environment value; the defaults are then set). */
int cc_model_fixed(cc_cost_params *m);

/* Keep this process's first complete measurement (a >= 0) for later
 * cc_model_local calls (choose/calibrate.c measures). */
void cc_model_record(double a, double b, double o);

/* Non-negative doubles order like their bit patterns, so a MAX reduction
 * of long longs agrees on model values too (unknown values: 0). */
void cc_model_to_bits(const cc_cost_params *m, long long bits[CC_MODEL_FIELDS]);
/* The agreed values back, with the defaults where still unknown. */
void cc_model_from_bits(const long long bits[CC_MODEL_FIELDS], cc_cost_params *m);

/* Defaults for alpha, beta and overhead where still unknown (<= 0). */
void cc_model_defaults(cc_cost_params *m);

#endif
