# The library's layers, lowest first, and the rule that holds them apart:
# a file may include its own layer's headers and those of lower layers, never
# a higher layer's; the pure layers (no MPI: unit-tested and simulated in one
# address space) include neither <mpi.h> nor an MPI layer.  Run at every
# build (target check_layers) and as a test:
#   cmake -DSRC=<repo>/src -P cmake/CheckLayers.cmake
# A layer's rank is its position in the list; util, geom, sched and base
# form the bottom (util, geom and sched pure); part (the partitioned
# collectives' requests and transports) sits on req and under coll and the
# api front, which hands it the collectives it is made of as a function
# pointer; coll (the collectives by family: checks, blocks and plans, then
# the run; MPI's own collective for global meaning) sits under the api
# front, which dispatches to it.

set(_pure util geom sched)
set(_order util geom sched base topo bind exec choose req part coll api pmpi)

if(NOT SRC)
  message(FATAL_ERROR "CheckLayers: pass -DSRC=<source dir>")
endif()

file(GLOB _top LIST_DIRECTORIES false "${SRC}/*.c" "${SRC}/*.h")
set(_errors "")
foreach(_f ${_top})
  string(APPEND _errors "  ${_f}: a source file at the top of src/; put it in its layer's folder\n")
endforeach()

file(GLOB _dirs LIST_DIRECTORIES true "${SRC}/*")
foreach(_d ${_dirs})
  if(NOT IS_DIRECTORY "${_d}")
    continue()
  endif()
  get_filename_component(_layer "${_d}" NAME)
  list(FIND _order "${_layer}" _rank)
  if(_rank LESS 0)
    string(APPEND _errors "  src/${_layer}/: not a known layer (known: ${_order}); add it to cmake/CheckLayers.cmake\n")
    continue()
  endif()
  list(FIND _pure "${_layer}" _is_pure)
  file(GLOB _files "${_d}/*.c" "${_d}/*.h")
  foreach(_f ${_files})
    file(STRINGS "${_f}" _includes REGEX "^[ \t]*#[ \t]*include[ \t]*[\"<]")
    file(RELATIVE_PATH _rel "${SRC}" "${_f}")
    foreach(_inc ${_includes})
      string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]*[\"<]([^\">]+)[\">].*$" "\\1" _name "${_inc}")
      if(_is_pure GREATER -1 AND _name STREQUAL "mpi.h")
        string(APPEND _errors "  src/${_rel}: includes <mpi.h>, but ${_layer} is a pure layer\n")
      endif()
      if(_name MATCHES "^([a-z]+)/")
        set(_to "${CMAKE_MATCH_1}")
        list(FIND _order "${_to}" _to_rank)
        list(FIND _pure "${_to}" _to_pure)
        if(_to_rank LESS 0)
          string(APPEND _errors "  src/${_rel}: includes \"${_name}\" from an unknown layer\n")
        elseif(_to_rank GREATER _rank)
          string(APPEND _errors "  src/${_rel}: includes \"${_name}\": ${_layer} must not depend on the higher layer ${_to}\n")
        elseif(_is_pure GREATER -1 AND _to_pure LESS 0)
          string(APPEND _errors "  src/${_rel}: includes \"${_name}\": the pure layer ${_layer} must not depend on ${_to} (MPI)\n")
        endif()
      elseif(_name STREQUAL "cartcoll.h")
        if(_is_pure GREATER -1)
          string(APPEND _errors "  src/${_rel}: includes the public header, which needs <mpi.h>: ${_layer} is pure\n")
        endif()
      elseif(_inc MATCHES "\"")
        string(APPEND _errors "  src/${_rel}: includes \"${_name}\" without its layer folder (write \"layer/${_name}\")\n")
      endif()
    endforeach()
  endforeach()
endforeach()

if(_errors)
  message(FATAL_ERROR "cartcoll layering violated:\n${_errors}")
endif()
