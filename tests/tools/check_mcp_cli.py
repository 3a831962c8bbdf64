#!/usr/bin/env python3
"""groundplane-mcp behaves like a command-line tool.

usage: check_mcp_cli.py PROGRAM

--help and --version print to standard output and exit 0; a mistyped option or a stray
argument is one line naming it, then a line pointing to --help, exit 2, nothing on
standard output; an option reads the same before or after another and as --name=value.
"""
import json
import os
import subprocess
import sys
import tempfile

from cli_harness import expect, finish, run, usage_error


def list_facts_pages(program, args):
    """The nextCursor of the first list_facts page when serving with `args` over stdio."""
    requests = [{"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                 "params": {"name": "list_facts", "arguments": {}}}]
    rc, out, err = run(program, args, "".join(json.dumps(r) + "\n" for r in requests).encode())
    if rc != 0 or not out:
        return f"exit {rc}: {err[:300]}"
    return json.loads(out.splitlines()[0])["result"]["structuredContent"].get("nextCursor")


def main():
    program = sys.argv[1]
    rc, usage, err = run(program, ["--help"])
    expect("--help: usage on stdout, exit 0, nothing on stderr",
           rc == 0 and usage.startswith("usage: groundplane-mcp") and err == "", f"exit {rc}\nstderr: {err!r}")
    rc, out, err = run(program, ["--version"])
    expect("--version: 'groundplane-mcp <version>' on stdout, exit 0",
           rc == 0 and out.startswith("groundplane-mcp ") and out.count("\n") == 1 and err == "", out + err)
    rc, out, _ = run(program, ["--verbose", "--help"])
    expect("--help after another option still prints the usage", rc == 0 and out == usage)

    usage_error(program, ["--sesion"], "unknown option '--sesion'")
    usage_error(program, ["--verbose", "--http-public"], "unknown option '--http-public'")
    usage_error(program, ["-x"], "unknown option '-x'")
    usage_error(program, ["extra"], "unexpected argument 'extra': groundplane-mcp takes options only")
    usage_error(program, ["--page-size"], "--page-size needs a value")
    usage_error(program, ["--page-size", "0"], "--page-size needs a positive number, got '0'")
    usage_error(program, ["--session=yes"], "--session takes no value")
    usage_error(program, ["--page-size", "2", "--page-size=3"], "--page-size is given twice")
    usage_error(program, ["--verbose", "--verbose"], "--verbose is given twice")
    usage_error(program, ["--", "--verbose"], "unexpected argument '--verbose': groundplane-mcp takes options only")

    with tempfile.TemporaryDirectory() as tmp:
        facts = os.path.join(tmp, "facts.json")
        with open(facts, "w") as f:
            json.dump({"a": {"kind": "fact", "value": 1, "tool": "t"},
                       "b": {"kind": "fact", "value": 2, "tool": "t"}}, f)
        orders = [["--facts", facts, "--page-size", "1", "--verbose"],
                  ["--verbose", "--page-size", "1", "--facts", facts],
                  ["--page-size=1", "--facts=" + facts],
                  ["--page-size=1", "--facts=" + facts, "--allow-origin", "http://a.example",
                   "--allow-origin", "http://b.example"]]
        for args in orders:
            got = list_facts_pages(program, args)
            expect(f"{' '.join(a if a != facts else 'FILE' for a in args)}: every option took effect (one fact a page)",
                   got == "facts:1", str(got))

    finish()


if __name__ == "__main__":
    main()
