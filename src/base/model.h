/* The cost model's parameters (alpha, beta, the per-message overhead):
 * where they come from -- the environment, values this process measured
 * earlier, the defaults -- and how processes agree on them in a MAX
 * reduction.  Below topo/ because every neighbourhood carries them
 * (cc_nbh.alpha ...) and topo/ sets them when it adopts or detects one;
 * the measurement itself (messages) and the cost model are choose/'s
 * (choose/calibrate.c, choose/choose.c). */
#ifndef CC_MODEL_H
#define CC_MODEL_H

/* This process's alpha/beta/overhead: from CARTCOLL_ALPHA/CARTCOLL_BETA/
 * CARTCOLL_OVERHEAD (seconds: a phase's latency, per byte, each further
 * message of a phase; scripts/scale.sh gives a simulated platform's), or
 * measured earlier (-1 where unknown); *need is set when a measurement is
 * still needed.  Returns MPI_SUCCESS or an error code (bad environment
 * value), not raised. */
int cc_model_local(double *alpha, double *beta, double *overhead, int *need);

/* Model values every process knows without communicating: CARTCOLL_ALPHA,
 * CARTCOLL_BETA and CARTCOLL_OVERHEAD, else the defaults (for neighbourhoods set up without
 * a collective call: MPI_Cart_create communicators).  Returns MPI_SUCCESS
 * or an error code (bad environment value; the defaults are then set). */
int cc_model_fixed(double *alpha, double *beta, double *overhead);

/* Keep this process's first complete measurement (a >= 0) for later
 * cc_model_local calls (choose/calibrate.c measures). */
void cc_model_record(double a, double b, double o);

/* Non-negative doubles order like their bit patterns, so a MAX reduction
 * of long longs agrees on model values too (unknown values: 0). */
long long cc_model_bits(double x);
double cc_model_value(long long bits);

/* Defaults for model values that are still unknown (<= 0). */
void cc_model_defaults(double *alpha, double *beta, double *overhead);

#endif
