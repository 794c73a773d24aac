#!/bin/bash
# SPDX-License-Identifier: PostgreSQL
# tests/fleet/loss.sh - each node's own loss figures (docs/fleet.md):
# serial gaps per node, for every node up to the bound of serial
# sequences, and the records of the nodes past it counted as untracked.
#
#   bash tests/fleet/loss.sh BUILDDIR SRCDIR [NODES]
#
# The log is tests/fleet/many-nodes.awk's with -v GAPS=1 (every fifth
# node leaves out 1 to 3 serials after its first SECCOMP record) for
# 33,000 nodes, more than the 32,768 that get a serial window
# (src/serials.c).  The independent side is the generator's own tally of
# each node's records and left-out serials.  Asserts:
#   - the JSON "nodes": each of the first 32,768 nodes has the serial
#     gaps the generator left, no untracked records, kernel_lost null (a
#     named node's kernel is not read) and complete exactly when it has
#     no gap; each node past them has all its lines (2 + its SECCOMP
#     records) untracked and is not complete;
#   - the top-level loss: the sum of the tracked nodes' gaps, and of the
#     untracked lines, which pgsc-collect's summary warns of;
#   - --check-complete --node: exit 1 naming the node's own gaps, or its
#     untracked records, exit 0 for a node without either;
#   - a follow of a 300-node log (more than the 256 nodes that had a
#     sequence before) killed once with SIGKILL and restarted: its round's
#     stored per-node gaps are the generator's (the base a continued round
#     keeps).
# No root, no audit state.  ctest: fleet/loss.
# shellcheck source=../lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
t_init fleet-loss

BUILD=$(cd "${1:?usage: loss.sh BUILDDIR SRCDIR [NODES]}" && pwd)
N=${3:-33000}
COLLECT=$BUILD/pgsc-collect
REPORT=$BUILD/pgsc-report
need_exec "$COLLECT" "$REPORT"
need_progs python3 sqlite3
T=$T_WORK
AWK=$(dirname "${BASH_SOURCE[0]}")/many-nodes.awk

awk -v N="$N" -v GAPS=1 -v TALLY="$T/tally" -f "$AWK" >"$T/central.log"
"$COLLECT" --db "$T/s.db" --import "$T/central.log" >"$T/import.out" 2>&1 ||
	{ cat "$T/import.out" >&2; fail "the import of $N nodes failed"; }
"$REPORT" --db "$T/s.db" --format=json >"$T/all.json" 2>"$T/json.err"
[ -s "$T/all.json" ] || { cat "$T/json.err" >&2; fail "no JSON report"; }

# three nodes for --check-complete --node: one with a hole, one without,
# one past the bound
gap=n000005
clean=n000001
past=$(printf 'n%06d' "$N")
for n in $gap $clean $past; do
	"$REPORT" --db "$T/s.db" --node "$n" --check-complete >"$T/cc.$n" 2>&1
	echo $? >"$T/cc.$n.rc"
	"$REPORT" --db "$T/s.db" --node "$n" >"$T/guc.$n" 2>/dev/null
done

python3 - "$T" <<'EOF_PY' || fail "the per-node loss figures are wrong (above)"
import json, re, sys
t = sys.argv[1]
BOUND = 32768     # src/serials.c: 64 MiB of 2 KiB windows
tally = {}
for line in open(t + "/tally"):
    name, recs, sess, hole = line.split()
    tally[name] = (int(recs), int(hole))
order = sorted(tally)              # the log's order: n000001, n000002...
doc = json.load(open(t + "/all.json"))
nodes = doc["nodes"]
bad = []
gaps = untracked = 0
for i, name in enumerate(order):
    recs, hole = tally[name]
    loss = nodes.get(name, {}).get("loss")
    if loss is None:
        bad.append(name + ": no loss in the JSON")
        continue
    if i < BOUND:
        want = {"kernel_lost": None, "serial_gaps": hole, "rotation_gaps": 0,
                "drain_timeouts": 0, "complete": hole == 0}
        gaps += hole
    else:
        want = {"kernel_lost": None, "serial_gaps": 0, "rotation_gaps": 0,
                "drain_timeouts": 0, "serials_untracked": recs + 2,
                "complete": False}
        untracked += recs + 2
    if loss != want:
        bad.append("%s: loss %s, the generator's %s" % (name, loss, want))
imp = open(t + "/import.out").read()
if untracked and "warning: %d lines of nodes past the bound" % untracked not in imp:
    bad.append("pgsc-collect did not warn of %d untracked lines: %r"
               % (untracked, imp[-400:]))
top = doc["loss"]
if top.get("serial_gaps") != gaps or top.get("serials_untracked", 0) != untracked:
    bad.append("top-level loss %s: the generator left %d gaps, %d lines "
               "untracked" % (top, gaps, untracked))
def cc(name):
    return open("%s/cc.%s" % (t, name)).read(), open("%s/cc.%s.rc" % (t, name)).read().strip()
out, rc = cc("n000005")
if rc != "1" or "kernel lost -, serial gaps %d," % tally["n000005"][1] not in out:
    bad.append("--check-complete --node n000005: exit %s, %r" % (rc, out))
out, rc = cc("n000001")
if rc != "0" or "kernel lost -, serial gaps 0," not in out or not out.rstrip().endswith("complete"):
    bad.append("--check-complete --node n000001: exit %s, %r" % (rc, out))
past = order[-1]
out, rc = cc(past)
if len(order) > BOUND and (rc != "1" or "serials untracked %d" % (tally[past][0] + 2) not in out):
    bad.append("--check-complete --node %s: exit %s, %r" % (past, rc, out))
hdr = open(t + "/guc.n000005").read()
if "# node: n000005 (--node: its lists and loss figures" not in hdr or \
   "records may be missing: kernel lost -, serial gaps %d," % tally["n000005"][1] not in hdr:
    bad.append("--node n000005: header %r" % hdr[:300])
for b in bad[:20]:
    print("  " + b)
if bad:
    print("  (%d problems)" % len(bad))
    sys.exit(1)
print("fleet-loss: %d nodes: each node's gaps exact (%d in all), %d nodes "
      "past the bound with %d lines untracked" % (len(order), gaps,
      max(0, len(order) - BOUND), untracked))
EOF_PY

# a follow through one SIGKILL: 300 nodes, more than the 256 that had
# a sequence before
awk -v N=300 -v GAPS=1 -v TALLY="$T/tally300" -f "$AWK" >"$T/f.src"
half=$(($(wc -l <"$T/f.src") / 2))
head -n "$half" "$T/f.src" >"$T/f.log"
COLLECT=$COLLECT t_follow "$T/f.db" "$T/f.log" "$T/follow.out" --commit-interval 1
# shellcheck disable=SC2153 # COLL: t_follow's
for _ in $(seq 1 100); do
	[ "$(sqlite3 -batch "$T/f.db" 'SELECT coalesce(sum(lines), 0) FROM rounds' 2>/dev/null)" = "$half" ] && break
	sleep 0.2
done
kill -KILL "$COLL"
wait "$COLL" 2>/dev/null
tail -n +"$((half + 1))" "$T/f.src" >>"$T/f.log"
COLLECT=$COLLECT t_follow "$T/f.db" "$T/f.log" "$T/follow.out" --commit-interval 1
all=$(wc -l <"$T/f.log")
for _ in $(seq 1 150); do
	[ "$(sqlite3 -batch "$T/f.db" 'SELECT coalesce(sum(lines), 0) FROM rounds' 2>/dev/null)" = "$all" ] && break
	sleep 0.2
done
sleep 3    # the last event waits one interval to be taken as complete
kill -TERM "$COLL"
wait "$COLL" 2>/dev/null
# (the stored rows: the follow's records are not attributed, so the
# report has no lists to print; the figures are what is checked here)
[ "$(sqlite3 -batch "$T/f.db" 'SELECT count(*) FROM rounds WHERE finished IS NOT NULL')" = 1 ] ||
	fail "the follow did not end in one finished round: $(tail -3 "$T/follow.out")"
sqlite3 -batch "$T/f.db" "SELECT node, serial_gaps FROM node_loss WHERE serial_gaps > 0 ORDER BY node" |
	tr '|' ' ' >"$T/f.got"
awk '$4 > 0 { print $1, $4 }' "$T/tally300" | sort >"$T/f.want"
diff "$T/f.want" "$T/f.got" >"$T/f.diff" ||
	fail "the follow's per-node gaps differ from the generator's (< generator, > pgsc): $(head -10 "$T/f.diff")"
echo "fleet-loss: a follow of 300 nodes through SIGKILL: each node's gaps exact ($(awk '{ s += $2 } END { print s }' "$T/f.want") in all)"
echo "fleet-loss: ok"
