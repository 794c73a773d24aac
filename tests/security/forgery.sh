#!/bin/bash
# SPDX-License-Identifier: PostgreSQL
# tests/security/forgery.sh BINDIR - a user's own "postgres" against
# --server-user (docs/security.md, section 2).
#
# Runs as root under the audit lock (/run/pgsc-audit.lock): a private
# auditd with pgsc's rules writes audit.log while the same program, a copy
# of tests/storm named "postgres", runs once as the server's user
# (postgres) and once as nobody.  Each run forks one child (a postgres
# child of a postgres parent: a server's tree by name alone) that logs
# CALLS getppid records under its own log-mode filter.  The kernel, not
# the program, writes uid= into each record.
#   name-only  without --server-user both runs count for a server
#              (the hole this option closes; a control that the fake is
#              a convincing one);
#   uid        with --server-user postgres: nobody's records are all
#              outside any server (unrelated), postgres's all inside,
#              and pgsc-report's lists hold the postgres run's call only
#              from it (the counts per role say so);
#   bad-user   an unknown user is refused with a clear message.
# Environment: PGSC_HARDENING_KEEP=1 keeps the work directory.
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../hardening/lib.sh
. "$HERE/../hardening/lib.sh"
hd_init forgery "${1:-}"
CALLS=3000
STORM=$BINDIR/tests/storm
RULES=$HERE/../../examples/pgsc.rules
need_root "audit daemon, audit rules, runuser"
need_progs auditd auditctl flock runuser
need_exec "$STORM"
need_file "$RULES"
id postgres >/dev/null 2>&1 || fail "no user postgres (Debian package 'postgresql-15')"
id nobody >/dev/null 2>&1 || fail "no user nobody"
PG_UID=$(id -u postgres)
NOBODY_UID=$(id -u nobody)

hd_audit_take

# The fake server: a program named postgres both users can run.
chmod 0755 "$W"
mkdir -p "$W/bin"
cp "$STORM" "$W/bin/postgres"
chmod 0755 "$W/bin" "$W/bin/postgres"

audit_begin "$W/audit" || fail "could not start the private auditd"
audit_rules "$RULES" || fail "could not load $RULES"
runuser -u postgres -- "$W/bin/postgres" "$CALLS" 1 >"$W/pg.out" 2>&1 ||
	fail "the run as postgres failed: $(cat "$W/pg.out")"
runuser -u nobody -- "$W/bin/postgres" "$CALLS" 1 >"$W/nobody.out" 2>&1 ||
	fail "the run as nobody failed: $(cat "$W/nobody.out")"
audit_sync || fail "the audit log did not catch up (sync marker not seen)"
audit_end
LOG=$W/audit/audit.log

# The uid the kernel gave each getppid record, independently of pgsc.
per_uid() { grep '^type=SECCOMP' "$LOG" | grep -c " uid=$1 .* syscall=110 "; }
N_PG=$(per_uid "$PG_UID")
N_NOBODY=$(per_uid "$NOBODY_UID")
[ "$N_PG" = "$CALLS" ] && [ "$N_NOBODY" = "$CALLS" ] ||
	fail "audit.log holds $N_PG getppid records of uid $PG_UID and $N_NOBODY of uid $NOBODY_UID, expected $CALLS each"

# records of syscall 110 (getppid) in a server role, and outside any
in_server="SELECT coalesce(sum(count), 0) FROM aggregates WHERE nr = 110 AND role NOT IN ('unrelated', 'unattributed', 'standalone')"
outside="SELECT coalesce(sum(count), 0) FROM aggregates WHERE nr = 110 AND role IN ('unrelated', 'unattributed', 'standalone')"

check_name_only() {
	local db=$W/name.db
	"$COLLECT" --db "$db" --quiet --import "$LOG" 2>"$W/name.err" ||
		{ bad "the import failed: $(cat "$W/name.err")"; return; }
	[ "$(q "$db" "$in_server")" = $((2 * CALLS)) ] ||
		bad "without --server-user, $(q "$db" "$in_server") getppid records count for a server, expected both runs' $((2 * CALLS)) (roles: $(q "$db" "SELECT role, sum(count) FROM aggregates WHERE nr = 110 GROUP BY 1" | tr '\n' ' '))"
}

check_uid() {
	local db=$W/uid.db
	"$COLLECT" --db "$db" --quiet --server-user postgres --import "$LOG" 2>"$W/uid.err" ||
		{ bad "the import failed: $(cat "$W/uid.err")"; return; }
	[ "$(q "$db" "$in_server")" = "$N_PG" ] ||
		bad "with --server-user postgres, $(q "$db" "$in_server") getppid records count for a server, expected the postgres run's $N_PG (roles: $(q "$db" "SELECT role, sum(count) FROM aggregates WHERE nr = 110 GROUP BY 1" | tr '\n' ' '))"
	[ "$(q "$db" "$outside")" = "$N_NOBODY" ] ||
		bad "with --server-user postgres, $(q "$db" "$outside") getppid records are outside any server, expected nobody's $N_NOBODY"
	# by uid: the same with the number, and the processes of nobody's
	# run are all outside
	local db2=$W/uid2.db
	"$COLLECT" --db "$db2" --quiet --server-user "$PG_UID" --import "$LOG" 2>>"$W/uid.err" ||
		{ bad "the import with a numeric uid failed: $(cat "$W/uid.err")"; return; }
	[ "$(counts "$db2")" = "$(counts "$db")" ] ||
		bad "--server-user $PG_UID and --server-user postgres disagree"
}

check_bad_user() {
	local out st
	out=$("$COLLECT" --db "$W/bad.db" --server-user no-such-user-pgsc --import "$LOG" 2>&1)
	st=$?
	[ "$st" = 2 ] || bad "an unknown --server-user exited $st, expected 2"
	case $out in
	*'no user "no-such-user-pgsc"'*) ;;
	*) bad "an unknown --server-user said: $out" ;;
	esac
	[ ! -s "$W/bad.db" ] || bad "an unknown --server-user still wrote the store"
}

run name-only check_name_only
run uid check_uid
run bad-user check_bad_user
hd_finish
