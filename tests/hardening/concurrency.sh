#!/bin/bash
# SPDX-License-Identifier: PostgreSQL
# tests/hardening/concurrency.sh BINDIR GOLDENDIR - readers and writers at once.
#
#   reports-import  pgsc-report and pgsc-diff run in a loop while
#                   pgsc-collect imports a log growing in five steps: every
#                   run exits as it should and prints exactly the output of
#                   one committed state (the same reports on a store built
#                   the same way without readers);
#   reports-live    the same while pgsc-collect --source file: follows a
#                   log being written into a second round of a store: the
#                   reports (finished rounds only) stay exactly round 1's,
#                   pgsc-diff against round 1's store finds no difference,
#                   --status shows round 2 growing, never going down;
#   two-imports     a second --import while one runs: refused at once,
#                   naming the pid of the first, which completes; the store
#                   equals a clean import's;
#   live-import     --import while a live collector follows a file into the
#                   same store, and a live collector while an import runs:
#                   both refused, the running one unaffected;
#   stale-pid       a live collector killed with -9 whose pid another
#                   process has taken by the restart: the restart continues
#                   the round.
# PRAGMA integrity_check is ok at the end of each.
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib.sh
. "$HERE/lib.sh"
hd_init concurrency "${1:-}"
PGSC_HARDENING_COPIES=10 hd_biglog 10 "${2:-}"
SIZE=$(stat -c %s "$BIG")
KERR=$W/collect.err
BG=()
# shellcheck disable=SC2016 # evaluated at exit
hd_on_exit 'for p in "${BG[@]}"; do kill -KILL "$p"; done'

# ----------------------------------------------------------------------
check_reports_import() {
	local d=$W/ri k cut prev=0 rp n=0 bad_out=0 runs=0 ok_states seen=""
	mkdir -p "$d/ref" "$d/live" "$d/out"
	# a first round, so that every state has a report
	zcat "${FIXTURES[0]}" >"$d/first.log"
	"$COLLECT" --db "$d/ref/r.db" --quiet --import "$d/first.log" 2>>"$KERR" || { bad "the first import failed"; return; }
	"$COLLECT" --db "$d/live/l.db" --quiet --import "$d/first.log" 2>>"$KERR" || { bad "the first import failed"; return; }
	"$REPORT" --db "$d/ref/r.db" --format=json >"$d/ok.report.0"
	sqlite3 "$d/ref/r.db" ".backup '$d/state.0.db'"
	# the valid outputs: every committed state of the same imports
	for k in 1 2 3 4 5; do
		cut=$((SIZE * k / 5 + 1111 * k))
		[ $k = 5 ] && cut=$SIZE
		bytes "$BIG" "$prev" "$cut" >>"$d/ref/audit.log"
		prev=$cut
		"$COLLECT" --db "$d/ref/r.db" --quiet --import "$d/ref/audit.log" 2>>"$KERR" || { bad "reference import $k failed"; return; }
		"$REPORT" --db "$d/ref/r.db" --format=json >"$d/ok.report.$k"
		sqlite3 "$d/ref/r.db" ".backup '$d/state.$k.db'"
	done
	cp "$d/state.5.db" "$d/final.db"
	for k in 0 1 2 3 4 5; do
		"$DIFF" "$d/final.db" "$d/state.$k.db" >"$d/ok.diff.$k" 2>&1
	done
	# the same imports, with readers all along
	(
		i=0
		while [ ! -e "$d/stop" ]; do
			i=$((i + 1))
			if [ -s "$d/live/l.db" ]; then
				"$REPORT" --db "$d/live/l.db" --format=json >"$d/out/report.$i" 2>&1
				echo "$?" >"$d/out/report.$i.rc"
				"$DIFF" "$d/final.db" "$d/live/l.db" >"$d/out/diff.$i" 2>&1
				echo "$?" >"$d/out/diff.$i.rc"
			fi
		done
	) &
	rp=$!
	BG+=("$rp")
	prev=0
	for k in 1 2 3 4 5; do
		cut=$((SIZE * k / 5 + 1111 * k))
		[ $k = 5 ] && cut=$SIZE
		bytes "$BIG" "$prev" "$cut" >>"$d/live/audit.log"
		prev=$cut
		"$COLLECT" --db "$d/live/l.db" --quiet --import "$d/live/audit.log" 2>>"$KERR" ||
			bad "import $k with readers running failed: $(tail -n 1 "$KERR")"
		sleep 0.3
	done
	touch "$d/stop"
	wait "$rp"
	# every output must be one of a committed state
	local f rc
	for f in "$d"/out/report.*[0-9]; do
		runs=$((runs + 1))
		rc=$(cat "$f.rc")
		if [ "$rc" != 0 ]; then
			[ $bad_out -lt 3 ] && bad "pgsc-report exited $rc during the import: $(head -c 300 "$f")"
			bad_out=$((bad_out + 1))
			continue
		fi
		ok_states=0
		for k in 0 1 2 3 4 5; do cmp -s "$f" "$d/ok.report.$k" && ok_states=1 && seen="$seen $k" && break; done
		if [ $ok_states = 0 ]; then
			[ $bad_out -lt 3 ] && bad "a pgsc-report output matches no committed state: $(diff "$d/ok.report.5" "$f" | head -n 6 | tr '\n' ' ')"
			bad_out=$((bad_out + 1))
		fi
	done
	for f in "$d"/out/diff.*[0-9]; do
		n=$((n + 1))
		rc=$(cat "$f.rc")
		if [ "$rc" != 0 ] && [ "$rc" != 1 ]; then
			[ $bad_out -lt 3 ] && bad "pgsc-diff exited $rc during the import: $(head -c 300 "$f")"
			bad_out=$((bad_out + 1))
			continue
		fi
		ok_states=0
		for k in 0 1 2 3 4 5; do cmp -s "$f" "$d/ok.diff.$k" && ok_states=1 && break; done
		if [ $ok_states = 0 ]; then
			[ $bad_out -lt 3 ] && bad "a pgsc-diff output matches no committed state: $(head -n 6 "$f" | tr '\n' ' ')"
			bad_out=$((bad_out + 1))
		fi
	done
	[ $runs -ge 10 ] || bad "test invalid: only $runs reports ran during the imports"
	[ $bad_out = 0 ] || bad "$bad_out of $runs reports and $n diffs were wrong"
	[ "$(integrity "$d/live/l.db")" = ok ] || bad "PRAGMA integrity_check: $(integrity "$d/live/l.db")"
	echo "reports-import: $runs pgsc-report and $n pgsc-diff runs during 5 imports, $bad_out wrong; states the reports saw: $(echo "$seen" | tr ' ' '\n' | sort -u | tr '\n' ' ')"
}

# ----------------------------------------------------------------------
# table_check FILE: "N SUM" - the record count of the header, the sum of
# the per-syscall totals.
table_check() {
	awk '/^# pgsc: [0-9]+ records/ { n = $3 }
		/^#/ || /^syscall / { next }
		NF >= 3 { s += $3 }
		END { printf "%d %d\n", n, s }' "$1"
}

# A report covers finished rounds; --status also the one being collected.
# The store holds a finished import round, then a live collector follows a
# log being written into round 2: the reports must stay exactly those of
# round 1, --status must show round 2's count never going down.
check_reports_live() {
	local d=$W/rl db=$W/rl/l.db log=$W/rl/audit.log coll wr n i rc last=0 runs=0 bad_out=0 a b lsize
	mkdir -p "$d"
	zcat "${FIXTURES[0]}" >"$d/first.log"
	"$COLLECT" --db "$db" --quiet --import "$d/first.log" 2>>"$KERR" || { bad "the first import failed"; return; }
	"$REPORT" --db "$db" --format=table >"$d/ok.table"
	cp "$db" "$d/first.db"
	# a sixth of the log, ending with a whole line
	lsize=$(head -n "$(($(wc -l <"$BIG") / 6))" "$BIG" | wc -c)
	: >"$log"
	"$COLLECT" --db "$db" --source "file:$log" --from-start --commit-interval 0.1 2>>"$KERR" &
	coll=$!
	BG+=("$coll")
	# the report loops start once round 2 exists (the collector's first
	# commit): before it, --status rightly shows no round 2 to check
	for i in $(seq 1 100); do
		[ "$(q "$db" "SELECT count(*) FROM rounds WHERE id = 2 AND last_commit IS NOT NULL" 2>/dev/null)" = 1 ] && break
		sleep 0.1
	done
	[ "$(q "$db" "SELECT count(*) FROM rounds WHERE id = 2")" = 1 ] ||
		{ bad "the live collector made no round 2 in 10 s: $(tail -n 3 "$KERR")"; return; }
	(
		off=0
		while [ $off -lt "$lsize" ]; do
			n=$((RANDOM * 8 + 1))
			[ $((off + n)) -gt "$lsize" ] && n=$((lsize - off))
			bytes "$BIG" "$off" $((off + n)) >>"$log"
			off=$((off + n))
			sleep 0.05
		done
	) &
	wr=$!
	BG+=("$wr")
	while kill -0 "$wr" 2>/dev/null; do
		runs=$((runs + 1))
		rc=0
		"$REPORT" --db "$db" --format=table >"$d/t" 2>&1 || rc=$?
		if [ $rc != 0 ] || ! cmp -s "$d/t" "$d/ok.table"; then
			[ $bad_out -lt 3 ] && bad "pgsc-report (exit $rc) during the live follow printed something else than round 1's report: $(diff "$d/ok.table" "$d/t" | head -n 4 | tr '\n' ' ')"
			bad_out=$((bad_out + 1))
		fi
		rc=0
		"$REPORT" --db "$db" --status >"$d/s" 2>&1 || rc=$?
		a=$(awk '$1 == 2 { print $5 }' "$d/s")
		if [ $rc -gt 1 ] || [ -z "$a" ]; then
			[ $bad_out -lt 3 ] && bad "pgsc-report --status (exit $rc) during the live follow: $(head -c 300 "$d/s")"
			bad_out=$((bad_out + 1))
		elif [ "$a" -lt "$last" ]; then
			[ $bad_out -lt 3 ] && bad "round 2's record count went down from $last to $a"
			bad_out=$((bad_out + 1))
		else
			last=$a
		fi
		rc=0
		"$DIFF" "$d/first.db" "$db" >"$d/df" 2>&1 || rc=$?
		if [ $rc != 0 ]; then
			[ $bad_out -lt 3 ] && bad "pgsc-diff against round 1's store exited $rc during the live follow: $(head -c 300 "$d/df")"
			bad_out=$((bad_out + 1))
		fi
	done
	wait "$wr"
	for i in $(seq 1 300); do
		[ "$(q "$db" "SELECT max(offset) FROM sources WHERE path = '$log'")" = "$lsize" ] && break
		sleep 0.1
	done
	kill -TERM "$coll"
	wait "$coll" || bad "the collector exited with status $? after SIGTERM"
	"$REPORT" --db "$db" --format=table >"$d/t" 2>&1 || bad "the report after the follow failed: $(head -c 300 "$d/t")"
	read -r a b <<<"$(table_check "$d/t")"
	[ "$a" = "$b" ] && [ "$a" -gt "$(table_check "$d/ok.table" | cut -d' ' -f1)" ] ||
		bad "the report after the follow: $a records in the header, per-syscall totals add up to $b"
	[ "$(integrity "$db")" = ok ] || bad "PRAGMA integrity_check: $(integrity "$db")"
	[ $runs -ge 10 ] || bad "test invalid: only $runs report loops ran during the follow"
	[ "$last" -gt 0 ] || bad "test invalid: --status never showed records in round 2"
	[ $bad_out = 0 ] || bad "$bad_out of $runs report loops were wrong"
	echo "reports-live: $runs loops of pgsc-report (table, --status) and pgsc-diff during the follow, $bad_out wrong; round 2 at $last records in the last --status"
}

# ----------------------------------------------------------------------
check_two_imports() {
	local d=$W/two a st out done=0 alive
	mkdir -p "$d"
	"$COLLECT" --db "$d/ref.db" --quiet --import "$BIG" 2>>"$KERR"
	for _ in 1 2 3 4 5; do
		rm -f "$d/s.db"*
		"$COLLECT" --db "$d/s.db" --quiet --import "$BIG" 2>"$d/a.err" &
		a=$!
		# until it has opened the store (its schema is in)
		for _ in $(seq 1 100); do
			[ -s "$d/s.db" ] && break
			sleep 0.01
		done
		st=0
		out=$("$COLLECT" --db "$d/s.db" --import "$BIG" 2>&1) || st=$?
		alive=0
		kill -0 "$a" 2>/dev/null && alive=1
		wait "$a" || bad "the first import failed: $(cat "$d/a.err")"
		if [ "$st" = 0 ] && [ "$(q "$d/s.db" "SELECT count(*) FROM rounds")" != 1 ]; then
			bad "both imports ran and the log was counted $(q "$d/s.db" "SELECT count(*) FROM rounds") times: rounds (id|records) $(q "$d/s.db" "SELECT id, records FROM rounds" | tr '\n' ' ')"
			return
		fi
		[ "$st" != 0 ] && [ $alive = 1 ] && done=1 && break
		# the first one was done before the second started: again
	done
	[ $done = 1 ] || { bad "test invalid: the first import never ran long enough to overlap"; return; }
	echo "$out" | grep -q "another pgsc-collect (pid $a) is writing" ||
		bad "the second import's message does not name the first (pid $a): $out"
	[ "$(state_sum "$d/s.db")" = "$(state_sum "$d/ref.db")" ] || bad "the store differs from a clean import's"
	[ "$(integrity "$d/s.db")" = ok ] || bad "PRAGMA integrity_check: $(integrity "$d/s.db")"
	echo "two-imports: $out"
}

# follow_start DB LOG ERR: a collector following LOG from its start into
# DB (stderr to ERR), in BG, its pid in FOLLOW_PID; returns once its first
# commit is in (or after 10 s).
follow_start() {
	"$COLLECT" --db "$1" --source "file:$2" --from-start --commit-interval 0.2 2>"$3" &
	FOLLOW_PID=$!
	BG+=("$FOLLOW_PID")
	for _ in $(seq 1 100); do
		[ "$(q "$1" "SELECT count(*) FROM rounds WHERE last_commit IS NOT NULL" 2>/dev/null)" = 1 ] && break
		sleep 0.1
	done
}

check_live_import() {
	local d=$W/li db=$W/li/s.db coll st out a before
	mkdir -p "$d"
	bytes "$BIG" 0 $((SIZE / 3)) >"$d/audit.log"
	follow_start "$db" "$d/audit.log" "$d/live.err"
	coll=$FOLLOW_PID
	before=$(q "$db" "SELECT count(*) FROM rounds")
	st=0
	out=$("$COLLECT" --db "$db" --import "$BIG" 2>&1) || st=$?
	[ "$st" != 0 ] || bad "an import into a store a live collector writes exited 0: $out"
	echo "$out" | grep -q "another pgsc-collect (pid $coll) is writing" ||
		bad "the import's message does not name the live collector (pid $coll): $out"
	[ "$(q "$db" "SELECT count(*) FROM rounds")" = "$before" ] || bad "the refused import made a round"
	bytes "$BIG" $((SIZE / 3)) "$SIZE" >>"$d/audit.log"
	kill -0 "$coll" 2>/dev/null || bad "the live collector died: $(cat "$d/live.err")"
	for _ in $(seq 1 300); do
		[ "$(q "$db" "SELECT max(offset) FROM sources")" = "$SIZE" ] && break
		sleep 0.1
	done
	kill -TERM "$coll"
	wait "$coll" || bad "the live collector exited with status $?: $(cat "$d/live.err")"
	"$COLLECT" --db "$d/ref.db" --quiet --import "$BIG" 2>>"$KERR"
	[ "$(counts "$db")" = "$(counts "$d/ref.db")" ] || bad "the live collector's counts differ from a clean import's"
	# and the other way round: a live collector while an import runs
	rm -f "$d/i.db"*
	local done=0
	for _ in 1 2 3 4 5; do
		rm -f "$d/i.db"*
		"$COLLECT" --db "$d/i.db" --quiet --import "$BIG" 2>/dev/null &
		a=$!
		for _ in $(seq 1 100); do
			grep -q "FLOCK .* $a " /proc/locks && break
			sleep 0.01
		done
		st=0
		out=$(timeout 10 "$COLLECT" --db "$d/i.db" --source "file:$d/audit.log" 2>&1) || st=$?
		if kill -0 "$a" 2>/dev/null; then done=1; fi
		wait "$a" || bad "the import failed"
		[ $done = 1 ] && break
	done
	if [ $done = 1 ]; then
		[ "$st" != 0 ] && [ "$st" != 124 ] || bad "a live collector started during an import exited $st: $out"
		echo "$out" | grep -q "another pgsc-collect (pid $a) is writing" ||
			bad "the live collector's message does not name the import (pid $a): $out"
	else
		bad "test invalid: the import never ran long enough to overlap"
	fi
	[ "$(integrity "$db")" = ok ] && [ "$(integrity "$d/i.db")" = ok ] || bad "PRAGMA integrity_check failed"
	echo "live-import: $out"
}

# A collector killed with -9 leaves its round open with its pid; by the
# restart another process may have that pid.  The restart continues the
# round (it holds the writer lock, so the old collector is dead) instead
# of refusing because "pid N is collecting" (what it did before).
check_stale_pid() {
	local d=$W/stale db=$W/stale/s.db coll other st
	mkdir -p "$d"
	bytes "$BIG" 0 $((SIZE / 8)) >"$d/audit.log"
	follow_start "$db" "$d/audit.log" "$d/a.err"
	coll=$FOLLOW_PID
	kill -KILL "$coll"
	{ wait "$coll"; } 2>/dev/null
	sleep 600 &
	other=$!
	BG+=("$other")
	q "$db" "UPDATE rounds SET collector_pid = $other" >/dev/null
	"$COLLECT" --db "$db" --source "file:$d/audit.log" --commit-interval 0.2 2>"$d/b.err" &
	coll=$!
	BG+=("$coll")
	sleep 1.5
	if ! kill -0 "$coll" 2>/dev/null; then
		wait "$coll"
		bad "the restart exited ($?) instead of continuing the round: $(tr '\n' ' ' <"$d/b.err")"
		kill "$other"
		return
	fi
	kill -TERM "$coll"
	wait "$coll" || bad "the restarted collector exited with status $?"
	kill "$other"
	st=$(q "$db" "SELECT count(*), max(restarts), min(finished IS NOT NULL) FROM rounds")
	[ "$st" = "1|1|1" ] || bad "rounds (count|restarts|finished) = $st, expected 1|1|1"
	grep -q "continuing round 1" "$d/b.err" || bad "the restart did not continue round 1: $(tr '\n' ' ' <"$d/b.err")"
}

run stale-pid check_stale_pid
run reports-import check_reports_import
run reports-live check_reports_live
run two-imports check_two_imports
run live-import check_live_import
hd_finish
