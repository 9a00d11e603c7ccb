# The layering check must fail on a deliberate violation: copy src/, make a
# pure layer include <mpi.h> and lower layers include higher ones (the
# partitioned layer sits between req and coll, coll between part and api:
# neither req may include part nor part coll, nor coll api), run the
# check on the copy and expect all to be reported.
#   cmake -DSRC=<repo>/src -DWORK=<scratch dir> -P cmake/CheckLayersSelfTest.cmake
file(REMOVE_RECURSE "${WORK}")
file(COPY "${SRC}/" DESTINATION "${WORK}/src")
file(APPEND "${WORK}/src/geom/geometry.c" "\n#include <mpi.h>\n")
file(APPEND "${WORK}/src/topo/nbh.c" "\n#include \"req/request.h\"\n")
file(APPEND "${WORK}/src/req/request.c" "\n#include \"part/part.h\"\n")
file(APPEND "${WORK}/src/part/init.c" "\n#include \"api/front.h\"\n")
file(APPEND "${WORK}/src/part/marks.c" "\n#include \"coll/coll.h\"\n")
file(APPEND "${WORK}/src/coll/nbh_run.c" "\n#include \"api/front.h\"\n")
execute_process(COMMAND ${CMAKE_COMMAND} -DSRC=${WORK}/src -P ${CMAKE_CURRENT_LIST_DIR}/CheckLayers.cmake
                RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_VARIABLE out)
file(REMOVE_RECURSE "${WORK}")
if(rc EQUAL 0)
  message(FATAL_ERROR "the layering check accepted a violation")
endif()
foreach(want "src/geom/geometry.c: includes <mpi.h>" "src/topo/nbh.c: includes \"req/request.h\""
             "src/req/request.c: includes \"part/part.h\"" "src/part/init.c: includes \"api/front.h\""
             "src/part/marks.c: includes \"coll/coll.h\"" "src/coll/nbh_run.c: includes \"api/front.h\"")
  string(FIND "${err}" "${want}" at)
  if(at LESS 0)
    message(FATAL_ERROR "the layering check did not report '${want}':\n${err}")
  endif()
endforeach()
message(STATUS "layering check: every deliberate violation reported")
