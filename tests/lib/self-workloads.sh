#!/bin/bash
# SPDX-License-Identifier: PostgreSQL
# tests/lib/self-workloads.sh BINDIR OUTDIR - pgsc-collect's own test
# workloads, the three at once (each has its own work directory): the
# golden tests, the bad-input catalogue and the input tests, their output
# in OUTDIR/golden.out, bad.out and inputs.out.  Run with
# PGSC_SELF_FILTER and PGSC_SELF_FILTER_ACTION set: tools/pgsc-selflist
# records them under a log-all filter, tests/security/security.sh runs
# them under the derived list in error mode.  Exit 0 when all three
# passed; otherwise 1, with "NAME exit N" and the lines of each failed
# workload that are not "ok" on stderr.
set -u
[ $# = 2 ] || { echo "usage: self-workloads.sh BINDIR OUTDIR" >&2; exit 2; }
BIN=$1 OUT=$2
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
declare -A pid
bash "$top/tests/golden/run.sh" "$BIN" "$top/tests/golden" >"$OUT/golden.out" 2>&1 &
pid[golden]=$!
bash "$top/tests/cases/run.sh" "$BIN" "$top/tests/cases/bad" >"$OUT/bad.out" 2>&1 &
pid[bad]=$!
bash "$top/tests/inputs/run.sh" "$BIN" "$top/tests/golden" >"$OUT/inputs.out" 2>&1 &
pid[inputs]=$!
rc=0
for w in golden bad inputs; do
	st=0
	wait "${pid[$w]}" || st=$?
	if [ "$st" != 0 ]; then
		rc=1
		echo "$w exit $st:" >&2
		grep -v '^ok' "$OUT/$w.out" | tail -n 20 >&2
	fi
done
exit "$rc"
