#!/bin/bash
# SPDX-License-Identifier: PostgreSQL
# tests/live/live-sources.sh BINDIR - live tests of pgsc-collect's sources.
#
# Runs as root (ctest: "bash tests/live/live-sources.sh BINDIR", BINDIR
# holding pgsc-collect, pgsc-report and tests/storm).  tests/storm makes an
# exactly known number of SECCOMP records (getppid, x86_64 nr 110, arch
# c000003e = 3221225534), so every check compares exact counts:
#   netlink      pgsc registered as the kernel's audit daemon, SIGTERM
#   file         a private auditd's audit.log followed, SIGTERM
#   plugin       pgsc as the private auditd's plugin, auditd stopped
#   restart      file, kill -9 ten times during a storm, restarted each time
#   rotation     file, auditd rotates (max_log_file) 5+ times during a storm
#   rotation-usr1  file, SIGUSR1 to auditd 5 times during a storm
#                (max_log_file_action = ROTATE), exact counts; records
#                that auditd/the kernel dropped before the log (2 runs in
#                9 here, docs/live.md) must all be serial gaps, with
#                --check-complete 1, and print a WARNING line;
#                PGSC_LIVE_USR1_STRICT=bad makes that loss fail the check
#   rotation-restart  file, rotations while the collector is down (kill -9)
#   rotation-lost     file, the file being read rotated away while the
#                collector was down: exact count of what is left, a
#                rotation gap, --check-complete exits 1
#   refusal      --source netlink next to a registered auditd
#   wrap         pgsc-collect --source netlink -- COMMAND (rules, drain,
#                exit status, --check-complete, rules removed)
#   wrap-norules the same with --no-rules and without --source
# Each check prints "ok: NAME" or "FAIL: NAME: reason"; the last line is
# "live-sources: N passed, M failed"; any failure exits 1.  Missing
# dependencies are failures, never skips.
#
# The audit lock ($PGSC_AUDIT_LOCK, /run/pgsc-audit.lock) is held on fd 8
# for the whole run, netlink checks included; tests/lib/auditd.sh takes its
# own lock on a private file (its audit_lock would otherwise drop and
# re-take ours between checks).  The audit settings, the rules and the
# registered daemon are put back on exit.
#
# Environment: PGSC_LIVE_KEEP=1 keeps the work directory (stores, logs);
# PGSC_LIVE_ONLY="netlink file ..." runs only the named checks.
# auditd.sh starts auditd as a child of this shell: never a bare "wait".

# shellcheck source=../lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
T_NAME=live-sources
set -uo pipefail
export LC_ALL=C

T_START=$(now)
[ $# -ge 1 ] || fail "usage: live-sources.sh BINDIR (the directory holding pgsc-collect, pgsc-report, tests/storm)"
[ -d "$1" ] || fail "BINDIR $1 is not a directory"
BINDIR=$(cd "$1" && pwd)
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
COLLECT=$BINDIR/pgsc-collect
REPORT=$BINDIR/pgsc-report
STORM=${PGSC_STORM:-$BINDIR/tests/storm}
[ -e "$STORM" ] && STORM=$(readlink -f "$STORM") # as the kernel writes exe=
LOCK=${PGSC_AUDIT_LOCK:-/run/pgsc-audit.lock}
ARCH=3221225534 # c000003e, x86_64
NR=110          # getppid

# ---------------------------------------------------------------- deps --
need_root "audit daemon, audit rules"
[ "$(uname -m)" = x86_64 ] || fail "this test knows x86_64 only (got $(uname -m))"
need_progs auditd auditctl sqlite3 flock pgrep awk grep timeout
need_exec "$COLLECT" "$REPORT" "$STORM"

exec 8>"$LOCK"
T_LOCK=$(now)
flock -w 900 8 || fail "could not get the audit lock $LOCK"
T_LOCKED=$(now)
t_init live-sources
T_KEEP=${PGSC_LIVE_KEEP:-0}
W=$T_WORK
chmod 755 "$W"
PGSC_AUDIT_LOCK=$W/private.lock
# shellcheck source=../lib/auditd.sh
. "$HERE/../lib/auditd.sh"

# Processes this script started and may have to stop: collectors, storms.
BG_PIDS=()
# Plugin collectors (children of auditd): their store paths.
PLUGIN_DBS=()
SAVED=()

alive() { # alive PID: running (a zombie child is not)
	local s
	s=$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null) || return 1
	[ -n "$s" ] && [ "$s" != Z ]
}

cleanup() {
	local p d
	for p in "${BG_PIDS[@]}"; do
		if alive "$p"; then
			kill -TERM "$p" 2>/dev/null
			for _ in $(seq 1 50); do alive "$p" || break; sleep 0.1; done
			alive "$p" && kill -KILL "$p" 2>/dev/null
		fi
		wait "$p" 2>/dev/null
	done
	audit_end
	for d in "${PLUGIN_DBS[@]}"; do
		for p in $(pgrep -f -- "--db=$d" 2>/dev/null); do kill -KILL "$p" 2>/dev/null; done
	done
	# Only when the audit state was ours to change (SAVED is set after
	# the check for a foreign daemon).
	if [ ${#SAVED[@]} = 3 ]; then
		# Whatever we registered must be gone before the settings go back.
		for _ in $(seq 1 50); do
			p=$(_audit_status pid)
			{ [ "$p" = 0 ] || ! kill -0 "$p" 2>/dev/null; } && break
			sleep 0.1
		done
		auditctl -D -k pgsc >/dev/null 2>&1
		if [ -s "$W/saved.rules" ] && ! grep -q '^No rules' "$W/saved.rules" &&
			[ "$(auditctl -l 2>/dev/null)" != "$(cat "$W/saved.rules")" ]; then
			auditctl -D >/dev/null 2>&1
			auditctl -R "$W/saved.rules" >/dev/null 2>&1
		fi
		[ -n "${SAVED[1]}" ] && auditctl -b "${SAVED[1]}" >/dev/null 2>&1
		[ -n "${SAVED[2]}" ] && auditctl --backlog_wait_time "${SAVED[2]}" >/dev/null 2>&1
		[ -n "${SAVED[0]}" ] && auditctl -e "${SAVED[0]}" >/dev/null 2>&1
	fi
}
t_cleanup cleanup

owner=$(audit_foreign_daemon)
[ -z "$owner" ] || fail "pid $owner ($(cat /proc/"$owner"/comm 2>/dev/null)) is the kernel's audit daemon; stop it first (this test starts its own)"
auditctl -l >"$W/saved.rules" 2>/dev/null || true
SAVED=("$(_audit_status enabled)" "$(_audit_status backlog_limit)" "$(_audit_status backlog_wait_time)")

# ------------------------------------------------------------- helpers --
q() { sqlite3 -batch -noheader -cmd ".timeout 10000" "$1" "$2" 2>&1; } # q DB SQL

REASONS=()
bad() { REASONS+=("$*"); }

# wait_started DB [FILE]: until the collector's round has its first commit
# (for file: also the position it starts at), max 10 s.
wait_started() {
	local sql="SELECT count(*) FROM rounds WHERE finished IS NULL AND last_commit IS NOT NULL"
	[ -n "${2:-}" ] && sql="SELECT ($sql) * (SELECT count(*) FROM sources)"
	for _ in $(seq 1 100); do
		[ "$(q "$1" "$sql" 2>/dev/null)" = 1 ] 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

# stop_child PID [SECS]: SIGTERM a child of this shell; its exit status
# (or "timeout") goes to STOPPED.  Not in $(...): a subshell cannot wait.
STOPPED=
stop_child() {
	local p=$1 t=${2:-15}
	kill -TERM "$p" 2>/dev/null
	for _ in $(seq 1 $((t * 10))); do alive "$p" || break; sleep 0.1; done
	if alive "$p"; then
		kill -KILL "$p" 2>/dev/null
		wait "$p" 2>/dev/null
		STOPPED=timeout
		return
	fi
	wait "$p"
	STOPPED=$?
}

# round_row DB [ROUND]: "records nr110 finished lost serial_gaps
# rotation_gaps drain_timeouts restarts exit_status source" of a round
# (default: the last one).
round_row() {
	local r=${2:-"(SELECT max(id) FROM rounds)"}
	q "$1" "SELECT r.records,
		(SELECT coalesce(sum(count), 0) FROM aggregates a WHERE a.round_id = r.id AND a.arch = $ARCH AND a.nr = $NR),
		r.finished IS NOT NULL,
		coalesce(r.kernel_lost_end, 0) - coalesce(r.kernel_lost_start, 0),
		r.serial_gaps, r.rotation_gaps, r.drain_timeouts, r.restarts,
		coalesce(r.exit_status, '-'), coalesce(r.source, '-')
		FROM rounds r WHERE r.id = $r" | tr '|' ' '
}

# raw_counts FILES...: SECCOMP lines in raw audit logs, and of them those
# of the storm (getppid on x86_64 by exe=$STORM).
raw_counts() {
	awk -v exe="\"$STORM\"" '/^type=SECCOMP / { n++; if (index($0, " syscall=110") && index($0, " exe=" exe " ")) s++ }
		END { printf "%d SECCOMP lines in the raw log, %d of them the storm'\''s", n, s }' "$@"
}

# expect_exact DB EXPECTED WHAT [RAWLOGS...]: the last round of DB holds
# exactly EXPECTED storm records (getppid), finished, nothing lost.
#
# Other programs on this shared machine may run under a log filter too,
# and their records reach whoever is the audit daemon, before, during and
# after the collector runs.  So the storm is counted by itself: the
# processes table's records of the storm's processes (exe=$STORM) must be
# exactly EXPECTED, and the raw log's storm lines too; the round's totals
# may exceed EXPECTED by no more than the other processes' records in the
# raw log (none: exactly EXPECTED).  A collector restarted during the
# storm seeds the running storm processes without their earlier counts,
# so after restarts (EXACT_PROCS=0) the aggregates carry the exact check:
# nr 110 exactly EXPECTED when the raw log has no other nr 110 line.
EXACT_PROCS=1
expect_exact() {
	local db=$1 want=$2 what=${3:+$3: } row rec nr fin lost sg rg dt rs es src
	shift 3
	row=$(round_row "$db")
	read -r rec nr fin lost sg rg dt rs es src <<<"$row"
	if [ -z "${nr:-}" ]; then
		bad "${what}no round in the store: $row"
		return
	fi
	local raw="" fr=0 fr110=0 sp tot
	if [ $# -gt 0 ]; then
		raw=" ($(raw_counts "$@"))"
		read -r fr fr110 <<<"$(foreign_counts "$@")"
		[ "$(raw_storm "$@")" = "$want" ] || bad "${what}the raw log holds $(raw_storm "$@") storm records, expected exactly $want"
	fi
	sp=$(q "$db" "SELECT coalesce(sum(records), 0) FROM processes WHERE round_id = (SELECT max(id) FROM rounds) AND exe = '$STORM'")
	tot=$(q "$db" "SELECT coalesce(sum(records), 0) FROM processes WHERE round_id = (SELECT max(id) FROM rounds)")
	if [ "$EXACT_PROCS" = 1 ]; then
		[ "$sp" = "$want" ] || bad "${what}the storm's processes hold $sp records, expected exactly $want$raw"
		[ $# -gt 0 ] || fr=$((tot - sp)) # netlink: no raw log to bound it
	fi
	if [ $# -gt 0 ] && [ "$fr" = 0 ]; then
		[ "$rec" = "$want" ] || bad "${what}rounds.records = $rec, expected exactly $want$raw"
	else
		[ "$rec" -ge "$want" ] && [ "$rec" -le $((want + fr)) ] ||
			bad "${what}rounds.records = $rec, expected $want of the storm + at most $fr of other processes$raw"
	fi
	if [ "$fr110" = 0 ] && { [ $# -gt 0 ] || [ "$fr" = 0 ]; }; then
		[ "$nr" = "$want" ] || bad "${what}aggregates nr=$NR arch=$ARCH sum(count) = $nr, expected exactly $want$raw"
	else
		[ "$nr" -ge "$want" ] && [ "$nr" -le $((want + fr110 + fr)) ] ||
			bad "${what}aggregates nr=$NR arch=$ARCH sum(count) = $nr, expected $want + at most $((fr110 + fr)) of other processes$raw"
	fi
	[ "$fr" = 0 ] || echo "${what:-}note: other processes' SECCOMP records: $fr in the raw log or store ($fr110 of them nr $NR in the raw log); the round holds $rec, its storm processes $sp"
	[ "$fin" = 1 ] || bad "${what}the round is not finished"
	if [ -n "${UPSTREAM_MISSING:-}" ]; then
		# records lost before the log: pgsc must have seen every one
		[ "$sg" -ge "$UPSTREAM_MISSING" ] || bad "${what}serial_gaps = $sg, but $UPSTREAM_MISSING records never reached the log"
	else
		[ "$lost" = 0 ] || bad "${what}the kernel lost $lost records during the round"
		[ "$sg" = 0 ] || bad "${what}serial_gaps = $sg"
	fi
	[ "$dt" = 0 ] || bad "${what}drain_timeouts = $dt"
}

# foreign_counts FILES...: "N N110": SECCOMP lines in raw logs that are
# not the storm's, and of them those of nr 110 on x86_64.
foreign_counts() {
	awk -v exe="\"$STORM\"" '/^type=SECCOMP / { if (!index($0, " exe=" exe " ")) { n++; if (index($0, " syscall=110 ") && index($0, " arch=c000003e ")) m++ } }
		END { printf "%d %d\n", n, m }' "$@"
}

# raw_storm FILES...: the storm's SECCOMP lines in raw logs.
raw_storm() {
	awk -v exe="\"$STORM\"" '/^type=SECCOMP / && index($0, " exe=" exe " ") { n++ } END { print n + 0 }' "$@"
}

ok_stderr() { # a collector's stderr, shortened, for messages
	tail -c 600 "$1" 2>/dev/null | tr '\n' ' '
}

no_daemon() { # the kernel has no live registered audit daemon
	local p
	p=$(_audit_status pid)
	[ "$p" = 0 ] || ! kill -0 "$p" 2>/dev/null
}

# start_file_collector DB LOG OUT [ARGS...]: pgsc-collect --source file:LOG
# in the background; COLL is its pid.
start_file_collector() {
	local db=$1 log=$2 out=$3
	shift 3
	"$COLLECT" --db "$db" --source "file:$log" "$@" >>"$out" 2>&1 &
	COLL=$!
	BG_PIDS+=("$COLL")
}

# gated_storm DIR CALLS PROCS GATES: tests/storm in the background with
# GATES gates (storm.c): it goes on making records until the test opens
# each gate (gate_open), so that what the test does between two gates
# happens while records flow, however fast the machine is.  Returns when
# every storm process makes records.  STORM_PID is the storm.
gated_storm() {
	local d=$1 _
	rm -f "$d/gate"
	mkfifo "$d/gate"
	"$STORM" "$2" "$3" 0 "$4" <"$d/gate" >"$d/storm.out" 2>&1 &
	STORM_PID=$!
	GATES_LEFT=$4
	BG_PIDS+=("$STORM_PID")
	exec {GATE_FD}>"$d/gate"
	for _ in $(seq 1 300); do
		grep -q '^storm: running$' "$d/storm.out" && return 0
		alive "$STORM_PID" || break
		sleep 0.1
	done
	return 1
}

gate_open() {
	echo >&"$GATE_FD"
	GATES_LEFT=$((GATES_LEFT - 1))
}

# gated_storm_end DIR: open the gates left, wait for the storm; STORM_TOTAL
# is the number of records it made (its own count of its calls).
gated_storm_end() {
	local st=0
	# the gates left, by line: the processes started since hold the
	# pipe's writing end too, so the storm would never see its end
	while [ "$GATES_LEFT" -gt 0 ]; do gate_open; done
	exec {GATE_FD}>&-
	wait "$STORM_PID" || st=$?
	STORM_TOTAL=$(sed -n 's/^storm: \([0-9]*\) records$/\1/p' "$1/storm.out")
	[ "$st" = 0 ] && [ -n "$STORM_TOTAL" ]
}

# ============================================================== checks ==

# 1. netlink: pgsc is the kernel's audit daemon; exact count after SIGTERM.
check_netlink() {
	local d=$W/netlink db=$W/netlink/n.db
	mkdir -p "$d"
	no_daemon || { bad "an audit daemon is registered (pid $(_audit_status pid))"; return; }
	"$COLLECT" --db "$db" --source netlink >"$d/collect.out" 2>&1 &
	COLL=$!
	BG_PIDS+=("$COLL")
	for _ in $(seq 1 100); do
		[ "$(_audit_status pid)" = "$COLL" ] && break
		alive "$COLL" || break
		sleep 0.1
	done
	[ "$(_audit_status pid)" = "$COLL" ] ||
		{ bad "pgsc-collect did not register as the audit daemon: $(ok_stderr "$d/collect.out")"; return; }
	wait_started "$db" || { bad "pgsc-collect made no first commit in 10 s: $(ok_stderr "$d/collect.out")"; return; }
	"$STORM" 20000 4 >"$d/storm.out" 2>&1 || { bad "storm failed: $(cat "$d/storm.out")"; return; }
	stop_child "$COLL"
	[ "$STOPPED" = 0 ] || bad "pgsc-collect exited with status $STOPPED after SIGTERM: $(ok_stderr "$d/collect.out")"
	expect_exact "$db" 80000 ""
	local p
	p=$(_audit_status pid)
	{ [ "$p" = 0 ] || ! kill -0 "$p" 2>/dev/null; } || bad "after the collector exited, pid $p is still the kernel's audit daemon"
}

# 2. file: follow the private auditd's audit.log.
check_file() {
	local d=$W/file db=$W/file/f.db
	mkdir -p "$d"
	audit_begin "$d/audit" || { bad "could not start the private auditd"; return; }
	start_file_collector "$db" "$d/audit/audit.log" "$d/collect.out"
	wait_started "$db" file || { bad "pgsc-collect made no first commit in 10 s: $(ok_stderr "$d/collect.out")"; return; }
	"$STORM" 20000 4 >"$d/storm.out" 2>&1 || { bad "storm failed: $(cat "$d/storm.out")"; return; }
	audit_sync || bad "the audit log did not catch up (sync marker not seen)"
	stop_child "$COLL"
	[ "$STOPPED" = 0 ] || bad "pgsc-collect exited with status $STOPPED after SIGTERM: $(ok_stderr "$d/collect.out")"
	expect_exact "$db" 80000 "" "$d/audit/audit.log"
	audit_end
}

# 3. plugin: pgsc-collect started by auditd, stopped with it.
check_plugin() {
	local d=$W/plugin db=$W/plugin/p.db pid
	mkdir -p "$d/audit/plugins.d"
	PLUGIN_DBS+=("$db")
	cat >"$d/audit/plugins.d/pgsc.conf" <<CONF
active = yes
direction = out
path = $COLLECT
type = always
args = --db=$db --source=plugin
format = string
CONF
	chmod 0640 "$d/audit/plugins.d/pgsc.conf"
	# auditd drops events to plugins when its queue overflows (then
	# pgsc counts serial gaps): with the default 2000, a CI run lost 1
	# of 80,000.  The depth examples/auditd.conf.pgsc recommends:
	PGSC_AUDIT_Q_DEPTH=99999 audit_begin "$d/audit" || { bad "could not start the private auditd"; return; }
	for _ in $(seq 1 100); do
		pid=$(pgrep -f -- "--db=$db" | head -n 1)
		[ -n "$pid" ] && break
		sleep 0.1
	done
	[ -n "$pid" ] || { bad "auditd did not start the plugin: $(tr '\n' ' ' <"$d/audit/auditd.out")"; return; }
	wait_started "$db" || { bad "the plugin made no first commit in 10 s"; return; }
	"$STORM" 20000 4 >"$d/storm.out" 2>&1 || { bad "storm failed: $(cat "$d/storm.out")"; return; }
	audit_sync || bad "the audit log did not catch up (sync marker not seen)"
	# auditd 3.0.9 drops what is still in its plugin queue when it stops
	# (audisp/audispd.c: the dispatcher's loop ends at "stop", the queue
	# is never emptied; docs/live.md): stop it once the plugin has all.
	local have=0
	for _ in $(seq 1 600); do
		have=$(q "$db" "SELECT coalesce(sum(records), 0) FROM processes WHERE round_id = (SELECT max(id) FROM rounds) AND exe = '$STORM'")
		[ "$have" -ge 80000 ] 2>/dev/null && break
		sleep 0.1
	done
	[ "$have" -ge 80000 ] 2>/dev/null || bad "the plugin had committed $have of the 80000 storm records 60 s after they were in the log"
	audit_end
	for _ in $(seq 1 150); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
	if kill -0 "$pid" 2>/dev/null; then
		bad "the plugin (pid $pid) still runs 15 s after auditd stopped"
		kill -KILL "$pid" 2>/dev/null
	fi
	expect_exact "$db" 80000 "" "$d/audit/audit.log"
}

# 4. restart: kill -9 at ten random moments of a storm, restart at once.
check_restart() {
	local d=$W/restart db=$W/restart/r.db log st k during=0 statuses="" row
	local rec nr fin lost sg rg dt rs es src ic
	mkdir -p "$d"
	audit_begin "$d/audit" || { bad "could not start the private auditd"; return; }
	log=$d/audit/audit.log
	# Commits every 0.25 s, so that the kills fall between commits with
	# progress, and into commits.
	start_file_collector "$db" "$log" "$d/collect.out" --commit-interval 0.25
	wait_started "$db" file || { bad "pgsc-collect made no first commit in 10 s: $(ok_stderr "$d/collect.out")"; return; }
	gated_storm "$d" 100000 4 10 || { bad "the storm did not start: $(cat "$d/storm.out")"; return; }
	for k in $(seq 1 10); do
		sleep "$(awk -v r="$RANDOM" 'BEGIN { printf "%.2f", 0.1 + (r % 51) / 100 }')"
		alive "$STORM_PID" && during=$((during + 1))
		kill -KILL "$COLL" 2>/dev/null
		wait "$COLL" 2>/dev/null
		st=$?
		[ "$st" = 137 ] || statuses="$statuses #$k:$st"
		start_file_collector "$db" "$log" "$d/collect.out" --commit-interval 0.25
		gate_open
	done
	gated_storm_end "$d" || { bad "storm failed: $(cat "$d/storm.out")"; return; }
	[ "$during" = 10 ] || bad "only $during of the 10 kills came while the storm ran (it waits for them)"
	[ -z "$statuses" ] ||
		bad "collectors that were not running when killed (exit statuses):$statuses: $(ok_stderr "$d/collect.out")"
	audit_sync || bad "the audit log did not catch up (sync marker not seen)"
	alive "$COLL" || bad "the last restarted collector is not running: $(ok_stderr "$d/collect.out")"
	stop_child "$COLL"
	[ "$STOPPED" = 0 ] || bad "pgsc-collect exited with status $STOPPED after SIGTERM: $(ok_stderr "$d/collect.out")"
	EXACT_PROCS=0 expect_exact "$db" "$STORM_TOTAL" "" "$log"
	read -r rec nr fin lost sg rg dt rs es src <<<"$(round_row "$db")"
	# A collector killed while still starting (its start reads the
	# kernel's figures, which can sleep while a storm fills the backlog)
	# never reached the round: count those that said they continued it.
	local cont
	cont=$(grep -c "^pgsc-collect: continuing round" "$d/collect.out" || true)
	[ "$rs" -ge "$cont" ] && [ "$rs" -le 10 ] && [ "$rs" -ge 5 ] ||
		bad "rounds.restarts = $rs; $cont of the 10 restarted collectors said they continued the round (expected restarts between that and 10, and at least 5)"
	[ "$(q "$db" "SELECT count(*) FROM rounds")" = 1 ] ||
		bad "the restarts made several rounds: $(q "$db" "SELECT id, records, restarts, finished IS NOT NULL FROM rounds" | tr '\n' ' ')"
	ic=$(q "$db" "PRAGMA integrity_check" | tr '\n' ' ')
	[ "$ic" = "ok " ] || bad "PRAGMA integrity_check: $ic"
	# What each restart found committed: it must never go down.
	local base
	base=$(sed -n 's/^pgsc-collect: continuing round [0-9]* (\([0-9]*\) records committed before)$/\1/p' "$d/collect.out" | tr '\n' ' ')
	awk -v l="$base" 'BEGIN { n = split(l, a, " "); for (i = 2; i <= n; i++) if (a[i] + 0 < a[i - 1] + 0) exit 1 }' ||
		bad "the committed record count went down between restarts: $base"
	echo "restart: $during of 10 kills during a storm of $STORM_TOTAL records; records committed at each restart: $base"
	audit_end
}

# rotating_start D DB NUM_LOGS MAX_LOG_FILE [ARG...]: a private auditd in
# D/audit that rotates (max_log_file_action = ROTATE, NUM_LOGS files of
# MAX_LOG_FILE MB) and pgsc-collect following D/audit/audit.log into DB
# with ARGs (output in D/collect.out), up to its first commit.  Returns 1
# after bad() when one of them does not start.
rotating_start() {
	local d=$1 db=$2 num=$3 max=$4
	shift 4
	PGSC_AUDIT_MAX_LOG_FILE_ACTION=ROTATE PGSC_AUDIT_NUM_LOGS=$num PGSC_AUDIT_MAX_LOG_FILE=$max \
		audit_begin "$d/audit" || { bad "could not start the private auditd"; return 1; }
	start_file_collector "$db" "$d/audit/audit.log" "$d/collect.out" "$@"
	wait_started "$db" file || { bad "pgsc-collect made no first commit in 10 s: $(ok_stderr "$d/collect.out")"; return 1; }
}

# 5. rotation: auditd rotates at least five times during a storm.
#
# The rotations come from max_log_file (auditd rotates in its write path),
# not from SIGUSR1.  On SIGUSR1 auditd asks the kernel who sent the signal
# (AUDIT_SIGNAL_INFO: its DAEMON_ROTATE record carries the sender's pid),
# and the kernel makes every sender of a request sleep up to
# backlog_wait_time while its queue is over the limit, auditd included.
# Five SIGUSR1 during a 400000-record storm, with another process sending
# requests meanwhile (pgsc-collect's status query at each commit, or just
# a loop of "auditctl -s"), stalled everything for ~250 s in about one run
# of three: hung-task warnings for the storm (audit_log_start) and the
# requester (audit_receive), 17k-31k records never reached audit.log, and
# the kernel's lost counter moved by 3-4.  Without the other requester, or
# without SIGUSR1, no stall in 4 runs each (kernel 6.18, auditd 3.0.9).
check_rotation() {
	local d=$W/rotation db=$W/rotation/o.db log n rec nr fin lost sg rg dt rs es src
	mkdir -p "$d"
	# ~300 bytes a record: 400000 records are ~120 MB, 6 files of 20 MB.
	rotating_start "$d" "$db" 20 20 || return
	log=$d/audit/audit.log
	"$STORM" 100000 4 >"$d/storm.out" 2>&1 || bad "storm failed: $(cat "$d/storm.out")"
	audit_sync || bad "the audit log did not catch up (sync marker not seen)"
	n=$(rotated "$log" | grep -c .)
	# shellcheck disable=SC2012 # auditd's own file names
	[ "$n" -ge 5 ] || bad "test invalid: auditd made $n rotated files, expected 5 or more: $(ls "$d/audit" | tr '\n' ' ')"
	stop_child "$COLL"
	[ "$STOPPED" = 0 ] || bad "pgsc-collect exited with status $STOPPED after SIGTERM: $(ok_stderr "$d/collect.out")"
	# shellcheck disable=SC2046 # file names without blanks
	expect_exact "$db" 400000 "" $(rotated "$log") "$log"
	read -r rec nr fin lost sg rg dt rs es src <<<"$(round_row "$db")"
	[ "$rg" = 0 ] || bad "rotation_gaps = $rg: $(q "$db" "SELECT detail FROM gaps WHERE kind = 'rotation'" | tr '\n' ' ')"
	echo "rotation: $n rotations during the storm; SECCOMP records per file, oldest first: $(for f in $(rotated "$log") "$log"; do printf '%s ' "$(grep -c '^type=SECCOMP ' "$f")"; done)"
}

# 5a. rotation by SIGUSR1: five signals during a
# storm of 400000 records or more (it waits for the signals), auditd
# with max_log_file_action = ROTATE (and a max_log_file too large to
# rotate by size).  pgsc-collect sends the kernel no request while it
# reads (its status figures are read at the start and the end of the
# round only, docs/live.md), so auditd's own request on
# SIGUSR1 (AUDIT_SIGNAL_INFO) is the only one.  After the storm the test
# itself sends nothing either (auditctl would be a request): it counts the
# storm's lines in the log files until all are there.  If auditd stalls
# (not all there 20 s after the storm), the kernel stacks of auditd's
# threads and of the storm go to the output, and the stall is timed.
check_rotation_usr1() {
	local d=$W/rotation-usr1 db=$W/rotation-usr1/o.db log n k during=0 storm want t0 t1 lost0 dmesg0 missing=0 rec nr fin lost sg rg dt rs es src
	mkdir -p "$d"
	rotating_start "$d" "$db" 20 4000 || return
	log=$d/audit/audit.log
	t0=$(now)
	lost0=$(_audit_status lost)
	dmesg0=$(dmesg 2>/dev/null | grep -c "exe=\"$STORM\"")
	# a storm that waits for the five signals (gated_storm): at least
	# 400000 records, one part before each SIGUSR1 and after the last
	gated_storm "$d" 100000 4 5 || { bad "the storm did not start: $(cat "$d/storm.out")"; return; }
	storm=$STORM_PID
	for k in 1 2 3 4 5; do
		sleep 1
		alive "$storm" && during=$((during + 1))
		rotate_now || bad "SIGUSR1 #$k: audit.log was not replaced within 5 s"
		gate_open
	done
	gated_storm_end "$d" || { bad "storm failed: $(cat "$d/storm.out")"; return; }
	want=$STORM_TOTAL
	t1=$(now)
	[ "$during" = 5 ] || bad "only $during of the 5 SIGUSR1 came while the storm ran (it waits for them)"
	if ! storm_in_logs "$log" "$want" 20; then
		local have
		have=$(storm_lines "$log")
		echo "rotation-usr1: the log holds $have of $want storm records 20 s after the storm"
		rotation_usr1_stacks "$storm"
		# Late, or gone?  Gone when nothing more comes in 10 s.
		if storm_in_logs "$log" $((have + 1)) 10; then
			storm_in_logs "$log" "$want" 300
			bad "auditd stalled: all storm records were in the log $(elapsed "$t1" "$(now)") s after the storm ($(storm_lines "$log") of $want)"
		else
			sleep 3 # the collector's next commit
			missing=$((want - have))
			# shellcheck disable=SC2046 # rotated prints a list of files
			"${PGSC_LIVE_USR1_STRICT:-echo}" "WARNING: rotation-usr1: $((want - have)) storm records never reached the log (kernel lost counter moved by $(($(_audit_status lost) - lost0)); pgsc's serial gaps: $(q "$db" "SELECT serial_gaps FROM rounds WHERE id = (SELECT max(id) FROM rounds)"); DAEMON_ROTATE records: $(grep -h '^type=DAEMON_ROTATE' $(rotated "$log") "$log" | grep -o 'res=[a-z]*' | tr '\n' ' '); the kernel printed $(($(dmesg 2>/dev/null | grep -c "exe=\"$STORM\"") - dmesg0)) storm records to its log (rate-limited) (kauditd gave up sending them, docs/live.md)"
		fi
	fi
	if [ "$missing" != 0 ]; then
		# auditd can stall longer than the 10 s above and then write
		# them after all: what the log holds now is what counts
		local now_have
		now_have=$(storm_lines "$log")
		if [ "$now_have" -gt $((want - missing)) ]; then
			echo "rotation-usr1: $((now_have - want + missing)) of the $missing came late: the log holds $now_have of $want"
			missing=$((want - now_have))
			sleep 3 # the collector's next commit
		fi
	fi
	# Records dropped before the log are auditd's and the kernel's loss
	# (docs/live.md); pgsc's part is to count exactly what reached the log
	# and to see every missing record.  PGSC_LIVE_USR1_STRICT=bad makes
	# such a loss fail the check, as a demand for exact counts would.
	n=$(rotated "$log" | grep -c .)
	# shellcheck disable=SC2012 # auditd's own file names
	[ "$n" = 5 ] || bad "auditd made $n rotated files for 5 SIGUSR1: $(ls "$d/audit" | tr '\n' ' ')"
	stop_child "$COLL"
	[ "$STOPPED" = 0 ] || bad "pgsc-collect exited with status $STOPPED after SIGTERM: $(ok_stderr "$d/collect.out")"
	if [ "$missing" = 0 ]; then
		# shellcheck disable=SC2046 # file names without blanks
		expect_exact "$db" "$want" "" $(rotated "$log") "$log"
	else
		# shellcheck disable=SC2046 # file names without blanks
		UPSTREAM_MISSING=$missing expect_exact "$db" $((want - missing)) "" $(rotated "$log") "$log"
		local cc=0
		"$REPORT" --db "$db" --check-complete >/dev/null 2>&1 || cc=$?
		[ "$cc" = 1 ] || bad "pgsc-report --check-complete exited $cc after $missing records were lost, expected 1"
	fi
	read -r rec nr fin lost sg rg dt rs es src <<<"$(round_row "$db")"
	[ "$rg" = 0 ] || bad "rotation_gaps = $rg: $(q "$db" "SELECT detail FROM gaps WHERE kind = 'rotation'" | tr '\n' ' ')"
	echo "rotation-usr1: storm $(elapsed "$t0" "$t1") s, $during of 5 SIGUSR1 during it, $n rotated files; SECCOMP records per file, oldest first: $(for f in $(rotated "$log") "$log"; do printf '%s ' "$(grep -c '^type=SECCOMP ' "$f")"; done)"
}

# storm_lines LOG: the storm's SECCOMP lines in LOG and its rotated files.
storm_lines() {
	# shellcheck disable=SC2046 # file names without blanks
	cat $(rotated "$1") "$1" 2>/dev/null | grep -c "^type=SECCOMP .* exe=\"$STORM\" .* syscall=$NR "
}

# storm_in_logs LOG N SECS: until LOG and its rotated files hold N storm lines.
storm_in_logs() {
	local _
	for _ in $(seq 1 $(($3 * 2))); do
		[ "$(storm_lines "$1")" -ge "$2" ] && return 0
		sleep 0.5
	done
	return 1
}

# rotation_usr1_stacks STORMPID: where auditd, the collector and the
# storm's processes sleep (root reads kernel stacks in /proc).
rotation_usr1_stacks() {
	local p t
	for p in "$PGSC_AUDITD_PID" "$COLL" "$1" $(pgrep -P "$1" 2>/dev/null); do
		for t in /proc/"$p"/task/*; do
			[ -d "$t" ] || continue
			echo "  stack of $(cat "$t/comm" 2>/dev/null) (pid $p tid ${t##*/}, wchan $(cat "$t/wchan" 2>/dev/null)):"
			sed 's/^/    /' "$t/stack" 2>/dev/null | head -12
		done
	done
}

# rotated LOG: the rotated files of LOG, oldest first.
rotated() {
	local k
	for k in $(seq 99 -1 1); do
		if [ -f "$1.$k" ]; then echo "$1.$k"; fi
	done
}

# rotate_now: make auditd rotate (SIGUSR1; only while no storm runs, see
# check_rotation), wait until audit.log is a new file.
rotate_now() {
	local log=$PGSC_AUDIT_DIR/audit.log ino
	ino=$(stat -c %i "$log")
	kill -USR1 "$PGSC_AUDITD_PID"
	for _ in $(seq 1 100); do
		[ -f "$log" ] && [ "$(stat -c %i "$log")" != "$ino" ] && return 0
		sleep 0.05
	done
	return 1
}

# wait_records DB N: until the open round has committed N records (10 s).
wait_records() {
	for _ in $(seq 1 100); do
		[ "$(q "$1" "SELECT records FROM rounds WHERE finished IS NULL")" = "$2" ] && return 0
		sleep 0.1
	done
	return 1
}

# 5b. rotation while the collector is down: it finds the file it was
# reading among the rotated ones by its fingerprint, reads the rest of it
# and the newer ones, while auditd goes on rotating (4 MB files, about
# five a second during the storm).  Size-based rotation (see
# check_rotation).
check_rotation_restart() {
	local d=$W/rotation-restart db=$W/rotation-restart/o.db log n0 n1 rec nr fin lost sg rg dt rs es src
	mkdir -p "$d"
	rotating_start "$d" "$db" 60 4 --commit-interval 0.25 || return
	log=$d/audit/audit.log
	# the storm waits (gated_storm): for the collector to be killed and
	# auditd to rotate twice, then for the restart
	gated_storm "$d" 100000 4 2 || { bad "the storm did not start: $(cat "$d/storm.out")"; return; }
	sleep 1
	kill -KILL "$COLL"
	wait "$COLL" 2>/dev/null
	n0=$(rotated "$log" | grep -c .)
	for _ in $(seq 1 600); do
		n1=$(rotated "$log" | grep -c .)
		[ "$n1" -ge $((n0 + 2)) ] && break
		sleep 0.1
	done
	gate_open
	alive "$STORM_PID" || bad "the storm ended before the restart"
	start_file_collector "$db" "$log" "$d/collect.out" --commit-interval 0.25
	sleep 0.5
	gated_storm_end "$d" || { bad "storm failed: $(cat "$d/storm.out")"; return; }
	audit_sync || bad "the audit log did not catch up (sync marker not seen)"
	[ "$n1" -ge $((n0 + 2)) ] || bad "auditd did not rotate twice in 60 s while the collector was down and the storm ran ($n0 rotated files before, $n1 after)"
	[ "$(rotated "$log" | grep -c .)" -lt 59 ] || bad "test invalid: auditd may have deleted rotated files (num_logs reached)"
	stop_child "$COLL"
	[ "$STOPPED" = 0 ] || bad "pgsc-collect exited with status $STOPPED after SIGTERM: $(ok_stderr "$d/collect.out")"
	# shellcheck disable=SC2046 # file names without blanks
	EXACT_PROCS=0 expect_exact "$db" "$STORM_TOTAL" "" $(rotated "$log") "$log"
	read -r rec nr fin lost sg rg dt rs es src <<<"$(round_row "$db")"
	[ "$rg" = 0 ] || bad "rotation_gaps = $rg: $(q "$db" "SELECT detail FROM gaps WHERE kind = 'rotation'" | tr '\n' ' ')"
	[ "$rs" = 1 ] || bad "rounds.restarts = $rs, expected 1"
	st=0
	"$REPORT" --db "$db" --check-complete >"$d/check.out" 2>&1 || st=$?
	nothing_lost "$st" "$d/check.out" || bad "pgsc-report --check-complete (exit $st): $(cat "$d/check.out")"
	echo "rotation-restart: $((n1 - n0)) rotations while the collector was down, $(rotated "$log" | grep -c .) in all"
}

# 5c. a file rotated away while the collector was down: what was written
# to it after the last commit is lost, and the store must say so.
check_rotation_lost() {
	local d=$W/rotation-lost db=$W/rotation-lost/o.db log st rec nr fin lost sg rg dt rs es src n
	mkdir -p "$d"
	# num_logs 2: auditd keeps audit.log and audit.log.1 only.
	rotating_start "$d" "$db" 2 4000 --commit-interval 0.2 || return
	log=$d/audit/audit.log
	"$STORM" 10000 2 >>"$d/storm.out" 2>&1 || bad "storm A failed"
	audit_sync || bad "the audit log did not catch up (sync marker not seen)"
	wait_records "$db" 20000 || bad "the collector did not commit storm A's 20000 records in 10 s: $(round_row "$db")"
	kill -KILL "$COLL"
	wait "$COLL" 2>/dev/null
	"$STORM" 3000 >>"$d/storm.out" 2>&1 || bad "storm B1 failed" # lost with the file
	audit_sync || bad "the audit log did not catch up (sync marker not seen)"
	rotate_now || bad "auditd did not rotate"
	"$STORM" 5000 >>"$d/storm.out" 2>&1 || bad "storm B2 failed"
	audit_sync || bad "the audit log did not catch up (sync marker not seen)"
	rotate_now || bad "auditd did not rotate"
	n=$(rotated "$log" | grep -c .)
	# shellcheck disable=SC2012 # auditd's own file names
	[ "$n" = 1 ] || bad "test invalid: expected audit.log.1 only, found: $(ls "$d/audit" | tr '\n' ' ')"
	start_file_collector "$db" "$log" "$d/collect.out" --commit-interval 0.2
	wait_started "$db" || bad "the restarted collector made no commit in 10 s"
	"$STORM" 7000 >>"$d/storm.out" 2>&1 || bad "storm C failed"
	audit_sync || bad "the audit log did not catch up (sync marker not seen)"
	stop_child "$COLL"
	[ "$STOPPED" = 0 ] || bad "pgsc-collect exited with status $STOPPED after SIGTERM: $(ok_stderr "$d/collect.out")"
	read -r rec nr fin lost sg rg dt rs es src <<<"$(round_row "$db")"
	# A 20000 + B2 5000 + C 7000; B1's 3000 went with the rotated file.
	[ "$nr" = 32000 ] || bad "aggregates nr=$NR sum(count) = $nr, expected 32000 (storm A 20000 + B2 5000 + C 7000, not B1's 3000 in the file rotated away)"
	[ "$rec" = 32000 ] || bad "rounds.records = $rec, expected 32000"
	[ "$rg" = 1 ] || bad "rotation_gaps = $rg, expected 1"
	[ "$(q "$db" "SELECT count(*) FROM gaps WHERE kind = 'rotation'")" = 1 ] || bad "no 'rotation' row in gaps"
	st=0
	"$REPORT" --db "$db" --check-complete >"$d/check.out" 2>&1 || st=$?
	[ "$st" = 1 ] || bad "pgsc-report --check-complete exited with status $st, expected 1 (records may be missing): $(cat "$d/check.out")"
}

# 6. netlink refusal next to a registered auditd.
check_refusal() {
	local d=$W/refusal db=$W/refusal/x.db st=0 p
	mkdir -p "$d"
	audit_begin "$d/audit" || { bad "could not start the private auditd"; return; }
	timeout 20 "$COLLECT" --db "$db" --source netlink >"$d/collect.out" 2>"$d/collect.err" || st=$?
	[ "$st" != 0 ] || bad "pgsc-collect --source netlink exited 0 next to a registered auditd"
	[ "$st" != 124 ] || bad "pgsc-collect --source netlink did not exit within 20 s next to a registered auditd"
	grep -q "audit daemon" "$d/collect.err" ||
		bad "its stderr does not say \"audit daemon\": $(ok_stderr "$d/collect.err")"
	p=$(_audit_status pid)
	[ "$p" = "$PGSC_AUDITD_PID" ] || bad "afterwards the kernel's audit daemon is pid $p, not auditd's $PGSC_AUDITD_PID"
	alive "$PGSC_AUDITD_PID" || bad "the private auditd died"
	audit_end
}

# nothing_lost STATUS FILE: pgsc-report --check-complete found no loss.
# A storm without the rules (or outside a server) is unattributed: exit 1
# and "not usable" then, but the loss figures must still all be 0.
nothing_lost() {
	grep -q 'kernel lost 0, serial gaps 0, rotation gaps 0, drain timeouts 0, ' "$2" || return 1
	[ "$1" = 0 ] && return 0
	[ "$1" = 1 ] && grep -q ': not usable$' "$2"
}

# wrap_checks DB NAME WRAP-ARGS...: exact counts of a wrapped storm, exit
# status passthrough, --check-complete, no pgsc rule left.
wrap_checks() {
	local d=$1 name=$2 db=$1/$2.db st=0 out row rec nr fin lost sg rg dt rs es src
	shift 2
	no_daemon || { bad "an audit daemon is registered (pid $(_audit_status pid))"; return; }
	timeout 120 "$COLLECT" --db "$db" "$@" -- "$STORM" 50000 2 >"$d/$name.storm.out" 2>"$d/$name.storm.err" || st=$?
	[ "$st" = 0 ] || bad "pgsc-collect $* -- storm 50000 2 exited with status $st, expected storm's 0: $(ok_stderr "$d/$name.storm.err")"
	grep -q '^storm: 100000 records' "$d/$name.storm.out" || bad "storm did not report 100000 records: $(cat "$d/$name.storm.out")"
	expect_exact "$db" 100000 "wrapped storm"
	read -r rec nr fin lost sg rg dt rs es src <<<"$(round_row "$db")"
	[ "${es:-}" = 0 ] || bad "wrapped storm: rounds.exit_status = ${es:-none}, expected 0"
	[ "${rs:-}" = 0 ] || bad "wrapped storm: rounds.restarts = ${rs:-none}, expected 0"
	no_daemon || bad "after the wrapped storm pid $(_audit_status pid) is still the kernel's audit daemon"
	st=0
	timeout 60 "$COLLECT" --db "$db" "$@" -- sh -c 'exit 7' >"$d/$name.exit7.out" 2>"$d/$name.exit7.err" || st=$?
	[ "$st" = 7 ] || bad "pgsc-collect $* -- sh -c 'exit 7' exited with status $st, expected 7: $(ok_stderr "$d/$name.exit7.err")"
	read -r rec nr fin lost sg rg dt rs es src <<<"$(round_row "$db")"
	[ "${es:-}" = 7 ] || bad "exit 7: rounds.exit_status = ${es:-none}, expected 7"
	[ "${src:-}" = netlink ] || bad "exit 7: rounds.source = ${src:-none}, expected netlink"
	[ "${rs:-}" = 0 ] || bad "exit 7: rounds.restarts = ${rs:-none}, expected 0 (a new round)"
	[ "$(q "$db" "SELECT count(*) FROM rounds")" = 2 ] ||
		bad "two wrapped commands should make two rounds; rounds (id records finished restarts exit_status command): $(q "$db" "SELECT id, records, finished IS NOT NULL, restarts, exit_status, command FROM rounds" | tr '\n' ' ')"
	st=0
	"$REPORT" --db "$db" --check-complete >"$d/$name.check" 2>&1 || st=$?
	nothing_lost "$st" "$d/$name.check" || bad "pgsc-report --check-complete exited with status $st: $(cat "$d/$name.check")"
	if auditctl -l 2>/dev/null | grep -q 'key=pgsc'; then
		bad "pgsc's rules are still loaded: $(auditctl -l | grep 'key=pgsc' | head -n 2 | tr '\n' ' ')"
	fi
}

# 7. wrap mode: pgsc loads its rules, runs the command, drains, removes them.
check_wrap() {
	mkdir -p "$W/wrap"
	wrap_checks "$W/wrap" wrap --source netlink
}

# 8. wrap mode without rules and without --source (netlink by default).
check_wrap_norules() {
	mkdir -p "$W/wrap-norules"
	wrap_checks "$W/wrap-norules" wrap --no-rules
}

# ============================================================== runner ==
PASSED=0
FAILED=0
run() { # run NAME FUNCTION
	local name=$1 t0 p
	if [ -n "${PGSC_LIVE_ONLY:-}" ] && [[ " $PGSC_LIVE_ONLY " != *" $name "* ]]; then
		return
	fi
	REASONS=()
	t0=$(now)
	"$2"
	# Whatever the check left running goes now.
	for p in "${BG_PIDS[@]}"; do
		if alive "$p"; then
			kill -KILL "$p" 2>/dev/null
			bad "left running: pid $p ($(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null))"
		fi
		wait "$p" 2>/dev/null
	done
	BG_PIDS=()
	audit_end
	if t_verdict "$name" "$t0"; then
		PASSED=$((PASSED + 1))
	else
		FAILED=$((FAILED + 1))
	fi
}

run netlink check_netlink
run file check_file
run plugin check_plugin
run restart check_restart
run rotation check_rotation
run rotation-usr1 check_rotation_usr1
run rotation-restart check_rotation_restart
run rotation-lost check_rotation_lost
run refusal check_refusal
run wrap check_wrap
run wrap-norules check_wrap_norules

echo "live-sources: waited $(elapsed "$T_LOCK" "$T_LOCKED") s for the audit lock, total $(elapsed "$T_START" "$(now)") s"
echo "live-sources: $PASSED passed, $FAILED failed"
[ "$FAILED" = 0 ]
