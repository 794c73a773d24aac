#!/bin/bash
# SPDX-License-Identifier: PostgreSQL
# run.sh - golden tests: real recorded audit logs against .ref outputs.
#   bash tests/golden/run.sh BINDIR GOLDENDIR [--update]
# For every NAME.log.gz (recorded by record.sh) it checks that
#   1. import + every report format equals NAME.ref (diff -u);
#   2. the auparse-only path (--no-fast-path) gives the same output and the
#      same counts, rejects by reason included, which is what keeps the
#      SECCOMP fast path honest (docs/design.md §4.1);
#   3. importing the same file again creates no round and changes nothing;
#   4. the log cut into a rotated set (audit.log, .1, .2) and given in
#      shell glob order gives the same lists as the whole file;
#   5. every JSON document of the store (the report and its optional
#      members, --status, pgsc-diff) is valid against its schema in
#      schemas/ (tests/lib/schema-check.py; fails without python3-jsonschema).
# shellcheck source=../lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
t_init golden
BIN=$1
DIR=$2
UPDATE=${3:-}
need_progs sqlite3
need_exec "$BIN/pgsc-collect"
T=$T_WORK
n=0

snapshot() { # DB -> stdout: every report plus the attribution of processes
	local db=$1
	echo "== guc"; "$BIN/pgsc-report" --db "$db" --format=guc
	echo "== guc pgseccomp. rfc"; "$BIN/pgsc-report" --db "$db" --guc-prefix pgseccomp. --session-roles rfc
	echo "== json"; "$BIN/pgsc-report" --db "$db" --format=json
	echo "== table"; "$BIN/pgsc-report" --db "$db" --format=table
	echo "== processes"
	sqlite3 -separator ' | ' "$db" "SELECT pid, coalesce(ppid,'?'), parent_known, role, records, quote(exe), quote(title) FROM processes ORDER BY birth, pid"
	echo "== rounds"
	sqlite3 -separator ' | ' "$db" "SELECT id, label, records, attributed, unrelated, standalone, unattributed, rejected, lines FROM rounds"
}

for gz in "$DIR"/*.log.gz; do
	name=$(basename "$gz" .log.gz)
	n=$((n + 1))
	w="$T/$name"
	mkdir -p "$w"
	zcat "$gz" >"$w/audit.log"
	args=()
	if [ -f "$DIR/$name.args" ]; then
		read -r -a args <"$DIR/$name.args"
		if [ -f "$DIR/$name.pglog.gz" ]; then
			zcat "$DIR/$name.pglog.gz" >"$w/pg.log"
			args=("${args[@]/@PGLOG@/$w/pg.log}")
		fi
	fi
	ok=1
	"$BIN/pgsc-collect" --db "$w/a.db" --label golden "${args[@]}" --import "$w/audit.log" 2>"$w/collect.err"
	rc=$?
	{ echo "== collect exit $rc"; sed "s|$w/||g" "$w/collect.err"; snapshot "$w/a.db"; } >"$w/out"
	if [ "$UPDATE" = --update ]; then
		cp "$w/out" "$DIR/$name.ref"
	elif ! diff -u "$DIR/$name.ref" "$w/out" >"$w/diff"; then
		echo "FAIL: $name: output differs from $name.ref"; head -40 "$w/diff"; ok=0
	fi
	# 2. auparse for every record
	"$BIN/pgsc-collect" --db "$w/b.db" --label golden --no-fast-path "${args[@]}" --import "$w/audit.log" 2>/dev/null
	snapshot "$w/b.db" >"$w/out-b"
	if ! diff -u <(sed -n '/^== guc$/,$p' "$w/out") "$w/out-b" >"$w/diff-b"; then
		echo "FAIL: $name: the fast path and the auparse path disagree"; head -40 "$w/diff-b"; ok=0
	fi
	# ... and their counts agree, rejected lines by reason included
	q="SELECT records, attributed, unrelated, standalone, unattributed, rejected, lines FROM rounds;
	   SELECT reason, count FROM rejects ORDER BY reason"
	if [ "$(sqlite3 "$w/a.db" "$q")" != "$(sqlite3 "$w/b.db" "$q")" ]; then
		echo "FAIL: $name: the two paths count differently:"
		diff <(sqlite3 "$w/a.db" "$q") <(sqlite3 "$w/b.db" "$q"); ok=0
	fi
	# 3. same data again
	snapshot "$w/a.db" >"$w/before"
	"$BIN/pgsc-collect" --db "$w/a.db" "${args[@]}" --import "$w/audit.log" 2>"$w/again.err"
	if ! grep -q "nothing new to import" "$w/again.err" || ! diff -q "$w/before" <(snapshot "$w/a.db") >/dev/null; then
		echo "FAIL: $name: a second import of the same file changed the store"; cat "$w/again.err"; ok=0
	fi
	# 4. a rotated set, newest first as a shell glob gives it
	mkdir -p "$w/rot"
	total=$(wc -l <"$w/audit.log")
	third=$(( (total + 2) / 3 ))
	split -l "$third" -d -a 1 "$w/audit.log" "$w/rot/part."
	mv "$w/rot/part.0" "$w/rot/audit.log.2"
	mv "$w/rot/part.1" "$w/rot/audit.log.1"
	mv "$w/rot/part.2" "$w/rot/audit.log"
	"$BIN/pgsc-collect" --db "$w/c.db" "${args[@]}" --import "$w/rot"/audit.log* 2>/dev/null
	if ! diff -u <("$BIN/pgsc-report" --db "$w/a.db" --format=json) \
		<("$BIN/pgsc-report" --db "$w/c.db" --format=json) >"$w/diff-c"; then
		echo "FAIL: $name: a rotated set in glob order gives other lists"; head -40 "$w/diff-c"; ok=0
	fi
	# 5. the JSON documents, checked against their schemas below
	j=$w/json
	mkdir -p "$j"
	# (exit statuses are the other tests' concern: an unusable store
	# exits 1 with its document, a wider list 3 with pgsc-diff's)
	"$BIN/pgsc-report" --db "$w/a.db" --format=json >"$j/report" 2>/dev/null
	"$BIN/pgsc-report" --db "$w/a.db" --format=json --explain --no-programs --per-type >"$j/report-full" 2>/dev/null
	"$BIN/pgsc-report" --db "$w/a.db" --format=json --portable >"$j/report-portable" 2>/dev/null
	"$BIN/pgsc-report" --db "$w/a.db" --status --format=json >"$j/status" 2>/dev/null
	"$BIN/pgsc-diff" --format json --equivalent "$j/report-full" "$j/report-portable" >"$j/diff" 2>/dev/null
	for f in "$j"/*; do
		printf 'doc\t%s\t%s\n' "$name/${f##*/}" "$f" >>"$T/schema.list"
	done
	if [ $ok = 1 ]; then ok "$name"; else T_FAIL=$((T_FAIL + 1)); fi
done
[ $n -gt 0 ] || fail "no fixtures in $DIR"
# 5. each fixture's five documents, in one python
if ! python3 "$T_SRCROOT/tests/lib/schema-check.py" \
	"$T_SRCROOT/schemas" --expect $((n * 5)) \
	--list "$T/schema.list"; then
	T_FAIL=$((T_FAIL + 1))
fi
t_done
