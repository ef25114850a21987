# What a shared libslaw exports: what include/slaw declares, and nothing of src/. The library is compiled
# with hidden visibility, and each declaration the headers use out of line (non-inline functions,
# classes with out-of-line members, thread_local and global variables) carries SLAW_EXPORT from the
# generated slaw/export.hpp. tests/package/check.sh checks the result with nm -D.
include(GenerateExportHeader)
generate_export_header(slaw BASE_NAME SLAW EXPORT_FILE_NAME ${PROJECT_BINARY_DIR}/include/slaw/export.hpp)

get_target_property(slaw_library_type slaw TYPE)
if(slaw_library_type STREQUAL "SHARED_LIBRARY")
  # Before 1.0 any minor version may change the ABI, so the soname carries major.minor.
  set_target_properties(slaw PROPERTIES
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON
    VERSION ${PROJECT_VERSION}
    SOVERSION ${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR})
else()
  # A static library keeps default visibility (the watchdog's backtraces in tests/random name its
  # functions); SLAW_EXPORT is empty for it and for its users.
  target_compile_definitions(slaw PUBLIC SLAW_STATIC_DEFINE)
endif()
