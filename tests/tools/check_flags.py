#!/usr/bin/env python3
"""Every flag a program's messages name is one it has.

usage: check_flags.py PROGRAM SOURCE...

The program's flags are the `--words` its `--help` prints (standard output and standard
error both: a program may print its usage to either). Every `--word` inside a string
literal of SOURCE (the program's own file, and the library headers whose error messages it
prints) must be one of them. A program that answers a mistyped option with "unknown
option" is also run with each flag alone, which it must not call unknown.
"""
import re
import subprocess
import sys

FLAG = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*")


def run(program, args):
    done = subprocess.run([program, *args], stdin=subprocess.DEVNULL, capture_output=True, timeout=60)
    return done.returncode, done.stdout.decode("utf-8", "replace") + done.stderr.decode("utf-8", "replace")


def string_literals(text):
    """The contents of every C++ string literal in `text`, comments and characters skipped."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            i = text.find("\n", i)
            i = n if i < 0 else i
        elif text.startswith("/*", i):
            i = text.find("*/", i + 2)
            i = n if i < 0 else i + 2
        elif c == "R" and i + 1 < n and text[i + 1] == '"' and not (i and (text[i - 1].isalnum() or text[i - 1] == "_")):
            open_paren = text.find("(", i + 2)
            delimiter = ")" + text[i + 2:open_paren] + '"'
            end = text.find(delimiter, open_paren + 1)
            out.append(text[open_paren + 1:end])
            i = end + len(delimiter)
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            if c == '"':
                out.append(text[i + 1:j])
            i = j + 1
        else:
            i += 1
    return out


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    program, sources = sys.argv[1], sys.argv[2:]
    _, help_text = run(program, ["--help"])
    flags = set(FLAG.findall(help_text)) | {"--help"}
    if len(flags) < 2:
        sys.exit(f"FAIL: {program} --help names no flag:\n{help_text}")
    problems = []
    named = 0
    for source in sources:
        with open(source, encoding="utf-8") as f:
            for literal in string_literals(f.read()):
                for flag in FLAG.findall(literal):
                    named += 1
                    if flag not in flags:
                        problems.append(f"{source}: a message names {flag}, which {program} does not have")
    _, mistyped = run(program, ["--no-such-flag-anywhere"])
    if "unknown option" in mistyped:
        for flag in sorted(flags):
            _, out = run(program, [flag])
            if "unknown option" in out:
                problems.append(f"{program} lists {flag} in --help but calls it an unknown option")
    print(f"{program}: {len(flags)} flags in --help; {named} flag names in the string literals of "
          f"{len(sources)} source file(s)")
    if problems:
        sys.exit("FAIL:\n  " + "\n  ".join(problems))


if __name__ == "__main__":
    main()
