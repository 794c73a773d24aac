#!/bin/bash
# SPDX-License-Identifier: PostgreSQL
# tests/security/valgrind.sh BINDIR GOLDENDIR SUPP - the importer, the
# reports and pgsc-diff under valgrind's memcheck on a real recorded log.
#
# The biggest tests/golden/*.log.gz (by compressed size) is imported twice
# (the SECCOMP fast path and --no-fast-path, where libauparse parses every
# record), then pgsc-report writes guc, json and table, and pgsc-diff
# compares the two stores, a GUC file and a JSON report.  Every run is
#   valgrind --error-exitcode=99 --leak-check=full
#            --errors-for-leak-kinds=definite,indirect
# with tests/security/valgrind.supp (one documented libauparse 3.0.9 leak):
# any memory error or definite/indirect leak fails the test.  The outputs
# are checked too (the same lists from both paths, the diff says equal),
# so a run that does nothing cannot pass.
# shellcheck source=../lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
t_init valgrind
export LC_ALL=C
[ $# = 3 ] || fail "usage: valgrind.sh BINDIR GOLDENDIR SUPP"
BIN=$1 DIR=$2 SUPP=$3
need_progs valgrind
need_exec "$BIN"/pgsc-{collect,report,diff}
need_file "$SUPP"
# the largest recorded log
# shellcheck disable=SC2012 # the names are the fixtures' (no newlines)
LOG=$(ls -S "$DIR"/*.log.gz 2>/dev/null | head -1)
[ -n "$LOG" ] || fail "no recorded log in $DIR"
T=$T_WORK
zcat "$LOG" >"$T/audit.log" || fail "cannot unpack $LOG"
runs=0
# shellcheck disable=SC2054 # definite,indirect is one option's value
VG=(valgrind --error-exitcode=99 --leak-check=full
	--errors-for-leak-kinds=definite,indirect --suppressions="$SUPP"
	--num-callers=30)

# vg NAME EXPECTED_EXIT CMD...: run CMD under valgrind, output in $T/NAME.
vg() {
	local name=$1 want=$2 rc
	shift 2
	runs=$((runs + 1))
	"${VG[@]}" --log-file="$T/$name.vg" "$@" >"$T/$name.out" 2>"$T/$name.err"
	rc=$?
	if [ "$rc" = 99 ] || grep -q "definitely lost: [1-9]\|indirectly lost: [1-9]\|ERROR SUMMARY: [1-9]" "$T/$name.vg"; then
		bad "$name: valgrind found errors or leaks (exit $rc):"
		grep -v "^==[0-9]*== *$" "$T/$name.vg" | head -60
	elif [ "$rc" != "$want" ]; then
		bad "$name: exit $rc, expected $want"; cat "$T/$name.err"
	else
		echo "ok: $name ($(grep -o 'ERROR SUMMARY: .*' "$T/$name.vg" | head -1); $(grep -o 'total heap usage: [0-9,]* allocs' "$T/$name.vg"))"
		grep -o "suppressed: [1-9][0-9,]* bytes.*" "$T/$name.vg" | sed "s/^/    note: $name: /"
	fi
}

echo "valgrind: $(basename "$LOG") ($(wc -l <"$T/audit.log") lines)"
vg import-fast 0 "$BIN/pgsc-collect" --db "$T/a.db" --import "$T/audit.log"
vg import-auparse 0 "$BIN/pgsc-collect" --db "$T/b.db" --no-fast-path --import "$T/audit.log"
vg reimport 0 "$BIN/pgsc-collect" --db "$T/a.db" --import "$T/audit.log"
grep -q "nothing new to import" "$T/reimport.err" || bad "reimport: the second import was not skipped"
for f in guc json table; do
	vg "report-$f" 0 "$BIN/pgsc-report" --db "$T/a.db" --format="$f"
done
# one round that found syscalls: not converged, exit 1; no loss: exit 0
vg report-status 1 "$BIN/pgsc-report" --db "$T/a.db" --status
# the recorded logs lack one serial (record.sh's sync marker): not
# complete, exit 1 (docs/robustness.md, F4)
vg report-complete 1 "$BIN/pgsc-report" --db "$T/a.db" --check-complete
[ -s "$T/import-fast.err" ] && grep -q "SECCOMP records" "$T/import-fast.err" ||
	bad "import-fast printed no round summary"
grep -q "^global_syscall_allow = '[a-z]" "$T/report-guc.out" ||
	bad "report-guc: no global list"
cp "$T/report-guc.out" "$T/a.guc"
cp "$T/report-json.out" "$T/a.json"
vg diff-stores 0 "$BIN/pgsc-diff" "$T/a.db" "$T/b.db"
vg diff-guc-json 0 "$BIN/pgsc-diff" --format=json "$T/a.guc" "$T/a.json"
vg diff-equivalent 0 "$BIN/pgsc-diff" --equivalent --format=markdown "$T/a.db" "$T/a.guc"
# a real difference, so the difference path runs too: exit 1
sed "s/^\(global_syscall_allow = '\)[a-z0-9_]*,/\1/" "$T/a.guc" >"$T/c.guc"
vg diff-changed 1 "$BIN/pgsc-diff" "$T/a.guc" "$T/c.guc"
echo "valgrind: $runs runs, $([ "$T_FAIL" = 0 ] && echo "no errors, no leaks" || echo FAILED)"
[ "$T_FAIL" = 0 ]
