#!/bin/bash
# SPDX-License-Identifier: PostgreSQL
# tests/live/live-core.sh BINDIR - end-to-end test of pgsc on a live system.
#
# Runs as root (ctest: "bash tests/live/live-core.sh BINDIR", BINDIR holding
# pgsc-exec, pgsc-collect and pgsc-report).  It
#   1. starts a private auditd with examples/pgsc.rules loaded,
#   2. runs two PostgreSQL 15 clusters at once, each started under
#      "pgsc-exec --default log" (every syscall makes a SECCOMP record),
#      with connection churn, COPY ... TO PROGRAM and archive_command on A,
#      a short pgbench on B, and an unrelated process under the same filter,
#   3. imports the audit log with pgsc-collect and prints the lists with
#      pgsc-report --format=guc and --format=json (PGSC_LIVE_MODE=wrap:
#      instead of 1's rules and 3's import, the workload runs under
#      "pgsc-collect --source file:AUDITLOG --from-start -- bash ...",
#      which loads its own rules, follows the log and drains it),
#   4. derives the expected lists INDEPENDENTLY of pgsc's attribution: the
#      pids of the servers come from postmaster.pid, the server logs
#      (%p/%b, "forked new backend", "(PID n) exited"), pg_stat_activity and
#      self-reporting archive/COPY programs; the syscalls of those pids come
#      from the raw SECCOMP lines, named with scmp_sys_resolver,
#   5. compares.  Missing dependencies are failures, never skips.
#
# Environment: PGSC_LIVE_KEEP=1 keeps the work directory (logs, store);
# PGSC_LIVE_MODE=import (default) or wrap chooses how pgsc collects.
# Uses only bash, awk, sed, grep, sort, comm, tr and scmp_sys_resolver.

set -e
# shellcheck source=../lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
T_NAME=live-core
export LC_ALL=C

T_START=$(now)
[ $# -ge 1 ] || fail "usage: live-core.sh BINDIR (the directory holding pgsc-exec, pgsc-collect, pgsc-report)"
[ -d "$1" ] || fail "BINDIR $1 is not a directory"
BINDIR=$(cd "$1" && pwd)
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SRCROOT=$(cd "$HERE/../.." && pwd)
PGBIN=${PGSC_PGBIN:-/usr/lib/postgresql/15/bin}
PGEXE=$PGBIN/postgres
MODE=${PGSC_LIVE_MODE:-import}
case $MODE in
import | wrap) ;;
*) fail "PGSC_LIVE_MODE must be import or wrap, not '$MODE'" ;;
esac

# ---------------------------------------------------------------- deps --
need_root "auditd, seccomp audit records of other users"
need_progs auditd auditctl scmp_sys_resolver awk sed grep sort comm tr cut flock runuser
need_exec "$PGBIN"/{initdb,pg_ctl,postgres,pgbench,psql} "$BINDIR"/pgsc-{exec,collect,report}
id postgres >/dev/null 2>&1 || fail "there is no user 'postgres'"
need_file "$SRCROOT/examples/pgsc.rules"
[ "$(scmp_sys_resolver -a x86_64 0 2>/dev/null)" = read ] || fail "scmp_sys_resolver does not resolve x86_64 syscall 0 to 'read'"
[ "$(uname -m)" = x86_64 ] || fail "this test knows x86_64 only (got $(uname -m))"

# shellcheck source=../lib/auditd.sh
. "$HERE/../lib/auditd.sh"
# shellcheck source=../lib/pg.sh
. "$HERE/../lib/pg.sh"

# ------------------------------------------------------------ workdir --
t_init live-core
T_KEEP=${PGSC_LIVE_KEEP:-0}
W=$T_WORK
chmod 755 "$W"
mkdir -p "$W/bin" "$W/noise" "$W/exp" "$W/out"
CLUSTERS="a b"
declare -A PORT=([a]=54361 [b]=54362)
RESULT=fail
NOISE_PID=

cleanup() {
	local c
	[ -n "$NOISE_PID" ] && kill "$NOISE_PID" 2>/dev/null && wait "$NOISE_PID" 2>/dev/null
	for c in $CLUSTERS; do
		pg_stop_now "$W/$c/data"
	done
	audit_end
	[ "$T_KEEP" = 1 ] || [ "$RESULT" = pass ] ||
		note "work directory removed; rerun with PGSC_LIVE_KEEP=1 to keep the logs and the store"
}
t_cleanup cleanup

# pgsc-exec must be reachable by the postgres user.
EXEC=$BINDIR/pgsc-exec
if ! runuser -u postgres -- test -x "$EXEC"; then
	cp "$EXEC" "$W/bin/pgsc-exec"
	chmod 755 "$W/bin/pgsc-exec"
	EXEC=$W/bin/pgsc-exec
fi

# -------------------------------------------------- self-reporting programs --
# Every program run below a server appends "<kind> <pid> <parent pid>" to
# the report file given as its first argument (one per cluster), for itself
# and for each external command it starts.  popen() and system() run them
# through "sh -c", which vforks the script: $PPID is that shell.
cat >"$W/bin/copy-prog.sh" <<'EOF'
#!/bin/sh
# COPY ... TO PROGRAM 'copy-prog.sh REPORT': report, hand stdin to a cat.
r=$1
echo "copy $$ $PPID" >>"$r"
exec 3<&0
cat <&3 >"$r.copy-out" &
echo "copy $! $$" >>"$r"
wait $!
EOF
cat >"$W/bin/archive.sh" <<'EOF'
#!/bin/sh
# archive_command 'archive.sh REPORT %p DEST': report, copy with cp and mv.
r=$1
echo "archive $$ $PPID" >>"$r"
test ! -f "$3" || exit 1
cp "$2" "$3.tmp" &
echo "archive $! $$" >>"$r"
wait $! || exit 1
mv "$3.tmp" "$3" &
echo "archive $! $$" >>"$r"
wait $!
EOF
# The unrelated process: syscalls PostgreSQL does not make (uname, sync,
# utimensat, sysinfo, sched_getaffinity, statfs, clock_nanosleep, ...).
NP=$W/noise/pids
cat >"$W/bin/noise.sh" <<EOF
#!/bin/sh
echo "noise \$\$ \$PPID" >>$NP
run() { "\$@" >/dev/null 2>&1 & echo "noise \$! \$\$" >>$NP; wait \$! || true; }
i=0
while [ \$i -lt 8 ]; do
	run uname -a
	run sync
	run touch $W/noise/stamp
	run nproc
	run stat -f /
	run uptime
	run sleep 0.2
	i=\$((i + 1))
done
EOF
chmod 755 "$W/bin"/*.sh
: >"$NP"

# ------------------------------------------------------------- initdb --
BG=
for c in $CLUSTERS; do
	mkdir -p "$W/$c/sock" "$W/$c/arch"
	: >"$W/$c/self.pids"
	chown -R postgres "$W/$c"
	runuser -u postgres -- "$PGBIN/initdb" -D "$W/$c/data" -A trust -U postgres --no-sync \
		>"$W/$c/initdb.log" 2>&1 &
	BG="$BG $!"
done
for p in $BG; do wait "$p" || true; done
for c in $CLUSTERS; do
	[ -f "$W/$c/data/PG_VERSION" ] || fail "initdb of cluster $c failed: $(cat "$W/$c/initdb.log")"
	cat >>"$W/$c/data/postgresql.conf" <<EOF

# live-core.sh
listen_addresses = ''
port = ${PORT[$c]}
unix_socket_directories = '$W/$c/sock'
log_line_prefix = '%m [%p] %b '
log_connections = on
log_disconnections = on
log_min_messages = debug2
log_checkpoints = on
autovacuum_naptime = 1s
archive_mode = on
archive_command = '$W/bin/archive.sh $W/$c/self.pids "%p" "$W/$c/arch/%f"'
EOF
done

psql_c() { # psql_c CLUSTER SQL
	runuser -u postgres -- "$PGBIN/psql" -X -q -At -h "$W/$1/sock" -p "${PORT[$1]}" -U postgres -d postgres -c "$2"
}
snapshot() { # snapshot CLUSTER: pid and backend_type of every server process
	psql_c "$1" "SELECT pid || '|' || coalesce(backend_type, '') FROM pg_stat_activity" >>"$W/$1/activity"
}

# --------------------------------------------------------------- audit --
T_LOCK=$(now)
audit_begin "$W/audit" || fail "could not start the private auditd"
T_LOCKED=$(now)
if [ "$MODE" = import ]; then
	audit_rules "$SRCROOT/examples/pgsc.rules" "$PGEXE" || fail "could not load examples/pgsc.rules"
fi # wrap: pgsc-collect loads the same rules itself (--print-rules)
LOST0=$(auditctl -s | awk '$1 == "lost" { print $2 }')

# The workload (both clusters from start to stop): run by this shell, or
# in wrap mode by a bash that pgsc-collect starts (set -e, fail and the
# variables carry over through $W/bin/workload.sh).
workload() {
# --------------------------------------------------------- start both --
BG=
for c in $CLUSTERS; do
	runuser -u postgres -- "$EXEC" --default log -- \
		"$PGBIN/pg_ctl" -D "$W/$c/data" -l "$W/$c/server.log" -w -t 60 start \
		>"$W/$c/pg_ctl.out" 2>&1 &
	BG="$BG $!"
done
# Wait for these two only: auditd is a child of this shell too.
for p in $BG; do wait "$p" || true; done
for c in $CLUSTERS; do
	[ -f "$W/$c/data/postmaster.pid" ] ||
		fail "cluster $c did not start: $(cat "$W/$c/pg_ctl.out"; tail -20 "$W/$c/server.log" 2>/dev/null)"
	head -n 1 "$W/$c/data/postmaster.pid" >"$W/$c/postmaster.pidnum"
	snapshot "$c"
done

# ------------------------------------------------------------ workload --
# The unrelated process runs concurrently with the servers' workload.
"$EXEC" --default log -- /bin/sh "$W/bin/noise.sh" >/dev/null 2>&1 &
NOISE_PID=$!

pgb() { # pgb CLUSTER ARGS...
	local c=$1; shift
	runuser -u postgres -- "$PGBIN/pgbench" -h "$W/$c/sock" -p "${PORT[$c]}" -U postgres "$@" postgres
}
(
	pgb b -i -s 1 -q >"$W/b/pgbench.out" 2>&1 &&
	pgb b -c 2 -T 3 >>"$W/b/pgbench.out" 2>&1
) &
PGB_B=$!
pgb a -i -s 1 -q >"$W/a/pgbench.out" 2>&1 || fail "pgbench -i on cluster a failed: $(cat "$W/a/pgbench.out")"
pgb a -C -c 4 -T 5 >>"$W/a/pgbench.out" 2>&1 || fail "pgbench -C on cluster a failed: $(tail "$W/a/pgbench.out")"
wait "$PGB_B" || fail "pgbench on cluster b failed: $(tail "$W/b/pgbench.out")"

psql_c a "COPY (SELECT 1) TO PROGRAM '$W/bin/copy-prog.sh $W/a/self.pids'" || fail "COPY TO PROGRAM failed"
grep -q '^copy ' "$W/a/self.pids" || fail "the COPY program did not report its pid"

for c in $CLUSTERS; do snapshot "$c"; done
WALA=$(psql_c a "SELECT pg_walfile_name(pg_switch_wal())")
psql_c a "CHECKPOINT"
for _ in $(seq 1 300); do
	[ -f "$W/a/arch/$WALA" ] && break
	sleep 0.1
done
[ -f "$W/a/arch/$WALA" ] || fail "archive_command did not archive $WALA within 30 s: $(grep -i archive "$W/a/server.log" | tail -5)"
grep -q '^archive ' "$W/a/self.pids" || fail "archive_command did not report its pid"

wait "$NOISE_PID" || true
NOISE_PID=
for c in $CLUSTERS; do snapshot "$c"; done

for c in $CLUSTERS; do
	runuser -u postgres -- "$PGBIN/pg_ctl" -D "$W/$c/data" -m fast -w -t 60 stop >/dev/null ||
		fail "pg_ctl stop of cluster $c failed"
done
} # workload

STORE=$W/out/store.db
T_LOAD=$(now)
if [ "$MODE" = import ]; then
	workload
else
	{
		echo "set -euo pipefail; export LC_ALL=C"
		declare -p W PGBIN PGEXE EXEC NP CLUSTERS PORT NOISE_PID
		declare -f fail note psql_c snapshot workload
		echo workload
	} >"$W/bin/workload.sh"
	T_PGSC=$(now)
	rc=0
	"$BINDIR/pgsc-collect" --db "$STORE" --label live-core --source "file:$W/audit/audit.log" --from-start \
		-- bash "$W/bin/workload.sh" >"$W/out/collect.out" 2>&1 || rc=$?
	[ "$rc" = 0 ] || fail "pgsc-collect -- workload exited with status $rc: $(tail -20 "$W/out/collect.out")"
fi
T_LOADEND=$(now)
audit_sync || fail "the audit log did not catch up (sync marker not seen)"
if [ "$MODE" = wrap ] && auditctl -l | grep -q 'key=pgsc'; then
	fail "pgsc-collect left its audit rules loaded: $(auditctl -l | grep 'key=pgsc' | tr '\n' ' ')"
fi
LOST1=$(auditctl -s | awk '$1 == "lost" { print $2 }')
audit_end
LOG=$W/audit/audit.log
[ -s "$LOG" ] || fail "the audit log $LOG is empty"
if [ "${LOST1:-0}" != "${LOST0:-0}" ]; then
	echo "WARN: the kernel lost $((LOST1 - LOST0)) audit records during the test" >&2
fi

# ------------------------------------------------ pgsc under test --
if [ "$MODE" = import ]; then
	T_PGSC=$(now)
	rc=0
	"$BINDIR/pgsc-collect" --db "$STORE" --label live-core --import "$LOG" >"$W/out/collect.out" 2>&1 || rc=$?
	[ "$rc" = 0 ] || fail "pgsc-collect --import exited with status $rc: $(tail -20 "$W/out/collect.out")"
fi
"$BINDIR/pgsc-report" --db "$STORE" --format=guc >"$W/out/report.guc" 2>"$W/out/report.guc.err" ||
	fail "pgsc-report --format=guc failed: $(cat "$W/out/report.guc.err")"
"$BINDIR/pgsc-report" --db "$STORE" --format=json >"$W/out/report.json" 2>"$W/out/report.json.err" ||
	fail "pgsc-report --format=json failed: $(cat "$W/out/report.json.err")"
T_PGSCEND=$(now)

# ======================================================================
# Independent derivation of the expected lists.
# ======================================================================
E=$W/exp

# --- pids of the servers, without looking at the audit log ------------
# Server logs: "%m [%p] %b SEVERITY:  message".  Print "pid<TAB>type".
pglog_types() {
	awk '
	/^[0-9]+-[0-9]+-[0-9]+ [0-9:.]+ [A-Za-z0-9+-]+ \[[0-9]+\] / {
		pid = $4; gsub(/[^0-9]/, "", pid)
		bt = ""
		for (i = 5; i <= NF; i++) {
			if ($i ~ /^(DEBUG[1-5]?|LOG|INFO|NOTICE|WARNING|ERROR|FATAL|PANIC|DETAIL|HINT|CONTEXT|STATEMENT|LOCATION|QUERY):$/)
				break
			bt = bt (bt == "" ? "" : " ") $i
		}
		print pid "\t" bt
	}' "$@" | sort -u
}
# Pids the postmaster names in its messages.
pglog_mentions() {
	{
		sed -n 's/.*forked new backend, pid=\([0-9][0-9]*\).*/\1/p' "$@"
		grep -o '(PID [0-9][0-9]*)' "$@" | tr -dc '0-9\n'
	} | sort -u
}

: >"$E/postmaster.pids"; : >"$E/server.pids"; : >"$E/client.pids"
for c in $CLUSTERS; do
	L=$W/$c/server.log
	[ -s "$L" ] || fail "server log of cluster $c is empty"
	pglog_types "$L" >"$W/$c/log.types"
	pglog_mentions "$L" >"$W/$c/log.mentions"
	pm=$(cat "$W/$c/postmaster.pidnum")
	[ -n "$pm" ] || fail "no pid in postmaster.pid of cluster $c"
	awk -F'\t' '$2 == "postmaster" { print $1 }' "$W/$c/log.types" | sort -u >"$W/$c/log.pm"
	[ "$(cat "$W/$c/log.pm")" = "$pm" ] ||
		fail "cluster $c: postmaster.pid says $pm but the log's postmaster lines say: $(tr '\n' ' ' <"$W/$c/log.pm")"
	echo "$pm" >>"$E/postmaster.pids"
	{
		echo "$pm"
		cut -f1 "$W/$c/log.types"
		cat "$W/$c/log.mentions"
		cut -d'|' -f1 "$W/$c/activity"
		awk '{ print $2; print $3 }' "$W/$c/self.pids"
	} | grep -E '^[0-9]+$' | sort -u >"$W/$c/server.pids"
	{
		awk -F'\t' '$2 == "client backend" { print $1 }' "$W/$c/log.types"
		awk -F'|' '$2 == "client backend" { print $1 }' "$W/$c/activity"
		awk '$1 == "copy" { print $2; print $3 }' "$W/$c/self.pids"
	} | sort -u >"$W/$c/client.pids"
	cat "$W/$c/server.pids" >>"$E/server.pids"
	cat "$W/$c/client.pids" >>"$E/client.pids"
done
sort -u -o "$E/server.pids" "$E/server.pids"
sort -u -o "$E/client.pids" "$E/client.pids"
sort -u -o "$E/postmaster.pids" "$E/postmaster.pids"
comm -12 "$W/a/server.pids" "$W/b/server.pids" >"$E/both.pids"
[ ! -s "$E/both.pids" ] || fail "test invalid: pids claimed by both clusters: $(tr '\n' ' ' <"$E/both.pids")"
awk '{ print $2 }' "$NP" | sort -u >"$E/noise.pids"
[ -s "$E/noise.pids" ] || fail "the unrelated process did not report its pid"
comm -12 "$E/server.pids" "$E/noise.pids" >"$E/clash.pids"
[ ! -s "$E/clash.pids" ] ||
	fail "test invalid: pids both in a server and in the unrelated process (pid reuse?): $(tr '\n' ' ' <"$E/clash.pids")"
for c in $CLUSTERS; do cat "$W/$c/self.pids"; done >"$E/self.pids"
awk '$1 == "archive" { print $2 }' "$E/self.pids" | sort -u >"$E/archive.pids"
awk '$1 == "copy" { print $2 }' "$E/self.pids" | sort -u >"$E/copy.pids"

# --- the raw SECCOMP records: "pid<TAB>exe<TAB>arch<TAB>nr<TAB>count" ---
awk '
/^type=SECCOMP / {
	pid = arch = nr = exe = ""
	for (i = 2; i <= NF; i++) {
		if ($i ~ /^pid=/)          pid = substr($i, 5)
		else if ($i ~ /^arch=/)    arch = substr($i, 6)
		else if ($i ~ /^syscall=/) nr = substr($i, 9)
		else if ($i ~ /^exe=/)     exe = substr($i, 5)
	}
	gsub(/"/, "", exe)
	sub(/\035.*/, "", nr)
	if (pid == "" || arch == "" || nr == "") { bad++; next }
	n[pid "\t" exe "\t" arch "\t" nr]++
}
END {
	for (k in n) print k "\t" n[k]
	if (bad) print "unparsed SECCOMP lines: " bad > "/dev/stderr"
}' "$LOG" | sort >"$E/records"
[ -s "$E/records" ] || fail "no SECCOMP records in $LOG: is pgsc-exec --default log working?"

# --- syscall names through libseccomp ---------------------------------
cut -f3,4 "$E/records" | sort -u | while IFS=$'\t' read -r arch nr; do
	case $arch in
	c000003e) a=x86_64 ;;
	40000003) a=x86 ;;
	*) echo "$arch $nr ?UNKNOWN-ARCH"; continue ;;
	esac
	name=$(scmp_sys_resolver -a "$a" "$nr" 2>/dev/null || true)
	printf '%s\t%s\t%s\n' "$arch" "$nr" "${name:-?}"
done >"$E/names"
if grep -qE $'\t(UNKNOWN|\\?)$|UNKNOWN-ARCH|\t-' "$E/names"; then
	fail "scmp_sys_resolver could not name: $(grep -E $'\t(UNKNOWN|\\?)$|UNKNOWN-ARCH|\t-' "$E/names" | tr '\n' ' ')"
fi
# "pid<TAB>exe<TAB>name<TAB>arch" per record group.
awk -F'\t' 'NR == FNR { nm[$1 "\t" $2] = $3; next }
	{ print $1 "\t" $2 "\t" nm[$3 "\t" $4] "\t" $3 }' "$E/names" "$E/records" |
	sort -u >"$E/named"

# names_of PIDFILE [postgres-only-pidfile]: syscall names of records of the
# pids in PIDFILE.  For the pids in the second file only records made while
# the process ran the postgres binary count: a postmaster's pid was first
# pg_ctl's forked child and then "sh -c exec postgres ...", outside any
# server.
names_of() {
	awk -F'\t' -v pg="$PGEXE" -v f1="$1" -v f2="${2:-}" '
	BEGIN {
		while ((getline l < f1) > 0) want[l] = 1
		if (f2 != "") while ((getline l < f2) > 0) pgonly[l] = 1
	}
	($1 in want) && (!($1 in pgonly) || $2 == pg) { print $3 }' "$E/named" | sort -u
}
names_of "$E/server.pids" "$E/postmaster.pids" >"$E/global"
names_of "$E/client.pids" >"$E/client"
names_of "$E/postmaster.pids" "$E/postmaster.pids" >"$E/postmaster"
comm -23 "$E/server.pids" "$E/postmaster.pids" >"$E/nonpm.pids"
names_of "$E/nonpm.pids" >"$E/nonpm"
comm -23 "$E/postmaster" "$E/nonpm" >"$E/postmaster_only"
names_of "$E/noise.pids" >"$E/noise"
comm -23 "$E/noise" "$E/global" >"$E/noise_only"
names_of "$E/copy.pids" >"$E/copy"
names_of "$E/archive.pids" >"$E/archive"
# What the postmaster pids did before they were postgres (pg_ctl, sh).
awk -F'\t' -v pg="$PGEXE" 'NR == FNR { pm[$1] = 1; next }
	($1 in pm) && $2 != pg { print $3 }' "$E/postmaster.pids" "$E/named" | sort -u >"$E/pm_preexec"
comm -23 "$E/pm_preexec" "$E/global" >"$E/pm_preexec_only"
awk -F'\t' '$4 != "c000003e" { print $1 }' "$E/named" | sort -u >"$E/compat.pids"

[ -s "$E/global" ] || fail "test invalid: no SECCOMP records from any server pid"
for c in $CLUSTERS; do
	names_of "$W/$c/server.pids" "$E/postmaster.pids" >"$W/$c/names"
	[ -s "$W/$c/names" ] || fail "test invalid: no SECCOMP records from cluster $c"
done
[ -s "$E/client" ] || fail "test invalid: no SECCOMP records from client backends"
[ -s "$E/copy" ] || fail "test invalid: no SECCOMP records from the COPY program"
[ -s "$E/archive" ] || fail "test invalid: no SECCOMP records from the archive_command"
[ -s "$E/postmaster_only" ] || fail "test invalid: no syscall is used by the postmaster alone, the session check cannot fail"
[ -s "$E/noise_only" ] ||
	fail "test ineffective: the unrelated process made no syscall that the servers did not (noise would go unnoticed); its syscalls: $(tr '\n' ' ' <"$E/noise")"

# --- validity guard: a pid born twice during the test is ambiguous ------
# Raw fork records (clone/fork/vfork/clone3 success, exit=<child>): used
# only to guard and to explain, never to build the expected lists.
awk '
/^type=SYSCALL / && / success=yes / {
	arch = nr = pid = child = ""
	for (i = 2; i <= NF; i++) {
		if ($i ~ /^arch=/) arch = substr($i, 6)
		else if ($i ~ /^syscall=/) nr = substr($i, 9)
		else if ($i ~ /^pid=/) pid = substr($i, 5)
		else if ($i ~ /^exit=/) child = substr($i, 6)
	}
	if ((arch == "c000003e" && (nr == 56 || nr == 57 || nr == 58 || nr == 435)) ||
	    (arch == "40000003" && (nr == 120 || nr == 2 || nr == 190 || nr == 435)))
		if (child + 0 > 0) print child "\t" pid
}' "$LOG" | sort -k1,1 >"$E/forks"
cut -f1 "$E/forks" | uniq -d >"$E/reborn.pids"
cat "$E/server.pids" "$E/noise.pids" | sort -u | comm -12 - "$E/reborn.pids" >"$E/reborn.ours"
[ ! -s "$E/reborn.ours" ] ||
	fail "test invalid: pids forked more than once during the test (pid reuse): $(tr '\n' ' ' <"$E/reborn.ours")"

# Diagnostics: processes below a postmaster by the fork records that have
# SECCOMP records but that no independent source revealed (and back).
awk -F'\t' '
FILENAME == ARGV[1] { parent[$1] = $2; next }
FILENAME == ARGV[2] { pm[$1] = 1; next }
{ seen[$1] = 1 }
END {
	for (p in seen) {
		q = p; hops = 0
		while (q != "" && !(q in pm) && hops++ < 64) q = parent[q]
		if (q in pm) print p
	}
}' "$E/forks" "$E/postmaster.pids" "$E/named" | sort -u >"$E/tree.pids"
comm -23 "$E/tree.pids" "$E/server.pids" >"$E/unrevealed.pids"
cut -f1 "$E/named" | sort -u | comm -12 - "$E/server.pids" | comm -23 - "$E/tree.pids" >"$E/untreed.pids"
describe_pids() { # pid -> exe list, for messages
	awk -F'\t' -v f="$1" 'BEGIN { while ((getline l < f) > 0) w[l] = 1 }
		($1 in w) { e[$1] = e[$1] == "" ? $2 : (index(e[$1], $2) ? e[$1] : e[$1] "," $2) }
		END { for (p in e) printf "%s(%s) ", p, e[p] }' "$E/named"
}

# ======================================================================
# What pgsc said.
# ======================================================================
GUC=$W/out/report.guc
mapfile -t GL <"$GUC"
errors=0
bad() { echo "FAIL: $*" >&2; errors=$((errors + 1)); }

# line 4, when the records lacked some of the calls each backend makes
# to load its session filter (filter_needs[] in src/filter_build.c; this
# server ran under a launcher's filter, not the module): the names
# pgsc-report added to the global list
ADDED=$W/out/added
: >"$ADDED"
if [[ "${GL[3]:-}" == "# added to the global list, not seen in the records: "* ]]; then
	a=${GL[3]#"# added to the global list, not seen in the records: "}
	tr ',' '\n' <<<"${a%% (*}" | sort -u >"$ADDED"
	GL=("${GL[@]:0:3}" "${GL[@]:4}")
fi
sed -n '/^const char \*const filter_needs\[\] = {/,/NULL,/p' "$SRCROOT/src/filter_build.c" |
	grep -o '"[a-z0-9_]*"' | tr -d '"' | sort -u >"$W/out/needs"
[ -s "$W/out/needs" ] || bad "could not read filter_needs[] from src/filter_build.c"
[ "${#GL[@]}" = 4 ] || bad "pgsc-report --format=guc printed ${#GL[@]} lines (but the added-names comment), expected 4: $(cat "$GUC")"
# line 4: the highest syscall numbers the lists knew, as a comment (no
# prefix: not the module's settings), as pgsc-exec's own libseccomp says
km=$("$BINDIR/pgsc-exec" --print-known-max 2>/dev/null || echo '?')
[[ "${GL[3]:-}" == "# pgsc.syscall_known_max = '$km' "* ]] || bad "guc line 4 is not the known max '$km' as a comment: ${GL[3]:-<none>}"
[[ "${GL[0]:-}" == "# pgsc:"* ]] || bad "guc line 1 does not start with '# pgsc:': ${GL[0]:-<none>}"
guc_list() { # guc_list LINE KEY -> names, one a line, in the printed order
	local re="^$2 = '([^']*)'\$"
	[[ "$1" =~ $re ]] || return 1
	printf '%s' "${BASH_REMATCH[1]}" | tr ',' '\n'
	[ -z "${BASH_REMATCH[1]}" ] || echo
}
check_names() { # check_names FILE WHAT: valid, sorted, unique
	local f=$1 what=$2 badn
	badn=$(grep -vE '^[a-z0-9_]+$' "$f" || true)
	[ -z "$badn" ] || bad "$what has malformed names: $(printf '%s' "$badn" | tr '\n' ' ' | cut -c1-300)"
	sort -c -u "$f" 2>/dev/null || bad "$what is not sorted and unique: $(tr '\n' ',' <"$f" | cut -c1-300)"
}
if guc_list "${GL[1]:-}" global_syscall_allow >"$W/out/global.raw"; then
	check_names "$W/out/global.raw" "global_syscall_allow"
else
	bad "guc line 2 is not \"global_syscall_allow = '...'\": ${GL[1]:-<none>}"
fi
if guc_list "${GL[2]:-}" session_syscall_allow >"$W/out/session.raw"; then
	check_names "$W/out/session.raw" "session_syscall_allow"
else
	bad "guc line 3 is not \"session_syscall_allow = '...'\": ${GL[2]:-<none>}"
fi
# the names pgsc-report added are exactly the module's needs the server's
# own calls lacked; the rest of the global list is compared below
comm -23 "$W/out/needs" "$E/global" | cmp -s - "$ADDED" ||
	bad "the added names ($(tr '\n' ' ' <"$ADDED")) are not the module's needs the records lacked ($(comm -23 "$W/out/needs" "$E/global" | tr '\n' ' '))"
sort -u "$W/out/global.raw" | comm -23 - "$ADDED" >"$W/out/global"
sort -u "$W/out/session.raw" >"$W/out/session"

# JSON: the top-level "global" and "session" arrays of names.
json_array() { # json_array KEY
	local a n
	a=$(tr -d '\n' <"$W/out/report.json" | grep -o "\"$1\"[[:space:]]*:[[:space:]]*\[[^]]*\]" || true)
	n=$(printf '%s' "$a" | grep -c . || true)
	[ -n "$a" ] && [ "$n" = 1 ] || return 1
	printf '%s\n' "$a" | sed 's/^"[^"]*"[^[]*\[//; s/\]$//' | { grep -o '"[^"]*"' || true; } | tr -d '"' | sort -u
}
json_array global >"$W/out/json.global.all" || bad "pgsc-report --format=json has no single top-level \"global\" array"
comm -23 "$W/out/json.global.all" "$ADDED" >"$W/out/json.global"
json_array session >"$W/out/json.session" || bad "pgsc-report --format=json has no single top-level \"session\" array"

same() { [ -z "$(comm -3 "$1" "$2")" ]; } # same SORTED-A SORTED-B
# diffmsg A B WHAT-A WHAT-B: the two-sided difference, for messages.
diffmsg() {
	local only_a only_b
	only_a=$(comm -23 "$1" "$2" | tr '\n' ' ')
	only_b=$(comm -13 "$1" "$2" | tr '\n' ' ')
	printf '\n    only in %s: %s\n    only in %s: %s' "$3" "${only_a:-(none)}" "$4" "${only_b:-(none)}"
}

# 1. global == expected_global.
if ! same "$W/out/global" "$E/global"; then
	msg="pgsc's global list differs from the syscalls of the server pids$(diffmsg "$W/out/global" "$E/global" pgsc expected)"
	extra=$(comm -23 "$W/out/global" "$E/global" | comm -12 - "$E/pm_preexec_only" | tr '\n' ' ')
	[ -z "$extra" ] || msg="$msg
    of pgsc's extra names, these were made only by the postmaster's pid BEFORE it exec'd postgres (pg_ctl, sh): $extra"
	extra=$(comm -23 "$W/out/global" "$E/global" | comm -12 - "$E/noise" | tr '\n' ' ')
	[ -z "$extra" ] || msg="$msg
    of pgsc's extra names, the unrelated process made: $extra"
	[ ! -s "$E/unrevealed.pids" ] || msg="$msg
    note: the fork records put these pids below a postmaster, but no independent source named them: $(describe_pids "$E/unrevealed.pids")"
	bad "$msg"
fi
# 2. session ⊇ expected_client.
missing=$(comm -23 "$E/client" "$W/out/session" | tr '\n' ' ')
[ -z "$missing" ] || bad "pgsc's session list lacks syscalls of client backends / their COPY program: $missing"
# 3. session ∩ postmaster-only == ∅.
leak=$(comm -12 "$W/out/session" "$E/postmaster_only" | tr '\n' ' ')
[ -z "$leak" ] || bad "pgsc's session list has syscalls only the postmaster made: $leak"
# 4. no noise.
noise=$(comm -12 "$W/out/global" "$E/noise_only" | tr '\n' ' ')
[ -z "$noise" ] || bad "pgsc's global list has syscalls only the unrelated process made: $noise"
# 5. session ⊆ global, and JSON agrees with GUC.
over=$(comm -23 "$W/out/session" "$W/out/global" | tr '\n' ' ')
[ -z "$over" ] || bad "pgsc's session list has names missing from its global list: $over"
same "$W/out/json.global" "$W/out/global" ||
	bad "JSON \"global\" differs from the GUC global list$(diffmsg "$W/out/json.global" "$W/out/global" json guc)"
same "$W/out/json.session" "$W/out/session" ||
	bad "JSON \"session\" differs from the GUC session list$(diffmsg "$W/out/json.session" "$W/out/session" json guc)"
# 6. the roles the workload must have produced.
for role in "postmaster" "client backend" "descendant/client backend" "descendant/archiver" "checkpointer"; do
	grep -qF "\"$role\"" "$W/out/report.json" || bad "pgsc-report --format=json names no role \"$role\""
done

# 7. wrap mode: the round holds every SECCOMP record of the log, and the
# store says nothing may be missing.
if [ "$MODE" = wrap ]; then
	raw=$(grep -c '^type=SECCOMP ' "$LOG" || true)
	[[ "${GL[0]:-}" =~ ^#\ pgsc:\ ([0-9]+)\ records ]] && got=${BASH_REMATCH[1]} || got="?"
	[ "$got" = "$raw" ] || bad "wrap mode: pgsc counted $got SECCOMP records, the audit log has $raw"
	"$BINDIR/pgsc-report" --db "$STORE" --check-complete >"$W/out/check.out" 2>&1 ||
		bad "wrap mode: pgsc-report --check-complete: $(cat "$W/out/check.out")"
fi

# ======================================================================
# Summary.
# ======================================================================
cnt() { grep -c . "$1" || true; }
HDR=${GL[0]:-}
note "mode: $MODE"
note "clusters a (postmaster $(cat "$W/a/postmaster.pidnum")) and b (postmaster $(cat "$W/b/postmaster.pidnum"))"
note "SECCOMP records: $(grep -c '^type=SECCOMP ' "$LOG") in $(cut -f1 "$E/records" | sort -u | grep -c .) pids; pgsc header: $HDR"
note "server pids: $(cnt "$E/server.pids") (a $(cnt "$W/a/server.pids"), b $(cnt "$W/b/server.pids")), client backend pids: $(cnt "$E/client.pids"), COPY program pids: $(cnt "$E/copy.pids"), archive pids: $(cnt "$E/archive.pids"), unrelated pids: $(cnt "$E/noise.pids")"
note "expected: global $(cnt "$E/global"), client $(cnt "$E/client"), postmaster-only $(cnt "$E/postmaster_only") ($(tr '\n' ' ' <"$E/postmaster_only")), COPY program $(cnt "$E/copy"), archive $(cnt "$E/archive"), unrelated-only $(cnt "$E/noise_only") ($(tr '\n' ' ' <"$E/noise_only"))"
note "pgsc: global $(cnt "$W/out/global"), session $(cnt "$W/out/session")"
if [[ "$HDR" =~ ([0-9]+)\ unattributed ]] && [ "${BASH_REMATCH[1]}" != 0 ]; then
	echo "WARN: pgsc left ${BASH_REMATCH[1]} records unattributed although the fork/exec rules were loaded" >&2
fi
extra=$(comm -23 "$W/out/session" "$E/client" | tr '\n' ' ')
[ -z "$extra" ] || note "session names beyond the client backends' and their COPY program's (allowed): $extra"
if [ -s "$E/unrevealed.pids" ]; then
	note "pids below a postmaster by the fork records that no independent source named: $(describe_pids "$E/unrevealed.pids")"
fi
if [ -s "$E/untreed.pids" ]; then
	note "server pids with SECCOMP records that the fork records do not place below a postmaster: $(describe_pids "$E/untreed.pids")"
fi
[ ! -s "$E/compat.pids" ] || note "pids with i386 records: $(tr '\n' ' ' <"$E/compat.pids")"
[ -z "$(tr -d '\n' <"$E/pm_preexec_only")" ] ||
	note "syscalls the postmaster pids made only before exec'ing postgres (pg_ctl, sh; not expected): $(tr '\n' ' ' <"$E/pm_preexec_only")"
T_END=$(now)
note "time: waiting for the audit lock $(elapsed "$T_LOCK" "$T_LOCKED") s, setup $(awk -v a="$(elapsed "$T_START" "$T_LOAD")" -v b="$(elapsed "$T_LOCK" "$T_LOCKED")" 'BEGIN { printf "%.1f", a - b }') s, workload $(elapsed "$T_LOAD" "$T_LOADEND") s, pgsc $(elapsed "$T_PGSC" "$T_PGSCEND") s, total $(elapsed "$T_START" "$T_END") s"

if [ "$errors" -gt 0 ]; then
	echo "FAIL: $errors check(s) failed" >&2
	exit 1
fi
RESULT=pass
note "PASS"
exit 0
