#!/bin/bash
# SPDX-License-Identifier: PostgreSQL
# tests/matrix/run.sh BINDIR [SUITE] - the cross-glibc matrix as a ctest
# (label "matrix"; SUITE trixie, the default, or sid).
#
# Runs tools/glibc-matrix --suite SUITE (root; makes or reuses the root in
# $PGSC_MATRIX_ROOT, default /var/cache/pgsc-roots/SUITE: Debian 13 with
# PostgreSQL 17, or sid with 18) and checks:
#   1. bad arguments are the script's own errors: exit status 2;
#   2. with a killed run's proc and dev/shm left mounted in the root, the
#      run says it unmounts them, exits 0 and writes both stores;
#   3. each store has non-empty global and session lists (pgsc-report);
#   4. each store has exactly one postmaster: on the host the host's
#      PostgreSQL 15 binary, in the other the PostgreSQL 17 (18) binary
#      that exists in the root (the path as the chrooted server saw it)
#      and whose server log says PostgreSQL 17 (18); and the root's libc is a
#      newer glibc than the host's;
#   5. pgsc-diff on the two stores exits 0 or 1, never 2, with and without
#      --equivalent; its markdown parses (heading, summary line, table),
#      the summary's counts equal the table's rows, and the rows equal the
#      difference of the two pgsc-report lists computed here with comm;
#   6. the script's own diff.md is the same, and nothing stays mounted
#      below the root;
#   7. the drift goes the expected way (pselect6 out of the global list,
#      getsockname into the session list; on 18 preadv in the global list
#      only, and io workers seen).
# Missing dependencies are failures, never skips.
#
# Environment: PGSC_MATRIX_KEEP=1 keeps the output directory.

# shellcheck source=../lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
T_NAME=matrix
set -uo pipefail
export LC_ALL=C

[ $# -ge 1 ] || fail "usage: tests/matrix/run.sh BINDIR [trixie|sid]"
[ -d "$1" ] || fail "BINDIR $1 is not a directory"
BINDIR=$(cd "$1" && pwd)
SUITE=${2:-trixie}
case $SUITE in
trixie) PGV=17 ;;
sid) PGV=18 ;;
*) fail "suite '$SUITE': trixie or sid" ;;
esac
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SRCROOT=$(cd "$HERE/../.." && pwd)
MATRIX=$SRCROOT/tools/glibc-matrix
ROOT=${PGSC_MATRIX_ROOT:-/var/cache/pgsc-roots/$SUITE}

need_root "tools/glibc-matrix needs debootstrap, chroot and the audit daemon role"
need_exec "$MATRIX" "$BINDIR"/pgsc-{report,diff,collect,exec}
need_progs sqlite3 debootstrap comm awk findmnt

t_init matrix-test
T_KEEP=${PGSC_MATRIX_KEEP:-0}
T=$T_WORK
errors=0
bad() { echo "FAIL: $*" >&2; errors=$((errors + 1)); }

# 1. the script's own errors exit 2.
st=0
"$MATRIX" --bindir "$T/no-such-dir" --out "$T/e1" >"$T/e1.out" 2>&1 || st=$?
[ "$st" = 2 ] || bad "glibc-matrix --bindir (missing) exited $st, expected 2: $(tail -n 3 "$T/e1.out")"
st=0
"$MATRIX" --bindir "$BINDIR" --workload "$T/no-such.sql" --out "$T/e2" >"$T/e2.out" 2>&1 || st=$?
[ "$st" = 2 ] || bad "glibc-matrix --workload (missing file) exited $st, expected 2: $(tail -n 3 "$T/e2.out")"
st=0
"$MATRIX" --bindir "$BINDIR" --root "$SRCROOT/trixie" --out "$T/e3" >"$T/e3.out" 2>&1 || st=$?
[ "$st" = 2 ] || bad "glibc-matrix --root inside the source tree exited $st, expected 2: $(tail -n 3 "$T/e3.out")"

# 2. the run, after a run killed in the root (SIGKILL: no exit trap) left
# its proc and dev/shm mounted there, as one did before a CI run: placed
# under the root's mounts lock, as that run held it, and released;
# glibc-matrix must take them away (tools/root-mounts.sh) and say so.
bash "$SRCROOT/tools/pg-root" --suite "$SUITE" --pg "$PGV" --root "$ROOT" >"$T/pg-root.out" 2>&1 ||
	fail "tools/pg-root --suite $SUITE failed: $(tail -n 5 "$T/pg-root.out")"
(
	# shellcheck source=../../tools/root-mounts.sh
	. "$SRCROOT/tools/root-mounts.sh"
	root_mounts_take matrix-test "$ROOT" || fail "cannot have $ROOT's mounts"
	mount -t proc -o nosuid,nodev,noexec proc "$ROOT/proc" || fail "cannot mount proc on $ROOT/proc"
	mkdir -p "$ROOT/dev/shm"
	mount -t tmpfs -o size=1m pgsc-matrix-stale "$ROOT/dev/shm" || fail "cannot mount a tmpfs on $ROOT/dev/shm"
) || exit 1
O=$T/out
st=0
"$MATRIX" --bindir "$BINDIR" --suite "$SUITE" --root "$ROOT" --out "$O" >"$T/matrix.out" 2>"$T/matrix.err" || st=$?
cat "$T/matrix.err" "$T/matrix.out"
[ "$st" = 0 ] || fail "tools/glibc-matrix exited with status $st"
for m in "$ROOT/proc" "$ROOT/dev/shm"; do
	grep -qF "unmounting $m: left by a run that was killed" "$T/matrix.err" ||
		bad "glibc-matrix did not say it took away the stale mount $m"
done
for f in host.db "$SUITE.db" diff.md diff-equivalent.md summary.md versions.txt times.txt; do
	[ -s "$O/$f" ] || fail "tools/glibc-matrix wrote no $O/$f"
done

# 3. non-empty lists in both stores.
guc_list() { # guc_list GUCFILE KEY: names, one a line, sorted
	sed -n "s/^$2 = '\\([^']*\\)'\$/\\1/p" "$1" | tr ',' '\n' | grep . | sort -u
}
for s in host "$SUITE"; do
	"$BINDIR/pgsc-report" --db "$O/$s.db" --format=guc >"$T/$s.guc" 2>"$T/$s.guc.err" ||
		fail "pgsc-report --db $s.db failed: $(cat "$T/$s.guc.err")"
	guc_list "$T/$s.guc" global_syscall_allow >"$T/$s.global"
	guc_list "$T/$s.guc" session_syscall_allow >"$T/$s.session"
	[ -s "$T/$s.global" ] || bad "the $s store's global list is empty: $(cat "$T/$s.guc")"
	[ -s "$T/$s.session" ] || bad "the $s store's session list is empty: $(cat "$T/$s.guc")"
	over=$(comm -23 "$T/$s.session" "$T/$s.global" | tr '\n' ' ')
	[ -z "$over" ] || bad "the $s session list has names missing from its global list: $over"
done

# 4. the postmasters.
pm() { sqlite3 -batch -noheader "$1" "SELECT exe FROM processes WHERE role = 'postmaster'"; }
HPM=$(pm "$O/host.db")
TPM=$(pm "$O/$SUITE.db")
[ "$HPM" = /usr/lib/postgresql/15/bin/postgres ] ||
	bad "the host store's postmaster exe is '$HPM', expected /usr/lib/postgresql/15/bin/postgres (exactly one)"
case $TPM in
/usr/lib/postgresql/"$PGV"/bin/postgres) ;;
*) bad "the $SUITE store's postmaster exe is '$TPM', expected /usr/lib/postgresql/$PGV/bin/postgres (exactly one)" ;;
esac
[ -x "$ROOT$TPM" ] || bad "the $SUITE postmaster's exe $TPM does not exist in the root $ROOT"
[ "$ROOT$TPM" != "$HPM" ] || bad "the two postmasters ran the same binary"
grep -q "starting PostgreSQL $PGV\\." "$O/logs/$SUITE-server.log" 2>/dev/null ||
	bad "the $SUITE server log does not say 'starting PostgreSQL $PGV.': $(head -n 3 "$O/logs/$SUITE-server.log" 2>/dev/null)"
grep -q 'starting PostgreSQL 15\.' "$O/logs/host-server.log" 2>/dev/null ||
	bad "the host server log does not say 'starting PostgreSQL 15.'"
glibc() { grep -aoE 'release version [0-9]+\.[0-9]+' "$1/usr/lib/x86_64-linux-gnu/libc.so.6" | sed -n '1s/.* //p'; }
HG=$(glibc "")
TG=$(glibc "$ROOT")
[ -n "$HG" ] && [ -n "$TG" ] && [ "$(printf '%s\n%s\n' "$HG" "$TG" | sort -V | tail -n 1)" = "$TG" ] && [ "$HG" != "$TG" ] ||
	bad "the root's glibc ($TG) is not newer than the host's ($HG)"
note "host: glibc $HG, postmaster $HPM; $SUITE: glibc $TG, postmaster $TPM (in $ROOT)"

# 5. pgsc-diff, run here, and its markdown.
# check_md FILE: heading, summary, table; prints "list change name" rows.
check_md() {
	awk -v f="$1" '
	function die(m) { print "markdown " f ": " m > "/dev/stderr"; bad = 1; exit 1 }
	NR == 1 { if ($0 !~ /^### pgsc-diff: .+ → .+$/) die("line 1 is not the heading: " $0); next }
	NR == 2 { if ($0 != "") die("line 2 is not blank"); next }
	NR == 3 {
		if ($0 == "The allow lists are the same.") { same = 1; next }
		if (match($0, /global: [0-9]+ added, [0-9]+ removed(, [0-9]+ equivalent)?; session: [0-9]+ added, [0-9]+ removed(, [0-9]+ equivalent)?\.$/) == 0)
			die("line 3 is not a summary: " $0)
		s = substr($0, RSTART); gsub(/[^0-9]+/, " ", s); n = split(s, c, " ")
		want["global added"] = c[1]; want["global removed"] = c[2]
		if (n == 6) { want["global equivalent"] = c[3]; want["session added"] = c[4]; want["session removed"] = c[5]; want["session equivalent"] = c[6] }
		else { want["session added"] = c[3]; want["session removed"] = c[4] }
		next
	}
	same { if ($0 != "") die("text after \"the same\": " $0); next }
	NR == 4 { if ($0 != "") die("line 4 is not blank"); next }
	NR == 5 { if ($0 != "| list | change | syscall | equivalent to |") die("no table header: " $0); next }
	NR == 6 { if ($0 != "|---|---|---|---|") die("no table separator: " $0); next }
	{
		if ($0 !~ /^\| (global|session) \| (added|removed)(, equivalent)? \| `[a-z0-9_]+` \| .*\|$/) die("bad row: " $0)
		split($0, col, / \| /); sub(/^\| /, "", col[1])
		nm = col[3]; gsub(/`/, "", nm)
		ch = col[2]
		if (ch ~ /equivalent/) { got[col[1] " equivalent"]++; sub(/, equivalent/, "", ch); print col[1], ch "~", nm }
		else { got[col[1] " " ch]++; print col[1], ch, nm }
	}
	END {
		if (bad) exit 1
		if (NR < 3) die("too short")
		for (k in want) if (k !~ /equivalent/ && got[k] + 0 != want[k] + 0) die(k ": summary says " want[k] ", table has " got[k] + 0)
		for (k in want) if (k ~ /equivalent/ && got[k] + 0 != want[k] + 0) die(k ": summary says " want[k] ", table has " got[k] + 0)
		if (!same && NR < 7 && want["global added"] + want["global removed"] + want["session added"] + want["session removed"] > 0) die("no rows")
	}' "$1"
}
DRC=0
"$BINDIR/pgsc-diff" --format=markdown --accept-surface "glibc matrix: the drift is reported, not gated" "$O/host.db" "$O/$SUITE.db" >"$T/diff.md" 2>"$T/diff.err" || DRC=$?
[ "$DRC" = 0 ] || [ "$DRC" = 1 ] || bad "pgsc-diff --format=markdown exited $DRC (an error): $(cat "$T/diff.err")"
ERC=0
"$BINDIR/pgsc-diff" --format=markdown --equivalent --accept-surface "glibc matrix: the drift is reported, not gated" "$O/host.db" "$O/$SUITE.db" >"$T/diff-eq.md" 2>"$T/diff-eq.err" || ERC=$?
[ "$ERC" = 0 ] || [ "$ERC" = 1 ] || bad "pgsc-diff --format=markdown --equivalent exited $ERC (an error): $(cat "$T/diff-eq.err")"
check_md "$T/diff.md" >"$T/rows" || bad "pgsc-diff's markdown does not parse (above)"
check_md "$T/diff-eq.md" >"$T/rows-eq" || bad "pgsc-diff --equivalent's markdown does not parse (above)"
# The rows against the two lists compared here.
{
	for l in global session; do
		comm -13 "$T/host.$l" "$T/$SUITE.$l" | sed "s/^/$l added /"
		comm -23 "$T/host.$l" "$T/$SUITE.$l" | sed "s/^/$l removed /"
	done
} | sort >"$T/rows.expected"
sort "$T/rows" >"$T/rows.sorted"
diff -u "$T/rows.expected" "$T/rows.sorted" >"$T/rows.diff" ||
	bad "pgsc-diff's rows are not the differences of the pgsc-report lists (- expected, + pgsc-diff): $(cat "$T/rows.diff")"
if [ -s "$T/rows.expected" ]; then
	[ "$DRC" = 1 ] || bad "the lists differ but pgsc-diff exited $DRC"
else
	[ "$DRC" = 0 ] || bad "the lists are the same but pgsc-diff exited $DRC"
fi
# --equivalent: the same names, some marked equivalent; exit 0 iff all are.
sed 's/~ / /' "$T/rows-eq" | sort >"$T/rows-eq.names"
diff -u "$T/rows.expected" "$T/rows-eq.names" >"$T/rows-eq.diff" ||
	bad "pgsc-diff --equivalent lists other names than the plain diff: $(cat "$T/rows-eq.diff")"
if grep -qv '~ ' "$T/rows-eq"; then
	[ "$ERC" = 1 ] || bad "pgsc-diff --equivalent has non-equivalent rows but exited $ERC"
else
	[ "$ERC" = 0 ] || bad "pgsc-diff --equivalent has only equivalent rows but exited $ERC"
fi

# 7. the drift goes the way PostgreSQL's sources say (docs/versions.md,
# measured with this workload): from 16 on the postmaster waits in a
# WaitEventSet (epoll), not select(), so pselect6 leaves the global list
# (15: the postmaster's ServerLoop); from 17 on a client backend reads its
# own socket's address (backend_startup.c), so getsockname enters the
# session list; on 18 (io_method = worker) the vectored reads are the io
# workers', so preadv is in the global list and not in the session's.
in_list() { grep -qx "$1" "$T/$2.$3"; } # NAME SIDE LIST
in_list pselect6 host global || bad "drift: pselect6 is not in the host's (15) global list"
! in_list pselect6 "$SUITE" global || bad "drift: pselect6 is still in the $SUITE ($PGV) global list"
! in_list getsockname host session || bad "drift: getsockname is in the host's (15) session list"
in_list getsockname "$SUITE" session || bad "drift: getsockname is not in the $SUITE ($PGV) session list"
if [ "$PGV" -ge 18 ]; then
	in_list preadv "$SUITE" global || bad "drift: preadv is not in the $SUITE ($PGV) global list"
	! in_list preadv "$SUITE" session || bad "drift: preadv is in the $SUITE ($PGV) session list (io workers read for the backends)"
	[ "$(sqlite3 -batch -noheader "$O/$SUITE.db" "SELECT count(*) FROM processes WHERE role = 'io worker'")" -ge 1 ] ||
		bad "drift: no process of role 'io worker' in the $SUITE store"
fi

# 6. the script's own outputs, and no mount left.
tail -n +2 "$O/diff.md" | diff -u - <(tail -n +2 "$T/diff.md") >"$T/own.diff" ||
	bad "the script's diff.md differs from pgsc-diff's: $(cat "$T/own.diff")"
[ "$(cat "$O/diff.rc")" = "$DRC" ] || bad "the script's diff.rc is $(cat "$O/diff.rc"), pgsc-diff exits $DRC"
if findmnt -rn -o TARGET | awk -v d="$ROOT" 'index($0, d "/") == 1 || $0 == d { f = 1 } END { exit !f }'; then
	bad "something is still mounted below $ROOT: $(findmnt -rn -o TARGET | grep -F "$ROOT" | tr '\n' ' ')"
fi

note "diff: $(sed -n 3p "$T/diff.md"); exit $DRC, --equivalent exit $ERC"
note "times: $(tr '\n' ' ' <"$O/times.txt")"
if [ "$errors" -gt 0 ]; then
	echo "FAIL: $errors check(s) failed" >&2
	exit 1
fi
note PASS
exit 0
