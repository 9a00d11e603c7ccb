/* A deliberate call cycle for scripts/check_cycles.py's self-test:
 * cycle_a.c calls down into cycle_b.c, which calls back up through an MPI_
 * name that cycle_a.c defines (as a drop-in defining MPI_Send makes the
 * library it calls call it back); cycle_c.c is a leaf outside the cycle. */
#ifndef CYCLES_H
#define CYCLES_H
int cyc_top(int x);
int MPI_Fixture_up(int x);
int cyc_helper(int x);
int cyc_leaf(int x);
#endif
