"""The Conan recipe, checked without Conan: both recipes parse, and conanfile.py, loaded
against a minimal stand-in for the conan API, declares what the README promises.

usage: python3 check_conan_recipe.py <source dir> <expected version>
"""
import ast
import importlib.util
import os
import sys
import types

source_dir, expected_version = sys.argv[1], sys.argv[2]
recipe = os.path.join(source_dir, "conanfile.py")
for path in (recipe, os.path.join(source_dir, "test_package", "conanfile.py")):
    with open(path, encoding="utf-8") as f:
        ast.parse(f.read(), filename=path)
    print("parses:", os.path.relpath(path, source_dir))

calls = []


class ConanFile:
    pass


def module(name, **attrs):
    m = types.ModuleType(name)
    m.__dict__.update(attrs)
    sys.modules[name] = m
    return m


def load(conanfile, path):
    with open(path, encoding="utf-8") as f:
        return f.read()


module("conan", ConanFile=ConanFile)
module("conan.tools")
module("conan.tools.build", check_min_cppstd=lambda cf, v: calls.append(("check_min_cppstd", v)))
module("conan.tools.files", load=load, copy=lambda cf, pattern, **kw: calls.append(("copy", pattern)))
module("conan.tools.layout", basic_layout=lambda cf, **kw: calls.append(("basic_layout",)))

spec = importlib.util.spec_from_file_location("groundplane_conanfile", recipe)
conanfile_module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(conanfile_module)
recipes = [c for c in vars(conanfile_module).values()
           if isinstance(c, type) and issubclass(c, ConanFile) and c is not ConanFile]
assert len(recipes) == 1, "conanfile.py defines exactly one recipe"


class Info:
    def clear(self):
        calls.append(("info.clear",))


class CppInfo:
    def __init__(self):
        self.properties = {}
        self.components = Components()

    def set_property(self, key, value):
        self.properties[key] = value


class Components(dict):
    def __missing__(self, key):
        self[key] = CppInfo()
        return self[key]


class Options:
    def __init__(self, sqlite, postgres=False):
        self.sqlite = sqlite
        self.postgres = postgres


r = recipes[0]()
r.options = Options(False)
r.recipe_folder = source_dir
r.info = Info()
r.cpp_info = CppInfo()
r.requires = lambda ref, **traits: calls.append(("requires", ref, traits))

failures = []


def expect(condition, what):
    print(("ok:   " if condition else "FAIL: ") + what)
    if not condition:
        failures.append(what)


expect(r.name == "groundplane", "the package is named groundplane")
expect(r.package_type == "header-library", "package_type is header-library")
r.set_version()
expect(r.version == expected_version, f"set_version() reads {expected_version} from CMakeLists.txt (got {r.version})")
r.requirements()
reqs = [c for c in calls if c[0] == "requires"]
expect(len(reqs) == 1 and reqs[0][1].startswith("nlohmann_json/3.11."), "requires nlohmann_json/3.11.x and nothing else")
expect(bool(reqs) and reqs[0][2].get("transitive_headers") is True, "nlohmann_json headers reach consumers")
r.package_id()
expect(("info.clear",) in calls, "package_id() clears the settings: one package for every configuration")
r.package_info()
props = r.cpp_info.properties
core = r.cpp_info.components["groundplane"]
expect(props.get("cmake_file_name") == "groundplane", "CMakeDeps writes find_package(groundplane)")
expect(core.properties.get("cmake_target_name") == "groundplane::groundplane", "the CMake target is groundplane::groundplane")
expect(core.requires == ["nlohmann_json::nlohmann_json"], "the core component needs nlohmann_json only")
expect("sqlite" not in r.cpp_info.components, "without the sqlite option there is no store component")
expect(r.cpp_info.bindirs == [] and r.cpp_info.libdirs == [], "no bin or lib directories: header-only")
expect(r.default_options.get("sqlite") is False, "the sqlite option is off by default")

# sqlite=True: the store's libraries are required and its component is groundplane::sqlite.
calls.clear()
r.options = Options(True)
r.cpp_info = CppInfo()
r.requirements()
names = [c[1].split("/")[0] for c in calls if c[0] == "requires"]
expect(sorted(names) == ["nlohmann_json", "openssl", "sqlite3"], f"sqlite=True requires sqlite3 and openssl (got {names})")
r.package_info()
store = r.cpp_info.components["sqlite"]
expect(store.properties.get("cmake_target_name") == "groundplane::sqlite", "sqlite=True adds groundplane::sqlite")
expect(set(store.requires) == {"groundplane", "sqlite3::sqlite3", "openssl::crypto"},
       "groundplane::sqlite links the core, SQLite3 and libcrypto")
expect("postgres" not in r.cpp_info.components, "sqlite=True alone adds no PostgreSQL component")

# postgres=True: libpq and libcrypto are required and its component is groundplane::postgres.
calls.clear()
r.options = Options(False, True)
r.cpp_info = CppInfo()
r.requirements()
names = [c[1].split("/")[0] for c in calls if c[0] == "requires"]
expect(sorted(names) == ["libpq", "nlohmann_json", "openssl"], f"postgres=True requires libpq and openssl (got {names})")
r.package_info()
pg = r.cpp_info.components["postgres"]
expect(pg.properties.get("cmake_target_name") == "groundplane::postgres", "postgres=True adds groundplane::postgres")
expect(set(pg.requires) == {"groundplane", "libpq::libpq", "openssl::crypto"},
       "groundplane::postgres links the core, libpq and libcrypto")
expect(r.default_options.get("postgres") is False, "the postgres option is off by default")

# Both: openssl is required once.
calls.clear()
r.options = Options(True, True)
r.requirements()
names = [c[1].split("/")[0] for c in calls if c[0] == "requires"]
expect(sorted(names) == ["libpq", "nlohmann_json", "openssl", "sqlite3"], f"both options: each library once (got {names})")
expect(any("include/*" in s for s in ([r.exports_sources] if isinstance(r.exports_sources, str) else r.exports_sources)),
       "the headers are exported with the recipe")

sys.exit(1 if failures else 0)
