# Included by the top-level CMakeLists.txt (in its scope, so that the Fortran
# language is enabled there): find a Fortran compiler of the same MPI as
# CMAKE_C_COMPILER and enable Fortran.  Sets CARTCOLL_HAVE_FORTRAN.
#
#   * -DCMAKE_Fortran_COMPILER=... (or FC) given: that compiler, trusted;
#   * C compiler mpicc.<flavour> / mpicc: mpif90.<flavour> / mpifort.<flavour>
#     (mpif90 / mpifort) from the same directory or PATH -- never a plain
#     gfortran, whose MPI could be the other one;
#   * any other C compiler (plain cc, MPI found by FindMPI): the Fortran
#     compiler check_language finds, with FindMPI's Fortran MPI.
# The compiler must work, MPI must have the mpi_f08 module, and the C side
# must find ISO_Fortran_binding.h (TYPE(*), DIMENSION(..) descriptors); else
# a status line says why and the rest of cartcoll builds as before.
include(CheckLanguage)
set(CARTCOLL_HAVE_FORTRAN OFF)
set(_ccf_why "")

# A wrapper found unusable at an earlier configure is tried again (gfortran
# may have been installed since).
if(CARTCOLL_FORTRAN_DERIVED AND DEFINED CMAKE_Fortran_COMPILER AND NOT CMAKE_Fortran_COMPILER)
  unset(CMAKE_Fortran_COMPILER CACHE)
endif()

if(NOT DEFINED CMAKE_Fortran_COMPILER AND NOT DEFINED ENV{FC})
  get_filename_component(_ccf_cc "${CMAKE_C_COMPILER}" NAME)
  get_filename_component(_ccf_dir "${CMAKE_C_COMPILER}" DIRECTORY)
  if(_ccf_cc MATCHES "^mpicc([.-].+)?$")
    set(_ccf_sfx "${CMAKE_MATCH_1}")
    find_program(CARTCOLL_MPI_FORTRAN_WRAPPER NAMES mpif90${_ccf_sfx} mpifort${_ccf_sfx}
                 HINTS "${_ccf_dir}" DOC "Fortran MPI wrapper matching ${_ccf_cc}")
    if(CARTCOLL_MPI_FORTRAN_WRAPPER)
      # check_language's trial project takes the compiler from FC.
      set(ENV{FC} "${CARTCOLL_MPI_FORTRAN_WRAPPER}")
      check_language(Fortran)
      unset(ENV{FC})
      set(CARTCOLL_FORTRAN_DERIVED ON CACHE INTERNAL "CMAKE_Fortran_COMPILER was derived from CMAKE_C_COMPILER")
      if(NOT CMAKE_Fortran_COMPILER)
        set(_ccf_why "${CARTCOLL_MPI_FORTRAN_WRAPPER} does not compile (is gfortran installed?)")
      endif()
    else()
      set(_ccf_why "no mpif90${_ccf_sfx} / mpifort${_ccf_sfx} beside ${_ccf_cc}")
    endif()
  else()
    check_language(Fortran)
    if(NOT CMAKE_Fortran_COMPILER)
      set(_ccf_why "no Fortran compiler")
    endif()
  endif()
else()
  check_language(Fortran)
  if(NOT CMAKE_Fortran_COMPILER)
    set(_ccf_why "no working Fortran compiler (CMAKE_Fortran_COMPILER=${CMAKE_Fortran_COMPILER})")
  endif()
endif()

if(CMAKE_Fortran_COMPILER AND NOT _ccf_why)
  enable_language(Fortran)
  find_package(MPI COMPONENTS Fortran)
  if(NOT MPI_Fortran_FOUND)
    set(_ccf_why "no MPI for the Fortran compiler ${CMAKE_Fortran_COMPILER}")
  elseif(NOT MPI_Fortran_HAVE_F08_MODULE)
    set(_ccf_why "the MPI of ${CMAKE_Fortran_COMPILER} has no mpi_f08 module")
  else()
    # FindMPI gives MPI::MPI_Fortran the Fortran wrapper's own flags (MPICH:
    # -fallow-argument-mismatch, -fallow-invalid-boz) as plain compile
    # options, which would reach the C glue and every C source of a target
    # linking cartcoll_f08 ("valid for Fortran but not for C", fatal with
    # -Werror): keep them to Fortran sources.
    include(${CMAKE_CURRENT_LIST_DIR}/CartcollFortranOptions.cmake)
    cartcoll_fortran_only_options(MPI::MPI_Fortran)
  endif()
endif()

# The C glue reads Fortran's array descriptors: ISO_Fortran_binding.h of the
# Fortran compiler (the C compiler's own when it is the same GCC).
if(NOT _ccf_why AND CMAKE_Fortran_COMPILER)
  include(CheckIncludeFile)
  check_include_file(ISO_Fortran_binding.h CARTCOLL_C_HAS_CFI)
  set(CARTCOLL_CFI_INCLUDE "")
  if(NOT CARTCOLL_C_HAS_CFI)
    execute_process(COMMAND ${CMAKE_Fortran_COMPILER} -print-file-name=include
                    OUTPUT_VARIABLE _ccf_inc OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    if(_ccf_inc AND EXISTS "${_ccf_inc}/ISO_Fortran_binding.h")
      # Copied alone: the rest of that directory belongs to another compiler.
      set(CARTCOLL_CFI_INCLUDE "${PROJECT_BINARY_DIR}/fortran/cfi")
      file(COPY "${_ccf_inc}/ISO_Fortran_binding.h" DESTINATION "${CARTCOLL_CFI_INCLUDE}")
    else()
      set(_ccf_why "no ISO_Fortran_binding.h for the C glue")
    endif()
  endif()
endif()

if(NOT _ccf_why AND CMAKE_Fortran_COMPILER)
  set(CARTCOLL_HAVE_FORTRAN ON)
  message(STATUS "cartcoll: Fortran bindings (module cartcoll_f08) with ${CMAKE_Fortran_COMPILER}")
else()
  message(STATUS "cartcoll: Fortran bindings not built: ${_ccf_why}")
endif()
