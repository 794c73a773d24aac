#!/bin/bash
# SPDX-License-Identifier: PostgreSQL
# planted.sh - a store is schema-checked before it is trusted
# (docs/security.md §6; docs/robustness.md, F7 and F11): SQL planted in a
# store (a view in place of a table, a trigger, an extra table or index)
# makes pgsc-report, pgsc-diff and pgsc-collect refuse it at once, exit 2,
# naming the object; nothing of it runs (the recursive view hung the readers
# for ever, the trigger added a syscall to every later round).  A clean
# store still opens.  A hang is caught by timeout (exit 124) and fails the
# check.
#   bash tests/store/planted.sh BINDIR GOLDENDIR
# shellcheck source=../lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
t_golden planted "$@"
need_progs sqlite3
zcat "$DIR/enriched.log.gz" >"$T/e.log"
zcat "$DIR/raw.log.gz" >"$T/r.log"
"$BIN/pgsc-collect" --db "$T/clean.db" --import "$T/e.log" 2>/dev/null ||
	fail "cannot make the store"
"$BIN/pgsc-report" --db "$T/clean.db" >"$T/clean.guc" 2>/dev/null &&
	ok "a clean store opens" || bad "the clean store does not open"

# refused NAME SQL KIND OBJECT: a copy of the clean store with SQL run in
# it is refused by every program, naming "KIND "OBJECT""
refused() {
	local name=$1 sql=$2 what="$3 \"$4\"" db="$T/$1.db" rc prog
	cp "$T/clean.db" "$db"
	sqlite3 "$db" "$sql" || { bad "$name: sqlite3 could not plant it"; return; }
	before=$(sqlite3 "$db" "SELECT count(*) FROM rounds")
	for prog in report diff collect; do
		case $prog in
		report) timeout 60 "$BIN/pgsc-report" --db "$db" >/dev/null 2>"$T/err" ;;
		diff) timeout 60 "$BIN/pgsc-diff" "$db" "$T/clean.db" >/dev/null 2>"$T/err" ;;
		collect) timeout 60 "$BIN/pgsc-collect" --db "$db" --import "$T/r.log" >/dev/null 2>"$T/err" ;;
		esac
		rc=$?
		if [ $rc = 2 ] && grep -qF "$db: holds the $what" "$T/err"; then
			ok "$name: pgsc-$prog refuses it, exit 2, naming the $what"
		else
			bad "$name: pgsc-$prog: exit $rc: $(head -c 300 "$T/err")"
		fi
	done
	[ "$(sqlite3 "$db" "SELECT count(*) FROM rounds")" = "$before" ] &&
		ok "$name: no round was added" || bad "$name: pgsc-collect wrote a round"
}
# a recursive view in place of a table, and a trigger
refused view "ALTER TABLE aggregates RENAME TO r; CREATE VIEW aggregates AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT r.* FROM r, c;" view aggregates
refused trigger "CREATE TRIGGER t AFTER INSERT ON rounds BEGIN INSERT INTO aggregates (round_id, role, arch, nr, count, first_seen, last_seen, node) VALUES (new.id, 'postmaster', 3221225534, 101, 1, 0, 0, ''); END;" trigger t
# objects the schema does not make, and one it makes but changed
refused table "CREATE TABLE extra (x);" table extra
refused index "CREATE INDEX extra_idx ON rounds (label);" index extra_idx
refused changed "DROP INDEX aggregates_by_syscall; CREATE INDEX aggregates_by_syscall ON aggregates (arch);" index aggregates_by_syscall
t_done
