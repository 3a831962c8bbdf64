# Drives one consumer test (cmake -P): MODE is install, install_unbuilt, missing_dependency, find_package,
# find_package_sqlite, find_package_postgres, too_new_version,
# add_subdirectory, add_subdirectory_compiled, precompiled_headers, fetchcontent, pkg_config or
# conan_test_package; SETTINGS is the file tests/consumers
# wrote at configure time (compiler, generator, where the dependencies are); CONFIG is
# the configuration under test. Each run starts from an empty work directory.
cmake_minimum_required(VERSION 3.25)
include("${SETTINGS}")

function(run)
  cmake_parse_arguments(PARSE_ARGV 0 arg "EXPECT_FAILURE" "OUTPUT" "COMMAND")
  execute_process(COMMAND ${arg_COMMAND} COMMAND_ECHO STDOUT
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  message("${out}")
  if(arg_OUTPUT)
    set(${arg_OUTPUT} "${out}" PARENT_SCOPE)
  endif()
  if(arg_EXPECT_FAILURE)
    if(rc EQUAL 0)
      message(FATAL_ERROR "expected this command to fail, and it succeeded")
    endif()
  elseif(NOT rc EQUAL 0)
    message(FATAL_ERROR "command failed (${rc})")
  endif()
endfunction()

set(config_args "")
if(CONFIG)
  set(config_args --config "${CONFIG}")
endif()

set(work "${WORK_ROOT}/${MODE}")
file(REMOVE_RECURSE "${work}")
file(MAKE_DIRECTORY "${work}")

if(MODE STREQUAL "install")
  file(REMOVE_RECURSE "${PREFIX}")
  run(COMMAND "${CMAKE_COMMAND}" --install "${BUILD_DIR}" --prefix "${PREFIX}" ${config_args})
  foreach(installed IN ITEMS
      "${INSTALL_INCLUDEDIR}/groundplane/groundplane.hpp"
      "${INSTALL_CMAKEDIR}/groundplaneConfig.cmake"
      "${INSTALL_CMAKEDIR}/groundplaneConfigVersion.cmake"
      "${INSTALL_CMAKEDIR}/groundplaneTargets.cmake"
      "${INSTALL_PKGCONFIGDIR}/groundplane.pc")
    if(NOT EXISTS "${PREFIX}/${installed}")
      message(FATAL_ERROR "the install lacks ${installed}")
    endif()
  endforeach()
  if(HAVE_SQLITE)
    foreach(installed IN ITEMS
        "${INSTALL_INCLUDEDIR}/groundplane/store/sqlite.hpp"
        "${INSTALL_INCLUDEDIR}/groundplane/store/ledger_store.hpp"
        "${INSTALL_CMAKEDIR}/groundplaneSqliteTargets.cmake")
      if(NOT EXISTS "${PREFIX}/${installed}")
        message(FATAL_ERROR "the install lacks ${installed}")
      endif()
    endforeach()
  endif()
  return()
endif()

if(MODE STREQUAL "install_unbuilt")
  # What most C++ users try first: configure, then install without building. Headers and
  # package go in, the server (never built) is left out, and nothing fails halfway.
  set(unbuilt_args -G "${GENERATOR}" "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}"
    -DFETCHCONTENT_FULLY_DISCONNECTED=ON -DGROUNDPLANE_BUILD_TESTS=OFF -DGROUNDPLANE_BUILD_EXAMPLES=OFF)
  if(NLOHMANN_JSON_DIR)
    list(APPEND unbuilt_args "-Dnlohmann_json_DIR=${NLOHMANN_JSON_DIR}")
  endif()
  if(NLOHMANN_JSON_SOURCE_DIR)
    list(APPEND unbuilt_args "-DFETCHCONTENT_SOURCE_DIR_GROUNDPLANE_NLOHMANN_JSON=${NLOHMANN_JSON_SOURCE_DIR}")
  endif()
  run(COMMAND "${CMAKE_COMMAND}" -S "${SOURCE_DIR}" -B "${work}/build" ${unbuilt_args})
  if(NOT EXISTS "${work}/build/CMakeCache.txt")
    message(FATAL_ERROR "the unbuilt tree was not configured")
  endif()
  file(STRINGS "${work}/build/CMakeCache.txt" server_option REGEX "^GROUNDPLANE_BUILD_MCP_SERVER:BOOL=ON$")
  if(NOT server_option)
    message(FATAL_ERROR "the unbuilt tree must declare the server (GROUNDPLANE_BUILD_MCP_SERVER=ON) to test its install")
  endif()
  run(COMMAND "${CMAKE_COMMAND}" --install "${work}/build" --prefix "${work}/prefix" ${config_args})
  foreach(installed IN ITEMS
      "${INSTALL_INCLUDEDIR}/groundplane/groundplane.hpp"
      "${INSTALL_INCLUDEDIR}/groundplane/mcp/server.hpp"
      "${INSTALL_CMAKEDIR}/groundplaneConfig.cmake"
      "${INSTALL_CMAKEDIR}/groundplaneTargets.cmake"
      "${INSTALL_PKGCONFIGDIR}/groundplane.pc")
    if(NOT EXISTS "${work}/prefix/${installed}")
      message(FATAL_ERROR "the install of an unbuilt tree lacks ${installed}")
    endif()
  endforeach()
  file(GLOB_RECURSE server "${work}/prefix/*groundplane-mcp*")
  if(server)
    message(FATAL_ERROR "the install of an unbuilt tree installed a server: ${server}")
  endif()
  return()
endif()

if(MODE STREQUAL "missing_dependency")
  # Without nlohmann_json and unable to download it, configure stops at once and names
  # the package to install.
  string(TIMESTAMP started "%s")
  run(EXPECT_FAILURE OUTPUT out COMMAND "${CMAKE_COMMAND}" -S "${SOURCE_DIR}" -B "${work}/build" -G "${GENERATOR}"
    "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}" -DCMAKE_DISABLE_FIND_PACKAGE_nlohmann_json=ON
    -DFETCHCONTENT_FULLY_DISCONNECTED=ON -DGROUNDPLANE_BUILD_TESTS=OFF -DGROUNDPLANE_BUILD_EXAMPLES=OFF)
  string(TIMESTAMP finished "%s")
  math(EXPR seconds "${finished} - ${started}")
  foreach(expected IN ITEMS "nlohmann_json >= 3.11 was not found" "apt-get install nlohmann-json3-dev"
      "vcpkg install nlohmann-json" "nlohmann_json/3.11.3" "-Dnlohmann_json_DIR=")
    string(FIND "${out}" "${expected}" at)
    if(at EQUAL -1)
      message(FATAL_ERROR "configure without nlohmann_json failed without saying '${expected}'")
    endif()
  endforeach()
  if(seconds GREATER 30)
    message(FATAL_ERROR "configure without nlohmann_json took ${seconds} s to fail")
  endif()
  return()
endif()

# A nested CMake project, configured with the outer build's compiler and flags and
# unable to download anything: dependencies must come from what the outer build found.
set(configure_args
  -G "${GENERATOR}"
  "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}"
  "-DCMAKE_CXX_FLAGS=${CXX_FLAGS}"
  "-DGROUNDPLANE_EXPECTED_VERSION=${VERSION}")
if(CXX_COMPILER_LAUNCHER)
  list(APPEND configure_args "-DCMAKE_CXX_COMPILER_LAUNCHER=${CXX_COMPILER_LAUNCHER}")
endif()
if(CXX_STANDARD)
  list(APPEND configure_args "-DCMAKE_CXX_STANDARD=${CXX_STANDARD}")
endif()
if(NOT IS_MULTI_CONFIG)
  list(APPEND configure_args "-DCMAKE_BUILD_TYPE=${CONFIG}")
endif()
set(prefix_path ${OUTER_PREFIX_PATH})
if(MODE MATCHES "^(find_package|find_package_sqlite|find_package_postgres|too_new_version|conan_test_package)$")
  list(PREPEND prefix_path "${PREFIX}")
endif()
string(REPLACE ";" "\\;" prefix_path_arg "${prefix_path}")
list(APPEND configure_args "-DCMAKE_PREFIX_PATH=${prefix_path_arg}")
if(NLOHMANN_JSON_DIR)
  list(APPEND configure_args "-Dnlohmann_json_DIR=${NLOHMANN_JSON_DIR}")
endif()
if(NLOHMANN_JSON_SOURCE_DIR)
  # The outer build downloaded nlohmann_json; reuse that copy instead of downloading.
  list(APPEND configure_args "-DFETCHCONTENT_SOURCE_DIR_GROUNDPLANE_NLOHMANN_JSON=${NLOHMANN_JSON_SOURCE_DIR}")
endif()

function(build_and_run project_dir)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "PROGRAM" "")
  if(NOT arg_PROGRAM)
    set(arg_PROGRAM consumer)
  endif()
  run(COMMAND "${CMAKE_COMMAND}" -S "${project_dir}" -B "${work}/build" ${configure_args} ${arg_UNPARSED_ARGUMENTS})
  run(COMMAND "${CMAKE_COMMAND}" --build "${work}/build" ${config_args})
  if(IS_MULTI_CONFIG)
    set(program "${work}/build/${CONFIG}/${arg_PROGRAM}")
  else()
    set(program "${work}/build/${arg_PROGRAM}")
  endif()
  run(COMMAND "${program}" OUTPUT out)
  if(NOT out MATCHES "UnsupportedClaim: unsupported claim in field 'winner'")
    message(FATAL_ERROR "the consumer did not report the unsupported claim")
  endif()
endfunction()

if(MODE STREQUAL "find_package")
  build_and_run("${CONSUMERS_DIR}/find_package" -DFETCHCONTENT_FULLY_DISCONNECTED=ON)

elseif(MODE STREQUAL "find_package_sqlite")
  # The ledger store: a component, with SQLite3 and OpenSSL found by the package config.
  run(COMMAND "${CMAKE_COMMAND}" -S "${CONSUMERS_DIR}/find_package_sqlite" -B "${work}/build" ${configure_args}
      -DFETCHCONTENT_FULLY_DISCONNECTED=ON)
  run(COMMAND "${CMAKE_COMMAND}" --build "${work}/build" ${config_args})
  if(IS_MULTI_CONFIG)
    set(program "${work}/build/${CONFIG}/consumer_sqlite")
  else()
    set(program "${work}/build/consumer_sqlite")
  endif()
  run(COMMAND "${program}" OUTPUT out)
  if(NOT out MATCHES "tampered: first bad row 2")
    message(FATAL_ERROR "the store consumer did not name the tampered row")
  endif()

elseif(MODE STREQUAL "find_package_postgres")
  # The PostgreSQL store: a component, with libpq and OpenSSL found by the package config.
  run(COMMAND "${CMAKE_COMMAND}" -S "${CONSUMERS_DIR}/find_package_postgres" -B "${work}/build" ${configure_args}
      -DFETCHCONTENT_FULLY_DISCONNECTED=ON)
  run(COMMAND "${CMAKE_COMMAND}" --build "${work}/build" ${config_args})
  if(IS_MULTI_CONFIG)
    set(program "${work}/build/${CONFIG}/consumer_postgres")
  else()
    set(program "${work}/build/consumer_postgres")
  endif()
  run(COMMAND "${program}" OUTPUT out)
  if(NOT out MATCHES "ledger: 3 rows|no server: cannot connect")
    message(FATAL_ERROR "the PostgreSQL store consumer did not verify its rows")
  endif()

elseif(MODE STREQUAL "conan_test_package")
  # The Conan recipe's test_package, built against the same names the recipe declares
  # for CMakeDeps (find_package(groundplane), groundplane::groundplane).
  build_and_run("${SOURCE_DIR}/test_package" -DFETCHCONTENT_FULLY_DISCONNECTED=ON PROGRAM test_package)

elseif(MODE STREQUAL "too_new_version")
  run(EXPECT_FAILURE OUTPUT out
    COMMAND "${CMAKE_COMMAND}" -S "${CONSUMERS_DIR}/too_new_version" -B "${work}/build" ${configure_args})
  string(REGEX REPLACE "[ \t\r\n]+" " " out "${out}")
  # It must fail because the installed package was considered and refused for its
  # version, not because nothing was found.
  if(NOT out MATCHES "compatible with requested version \"1\\.0\""
     OR NOT out MATCHES "groundplaneConfig\\.cmake, version: ${VERSION}")
    message(FATAL_ERROR "find_package(groundplane 1.0) failed, but not by refusing version ${VERSION}")
  endif()

elseif(MODE STREQUAL "add_subdirectory")
  build_and_run("${CONSUMERS_DIR}/add_subdirectory" -DFETCHCONTENT_FULLY_DISCONNECTED=ON
    "-DGROUNDPLANE_SOURCE_DIR=${SOURCE_DIR}")

elseif(MODE STREQUAL "add_subdirectory_compiled")
  build_and_run("${CONSUMERS_DIR}/add_subdirectory" -DFETCHCONTENT_FULLY_DISCONNECTED=ON
    "-DGROUNDPLANE_SOURCE_DIR=${SOURCE_DIR}" -DCONSUMER_COMPILED=ON)
  file(GLOB_RECURSE libs "${work}/build/groundplane/*libgroundplane.a" "${work}/build/groundplane/*groundplane.lib")
  if(NOT libs)
    message(FATAL_ERROR "the compiled mode built no groundplane library")
  endif()

elseif(MODE STREQUAL "precompiled_headers")
  # docs/install.md's recipe: groundplane.hpp precompiled once for the project's units.
  build_and_run("${CONSUMERS_DIR}/precompiled_headers" -DFETCHCONTENT_FULLY_DISCONNECTED=ON
    "-DGROUNDPLANE_SOURCE_DIR=${SOURCE_DIR}")
  file(GLOB_RECURSE pch "${work}/build/*cmake_pch.hxx.gch" "${work}/build/*cmake_pch.hxx.pch")
  if(NOT pch)
    message(FATAL_ERROR "target_precompile_headers built no precompiled header")
  endif()

elseif(MODE STREQUAL "fetchcontent")
  # A source archive of what a release carries, fetched by URL and hash. (Downloads of
  # anything else are impossible: the dependency is found, or taken from the outer copy.)
  set(stage "${work}/stage/groundplane-${VERSION}")
  file(MAKE_DIRECTORY "${stage}")
  file(COPY "${SOURCE_DIR}/CMakeLists.txt" "${SOURCE_DIR}/LICENSE" "${SOURCE_DIR}/cmake"
    "${SOURCE_DIR}/include" "${SOURCE_DIR}/tools" DESTINATION "${stage}")
  set(archive "${work}/groundplane-${VERSION}.tar.gz")
  run(COMMAND "${CMAKE_COMMAND}" -E chdir "${work}/stage"
    "${CMAKE_COMMAND}" -E tar czf "${archive}" "groundplane-${VERSION}")
  file(SHA256 "${archive}" sha256)
  build_and_run("${CONSUMERS_DIR}/fetchcontent"
    "-DGROUNDPLANE_ARCHIVE=${archive}" "-DGROUNDPLANE_ARCHIVE_SHA256=${sha256}")

elseif(MODE STREQUAL "pkg_config")
  # Ours, then where a downloaded nlohmann_json installed its own .pc beside it.
  set(pc_path "${PREFIX}/${INSTALL_PKGCONFIGDIR}:${PREFIX}/${INSTALL_LIBDIR}/pkgconfig")
  run(OUTPUT version COMMAND "${CMAKE_COMMAND}" -E env "PKG_CONFIG_PATH=${pc_path}"
    "${PKG_CONFIG}" --modversion groundplane)
  string(STRIP "${version}" version)
  if(NOT version STREQUAL VERSION)
    message(FATAL_ERROR "pkg-config reports groundplane ${version}, expected ${VERSION}")
  endif()
  run(OUTPUT cflags COMMAND "${CMAKE_COMMAND}" -E env "PKG_CONFIG_PATH=${pc_path}"
    "${PKG_CONFIG}" --cflags groundplane)
  string(STRIP "${cflags}" cflags)
  # The include directory must resolve inside the prefix the .pc file was installed to.
  file(REAL_PATH "${PREFIX}/${INSTALL_INCLUDEDIR}" expected_include)
  separate_arguments(cflags UNIX_COMMAND "${cflags}")
  set(resolves FALSE)
  foreach(flag IN LISTS cflags)
    if(flag MATCHES "^-I(.+)$")
      file(REAL_PATH "${CMAKE_MATCH_1}" dir)
      if(dir STREQUAL expected_include)
        set(resolves TRUE)
      endif()
    endif()
  endforeach()
  if(NOT resolves)
    message(FATAL_ERROR "pkg-config --cflags does not point at ${expected_include}")
  endif()
  separate_arguments(cxx_flags UNIX_COMMAND "${CXX_FLAGS}")
  set(std 20)
  if(CXX_STANDARD)
    set(std ${CXX_STANDARD})
  endif()
  run(COMMAND ${CXX_COMPILER_LAUNCHER} "${CXX_COMPILER}" -std=c++${std} ${cxx_flags}
    -Wall -Wextra -Wpedantic -Werror ${cflags} "-DGROUNDPLANE_CONSUMER_EXPECTED_VERSION=\"${VERSION}\""
    "${CONSUMERS_DIR}/consumer.cpp" -o "${work}/consumer")
  run(OUTPUT out COMMAND "${work}/consumer")
  if(NOT out MATCHES "UnsupportedClaim: unsupported claim in field 'winner'")
    message(FATAL_ERROR "the consumer did not report the unsupported claim")
  endif()

else()
  message(FATAL_ERROR "unknown MODE '${MODE}'")
endif()
