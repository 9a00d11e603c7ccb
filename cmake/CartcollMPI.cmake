# Find MPI for the compiler we were given.  Configuring with
# -DCMAKE_C_COMPILER=mpicc.mpich (or mpicc.openmpi) selects that MPI; the
# launcher is then the one of the same flavour (Debian installs both side by
# side, and plain `mpiexec` may belong to the other one).
find_package(MPI REQUIRED COMPONENTS C)

include(CheckSymbolExists)
set(CMAKE_REQUIRED_LIBRARIES MPI::MPI_C)
check_symbol_exists(OPEN_MPI "mpi.h" CARTCOLL_HAVE_OPEN_MPI)
check_symbol_exists(MPICH_VERSION "mpi.h" CARTCOLL_HAVE_MPICH)
# SimGrid's SMPI (smpicc): programs are shared objects that only run on a
# simulated platform under smpirun (docs/scale.md).
check_symbol_exists(SMPI_H "mpi.h" CARTCOLL_HAVE_SMPI)
unset(CMAKE_REQUIRED_LIBRARIES)

if(CARTCOLL_HAVE_SMPI)
  set(CARTCOLL_MPI_FLAVOUR smpi)
  set(CARTCOLL_MPI_PC "")
elseif(CARTCOLL_HAVE_OPEN_MPI)
  set(CARTCOLL_MPI_FLAVOUR openmpi)
  set(CARTCOLL_MPI_PC ompi-c)
elseif(CARTCOLL_HAVE_MPICH)
  set(CARTCOLL_MPI_FLAVOUR mpich)
  set(CARTCOLL_MPI_PC mpich)
else()
  set(CARTCOLL_MPI_FLAVOUR other)
  set(CARTCOLL_MPI_PC "")
endif()

if(NOT CARTCOLL_MPIEXEC)
  get_filename_component(_cc_dir "${CMAKE_C_COMPILER}" DIRECTORY)
  if(CARTCOLL_MPI_FLAVOUR STREQUAL "openmpi")
    find_program(CARTCOLL_MPIEXEC NAMES mpirun.openmpi mpiexec.openmpi HINTS ${_cc_dir})
  elseif(CARTCOLL_MPI_FLAVOUR STREQUAL "mpich")
    find_program(CARTCOLL_MPIEXEC NAMES mpiexec.mpich mpiexec.hydra HINTS ${_cc_dir})
  elseif(CARTCOLL_MPI_FLAVOUR STREQUAL "smpi")
    find_program(CARTCOLL_MPIEXEC NAMES smpirun HINTS ${_cc_dir})
  endif()
  if(NOT CARTCOLL_MPIEXEC)
    set(CARTCOLL_MPIEXEC "${MPIEXEC_EXECUTABLE}" CACHE FILEPATH "MPI launcher" FORCE)
  endif()
endif()
message(STATUS "cartcoll: MPI flavour ${CARTCOLL_MPI_FLAVOUR}, launcher ${CARTCOLL_MPIEXEC}")

# Environment for launching tests: Open MPI refuses root and more processes
# than cores unless told.
set(CARTCOLL_MPI_TEST_ENV "")
if(CARTCOLL_MPI_FLAVOUR STREQUAL "openmpi")
  set(CARTCOLL_MPI_TEST_ENV
      "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OMPI_MCA_rmaps_base_oversubscribe=1;OMPI_MCA_btl_vader_single_copy_mechanism=none")
endif()

# cartcoll_add_mpi_test(NAME n NP p COMMAND exe [args...] [TIMEOUT s] [ENV k=v...])
# adds test n_npP running `exe args` on p processes under the right launcher.
function(cartcoll_add_mpi_test)
  cmake_parse_arguments(T "" "NAME;NP;TIMEOUT" "COMMAND;ENV;LABELS" ${ARGN})
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 120)
  endif()
  list(GET T_COMMAND 0 _exe)
  list(REMOVE_AT T_COMMAND 0)
  set(_name ${T_NAME}_np${T_NP})
  add_test(NAME ${_name}
           COMMAND ${CARTCOLL_MPIEXEC} -n ${T_NP} $<TARGET_FILE:${_exe}> ${T_COMMAND})
  set_tests_properties(${_name} PROPERTIES TIMEOUT ${T_TIMEOUT}
                       ENVIRONMENT "${CARTCOLL_MPI_TEST_ENV};${T_ENV}"
                       LABELS "mpi;${T_LABELS}" PROCESSORS 1)
endfunction()
