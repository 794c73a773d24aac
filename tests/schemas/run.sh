#!/bin/bash
# SPDX-License-Identifier: PostgreSQL
# run.sh - the JSON schemas of schemas/ really check: each is a valid draft
# 2020-12 schema, real documents of the golden raw log pass, and the same
# documents changed fail (a member the schema does not name, top-level and
# nested, a wrong or missing or misplaced format version, a missing
# member, a status time as epoch seconds); without python3-jsonschema the
# checker fails, never skips.
#   bash tests/schemas/run.sh BINDIR
# shellcheck source=../lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
t_script schemas "run.sh BINDIR" "$@"
need_exec "$BINDIR/pgsc-collect" "$BINDIR/pgsc-report" "$BINDIR/pgsc-diff"
t_init schemas
W=$T_WORK
SC=(python3 "$SRCROOT/tests/lib/schema-check.py" "$SRCROOT/schemas")

# real documents: a report (every optional member its options give), a
# fleet's report (nodes with their loss) and one node's, a status, a pgsc-diff, a --candidates view and a scan document (written
# here: pgsc-scan's own are checked by scan/tiny on a real scan)
zcat "$SRCROOT/tests/golden/raw.log.gz" >"$W/raw.log"
"$BINDIR/pgsc-collect" --db "$W/a.db" --label schemas --import "$W/raw.log" 2>/dev/null ||
	fail "pgsc-collect could not import the golden raw log"
R=("$BINDIR/pgsc-report" --db "$W/a.db")
"${R[@]}" --format json --explain --no-programs --per-type >"$W/report.json" || fail "report"
"${R[@]}" --format json --portable >"$W/portable.json" 2>/dev/null || fail "report --portable"
"${R[@]}" --status --format json >"$W/status.json"
"$BINDIR/pgsc-diff" --format json --equivalent "$W/report.json" "$W/portable.json" >"$W/diff.json" 2>/dev/null
cat >"$W/scan.json" <<'JSON'
{"pgsc_scan": 1, "arch": "x86_64", "server": "/usr/lib/postgresql/15/bin/postgres",
 "indirect": "address-taken", "phases": true,
 "stats": {"objects": 2, "modules": 0, "libraries": 1, "functions": 10, "reached": 8,
  "instructions": 100, "syscall_sites": 3, "unresolved_sites": 0, "unresolved_reached": 0,
  "indirect_sites": 1, "undecoded_bytes": 0, "unresolved_syscall_calls": 0, "candidates": 2},
 "objects": [{"path": "/usr/lib/postgresql/15/bin/postgres", "kind": "server", "functions": 9,
  "syscall_sites": 0, "unresolved_sites": 0}],
 "skipped": [],
 "candidates": [{"name": "read", "nr": 0, "phase": "both", "chain": ["libc.so.6:read", "postgres:main"]},
  {"name": "kexec_load", "nr": 246, "phase": "postmaster", "chain": ["libc.so.6:kexec_load"]}],
 "unresolved": []}
JSON
"${R[@]}" --candidates "$W/scan.json" --format json >"$W/candidates.json" ||
	fail "pgsc-report --candidates"
# a fleet's report: the same log as node h1's, with its nodes' loss
sed 's/^/node=h1 /' "$W/raw.log" >"$W/fleet.log"
"$BINDIR/pgsc-collect" --db "$W/f.db" --import "$W/fleet.log" 2>/dev/null ||
	fail "pgsc-collect could not import the golden raw log as node h1"
"$BINDIR/pgsc-report" --db "$W/f.db" --format json >"$W/fleet.json" ||
	fail "report of a fleet"
"$BINDIR/pgsc-report" --db "$W/f.db" --node h1 --format json \
	>"$W/fleetnode.json" || fail "report --node h1"
docs=(report portable status diff scan candidates fleet fleetnode)
for d in "${docs[@]}"; do
	"${SC[@]}" "$W/$d.json" >"$W/$d.out" 2>&1
	check "$d: the real document is valid" $?
done

# mutate NAME DOC PYTHON: DOC changed by PYTHON (d: the document as an
# ordered dict) must fail the check with exit 1, naming why (grep NAME's
# expected words, the 4th argument)
mutate() {
	local name=$1 doc=$2 py=$3 want=$4 rc=0
	python3 - "$W/$doc.json" "$W/m-$name.json" "$py" <<'PY' || fail "mutation $name did not apply"
import json, sys
d = json.load(open(sys.argv[1]))
exec(sys.argv[3])
json.dump(d, open(sys.argv[2], "w"), indent=1)
PY
	"${SC[@]}" "$W/m-$name.json" >"$W/m-$name.out" 2>&1 || rc=$?
	if [ $rc != 1 ]; then
		bad "$name: exit $rc, not 1 (the schema lets it through): $(head -c 300 "$W/m-$name.out")"
	elif ! grep -q -- "$want" "$W/m-$name.out"; then
		bad "$name: rejected, but not for \"$want\": $(head -c 300 "$W/m-$name.out")"
	else
		ok "$name: rejected ($want)"
	fi
}
for d in report status diff scan candidates; do
	mutate "$d-extra" "$d" 'd["surprise"] = 1' "'surprise' was unexpected"
	mutate "$d-version" "$d" 'd["pgsc_'"$d"'"] = 2' "1 was expected"
	mutate "$d-no-version" "$d" 'del d["pgsc_'"$d"'"]' "not a pgsc document"
	mutate "$d-version-last" "$d" 'v = d.pop("pgsc_'"$d"'"); d["pgsc_'"$d"'"] = v' "is not the first member"
done
mutate report-nested report 'd["syscalls"][0]["total"] = 1' "syscalls/0: Additional properties"
mutate report-explain report 'next(iter(d["explain"].values()))["why"] = ""' "explain/.*Additional properties"
mutate report-types report 'next(iter(d["types"].values())).pop("lacks")' "'lacks' is a required property"
mutate report-loss report 'd.pop("loss")' "'loss' is a required property"
mutate fleet-loss fleet 'd["nodes"]["h1"].pop("loss")' "'loss' is a required property"
mutate fleet-lost fleet 'd["nodes"]["h1"]["loss"]["kernel_lost"] = "x"' "kernel_lost"
mutate fleet-untracked fleet 'd["nodes"]["h1"]["loss"]["serials_untracked"] = -1' "serials_untracked"
mutate report-count report 'd["syscalls"][0]["count"] = -1' "syscalls/0/count"
mutate report-args report 'd["args"] = {"global": {"ioctl": 3}}' "args/global/ioctl"
mutate report-closed report 'd["surface"]["session"]["closed"] = ["CVE-2016-8655"]' "'reachable_after' is a dependency"
mutate report-after report 'd["surface"]["global"]["reachable_after"] = -1' "surface/global/reachable_after"
mutate report-baseline-closed report 'd["surface"]["baselines"]["docker"]["closed"] = []' "'reachable_after' is a dependency"
mutate report-baseline-after report 'd["surface"]["baselines"]["docker"]["reachable_after"] = 3' "'closed' is a dependency"
mutate report-mapped report 'd["mapped"] = {"global": {}, "session": {}}' "'target_arch' is a dependency"
mutate status-epoch status 'd["rounds"][0]["started"] = 1733449500.123' "rounds/0/started"
mutate status-nested status 'd["rounds"][0]["lag"] = 1' "rounds/0: Additional properties"
mutate diff-nested diff 'd["global"]["same"] = []' "global: Additional properties"
mutate scan-phase scan 'd["candidates"][0]["phase"] = "sometimes"' "candidates/0/phase"
mutate candidates-status candidates 'd["syscalls"][0]["status"] = "seen"' "syscalls/0"
# the optional args member (argument rules) in its shape is accepted
python3 -c 'import json, sys
d = json.load(open(sys.argv[1])); d["args"] = {"global": {"ioctl": "arg1 == 0x5401"}}
json.dump(d, open(sys.argv[2], "w"))' "$W/report.json" "$W/args.json"
"${SC[@]}" "$W/args.json" >"$W/args.out" 2>&1
check "report: an args member of {list: {syscall: rule}} is valid" $?

# a hook that checks nothing fails: --expect, an output that is no document
printf 'x = 1\n' >"$W/guc"
"${SC[@]}" --expect 1 --list <(printf 'any\tguc\t%s\n' "$W/guc") >"$W/expect.out" 2>&1
[ $? = 1 ] && grep -q 'at least 1 expected' "$W/expect.out"
check "--expect 1 with no document checked fails" $?
"${SC[@]}" "$W/guc" >"$W/nodoc.out" 2>&1
[ $? = 1 ] && grep -q 'not JSON' "$W/nodoc.out"
check "a file named as a document that is not JSON fails" $?

# without python3-jsonschema: exit 2, never a skip
mkdir -p "$W/nojs"
printf 'raise ImportError("hidden by tests/schemas/run.sh")\n' >"$W/nojs/jsonschema.py"
PYTHONPATH=$W/nojs "${SC[@]}" "$W/report.json" >"$W/nojs.out" 2>&1
[ $? = 2 ] && grep -q 'python3-jsonschema is not installed' "$W/nojs.out"
check "without python3-jsonschema the check fails (exit 2)" $?
t_done
