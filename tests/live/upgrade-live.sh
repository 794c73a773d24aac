#!/bin/bash
# SPDX-License-Identifier: PostgreSQL
# tests/live/upgrade-live.sh BINDIR - a server stays a server across its
# own binary's replacement, on the real kernel.
#
# A private copy of the postgres binary runs a cluster under
# "pgsc-exec --default log" with a private auditd and examples/pgsc.rules.
# After a first workload the binary file is replaced the way dpkg does it
# (a new file written next to it, renamed over it); the server keeps
# running, and a second workload forks new backends from the postmaster
# whose binary is now "(deleted)" (the kernel logs exe= hex-encoded for the
# space).  pgsc-collect imports the log, and the lists are checked against
# expectations derived without pgsc's attribution:
#   - every filtered process of this test is the server's (nothing else runs
#     under a filter here): the global list is every SECCOMP record's name
#     (scmp_sys_resolver), and no record is unattributed or unrelated;
#   - client backends, by pid from the server log (%p %b), before and after
#     the replacement: the session list holds every name they made, and no
#     name only the postmaster made;
#   - a control: the same log with the "(deleted)" names put back gives the
#     same report byte for byte.
# Root, takes the audit lock (tests/lib/auditd.sh).  Missing dependencies
# fail.  PGSC_LIVE_KEEP=1 keeps the work directory.
# expect's conditions are quoted '...' on purpose: evaluated when checked
# shellcheck disable=SC2016
set -euo pipefail
export LC_ALL=C
# shellcheck source=../lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
t_script upgrade-live "upgrade-live.sh BINDIR" "$@"
PGBIN=/usr/lib/postgresql/15/bin
# shellcheck source=../lib/pg.sh
. "$HERE/../lib/pg.sh"
pg_need initdb postgres pgbench psql
need_progs auditd auditctl scmp_sys_resolver runuser flock od
need_exec "$BINDIR"/pgsc-{exec,collect,report}
# shellcheck source=../lib/auditd.sh
. "$HERE/../lib/auditd.sh"

t_init upgrade-live
T_KEEP=${PGSC_LIVE_KEEP:-0}
W=$T_WORK
chmod 755 "$W"
PORT=54371
SERVER_PID=
cleanup() {
	if [ -n "$SERVER_PID" ] && kill -0 "$SERVER_PID" 2>/dev/null; then
		kill -INT "$SERVER_PID"
		for _ in $(seq 100); do kill -0 "$SERVER_PID" 2>/dev/null || break; sleep 0.1; done
	fi
	audit_end
}
t_cleanup cleanup

# The private binary: a directory whose name does not end like the
# installed one, so PostgreSQL finds its libraries and share files at the
# compiled-in places ("as usual").
mkdir -p "$W/pgbin" "$W/bin" "$W/sock" "$W/out"
cp "$PGBIN/postgres" "$W/pgbin/postgres"
chmod 755 "$W/pgbin" "$W/pgbin/postgres"
PGEXE=$W/pgbin/postgres
install -m 0755 "$BINDIR/pgsc-exec" "$W/bin/pgsc-exec"
mkdir -m 0700 "$W/data"
chown postgres "$W/sock" "$W/data"
pg_initdb "$W/data" "$W/initdb.log" --no-sync ||
	fail "initdb: $(tail -5 "$W/initdb.log")"
pg_private_conf "$W/data" "$W/sock" "$PORT"
cat >>"$W/data/postgresql.conf" <<CONF
log_line_prefix = '%m [%p] %b '
log_connections = on
log_disconnections = on
CONF

psql_c() { runuser -u postgres -- "$PGBIN/psql" -X -q -At -h "$W/sock" -p $PORT -U postgres -d postgres -c "$1"; }
pgb() { runuser -u postgres -- "$PGBIN/pgbench" -h "$W/sock" -p $PORT -U postgres "$@" postgres; }

audit_begin "$W/audit" || fail "could not start the private auditd"
audit_rules "$SRCROOT/examples/pgsc.rules" "$PGEXE" || fail "could not load examples/pgsc.rules"

# the server, from the private binary, under a log-all filter
runuser -u postgres -- "$W/bin/pgsc-exec" --default log -- "$PGEXE" -D "$W/data" \
	>"$W/server.log" 2>&1 &
for _ in $(seq 300); do
	[ -f "$W/data/postmaster.pid" ] && psql_c "SELECT 1" >/dev/null 2>&1 && break
	sleep 0.1
done
psql_c "SELECT 1" >/dev/null || fail "the server did not start: $(tail -20 "$W/server.log")"
SERVER_PID=$(head -1 "$W/data/postmaster.pid")

# workload 1, the original binary
pgb -i -s 1 -q >"$W/pgbench1.out" 2>&1 || fail "pgbench -i: $(tail -3 "$W/pgbench1.out")"
pgb -C -c 2 -T 2 >>"$W/pgbench1.out" 2>&1 || fail "pgbench 1: $(tail -3 "$W/pgbench1.out")"

# the upgrade: dpkg writes the new file beside the old and renames it over
cp "$PGBIN/postgres" "$W/pgbin/postgres.dpkg-new"
printf 'x' >>"$W/pgbin/postgres.dpkg-new"     # not the same bytes
chmod 755 "$W/pgbin/postgres.dpkg-new"
mv -f "$W/pgbin/postgres.dpkg-new" "$PGEXE"
grep -q ' (deleted)$' <(readlink "/proc/$SERVER_PID/exe") ||
	fail "test invalid: the server's exe is not '(deleted)': $(readlink "/proc/$SERVER_PID/exe")"
note "binary replaced under the running server: $(readlink "/proc/$SERVER_PID/exe")"

# workload 2: new backends forked by the replaced postmaster
pgb -C -c 2 -T 2 >"$W/pgbench2.out" 2>&1 || fail "pgbench 2: $(tail -3 "$W/pgbench2.out")"
psql_c "CHECKPOINT" || fail "CHECKPOINT"

kill -INT "$SERVER_PID"
for _ in $(seq 300); do kill -0 "$SERVER_PID" 2>/dev/null || break; sleep 0.1; done
kill -0 "$SERVER_PID" 2>/dev/null && fail "the server did not stop"
audit_sync || fail "the audit log did not catch up"
audit_end
LOG=$W/audit/audit.log

# ------------------------------------------------------------ pgsc --
"$BINDIR/pgsc-collect" --db "$W/out/s.db" --import "$LOG" >"$W/out/collect.out" 2>&1 ||
	fail "pgsc-collect: $(tail -5 "$W/out/collect.out")"
"$BINDIR/pgsc-report" --db "$W/out/s.db" >"$W/out/report.guc" || fail "pgsc-report"
head -1 "$W/out/report.guc"
guc_names() { sed -n "s/^$1 = '\\(.*\\)'\$/\\1/p" "$W/out/report.guc" | tr ',' '\n' | sed '/^$/d' | sort -u; }
# the module's needs the records lacked, which pgsc-report adds and
# names, are not the records' names
# shellcheck source=../lib/lists.sh
. "$HERE/../lib/lists.sh"
added_needs "$W/out/report.guc" >"$W/out/added"
guc_names global_syscall_allow | comm -23 - "$W/out/added" >"$W/out/global"
guc_names session_syscall_allow >"$W/out/session"

# --------------------------------------------- independent derivation --
hexdel=$(printf '%s (deleted)' "$PGEXE" | od -An -tx1 -v | tr -d ' \n' | tr a-f A-F)
seccomp() { grep -a '^type=SECCOMP ' "$LOG"; }
nr_names() { # "arch syscall" lines -> names
	sort -u | while read -r a n; do
		case $a in
		c000003e) scmp_sys_resolver -a x86_64 "$n" ;;
		40000003) scmp_sys_resolver -a x86 "$n" ;;
		*) echo "unknown-arch-$a" ;;
		esac
	done | sort -u
}
field() { sed -n "s/.* $1=\\([^ ]*\\).*/\\1/p"; }
seccomp | awk '{ for (i = 1; i <= NF; i++) { if ($i ~ /^arch=/) a = substr($i, 6); if ($i ~ /^syscall=/) s = substr($i, 9) } print a, s }' |
	nr_names >"$W/out/exp.global"
# client backends by pid, from the server log: "[pid] client backend"
awk '$4 ~ /^\[[0-9]+\]$/ && $5 == "client" && $6 == "backend" { gsub(/[][]/, "", $4); print $4 }' "$W/server.log" |
	sort -u >"$W/out/client.pids"
pm=$SERVER_PID
seccomp | awk -v pids="$(tr '\n' ' ' <"$W/out/client.pids")" '
	BEGIN { n = split(pids, p, " "); for (i = 1; i <= n; i++) want[p[i]] = 1 }
	{ pid = ""; for (i = 1; i <= NF; i++) { if ($i ~ /^pid=/) pid = substr($i, 5); if ($i ~ /^arch=/) a = substr($i, 6); if ($i ~ /^syscall=/) s = substr($i, 9) }
	  if (pid in want) print a, s }' | nr_names >"$W/out/exp.client"
seccomp | awk -v pm="$pm" '{ pid = ""; for (i = 1; i <= NF; i++) { if ($i ~ /^pid=/) pid = substr($i, 5); if ($i ~ /^arch=/) a = substr($i, 6); if ($i ~ /^syscall=/) s = substr($i, 9) }
	  if (pid == pm) print a, s }' | nr_names >"$W/out/exp.pm"
seccomp | awk -v pm="$pm" '{ pid = ""; for (i = 1; i <= NF; i++) { if ($i ~ /^pid=/) pid = substr($i, 5); if ($i ~ /^arch=/) a = substr($i, 6); if ($i ~ /^syscall=/) s = substr($i, 9) }
	  if (pid != pm) print a, s }' | nr_names >"$W/out/exp.notpm"
comm -23 "$W/out/exp.pm" "$W/out/exp.notpm" >"$W/out/exp.pmonly"

deleted=$(seccomp | grep -c "exe=$hexdel" || true)
deleted_pids=$(seccomp | grep "exe=$hexdel" | field pid | sort -u | wc -l)
after_clients=$(seccomp | grep "exe=$hexdel" | field pid | sort -u | comm -12 - "$W/out/client.pids" | wc -l)
note "$(seccomp | wc -l) SECCOMP records, $deleted of them from $deleted_pids processes with exe=\"$PGEXE (deleted)\", $after_clients of those client backends"
note "client backends: $(wc -l <"$W/out/client.pids"); expected global $(wc -l <"$W/out/exp.global"), client $(wc -l <"$W/out/exp.client"), postmaster-only $(wc -l <"$W/out/exp.pmonly"); pgsc global $(wc -l <"$W/out/global"), session $(wc -l <"$W/out/session")"

expect "the log holds records of the replaced binary (test valid)" '[ "$deleted" -gt 100 ]'
expect "client backends were forked after the replacement (test valid)" '[ "$after_clients" -ge 2 ]'
expect "some syscall only the postmaster made (test valid)" '[ -s "$W/out/exp.pmonly" ]'
expect "global list = every SECCOMP record's name" 'diff "$W/out/exp.global" "$W/out/global" >"$W/out/d.global"' ||
	true
[ -s "$W/out/d.global" ] && cat "$W/out/d.global"
q() { sqlite3 "$W/out/s.db" "$1"; }
expect "nothing unattributed ($(q 'SELECT unattributed FROM rounds'))" '[ "$(q "SELECT unattributed FROM rounds")" = 0 ]'
expect "nothing unrelated ($(q 'SELECT unrelated FROM rounds'))" '[ "$(q "SELECT unrelated FROM rounds")" = 0 ]'
expect "session list holds every client backend name" '[ -z "$(comm -23 "$W/out/exp.client" "$W/out/session")" ]'
[ -z "$(comm -23 "$W/out/exp.client" "$W/out/session")" ] || echo "  missing: $(comm -23 "$W/out/exp.client" "$W/out/session" | tr '\n' ' ')"
expect "session list has no postmaster-only name" '[ -z "$(comm -12 "$W/out/exp.pmonly" "$W/out/session")" ]'
# the control: the same log as if the binary had never been replaced
sed "s/exe=$hexdel/exe=\"${PGEXE//\//\\/}\"/" "$LOG" >"$W/out/control.log"
[ "$(grep -c "exe=$hexdel" "$W/out/control.log" || true)" = 0 ] || fail "control log still has (deleted)"
"$BINDIR/pgsc-collect" --db "$W/out/control.db" --import "$W/out/control.log" >/dev/null 2>&1 || fail "control import"
expect "the control (names put back) reports the same" \
	'cmp -s <("$BINDIR/pgsc-report" --db "$W/out/control.db") "$W/out/report.guc"'
q2() { sqlite3 "$W/out/$1" "SELECT records, attributed, unrelated, standalone, unattributed FROM rounds"; }
expect "the control counts the same ($(q2 s.db) vs $(q2 control.db))" '[ "$(q2 s.db)" = "$(q2 control.db)" ]'
[ "$T_FAIL" = 0 ] || exit 1
note "pass"
