/* A leaf: called from the cycle, calls nothing back (cycles.h). */
#include "cycles.h"

int cyc_leaf(int x) { return 2 * x; }
