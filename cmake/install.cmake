# Install rules (cmake --install BUILD --prefix P): the headers, the library, the CMake package
# (find_package(slaw) -> slaw::slaw), pkg-config's slaw.pc, and the commands.
# Paths follow GNUInstallDirs (lib/<multiarch> under /usr on Debian).
include(CMakePackageConfigHelpers)

install(TARGETS slaw EXPORT slawTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/slaw DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.hpp" PATTERN "*.def")
install(FILES ${PROJECT_BINARY_DIR}/include/slaw/export.hpp ${PROJECT_BINARY_DIR}/include/slaw/build_config.hpp
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/slaw)

# hwloc (places, found through pkg-config as PkgConfig::SLAW_HWLOC): a static libslaw's users link it
# too, so slawConfig.cmake finds it again and slaw.pc requires it; a shared libslaw keeps it to itself.
set(SLAW_CONFIG_FIND_HWLOC OFF)
set(SLAW_PC_REQUIRES "")
set(SLAW_PC_REQUIRES_PRIVATE "")
if(TARGET PkgConfig::SLAW_HWLOC)
  if(slaw_library_type STREQUAL "SHARED_LIBRARY")
    set(SLAW_PC_REQUIRES_PRIVATE hwloc)
  else()
    set(SLAW_CONFIG_FIND_HWLOC ON)
    set(SLAW_PC_REQUIRES hwloc)
  endif()
endif()

# The CMake package: slawConfig.cmake finds Threads (and hwloc) itself, then loads the exported target.
set(SLAW_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/slaw)
install(EXPORT slawTargets NAMESPACE slaw:: DESTINATION ${SLAW_CMAKE_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/slawConfig.cmake.in ${PROJECT_BINARY_DIR}/slawConfig.cmake
                              INSTALL_DESTINATION ${SLAW_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/slawConfigVersion.cmake COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/slawConfig.cmake ${PROJECT_BINARY_DIR}/slawConfigVersion.cmake
        DESTINATION ${SLAW_CMAKE_DIR})

# slaw::mpi (when MPI was found): its own export set, loaded by find_package(slaw COMPONENTS mpi) only,
# so that the core package needs no MPI.
if(TARGET slaw_mpi)
  install(TARGETS slaw_mpi EXPORT slawMpiTargets
          ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
          LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
  install(EXPORT slawMpiTargets NAMESPACE slaw:: DESTINATION ${SLAW_CMAKE_DIR})
endif()

# pkg-config. The prefix is found from the .pc file's own place (${pcfiledir}), so that the same file is
# right under `cmake --install --prefix P`, in the .deb (/usr) and in a tree extracted elsewhere.
set(SLAW_PC_DIR ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
if(IS_ABSOLUTE "${SLAW_PC_DIR}")
  set(SLAW_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
else()
  file(RELATIVE_PATH slaw_pc_up "/${SLAW_PC_DIR}" "/")
  string(REGEX REPLACE "/$" "" slaw_pc_up "${slaw_pc_up}")
  set(SLAW_PC_PREFIX "\${pcfiledir}/${slaw_pc_up}")
endif()
foreach(dir LIBDIR INCLUDEDIR)
  if(IS_ABSOLUTE "${CMAKE_INSTALL_${dir}}")
    set(SLAW_PC_${dir} "${CMAKE_INSTALL_${dir}}")
  else()
    set(SLAW_PC_${dir} "\${prefix}/${CMAKE_INSTALL_${dir}}")
  endif()
endforeach()
# The headers need C++20 (coroutines) and, for the static library, the define that empties SLAW_EXPORT.
# -foptimize-sibling-calls and SLAW_SIBLING_CALLS: GCC's symmetric transfer as a tail call at every
# optimisation level (include/slaw/detail/transfer.hpp); clang accepts the flag and needs neither.
set(SLAW_PC_CFLAGS "-std=c++20 -pthread -foptimize-sibling-calls -DSLAW_SIBLING_CALLS")
# The SLP workaround (CMakeLists.txt) when a GCC that needs it built the library: the program's code
# is built by the same compiler (README, one compiler per program).
if(SLAW_GCC_NO_SLP_VECTORIZE AND CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_GREATER_EQUAL 12)
  string(APPEND SLAW_PC_CFLAGS " -fno-tree-slp-vectorize")
endif()
if(NOT slaw_library_type STREQUAL "SHARED_LIBRARY")
  string(APPEND SLAW_PC_CFLAGS " -DSLAW_STATIC_DEFINE")
endif()
# A sanitized library's users compile and link with its sanitizer (include/slaw/detail/sanitizers.hpp).
set(SLAW_PC_SANITIZE "")
if(slaw_sanitizer_flags)
  set(SLAW_PC_SANITIZE " ${slaw_sanitizer_flags}")
  string(APPEND SLAW_PC_CFLAGS "${SLAW_PC_SANITIZE}")
endif()
configure_file(${PROJECT_SOURCE_DIR}/cmake/slaw.pc.in ${PROJECT_BINARY_DIR}/slaw.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/slaw.pc DESTINATION ${SLAW_PC_DIR})

# The commands: slaw-top (the jobs sharing the machine), slaw-sim (the simulator, with its plotting
# script in share/slaw), slaw-trace (timeline traces), and slaw-bench when it is built.
foreach(tool slaw-bench slaw-top slaw-sim)
  if(TARGET ${tool})
    install(TARGETS ${tool} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  endif()
endforeach()
if(TARGET slaw-sim)
  install(FILES ${PROJECT_SOURCE_DIR}/src/sim/plot_sim.py DESTINATION ${CMAKE_INSTALL_DATADIR}/slaw)
endif()
install(PROGRAMS ${PROJECT_SOURCE_DIR}/tools/slaw-trace TYPE BIN)
