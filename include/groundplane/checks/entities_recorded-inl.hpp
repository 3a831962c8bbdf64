// The bodies of entities_recorded.hpp: included by it in the header-only build, compiled once into
// groundplane::compiled otherwise (see detail/linkage.hpp).
#pragma once

#include "groundplane/checks/entities_recorded.hpp"

namespace groundplane {

namespace detail {
GROUNDPLANE_INLINE std::vector<std::uint32_t> code_points(std::string_view s) {
  std::vector<std::uint32_t> out;
  for (std::size_t i = 0; i < s.size();) {
    if (static_cast<unsigned char>(s[i]) < 0x80) {
      out.push_back(static_cast<unsigned char>(s[i++]));
      continue;
    }
    const std::size_t n = utf8_sequence_length(s, i);
    if (n == 0) {  // an invalid byte: itself, above the code point range
      out.push_back(0x110000u + static_cast<unsigned char>(s[i]));
      ++i;
    } else {
      out.push_back(utf8_decode(s.substr(i, n)));
      i += n;
    }
  }
  return out;
}
}  // namespace detail

namespace detail {
GROUNDPLANE_INLINE std::string hex_digits(std::uint32_t v, int width) {
  std::string digits;
  do {
    digits.insert(digits.begin(), "0123456789ABCDEF"[v % 16]);
    v /= 16;
  } while (v != 0);
  if (digits.size() < static_cast<std::size_t>(width))
    digits.insert(0, static_cast<std::size_t>(width) - digits.size(), '0');
  return digits;
}
}  // namespace detail

namespace detail {
GROUNDPLANE_INLINE std::string code_point_names(const std::vector<std::uint32_t>& cps, std::size_t from,
                                                std::size_t to) {
  std::string out;
  for (std::size_t i = from; i < to && i < from + 6; ++i) {
    // A value past U+10FFFF stands for a byte that is not UTF-8 (cp - 0x110000).
    const bool byte = cps[i] >= 0x110000u;
    const std::uint32_t cp = byte ? cps[i] - 0x110000u : cps[i];
    if (i > from) out += ' ';
    out += byte ? "byte 0x" : "U+";
    out += hex_digits(cp, byte ? 2 : 4);
  }
  if (to > from + 6) out += " ...";
  return out;
}
}  // namespace detail

namespace detail {
GROUNDPLANE_INLINE std::string invisible_difference(std::string_view said, std::string_view recorded) {
  const auto a = code_points(said);
  const auto b = code_points(recorded);
  std::size_t pre = 0;
  while (pre < a.size() && pre < b.size() && a[pre] == b[pre]) ++pre;
  std::size_t suf = 0;
  while (suf < a.size() - pre && suf < b.size() - pre && a[a.size() - 1 - suf] == b[b.size() - 1 - suf]) ++suf;
  const std::size_t a_end = a.size() - suf;
  const std::size_t b_end = b.size() - suf;
  if (a_end - pre > 6 || b_end - pre > 6) return "";
  const auto any = [](const std::vector<std::uint32_t>& v, std::size_t from, std::size_t to, auto pred) {
    for (std::size_t i = from; i < to; ++i)
      if (pred(v[i])) return true;
    return false;
  };
  const auto non_ascii = [](std::uint32_t c) { return c >= 0x80; };
  if (!any(a, pre, a_end, non_ascii) && !any(b, pre, b_end, non_ascii)) return "";
  const auto combining = [](std::uint32_t c) {
    return (c >= 0x0300 && c <= 0x036F) || (c >= 0x1AB0 && c <= 0x1AFF) || (c >= 0x1DC0 && c <= 0x1DFF) ||
           (c >= 0x20D0 && c <= 0x20FF) || (c >= 0xFE20 && c <= 0xFE2F);
  };
  const auto invisible = [](std::uint32_t c) {
    return c == 0x00AD || c == 0x034F || c == 0x061C || (c >= 0x180B && c <= 0x180E) || (c >= 0x200B && c <= 0x200F) ||
           (c >= 0x202A && c <= 0x202E) || (c >= 0x2060 && c <= 0x206F) || c == 0xFEFF ||
           (c >= 0xFE00 && c <= 0xFE0F) || (c >= 0xE0000 && c <= 0xE007F);
  };
  const auto all = [](const std::vector<std::uint32_t>& v, std::size_t from, std::size_t to, auto pred) {
    for (std::size_t i = from; i < to; ++i)
      if (!pred(v[i])) return false;
    return true;
  };
  const std::string theirs = quote(recorded);
  const std::string mine = code_point_names(a, pre, a_end);
  const std::string recorded_cps = code_point_names(b, pre, b_end);
  const auto space = [](std::uint32_t c) {
    return c == 0x00A0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200A) || c == 0x202F || c == 0x205F || c == 0x3000;
  };
  if (b_end == pre && all(a, pre, a_end, space))
    return "differs from " + theirs + " only by a trailing or inner space that is not U+0020: " + mine;
  if (b_end == pre && all(a, pre, a_end, invisible))
    return "differs from " + theirs + " only by an invisible character: " + mine;
  if (a_end == pre && all(b, pre, b_end, invisible))
    return "differs from " + theirs + " only by a missing invisible character: the recorded name has " + recorded_cps;
  if (any(a, pre, a_end, combining) != any(b, pre, b_end, combining))
    return "differs from " + theirs + " only by Unicode normalization: " + mine + " where the recorded name has " +
           recorded_cps;
  const auto other_script = [](std::uint32_t c) { return c >= 0x0370 && c <= 0x052F; };  // Greek, Cyrillic
  if (a_end - pre == b_end - pre && (any(a, pre, a_end, other_script) || any(b, pre, b_end, other_script)))
    return "differs from " + theirs + " only by a look-alike letter from another script: " + mine +
           " where the recorded name has " + recorded_cps;
  return "";  // a visible difference: the names already read differently
}
}  // namespace detail

namespace detail {
GROUNDPLANE_INLINE void decode_code_points(std::string_view s, std::vector<char32_t>& out) {
  out.clear();
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    const std::size_t n = c < 0x80 ? 1 : utf8_sequence_length(s, i);
    if (n == 0) {
      out.push_back(static_cast<char32_t>(0x110000u + c));
      ++i;
      continue;
    }
    out.push_back(n == 1 ? static_cast<char32_t>(c) : static_cast<char32_t>(utf8_decode(s.substr(i, n))));
    i += n;
  }
}
}  // namespace detail

namespace detail {
GROUNDPLANE_INLINE bool is_ascii(std::string_view s) noexcept {
  for (const char c : s)
    if (static_cast<unsigned char>(c) >= 0x80) return false;
  return true;
}
}  // namespace detail

namespace detail {
GROUNDPLANE_INLINE std::size_t character_count(std::string_view s, std::size_t stop_at) noexcept {
  std::size_t n = 0;
  for (std::size_t i = 0; i < s.size() && n < stop_at; ++n) {
    const auto c = static_cast<unsigned char>(s[i]);
    const std::size_t len = c < 0x80 ? 1 : utf8_sequence_length(s, i);
    i += len == 0 ? 1 : len;
  }
  return n;
}
}  // namespace detail

namespace detail {
GROUNDPLANE_INLINE std::uint64_t char_mask(std::string_view s) noexcept {
  std::uint64_t m = 0;
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    const std::size_t len = c < 0x80 ? 1 : utf8_sequence_length(s, i);
    const std::uint32_t unit = len > 1 ? utf8_decode(s.substr(i, len)) : c;
    m |= std::uint64_t{1} << (unit & 63u);
    i += len == 0 ? 1 : len;
  }
  return m;
}
}  // namespace detail

namespace detail {
GROUNDPLANE_INLINE bool equal_ignoring_ascii_case(std::string_view a, std::string_view b) noexcept {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const auto x = static_cast<unsigned char>(a[i]);
    const auto y = static_cast<unsigned char>(b[i]);
    const auto lx = x >= 'A' && x <= 'Z' ? x + 32 : x;
    const auto ly = y >= 'A' && y <= 'Z' ? y + 32 : y;
    if (lx != ly) return false;
  }
  return true;
}
}  // namespace detail

namespace detail {
GROUNDPLANE_INLINE std::string quoted_or_list(const std::vector<std::string>& names) {
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out += i + 1 == names.size() ? " or " : ", ";
    out += quote(names[i]);
  }
  return out;
}
}  // namespace detail

namespace detail {
GROUNDPLANE_INLINE std::string pointer_into(std::string_view field, std::string_view token) {
  std::string out = !field.empty() && field.front() == '/' ? std::string(field) : "/" + pointer_token(field);
  return out + "/" + pointer_token(token);
}
}  // namespace detail

GROUNDPLANE_INLINE std::string entities_recorded::name() const {
  const auto list = [](const std::vector<std::string>& v) {
    std::string out = "[";
    for (std::size_t i = 0; i < v.size(); ++i) out += (i > 0 ? ", " : "") + detail::quote(v[i]);
    return out + "]";
  };
  return std::string(check_name) + "(facts=" + list(facts) + ", fields=" + list(fields) + ")";
}

namespace detail {
GROUNDPLANE_INLINE EntitySources::EntitySources(const FactRegistry& registry, const std::vector<std::string>& facts,
                                                bool exact_case)
    : case_sensitive(exact_case) {
  for (const auto& fact : facts) {
    Source s;
    s.name = fact;
    switch (registry.kind_of(fact)) {
      case FactKind::domain:
        s.domain = &registry.get<Domain>(fact);
        break;
      case FactKind::ranking:
        s.ranking = &registry.get<Ranking>(fact);
        break;
      case FactKind::table:
        s.table = &registry.get<Table>(fact);
        break;
      case FactKind::fact:
        break;
    }
    // A recorded fact never moves: its provenance is read where it is, when a finding needs it.
    s.provenance = &registry.visit(fact, [](const auto& f) -> const Provenance& { return f.provenance(); });
    list.push_back(s);
  }
}
}  // namespace detail

GROUNDPLANE_INLINE void entities_recorded::validate(const FactRegistry& registry) const {
  if (facts.empty())
    throw ConfigurationError(std::string(check_name) + ": no facts named; set .facts to the recorded sets of names");
  if (fields.empty())
    throw ConfigurationError(std::string(check_name) +
                             ": no fields named; set .fields to the output fields that hold names");
  for (const auto& name : facts) {
    if (name.empty()) throw ConfigurationError(std::string(check_name) + ": .facts holds an empty name");
    if (!registry.contains(name)) throw UnregisteredFact(name, registry.names(), std::string(check_name) + ": ");
    const FactKind kind = registry.kind_of(name);
    if (kind == FactKind::fact)
      throw ConfigurationError(
          std::string(check_name) + ": fact " + detail::quote(name) +
          " is a single value (a Fact); this check needs a Domain (from record_domain), a Ranking (from "
          "record_ranking) or a Table with a key column (from record_table)");
    if (kind == FactKind::table && !registry.get<Table>(name).key_column())
      throw ConfigurationError(std::string(check_name) + ": table " + detail::quote(name) +
                               " has no key column, so it names no entities; record it with a key_column");
  }
  for (const auto& field : fields) detail::validate_field(field, check_name, "fields");
}

GROUNDPLANE_INLINE void entities_recorded::describe(const FactRegistry& registry, SchemaBuilder& schema) const {
  const detail::EntitySources sources(registry, facts, case_sensitive);
  std::vector<Entity> names;
  std::unordered_set<Entity> seen;
  sources.for_each_name([&](const Entity& n) {
    if (seen.insert(n).second) names.push_back(n);
    return true;
  });
  const std::string what =
      "names in " + (facts.size() == 1 ? detail::quote(facts.front()) : detail::quoted_or_list(facts));
  const nlohmann::json name = SchemaBuilder::entity_schema(names, what);
  const nlohmann::json named_object = {{"type", "object"}, {"properties", {{"name", name}}}, {"required", {"name"}}};
  nlohmann::json list = {{"type", "array"}, {"items", name}};
  nlohmann::json objects = {{"type", "array"}, {"items", named_object}};
  if (!allow_empty) {
    list["minItems"] = 1;
    objects["minItems"] = 1;
  }
  const nlohmann::json shapes = {{"anyOf", {name, std::move(list), std::move(objects)}}};
  for (const auto& field : fields) schema.add(field, shapes, true);
}

GROUNDPLANE_INLINE void entities_recorded::verify(const FactRegistry& registry, const nlohmann::json& output,
                                                  std::vector<Finding>& findings) const {
  detail::EntitySearch search{detail::EntitySources(registry, facts, case_sensitive), suggestion_budget, {}, {}};
  for (const auto& field : fields) {
    const nlohmann::json* said = detail::find_field(output, field);
    if (said != nullptr && said->is_array() && !said->empty()) {
      verify_items(search, field, *said, findings);
      continue;
    }
    const detail::EntityClaim claim = classify_field(search.sources, said);
    if (claim.kind != detail::EntityClaim::Kind::recorded)
      findings.push_back(detail::entity_finding(*this, search, field, claim));
  }
}

GROUNDPLANE_INLINE detail::EntityClaim entities_recorded::classify_field(const detail::EntitySources& sources,
                                                                         const nlohmann::json* said) const {
  using Kind = detail::EntityClaim::Kind;
  detail::EntityClaim claim;
  claim.said = said;
  if (said == nullptr) {
    claim.kind = Kind::missing_field;
  } else if (said->is_array() || (said->is_string() && said->get_ref<const std::string&>().empty())) {
    // "" or [] (a non-empty array is read item by item): the claim that none qualified.
    claim.kind = allow_empty ? Kind::recorded : Kind::empty;
  } else if (said->is_string() || detail::is_integer_json(*said)) {
    if (!sources.contain(*said)) claim.kind = classify_unrecorded(*said);
  } else {
    claim.kind = Kind::wrong_shape;
  }
  return claim;
}

GROUNDPLANE_INLINE detail::EntityClaim::Kind entities_recorded::classify_unrecorded(const nlohmann::json& said) const {
  using Kind = detail::EntityClaim::Kind;
  if (said.is_string() && said.get_ref<const std::string&>().empty()) return allow_empty ? Kind::recorded : Kind::empty;
  if (!said.is_string() && !detail::is_integer_json(said)) return Kind::not_a_name;
  return Kind::unknown;
}

GROUNDPLANE_INLINE void entities_recorded::verify_items(detail::EntitySearch& search, const std::string& field,
                                                        const nlohmann::json& said,
                                                        std::vector<Finding>& findings) const {
  using Kind = detail::EntityClaim::Kind;
  // At most max_listed findings for one field, then one counting the rest: an
  // output naming 100,000 invented entities stays a bounded message.
  std::size_t listed = 0;
  std::size_t unlisted = 0;
  for (std::size_t i = 0; i < said.size(); ++i) {
    const nlohmann::json& item = said[i];
    // A recorded name costs one lookup per fact and no strings.
    const nlohmann::json* name = item.is_object() ? nullptr : &item;
    if (item.is_object())
      if (const auto it = item.find("name"); it != item.end()) name = &*it;
    if (name != nullptr && search.sources.contain(*name)) continue;
    if (listed == max_listed) {
      ++unlisted;
      continue;
    }
    ++listed;
    detail::EntityClaim claim;
    claim.in_array = true;
    claim.item = i;
    claim.in_name = name != nullptr && item.is_object();
    claim.said = name != nullptr ? name : &item;
    claim.kind = name != nullptr ? classify_unrecorded(*name) : Kind::nameless;
    if (claim.kind != Kind::recorded) findings.push_back(detail::entity_finding(*this, search, field, claim));
  }
  if (unlisted > 0) {
    detail::EntityClaim more;
    more.kind = Kind::more;
    more.unlisted = unlisted;
    findings.push_back(detail::entity_finding(*this, search, field, more));
  }
}

namespace detail {

GROUNDPLANE_INLINE Finding entity_blank(const EntitySources& sources, const std::string& field) {
  Finding f;
  f.check = entities_recorded::check_name;
  f.field = field;
  if (sources.list.size() == 1) {
    f.fact = std::string(sources.list.front().name);
    f.provenance = sources.list.front().provenance->render();
  }
  return f;
}

GROUNDPLANE_INLINE const std::string& recorded_names(EntitySearch& search) {
  if (!search.recorded.empty()) return search.recorded;
  std::vector<Entity> shown;
  std::size_t total = 0;
  std::unordered_set<Entity> seen;
  search.sources.for_each_name([&](const Entity& e) {
    if (!seen.insert(e).second) return true;
    ++total;
    if (shown.size() < entities_recorded::names_shown) shown.push_back(e);
    return total < 10'000'000;
  });
  std::string out = "recorded: ";
  for (std::size_t i = 0; i < shown.size(); ++i) out += (i > 0 ? ", " : "") + shown[i].render();
  if (total > shown.size()) out += " and " + group_thousands(total - shown.size()) + " more";
  search.recorded = std::move(out);
  return search.recorded;
}

GROUNDPLANE_INLINE std::string entity_claim_field(const std::string& field, const EntityClaim& claim) {
  if (!claim.in_array) return field;
  const std::string at = pointer_into(field, std::to_string(claim.item));
  return claim.in_name ? pointer_into(at, "name") : at;
}

GROUNDPLANE_INLINE std::string unknown_entity_detail(const entities_recorded& check, EntitySearch& search,
                                                     const nlohmann::json& said, const std::string& said_text) {
  const auto names = [&](const nlohmann::json& v) { return search.sources.contain(v); };
  std::string out = said_text + " is not a recorded " + search.sources.noun();
  if (check.facts.size() > 1) out += " in " + quoted_or_list(check.facts);
  out += entity_type_hint(said, names);
  if (said.is_string()) {
    const auto& name = said.get_ref<const std::string&>();
    auto it = search.cache.find(name);
    if (it == search.cache.end()) {
      NameSuggester suggester(name, &search.budget);
      search.sources.for_each_name(
          [&](const Entity& candidate) { return candidate.is_integer() || suggester.offer(candidate.text()); });
      it = search.cache.emplace(name, std::make_pair(suggester.names(), suggester.case_only())).first;
    }
    const auto& [closest, case_only] = it->second;
    if (case_only && check.case_sensitive) out += " (names are case-sensitive)";
    if (!closest.empty()) {
      out += "; closest: ";
      for (std::size_t i = 0; i < closest.size(); ++i) out += (i > 0 ? ", " : "") + quote(closest[i]);
      // Two names that print alike are never left looking identical.
      if (const std::string how = invisible_difference(name, closest.front()); !how.empty()) out += "; " + how;
    }
  }
  return out + "; " + recorded_names(search);
}

GROUNDPLANE_INLINE Finding entity_finding(const entities_recorded& check, EntitySearch& search,
                                          const std::string& field, const EntityClaim& claim) {
  using Kind = EntityClaim::Kind;
  Finding f = entity_blank(search.sources, entity_claim_field(field, claim));
  if (claim.kind == Kind::missing_field) {
    f.detail =
        "expected a name, an array of names or an array of objects with a \"name\"; the output has no "
        "such field";
    return f;
  }
  if (claim.kind == Kind::more) {
    f.said = group_thousands(claim.unlisted) + " more unrecorded name(s)";
    f.detail = "... and " + group_thousands(claim.unlisted) + " more unrecorded name(s) in " + quote(field) +
               " (the first " + std::to_string(entities_recorded::max_listed) + " are listed)";
    return f;
  }
  const nlohmann::json& said = *claim.said;  // every other kind judged a value
  if (claim.kind == Kind::nameless) {
    f.said = detail::render(said);
    f.detail = "expected an object with a \"name\" naming a recorded entity; this one has none";
    return f;
  }
  f.said = render_claim(said);
  const auto names = [&](const nlohmann::json& v) { return search.sources.contain(v); };
  if (claim.kind == Kind::wrong_shape)
    f.detail = "expected a name, an array of names or an array of objects with a \"name\", got " +
               std::string(type_name(said)) + entity_type_hint(said, names);
  else if (claim.kind == Kind::empty)
    f.detail = std::string(said.is_array() ? "an empty list" : "an empty name") +
               " is itself a claim — that no recorded " + search.sources.noun() +
               " qualifies — and no recorded fact supports it (pass entities_recorded::allow_empty to accept one)";
  else if (claim.kind == Kind::not_a_name)
    f.detail = not_an_entity(said) + ", which is not a name recorded as a " + search.sources.noun() +
               entity_type_hint(said, names) + "; " + recorded_names(search);
  else f.detail = unknown_entity_detail(check, search, said, f.said);
  return f;
}

}  // namespace detail

}  // namespace groundplane
