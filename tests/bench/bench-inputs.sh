#!/bin/bash
# SPDX-License-Identifier: PostgreSQL
# tests/bench/bench-inputs.sh - importing compressed logs
# (docs/testing.md): pgsc-collect --import reads gzip, xz and zstd in
# process (src/logsrc.c); the alternative a user has is a decompressor
# piped into --import -.  One log (the recording tests/golden/raw.log
# replayed by tests/bench/fleet_feed as one node until it holds RECORDS
# SECCOMP records), compressed with gzip -6, xz -6 and zstd -3, then for
# each form: wall seconds, CPU seconds (user+sys of the whole pipeline) and
# peak RSS of pgsc-collect, best of REPS, and the ratio in-process / pipe.
# Every import must store the same number of records as the plain file's.
#
#   bash tests/bench/bench-inputs.sh BUILDDIR SRCDIR [RECORDS] [REPS]
#
# A benchmark: it prints figures, asserts nothing but the record counts,
# and needs no audit state.
set -euo pipefail
# shellcheck source=../lib/bench.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/bench.sh"

BUILD=$(cd "${1:?usage: bench-inputs.sh BUILDDIR SRCDIR [RECORDS] [REPS]}" && pwd)
SRC=$(cd "${2:?usage: bench-inputs.sh BUILDDIR SRCDIR [RECORDS] [REPS]}" && pwd)
RECORDS=${3:-1000000}
REPS=${4:-3}
COLLECT=$BUILD/pgsc-collect
FEED=$BUILD/tests/fleet_feed
need_exec "$COLLECT" "$FEED"
need_progs gzip xz zstd sqlite3 bc /usr/bin/time
bench_init bench-inputs "${TMPDIR:-/var/tmp}"
zcat "$SRC/tests/golden/raw.log.gz" >"$T/raw.log"

# one node, recorded times, fed as fast as the feeder goes, cut at RECORDS
per=$(grep -c 'type=SECCOMP' "$T/raw.log")
secs=$(( RECORDS / 200000 + 1 ))
"$FEED" -n 1 -r 200000 -s "$secs" -t recorded -o "$T/big.log" "$T/raw.log" 2>/dev/null
# whole events only: cut after the last line of the RECORDS-th SECCOMP record's event
awk -v max="$RECORDS" '
	/type=SECCOMP/ { n++; if (n > max) exit }
	{ print }' "$T/big.log" >"$T/audit.log"
rm -f "$T/big.log"
recs=$(grep -c 'type=SECCOMP' "$T/audit.log")
lines=$(wc -l <"$T/audit.log")
mib=$(( $(stat -c %s "$T/audit.log") / 1048576 ))
gzip -6 -k "$T/audit.log"
xz -6 -k -T1 "$T/audit.log"
zstd -3 -q -k "$T/audit.log"
echo "input: $recs SECCOMP records, $lines lines, $mib MiB (a recording of $per records replayed); best of $REPS"

rm_store() { rm -f "$T/s.db" "$T/s.db-wal" "$T/s.db-shm"; }
# run LABEL CMD...: best wall/CPU/RSS of REPS runs into $W $C $R
run() {
	local label=$1 n
	shift
	bench_best "$REPS" rm_store bash -c "$*" ||
		bench_wrong "$label failed: $(cat "$T/bench.err")"
	n=$(sqlite3 "$T/s.db" 'SELECT sum(records) FROM rounds')
	[ "$n" = "$recs" ] || bench_wrong "$label stored $n records, not $recs"
	W=$BEST_WALL C=$BEST_CPU R=$((BEST_RSS / 1024))
}

printf '%-6s %10s %10s %8s   %10s %10s %8s   %8s %8s\n' form "in s" "in cpu" "in MiB" "pipe s" "pipe cpu" "pipe MiB" "s ratio" "cpu ratio"
run plain "'$COLLECT' --quiet --db '$T/s.db' --import '$T/audit.log'"
printf '%-6s %10s %10s %8s   %10s %10s %8s   %8s %8s\n' plain "$W" "$C" "$R" - - - - -
for f in gz:zcat xz:xzcat zst:zstdcat; do
	ext=${f%%:*} dec=${f#*:}
	run "$ext" "'$COLLECT' --quiet --db '$T/s.db' --import '$T/audit.log.$ext'"
	iw=$W ic=$C ir=$R
	run "$dec|" "$dec '$T/audit.log.$ext' | '$COLLECT' --quiet --db '$T/s.db' --import -"
	printf '%-6s %10s %10s %8s   %10s %10s %8s   %8s %8s\n' "$ext" "$iw" "$ic" "$ir" "$W" "$C" "$R" \
		"$(bench_div "$iw" "$W" %.2f)" "$(bench_div "$ic" "$C" %.2f)"
done
echo "in: pgsc-collect --import FILE (decoded in process); pipe: DECOMPRESSOR FILE | pgsc-collect --import -"
echo "MiB: peak RSS of the largest process (pgsc-collect, or the decompressor of a pipe); ratio: in / pipe (< 1: in process is faster)"
