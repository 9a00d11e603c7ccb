# scripts/check_cycles.py must fail on the deliberate cycle of this folder
# (cycles.h) and name it: both files, an edge each way with its symbol (the
# way back an MPI_ name), and not the leaf.
#   cmake -DPYTHON=python3 -DCHECK=scripts/check_cycles.py -DOBJS=<objects dir> -P selftest.cmake
execute_process(COMMAND ${PYTHON} ${CHECK} ${OBJS} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT rc EQUAL 1)
  message(FATAL_ERROR "check_cycles.py exited ${rc} on a deliberate cycle (want 1)")
endif()
foreach(want "cycle 1: 2 files" "cycles/cycle_a.c -> cycles/cycle_b.c: cyc_helper"
             "cycles/cycle_b.c -> cycles/cycle_a.c: MPI_Fixture_up"
             "3 files, 3 edges, 1 cycle(s) of 2 files")
  string(FIND "${out}" "${want}" at)
  if(at LESS 0)
    message(FATAL_ERROR "check_cycles.py did not report '${want}'")
  endif()
endforeach()
string(FIND "${out}" "cycle_c.c" at)
if(at GREATER_EQUAL 0)
  message(FATAL_ERROR "check_cycles.py put the leaf cycle_c.c into the cycle")
endif()
# Without the file that calls back, the rest is acyclic and passes.
file(GLOB_RECURSE acyclic "${OBJS}/*cycle_a.c.o" "${OBJS}/*cycle_c.c.o")
execute_process(COMMAND ${PYTHON} ${CHECK} ${acyclic} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "check_cycles.py exited ${rc} on acyclic files:\n${out}${err}")
endif()
message(STATUS "call-cycle check: the deliberate cycle reported, the acyclic rest accepted")
