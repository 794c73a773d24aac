#!/bin/bash
# SPDX-License-Identifier: PostgreSQL
# tests/bench/world-cost.sh - what pgsc costs on PostgreSQL's test world.
#
#   world-cost.sh --from ITDIR
#       Figures of a finished "pgsc-iterate --steps ... --baseline" work
#       directory (pgsc-check-world full keeps it in DIR/it).
#   world-cost.sh BINDIR [WORKDIR] [--suites LIST] [--reps N] [--fair]
#       Run it: a cluster in WORKDIR (default /var/tmp/pgsc-world-bench),
#       pgsc-iterate over netlink with one step per suite and --baseline,
#       then N-1 more "--proof-only --baseline" passes (default N=2).
#       LIST defaults to the CI subset of tests/world/world.sh.
#       With --fair, after the converging run: N passes (default 3) of
#       five configurations in alternation, the order turned by one each
#       pass, the workload timed alone in each (see fair() below):
#         (a)  no filter;
#         (a') the module at log with empty lists, auditd ALONE writing
#              the records (tests/bench/auditd-collect.sh: a private
#              auditd with pgsc-collect's own rules; pgsc imports the log
#              only after the workload);
#         (b)  the same with pgsc-collect over netlink (round 1);
#         (c') error with the converged lists, NOT collected (pgsc-iterate
#              --bare): what a production server under the lists pays;
#         (c)  error with the converged lists, collected: (c') plus the
#              audit rules of the collection, which slow every syscall.
#       (a), (c') and (c) of a step run back to back.  It prints (b)/(a'),
#       pgsc's own cost, (a')/(a), the kernel's and auditd's, (c')/(a),
#       enforcing alone, and (c)/(a), each as the mean of the passes'
#       ratios with a 95% confidence interval (Student's t).
#
# A program that prints figures, not a test: it exits 0 whatever they are,
# 2 when it could not run.  Per step, wall time of the workload alone
# (pgsc-check-world run, from the server's start to its stop excluded):
#   (a) no filter: the baseline step, pgsc.enabled = off;
#   (b) round 1: the module in log mode with empty lists (every syscall of
#       every server process logged), pgsc-collect over netlink;
#   (c) the proof: defaults error with the converged lists, collected.
# (a) and (c) of a step run back to back (pgsc-iterate --baseline runs the
# baseline step right before the proof step), so load from other users of
# the machine hits both alike; with --reps the spread of (a) and (c) over
# the passes says how noisy the figures are.  Also: SECCOMP records and
# records/s of round 1, and the collector's peak RSS (/usr/bin/time).
# Targets (docs/check-world.md): (b)/(a) <= 1.5, (c)/(a) <= 1.05; with
# --fair (issue 30): (b)/(a') <= 1.05, (c')/(a) and (c)/(a) <= 1.05.
set -euo pipefail
export LC_ALL=C
# shellcheck source=../lib/bench.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/bench.sh"
t_traps world-cost
SRCROOT=$T_SRCROOT
DEFSTEPS=regress:test_setup+boolean+int4+text+copydml+insert,isolation:deadlock-simple+eval-plan-qual+lock-update-delete+insert-conflict-do-update,contrib/postgres_fdw,src/test/recovery:001_stream_rep,src/test/subscription:001_rep_changes

# sumf FILE...: the sum of the numbers in those of the FILEs that exist
# (pgsc-iterate's .secs files: seconds with three decimals), 0 if none.
sumf() { { cat "$@" 2>/dev/null || true; } | awk '{ s += $1 } END { printf "%.3f\n", s + 0 }'; }

# figures ITDIR [EXTRA_ITDIR...]: the table.  (a) and (c) are summed over
# every ITDIR given (the first one's log round 1 gives (b)).
figures() {
	local it=$1
	shift
	[ -f "$it/status-1" ] || fail "$it/status-1 not found: not a pgsc-iterate work directory, or round 1 did not finish"
	local tags
	# shellcheck disable=SC2012 # pgsc-iterate's own file names
	tags=$(cd "$it" && ls -1 proof-1-*.secs 2>/dev/null | sed 's/^proof-1-//; s/\.secs$//' || true)
	[ -n "$tags" ] || fail "no proof-1-*.secs in $it: the proof did not run"
	printf '%-40s %8s %8s %8s %7s %7s %10s %9s %8s\n' step "(a) s" "(b) s" "(c) s" "b/a" "c/a" records "rec/s" "RSS MiB"
	local t a b c sa=0 sb=0 sc=0 rec rps rss maxrss=0 srec=0 d fa fc
	for t in $tags; do
		fa=() fc=()
		for d in "$it" "$@"; do
			fa+=("$d/baseline-1-$t.secs") fc+=("$d/proof-1-$t.secs")
		done
		a=$(sumf "${fa[@]}") c=$(sumf "${fc[@]}") b=$(sumf "$it/log-1-$t.secs")
		# round 1 of this step in the status table: its records and rate.
		read -r rec rps < <(awk -v t="$t" 'NR == 1 { c = index($0, "label") }
			$1 ~ /^[0-9]+$/ && c > 0 { l = substr($0, c); sub(/^round 1: /, "", l); gsub(/[\/:+]/, "_", l)
				if (substr($0, c, 9) == "round 1: " && l == t) { print $5, $6; exit } }' "$it/status-1") || true
		rss=$(awk 'NF == 2 && $2 ~ /^[0-9]+$/ { print int($2 / 1024) }' "$it/time-log-1-$t" 2>/dev/null | tail -n 1)
		[ -z "$rss" ] || [ "$rss" -le "$maxrss" ] || maxrss=$rss
		sa=$(addf "$sa" "$a") sb=$(addf "$sb" "$b") sc=$(addf "$sc" "$c") srec=$((srec + ${rec:-0}))
		printf '%-40.40s %8.1f %8.1f %8.1f %7s %7s %10s %9s %8s\n' "$t" "$a" "$b" "$c" \
			"$(ratio "$b" "$a" $((1 + $#)))" "$(ratio "$c" "$a" 1)" "${rec:--}" "${rps:--}" "${rss:--}"
	done
	printf '%-40s %8.1f %8.1f %8.1f %7s %7s %10s %9s %8s\n' TOTAL "$sa" "$sb" "$sc" \
		"$(ratio "$sb" "$sa" $((1 + $#)))" "$(ratio "$sc" "$sa" 1)" "$srec" \
		"$(bench_div "$srec" "$sb" %.0f)" "$maxrss"
	echo
	echo "(a), (c): summed over $((1 + $#)) pass(es); (b): round 1 only, so b/a compares one (b) with the mean (a)."
	echo "targets: (b)/(a) <= 1.5, (c)/(a) <= 1.05"
	if [ $# -gt 0 ]; then
		echo "spread over the passes (TOTAL of each):"
		for d in "$it" "$@"; do
			a=$(sumf "$d"/baseline-1-*.secs) c=$(sumf "$d"/proof-1-*.secs)
			echo "  $d: (a) $a s, (c) $c s, c/a $(ratio "$c" "$a" 1)"
		done
	fi
}

# secs DIR PREFIX: the workload seconds of every step of a pgsc-iterate
# work directory DIR, phase PREFIX (baseline-1, proof-1, log-1), summed.
secs() { sumf "$1"/"$2"-*.secs; }

# addf X Y: X + Y, three decimals.
addf() { awk -v x="$1" -v y="$2" 'BEGIN { printf "%.3f\n", x + y }'; }

# fair: the configurations in alternation, REPS passes (--fair).
fair() {
	local r k cfg order=(ac b ap) abin=$WD/abin rc
	mkdir -p "$abin"
	ln -sf "$BINDIR/pgsc-report" "$abin/pgsc-report"
	printf '#!/bin/sh\nPGSC_REAL_COLLECT=%s exec bash %s "$@"\n' "$BINDIR/pgsc-collect" \
		"$SRCROOT/tests/bench/auditd-collect.sh" >"$abin/pgsc-collect"
	chmod 755 "$abin/pgsc-collect"
	for ((r = 1; r <= REPS; r++)); do
		for ((k = 0; k < 3; k++)); do
			cfg=${order[$(((k + r - 1) % 3))]}
			rc=0
			case $cfg in
			ac) "$ITER" --datadir "$DATA" --bindir "$BINDIR" --workdir "$WD/ac$r" --db "$WD/lists.db" \
				--source netlink --proof-only --steps "$STEPS" --baseline --bare --server-match "$WD/c/data" \
				-- "$WORLD" run >"$WD/ac$r.out" 2>&1 || rc=$? ;;
			b) "$ITER" --datadir "$DATA" --bindir "$BINDIR" --workdir "$WD/b$r" --db "$WD/b$r.db" \
				--source netlink --max-rounds 1 --no-proof --steps "$STEPS" --server-match "$WD/c/data" \
				-- "$WORLD" run >"$WD/b$r.out" 2>&1 || rc=$? ;;
			ap) "$ITER" --datadir "$DATA" --bindir "$abin" --workdir "$WD/ap$r" --db "$WD/ap$r.db" \
				--source netlink --max-rounds 1 --no-proof --steps "$STEPS" --server-match "$WD/c/data" \
				-- "$WORLD" run >"$WD/ap$r.out" 2>&1 || rc=$? ;;
			esac
			echo "world-cost: pass $r: $cfg (pgsc-iterate exit $rc)"
		done
	done
	echo
	printf '%-5s %8s %8s %8s %8s %8s %8s %8s %8s %8s %10s %10s\n' pass "(a) s" "(a') s" "(b) s" "(c') s" "(c) s" \
		"b/a'" "a'/a" "c'/a" "c/a" "(a') rec" "(b) rec"
	local a ap b c cb recap recb
	for ((r = 1; r <= REPS; r++)); do
		a=$(secs "$WD/ac$r" baseline-1) c=$(secs "$WD/ac$r" proof-1) cb=$(secs "$WD/ac$r" bare-1)
		b=$(secs "$WD/b$r" log-1) ap=$(secs "$WD/ap$r" log-1)
		recap=$(sqlite3 "$WD/ap$r.db" "SELECT coalesce(sum(records), 0) FROM rounds" 2>/dev/null || echo -)
		recb=$(sqlite3 "$WD/b$r.db" "SELECT coalesce(sum(records), 0) FROM rounds" 2>/dev/null || echo -)
		printf '%-5s %8.1f %8.1f %8.1f %8.1f %8.1f %8s %8s %8s %8s %10s %10s\n' "$r" "$a" "$ap" "$b" "$cb" "$c" \
			"$(bench_div "$b" "$ap" %.3f)" "$(bench_div "$ap" "$a" %.3f)" "$(bench_div "$cb" "$a" %.3f)" \
			"$(bench_div "$c" "$a" %.3f)" "$recap" "$recb"
	done | tee "$WD/fair.txt"
	# the mean of each ratio over the passes, with a 95% interval
	awk -v n="$REPS" 'BEGIN { split("12.706 4.303 3.182 2.776 2.571 2.447 2.365 2.306", t, " ") }
		$1 ~ /^[0-9]+$/ { for (k = 7; k <= 10; k++) { x[k] += $k; xx[k] += $k * $k } }
		END {
			split("(b)/(a'"'"') pgsc|(a'"'"')/(a) kernel+auditd|(c'"'"')/(a) enforcing alone|(c)/(a) enforcing, collected", name, "|")
			split("1.05|-|1.05|1.05", target, "|")
			for (k = 7; k <= 10; k++) {
				m = x[k] / n; v = n > 1 ? (xx[k] - n * m * m) / (n - 1) : 0; if (v < 0) v = 0
				h = n > 1 ? t[n - 1] * sqrt(v / n) : 0
				line = sprintf("%-32s mean %.3f, 95%% interval %.3f to %.3f (%d passes)", name[k - 6], m, m - h, m + h, n)
				if (target[k - 6] != "-")
					line = line sprintf("; target <= %s: %s", target[k - 6],
						m + h <= target[k - 6] ? "PASS" : (m - h > target[k - 6] ? "FAIL" : "not decided by these passes"))
				print line
			}
		}' "$WD/fair.txt"
}

# ratio X Y K: X*K/Y with two decimals ("-" if Y is 0).
ratio() { bench_div "$(awk -v x="${1:-0}" -v k="${3:-1}" 'BEGIN { print x * k }')" "$2" %.2f; }

if [ "${1:-}" = --from ]; then
	[ $# -ge 2 ] || fail "usage: world-cost.sh --from ITDIR [MORE_ITDIRS...]"
	shift
	figures "$@"
	exit 0
fi

[ $# -ge 1 ] && [ -d "$1" ] || fail "usage: world-cost.sh BINDIR [WORKDIR] [--suites LIST] [--reps N] | --from ITDIR"
BINDIR=$(cd "$1" && pwd)
shift
WD=/var/tmp/pgsc-world-bench
if [ $# -gt 0 ] && [ "${1#--}" = "$1" ]; then WD=$1; shift; fi
STEPS=$DEFSTEPS REPS='' FAIR=0
while [ $# -gt 0 ]; do
	case $1 in
	--suites) STEPS=$2; shift 2 ;;
	--reps) REPS=$2; shift 2 ;;
	--fair) FAIR=1; shift ;;
	*) fail "unknown option '$1'" ;;
	esac
done
[ -n "$REPS" ] || REPS=$((FAIR ? 3 : 2))
[[ "$REPS" =~ ^[1-9]$ ]] || fail "--reps must be 1-9"
need_root
WORLD=$SRCROOT/tools/pgsc-check-world ITER=$SRCROOT/tools/pgsc-iterate
"$WORLD" prepare >/dev/null || fail "pgsc-check-world prepare failed"
STEPS=$("$WORLD" suites "$STEPS")
rm -rf "$WD"
mkdir -p "$WD"
DATA=$("$WORLD" cluster "$WD/c" --port 54474) || fail "pgsc-check-world cluster failed"
echo "world-cost: steps $STEPS; work directory $WD"
rc=0
"$ITER" --datadir "$DATA" --bindir "$BINDIR" --workdir "$WD/it" --db "$WD/lists.db" --source netlink \
	--max-rounds 5 --steps "$STEPS" --baseline --server-match "$WD/c/data" -- "$WORLD" run >"$WD/iterate.out" 2>&1 || rc=$?
grep -E '^pgsc-iterate: (round|proof|converged|PROOF)' "$WD/iterate.out" || true
[ "$rc" = 0 ] || echo "world-cost: pgsc-iterate exited $rc (the figures are still printed)"
if [ "$FAIR" = 1 ]; then
	fair
	exit 0
fi
more=()
for ((r = 2; r <= REPS; r++)); do
	"$ITER" --datadir "$DATA" --bindir "$BINDIR" --workdir "$WD/rep$r" --db "$WD/lists.db" --source netlink \
		--proof-only --steps "$STEPS" --baseline -- "$WORLD" run >"$WD/rep$r.out" 2>&1 || true
	grep -E '^pgsc-iterate: (proof|PROOF)' "$WD/rep$r.out" || true
	more+=("$WD/rep$r")
done
echo
figures "$WD/it" "${more[@]}"
