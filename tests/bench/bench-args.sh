#!/bin/bash
# SPDX-License-Identifier: PostgreSQL
# bench-args.sh - what the --args rules cost (docs/args.md): the same
# pgbench workload (pgbench -i, then a fixed number of transactions over
# 4 connections) recorded twice by a private auditd, PostgreSQL 15 under
# pgsc-exec --default log, once with pgsc's rules and once with the --args
# rules added; then each log imported by pgsc-collect.  Prints, for each:
# the log's lines and SYSCALL records, the round's SECCOMP records, the
# argument values stored, pgbench's tps, and the CPU seconds and wall time
# of the import (best of 3), with the ratio with/without.  Run as root
# from a built tree (it takes the audit lock):
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
record() { # MODE: the workload under rules.MODE into $T/MODE.log
	local m=$1
	# without the lock and our own auditd nothing may run: the server's
	# records would reach whoever holds the audit daemon's role
	PGSC_AUDIT_FORMAT=RAW audit_begin "$T/audit-$m" || fail "no private auditd (audit lock)"
	audit_rules "$T/rules.$m" "$PGBIN/postgres" || fail "could not load the rules"
	runuser -u postgres -- "$BIN/pgsc-exec" --default log -- "$PGBIN/pg_ctl" -D "$T/data" \
		-o "-k $T/sock -p $port -c listen_addresses='' -c autovacuum=off" \
		-l "$T/pg-$m.log" -w start >/dev/null || fail "the server did not start"
	pg_up=1
	runuser -u postgres -- "$PGBIN/pgbench" -h "$T/sock" -p "$port" -i -s "$SCALE" -q postgres >"$T/pgb-$m.out" 2>&1 ||
		fail "pgbench -i: $(tail -3 "$T/pgb-$m.out")"
	runuser -u postgres -- "$PGBIN/pgbench" -h "$T/sock" -p "$port" -c 4 -t "$TX" postgres >>"$T/pgb-$m.out" 2>&1 ||
		fail "pgbench: $(tail -3 "$T/pgb-$m.out")"
	TPS[$m]=$(sed -n 's/^tps = \([0-9.]*\) (without initial connection time).*/\1/p' "$T/pgb-$m.out" | tail -n 1)
	stop_pg
	audit_sync || true
	audit_end
	grep -v 'type=DAEMON_' "$T/audit-$m/audit.log" >"$T/$m.log"
	rm -rf "$T/audit-$m"
}
record without
record with

fresh() { rm -f "$T/b.db" "$T/b.db-wal" "$T/b.db-shm"; }
printf '%-8s %10s %10s %10s %8s %8s %8s %8s %8s\n' mode lines syscall seccomp values tps cpu_s wall_s rss_kb
declare -A CPU WALL LINES
for m in without with; do
	bench_best 3 fresh "$BIN/pgsc-collect" --db "$T/b.db" --quiet --import "$T/$m.log" ||
		fail "import of the $m log: $(head -3 "$T/bench.err")"
	CPU[$m]=$BEST_CPU WALL[$m]=$BEST_WALL
	LINES[$m]=$(wc -l <"$T/$m.log")
	sys=$(grep -c '^type=SYSCALL' "$T/$m.log")
	sec=$(sqlite3 "$T/b.db" "SELECT sum(records) FROM rounds")
	vals=$(sqlite3 "$T/b.db" "SELECT count(*) FROM arg_values")
	printf '%-8s %10s %10s %10s %8s %8s %8s %8s %8s\n' "$m" "$(fmt_int "${LINES[$m]}")" \
		"$(fmt_int "$sys")" "$(fmt_int "$sec")" "$vals" "${TPS[$m]}" "${CPU[$m]}" "${WALL[$m]}" "$BEST_RSS"
	if [ "$m" = with ] && [ "$vals" = 0 ]; then
		bench_wrong "the --args log gave no argument values"
	fi
done
printf 'ratio with/without: lines %s, cpu %s, wall %s, tps %s\n' \
	"$(bench_div "${LINES[with]}" "${LINES[without]}" %.2f)" \
	"$(bench_div "${CPU[with]}" "${CPU[without]}" %.2f)" \
	"$(bench_div "${WALL[with]}" "${WALL[without]}" %.2f)" \
	"$(bench_div "${TPS[with]}" "${TPS[without]}" %.2f)"
