#!/usr/bin/env python3
# SPDX-License-Identifier: PostgreSQL
# schema-check.py - pgsc's JSON documents validated against schemas/ (JSON
# Schema draft 2020-12, python3-jsonschema).
#   schema-check.py SCHEMADIR [--expect N] [--list LIST] [FILE...]
# A FILE must be one pgsc document: a JSON object whose first member
# names its kind and format version ("pgsc_report": 1, "pgsc_status",
# "pgsc_diff", "pgsc_scan", "pgsc_candidates"); it is checked against
# SCHEMADIR/pgsc-KIND.schema.json.  LIST has a line per output to check,
# "MODE<TAB>LABEL<TAB>PATH": MODE "doc" is a FILE's rule; "any" skips an
# output that is empty, no JSON object, or names no kind (another
# format), and checks the rest.  --expect N fails when fewer than N
# documents were checked (a hook that checks nothing is a failure too).
# Without python3-jsonschema it fails (exit 2), never skips.
# Exit 0 all valid, 1 a document failed, 2 usage or missing module.
import json
import os
import sys

KINDS = ("report", "status", "diff", "scan", "candidates")

try:
    import jsonschema
except ImportError:
    print("schema-check: python3-jsonschema is not installed "
          "(tools/install-deps.sh installs it)", file=sys.stderr)
    sys.exit(2)


def load_schemas(d):
    out = {}
    for k in KINDS:
        path = os.path.join(d, "pgsc-%s.schema.json" % k)
        with open(path, encoding="utf-8") as f:
            s = json.load(f)
        jsonschema.Draft202012Validator.check_schema(s)
        out[k] = jsonschema.Draft202012Validator(s)
    return out


def check(schemas, mode, label, path, tally):
    """One output; returns a list of problems (empty: valid or skipped)."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except (OSError, UnicodeDecodeError) as e:
        return [] if mode == "any" else ["cannot read: %s" % e]
    if text.strip() == "":
        return [] if mode == "any" else ["empty output"]
    try:
        pairs = json.loads(text, object_pairs_hook=lambda p: p)
        doc = json.loads(text)
    except ValueError as e:
        return [] if mode == "any" else ["not JSON: %s" % e]
    kinds = [k for k in KINDS if isinstance(doc, dict) and "pgsc_" + k in doc]
    if not kinds:
        if mode == "any":
            return []
        return ["no pgsc_{%s} member: not a pgsc document" % ",".join(KINDS)]
    if len(kinds) > 1:
        return ["more than one kind: %s" % ", ".join(kinds)]
    kind = kinds[0]
    if not pairs or pairs[0][0] != "pgsc_" + kind:
        return ["\"pgsc_%s\" is not the first member" % kind]
    tally[kind] = tally.get(kind, 0) + 1
    errs = []
    for e in sorted(schemas[kind].iter_errors(doc), key=lambda e: list(e.absolute_path)):
        where = "/".join(str(p) for p in e.absolute_path) or "(top)"
        errs.append("pgsc-%s.schema.json: %s: %s" % (kind, where, e.message[:300]))
    return errs


def main(argv):
    if len(argv) < 2:
        print("usage: schema-check.py SCHEMADIR [--expect N] [--list LIST] "
              "[FILE...]", file=sys.stderr)
        return 2
    schemas = load_schemas(argv[1])
    todo = []
    expect = 0
    args = argv[2:]
    while args:
        a = args.pop(0)
        if a == "--expect" and args:
            expect = int(args.pop(0))
        elif a == "--list" and args:
            with open(args.pop(0), encoding="utf-8") as f:
                for line in f:
                    line = line.rstrip("\n")
                    if line:
                        mode, label, path = line.split("\t", 2)
                        todo.append((mode, label, path))
        else:
            todo.append(("doc", a, a))
    tally = {}
    failed = 0
    for mode, label, path in todo:
        errs = check(schemas, mode, label, path, tally)
        if errs:
            failed += 1
            print("FAIL: schema: %s:" % label)
            for e in errs[:20]:
                print("  " + e)
    n = sum(tally.values())
    print("schema-check: %d outputs checked, %d documents (%s), %d failed" %
          (len(todo), n, ", ".join("%s %d" % kv for kv in sorted(tally.items()))
           or "none", failed))
    if failed:
        return 1
    if n < expect:
        print("FAIL: schema: %d documents checked, at least %d expected" % (n, expect))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
