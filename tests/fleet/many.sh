#!/bin/bash
# SPDX-License-Identifier: PostgreSQL
# tests/fleet/many.sh - a central log of 10,000 nodes (docs/fleet.md): every
# report of it is linear in the store, and every node is its own.
#
#   bash tests/fleet/many.sh BUILDDIR SRCDIR [NODES]
#
# The log is tests/fleet/many-nodes.awk's: each node a postmaster and a
# child with 2 to 5 SECCOMP records.  No root, no audit state.
#
# The independent side: the generator's own tallies of each node's
# records (many-nodes.awk -v TALLY=), the log itself, read by python3, the
# numbers named by ausyscall (audit's own table, not libseccomp's), and a
# few nodes' lines imported on their own without node= (the single-host
# path the golden tests check).  Asserts:
#   - the JSON has every node, each with the records the generator made
#     for it (all attributed), a session list that is the names of its pid
#     1001's records, and a global list that holds the names of all its
#     records;
#   - the GUC and table headers name every node with those records;
#   - five nodes' JSON lists (first, last, and three inside) equal the
#     lists of the same node's lines imported into a store of its own;
#   - --status counts as new in the round exactly the distinct numbers of
#     the log (server) and of pid 1001's records (session);
#   - --node NAME of those five: its header's records are the generator's;
#   - the GUC global list holds every name of the log;
#   - --format=html, systemd, oci, spo, effective and --check-complete
#     end well.
# Before the reports read the store in one pass, the JSON of 10,000 nodes
# took many minutes (one scan of the aggregates per node) and --status
# and the HTML page as long (a subquery per aggregate row): the ctest
# TIMEOUT is what catches such a return; nothing here is timed.
#
# ctest: fleet/many (tests/CMakeLists.txt).
# shellcheck source=../lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
t_init fleet-many

BUILD=$(cd "${1:?usage: many.sh BUILDDIR SRCDIR [NODES]}" && pwd)
N=${3:-10000}
COLLECT=$BUILD/pgsc-collect
REPORT=$BUILD/pgsc-report
need_exec "$COLLECT" "$REPORT"
need_progs python3 ausyscall
T=$T_WORK

# the central log: node=nNNNNNN prefixes, records in node order
awk -v N="$N" -v TALLY="$T/tally" \
	-f "$(dirname "${BASH_SOURCE[0]}")/many-nodes.awk" >"$T/central.log"

"$COLLECT" --db "$T/s.db" --import "$T/central.log" >"$T/import.out" 2>&1 ||
	{ cat "$T/import.out" >&2; fail "the import of $N nodes failed"; }
"$REPORT" --db "$T/s.db" --format=json >"$T/all.json" 2>"$T/json.err" ||
	{ cat "$T/json.err" >&2; fail "pgsc-report --format=json failed"; }
# --status exits 1: one round is not convergence
"$REPORT" --db "$T/s.db" --status --format=json >"$T/status.json" \
	2>"$T/status.err"
rc=$?
[ "$rc" = 1 ] || { cat "$T/status.err" >&2; fail "--status exited $rc, not 1"; }
ausyscall x86_64 --dump >"$T/names" || fail "ausyscall --dump failed"
for f in guc table html systemd oci spo effective; do
	"$REPORT" --db "$T/s.db" --format=$f >"$T/all.$f" 2>"$T/$f.err" ||
		{ cat "$T/$f.err" >&2; fail "pgsc-report --format=$f failed"; }
	[ -s "$T/all.$f" ] || fail "pgsc-report --format=$f printed nothing"
done

# five nodes, each alone in a store of its own, its lines without node=
picks=(1 "$N" $((N / 2)) $((N / 3)) $((N * 2 / 3 + 1)))
for p in "${picks[@]}"; do
	name=$(printf 'n%06d' "$p")
	grep "^node=$name " "$T/central.log" | sed 's/^node=[^ ]* //' \
		>"$T/$name.log"
	"$COLLECT" --db "$T/$name.db" --import "$T/$name.log" \
		>"$T/$name.out" 2>&1 || fail "the import of $name alone failed"
	"$REPORT" --db "$T/$name.db" --format=json >"$T/$name.json" \
		2>/dev/null || fail "pgsc-report of $name alone failed"
	"$REPORT" --db "$T/s.db" --node "$name" >"$T/$name.node.guc" \
		2>/dev/null || fail "pgsc-report --node $name failed"
done

python3 - "$T" "$N" "${picks[@]}" <<'EOF' || fail "the reports of $N nodes are wrong (above)"
import json, re, sys
t, n = sys.argv[1], int(sys.argv[2])
picks = [int(x) for x in sys.argv[3:]]
names = {}
for line in open(t + "/names"):
    f = line.split()
    if len(f) == 2 and f[0].isdigit():
        names[int(f[0])] = f[1]
tally = {}   # node -> records, as the generator made them
for line in open(t + "/tally"):
    f = line.split()
    tally[f[0]] = int(f[1])
rec = {}     # node -> {"all": set, "s": set}
allnr, sessnr = set(), set()
for line in open(t + "/central.log"):
    if " type=SECCOMP " not in line:
        continue
    node = line.split()[0][5:]
    pid = int(re.search(r" pid=(\d+)", line).group(1))
    nr = int(re.search(r" syscall=(\d+)", line).group(1))
    r = rec.setdefault(node, {"all": set(), "s": set()})
    r["all"].add(names[nr])
    allnr.add(nr)
    if pid == 1001:
        r["s"].add(names[nr])
        sessnr.add(nr)
doc = json.load(open(t + "/all.json"))
bad = []
nodes = doc.get("nodes", {})
if len(nodes) != n or len(rec) != n or len(tally) != n:
    bad.append("%d nodes in the JSON, %d in the log, %d tallied, %d asked"
               % (len(nodes), len(rec), len(tally), n))
for node, r in rec.items():
    j = nodes.get(node)
    if j is None:
        bad.append(node + ": not in the JSON")
    elif j["records"] != tally.get(node) or j["attributed"] != j["records"]:
        bad.append("%s: %d records, %d attributed (the generator made %s)"
                   % (node, j["records"], j["attributed"], tally.get(node)))
    elif set(j["session"]) != r["s"]:
        bad.append("%s: session %s, the log's pid 1001 made %s"
                   % (node, sorted(j["session"]), sorted(r["s"])))
    elif not r["all"] <= set(j["global"]):
        bad.append("%s: global %s lacks %s" % (node, sorted(j["global"]),
                   sorted(r["all"] - set(j["global"]))))
for p in picks:
    node = "n%06d" % p
    alone = json.load(open("%s/%s.json" % (t, node)))
    for k in ("global", "session"):
        if nodes.get(node, {}).get(k) != alone[k]:
            bad.append("%s: %s list %s, alone %s" % (node, k,
                       nodes.get(node, {}).get(k), alone[k]))
    hdr = open("%s/%s.node.guc" % (t, node)).readline()
    m = re.match(r"# pgsc: (\d+) records", hdr)
    if not m or int(m.group(1)) != tally[node]:
        bad.append("--node %s: header %r, the generator made %d records"
                   % (node, hdr.strip(), tally[node]))
for fmt in ("guc", "table"):
    heads = [l for l in open("%s/all.%s" % (t, fmt)) if l.startswith("# nodes: ")]
    got = dict((a, int(b)) for a, b in
               re.findall(r"(n\d{6}): (\d+) records", heads[0] if heads else ""))
    if got != tally:
        bad.append("%s: the # nodes: line names %d nodes, %d differ from "
                   "the generator's" % (fmt, len(got), sum(
                       1 for k in tally if got.get(k) != tally[k])))
gl = [l for l in open(t + "/all.guc") if l.startswith("global_syscall_allow")]
glist = set(gl[0].split("'")[1].split(",")) if gl else set()
alln = set(names[x] for x in allnr)
if not alln <= glist:
    bad.append("guc: the global list lacks %s" % sorted(alln - glist))
st = json.load(open(t + "/status.json"))
r1 = st["rounds"][0]
if (r1["new"], r1["new_session"]) != (len(allnr), len(sessnr)):
    bad.append("--status: round 1 new %d/%d, the log has %d/%d distinct"
               % (r1["new"], r1["new_session"], len(allnr), len(sessnr)))
for b in bad[:20]:
    print("  " + b)
if bad:
    print("  (%d problems)" % len(bad))
    sys.exit(1)
print("fleet-many: %d nodes: every node's records and lists exact; "
      "%d nodes equal to their own store; --status new %d/%d"
      % (n, len(picks), len(allnr), len(sessnr)))
EOF

"$REPORT" --db "$T/s.db" --check-complete >/dev/null 2>&1 ||
	fail "--check-complete failed on a complete log"
"$REPORT" --db "$T/s.db" --node "n$(printf '%06d' $((N / 2)))" \
	--check-complete >/dev/null 2>&1 || fail "--node --check-complete failed"
echo "fleet-many: ok ($N nodes; json, status, guc, table, html, systemd, oci, spo, effective, --node, --check-complete)"
