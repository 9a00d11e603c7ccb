# cartcoll_fortran_only_options(target): wrap the INTERFACE_COMPILE_OPTIONS of
# an imported target in $<$<COMPILE_LANGUAGE:Fortran>:...>, so that flags
# meant for the Fortran compiler (FindMPI's MPI_Fortran_COMPILE_OPTIONS,
# e.g. MPICH's -fallow-argument-mismatch) are not given to C sources of
# targets that link it.  Options already guarded by a generator expression
# are left as they are.  Used when building cartcoll (CartcollFortran.cmake)
# and by the installed package (cartcollConfig.cmake) for its consumers.
function(cartcoll_fortran_only_options target)
  if(NOT TARGET ${target})
    return()
  endif()
  get_target_property(_opts ${target} INTERFACE_COMPILE_OPTIONS)
  if(NOT _opts)
    return()
  endif()
  set(_wrapped "")
  foreach(_o IN LISTS _opts)
    if(_o MATCHES "^\\$<")
      list(APPEND _wrapped "${_o}")
    else()
      list(APPEND _wrapped "$<$<COMPILE_LANGUAGE:Fortran>:${_o}>")
    endif()
  endforeach()
  set_property(TARGET ${target} PROPERTY INTERFACE_COMPILE_OPTIONS "${_wrapped}")
endfunction()
