# The PMPI drop-in, libcartcoll_preload.so (src/pmpi/, DEVELOPERS.md).
#
# It intercepts MPI_ names (MPI_Wait, MPI_Startall, MPI_Send, ...) that the
# library calls too.  Linked against libcartcoll.so, the library's own calls
# would enter the drop-in's wrappers; so the drop-in carries its own copy of
# the library instead, compiled with a generated header that renames exactly
# the functions the drop-in defines to their PMPI_ spelling (as tools built
# on PMPI do): the copy's MPI calls go straight to MPI, and the drop-in
# needs no libcartcoll.so.  Test preload_symbols checks both with nm/readelf.
#
# Needs CARTCOLL_PRELOAD_SOURCES (the drop-in's files), CARTCOLL_MPI_SOURCES
# and the object library cartcoll_pure (no MPI: shared as they are).

# 1. The drop-in's own entry points.
add_library(cartcoll_preload_front OBJECT ${CARTCOLL_PRELOAD_SOURCES})
add_dependencies(cartcoll_preload_front check_layers)
set_target_properties(cartcoll_preload_front PROPERTIES POSITION_INDEPENDENT_CODE ON)
target_compile_options(cartcoll_preload_front PRIVATE ${CARTCOLL_WARNINGS})
target_include_directories(cartcoll_preload_front PRIVATE ${PROJECT_SOURCE_DIR}/include ${PROJECT_SOURCE_DIR}/src)
target_link_libraries(cartcoll_preload_front PRIVATE MPI::MPI_C Threads::Threads)

# 2. `#define MPI_X PMPI_X` for each C function MPI_X those objects define
# (cmake/PreloadNames.cmake reads them with nm), rewritten only when the
# list changes.
set(CARTCOLL_PRELOAD_NAMES ${PROJECT_BINARY_DIR}/preload/cc_pmpi_names.h)
add_custom_command(OUTPUT ${PROJECT_BINARY_DIR}/preload/cc_pmpi_names.stamp
  BYPRODUCTS ${CARTCOLL_PRELOAD_NAMES}
  COMMAND ${CMAKE_COMMAND} -DNM=${CMAKE_NM} "-DOBJECTS=$<TARGET_OBJECTS:cartcoll_preload_front>"
          -DOUT=${CARTCOLL_PRELOAD_NAMES} -P ${PROJECT_SOURCE_DIR}/cmake/PreloadNames.cmake
  COMMAND ${CMAKE_COMMAND} -E touch ${PROJECT_BINARY_DIR}/preload/cc_pmpi_names.stamp
  DEPENDS cartcoll_preload_front $<TARGET_OBJECTS:cartcoll_preload_front> ${PROJECT_SOURCE_DIR}/cmake/PreloadNames.cmake
  COMMENT "Listing the MPI_ names the drop-in defines" VERBATIM)
add_custom_target(cartcoll_preload_names DEPENDS ${PROJECT_BINARY_DIR}/preload/cc_pmpi_names.stamp)

# 3. The library's MPI layers again, with that header forced in.
add_library(cartcoll_preload_lib OBJECT ${CARTCOLL_MPI_SOURCES})
add_dependencies(cartcoll_preload_lib cartcoll_preload_names)
set_target_properties(cartcoll_preload_lib PROPERTIES POSITION_INDEPENDENT_CODE ON)
target_compile_options(cartcoll_preload_lib PRIVATE ${CARTCOLL_WARNINGS} "SHELL:-include ${CARTCOLL_PRELOAD_NAMES}")
target_compile_definitions(cartcoll_preload_lib PRIVATE ${CARTCOLL_MPI_LACKS})
target_include_directories(cartcoll_preload_lib PRIVATE ${PROJECT_SOURCE_DIR}/include ${PROJECT_SOURCE_DIR}/src)
target_link_libraries(cartcoll_preload_lib PRIVATE MPI::MPI_C Threads::Threads)

# 4. The drop-in: its entry points, its copy, the pure layers.  It exports
# the MPI_ / Fortran names it defines (and, on MPICH, the library's
# MPI_Error_string) and the Cart_ API, so that a program linked with
# libcartcoll.so and run with the drop-in uses one copy of the library.
add_library(cartcoll_preload SHARED $<TARGET_OBJECTS:cartcoll_preload_front> $<TARGET_OBJECTS:cartcoll_preload_lib>
            $<TARGET_OBJECTS:cartcoll_pure>)
target_link_libraries(cartcoll_preload PRIVATE MPI::MPI_C Threads::Threads ${CMAKE_DL_LIBS})
if(UNIX AND NOT APPLE)
  target_link_options(cartcoll_preload PRIVATE "LINKER:--version-script=${PROJECT_SOURCE_DIR}/cmake/cartcoll_preload.map")
  set_target_properties(cartcoll_preload PROPERTIES LINK_DEPENDS ${PROJECT_SOURCE_DIR}/cmake/cartcoll_preload.map)
endif()
