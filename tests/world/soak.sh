#!/bin/bash
# SPDX-License-Identifier: PostgreSQL
# tests/world/soak.sh BINDIR OUTDIR [SECONDS] - servers that live longer
# than an hour, for the one path no test server reaches: every 58 minutes
# the postmaster touches its socket and lock files (TouchSocketFiles()
# and TouchSocketLockFiles(): utime(), which glibc 2.36 makes with
# utimensat).  A long run, not part of ctest: run it beside the full
# world run and paste its summary (docs/check-world.md).
#
# Four PostgreSQL 15 clusters at once, each with a connection every
# 10 seconds (a query, so that each session loads its filter), for
# SECONDS (default 3660):
#   A  the module with LISTS (default examples/lists/pg15-debian12-x86_64.guc)
#      and both defaults log: what the lists lack is logged - collection;
#   N  the same LISTS as shipped (defaults error): the negative control;
#   B  the same with the names of EXTRA (default utimensat) added to the
#      global list, defaults error: the proof;
#   O  no module; the postmaster under pgsc-exec --default error with the
#      global list of OUTSIDE (default
#      examples/lists/pg15-debian12-x86_64-outside.guc): the outside proof.
# Their SECCOMP records are read from the kernel's read-only audit
# multicast group (tests/lib/auditmon.py), so other tests may be the
# audit daemon meanwhile.  At the end it checks, per cluster: still
# answering; the socket and lock files' mtimes moved after the start
# (A, B, O) or did not (N); records: A logged each EXTRA name from its
# postmaster, N's postmaster was denied them, B and O have none.  A's
# records are imported into OUTDIR/soak.db (label "soak", with the
# postmaster's pid as hint): OUTDIR/A.log is the round a store of the
# full world run imports to carry the soak's calls with their provenance.
# Exit 0 when every check passed.
set -e
# shellcheck source=../lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
t_traps soak
export LC_ALL=C

[ $# -ge 2 ] || fail "usage: soak.sh BINDIR OUTDIR [SECONDS]"
BINDIR=$(cd "$1" && pwd)
OUT=$2
SECS=${3:-3660}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SRCROOT=$(cd "$HERE/../.." && pwd)
LISTS=${PGSC_SOAK_LISTS:-$SRCROOT/examples/lists/pg15-debian12-x86_64.guc}
OUTSIDE=${PGSC_SOAK_OUTSIDE:-$SRCROOT/examples/lists/pg15-debian12-x86_64-outside.guc}
EXTRA=${PGSC_SOAK_EXTRA:-utimensat}
PGBIN=/usr/lib/postgresql/15/bin
need_root
need_progs python3 runuser stat
need_file "$LISTS" "$OUTSIDE" "$BINDIR"/pgsc-{exec,collect,report} "$PGBIN/postgres"
[ -f "$("$PGBIN/pg_config" --pkglibdir)/pgsc.so" ] || fail "the pgsc module is not installed"
grep -q "^pgsc.global_syscall_default = 'error'" "$LISTS" || fail "$LISTS does not set the global default to error"

mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
chmod 755 "$OUT"
: >"$OUT/pms"
T0=$(date +%s)
MON=
cleanup() {
	for c in A N B O; do
		[ -f "$OUT/$c/data/postmaster.pid" ] &&
			runuser -u postgres -- "$PGBIN/pg_ctl" -D "$OUT/$c/data" -m fast -w -t 60 stop >/dev/null 2>&1
	done
	[ -z "$MON" ] || kill "$MON" 2>/dev/null
}
t_cleanup cleanup

python3 "$HERE/../lib/auditmon.py" "$OUT/pms" "$OUT/audit.log" 2>"$OUT/auditmon.err" &
MON=$!
sleep 1
kill -0 "$MON" 2>/dev/null || fail "tests/lib/auditmon.py did not start: $(cat "$OUT/auditmon.err")"

# the global list of a GUC file (pgsc. or no prefix)
global_of() { sed -n "s/^\(pgsc\.\)\{0,1\}global_syscall_allow = '\(.*\)'$/\2/p" "$1" | head -n 1; }

port=55380
for c in A N B O; do
	d=$OUT/$c
	rm -rf "$d"
	mkdir -p "$d/sock"
	chown -R postgres "$d"
	runuser -u postgres -- "$PGBIN/initdb" -D "$d/data" -A trust >"$d/initdb.log" 2>&1 || fail "initdb $c"
	{
		echo "listen_addresses = ''"
		echo "unix_socket_directories = '$d/sock'"
		echo "port = $port"
		echo "log_line_prefix = '%m [%p] %b '"
	} >>"$d/data/postgresql.conf"
	case $c in
	A) cp "$LISTS" "$d/lists.guc"
	   printf '%s\n' "pgsc.global_syscall_default = 'log'" "pgsc.session_syscall_default = 'log'" >>"$d/lists.guc" ;;
	N) cp "$LISTS" "$d/lists.guc" ;;
	B) g=$(global_of "$LISTS")
	   sed "s/^pgsc.global_syscall_allow = '.*'$/pgsc.global_syscall_allow = '$g,$EXTRA'/" "$LISTS" >"$d/lists.guc"
	   grep -q "^pgsc.global_syscall_allow = '.*,$EXTRA'$" "$d/lists.guc" || fail "B: could not add $EXTRA" ;;
	esac
	if [ "$c" != O ]; then
		chmod 644 "$d/lists.guc"
		printf '%s\n' "shared_preload_libraries = 'pgsc'" "include '$d/lists.guc'" >>"$d/data/postgresql.conf"
		runuser -u postgres -- "$PGBIN/pg_ctl" -D "$d/data" -l "$d/server.log" -w -t 60 start >/dev/null ||
			fail "$c did not start: $(tail -n 5 "$d/server.log")"
	else
		# pgsc-exec loads the filter, then execs the postmaster in the
		# same process: the pid pg_ctl waits for is the postmaster's
		printf '#!/bin/sh\nexec %s --default error --allow-file %s --list global -- %s "$@"\n' \
			"$BINDIR/pgsc-exec" "$OUTSIDE" "$PGBIN/postgres" >"$d/postgres-outside"
		chmod 755 "$d/postgres-outside"
		runuser -u postgres -- "$PGBIN/pg_ctl" -D "$d/data" -l "$d/server.log" -w -t 60 \
			-p "$d/postgres-outside" start >/dev/null ||
			fail "$c did not start under pgsc-exec: $(tail -n 5 "$d/server.log")"
		grep -q '^Seccomp_filters:[[:space:]]*1$' "/proc/$(head -n 1 "$d/data/postmaster.pid")/status" ||
			fail "$c: the postmaster carries no filter"
	fi
	head -n 1 "$d/data/postmaster.pid" >>"$OUT/pms"
	port=$((port + 1))
done
note "clusters started: $(tr '\n' ' ' <"$OUT/pms")"

# ------------------------------------------------------------ the soak --
query() { runuser -u postgres -- "$PGBIN/psql" -h "$OUT/$1/sock" -p "$2" -X -At -d postgres -c "$3" 2>&1; }
n=0 bad=0
while [ $(($(date +%s) - T0)) -lt "$SECS" ]; do
	port=55380
	for c in A N B O; do
		query "$c" "$port" "SELECT count(*) FROM pg_stat_activity" >/dev/null ||
			{ bad=$((bad + 1)); echo "$(date -u +%T) $c: query failed" >>"$OUT/errors"; }
		port=$((port + 1))
	done
	n=$((n + 1))
	[ $((n % 60)) != 0 ] || note "$(($(date +%s) - T0)) s: $n rounds of queries, $bad failed"
	sleep 10
done

# ---------------------------------------------------------- the checks --
sleep 2
kill "$MON"
wait "$MON" 2>/dev/null || true
MON=
cat "$OUT/auditmon.err" >&2
ok=1
check() { # check WHAT COMMAND...
	local what=$1
	shift
	if "$@"; then note "ok: $what"; else echo "FAIL: $what" >&2; ok=0; fi
}
[ "$bad" = 0 ] || { echo "FAIL: $bad queries failed (OUTDIR/errors)" >&2; ok=0; }
mapfile -t PMS <"$OUT/pms"
port=55380 i=0
for c in A N B O; do
	pm=${PMS[$i]}
	check "$c answers after $SECS s" test "$(query "$c" "$port" 'SELECT 1')" = 1
	s_m=$(($(stat -c %Y "$OUT/$c/sock/.s.PGSQL.$port") - T0))
	l_m=$(($(stat -c %Y "$OUT/$c/sock/.s.PGSQL.$port.lock") - T0))
	tree=$OUT/audit.log.$pm
	touch "$tree"
	cp "$tree" "$OUT/$c.log"
	recs=$(grep -c . "$tree" || true)
	if [ "$c" = N ]; then
		check "$c: socket and lock files not touched (mtimes $s_m s, $l_m s after the start)" \
			test "$s_m" -lt 600 -a "$l_m" -lt 600
	else
		check "$c: socket and lock files touched (mtimes $s_m s, $l_m s after the start)" \
			test "$s_m" -ge 3400 -a "$l_m" -ge 3400
	fi
	case $c in
	A | N)
		for x in ${EXTRA//,/ }; do
			nr=$(scmp_sys_resolver -a x86_64 "$x")
			k=$(grep -F " pid=$pm " "$tree" | grep -c " syscall=$nr " || true)
			check "$c: $k record(s) of $x ($nr) from the postmaster" test "$k" -ge 1
		done ;;
	B | O)
		check "$c: $recs SECCOMP records of its tree" test "$recs" = 0 ;;
	esac
	note "$c: $recs records of its tree: $(awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^syscall=/) print $i }' "$tree" | sort | uniq -c | tr -s ' \n' ' ')"
	port=$((port + 1)) i=$((i + 1))
done
[ ! -s "$OUT/audit.log.gone" ] || note "$(grep -c . "$OUT/audit.log.gone") records of server processes gone before they were read (not attributed; OUTDIR/audit.log.gone)"
# A's round, as a store would carry it
rm -f "$OUT/soak.db"
"$BINDIR/pgsc-collect" --db "$OUT/soak.db" --label soak --postmaster-pid "${PMS[0]}" --import "$OUT/A.log" >"$OUT/import.out" 2>&1 ||
	{ echo "FAIL: import of A.log: $(cat "$OUT/import.out")" >&2; ok=0; }
"$BINDIR/pgsc-report" --db "$OUT/soak.db" --format json >"$OUT/soak.json" 2>&1 || true
note "soak.db: $(grep -m1 -o '"global": \[[^]]*\]' "$OUT/soak.json" || echo 'no global list')"
[ "$ok" = 1 ] || fail "soak checks failed; outputs in $OUT"
note "all checks passed ($SECS s)"
