// The bodies of detail/json/json_schema_check.hpp (validating a payload, and
// JsonSchema::validate, which runs it): included by it in the header-only build, compiled
// once into groundplane::compiled otherwise (see detail/linkage.hpp). The issue wording is
// documented in docs/input-schemas.md.
#pragma once

#include "groundplane/detail/json/json_schema_check.hpp"  // first: the part follows its header

#include <algorithm>
#include <cmath>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <iterator>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "groundplane/decimal.hpp"
#include "groundplane/detail/json/json_pointer.hpp"
#include "groundplane/detail/json/json_schema_node.hpp"
#include "groundplane/detail/numbers/bigint.hpp"
#include "groundplane/detail/text/escape.hpp"
#include "groundplane/json_schema.hpp"

namespace groundplane {
namespace detail {

// ---- values: types, numbers, equality ----------------------------------------------------

// Below 2^53 in magnitude, an integer and a double compare natively and exactly, and a
// double's shortest decimal (what Decimal reads) lies on the same side of every integer.
inline constexpr double schema_two53 = 9007199254740992.0;

GROUNDPLANE_INLINE std::uint8_t json_schema_type(const nlohmann::json& v) noexcept {
  using vt = nlohmann::json::value_t;
  switch (v.type()) {
    case vt::null:
      return schema_null;
    case vt::boolean:
      return schema_boolean;
    case vt::string:
      return schema_string;
    case vt::array:
      return schema_array;
    case vt::object:
      return schema_object;
    case vt::number_integer:
    case vt::number_unsigned:
      return schema_number | schema_integer;
    case vt::number_float: {
      const double d = v.get<double>();
      return std::isfinite(d) && d == std::trunc(d) ? schema_number | schema_integer : schema_number;
    }
    default:
      return 0;
  }
}

GROUNDPLANE_INLINE std::partial_ordering compare_json_numbers(const nlohmann::json& a, const nlohmann::json& b) {
  using vt = nlohmann::json::value_t;
  const vt ta = a.type();
  const vt tb = b.type();
  if (ta == vt::number_float && tb == vt::number_float) return a.get<double>() <=> b.get<double>();
  if (ta != vt::number_float && tb != vt::number_float) {
    if (ta == vt::number_integer && tb == vt::number_integer) return a.get<std::int64_t>() <=> b.get<std::int64_t>();
    if (ta == vt::number_unsigned && tb == vt::number_unsigned)
      return a.get<std::uint64_t>() <=> b.get<std::uint64_t>();
    if (ta == vt::number_integer) {  // signed against unsigned
      const auto i = a.get<std::int64_t>();
      return i < 0 ? std::partial_ordering::less : static_cast<std::uint64_t>(i) <=> b.get<std::uint64_t>();
    }
    const auto i = b.get<std::int64_t>();
    return i < 0 ? std::partial_ordering::greater : a.get<std::uint64_t>() <=> static_cast<std::uint64_t>(i);
  }
  // An integer against a double.
  const bool float_first = ta == vt::number_float;
  const double d = (float_first ? a : b).get<double>();
  const nlohmann::json& n = float_first ? b : a;
  if (std::isnan(d)) return std::partial_ordering::unordered;
  if (std::isinf(d)) return (d > 0) == float_first ? std::partial_ordering::greater : std::partial_ordering::less;
  const bool n_small = n.is_number_unsigned()
                           ? n.get<std::uint64_t>() < 9007199254740992ull
                           : n.get<std::int64_t>() > -9007199254740992ll && n.get<std::int64_t>() < 9007199254740992ll;
  if (n_small && std::fabs(d) < schema_two53) {
    const double nd = n.is_number_unsigned() ? static_cast<double>(n.get<std::uint64_t>())
                                             : static_cast<double>(n.get<std::int64_t>());
    return float_first ? d <=> nd : nd <=> d;
  }
  const auto da = Decimal::from_json(a);
  const auto db = Decimal::from_json(b);
  return *da <=> *db;
}

// x multiple of m: with e the smaller exponent, cx·10^(ex-e) mod cm·10^(em-e) == 0.
GROUNDPLANE_INLINE bool is_json_multiple(const nlohmann::json& x, const SchemaNumber& m) {
  if ((x.is_number_integer() || x.is_number_unsigned()) &&
      (m.value.is_number_integer() || m.value.is_number_unsigned())) {
    const std::uint64_t mag = x.is_number_unsigned()
                                  ? x.get<std::uint64_t>()
                                  : (x.get<std::int64_t>() < 0 ? 0 - static_cast<std::uint64_t>(x.get<std::int64_t>())
                                                               : static_cast<std::uint64_t>(x.get<std::int64_t>()));
    const std::uint64_t div = m.value.is_number_unsigned() ? m.value.get<std::uint64_t>()
                                                           : static_cast<std::uint64_t>(m.value.get<std::int64_t>());
    return mag % div == 0;
  }
  const auto xd = Decimal::from_json(x);
  if (!xd) return false;  // a non-finite double built in code
  if (xd->is_zero()) return true;
  const std::int64_t ex = DecimalAccess::exponent(*xd);
  const std::int64_t em = DecimalAccess::exponent(m.exact);
  if constexpr (dec_bits > 64) {
    if (DecimalAccess::is_inline(*xd) && DecimalAccess::is_inline(m.exact)) {
      const dec_int cx = DecimalAccess::inline_coefficient(*xd);
      const auto cm = static_cast<dec_uint>(DecimalAccess::inline_coefficient(m.exact));
      const auto mag = static_cast<dec_uint>(cx < 0 ? -cx : cx);
      if (ex < em) {  // the divisor scales up: once past the dividend, only zero divides
        dec_int scaled = static_cast<dec_int>(cm);
        if (!dec_scale(scaled, em - ex)) return false;
        return mag % static_cast<dec_uint>(scaled) == 0;
      }
      // The dividend scales up: 10^(ex-em) mod cm by squaring, every product of two
      // residues below 2^64 within 128 bits (a multipleOf from JSON, up to 2^64 - 1).
      if (cm <= std::numeric_limits<std::uint64_t>::max()) {
        dec_uint r = mag % cm;
        dec_uint base = 10 % cm;
        for (std::int64_t k = ex - em; k > 0 && r != 0; k >>= 1) {
          if ((k & 1) != 0) r = r * base % cm;
          base = base * base % cm;
        }
        return r == 0;
      }
    }
  }
  BigUint a = DecimalAccess::coefficient(*xd).magnitude;
  BigUint b = DecimalAccess::coefficient(m.exact).magnitude;
  if (ex > em) a.mul_pow10(static_cast<std::size_t>(ex - em));
  else b.mul_pow10(static_cast<std::size_t>(em - ex));
  return BigUint::divmod(a, b).second.is_zero();
}

GROUNDPLANE_INLINE std::size_t json_number_hash(const nlohmann::json& v) {
  using vt = nlohmann::json::value_t;
  const auto small_int = [](std::int64_t i) { return hash_mix(0x51ed27u, static_cast<std::uint64_t>(i)); };
  if (v.type() == vt::number_integer) {
    const auto i = v.get<std::int64_t>();
    if (i > -9007199254740992ll && i < 9007199254740992ll) return small_int(i);
  } else if (v.type() == vt::number_unsigned) {
    const auto u = v.get<std::uint64_t>();
    if (u < 9007199254740992ull) return small_int(static_cast<std::int64_t>(u));
  } else {
    const double d = v.get<double>();
    if (!std::isfinite(d)) return std::isnan(d) ? 0x7ff8u : (d > 0 ? 0x7ff0u : 0xfff0u);
    if (std::fabs(d) < schema_two53) {
      if (d == std::trunc(d)) return small_int(static_cast<std::int64_t>(d));
      return std::hash<double>{}(d);
    }
  }
  return std::hash<Decimal>{}(*Decimal::from_json(v));
}

GROUNDPLANE_INLINE bool json_values_equal(const nlohmann::json& a, const nlohmann::json& b, std::size_t depth,
                                          std::size_t& visited) {
  ++visited;
  if (&a == &b) return true;
  if (a.is_number() && b.is_number()) return compare_json_numbers(a, b) == 0;
  if (a.type() != b.type()) return false;
  if (a.is_structured()) {
    if (a.size() != b.size() || depth == 0) return false;
    if (a.is_array()) {
      for (std::size_t i = 0; i < a.size(); ++i)
        if (!json_values_equal(a[i], b[i], depth - 1, visited)) return false;
      return true;
    }
    for (auto ia = a.begin(), ib = b.begin(); ia != a.end(); ++ia, ++ib)  // both sorted by key
      if (ia.key() != ib.key() || !json_values_equal(ia.value(), ib.value(), depth - 1, visited)) return false;
    return true;
  }
  return a == b;
}

GROUNDPLANE_INLINE std::size_t json_value_hash(const nlohmann::json& v, std::size_t depth, std::size_t& visited) {
  ++visited;
  using vt = nlohmann::json::value_t;
  switch (v.type()) {
    case vt::null:
      return 0x6e756c6cu;
    case vt::boolean:
      return v.get<bool>() ? 0x74727565u : 0x66616c73u;
    case vt::number_integer:
    case vt::number_unsigned:
    case vt::number_float:
      return json_number_hash(v);
    case vt::string:
      return hash_mix(0x737472u, std::hash<std::string>{}(v.get_ref<const std::string&>()));
    case vt::array: {
      std::size_t h = hash_mix(0x617272u, v.size());
      if (depth == 0) return h;
      for (const auto& e : v) h = hash_mix(h, json_value_hash(e, depth - 1, visited));
      return h;
    }
    case vt::object: {
      std::size_t h = hash_mix(0x6f626au, v.size());
      if (depth == 0) return h;
      for (auto it = v.begin(); it != v.end(); ++it) {
        h = hash_mix(h, std::hash<std::string>{}(it.key()));
        h = hash_mix(h, json_value_hash(it.value(), depth - 1, visited));
      }
      return h;
    }
    default:
      return 0;
  }
}

GROUNDPLANE_INLINE int json_value_order(const nlohmann::json& a, const nlohmann::json& b, std::size_t depth,
                                        std::size_t& visited) {
  ++visited;
  const auto rank = [](const nlohmann::json& v) {
    if (v.is_null()) return 0;
    if (v.is_boolean()) return 1;
    if (v.is_number()) return 2;
    if (v.is_string()) return 3;
    if (v.is_array()) return 4;
    if (v.is_object()) return 5;
    return 6;
  };
  const int ra = rank(a);
  const int rb = rank(b);
  if (ra != rb) return ra < rb ? -1 : 1;
  const auto sign = [](auto ordering) { return ordering < 0 ? -1 : (ordering > 0 ? 1 : 0); };
  switch (ra) {
    case 0:
      return 0;
    case 1:
      return sign(a.get<bool>() <=> b.get<bool>());
    case 2: {
      const auto o = compare_json_numbers(a, b);
      if (o == std::partial_ordering::unordered) {  // NaN, built in code: after every number
        const bool na = a.is_number_float() && std::isnan(a.get<double>());
        const bool nb = b.is_number_float() && std::isnan(b.get<double>());
        return na == nb ? 0 : (na ? 1 : -1);
      }
      return sign(o);
    }
    case 3:
      return sign(a.get_ref<const std::string&>().compare(b.get_ref<const std::string&>()) <=> 0);
    case 4:
    case 5: {
      if (a.size() != b.size()) return a.size() < b.size() ? -1 : 1;
      if (depth == 0) return &a == &b ? 0 : (std::less<const void*>{}(&a, &b) ? -1 : 1);
      if (ra == 4) {
        for (std::size_t i = 0; i < a.size(); ++i)
          if (const int c = json_value_order(a[i], b[i], depth - 1, visited); c != 0) return c;
        return 0;
      }
      for (auto ia = a.begin(), ib = b.begin(); ia != a.end(); ++ia, ++ib) {
        if (const int c = sign(ia.key().compare(ib.key()) <=> 0); c != 0) return c;
        if (const int c = json_value_order(ia.value(), ib.value(), depth - 1, visited); c != 0) return c;
      }
      return 0;
    }
    default:
      return std::less<const void*>{}(&a, &b) ? -1 : (&a == &b ? 0 : 1);
  }
}

// ---- issues ------------------------------------------------------------------------------

GROUNDPLANE_INLINE std::string_view schema_type_word(std::uint8_t bit) {
  switch (bit) {
    case schema_null:
      return "null";
    case schema_boolean:
      return "boolean";
    case schema_object:
      return "object";
    case schema_array:
      return "array";
    case schema_number:
      return "number";
    case schema_string:
      return "string";
    default:
      return "integer";
  }
}

// "integer", "string or null", "integer, string or null"
GROUNDPLANE_INLINE std::string expected_types(const SchemaNode& node) {
  std::string out;
  for (std::size_t i = 0; i < node.type_order.size(); ++i) {
    if (i > 0) out += i + 1 == node.type_order.size() ? " or " : ", ";
    out += schema_type_word(node.type_order[i]);
  }
  return out;
}

GROUNDPLANE_INLINE std::string_view actual_type(std::uint8_t t) {
  if ((t & schema_integer) != 0) return "integer";
  if ((t & schema_number) != 0) return "number";
  return schema_type_word(t);
}

// "1 item", "3 items"
GROUNDPLANE_INLINE std::string counted(std::size_t n, std::string_view one, std::string_view many) {
  return std::to_string(n) + " " + std::string(n == 1 ? one : many);
}

// ---- the checker -------------------------------------------------------------------------

// Where in the payload: "the input"; a top-level key as 'qty'; anything deeper (or a
// top-level key that would read as a pointer) as a JSON Pointer, '/items/0/qty'. Each
// token is cut long before the quoting's cap, so a huge key costs nothing here.
GROUNDPLANE_INLINE std::string SchemaChecker::place(const std::string* extra_key) const {
  const std::size_t n = path_.size() + (extra_key != nullptr ? 1 : 0);
  if (n == 0) return "the input";
  const auto key_at = [&](std::size_t i) { return i < path_.size() ? path_[i].key : extra_key; };
  const auto cut = [](const std::string& key) {
    constexpr std::size_t most = 400;
    std::size_t end = std::min(key.size(), most);
    while (end < key.size() && end > 0 && (static_cast<unsigned char>(key[end]) & 0xC0) == 0x80) --end;
    return std::string_view(key).substr(0, end);
  };
  if (n == 1 && key_at(0) != nullptr && !key_at(0)->empty() && (*key_at(0))[0] != '/') return quote(cut(*key_at(0)));
  std::string pointer;
  for (std::size_t i = 0; i < n; ++i) {
    pointer += '/';
    const std::string* key = key_at(i);
    pointer += key != nullptr ? pointer_token(cut(*key)) : std::to_string(path_[i].index);
  }
  return quote(pointer);
}

GROUNDPLANE_INLINE bool SchemaChecker::check(std::size_t n, const nlohmann::json& v) {
  if (!step()) return false;
  const SchemaNode& node = s_.nodes[n];
  if (node.always) return true;
  if (node.ref_only) return check(node.ref, v);
  if (path_.size() >= JsonSchema::max_depth && v.is_structured()) return false;  // the walk reported it
  if (node.never) {
    issue([&] { return place() + " is not allowed"; });
    return false;
  }
  if (v.is_number_float() && !std::isfinite(v.get<double>())) {  // only C++ code can build one
    issue([&] { return place() + " is not a finite number"; });
    return false;
  }
  const std::uint8_t t = json_schema_type(v);
  if (node.types != 0 && (node.types & t) == 0) {
    issue([&] { return place() + " should be " + expected_types(node) + ", not " + std::string(actual_type(t)); });
    return false;
  }
  bool ok = true;
  const auto go_on = [&](bool passed) {
    if (!passed) ok = false;
    return ok || collecting();
  };
  const std::uint8_t groups = node.groups;
  if ((groups & schema_null) != 0 && node.const_value) {
    std::size_t visited = 0;
    const bool same = json_values_equal(v, *node.const_value, depth_left(), visited);
    step(visited);
    if (!same) issue([&] { return place() + " should equal " + node.const_shown; });
    if (!go_on(same)) return false;
  }
  if ((groups & schema_null) != 0 && node.has_enum) {
    const bool member = in_enum(node, v, t);
    if (!member) issue([&] { return place() + " is not one of the allowed values: " + node.enum_shown; });
    if (!go_on(member)) return false;
  }
  const std::uint8_t own = groups & t;  // integer numbers carry the number bit too
  if ((own & schema_number) != 0 && !go_on(check_number(node, v))) return false;
  if ((own & schema_string) != 0 && !go_on(check_string(node, v))) return false;
  if ((own & schema_array) != 0 && !go_on(check_array(node, v))) return false;
  if ((own & schema_object) != 0 && !go_on(check_object(node, v))) return false;
  if ((groups & schema_boolean) != 0 && !go_on(check_applicators(node, v, t))) return false;
  return ok && !exhausted_;
}

GROUNDPLANE_INLINE std::size_t SchemaChecker::hash_of(const nlohmann::json& v, std::size_t depth) {
  if (!v.is_structured()) {
    std::size_t visited = 0;
    return json_value_hash(v, 0, visited);
  }
  step();
  if (const auto it = hashes_.find(&v); it != hashes_.end()) return it->second;
  std::size_t h = hash_mix(v.is_array() ? 0x617272u : 0x6f626au, v.size());
  if (depth > 0) {
    if (v.is_array()) {
      for (const auto& e : v) h = hash_mix(h, hash_of(e, depth - 1));
    } else {
      for (auto it = v.begin(); it != v.end(); ++it) {
        h = hash_mix(h, std::hash<std::string>{}(it.key()));
        h = hash_mix(h, hash_of(it.value(), depth - 1));
      }
    }
  }
  hashes_.emplace(&v, h);
  return h;
}

GROUNDPLANE_INLINE bool SchemaChecker::in_enum(const SchemaNode& node, const nlohmann::json& v, std::uint8_t t) {
  if ((node.enum_types & t) == 0) return false;
  std::size_t visited = 0;
  const std::size_t h = hash_of(v, depth_left());
  auto it = std::lower_bound(node.enum_hashes.begin(), node.enum_hashes.end(), std::make_pair(h, std::size_t{0}));
  bool member = false;
  for (; !member && it != node.enum_hashes.end() && it->first == h; ++it)
    member = json_values_equal(v, node.enum_values[it->second], depth_left(), visited);
  step(visited);
  return member;
}

GROUNDPLANE_INLINE bool SchemaChecker::check_number(const SchemaNode& node, const nlohmann::json& v) {
  bool ok = true;
  const auto bound = [&](const std::optional<SchemaNumber>& b, auto fails, std::string_view says) {
    if (!b || (!ok && !collecting())) return;
    if (fails(compare_json_numbers(v, b->value))) {
      ok = false;
      issue([&] { return place() + std::string(says) + b->shown; });
    }
  };
  bound(
      node.minimum, [](std::partial_ordering o) { return !(o >= 0); }, " is below the minimum ");
  bound(
      node.exclusive_minimum, [](std::partial_ordering o) { return !(o > 0); }, " is not above the exclusive minimum ");
  bound(
      node.maximum, [](std::partial_ordering o) { return !(o <= 0); }, " is above the maximum ");
  bound(
      node.exclusive_maximum, [](std::partial_ordering o) { return !(o < 0); }, " is not below the exclusive maximum ");
  if (node.multiple_of && (ok || collecting()) && !is_json_multiple(v, *node.multiple_of)) {
    ok = false;
    issue([&] { return place() + " is not a multiple of " + node.multiple_of->shown; });
  }
  return ok;
}

// Lengths in code points: every byte that does not continue a UTF-8 sequence.
GROUNDPLANE_INLINE bool SchemaChecker::check_string(const SchemaNode& node, const nlohmann::json& v) {
  if (!node.min_length && !node.max_length) return true;
  const auto& s = v.get_ref<const std::string&>();
  std::optional<std::size_t> length;
  const auto code_points = [&] {
    if (!length) {
      step(s.size() / 64);
      length = static_cast<std::size_t>(
          std::count_if(s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
    }
    return *length;
  };
  bool ok = true;
  if (node.min_length && *node.min_length > 0 && (s.size() < *node.min_length || code_points() < *node.min_length)) {
    ok = false;
    issue([&] { return place() + " is shorter than " + counted(*node.min_length, "character", "characters"); });
  }
  if (node.max_length && (ok || collecting()) && s.size() > *node.max_length && code_points() > *node.max_length) {
    ok = false;
    issue([&] { return place() + " is longer than " + counted(*node.max_length, "character", "characters"); });
  }
  return ok;
}

GROUNDPLANE_INLINE bool SchemaChecker::check_array(const SchemaNode& node, const nlohmann::json& v) {
  bool ok = true;
  const auto go_on = [&](bool passed) {
    if (!passed) ok = false;
    return ok || collecting();
  };
  const std::size_t size = v.size();
  if (node.min_items && size < *node.min_items) {
    issue([&] { return place() + " has fewer than " + counted(*node.min_items, "item", "items"); });
    if (!go_on(false)) return false;
  }
  if (node.max_items && size > *node.max_items) {
    issue([&] { return place() + " has more than " + counted(*node.max_items, "item", "items"); });
    if (!go_on(false)) return false;
  }
  if (node.unique_items && !go_on(check_unique(v))) return false;
  const std::size_t prefix = std::min(size, node.prefix_items.size());
  for (std::size_t i = 0; i < prefix; ++i) {
    const Descend into(path_, {nullptr, i});
    if (!go_on(check(node.prefix_items[i], v[i]))) return false;
  }
  if (node.rest_items != no_node && size > node.prefix_items.size()) {
    if (s_.nodes[node.rest_items].never) {  // one issue, not one per item
      issue([&] {
        return node.prefix_items.empty()
                   ? place() + " should have no items"
                   : place() + " has more than " + counted(node.prefix_items.size(), "item", "items");
      });
      if (!go_on(false)) return false;
    } else {
      for (std::size_t i = node.prefix_items.size(); i < size; ++i) {
        if (!step()) return false;
        const Descend into(path_, {nullptr, i});
        if (!go_on(check(node.rest_items, v[i]))) return false;
      }
    }
  }
  if (node.contains != no_node) {
    bool found = false;
    for (std::size_t i = 0; i < size && !found && !exhausted_; ++i) {
      const Descend into(path_, {nullptr, i});
      found = passes(node.contains, v[i]);
    }
    if (!found) issue([&] { return place() + " has no item that matches 'contains'"; });
    if (!go_on(found)) return false;
  }
  return ok;
}

// Sorted by (hash, value, index), equal items stand together, first index first: never
// quadratic, even when an attacker makes every hash collide.
GROUNDPLANE_INLINE bool SchemaChecker::check_unique(const nlohmann::json& v) {
  const std::size_t size = v.size();
  if (size < 2) return true;
  std::size_t visited = 0;
  const std::size_t depth = depth_left() > 0 ? depth_left() - 1 : 0;
  std::vector<std::pair<std::size_t, std::size_t>> keyed;  // (hash, index)
  keyed.reserve(size);
  for (std::size_t i = 0; i < size; ++i) keyed.emplace_back(hash_of(v[i], depth), i);
  if (exhausted_) return false;
  std::sort(keyed.begin(), keyed.end(), [&](const auto& a, const auto& b) {
    if (a.first != b.first) return a.first < b.first;
    const int c = json_value_order(v[a.second], v[b.second], depth, visited);
    return c != 0 ? c < 0 : a.second < b.second;
  });
  std::optional<std::pair<std::size_t, std::size_t>> repeat;  // (first, later) with the smallest later index
  for (std::size_t k = 1; k < size; ++k) {
    const auto& a = keyed[k - 1];
    const auto& b = keyed[k];
    if (a.first != b.first || json_value_order(v[a.second], v[b.second], depth, visited) != 0) continue;
    if (!repeat || b.second < repeat->second) {
      std::size_t first = k - 1;  // the run's first member holds its smallest index
      while (first > 0 && keyed[first - 1].first == a.first &&
             json_value_order(v[keyed[first - 1].second], v[a.second], depth, visited) == 0)
        --first;
      repeat = std::make_pair(keyed[first].second, b.second);
    }
  }
  if (!step(visited)) return false;
  if (!repeat) return true;
  issue([&] {
    return place() + " should hold unique items, but item " + std::to_string(repeat->second) + " repeats item " +
           std::to_string(repeat->first);
  });
  return false;
}

GROUNDPLANE_INLINE bool SchemaChecker::check_object(const SchemaNode& node, const nlohmann::json& v) {
  bool ok = true;
  const auto go_on = [&](bool passed) {
    if (!passed) ok = false;
    return ok || collecting();
  };
  for (const auto& key : node.required) {
    if (v.contains(key)) continue;
    issue([&] { return "missing required " + place(&key); });
    if (!go_on(false)) return false;
  }
  for (const auto& dependency : node.dependent_required) {
    const std::string& key = dependency.first;
    if (!v.contains(key)) continue;
    for (const auto& need : dependency.second) {
      if (v.contains(need)) continue;
      issue([&] { return "missing required " + place(&need) + " (required when " + place(&key) + " is present)"; });
      if (!go_on(false)) return false;
    }
  }
  if (node.min_properties && v.size() < *node.min_properties) {
    issue([&] { return place() + " has fewer than " + counted(*node.min_properties, "key", "keys"); });
    if (!go_on(false)) return false;
  }
  if (node.max_properties && v.size() > *node.max_properties) {
    issue([&] { return place() + " has more than " + counted(*node.max_properties, "key", "keys"); });
    if (!go_on(false)) return false;
  }
  for (auto it = v.begin(); it != v.end(); ++it) {
    if (!step()) return false;
    if (!go_on(check_key(node, it.key(), it.value()))) return false;
  }
  for (const auto& [key, schema] : node.dependent_schemas)
    if (v.contains(key) && !go_on(check(schema, v))) return false;
  return ok;
}

// One key of an object: its name against propertyNames, its value against properties or
// additionalProperties.
GROUNDPLANE_INLINE bool SchemaChecker::check_key(const SchemaNode& node, const std::string& key,
                                                 const nlohmann::json& value) {
  bool ok = true;
  if (node.property_names != no_node && !passes(node.property_names, key_value(key))) {
    ok = false;
    issue([&] {
      return path_.empty() ? "key " + quote(key) + " is not an allowed name"
                           : "key " + quote(key) + " of " + place() + " is not an allowed name";
    });
    if (!collecting()) return false;
  }
  const auto found = std::lower_bound(node.properties.begin(), node.properties.end(), key,
                                      [](const auto& entry, const std::string& k) { return entry.first < k; });
  std::size_t schema = no_node;
  if (found != node.properties.end() && found->first == key) schema = found->second;
  else schema = node.additional_properties;
  if (schema == no_node) return ok;
  if (s_.nodes[schema].never) {
    issue([&] { return "unexpected key " + place(&key); });
    return false;
  }
  const Descend into(path_, {&key, 0});
  return check(schema, value) && ok;
}

GROUNDPLANE_INLINE bool SchemaChecker::check_applicators(const SchemaNode& node, const nlohmann::json& v,
                                                         std::uint8_t t) {
  bool ok = true;
  const auto go_on = [&](bool passed) {
    if (!passed) ok = false;
    return ok || collecting();
  };
  if (node.ref != no_node && !go_on(check(node.ref, v))) return false;
  for (const std::size_t sub : node.all_of)
    if (!go_on(check(sub, v))) return false;
  if (!node.any_of.empty() && !go_on(check_alternatives(node.any_of, false, v, t))) return false;
  if (!node.one_of.empty() && !go_on(check_alternatives(node.one_of, true, v, t))) return false;
  if (node.not_ != no_node && passes(node.not_, v)) {
    issue([&] { return place() + " should not match the schema in 'not'"; });
    if (!go_on(false)) return false;
  }
  if (node.if_ != no_node) {
    const std::size_t branch = passes(node.if_, v) ? node.then_ : node.else_;
    if (branch != no_node && !go_on(check(branch, v))) return false;
  }
  return ok;
}

// anyOf (exactly_one: oneOf). When none matches, the issue says what the nearest
// alternative lacks: the first whose own `type` admits the value (or the first).
GROUNDPLANE_INLINE bool SchemaChecker::check_alternatives(const std::vector<std::size_t>& alternatives,
                                                          bool exactly_one, const nlohmann::json& v, std::uint8_t t) {
  const std::string_view keyword = exactly_one ? "oneOf" : "anyOf";
  std::size_t matched[2] = {0, 0};
  std::size_t matches = 0;
  for (std::size_t i = 0; i < alternatives.size() && !exhausted_; ++i) {
    if (!passes(alternatives[i], v)) continue;
    matched[matches++] = i;
    if (!exactly_one || matches == 2) break;
  }
  if (exhausted_) return false;
  if (matches == 1) return true;
  if (matches == 2) {
    issue([&] {
      return place() + " matches more than one oneOf alternative (oneOf[" + std::to_string(matched[0]) +
             "] and oneOf[" + std::to_string(matched[1]) + "])";
    });
    return false;
  }
  if (!collecting()) return false;
  std::string why;
  if (sink_->explain && sink_->texts.size() < sink_->max) {
    std::size_t nearest = 0;
    for (std::size_t i = 0; i < alternatives.size(); ++i) {
      const SchemaNode* alt = &s_.nodes[alternatives[i]];
      for (std::size_t hops = 0; alt->ref != no_node && alt->types == 0 && hops < JsonSchema::max_same_place_chain;
           ++hops)
        alt = &s_.nodes[alt->ref];
      if (alt->types == 0 || (alt->types & t) != 0) {
        nearest = i;
        break;
      }
    }
    IssueSink inner;
    inner.max = 1;
    inner.explain = false;
    IssueSink* saved = sink_;
    sink_ = &inner;
    check(alternatives[nearest], v);
    sink_ = saved;
    if (!inner.texts.empty() && !exhausted_)
      why = " (" + std::string(keyword) + "[" + std::to_string(nearest) + "]: " + inner.texts.front() + ")";
  }
  issue([&] { return place() + " matches none of the " + std::string(keyword) + " alternatives" + why; });
  return false;
}

GROUNDPLANE_INLINE PayloadShape payload_shape(const nlohmann::json& payload) {
  PayloadShape shape;
  shape.values = 1;
  // The containers being walked: an array by index, an object by its map's iterator.
  struct Frame {
    const nlohmann::json* value;
    std::size_t index = 0;
    nlohmann::json::object_t::const_iterator key{};
  };
  const auto frame = [](const nlohmann::json& v) {
    Frame f{&v};
    if (v.is_object()) f.key = v.get_ref<const nlohmann::json::object_t&>().begin();
    return f;
  };
  const auto advance = [](Frame& f) {
    if (f.value->is_array()) ++f.index;
    else ++f.key;
  };
  // Every frame stands at the child being walked: a parent moves on when its child's
  // frame is done, so the stack spells the pointer to where the walk is.
  std::vector<Frame> stack;
  if (payload.is_structured()) stack.push_back(frame(payload));
  while (!stack.empty()) {
    Frame& f = stack.back();
    const nlohmann::json* child = nullptr;
    if (f.value->is_array()) {
      const auto& items = f.value->get_ref<const nlohmann::json::array_t&>();
      if (f.index < items.size()) child = &items[f.index];
    } else if (f.key != f.value->get_ref<const nlohmann::json::object_t&>().end()) {
      child = &f.key->second;
    }
    if (child == nullptr) {
      stack.pop_back();
      if (!stack.empty()) advance(stack.back());
      continue;
    }
    ++shape.values;
    if (child->is_structured() && stack.size() < JsonSchema::max_depth) {
      stack.push_back(frame(*child));
      continue;
    }
    if (child->is_structured() && shape.too_deep.empty()) {
      std::string pointer;
      for (const Frame& parent : stack) {
        pointer += '/';
        pointer += parent.value->is_object() ? pointer_token(std::string_view(parent.key->first).substr(0, 400))
                                             : std::to_string(parent.index);
      }
      shape.too_deep =
          quote(pointer) + " is nested more than " + std::to_string(JsonSchema::max_depth) + " levels deep";
    }
    advance(f);
  }
  return shape;
}

}  // namespace detail

GROUNDPLANE_INLINE std::vector<std::string> JsonSchema::validate(const nlohmann::json& payload,
                                                                 std::size_t max_issues) const {
  const detail::CompiledSchema& c = *compiled_;
  if (c.none) {
    if (payload.is_null() || (payload.is_object() && payload.empty())) return {};
    return {"this action takes no input"};
  }
  max_issues = std::max<std::size_t>(max_issues, 1);
  const detail::PayloadShape shape = detail::payload_shape(payload);
  std::vector<std::string> first;  // issues about the payload as a whole
  if (!shape.too_deep.empty()) first.push_back(shape.too_deep);
  const std::size_t budget = max_steps_base + max_steps_per_value * shape.values;
  detail::IssueSink sink;
  sink.max = max_issues;
  detail::SchemaChecker checker(c, budget);
  checker.set_sink(&sink);
  checker.check(c.root, payload);
  if (checker.exhausted())
    first.insert(first.begin(), "the input is too large to check against this schema (more than " +
                                    std::to_string(budget) + " steps)");
  const std::size_t total = first.size() + sink.count;
  std::vector<std::string> out = std::move(first);
  out.insert(out.end(), std::make_move_iterator(sink.texts.begin()), std::make_move_iterator(sink.texts.end()));
  if (out.size() > max_issues) out.resize(max_issues);
  if (total > out.size()) out.push_back("and " + std::to_string(total - out.size()) + " more");
  return out;
}

}  // namespace groundplane
