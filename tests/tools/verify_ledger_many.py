"""Runs tools/verify_ledger.py's verify() on many ledger files in one process.

test_ledger_format compares every verdict verify_sqlite_ledger gives with this reader's;
starting Python once per file made those comparisons the suite's slowest tests.

    verify_ledger_many.py TOOLS_DIR REQUESTS_JSON

REQUESTS_JSON is an array of {"file", "session", "head", "key_hex"}; one line is printed
per request, in order: the verdict as `verify_ledger.py --json` prints it.
"""
import json
import sys


def main(argv):
    tools_dir, requests_path = argv
    sys.path.insert(0, tools_dir)
    import verify_ledger  # the reader under test, written from docs/ledger-format.md

    with open(requests_path, encoding="utf-8") as f:
        requests = json.load(f)
    for r in requests:
        v = verify_ledger.verify(r["file"], r["session"], r["head"], bytes.fromhex(r["key_hex"]))
        print(json.dumps(v.as_dict(), sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
