/* cartbench: the family of the regular, v and w neighbourhood allgather
 * and alltoall (cb_regular.c): buffers laid out with gaps, the baseline's
 * compact arrays, the expectation from the grid, the checks against it and
 * against the baseline's result. */
#ifndef CB_REGULAR_H
#define CB_REGULAR_H

#include "cb_types.h"

extern const cb_family cb_regular_family;

#endif
