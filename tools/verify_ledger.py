#!/usr/bin/env python3
"""Verify a groundplane ledger file (SQLite) with Python's standard library alone.

Written from docs/ledger-format.md and nothing else, as any reader in another language
would be: it re-derives one session's hash chain and names the first row that breaks it.
The test suite runs it beside the library's verify_sqlite_ledger on every fixture and
requires the two to agree.

    python3 tools/verify_ledger.py FILE [--session S] [--head HEX] [--key-file K] [--json]

A keyed chain is verified with its key, read from the file K (its exact bytes, at least
16): never from the command line.

Exit status as `groundplane-ledger verify`: 0 intact, 1 tampered or torn (or a head
given that the chain does not reach), 2 unreadable, not a ledger, a keyed chain without
its key, or bad usage.
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

    def __init__(self, session, head, key, foreign):
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


def verify_file(path, session, head, key):
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
    chain = Chain(session, head, key, foreign)
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


def verify(path, session="default", head_hex="", key=b""):
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
        v = verify_file(path, session.encode("utf-8", "surrogateescape"), head, key)
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
    v = verify(args.file, args.session, args.head, key)
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
