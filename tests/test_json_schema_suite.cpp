// The official JSON-Schema-Test-Suite against gp::JsonSchema, read where Debian's
// json-schema-test-suite package puts it (GROUNDPLANE_JSON_SCHEMA_TEST_SUITE, a CMake
// cache variable). CMake registers this test only when the directory exists, and CI
// fails when it was not registered: a missing suite is never a pass.
//
// Every file of draft7/ is in exactly one list below, so a newer suite's new file fails
// the test until it is classified:
//   run      every case must pass; the few groups whose schema uses a keyword the
//            validator refuses (patternProperties, a remote $ref) must be refused at
//            compile, naming it, instead
//   refused  every group's schema uses a refused keyword: each must be refused at compile
//   left out with the reason beside it
#include <groundplane/json_schema.hpp>

#include <algorithm>
#include <cstddef>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>
#include "catch2_compat.hpp"

#ifndef GROUNDPLANE_JSON_SCHEMA_TEST_SUITE
#error "GROUNDPLANE_JSON_SCHEMA_TEST_SUITE names the suite's tests/ directory (tests/CMakeLists.txt sets it)"
#endif

namespace gp = groundplane;
using nlohmann::json;

namespace {

const std::filesystem::path suite = std::filesystem::path(GROUNDPLANE_JSON_SCHEMA_TEST_SUITE) / "draft7";

// Files whose every case runs.
const std::vector<std::string> run_files = {"additionalItems.json",
                                            "additionalProperties.json",
                                            "allOf.json",
                                            "anyOf.json",
                                            "boolean_schema.json",
                                            "const.json",
                                            "contains.json",
                                            "default.json",
                                            "dependencies.json",
                                            "enum.json",
                                            "exclusiveMaximum.json",
                                            "exclusiveMinimum.json",
                                            "if-then-else.json",
                                            "items.json",
                                            "maxItems.json",
                                            "maxLength.json",
                                            "maxProperties.json",
                                            "maximum.json",
                                            "minItems.json",
                                            "minLength.json",
                                            "minProperties.json",
                                            "minimum.json",
                                            "multipleOf.json",
                                            "not.json",
                                            "oneOf.json",
                                            "properties.json",
                                            "propertyNames.json",
                                            "ref.json",
                                            "required.json",
                                            "type.json",
                                            "uniqueItems.json",
                                            "optional/bignum.json",
                                            "optional/zeroTerminatedFloats.json"};

// Groups of run_files refused at compile, and what the refusal must name.
const std::map<std::pair<std::string, std::string>, std::string> refused_groups = {
    {{"additionalProperties.json", "additionalProperties being false does not allow other properties"},
     "'patternProperties'"},
    {{"additionalProperties.json", "non-ASCII pattern with additionalProperties"}, "'patternProperties'"},
    {{"properties.json", "properties, patternProperties, additionalProperties interaction"}, "'patternProperties'"},
    {{"ref.json", "remote ref, containing refs itself"}, "names another document"},
    {{"ref.json", "Recursive references between schemas"}, "names another document"},
};

// Files whose every group is refused at compile, and what each refusal must name.
const std::map<std::string, std::string> refused_files = {
    {"pattern.json", "'pattern'"},
    {"patternProperties.json", "'patternProperties'"},
    {"refRemote.json", "names another document"},
    // Both groups are {"$ref": "http://json-schema.org/draft-07/schema#"}: the metaschema
    // is another document.
    {"definitions.json", "names another document"},
};

// Files not run, and why.
const std::map<std::string, std::string> left_out = {
    {"optional/content.json",
     "contentMediaType/contentEncoding are annotations here (as 2019-09 made them); the file asserts them"},
    {"optional/format", "format is an annotation here (as 2019-09 made it); these files assert formats"},
    {"optional/ecmascript-regex.json", "asserts \"format\": \"regex\" (format is an annotation here)"},
};

json read_json(const std::filesystem::path& p) {
  std::ifstream in(p);
  REQUIRE(in.good());
  std::stringstream text;
  text << in.rdbuf();
  return json::parse(text.str());
}

struct Counts {
  std::size_t groups = 0, cases = 0, passed = 0, refused_groups = 0;
};

void print(const std::map<std::string, Counts>& counts) {
  std::cout << "JSON-Schema-Test-Suite draft7 (" << suite.string() << ")\n";
  Counts total;
  for (const auto& [file, c] : counts) {
    std::cout << "  " << file << ": " << c.passed << "/" << c.cases << " cases passed in " << c.groups << " groups";
    if (c.refused_groups > 0) std::cout << ", " << c.refused_groups << " groups refused at compile as they must be";
    std::cout << "\n";
    total.groups += c.groups;
    total.cases += c.cases;
    total.passed += c.passed;
    total.refused_groups += c.refused_groups;
  }
  std::cout << "  total: " << total.passed << "/" << total.cases << " cases passed in " << total.groups << " groups; "
            << total.refused_groups << " groups refused at compile\n";
}

}  // namespace

TEST_CASE("Every draft7 file of the suite is run, refused or left out with a reason") {
  REQUIRE(std::filesystem::is_directory(suite));
  std::vector<std::string> found;
  for (const auto& dir : {suite, suite / "optional"})
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
      const std::string rel = std::filesystem::relative(entry.path(), suite).generic_string();
      if (entry.is_directory() && rel != "optional") found.push_back(rel);
      else if (entry.path().extension() == ".json") found.push_back(rel);
    }
  std::sort(found.begin(), found.end());
  CHECK(found.size() >= run_files.size() + refused_files.size());
  for (const auto& rel : found) {
    INFO(rel);
    const int lists = static_cast<int>(std::count(run_files.begin(), run_files.end(), rel)) +
                      static_cast<int>(refused_files.count(rel)) + static_cast<int>(left_out.count(rel));
    CHECK(lists == 1);
  }
  for (const auto& rel : run_files) {
    INFO(rel);
    CHECK(std::filesystem::is_regular_file(suite / rel));
  }
  for (const auto& [rel, why] : refused_files) {
    INFO(rel);
    CHECK(std::filesystem::is_regular_file(suite / rel));
  }
}

TEST_CASE("Every case of the suite's draft7 files for the supported keywords passes") {
  std::map<std::string, Counts> counts;
  std::size_t refused_seen = 0;
  for (const auto& rel : run_files) {
    const json groups = read_json(suite / rel);
    Counts& c = counts[rel];
    for (const auto& group : groups) {
      const std::string description = group.at("description").get<std::string>();
      ++c.groups;
      const auto refusal = refused_groups.find({rel, description});
      if (refusal != refused_groups.end()) {
        INFO(rel << " / " << description << ": must be refused at compile naming " << refusal->second);
        bool refused = false;
        try {
          gp::JsonSchema{group.at("schema")};
        } catch (const gp::ConfigurationError& e) {
          refused = true;
          CHECK_THAT(e.what(), Catch::Contains(refusal->second));
        }
        CHECK(refused);
        ++c.refused_groups;
        ++refused_seen;
        continue;
      }
      std::optional<gp::JsonSchema> schema;
      try {
        schema.emplace(group.at("schema"));
      } catch (const gp::ConfigurationError& e) {
        FAIL_CHECK(rel << " / " << description << ": refused at compile: " << e.what());
        continue;
      }
      for (const auto& t : group.at("tests")) {
        ++c.cases;
        const bool want = t.at("valid").get<bool>();
        const auto issues = schema->validate(t.at("data"));
        if (issues.empty() == want) {
          ++c.passed;
          continue;
        }
        FAIL_CHECK(rel << " / " << description << " / " << t.at("description").get<std::string>() << ": expected "
                       << (want ? "valid" : "invalid") << ", got "
                       << (issues.empty() ? std::string("no issues") : "issues: " + issues.front()));
      }
    }
  }
  print(counts);
  CHECK(refused_seen == refused_groups.size());
  std::size_t cases = 0;
  for (const auto& [file, c] : counts) {
    INFO(file);
    CHECK(c.cases > 0);
    CHECK(c.passed == c.cases);
    cases += c.cases;
  }
  CHECK(cases >= 371);  // the 2.0.0 package's files hold 371 here: fewer means cases went missing
}

TEST_CASE("Every group of the suite's files for refused keywords is refused at compile, naming the keyword") {
  for (const auto& [rel, naming] : refused_files) {
    const json groups = read_json(suite / rel);
    CHECK(!groups.empty());
    std::size_t refused = 0;
    for (const auto& group : groups) {
      INFO(rel << " / " << group.at("description").get<std::string>());
      try {
        gp::JsonSchema{group.at("schema")};
        FAIL_CHECK("compiled, but its schema uses a refused keyword");
      } catch (const gp::ConfigurationError& e) {
        CHECK_THAT(e.what(), Catch::Contains(naming));
        ++refused;
      }
    }
    std::cout << "  " << rel << ": " << refused << "/" << groups.size() << " groups refused at compile, naming "
              << naming << "\n";
  }
}
