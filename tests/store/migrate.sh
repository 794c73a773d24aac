#!/bin/bash
# SPDX-License-Identifier: PostgreSQL
# migrate.sh - a store written under an older schema is migrated to the
# current one and then reports what the same data in a current store
# reports.  The old stores are built without the C code: the sqlite3 CLI
# applies schemas/001..V as src/store.c does (one transaction per file with
# its user_version bump) and copies, with ATTACH and INSERT ... SELECT, the
# columns schema V has from a current store that imported a recorded log.
#   bash tests/store/migrate.sh BINDIR SRCDIR
#
# Logs and versions:
#   raw       (local host, no node=)            V = 1..6, 10
#   stripped  (node.log with node= taken off)   V = 1..6, 10
#   node      (node.log as recorded)            V = 5, 6, 10: a schema 5 store
#             held processes.node = the name and aggregates without a
#             node; 006 makes those aggregates the local host's (''), and
#             007 gives them the node of the round's processes (all one
#             host's), so everything, the per-node parts too, must be the
#             current store's.
# For each: pgsc-report refuses the old store (read-only, needs a
# migration) and leaves it as it was; pgsc-collect --import of the log it
# already holds (nothing new, no round) migrates it; then user_version,
# integrity_check, the GUC and JSON reports, --status and --check-complete
# must equal the current store's; then one more log imported into both
# must give equal reports again.  Negative: a store of a newer version
# and old stores with a table dropped are refused clearly (exit 1 or 2,
# a message naming the file) and left as they were.
# shellcheck source=../lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
t_init migrate
BIN=$1
SRC=$2
need_progs sqlite3 python3 zcat sed cmp
need_exec "$BIN/pgsc-collect" "$BIN/pgsc-report"
need_file "$SRC"/tests/golden/{raw,node,enriched}.log.gz
T=$T_WORK

# the newest schema version, from the files (what the binary embeds)
SCHEMAS=$(printf '%s\n' "$SRC"/schemas/[0-9][0-9][0-9]_*.sql | sort)
CUR=$(basename "$(echo "$SCHEMAS" | tail -1)" | sed 's/^0*\([0-9]*\)_.*/\1/')
[ "$CUR" -ge 6 ] || fail "current schema version '$CUR' from $SRC/schemas"

zcat "$SRC/tests/golden/raw.log.gz" >"$T/raw.log"
zcat "$SRC/tests/golden/node.log.gz" >"$T/node.log"
sed 's/^node=[^ ]* //' "$T/node.log" >"$T/stripped.log"
grep -q '^node=' "$T/stripped.log" && fail "node= left in stripped.log"
zcat "$SRC/tests/golden/enriched.log.gz" >"$T/enriched.log"

# old_store NEW.db OLD.db V: schemas 1..V as store.c applies them, then the
# columns schema V has copied from NEW.db.  Schema 5 spelt the local host
# NULL in processes.node and open_counts.node; before 6 the aggregates had
# no node and their key (round_id, role, arch, nr) must not collide.
old_store() {
	local new=$1 old=$2 v=$3 f n t cols sel
	rm -f "$old"*
	sqlite3 "$old" 'PRAGMA journal_mode = WAL;' >/dev/null || return 1
	for f in $SCHEMAS; do
		n=$(basename "$f" | sed 's/^0*\([0-9]*\)_.*/\1/')
		[ "$n" -le "$v" ] || break
		{ echo "BEGIN IMMEDIATE;"; cat "$f"; echo; echo "PRAGMA user_version = $n;"; echo "COMMIT;"; } |
			sqlite3 -bail "$old" || { echo "schema $f failed"; return 1; }
	done
	[ "$(sqlite3 "$old" 'PRAGMA user_version')" = "$v" ] || return 1
	if [ "$v" -lt 6 ]; then
		n=$(sqlite3 "$new" "SELECT count(*) FROM (SELECT 1 FROM aggregates GROUP BY round_id, role, arch, nr HAVING count(*) > 1)")
		[ "$n" = 0 ] || { echo "$n aggregates keys collide without the node"; return 1; }
	fi
	{
		echo "PRAGMA foreign_keys = ON;"
		echo "ATTACH '$new' AS cur;"
		echo "BEGIN;"
		for t in $(sqlite3 "$old" "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name <> 'rounds', rowid"); do
			cols=$(sqlite3 "$old" "SELECT group_concat(name, ', ') FROM pragma_table_info('$t')")
			if [ "$v" -lt 6 ]; then
				sel=$(sqlite3 "$old" "SELECT group_concat(CASE WHEN name = 'node' THEN 'nullif(node, '''')' ELSE name END, ', ') FROM pragma_table_info('$t')")
			else
				sel=$cols # from 6 on the local host is '' (docs/schema.md)
			fi
			echo "INSERT INTO main.$t ($cols) SELECT $sel FROM cur.$t;"
		done
		echo "COMMIT;"
		echo "DETACH cur;"
	} >"$old.sql" || return 1
	# written first, then run: the queries that make the statements must
	# not read $old while the copy writes it ("database is locked")
	sqlite3 -bail "$old" <"$old.sql" || return 1
	rm -f "$old.sql"
	sqlite3 "$old" 'PRAGMA wal_checkpoint(TRUNCATE);' >/dev/null
	# every table holds as many rows as the current store's
	for t in $(sqlite3 "$old" "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"); do
		[ "$(sqlite3 "$old" "SELECT count(*) FROM $t")" = "$(sqlite3 "$new" "SELECT count(*) FROM $t")" ] ||
			{ echo "table $t: row counts differ after the copy"; return 1; }
	done
}

# reports DB OUT: every report the comparison reads.  The --status table's
# started and records/s columns are the times of the import, which differ
# between two stores that imported the same log at two moments: they are
# masked.  The JSON is compared whole, or without "nodes" ($2.nonodes).
reports() {
	local db=$1 out=$2 rc
	"$BIN/pgsc-report" --db "$db" >"$out.guc" 2>"$out.err"; echo "guc $?" >"$out.rc"
	"$BIN/pgsc-report" --db "$db" --format=json >"$out.json" 2>>"$out.err"; echo "json $?" >>"$out.rc"
	"$BIN/pgsc-report" --db "$db" --status 2>>"$out.err" |
		sed -E 's/^( *[0-9]+ +)[0-9-]+ [0-9:]+ +([a-z]+ +[0-9]+ +)[0-9]+ /\1TIME \2RATE /' >"$out.status"
	echo "status $?" >>"$out.rc"
	"$BIN/pgsc-report" --db "$db" --check-complete >"$out.complete" 2>&1; echo "complete $?" >>"$out.rc"
	"$BIN/pgsc-report" --db "$db" --status --format json 2>>"$out.err" |
		python3 -c 'import json, sys
d = json.load(sys.stdin)
for r in d["rounds"]:
	r.pop("started"); r.pop("records_per_s")
print(json.dumps(d, indent=1, sort_keys=True))' >"$out.statusjson" 2>>"$out.err"
	echo "statusjson $?" >>"$out.rc"
	grep -v '^# nodes: ' "$out.guc" >"$out.gucnn"
	python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); d.pop("nodes", None); print(json.dumps(d, indent=1, sort_keys=True))' \
		"$out.json" >"$out.nonodes" 2>>"$out.err" || echo "json-parse 1" >>"$out.rc"
	python3 -c 'import json, sys; d = json.load(open(sys.argv[1]))
for n in d.get("nodes", {}).values():
	n.pop("loss")
print(json.dumps(d, indent=1, sort_keys=True))' \
		"$out.json" >"$out.noloss" 2>>"$out.err" || echo "json-parse 1" >>"$out.rc"
}

# same NAME A B KINDS: the reports of A and B are equal
same() {
	local name=$1 a=$2 b=$3 k
	shift 3
	for k in "$@"; do
		if cmp -s "$a.$k" "$b.$k"; then
			ok
		else
			bad "$name: $k differs from the current store's"
			diff "$a.$k" "$b.$k" | head -8
		fi
	done
}

# integrity, version and no leftover -wal of a store pgsc-collect wrote
sound() {
	local name=$1 db=$2 v ic
	v=$(sqlite3 "$db" 'PRAGMA user_version')
	[ "$v" = "$CUR" ] && ok || bad "$name: user_version $v, not $CUR"
	ic=$(sqlite3 "$db" 'PRAGMA integrity_check' 2>&1 | head -3)
	[ "$ic" = ok ] && ok || bad "$name: integrity_check: $ic"
	ic=$(sqlite3 "$db" 'PRAGMA foreign_key_check' 2>&1 | head -3)
	[ -z "$ic" ] && ok || bad "$name: foreign_key_check: $ic"
}

for log in raw stripped node; do
	if [ $log = node ]; then versions="5 6 10"; else versions="1 2 3 4 5 6 10"; fi
	"$BIN/pgsc-collect" --db "$T/$log-cur.db" --import "$T/$log.log" 2>"$T/err" ||
		{ bad "$log: import into a current store"; cat "$T/err"; continue; }
	reports "$T/$log-cur.db" "$T/$log-cur"
	grep -qx 'guc 0' "$T/$log-cur.rc" && grep -qx 'json 0' "$T/$log-cur.rc" ||
		{ bad "$log: reports of the current store"; cat "$T/$log-cur.rc" "$T/$log-cur.err"; }
	[ -s "$T/$log-cur.guc" ] || bad "$log: empty GUC report"
	# the next log, into a copy of the current store
	cp "$T/$log-cur.db" "$T/$log-cur2.db"
	"$BIN/pgsc-collect" --db "$T/$log-cur2.db" --import "$T/enriched.log" 2>"$T/err" ||
		{ bad "$log: second import into the current store"; cat "$T/err"; }
	reports "$T/$log-cur2.db" "$T/$log-cur2"
	# schema 1 has no serial_gaps (002): the same data in a current
	# store, as a store of schema 1 can hold it, gaps 0 (the recorded
	# logs lack one serial each: tests/golden/record.sh)
	cp "$T/$log-cur.db" "$T/$log-cur1.db"
	sqlite3 "$T/$log-cur1.db" "UPDATE rounds SET serial_gaps = 0"
	reports "$T/$log-cur1.db" "$T/$log-cur1"
	cp "$T/$log-cur1.db" "$T/$log-cur12.db"
	"$BIN/pgsc-collect" --db "$T/$log-cur12.db" --import "$T/enriched.log" 2>/dev/null
	reports "$T/$log-cur12.db" "$T/$log-cur12"
	for v in $versions; do
		ref=$T/$log-cur
		[ "$v" -ge 2 ] || ref=$T/$log-cur1
		name="$log/v$v"
		old="$T/$log-v$v.db"
		old_store "$T/$log-cur.db" "$old" "$v" >"$T/err" 2>&1 ||
			{ bad "$name: building the old store"; cat "$T/err"; continue; }
		sum=$(sha256sum <"$old")
		# a read-only open refuses it and leaves it as it was
		"$BIN/pgsc-report" --db "$old" >"$T/out" 2>"$T/err"
		rc=$?
		if [ $rc -ge 1 ] && [ $rc -le 2 ] && grep -qF "schema version $v is older" "$T/err" &&
		   grep -qF "$old" "$T/err" && [ ! -s "$T/out" ]; then ok; else
			bad "$name: pgsc-report on the old store: exit $rc"; head -3 "$T/err"; fi
		"$BIN/pgsc-report" --db "$old" --status >/dev/null 2>&1
		rc=$?
		[ $rc -ge 1 ] && [ $rc -le 2 ] && ok || bad "$name: pgsc-report --status on the old store: exit $rc"
		# (a WAL reader may leave an empty -wal and a -shm behind)
		[ "$(sha256sum <"$old")" = "$sum" ] && [ ! -s "$old-wal" ] && ok ||
			bad "$name: a read-only open changed the old store"
		[ "$(sqlite3 "$old" 'PRAGMA user_version')" = "$v" ] && ok || bad "$name: version changed by a read-only open"
		# the path a user takes: pgsc-collect opens it read-write
		"$BIN/pgsc-collect" --db "$old" --import "$T/$log.log" >"$T/out" 2>"$T/err"
		rc=$?
		[ $rc = 0 ] && grep -q 'nothing new to import (1 file already imported)' "$T/err" && ok ||
			{ bad "$name: re-import into the old store: exit $rc"; head -3 "$T/err"; }
		sound "$name" "$old"
		[ ! -e "$old-wal" ] && ok || bad "$name: the store kept its -wal after pgsc-collect"
		reports "$old" "$T/$log-v$v-m"
		# (the node case: 007 gives the aggregates of a round whose
		# processes all carry one node that node, so the per-node parts
		# are the current store's too)
		same "$name" "$T/$log-v$v-m" "$ref" rc guc json status statusjson complete
		[ "$(sqlite3 "$old" "SELECT count(*) FROM processes WHERE node IS NULL") $(sqlite3 "$old" "SELECT count(*) FROM open_counts WHERE node IS NULL")" = "0 0" ] &&
			ok || bad "$name: NULL node left after 006"
		if [ $log = node ]; then
			n=$(sqlite3 "$old" "SELECT count(*) FROM aggregates WHERE node <> 'pgsc-golden'")
			[ "$n" = 0 ] && ok || bad "$name: $n aggregates rows not pgsc-golden's after 007"
		fi
		# --status and --check-complete agree with each other: the same
		# records and unattributed, and complete (exit 0) with no loss
		python3 - "$T/$log-v$v-m.statusjson" "$T/$log-v$v-m.complete" "$T/$log-v$v-m.rc" <<'PY' && ok || bad "$name: --status and --check-complete disagree"
import json, re, sys
st = json.load(open(sys.argv[1]))
cc = open(sys.argv[2]).read()
rc = open(sys.argv[3]).read()
m = re.search(r"unattributed (\d+) of (\d+): (\w+)", cc)
assert m, cc
assert int(m.group(1)) == st["unattributed"] and int(m.group(2)) == st["records"], (m.groups(), st)
complete = "complete 0" in rc.splitlines()
assert complete == (m.group(3) == "complete"), (rc, cc)
assert not complete or all(r["loss"] == 0 for r in st["rounds"]), st
assert st["records"] > 1000, st
PY
		grep -q '  done ' "$T/$log-v$v-m.status" && ok || bad "$name: --status does not show the round done"
		# the whole store's rows equal, but for what schema V could not
		# hold: processes.uid before 4, a source's head before 8 (a
		# row without one keeps the first-line rule: schema.md)
		for t in rounds sources processes aggregates rejects reject_samples gaps open_counts; do
			ex="SELECT * FROM $t"
			if [ "$t" = sources ] && [ "$v" -lt 8 ]; then
				ex="SELECT id, fingerprint, path, inode, offset, lines, prefix_hash, last_serial, last_event, first_round, last_round FROM sources"
			fi
			if [ "$t" = processes ] && [ "$v" -lt 4 ]; then
				ex="SELECT round_id, pid, birth, birth_serial, ppid, parent_known, last_seen, exe, comm, title, role, records, exited, node FROM processes"
			fi
			a=$(sqlite3 "$old" "$ex" | sort | sha256sum)
			b=$(sqlite3 "$ref.db" "$ex" | sort | sha256sum)
			[ "$a" = "$b" ] && ok || bad "$name: table $t differs from the current store's"
		done
		# one more log: the same result as in the current store
		"$BIN/pgsc-collect" --db "$old" --import "$T/enriched.log" 2>"$T/err" ||
			{ bad "$name: second import into the migrated store"; cat "$T/err"; }
		sound "$name+1" "$old"
		reports "$old" "$T/$log-v$v-m2"
		if [ $log = node ]; then
			# a round from before 11 did not split its serial gaps by
			# node: they count for every node (schemas/011_node_loss.sql),
			# so the local host of the next round shows its own and
			# pgsc-golden's; nothing else differs, and no node shows less
			# loss than in the current store
			same "$name+1" "$T/$log-v$v-m2" "${ref}2" rc guc noloss status statusjson complete
			python3 - "$T/$log-v$v-m2.json" "${ref}2.json" <<'PY' && ok || bad "$name+1: a node's loss below the current store's"
import json, sys
m = json.load(open(sys.argv[1]))["nodes"]
c = json.load(open(sys.argv[2]))["nodes"]
assert set(m) == set(c), (sorted(m), sorted(c))
for k in c:
    assert m[k]["loss"]["serial_gaps"] >= c[k]["loss"]["serial_gaps"], (k, m[k]["loss"], c[k]["loss"])
assert m[""]["loss"]["serial_gaps"] == 2 and c[""]["loss"]["serial_gaps"] == 1, (m[""], c[""])
PY
		else
			same "$name+1" "$T/$log-v$v-m2" "${ref}2" rc guc json status statusjson complete
		fi
	done
done

# open counts (a live collector's, which no import writes) of schema 3 and
# 5, with the local host NULL (5) or no node (3): they keep every row, and
# their node is '' or the name they had
for v in 3 5; do
	db="$T/open-v$v.db"
	old_store "$T/raw-cur.db" "$db" $v >"$T/err" 2>&1 || { bad "open counts v$v: building"; cat "$T/err"; continue; }
	sqlite3 -bail "$db" "
		CREATE TEMP TABLE n (node TEXT, nr INTEGER);
		INSERT INTO n VALUES (NULL, 0)$([ $v = 5 ] && echo ", ('n1', 1)");
		INSERT INTO open_counts (round_id, pid, birth, role, arch, nr, pending, count, first_seen, last_seen$([ $v = 5 ] && echo ", node"))
		    SELECT p.round_id, p.pid, p.birth, p.role, 3221225534, n.nr, 0, 7, p.birth, p.birth$([ $v = 5 ] && echo ", n.node")
		    FROM processes p, n WHERE p.rowid IN (SELECT rowid FROM processes LIMIT 3);" ||
		{ bad "open counts v$v: INSERT"; continue; }
	want=$(sqlite3 "$db" "SELECT k || '|' || count(*) FROM (SELECT coalesce($([ $v = 5 ] && echo node || echo NULL), '') AS k FROM open_counts) GROUP BY k ORDER BY k")
	"$BIN/pgsc-collect" --db "$db" --import "$T/raw.log" >/dev/null 2>"$T/err" || { bad "open counts v$v: migration"; cat "$T/err"; continue; }
	sound "open counts v$v" "$db"
	got=$(sqlite3 "$db" "SELECT node || '|' || count(*) FROM open_counts GROUP BY node ORDER BY node")
	[ "$got" = "$want" ] && [ -n "$got" ] && ok || bad "open counts v$v: nodes '$got' after 006, not '$want'"
done

# a store newer than this pgsc: refused by both, left as it was
cp "$T/raw-cur.db" "$T/newer.db"
sqlite3 "$T/newer.db" "PRAGMA user_version = $((CUR + 1))"
sum=$(sha256sum <"$T/newer.db")
for cmd in report collect; do
	if [ $cmd = report ]; then
		"$BIN/pgsc-report" --db "$T/newer.db" >"$T/out" 2>"$T/err"
	else
		"$BIN/pgsc-collect" --db "$T/newer.db" --import "$T/enriched.log" >"$T/out" 2>"$T/err"
	fi
	rc=$?
	if [ $rc -ge 1 ] && [ $rc -le 2 ] && [ ! -s "$T/out" ] && grep -qF "$T/newer.db" "$T/err" &&
	   grep -qF "schema version $((CUR + 1)) is newer than this pgsc understands ($CUR)" "$T/err"; then ok; else
		bad "newer store: pgsc-$cmd exits $rc"; head -3 "$T/err"; fi
done
[ "$(sha256sum <"$T/newer.db")" = "$sum" ] && ok || bad "newer store: changed by a refused open"
[ "$(sqlite3 "$T/newer.db" 'PRAGMA user_version')" = $((CUR + 1)) ] && ok || bad "newer store: version changed"

# old stores with a table the migration needs dropped: a clear refusal, the
# migration rolled back (the store keeps its version), no crash (V TABLE the
# version it stops at: the schema check refuses a store whose objects are
# not its version's before any migration runs, docs/robustness.md F7; a v3
# store without open_counts was migrated to 4 before)
for dmg in "5 aggregates 5" "5 processes 5" "5 open_counts 5" "4 processes 4" "3 open_counts 3"; do
	read -r v t stop <<<"$dmg"
	db="$T/dropped-v$v-$t.db"
	old_store "$T/raw-cur.db" "$db" "$v" >/dev/null 2>&1 || { bad "dropped $t: building v$v"; continue; }
	sqlite3 "$db" "DROP TABLE $t" || { bad "dropped $t: DROP"; continue; }
	"$BIN/pgsc-collect" --db "$db" --import "$T/enriched.log" >"$T/out" 2>"$T/err"
	rc=$?
	if [ $rc -ge 1 ] && [ $rc -le 2 ] && grep -qF "$db" "$T/err" && grep -qi "$t" "$T/err"; then ok; else
		bad "v$v store without $t: pgsc-collect exits $rc"; head -3 "$T/err"; fi
	[ "$(sqlite3 "$db" 'PRAGMA user_version')" = "$stop" ] && ok ||
		bad "v$v store without $t: version $(sqlite3 "$db" 'PRAGMA user_version') after a failed migration"
	"$BIN/pgsc-report" --db "$db" >"$T/out" 2>"$T/err"
	rc=$?
	[ $rc -ge 1 ] && [ $rc -le 2 ] && grep -qF "$db" "$T/err" && ok ||
		{ bad "v$v store without $t: pgsc-report exits $rc"; head -3 "$T/err"; }
done

echo "migrate: $T_PASS checks passed, schema $CUR, from versions 1-6 and 10 (raw, node= stripped) and 5, 6, 10 (node=)"
t_done
