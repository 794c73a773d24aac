#!/bin/bash
# SPDX-License-Identifier: PostgreSQL
# tests/bench/bench.sh BINDIR [WORKDIR] - pgsc's import benchmark.
#
# A program that prints figures, not a pass/fail test: it exits 0 whatever
# the figures are, and non-zero only when it could not run (a missing
# dependency, a failed recording, pgsc-collect failing).
#
# Inputs are REAL audit logs, recorded here with the real kernel: a private
# auditd (tests/lib/auditd.sh) with examples/pgsc.rules loaded, and a
# PostgreSQL 15 server started under "pgsc-exec --default log" running
# "pgbench -C -c 4".  Two logs are kept in WORKDIR (default
# /var/tmp/pgsc-bench) and reused by later runs when present and big enough:
#
#   real-100k.log   >= 110,000 SECCOMP records
#   bench-1m.log    >= 1,000,000 SECCOMP records: the same session recorded
#                   on for up to PGSC_BENCH_REC_MAX seconds of pgbench; if
#                   that falls short (a slow or busy machine), the real
#                   recording made so far - or real-100k.log when 1M was out
#                   of reach from the start - repeated, each copy with its
#                   timestamps and serials shifted (bench-1m.log.info says
#                   which; so does the output)
#
# Figures (warm page cache, wall clock from date +%s.%N):
#   pgsc-collect --import on a fresh store, the whole command including the
#   SQLite commit: best of 3, records/s, the user + system time of that
#   run (pgsc-collect reads and decodes on a second thread when the
#   machine has two CPUs, src/ahead.c), peak RSS (/usr/bin/time %M, the
#   highest of the 3 runs; target <= 12 MiB); the line-scan floor,
#   "LC_ALL=C wc -l" on the same file in the same run (best of 3), and the
#   ratio pgsc / wc -l (target <= 2.5x on the 1M log, issue 30);
#   "ausearch -m SECCOMP --raw -if" once (timeout 600 s); the
#   grep|grep -o|sort -u pipeline, best of 3, in the caller's locale with
#   LC_ALL unset (the main figure) and with LC_ALL=C.
#
# Environment knobs (all optional):
#   PGSC_BENCH_AUSEARCH_TIMEOUT  seconds for ausearch (600); 0 skips it
#   PGSC_BENCH_REC_MAX           max seconds of pgbench for the 1M log (180)
#   PGSC_BENCH_RERECORD=1        ignore the cached logs and record again
#   PGSC_PGBIN                   PostgreSQL 15 binaries (/usr/lib/postgresql/15/bin)

set -u
set -o pipefail
# shellcheck source=../lib/bench.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/bench.sh"

[ $# -ge 1 ] || fail "usage: $0 BINDIR [WORKDIR]"
[ -d "$1" ] || fail "BINDIR $1 is not a directory"
BINDIR=$(cd "$1" && pwd)
WORK=${2:-/var/tmp/pgsc-bench}
SRCROOT=$T_SRCROOT
PGBIN=${PGSC_PGBIN:-/usr/lib/postgresql/15/bin}
PGEXE=$PGBIN/postgres
AUS_TIMEOUT=${PGSC_BENCH_AUSEARCH_TIMEOUT:-600}
REC_MAX=${PGSC_BENCH_REC_MAX:-180}
MIN100=110000
MIN1M=1000000
RSS_MAX_KIB=$((12 * 1024)) # 12 MiB
WCL_MAX=2.5                # pgsc / LC_ALL=C wc -l, 1M log
T_START=$(now)

# ---------------------------------------------------------------- deps --
need_root "private auditd, seccomp records of user postgres"
if [ ! -x /usr/bin/time ]; then
	note "/usr/bin/time is missing; installing package 'time'"
	{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq time; } >&2 ||
		fail "could not install package 'time' (for /usr/bin/time)"
	[ -x /usr/bin/time ] || fail "/usr/bin/time is still missing"
fi
need_progs auditd auditctl ausearch awk sed grep sort head flock runuser mktemp timeout
need_exec "$BINDIR"/pgsc-{collect,report,exec}
need_file "$SRCROOT/tests/lib/auditd.sh" "$SRCROOT/examples/pgsc.rules"

mkdir -p "$WORK" || fail "cannot create WORKDIR $WORK"
WORK=$(cd "$WORK" && pwd)
LOG100=$WORK/real-100k.log
LOG1M=$WORK/bench-1m.log

# ------------------------------------------------------------- cleanup --
bench_init bench "$WORK"
chmod 755 "$T"
PGDATA_T=
# stop_all: the server and the private auditd of a recording cut short
stop_all() {
	[ -z "$PGDATA_T" ] || pg_stop_now "$PGDATA_T"
	if declare -F audit_end >/dev/null; then audit_end; fi
}
t_cleanup stop_all

count_seccomp() { LC_ALL=C grep -c '^type=SECCOMP ' "$1" 2>/dev/null || true; }
info_get() { [ -f "$1" ] && awk -F= -v k="$2" '$1 == k { sub(/^[^=]*=/, ""); print; exit }' "$1"; }

N100=0; N1M=0
if [ "${PGSC_BENCH_RERECORD:-0}" != 1 ]; then
	[ -f "$LOG100" ] && N100=$(count_seccomp "$LOG100")
	[ -f "$LOG1M" ] && N1M=$(count_seccomp "$LOG1M")
fi
NEED100=0; NEED1M=0
[ "$N100" -ge "$MIN100" ] || NEED100=1
[ "$N1M" -ge "$MIN1M" ] || NEED1M=1
# A synthesized 1M log is built from the 100k one: rebuild it if that changes.
[ "$NEED100" = 1 ] && [ "$(info_get "$LOG1M.info" kind)" = synthesized ] && NEED1M=1

# ----------------------------------------------------------- recording --
# One session: pgbench in short rounds until the log holds MIN100 records
# (snapshot -> real-100k.log), then on until MIN1M (snapshot -> bench-1m.log).
# A snapshot ends at an audit marker, so it holds everything queued before it.
record() {
	[ -x "$PGEXE" ] || fail "PostgreSQL 15 is missing ($PGEXE; Debian package postgresql-15)"
	for t in initdb pg_ctl pgbench; do
		[ -x "$PGBIN/$t" ] || fail "PostgreSQL 15 program $PGBIN/$t is missing"
	done
	id postgres >/dev/null 2>&1 || fail "there is no user 'postgres'"
	# shellcheck source=../lib/auditd.sh
	. "$SRCROOT/tests/lib/auditd.sh"

	# shellcheck source=../lib/pg.sh
	. "$SRCROOT/tests/lib/pg.sh"
	local EXEC C=$T/pg
	pg_exec_for_postgres "$BINDIR" "$T"
	PGDATA_T=$C/data
	pg_bench_cluster "$C" 54371 tests/bench/bench.sh ||
		fail "initdb failed: $(tail -5 "$C/initdb.log")"

	note "waiting for the audit lock and starting a private auditd"
	audit_begin "$T/audit" || fail "could not start the private auditd"
	audit_rules "$SRCROOT/examples/pgsc.rules" "$PGEXE" || fail "could not load examples/pgsc.rules"
	local ALOG=$T/audit/audit.log
	local lost0; lost0=$(auditctl -s | awk '$1 == "lost" { print $2 }')

	runuser -u postgres -- "$EXEC" --default log -- \
		"$PGBIN/pg_ctl" -D "$C/data" -l "$C/server.log" -w -t 60 start \
		>"$C/pg_ctl.out" 2>&1 ||
		fail "PostgreSQL did not start under pgsc-exec: $(cat "$C/pg_ctl.out"; tail -5 "$C/server.log" 2>/dev/null)"
	pgb() { runuser -u postgres -- "$PGBIN/pgbench" -h "$C/sock" -p 54371 -U postgres "$@" postgres; }
	pgb -i -s 1 -q >"$C/pgbench.out" 2>&1 || fail "pgbench -i failed: $(tail -5 "$C/pgbench.out")"

	snapshot() { # snapshot DST: the log up to a fresh marker record
		local tag="pgsc-bench-mark-$$-$RANDOM$RANDOM" L=
		auditctl -m "$tag" 2>/dev/null || fail "auditctl -m failed"
		for _ in $(seq 1 600); do
			L=$(LC_ALL=C grep -n -m1 -F "$tag" "$ALOG" | cut -d: -f1)
			[ -n "$L" ] && break
			sleep 0.1
		done
		[ -n "$L" ] || fail "the audit log did not catch up (marker not seen in 60 s)"
		head -n "$L" "$ALOG" >"$1.tmp" && mv "$1.tmp" "$1" || fail "could not write $1"
	}

	# Progress is counted on the bytes added since the last look, not by
	# re-reading a log of hundreds of MB on a machine that is recording.
	local off=0 n=0
	count_more() {
		local size add
		size=$(stat -c %s "$ALOG")
		add=$(tail -c +$((off + 1)) "$ALOG" | head -c $((size - off)) | LC_ALL=C grep -c '^type=SECCOMP ' || true)
		n=$((n + ${add:-0}))
		off=$size
	}
	# pgbench_until TARGET MAXSECS CHUNK: pgbench -C -c 4 in CHUNK-second
	# runs until the log holds TARGET records or MAXSECS of pgbench passed.
	local secs=0 t0 rate
	pgbench_until() {
		while [ "$n" -lt "$1" ] && [ "$secs" -lt "$2" ]; do
			pgb -C -c 4 -T "$3" >>"$C/pgbench.out" 2>&1 || fail "pgbench -C failed: $(tail -5 "$C/pgbench.out")"
			secs=$((secs + $3))
			count_more
		done
		rate=$(awk -v n="$n" -v t0="$t0" -v t1="$(now)" 'BEGIN { printf "%.0f", n / (t1 - t0) }')
		note "recording: $(fmt_int "$n") SECCOMP records after ${secs} s of pgbench (~$(fmt_int "$rate")/s)"
	}
	lost_now() { auditctl -s | awk -v l0="$lost0" '$1 == "lost" { print $2 - l0 }'; }

	t0=$(now)
	note "recording: pgbench -C -c 4 until $(fmt_int $MIN100) SECCOMP records"
	pgbench_until "$MIN100" 90 2
	[ "$n" -ge "$MIN100" ] || fail "recording failed: only $n SECCOMP records after $secs s of pgbench"
	if [ "$NEED100" = 1 ]; then
		snapshot "$LOG100"
		N100=$(count_seccomp "$LOG100")
		printf 'kind=recorded\ndate=%s\nrate=%s\nlost=%s\npgbench_s=%s\n' "$(date -u +%FT%TZ)" \
			"$rate" "$(lost_now)" "$secs" >"$LOG100.info"
	fi
	if [ "$NEED1M" = 1 ]; then
		# Go on only if the rate so far makes 1M reachable within REC_MAX s.
		local goal=$((MIN1M + MIN1M / 50)) need_s
		need_s=$(awk -v r="$rate" -v n="$goal" 'BEGIN { printf "%d", (r > 0 ? n / r : 1e9) + 1 }')
		if [ "$need_s" -le "$REC_MAX" ]; then
			note "recording: pgbench -C -c 4 until $(fmt_int $MIN1M) SECCOMP records (~${need_s} s, at most ${REC_MAX} s)"
			pgbench_until "$goal" "$REC_MAX" 5
		else
			note "recording: ~${need_s} s needed for 1M records (> PGSC_BENCH_REC_MAX=$REC_MAX); will synthesize"
		fi
	fi
	runuser -u postgres -- "$PGBIN/pg_ctl" -D "$C/data" -m fast -w -t 60 stop >/dev/null 2>&1 ||
		note "warning: pg_ctl stop failed"
	if [ "$NEED1M" = 1 ]; then
		if [ "$n" -ge "$MIN1M" ]; then
			snapshot "$LOG1M"
			N1M=$(count_seccomp "$LOG1M")
			printf 'kind=recorded\ndate=%s\nrate=%s\nlost=%s\npgbench_s=%s\n' "$(date -u +%FT%TZ)" \
				"$rate" "$(lost_now)" "$secs" >"$LOG1M.info"
			[ "$N1M" -ge "$MIN1M" ] && NEED1M=0
		elif [ "$n" -gt $((N100 * 2)) ]; then
			# Short of 1M: the longer real recording is a better base to
			# repeat than the 100k log.
			snapshot "$T/partial.log"
			SYNTH_BASE=$T/partial.log
			SYNTH_DESC="a real recording of $(fmt_int "$(count_seccomp "$T/partial.log")") records ($secs s of pgbench, not kept)"
		fi
	fi
	audit_end
	rm -rf "$C"
	PGDATA_T=
}

# synthesize SRC DST MIN DESC: copies of SRC one after the other, stopped
# at the end of the event in which DST reaches MIN records.  The first copy
# is SRC unchanged; copy k has every timestamp shifted by (k-1)*(span+1) s
# and every serial by (k-1)*(max serial+1), so no two copies share an event
# id.  Pids repeat from copy to copy.
synthesize() {
	local src=$1 dst=$2 min=$3 desc=$4 n copies
	local -a files=("$src")
	n=$(count_seccomp "$src")
	copies=$(((min + n - 1) / n))
	for _ in $(seq 1 "$copies"); do files+=("$src"); done
	LC_ALL=C awk -v min="$min" -v info="$dst.info.tmp" '
		function parse(line) {
			if (!match(line, /msg=audit\([0-9]+\.[0-9]+:[0-9]+\)/)) return 0
			id = substr(line, RSTART + 10, RLENGTH - 11)
			split(id, p, /[.:]/); sec = p[1] + 0; ms = p[2]; ser = p[3] + 0
			return 1
		}
		NR == FNR {
			if (parse($0)) {
				if (tmin == "" || sec < tmin) tmin = sec
				if (sec > tmax) tmax = sec
				if (ser > smax) smax = ser
			}
			next
		}
		FNR == 1 { k++ }
		{
			have = parse($0)
			if (stop != "" && have && k ":" id != stop) exit
			if (k == 1 || !have) print
			else {
				ns = sprintf("msg=audit(%d.%s:%d)", sec + (k - 1) * (tmax - tmin + 1), ms, ser + (k - 1) * (smax + 1))
				print substr($0, 1, RSTART - 1) ns substr($0, RSTART + RLENGTH)
			}
			if (/^type=SECCOMP / && ++cnt >= min && stop == "" && have) stop = k ":" id
		}
		END { printf "copies=%d\n", k > info }' "${files[@]}" >"$dst.tmp" &&
		mv "$dst.tmp" "$dst" || fail "could not write $dst"
	{
		printf 'kind=synthesized\ndate=%s\nbase=%s\nbase_records=%s\n' "$(date -u +%FT%TZ)" "$desc" "$n"
		cat "$dst.info.tmp"
	} >"$dst.info"
	rm -f "$dst.info.tmp"
}

SYNTH_BASE=$LOG100
SYNTH_DESC="real-100k.log"
if [ "$NEED100" = 1 ] || [ "$NEED1M" = 1 ]; then
	record
fi
if [ "$NEED1M" = 1 ]; then
	note "building the 1M log from copies of $SYNTH_DESC (timestamps and serials shifted)"
	synthesize "$SYNTH_BASE" "$LOG1M" "$MIN1M" "$SYNTH_DESC"
	N1M=$(count_seccomp "$LOG1M")
fi
[ "$N100" -ge "$MIN100" ] || fail "$LOG100 has only $N100 SECCOMP records"
[ "$N1M" -ge "$MIN1M" ] || fail "$LOG1M has only $N1M SECCOMP records"
T_REC=$(now)

# ---------------------------------------------------------- measuring --
# pgsc_run LOG: one pgsc-collect --import on a fresh store; sets RUN_WALL,
# RUN_RSS (KiB), RUN_CPU (user + system seconds: the import reads on a
# second thread, src/ahead.c, so it can exceed the wall time), RUN_RECS
# (SECCOMP records in pgsc's summary line).
pgsc_run() {
	local log=$1 db=$T/store.db t0 t1 rc
	rm -f "$db" "$db-wal" "$db-shm" "$db-journal"
	t0=$(now)
	/usr/bin/time -f '%e %M %U %S' -o "$T/time.out" "$BINDIR/pgsc-collect" --db "$db" --import "$log" \
		>"$T/collect.out" 2>"$T/collect.err"
	rc=$?
	t1=$(now)
	[ "$rc" = 0 ] || fail "pgsc-collect --import $log failed (exit $rc): $(tail -5 "$T/collect.err")"
	RUN_WALL=$(sub "$t1" "$t0")
	RUN_RSS=$(awk 'END { print $2 }' "$T/time.out")
	RUN_CPU=$(awk 'END { print $3 + $4 }' "$T/time.out")
	RUN_RECS=$(sed -n 's/.*round [0-9]*: \([0-9]*\) SECCOMP records.*/\1/p' "$T/collect.err" | tail -n 1)
	[ -n "$RUN_RECS" ] || fail "no 'round N: X SECCOMP records' line from pgsc-collect: $(cat "$T/collect.err")"
}
# pgsc_best LOG: best of 3; sets BEST_WALL, BEST_CPU (of that run), MAX_RSS,
# RECS, RUNS (text).
pgsc_best() {
	local _
	BEST_WALL=; MAX_RSS=0; RUNS=
	for _ in 1 2 3; do
		pgsc_run "$1"
		RUNS="$RUNS $(printf '%.3f' "$RUN_WALL")s/$(awk -v k="$RUN_RSS" 'BEGIN { printf "%.1f", k / 1024 }')MiB/$(printf '%.2f' "$RUN_CPU")s"
		if [ -z "$BEST_WALL" ] || awk -v a="$RUN_WALL" -v b="$BEST_WALL" 'BEGIN { exit !(a < b) }'; then
			BEST_WALL=$RUN_WALL
			BEST_CPU=$RUN_CPU
		fi
		[ "$RUN_RSS" -gt "$MAX_RSS" ] && MAX_RSS=$RUN_RSS
	done
	RECS=$RUN_RECS
	# The store must be usable: the report of the last run lists syscalls.
	"$BINDIR/pgsc-report" --db "$T/store.db" --format=guc >"$T/report.out" 2>"$T/report.err" ||
		fail "pgsc-report on the store of $1 failed: $(tail -3 "$T/report.err")"
	REPORT_N=$(awk -F"'" '/^global_syscall_allow/ { print split($2, a, ",") }' "$T/report.out")
	rm -f "$T/store.db" "$T/store.db-wal" "$T/store.db-shm" "$T/store.db-journal"
}
# wcl_best LOG: best of 3 of "LC_ALL=C wc -l LOG", the floor of any reader
# of the file's lines, timed like pgsc_run.  Sets WCL_BEST.
wcl_best() {
	local t0 t1 t
	WCL_BEST=
	for _ in 1 2 3; do
		t0=$(now)
		LC_ALL=C wc -l "$1" >/dev/null || fail "wc -l $1 failed"
		t1=$(now)
		t=$(sub "$t1" "$t0")
		[ -z "$WCL_BEST" ] || awk -v a="$t" -v b="$WCL_BEST" 'BEGIN { exit !(a < b) }' && WCL_BEST=$t
	done
}
# grep_best LOG MODE: best of 3 of the grep pipeline; MODE=default runs with
# LC_ALL unset (the caller's LANG), MODE=C with LC_ALL=C.  Sets GREP_BEST.
grep_best() {
	local log=$1 mode=$2 t
	GREP_BEST=
	for _ in 1 2 3; do
		t=$(
			if [ "$mode" = C ]; then export LC_ALL=C; else unset LC_ALL; fi
			t0=$(date +%s.%N)
			grep type=SECCOMP "$log" | grep -o ' syscall=[0-9]*' | sort -u >/dev/null
			t1=$(date +%s.%N)
			awk -v a="$t1" -v b="$t0" 'BEGIN { printf "%.6f", a - b }'
		)
		[ -z "$GREP_BEST" ] || awk -v a="$t" -v b="$GREP_BEST" 'BEGIN { exit !(a < b) }' && GREP_BEST=$t
	done
}

note "measuring (warm page cache)"
LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)
cat "$LOG100" "$LOG1M" >/dev/null

wcl_best "$LOG100"; W100=$WCL_BEST
pgsc_best "$LOG100"
P100_WALL=$BEST_WALL; P100_CPU=$BEST_CPU; P100_RSS=$MAX_RSS; P100_RECS=$RECS; P100_RUNS=$RUNS; P100_REPN=$REPORT_N
grep_best "$LOG100" default; G100_DEF=$GREP_BEST
grep_best "$LOG100" C; G100_C=$GREP_BEST
wcl_best "$LOG1M"; W1M=$WCL_BEST
pgsc_best "$LOG1M"
P1M_WALL=$BEST_WALL; P1M_CPU=$BEST_CPU; P1M_RSS=$MAX_RSS; P1M_RECS=$RECS; P1M_RUNS=$RUNS; P1M_REPN=$REPORT_N

AUS_STATUS=skipped; AUS_WALL=
if [ "$AUS_TIMEOUT" != 0 ]; then
	note "running ausearch once on the 100k log (timeout ${AUS_TIMEOUT} s)"
	t0=$(now)
	timeout "$AUS_TIMEOUT" ausearch -m SECCOMP --raw -if "$LOG100" >"$T/ausearch.out" 2>"$T/ausearch.err"
	rc=$?
	t1=$(now)
	AUS_WALL=$(sub "$t1" "$t0")
	AUS_LINES=$(LC_ALL=C grep -c '^type=SECCOMP ' "$T/ausearch.out")
	rm -f "$T/ausearch.out"
	case $rc in
	0) AUS_STATUS=ok ;;
	124) AUS_STATUS=timeout ;;
	*) AUS_STATUS="failed (exit $rc: $(head -c 200 "$T/ausearch.err"))" ;;
	esac
fi
T_END=$(now)
LOAD1=$(cut -d' ' -f1-3 /proc/loadavg)

# -------------------------------------------------------------- report --
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { r = a / b; printf (r >= 100 ? "%.0fx" : "%.1fx"), r }'; }
secs() { awk -v s="$1" 'BEGIN { printf "%.3f s", s }'; }
mib() { awk -v k="$1" 'BEGIN { printf "%.1f MiB", k / 1024 }'; }
describe() { # describe LOG N
	local info=$1.info kind
	kind=$(info_get "$info" kind)
	case $kind in
	recorded) echo "real recording ($(info_get "$info" date), ~$(fmt_int "$(info_get "$info" rate)") rec/s, kernel lost $(info_get "$info" lost))" ;;
	synthesized) echo "SYNTHESIZED ($(info_get "$info" date)): $(info_get "$info" base) repeated ($(info_get "$info" copies) copies, the last one partial), timestamps and serials shifted per copy, pids repeat" ;;
	*) echo "origin unknown (no $info)" ;;
	esac
}
# density LOG: the log's time span and SECCOMP records per second of log
# time.  auparse keeps standalone records open for end_of_event_timeout
# seconds of log time, so ausearch's cost grows with this density.
density() {
	LC_ALL=C awk '/^type=SECCOMP / && match($0, /msg=audit\([0-9]+\.[0-9]+:/) {
			t = substr($0, RSTART + 10, RLENGTH - 11) + 0; n++
			if (n == 1 || t < a) a = t
			if (t > b) b = t
		}
		END { printf "log time span %.0f s, ~%s SECCOMP records per second of log time", b - a, (b > a ? sprintf("%.0f", n / (b - a)) : "?") }' "$1"
}
row() { printf '  %-54s %16s  %-10s %s\n' "$@"; }

echo
echo "pgsc import benchmark  ($(date -u +%FT%TZ), $(uname -r), $(nproc) CPUs)"
echo "  pgsc-collect: $BINDIR/pgsc-collect"
echo "  load average (1/5/15 min): $LOAD0 before measuring, $LOAD1 after"
echo "  100k log: $LOG100"
echo "            $(fmt_int "$N100") SECCOMP records, $(fmt_int "$(wc -l <"$LOG100")") lines, $(du -m "$LOG100" | cut -f1) MB; $(describe "$LOG100")"
echo "            $(density "$LOG100")"
echo "  1M log:   $LOG1M"
echo "            $(fmt_int "$N1M") SECCOMP records, $(fmt_int "$(wc -l <"$LOG1M")") lines, $(du -m "$LOG1M" | cut -f1) MB; $(describe "$LOG1M")"
echo "            $(density "$LOG1M")"
echo "  timings: wall clock, warm page cache; pgsc = the whole pgsc-collect --import command"
echo "  (exec to exit, SQLite commit included) on a fresh store, best of 3; RSS = highest of the 3"
echo
row "measure" "value" "target" "result"
row "-------" "-----" "------" "------"
echo " 100k log"
row "pgsc-collect --import wall (best of 3)" "$(secs "$P100_WALL")" "" ""
row "pgsc user + system time (that run)" "$(secs "$P100_CPU")" "" "(info)"
row "pgsc records/s" "$(rate "$P100_RECS" "$P100_WALL")/s" "" ""
judge "$P100_RSS" "<=" "$RSS_MAX_KIB"
row "pgsc peak RSS" "$(mib "$P100_RSS")" "<= 12 MiB" "$M"
row "LC_ALL=C wc -l (best of 3)" "$(secs "$W100")" "" ""
row "ratio pgsc / wc -l" "$(ratio "$P100_WALL" "$W100")" "" "(info)"
case $AUS_STATUS in
ok)
	row "ausearch -m SECCOMP --raw -if (1 run)" "$(secs "$AUS_WALL")" "" ""
	judge "$(awk -v a="$AUS_WALL" -v b="$P100_WALL" 'BEGIN { print a / b }')" ">=" 150
	row "ratio ausearch / pgsc" "$(ratio "$AUS_WALL" "$P100_WALL")" ">= 150x" "$M"
	;;
timeout)
	row "ausearch -m SECCOMP --raw -if (1 run)" ">= $AUS_TIMEOUT s" "" "(timeout)"
	judge "$(awk -v a="$AUS_TIMEOUT" -v b="$P100_WALL" 'BEGIN { print a / b }')" ">=" 150
	row "ratio ausearch / pgsc" ">= $(ratio "$AUS_TIMEOUT" "$P100_WALL")" ">= 150x" "$M"
	;;
skipped)
	row "ausearch -m SECCOMP --raw -if" "skipped" ">= 150x" "SKIP" ;;
*)
	row "ausearch -m SECCOMP --raw -if" "$AUS_STATUS" ">= 150x" "SKIP" ;;
esac
row "grep pipeline, LC_ALL unset (LANG=${LANG:-unset}), best of 3" "$(secs "$G100_DEF")" "" ""
judge "$(awk -v a="$G100_DEF" -v b="$P100_WALL" 'BEGIN { print a / b }')" ">=" 2
row "ratio grep pipeline / pgsc" "$(ratio "$G100_DEF" "$P100_WALL")" ">= 2x" "$M"
row "grep pipeline, LC_ALL=C, best of 3" "$(secs "$G100_C")" "" "(info)"
row "ratio grep pipeline LC_ALL=C / pgsc" "$(ratio "$G100_C" "$P100_WALL")" "" "(info)"
echo " 1M log"
row "pgsc-collect --import wall (best of 3)" "$(secs "$P1M_WALL")" "" ""
row "pgsc user + system time (that run)" "$(secs "$P1M_CPU")" "" "(info)"
row "pgsc records/s" "$(rate "$P1M_RECS" "$P1M_WALL")/s" "" ""
judge "$P1M_RSS" "<=" "$RSS_MAX_KIB"
row "pgsc peak RSS" "$(mib "$P1M_RSS")" "<= 12 MiB" "$M"
row "LC_ALL=C wc -l (best of 3)" "$(secs "$W1M")" "" ""
judge "$(awk -v a="$P1M_WALL" -v b="$W1M" 'BEGIN { print a / b }')" "<=" "$WCL_MAX"
row "ratio pgsc / wc -l" "$(ratio "$P1M_WALL" "$W1M")" "<= ${WCL_MAX}x" "$M"
echo
echo "  targets: $PASSES PASS, $MISSES MISS"
echo "  pgsc runs (wall/RSS/user+system): 100k:$P100_RUNS; 1M:$P1M_RUNS"
echo "  pgsc counted $(fmt_int "$P100_RECS") / $(fmt_int "$P1M_RECS") SECCOMP records (file: $(fmt_int "$N100") / $(fmt_int "$N1M")); global_syscall_allow lists $P100_REPN / $P1M_REPN syscalls"
[ "$P100_RECS" = "$N100" ] && [ "$P1M_RECS" = "$N1M" ] ||
	echo "  NOTE: pgsc's record count differs from the SECCOMP lines in the file"
[ "$AUS_STATUS" = ok ] && [ "$AUS_LINES" != "$N100" ] &&
	echo "  NOTE: ausearch printed $(fmt_int "$AUS_LINES") SECCOMP records of $(fmt_int "$N100")"
awk -v a="$T_START" -v b="$T_REC" -v c="$T_END" -v aus="${AUS_WALL:-0}" \
	'BEGIN { printf "  run time: %.0f s preparing logs, %.0f s measuring (%.0f s of it ausearch)\n", b - a, c - b, aus }'
exit 0
