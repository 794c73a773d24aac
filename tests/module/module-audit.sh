#!/bin/bash
# SPDX-License-Identifier: PostgreSQL
# tests/module/module-audit.sh MODDIR PG_CONFIG - the module's actions are audited.
#
# Runs as root, holding the audit lock (tests/lib/auditd.sh) for a private
# auditd.  A real PostgreSQL 15 with the pgsc module preloaded (installed
# from MODDIR when the installed copy differs), global filter default
# allow with getdents64 on its log list, and three roles:
#   bob    session default error, every x86_64 syscall allowed but getdents64
#   carol  session default error, every x86_64 syscall allowed
#   dave   session kill list getdents64
# Each runs pg_ls_dir() (readdir = getdents64).  Expected SECCOMP records
# for syscall 217 (getdents64), by pid (from pg_backend_pid() and
# postmaster.pid):
#   postmaster  code=0x7ffc0000 (log)          global log, at startup
#   bob         code=0x50000 (errno; the kernel logs the action without
#               its data, EPERM is seen in the error message)  audited (CTL_LOG)
#   carol       code=0x7ffc0000 (log)          global log beats session allow
#   dave        code=0x80000000 (kill process) kill is audited, sig=31
# The syscall lists are enumerated with scmp_sys_resolver, not written here.

set -euo pipefail
export LC_ALL=C

# shellcheck source=../lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
T_NAME=module-audit

[ $# -ge 2 ] || fail "usage: module-audit.sh MODDIR PG_CONFIG"
MODDIR=$1
PG_CONFIG=$2
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

need_root "auditd, the server as postgres"
# shellcheck source=../lib/pg.sh
. "$HERE/../lib/pg.sh"
pg_module "$MODDIR" "$PG_CONFIG"
pg_need initdb pg_ctl psql
need_progs auditd auditctl scmp_sys_resolver runuser awk flock make
GD=$(scmp_sys_resolver -a x86_64 getdents64)
[ "$GD" -ge 0 ] 2>/dev/null || fail "scmp_sys_resolver does not resolve getdents64"
pg_module_install "$MODDIR" "$PG_CONFIG"

# shellcheck source=../lib/auditd.sh
. "$HERE/../lib/auditd.sh"

t_init module-audit
T_KEEP=${PGSC_MODULE_KEEP:-0}
W=$T_WORK
chmod 755 "$W"
D=$W/data
SOCK=$W/sock
mkdir "$SOCK"
chown postgres "$W" "$SOCK"
chmod 700 "$SOCK"
RESULT=fail

# the work directory is kept when the test fails, or PGSC_MODULE_KEEP=1
cleanup() {
	pg_stop_now "$D"
	audit_end
	[ "$RESULT" = pass ] || T_KEEP=1
}
t_cleanup cleanup

q() {
	runuser -u postgres -- "$PGBIN/psql" -h "$SOCK" -X -At -v ON_ERROR_STOP=1 -d postgres "$@"
}

for n in $(seq 0 1023); do
	scmp_sys_resolver -a x86_64 "$n"
	echo
done | grep -E '^[a-z0-9_]+$' | sort -u >"$W/all.names"
[ "$(wc -l <"$W/all.names")" -gt 300 ] || fail "only $(wc -l <"$W/all.names") x86_64 syscall names enumerated"
ALL=$(paste -sd, "$W/all.names")
NO_GD=$(grep -vx getdents64 "$W/all.names" | paste -sd,)

pg_initdb "$D" "$W/initdb.log" -N ||
	fail "initdb failed: $(tail -5 "$W/initdb.log")"
pg_private_conf "$D" "$SOCK"
cat >>"$D/postgresql.conf" <<EOF
fsync = off
shared_preload_libraries = 'pgsc'
pgsc.enabled = on
pgsc.global_syscall_default = allow
pgsc.global_syscall_log = 'getdents64'
EOF

note "waiting for the audit lock $PGSC_AUDIT_LOCK"
audit_begin "$W/audit" || fail "cannot start the private auditd"
note "private auditd running"

touch "$W/server.log"
chown postgres "$W/server.log"
runuser -u postgres -- "$PGBIN/pg_ctl" -D "$D" -l "$W/server.log" -w -t 60 start >/dev/null ||
	fail "the server did not start: $(cat "$W/server.log")"
PM=$(head -1 "$D/postmaster.pid")
q -c "CREATE ROLE bob LOGIN" -c "CREATE ROLE carol LOGIN" -c "CREATE ROLE dave LOGIN" \
	-c "GRANT EXECUTE ON FUNCTION pg_ls_dir(text) TO bob, carol, dave" \
	-c "ALTER ROLE bob SET pgsc.session_syscall_default = 'error'" \
	-c "ALTER ROLE bob SET pgsc.session_syscall_allow = '$NO_GD'" \
	-c "ALTER ROLE carol SET pgsc.session_syscall_default = 'error'" \
	-c "ALTER ROLE carol SET pgsc.session_syscall_allow = '$ALL'" \
	-c "ALTER ROLE dave SET pgsc.session_syscall_kill = 'getdents64'" >/dev/null

# run_as ROLE: pg_backend_pid(), then pg_ls_dir; prints the pid
run_as() {
	runuser -u postgres -- "$PGBIN/psql" -h "$SOCK" -X -At -U "$1" -d postgres \
		-c "SELECT pg_backend_pid()" -c "SELECT count(*) FROM pg_ls_dir('.')" \
		>"$W/$1.out" 2>&1 || true
	head -1 "$W/$1.out"
}
BOB=$(run_as bob)
CAROL=$(run_as carol)
DAVE=$(run_as dave)
grep -q 'Operation not permitted' "$W/bob.out" || fail "bob's pg_ls_dir did not fail with EPERM: $(cat "$W/bob.out")"
grep -q 'server closed the connection unexpectedly' "$W/dave.out" || fail "dave's backend was not killed: $(cat "$W/dave.out")"
[ "$(sed -n 2p "$W/carol.out")" -gt 0 ] 2>/dev/null || fail "carol's pg_ls_dir failed: $(cat "$W/carol.out")"
for p in "$BOB" "$CAROL" "$DAVE"; do
	[ "$p" -gt 0 ] 2>/dev/null || fail "no backend pid (bob '$BOB' carol '$CAROL' dave '$DAVE')"
done
audit_sync || fail "the audit log did not catch up"

# codes of the SECCOMP records of syscall $GD by pid
awk -v gd="$GD" '/type=SECCOMP / {
	sub(/\035.*/, "")      # the ENRICHED part: names we do not trust
	pid = ""; sc = ""; code = ""; sig = ""
	for (i = 1; i <= NF; i++) {
		if ($i ~ /^pid=/) pid = substr($i, 5)
		else if ($i ~ /^syscall=/) sc = substr($i, 9)
		else if ($i ~ /^code=/) code = substr($i, 6)
		else if ($i ~ /^sig=/) sig = substr($i, 5)
	}
	if (sc == gd) print pid, code, sig
}' "$W/audit/audit.log" | sort -u >"$W/records"

expect_record() { # expect_record WHO PID CODE [SIG]
	local got
	got=$(awk -v p="$2" '$1 == p { print $2 " sig=" $3 }' "$W/records" | sort -u | paste -sd' ')
	[ -n "$got" ] || fail "no SECCOMP record of getdents64 for $1 (pid $2); records: $(cat "$W/records")"
	case " $got " in
	*" $3 sig=${4:-0} "*) ;;
	*) fail "$1 (pid $2): records '$got', expected code=$3 sig=${4:-0}" ;;
	esac
	note "$1 (pid $2): code=$3 sig=${4:-0}"
}
expect_record postmaster "$PM" 0x7ffc0000
expect_record bob "$BOB" 0x50000
expect_record carol "$CAROL" 0x7ffc0000
expect_record dave "$DAVE" 0x80000000 31
# bob's and dave's stricter actions replaced the global log entirely
awk -v p="$BOB" '$1 == p && $2 != "0x50000"' "$W/records" | grep -q . &&
	fail "bob has records other than EPERM: $(cat "$W/records")"
RESULT=pass
echo "module-audit: all checks passed"
