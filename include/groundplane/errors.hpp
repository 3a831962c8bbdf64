// The error hierarchy. Two families that adapters rely on never mixing:
//   ConfigurationError — a developer's bug (bad record_* call, misconfigured check).
//                        Never turned into a re-ask; it propagates.
//   UnsupportedClaim   — the model's claim is not supported by the recorded facts.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "groundplane/detail/linkage.hpp"
#include "groundplane/finding.hpp"

namespace groundplane {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class ConfigurationError : public Error {
 public:
  using Error::Error;
};

class InvalidFact : public ConfigurationError {
 public:
  using ConfigurationError::ConfigurationError;
};

class FactAlreadyRecorded : public InvalidFact {
 public:
  using InvalidFact::InvalidFact;
};

class InvalidNumber : public ConfigurationError {
 public:
  using ConfigurationError::ConfigurationError;
};

// A fact was asked for by a name the registry does not hold: name() is the name asked
// for, known() every recorded name (record order); the message lists them (at most 20,
// then a count).
class UnregisteredFact : public ConfigurationError {
 public:
  UnregisteredFact(std::string name, std::vector<std::string> known, std::string_view context = "");
  const std::string& name() const noexcept { return name_; }
  const std::vector<std::string>& known() const noexcept { return known_; }

 private:
  std::string name_;
  std::vector<std::string> known_;
};

namespace detail {
// what(): every finding's message, separated by a blank line.
std::string join_messages(const std::vector<Finding>& findings);
}  // namespace detail

class UnsupportedClaim : public Error {
 public:
  explicit UnsupportedClaim(std::vector<Finding> findings);
  const std::vector<Finding>& findings() const noexcept { return findings_; }

 private:
  std::vector<Finding> findings_;
};

// A boundary scope was left without submit(): its checks never ran. A developer's
// mistake (a code path that forgot to submit), never the model's, so it is not an
// UnsupportedClaim: a re-ask loop catching claims does not re-ask a model for it.
class NothingSubmitted : public ConfigurationError {
 public:
  using ConfigurationError::ConfigurationError;
};

}  // namespace groundplane

#ifdef GROUNDPLANE_HEADER_ONLY
#include "groundplane/errors-inl.hpp"
#endif
