# cmake -DSOURCE_DIR=<src> -DVERSION=<x.y.z> -DCMAKE_DIR=<GROUNDPLANE_CMAKE_DIR> -P check_vcpkg_port.cmake
# The vcpkg port, checked without vcpkg: vcpkg.json is valid JSON naming this version
# and the nlohmann-json dependency, and the portfile fixes up the config directory the
# install really uses (the one the find_package consumer test exercises).
cmake_minimum_required(VERSION 3.25)
set(port "${SOURCE_DIR}/ports/groundplane")
set(failures "")
include("${CMAKE_CURRENT_LIST_DIR}/expect.cmake")

file(READ "${port}/vcpkg.json" manifest)
string(JSON name ERROR_VARIABLE err GET "${manifest}" name)
if(err)
  message(FATAL_ERROR "ports/groundplane/vcpkg.json is not valid JSON: ${err}")
endif()
string(JSON version ERROR_VARIABLE err GET "${manifest}" version-semver)
expect("name STREQUAL \"groundplane\"" "vcpkg.json names the port groundplane")
expect("version STREQUAL \"${VERSION}\"" "vcpkg.json's version-semver is ${VERSION} (got '${version}')")

string(JSON count LENGTH "${manifest}" dependencies)
set(has_json FALSE)
set(host_helpers 0)
math(EXPR last "${count} - 1")
foreach(i RANGE ${last})
  string(JSON type TYPE "${manifest}" dependencies ${i})
  if(type STREQUAL "STRING")
    string(JSON dep GET "${manifest}" dependencies ${i})
    set(min "")
  else()
    string(JSON dep GET "${manifest}" dependencies ${i} name)
    string(JSON min ERROR_VARIABLE err GET "${manifest}" dependencies ${i} "version>=")
    string(JSON host ERROR_VARIABLE err GET "${manifest}" dependencies ${i} host)
    if(dep MATCHES "^vcpkg-cmake(-config)?$" AND host)
      math(EXPR host_helpers "${host_helpers} + 1")
    endif()
  endif()
  if(dep STREQUAL "nlohmann-json" AND min VERSION_GREATER_EQUAL "3.11")
    set(has_json TRUE)
  endif()
endforeach()
expect("has_json" "vcpkg.json depends on nlohmann-json >= 3.11")
expect("host_helpers EQUAL 2" "vcpkg-cmake and vcpkg-cmake-config are host dependencies")

string(JSON sqlite_deps ERROR_VARIABLE err GET "${manifest}" features sqlite dependencies)
expect("NOT err AND sqlite_deps MATCHES \"sqlite3\" AND sqlite_deps MATCHES \"openssl\""
  "the sqlite feature depends on sqlite3 and openssl")

string(JSON postgres_deps ERROR_VARIABLE err GET "${manifest}" features postgres dependencies)
expect("NOT err AND postgres_deps MATCHES \"libpq\" AND postgres_deps MATCHES \"openssl\""
  "the postgres feature depends on libpq and openssl")

file(READ "${port}/portfile.cmake" portfile)
string(REGEX REPLACE "#[^\n]*" "" portfile "${portfile}")
string(REGEX REPLACE "[ \t\r\n]+" " " portfile "${portfile}")
string(REPLACE "." "\\." cmake_dir_regex "${CMAKE_DIR}")
expect("portfile MATCHES \"vcpkg_cmake_config_fixup[(] ?CONFIG_PATH ${cmake_dir_regex} ?[)]\""
  "the portfile moves ${CMAKE_DIR}, where the install puts the config")
expect("portfile MATCHES \"set[(]VCPKG_BUILD_TYPE release[)]\"" "the portfile builds release only (header-only)")
expect("portfile MATCHES \"vcpkg_cmake_install[(][)]\"" "the portfile installs through the project's own install rules")
expect("portfile MATCHES \"-DFETCHCONTENT_FULLY_DISCONNECTED=ON\"" "the portfile forbids groundplane's download fallback")
expect("EXISTS \"${port}/usage\"" "the port has a usage file")
expect("portfile MATCHES \"sqlite GROUNDPLANE_SQLITE\"" "the sqlite feature turns on GROUNDPLANE_SQLITE (groundplane::sqlite)")
expect("portfile MATCHES \"postgres GROUNDPLANE_POSTGRES\"" "the postgres feature turns on GROUNDPLANE_POSTGRES (groundplane::postgres)")
expect("portfile MATCHES \"vcpkg_copy_tools[(]TOOL_NAMES groundplane-ledger\"" "the sqlite feature installs groundplane-ledger")

if(failures)
  message(FATAL_ERROR "ports/groundplane:\n${failures}")
endif()
