#!/bin/bash
# SPDX-License-Identifier: PostgreSQL
# bench-connect.sh - what the pgsc module costs a connection: pgbench -C
# (a new connection for each transaction of one SELECT 1, one client) on
# a PostgreSQL 15 server with the module preloaded, in three shapes:
#   off         pgsc.enabled = off
#   postmaster  the shipped module list (examples/lists/pg15-debian12-
#               x86_64.guc): the session's lists are the postmaster's, so
#               the backend loads the program the postmaster built
#               (src/pgmodule/pgsc_prebuilt.c)
#   backend     the same server, a role whose ALTER ROLE ... SET changes
#               one session list: its backend builds its own filter with
#               libseccomp, as every backend did before
# The shapes run in alternation, REPS rounds of N connections each (a
# server start for each shape of a round).  Prints each round's average
# latency per connection (pgbench's, ms), the medians, the ratios to off,
# and what the program built once saves a connection.  Each shape's path
# is checked first (the module's DEBUG1 line): a shape that does not take
# its path is an error, not a figure.  Run as root from a built tree:
#   bash tests/bench/bench-connect.sh BUILD_DIR
#   PGSC_BENCH_CONNECT_N     connections a round (1000)
#   PGSC_BENCH_CONNECT_REPS  rounds (5)
# shellcheck source=../lib/bench.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/bench.sh"
bench_init bench-connect
[ $# -ge 1 ] || fail "usage: bench-connect.sh BUILD_DIR"
BUILD=$(cd "$1" && pwd)
N=${PGSC_BENCH_CONNECT_N:-1000}
REPS=${PGSC_BENCH_CONNECT_REPS:-5}
PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
# shellcheck source=../lib/pg.sh
. "$T_SRCROOT/tests/lib/pg.sh"
pg_module "$BUILD/pgmodule" "$PG_CONFIG"
pg_need postgres pg_ctl pgbench psql
pg_module_install "$BUILD/pgmodule" "$PG_CONFIG"
LIST=$T_SRCROOT/examples/lists/pg15-debian12-x86_64.guc
need_file "$LIST"
grep -q '^pgsc\.session_syscall_allow = ' "$LIST" || fail "no session list in $LIST"

chmod 755 "$T"
C=$T/c
port=$((40000 + $$ % 20000))
pg_bench_cluster "$C" "$port" bench-connect || fail "initdb failed: $(tail -3 "$C/initdb.log")"
cat >>"$C/data/postgresql.conf" <<EOF
shared_preload_libraries = 'pgsc'
include 'pgsc.conf'
EOF
echo 'SELECT 1;' >"$T/select1.sql"
chmod 644 "$T/select1.sql"
up=0
stop_pg() {
	[ $up = 0 ] || runuser -u postgres -- "$PGBIN/pg_ctl" -D "$C/data" -m fast -w stop >/dev/null 2>&1
	up=0
}
t_cleanup stop_pg
start_pg() { # CONF-FILE
	grep -v '^#' "$1" >"$C/data/pgsc.conf"
	chown postgres "$C/data/pgsc.conf"
	runuser -u postgres -- "$PGBIN/pg_ctl" -D "$C/data" -l "$C/server.log" -w -t 60 start >/dev/null ||
		fail "the server did not start: $(tail -5 "$C/server.log")"
	up=1
}
echo "pgsc.enabled = off" >"$T/off.conf"
# path ROLE: the module's DEBUG1 line of a new session of ROLE
path() {
	runuser -u postgres -- env PGOPTIONS="-c client_min_messages=debug1" \
		"$PGBIN/psql" -h "$C/sock" -p "$port" -X -At -U "$1" -d postgres -c "SELECT 1" 2>&1 |
		sed -n 's/^DEBUG:  pgsc: //p'
}
start_pg "$LIST"
runuser -u postgres -- "$PGBIN/psql" -h "$C/sock" -p "$port" -X -q -d postgres \
	-c "CREATE ROLE own LOGIN" -c "ALTER ROLE own SET pgsc.session_syscall_log = 'getppid'" ||
	fail "could not create the role own"
p=$(path postgres)
[[ "$p" == *"built by the postmaster"* ]] || bench_wrong "postmaster shape: the session did not load the postmaster's program: '$p'"
p=$(path own)
[[ "$p" == *"built by this backend"* ]] || bench_wrong "backend shape: the session did not build its own filter: '$p'"
stop_pg

# one ROLE: pgbench -C, N connections; prints the average latency (ms)
one() {
	runuser -u postgres -- "$PGBIN/pgbench" -h "$C/sock" -p "$port" -U "$1" -n -C -c 1 \
		-t "$N" -f "$T/select1.sql" postgres >"$T/pgbench.out" 2>&1 ||
		fail "pgbench failed: $(tail -3 "$T/pgbench.out")"
	sed -n 's/^latency average = \([0-9.]*\) ms$/\1/p' "$T/pgbench.out"
}
declare -a OFF PM BE
printf '%-6s %10s %12s %10s\n' round "off ms" "postmaster ms" "backend ms"
for ((r = 1; r <= REPS; r++)); do
	start_pg "$T/off.conf"
	OFF[r]=$(one postgres)
	stop_pg
	start_pg "$LIST"
	PM[r]=$(one postgres)
	BE[r]=$(one own)
	stop_pg
	printf '%-6s %10s %12s %10s\n' "$r" "${OFF[r]}" "${PM[r]}" "${BE[r]}"
done
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
m_off=$(median "${OFF[@]}")
m_pm=$(median "${PM[@]}")
m_be=$(median "${BE[@]}")
printf '%-6s %10s %12s %10s\n' median "$m_off" "$m_pm" "$m_be"
echo "connection under the shipped list, the postmaster's program: $(bench_div "$m_pm" "$m_off" %.2f)x off"
echo "connection under the shipped list, built by its backend:    $(bench_div "$m_be" "$m_off" %.2f)x off"
echo "built once saves $(sub "$m_be" "$m_pm" | awk '{ printf "%.2f", $1 }') ms a connection ($(bench_div "$m_be" "$m_pm" %.2f)x faster than building it)"
