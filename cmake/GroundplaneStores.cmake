# The durable ledger stores: optional targets beside the header-only core, each adding
# only include paths and the libraries its header needs (the core keeps nlohmann/json as
# its only dependency).
#
#   groundplane::sqlite     <groundplane/store/sqlite.hpp>     SQLite3 + OpenSSL::Crypto
#   groundplane::postgres   <groundplane/store/postgres.hpp>   libpq + OpenSSL::Crypto
#
# GROUNDPLANE_SQLITE / GROUNDPLANE_POSTGRES: AUTO (default) builds the target when its
# libraries are found, ON requires them, OFF leaves the target out.
set(GROUNDPLANE_SQLITE AUTO CACHE STRING "Provide groundplane::sqlite (AUTO, ON or OFF)")
set_property(CACHE GROUNDPLANE_SQLITE PROPERTY STRINGS AUTO ON OFF)

if(NOT GROUNDPLANE_SQLITE STREQUAL "OFF")
  if(GROUNDPLANE_SQLITE STREQUAL "ON")
    find_package(SQLite3 REQUIRED)
    find_package(OpenSSL REQUIRED COMPONENTS Crypto)
  else()
    find_package(SQLite3 QUIET)
    find_package(OpenSSL QUIET COMPONENTS Crypto)
  endif()
  if(SQLite3_FOUND AND OpenSSL_FOUND AND TARGET OpenSSL::Crypto)
    add_library(groundplane_sqlite INTERFACE)
    add_library(groundplane::sqlite ALIAS groundplane_sqlite)
    set_target_properties(groundplane_sqlite PROPERTIES EXPORT_NAME sqlite)
    target_link_libraries(groundplane_sqlite INTERFACE groundplane SQLite::SQLite3 OpenSSL::Crypto)
    message(STATUS "groundplane: groundplane::sqlite with SQLite ${SQLite3_VERSION} and OpenSSL ${OPENSSL_VERSION}")
  else()
    message(STATUS "groundplane: SQLite3 or OpenSSL's libcrypto not found; groundplane::sqlite is not built "
                   "(Debian/Ubuntu: apt-get install libsqlite3-dev libssl-dev)")
  endif()
endif()

set(GROUNDPLANE_POSTGRES AUTO CACHE STRING "Provide groundplane::postgres (AUTO, ON or OFF)")
set_property(CACHE GROUNDPLANE_POSTGRES PROPERTY STRINGS AUTO ON OFF)

if(NOT GROUNDPLANE_POSTGRES STREQUAL "OFF")
  if(GROUNDPLANE_POSTGRES STREQUAL "ON")
    find_package(PostgreSQL REQUIRED)
    find_package(OpenSSL REQUIRED COMPONENTS Crypto)
  else()
    find_package(PostgreSQL QUIET)
    find_package(OpenSSL QUIET COMPONENTS Crypto)
  endif()
  if(PostgreSQL_FOUND AND TARGET PostgreSQL::PostgreSQL AND OpenSSL_FOUND AND TARGET OpenSSL::Crypto)
    add_library(groundplane_postgres INTERFACE)
    add_library(groundplane::postgres ALIAS groundplane_postgres)
    set_target_properties(groundplane_postgres PROPERTIES EXPORT_NAME postgres)
    target_link_libraries(groundplane_postgres INTERFACE groundplane PostgreSQL::PostgreSQL OpenSSL::Crypto)
    message(STATUS "groundplane: groundplane::postgres with libpq ${PostgreSQL_VERSION_STRING} and OpenSSL ${OPENSSL_VERSION}")
  else()
    message(STATUS "groundplane: libpq or OpenSSL's libcrypto not found; groundplane::postgres is not built "
                   "(Debian/Ubuntu: apt-get install libpq-dev libssl-dev)")
  endif()
endif()
