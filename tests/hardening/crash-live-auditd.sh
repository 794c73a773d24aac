#!/bin/bash
# SPDX-License-Identifier: PostgreSQL
# tests/hardening/crash-live-auditd.sh BINDIR - kill -9 during a live
# file: follow of a real auditd's log.
#
# Runs as root under the audit lock (/run/pgsc-audit.lock, see
# tests/lib/auditd.sh): a private auditd writes audit.log with pgsc's
# rules loaded (fork, exec and exit of every process on the machine), while
# tests/storm runs again and again (each run forks two processes that wait
# 0-300 ms, then make getppid SECCOMP records: a commit in that wait holds
# a child whose fork record is behind the position and that has no record
# yet).  `pgsc-collect --source file:audit.log` is
# killed with SIGKILL at 50 random moments (0.05-0.5 s apart) and
# restarted each time.  When the kills are done auditd is stopped, so the
# log is final; then, as in crash-live.sh:
#   kills   integrity after every kill; one finished round with 50
#           restarts; the committed count never went down; records and
#           counts per (arch, syscall) equal a clean --import of the log;
#           a clean live follow equals the clean import;
#   roles   the storm's records: per role, and per (role, arch, syscall)
#           in its roles, equal the clean live run's (another server's
#           records are noted, not compared: see check_roles).
# Environment: PGSC_HARDENING_KILLS (default 50), PGSC_HARDENING_KEEP=1.
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib.sh
. "$HERE/lib.sh"
hd_init crash-live-auditd "${1:-}"
KILLS=${PGSC_HARDENING_KILLS:-50}
STORM=$BINDIR/tests/storm
RULES=$HERE/../../examples/pgsc.rules
need_root "audit daemon, audit rules"
need_progs auditd auditctl flock
need_exec "$STORM"
need_file "$RULES"
[ -f "$HD_LIB/../lib/auditd.sh" ] || fail "tests/lib/auditd.sh is missing"
KERR=$W/collect.err

hd_audit_take
PRODUCER=
# shellcheck disable=SC2016 # evaluated at exit
hd_on_exit '[ -n "$COLL" ] && kill -KILL "$COLL"; [ -n "$PRODUCER" ] && kill -KILL "$PRODUCER"'

DB=$W/kills/k.db
check_kills() {
	local log
	mkdir -p "$W/kills"
	audit_begin "$W/audit" || { bad "could not start the private auditd"; return; }
	audit_rules "$RULES" || { bad "could not load $RULES"; return; }
	log=$W/audit/audit.log
	(
		while [ ! -e "$W/stop" ]; do "$STORM" 5000 2 "$((RANDOM % 300))" >/dev/null || exit 1; done
	) &
	PRODUCER=$!
	live_kills "$DB" "$log" "$KILLS" "$PRODUCER"
	touch "$W/stop"
	wait "$PRODUCER" || bad "a storm failed"
	PRODUCER=
	audit_sync || bad "the audit log did not catch up (sync marker not seen)"
	# stop auditd: the log is final (pgsc's rules log every process here)
	audit_end
	[ -n "$COLL" ] || return
	live_final "$DB" "$log" "$KILLS"
	echo "crash-live-auditd: $KILLS kills, $LK_DURING during storms; $(q "$DB" "SELECT records FROM rounds") SECCOMP records, $(grep -c . "$log") lines in audit.log; committed at the restarts: $(echo "$LF_BASE" | awk '{ printf "%s %s %s ... %s", $1, $2, $3, $NF }')"
}

# The roles of the storm's own records.  pgsc's rules log every process on
# the machine, and a server someone else runs under a log filter writes its
# SECCOMP records into this log too; a live collector names a process with
# no title yet from /proc/PID/cmdline while it still runs, so the killed
# run (during the storms) and the clean one (after them) name such a
# server's processes differently, by when each read /proc (one run of
# 18 here: 424 records of another server's checkpointer, walwriter and
# the like, named by the killed run, "backend" in the clean one).  Those
# are told apart by exe, noted, and not compared.
check_roles() {
	local own="exe LIKE '%/tests/storm'" mine other
	[ -n "${CLEAN_LIVE:-}" ] || { bad "no clean run to compare with"; return; }
	mine="SELECT role, sum(records) FROM processes WHERE $own GROUP BY 1 ORDER BY 1"
	[ -n "$(q "$DB" "$mine")" ] || { bad "no process of the storm in the killed run's store"; return; }
	[ "$(q "$DB" "$mine")" = "$(q "$CLEAN_LIVE" "$mine")" ] ||
		bad "the storm's records per role differ from a clean live run's: killed run $(q "$DB" "$mine" | tr '\n' ' '); clean run $(q "$CLEAN_LIVE" "$mine" | tr '\n' ' ')"
	# counts per (role, arch, syscall) in the roles the storm's processes have
	mine="SELECT role, arch, nr, sum(count) FROM aggregates
		WHERE role IN (SELECT role FROM processes WHERE $own) GROUP BY 1, 2, 3 ORDER BY 1, 2, 3"
	[ "$(q "$DB" "$mine")" = "$(q "$CLEAN_LIVE" "$mine")" ] ||
		bad "counts per (role, arch, syscall) in the storm's roles differ from a clean live run's in $(diff <(q "$DB" "$mine") <(q "$CLEAN_LIVE" "$mine") | grep -c '^<') rows"
	other="SELECT coalesce(sum(records), 0) FROM processes WHERE NOT ($own)"
	[ "$(q "$DB" "$other")" = 0 ] ||
		note "records of processes not the storm's (another server on this machine): $(q "$DB" "$other") in the killed run, $(q "$CLEAN_LIVE" "$other") in the clean one; not compared"
}

run kills check_kills
run roles check_roles
hd_finish
