/* Lower file of the deliberate cycle: it calls back up (cycles.h). */
#include "cycles.h"

int cyc_helper(int x) { return MPI_Fixture_up(x) + 1; }
