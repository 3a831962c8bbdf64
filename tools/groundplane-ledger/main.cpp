// groundplane-ledger: a ledger file, checked and read without the app that wrote it.
// FILE may also be a postgresql:// (or postgres://) URI: the ledger in PostgreSQL, read
// without taking any session's lease. Nothing is ever written.
//
//   groundplane-ledger verify FILE [--session S] [--head HEX] [--key-file K]
//       re-derives the session's hash chain; with --head (a head published earlier, as
//       GroundTruth::head gave it) also catches rows cut from the tail; a keyed chain
//       (SqliteStoreOptions::key) with its key, read from the file K.
//   groundplane-ledger show FILE [--session S]
//       the session's ground-truth block, restored from the file alone
//   groundplane-ledger export FILE [--session S]
//       one JSON object per row, oldest first: seq, version, kind, body, hash; the kind and
//       the body's members by their names (docs/ledger-format.md), enums by their names
//   groundplane-ledger audit FILE [--session S]
//       one sentence per row, oldest first: who did what, and when the row says when;
//       every refusal with its reason
//   groundplane-ledger --help | --version
//
// Options go before or after the command and FILE, each once; -- ends them. Without
// --session, a file holding exactly one session is read as that session, else as
// "default". show, export and audit verify the
// chain first: when it does not verify, their first line says so (export's as a JSON
// object), what the rows say follows, and they exit 1. A session the file does not hold
// is named with the sessions it does hold.
// Exit: 0 intact, 1 tampered or torn, 2 unreadable, not a ledger, no such session, a keyed
// chain read without its key, or bad usage (whatever keeps a command from a verdict is
// said on standard error).
#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include <groundplane/detail/ledger/ledger_codec.hpp>
#include <groundplane/detail/ledger/row_body.hpp>
#include <groundplane/detail/text/escape.hpp>
#include <groundplane/session.hpp>
#include <groundplane/store/sqlite.hpp>
#if GROUNDPLANE_LEDGER_POSTGRES
#include <groundplane/store/postgres.hpp>
#endif

#include "../command_line.hpp"

namespace gp = groundplane;
namespace rows = groundplane::detail::rows;

namespace {

constexpr std::string_view program = "groundplane-ledger";
constexpr int exit_intact = 0;
constexpr int exit_tampered = 1;
constexpr int exit_unusable = 2;

constexpr std::string_view usage =
    "usage: groundplane-ledger verify FILE [--session S] [--head HEX] [--key-file K]\n"
    "       groundplane-ledger show   FILE [--session S] [--key-file K]\n"
    "       groundplane-ledger export FILE [--session S] [--key-file K]\n"
    "       groundplane-ledger audit  FILE [--session S] [--key-file K]\n"
    "       groundplane-ledger --help | --version\n"
    "\n"
    "Checks and reads a groundplane ledger without the app that wrote it; writes nothing.\n"
    "FILE is an SQLite ledger file, or a postgresql:// URI (read without taking a lease).\n"
    "\n"
    "  verify   re-derive the session's hash chain and say whether it is intact\n"
    "  show     the session's ground-truth block, restored from the rows alone\n"
    "  export   one JSON object per row, oldest first: seq, version, kind, body, hash;\n"
    "           the kind and the body's members by their names, enums by their names\n"
    "  audit    one sentence per row, oldest first: who did what, and when the row says\n"
    "           when (an approval's time); every refusal with its reason\n"
    "show, export and audit verify first: when the chain does not verify, their first line\n"
    "is a warning saying so (export's a JSON object {\"warning\": ...}), what the rows say\n"
    "follows, and they exit 1.\n"
    "\n"
    "  --session S   the session to read; without it, the file's one session when it holds\n"
    "                exactly one, else \"default\". One file may hold many, and a session it\n"
    "                does not hold is named with the ones it does\n"
    "  --head HEX    verify only: a head published earlier (GroundTruth::head); catches\n"
    "                rows cut from the tail, which the chain alone cannot\n"
    "  --key-file K  the file holding a keyed chain's key (its exact bytes, at least 16);\n"
    "                a keyed chain is verified only with its key: without it, verify\n"
    "                cannot (exit 2; 1 with --head) and show, export and audit print the\n"
    "                rows below a warning that nothing in them is verified (exit 2)\n"
    "  --help, -h    print this and exit\n"
    "  --version     print the version and exit\n"
    "Options go before or after the command and FILE, as --session S or --session=S, each\n"
    "once; -- ends the options (a FILE that starts with a dash goes after it).\n"
    "\n"
    "exit: 0 intact, 1 tampered or torn, 2 unreadable, not a ledger, no such session, a\n"
    "      keyed chain read without its key, or bad usage\n";

constexpr std::array<gp::tools::Flag, 6> flags{{{"--help", gp::tools::Takes::nothing},
                                                {"-h", gp::tools::Takes::nothing},
                                                {"--version", gp::tools::Takes::nothing},
                                                {"--session", gp::tools::Takes::text},
                                                {"--head", gp::tools::Takes::text},
                                                {"--key-file", gp::tools::Takes::text}}};

constexpr std::array<std::string_view, 4> commands{"verify", "show", "export", "audit"};

struct Args {
  std::string command;
  std::string file;
  std::string session = "default";  // without --session: the file's one session, if it holds one
  bool session_given = false;
  std::optional<std::string> head;
  std::string key;  // the chain's key, read from --key-file; "" for none
};

// A key file's exact bytes are the key: nothing is trimmed, so a key with a final
// newline is a key with a final newline. An exit code when it cannot be used.
std::optional<int> read_key_file(const std::string& path, std::string& key) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream bytes;
  if (in) bytes << in.rdbuf();
  if (!in || in.bad())
    return gp::tools::usage_error(program, "--key-file " + gp::detail::escape(path) + " cannot be read");
  key = std::move(bytes).str();
  if (key.size() < gp::chain_key_min_bytes)
    return gp::tools::usage_error(program, "--key-file " + gp::detail::escape(path) + " holds " +
                                               std::to_string(key.size()) + " bytes; a key is at least " +
                                               std::to_string(gp::chain_key_min_bytes));
  return std::nullopt;
}

// The command line (tools/command_line.hpp); an exit code when it is to stop here.
std::variant<Args, int> parse(int argc, char** argv) {
  Args a;
  std::vector<std::string> positional;
  std::optional<std::string> key_file;
  const auto stop = gp::tools::read_command_line(
      program, usage, flags, argc, argv,
      [&](std::string_view flag, const std::string& value) {
        if (flag == "--session") {
          a.session = value;
          a.session_given = true;
        } else if (flag == "--head") {
          a.head = value;
        } else if (flag == "--key-file") {
          key_file = value;
        }
      },
      [&](std::string_view arg) -> std::string {
        if (positional.size() == 2)
          return "unexpected argument '" + gp::detail::escape(arg) + "': one command and one FILE are read";
        positional.emplace_back(arg);
        return {};
      });
  if (stop) return *stop;
  if (positional.empty()) return gp::tools::usage_error(program, "no command given (verify, show, export or audit)");
  a.command = positional[0];
  if (std::find(commands.begin(), commands.end(), a.command) == commands.end())
    return gp::tools::usage_error(
        program, "unknown command '" + gp::detail::escape(a.command) + "' (verify, show, export or audit)");
  if (positional.size() < 2) return gp::tools::usage_error(program, a.command + " needs a FILE");
  a.file = positional[1];
  if (a.session.empty()) return gp::tools::usage_error(program, "--session needs a session name");
  if (a.head && a.command != "verify") return gp::tools::usage_error(program, "--head is read by verify only");
  if (key_file)
    if (const auto stop_at = read_key_file(*key_file, a.key)) return *stop_at;
  return a;
}

bool is_postgres_uri(std::string_view file) {
  return file.starts_with("postgresql://") || file.starts_with("postgres://");
}

gp::LedgerVerification verify_any(const Args& a, std::string_view head) {
#if GROUNDPLANE_LEDGER_POSTGRES
  if (is_postgres_uri(a.file)) return gp::verify_postgres_ledger(a.file, a.session, head, a.key);
#else
  if (is_postgres_uri(a.file))
    return gp::detail::failed_verification(
        "this groundplane-ledger was built without PostgreSQL support (groundplane::postgres)");
#endif
  return gp::verify_sqlite_ledger(a.file, a.session, head, a.key);
}

// Without --session, a file (or database) that holds exactly one session is read as
// that session; one that holds several, or none, is asked for "default", and a file
// lacking it names the sessions it holds.
void choose_session(Args& a) {
  if (a.session_given) return;
  std::vector<std::string> names;
  try {
#if GROUNDPLANE_LEDGER_POSTGRES
    if (is_postgres_uri(a.file)) names = gp::detail::postgres_session_names(a.file);
    else names = gp::detail::sqlite_session_names(std::filesystem::path(a.file));
#else
    if (!is_postgres_uri(a.file)) names = gp::detail::sqlite_session_names(std::filesystem::path(a.file));
#endif
  } catch (const std::exception&) {  // unreadable or not a ledger: the command says so
  }
  if (names.size() == 1) a.session = names.front();
}

int verify(const Args& a) {
  const std::string head = a.head.value_or("");
  const gp::LedgerVerification v = verify_any(a, head);
  if (v.ok) {
    std::cout << "intact: session \"" << gp::detail::escape(a.session) << "\" in " << a.file << ", " << v.rows
              << " row(s), head " << (v.head.empty() ? std::string("(none: no rows)") : v.head)
              << (v.keyed ? " (keyed, key id " + v.key_id + ")" : std::string()) << "\n";
    if (!head.empty()) std::cout << "the published head " << head << " is in the chain\n";
    return exit_intact;
  }
  if (v.first_bad_row == 0) {
    std::cerr << program << ": cannot verify: " << v.problem
              << (v.keyed && a.key.empty() ? "; give its key with --key-file" : "") << "\n";
    return exit_unusable;
  }
  std::cout << "NOT INTACT: session \"" << gp::detail::escape(a.session) << "\" in " << a.file << ": first bad row "
            << v.first_bad_row << "\n  " << v.problem << "\n  " << v.rows << " row(s) before it verify"
            << (v.head.empty() ? std::string() : ", up to head " + v.head) << "\n";
  return exit_tampered;
}

// A reading command's start: the chain verified. Returns the exit code the command ends
// with when all goes well (0, or 1 with the warning printed: `warn` prints it), or 2
// with the reason on standard error when there is nothing to read.
std::optional<int> verify_first(const Args& a, const std::function<void(const std::string&)>& warn) {
  const gp::LedgerVerification v = verify_any(a, "");
  if (v.ok) {
    if (v.rows > 0) return exit_intact;
    std::cerr << program << ": " << a.file << " holds no rows of session \"" << gp::detail::escape(a.session, 120)
              << "\"\n";
    return std::nullopt;
  }
  if (v.first_bad_row == 0 && v.keyed && a.key.empty()) {  // its key lost, or not given: read, never vouched for
    warn("this ledger's chain is keyed (key id " + v.key_id +
         ") and no key was given (--key-file): nothing in it is verified; what follows is read from unverified rows");
    return exit_unusable;
  }
  if (v.first_bad_row == 0) {  // unreadable, not a ledger, or no such session (named with those it holds)
    std::cerr << program << ": " << v.problem << "\n";
    return std::nullopt;
  }
  warn("this ledger does not verify from row " + std::to_string(v.first_bad_row) + " on: " + v.problem +
       "; what follows is read from unverified rows");
  return exit_tampered;
}

void warn_line(const std::string& warning) { std::cout << "WARNING: " << warning << "\n"; }

std::shared_ptr<gp::LedgerStore> open_for_reading(const Args& a) {
  try {
#if GROUNDPLANE_LEDGER_POSTGRES
    if (is_postgres_uri(a.file))
      return gp::open_postgres_store(a.file, {.session = a.session, .read_only = true, .key = a.key});
#else
    if (is_postgres_uri(a.file))
      throw gp::LedgerStoreError(
          "this groundplane-ledger was built without PostgreSQL support (groundplane::postgres)");
#endif
    return gp::open_sqlite_store(a.file, {.session = a.session, .read_only = true, .key = a.key});
  } catch (const std::exception& e) {
    std::cerr << program << ": " << e.what() << "\n";
    return nullptr;
  }
}

// A store's rows handed to a restore as they are, unverified: what `show` reads once the
// warning that they do not verify is printed. Reads only.
class UnverifiedReader final : public gp::LedgerStore {
 public:
  explicit UnverifiedReader(std::shared_ptr<gp::LedgerStore> store) : store_(std::move(store)) {}
  const std::string& session() const noexcept override { return store_->session(); }
  gp::LedgerHead append(std::span<const gp::LedgerRow>) override {
    throw gp::LedgerStoreError("groundplane-ledger reads only");
  }
  void read(std::uint64_t from_seq, const std::function<bool(const gp::StoredRow&)>& visit) const override {
    store_->read(from_seq, visit);
  }
  void read_verified(const std::function<bool(const gp::StoredRow&)>& visit) const override { store_->read(1, visit); }
  gp::LedgerHead head() const override { return store_->head(); }
  bool writable() const noexcept override { return false; }
  gp::LedgerVerification verify() const noexcept override { return store_->verify(); }

 private:
  std::shared_ptr<gp::LedgerStore> store_;
};

// The block as the app's session would render it now, from the rows alone: a read-only
// store restores without writing (a fire the app stopped in reads as stopped).
int show(const Args& a) {
  const auto verdict = verify_first(a, warn_line);
  if (!verdict) return exit_unusable;
  const auto store = open_for_reading(a);
  if (!store) return *verdict == exit_intact ? exit_unusable : *verdict;
  try {
    std::shared_ptr<gp::LedgerStore> rows = store;
    if (*verdict != exit_intact) rows = std::make_shared<UnverifiedReader>(store);
    const gp::Session session({.store = rows});
    std::cout << session.ground_truth().text << "\n";
  } catch (const gp::detail::RowRefused& e) {  // a row no session writes: the ledger was altered
    std::cerr << program << ": " << (*verdict == exit_intact ? "" : "the unverified rows cannot be restored: ")
              << e.what() << "\n";
    return exit_tampered;
  } catch (const std::exception& e) {
    if (*verdict == exit_intact) throw;
    std::cerr << program << ": the unverified rows cannot be restored: " << e.what() << "\n";
  }
  return std::cout.good() ? *verdict : exit_unusable;
}

std::string json_line(const nlohmann::ordered_json& j) {
  return j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

int export_rows(const Args& a) {
  const auto verdict = verify_first(a, [](const std::string& warning) {
    std::cout << json_line(nlohmann::ordered_json{{"warning", warning}}) << "\n";
  });
  if (!verdict) return exit_unusable;
  const auto store = open_for_reading(a);
  if (!store) return *verdict == exit_intact ? exit_unusable : *verdict;
  store->read(1, [](const gp::StoredRow& r) {
    const rows::KindInfo* kind = rows::find_kind(r.kind);
    nlohmann::ordered_json line{
        {"seq", r.seq}, {"version", r.version}, {"kind", kind != nullptr ? std::string(kind->name) : r.kind}};
    // A body that no longer parses (the file was edited) is exported as the text it is.
    nlohmann::ordered_json body = rows::named_body(r.kind, r.body);
    if (body.is_discarded()) line["body_text"] = r.body;
    else line["body"] = std::move(body);
    line["hash"] = gp::to_hex(r.hash);
    std::cout << json_line(line) << "\n";
    return true;
  });
  return std::cout.good() ? *verdict : exit_unusable;
}

// ---- audit: every row as a sentence ----

std::string in_quotes(std::string_view text) { return gp::detail::quote(text, 160); }
std::string named(std::string_view id) { return gp::detail::escape(id, 120); }
// A JSON value from a row, compact, with nothing in it that could pass for a line of ours.
std::string shown(const nlohmann::json& v) {
  return gp::detail::escape_rendered(v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace), 240);
}
std::string who(gp::Principal p) { return "the " + std::string(gp::detail::name_of(p)); }
std::string by_whom(const std::optional<std::string>& by) {
  return by && !by->empty() ? "the user " + in_quotes(*by) : std::string("a person");
}

// Microseconds since the Unix epoch as UTC, ISO 8601: 2026-12-05T10:35:10.870255Z.
std::string utc_time(std::int64_t micros) {
  using namespace std::chrono;
  const sys_time<microseconds> at{microseconds{micros}};
  const auto day = floor<days>(at);
  const year_month_day date{day};
  const auto in_day = duration_cast<microseconds>(at - day).count();
  char text[48];
  std::snprintf(text, sizeof text, "%04d-%02u-%02uT%02lld:%02lld:%02lld.%06lldZ", static_cast<int>(date.year()),
                static_cast<unsigned>(date.month()), static_cast<unsigned>(date.day()),
                static_cast<long long>(in_day / 3600000000LL), static_cast<long long>(in_day / 60000000LL % 60),
                static_cast<long long>(in_day / 1000000LL % 60), static_cast<long long>(in_day % 1000000LL));
  return text;
}

// Why a fire was refused, in a few words (the reason's name is printed beside it).
std::string_view why(gp::Refusal r) {
  switch (r) {
    case gp::Refusal::unknown_affordance:
      return "no action by that name was declared";
    case gp::Refusal::not_materialized:
      return "nothing in the app performs it";
    case gp::Refusal::tool_disabled:
      return "it was disabled: its conditions were unmet";
    case gp::Refusal::guard_failed:
      return "its guard did not hold";
    case gp::Refusal::prior_fire_pending:
      return "an earlier fire of it had not settled";
    case gp::Refusal::duplicate_execution:
      return "it happens once, and it already had";
    case gp::Refusal::approval_required:
      return "a person must approve it first";
    case gp::Refusal::approval_declined:
      return "the person declined the ask";
    case gp::Refusal::approval_spent:
      return "the approval had already been used";
    case gp::Refusal::approval_revoked:
      return "the approval had been withdrawn";
    case gp::Refusal::approval_mismatch:
      return "the approval was given for another action, item or input";
    case gp::Refusal::approval_stale:
      return "the approval had expired, or what it was given on had changed";
    case gp::Refusal::payload_invalid:
      return "its input did not match what the action takes";
    case gp::Refusal::unsupported_argument:
      return "the recorded facts did not support its arguments";
    case gp::Refusal::instance_required:
      return "the action acts on one item, and none was named";
    case gp::Refusal::instance_unknown:
      return "the item named was not one the action could act on";
    case gp::Refusal::request_key_reused:
      return "its request key was already used for another request";
  }
  return "";
}

// Reads the rows in order, keeping what later rows refer to by index (transitions, asks,
// work) and each action's latest `does`, and says each row as a sentence.
class Audit {
 public:
  std::string line(const gp::StoredRow& r) {
    std::string prefix = "#" + std::to_string(r.seq) + " v" + std::to_string(r.version);
    std::string text;
    try {
      if (!body_.read(r.body)) throw gp::detail::MalformedRow("the body is not a JSON object");
      text = sentence(r, prefix);
    } catch (const gp::detail::MalformedRow& e) {
      text = "a row of kind " + in_quotes(r.kind) + " that cannot be read (" + e.what() +
             "): " + gp::detail::escape(r.body, 240);
    }
    return prefix + ": " + text;
  }

 private:
  struct Ask {
    std::string action;
    nlohmann::json input;
  };

  // The action as a person reads it: its id and, when known, what it does.
  std::string action(const std::string& id, const rows::CarriedDoes& carried = std::nullopt) {
    if (carried) does_[id] = *carried;
    const auto it = does_.find(id);
    if (it == does_.end() || !it->second) return named(id);
    return named(id) + " (" + in_quotes(*it->second) + ")";
  }
  std::string transition(std::uint64_t k) const {
    std::string out = rows::index_id("t-", k);
    if (k < transitions_.size()) out += " (" + named(transitions_[k]) + ")";
    return out;
  }
  std::string ask(std::uint64_t k) const {
    std::string out = rows::index_id("ask-", k);
    if (k < asks_.size())
      out += " (" + named(asks_[k].action) + (asks_[k].input.is_null() ? "" : " with " + shown(asks_[k].input)) + ")";
    return out;
  }
  std::string work(std::uint64_t k) const {
    std::string out = rows::index_id("work-", k);
    if (k < work_.size()) out += " (" + in_quotes(work_[k]) + ")";
    return out;
  }
  std::string list(const std::vector<std::uint64_t>& indices, std::string (Audit::*say)(std::uint64_t) const) const {
    std::string out;
    for (const auto k : indices) out += (out.empty() ? "" : ", ") + (this->*say)(k);
    return out;
  }

  static std::string policy(const rows::Policy& p) {
    return std::string("require_human_approval ") + (p.require_human_approval ? "true" : "false") +
           ", allow_unmaterialized_fires " + (p.allow_unmaterialized_fires ? "true" : "false") + ", approval_ttl " +
           std::to_string(p.approval_ttl_ms) + " ms";
  }
  static std::string rule_text(const rows::ActionRule& r) {
    return std::string("high_effect ") + (r.high_effect ? "true" : "false") + ", concurrency " +
           std::string(gp::to_string(r.concurrency));
  }

  // What the fire asked for beyond the action: its payload, the ask it cited, the request it was.
  static std::string attempt_details(const rows::Attempt& f) {
    std::string out;
    if (!f.instance.empty()) out += " for item " + in_quotes(f.instance);
    if (!f.payload.is_null()) out += " with " + shown(f.payload);
    if (!f.ask_id.empty()) out += ", citing " + named(f.ask_id);
    if (!f.request_key.empty()) out += ", request key " + in_quotes(f.request_key);
    return out;
  }

  // The row as a sentence: each kind says itself (one `say` per kind of rows::AllKinds;
  // a kind without one does not compile). `prefix` gains an approval's time.
  std::string sentence(const gp::StoredRow& r, std::string& prefix) {
    std::string out;
    const bool known = rows::visit_row(r.kind, body_, [&](auto&& row) { out = say(std::move(row), prefix); });
    if (known) return out;
    return "a row of kind " + in_quotes(r.kind) +
           ", which this release does not know: " + gp::detail::escape(r.body, 240);
  }

  std::string say(rows::Start&& s, std::string& /*prefix*/) {
    return "the session started at node " + in_quotes(s.node) + ", state " + shown(s.state) +
           (s.policy ? ", under the policy " + policy(*s.policy) : std::string());
  }
  std::string say(rows::PolicyChange&& p, std::string& /*prefix*/) {
    std::string out;
    if (p.policy)
      out = p.was_policy ? "the policy changed from " + policy(*p.was_policy) + " to " + policy(*p.policy)
                         : "the policy was recorded: " + policy(*p.policy);
    for (const auto& [id, rule] : p.actions) {
      const auto was = p.was_actions.find(id);
      out += (out.empty() ? "" : "; ") + std::string("the rule of ") + action(id) +
             (was != p.was_actions.end() ? " changed from " + rule_text(was->second) + " to " + rule_text(rule)
                                         : " was recorded: " + rule_text(rule));
    }
    if (!p.reason.empty()) out += ", for the reason " + in_quotes(p.reason);
    return out;
  }
  std::string say(rows::Move&& m, std::string& /*prefix*/) {
    return "the cursor moved to node " + in_quotes(m.node) + (m.focus.empty() ? "" : ", focus " + in_quotes(m.focus));
  }
  std::string say(rows::StaleFlag&& f, std::string& /*prefix*/) {
    return f.on ? "the app marked the actions on offer as possibly stale" : "the app marked the actions on offer fresh";
  }
  std::string say(rows::Report&& s, std::string& /*prefix*/) {
    return "the app reported a change of state" +
           std::string(s.agents_own.empty() ? "" : " (partly the agent's own fire's doing)") + ": " + shown(s.delta);
  }
  std::string say(rows::StaleSeen&& s, std::string& /*prefix*/) {
    return "the app showed the agent what changed under " + action(s.action);
  }
  std::string say(rows::Refused&& g, std::string& /*prefix*/) {
    std::string out = "REFUSED: " + who(g.fire.principal) + " fired " + action(g.fire.action, g.fire.does) +
                      attempt_details(g.fire) + "; refused " + std::string(gp::detail::name_of(g.reason)) + ": " +
                      std::string(why(g.reason));
    if (!g.prior_transition_id.empty()) out += " (" + named(g.prior_transition_id) + ")";
    for (std::size_t i = 0; i < g.failed_checks.size(); ++i)
      out += (i == 0 ? " (failing: " : ", ") + in_quotes(g.failed_checks[i]) +
             (i + 1 == g.failed_checks.size() ? ")" : "");
    return out;
  }
  std::string say(rows::Recorded&& t, std::string& /*prefix*/) {
    const std::string id = "t-" + std::to_string(transitions_.size() + 1);
    transitions_.push_back(t.fire.action);
    std::string out;
    if (t.outcome == gp::Outcome::inferred)
      out = id + ": a state change " + who(t.fire.principal) + " reported was attributed to " +
            action(t.fire.action, t.fire.does) + " (inferred: nobody fired it)";
    else
      out = id + ": " + who(t.fire.principal) + " fired " + action(t.fire.action, t.fire.does) +
            attempt_details(t.fire) + ", recorded";
    if (t.standing_grant) out += ", allowed by a standing approval";
    if (t.repeat) out += ", a repeat of an action that had already happened or was in flight";
    if (t.outcome != gp::Outcome::pending && t.outcome != gp::Outcome::inferred)
      out += "; outcome " + std::string(gp::detail::name_of(t.outcome));
    if (t.awaits_report) out += "; awaiting the app's report of its writes";
    if (!t.idempotency_key.empty()) out += "; idempotency key " + t.idempotency_key;
    return out;
  }
  std::string say(rows::Grade&& u, std::string& /*prefix*/) {
    std::string out = transition(u.transition);
    if (u.outcome == gp::Outcome::rejected)
      return out + ": the app reported it failed" +
             (u.error && !u.error->empty() ? " (code " + in_quotes(*u.error) + ")" : "") + "; outcome rejected";
    if (u.error)
      return out + ": its handler failed: " + in_quotes(*u.error) + "; outcome " +
             std::string(gp::detail::name_of(u.outcome));
    if (u.receipt) out += ": its handler returned";
    else out += ": settled by the app's report";
    if (u.outcome == gp::Outcome::pending) return out + "; awaiting the app's report";
    return out + "; outcome " + std::string(gp::detail::name_of(u.outcome));
  }
  std::string say(rows::AskMinted&& q, std::string& /*prefix*/) {
    const std::string id = "ask-" + std::to_string(asks_.size() + 1);
    const std::string what = action(q.action, q.does);
    asks_.push_back({q.action, q.input});
    return id + ": a person was asked to approve " + what +
           (q.instance.empty() ? "" : " for item " + in_quotes(q.instance)) +
           (q.input.is_null() ? "" : " with " + shown(q.input));
  }
  std::string say(rows::Decision&& d, std::string& prefix) {
    switch (d.state) {
      case gp::AskState::approved: {
        if (d.approved_at) prefix += " " + utc_time(*d.approved_at);
        std::string out = by_whom(d.by) + " approved " + ask(d.ask);
        if (d.reads && !d.reads->empty()) out += ", given on " + shown(*d.reads);
        return out;
      }
      case gp::AskState::declined:
        return by_whom(d.by) + " declined " + ask(d.ask);
      case gp::AskState::revoked:
        return by_whom(d.revoked_by) + " withdrew the approval of " + ask(d.ask) + " before it was used";
      case gp::AskState::spent:
        return ask(d.ask) + " was used by " + named(d.spent_by.value_or("a fire")) + ": one approval, one fire";
      case gp::AskState::awaiting:
        break;
    }
    return ask(d.ask) + " is " + std::string(gp::detail::name_of(d.state));
  }
  std::string say(rows::Standing&& s, std::string& /*prefix*/) {
    const std::string what = action(s.action, s.does);
    if (s.active) return by_whom(s.by) + " granted a standing approval of " + what + ": its fires need no ask";
    return by_whom(s.by) + " withdrew the standing approval of " + what;
  }
  std::string say(rows::WorkOpened&& w, std::string& /*prefix*/) {
    work_.push_back(w.label);
    return work(work_.size() - 1) + " opened" +
           (w.transition_id.empty() ? std::string(", bound to no fire") : ", for " + named(w.transition_id));
  }
  std::string say(rows::WorkClosed&& w, std::string& /*prefix*/) { return work(w.work) + " closed"; }
  std::string say(rows::Restart&& r, std::string& /*prefix*/) {
    std::string out = "the app restarted";
    if (!r.fires.empty())
      out += "; the fires it had stopped in are in doubt (whether they happened is not known): " +
             list(r.fires, &Audit::transition);
    if (!r.work.empty()) out += "; the work it left open is closed: " + list(r.work, &Audit::work);
    return out;
  }
  std::string say(rows::Resolution&& v, std::string& /*prefix*/) {
    return transition(v.transition) +
           ", in doubt since a restart: " + (v.by ? by_whom(v.by) + " said" : std::string("the action's probe said")) +
           " it " + (v.happened ? "happened" : "did not happen");
  }

  gp::detail::RowBody body_;
  std::vector<std::string> transitions_;  // each recorded fire's action, t-1 first
  std::vector<Ask> asks_;
  std::vector<std::string> work_;
  std::map<std::string, std::optional<std::string>, std::less<>> does_;  // each action's latest `does`
};

int audit(const Args& a) {
  const auto verdict = verify_first(a, warn_line);
  if (!verdict) return exit_unusable;
  const auto store = open_for_reading(a);
  if (!store) return *verdict == exit_intact ? exit_unusable : *verdict;
  Audit reader;
  store->read(1, [&](const gp::StoredRow& r) {
    std::cout << reader.line(r) << "\n";
    return true;
  });
  return std::cout.good() ? *verdict : exit_unusable;
}

}  // namespace

int main(int argc, char** argv) {
  auto parsed = parse(argc, argv);
  if (const int* code = std::get_if<int>(&parsed)) return *code;
  Args a = std::get<Args>(std::move(parsed));
  choose_session(a);
  try {
    if (a.command == "verify") return verify(a);
    if (a.command == "show") return show(a);
    if (a.command == "export") return export_rows(a);
    return audit(a);
  } catch (const std::exception& e) {
    std::cerr << program << ": " << e.what() << "\n";
    return exit_unusable;
  }
}
