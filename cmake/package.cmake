# `make package`: a Debian package of the install tree, prefix /usr (CPack's DEB generator).
# One package, not a -dev split: the library is static, so everything in it (headers, libslaw.a, the
# CMake and pkg-config files, the commands) is for building and measuring programs; nothing
# would go into a run-time package.
set(SLAW_PACKAGE_MAINTAINER "Seed 1a5bc098 maintainers <maintainers@users.noreply.a-seed-1a5bc098.example>"
    CACHE STRING "The Debian package's Maintainer field: Name <email>")

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME slaw)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "${SLAW_PACKAGE_MAINTAINER}")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # slaw_<version>_<arch>.deb
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${SLAW_PACKAGE_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_SECTION libdevel)
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "C++20 task-parallel runtime with adaptive work-first/help-first work stealing")
set(CPACK_PACKAGE_DESCRIPTION "Parallel functions are coroutines returning slaw::task<T>, spawned with
async and joined with finish (Habanero/X10 semantics). Each spawn runs
work-first or help-first as chosen by SLAW's adaptive policy; a second
scheduler, DFDeques(K), bounds the memory of a run.
.
This package holds the static library, its headers, the CMake package
(find_package(slaw), target slaw::slaw), the pkg-config file, and the
commands slaw-bench (the benchmark suite), slaw-top (the jobs sharing the
machine's cores), slaw-sim (the scheduling simulator) and slaw-trace
(draws timeline traces).")
# The libraries of the installed programs (slaw-bench links oneTBB, OpenMP, OpenSSL) come from
# dpkg-shlibdeps; slaw-trace (and slaw-sim --plot) is Python with matplotlib. Programs using slaw need a C++20 compiler, and
# a static libslaw that uses hwloc needs its development files (through pkg-config) in users' builds.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(slaw_deb_depends "")
list(APPEND slaw_deb_depends python3 python3-matplotlib)
if(SLAW_CONFIG_FIND_HWLOC)
  list(APPEND slaw_deb_depends libhwloc-dev pkg-config)
endif()
list(JOIN slaw_deb_depends ", " CPACK_DEBIAN_PACKAGE_DEPENDS)
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "g++ (>= 4:12) | clang-19")
include(CPack)
