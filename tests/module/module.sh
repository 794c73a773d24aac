#!/bin/bash
# SPDX-License-Identifier: PostgreSQL
# tests/module/module.sh MODDIR PG_CONFIG - tests of the pgsc PostgreSQL module.
#
# Runs as root (ctest label "module").  MODDIR is the PGXS build directory
# holding pgsc.so (BUILD/pgmodule); the module is installed into the
# server's pkglibdir from there when the installed copy differs.  Starts a
# real PostgreSQL 15 as user postgres in a private data directory, socket
# in a private directory, listen_addresses = '', and checks:
#   1. the server does not start with a bad global list, a bad default,
#      a '*' in a global list, a bad session list or a misspelt pgsc.*
#      name, and says why;
#   2. the global filter works in the postmaster itself: with getdents64
#      on its error list the server's own startup fails with EPERM; with
#      pgsc.enabled = off nothing is loaded;
#   3. the module loads: the postmaster and its children carry one filter,
#      a client backend two (/proc/PID/status);
#   4. pgsc_filter() gives the precedence kill > error > log > allow and
#      the session '*', computed here independently (awk) from the lists
#      the test sets, numbers from scmp_sys_resolver;
#   5. per-role session lists (ALTER ROLE ... SET) reach pgsc_filter()
#      and the loaded filter;
#   6. invalid names are rejected with a clear message by SET, ALTER
#      SYSTEM, ALTER ROLE and a configuration reload; non-superusers
#      cannot change the session lists;
#   7. a session under default "error" whose allow list is every syscall
#      libseccomp knows on x86_64 (enumerated here) except getdents64
#      works, and pg_ls_dir() (readdir = getdents64) fails with EPERM;
#      the same role with getdents64 allowed runs pg_ls_dir(); a session
#      kill list with getdents64 kills the backend with SIGSYS;
#   8. ENOSYS for the unknown (docs/module.md): pgsc_filter() shows the
#      known max per arch (found here with scmp_sys_resolver); under a
#      session default error, a program run by COPY FROM PROGRAM that calls
#      a number above the known max gets ENOSYS with
#      pgsc.unknown_syscall_action = enosys and EPERM with default, and a
#      program creating a thread under a list without clone3 and
#      pgsc.syscall_known_max = 'x86_64:434' (a list made before clone3)
#      runs its thread through glibc's clone fallback with enosys, and fails
#      with EPERM with default; bad values refuse to start;
#   9. a filter per backend type (docs/module.md): every type has its five
#      settings; each process of a type with settings carries its own
#      filter (Seccomp_filters 2, the others 1); the type's lists refuse
#      in a client backend (pg_ls_dir), a parallel worker (shm_open's
#      openat), a walsender (pg_basebackup's sendto) and the checkpointer
#      (CHECKPOINT's pwrite64), and nowhere else;
#      argument rules: a session list with socket(a0=1) (AF_UNIX only)
#      makes dblink's AF_INET socket fail with EPERM, the session lives,
#      pgsc_filter() shows the rule, SET refuses a bad rule;
#  10. its own needs: the postmaster refuses to start with a global filter
#      that refuses a call of filter_needs[] (src/filter_build.c), naming it;
#  11. the session filter built once (src/pgmodule/pgsc_prebuilt.c): a
#      session with the postmaster's lists loads the postmaster's program,
#      one with a role's own builds its own, both refuse and answer ENOSYS
#      alike, and a reload rebuilds it; the same under the major's
#      shipped module file (examples/lists/, error), nothing refused.
# No audit records are needed, so the audit lock is not taken (ctest runs
# it alone: its servers' log filters write SECCOMP records).
# PGSC_MODULE_KEEP=1 keeps the work directory.

set -euo pipefail
export LC_ALL=C

# shellcheck source=../lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
T_NAME=module

[ $# -ge 2 ] || fail "usage: module.sh MODDIR PG_CONFIG"
MODDIR=$1
PG_CONFIG=$2
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SRCROOT=$(cd "$HERE/../.." && pwd)

# ---------------------------------------------------------------- deps --
need_root "installs the module, runs the server as postgres"
# shellcheck source=../lib/pg.sh
. "$HERE/../lib/pg.sh"
pg_module "$MODDIR" "$PG_CONFIG"
pg_need initdb pg_ctl postgres psql pg_isready
need_progs scmp_sys_resolver runuser awk sort comm make cc
[ "$(scmp_sys_resolver -a x86_64 217)" = getdents64 ] ||
	fail "scmp_sys_resolver does not name x86_64 syscall 217 getdents64"
pg_module_install "$MODDIR" "$PG_CONFIG"

# ------------------------------------------------------------ workdir --
t_init module
T_KEEP=${PGSC_MODULE_KEEP:-0}
W=$T_WORK
chmod 755 "$W"
D=$W/data
SOCK=$W/sock
mkdir "$SOCK"
chown postgres "$W" "$SOCK"
chmod 700 "$SOCK"
LOGN=0
LOG=

# the work directory is kept when the test fails, or PGSC_MODULE_KEEP=1
cleanup() {
	pg_stop_now "$D"
	[ "$T_RC" = 0 ] || T_KEEP=1
}
t_cleanup cleanup

pg_initdb "$D" "$W/initdb.log" -N ||
	fail "initdb failed: $(tail -5 "$W/initdb.log")"
pg_private_conf "$D" "$SOCK"
cat >>"$D/postgresql.conf" <<EOF
fsync = off
shared_preload_libraries = 'pgsc'
include 'pgsc.conf'
EOF

# set_conf LINES...: the pgsc settings of the next start
set_conf() {
	printf '%s\n' "$@" >"$D/pgsc.conf"
	chown postgres "$D/pgsc.conf"
}

# start: 0 when the server started; its log is $LOG
start() {
	LOGN=$((LOGN + 1))
	LOG=$W/server.$LOGN.log
	touch "$LOG"
	chown postgres "$LOG"
	runuser -u postgres -- "$PGBIN/pg_ctl" -D "$D" -l "$LOG" -w -t 60 start >/dev/null 2>&1
}

stop() {
	runuser -u postgres -- "$PGBIN/pg_ctl" -D "$D" -m fast -w -t 60 stop >/dev/null ||
		fail "pg_ctl stop failed"
}

# q [psql options] SQL: one statement as postgres (or -U role), unaligned
q() {
	runuser -u postgres -- "$PGBIN/psql" -h "$SOCK" -X -At -v ON_ERROR_STOP=1 -d postgres "$@"
}

# q_err SQL...: run, expect failure, print stderr
q_err() {
	local out
	if out=$(runuser -u postgres -- "$PGBIN/psql" -h "$SOCK" -X -At -v ON_ERROR_STOP=1 -d postgres "$@" 2>&1); then
		fail "expected an error from: $* (got: $out)"
	fi
	printf '%s\n' "$out"
}

expect_in() { # expect_in TEXT NEEDLE WHAT
	case $1 in
	*"$2"*) ;;
	*) fail "$3: expected '$2' in: $1" ;;
	esac
}

# seccomp_status PID: "mode filters" from /proc
seccomp_status() {
	awk '/^Seccomp:/ { m = $2 } /^Seccomp_filters:/ { f = $2 } END { print m, f }' "/proc/$1/status"
}

# ------------------------------------------------ 1. refusing to start --
bad_start() { # bad_start WHAT NEEDLE CONF...
	local what=$1 needle=$2
	shift 2
	set_conf "$@"
	if start; then
		fail "$what: the server started"
	fi
	[ ! -f "$D/postmaster.pid" ] || fail "$what: postmaster.pid left behind"
	grep -qF "$needle" "$LOG" || fail "$what: no '$needle' in the server log: $(cat "$LOG")"
	grep -q 'FATAL:  pgsc: \(invalid value for\|unknown\) parameter' "$LOG" ||
		fail "$what: no FATAL from pgsc in the server log: $(cat "$LOG")"
	note "refused to start: $what: $(grep -m1 FATAL "$LOG" | sed 's/.*FATAL: *//') $(grep -m1 DETAIL "$LOG" | sed 's/.*DETAIL: *//')"
}
bad_start "unknown name in the global allow list" 'unknown syscall name "no_such_call"' \
	"pgsc.enabled = on" "pgsc.global_syscall_allow = 'read,no_such_call,write'"
bad_start "unknown name, pgsc.enabled off" 'unknown syscall name "no_such_call"' \
	"pgsc.enabled = off" "pgsc.global_syscall_kill = 'no_such_call'"
bad_start "'*' in a global list" '"*" is not a syscall name' \
	"pgsc.enabled = on" "pgsc.global_syscall_error = '*'"
bad_start "bad global default" 'pgsc.global_syscall_default' \
	"pgsc.enabled = on" "pgsc.global_syscall_default = 'maybe'"
bad_start "bad enabled" 'pgsc.enabled' "pgsc.enabled = 'perhaps'"
bad_start "misspelt setting name" 'unknown parameter "pgsc.global_syscal_kill"' \
	"pgsc.enabled = on" "pgsc.global_syscal_kill = 'ptrace'"
bad_start "bad session list" 'unknown syscall name "getpidd"' \
	"pgsc.enabled = on" "pgsc.session_syscall_log = 'getpid,getpidd'"
bad_start "'*' mixed in a session list" '"*" is not a syscall name' \
	"pgsc.enabled = on" "pgsc.session_syscall_allow = '*,read'"
bad_start "bad unknown_syscall_action" 'pgsc.unknown_syscall_action' \
	"pgsc.enabled = on" "pgsc.unknown_syscall_action = 'eperm'"
bad_start "bad syscall_known_max" 'unknown architecture in "vax:3"' \
	"pgsc.enabled = on" "pgsc.syscall_known_max = 'x86_64:434,vax:3'"

# The global filter is in force in the postmaster from _PG_init on: with
# getdents64 (readdir) failing, the postmaster's own directory scans at
# startup fail with EPERM and it stops.
set_conf "pgsc.enabled = on" "pgsc.global_syscall_error = 'getdents64'"
if start; then
	fail "the server started with getdents64 failing in the postmaster"
fi
grep -q 'FATAL:  could not read directory ".*": Operation not permitted' "$LOG" ||
	fail "no EPERM from a directory scan at startup: $(cat "$LOG")"
grep -q 'LOG:  pgsc: global seccomp filter loaded' "$LOG" ||
	fail "no 'global seccomp filter loaded' before the failure: $(cat "$LOG")"
note "global error on getdents64: the postmaster itself gets EPERM ($(grep -m1 'could not read directory' "$LOG" | sed 's/.*FATAL: *//'))"

# ----------------------------------------------------- 2. enabled off --
set_conf "pgsc.enabled = off"
start || fail "the server did not start with pgsc.enabled = off: $(cat "$LOG")"
PM=$(head -1 "$D/postmaster.pid")
[ "$(seccomp_status "$PM")" = "0 0" ] || fail "pgsc.enabled = off: postmaster has seccomp '$(seccomp_status "$PM")'"
[ "$(q -c "SELECT count(*) FROM pg_settings WHERE name ~ '^pgsc\.(enabled|unknown_syscall_action|syscall_known_max|(global|session)_syscall_(default|allow|log|error|kill))$'")" = 13 ] ||
	fail "the module did not define its 13 settings (but the types')"
# the descriptions outlive the postmaster's memory (a backend reads them)
expect_in "$(q -c "SELECT short_desc FROM pg_settings WHERE name = 'pgsc.session_syscall_kill'")" \
	"killing the process" "pg_settings.short_desc"
stop
note "pgsc.enabled = off: no filter"

# --------------------------------------------- 3. loads, where filters --
# Names chosen among syscalls PostgreSQL never makes, so the actions
# cannot disturb the server; each is on one or more lists.
G_ALLOW="getpid,acct,swapon,chroot"
G_LOG="acct,swapoff,syslog"
G_ERROR="swapon,swapoff,vhangup"
G_KILL="chroot,syslog,vhangup,ptrace"
S_LOG="getppid, uname"
S_ERROR="acct"
set_conf "pgsc.enabled = on" \
	"pgsc.global_syscall_default = log" \
	"pgsc.global_syscall_allow = '$G_ALLOW'" \
	"pgsc.global_syscall_log = '$G_LOG'" \
	"pgsc.global_syscall_error = '$G_ERROR'" \
	"pgsc.global_syscall_kill = '$G_KILL'" \
	"pgsc.session_syscall_default = '*'" \
	"pgsc.session_syscall_allow = '*'" \
	"pgsc.session_syscall_log = '$S_LOG'" \
	"pgsc.session_syscall_error = '$S_ERROR'"
start || fail "the server did not start with the module: $(cat "$LOG")"
grep -q 'LOG:  pgsc: global seccomp filter loaded: default log' "$LOG" ||
	fail "no 'global seccomp filter loaded' in the log: $(cat "$LOG")"
PM=$(head -1 "$D/postmaster.pid")
[ "$(seccomp_status "$PM")" = "2 1" ] || fail "postmaster: seccomp '$(seccomp_status "$PM")', expected mode 2 with 1 filter"
# libseccomp sets no_new_privs (docs/module.md: set-uid programs below)
grep -q '^NoNewPrivs:[[:space:]]*1$' "/proc/$PM/status" || fail "postmaster: NoNewPrivs is not 1"
n_aux=0
for p in $(pgrep -P "$PM"); do
	[ "$(seccomp_status "$p")" = "2 1" ] ||
		fail "child $p ($(tr '\0' ' ' <"/proc/$p/cmdline")) of the postmaster: seccomp '$(seccomp_status "$p")', expected 1 filter"
	n_aux=$((n_aux + 1))
done
[ "$n_aux" -ge 3 ] || fail "only $n_aux children of the postmaster"
# a client backend: the global filter and its session filter, read from
# /proc while its session is open
q -c "CREATE EXTENSION pgsc" >/dev/null
BSTAT=$(runuser -u postgres -- bash -c "
	coproc P { '$PGBIN/psql' -h '$SOCK' -X -At -d postgres; }
	echo 'SELECT pg_backend_pid();' >&\${P[1]}
	read -r pid <&\${P[0]}
	awk '/^Seccomp:/ { m = \$2 } /^Seccomp_filters:/ { f = \$2 } END { print m, f }' /proc/\$pid/status
	echo '\\q' >&\${P[1]}
	wait")
[ "$BSTAT" = "2 2" ] || fail "client backend: seccomp '$BSTAT', expected mode 2 with 2 filters (global + session)"
note "filters: postmaster and $n_aux children 1, client backend 2"

# --------------------------------------- 4. pgsc_filter(), precedence --
# expected NAME NUMBER ACTION rows of a context, from its lists
# (kill > error > log > allow), numbers from scmp_sys_resolver
expected() { # expected CONTEXT DEFAULT ALLOW LOG ERROR KILL
	local ctx=$1 def=$2
	shift 2
	echo "<default>||$def|$ctx"
	awk -v A="$1" -v L="$2" -v E="$3" -v K="$4" 'BEGIN {
		split("allow log error kill", act, " ")
		lists[1] = A; lists[2] = L; lists[3] = E; lists[4] = K
		for (i = 1; i <= 4; i++) {
			n = split(lists[i], v, ",")
			for (j = 1; j <= n; j++) {
				gsub(/[ \t]/, "", v[j])
				if (v[j] != "" && rank[v[j]] < i) rank[v[j]] = i
			}
		}
		for (s in rank) print s, act[rank[s]]
	}' | sort | while read -r name a; do
		echo "$name|$(scmp_sys_resolver -a x86_64 "$name")|$a|$ctx"
	done
	# above the known max: the default (log here: ENOSYS only under
	# error and kill)
	echo "<unknown x86_64>|$MAX64|$def|$ctx"
	echo "<unknown i386>|$MAX32|$def|$ctx"
}
# the highest number scmp_sys_resolver names on ARCH (0 to 1023)
known_max() {
	local n
	for n in $(seq 1023 -1 0); do
		case $(scmp_sys_resolver -a "$1" "$n") in
		[a-z_]*) echo "$n"; return ;;
		esac
	done
}
MAX64=$(known_max x86_64)
MAX32=$(known_max x86)
note "known max (scmp_sys_resolver): x86_64 $MAX64, i386 $MAX32"
{
	expected global log "$G_ALLOW" "$G_LOG" "$G_ERROR" "$G_KILL"
	expected session log "$G_ALLOW" "$S_LOG" "$S_ERROR" ""
} >"$W/filter.exp"
q -c "SELECT syscall, syscallnum, filter_action, context FROM pgsc_filter()" >"$W/filter.out"
diff -u "$W/filter.exp" "$W/filter.out" || fail "pgsc_filter() differs from the expected precedence"
# spot checks of the rules themselves, against the expected file
grep -qx 'vhangup|[0-9]*|kill|global' "$W/filter.out" || fail "vhangup (error+kill) is not kill"
grep -qx 'acct|[0-9]*|error|session' "$W/filter.out" || fail "acct (session error, '*' allow) is not error"
note "pgsc_filter(): $(wc -l <"$W/filter.out") rows as expected"

# ------------------------------------------------- 5. per-role lists --
q -c "CREATE ROLE alice LOGIN" \
	-c "ALTER ROLE alice SET pgsc.session_syscall_log = 'getppid,getuid'" \
	-c "ALTER ROLE alice SET pgsc.session_syscall_kill = '*'" >/dev/null
{
	expected global log "$G_ALLOW" "$G_LOG" "$G_ERROR" "$G_KILL"
	expected session log "$G_ALLOW" "getppid,getuid" "$S_ERROR" "$G_KILL"
} >"$W/alice.exp"
q -U alice -c "SELECT syscall, syscallnum, filter_action, context FROM pgsc_filter()" >"$W/alice.out"
diff -u "$W/alice.exp" "$W/alice.out" || fail "alice's pgsc_filter() differs from her role settings"
# a later SET does not change what was loaded: pgsc_filter() shows that
q -q -c "SET pgsc.session_syscall_log = 'getuid'" \
	-c "SELECT syscall FROM pgsc_filter() WHERE context = 'session' AND filter_action = 'log' AND syscall NOT LIKE '<%'" >"$W/set.out"
printf '%s\n' getppid uname >"$W/set.exp"
diff -u "$W/set.exp" "$W/set.out" || fail "pgsc_filter() after SET does not show the loaded session filter"
note "per-role session lists: alice's own lists and '*' applied"

# ---------------------------------------------- 6. invalid names --
out=$(q_err -c "SET pgsc.session_syscall_allow = 'read,no_such_call'")
expect_in "$out" 'invalid value for parameter "pgsc.session_syscall_allow"' "SET"
expect_in "$out" 'unknown syscall name "no_such_call"' "SET"
out=$(q_err -c "SET pgsc.session_syscall_error = 'read,*'")
expect_in "$out" '"*" is not a syscall name' "SET with '*' mixed"
out=$(q_err -c "ALTER SYSTEM SET pgsc.session_syscall_log = 'opne'")
expect_in "$out" 'unknown syscall name "opne"' "ALTER SYSTEM"
out=$(q_err -c "ALTER SYSTEM SET pgsc.global_syscall_allow = 'read,Write'")
expect_in "$out" 'unknown syscall name "Write"' "ALTER SYSTEM (global)"
out=$(q_err -c "ALTER ROLE alice SET pgsc.session_syscall_kill = 'bad name'")
expect_in "$out" 'unknown syscall name "bad name"' "ALTER ROLE"
out=$(q_err -U alice -c "SET pgsc.session_syscall_allow = 'read'")
expect_in "$out" 'permission denied to set parameter "pgsc.session_syscall_allow"' "SET by a non-superuser"
out=$(q_err -c "SET pgsc.global_syscall_allow = 'read'")
expect_in "$out" 'cannot be changed without restarting the server' "SET of a global list"
# a placeholder: a name libseccomp knows that x86_64 lacks is accepted
[ "$(scmp_sys_resolver -a x86_64 sync_file_range2)" -lt 0 ] || fail "sync_file_range2 is not a placeholder on x86_64"
q -c "SET pgsc.session_syscall_allow = 'read,sync_file_range2'" >/dev/null ||
	fail "a placeholder name was refused"
# reload: the bad value is refused and logged, the old one stays
set_conf "$(cat "$D/pgsc.conf")" "pgsc.session_syscall_log = 'getppid,no_such_call'"
runuser -u postgres -- "$PGBIN/pg_ctl" -D "$D" reload >/dev/null
# (the SET above put no_such_call in the log already: wait for the
# reload's own line, or the check can run before the postmaster wrote it)
pg_wait_log "$LOG" 'invalid value for parameter "pgsc.session_syscall_log": "getppid,no_such_call"' || true
grep -q 'invalid value for parameter "pgsc.session_syscall_log": "getppid,no_such_call"' "$LOG" ||
	fail "reload: no 'invalid value' message in the log: $(tail -5 "$LOG")"
grep -q 'DETAIL:  unknown syscall name "no_such_call"' "$LOG" ||
	fail "reload: no DETAIL naming the bad name: $(tail -5 "$LOG")"
[ "$(q -c 'SHOW pgsc.session_syscall_log')" = "$S_LOG" ] || fail "reload: the bad value replaced the old one"
note "invalid names refused by SET, ALTER SYSTEM, ALTER ROLE and reload"
stop

# ------------------------------------------- 7. error = EPERM, kill --
# Every syscall name libseccomp knows on x86_64, enumerated here.
for n in $(seq 0 1023); do
	scmp_sys_resolver -a x86_64 "$n"
	echo
done | grep -E '^[a-z0-9_]+$' | sort -u >"$W/all.names"
[ "$(wc -l <"$W/all.names")" -gt 300 ] || fail "only $(wc -l <"$W/all.names") x86_64 syscall names enumerated"
grep -qx getdents64 "$W/all.names" || fail "getdents64 not among the enumerated names"
ALL=$(paste -sd, "$W/all.names")
NO_GD=$(grep -vx getdents64 "$W/all.names" | paste -sd,)
set_conf "pgsc.enabled = on" "pgsc.global_syscall_default = log"
start || fail "the server did not start: $(cat "$LOG")"
q -c "CREATE ROLE bob LOGIN" -c "CREATE ROLE carol LOGIN" -c "CREATE ROLE dave LOGIN" \
	-c "GRANT EXECUTE ON FUNCTION pg_ls_dir(text) TO bob, carol, dave" \
	-c "ALTER ROLE bob SET pgsc.session_syscall_default = 'error'" \
	-c "ALTER ROLE bob SET pgsc.session_syscall_allow = '$NO_GD'" \
	-c "ALTER ROLE carol SET pgsc.session_syscall_default = 'error'" \
	-c "ALTER ROLE carol SET pgsc.session_syscall_allow = '$ALL'" \
	-c "ALTER ROLE dave SET pgsc.session_syscall_kill = 'getdents64'" >/dev/null
# carol: everything allowed, pg_ls_dir works
[ "$(q -U carol -c "SELECT count(*) > 0 FROM pg_ls_dir('.')")" = t ] ||
	fail "carol (all syscalls allowed, default error) cannot run pg_ls_dir"
# bob: the same but getdents64: the session works, pg_ls_dir gets EPERM
[ "$(q -U bob -c "SELECT 41 + 1")" = 42 ] || fail "bob's session does not work without getdents64"
out=$(q_err -U bob -c "SELECT count(*) FROM pg_ls_dir('.')")
expect_in "$out" 'could not read directory ".": Operation not permitted' "bob's pg_ls_dir"
# and the backend lives on after the error
out=$(runuser -u postgres -- "$PGBIN/psql" -h "$SOCK" -X -At -U bob -d postgres \
	-c "SELECT count(*) FROM pg_ls_dir('.')" -c "SELECT 'alive'" 2>&1 || true)
expect_in "$out" alive "bob's session after the EPERM"
[ "$(q -U bob -c "SELECT filter_action FROM pgsc_filter() WHERE context = 'session' AND syscall = '<default>'")" = error ] ||
	fail "bob's session default is not error"
note "default error without getdents64: pg_ls_dir fails with EPERM, the session lives"
# dave: getdents64 on the kill list: the backend dies of SIGSYS
out=$(runuser -u postgres -- "$PGBIN/psql" -h "$SOCK" -X -At -U dave -d postgres \
	-c "SELECT count(*) FROM pg_ls_dir('.')" 2>&1 || true)
expect_in "$out" 'server closed the connection unexpectedly' "dave's pg_ls_dir"
pg_wait_log "$LOG" 'terminated by signal 31' || true
grep -q 'terminated by signal 31: Bad system call' "$LOG" ||
	fail "no 'terminated by signal 31' for dave's backend: $(tail -5 "$LOG")"
for _ in $(seq 1 300); do
	runuser -u postgres -- "$PGBIN/pg_isready" -q -h "$SOCK" && break
	sleep 0.1
done
[ "$(q -c "SELECT 1")" = 1 ] || fail "the server did not come back after dave's backend was killed"
note "kill: the backend died of SIGSYS, the server recovered"
# argument rules (docs/module.md): fay's session list has socket(a0=1),
# AF_UNIX only; dblink's libpq in her backend then cannot create the
# AF_INET socket to 127.0.0.1 (EPERM), and the session lives on; gus,
# with plain socket, gets as far as the connect (nobody listens there)
NO_SOCK=$(grep -vx socket "$W/all.names" | paste -sd,)
q -c "CREATE EXTENSION dblink" \
	-c "CREATE ROLE fay LOGIN SUPERUSER" -c "CREATE ROLE gus LOGIN SUPERUSER" \
	-c "ALTER ROLE fay SET pgsc.session_syscall_default = 'error'" \
	-c "ALTER ROLE fay SET pgsc.session_syscall_allow = '$NO_SOCK,socket(a0=1)'" \
	-c "ALTER ROLE gus SET pgsc.session_syscall_default = 'error'" \
	-c "ALTER ROLE gus SET pgsc.session_syscall_allow = '$NO_SOCK,socket'" >/dev/null
DBL="SELECT dblink_connect('host=127.0.0.1 port=1 dbname=postgres connect_timeout=5')"
out=$(runuser -u postgres -- "$PGBIN/psql" -h "$SOCK" -X -At -U fay -d postgres \
	-c "$DBL" -c "SELECT 'alive'" 2>&1 || true)
# 15's dblink names the failed call; 17's and 18's say "could not
# establish connection" with an empty DETAIL (measured in the roots): there
# the proof is that fay never gets as far as gus's connect
case $out in
*'could not create socket: Operation not permitted'*) ;;
*'Connection refused'*) fail "fay's dblink got as far as the connect: socket(a0=1) let AF_INET through: $out" ;;
*'could not establish connection'*) ;;
*) fail "fay's dblink to 127.0.0.1 under socket(a0=1): no refused connection in: $out" ;;
esac
expect_in "$out" alive "fay's session after the refused socket"
out=$(runuser -u postgres -- "$PGBIN/psql" -h "$SOCK" -X -At -U gus -d postgres \
	-c "$DBL" 2>&1 || true)
expect_in "$out" 'Connection refused' "gus's dblink to 127.0.0.1 under plain socket"
case $out in *'could not create socket'*) fail "gus's socket was refused: $out" ;; esac
[ "$(q -U fay -c "SELECT filter_action || ' ' || arg_rule FROM pgsc_filter() WHERE context = 'session' AND syscall = 'socket'")" = "allow a0=1" ] ||
	fail "fay's pgsc_filter() does not show socket's rule a0=1"
[ "$(q -U gus -c "SELECT arg_rule IS NULL FROM pgsc_filter() WHERE context = 'session' AND syscall = 'socket'")" = t ] ||
	fail "gus's pgsc_filter() shows a rule for plain socket"
out=$(q_err -c "SET pgsc.session_syscall_allow = 'read,socket(a0=x)'")
expect_in "$out" 'entry "socket(a0=x)": at byte 11: expected a number' "SET of a bad argument rule"
note "argument rules: socket(a0=1) refuses dblink's AF_INET socket with EPERM, the session lives; a bad rule is refused by SET"
stop

# ------------------------------------------ 8. ENOSYS for the unknown --
cc -O2 -o "$W/unknown-nr" "$SRCROOT/tests/enosys/unknown-nr.c" || fail "cannot build unknown-nr"
cc -O2 -o "$W/thread" "$SRCROOT/tests/enosys/thread.c" || fail "cannot build thread"
chmod 755 "$W/unknown-nr" "$W/thread"
UNK=$((MAX64 + 5))
NO_C3=$(grep -vx clone3 "$W/all.names" | paste -sd,)
# run_prog ROLE PROGRAM: its first output line, run by COPY FROM PROGRAM
run_prog() {
	q -q -U "$1" -c "CREATE TEMP TABLE o (l text)" \
		-c "COPY o FROM PROGRAM '$2 2>&1'" -c "SELECT l FROM o LIMIT 1"
}
for action in enosys default; do
	set_conf "pgsc.enabled = on" "pgsc.global_syscall_default = log" \
		"pgsc.unknown_syscall_action = $action" \
		"pgsc.syscall_known_max = 'x86_64:434'"
	start || fail "the server did not start with pgsc.unknown_syscall_action = $action: $(cat "$LOG")"
	if [ $action = enosys ]; then
		q -c "CREATE ROLE erin LOGIN" -c "GRANT pg_execute_server_program TO erin, carol" \
			-c "ALTER ROLE erin SET pgsc.session_syscall_default = 'error'" \
			-c "ALTER ROLE erin SET pgsc.session_syscall_allow = '$NO_C3'" >/dev/null
		want_nr=errno=ENOSYS want_thread="thread ran" want_row="<unknown x86_64>|434|enosys|session"
	else
		want_nr=errno=EPERM want_thread="pthread_create: Operation not permitted"
		want_row="<unknown x86_64>|434|error|session"
	fi
	[ "$(q -c 'SHOW pgsc.unknown_syscall_action')" = $action ] || fail "SHOW pgsc.unknown_syscall_action"
	out=$(q -U erin -c "SELECT syscall, syscallnum, filter_action, context FROM pgsc_filter() WHERE syscall LIKE '<unknown%'")
	expect_in "$out" "$want_row" "erin's pgsc_filter() under $action"
	expect_in "$out" "<unknown x86_64>|434|log|global" "the global filter under $action"
	# carol: every name allowed, clone3 too (named: keeps allow)
	out=$(run_prog carol "$W/unknown-nr $UNK")
	[ "$out" = "$want_nr" ] || fail "syscall($UNK) under $action: '$out', want '$want_nr'"
	[ "$(run_prog carol "$W/thread")" = "thread ran" ] || fail "carol's thread under $action"
	# erin: no clone3.  Under default even COPY FROM PROGRAM fails:
	# popen's posix_spawn tries clone3 first too, and gets EPERM.
	if [ $action = enosys ]; then
		out=$(run_prog erin "$W/thread")
		[ "$out" = "$want_thread" ] || fail "erin's thread under $action: '$out', want '$want_thread'"
	else
		out=$(q_err -U erin -c "COPY (SELECT 1) TO PROGRAM '$W/thread'")
		expect_in "$out" 'could not execute command' "erin's COPY TO PROGRAM under default"
		want_thread="the backend's popen fails ($(sed -n 's/.*": //p' <<<"$out" | head -1))"
	fi
	note "unknown_syscall_action = $action: syscall($UNK) $want_nr; without clone3: $want_thread"
	stop
done
# ----------------------------------- 9. a filter per backend type --
TYPES_CONF=(
	"pgsc.checkpointer_syscall_default = log"
	"pgsc.walwriter_syscall_error = 'acct'"
	"pgsc.autovacuum_launcher_syscall_log = 'uname'"
	"pgsc.logical_replication_launcher_syscall_allow = 'getpid'"
	"pgsc.client_backend_syscall_error = 'getdents64'"
	"pgsc.parallel_worker_syscall_error = 'openat'"
	"pgsc.walsender_syscall_error = 'sendto'"
	"pgsc.archiver_syscall_kill = 'ptrace'"
)
# the types of later majors: their processes get their own filter too
# (walsummarizer runs with summarize_wal; io workers with 18's default
# io_method = worker)
AUX_TYPES=(checkpointer walwriter "autovacuum launcher" "logical replication launcher" archiver)
if [ "$PGMAJOR" -ge 17 ]; then
	TYPES_CONF+=("summarize_wal = on" "pgsc.walsummarizer_syscall_log = 'uname'")
	AUX_TYPES+=(walsummarizer)
fi
if [ "$PGMAJOR" -ge 18 ]; then
	TYPES_CONF+=("io_method = worker" "pgsc.io_worker_syscall_log = 'uname'")
	AUX_TYPES+=("io worker")
fi
# type_of TITLE: the type a process title names (18's io workers are
# "io worker N")
type_of() {
	if [[ "$1" =~ ^io\ worker\ [0-9]+$ ]]; then echo "io worker"; else echo "$1"; fi
}
set_conf "pgsc.enabled = on" "pgsc.global_syscall_default = log" "${TYPES_CONF[@]}" \
	"archive_mode = on" "archive_command = '/bin/true'"
start || fail "the server did not start with type settings: $(cat "$LOG")"
# Each type pgsc-report --per-type names has its five settings (the
# types come from pgsc's own role table, src/roles.c, as the report
# would write them: blanks as underscores).
for t in "client backend" walsender "autovacuum launcher" "autovacuum worker" \
	"parallel worker" "logical replication launcher" "logical replication worker" \
	"background worker" "background writer" checkpointer walwriter walreceiver \
	startup archiver logger; do
	grep -qF "\"$t\"" "$SRCROOT/src/roles.c" || fail "type '$t' is not among src/roles.c's roles"
	[ "$(q -c "SELECT count(*) FROM pg_settings WHERE name ~ '^pgsc\.${t// /_}_syscall_(default|allow|log|error|kill)$'")" = 5 ] ||
		fail "type '$t': the module does not define its five settings"
done
for t in "${AUX_TYPES[@]}"; do
	grep -q "LOG:  pgsc: $t filter built" "$LOG" || fail "no 'filter built' for $t: $(grep pgsc "$LOG")"
done
# the client types' filters, built once in the postmaster
for t in "client backend" walsender; do
	grep -q "LOG:  pgsc: $t filter built in the postmaster" "$LOG" ||
		fail "no '$t filter built in the postmaster': $(grep pgsc "$LOG")"
done
# and the server's own names of its types (pg_stat_activity: every
# process that runs now, from PostgreSQL itself) are the module's
mapfile -t LIVE_TYPES < <(q -c "SELECT DISTINCT backend_type FROM pg_stat_activity ORDER BY 1")
[ "${#LIVE_TYPES[@]}" -ge 6 ] || fail "pg_stat_activity shows only ${#LIVE_TYPES[@]} backend types: ${LIVE_TYPES[*]}"
for t in "${LIVE_TYPES[@]}"; do
	[ "$(q -c "SELECT count(*) FROM pg_settings WHERE name ~ '^pgsc\.${t// /_}_syscall_(default|allow|log|error|kill)$'")" = 5 ] ||
		fail "backend type '$t' (pg_stat_activity): the module does not define its five settings"
done
note "PostgreSQL $PGMAJOR's running types, each with its five settings: ${LIVE_TYPES[*]}"
PM=$(head -1 "$D/postmaster.pid")
# want_filters TITLE: 2 when the configuration sets its type, else 1
want_filters() {
	local c
	for c in "${TYPES_CONF[@]}"; do
		case $c in "pgsc.${1// /_}_syscall_"*) echo 2; return ;; esac
	done
	echo 1
}
# Each process of a set type is waited for (it loads its filter when it
# first unblocks its signals, just after it starts): up to 10 s.
for t in "${AUX_TYPES[@]}"; do
	ok=0
	for _ in $(seq 1 100); do
		for p in $(pgrep -P "$PM"); do
			[ "$(type_of "$(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | sed 's/^postgres: *//; s/ *$//')")" = "$t" ] &&
				[ "$(seccomp_status "$p")" = "2 2" ] && ok=1
		done
		[ $ok = 1 ] && break
		sleep 0.1
	done
	[ $ok = 1 ] || fail "no $t process with 2 filters (its own and the global) in 10 s"
done
n_typed=0 n_plain=0
for p in $(pgrep -P "$PM"); do
	title=$(type_of "$(tr '\0' ' ' <"/proc/$p/cmdline" | sed 's/^postgres: *//; s/ *$//')")
	want=$(want_filters "$title")
	[ "$(seccomp_status "$p")" = "2 $want" ] ||
		fail "$title (pid $p): seccomp '$(seccomp_status "$p")', expected $want filters"
	if [ "$want" = 2 ]; then n_typed=$((n_typed + 1)); else n_plain=$((n_plain + 1)); fi
done
[ "$n_typed" -ge 5 ] || fail "only $n_typed processes with a type filter"
note "type filters: $n_typed aux processes with their own filter (2), $n_plain without settings (1)"
# client backend: its type's list instead of the session's
q -c "CREATE TABLE pt (i int)" -c "INSERT INTO pt SELECT generate_series(1, 1000)" -c "ANALYZE pt" >/dev/null
out=$(q_err -c "SELECT count(*) FROM pg_ls_dir('.')")
expect_in "$out" 'could not read directory ".": Operation not permitted' "client backend type error list"
[ "$(q -c "SELECT filter_action FROM pgsc_filter() WHERE context = 'client backend' AND syscall = 'getdents64'")" = error ] ||
	fail "pgsc_filter() does not show the client backend's filter"
[ "$(q -c "SELECT filter_action FROM pgsc_filter() WHERE context = 'checkpointer' AND syscall = '<default>'")" = log ] ||
	fail "pgsc_filter() does not show the checkpointer's filter"
# parallel worker (a background worker): its openat fails, the leader's not
# (force_parallel_mode is debug_parallel_query from PostgreSQL 16 on)
FPM=force_parallel_mode
[ "$PGMAJOR" -lt 16 ] || FPM=debug_parallel_query
out=$(q_err -c "SET $FPM = on" -c "SET parallel_setup_cost = 0" -c "SET parallel_tuple_cost = 0" \
	-c "SET min_parallel_table_scan_size = 0" -c "SELECT count(*) FROM pt")
# (the worker's first openat is shm_open of the leader's segment)
expect_in "$out" 'parallel worker failed to initialize' "a parallel worker's openat"
grep -q 'ERROR:  could not open shared memory segment ".*": Operation not permitted' "$LOG" ||
	fail "no EPERM of a parallel worker in the server log: $(tail -5 "$LOG")"
grep -q 'background worker "parallel worker" (PID [0-9]*) exited with exit code 1' "$LOG" ||
	fail "no parallel worker exit in the server log: $(tail -5 "$LOG")"
[ "$(q -c "SET max_parallel_workers_per_gather = 0" -c "SELECT count(*) FROM pt" | tail -1)" = 1000 ] ||
	fail "the same scan without parallel workers failed"
note "client backend: pg_ls_dir EPERM by its type's list; parallel worker: openat EPERM, the leader alone scans"
# walsender: its sendto fails, a client backend's works (the queries above)
st=0
timeout 60 runuser -u postgres -- "$PGBIN/pg_basebackup" -h "$SOCK" -D "$W/bb1" -X none -c fast >"$W/bb1.out" 2>&1 || st=$?
[ "$st" != 0 ] && [ "$st" != 124 ] || fail "pg_basebackup worked with the walsender's sendto failing (exit $st)"
stop
# the same walsender type with a filter of its own that allows sendto
set_conf "pgsc.enabled = on" "pgsc.global_syscall_default = log" "pgsc.walsender_syscall_log = 'acct'"
start || fail "the server did not start: $(cat "$LOG")"
timeout 60 runuser -u postgres -- "$PGBIN/pg_basebackup" -h "$SOCK" -D "$W/bb2" -X none -c fast >"$W/bb2.out" 2>&1 ||
	fail "pg_basebackup failed with the walsender's sendto allowed: $(cat "$W/bb2.out")"
note "walsender: pg_basebackup fails with its type's sendto on error ($(grep -m1 -i 'error' "$W/bb1.out" | cut -c1-100)), works with it allowed"
stop
set_conf "pgsc.enabled = on" "pgsc.global_syscall_default = log" "pgsc.checkpointer_syscall_error = 'pwrite64'" \
	"bgwriter_lru_maxpages = 0" "restart_after_crash = off"
start || fail "the server did not start: $(cat "$LOG")"
# checkpointer: its pwrite64 fails (dirty buffers at CHECKPOINT), the
# client backend's WAL writes do not
q -c "INSERT INTO pt SELECT generate_series(1, 20000)" >/dev/null
out=$(q_err -c "CHECKPOINT")
expect_in "$out" 'checkpoint request failed' "CHECKPOINT with the checkpointer's pwrite64 failing"
# the checkpointer's pid, from the "checkpoint starting" line, has the EPERM
cp_pid=$(sed -n 's/.*\[\([0-9]*\)\] LOG:  checkpoint starting: immediate.*/\1/p' "$LOG" | tail -n 1)
[ -n "$cp_pid" ] || fail "no 'checkpoint starting' in the server log"
grep -q "\[$cp_pid\] DETAIL:  .*Operation not permitted" "$LOG" ||
	grep -q "\[$cp_pid\] ERROR:  .*Operation not permitted" "$LOG" ||
	fail "no EPERM of the checkpointer (pid $cp_pid) after the failed checkpoint: $(tail -5 "$LOG")"
[ "$(q -c "INSERT INTO pt VALUES (1) RETURNING i" | sed -n 1p)" = 1 ] || fail "a client backend could not write after the failed checkpoint"
note "checkpointer: pwrite64 on its error list fails CHECKPOINT ($(grep -m1 "\[$cp_pid\].*Operation not permitted" "$LOG" | sed 's/.*\(ERROR\|DETAIL\): *//' | cut -c1-80)); clients write on"
runuser -u postgres -- "$PGBIN/pg_ctl" -D "$D" -m immediate -w -t 60 stop >/dev/null || fail "pg_ctl stop -m immediate failed"

# ------------------------------------------------ 10. its own needs --
# The calls each backend makes to load its session filter under the
# global one: the table filter_needs[] of src/filter_build.c (read here from
# the source, the one place that names them).  Under a global default of
# error whose allow list is every other name, the postmaster refuses to
# start, naming the missing call; with every name allowed, a connection
# loads its session filter and answers.
mapfile -t NEEDS < <(sed -n '/^const char \*const filter_needs\[\] = {/,/NULL,/p' "$SRCROOT/src/filter_build.c" |
	grep -o '"[a-z0-9_]*"' | tr -d '"')
[ ${#NEEDS[@]} -ge 2 ] || fail "could not read filter_needs[] from src/filter_build.c"
for n in "${NEEDS[@]}"; do
	grep -qx "$n" "$W/all.names" || fail "filter_needs[] names '$n', which libseccomp does not know"
	set_conf "pgsc.enabled = on" "pgsc.global_syscall_default = error" \
		"pgsc.global_syscall_allow = '$(grep -vx "$n" "$W/all.names" | paste -sd,)'"
	if start; then
		fail "the server started with a global filter refusing $n, which the module needs"
	fi
	grep -q "FATAL:  pgsc: the global filter refuses $n, which every backend needs" "$LOG" ||
		fail "no FATAL naming $n: $(cat "$LOG")"
done
# under log too, when a list refuses one explicitly
set_conf "pgsc.enabled = on" "pgsc.global_syscall_default = log" "pgsc.global_syscall_error = 'pipe2,seccomp'"
if start; then
	fail "the server started with pipe2 and seccomp on the global error list"
fi
grep -q "FATAL:  pgsc: the global filter refuses pipe2,seccomp, which" "$LOG" ||
	fail "no FATAL naming pipe2,seccomp: $(cat "$LOG")"
set_conf "pgsc.enabled = on" "pgsc.global_syscall_default = error" "pgsc.global_syscall_allow = '$ALL'" \
	"pgsc.session_syscall_default = error" "pgsc.session_syscall_allow = '$ALL'"
start || fail "the server did not start with every name allowed: $(cat "$LOG")"
[ "$(q -c 'SELECT 41 + 1')" = 42 ] || fail "no answer with every name allowed under error"
stop
note "its own needs (${NEEDS[*]}): each one refused at start when the global filter refuses it; all allowed, a session loads its filter"

# ------------------------------------ 11. the session filter built once --
# The postmaster builds the session program of its own settings; a
# connection whose settings give the same lists loads it (DEBUG1 says
# which), one whose role changes them builds its own; both refuse the
# same call, and the unknown part (ENOSYS) is in the postmaster's
# program too.  A reload that changes the session lists rebuilds it
# before the next connection, under the global filter.
# debug_of [psql options]: the module's DEBUG1 line of a new session
debug_of() {
	runuser -u postgres -- env PGOPTIONS="-c client_min_messages=debug1" \
		"$PGBIN/psql" -h "$SOCK" -X -At -d postgres "$@" -c "SELECT 1" 2>&1 |
		sed -n 's/^DEBUG:  pgsc: //p'
}
set_conf "pgsc.enabled = on" "pgsc.global_syscall_default = log" \
	"pgsc.syscall_known_max = 'x86_64:434'" \
	"pgsc.session_syscall_default = error" "pgsc.session_syscall_allow = '$NO_GD'"
start || fail "the server did not start: $(cat "$LOG")"
[ "$(grep -c 'LOG:  pgsc: session filter built in the postmaster: default error' "$LOG")" = 1 ] ||
	fail "no one 'session filter built in the postmaster' at start: $(grep pgsc "$LOG")"
q -c "CREATE ROLE hal LOGIN" -c "GRANT pg_execute_server_program, pg_read_server_files TO hal" \
	-c "GRANT EXECUTE ON FUNCTION pg_ls_dir(text) TO hal" \
	-c "ALTER ROLE hal SET pgsc.session_syscall_log = 'getppid'" >/dev/null
expect_in "$(debug_of)" "session filter loaded: default error" "postgres's session"
expect_in "$(debug_of)" "built by the postmaster" "postgres's session (same lists as the postmaster)"
expect_in "$(debug_of -U hal)" "built by this backend" "hal's session (ALTER ROLE ... SET)"
for who in postgres hal; do
	out=$(q_err -U $who -c "SELECT count(*) FROM pg_ls_dir('.')")
	expect_in "$out" 'could not read directory ".": Operation not permitted' "$who's pg_ls_dir"
	out=$(run_prog $who "$W/unknown-nr $UNK")
	[ "$out" = errno=ENOSYS ] || fail "$who's syscall($UNK): '$out', want errno=ENOSYS"
done
# the reload: every name allowed now
sed -i "s/^pgsc.session_syscall_allow = .*/pgsc.session_syscall_allow = '$ALL'/" "$D/pgsc.conf"
runuser -u postgres -- "$PGBIN/pg_ctl" -D "$D" reload >/dev/null
pg_wait_log "$LOG" 'parameter "pgsc.session_syscall_allow" changed' ||
	fail "the reload did not change pgsc.session_syscall_allow: $(tail -3 "$LOG")"
[ "$(q -c "SELECT count(*) > 0 FROM pg_ls_dir('.')")" = t ] ||
	fail "pg_ls_dir refused after the reload allowed getdents64"
[ "$(grep -c 'LOG:  pgsc: session filter built in the postmaster: default error' "$LOG")" = 2 ] ||
	fail "the postmaster did not rebuild the session filter after the reload: $(grep pgsc "$LOG")"
expect_in "$(debug_of)" "built by the postmaster" "postgres's session after the reload"
[ "$(q -U hal -c "SELECT count(*) > 0 FROM pg_ls_dir('.')")" = t ] ||
	fail "hal's pg_ls_dir refused after the reload"
stop
note "session filter built once: the postmaster's program loaded by a session with its lists (EPERM, ENOSYS as built), a role's own lists built by its backend; a reload rebuilt it"
# The same under this major's shipped module file, pasted byte for byte
# (global and session default error): both ways a backend gets its
# filter, and the postmaster's rebuild after a reload, make only calls
# its global list allows (the module's table, filter_needs[]).
SHIPPED=
for f in "$SRCROOT"/examples/lists/pg"$PGMAJOR"-*.guc; do
	case $f in *-outside.guc) ;; *) [ -f "$f" ] && SHIPPED=$f ;; esac
done
[ -n "$SHIPPED" ] || fail "no shipped module file examples/lists/pg$PGMAJOR-*.guc"
cp "$SHIPPED" "$D/pgsc.conf"
chown postgres "$D/pgsc.conf"
start || fail "the server did not start with $(basename "$SHIPPED"): $(tail -5 "$LOG")"
grep -q "LOG:  pgsc: global seccomp filter loaded: default error" "$LOG" ||
	fail "$(basename "$SHIPPED"): no global filter at error: $(grep pgsc "$LOG")"
expect_in "$(debug_of)" "built by the postmaster" "a session under $(basename "$SHIPPED")"
expect_in "$(debug_of -U hal)" "built by this backend" "hal's session under $(basename "$SHIPPED")"
[ "$(q -U hal -c "SELECT count(*) > 0 FROM pg_ls_dir('.')")" = t ] ||
	fail "hal's own filter under $(basename "$SHIPPED") refused pg_ls_dir"
printf "pgsc.session_syscall_log = 'uname'\n" >>"$D/pgsc.conf"
runuser -u postgres -- "$PGBIN/pg_ctl" -D "$D" reload >/dev/null
pg_wait_log "$LOG" 'parameter "pgsc.session_syscall_log" changed' ||
	fail "the reload did not change pgsc.session_syscall_log: $(tail -3 "$LOG")"
expect_in "$(debug_of)" "built by the postmaster" "a session after the reload under $(basename "$SHIPPED")"
[ "$(grep -c 'LOG:  pgsc: session filter built in the postmaster: default error' "$LOG")" = 2 ] ||
	fail "the postmaster did not rebuild under $(basename "$SHIPPED"): $(grep pgsc "$LOG")"
! grep -q 'cannot build\|cannot load\|Operation not permitted' "$LOG" ||
	fail "a refusal under $(basename "$SHIPPED"): $(grep -m3 'cannot build\|cannot load\|Operation not permitted' "$LOG")"
stop
note "$(basename "$SHIPPED") as shipped (error): the postmaster's program, a role's own build and the rebuild after a reload, nothing refused"

echo "module: all checks passed"
