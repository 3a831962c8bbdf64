// groundplane-ledger: a ledger file, checked and read without the app that wrote it.
// FILE may also be a postgresql:// (or postgres://) URI: the ledger in PostgreSQL, read
// without taking any session's lease.
//
//   groundplane-ledger verify FILE [--session S] [--head HEX]
//       re-derives the session's hash chain; with --head (a head published earlier, as
//       GroundTruth::head gave it) also catches rows cut from the tail.
//       exit 0 intact, 1 tampered or torn, 2 unreadable, not a ledger, or bad usage
//   groundplane-ledger show FILE [--session S]
//       the session's ground-truth block, restored from the file alone (nothing is written)
//   groundplane-ledger export FILE [--session S]
//       one JSON object per row, oldest first: seq, version, kind, body, hash
#include <cstdio>
#include <exception>
#include <iostream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include <groundplane/session.hpp>
#include <groundplane/store/sqlite.hpp>
#if GROUNDPLANE_LEDGER_POSTGRES
#include <groundplane/store/postgres.hpp>
#endif

namespace gp = groundplane;

namespace {

constexpr int exit_intact = 0;
constexpr int exit_tampered = 1;
constexpr int exit_unusable = 2;

constexpr std::string_view usage =
    "usage: groundplane-ledger verify FILE [--session S] [--head HEX]\n"
    "       groundplane-ledger show FILE [--session S]\n"
    "       groundplane-ledger export FILE [--session S]\n"
    "FILE: an SQLite ledger file, or a postgresql:// URI\n"
    "exit: 0 intact, 1 tampered or torn, 2 unreadable, not a ledger, or bad usage\n";

struct Args {
  std::string command;
  std::string file;
  std::string session = "default";
  std::string head;
};

std::optional<Args> parse(const std::vector<std::string_view>& argv) {
  if (argv.size() < 2) return std::nullopt;
  Args a;
  a.command = argv[0];
  a.file = argv[1];
  for (std::size_t i = 2; i < argv.size(); ++i) {
    const std::string_view flag = argv[i];
    if (i + 1 >= argv.size()) return std::nullopt;
    if (flag == "--session") a.session = argv[++i];
    else if (flag == "--head" && a.command == "verify") a.head = argv[++i];
    else return std::nullopt;
  }
  if (a.session.empty() || (a.command != "verify" && a.command != "show" && a.command != "export")) return std::nullopt;
  return a;
}

bool is_postgres_uri(std::string_view file) {
  return file.starts_with("postgresql://") || file.starts_with("postgres://");
}

gp::LedgerVerification verify_any(const Args& a) {
#if GROUNDPLANE_LEDGER_POSTGRES
  if (is_postgres_uri(a.file)) return gp::verify_postgres_ledger(a.file, a.session, a.head);
#else
  if (is_postgres_uri(a.file))
    return {false, 0, "", 0, "this groundplane-ledger was built without PostgreSQL support (groundplane::postgres)"};
#endif
  return gp::verify_sqlite_ledger(a.file, a.session, a.head);
}

int verify(const Args& a) {
  const gp::LedgerVerification v = verify_any(a);
  if (v.ok) {
    std::cout << "intact: session \"" << a.session << "\" in " << a.file << ", " << v.rows << " row(s), head "
              << (v.head.empty() ? std::string("(none: no rows)") : v.head) << "\n";
    if (!a.head.empty()) std::cout << "the published head " << a.head << " is in the chain\n";
    return exit_intact;
  }
  if (v.first_bad_row == 0) {
    std::cout << "cannot verify: " << v.problem << "\n";
    return exit_unusable;
  }
  std::cout << "NOT INTACT: session \"" << a.session << "\" in " << a.file << ": first bad row " << v.first_bad_row
            << "\n  " << v.problem << "\n  " << v.rows << " row(s) before it verify"
            << (v.head.empty() ? std::string() : ", up to head " + v.head) << "\n";
  return exit_tampered;
}

std::shared_ptr<gp::LedgerStore> open_for_reading(const Args& a) {
  try {
#if GROUNDPLANE_LEDGER_POSTGRES
    if (is_postgres_uri(a.file)) return gp::open_postgres_store(a.file, {.session = a.session, .read_only = true});
#else
    if (is_postgres_uri(a.file))
      throw gp::LedgerStoreError(
          "this groundplane-ledger was built without PostgreSQL support (groundplane::postgres)");
#endif
    return gp::open_sqlite_store(a.file, {.session = a.session, .read_only = true});
  } catch (const std::exception& e) {
    std::cerr << "groundplane-ledger: " << e.what() << "\n";
    return nullptr;
  }
}

// The block as the app's session would render it now, from the rows alone: a read-only
// store restores without writing (a fire the app stopped in reads as stopped).
int show(const Args& a) {
  const auto store = open_for_reading(a);
  if (!store) return exit_unusable;
  if (store->head().rows == 0) {
    std::cerr << "groundplane-ledger: " << a.file << " holds no rows of session \"" << a.session << "\"\n";
    return exit_unusable;
  }
  const gp::Session session({.store = store});
  std::cout << session.ground_truth().text << "\n";
  return std::cout.good() ? exit_intact : exit_unusable;
}

int export_rows(const Args& a) {
  const auto store = open_for_reading(a);
  if (!store) return exit_unusable;
  if (store->head().rows == 0) {  // a session name mistyped is said, not an empty export
    std::cerr << "groundplane-ledger: " << a.file << " holds no rows of session \"" << a.session << "\"\n";
    return exit_unusable;
  }
  store->read(1, [](const gp::StoredRow& r) {
    nlohmann::ordered_json line{{"seq", r.seq}, {"version", r.version}, {"kind", r.kind}};
    // A body that no longer parses (the file was edited) is exported as the text it is.
    nlohmann::json body = nlohmann::json::parse(r.body, nullptr, false);
    if (body.is_discarded()) line["body_text"] = r.body;
    else line["body"] = std::move(body);
    line["hash"] = gp::to_hex(r.hash);
    std::cout << line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    return true;
  });
  return std::cout.good() ? exit_intact : exit_unusable;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string_view> args(argv + 1, argv + argc);
  const auto a = parse(args);
  if (!a) {
    std::cerr << usage;
    return exit_unusable;
  }
  try {
    if (a->command == "verify") return verify(*a);
    return a->command == "show" ? show(*a) : export_rows(*a);
  } catch (const std::exception& e) {
    std::cerr << "groundplane-ledger: " << e.what() << "\n";
    return exit_unusable;
  }
}
