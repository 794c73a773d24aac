#!/bin/bash
# SPDX-License-Identifier: PostgreSQL
# collect-round.sh - one manual pgsc collection round, step by step.
#
#   sudo PGDATA=/srv/pg/data bash examples/collect-round.sh [LABEL]
#
# Run it as root on the database host, with auditd running and the server
# STOPPED: the seccomp filter only covers processes started below
# pgsc-exec, so the round starts the server itself.  It
#
#   1. loads pgsc's audit rules (the process tree),
#   2. starts PostgreSQL under "pgsc-exec --default log",
#   3. runs a workload (edit run_workload below),
#   4. stops the server and waits until auditd has written everything,
#   5. removes the rules,
#   6. imports the audit log into the store as a new round,
#   7. prints the lists, and writes them to lists.conf next to the store.
#
# The next run of this script starts the server under the lists found so
# far (LISTS=...), so it logs only what they still miss.  Repeat until a
# round adds nothing.  Whatever happens, the rules are removed and the
# server is stopped on exit.
#
# Settings (environment):
#   PGDATA      the cluster's data directory (required; it must hold
#               postgresql.conf, as for pg_ctl -D)
#   PGBIN       PostgreSQL programs          (found: pg-layout.sh)
#   PGOSUSER    the server's system user     (postgres)
#   PGSC_BIN    where pgsc-exec, pgsc-collect, pgsc-report are
#               (the directory of pgsc-collect in PATH)
#   STORE       the pgsc store               (/var/lib/pgsc/lists.db)
#   LISTS       a GUC file whose session_syscall_allow list the server
#               runs under; empty for "log everything"
#               (default: lists.conf next to STORE if it exists)
#   AUDIT_LOG   auditd's log (log_file of /etc/audit/auditd.conf)
#   RULES       the audit rules (pgsc.rules next to this script)
set -euo pipefail

LABEL=${1:-round-$(date +%Y%m%d-%H%M%S)}
: "${PGDATA:?set PGDATA to the data directory of the cluster}"
# PGBIN: the server found as pgsc finds it (pg-layout.sh: PG_CONFIG,
# PATH's pg_config, /usr/lib/postgresql/NN/bin, /usr/pgsql-NN/bin)
if [ -z "${PGBIN:-}" ]; then
	for l in "$(dirname "$0")/../tools/pg-layout.sh" /usr/share/pgsc/pg-layout.sh \
		/usr/local/share/pgsc/pg-layout.sh; do
		[ -f "$l" ] && break
	done
	[ -f "$l" ] || { echo "collect-round.sh: set PGBIN (no pg-layout.sh found)" >&2; exit 2; }
	# shellcheck source=../tools/pg-layout.sh
	. "$l"
	pg_layout_find || { echo "collect-round.sh: $PG_LAYOUT_ERR; set PGBIN" >&2; exit 2; }
fi
PGOSUSER=${PGOSUSER:-postgres}
PGSC_BIN=${PGSC_BIN:-$(dirname "$(command -v pgsc-collect || echo /usr/local/bin/pgsc-collect)")}
STORE=${STORE:-/var/lib/pgsc/lists.db}
RULES=${RULES:-$(cd "$(dirname "$0")" && pwd)/pgsc.rules}
if [ -z "${AUDIT_LOG:-}" ]; then
	AUDIT_LOG=$(awk -F' *= *' '$1 == "log_file" { print $2 }' /etc/audit/auditd.conf 2>/dev/null || true)
	AUDIT_LOG=${AUDIT_LOG:-/var/log/audit/audit.log}
fi
if [ -z "${LISTS+set}" ] && [ -f "$(dirname "$STORE")/lists.conf" ]; then
	LISTS=$(dirname "$STORE")/lists.conf
fi
LISTS=${LISTS:-}

say() { echo "collect-round: $*" >&2; }
die() { say "error: $*"; exit 1; }
as_pg() { runuser -u "$PGOSUSER" -- "$@"; }

# --- 0. preconditions ------------------------------------------------------
[ "$(id -u)" = 0 ] || die "run as root (auditctl needs it)"
for p in pgsc-exec pgsc-collect pgsc-report; do
	[ -x "$PGSC_BIN/$p" ] || die "$PGSC_BIN/$p not found (set PGSC_BIN)"
done
[ -f "$RULES" ] || die "audit rules $RULES not found (set RULES)"
[ -f "$PGDATA/postgresql.conf" ] || die "$PGDATA/postgresql.conf not found (set PGDATA)"
# One audit daemon must be registered with the kernel and writing the log:
# without one, SECCOMP records go to the kernel log and are lost.
auditd_pid=$(auditctl -s | awk '$1 == "pid" { print $2 }')
if [ -z "$auditd_pid" ] || [ "$auditd_pid" = 0 ]; then
	die "no audit daemon is running"
fi
[ -f "$AUDIT_LOG" ] || die "audit log $AUDIT_LOG not found (set AUDIT_LOG)"
if as_pg "$PGBIN/pg_ctl" -D "$PGDATA" status >/dev/null 2>&1; then
	die "the server in $PGDATA is running; stop it first (the round starts it under the filter)"
fi
# The server's user runs pgsc-exec, so it must be able to execute it.
as_pg test -x "$PGSC_BIN/pgsc-exec" || die "$PGOSUSER cannot execute $PGSC_BIN/pgsc-exec"
mkdir -p "$(dirname "$STORE")"

WORK=$(mktemp -d /tmp/pgsc-round.XXXXXX)
started=0
old_backlog=$(auditctl -s | awk '$1 == "backlog_limit" { print $2 }')
cleanup() {
	set +e
	if [ "$started" = 1 ]; then
		say "stopping the server"
		as_pg "$PGBIN/pg_ctl" -D "$PGDATA" -m fast -w stop >/dev/null
	fi
	# Remove only pgsc's rules (key "pgsc"); other rules stay.
	auditctl -D -k pgsc >/dev/null 2>&1
	[ -n "$old_backlog" ] && auditctl -b "$old_backlog" >/dev/null 2>&1
	rm -rf "$WORK"
}
trap cleanup EXIT

# --- 1. audit rules ----------------------------------------------------------
# fork/clone/vfork/clone3, execve/execveat and exit_group records give pgsc
# the process tree: who is the postmaster, which backend is which, which
# programs run below them.  auditctl -R reads only a root-owned file that
# others cannot write (not stdin), hence the private copy.  The sed keeps
# older rule files working that name the server binary as @POSTGRES@.
install -m 0600 /dev/null "$WORK/pgsc.rules"
sed "s|@POSTGRES@|$PGBIN/postgres|g" "$RULES" >"$WORK/pgsc.rules"
auditctl -D -k pgsc >/dev/null 2>&1 || true   # stale rules of a killed run
auditctl -R "$WORK/pgsc.rules" >/dev/null
# A larger kernel backlog: a busy server makes tens of thousands of records
# a second, and the default backlog of 64 loses them.  Restored on exit.
auditctl -b 8192 >/dev/null
say "audit rules loaded ($(auditctl -l -k pgsc | wc -l) rules)"

# --- 2. start the server under the filter -----------------------------------
# --default log: every syscall not on the allow list is allowed and leaves
# one SECCOMP record.  The filter is inherited by every process the server
# starts (backends, COPY ... TO PROGRAM, archive_command).  With lists from
# an earlier round, load the SESSION list: it is the smaller one, so
# everything outside it is logged, whoever makes it (see pgsc-exec(1)).
filter=(--default log)
if [ -n "$LISTS" ]; then
	[ -r "$LISTS" ] || die "LISTS=$LISTS is not readable"
	cp "$LISTS" "$WORK/lists.conf"
	chmod 644 "$WORK/lists.conf"
	filter+=(--allow-file "$WORK/lists.conf" --list session)
	say "the server runs under the session list of $LISTS"
else
	say "the server runs with every syscall logged"
fi
# The server's user writes its log (pg_ctl -l) and reads the lists there.
chown "$PGOSUSER" "$WORK"
chmod 755 "$WORK"
as_pg "$PGSC_BIN/pgsc-exec" "${filter[@]}" -- \
	"$PGBIN/pg_ctl" -D "$PGDATA" -l "$WORK/server.log" -w -t 120 start >/dev/null
started=1
say "server started"

# --- 3. the workload ---------------------------------------------------------
# Exercise everything the server will do in production: your application's
# test suite, maintenance jobs, backups, replication, extensions,
# COPY ... TO PROGRAM, archive_command.  A syscall that no round saw is
# missing from the lists.  This default only runs pgbench in a scratch
# database; replace it.  PGHOST/PGPORT from the environment are honoured.
run_workload() {
	as_pg "$PGBIN/psql" -X -q -d postgres \
		-c 'SET client_min_messages = warning' \
		-c 'DROP DATABASE IF EXISTS pgsc_workload' \
		-c 'CREATE DATABASE pgsc_workload'
	as_pg "$PGBIN/pgbench" -q -i -s 2 pgsc_workload >/dev/null 2>&1
	as_pg "$PGBIN/pgbench" -c 4 -T 20 pgsc_workload >/dev/null 2>&1
	as_pg "$PGBIN/pgbench" -C -c 4 -T 10 pgsc_workload >/dev/null 2>&1
	as_pg "$PGBIN/psql" -X -q -d pgsc_workload \
		-c 'VACUUM ANALYZE' -c 'CHECKPOINT'
	as_pg "$PGBIN/psql" -X -q -d postgres -c 'DROP DATABASE pgsc_workload'
}
say "running the workload"
run_workload

# --- 4. stop the server, let auditd catch up ---------------------------------
# Backends and auxiliary processes write their last records (exit_group
# with the process title) when they exit, so stop the server before
# importing.
as_pg "$PGBIN/pg_ctl" -D "$PGDATA" -m fast -w stop >/dev/null
started=0
say "server stopped"
# A marker record goes through the same kernel queue as the SECCOMP records:
# once auditd has written it, it has written everything before it.
marker="pgsc-round-end-$$-$RANDOM"
auditctl -m "$marker"
for _ in $(seq 1 300); do
	grep -q -F "$marker" "$AUDIT_LOG" 2>/dev/null && break
	sleep 0.1
done
grep -q -F "$marker" "$AUDIT_LOG" || say "warning: the end marker is not in $AUDIT_LOG yet (rotated, or auditd is slow)"

# --- 5. remove the rules -----------------------------------------------------
auditctl -D -k pgsc >/dev/null
[ -n "$old_backlog" ] && auditctl -b "$old_backlog" >/dev/null
say "audit rules removed"

# --- 6. import ---------------------------------------------------------------
# Give every rotated file, in any order: pgsc reads only what it has not
# imported yet, and a file it read before is continued where it stopped.
# If auditd rotated during the round, the older files hold part of it.
"$PGSC_BIN/pgsc-collect" --db "$STORE" --label "$LABEL" --import "$AUDIT_LOG"*

# --- 7. report ---------------------------------------------------------------
echo
"$PGSC_BIN/pgsc-report" --db "$STORE"
# The same lists as a file for the next round (and for pgsc-exec
# --allow-file).  For the pgseccomp extension, use
#   pgsc-report --db "$STORE" --guc-prefix pgseccomp. --session-roles pgseccomp
# and see examples/postgresql.conf.pgseccomp.
"$PGSC_BIN/pgsc-report" --db "$STORE" >"$(dirname "$STORE")/lists.conf"
say "lists written to $(dirname "$STORE")/lists.conf"

# Convergence: did this round add anything?  (needs the sqlite3 CLI)
if command -v sqlite3 >/dev/null; then
	last=$(sqlite3 "$STORE" 'SELECT max(id) FROM rounds')
	if [ -n "$last" ] && [ "$last" -gt 1 ]; then
		if diff -q <("$PGSC_BIN/pgsc-report" --db "$STORE" --round "1-$last" | grep -v '^#') \
			<("$PGSC_BIN/pgsc-report" --db "$STORE" --round "1-$((last - 1))" | grep -v '^#') >/dev/null; then
			say "round $last added nothing: the lists have converged for this workload"
		else
			say "round $last added syscalls; run another round"
		fi
	fi
fi
