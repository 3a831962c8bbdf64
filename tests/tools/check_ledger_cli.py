#!/usr/bin/env python3
"""groundplane-ledger behaves like a command-line tool, and reads a ledger for a person.

usage: check_ledger_cli.py PROGRAM LEDGER VERSION_HPP

--help and --version print to standard output and exit 0; a mistyped option is one line
naming it, then a line pointing to --help, exit 2, nothing on standard output; options
read the same before or after the command and FILE. On LEDGER (a fixture, copied before
anything touches it): audit says every row as a sentence, every refusal with its reason
and every approval with who gave it and when; export names each kind and member as the
format does; show, export and audit of a tampered copy warn on their first line, print
what the rows say below it and exit 1; a session the file does not hold is named with
the ones it does.
"""
import datetime
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile

from cli_harness import expect, finish, run, usage_error


# docs/ledger-format.md, "Row kinds" and "Enum values as stored".
KIND_NAMES = {"init": "start", "m": "move", "ms": "actions_may_be_stale", "s": "report", "g": "refusal",
              "t": "transition", "u": "grade", "q": "ask", "qd": "decision", "sg": "standing_grant",
              "wo": "work_opened", "wc": "work_closed", "rs": "restart", "pol": "policy"}
MEMBER_NAMES = {
    "init": {"n": "node", "st": "state", "po": "policy", "_k": "key_id"},
    "m": {"n": "node", "f": "focus"},
    "ms": {"on": "on"},
    "s": {"dl": "delta"},
    "g": {"a": "action", "d": "does", "p": "principal", "pl": "payload", "k": "ask_id", "r": "reason",
          "pr": "prior_transition_id"},
    "t": {"a": "action", "d": "does", "p": "principal", "pl": "payload", "k": "ask_id", "sg": "standing_grant",
          "rp": "repeat", "o": "outcome", "w": "awaits_report"},
    "u": {"t": "transition", "o": "outcome", "e": "error", "rc": "once_receipt"},
    "q": {"a": "action", "d": "does", "in": "input"},
    "qd": {"q": "ask", "s": "state", "by": "by", "at": "approved_at", "rd": "approved_reads", "rb": "revoked_by",
           "sb": "spent_by"},
    "sg": {"a": "action", "on": "active", "by": "by", "d": "does"},
    "wo": {"l": "label", "t": "transition_id"},
    "wc": {"w": "work"},
    "rs": {"t": "stopped_fires", "w": "closed_work"},
    "pol": {"po": "policy", "ac": "actions", "was": "was", "why": "reason"},
}
PRINCIPALS = ["agent", "user", "system"]
OUTCOMES = ["pending", "observed", "not_observed", "unobservable", "handler_failed", "not_materialized",
            "verify_failed", "inferred"]
REFUSALS = ["UNKNOWN_AFFORDANCE", "NOT_MATERIALIZED", "TOOL_DISABLED", "GUARD_FAILED", "PRIOR_FIRE_PENDING",
            "DUPLICATE_EXECUTION", "APPROVAL_REQUIRED", "APPROVAL_DECLINED", "APPROVAL_SPENT", "APPROVAL_REVOKED",
            "APPROVAL_MISMATCH", "APPROVAL_STALE"]
ASK_STATES = ["awaiting", "approved", "declined", "spent", "revoked"]


def stored_rows(path, session):
    """(seq, version, kind, body, hash hex) of each row of `session`, oldest first."""
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return [(seq, version, kind, json.loads(body), bytes(h).hex()) for seq, version, kind, body, h in db.execute(
            "SELECT seq, version, kind, body, hash FROM groundplane_rows r JOIN groundplane_sessions s"
            " ON r.session = s.id WHERE s.name = ? ORDER BY seq", (session,))]
    finally:
        db.close()


def utc(micros):
    at = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc) + datetime.timedelta(microseconds=micros)
    return at.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def check_command_line(program, ledger, version):
    rc, usage, err = run(program, ["--help"])
    expect("--help: usage on stdout, exit 0, nothing on stderr",
           rc == 0 and usage.startswith("usage: groundplane-ledger") and err == "", f"exit {rc}\nstderr: {err!r}")
    for command in ("verify", "show", "export", "audit"):
        expect(f"--help names the {command} command", f"groundplane-ledger {command}" in usage, usage)
    rc, out, _ = run(program, ["-h"])
    expect("-h prints the same usage", rc == 0 and out == usage)
    rc, out, _ = run(program, ["audit", ledger, "--help"])
    expect("--help after the command and FILE still prints the usage", rc == 0 and out == usage)
    rc, out, err = run(program, ["--version"])
    expect(f"--version: 'groundplane-ledger {version}' on stdout, exit 0",
           rc == 0 and out == f"groundplane-ledger {version}\n" and err == "", out + err)

    usage_error(program, ["--sesion", "shop"], "unknown option '--sesion'")
    usage_error(program, ["show", ledger, "--sesion", "shop"], "unknown option '--sesion'")
    usage_error(program, ["audit", ledger, "-x"], "unknown option '-x'")
    usage_error(program, ["frobnicate", ledger], "unknown command 'frobnicate' (verify, show, export or audit)")
    usage_error(program, [], "no command given (verify, show, export or audit)")
    usage_error(program, ["show"], "show needs a FILE")
    usage_error(program, ["show", ledger, "extra"],
                "unexpected argument 'extra': one command and one FILE are read")
    usage_error(program, ["show", ledger, "--session"], "--session needs a value")
    usage_error(program, ["export", ledger, "--head", "00"], "--head is read by verify only")
    usage_error(program, ["show", ledger, "--help=yes"], "--help takes no value")
    usage_error(program, ["verify", ledger, "--head", "00", "--head", "11"], "--head is given twice")
    usage_error(program, ["audit", ledger, "--session", "shop", "--session=bob"], "--session is given twice")
    usage_error(program, ["show", ledger, "--", "--session"],
                "unexpected argument '--session': one command and one FILE are read")

    # `--` ends the options: a FILE that starts with a dash is read as a FILE.
    dashed = os.path.join(os.path.dirname(ledger), "-dashed.ledger")
    shutil.copyfile(ledger, dashed)
    rc, out, err = run(program, ["audit", "--session", "shop", "--", dashed.replace(os.path.dirname(ledger) + "/", "")],
                       cwd=os.path.dirname(ledger))
    expect("after --, an argument that starts with a dash is the FILE", rc == 0 and out.startswith("#1 v0"),
           f"exit {rc}\nstdout: {out[:300]!r}\nstderr: {err[:300]!r}")

    outputs = [run(program, args) for args in (["audit", ledger, "--session", "bob"],
                                               ["--session", "bob", "audit", ledger],
                                               ["audit", "--session=bob", ledger])]
    expect("--session reads the same before the command, between it and FILE, and after FILE",
           all(o == outputs[0] for o in outputs) and outputs[0][0] == 0 and "inbox" in outputs[0][1],
           "\n".join(repr(o)[:300] for o in outputs))


def check_audit(program, ledger):
    rows = stored_rows(ledger, "shop")
    rc, out, err = run(program, ["audit", ledger, "--session", "shop"])
    lines = out.splitlines()
    expect("audit of an intact session: exit 0, one line per row, oldest first, nothing on stderr",
           rc == 0 and err == "" and len(lines) == len(rows) and len(rows) > 10
           and all(line.startswith(f"#{seq} v{version}") for line, (seq, version, *_) in zip(lines, rows)),
           f"exit {rc}, {len(lines)} lines for {len(rows)} rows\nstderr: {err[:300]}\n{out[:600]}")
    if len(lines) != len(rows):
        return
    refusals = approvals = 0
    for line, (seq, _, kind, body, _) in zip(lines, rows):
        if kind == "g":
            refusals += 1
            reason = REFUSALS[body["r"]]
            who = PRINCIPALS[body.get("p", 0)]
            expect(f"audit row {seq}: the refusal, who made it and its reason ({who}, {reason})",
                   "REFUSED" in line and f"the {who} fired" in line and reason in line, line)
        elif kind == "qd" and body["s"] == ASK_STATES.index("approved"):
            approvals += 1
            ask = f"ask-{body['q'] + 1}"
            expect(f"audit row {seq}: who approved {ask}, and when",
                   f"'{body['by']}' approved {ask}" in line and utc(body["at"]) in line, line)
        elif kind == "qd" and body["s"] == ASK_STATES.index("declined"):
            expect(f"audit row {seq}: who declined the ask", f"'{body['by']}' declined ask-{body['q'] + 1}" in line,
                   line)
        elif kind == "t" and body.get("p", 0) != 0 and body.get("o", 0) != OUTCOMES.index("inferred"):
            expect(f"audit row {seq}: a fire names who fired it", f"the {PRINCIPALS[body['p']]} fired" in line, line)
    expect("the fixture holds refusals and approvals for the audit to say", refusals > 5 and approvals > 2,
           f"{refusals} refusals, {approvals} approvals")
    outcome_line = lines[[r[2] for r in rows].index("u")]
    expect("audit names an outcome by its name", any(o in outcome_line for o in OUTCOMES[1:]), outcome_line)


def check_export(program, ledger):
    rows = stored_rows(ledger, "shop")
    rc, out, err = run(program, ["export", ledger, "--session", "shop"])
    lines = [json.loads(line) for line in out.splitlines()]
    expect("export of an intact session: exit 0, one JSON object per row", rc == 0 and len(lines) == len(rows),
           f"exit {rc}\n{err[:300]}")
    if len(lines) != len(rows):
        return
    for line, (seq, version, kind, body, hash_hex) in zip(lines, rows):
        names = MEMBER_NAMES[kind]
        want = {names[k] for k in body}
        ok = (list(line) == ["seq", "version", "kind", "body", "hash"] and line["seq"] == seq
              and line["version"] == version and line["hash"] == hash_hex and line["kind"] == KIND_NAMES[kind]
              and set(line["body"]) == want)
        if ok:  # every value as stored, but an enum's number given as its name
            for key, value in body.items():
                got = line["body"][names[key]]
                if key == "p" and kind in ("g", "t"):
                    value = PRINCIPALS[value]
                elif key == "r" and kind == "g":
                    value = REFUSALS[value]
                elif key == "o" and kind in ("t", "u"):
                    value = OUTCOMES[value]
                elif key == "s" and kind == "qd":
                    value = ASK_STATES[value]
                ok = ok and got == value
        expect(f"export row {seq}: kind {KIND_NAMES[kind]!r} and its members by name "
               f"({', '.join(sorted(want))}), seq, version and hash as stored", ok, json.dumps(line)[:400])


def check_tampered(program, ledger, tmp):
    tampered = os.path.join(tmp, "tampered.ledger")
    shutil.copyfile(ledger, tampered)
    rows = stored_rows(tampered, "shop")
    seq = next(seq for seq, _, kind, body, _ in rows if kind == "qd" and body.get("by") == "ana")
    db = sqlite3.connect(tampered)
    db.execute("UPDATE groundplane_rows SET body = replace(body, '\"ana\"', '\"mallory\"')"
               " WHERE seq = ? AND session = (SELECT id FROM groundplane_sessions WHERE name = 'shop')", (seq,))
    db.commit()
    db.close()
    warning = f"WARNING: this ledger does not verify from row {seq} on: "

    rc, out, err = run(program, ["show", tampered, "--session", "shop"])
    lines = out.splitlines()
    expect("show of a tampered session: exit 1, the warning on the first line, the block below it",
           rc == 1 and lines and lines[0].startswith(warning)
           and lines[0].endswith("; what follows is read from unverified rows")
           and any(line.startswith("FACTS FROM THE APP") for line in lines[1:]), f"exit {rc}\n{out[:600]}\n{err[:300]}")
    rc, out, _ = run(program, ["audit", tampered, "--session", "shop"])
    lines = out.splitlines()
    expect("audit of a tampered session: exit 1, the warning first, then every row as read (the edit shows)",
           rc == 1 and lines and lines[0].startswith(warning) and len(lines) == len(rows) + 1
           and "'mallory' approved" in lines[seq], f"exit {rc}\n{out[:600]}")
    rc, out, _ = run(program, ["export", tampered, "--session", "shop"])
    lines = out.splitlines()
    first = json.loads(lines[0]) if lines else {}
    expect("export of a tampered session: exit 1, a JSON warning first, then every row",
           rc == 1 and list(first) == ["warning"] and first["warning"].startswith(warning[len("WARNING: "):])
           and len(lines) == len(rows) + 1 and json.loads(lines[seq])["body"]["by"] == "mallory", f"exit {rc}\n{out[:600]}")
    rc, out, _ = run(program, ["show", ledger, "--session", "shop"])
    expect("show of the untouched copy: exit 0, no warning", rc == 0 and "WARNING" not in out, out[:300])


def check_missing_session(program, ledger):
    for command in ("verify", "show", "export", "audit"):
        rc, out, err = run(program, [command, ledger, "--session", "nobody"])
        expect(f"{command} --session nobody: exit 2, nothing on stdout, the session named and the file's listed",
               rc == 2 and out == "" and 'holds no session "nobody"' in err and "(it holds: bob, shop)" in err,
               f"exit {rc}\nstdout: {out[:300]!r}\nstderr: {err[:300]!r}")
    # Without --session, a file of several sessions is asked for "default", which it lacks.
    for command in ("verify", "show", "export", "audit"):
        rc, out, err = run(program, [command, ledger])
        expect(f"{command} without --session on a file of two sessions: exit 2, the sessions it holds named",
               rc == 2 and out == "" and 'holds no session "default" (it holds: bob, shop)' in err,
               f"exit {rc}\nstdout: {out[:300]!r}\nstderr: {err[:300]!r}")


def check_one_session(program, ledger, tmp):
    """A file holding exactly one session is read without --session."""
    single = os.path.join(tmp, "single.ledger")
    shutil.copyfile(ledger, single)
    db = sqlite3.connect(single)
    db.execute("DELETE FROM groundplane_rows WHERE session = (SELECT id FROM groundplane_sessions WHERE name = 'bob')")
    db.execute("DELETE FROM groundplane_sessions WHERE name = 'bob'")
    db.commit()
    db.close()
    rows = stored_rows(single, "shop")
    rc, out, err = run(program, ["verify", single])
    expect("verify without --session on a file of one session verifies that session",
           rc == 0 and out.startswith('intact: session "shop"') and f"{len(rows)} row(s)" in out and err == "",
           f"exit {rc}\nstdout: {out[:300]!r}\nstderr: {err[:300]!r}")
    for command in ("show", "export", "audit"):
        rc, out, err = run(program, [command, single])
        named = run(program, [command, single, "--session", "shop"])
        expect(f"{command} without --session on a file of one session reads it, as --session shop does",
               rc == 0 and err == "" and (rc, out, err) == named and out,
               f"exit {rc}\nstdout: {out[:300]!r}\nstderr: {err[:300]!r}")


def check_errors_on_stderr(program, tmp):
    """Whatever stops a command before it has a verdict goes to standard error, never to standard output."""
    not_a_ledger = os.path.join(tmp, "not-a-ledger.txt")
    with open(not_a_ledger, "w") as f:
        f.write("hello\n")
    for command in ("verify", "show", "export", "audit"):
        for path in (not_a_ledger, os.path.join(tmp, "missing.ledger")):
            rc, out, err = run(program, [command, path])
            expect(f"{command} of {os.path.basename(path)}: exit 2, nothing on stdout, the reason on stderr",
                   rc == 2 and out == "" and err.startswith("groundplane-ledger: "),
                   f"exit {rc}\nstdout: {out[:300]!r}\nstderr: {err[:300]!r}")


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    program, fixture, version_hpp = sys.argv[1:]
    with open(version_hpp, encoding="utf-8") as f:
        version = re.search(r'version_string = "([^"]+)"', f.read()).group(1)
    with tempfile.TemporaryDirectory() as tmp:
        ledger = os.path.join(tmp, "fixture.ledger")
        shutil.copyfile(fixture, ledger)
        check_command_line(program, ledger, version)
        check_audit(program, ledger)
        check_export(program, ledger)
        check_tampered(program, ledger, tmp)
        check_missing_session(program, ledger)
        check_one_session(program, ledger, tmp)
        check_errors_on_stderr(program, tmp)
    finish()


if __name__ == "__main__":
    main()
