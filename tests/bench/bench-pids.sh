#!/bin/bash
# SPDX-License-Identifier: PostgreSQL
# tests/bench/bench-pids.sh BINDIR [WORKDIR] - memory of the live collector
# under many distinct pids and many invalid syscall numbers (docs/live.md).
#
# A program that prints figures, not a pass/fail test: it exits 0 whatever
# the figures are (the target, under 64 MB and flat, is reported, not
# enforced), and 2 only when it could not run.
#
# Two synthetic logs, written with awk, followed by
# `pgsc-collect --source file:LOG --from-start` (the daemon's path, which
# commits and prunes every --commit-interval) until the committed position
# is the end of the log, then SIGTERM:
#   pids:    PGSC_BENCH_PIDS (2,000,000) distinct pids, one SECCOMP record
#            each (uname, a valid number), 100 ms of stream time apart (55
#            hours), none of a postgres program; one pid in 4 also makes
#            an exit_group record (SYSCALL), the others are never seen to
#            exit (killed by a signal, or older than the collection);
#   numbers: PGSC_BENCH_NUMBERS (2,000,000) SECCOMP records of one pid,
#            each with another syscall number that has no name on x86_64
#            (1000000 + i): rejected as bad_syscall, counted, never stored.
# While it reads, the collector's VmRSS is sampled from /proc every
# second; printed: the samples at each tenth of the log, the peak (VmHWM),
# the records committed, and the time.  Without a bounded process table
# the pids log took 1.68 GB (docs/live.md).
set -u
# shellcheck source=../lib/bench.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/bench.sh"
BINDIR=${1:-}
[ -x "$BINDIR/pgsc-collect" ] || fail "usage: bench-pids.sh BINDIR [WORKDIR] (BINDIR holds pgsc-collect)"
need_progs awk sqlite3 numfmt
COLLECT=$(cd "$BINDIR" && pwd)/pgsc-collect
PIDS=${PGSC_BENCH_PIDS:-2000000}
NUMBERS=${PGSC_BENCH_NUMBERS:-2000000}
# WORKDIR, when given, is the caller's: kept
if [ -n "${2:-}" ]; then
	t_traps bench-pids
	W=$2
	mkdir -p "$W"
else
	bench_init bench-pids /tmp
	W=$T
fi

# the pids log: record i at T0 + i/10 s; serials ascending
gen_pids() {
	awk -v n="$PIDS" 'BEGIN {
		t0 = 1800000000; s = 1
		for (i = 0; i < n; i++) {
			t = t0 + i / 10; sec = int(t); ms = int((t - sec) * 1000 + 0.5)
			if (ms >= 1000) { sec++; ms -= 1000 }
			pid = 1000000 + i
			printf "type=SECCOMP msg=audit(%d.%03d:%d): auid=4294967295 uid=1000 gid=1000 ses=4294967295 pid=%d comm=\"true\" exe=\"/usr/bin/true\" sig=0 arch=c000003e syscall=63 compat=0 ip=0x7f0000000000 code=0x7ffc0000\n", sec, ms, s++, pid
			if (i % 4 == 0)
				printf "type=SYSCALL msg=audit(%d.%03d:%d): arch=c000003e syscall=231 a0=0 a1=0 a2=0 a3=0 items=0 ppid=1 pid=%d auid=4294967295 uid=1000 gid=1000 euid=1000 suid=1000 fsuid=1000 egid=1000 sgid=1000 fsgid=1000 tty=(none) ses=4294967295 comm=\"true\" exe=\"/usr/bin/true\" key=\"pgsc\"\n", sec, ms, s++, pid
		}
	}'
}

gen_numbers() {
	awk -v n="$NUMBERS" 'BEGIN {
		t0 = 1800000000; s = 1
		for (i = 0; i < n; i++) {
			t = t0 + i / 1000; sec = int(t); ms = i % 1000
			printf "type=SECCOMP msg=audit(%d.%03d:%d): auid=4294967295 uid=1000 gid=1000 ses=4294967295 pid=4242 comm=\"x\" exe=\"/usr/bin/x\" sig=0 arch=c000003e syscall=%d compat=0 ip=0x7f0000000000 code=0x7ffc0000\n", sec, ms, s++, 1000000 + i
		}
	}'
}

# run NAME LOG: follow LOG to its end, sampling the collector's memory.
run() {
	local name=$1 log=$2 db=$W/$1.db size pid t0 t1 off rss hwm=0 i=0 next
	local samples=()
	size=$(stat -c %s "$log")
	rm -f "$db"*
	t0=$(now)
	"$COLLECT" --db "$db" --source "file:$log" --from-start --commit-interval 1 --quiet 2>"$W/$name.err" &
	pid=$!
	next=1
	while kill -0 "$pid" 2>/dev/null; do
		sleep 1
		rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$pid/status" 2>/dev/null)
		h=$(awk '/^VmHWM:/ { print $2 }' "/proc/$pid/status" 2>/dev/null)
		[ -n "$h" ] && hwm=$h
		off=$(sqlite3 "$db" "SELECT max(offset) FROM sources" 2>/dev/null)
		case $off in '' | *[!0-9]*) off=0 ;; esac
		while [ "$next" -le 10 ] && [ $((off * 10)) -ge $((size * next)) ]; do
			samples+=("$((next * 10))%:$((${rss:-0} / 1024))MB")
			next=$((next + 1))
		done
		[ "$off" = "$size" ] && break
		i=$((i + 1))
		[ "$i" -gt 7200 ] && { echo "bench-pids: $name: not caught up in 2 hours" >&2; break; }
	done
	t1=$(now)
	kill -TERM "$pid" 2>/dev/null
	wait "$pid"
	echo "$name: $(numfmt --to=iec "$size")B of log, $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.0f", b - a }') s;" \
		"records committed: $(sqlite3 "$db" "SELECT records FROM rounds")," \
		"rejected: $(sqlite3 "$db" "SELECT coalesce(sum(count), 0) FROM rejects")," \
		"processes rows: $(sqlite3 "$db" "SELECT count(*) FROM processes")"
	echo "$name: VmRSS at each tenth of the log: ${samples[*]}"
	echo "$name: peak RSS (VmHWM): $((hwm / 1024)) MB"
}

echo "bench-pids: writing the logs in $W"
gen_pids >"$W/pids.log"
gen_numbers >"$W/numbers.log"
run pids "$W/pids.log"
run numbers "$W/numbers.log"
exit 0
