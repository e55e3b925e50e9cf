# Installation: `cmake --install build --prefix P` puts
#   P/bin/phasor                                 the CLI
#   P/lib/libphasor_{engine,layers,tokenizers,models}.a  the libraries
#   P/include/phasor/{engine,layers,tokenizers,models}/*.h  the headers, with the paths the code uses
#   P/include/phasor/engine/version.h            generated
#   P/lib/cmake/phasor/                          the CMake package (find_package(phasor))
#   P/lib/pkgconfig/phasor.pc                    pkg-config
# The public API is models/phasor.h; the other headers are installed because it and
# the libraries' interfaces include them.
include(CMakePackageConfigHelpers)

set(PHASOR_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/phasor)

install(TARGETS phasor_engine phasor_layers phasor_tokenizers phasor_models phasor_lib
        EXPORT phasorTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS phasor RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

foreach(dir engine layers tokenizers models)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/${dir}/
          DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/phasor/${dir}
          FILES_MATCHING PATTERN "*.h"
          PATTERN "bfloat16_bits.inc"  # included by engine/bfloat16.h
          PATTERN "kernel_table.h" EXCLUDE)  # the per-target kernels' table: internal
endforeach()
install(FILES ${PHASOR_GENERATED_INCLUDE_DIR}/engine/version.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/phasor/engine)

install(EXPORT phasorTargets NAMESPACE phasor:: DESTINATION ${PHASOR_CMAKE_DIR})
configure_package_config_file(cmake/phasorConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/phasorConfig.cmake
                              INSTALL_DESTINATION ${PHASOR_CMAKE_DIR})
# Semantic versioning: before 1.0 a minor release may break the API, so 0.x
# requests match the same minor version; from 1.0 on, the same major version.
if(PROJECT_VERSION_MAJOR EQUAL 0)
  set(PHASOR_COMPATIBILITY SameMinorVersion)
else()
  set(PHASOR_COMPATIBILITY SameMajorVersion)
endif()
write_basic_package_version_file(${PROJECT_BINARY_DIR}/phasorConfigVersion.cmake
                                 VERSION ${PROJECT_VERSION}
                                 COMPATIBILITY ${PHASOR_COMPATIBILITY})
install(FILES ${PROJECT_BINARY_DIR}/phasorConfig.cmake
              ${PROJECT_BINARY_DIR}/phasorConfigVersion.cmake
        DESTINATION ${PHASOR_CMAKE_DIR})

# pkg-config: relocatable (paths relative to the .pc file), so `--prefix` at install
# time works. Static libraries, so Libs lists all three and OpenMP.
set(PHASOR_PC_DIR ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
file(RELATIVE_PATH PHASOR_PC_TO_PREFIX /prefix/${PHASOR_PC_DIR} /prefix)
string(REGEX REPLACE "/$" "" PHASOR_PC_TO_PREFIX "${PHASOR_PC_TO_PREFIX}")
set(PHASOR_PC_OPENMP ${OpenMP_CXX_FLAGS})
if(PHASOR_ONEDNN)
  set(PHASOR_PC_ONEDNN -ldnnl)
endif()
configure_file(cmake/phasor.pc.in ${PROJECT_BINARY_DIR}/phasor.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/phasor.pc DESTINATION ${PHASOR_PC_DIR})
