# Installation: header, shared and static library, pkg-config file and a CMake
# package (find_package(cartcoll) -> cartcoll::cartcoll, cartcoll::cartcoll_static;
# with Fortran, cartcoll::cartcoll_f08 and cartcoll_f08.pc: fortran/CMakeLists.txt).
include(CMakePackageConfigHelpers)

set(_cc_installed cartcoll cartcoll_static)
if(TARGET cartcoll_preload)
  list(APPEND _cc_installed cartcoll_preload)
endif()
install(TARGETS ${_cc_installed} EXPORT cartcollTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES include/cartcoll.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

set(CARTCOLL_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/cartcoll)
install(EXPORT cartcollTargets NAMESPACE cartcoll:: DESTINATION ${CARTCOLL_CMAKE_DIR})
configure_package_config_file(cmake/cartcollConfig.cmake.in
  ${PROJECT_BINARY_DIR}/cartcollConfig.cmake INSTALL_DESTINATION ${CARTCOLL_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/cartcollConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/cartcollConfig.cmake ${PROJECT_BINARY_DIR}/cartcollConfigVersion.cmake
        DESTINATION ${CARTCOLL_CMAKE_DIR})

# pkg-config: the MPI it was built with is a requirement, so
# `pkg-config --cflags --libs cartcoll` gives a complete link line.
if(CARTCOLL_MPI_PC)
  set(CARTCOLL_PC_REQUIRES "Requires: ${CARTCOLL_MPI_PC}")
else()
  set(CARTCOLL_PC_REQUIRES "")
endif()
file(RELATIVE_PATH CARTCOLL_PC_TO_PREFIX "${CMAKE_INSTALL_FULL_LIBDIR}/pkgconfig" "${CMAKE_INSTALL_PREFIX}")
string(REGEX REPLACE "/$" "" CARTCOLL_PC_TO_PREFIX "${CARTCOLL_PC_TO_PREFIX}")
configure_file(cmake/cartcoll.pc.in ${PROJECT_BINARY_DIR}/cartcoll.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/cartcoll.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
