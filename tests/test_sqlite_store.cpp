// The SQLite ledger store: the chain it writes, what survives a reopen, one file with
// many sessions, atomic batches, one writer per session — and tampering with the file
// through SQLite itself (alter, insert, delete, reorder, cut the tail, tear the file),
// each time with verify_sqlite_ledger naming the first bad row.
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include "catch2_compat.hpp"

#include "groundplane/store/sqlite.hpp"
#include "store_fixtures.hpp"

namespace gp = groundplane;
using gp_test::raw_sql;
using gp_test::TempLedger;
using nlohmann::json;

namespace {

// n rows, row k carrying version k - 1 and a body naming k.
gp::LedgerHead fill(gp::LedgerStore& store, int n) {
  gp::LedgerHead head;
  for (int k = 1; k <= n; ++k) {
    const gp::LedgerRow row{static_cast<std::uint64_t>(k - 1), "fire",
                            json{{"a", "act-" + std::to_string(k)}, {"k", k}}};
    head = store.append(std::span(&row, 1));
  }
  return head;
}

std::vector<gp::StoredRow> all_rows(const gp::LedgerStore& store) {
  std::vector<gp::StoredRow> out;
  store.read(1, [&](const gp::StoredRow& r) {
    out.push_back(r);
    return true;
  });
  return out;
}

// The hash of every stored row, by seq (1-based; [0] unused).
std::vector<std::string> hashes(const std::filesystem::path& file, const std::string& session = "default") {
  const auto store = gp::open_sqlite_store(file, {.session = session, .read_only = true});
  std::vector<std::string> out{""};
  for (const auto& r : all_rows(*store)) out.push_back(gp::to_hex(r.hash));
  return out;
}

// A ten-row ledger whose store is closed again (so the file is all there is).
struct TenRows {
  TempLedger file{"tamper"};
  std::string head;
  TenRows() { head = fill(*gp::open_sqlite_store(file.path()), 10).hex; }
};

std::string hex_of(const gp::RowHash& h) { return gp::to_hex(h); }

}  // namespace

TEST_CASE("The chain's hash is OpenSSL's SHA-256: the FIPS 180-2 vector for \"abc\" comes out", "[store]") {
  gp::detail::Sha256 sha;
  CHECK(hex_of(sha("abc")) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(hex_of(sha("ab", "c")) == hex_of(sha("abc")));  // (a || b), not two digests
  CHECK(hex_of(sha("")) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

TEST_CASE("A row's canonical bytes are seq, version, kind and body, length-prefixed, big-endian", "[store]") {
  const std::string bytes = gp::canonical_bytes(2, 258, "gap", R"({"a":1})");
  const std::string expected = std::string("\0\0\0\0\0\0\0\x02", 8) + std::string("\0\0\0\0\0\0\x01\x02", 8) +
                               "\x03gap" + std::string("\0\0\0\x07", 4) + R"({"a":1})";
  CHECK(bytes == expected);
  // Moving a byte from the kind to the body changes the bytes: the lengths disambiguate.
  CHECK(gp::canonical_bytes(1, 0, "ab", "c") != gp::canonical_bytes(1, 0, "a", "bc"));
  CHECK_THROWS_AS(gp::canonical_bytes(1, 0, "", "{}"), gp::ConfigurationError);
  CHECK_THROWS_AS(gp::canonical_bytes(1, 0, std::string(256, 'k'), "{}"), gp::ConfigurationError);
}

TEST_CASE("A body is stored as its canonical JSON: keys sorted, no whitespace, the same for equal values", "[store]") {
  CHECK(gp::canonical_body(json::parse(R"({ "b": [1, 2], "a": {"y": null, "x": "é"} })")) ==
        R"({"a":{"x":"é","y":null},"b":[1,2]})");
  // Not refused and not replaced: a stray byte is U+10FFFF and its hex digits.
  CHECK(gp::canonical_body(json{{"s", std::string("\xff")}}) ==
        "{\"s\":\"\xF4\x8F\xBF\xBF"
        "ff\"}");
  CHECK(gp::canonical_body(json{{"k\xe9", 1}}) ==
        "{\"k\xF4\x8F\xBF\xBF"
        "e9\":1}");
}

TEST_CASE(
    "One writer reused row after row writes each body as canonical_body does, also after a body it had to re-encode",
    "[store]") {
  // The stores keep one serializer for every row; a body that is not UTF-8 throws inside
  // it half-written, and the next body must not inherit anything from that attempt.
  const std::vector<json> bodies{json{{"a", 1}, {"p", {{"sku", "A-1001"}, {"qty", 1}}}},
                                 json{{"s", std::string("ok\xff")}, {"t", "after the bad byte"}},
                                 json{{"z", 0.5}, {"y", "\xF4\x8F\xBF\xBF"}},
                                 json{{"a", 1}, {"p", {{"sku", "A-1001"}, {"qty", 1}}}},
                                 json::object(),
                                 json{{"long", std::string(1000, 'x')}, {"n", nullptr}}};
  gp::detail::CanonicalWriter writer;
  for (std::size_t i = 0; i < bodies.size(); ++i) {
    const json& body = bodies[i];
    INFO("body " << i);
    const std::string reused(writer.write(body));
    CHECK(reused == gp::canonical_body(body));
    CHECK(reused == gp::canonical_body(body));  // and canonical_body is a fresh writer each time
  }
  CHECK(std::string(writer.write(bodies[0])) == R"({"a":1,"p":{"qty":1,"sku":"A-1001"}})");
  // Its header is canonical_bytes' first bytes: hashing the two pieces is hashing the whole.
  const gp::detail::CanonicalHeader header(2, 258, "gap", 7);
  CHECK(std::string(header.view()) + R"({"a":1})" == gp::canonical_bytes(2, 258, "gap", R"({"a":1})"));
  gp::detail::Sha256 sha;
  CHECK(sha("prev", header.view(), R"({"a":1})") == sha("prev", gp::canonical_bytes(2, 258, "gap", R"({"a":1})")));
}

TEST_CASE("Stored-text form gives back every string byte for byte: each byte value, the marker, and what looks like it",
          "[store]") {
  const std::string marker = "\xF4\x8F\xBF\xBF";
  std::vector<std::string> cases{
      "",     "plain",         "caf\xC3\xA9", "\xed\xa0\x80", "\xc0\xaf",     "\xF4\x90\x80\x80",
      marker, marker + marker, marker + "ff", marker + "zz",  "\xF4\x8F\xBF", "a" + marker + "e9b"};
  for (int b = 0; b < 256; ++b) cases.push_back(std::string(1, static_cast<char>(b)) + "x");
  for (const auto& s : cases) {
    INFO(json(s).dump(-1, ' ', true, json::error_handler_t::replace));
    const std::string stored = gp::detail::needs_stored_text_encoding(s) ? gp::detail::encode_stored_text(s) : s;
    CHECK_NOTHROW(json(stored).dump());  // valid UTF-8, as JSON text must be
    std::string back = stored;
    gp::detail::decode_stored_text(back);
    CHECK(back == s);
  }
  // A string valid as UTF-8 and free of the marker is stored as it is.
  CHECK_FALSE(gp::detail::needs_stored_text_encoding("caf\xC3\xA9 \xF0\x9F\x98\x80"));
  CHECK(gp::detail::needs_stored_text_encoding(marker));
}

TEST_CASE("Each stored hash is SHA-256 of the previous hash and the row's bytes, from a genesis bound to the session",
          "[store]") {
  TempLedger file;
  const auto store = gp::open_sqlite_store(file.path(), {.session = "alice"});
  fill(*store, 3);
  gp::detail::Sha256 sha;
  gp::RowHash prev = sha(gp::chain_genesis_bytes("alice"));
  const auto rows = all_rows(*store);
  REQUIRE(rows.size() == 3);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    CHECK(rows[i].seq == i + 1);
    CHECK(rows[i].version == i);
    CHECK(rows[i].kind == "fire");
    CHECK(rows[i].body == R"({"a":"act-)" + std::to_string(i + 1) + R"(","k":)" + std::to_string(i + 1) + "}");
    const gp::RowHash expected = sha(gp::detail::as_chars(prev), gp::canonical_bytes(rows[i]));
    CHECK(hex_of(rows[i].hash) == hex_of(expected));
    prev = rows[i].hash;
  }
  CHECK(store->head().hex == hex_of(prev));
  CHECK(store->head().rows == 3);
}

TEST_CASE("Rows survive closing the store, and a reopened store chains new rows after them", "[store]") {
  TempLedger file;
  std::string head;
  {
    const auto store = gp::open_sqlite_store(file.path());
    CHECK(store->head().rows == 0);
    CHECK(store->head().hex.empty());
    head = fill(*store, 4).hex;
  }
  const auto store = gp::open_sqlite_store(file.path());
  CHECK(store->head().rows == 4);
  CHECK(store->head().hex == head);
  fill(*store, 1);
  CHECK(store->head().rows == 5);
  const auto v = gp::verify_sqlite_ledger(file.path());
  CHECK(v.ok);
  CHECK(v.rows == 5);
  CHECK(v.head == store->head().hex);
  CHECK(v.first_bad_row == 0);
  CHECK(v.problem.empty());
  CHECK(store->verify().ok);
}

TEST_CASE("A batch is one transaction: a row that cannot be written leaves none of the batch", "[store]") {
  TempLedger file;
  const auto store = gp::open_sqlite_store(file.path());
  fill(*store, 2);
  const std::vector<gp::LedgerRow> batch{{2, "fire", json{{"a", 1}}}, {3, "", json{{"a", 2}}}};  // empty kind: refused
  CHECK_THROWS(store->append(batch));
  CHECK(store->head().rows == 2);
  CHECK(all_rows(*store).size() == 2);
  fill(*store, 1);  // the store still works, and the chain still holds
  CHECK(gp::verify_sqlite_ledger(file.path()).ok);
  CHECK(gp::verify_sqlite_ledger(file.path()).rows == 3);
}

TEST_CASE("One file holds many sessions, each its own chain", "[store]") {
  TempLedger file;
  const auto a = gp::open_sqlite_store(file.path(), {.session = "alice"});
  const auto b = gp::open_sqlite_store(file.path(), {.session = "bob", .synchronous_commit = false});
  fill(*a, 3);
  fill(*b, 5);
  fill(*a, 1);
  CHECK(gp::verify_sqlite_ledger(file.path(), "alice").rows == 4);
  CHECK(gp::verify_sqlite_ledger(file.path(), "bob").rows == 5);
  CHECK(gp::verify_sqlite_ledger(file.path(), "alice").ok);
  // Same bodies, different sessions: different chains.
  CHECK(all_rows(*a)[0].body == all_rows(*b)[0].body);
  CHECK(all_rows(*a)[0].hash != all_rows(*b)[0].hash);
  const auto none = gp::verify_sqlite_ledger(file.path(), "carol");
  CHECK_FALSE(none.ok);
  CHECK(none.first_bad_row == 0);
  CHECK(none.problem.find("holds no session \"carol\" (it holds: alice, bob)") != std::string::npos);
}

TEST_CASE("A row copied from another session's chain does not verify in this one", "[store][tamper]") {
  TempLedger file;
  fill(*gp::open_sqlite_store(file.path(), {.session = "alice"}), 3);
  fill(*gp::open_sqlite_store(file.path(), {.session = "bob"}), 3);
  // bob's rows replaced wholesale by alice's (bodies, hashes and all)
  raw_sql(file.path(),
          "DELETE FROM groundplane_rows WHERE session = (SELECT id FROM groundplane_sessions WHERE name = 'bob');"
          "INSERT INTO groundplane_rows SELECT (SELECT id FROM groundplane_sessions WHERE name = 'bob'), seq, version, "
          "kind, body, hash FROM groundplane_rows WHERE session = (SELECT id FROM groundplane_sessions WHERE name = "
          "'alice');");
  const auto v = gp::verify_sqlite_ledger(file.path(), "bob");
  CHECK_FALSE(v.ok);
  CHECK(v.first_bad_row == 1);
  CHECK(gp::verify_sqlite_ledger(file.path(), "alice").ok);
}

TEST_CASE("A second writer on the same session is refused, and the chain does not fork", "[store]") {
  TempLedger file;
  const auto first = gp::open_sqlite_store(file.path());
  const auto second = gp::open_sqlite_store(file.path());
  fill(*first, 2);
  const gp::LedgerRow row{9, "fire", json{{"late", true}}};
  try {
    second->append(std::span(&row, 1));
    FAIL("a stale writer appended");
  } catch (const gp::LedgerStoreError& e) {
    CHECK(std::string(e.what()).find("another writer appended") != std::string::npos);
  }
  CHECK(second->head().rows == 0);  // its view did not move
  const auto v = gp::verify_sqlite_ledger(file.path());
  CHECK(v.ok);
  CHECK(v.rows == 2);
}

TEST_CASE("An exclusive store keeps the file to itself while open, uses no -shm index, and leaves an ordinary ledger",
          "[store]") {
  TempLedger file;
  fill(*gp::open_sqlite_store(file.path()), 2);  // an existing WAL ledger, reopened exclusive
  std::string head;
  {
    const auto store = gp::open_sqlite_store(file.path(), {.exclusive = true, .synchronous_commit = false});
    CHECK(store->head().rows == 2);
    head = fill(*store, 3).hex;
    CHECK(store->head().rows == 5);
    CHECK_FALSE(std::filesystem::exists(file.path().string() + "-shm"));
    // Any other opener waits out SQLite's busy timeout and is refused (verify_sqlite_ledger and
    // groundplane-ledger too: they say the file is locked).
    const auto started = std::chrono::steady_clock::now();
    CHECK_THROWS_AS(gp::open_sqlite_store(file.path(), {.session = "other"}), gp::LedgerStoreError);
    CHECK(std::chrono::steady_clock::now() - started >= std::chrono::seconds(5));
  }
  // Closed: every row is there, the chain intact, and any store can open it again.
  const auto v = gp::verify_sqlite_ledger(file.path());
  CHECK(v.ok);
  CHECK(v.rows == 5);
  CHECK(v.head == head);
  const auto shared = gp::open_sqlite_store(file.path());
  CHECK(shared->head().hex == head);
  CHECK(fill(*shared, 1).rows == 6);
}

TEST_CASE("A read-only store reads the rows and refuses to append", "[store]") {
  TempLedger file;
  fill(*gp::open_sqlite_store(file.path()), 3);
  const auto ro = gp::open_sqlite_store(file.path(), {.read_only = true});
  CHECK(ro->head().rows == 3);
  CHECK(all_rows(*ro).size() == 3);
  const gp::LedgerRow row{0, "fire", nullptr};
  CHECK_THROWS_AS(ro->append(std::span(&row, 1)), gp::LedgerStoreError);
  CHECK(gp::verify_sqlite_ledger(file.path()).rows == 3);
}

TEST_CASE("The file records its schema version, and a file from a newer release is refused, not misread", "[store]") {
  TempLedger file;
  fill(*gp::open_sqlite_store(file.path()), 1);
  raw_sql(file.path(), "UPDATE groundplane_schema SET version = " + std::to_string(gp::ledger_format_version + 1));
  CHECK_THROWS_WITH(gp::open_sqlite_store(file.path()), Catch::Contains("written by a newer groundplane"));
  CHECK_THROWS_WITH(gp::open_sqlite_store(file.path(), {.read_only = true}), Catch::Contains("newer groundplane"));
  const auto v = gp::verify_sqlite_ledger(file.path());
  CHECK_FALSE(v.ok);
  CHECK(v.first_bad_row == 0);
  CHECK(v.problem.find("newer groundplane") != std::string::npos);
}

TEST_CASE("Opening a store on an SQLite file that is not a ledger is refused and leaves it untouched", "[store]") {
  TempLedger file;
  raw_sql(file.path(), "CREATE TABLE t(x); INSERT INTO t VALUES (1);");
  CHECK_THROWS_WITH(gp::open_sqlite_store(file.path()), Catch::Contains("not a groundplane ledger"));
  // Plausible but wrong: refused, after switching the other application's file to WAL.
  {
    sqlite3* db = nullptr;
    REQUIRE(sqlite3_open_v2(file.str().c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK);
    sqlite3_stmt* st = nullptr;
    REQUIRE(sqlite3_prepare_v2(db, "PRAGMA journal_mode", -1, &st, nullptr) == SQLITE_OK);
    REQUIRE(sqlite3_step(st) == SQLITE_ROW);
    CHECK(std::string(reinterpret_cast<const char*>(sqlite3_column_text(st, 0))) == "delete");
    sqlite3_finalize(st);
    sqlite3_close(db);
  }
  CHECK_FALSE(std::filesystem::exists(file.str() + "-wal"));
  const auto v = gp::verify_sqlite_ledger(file.path());
  CHECK_FALSE(v.ok);
  CHECK(v.first_bad_row == 0);
  CHECK(v.problem.find("is not a groundplane ledger") != std::string::npos);
}

TEST_CASE("verify_sqlite_ledger never throws: a missing file, a non-database and a malformed head are each named",
          "[store][tamper]") {
  TempLedger missing;
  const auto a = gp::verify_sqlite_ledger(missing.path());
  CHECK_FALSE(a.ok);
  CHECK(a.first_bad_row == 0);
  CHECK(a.problem.find("cannot be read") != std::string::npos);

  TempLedger junk;
  std::ofstream(junk.path()) << std::string(5000, 'x');
  const auto b = gp::verify_sqlite_ledger(junk.path());
  CHECK_FALSE(b.ok);
  CHECK(b.first_bad_row == 0);
  CHECK(b.problem.find("is not a readable SQLite database") != std::string::npos);

  TenRows t;
  const auto c = gp::verify_sqlite_ledger(t.file.path(), "default", "not-hex");
  CHECK_FALSE(c.ok);
  CHECK(c.first_bad_row == 0);
  CHECK(c.problem.find("is not a head hash") != std::string::npos);

  CHECK(gp::verify_sqlite_ledger(std::filesystem::temp_directory_path()).problem.find("not a regular file") !=
        std::string::npos);
}

TEST_CASE("Tamper: an altered body, version, kind or hash is named as the first bad row", "[store][tamper]") {
  for (const std::string change :
       {"body = '{\"a\":\"act-5\",\"k\":50}'", "version = 40", "kind = 'gap'", "hash = zeroblob(32)", "hash = x'00'"}) {
    TenRows t;
    raw_sql(t.file.path(), "UPDATE groundplane_rows SET " + change + " WHERE seq = 5");
    const auto v = gp::verify_sqlite_ledger(t.file.path());
    INFO(change);
    CHECK_FALSE(v.ok);
    CHECK(v.first_bad_row == 5);
    CHECK(v.rows == 4);
    CHECK(v.problem.find("row 5 does not follow") != std::string::npos);
  }
}

TEST_CASE("Tamper: an altered row whose own hash was recomputed breaks the chain at the next row", "[store][tamper]") {
  TenRows t;
  const auto h = hashes(t.file.path());
  gp::detail::Sha256 sha;
  gp::RowHash prev{};
  REQUIRE(gp::detail::parse_row_hash(h[4], prev));
  const std::string body = R"({"a":"act-5","k":5000})";
  const gp::RowHash forged = gp::detail::chain_next(sha, prev, gp::canonical_bytes(5, 4, "fire", body));
  raw_sql(t.file.path(),
          "UPDATE groundplane_rows SET body = '" + body + "', hash = x'" + gp::to_hex(forged) + "' WHERE seq = 5");
  const auto v = gp::verify_sqlite_ledger(t.file.path());
  CHECK_FALSE(v.ok);
  CHECK(v.first_bad_row == 6);
}

TEST_CASE("Tamper: a chain rewritten from an altered row to the end verifies alone, and the published head catches it",
          "[store][tamper]") {
  TenRows t;
  const auto h = hashes(t.file.path());
  gp::detail::Sha256 sha;
  gp::RowHash prev{};
  REQUIRE(gp::detail::parse_row_hash(h[6], prev));
  const auto store = gp::open_sqlite_store(t.file.path(), {.read_only = true});
  std::string sql;
  for (const auto& r : all_rows(*store)) {
    if (r.seq < 7) continue;
    const std::string body = r.seq == 7 ? R"({"a":"act-7","k":-7})" : r.body;
    prev = gp::detail::chain_next(sha, prev, gp::canonical_bytes(r.seq, r.version, r.kind, body));
    sql += "UPDATE groundplane_rows SET body = '" + body + "', hash = x'" + gp::to_hex(prev) +
           "' WHERE seq = " + std::to_string(r.seq) + ";";
  }
  raw_sql(t.file.path(), sql);
  CHECK(gp::verify_sqlite_ledger(t.file.path()).ok);  // anyone can recompute SHA-256 ...
  const auto v = gp::verify_sqlite_ledger(t.file.path(), "default", t.head);
  CHECK_FALSE(v.ok);  // ... which is why a head is published
  CHECK(v.first_bad_row == 11);
  CHECK(v.problem.find("published head " + t.head) != std::string::npos);
}

TEST_CASE("Tamper: a row inserted into the middle is named, with or without a correct hash of its own",
          "[store][tamper]") {
  for (const bool forge_hash : {false, true}) {
    TenRows t;
    const auto h = hashes(t.file.path());
    std::string hash_hex = std::string(64, '1');
    const std::string body = R"({"a":"refund","k":0})";
    if (forge_hash) {
      gp::detail::Sha256 sha;
      gp::RowHash prev{};
      REQUIRE(gp::detail::parse_row_hash(h[3], prev));
      hash_hex = gp::to_hex(gp::detail::chain_next(sha, prev, gp::canonical_bytes(4, 3, "fire", body)));
    }
    // Make room at seq 4 (highest first, so the key never collides), then insert.
    std::string sql;
    for (int k = 10; k >= 4; --k)
      sql += "UPDATE groundplane_rows SET seq = " + std::to_string(k + 1) + " WHERE seq = " + std::to_string(k) + ";";
    sql += "INSERT INTO groundplane_rows VALUES (1, 4, 3, 'fire', '" + body + "', x'" + hash_hex + "');";
    raw_sql(t.file.path(), sql);
    const auto v = gp::verify_sqlite_ledger(t.file.path());
    INFO("forged hash: " << forge_hash);
    CHECK_FALSE(v.ok);
    CHECK(v.first_bad_row == (forge_hash ? 5u : 4u));
  }
}

TEST_CASE("Tamper: a row appended after the head without the chain is named", "[store][tamper]") {
  TenRows t;
  raw_sql(t.file.path(), "INSERT INTO groundplane_rows VALUES (1, 11, 10, 'fire', '{}', zeroblob(32));");
  const auto v = gp::verify_sqlite_ledger(t.file.path());
  CHECK_FALSE(v.ok);
  CHECK(v.first_bad_row == 11);
  CHECK(v.rows == 10);
  CHECK(v.head == t.head);  // the last row that verified
}

TEST_CASE("Tamper: a deleted row is named by its number, whether the rest was renumbered or not", "[store][tamper]") {
  for (const bool renumber : {false, true}) {
    TenRows t;
    std::string sql = "DELETE FROM groundplane_rows WHERE seq = 4;";
    if (renumber)
      for (int k = 5; k <= 10; ++k)
        sql += "UPDATE groundplane_rows SET seq = " + std::to_string(k - 1) + " WHERE seq = " + std::to_string(k) + ";";
    raw_sql(t.file.path(), sql);
    const auto v = gp::verify_sqlite_ledger(t.file.path());
    INFO("renumbered: " << renumber);
    CHECK_FALSE(v.ok);
    CHECK(v.first_bad_row == 4);
    CHECK(v.rows == 3);
    if (!renumber) CHECK(v.problem.find("row 4 is missing") != std::string::npos);
  }
}

TEST_CASE("Tamper: two rows swapped — by their contents or by their numbers — name the earlier one",
          "[store][tamper]") {
  for (const bool swap_numbers : {false, true}) {
    TenRows t;
    const std::string sql =
        swap_numbers
            ? "UPDATE groundplane_rows SET seq = -1 WHERE seq = 3; UPDATE groundplane_rows SET seq = 3 WHERE seq = 7;"
              "UPDATE groundplane_rows SET seq = 7 WHERE seq = -1;"
            : "CREATE TEMP TABLE r AS SELECT * FROM groundplane_rows WHERE seq IN (3, 7);"
              "UPDATE groundplane_rows SET (version, kind, body, hash) = (SELECT version, kind, body, hash FROM r "
              "WHERE r.seq = 10 - groundplane_rows.seq) WHERE seq IN (3, 7);";
    raw_sql(t.file.path(), sql);
    const auto v = gp::verify_sqlite_ledger(t.file.path());
    INFO("swapped numbers: " << swap_numbers);
    CHECK_FALSE(v.ok);
    CHECK(v.first_bad_row == 3);
  }
}

TEST_CASE("Tamper: a tail cut verifies as a shorter chain, and is caught with a head published earlier",
          "[store][tamper]") {
  TenRows t;
  const std::string mid = hashes(t.file.path())[6];
  raw_sql(t.file.path(), "DELETE FROM groundplane_rows WHERE seq > 7");
  const auto alone = gp::verify_sqlite_ledger(t.file.path());
  CHECK(alone.ok);
  CHECK(alone.rows == 7);
  const auto v = gp::verify_sqlite_ledger(t.file.path(), "default", t.head);
  CHECK_FALSE(v.ok);
  CHECK(v.first_bad_row == 8);
  CHECK(v.rows == 7);
  CHECK(v.problem.find("cut from the tail") != std::string::npos);
  // A head published when the ledger was shorter is still in it: intact.
  CHECK(gp::verify_sqlite_ledger(t.file.path(), "default", mid).ok);
}

TEST_CASE("Tamper: a ledger file cut short on disk is reported corrupt or torn, never as intact", "[store][tamper]") {
  TempLedger file{"torn"};
  {
    const auto store = gp::open_sqlite_store(file.path());
    std::vector<gp::LedgerRow> batch;
    for (int k = 0; k < 3000; ++k)
      batch.push_back({static_cast<std::uint64_t>(k), "fire", json{{"pad", std::string(100, 'p')}}});
    store->append(batch);
  }  // closed: checkpointed into the main file
  const auto size = std::filesystem::file_size(file.path());
  REQUIRE(size > 100'000);
  std::filesystem::resize_file(file.path(), size / 2);
  const auto v = gp::verify_sqlite_ledger(file.path());
  CHECK_FALSE(v.ok);
  CHECK(v.rows < 3000);
  CHECK(v.first_bad_row == v.rows + 1);  // torn: a row is named, unlike an unreadable file
  INFO(v.problem);
  CHECK(v.problem.find("corrupt") != std::string::npos);
}

namespace {

// Runs `read` where `dir` cannot be written: in a child that becomes user nobody when the
// test runs as root (root writes anywhere), else in this process with the directory made
// read-only. Returns what `read` returned.
int in_unwritable_directory(const std::filesystem::path& dir, const std::function<int()>& read) {
  namespace fs = std::filesystem;
  fs::permissions(dir, fs::perms::owner_write | fs::perms::group_write | fs::perms::others_write,
                  fs::perm_options::remove);
  int code = 0;
  if (::geteuid() != 0) {
    code = read();
  } else {
    const pid_t pid = ::fork();
    if (pid == 0) {
      if (::setgid(65534) != 0 || ::setuid(65534) != 0) ::_exit(90);
      ::_exit(read());
    }
    int status = 0;
    ::waitpid(pid, &status, 0);
    code = WIFEXITED(status) ? WEXITSTATUS(status) : 99;
  }
  fs::permissions(dir, fs::perms::owner_write, fs::perm_options::add);
  return code;
}

}  // namespace

TEST_CASE(
    "A closed ledger in a directory its reader cannot write is verified and read, and nothing is created beside it",
    "[store]") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("gp-readonly-dir-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directory(dir);
  fs::permissions(dir, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec | fs::perms::others_read |
                           fs::perms::others_exec);
  const fs::path file = dir / "ledger.db";
  std::string head;
  {
    const auto store = gp::open_sqlite_store(file);
    head = fill(*store, 10).hex;
  }  // closed: checkpointed, its -wal and -shm removed
  REQUIRE_FALSE(fs::exists(file.string() + "-wal"));
  fs::permissions(file, fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
  const int code = in_unwritable_directory(dir, [&] {
    const auto v = gp::verify_sqlite_ledger(file, "default", head);
    if (!v.ok || v.rows != 10 || v.head != head) {
      std::fprintf(stderr, "verify_sqlite_ledger: %s\n", v.problem.c_str());
      return 1;
    }
    try {
      const auto store = gp::open_sqlite_store(file, {.read_only = true});
      std::size_t rows = 0;
      store->read(1, [&](const gp::StoredRow&) { return ++rows > 0; });
      return store->head().hex == head && rows == 10 ? 0 : 2;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "read-only store: %s\n", e.what());
      return 3;
    }
  });
  CHECK(code == 0);
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) names.push_back(entry.path().filename().string());
  CHECK(names == std::vector<std::string>{"ledger.db"});

  // An empty -wal beside it (a read-only reader's leftover) holds no rows: the same. And a
  // path that starts with "//" is still a path, not a host.
  { std::ofstream(file.string() + "-wal").flush(); }
  const std::string doubled = "/" + file.string();
  const auto verifies = [&](const std::string& path) {
    return in_unwritable_directory(dir, [&] {
      const auto v = gp::verify_sqlite_ledger(path, "default", head);
      if (!v.ok) std::fprintf(stderr, "verify_sqlite_ledger: %s\n", v.problem.c_str());
      return v.ok ? 0 : 1;
    });
  };
  CHECK(verifies(file.string()) == 0);
  CHECK(verifies(doubled) == 0);
  fs::remove(file.string() + "-wal");
  fs::permissions(file, fs::perms::owner_write, fs::perm_options::add);
  fs::remove_all(dir);
}

TEST_CASE("A crashed writer's rollback journal beside a ledger makes it unreadable to a reader, never tampered",
          "[store]") {
  // The journal holds the pages as they were before the transaction that never committed;
  // only a writer may roll it back. A reader that ignored it would read half a transaction
  // and call row 3 altered.
  TempLedger f;
  fill(*gp::open_sqlite_store(f.path()), 20);
  raw_sql(f.path(), "PRAGMA journal_mode = DELETE");
  const pid_t pid = ::fork();
  if (pid == 0) {  // a writer that dies mid-transaction, its changes spilled into the file
    sqlite3* db = nullptr;
    sqlite3_open(f.str().c_str(), &db);
    sqlite3_exec(db,
                 "PRAGMA cache_size = 2; BEGIN; UPDATE groundplane_rows SET body = '{\"torn\":1}' WHERE seq = 3;"
                 "CREATE TABLE junk(x); WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 20000)"
                 " INSERT INTO junk SELECT randomblob(200) FROM c;",
                 nullptr, nullptr, nullptr);
    ::_exit(0);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  REQUIRE(std::filesystem::exists(f.str() + "-journal"));
  const auto v = gp::verify_sqlite_ledger(f.path());
  CHECK_FALSE(v.ok);
  CHECK(v.first_bad_row == 0);
  INFO(v.problem);
  CHECK_THROWS_AS(gp::open_sqlite_store(f.path(), {.read_only = true}), gp::LedgerStoreError);
  // A writer rolls it back, and the ledger is whole again.
  gp::open_sqlite_store(f.path());
  CHECK(gp::verify_sqlite_ledger(f.path()).ok);
  CHECK(gp::verify_sqlite_ledger(f.path()).rows == 20);
}

#ifdef GROUNDPLANE_LEDGER_TOOL
#include <sys/wait.h>
#include <cstdio>

namespace {

struct ToolRun {
  int exit_code = -1;
  std::string out;
};

// Runs groundplane-ledger with args (already shell-quoted), capturing stdout and stderr.
ToolRun ledger_tool(const std::string& args) {
  const std::string cmd = std::string("'") + GROUNDPLANE_LEDGER_TOOL + "' " + args + " 2>&1";
  ToolRun r;
  FILE* p = ::popen(cmd.c_str(), "r");
  REQUIRE(p != nullptr);
  char buf[4096];
  std::size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  const int status = ::pclose(p);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

}  // namespace

TEST_CASE("groundplane-ledger verify exits 0 on an intact file, 1 on a tampered one naming the row, 2 when unusable",
          "[store][tool]") {
  TenRows t;
  const std::string f = "'" + t.file.str() + "'";
  const auto intact = ledger_tool("verify " + f);
  CHECK(intact.exit_code == 0);
  CHECK(intact.out.find("intact: session \"default\"") != std::string::npos);
  CHECK(intact.out.find("10 row(s), head " + t.head) != std::string::npos);
  CHECK(ledger_tool("verify " + f + " --head " + t.head).exit_code == 0);

  raw_sql(t.file.path(), "UPDATE groundplane_rows SET body = '{\"a\":\"act-3\",\"k\":33}' WHERE seq = 3");
  const auto tampered = ledger_tool("verify " + f);
  CHECK(tampered.exit_code == 1);
  CHECK(tampered.out.find("NOT INTACT") != std::string::npos);
  CHECK(tampered.out.find("first bad row 3") != std::string::npos);

  CHECK(ledger_tool("verify " + f + " --session nobody").exit_code == 2);
  TempLedger missing;
  const auto gone = ledger_tool("verify '" + missing.str() + "'");
  CHECK(gone.exit_code == 2);
  CHECK(gone.out.find("cannot verify") != std::string::npos);
  CHECK(ledger_tool("verify").exit_code == 2);
  CHECK(ledger_tool("frobnicate " + f).exit_code == 2);
  CHECK(ledger_tool("verify " + f + " --head").exit_code == 2);
  CHECK(ledger_tool("export " + f + " --head " + t.head).exit_code == 2);
}

TEST_CASE("groundplane-ledger verify --head catches a cut tail that the chain alone cannot", "[store][tool]") {
  TenRows t;
  const std::string f = "'" + t.file.str() + "'";
  raw_sql(t.file.path(), "DELETE FROM groundplane_rows WHERE seq > 6");
  CHECK(ledger_tool("verify " + f).exit_code == 0);
  const auto cut = ledger_tool("verify " + f + " --head " + t.head);
  CHECK(cut.exit_code == 1);
  CHECK(cut.out.find("first bad row 7") != std::string::npos);
  CHECK(cut.out.find("cut from the tail") != std::string::npos);
}

TEST_CASE("groundplane-ledger verify --head exits 1 when the session its head was published for is renamed or deleted",
          "[store][tool]") {
  TenRows t;
  const std::string f = "'" + t.file.str() + "'";
  raw_sql(t.file.path(), "UPDATE groundplane_sessions SET name = 'default-old'");
  const auto renamed = ledger_tool("verify " + f + " --session default --head " + t.head);
  INFO(renamed.out);
  CHECK(renamed.exit_code == 1);  // a head vouches for rows the file no longer holds under that name
  CHECK(renamed.out.find("first bad row 1") != std::string::npos);
  CHECK(renamed.out.find("holds no session \"default\"") != std::string::npos);
  // Without a head nothing says the session ever existed. (Without --session the file's one
  // session, "default-old", would be read: a chain bound to another name, bad from row 1.)
  CHECK(ledger_tool("verify " + f + " --session default").exit_code == 2);
  CHECK(ledger_tool("verify " + f).exit_code == 1);
  raw_sql(t.file.path(), "DELETE FROM groundplane_rows; DELETE FROM groundplane_sessions");
  CHECK(ledger_tool("verify " + f + " --head " + t.head).exit_code == 1);
  const auto v = gp::verify_sqlite_ledger(t.file.path(), "default", t.head);
  CHECK_FALSE(v.ok);
  CHECK(v.first_bad_row == 1);
}

TEST_CASE("groundplane-ledger verify --head exits 1 whenever its head cannot be reached", "[store][tool]") {
  // A monitor alerts on exit 1: a file made unreadable, or made to look newer, must not
  // slip past it as "unusable" once a head was published for it.
  const auto tool_with_head = [](const TenRows& t) {
    return ledger_tool("verify '" + t.file.str() + "' --head " + t.head).exit_code;
  };
  {
    TenRows t;
    raw_sql(t.file.path(), "UPDATE groundplane_schema SET version = 99");
    CHECK(tool_with_head(t) == 1);
    CHECK(ledger_tool("verify '" + t.file.str() + "'").exit_code == 2);  // no head: it may just be newer
    const auto v = gp::verify_sqlite_ledger(t.file.path(), "default", t.head);
    CHECK_FALSE(v.ok);
    CHECK(v.first_bad_row == 1);
    CHECK(v.problem.find("newer groundplane") != std::string::npos);
  }
  {
    TenRows t;
    raw_sql(t.file.path(), "DROP TABLE groundplane_schema");
    CHECK(tool_with_head(t) == 1);
  }
  {
    TenRows t;
    std::ofstream(t.file.path(), std::ios::trunc) << "not a database at all";
    CHECK(tool_with_head(t) == 1);
  }
  {
    TenRows t;
    std::filesystem::remove(t.file.path());
    CHECK(tool_with_head(t) == 1);
  }
  TenRows t;
  CHECK(ledger_tool("verify '" + t.file.str() + "' --head not-a-head").exit_code == 2);  // bad usage stays 2
}

TEST_CASE(
    "groundplane-ledger show, export and audit of a session the file does not hold exit 2 naming the ones it holds",
    "[store][tool]") {
  TenRows t;
  for (const char* command : {"show", "export", "audit"}) {
    const auto r = ledger_tool(std::string(command) + " '" + t.file.str() + "' --session nosuch");
    INFO(command << ": " << r.out);
    CHECK(r.exit_code == 2);
    CHECK(r.out.find("holds no session \"nosuch\" (it holds: default)") != std::string::npos);
  }
}

TEST_CASE("a session the file does not hold is named with the first 50 sessions it holds, and how many", "[store]") {
  TenRows t;
  raw_sql(t.file.path(),
          "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 59)"
          " INSERT INTO groundplane_sessions(name) SELECT printf('s%02d', i) FROM n");
  const auto v = gp::verify_sqlite_ledger(t.file.path(), "nobody");
  CHECK_FALSE(v.ok);
  CHECK(v.first_bad_row == 0);
  INFO(v.problem);
  CHECK(v.problem.find("holds no session \"nobody\" (it holds 60 sessions; the first 50: default, s01, s02,") !=
        std::string::npos);
  CHECK(v.problem.find("s49, ...)") != std::string::npos);
  CHECK(v.problem.find("s50") == std::string::npos);
}

TEST_CASE("a session name read from the file is quoted when a problem names it, so it cannot fake a line",
          "[store][tool]") {
  TenRows t;
  raw_sql(t.file.path(), "UPDATE groundplane_sessions SET name = 'bob' || char(10) || 'intact: session'");
  const auto v = gp::verify_sqlite_ledger(t.file.path(), "carol");
  CHECK_FALSE(v.ok);
  INFO(v.problem);
  CHECK(v.problem.find('\n') == std::string::npos);
  CHECK(v.problem.find("bob\\nintact: session") != std::string::npos);
}

TEST_CASE("groundplane-ledger export prints one JSON object per row with its hash, oldest first", "[store][tool]") {
  TenRows t;
  const auto h = hashes(t.file.path());
  const auto r = ledger_tool("export '" + t.file.str() + "'");
  CHECK(r.exit_code == 0);
  std::vector<json> lines;
  std::size_t start = 0;
  while (start < r.out.size()) {
    const std::size_t end = r.out.find('\n', start);
    lines.push_back(json::parse(r.out.substr(start, end - start)));
    start = end + 1;
  }
  REQUIRE(lines.size() == 10);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    CHECK(lines[i]["seq"] == i + 1);
    CHECK(lines[i]["version"] == i);
    CHECK(lines[i]["kind"] == "fire");
    CHECK(lines[i]["body"]["k"] == i + 1);
    CHECK(lines[i]["hash"] == h[i + 1]);
  }
  // An edited body that no longer parses is exported as the text it is, below a warning
  // that the chain does not verify.
  raw_sql(t.file.path(), "UPDATE groundplane_rows SET body = 'not json' WHERE seq = 2");
  const auto edited = ledger_tool("export '" + t.file.str() + "'");
  CHECK(edited.exit_code == 1);
  const json warning = json::parse(edited.out.substr(0, edited.out.find('\n')));
  CHECK(warning["warning"].get<std::string>().starts_with("this ledger does not verify from row 2 on: "));
  CHECK(edited.out.find(R"("body_text":"not json")") != std::string::npos);
}
#endif
