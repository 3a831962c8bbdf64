// A check struct without verify() is not a Check: the static_assert a check author
// writes beside it fails, and the compiler names the missing requirement.
#include <string>
#include <vector>

#include <groundplane/groundplane.hpp>

struct forgot_verify {
  std::string fact;
  std::vector<std::string> leans_on() const { return {fact}; }
  void validate(const groundplane::FactRegistry&) const {}
};

static_assert(groundplane::Check<forgot_verify>);
