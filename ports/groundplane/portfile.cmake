# groundplane as a vcpkg overlay port, built from the checkout it lives in
# (ports/groundplane -> the repository root): vcpkg install groundplane --overlay-ports=<checkout>/ports
set(SOURCE_PATH "${CMAKE_CURRENT_LIST_DIR}/../..")

# Header-only: there is nothing configuration-specific to build, so only release runs.
set(VCPKG_BUILD_TYPE release)

vcpkg_check_features(OUT_FEATURE_OPTIONS feature_options
  FEATURES
    mcp-server GROUNDPLANE_BUILD_MCP_SERVER
    postgres GROUNDPLANE_POSTGRES
    sqlite GROUNDPLANE_SQLITE
    sqlite GROUNDPLANE_BUILD_LEDGER_TOOL)

# nlohmann-json comes from vcpkg; groundplane's own download fallback is switched off.
vcpkg_cmake_configure(
  SOURCE_PATH "${SOURCE_PATH}"
  OPTIONS
    -DGROUNDPLANE_BUILD_TESTS=OFF
    -DGROUNDPLANE_BUILD_EXAMPLES=OFF
    -DGROUNDPLANE_INSTALL=ON
    -DFETCHCONTENT_FULLY_DISCONNECTED=ON
    ${feature_options})
vcpkg_cmake_install()

# The package installs its config to share/cmake/groundplane (GROUNDPLANE_CMAKE_DIR, the
# path tests/consumers exercises with find_package); vcpkg wants it in share/groundplane.
vcpkg_cmake_config_fixup(CONFIG_PATH share/cmake/groundplane)
vcpkg_fixup_pkgconfig()

if("mcp-server" IN_LIST FEATURES)
  vcpkg_copy_tools(TOOL_NAMES groundplane-mcp AUTO_CLEAN)
endif()
if("sqlite" IN_LIST FEATURES)
  vcpkg_copy_tools(TOOL_NAMES groundplane-ledger AUTO_CLEAN)
endif()

# Header-only: no debug tree, and the license goes where vcpkg expects it.
file(REMOVE_RECURSE "${CURRENT_PACKAGES_DIR}/debug" "${CURRENT_PACKAGES_DIR}/share/doc")
file(INSTALL "${CMAKE_CURRENT_LIST_DIR}/usage" DESTINATION "${CURRENT_PACKAGES_DIR}/share/${PORT}")
vcpkg_install_copyright(FILE_LIST "${SOURCE_PATH}/LICENSE")
