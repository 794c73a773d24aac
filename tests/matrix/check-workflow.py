#!/usr/bin/env python3
# SPDX-License-Identifier: PostgreSQL
"""tests/matrix/check-workflow.py WORKFLOW.yml MATRIX-SCRIPT

Structural check of a GitHub Actions workflow with the standard library
only: a parser for the block-style YAML subset workflows use (mappings,
sequences, literal "|" blocks, plain/quoted scalars, flow [..] and {..}
kept as text), then the checks:
  - top level: name, on, jobs; each job has runs-on and steps;
  - each step has exactly one of run/uses; uses is owner/repo@ref;
  - every run block passes "bash -n";
  - every steps.ID it references is a step id defined before it;
  - ${{ ... }} expressions are balanced;
  - every --option it passes to MATRIX-SCRIPT is in the script's --help;
  - it writes $GITHUB_STEP_SUMMARY and emits ::warning and ::error.
Exit 0 when all hold, 1 otherwise (each problem on stderr).
"""
import re
import subprocess
import sys


class YamlError(Exception):
    pass


def strip_comment(s):
    out, q = [], None
    for i, c in enumerate(s):
        if q:
            if c == q:
                q = None
        elif c in "'\"":
            q = c
        elif c == "#" and (i == 0 or s[i - 1] in " \t"):
            break
        out.append(c)
    return "".join(out).rstrip()


def scalar(v):
    v = v.strip()
    if len(v) >= 2 and v[0] == v[-1] and v[0] in "'\"":
        return v[1:-1]
    return v


def parse(text):
    lines = []
    for n, raw in enumerate(text.split("\n"), 1):
        if "\t" in raw[: len(raw) - len(raw.lstrip())]:
            raise YamlError(f"line {n}: tab in indentation")
        lines.append((n, raw))
    pos = [0]

    def next_content():
        while pos[0] < len(lines):
            n, raw = lines[pos[0]]
            s = strip_comment(raw)
            if s.strip():
                return n, len(s) - len(s.lstrip()), s.strip()
            pos[0] += 1
        return None

    def block_scalar(parent_indent):
        body, ind = [], None
        while pos[0] < len(lines):
            n, raw = lines[pos[0]]
            if raw.strip() == "":
                body.append("")
                pos[0] += 1
                continue
            i = len(raw) - len(raw.lstrip())
            if i <= parent_indent:
                break
            if ind is None:
                ind = i
            if i < ind:
                raise YamlError(f"line {n}: block scalar line less indented than its first line")
            body.append(raw[ind:])
            pos[0] += 1
        return "\n".join(body).rstrip("\n") + "\n"

    def value(rest, indent, n):
        if rest in ("|", "|-", ">", ">-"):
            return block_scalar(indent)
        if rest == "":
            nc = next_content()
            if nc is None or nc[1] < indent or (nc[1] == indent and not nc[2].startswith("- ")):
                return None
            return node(nc[1])
        if rest[0] in "[{" and rest[-1] not in "]}":
            raise YamlError(f"line {n}: unterminated flow collection")
        return scalar(rest)

    def node(indent):
        nc = next_content()
        n, i, s = nc
        if s.startswith("- ") or s == "-":
            seq = []
            while True:
                nc = next_content()
                if nc is None or nc[1] != indent or not (nc[2].startswith("- ") or nc[2] == "-"):
                    if nc is not None and nc[1] > indent:
                        raise YamlError(f"line {nc[0]}: unexpected indentation")
                    return seq
                n, i, s = nc
                item = s[1:].lstrip()
                if re.match(r"^[A-Za-z0-9_.-]+:( |$)", item):
                    # "- key: v" starts a mapping indented at the key
                    lines[pos[0]] = (n, " " * (indent + 2) + item)
                    seq.append(node(indent + 2))
                else:
                    pos[0] += 1
                    seq.append(value(item, indent, n))
        m = {}
        while True:
            nc = next_content()
            if nc is None or nc[1] < indent:
                return m
            n, i, s = nc
            if i > indent:
                raise YamlError(f"line {n}: unexpected indentation")
            mt = re.match(r"^(\"[^\"]+\"|'[^']+'|[^:]+?):(?: (.*)|$)", s)
            if not mt or s.startswith("- "):
                raise YamlError(f"line {n}: expected 'key: value', got {s!r}")
            k = scalar(mt.group(1))
            if k in m:
                raise YamlError(f"line {n}: duplicate key {k!r}")
            pos[0] += 1
            m[k] = value((mt.group(2) or "").strip(), indent, n)

    nc = next_content()
    if nc is None:
        raise YamlError("empty document")
    doc = node(nc[1])
    if next_content() is not None:
        raise YamlError(f"line {next_content()[0]}: text after the document")
    return doc


def strings(x):
    """Every scalar in a parsed node, keys included."""
    if isinstance(x, dict):
        for k, v in x.items():
            yield str(k)
            yield from strings(v)
    elif isinstance(x, list):
        for v in x:
            yield from strings(v)
    elif x is not None:
        yield str(x)


def main():

    if len(sys.argv) != 3:
        print("usage: check-workflow.py WORKFLOW.yml MATRIX-SCRIPT", file=sys.stderr)
        return 2
    path, script = sys.argv[1], sys.argv[2]
    text = open(path, encoding="utf-8").read()
    problems = []

    def bad(msg):
        problems.append(msg)

    try:
        doc = parse(text)
    except YamlError as e:
        print(f"{path}: {e}", file=sys.stderr)
        return 1
    if not isinstance(doc, dict):
        bad("the document is not a mapping")
        doc = {}
    for k in ("name", "on", "jobs"):
        if k not in doc:
            bad(f"no top-level '{k}'")
    jobs = doc.get("jobs") or {}
    if not isinstance(jobs, dict) or not jobs:
        bad("'jobs' is not a non-empty mapping")
        jobs = {}
    helptext = subprocess.run(["bash", script, "--help"], capture_output=True, text=True).stdout
    for jn, job in jobs.items():
        if not isinstance(job, dict):
            bad(f"job {jn} is not a mapping")
            continue
        if "runs-on" not in job:
            bad(f"job {jn} has no runs-on")
        steps = job.get("steps")
        if not isinstance(steps, list) or not steps:
            bad(f"job {jn} has no steps")
            continue
        ids = set()
        for si, st in enumerate(steps, 1):
            where = f"job {jn} step {si} ({st.get('name', '?') if isinstance(st, dict) else '?'})"
            if not isinstance(st, dict):
                bad(f"{where}: not a mapping")
                continue
            if ("run" in st) == ("uses" in st):
                bad(f"{where}: needs exactly one of run and uses")
            if "uses" in st and not re.match(r"^[\w.-]+/[\w./-]+@[\w.-]+$", st["uses"] or ""):
                bad(f"{where}: uses {st['uses']!r} is not owner/repo@ref")
            blob = "\n".join(strings(st))
            for ref in re.findall(r"steps\.([A-Za-z0-9_-]+)\.", blob):
                if ref not in ids:
                    bad(f"{where}: refers to steps.{ref}, not a step id before it")
            if blob.count("${{") != blob.count("}}"):
                bad(f"{where}: unbalanced ${{{{ }}}}")
            if "id" in st:
                ids.add(st["id"])
            run = st.get("run")
            if isinstance(run, str):
                r = subprocess.run(["bash", "-n"], input=run, capture_output=True, text=True)
                if r.returncode != 0:
                    bad(f"{where}: run block does not parse: {r.stderr.strip()}")
                if "glibc-matrix" in run:
                    for opt in sorted(set(re.findall(r"(--[a-z][a-z-]+)", run))):
                        if opt in ("--zstd", "--now", "--no-install-recommends") or opt.startswith("--bui"):
                            continue
                        if opt not in helptext:
                            bad(f"{where}: passes {opt}, which 'glibc-matrix --help' does not list")
            elif run is not None:
                bad(f"{where}: run is not a string")
    for needle in ("GITHUB_STEP_SUMMARY", "::warning", "::error", "tools/glibc-matrix"):
        if needle not in text:
            bad(f"the workflow never mentions {needle}")
    for p in problems:
        print(f"{path}: {p}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
