# SPDX-License-Identifier: PostgreSQL
# shellcheck shell=bash
# tests/lib/bench.sh - what the benchmarks of tests/bench share, on top of
# tests/lib/common.sh (sourced here).  A benchmark prints figures and
# asserts little: from here on fail (and need_*) exits 2, "could not run"
# (a missing program, input or build), and bench_wrong exits 1, "ran, and
# a result it checks is wrong".
#
#   bench_init NAME [PARENT]
#                         t_init NAME [PARENT]; T, the work directory
#   bench_wrong MSG       "FAIL: NAME: MSG" on stderr, exit 1
#   bench_best N PREP CMD...
#                         N runs of CMD under /usr/bin/time, its output
#                         discarded, the function PREP before each (a
#                         fresh store); of the run with the least wall
#                         time: BEST_WALL (s, %e), BEST_CPU (user + sys,
#                         s, two decimals), BEST_RSS (KiB).  Status: the
#                         last failed run's, its stderr in $T/bench.err
#   bench_div X Y FMT     X / Y printed with the printf format FMT, "-"
#                         when Y is 0
#   sub A B               A - B, six decimals
#   fmt_int X             X rounded, with thousands separators: -1,234,567
#   rate N S              fmt_int of N / S (records per second)
#   mark V OP L           PASS when V OP L (>=, <= or ==), else MISS
#   judge V OP L          M=$(mark V OP L), counted in PASSES or MISSES

# (the path holds from tests/bench, where the benchmarks are, and from here)
# shellcheck source=../lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
T_FAIL_STATUS=2
PASSES=0
MISSES=0

bench_init() {
	t_init "$@"
	# shellcheck disable=SC2034 # for the benchmark
	T=$T_WORK
}

bench_wrong() {
	T_FAIL_STATUS=1 fail "$@"
}

bench_best() {
	local n=$1 prep=$2 i w u s r rc=0
	shift 2
	BEST_WALL='' BEST_CPU='' BEST_RSS=''
	for ((i = 0; i < n; i++)); do
		"$prep"
		/usr/bin/time -f '%e %U %S %M' -o "$T_WORK/bench.time" "$@" \
			>/dev/null 2>"$T_WORK/bench.err" || rc=$?
		# the last line: a failed run's file starts "Command exited..."
		read -r w u s r < <(tail -n 1 "$T_WORK/bench.time")
		if [ -z "$BEST_WALL" ] || [ "$(echo "$w < $BEST_WALL" | bc)" = 1 ]; then
			# shellcheck disable=SC2034 # for the benchmark
			BEST_WALL=$w BEST_RSS=$r
			# shellcheck disable=SC2034 # for the benchmark
			BEST_CPU=$(printf "%.2f" "$(echo "$u + $s" | bc)")
		fi
	done
	return "$rc"
}

bench_div() {
	awk -v x="$1" -v y="$2" -v f="$3" 'BEGIN { if (y == 0) print "-"; else printf f, x / y }'
}

sub() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.6f", a - b }'; }

fmt_int() {
	awk -v x="$1" 'BEGIN { s = sprintf("%.0f", x); neg = (s ~ /^-/); if (neg) s = substr(s, 2)
		o = ""; while (length(s) > 3) { o = "," substr(s, length(s) - 2) o; s = substr(s, 1, length(s) - 3) }
		print (neg ? "-" : "") s o }'
}

rate() { fmt_int "$(awk -v n="$1" -v s="$2" 'BEGIN { printf "%.0f", n / s }')"; }

mark() {
	awk -v v="$1" -v op="$2" -v l="$3" 'BEGIN { ok = (op == ">=") ? (v >= l) : (op == "<=") ? (v <= l) : (v == l)
		print ok ? "PASS" : "MISS" }'
}

judge() {
	M=$(mark "$@")
	case $M in
	PASS) PASSES=$((PASSES + 1)) ;;
	MISS) MISSES=$((MISSES + 1)) ;;
	esac
}
