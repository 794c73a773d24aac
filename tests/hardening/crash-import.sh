#!/bin/bash
# SPDX-License-Identifier: PostgreSQL
# tests/hardening/crash-import.sh BINDIR GOLDENDIR - kill -9 during --import.
#
# A large real log (tests/hardening/biglog.sh: the recorded fixtures
# repeated with rewritten times and serials) is imported while the
# collector is killed with SIGKILL at 50 random moments, restarted after
# each kill.  Two kinds of import take the kills:
#   A   the whole log into a new store (a single round);
#   B1..B5  the log growing in five steps cut at arbitrary bytes (mid-line,
#       mid-event), one import per step into the same store, each resuming
#       from the position the last committed round stored.
# The reference is the same imports run once without kills.  After every
# kill:
#   - PRAGMA integrity_check is ok;
#   - the store is exactly as before that import or exactly as after it
#     (counts per role/arch/syscall, resume points, rounds): an import is
#     one transaction;
# and after the restarted import completes, the store equals the clean
# run's.  Kill delays are drawn from the clean run's duration: three in
# four uniformly over it, one in four around its end, where the commit is.
#
# Environment: PGSC_HARDENING_COPIES (default 10, ~50 MB of log),
# PGSC_HARDENING_KILLS (default 50), PGSC_HARDENING_KEEP=1.
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib.sh
. "$HERE/lib.sh"
hd_init crash-import "${1:-}"
hd_biglog 10 "${2:-}"
SIZE=$(stat -c %s "$BIG")
NSTAGES=5
CUT=(0)
for k in $(seq 1 $((NSTAGES - 1))); do CUT+=($((SIZE * k / NSTAGES + 4099 * k))); done
CUT+=("$SIZE")

KERR=$W/collect.err
imp() { # imp DB LOG
	"$COLLECT" --db "$1" --quiet --import "$2" 2>>"$KERR"
}

# ----------------------------------------------------------- reference --
mkdir -p "$W/ref/A" "$W/ref/B" "$W/crash/B"
ln -s "$BIG" "$W/ref/A/audit.log"
T_A=$(time_of imp "$W/ref/A/r.db" "$W/ref/A/audit.log")
SUM_A=$(state_sum "$W/ref/A/r.db")
SUM_B=("$(echo empty | md5sum | cut -c1-12)")
T_B=(0)
for k in $(seq 1 $NSTAGES); do
	bytes "$BIG" "${CUT[$((k - 1))]}" "${CUT[$k]}" >>"$W/ref/B/audit.log"
	T_B+=("$(time_of imp "$W/ref/B/r.db" "$W/ref/B/audit.log")")
	SUM_B+=("$(state_sum "$W/ref/B/r.db")")
done
EMPTY=${SUM_B[0]}
echo "crash-import: $(numfmt --to=iec "$SIZE" 2>/dev/null || echo "$SIZE bytes") log, $(q "$W/ref/A/r.db" "SELECT records FROM rounds") SECCOMP records; clean import ${T_A} s, steps ${T_B[*]:1} s"

BUDGET=$KILLS
N_BEFORE=0
N_AFTER=0
DELAYS=()

# one_task NAME DB LOG T SUM_BEFORE SUM_AFTER MAXKILLS
one_task() {
	local name=$1 db=$2 log=$3 t=$4 before=$5 after=$6 max=$7 k=0 d s ic
	while [ "$BUDGET" -gt 0 ] && [ $k -lt "$max" ]; do
		if [ $((RANDOM % 4)) = 0 ]; then d=$(rand_delay "$t" 0.75 1.05); else d=$(rand_delay "$t" 0 1); fi
		kill_after "$d" "$COLLECT" --db "$db" --quiet --import "$log"
		[ "$KILLED" = 1 ] || [ "$KSTATUS" = 0 ] ||
			bad "$name: the import exited with status $KSTATUS: $(tail -n 2 "$W/collect.err" | tr '\n' ' ')"
		BUDGET=$((BUDGET - KILLED))
		k=$((k + KILLED))
		[ "$KILLED" = 1 ] && DELAYS+=("$d")
		ic=$(integrity "$db")
		[ "$ic" = ok ] || [ ! -s "$db" ] || bad "$name: after a kill at ${d}s PRAGMA integrity_check: $ic"
		s=$(state_sum "$db")
		if [ "$s" = "$before" ]; then
			N_BEFORE=$((N_BEFORE + KILLED))
		elif [ "$s" = "$after" ]; then
			N_AFTER=$((N_AFTER + KILLED))
			break
		else
			bad "$name: after a kill at ${d}s the store is neither as before the import nor as after it: $(state "$db" | tail -n 3 | tr '\n' ' ')"
			return
		fi
	done
	# the restart: run to its end (its time is the next pass's clean time)
	local t0
	t0=$(now)
	imp "$db" "$log" || bad "$name: the import after the kills failed: $(tail -n 2 "$KERR" | tr '\n' ' ')"
	LAST_T=$(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.3f", b - a }')
	s=$(state_sum "$db")
	[ "$s" = "$after" ] || bad "$name: after the restarted import the store differs from the clean run's: $(diff <(state "$db") <(state "$REFDB") | head -n 8 | tr '\n' ' ')"
	ic=$(integrity "$db")
	[ "$ic" = ok ] || bad "$name: PRAGMA integrity_check: $ic"
}

check_kills() {
	local round=0 k per
	per=$((KILLS * 2 / 5 + 0))
	while [ "$BUDGET" -gt 0 ]; do
		round=$((round + 1))
		# A: the whole log at once, a new store each time
		REFDB=$W/ref/A/r.db
		mkdir -p "$W/crash/A$round"
		ln -s "$BIG" "$W/crash/A$round/audit.log"
		one_task "A$round" "$W/crash/A$round/c.db" "$W/crash/A$round/audit.log" "$T_A" "$EMPTY" "$SUM_A" "$per"
		# a restart that read the whole log again: its time is the
		# best guess of the next one's (the machine's load varies)
		[ "$(awk -v t="$LAST_T" -v a="$T_A" 'BEGIN { print (t > a / 3) }')" = 1 ] && T_A=$LAST_T
		[ ${#REASONS[@]} = 0 ] || return
		[ "$round" = 1 ] || continue
		# B: the growing log, resumed step by step
		REFDB=$W/ref/B/r.db
		for k in $(seq 1 $NSTAGES); do
			bytes "$BIG" "${CUT[$((k - 1))]}" "${CUT[$k]}" >>"$W/crash/B/audit.log"
			one_task "B$k" "$W/crash/B/c.db" "$W/crash/B/audit.log" "${T_B[$k]}" \
				"${SUM_B[$((k - 1))]}" "${SUM_B[$k]}" $(((KILLS - per) / NSTAGES))
			[ ${#REASONS[@]} = 0 ] || return
		done
		# the final counts equal a single clean run's, too
		[ "$(counts "$W/crash/B/c.db" | md5sum)" = "$(counts "$W/ref/B/r.db" | md5sum)" ] ||
			bad "B: final counts differ from the clean run's"
		per=$BUDGET
	done
	[ $((N_BEFORE + N_AFTER)) = "$KILLS" ] || bad "only $((N_BEFORE + N_AFTER)) of $KILLS kills hit a running import"
	echo "crash-import: $((N_BEFORE + N_AFTER)) kills ($N_BEFORE before the commit: store unchanged; $N_AFTER after it: round complete), delays $(printf '%s\n' "${DELAYS[@]}" | sort -n | sed -n '1p;$p' | tr '\n' ' ')s (min, max), $round pass(es) of A"
}

# A file that grew by an incomplete line only: nothing new, no round (a
# round with no records and copies of the live processes was written
# before the fix).  Then the rest of it: the counts of a whole import.
check_partial_line() {
	local d=$W/partial cut n err
	mkdir -p "$d"
	cut=$((SIZE / 7 + 13))
	bytes "$BIG" 0 "$cut" >"$d/audit.log"
	head -c "$cut" "$BIG" | tail -c 1 | grep -q . || bad "test invalid: the cut is at a line boundary"
	imp "$d/p.db" "$d/audit.log" || bad "first import failed"
	printf 'type=SECCOMP msg=audit(' >>"$d/audit.log"
	err=$("$COLLECT" --db "$d/p.db" --import "$d/audit.log" 2>&1) || bad "second import failed: $err"
	n=$(q "$d/p.db" "SELECT count(*) FROM rounds")
	[ "$n" = 1 ] || bad "a file that grew by an incomplete line made a new round ($n rounds): $err"
	echo "$err" | grep -q "nothing new to import" || bad "the second import did not say 'nothing new to import': $err"
	# the rest: the stray bytes were the start of a line that goes on
	bytes "$BIG" 0 "$SIZE" >"$d/audit.log"
	imp "$d/p.db" "$d/audit.log" || bad "third import failed"
	n=$(q "$d/p.db" "SELECT sum(records) FROM rounds")
	[ "$n" = "$(q "$W/ref/A/r.db" "SELECT records FROM rounds")" ] ||
		bad "records after the rest was imported: $n, expected the whole log's $(q "$W/ref/A/r.db" "SELECT records FROM rounds")"
}

run partial-line check_partial_line
run kills check_kills
hd_finish
