/* Upper file of the deliberate cycle (cycles.h). */
#include "cycles.h"

int cyc_top(int x) { return cyc_helper(x) + cyc_leaf(x); }

int MPI_Fixture_up(int x) { return x > 0 ? cyc_top(x - 1) : 0; }
