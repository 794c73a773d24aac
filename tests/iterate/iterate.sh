#!/bin/bash
# SPDX-License-Identifier: PostgreSQL
# tests/iterate/iterate.sh BINDIR - the iterate loop on PostgreSQL's own
# regression suite (reduced schedule), its proof run, and a negative control.
#
# Runs as root (ctest label "iterate", RUN_SERIAL).  It
#   1. prepares the regression suite (tools/pg-regress-suite fetch: the
#      Debian source package, cached in /var/cache/pgsc-regress),
#   2. creates a cluster with shared_preload_libraries = 'pgsc' (the module
#      must be installed: cmake --build BUILD --target pgsc-module-install),
#   3. starts a private auditd (tests/lib/auditd.sh: holds the audit lock)
#      and runs tools/pgsc-iterate with --source file:<its audit.log>:
#      the loop must converge within 5 rounds, and the proof run (defaults
#      error) must pass: 0 SECCOMP records of the server, and the same
#      pg_regress results, test by test, as the last log round,
#   4. checks independently in the raw audit log that no SECCOMP record
#      with an ERRNO code (code=0x0005xxxx) came from the proof server's
#      pids (from its own log: %p, "forked new backend", "(PID n)"),
#   5. negative control: removes from the converged SESSION list the
#      syscall that the store shows client backends made most often, runs
#      the proof again with those lists (pgsc-iterate --proof-only
#      --lists): pgsc-iterate must report the proof failed, the workload
#      must fail (more failed tests or another exit status), and the raw
#      log must hold a SECCOMP record with an ERRNO code for that syscall
#      from a postgres process.
# Missing dependencies are failures, never skips.  PGSC_ITERATE_KEEP=1
# keeps the work directory.
set -e
# shellcheck source=../lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
export LC_ALL=C
t_script iterate-test "iterate.sh BINDIR (holding pgsc-collect and pgsc-report)" "$@"
MAXR=${PGSC_ITERATE_MAX_ROUNDS:-5}
T0=$(date +%s)

# ---------------------------------------------------------------- deps --
# shellcheck source=../lib/world.sh
. "$HERE/../lib/world.sh"
world_need "$BINDIR"
ITER=$SRCROOT/tools/pgsc-iterate
SUITE=$SRCROOT/tools/pg-regress-suite
[ -x "$ITER" ] && [ -x "$SUITE" ] || fail "tools/pgsc-iterate or tools/pg-regress-suite missing in $SRCROOT"
"$SUITE" fetch >/dev/null || fail "pg-regress-suite fetch failed (network for the first download; see its messages)"

# shellcheck source=../lib/auditd.sh
. "$HERE/../lib/auditd.sh"
# shellcheck source=../lib/lists.sh
. "$HERE/../lib/lists.sh"

t_init iterate-test
W=$T_WORK
T_KEEP=${PGSC_ITERATE_KEEP:-0}
chmod 755 "$W"
RESULT=fail
cleanup() {
	pg_stop_now "$W/data"
	audit_end
	[ "$T_KEEP" = 1 ] || [ "$RESULT" = pass ] || note "rerun with PGSC_ITERATE_KEEP=1 to keep $W"
}
t_cleanup cleanup

# ------------------------------------------------------------- cluster --
mkdir -p "$W/sock" "$W/data"
chown postgres "$W/sock" "$W/data"
chmod 700 "$W/data"
runuser -u postgres -- "$PGBIN/initdb" -D "$W/data" -A trust -U postgres --no-sync -E UTF8 --locale=C \
	>"$W/initdb.log" 2>&1 || fail "initdb failed: $(tail -5 "$W/initdb.log")"
cat >>"$W/data/postgresql.conf" <<EOF

# tests/iterate/iterate.sh
listen_addresses = ''
port = 54471
unix_socket_directories = '$W/sock'
shared_preload_libraries = 'pgsc'
max_prepared_transactions = 10
log_line_prefix = '%m [%p] %b '
log_min_messages = debug2
log_connections = on
EOF

# --------------------------------------------------------------- audit --
audit_begin "$W/audit" || fail "could not start the private auditd"
export PGSC_AUDIT_LOCK_HELD=1
LOG=$W/audit/audit.log
T_LOCKED=$(date +%s)
note "audit lock after $((T_LOCKED - T0)) s"

# ---------------------------------------------------------------- loop --
rc=0
"$ITER" --datadir "$W/data" --bindir "$BINDIR" --workdir "$W/it" --db "$W/pgsc.db" \
	--max-rounds "$MAXR" --source "file:$LOG" -- "$SUITE" run --schedule reduced \
	>"$W/iterate.out" 2>&1 || rc=$?
cat "$W/iterate.out"
[ "$rc" != 1 ] || fail "pgsc-iterate did not converge within $MAXR rounds"
[ "$rc" = 0 ] || fail "pgsc-iterate exited $rc (3: the proof failed)"
n=$(sed -n 's/^pgsc-iterate: converged after round \([0-9][0-9]*\)$/\1/p' "$W/iterate.out")
[ -n "$n" ] && [ "$n" -ge 2 ] && [ "$n" -le "$MAXR" ] || fail "no 'converged after round N' (2 <= N <= $MAXR) in the output"
rounds=$(sqlite3 "$W/pgsc.db" "SELECT count(*) FROM rounds")
[ "$rounds" = "$n" ] || fail "the store has $rounds rounds, pgsc-iterate says it converged after round $n"
"$BINDIR/pgsc-report" --db "$W/pgsc.db" --status >"$W/status" || fail "pgsc-report --status does not exit 0 after convergence: $(cat "$W/status")"
last_new=$(awk -v n="$n" '$1 == n { print $7 }' "$W/status")
[ "$last_new" = 0 ] || fail "the last round has $last_new new syscalls in --status"

# The regression suite really ran, and gave the same results under error.
ls_=$W/it/log-$n/status
ps_=$W/it/proof-1/status
[ -s "$ls_" ] && [ -s "$ps_" ] || fail "no pg_regress status file for the last log round or the proof run"
tests=$(grep -c . "$ls_")
passed=$(grep -c ' ok$' "$ls_" || true)
[ "$tests" -ge 30 ] && [ "$passed" -ge 30 ] || fail "the last log round ran $tests tests, $passed passed: the suite did not really run"
cmp -s "$ls_" "$ps_" || fail "pg_regress results differ between the last log round and the proof: $(diff "$ls_" "$ps_" | head -20)"
grep -q "^pgsc-iterate: proof run (defaults error): 0 SECCOMP records of the server's processes" "$W/iterate.out" ||
	fail "the proof run did not report 0 SECCOMP records"
[ "$(cat "$W/it/log-$n.rc")" = "$(cat "$W/it/proof-1.rc")" ] || fail "the workload's exit status changed under error"

# Independent check in the raw log: no ERRNO record from the proof
# server's pids.
audit_sync || fail "the audit log did not catch up"
proof_pids() { # proof_pids SERVERLOG: every pid the server's log names
	{
		sed -n 's/^[0-9-]* [0-9:.]* [A-Z]* \[\([0-9][0-9]*\)\].*/\1/p' "$1"
		sed -n 's/.*forked new backend, pid=\([0-9][0-9]*\).*/\1/p' "$1"
		grep -o '(PID [0-9][0-9]*)' "$1" | tr -dc '0-9\n'
	} | sort -u
}
proof_pids "$W/it/server-proof-1.log" >"$W/proof.pids"
[ "$(grep -c . "$W/proof.pids")" -ge 10 ] || fail "the proof server's log names fewer than 10 pids: $(grep -c . "$W/proof.pids")"
errno_recs() { # errno_recs LOGFILE PIDFILE: "pid syscall" of ERRNO-coded SECCOMP records
	awk 'NR == FNR { want[$1] = 1; next }
	/^type=SECCOMP / && / code=0x0*5[0-9a-f][0-9a-f][0-9a-f][0-9a-f][^0-9a-f]/ {
		p = ""; s = ""
		for (i = 1; i <= NF; i++) {
			if ($i ~ /^pid=/) p = substr($i, 5)
			if ($i ~ /^syscall=/) s = substr($i, 9)
		}
		if (p in want) print p, s
	}' "$2" "$1"
}
errno_recs "$LOG" "$W/proof.pids" >"$W/proof.errno"
[ ! -s "$W/proof.errno" ] || fail "the raw audit log has ERRNO records from the proof server: $(head -5 "$W/proof.errno" | tr '\n' ';')"
T_LOOP=$(date +%s)
note "loop: converged after round $n; proof: $tests tests, $passed passed, same results as round $n, 0 denials ($((T_LOOP - T_LOCKED)) s)"

# ----------------------------------------------------- negative control --
# The syscall client backends made most often, from the store (x86_64).
"$BINDIR/pgsc-report" --db "$W/pgsc.db" --format=json >"$W/lists.json" || fail "pgsc-report --format=json failed"
pick=$(top_call "client backend" "$W/lists.json" '"session": true')
[ -n "$pick" ] || fail "no syscall of a client backend in the store's session list"
victim=${pick% *}
nr=$(scmp_sys_resolver -a x86_64 "$victim") || fail "scmp_sys_resolver does not know $victim"
note "negative control: removing '$victim' (x86_64 $nr; ${pick#* } records of client backends) from the session list"
"$BINDIR/pgsc-report" --db "$W/pgsc.db" --format=guc --guc-prefix=pgsc. >"$W/neg.guc"
drop_call "$W/neg.guc" 'pgsc\.session_syscall_allow' "$victim" >"$W/neg.lists"
grep -q "^pgsc\.session_syscall_allow = '.*\b$victim\b" "$W/neg.guc" || fail "$victim is not in the session list"
! grep -qE "^pgsc\.session_syscall_allow = '(.*,)?$victim(,.*)?'" "$W/neg.lists" || fail "could not remove $victim"
grep -qE "^pgsc\.global_syscall_allow = '(.*,)?$victim(,.*)?'" "$W/neg.lists" || fail "$victim is not in the global list"
off=$(stat -c %s "$LOG")
rc=0
PGSC_ITERATE_EXPECT_RC=$(cat "$W/it/proof-1.rc") \
	"$ITER" --datadir "$W/data" --bindir "$BINDIR" --workdir "$W/neg" --proof-only --lists "$W/neg.lists" \
	--source "file:$LOG" -- "$SUITE" run --schedule reduced >"$W/neg.out" 2>&1 || rc=$?
sed 's/^/    /' "$W/neg.out" | head -40
[ "$rc" = 3 ] || fail "pgsc-iterate --proof-only with '$victim' removed exited $rc, expected 3 (proof failed)"
nf=$(grep -c ' FAILED$' "$W/neg/proof-1/status" 2>/dev/null || true)
bf=$(grep -c ' FAILED$' "$ps_" || true)
nrc=$(cat "$W/neg/proof-1.rc")
[ "$nrc" != "$(cat "$W/it/proof-1.rc")" ] || [ "${nf:-0}" -gt "$bf" ] ||
	fail "the workload did not fail without '$victim' (exit $nrc, $nf failed tests, baseline $bf)"
audit_sync || fail "the audit log did not catch up"
tail -c +"$((off + 1))" "$LOG" >"$W/neg.log"
awk -v nr="$nr" '/^type=SECCOMP / && / arch=c000003e / && $0 ~ (" syscall=" nr " ") &&
	/ code=0x0*5[0-9a-f][0-9a-f][0-9a-f][0-9a-f][^0-9a-f]/ && /exe="\/usr\/lib\/postgresql\/15\/bin\/postgres"/' \
	"$W/neg.log" >"$W/neg.errno"
hits=$(grep -c . "$W/neg.errno" || true)
[ "$hits" -gt 0 ] || fail "no SECCOMP record with an ERRNO code for $victim (syscall=$nr) from postgres in the raw log"
code=$(grep -o ' code=0x[0-9a-f]*' "$W/neg.errno" | sort | uniq -c | sort -rn | head -1)
grep -q "\"name\": \"$victim\".*\"client backend\"" <("$BINDIR/pgsc-report" --db "$W/neg/proof.db" --format=json) ||
	fail "pgsc did not attribute the denied $victim to a client backend"
note "negative control: exit $nrc, $nf failed tests (baseline $bf), $hits ERRNO records for $victim (most common:$code)"
note "time: $(( $(date +%s) - T0 )) s in all, $((T_LOCKED - T0)) s waiting for the audit lock"
RESULT=pass
note PASS
