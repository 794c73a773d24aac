#!/bin/bash
# SPDX-License-Identifier: PostgreSQL
# tests/bench/bench-builds.sh - two builds of pgsc on the same input: is
# the new one slower?  For a change that must not cost anything (a
# redesign), the old build (main before it) against the new one:
#
#   bash tests/bench/bench-builds.sh OLD_BUILDDIR NEW_BUILDDIR SRCDIR [RECORDS]
#
# One log of RECORDS SECCOMP records (default 200,000: the recording
# tests/golden/raw.log replayed by fleet_feed, with its fork records, so
# the process tree does real work), then for each build:
#   - instructions (valgrind --tool=callgrind; repeatable whatever the
#     machine's load) of pgsc-collect --import on a fresh store, of
#     pgsc-report --format=json and of pgsc-report --status on it;
#   - wall seconds, best of 3, of the import and of a live follow
#     (--source file: --from-start until every record is committed);
#   - peak RSS of the import.
# Prints the figures and new/old ratios.  Asserts only that both builds
# store the same records and print the same report.  No root, no daemon.
set -euo pipefail
# shellcheck source=../lib/bench.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/bench.sh"

OLD=$(cd "${1:?usage: bench-builds.sh OLD_BUILD NEW_BUILD SRCDIR [RECORDS]}" && pwd)
NEW=$(cd "${2:?usage: bench-builds.sh OLD_BUILD NEW_BUILD SRCDIR [RECORDS]}" && pwd)
SRC=$(cd "${3:?usage: bench-builds.sh OLD_BUILD NEW_BUILD SRCDIR [RECORDS]}" && pwd)
RECORDS=${4:-200000}
FEED=$NEW/tests/fleet_feed
need_exec "$OLD"/pgsc-{collect,report} "$NEW"/pgsc-{collect,report} "$FEED"
need_progs valgrind sqlite3 bc /usr/bin/time
bench_init bench-builds "${TMPDIR:-/var/tmp}"
zcat "$SRC/tests/golden/raw.log.gz" >"$T/raw.log"
"$FEED" -n 1 -r 200000 -s $((RECORDS / 200000 + 1)) -t recorded -o "$T/big.log" "$T/raw.log" 2>/dev/null
awk -v max="$RECORDS" '/type=SECCOMP/ { n++; if (n > max) exit } { print }' "$T/big.log" >"$T/audit.log"
rm -f "$T/big.log"
echo "input: $(grep -c type=SECCOMP "$T/audit.log") SECCOMP records, $(wc -l <"$T/audit.log") lines"

# instructions of a command, from callgrind's summary
insns() {
	{ valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 >/dev/null || true; } |
		awk '/Collected :/ { print $4 }'
}
rm_w() { rm -f "$T/w.db"*; }
follow() {
	local b=$1 pid n
	rm -f "$T/f.db"*
	"$b/pgsc-collect" --db "$T/f.db" --source "file:$T/audit.log" --from-start \
		--commit-interval 0.2 >/dev/null 2>&1 &
	pid=$!
	while :; do
		n=$(sqlite3 -batch -noheader "$T/f.db" 'SELECT sum(records) FROM rounds' 2>/dev/null || true)
		[ "${n:-0}" -ge "$RECORDS" ] && break
		sleep 0.05
	done
	kill -TERM "$pid"; wait "$pid" 2>/dev/null || true
}
declare -A R
for side in old new; do
	b=$OLD; [ "$side" = new ] && b=$NEW
	rm -f "$T/$side.db"*
	R[$side.import]=$(insns "$b/pgsc-collect" --quiet --db "$T/$side.db" --import "$T/audit.log")
	R[$side.json]=$(insns "$b/pgsc-report" --db "$T/$side.db" --format json)
	R[$side.status]=$(insns "$b/pgsc-report" --db "$T/$side.db" --status)
	"$b/pgsc-report" --db "$T/$side.db" --format json >"$T/$side.json" || true
	bench_best 3 rm_w "$b/pgsc-collect" --quiet --db "$T/w.db" --import "$T/audit.log" || true
	R[$side.wall]=$BEST_WALL
	R[$side.rss]=$((BEST_RSS / 1024))
	s=$(now); follow "$b"; e=$(now)
	R[$side.follow]=$(printf '%.2f' "$(echo "$e - $s" | bc)")
done
cmp -s "$T/old.json" "$T/new.json" || bench_wrong "the two builds' reports differ"
[ "$(sqlite3 "$T/old.db" 'SELECT sum(records) FROM rounds')" = "$(sqlite3 "$T/new.db" 'SELECT sum(records) FROM rounds')" ] ||
	bench_wrong "the two builds stored different counts"

printf '%-34s %16s %16s %8s\n' measure old new new/old
row() { printf '%-34s %16s %16s %8s\n' "$1" "$2" "$3" "$(bench_div "$3" "$2" %.3f)"; }
row "import, instructions" "${R[old.import]}" "${R[new.import]}"
row "report --format json, instructions" "${R[old.json]}" "${R[new.json]}"
row "report --status, instructions" "${R[old.status]}" "${R[new.status]}"
row "import, wall s (best of 3)" "${R[old.wall]}" "${R[new.wall]}"
row "import, peak RSS MiB" "${R[old.rss]}" "${R[new.rss]}"
row "live follow to the end, wall s" "${R[old.follow]}" "${R[new.follow]}"
echo "the same report from both builds: yes"
