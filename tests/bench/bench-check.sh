#!/bin/bash
# SPDX-License-Identifier: PostgreSQL
# bench-check.sh - what the store check of pgsc-report/pgsc-diff costs
# (docs/security.md §6): a store of 1M SECCOMP records (synthetic, from a
# real record's shape: PROCS processes, fork records, 60 syscalls), then the
# time of PRAGMA quick_check and integrity_check alone (sqlite3 CLI) and of
# a whole pgsc-report, which runs integrity_check, against the same
# pgsc-report built with the check replaced by a no-op (a private build in
# the temporary directory).  Prints figures only.
#   bash tests/bench/bench-check.sh BINDIR [RECORDS] [PROCS]
set -euo pipefail
# shellcheck source=../lib/bench.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/bench.sh"
BIN=$1
N=${2:-1000000}
P=${3:-20000}
bench_init bench-check /tmp

awk -v n="$N" -v p="$P" 'BEGIN {
	s = 1; t = 1796252190
	# the postmaster (pid 100) and its children 1000.. by fork records
	for (i = 0; i < p; i++) {
		printf "type=SYSCALL msg=audit(%d.100:%d): arch=c000003e syscall=56 success=yes exit=%d a0=0 a1=0 a2=0 a3=0 items=0 ppid=1 pid=100 auid=4294967295 uid=101 gid=104 euid=101 suid=101 fsuid=101 egid=104 sgid=104 fsgid=104 tty=(none) ses=4294967295 comm=\"postgres\" exe=\"/usr/lib/postgresql/15/bin/postgres\" key=\"pgsc\"\n", t, s, 1000 + i
		printf "type=PROCTITLE msg=audit(%d.100:%d): proctitle=2F7573722F6C69622F706F737467726573716C2F31352F62696E2F706F737467726573\n", t, s
		s++
	}
	for (i = 0; i < n; i++) {
		printf "type=SECCOMP msg=audit(%d.%03d:%d): auid=4294967295 uid=101 gid=104 ses=4294967295 pid=%d comm=\"postgres\" exe=\"/usr/lib/postgresql/15/bin/postgres\" sig=0 arch=c000003e syscall=%d compat=0 ip=0x7f5670d054e7 code=0x7ffc0000\n", t + 1 + int(i / 100000), i % 1000, s++, 1000 + (i % p), (i * 7) % 60
	}
}' >"$T/audit.log"
"$BIN/pgsc-collect" --db "$T/s.db" --quiet --import "$T/audit.log" 2>&1 | tail -1
echo "store: $(stat -c %s "$T/s.db") bytes, $(sqlite3 "$T/s.db" 'SELECT sum(records) FROM rounds') records, $(sqlite3 "$T/s.db" 'SELECT count(*) FROM processes') processes, $(sqlite3 "$T/s.db" 'SELECT count(*) FROM aggregates') aggregates"

cmake -S "$T_SRCROOT" -B "$T/nocheck" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPGSC_LIVE_TESTS=OFF \
	-DPGSC_PG_MODULE=OFF "-DCMAKE_C_FLAGS=-DSTORE_CHECK='\"SELECT 1 WHERE 0\"'" >/dev/null
cmake --build "$T/nocheck" --target pgsc-report -j2 >/dev/null

calc() { awk "BEGIN { printf \"%.4f\", $* }"; }
best() { # CMD... -> the best of 5 wall times, in seconds
	local b=999 s e
	for _ in 1 2 3 4 5; do
		s=$(now); "$@" >/dev/null 2>&1; e=$(now)
		b=$(awk -v s="$s" -v e="$e" -v b="$b" 'BEGIN { d = e - s; printf "%.4f", d < b ? d : b }')
	done
	printf '%.4f' "$b"
}
quick=$(best sqlite3 "file:$T/s.db?mode=ro" 'PRAGMA quick_check')
integ=$(best sqlite3 "file:$T/s.db?mode=ro" 'PRAGMA integrity_check')
empty=$(best sqlite3 "file:$T/s.db?mode=ro" 'SELECT 1')
report=$(best "$BIN/pgsc-report" --db "$T/s.db")
nocheck=$(best "$T/nocheck/pgsc-report" --db "$T/s.db")
cmp -s <("$BIN/pgsc-report" --db "$T/s.db") <("$T/nocheck/pgsc-report" --db "$T/s.db") ||
	echo "bench-check: warning: the two builds report differently"
echo "bench-check: quick_check $(calc "$quick - $empty") s, integrity_check $(calc "$integ - $empty") s (sqlite3 CLI, its start-up of $empty s taken off)"
echo "bench-check: pgsc-report $report s with integrity_check, $nocheck s without: ratio $(bench_div "$report" "$nocheck" %.4f) (best of 5)"
