#!/bin/bash
# SPDX-License-Identifier: PostgreSQL
# readonly.sh - readers without write access (docs/security.md §6).  The
# store lives in a root-owned 0755 directory; user nobody can write neither
# the directory nor the store.
#   1. the shipped default (0600): nobody is refused, exit 2, with a cause
#      that says how a reader gets access;
#   2. 0644, no writer running (no -wal): nobody reports, and the lists
#      are root's byte for byte; pgsc-diff and --status work too;
#   3. 0644 with a live collector writing the store (-wal, -shm): nobody
#      reports, and sees what the collector committed.
# Needs root (su to nobody).
#   bash tests/store/readonly.sh BINDIR FIXTUREDIR
# expect's conditions are quoted '...' on purpose: evaluated when checked
# shellcheck disable=SC2016
# shellcheck source=../lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
t_init readonly
BIN=$(cd "$1" && pwd)
FIX=$2
need_root "the test reads as user nobody"
need_progs sqlite3
T=$T_WORK
cpid=
# stop_collector: the collector of step 4, if it still runs
stop_collector() {
	[ -z "$cpid" ] || { kill "$cpid" 2>/dev/null; wait "$cpid" 2>/dev/null; }
	cpid=
}
t_cleanup stop_collector
chmod 0755 "$T"
D="$T/store"
mkdir -m 0755 "$D"
# the programs must be reachable by nobody
for p in pgsc-report pgsc-diff; do install -m 0755 "$BIN/$p" "$T/$p"; done
as_nobody() { su -s /bin/sh nobody -c "$*"; }

# A log whose records belong to a server: a store of only unattributed
# records is not usable, and pgsc-report exits 1 for it (docs/roles.md).
LOG=$FIX/../unit/import-small.log
NREC=$(grep -c "type=SECCOMP" "$LOG")
cp "$LOG" "$T/audit.log"
chmod 0644 "$T/audit.log"
"$BIN/pgsc-collect" --db "$D/s.db" --import "$T/audit.log" 2>/dev/null || fail "import"
"$T/pgsc-report" --db "$D/s.db" >"$T/root.guc"
[ -s "$T/root.guc" ] || fail "no report as root"
expect "the store is created 0600" '[ "$(stat -c %a "$D/s.db")" = 600 ]'

# 1. the default mode
as_nobody "$T/pgsc-report --db $D/s.db" >"$T/n1.out" 2>"$T/n1.err"
rc=$?
expect "0600: nobody is refused with exit 2 (got $rc)" '[ $rc = 2 ]'
expect "0600: the cause names the store and says how to get access" \
	'grep -qF "$D/s.db: Permission denied" "$T/n1.err" && grep -q "docs/security.md" "$T/n1.err"'

# 2. readable, no writer.  root's report above left an empty -wal and a
# -shm, created with the store's mode then (0600): a mode given later must
# be given to them too (docs/security.md); the empty -wal holds nothing.
expect "the -wal root's reader left is empty" '[ ! -s "$D/s.db-wal" ]'
chmod 0644 "$D/s.db"
as_nobody "$T/pgsc-report --db $D/s.db" >"$T/n2a.guc" 2>"$T/n2a.err"
rc=$?
expect "0644 (-wal, -shm 0600, no writer): nobody reports (exit $rc)" '[ $rc = 0 ]'
expect "0644 (-wal, -shm 0600, no writer): the same lists as root" 'cmp -s "$T/root.guc" "$T/n2a.guc"'
rm -f "$D/s.db-wal" "$D/s.db-shm"

as_nobody "$T/pgsc-report --db $D/s.db" >"$T/n2.guc" 2>"$T/n2.err"
rc=$?
expect "0644, no writer: nobody reports (exit $rc)" '[ $rc = 0 ]'
expect "0644, no writer: the same lists as root" 'cmp -s "$T/root.guc" "$T/n2.guc"'
as_nobody "$T/pgsc-report --db $D/s.db --status" >/dev/null 2>"$T/n2s.err"
rc=$?
expect "0644, no writer: --status (exit $rc)" '[ $rc -le 1 ]'
as_nobody "$T/pgsc-diff $D/s.db $D/s.db" >/dev/null 2>"$T/n2d.err"
rc=$?
expect "0644, no writer: pgsc-diff (exit $rc)" '[ $rc = 0 ]'
expect "nobody left no file in the directory" '[ "$(ls "$D")" = s.db ]'
chmod 0644 "$D/s.db"*

# 3. a live collector writes the store meanwhile
: >"$T/live.log"
chmod 0644 "$T/live.log"
"$BIN/pgsc-collect" --db "$D/s.db" --source "file:$T/live.log" --from-start \
	--commit-interval 1 2>"$T/live.err" &
cpid=$!
for _ in $(seq 100); do [ -e "$D/s.db-shm" ] && break; sleep 0.1; done
expect "the collector has the store open (-wal, -shm)" '[ -e "$D/s.db-wal" ] && [ -e "$D/s.db-shm" ]'
cat "$LOG" >>"$T/live.log"
for _ in $(seq 100); do
	[ "$(sqlite3 "file:$D/s.db?mode=ro" 'SELECT count(*) FROM rounds WHERE records > 0')" -ge 2 ] 2>/dev/null && break
	sleep 0.2
done
"$T/pgsc-report" --db "$D/s.db" >"$T/root3.guc"
as_nobody "$T/pgsc-report --db $D/s.db" >"$T/n3.guc" 2>"$T/n3.err"
rc=$?
expect "0644, collector running: nobody reports (exit $rc)" '[ $rc = 0 ]'
expect "0644, collector running: the same lists as root" 'cmp -s "$T/root3.guc" "$T/n3.guc"'
as_nobody "$T/pgsc-report --db $D/s.db --status" >"$T/n3s.out" 2>&1
expect "0644, collector running: nobody sees the live round's $NREC records" \
	'grep -qE "^ +2 .* file +$NREC " "$T/n3s.out"'
stop_collector
t_done
