"""What the command-line checks share: running a program, recording each expectation,
and the shape every usage error has (one line naming the mistake, one pointing to
--help, exit 2, nothing on standard output)."""
import os
import subprocess
import sys

failures = []


def run(program, args, stdin=b"", cwd=None):
    """(exit code, stdout, stderr) of `program args`, fed `stdin`, run in `cwd`."""
    done = subprocess.run([program, *args], input=stdin, capture_output=True, timeout=60, cwd=cwd)
    return done.returncode, done.stdout.decode("utf-8", "replace"), done.stderr.decode("utf-8", "replace")


def expect(what, ok, detail=""):
    print(("ok    " if ok else "FAIL  ") + what)
    if not ok:
        failures.append(what + ("\n      " + detail.replace("\n", "\n      ") if detail else ""))


def usage_error(program, args, first_line):
    rc, out, err = run(program, args)
    lines = err.splitlines()
    name = os.path.basename(program)
    expect(f"{' '.join(args)!r}: exit 2, nothing on stdout, '{first_line}' and a pointer to --help",
           rc == 2 and out == "" and len(lines) == 2 and lines[0] == f"{name}: {first_line}"
           and "--help" in lines[1], f"exit {rc}\nstdout: {out[:300]!r}\nstderr: {err[:300]!r}")


def finish():
    """Exit 1 listing every failed expectation, else 0."""
    if failures:
        sys.exit("FAIL:\n  " + "\n  ".join(failures))
