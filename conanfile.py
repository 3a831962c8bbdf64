# groundplane as a Conan 2 package: `conan create .` in this checkout, then require
# "groundplane/<version>" (see the README). Header-only, so one package serves every
# settings combination. Option sqlite=True adds the durable ledger store's component,
# groundplane::sqlite (<groundplane/store/sqlite.hpp>), which links SQLite3 and OpenSSL;
# option postgres=True adds groundplane::postgres (<groundplane/store/postgres.hpp>),
# which links libpq and OpenSSL.
import os
import re

from conan import ConanFile
from conan.tools.build import check_min_cppstd
from conan.tools.files import copy, load
from conan.tools.layout import basic_layout

required_conan_version = ">=2.0"


class GroundplaneConan(ConanFile):
    name = "groundplane"
    description = ("Header-only C++20 library that checks a language model's structured claims "
                   "against recorded tool results")
    license = "MIT"
    url = "https://github.com/groundplane/groundplane"
    homepage = "https://github.com/groundplane/groundplane"
    topics = ("llm", "validation", "header-only", "json")
    package_type = "header-library"
    settings = "os", "arch", "compiler", "build_type"
    options = {"sqlite": [True, False], "postgres": [True, False]}
    default_options = {"sqlite": False, "postgres": False}
    exports_sources = "include/*", "LICENSE"
    exports = "CMakeLists.txt"
    no_copy_source = True

    def set_version(self):
        # One source of truth: project(groundplane VERSION x.y.z) in CMakeLists.txt.
        cmake = load(self, os.path.join(self.recipe_folder, "CMakeLists.txt"))
        match = re.search(r"project\(groundplane\s+VERSION\s+(\d+\.\d+\.\d+)", cmake)
        if not match:
            raise ValueError("no project(groundplane VERSION ...) in CMakeLists.txt")
        self.version = match.group(1)

    def layout(self):
        basic_layout(self, src_folder=".")

    def requirements(self):
        # Its types appear in groundplane's headers, so consumers see its headers too.
        self.requires("nlohmann_json/3.11.3", transitive_headers=True)
        if self.options.sqlite:
            # <groundplane/store/sqlite.hpp> includes <sqlite3.h> and <openssl/evp.h>.
            self.requires("sqlite3/3.45.3", transitive_headers=True, transitive_libs=True)
        if self.options.postgres:
            # <groundplane/store/postgres.hpp> includes <libpq-fe.h> and <openssl/evp.h>.
            self.requires("libpq/[>=15 <18]", transitive_headers=True, transitive_libs=True)
        if self.options.sqlite or self.options.postgres:
            self.requires("openssl/[>=3 <4]", transitive_headers=True, transitive_libs=True)

    def validate(self):
        if self.settings.get_safe("compiler.cppstd"):
            check_min_cppstd(self, 20)

    def package_id(self):
        # Header-only: the same package whatever the settings.
        self.info.clear()

    def package(self):
        copy(self, "LICENSE", src=self.source_folder, dst=os.path.join(self.package_folder, "licenses"))
        copy(self, "*.hpp", src=os.path.join(self.source_folder, "include"),
             dst=os.path.join(self.package_folder, "include"))

    def package_info(self):
        # The names CMake users write: find_package(groundplane) and groundplane::groundplane.
        # The names CMake users write: find_package(groundplane), groundplane::groundplane,
        # and with sqlite=True groundplane::sqlite (what find_package(... COMPONENTS sqlite)
        # gives an installed build).
        self.cpp_info.set_property("cmake_file_name", "groundplane")
        self.cpp_info.set_property("cmake_target_name", "groundplane::all")
        self.cpp_info.set_property("pkg_config_name", "groundplane-all")
        core = self.cpp_info.components["groundplane"]
        core.set_property("cmake_target_name", "groundplane::groundplane")
        core.set_property("pkg_config_name", "groundplane")
        core.requires = ["nlohmann_json::nlohmann_json"]
        core.bindirs = []
        core.libdirs = []
        if self.options.sqlite:
            store = self.cpp_info.components["sqlite"]
            store.set_property("cmake_target_name", "groundplane::sqlite")
            store.requires = ["groundplane", "sqlite3::sqlite3", "openssl::crypto"]
            store.bindirs = []
            store.libdirs = []
        if self.options.postgres:
            pg = self.cpp_info.components["postgres"]
            pg.set_property("cmake_target_name", "groundplane::postgres")
            pg.requires = ["groundplane", "libpq::libpq", "openssl::crypto"]
            pg.bindirs = []
            pg.libdirs = []
        self.cpp_info.bindirs = []
        self.cpp_info.libdirs = []
