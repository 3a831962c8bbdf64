# Locating groundplane's dependencies: an installed package first (Debian's
# nlohmann-json3-dev and catch2, vcpkg, Conan, a prefix of your own), then one brief
# download pinned by URL and hash. When neither works, configure stops at once and says
# what to install. Set FETCHCONTENT_FULLY_DISCONNECTED=ON to forbid the download.
include(FetchContent)

set(_groundplane_nlohmann_json_hint [[
    Debian/Ubuntu: apt-get install nlohmann-json3-dev
    vcpkg:         vcpkg install nlohmann-json
    Conan:         nlohmann_json/3.11.3
    Homebrew:      brew install nlohmann-json]])
set(_groundplane_catch2_hint [[
    Debian/Ubuntu: apt-get install catch2   (Catch2 3 and 2.13 both work)
    vcpkg:         vcpkg install catch2
    Conan:         catch2/3.7.1
    Homebrew:      brew install catch2]])
set(_groundplane_catch2_note "\n  Only the tests need it: -DGROUNDPLANE_BUILD_TESTS=OFF configures without it.")

# Stops configure: what is missing, why, and what to install (_groundplane_<package>_hint).
function(_groundplane_fetch_failed what package why)
  string(TOLOWER "${package}" key)
  message(FATAL_ERROR
    "groundplane: ${what} was not found${why}.\n"
    "  Install it:\n${_groundplane_${key}_hint}\n"
    "  or point CMake at an install: -D${package}_DIR=<dir containing ${package}Config.cmake>,\n"
    "  or add its prefix to CMAKE_PREFIX_PATH.${_groundplane_${key}_note}")
endfunction()

# Downloads url once, with short timeouts and no retries (FetchContent's own download
# retries for over a minute when there is no network), into the build tree; sets
# out_var to the archive's path, or to "" with the reason in ${out_var}_ERROR.
function(_groundplane_download name url sha256 out_var)
  get_filename_component(file_name "${url}" NAME)
  set(archive "${CMAKE_BINARY_DIR}/_deps/${name}-download/${file_name}")
  if(EXISTS "${archive}")
    file(SHA256 "${archive}" have)
    if(have STREQUAL sha256)
      set(${out_var} "${archive}" PARENT_SCOPE)
      return()
    endif()
  endif()
  message(STATUS "groundplane: downloading ${url}")
  file(DOWNLOAD "${url}" "${archive}" TIMEOUT 60 INACTIVITY_TIMEOUT 10 STATUS status)
  list(GET status 0 code)
  list(GET status 1 reason)
  if(code EQUAL 0)
    file(SHA256 "${archive}" have)
    if(NOT have STREQUAL sha256)
      set(code 1)
      set(reason "the download's SHA256 is ${have}, expected ${sha256}")
    endif()
  endif()
  if(NOT code EQUAL 0)
    file(REMOVE "${archive}")
    set(${out_var} "" PARENT_SCOPE)
    set(${out_var}_ERROR "${reason}" PARENT_SCOPE)
    return()
  endif()
  set(${out_var} "${archive}" PARENT_SCOPE)
endfunction()

# _groundplane_fetch(<name> <url> <sha256> <what> <package>): the source of a
# dependency, from FETCHCONTENT_SOURCE_DIR_<NAME> if set, else from one brief download.
macro(_groundplane_fetch _gp_name _gp_url _gp_sha256 _gp_what _gp_package)
  string(TOUPPER "${_gp_name}" _gp_upper)
  if(FETCHCONTENT_SOURCE_DIR_${_gp_upper})
    FetchContent_Declare(${_gp_name} URL "${_gp_url}" URL_HASH SHA256=${_gp_sha256})
  elseif(FETCHCONTENT_FULLY_DISCONNECTED)
    _groundplane_fetch_failed("${_gp_what}" ${_gp_package}
      " (and FETCHCONTENT_FULLY_DISCONNECTED forbids downloading it)")
  else()
    _groundplane_download(${_gp_name} "${_gp_url}" ${_gp_sha256} _gp_archive)
    if(NOT _gp_archive)
      _groundplane_fetch_failed("${_gp_what}" ${_gp_package}
        ", and downloading it failed: ${_gp_archive_ERROR}")
    endif()
    FetchContent_Declare(${_gp_name} URL "${_gp_archive}" URL_HASH SHA256=${_gp_sha256})
  endif()
  FetchContent_MakeAvailable(${_gp_name})
endmacro()

macro(groundplane_find_nlohmann_json)
  if(NOT TARGET nlohmann_json::nlohmann_json)
    find_package(nlohmann_json 3.11 CONFIG QUIET)
    if(nlohmann_json_FOUND)
      message(STATUS "groundplane: using nlohmann_json ${nlohmann_json_VERSION} from ${nlohmann_json_DIR}")
    else()
      message(STATUS "groundplane: nlohmann_json >= 3.11 is not installed; trying to download 3.11.3")
      set(JSON_Install ${GROUNDPLANE_INSTALL} CACHE BOOL "" FORCE)
      _groundplane_fetch(groundplane_nlohmann_json
        https://github.com/nlohmann/json/releases/download/v3.11.3/json.tar.xz
        d6c65aca6b1ed68e7a182f4757257b107ae403032760ed6ef121c9d55e81757d
        "nlohmann_json >= 3.11" nlohmann_json)
      if(NOT TARGET nlohmann_json::nlohmann_json)
        _groundplane_fetch_failed("nlohmann_json >= 3.11" nlohmann_json
          " (the download did not define nlohmann_json::nlohmann_json)")
      endif()
    endif()
  endif()
endmacro()

# Catch2 3 when installed (current distributions, vcpkg, Conan), else 2.13 (Debian 12),
# else a download of 2.13.10. Sets GROUNDPLANE_CATCH2_MAJOR (2 or 3) and
# GROUNDPLANE_CATCH2_TARGET, the target that gives the tests Catch2 and a main.
macro(groundplane_find_catch2)
  if(TARGET Catch2::Catch2WithMain)  # a parent project brought Catch2 3 already
    set(GROUNDPLANE_CATCH2_MAJOR 3)
  elseif(TARGET Catch2::Catch2)
    set(GROUNDPLANE_CATCH2_MAJOR 2)
  else()
    find_package(Catch2 3 CONFIG QUIET)
    if(NOT Catch2_FOUND)
      find_package(Catch2 2.13 CONFIG QUIET)
    endif()
    if(Catch2_FOUND)
      message(STATUS "groundplane: using Catch2 ${Catch2_VERSION} from ${Catch2_DIR}")
      list(APPEND CMAKE_MODULE_PATH "${Catch2_DIR}")
      string(REGEX MATCH "^[0-9]+" GROUNDPLANE_CATCH2_MAJOR "${Catch2_VERSION}")
    else()
      message(STATUS "groundplane: neither Catch2 3 nor 2.13 is installed; trying to download 2.13.10")
      _groundplane_fetch(groundplane_catch2
        https://github.com/catchorg/Catch2/archive/v2.13.10.zip
        121e7488912c2ce887bfe4699ebfb983d0f2e0d68bcd60434cdfd6bb0cf78b43
        "Catch2 (3, or 2.13)" Catch2)
      if(NOT TARGET Catch2::Catch2)
        _groundplane_fetch_failed("Catch2 (3, or 2.13)" Catch2
          " (the download did not define Catch2::Catch2)")
      endif()
      list(APPEND CMAKE_MODULE_PATH "${groundplane_catch2_SOURCE_DIR}/contrib")
      set(GROUNDPLANE_CATCH2_MAJOR 2)
    endif()
  endif()
  if(GROUNDPLANE_CATCH2_MAJOR GREATER_EQUAL 3)
    set(GROUNDPLANE_CATCH2_TARGET Catch2::Catch2WithMain)
  else()
    set(GROUNDPLANE_CATCH2_TARGET Catch2::Catch2)
  endif()
endmacro()

# cpp-httplib, for the MCP server's Streamable HTTP transport (groundplane/mcp/http.hpp);
# optional: without it groundplane-mcp serves stdio only and the HTTP tests are not built.
# Debian's libcpp-httplib-dev is a compiled library with its feature macros in its
# pkg-config file; a header-only httplib.h is taken as it is.
macro(groundplane_find_httplib)
  if(NOT TARGET groundplane::httplib)
    find_package(PkgConfig QUIET)
    if(PkgConfig_FOUND)
      pkg_check_modules(GROUNDPLANE_HTTPLIB QUIET IMPORTED_TARGET cpp-httplib)
    endif()
    if(GROUNDPLANE_HTTPLIB_FOUND)
      add_library(groundplane::httplib INTERFACE IMPORTED GLOBAL)
      find_package(Threads REQUIRED)
      target_link_libraries(groundplane::httplib INTERFACE PkgConfig::GROUNDPLANE_HTTPLIB Threads::Threads)
      message(STATUS "groundplane: using cpp-httplib ${GROUNDPLANE_HTTPLIB_VERSION} (pkg-config)")
    else()
      find_path(GROUNDPLANE_HTTPLIB_INCLUDE httplib.h)
      if(GROUNDPLANE_HTTPLIB_INCLUDE)
        add_library(groundplane::httplib INTERFACE IMPORTED GLOBAL)
        find_package(Threads REQUIRED)
        target_include_directories(groundplane::httplib INTERFACE "${GROUNDPLANE_HTTPLIB_INCLUDE}")
        target_link_libraries(groundplane::httplib INTERFACE Threads::Threads)
        message(STATUS "groundplane: using header-only cpp-httplib from ${GROUNDPLANE_HTTPLIB_INCLUDE}")
      endif()
    endif()
  endif()
endmacro()
