#!/usr/bin/env python3
"""Verify a groundplane ledger file (SQLite) with Python's standard library alone.

Written from docs/ledger-format.md and nothing else, as any reader in another language
would be: it re-derives one session's hash chain and names the first row that breaks it.
The test suite runs it beside the library's verify_sqlite_ledger on every fixture and
requires the two to agree.

    python3 tools/verify_ledger.py FILE [--session S] [--head HEX] [--json]

Exit status as `groundplane-ledger verify`: 0 intact, 1 tampered or torn (or a head
given that the chain does not reach), 2 unreadable, not a ledger, or bad usage.
"""

import argparse
import hashlib
import json
import os
import sqlite3
import struct
import sys
import urllib.parse

FORMAT_VERSIONS = (1, 2)  # the ledger format versions this verifier reads
SQLITE_CORRUPT = 11


class Verdict:
    def __init__(self, ok=False, rows=0, head="", first_bad_row=0, problem=""):
        self.ok, self.rows, self.head = ok, rows, head
        self.first_bad_row, self.problem = first_bad_row, problem

    def as_dict(self):
        return {"ok": self.ok, "rows": self.rows, "head": self.head,
                "first_bad_row": self.first_bad_row, "problem": self.problem}


def unreadable(problem):
    return Verdict(problem=problem)


def is_corrupt(error):
    code = getattr(error, "sqlite_errorcode", None)
    if code is not None:
        return (code & 0xFF) == SQLITE_CORRUPT
    return "malformed" in str(error)


def genesis(session):
    return hashlib.sha256(b"groundplane-ledger/1\x00" + session).digest()


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

    def __init__(self, session, head):
        self.prev = genesis(session)
        self.rows = 0
        self.bad = 0
        self.problem = ""
        self.head = head
        self.seen_head = False

    def feed(self, seq, version, kind, body, stored_hash):
        position = self.rows + 1
        if seq != position:
            self.fail(position, "row %d is missing" % position)
            return False
        try:
            h = hashlib.sha256(self.prev + canonical_bytes(seq, version, kind, body)).digest()
        except (ValueError, struct.error):
            self.fail(position, "row %d has a malformed kind or body" % position)
            return False
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
        if self.bad:
            return Verdict(False, self.rows, head, self.bad, self.problem)
        if self.head is not None and not self.seen_head:
            return Verdict(False, self.rows, head, self.rows + 1,
                           "the published head is not the hash of any stored row")
        return Verdict(True, self.rows, head, 0, "")


def read_only(path):
    uri = "file:" + urllib.parse.quote(os.path.abspath(path)) + "?mode=ro"
    return sqlite3.connect(uri, uri=True)


def verify_file(path, session, head):
    if not os.path.isfile(path):
        return unreadable("%s cannot be read" % path)
    try:
        db = read_only(path)
        db.text_factory = bytes
        if db.execute("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?",
                      ("groundplane_schema",)).fetchone() is None:
            version = 0
        else:
            version = db.execute("SELECT max(version) FROM groundplane_schema").fetchone()[0] or 0
    except sqlite3.DatabaseError as error:
        if is_corrupt(error):
            return Verdict(False, 0, "", 1, "%s is corrupt or torn: %s" % (path, error))
        return unreadable("%s is not a readable SQLite database: %s" % (path, error))
    if version == 0:
        return unreadable("%s is not a groundplane ledger" % path)
    if version > max(FORMAT_VERSIONS):
        return unreadable("%s was written by a newer groundplane (ledger format %d)" % (path, version))
    found = db.execute("SELECT id FROM groundplane_sessions WHERE CAST(name AS BLOB) = ?", (session,)).fetchone()
    if found is None:
        problem = "%s holds no session %r" % (path, session)
        if head is not None:
            return Verdict(False, 0, "", 1, problem + "; a head was published for it")
        return unreadable(problem)
    chain = Chain(session, head)
    cursor = db.execute(
        "SELECT CAST(seq AS INTEGER), CAST(version AS INTEGER), CAST(kind AS BLOB), CAST(body AS BLOB),"
        " CAST(hash AS BLOB) FROM groundplane_rows WHERE session = ? AND seq >= 0 ORDER BY seq", (found[0],))
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


def verify(path, session="default", head_hex=""):
    head = None
    if head_hex:
        try:
            head = bytes.fromhex(head_hex)
        except ValueError:
            head = b""
        if len(head) != 32 or len(head_hex) != 64:
            return unreadable("the published head is not a head hash (64 hexadecimal digits)")
    try:
        v = verify_file(path, session.encode("utf-8", "surrogateescape"), head)
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
    parser.add_argument("--json", action="store_true", help="print the verdict as one JSON object")
    args = parser.parse_args(argv)
    v = verify(args.file, args.session, args.head)
    if args.json:
        print(json.dumps(v.as_dict(), sort_keys=True))
    elif v.ok:
        print("intact: %d row(s), head %s" % (v.rows, v.head or "(none: no rows)"))
    elif v.first_bad_row:
        print("NOT INTACT: first bad row %d: %s" % (v.first_bad_row, v.problem))
    else:
        print("cannot verify: " + v.problem)
    return 0 if v.ok else (1 if v.first_bad_row else 2)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
