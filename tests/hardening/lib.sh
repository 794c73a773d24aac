# SPDX-License-Identifier: PostgreSQL
# shellcheck shell=bash
# tests/hardening/lib.sh - helpers shared by the hardening tests.
#
# Sourced by crash-import.sh, crash-live.sh, diskfull.sh and
# concurrency.sh.  Each test prints "ok: NAME" or "FAIL: NAME: reason"
# lines and a last line "NAME: N passed, M failed"; a missing dependency
# is a failure, never a skip.

HD_LIB=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../lib/common.sh
. "$HD_LIB/../lib/common.sh"
export LC_ALL=C


# hd_init TESTNAME BINDIR: t_init TESTNAME; checks the programs; $W is
# the work directory (kept when PGSC_HARDENING_KEEP=1); sets COLLECT
# REPORT DIFF.
hd_init() {
	t_init "$1"
	T_KEEP=${PGSC_HARDENING_KEEP:-0}
	HD_NAME=$1
	[ -d "${2:-}" ] || fail "usage: $HD_NAME.sh BINDIR [GOLDENDIR] (BINDIR holds pgsc-collect)"
	BINDIR=$(cd "$2" && pwd)
	COLLECT=$BINDIR/pgsc-collect
	REPORT=$BINDIR/pgsc-report
	DIFF=$BINDIR/pgsc-diff
	need_exec "$COLLECT" "$REPORT" "$DIFF"
	need_progs sqlite3 awk md5sum timeout
	W=$T_WORK
	HD_PASSED=0
	HD_FAILED=0
}

# hd_on_exit TEXT: shell text (unmounts, kills) evaluated at exit, quietly,
# with the values its variables have then.
hd_on_exit() { t_cleanup _hd_eval "$*"; }
_hd_eval() { eval "$1" >/dev/null 2>&1; }

# hd_biglog DEFAULT_COPIES [GOLDENDIR]: FIXTURES, the three recorded logs,
# and $BIG, PGSC_HARDENING_COPIES (DEFAULT_COPIES) copies of them made one
# log by biglog.sh; KILLS is PGSC_HARDENING_KILLS (50).
hd_biglog() {
	local golden=${2:-$HD_LIB/../golden}
	COPIES=${PGSC_HARDENING_COPIES:-$1}
	# shellcheck disable=SC2034 # for the sourcing test
	KILLS=${PGSC_HARDENING_KILLS:-50}
	FIXTURES=("$golden/raw.log.gz" "$golden/node.log.gz" "$golden/enriched.log.gz")
	need_file "${FIXTURES[@]}"
	BIG=$W/big.log
	bash "$HD_LIB/biglog.sh" "$COPIES" "${FIXTURES[@]}" >"$BIG" || fail "biglog.sh failed"
}

# hd_audit_take: (root) wait for the audit lock ($PGSC_AUDIT_LOCK, default
# /run/pgsc-audit.lock) on fd 8, load tests/lib/auditd.sh (audit_begin,
# audit_rules, audit_sync, audit_end; its own lock a private file, since
# we hold the real one), stop the private auditd on exit, and refuse to
# run next to another audit daemon.
hd_audit_take() {
	local lock=${PGSC_AUDIT_LOCK:-/run/pgsc-audit.lock} t0 owner
	exec 8>"$lock"
	t0=$(now)
	flock -w 900 8 || fail "could not get the audit lock $lock in 900 s"
	echo "$HD_NAME: waited $(elapsed "$t0" "$(now)") s for the audit lock"
	PGSC_AUDIT_LOCK=$W/private.lock
	# shellcheck source=../lib/auditd.sh
	. "$HD_LIB/../lib/auditd.sh"
	hd_on_exit 'audit_end'
	owner=$(audit_foreign_daemon)
	[ -z "$owner" ] || fail "pid $owner ($(cat /proc/"$owner"/comm 2>/dev/null)) is the kernel's audit daemon; stop it first (this test starts its own)"
}

REASONS=()
bad() { REASONS+=("$*"); }

# run NAME FUNCTION: one check; its bad() calls make it fail.
run() {
	local name=$1 t0
	if [ -n "${PGSC_HARDENING_ONLY:-}" ] && [[ " $PGSC_HARDENING_ONLY " != *" $name "* ]]; then
		return
	fi
	REASONS=()
	t0=$(now)
	"$2"
	if t_verdict "$name" "$t0"; then
		HD_PASSED=$((HD_PASSED + 1))
	else
		HD_FAILED=$((HD_FAILED + 1))
	fi
}

hd_finish() {
	echo "$HD_NAME: $HD_PASSED passed, $HD_FAILED failed"
	[ "$HD_FAILED" = 0 ] && [ "$HD_PASSED" -gt 0 ]
}

q() { sqlite3 -batch -noheader -cmd ".timeout 10000" "$1" "$2" 2>&1; } # q DB SQL

# counts DB: the store's SECCOMP counts per (role, arch, syscall number),
# summed over every round: the figure a crash must never change.
counts() {
	q "$1" "SELECT role, arch, nr, sum(count) FROM aggregates GROUP BY 1, 2, 3 ORDER BY 1, 2, 3"
}

# state DB: counts, plus the committed resume points and the number of
# rounds and records; "empty" for a store with nothing committed (also one
# killed before its schema was in).
state() {
	local out
	out=$(q "$1" "SELECT 'rounds', count(*), sum(records) FROM rounds;
		SELECT role, arch, nr, sum(count) FROM aggregates GROUP BY 1, 2, 3 ORDER BY 1, 2, 3;
		SELECT 'source', fingerprint, offset, lines FROM sources ORDER BY fingerprint" 2>/dev/null)
	case $out in
	rounds\|0\|* | rounds\|0 | "" | *"no such table"* | *rror*) echo empty ;;
	*) echo "$out" ;;
	esac
}

state_sum() { state "$1" | md5sum | cut -c1-12; }

# integrity DB: prints "ok" or what sqlite found.
integrity() { q "$1" "PRAGMA integrity_check" | tr '\n' ' ' | sed 's/ $//'; }

# rand_delay T LO HI: a random delay between LO*T and HI*T seconds.
rand_delay() {
	awk -v t="$1" -v lo="$2" -v hi="$3" -v r="$RANDOM$RANDOM" \
		'BEGIN { srand(r); printf "%.3f", t * (lo + (hi - lo) * rand()) }'
}

# time_of CMD...: runs CMD, prints its wall time in seconds.
time_of() {
	local t0
	t0=$(now)
	"$@" >/dev/null 2>&1
	awk -v a="$t0" -v b="$(now)" 'BEGIN { d = b - a; printf "%.3f", d < 0.01 ? 0.01 : d }'
}

# kill_after DELAY CMD...: runs the program CMD (not a shell function:
# the kill must hit the program itself) in the background, its stderr
# appended to $KERR, and kill -9s it after DELAY seconds; KILLED=1 when it
# was still running then, and KSTATUS is its exit status.
KERR=/dev/null
kill_after() {
	local d=$1 p
	shift
	"$@" 2>>"$KERR" &
	p=$!
	sleep "$d"
	# shellcheck disable=SC2034 # KILLED and KSTATUS: for the callers
	KILLED=0
	# shellcheck disable=SC2034
	if kill -0 "$p" 2>/dev/null && [ "$(awk '{ print $3 }' "/proc/$p/stat" 2>/dev/null)" != Z ]; then
		kill -KILL "$p" 2>/dev/null && KILLED=1
	fi
	{ wait "$p"; } 2>/dev/null
	# shellcheck disable=SC2034
	KSTATUS=$?
}

# bytes FILE FROM TO: bytes [FROM, TO) of FILE on stdout.
bytes() {
	tail -c +"$(($2 + 1))" "$1" | head -c "$(($3 - $2))"
}

# ------------------------------------------------ live file: follow --
# live_follow DB LOG: pgsc-collect --source file:LOG in the background
# (commit every 0.2 s, from the start of the file on its first run), its
# stderr appended to $KERR; COLL is its pid.
COLL=
live_follow() {
	"$COLLECT" --db "$1" --source "file:$2" --from-start --commit-interval 0.2 2>>"$KERR" &
	COLL=$!
}

# live_caught_up DB SIZE: until the committed position is SIZE (60 s).
live_caught_up() {
	local i
	for i in $(seq 1 600); do
		[ "$(q "$1" "SELECT max(offset) FROM sources")" = "$2" ] && return 0
		sleep 0.1
	done
	return 1
}

# live_stop: SIGTERM the collector; STOPPED is its exit status.
live_stop() {
	kill -TERM "$COLL"
	for _ in $(seq 1 300); do kill -0 "$COLL" 2>/dev/null || break; sleep 0.1; done
	{ wait "$COLL"; } 2>/dev/null
	STOPPED=$?
	COLL=
}

# live_kills DB LOG KILLS PRODUCER: the collector (started here) is
# killed with SIGKILL KILLS times, 0.05-0.5 s apart, and restarted each
# time; PRODUCER is the pid writing the log (LK_DURING counts the kills
# while it ran).  Checks integrity after each kill.
live_kills() {
	local db=$1 log=$2 kills=$3 prod=$4 k delay ic
	LK_DURING=0
	live_follow "$db" "$log"
	for k in $(seq 1 "$kills"); do
		delay=$(rand_delay 1 0.05 0.5)
		sleep "$delay"
		kill -0 "$prod" 2>/dev/null && LK_DURING=$((LK_DURING + 1))
		if ! kill -KILL "$COLL" 2>/dev/null; then
			bad "kill #$k: the collector was not running: $(tail -n 3 "$KERR" | tr '\n' ' ')"
			return 1
		fi
		{ wait "$COLL"; } 2>/dev/null
		ic=$(integrity "$db")
		[ "$ic" = ok ] || [ ! -s "$db" ] || bad "after kill #$k (${delay}s) PRAGMA integrity_check: $ic"
		live_follow "$db" "$log"
	done
}

# live_final DB LOG KILLS: after the producer is done, the last collector
# catches up and stops; checks the round, the integrity, that the
# committed count never went down; makes the clean runs of the finished
# log: CLEAN_LIVE (one follow, no kill) and CLEAN_IMPORT (--import).
live_final() {
	local db=$1 log=$2 kills=$3 size ic rows d
	size=$(stat -c %s "$log")
	d=$(dirname "$db")/clean
	live_caught_up "$db" "$size" ||
		bad "the collector did not catch up with the log in 60 s: $(q "$db" "SELECT offset FROM sources" | tr '\n' ' ') of $size"
	live_stop
	[ "$STOPPED" = 0 ] || bad "pgsc-collect exited with status $STOPPED after SIGTERM: $(tail -n 3 "$KERR" | tr '\n' ' ')"
	ic=$(integrity "$db")
	[ "$ic" = ok ] || bad "PRAGMA integrity_check: $ic"
	rows=$(q "$db" "SELECT count(*), max(restarts), min(finished IS NOT NULL) FROM rounds")
	# A collector killed while still starting (its start reads the
	# kernel's figures, which can sleep while the backlog is full) never
	# reached the round: restarts lie between the collectors that said
	# they continued it and the kills.
	local cont rs
	cont=$(grep -c "^pgsc-collect: continuing round" "$KERR" || true)
	rs=$(echo "$rows" | cut -d'|' -f2)
	[ "${rows%%|*}" = 1 ] && [ "${rows##*|}" = 1 ] &&
		[ "$rs" -ge "$cont" ] && [ "$rs" -le "$kills" ] &&
		[ "$rs" -ge $((kills * 4 / 5)) ] ||
		bad "rounds (count|restarts|finished) = $rows, expected 1|N|1 with $cont <= N <= $kills and N >= $((kills * 4 / 5))"
	LF_BASE=$(sed -n 's/^pgsc-collect: continuing round [0-9]* (\([0-9]*\) records committed before)$/\1/p' "$KERR" | tr '\n' ' ')
	awk -v l="$LF_BASE" 'BEGIN { n = split(l, a, " "); for (i = 2; i <= n; i++) if (a[i] + 0 < a[i - 1] + 0) exit 1 }' ||
		bad "the committed record count went down between restarts: $LF_BASE"
	mkdir -p "$d"
	cp "$log" "$d/audit.log"
	CLEAN_LIVE=$d/live.db
	CLEAN_IMPORT=$d/import.db
	live_follow "$CLEAN_LIVE" "$d/audit.log"
	live_caught_up "$CLEAN_LIVE" "$size" || bad "the clean collector did not catch up in 60 s"
	live_stop
	"$COLLECT" --db "$CLEAN_IMPORT" --quiet --import "$d/audit.log" 2>>"$KERR" || bad "the clean import failed"
	# records and counts per (arch, syscall): exact
	[ "$(q "$db" "SELECT records FROM rounds")" = "$(q "$CLEAN_IMPORT" "SELECT records FROM rounds")" ] ||
		bad "rounds.records = $(q "$db" "SELECT records FROM rounds"), a clean import counts $(q "$CLEAN_IMPORT" "SELECT records FROM rounds")"
	local qa="SELECT arch, nr, sum(count) FROM aggregates GROUP BY 1, 2 ORDER BY 1, 2"
	[ "$(q "$db" "$qa")" = "$(q "$CLEAN_IMPORT" "$qa")" ] ||
		bad "counts per (arch, syscall) differ from a clean import's: $(diff <(q "$db" "$qa") <(q "$CLEAN_IMPORT" "$qa") | head -n 6 | tr '\n' ' ')"
	[ "$(counts "$CLEAN_LIVE")" = "$(counts "$CLEAN_IMPORT")" ] ||
		bad "a clean live run and a clean import disagree (< live, > import): $(diff <(counts "$CLEAN_LIVE") <(counts "$CLEAN_IMPORT") | head -n 8 | tr '\n' ' ')"
}

# live_roles DB: counts per (role, arch, syscall) equal the clean live run's.
live_roles() {
	local qr="SELECT role, sum(count) FROM aggregates GROUP BY 1 ORDER BY 1"
	[ -n "${CLEAN_LIVE:-}" ] || { bad "no clean run to compare with"; return; }
	[ "$(counts "$1")" = "$(counts "$CLEAN_LIVE")" ] ||
		bad "counts per (role, arch, syscall) differ from a clean live run's in $(diff <(counts "$1") <(counts "$CLEAN_LIVE") | grep -c '^<') rows; records per role, killed run: $(q "$1" "$qr" | tr '\n' ' '); clean run: $(q "$CLEAN_LIVE" "$qr" | tr '\n' ' ')"
}
