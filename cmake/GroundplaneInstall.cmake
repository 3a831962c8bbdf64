# install() + export so that find_package(groundplane CONFIG) works from a prefix.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(GROUNDPLANE_CMAKE_DIR "${CMAKE_INSTALL_DATADIR}/cmake/groundplane"
  CACHE STRING "Where groundplaneConfig.cmake is installed, relative to the prefix")

# The compiled mode installs a library that only a build makes: without it, stop before
# anything is copied (a half-done install is worse than none).
if(TARGET groundplane_compiled)
  install(CODE "if(NOT EXISTS \"$<TARGET_FILE:groundplane_compiled>\")
  message(FATAL_ERROR \"groundplane: GROUNDPLANE_COMPILED=ON installs libgroundplane, which is not built yet: run cmake --build first\")
endif()")
endif()

install(TARGETS groundplane EXPORT groundplaneTargets)
install(DIRECTORY "${PROJECT_SOURCE_DIR}/include/groundplane"
  DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}"
  FILES_MATCHING PATTERN "*.hpp")
install(EXPORT groundplaneTargets
  NAMESPACE groundplane::
  DESTINATION "${GROUNDPLANE_CMAKE_DIR}")
# Each store in its own export set: its file is read only when its component is asked
# for, after its dependencies were found (find_package(groundplane COMPONENTS sqlite)).
if(TARGET groundplane_sqlite)
  install(TARGETS groundplane_sqlite EXPORT groundplaneSqliteTargets)
  install(EXPORT groundplaneSqliteTargets
    NAMESPACE groundplane::
    DESTINATION "${GROUNDPLANE_CMAKE_DIR}")
endif()
if(TARGET groundplane_compiled)
  install(TARGETS groundplane_compiled EXPORT groundplaneCompiledTargets
    ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}")
  install(EXPORT groundplaneCompiledTargets
    NAMESPACE groundplane::
    DESTINATION "${GROUNDPLANE_CMAKE_DIR}")
endif()
if(TARGET groundplane_postgres)
  install(TARGETS groundplane_postgres EXPORT groundplanePostgresTargets)
  install(EXPORT groundplanePostgresTargets
    NAMESPACE groundplane::
    DESTINATION "${GROUNDPLANE_CMAKE_DIR}")
endif()

configure_package_config_file(
  "${PROJECT_SOURCE_DIR}/cmake/groundplaneConfig.cmake.in"
  "${PROJECT_BINARY_DIR}/groundplaneConfig.cmake"
  INSTALL_DESTINATION "${GROUNDPLANE_CMAKE_DIR}")
# Header-only, the package fits any architecture, so the version file must not compare
# pointer sizes; with libgroundplane installed it must (a 32-bit build cannot link a
# 64-bit archive, and should be told so by find_package, not by the linker).
if(TARGET groundplane_compiled)
  set(_groundplane_arch "")
else()
  set(_groundplane_arch ARCH_INDEPENDENT)
endif()
write_basic_package_version_file(
  "${PROJECT_BINARY_DIR}/groundplaneConfigVersion.cmake"
  COMPATIBILITY SameMajorVersion
  ${_groundplane_arch})
unset(_groundplane_arch)
install(FILES
  "${PROJECT_BINARY_DIR}/groundplaneConfig.cmake"
  "${PROJECT_BINARY_DIR}/groundplaneConfigVersion.cmake"
  DESTINATION "${GROUNDPLANE_CMAKE_DIR}")
install(FILES "${PROJECT_SOURCE_DIR}/LICENSE"
  DESTINATION "${CMAKE_INSTALL_DATADIR}/doc/groundplane")

# pkg-config: header-only, so arch-independent (share/pkgconfig). The prefix is derived
# from the .pc file's own location, so `cmake --install --prefix <anywhere>` works.
set(GROUNDPLANE_PKGCONFIG_DIR "${CMAKE_INSTALL_DATADIR}/pkgconfig"
  CACHE STRING "Where groundplane.pc is installed, relative to the prefix")
if(IS_ABSOLUTE "${GROUNDPLANE_PKGCONFIG_DIR}")
  set(GROUNDPLANE_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
else()
  # One ".." per component of the relative directory: share/pkgconfig -> ../..
  string(REGEX REPLACE "[^/]+" ".." _gp_up "${GROUNDPLANE_PKGCONFIG_DIR}")
  set(GROUNDPLANE_PC_PREFIX "\${pcfiledir}/${_gp_up}")
endif()
if(IS_ABSOLUTE "${CMAKE_INSTALL_INCLUDEDIR}")
  set(GROUNDPLANE_PC_INCLUDEDIR "${CMAKE_INSTALL_INCLUDEDIR}")
else()
  set(GROUNDPLANE_PC_INCLUDEDIR "\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}")
endif()
configure_file("${PROJECT_SOURCE_DIR}/cmake/groundplane.pc.in" "${PROJECT_BINARY_DIR}/groundplane.pc" @ONLY)
install(FILES "${PROJECT_BINARY_DIR}/groundplane.pc" DESTINATION "${GROUNDPLANE_PKGCONFIG_DIR}")
