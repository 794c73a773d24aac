#!/bin/bash
# SPDX-License-Identifier: PostgreSQL
# tests/bench/world-cost.sh - what pgsc costs on PostgreSQL's test world.
#
#   world-cost.sh --from ITDIR
#       Figures of a finished "pgsc-iterate --steps ... --baseline" work
#       directory (pgsc-check-world full keeps it in DIR/it).
#   world-cost.sh BINDIR [WORKDIR] [--suites LIST] [--reps N]
#       Run it: a cluster in WORKDIR (default /var/tmp/pgsc-world-bench),
#       pgsc-iterate over netlink with one step per suite and --baseline,
#       then N-1 more "--proof-only --baseline" passes (default N=2).
#       LIST defaults to the CI subset of tests/world/world.sh.
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
# Targets (docs/check-world.md): (b)/(a) <= 1.5, (c)/(a) <= 1.05.
set -euo pipefail
export LC_ALL=C
# shellcheck source=../lib/bench.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/bench.sh"
t_traps world-cost
SRCROOT=$T_SRCROOT
DEFSTEPS=regress:test_setup+boolean+int4+text+copydml+insert,isolation:deadlock-simple+eval-plan-qual+lock-update-delete+insert-conflict-do-update,contrib/postgres_fdw,src/test/recovery:001_stream_rep,src/test/subscription:001_rep_changes

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
	local t a b c sa=0 sb=0 sc=0 rec rps rss maxrss=0 srec=0 x d
	for t in $tags; do
		a=0 c=0
		for d in "$it" "$@"; do
			x=$(cat "$d/baseline-1-$t.secs" 2>/dev/null || echo 0); a=$((a + x))
			x=$(cat "$d/proof-1-$t.secs" 2>/dev/null || echo 0); c=$((c + x))
		done
		b=$(cat "$it/log-1-$t.secs" 2>/dev/null || echo 0)
		# round 1 of this step in the status table: its records and rate.
		read -r rec rps < <(awk -v t="$t" 'NR == 1 { c = index($0, "label") }
			$1 ~ /^[0-9]+$/ && c > 0 { l = substr($0, c); sub(/^round 1: /, "", l); gsub(/[\/:+]/, "_", l)
				if (substr($0, c, 9) == "round 1: " && l == t) { print $5, $6; exit } }' "$it/status-1") || true
		rss=$(awk 'NF == 2 && $2 ~ /^[0-9]+$/ { print int($2 / 1024) }' "$it/time-log-1-$t" 2>/dev/null | tail -n 1)
		[ -z "$rss" ] || [ "$rss" -le "$maxrss" ] || maxrss=$rss
		sa=$((sa + a)) sb=$((sb + b)) sc=$((sc + c)) srec=$((srec + ${rec:-0}))
		printf '%-40.40s %8d %8d %8d %7s %7s %10s %9s %8s\n' "$t" "$a" "$b" "$c" \
			"$(ratio "$b" "$a" $((1 + $#)))" "$(ratio "$c" "$a" 1)" "${rec:--}" "${rps:--}" "${rss:--}"
	done
	printf '%-40s %8d %8d %8d %7s %7s %10s %9s %8s\n' TOTAL "$sa" "$sb" "$sc" \
		"$(ratio "$sb" "$sa" $((1 + $#)))" "$(ratio "$sc" "$sa" 1)" "$srec" \
		"$([ "$sb" -gt 0 ] && echo $((srec / sb)) || echo -)" "$maxrss"
	echo
	echo "(a), (c): summed over $((1 + $#)) pass(es); (b): round 1 only, so b/a compares one (b) with the mean (a)."
	echo "targets: (b)/(a) <= 1.5, (c)/(a) <= 1.05"
	if [ $# -gt 0 ]; then
		echo "spread over the passes (TOTAL of each):"
		for d in "$it" "$@"; do
			a=0 c=0
			for t in $tags; do
				x=$(cat "$d/baseline-1-$t.secs" 2>/dev/null || echo 0); a=$((a + x))
				x=$(cat "$d/proof-1-$t.secs" 2>/dev/null || echo 0); c=$((c + x))
			done
			echo "  $d: (a) $a s, (c) $c s, c/a $(ratio "$c" "$a" 1)"
		done
	fi
}

# ratio X Y K: X*K/Y with two decimals ("-" if Y is 0).
ratio() { bench_div "$((${1:-0} * ${3:-1}))" "$2" %.2f; }

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
STEPS=$DEFSTEPS REPS=2
while [ $# -gt 0 ]; do
	case $1 in
	--suites) STEPS=$2; shift 2 ;;
	--reps) REPS=$2; shift 2 ;;
	*) fail "unknown option '$1'" ;;
	esac
done
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
more=()
for ((r = 2; r <= REPS; r++)); do
	"$ITER" --datadir "$DATA" --bindir "$BINDIR" --workdir "$WD/rep$r" --db "$WD/lists.db" --source netlink \
		--proof-only --steps "$STEPS" --baseline -- "$WORLD" run >"$WD/rep$r.out" 2>&1 || true
	grep -E '^pgsc-iterate: (proof|PROOF)' "$WD/rep$r.out" || true
	more+=("$WD/rep$r")
done
echo
figures "$WD/it" "${more[@]}"
