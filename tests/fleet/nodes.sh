#!/bin/bash
# SPDX-License-Identifier: PostgreSQL
# tests/fleet/nodes.sh - two hosts in one central log are two hosts
# (node-aware attribution, docs/fleet.md; no root, no audit state):
#
#   bash tests/fleet/nodes.sh BUILDDIR SRCDIR
#
# Two real recordings (tests/golden/raw.log and enriched.log, two runs of
# PostgreSQL 15 recorded on one machine) stand for two hosts.  Host b's
# pids are shifted (pid=, ppid= and a fork's exit= alike) so that its postmaster has host
# a's postmaster's pid and most of its processes share a pid with one of
# a's, as two real hosts' pids do.  The central log is both, each line
# prefixed with node=, merged by event time as a central auditd writes its
# clients' events.
#
# The independent side: each host's log imported on its own, without
# node= (the single-host path the golden tests check).  Asserts, for the
# central log imported and followed (--source file:, killed with SIGKILL
# once in the middle):
#   - pgsc-report --node a (b) gives host a's (b's) lists, per-syscall
#     counts and per-role counts exactly;
#   - without --node, the lists are the union of the hosts' lists, the
#     counts their sum, and the header names both nodes with their records;
#   - the JSON has a per-node section with each node's records and lists;
#   - pgsc-diff of the two nodes of one store equals pgsc-diff of the two
#     single-host stores;
#   - the live follow's serial gaps are the hosts' own (each recording
#     misses one serial): one serial sequence per node, and the gaps of
#     the run before the kill stay counted.  With one sequence for all
#     nodes the follow reported 6.
#
# ctest: fleet/nodes (tests/CMakeLists.txt).
# shellcheck source=../lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
t_init fleet-nodes

BUILD=$(cd "${1:?usage: nodes.sh BUILDDIR SRCDIR}" && pwd)
SRC=$(cd "${2:?usage: nodes.sh BUILDDIR SRCDIR}" && pwd)
COLLECT=$BUILD/pgsc-collect
REPORT=$BUILD/pgsc-report
DIFF=$BUILD/pgsc-diff
need_exec "$COLLECT" "$REPORT" "$DIFF"
need_progs python3 sqlite3

T=$T_WORK
COLL=
cleanup() {
	[ -n "$COLL" ] && kill -KILL "$COLL" 2>/dev/null
	wait 2>/dev/null
}
t_cleanup cleanup

zcat "$SRC/tests/golden/raw.log.gz" >"$T/a.log"
zcat "$SRC/tests/golden/enriched.log.gz" >"$T/b.orig.log"

# the postmasters: the parent of the processes whose exe is postgres and
# whose parent is not
pm() {
	python3 - "$1" <<'EOF'
import re, sys
ppid, exe = {}, {}
for line in open(sys.argv[1], errors="replace"):
    m = re.search(r" pid=(\d+)", line)
    if not m:
        continue
    p = int(m.group(1))
    m2 = re.search(r" ppid=(\d+)", line)
    if m2:
        ppid[p] = int(m2.group(1))
    m3 = re.search(r' exe="([^"]*)"', line)
    if m3:
        exe[p] = m3.group(1)
pg = {p for p, e in exe.items() if e.endswith("/bin/postgres")}
roots = sorted(p for p in pg if ppid.get(p) not in pg)
print(roots[0] if roots else "")
EOF
}
pa=$(pm "$T/a.log")
pb=$(pm "$T/b.orig.log")
[ -n "$pa" ] && [ -n "$pb" ] || fail "no postmaster found in the recordings ($pa/$pb)"
shift=$((pa - pb))
python3 - "$T/b.orig.log" "$T/b.log" "$shift" <<'EOF'
import re, sys
k = int(sys.argv[3])
with open(sys.argv[1], errors="surrogateescape") as f, open(sys.argv[2], "w", errors="surrogateescape") as out:
    for line in f:
        line = re.sub(r"( p?pid=)(\d+)", lambda m: m.group(1) + str(int(m.group(2)) + k), line)
        # a fork's child: the exit= of clone, fork, vfork and clone3 (x86_64)
        if "type=SYSCALL" in line and re.search(r" syscall=(56|57|58|435) success=yes", line):
            line = re.sub(r" exit=(\d+)", lambda m: " exit=" + str(int(m.group(1)) + k), line)
        out.write(line)
EOF
shared=$(comm -12 <(grep -o ' pid=[0-9]*' "$T/a.log" | sort -u) <(grep -o ' pid=[0-9]*' "$T/b.log" | sort -u) | wc -l)
ok "host a's postmaster $pa, host b's shifted by $shift: $shared pids on both hosts"
[ "$shared" -ge 20 ] || bad "only $shared pids collide: the test would not show a mix-up"

# the central log: node= prefixed, merged by event time (stable: an
# event's lines stay together and in order)
for n in a b; do
	awk -v n="$n" '{ t = $0; sub(/.*msg=audit\(/, "", t); sub(/:.*/, "", t); printf "%s\t%s\t%d\tnode=%s %s\n", t, n, NR, n, $0 }' "$T/$n.log"
done | sort -t "$(printf '\t')" -k1,1n -k2,2 -k3,3n -s | cut -f4- >"$T/central.log"
lines=$(wc -l <"$T/central.log")
ok "central log: $lines lines"

# the independent side
for n in a b; do
	"$COLLECT" --quiet --db "$T/$n.db" --import "$T/$n.log" || bad "import of host $n alone"
done
"$COLLECT" --quiet --db "$T/central.db" --import "$T/central.log" || bad "import of the central log"

# summary NAME: lists, per-syscall counts and roles, from --format json
summary() {
	python3 -c '
import json, sys
j = json.load(sys.stdin)
out = {"records": j["records"], "global": j["global"], "session": j["session"],
       "syscalls": sorted((s["name"], s["arch"], s["count"], sorted(s["roles"].items())) for s in j["syscalls"])}
print(json.dumps(out, sort_keys=True))'
}
check_node() {
	local db=$1 n=$2 what=$3
	"$REPORT" --db "$T/$n.db" --format json | summary >"$T/$n.want" || { bad "report of host $n alone"; return; }
	"$REPORT" --db "$db" --node "$n" --format json | summary >"$T/$n.got" ||
		{ bad "$what: pgsc-report --node $n failed"; return; }
	if cmp -s "$T/$n.want" "$T/$n.got"; then
		ok "$what: --node $n equals host $n alone ($(python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(j["records"], "records,", len(j["global"]), "global,", len(j["session"]), "session")' "$T/$n.want"))"
	else
		bad "$what: --node $n differs from host $n alone"
		diff <(tr ']' '\n' <"$T/$n.want") <(tr ']' '\n' <"$T/$n.got") | head -20
	fi
}
check_union() {
	local db=$1 what=$2 want got
	want=$(python3 - "$T/a.want" "$T/b.want" <<'EOF'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
print(json.dumps({"records": a["records"] + b["records"],
                  "global": sorted(set(a["global"]) | set(b["global"])),
                  "session": sorted(set(a["session"]) | set(b["session"]))}, sort_keys=True))
EOF
)
	got=$("$REPORT" --db "$db" --format json | python3 -c '
import json, sys
j = json.load(sys.stdin)
print(json.dumps({"records": j["records"], "global": sorted(j["global"]), "session": sorted(j["session"])}, sort_keys=True))')
	[ "$want" = "$got" ] && ok "$what: without --node, the union of both hosts" ||
		bad "$what: the fleet-wide lists are not the union: want $want got $got"
	"$REPORT" --db "$db" --format json | python3 -c '
import json, sys
from collections import Counter
want = Counter()
for f in sys.argv[1:3]:
    for name, arch, count, roles in json.load(open(f))["syscalls"]:
        for r, c in roles:
            want[(name, arch, r)] += c
got = Counter()
for s in json.load(sys.stdin)["syscalls"]:
    for r, c in s["roles"].items():
        got[(s["name"], s["arch"], r)] += c
bad = sorted(k for k in set(want) | set(got) if want[k] != got[k])
for k in bad[:10]:
    print("   ", k, "hosts", want[k], "fleet", got[k])
sys.exit(1 if bad else 0)
' "$T/a.want" "$T/b.want" && ok "$what: fleet-wide per-role counts are the hosts' sums" ||
		bad "$what: fleet-wide per-role counts are not the hosts' sums"
	"$REPORT" --db "$db" --format json | python3 -c '
import json, sys
j = json.load(sys.stdin)
nodes = j["nodes"]
assert sorted(nodes) == ["a", "b"], nodes
for n, want in (("a", sys.argv[1]), ("b", sys.argv[2])):
    w = json.load(open(want))
    assert nodes[n]["records"] == w["records"], (n, nodes[n]["records"], w["records"])
    assert nodes[n]["global"] == w["global"] and nodes[n]["session"] == w["session"], n
' "$T/a.want" "$T/b.want" && ok "$what: JSON per-node section" || bad "$what: JSON per-node section"
	"$REPORT" --db "$db" --format guc >"$T/guc.out" 2>&1
	na=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["records"])' "$T/a.want")
	nb=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["records"])' "$T/b.want")
	grep '^#' "$T/guc.out" | grep -q "a: $na" && grep '^#' "$T/guc.out" | grep -q "b: $nb" &&
		ok "$what: the GUC header names the nodes and their records" ||
		{ bad "$what: the GUC header does not name a: $na and b: $nb"; grep '^#' "$T/guc.out"; }
}

check_node "$T/central.db" a import
check_node "$T/central.db" b import
check_union "$T/central.db" import

# the same, followed live through a kill
: >"$T/live.log"
start() { t_follow "$T/live.db" "$T/live.log" "$T/collect.out" --commit-interval 0.2; }
start
half=$((lines / 2))
head -n "$half" "$T/central.log" >>"$T/live.log"
sleep 1
kill -KILL "$COLL"; wait "$COLL" 2>/dev/null
start
tail -n +"$((half + 1))" "$T/central.log" >>"$T/live.log"
for _ in $(seq 100); do
	n=$(sqlite3 -batch -noheader "$T/live.db" 'SELECT sum(records) FROM rounds' 2>/dev/null)
	[ "${n:-0}" -ge "$((na + nb))" ] && break
	sleep 0.2
done
kill -TERM "$COLL"; wait "$COLL" 2>/dev/null; COLL=
# each host's own serial gaps: the serials its log misses between its
# first and its last (auditd numbers its DAEMON_ records apart)
gaps_want=$(python3 - "$T/a.log" "$T/b.log" <<'EOF'
import re, sys
total = 0
for f in sys.argv[1:]:
    s = set()
    for line in open(f, errors="replace"):
        m = re.search(r"type=(\S+) msg=audit\(\d+\.\d+:(\d+)\)", line)
        if m and not m.group(1).startswith("DAEMON_"):
            s.add(int(m.group(2)))
    total += max(s) - min(s) + 1 - len(s)
print(total)
EOF
)
gaps_got=$(sqlite3 -batch -noheader "$T/live.db" 'SELECT sum(serial_gaps) FROM rounds' 2>/dev/null)
[ "$gaps_got" = "$gaps_want" ] && ok "live, killed once: $gaps_got serial gaps, the hosts' own" ||
	bad "live, killed once: $gaps_got serial gaps, the hosts' own are $gaps_want"
check_node "$T/live.db" a "live, killed once"
check_node "$T/live.db" b "live, killed once"
check_union "$T/live.db" "live, killed once"

# pgsc-diff: node against node in one store, as host against host
"$DIFF" --format json "$T/a.db" "$T/b.db" >"$T/diff.want" 2>&1
"$DIFF" --format json "$T/central.db" --node a "$T/central.db" --node b >"$T/diff.got" 2>&1 ||
	[ $? -eq 1 ] || bad "pgsc-diff --node failed: $(head -3 "$T/diff.got")"
python3 - "$T/diff.want" "$T/diff.got" <<'EOF' && ok "pgsc-diff of two nodes equals the diff of the two hosts" || bad "pgsc-diff of two nodes differs from the hosts' diff"
import json, sys
w, g = (json.load(open(f)) for f in sys.argv[1:3])
strip = lambda d: {k: v for k, v in d.items() if k not in ("a", "b")}
sys.exit(0 if strip(w) == strip(g) else 1)
EOF

t_done
