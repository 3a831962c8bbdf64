// The bodies of render.hpp: included by it in the header-only build, compiled once into
// groundplane::compiled otherwise (see detail/linkage.hpp).
#pragma once

#include "groundplane/render.hpp"

namespace groundplane {

namespace detail {
GROUNDPLANE_INLINE void put_ascii(BoundedWriter& w, std::string_view text) {
  for (std::size_t i = 0; i < text.size(); ++i)
    if (!w.put(text.substr(i, 1), 1)) return;
}
}  // namespace detail

namespace detail {
GROUNDPLANE_INLINE std::string render(const Decimal& d, std::size_t cap) {
  BoundedWriter w(cap);
  put_ascii(w, d.to_string());
  return std::move(w).finish();
}
}  // namespace detail

}  // namespace groundplane
