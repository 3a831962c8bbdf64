# Locating groundplane's two dependencies: an installed package first (Debian's
# nlohmann-json3-dev and catch2, vcpkg, Conan, a prefix of your own), then a download
# pinned by URL and hash. Set FETCHCONTENT_FULLY_DISCONNECTED=ON to forbid the download.
include(FetchContent)

function(_groundplane_fetch_failed what package hint)
  message(FATAL_ERROR
    "groundplane: ${what} was not found and could not be downloaded.\n"
    "  Install it (${hint}), or point CMake at an existing install with\n"
    "  -D${package}_DIR=<dir containing ${package}Config.cmake> or CMAKE_PREFIX_PATH.")
endfunction()

macro(groundplane_find_nlohmann_json)
  if(NOT TARGET nlohmann_json::nlohmann_json)
    find_package(nlohmann_json 3.11 CONFIG QUIET)
    if(nlohmann_json_FOUND)
      message(STATUS "groundplane: using nlohmann_json ${nlohmann_json_VERSION} from ${nlohmann_json_DIR}")
    elseif(FETCHCONTENT_FULLY_DISCONNECTED)
      _groundplane_fetch_failed("nlohmann_json >= 3.11" nlohmann_json
        "Debian/Ubuntu: apt-get install nlohmann-json3-dev")
    else()
      message(STATUS "groundplane: nlohmann_json >= 3.11 not installed; downloading 3.11.3")
      FetchContent_Declare(groundplane_nlohmann_json
        URL https://github.com/nlohmann/json/releases/download/v3.11.3/json.tar.xz
        URL_HASH SHA256=d6c65aca6b1ed68e7a182f4757257b107ae403032760ed6ef121c9d55e81757d
        DOWNLOAD_EXTRACT_TIMESTAMP TRUE)
      set(JSON_Install ${GROUNDPLANE_INSTALL} CACHE BOOL "" FORCE)
      FetchContent_MakeAvailable(groundplane_nlohmann_json)
      if(NOT TARGET nlohmann_json::nlohmann_json)
        _groundplane_fetch_failed("nlohmann_json >= 3.11" nlohmann_json
          "Debian/Ubuntu: apt-get install nlohmann-json3-dev")
      endif()
    endif()
  endif()
endmacro()

macro(groundplane_find_catch2)
  if(NOT TARGET Catch2::Catch2)
    # The tests are written against Catch2 2.x (Debian 12 ships 2.13).
    find_package(Catch2 2.13 CONFIG QUIET)
    if(Catch2_FOUND)
      message(STATUS "groundplane: using Catch2 ${Catch2_VERSION} from ${Catch2_DIR}")
      list(APPEND CMAKE_MODULE_PATH "${Catch2_DIR}")
    elseif(FETCHCONTENT_FULLY_DISCONNECTED)
      _groundplane_fetch_failed("Catch2 2.13" Catch2 "Debian/Ubuntu: apt-get install catch2")
    else()
      message(STATUS "groundplane: Catch2 2.13 not installed; downloading 2.13.10")
      FetchContent_Declare(groundplane_catch2
        URL https://github.com/catchorg/Catch2/archive/v2.13.10.zip
        URL_HASH SHA256=121e7488912c2ce887bfe4699ebfb983d0f2e0d68bcd60434cdfd6bb0cf78b43
        DOWNLOAD_EXTRACT_TIMESTAMP TRUE)
      FetchContent_MakeAvailable(groundplane_catch2)
      if(NOT TARGET Catch2::Catch2)
        _groundplane_fetch_failed("Catch2 2.13" Catch2 "Debian/Ubuntu: apt-get install catch2")
      endif()
      list(APPEND CMAKE_MODULE_PATH "${groundplane_catch2_SOURCE_DIR}/contrib")
    endif()
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
