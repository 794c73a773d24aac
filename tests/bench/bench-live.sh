#!/bin/bash
# SPDX-License-Identifier: PostgreSQL
# tests/bench/bench-live.sh BINDIR [WORKDIR] - pgsc's live collector benchmark.
#
# A program that prints figures, not a pass/fail test: it exits 0 whatever
# the figures are (targets are reported, not enforced), and 2 only when it
# could not run (not root, a missing program, the audit lock not obtained,
# a consumer that did not start).
#
# Part 1, the same storm in four set-ups: BINDIR/tests/storm CALLS PROCS
# (tests/live/storm.c) makes exactly CALLS*PROCS SECCOMP records of getppid
# (x86_64 nr 110).  No audit rules are loaded.  The time is the wall clock
# from the storm's start until its records are all accounted for by the
# consumer:
#   (a) a private auditd (tests/lib/auditd.sh) writing its log: until a
#       marker record (auditctl -m) sent after the storm is in the log;
#   (b0) the same auditd with a no-op plugin (cat >/dev/null, format
#       string or PGSC_BENCH_B0_FORMAT): the ceiling of auditd's plugin
#       interface whatever the plugin does; timed like (a);
#   (b) the same auditd with pgsc-collect --source=plugin in its plugin_dir
#       (auditd also writes its log, as it does by default; q_depth from
#       examples/auditd.conf.pgsc): until pgsc's store holds all records;
#   (c) pgsc-collect --source netlink, no auditd: SIGTERM when the storm
#       ends (pgsc sends a marker and reads up to it), until pgsc exits;
#   (d) auditd writing its log + pgsc-collect --source file:LOG: until the
#       store holds all records.
# "Holds all" is polled after the storm ends: SIGHUP makes pgsc commit at
# once (docs/live.md), then sqlite3 reads the count of nr 110; the time is
# the commit's rounds.last_commit.  auditd passes a plugin at most two
# arguments, so --commit-interval cannot be set there; SIGHUP works for all.
# Each mode runs PGSC_BENCH_REPS times (3), interleaved (a b0 b c d, a b0
# b c d, ...), since the load of a shared machine drifts; the figures are
# medians with [min .. max], and the ratios are medians of the ratios
# within each repetition.  Counts must be exact in every repetition; the
# storm's records are told from other programs' by exe= (a shared
# machine may run other processes under a log filter).
# For each: records/s (storm records / that time), the storm's own
# duration, the kernel's "lost" delta (auditctl -s) and backlog waits
# (backlog_wait_time_actual delta), and in b, c, d pgsc's count of nr 110
# against the storm's exact total.
#
# Part 2, PostgreSQL 15 under "pgsc-exec --default log" (every syscall not
# allowed makes a record), examples/pgsc.rules loaded, unix socket:
# "pgbench -i -s 5" then "pgbench -c 4 -T 15" with (a) auditd writing the
# log and (c) pgsc-collect --source netlink --load-rules.
#
# Kernel backlog: auditd.sh sets -b 8192 and its backlog_wait_time; pgsc's
# netlink source sets its own.  The audit lock ($PGSC_AUDIT_LOCK) is held
# for the whole run; what the run changed (backlog settings, enabled flag,
# rules) is put back at the end.
#
# Environment knobs (all optional):
#   PGSC_BENCH_STORM_CALLS   getppid calls per storm process (150000)
#   PGSC_BENCH_STORM_PROCS   storm processes (4)
#   PGSC_BENCH_PGBENCH_T     seconds of pgbench -c 4 (15)
#   PGSC_BENCH_PGBENCH_S     pgbench -i scale (5)
#   PGSC_BENCH_Q_DEPTH       auditd q_depth in mode b (examples/auditd.conf.pgsc's,
#                            at most 99999: auditd refuses more)
#   PGSC_BENCH_REPS          repetitions of each storm mode, interleaved (3)
#   PGSC_BENCH_MODES         storm modes to run ("a b0 b c d")
#   PGSC_BENCH_B0_FORMAT     plugin format of the no-op plugin b0 (string)
#   PGSC_BENCH_SKIP_PGBENCH=1  part 1 only
#   PGSC_BENCH_KEEP=1        keep the work directory
#   PGSC_PGBIN               PostgreSQL 15 binaries (/usr/lib/postgresql/15/bin)

set -u
set -o pipefail
export LC_ALL=C
# shellcheck source=../lib/bench.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/bench.sh"
# the clock without a fork, for the polling loops (C locale: a dot)
now() { echo "$EPOCHREALTIME"; }

[ $# -ge 1 ] || fail "usage: $0 BINDIR [WORKDIR]"
[ -d "$1" ] || fail "BINDIR $1 is not a directory"
BINDIR=$(cd "$1" && pwd)
WORK=${2:-/var/tmp}
SRCROOT=$T_SRCROOT
PGBIN=${PGSC_PGBIN:-/usr/lib/postgresql/15/bin}
PGEXE=$PGBIN/postgres
LOCK=${PGSC_AUDIT_LOCK:-/run/pgsc-audit.lock}
CALLS=${PGSC_BENCH_STORM_CALLS:-150000}
PROCS=${PGSC_BENCH_STORM_PROCS:-4}
PGB_T=${PGSC_BENCH_PGBENCH_T:-15}
PGB_S=${PGSC_BENCH_PGBENCH_S:-5}
SKIP_PGB=${PGSC_BENCH_SKIP_PGBENCH:-0}
REPS=${PGSC_BENCH_REPS:-3}
MODES=${PGSC_BENCH_MODES:-a b0 b c d}
PLUGIN_FORMAT=${PGSC_BENCH_B0_FORMAT:-string}
STORM=$BINDIR/tests/storm
STORM_EXE=$(readlink -f "$STORM") # as the kernel writes exe=
ARCH_X86_64=3221225534 # audit arch token c000003e, as the store keeps it
NR=110                 # getppid on x86_64
WAIT_MAX=90            # seconds after a storm for its records to be accounted for
T_START=$(now)

case $CALLS$PROCS$REPS in *[!0-9]*) fail "PGSC_BENCH_STORM_CALLS, _PROCS and _REPS must be numbers" ;; esac
for m in $MODES; do
	case $m in a | b0 | b | c | d) ;; *) fail "PGSC_BENCH_MODES: unknown mode '$m' (a b0 b c d)" ;; esac
done
case $PLUGIN_FORMAT in string | binary) ;; *) fail "PGSC_BENCH_B0_FORMAT must be string or binary" ;; esac
TOTAL=$((CALLS * PROCS))

# ---------------------------------------------------------------- deps --
need_root "audit daemon role, private auditd"
need_progs auditd auditctl sqlite3 awk sed grep tail stat flock runuser mktemp
need_exec "$BINDIR"/pgsc-{collect,exec} "$STORM"
need_file "$SRCROOT/tests/lib/auditd.sh" "$SRCROOT/examples/pgsc.rules"
[ "$(uname -m)" = x86_64 ] || fail "the storm's getppid is counted as x86_64 nr 110; this is $(uname -m)"
if [ "$SKIP_PGB" != 1 ]; then
	for t in postgres initdb pg_ctl pgbench; do
		[ -x "$PGBIN/$t" ] || fail "PostgreSQL 15 program $PGBIN/$t is missing (Debian package postgresql-15)"
	done
	id postgres >/dev/null 2>&1 || fail "there is no user 'postgres'"
fi
QDEPTH=${PGSC_BENCH_Q_DEPTH:-$(awk '$1 == "q_depth" { print $3; exit }' "$SRCROOT/examples/auditd.conf.pgsc" 2>/dev/null)}
QDEPTH=${QDEPTH:-99999}
QDEPTH_NOTE=
# auditd 3.0.9 refuses to start ("q_depth must be 99999 or less", exit 6).
if [ "$QDEPTH" -gt 99999 ] 2>/dev/null; then
	QDEPTH_NOTE="q_depth $QDEPTH (examples/auditd.conf.pgsc or PGSC_BENCH_Q_DEPTH) is above auditd's maximum 99999: auditd would not start; used 99999"
	QDEPTH=99999
fi

mkdir -p "$WORK" || fail "cannot create WORKDIR $WORK"
bench_init bench-live "$WORK"
T_KEEP=${PGSC_BENCH_KEEP:-0}
chmod 755 "$T"

# ------------------------------------------------------------- cleanup --
PGDATA_T=
PIDS_OURS=()  # pgsc-collect daemons we started, killed by pid at exit
SAVED=()      # enabled, backlog_limit, backlog_wait_time
SAVED_RULES=
# put_back: stop what the run started and put the audit settings back
put_back() {
	local p
	for p in "${PIDS_OURS[@]}"; do
		if kill -0 "$p" 2>/dev/null; then
			kill -TERM "$p" 2>/dev/null
			wait "$p" 2>/dev/null
		fi
	done
	[ -z "$PGDATA_T" ] || pg_stop_now "$PGDATA_T"
	if declare -F audit_end >/dev/null; then audit_end; fi
	if [ ${#SAVED[@]} = 3 ]; then
		auditctl -D >/dev/null 2>&1
		if [ -s "$SAVED_RULES" ] && ! grep -q '^No rules' "$SAVED_RULES"; then
			auditctl -R "$SAVED_RULES" >/dev/null 2>&1
		fi
		auditctl -b "${SAVED[1]}" >/dev/null 2>&1
		auditctl --backlog_wait_time "${SAVED[2]}" >/dev/null 2>&1
		auditctl -e "${SAVED[0]}" >/dev/null 2>&1
	fi
}
t_cleanup put_back

# The lock is held on fd 8 for the whole run (mode c has no auditd but is
# the audit daemon too); auditd.sh takes its own lock on a private file, or
# its audit_lock/audit_end would drop ours between the modes.
exec 8>"$LOCK" || fail "cannot open the audit lock $LOCK"
T_LOCK=$(now)
note "waiting for the audit lock $LOCK"
flock -w 900 8 || fail "could not get the audit lock $LOCK in 900 s"
T_LOCKED=$(now)
PGSC_AUDIT_LOCK=$T/private.lock
# shellcheck source=../lib/auditd.sh
. "$SRCROOT/tests/lib/auditd.sh"

kstat() { auditctl -s | awk -v k="$1" '$1 == k { print $2 }'; }
owner=$(audit_foreign_daemon)
[ -z "$owner" ] || fail "pid $owner ($(cat /proc/"$owner"/comm 2>/dev/null)) is the kernel's audit daemon; stop it first"
SAVED=("$(kstat enabled)" "$(kstat backlog_limit)" "$(kstat backlog_wait_time)")
SAVED_RULES=$T/saved.rules
auditctl -l >"$SAVED_RULES" 2>/dev/null || true
# No stale rules: part 1 measures SECCOMP records only.
auditctl -D >/dev/null 2>&1

store_q() { sqlite3 -cmd ".timeout 5000" "$1" "$2" 2>/dev/null; }
store_n110() { store_q "$1" "SELECT coalesce(sum(count), 0) FROM aggregates WHERE arch = $ARCH_X86_64 AND nr = $NR"; }
# The storm's own records: other programs on a shared machine may run under
# a log filter too (a stray getppid of theirs is no double count of ours).
# The storm's children make nothing but getppid records.
store_nstorm() { store_q "$1" "SELECT coalesce(sum(records), 0) FROM processes WHERE exe = '$STORM_EXE'"; }
store_wait_round() { # store_wait_round DB: wait (10 s) for the collector's round; print its pid
	local _ p
	for _ in $(seq 1 100); do
		p=$(store_q "$1" "SELECT collector_pid FROM rounds ORDER BY id DESC LIMIT 1")
		[ -n "$p" ] && { echo "$p"; return 0; }
		sleep 0.1
	done
	return 1
}

# run_storm: the storm in the foreground; sets ST0, ST1.
run_storm() {
	local rc
	ST0=$(now)
	"$STORM" "$CALLS" "$PROCS" >"$T/storm.out" 2>&1
	rc=$?
	ST1=$(now)
	[ "$rc" = 0 ] && grep -qx "storm: $TOTAL records" "$T/storm.out" ||
		fail "storm failed (exit $rc): $(head -c 300 "$T/storm.out")"
}

# log_marker FILE: send a marker record through the kernel and wait until
# auditd wrote it to FILE (so everything queued before it is there too);
# sets DONE.  Only the bytes added since the marker was sent are read.
log_marker() {
	local f=$1 tag="pgsc-bench-live-$$-$RANDOM$RANDOM" off size end
	off=$(stat -c %s "$f") || return 1
	auditctl -m "$tag" >/dev/null 2>&1 || return 1
	end=$(awk -v t="$(now)" -v w="$WAIT_MAX" 'BEGIN { printf "%.6f", t + w }')
	while :; do
		size=$(stat -c %s "$f")
		if [ "$size" -gt "$off" ] && grep -qF "$tag" < <(tail -c +$((off + 1)) "$f"); then
			DONE=$(now)
			return 0
		fi
		[ "$size" -gt $((off + 65536)) ] && off=$((size - 65536))
		awk -v t="$(now)" -v e="$end" 'BEGIN { exit !(t > e) }' && return 1
		sleep 0.02
	done
}

# store_wait DB PID: SIGHUP PID (pgsc commits at once) and read the count
# of nr 110 until it reaches TOTAL; sets DONE to that commit's time and
# GOT to the last count seen.  Fails after WAIT_MAX s.
store_wait() {
	local db=$1 pid=$2 end line lc
	end=$(awk -v t="$(now)" -v w="$WAIT_MAX" 'BEGIN { printf "%.6f", t + w }')
	GOT=0
	while :; do
		kill -HUP "$pid" 2>/dev/null || return 1
		sleep 0.05
		line=$(store_q "$db" "SELECT (SELECT coalesce(sum(count), 0) FROM aggregates WHERE arch = $ARCH_X86_64 AND nr = $NR) || ' ' || coalesce((SELECT max(last_commit) FROM rounds), 0)")
		GOT=${line%% *}
		lc=${line#* }
		if [ -n "$GOT" ] && [ "$GOT" -ge "$TOTAL" ]; then
			DONE=$lc
			# A commit time before the storm ended cannot be: use now.
			awk -v a="$DONE" -v b="$ST1" 'BEGIN { exit !(a < b) }' && DONE=$(now)
			return 0
		fi
		awk -v t="$(now)" -v e="$end" 'BEGIN { exit !(t > e) }' && return 1
	done
}

# pid_wait_gone PID SECS: for a process that is not our child.
pid_wait_gone() {
	local _
	for _ in $(seq 1 $(($2 * 10))); do
		kill -0 "$1" 2>/dev/null || return 0
		sleep 0.1
	done
	return 1
}

# until_marker M LOG: R_STATUS[M] and R_DONE[M] by log_marker LOG, then
# cpu_stop M.
until_marker() {
	if log_marker "$2"; then
		R_STATUS[$1]=ok
		R_DONE[$1]=$(sub "$DONE" "$ST0")
	else
		R_STATUS[$1]="marker not seen in $WAIT_MAX s"
	fi
	cpu_stop "$1"
}

# until_stored M DB PID: the same by store_wait DB PID.
until_stored() {
	if store_wait "$2" "$3"; then
		R_STATUS[$1]=ok
		R_DONE[$1]=$(sub "$DONE" "$ST0")
	else
		R_STATUS[$1]="store held $(fmt_int "${GOT:-0}") of $(fmt_int "$TOTAL") after $WAIT_MAX s"
	fi
	cpu_stop "$1"
}

# log_nstorm LOG: the storm's SECCOMP records in auditd's LOG.
log_nstorm() { grep -c "^type=SECCOMP .* exe=\"$STORM_EXE\" .* syscall=$NR " "$1" || true; }

# storm_to_log M LOG: the storm with auditd alone (writing LOG) as the
# consumer, timed until_marker; its figures in R_*[M].
storm_to_log() {
	local l0 b0
	l0=$(kstat lost); b0=$(kstat backlog_wait_time_actual)
	cpu_start "auditd:$PGSC_AUDITD_PID"
	run_storm
	until_marker "$1" "$2"
	finish_mode "$1" "$l0" "$b0"
	R_N[$1]=$(log_nstorm "$2")
}

# store_figures M DB: R_N[M], R_GAPS[M] and R_REC[M] from pgsc's store DB.
store_figures() {
	R_N[$1]=$(store_nstorm "$2")
	R_GAPS[$1]=$(store_q "$2" "SELECT coalesce(sum(serial_gaps), 0) FROM rounds")
	R_REC[$1]=$(store_q "$2" "SELECT coalesce(sum(records), 0) FROM rounds")
}

# netlink_start OUT [ARG...]: pgsc-collect --source netlink into DB with
# ARGs (output in OUT), once it is the audit daemon and has opened its
# round; its pid in CP.
netlink_start() {
	local out=$1
	shift
	"$BINDIR/pgsc-collect" --db "$DB" --source netlink "$@" >"$out" 2>&1 &
	CP=$!
	PIDS_OURS+=("$CP")
	for _ in $(seq 1 100); do
		[ "$(kstat pid)" = "$CP" ] && break
		kill -0 "$CP" 2>/dev/null || break
		sleep 0.1
	done
	[ "$(kstat pid)" = "$CP" ] || fail "pgsc-collect --source netlink did not register as the audit daemon: $(tail -5 "$out")"
	store_wait_round "$DB" >/dev/null || fail "pgsc-collect --source netlink opened no round: $(tail -5 "$out")"
}

# CPU time of the consumers: cpu_start ROLE:PID... before the storm,
# cpu_stop M when its records are accounted for; R_CPU[M] = "role s ...".
TCK=$(getconf CLK_TCK 2>/dev/null || echo 100)
KAUDITD=$(pgrep -x kauditd 2>/dev/null | head -n 1)
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null || echo 0; }
CPU_WHO=()
declare -A CPU0
cpu_start() {
	local w
	CPU_WHO=("$@")
	[ -n "$KAUDITD" ] && CPU_WHO+=("kauditd:$KAUDITD")
	for w in "${CPU_WHO[@]}"; do CPU0[$w]=$(cpu_ticks "${w#*:}"); done
}
cpu_stop() {
	local w out=
	for w in "${CPU_WHO[@]}"; do
		out="$out${out:+, }${w%%:*} $(awk -v a="$(cpu_ticks "${w#*:}")" -v b="${CPU0[$w]}" -v h="$TCK" 'BEGIN { printf "%.2f", (a - b) / h }') s"
	done
	R_CPU[$1]=$out
}

# Results per mode m in a b c d: R_STORM[m] (storm s), R_DONE[m] (s from
# storm start until accounted for), R_LOST[m], R_BW[m], R_N[m] (count of
# nr 110 in the consumer), R_STATUS[m] (ok / text), R_GAPS[m].
# shellcheck disable=SC2034 # R_REC: recorded, not printed
declare -A R_STORM R_DONE R_LOST R_BW R_N R_STATUS R_GAPS R_REC R_CPU R_OVF

finish_mode() { # finish_MODE M LOST0 BW0: record the figures of a storm mode
	# shellcheck disable=SC2034 # recorded for a rerun's reading, not printed
	R_STORM[$1]=$(sub "$ST1" "$ST0")
	R_LOST[$1]=$(($(kstat lost) - $2))
	R_BW[$1]=$(($(kstat backlog_wait_time_actual) - $3))
}

settle() { sleep 1; } # let the previous consumer's exit settle

# ------------------------------------------------------------- part 1 --
LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)
T_P1=$(now)

# One function per mode m; each sets R_STATUS[m], R_DONE[m], R_STORM[m],
# R_LOST[m], R_BW[m], R_N[m], R_CPU[m] (and R_GAPS, R_REC for pgsc).

# (a) auditd alone, writing its log.
mode_a() {
	note "(a) auditd writing its log: storm of $(fmt_int "$TOTAL") records"
	audit_begin "$T/a/audit" || fail "could not start the private auditd"
	KB_LIMIT=$(kstat backlog_limit); KB_WAIT=$(kstat backlog_wait_time)
	storm_to_log a "$T/a/audit/audit.log"
	audit_end
	rm -rf "$T/a"
}

# (b0) auditd with a plugin that only reads its input (cat >/dev/null):
# the ceiling of auditd's plugin interface, whatever the plugin does.
# Timed like (a), until the marker is in the log; the plugin's own
# progress cannot be seen.
mode_b0() {
	note "(b0) auditd + no-op plugin (cat >/dev/null), format $PLUGIN_FORMAT, q_depth $QDEPTH"
	mkdir -p "$T/b0/audit/plugins.d"
	printf '#!/bin/sh\nexec cat >/dev/null\n' >"$T/b0/noop.sh"
	chmod 755 "$T/b0/noop.sh"
	cat >"$T/b0/audit/plugins.d/noop.conf" <<-EOF
		active = yes
		direction = out
		path = $T/b0/noop.sh
		type = always
		format = $PLUGIN_FORMAT
	EOF
	PGSC_AUDIT_Q_DEPTH=$QDEPTH audit_begin "$T/b0/audit" || fail "could not start the private auditd with the no-op plugin"
	storm_to_log b0 "$T/b0/audit/audit.log"
	R_OVF[b0]=$(grep -ci "queue.*full\|overflow" "$T/b0/audit/auditd.out" || true)
	audit_end
	rm -rf "$T/b0"
}

# (b) auditd + pgsc as its plugin.
mode_b() {
	note "(b) auditd + pgsc plugin (q_depth $QDEPTH)"
	DB=$T/b/store.db
	mkdir -p "$T/b/audit/plugins.d"
	cat >"$T/b/audit/plugins.d/pgsc.conf" <<-EOF
		active = yes
		direction = out
		path = $BINDIR/pgsc-collect
		type = always
		args = --db=$DB --source=plugin
		format = string
	EOF
	PGSC_AUDIT_Q_DEPTH=$QDEPTH audit_begin "$T/b/audit" || fail "could not start the private auditd with the pgsc plugin"
	PPID_B=$(store_wait_round "$DB") || fail "the pgsc plugin did not open its round in $DB (auditd: $(tail -5 "$T/b/audit/auditd.out"))"
	l0=$(kstat lost); b0=$(kstat backlog_wait_time_actual)
	cpu_start "auditd:$PGSC_AUDITD_PID" "pgsc:$PPID_B"
	run_storm
	until_stored b "$DB" "$PPID_B"
	finish_mode b "$l0" "$b0"
	R_OVF[b]=$(grep -ci "queue.*full\|overflow" "$T/b/audit/auditd.out" || true)
	audit_end
	pid_wait_gone "$PPID_B" 15 || note "warning: the pgsc plugin (pid $PPID_B) did not exit after auditd stopped"
	store_figures b "$DB"
	rm -rf "$T/b"
}

# (c) pgsc as the netlink daemon, no auditd.
mode_c() {
	local rc
	note "(c) pgsc netlink daemon"
	DB=$T/c/store.db
	mkdir -p "$T/c"
	netlink_start "$T/c/collect.out"
	KC_LIMIT=$(kstat backlog_limit); KC_WAIT=$(kstat backlog_wait_time)
	l0=$(kstat lost); b0=$(kstat backlog_wait_time_actual)
	cpu_start "pgsc:$CP"
	run_storm
	cpu_stop c # pgsc's drain after SIGTERM is not in it
	kill -TERM "$CP"
	wait "$CP"
	rc=$?
	DONE=$(now)
	finish_mode c "$l0" "$b0"
	if [ "$rc" = 0 ]; then
		R_STATUS[c]=ok
		R_DONE[c]=$(sub "$DONE" "$ST0")
	else
		R_STATUS[c]="pgsc-collect exited $rc: $(tail -c 300 "$T/c/collect.out" | tr '\n' ' ')"
	fi
	store_figures c "$DB"
	rm -rf "$T/c"
}

# (d) auditd writing its log + pgsc following the file.
mode_d() {
	note "(d) auditd + pgsc file: source"
	DB=$T/d/store.db
	mkdir -p "$T/d"
	audit_begin "$T/d/audit" || fail "could not start the private auditd"
	"$BINDIR/pgsc-collect" --db "$DB" --source "file:$T/d/audit/audit.log" >"$T/d/collect.out" 2>&1 &
	DP=$!
	PIDS_OURS+=("$DP")
	store_wait_round "$DB" >/dev/null || fail "pgsc-collect --source file: opened no round: $(tail -5 "$T/d/collect.out")"
	l0=$(kstat lost); b0=$(kstat backlog_wait_time_actual)
	cpu_start "auditd:$PGSC_AUDITD_PID" "pgsc:$DP"
	run_storm
	until_stored d "$DB" "$DP"
	finish_mode d "$l0" "$b0"
	kill -TERM "$DP"
	wait "$DP" || note "warning: pgsc-collect --source file: exited $?: $(tail -3 "$T/d/collect.out")"
	audit_end
	store_figures d "$DB"
	rm -rf "$T/d"
}

# Every mode REPS times, interleaved (a b0 b c d, a b0 b c d, ...): the
# machine's load drifts, and each mode should see the same drift.  Per
# repetition: RATES[m] gets its records/s (or "fail"), and the worst of
# lost, store count and gaps is kept.
declare -A RATES ALL_LOST ALL_BW ALL_N ALL_GAPS ALL_STATUS ALL_CPU ALL_OVF
for rep in $(seq 1 "$REPS"); do
	for m in $MODES; do
		R_STATUS[$m]=; R_DONE[$m]=; R_N[$m]=; R_GAPS[$m]=; R_OVF[$m]=
		note "repetition $rep of $REPS"
		"mode_$m"
		if [ "${R_STATUS[$m]}" = ok ]; then
			RATES[$m]="${RATES[$m]:-}$(awk -v n="$TOTAL" -v s="${R_DONE[$m]}" 'BEGIN { printf "%.0f", n / s }') "
		else
			RATES[$m]="${RATES[$m]:-}fail "
			ALL_STATUS[$m]="${ALL_STATUS[$m]:-}#$rep: ${R_STATUS[$m]}; "
		fi
		ALL_LOST[$m]=$((${ALL_LOST[$m]:-0} + R_LOST[$m]))
		ALL_BW[$m]="${ALL_BW[$m]:-}${R_BW[$m]} "
		ALL_N[$m]="${ALL_N[$m]:-}${R_N[$m]:-0} "
		ALL_GAPS[$m]="${ALL_GAPS[$m]:-}${R_GAPS[$m]:-0} "
		ALL_OVF[$m]=$((${ALL_OVF[$m]:-0} + ${R_OVF[$m]:-0}))
		ALL_CPU[$m]="${R_CPU[$m]}"
		settle
	done
done
T_P1END=$(now)

# ------------------------------------------------------------- part 2 --
declare -A P_TPS P_LOST P_BW P_REC P_STATUS P_INIT
if [ "$SKIP_PGB" != 1 ]; then
	# shellcheck source=../lib/pg.sh
	. "$SRCROOT/tests/lib/pg.sh"
	pg_exec_for_postgres "$BINDIR" "$T"
	C=$T/pg
	pg_bench_cluster "$C" 54372 tests/bench/bench-live.sh ||
		fail "initdb failed: $(tail -5 "$C/initdb.log")"
	pgb() { runuser -u postgres -- "$PGBIN/pgbench" -h "$C/sock" -p 54372 -U postgres "$@" postgres; }
	# pg_session M: start the server under the log-all filter, pgbench -i,
	# pgbench -c 4 -T, stop.  Sets P_TPS[M], P_INIT[M] (s of pgbench -i).
	pg_session() {
		local m=$1 t0 t1
		PGDATA_T=$C/data
		runuser -u postgres -- "$EXEC" --default log -- \
			"$PGBIN/pg_ctl" -D "$C/data" -l "$C/server-$m.log" -w -t 60 start \
			>"$C/pg_ctl.out" 2>&1 ||
			fail "PostgreSQL did not start under pgsc-exec: $(cat "$C/pg_ctl.out"; tail -5 "$C/server-$m.log" 2>/dev/null)"
		t0=$(now)
		pgb -i -s "$PGB_S" -q >"$C/pgbench-$m.out" 2>&1 || fail "pgbench -i failed: $(tail -5 "$C/pgbench-$m.out")"
		t1=$(now)
		P_INIT[$m]=$(sub "$t1" "$t0")
		pgb -c 4 -T "$PGB_T" >>"$C/pgbench-$m.out" 2>&1 || fail "pgbench -c 4 failed: $(tail -5 "$C/pgbench-$m.out")"
		P_TPS[$m]=$(sed -n 's/^tps = \([0-9.]*\) (without initial connection time).*/\1/p' "$C/pgbench-$m.out" | tail -n 1)
		[ -n "${P_TPS[$m]}" ] || fail "no tps line from pgbench: $(tail -5 "$C/pgbench-$m.out")"
		runuser -u postgres -- "$PGBIN/pg_ctl" -D "$C/data" -m fast -w -t 60 stop >/dev/null 2>&1 ||
			fail "pg_ctl stop failed"
		PGDATA_T=
	}

	note "pgbench (a): auditd writing its log, examples/pgsc.rules"
	audit_begin "$T/pa/audit" || fail "could not start the private auditd"
	audit_rules "$SRCROOT/examples/pgsc.rules" "$PGEXE" || fail "could not load examples/pgsc.rules"
	l0=$(kstat lost); b0=$(kstat backlog_wait_time_actual)
	pg_session a
	log_marker "$T/pa/audit/audit.log" && P_STATUS[a]=ok || P_STATUS[a]="marker not seen"
	P_LOST[a]=$(($(kstat lost) - l0)); P_BW[a]=$(($(kstat backlog_wait_time_actual) - b0))
	P_REC[a]=$(grep -c '^type=SECCOMP ' "$T/pa/audit/audit.log" || true)
	audit_end
	rm -f "$T/pa/audit/audit.log"*
	settle

	note "pgbench (c): pgsc netlink daemon --load-rules"
	DB=$T/pc/store.db
	mkdir -p "$T/pc"
	netlink_start "$T/pc/collect.out" --load-rules
	l0=$(kstat lost); b0=$(kstat backlog_wait_time_actual)
	pg_session c
	kill -TERM "$CP"
	wait "$CP"
	rc=$?
	[ "$rc" = 0 ] && P_STATUS[c]=ok || P_STATUS[c]="pgsc-collect exited $rc"
	P_LOST[c]=$(($(kstat lost) - l0)); P_BW[c]=$(($(kstat backlog_wait_time_actual) - b0))
	P_REC[c]=$(store_q "$DB" "SELECT coalesce(sum(records), 0) FROM rounds")
fi
T_END=$(now)
LOAD1=$(cut -d' ' -f1-3 /proc/loadavg)

# -------------------------------------------------------------- report --
secs() { awk -v s="$1" 'BEGIN { printf "%.2f s", s }'; }
row() { printf '  %-58s %22s  %-12s %s\n' "$@"; }
miss() { M=MISS; MISSES=$((MISSES + 1)); }
# each mode's name, and what its "done" means (UNTIL: the table's legend)
declare -A NAME UNTIL
NAME[a]="(a) auditd writing its log" UNTIL[a]="until the marker is in the log"
NAME[b0]="(b0) auditd + no-op plugin (cat >/dev/null), format $PLUGIN_FORMAT" UNTIL[b0]=${UNTIL[a]}
NAME[b]="(b) auditd + pgsc plugin" UNTIL[b]="until the store holds all"
NAME[c]="(c) pgsc netlink daemon (no auditd)" UNTIL[c]="SIGTERM at storm end, until pgsc exits"
# shellcheck disable=SC2034 # UNTIL: not printed yet
NAME[d]="(d) auditd log + pgsc file: tail" UNTIL[d]=${UNTIL[b]}
# stats "x y z": "median min max" of the numbers (fail entries skipped),
# or "" when there is none.
stats() { echo "$1" | tr ' ' '\n' | grep -E '^[0-9.]+$' | sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) exit; m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%s %s %s\n", m, v[1], v[NR] }'; }
# ratios "x1 x2 .." "y1 y2 ..": the per-repetition ratios x_i / y_i.
ratios() { awk -v x="$1" -v y="$2" 'BEGIN { n = split(x, a, " "); split(y, b, " "); for (i = 1; i <= n; i++) if (a[i] ~ /^[0-9.]+$/ && b[i] ~ /^[0-9.]+$/ && b[i] > 0) printf "%.3f ", a[i] / b[i]; print "" }'; }
spread() { # spread "median min max" FMT: "M [min .. max]"
	# shellcheck disable=SC2086 # "median min max", split
	set -- $1 "$2"
	# shellcheck disable=SC2059 # FMT is the format
	printf "$4 [$4 .. $4]" "$1" "$2" "$3"
}

echo
echo "pgsc live collector benchmark  ($(date -u +%FT%TZ), $(uname -r), $(nproc) CPUs)"
echo "  pgsc-collect: $BINDIR/pgsc-collect"
echo "  load average (1/5/15 min): $LOAD0 before, $LOAD1 after"
echo "  storm: $STORM $CALLS $PROCS = $(fmt_int $TOTAL) SECCOMP records of getppid (nr $NR) per mode, no audit rules"
echo "  each storm mode $REPS times, interleaved ($MODES, $MODES, ...); figures: median [min .. max]"
echo "  kernel: auditd.sh sets backlog_limit ${KB_LIMIT:-?}, backlog_wait_time ${KB_WAIT:-?}; pgsc netlink set ${KC_LIMIT:-?}, ${KC_WAIT:-?}"
echo "  auditd: private (tests/lib/auditd.sh), log_format ${PGSC_AUDIT_FORMAT:-ENRICHED}, flush INCREMENTAL_ASYNC; (b0), (b) q_depth $QDEPTH, write_logs = yes"
[ -z "$QDEPTH_NOTE" ] || echo "  NOTE: $QDEPTH_NOTE"
echo "  time: wall clock from the storm's start until its records are accounted for; records/s = $(fmt_int $TOTAL) / that time"
echo "  (b), (d): after the storm, SIGHUP (pgsc commits) + sqlite3 count of nr $NR every ~0.1 s; time = that commit"
echo
row "measure" "value" "target" "result"
row "-------" "-----" "------" "------"
echo " storm, $(fmt_int $TOTAL) records"
for m in $MODES; do
	echo "  ${NAME[$m]}"
	st=$(stats "${RATES[$m]}")
	if [ -n "$st" ]; then
		# shellcheck disable=SC2086
		set -- $st
		row "  sustained records/s, median [min .. max]" "$(fmt_int "$1") [$(fmt_int "$2") .. $(fmt_int "$3")]" "" ""
		row "  each repetition" "$(for x in ${RATES[$m]}; do case $x in fail) printf 'fail ' ;; *) printf '%s ' "$(fmt_int "$x")" ;; esac; done)" "" ""
	fi
	if [ -n "${ALL_STATUS[$m]:-}" ]; then
		miss; row "  accounted for" "${ALL_STATUS[$m]}" "all" "$M"
	fi
	judge "${ALL_LOST[$m]}" "==" 0
	row "  kernel lost delta, all repetitions" "$(fmt_int "${ALL_LOST[$m]}")" "= 0" "$M"
	row "  backlog_wait_time_actual delta, each" "${ALL_BW[$m]}" "" "(info)"
	printf '    CPU (user+sys) of the last repetition, storm start until accounted for: %s\n' "${ALL_CPU[$m]}"
	case $m in
	a | b0)
		row "  the storm's SECCOMP lines in the log, each" "${ALL_N[$m]}" "= $(fmt_int $TOTAL)" "(info)"
		;;
	*)
		bad_n=$(echo "${ALL_N[$m]}" | tr ' ' '\n' | grep -c -v -x -e "$TOTAL" -e '')
		judge "$bad_n" "==" 0
		row "  store: the storm's records, each (serial gaps ${ALL_GAPS[$m]% })" "${ALL_N[$m]}" "= $(fmt_int $TOTAL)" "$M"
		;;
	esac
	case $m in b0 | b) row "  auditd.out lines about queue overflow" "${ALL_OVF[$m]:-0}" "" "(info)" ;; esac
done
echo " ratios of sustained records/s: median of the per-repetition ratios [min .. max]"
for p in "b0 -" "c 1.0" "b 0.9" "d 0.9"; do
	# shellcheck disable=SC2086 # "mode target", split on purpose
	set -- $p
	case " $MODES " in *" $1 "*) ;; *) continue ;; esac
	st=$(stats "$(ratios "${RATES[$1]:-}" "${RATES[a]:-}")")
	if [ -n "$st" ]; then
		r=$(spread "$st" "%.2f")
		if [ "$2" = - ]; then
			row "($1)/(a)" "$r" "" "(info)"
		else
			judge "${st%% *}" ">=" "$2"
			row "($1)/(a)" "$r" ">= $2" "$M"
		fi
	elif [ "$2" != - ]; then
		miss; row "($1)/(a)" "n/a (a mode did not complete)" ">= $2" "$M"
	fi
done
if [ -n "$(stats "$(ratios "${RATES[b]:-}" "${RATES[b0]:-}")")" ]; then
	row "(b)/(b0): pgsc against the no-op plugin" "$(spread "$(stats "$(ratios "${RATES[b]}" "${RATES[b0]}")")" "%.2f")" "" "(info)"
fi
if [ "$SKIP_PGB" != 1 ]; then
	echo " pgbench -c 4 -T $PGB_T (scale $PGB_S), PostgreSQL 15 under pgsc-exec --default log, pgsc.rules"
	for m in a c; do
		echo "  ${NAME[$m]}"
		row "  TPS (without initial connection time)" "$(printf '%.1f' "${P_TPS[$m]}")" "" ""
		row "  pgbench -i -s $PGB_S" "$(secs "${P_INIT[$m]}")" "" "(info)"
		row "  SECCOMP records, whole session (${P_STATUS[$m]})" "$(fmt_int "${P_REC[$m]:-0}")" "" "(info)"
		judge "${P_LOST[$m]}" "==" 0
		row "  kernel lost delta" "$(fmt_int "${P_LOST[$m]}")" "= 0" "$M"
		row "  backlog_wait_time_actual delta" "$(fmt_int "${P_BW[$m]}")" "" "(info)"
	done
	r=$(awk -v x="${P_TPS[c]}" -v y="${P_TPS[a]}" 'BEGIN { printf "%.2f", x / y }')
	judge "$r" ">=" 1
	row "TPS (c)/(a)" "$r" ">= 1.00" "$M"
fi
echo
echo "  targets: $PASSES PASS, $MISSES MISS"
awk -v a="$T_LOCK" -v b="$T_LOCKED" -v c="$T_P1" -v d="$T_P1END" -v e="$T_END" -v s="$T_START" \
	'BEGIN { printf "  run time: %.0f s (%.0f s waiting for the audit lock, %.0f s storms, %.0f s pgbench)\n", e - s, b - a, d - c, e - d }'
exit 0
