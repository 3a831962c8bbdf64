#!/usr/bin/env python3
"""Verify a groundplane ledger file (SQLite) with Python's standard library alone.

Written from docs/ledger-format.md and nothing else, as any reader in another language
would be: it re-derives one session's hash chain and names the first row that breaks it.
The test suite runs it beside the library's verify_sqlite_ledger on every fixture and
requires the two to agree.

    python3 tools/verify_ledger.py FILE [--session S] [--head HEX] [--key-file K] [--json] [--rows]

A keyed chain is verified with its key, read from the file K (its exact bytes, at least
16): never from the command line.

Exit status as `groundplane-ledger verify`: 0 intact, 1 tampered or torn (or a head
given that the chain does not reach), 2 unreadable, not a ledger, a keyed chain without
its key, or bad usage.

--rows also prints each row that verified as one JSON object, as the page's row kinds
read it (what `groundplane-ledger export` prints): its kind by name, and its body's
members by name in the order the page lists them, an enum's number as its name, a
member or kind the page does not list kept as stored.
"""

import argparse
import hashlib
import hmac
import json
import os
import re
import sqlite3
import struct
import sys
import urllib.parse

FORMAT_VERSIONS = (1, 2, 3)  # the ledger format versions this verifier reads
SQLITE_CORRUPT = 11
MAX_BODY_BYTES = 64 << 20  # "Limits": a stored body's size...
MAX_NESTING = 512  # ...and how deep it nests arrays and objects
KEY_MIN_BYTES = 16
KEY_ID_BYTES = 8
KEY_PREFIX = b'{"_k":'  # "A keyed chain": how a keyed chain's first row begins
HEX_DIGITS = re.compile(rb"[0-9a-f]{16}")
STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.DOTALL)
BRACKET = re.compile(rb"[\[\]{}]")
# "Schema objects": what groundplane creates on its tables, every run of whitespace one space.
LEDGER_TABLES = {
    b"groundplane_schema": b"CREATE TABLE groundplane_schema(version INTEGER NOT NULL)",
    b"groundplane_sessions": b"CREATE TABLE groundplane_sessions(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE)",
    b"groundplane_rows": b"CREATE TABLE groundplane_rows( session INTEGER NOT NULL, seq INTEGER NOT NULL,"
                         b" version INTEGER NOT NULL, kind TEXT NOT NULL, body TEXT NOT NULL, hash BLOB NOT NULL,"
                         b" PRIMARY KEY (session, seq)) WITHOUT ROWID",
}
SESSIONS_INDEX = b"sqlite_autoindex_groundplane_sessions_1"

# The row kinds of docs/ledger-format.md: code -> (name, [(member key, member name)]).
_ATTEMPT = [("a", "action"), ("d", "does"), ("p", "principal"), ("pl", "payload"), ("k", "ask_id"),
            ("ix", "instance")]
KINDS = {
    "init": ("start", [("_k", "key_id"), ("n", "node"), ("po", "policy"), ("st", "state")]),
    "pol": ("policy", [("ac", "actions"), ("po", "policy"), ("was", "was"), ("why", "reason")]),
    "m": ("move", [("n", "node"), ("f", "focus")]),
    "ms": ("actions_may_be_stale", [("on", "on")]),
    "s": ("report", [("dl", "delta"), ("ow", "agents_own")]),
    "sa": ("stale_acknowledged", [("a", "action")]),
    "g": ("refusal", _ATTEMPT + [("r", "reason"), ("pr", "prior_transition_id"), ("fc", "failed_checks"),
                                 ("po", "payload_omitted"), ("rk", "request_key")]),
    "t": ("transition", _ATTEMPT + [("sg", "standing_grant"), ("rp", "repeat"), ("o", "outcome"),
                                    ("w", "awaits_report"), ("rk", "request_key"), ("ik", "idempotency_key")]),
    "u": ("grade", [("t", "transition"), ("o", "outcome"), ("e", "error"), ("rc", "once_receipt"), ("d", "data"),
                    ("do", "data_omitted")]),
    "q": ("ask", [("a", "action"), ("d", "does"), ("in", "input"), ("ix", "instance")]),
    "qd": ("decision", [("q", "ask"), ("s", "state"), ("by", "by"), ("at", "approved_at"), ("rd", "approved_reads"),
                        ("rb", "revoked_by"), ("sb", "spent_by")]),
    "sg": ("standing_grant", [("a", "action"), ("on", "active"), ("by", "by"), ("d", "does")]),
    "wo": ("work_opened", [("l", "label"), ("t", "transition_id")]),
    "wc": ("work_closed", [("w", "work")]),
    "rs": ("restart", [("t", "stopped_fires"), ("w", "closed_work")]),
    "rv": ("resolution", [("t", "transition"), ("h", "happened"), ("by", "by")]),
}
# The enums as stored, by the kinds and members that hold them.
PRINCIPALS = ["agent", "user", "system"]
OUTCOMES = ["pending", "observed", "not_observed", "unobservable", "handler_failed", "not_materialized",
            "verify_failed", "inferred", "rejected"]
REFUSALS = ["UNKNOWN_AFFORDANCE", "NOT_MATERIALIZED", "TOOL_DISABLED", "GUARD_FAILED", "PRIOR_FIRE_PENDING",
            "DUPLICATE_EXECUTION", "APPROVAL_REQUIRED", "APPROVAL_DECLINED", "APPROVAL_SPENT", "APPROVAL_REVOKED",
            "APPROVAL_MISMATCH", "APPROVAL_STALE", "PAYLOAD_INVALID", "UNSUPPORTED_ARGUMENT", "INSTANCE_REQUIRED",
            "INSTANCE_UNKNOWN", "REQUEST_KEY_REUSED"]
ASK_STATES = ["awaiting", "approved", "declined", "spent", "revoked"]
CONCURRENCIES = ["parallel", "single_flight", "once"]
ENUMS = {("g", "p"): PRINCIPALS, ("t", "p"): PRINCIPALS, ("g", "r"): REFUSALS, ("t", "o"): OUTCOMES,
         ("u", "o"): OUTCOMES, ("qd", "s"): ASK_STATES}


def rules_named(rules):
    """A policy row's action rules ({id: {"he", "cc"}}), each concurrency number as its name."""
    if not isinstance(rules, dict):
        return rules
    out = {}
    for action, rule in rules.items():
        if isinstance(rule, dict) and type(rule.get("cc")) is int and 0 <= rule["cc"] < len(CONCURRENCIES):
            rule = dict(rule, cc=CONCURRENCIES[rule["cc"]])
        out[action] = rule
    return out


def named_row(seq, version, kind, body, stored_hash):
    """One verified row as the page's kinds read it."""
    kind_text = kind.decode("utf-8", "replace")
    known = KINDS.get(kind_text)
    row = {"seq": seq, "version": version, "kind": known[0] if known else kind_text}
    try:
        stored = json.loads(body.decode("utf-8"), object_pairs_hook=dict)
    except ValueError:
        stored = None
    if not isinstance(stored, dict):
        row["body_text"] = body.decode("utf-8", "replace")
    elif known is None:
        row["body"] = stored
    else:
        named = {}
        for key, name in known[1]:
            if key in stored:
                value = stored[key]
                table = ENUMS.get((kind_text, key))
                if table is not None and type(value) is int and 0 <= value < len(table):
                    value = table[value]
                if kind_text == "pol" and key == "ac":
                    value = rules_named(value)
                if kind_text == "pol" and key == "was" and isinstance(value, dict) and "ac" in value:
                    value = dict(value, ac=rules_named(value["ac"]))
                named[name] = value
        listed = {key for key, _ in known[1]}
        for key, value in stored.items():
            if key not in listed:
                named[key] = value
        row["body"] = named
    row["hash"] = stored_hash.hex()
    return row


class Verdict:
    def __init__(self, ok=False, rows=0, head="", first_bad_row=0, problem="", keyed=False, key_id=""):
        self.ok, self.rows, self.head = ok, rows, head
        self.first_bad_row, self.problem = first_bad_row, problem
        self.keyed, self.key_id = keyed, key_id

    def as_dict(self):
        return {"ok": self.ok, "rows": self.rows, "head": self.head, "first_bad_row": self.first_bad_row,
                "problem": self.problem, "keyed": self.keyed, "key_id": self.key_id}


def unreadable(problem):
    return Verdict(problem=problem)


def is_corrupt(error):
    code = getattr(error, "sqlite_errorcode", None)
    if code is not None:
        return (code & 0xFF) == SQLITE_CORRUPT
    return "malformed" in str(error)


def genesis(session):
    return hashlib.sha256(b"groundplane-ledger/1\x00" + session).digest()


def key_id(key):
    return hmac.new(key, b"groundplane-key-id", hashlib.sha256).digest()[:KEY_ID_BYTES].hex()


def nesting(body):
    """How deep the body nests arrays and objects, counted on its bytes ("Limits")."""
    outside = STRING.sub(b"", body)
    quote = outside.find(b'"')
    if quote >= 0:  # a string left open runs to the end
        outside = outside[:quote]
    depth = deepest = 0
    for bracket in BRACKET.findall(outside):
        if bracket in b"[{":
            depth += 1
            deepest = max(deepest, depth)
        elif depth > 0:
            depth -= 1
    return deepest


def recorded_key(first_body):
    """("unkeyed", None), ("keyed", key id) or ("malformed", None): what row 1 says."""
    if not first_body.startswith(KEY_PREFIX):
        return "unkeyed", None
    rest = first_body[len(KEY_PREFIX):]
    if (len(rest) >= 19 and rest[0:1] == b'"' and HEX_DIGITS.fullmatch(rest[1:17])
            and rest[17:18] == b'"' and rest[18:19] in (b",", b"}")):
        return "keyed", rest[1:17].decode("ascii")
    return "malformed", None


def one_spaced(text):
    return b" ".join(text.split())


def foreign_objects(db):
    """The schema objects on the ledger's tables that groundplane did not create, named."""
    found = []
    for kind, name, table, sql in db.execute(
            "SELECT type, name, tbl_name, sql FROM sqlite_schema WHERE lower(name) IN ('groundplane_schema',"
            " 'groundplane_sessions', 'groundplane_rows') OR lower(tbl_name) IN ('groundplane_schema',"
            " 'groundplane_sessions', 'groundplane_rows') ORDER BY type, name"):
        kind, name, table = as_bytes(kind), as_bytes(name), as_bytes(table)
        if kind == b"table" and sql is not None and LEDGER_TABLES.get(name) == one_spaced(as_bytes(sql)):
            continue
        if kind == b"index" and name == SESSIONS_INDEX and sql is None:
            continue
        found.append("%s %r on %r" % (kind.decode("utf-8", "replace"), name, table))
    if not found:
        return ""
    return "the file holds schema objects on the ledger's tables that groundplane did not create: " + "; ".join(found)


def canonical_bytes(seq, version, kind, body):
    if not 1 <= len(kind) <= 255 or len(body) > 0xFFFFFFFF:
        raise ValueError("malformed kind or body")
    return (struct.pack(">QQB", seq, version, len(kind)) + kind
            + struct.pack(">I", len(body)) + body)


def as_bytes(value):
    if value is None:
        return b""
    if isinstance(value, bytes):
        return value
    return str(value).encode("utf-8")


class Chain:
    """The walk of docs/ledger-format.md, "Verifying a session"."""

    def __init__(self, session, head, key, foreign, on_row=None):
        self.prev = genesis(session)
        self.rows = 0
        self.bad = 0
        self.problem = ""
        self.head = head
        self.seen_head = False
        self.key = key
        self.key_id = key_id(key) if key else ""
        self.keyed = False
        self.recorded_id = ""
        self.unverifiable = False
        self.foreign = foreign
        self.on_row = on_row  # called with each row that verified

    def first_row(self, body):
        what, recorded = recorded_key(body)
        if what == "malformed":
            self.fail(1, "row 1's key id is malformed")
            return False
        if what == "unkeyed":
            if not self.key:
                return True
            self.fail(1, "row 1 starts an unkeyed chain, but a key (key id %s) was given" % self.key_id)
            return False
        self.keyed, self.recorded_id = True, recorded
        if not self.key:
            self.unverifiable = True
            return False
        if recorded == self.key_id:
            return True
        self.fail(1, "row 1 records key id %s, but the key given has key id %s" % (recorded, self.key_id))
        return False

    def feed(self, seq, version, kind, body, stored_hash):
        position = self.rows + 1
        if seq != position:
            self.fail(position, "row %d is missing" % position)
            return False
        if len(body) > MAX_BODY_BYTES:
            self.fail(position, "row %d's body is %d bytes, more than the format allows" % (position, len(body)))
            return False
        if nesting(body) > MAX_NESTING:
            self.fail(position, "row %d's body nests more than %d deep" % (position, MAX_NESTING))
            return False
        if position == 1 and not self.first_row(body):
            return False
        try:
            message = self.prev + canonical_bytes(seq, version, kind, body)
        except (ValueError, struct.error):
            self.fail(position, "row %d has a malformed kind or body" % position)
            return False
        if self.key:
            h = hmac.new(self.key, message, hashlib.sha256).digest()
        else:
            h = hashlib.sha256(message).digest()
        if h != stored_hash:
            self.fail(position, "row %d does not follow from the rows before it" % position)
            return False
        self.prev = stored_hash
        self.rows += 1
        if self.head is not None and stored_hash == self.head:
            self.seen_head = True
        if self.on_row is not None:
            self.on_row(seq, version, kind, body, stored_hash)
        return True

    def fail(self, row, problem):
        self.bad, self.problem = row, problem

    def verdict(self):
        head = self.prev.hex() if self.rows else ""
        keyed = dict(keyed=self.keyed, key_id=self.recorded_id)
        if self.unverifiable:
            return Verdict(False, self.rows, head, 0,
                           "the chain is keyed (key id %s): it is verified only with its key" % self.recorded_id,
                           **keyed)
        if self.bad:
            return Verdict(False, self.rows, head, self.bad, self.problem, **keyed)
        if self.foreign:
            return Verdict(False, self.rows, head, self.rows + 1, self.foreign, **keyed)
        if self.head is not None and not self.seen_head:
            return Verdict(False, self.rows, head, self.rows + 1,
                           "the published head is not the hash of any stored row", **keyed)
        return Verdict(True, self.rows, head, 0, "", **keyed)


def read_only(path):
    uri = "file:" + urllib.parse.quote(os.path.abspath(path)) + "?mode=ro"
    return sqlite3.connect(uri, uri=True)


def verify_file(path, session, head, key, on_row=None):
    if not os.path.isfile(path):
        return unreadable("%s cannot be read" % path)
    try:
        db = read_only(path)
        db.text_factory = bytes
        version = 0
        if db.execute("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?",
                      ("groundplane_schema",)).fetchone() is not None:
            for value, kind in db.execute("SELECT version, typeof(version) FROM groundplane_schema"):
                if kind != b"integer":
                    return unreadable("%s is not a ledger this release can read: its format version is stored as %s"
                                      % (path, kind.decode("ascii", "replace")))
                version = max(version, value)
        foreign = foreign_objects(db) if version else ""
    except sqlite3.DatabaseError as error:
        if is_corrupt(error):
            return Verdict(False, 0, "", 1, "%s is corrupt or torn: %s" % (path, error))
        return unreadable("%s is not a readable SQLite database: %s" % (path, error))
    if version == 0:
        return unreadable("%s is not a groundplane ledger" % path)
    if version > max(FORMAT_VERSIONS):
        return unreadable("%s was written by a newer groundplane (ledger format %d)" % (path, version))
    entries = db.execute("SELECT id, typeof(name) FROM groundplane_sessions WHERE CAST(name AS BLOB) = ?",
                         (session,)).fetchall()
    if len(entries) > 1:
        return Verdict(False, 0, "", 1, "session %r has %d entries in groundplane_sessions" % (session, len(entries)))
    if entries and entries[0][1] != b"text":
        return Verdict(False, 0, "", 1, "session %r is named by a %s" % (session, entries[0][1].decode("ascii")))
    if not entries:
        problem = "%s holds no session %r" % (path, session)
        if head is not None:
            return Verdict(False, 0, "", 1, problem + "; a head was published for it")
        return unreadable(problem)
    chain = Chain(session, head, key, foreign, on_row)
    cursor = db.execute(
        "SELECT CAST(seq AS INTEGER), CAST(version AS INTEGER), CAST(kind AS BLOB), CAST(body AS BLOB),"
        " CAST(hash AS BLOB) FROM groundplane_rows WHERE session = ? AND seq >= 0 ORDER BY seq", (entries[0][0],))
    try:
        while True:
            row = cursor.fetchone()
            if row is None:
                break
            seq, version, kind, body, stored_hash = row
            if not chain.feed(seq, version, as_bytes(kind), as_bytes(body), as_bytes(stored_hash)):
                break
    except sqlite3.DatabaseError as error:
        chain.fail(chain.rows + 1, "the file is corrupt or torn after row %d: %s" % (chain.rows, error))
    return chain.verdict()


def verify(path, session="default", head_hex="", key=b"", on_row=None):
    head = None
    if head_hex:
        try:
            head = bytes.fromhex(head_hex)
        except ValueError:
            head = b""
        if len(head) != 32 or len(head_hex) != 64:
            return unreadable("the published head is not a head hash (64 hexadecimal digits)")
    if key and len(key) < KEY_MIN_BYTES:
        return unreadable("the key is %d bytes; a key is at least %d bytes" % (len(key), KEY_MIN_BYTES))
    try:
        v = verify_file(path, session.encode("utf-8", "surrogateescape"), head, key, on_row)
    except Exception as error:  # never raises, as verify_sqlite_ledger never throws
        v = unreadable(str(error))
    if head is not None and not v.ok and v.first_bad_row == 0:
        v.first_bad_row = 1  # a published head vouches that the rows existed
        v.problem = "the published head cannot be reached: " + v.problem
    return v


def main(argv):
    parser = argparse.ArgumentParser(description="Verify a groundplane ledger file (SQLite).")
    parser.add_argument("file")
    parser.add_argument("--session", default="default")
    parser.add_argument("--head", default="")
    parser.add_argument("--key-file", help="the file holding a keyed chain's key (its exact bytes)")
    parser.add_argument("--json", action="store_true", help="print the verdict as one JSON object")
    parser.add_argument("--rows", action="store_true",
                        help="also print each row that verified, named as the format page reads it")
    args = parser.parse_args(argv)
    key = b""
    if args.key_file is not None:
        try:
            with open(args.key_file, "rb") as f:
                key = f.read()
        except OSError as error:
            parser.error("--key-file %s cannot be read: %s" % (args.key_file, error))
        if len(key) < KEY_MIN_BYTES:
            parser.error("--key-file %s holds %d bytes; a key is at least %d" % (args.key_file, len(key),
                                                                               KEY_MIN_BYTES))
    rows = []
    v = verify(args.file, args.session, args.head, key,
               (lambda *row: rows.append(named_row(*row))) if args.rows else None)
    for row in rows:
        print(json.dumps(row, ensure_ascii=False))
    if args.json:
        print(json.dumps(v.as_dict(), sort_keys=True))
    elif v.ok:
        print("intact: %d row(s), head %s%s" % (v.rows, v.head or "(none: no rows)",
                                                " (keyed, key id %s)" % v.key_id if v.keyed else ""))
    elif v.first_bad_row:
        print("NOT INTACT: first bad row %d: %s" % (v.first_bad_row, v.problem))
    else:
        print("cannot verify: " + v.problem, file=sys.stderr)
    return 0 if v.ok else (1 if v.first_bad_row else 2)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
