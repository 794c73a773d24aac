#!/bin/bash
# SPDX-License-Identifier: PostgreSQL
# bench-args.sh - what the --args rules cost (docs/args.md): the same
# pgbench workload (pgbench -i, then a fixed number of transactions over
# 4 connections) recorded by a private auditd, once with pgsc's rules and
# once with the --args rules added, in two shapes of a collection:
#   first   a first round: PostgreSQL 15 under pgsc-exec --default log and
#           no list, every syscall a SECCOMP record;
#   later   a later round: under the shipped list
#           (examples/lists/pg15-debian12-x86_64-outside.guc, --list
#           global) without exit_group, at --default log: a SECCOMP
#           record at each process's exit and almost nothing else (an
#           import makes no round of a log with no SECCOMP record), so
#           what the --args rules add is most of the log.
# Then each log imported by pgsc-collect.  Prints, for each: the log's
# lines, its SYSCALL records (all; those of the pgsc-args key), the
# round's SECCOMP records, the argument values stored, pgbench's tps, and
# the CPU seconds and wall time of the import (best of 3), with the
# ratios with/without per shape.  SYSCALL records of pgsc's own rules
# (fork, exec, exit) come from every process of the machine: compare the
# pgsc-args column.  Run as root from a built tree (it takes the audit
# lock):
#   bash tests/bench/bench-args.sh BUILD_DIR
#   PGSC_BENCH_ARGS_TX     transactions per connection (2000)
#   PGSC_BENCH_ARGS_SCALE  pgbench -i scale (2)
# shellcheck source=../lib/bench.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/bench.sh"
bench_init bench-args
t_bindir "bench-args.sh BUILD_DIR" "$@"
BIN=$BINDIR
here=$(cd "$(dirname "$0")" && pwd)
PGBIN=${PGBIN:-/usr/lib/postgresql/15/bin}
TX=${PGSC_BENCH_ARGS_TX:-2000}
SCALE=${PGSC_BENCH_ARGS_SCALE:-2}
need_root "a private auditd"
need_progs auditd auditctl bc /usr/bin/time sqlite3
need_exec "$PGBIN/postgres" "$PGBIN/pg_ctl" "$PGBIN/pgbench"
chmod 755 "$T"
# shellcheck source=../lib/auditd.sh
. "$here/../lib/auditd.sh"
pg_up=0
stop_pg() {
	[ $pg_up = 0 ] || runuser -u postgres -- "$PGBIN/pg_ctl" -D "$T/data" -m fast -w stop >/dev/null 2>&1
	pg_up=0
}
t_cleanup audit_end
t_cleanup stop_pg
mkdir -p "$T/sock"
chown postgres "$T" "$T/sock"
runuser -u postgres -- "$PGBIN/initdb" -D "$T/data" -A trust -U postgres >/dev/null
port=$((40000 + $$ % 20000))
"$BIN/pgsc-collect" --print-rules >"$T/rules.without"
"$BIN/pgsc-collect" --print-rules --args --server-user postgres >"$T/rules.with"

declare -A TPS
SHIPPED=$T_SRCROOT/examples/lists/pg15-debian12-x86_64-outside.guc
need_file "$SHIPPED"
LIST=$T/later.guc
sed -E "/^pgsc\.global_syscall_allow = /{s/'exit_group,/'/; s/,exit_group([,'])/\1/}" "$SHIPPED" >"$LIST"
grep -q '^pgsc\.global_syscall_allow = .*exit' "$LIST" || fail "no global list in $SHIPPED"
! grep -qE "^pgsc\.global_syscall_allow = .*[',]exit_group[,']" "$LIST" || fail "exit_group is still in $LIST"
record() { # SHAPE MODE REP: the workload under rules.MODE; REP 1 keeps $T/SHAPE-MODE.log
	local shape=$1 m=$2 rep=$3 filt=(--default log)
	[ "$shape" = first ] || filt+=(--allow-file "$LIST" --list global)
	# without the lock and our own auditd nothing may run: the server's
	# records would reach whoever holds the audit daemon's role
	PGSC_AUDIT_FORMAT=RAW audit_begin "$T/audit-$shape-$m" || fail "no private auditd (audit lock)"
	audit_rules "$T/rules.$m" "$PGBIN/postgres" || fail "could not load the rules"
	runuser -u postgres -- "$BIN/pgsc-exec" "${filt[@]}" -- "$PGBIN/pg_ctl" -D "$T/data" \
		-o "-k $T/sock -p $port -c listen_addresses='' -c autovacuum=off" \
		-l "$T/pg-$shape-$m.log" -w start >/dev/null || fail "the server did not start ($shape, $m): $(tail -3 "$T/pg-$shape-$m.log")"
	pg_up=1
	runuser -u postgres -- "$PGBIN/pgbench" -h "$T/sock" -p "$port" -i -s "$SCALE" -q postgres >"$T/pgb-$shape-$m.out" 2>&1 ||
		fail "pgbench -i: $(tail -3 "$T/pgb-$shape-$m.out")"
	runuser -u postgres -- "$PGBIN/pgbench" -h "$T/sock" -p "$port" -c 4 -t "$TX" postgres >>"$T/pgb-$shape-$m.out" 2>&1 ||
		fail "pgbench: $(tail -3 "$T/pgb-$shape-$m.out")"
	TPS[$shape-$m.$rep]=$(sed -n 's/^tps = \([0-9.]*\) (without initial connection time).*/\1/p' "$T/pgb-$shape-$m.out" | tail -n 1)
	stop_pg
	audit_sync || true
	audit_end
	[ "$rep" != 1 ] || grep -v 'type=DAEMON_' "$T/audit-$shape-$m/audit.log" >"$T/$shape-$m.log"
	rm -rf "$T/audit-$shape-$m"
}
# Twice each, in the order without, with, with, without: the load of the
# machine drifts, and pgbench's tps with it; tps is the mean of the two.
for shape in first later; do
	record "$shape" without 1
	record "$shape" with 1
	record "$shape" with 2
	record "$shape" without 2
	for m in without with; do
		TPS[$shape-$m]=$(awk -v a="${TPS[$shape-$m.1]}" -v b="${TPS[$shape-$m.2]}" 'BEGIN { printf "%.1f", (a + b) / 2 }')
	done
done

fresh() { rm -f "$T/b.db" "$T/b.db-wal" "$T/b.db-shm"; }
printf '%-14s %10s %10s %10s %10s %7s %19s %7s %7s %7s\n' shape/mode lines syscall pgsc-args seccomp values tps cpu_s wall_s rss_kb
declare -A CPU WALL LINES ARGREC
for shape in first later; do
	for m in without with; do
		k=$shape-$m
		bench_best 3 fresh "$BIN/pgsc-collect" --db "$T/b.db" --quiet --import "$T/$k.log" ||
			fail "import of the $k log: $(head -3 "$T/bench.err")"
		CPU[$k]=$BEST_CPU WALL[$k]=$BEST_WALL
		LINES[$k]=$(wc -l <"$T/$k.log")
		sys=$(grep -c '^type=SYSCALL' "$T/$k.log")
		ARGREC[$k]=$(grep '^type=SYSCALL' "$T/$k.log" | grep -c 'key="pgsc-args"')
		sec=$(sqlite3 "$T/b.db" "SELECT sum(records) FROM rounds")
		vals=$(sqlite3 "$T/b.db" "SELECT count(*) FROM arg_values")
		printf '%-14s %10s %10s %10s %10s %7s %19s %7s %7s %7s\n' "$k" "$(fmt_int "${LINES[$k]}")" \
			"$(fmt_int "$sys")" "$(fmt_int "${ARGREC[$k]}")" "$(fmt_int "$sec")" "$vals" "${TPS[$k]} (${TPS[$k.1]%.*}/${TPS[$k.2]%.*})" \
			"${CPU[$k]}" "${WALL[$k]}" "$BEST_RSS"
		if [ "$m" = with ] && [ "$vals" = 0 ]; then
			bench_wrong "the --args log ($shape) gave no argument values"
		fi
		if [ "$m" = with ] && [ "${ARGREC[$k]}" = 0 ]; then
			bench_wrong "the --args log ($shape) has no SYSCALL record of the pgsc-args key"
		fi
	done
	printf '%s: with/without: lines %s, import cpu %s, import wall %s, tps %s\n' "$shape" \
		"$(bench_div "${LINES[$shape-with]}" "${LINES[$shape-without]}" %.2f)" \
		"$(bench_div "${CPU[$shape-with]}" "${CPU[$shape-without]}" %.2f)" \
		"$(bench_div "${WALL[$shape-with]}" "${WALL[$shape-without]}" %.2f)" \
		"$(bench_div "${TPS[$shape-with]}" "${TPS[$shape-without]}" %.2f)"
done
