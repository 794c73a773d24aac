#!/bin/bash
# SPDX-License-Identifier: PostgreSQL
# tests/world/versions.sh SUITE - a reduced test world of the PostgreSQL of
# another Debian release (17 in trixie, 18 in sid), in its root, through
# pgsc's whole procedure: collect, converge, prove under error, and the
# negative control on replication.
#
# Runs as root (ctest labels "world" and "versions", RUN_SERIAL).  It
#   1. runs tools/pgsc-world-root --suite SUITE -- full with the steps
#      below: the root (tools/pg-root --with-world), the version's own
#      source package configured like Debian's build, pgsc and its module
#      built in the root, pgsc-iterate over netlink (converge, baseline,
#      proof under error with per-test results identical to the
#      baseline), then the negative control (the call the store gives
#      only to walsender/walreceiver processes of the recovery step,
#      dropped: 001_stream_rep must fail with its denials recorded);
#      The steps end with scenarios:jit (JIT on every query), which must
#      pass under the proof;
#   2. checks that the store attributed records to the version's own
#      processes: on 18, "io worker" (io_method = worker, the default);
#   3. checks the drift in the direction the source predicts, against the
#      lists measured on PostgreSQL 15 (examples/lists/, their own
#      measurement): pselect6 is in 15's global list (pg_usleep() and the
#      postmaster's loop used select(2)) and in no list here (16 on: a
#      WaitEventSet, and nanosleep), and the postmaster waits in
#      epoll_wait;
#   4. prints the version's GUC file (pgsc-check-world example in the root)
#      and checks its header names the version;
#   5. when examples/lists/ ships this version's file
#      (pg17-debian13-x86_64.guc, pg18-sid-x86_64.guc), proves it as
#      shipped on the same steps in the root (pgsc-check-world prove: the
#      file byte for byte the include, under error, per-test results
#      identical to a baseline, no SECCOMP record of the servers);
#   5b. when it ships the version's -outside file too, proves its global
#      list imposed from outside on every postmaster (pgsc-check-world
#      prove --outside) on the same steps against the baselines of 5, and
#      that without chdir the postmaster is refused its start-up;
#   6. on 18, the same steps again with io_method = io_uring (a real
#      recording of the rings): converged, proven under error, the
#      negative control; pgsc-report's io_uring warning (stderr, the GUC
#      header, JSON io_method), io_uring_setup in the global list and in
#      no type's, and pgsc-diff from the worker store adding it.
# Missing dependencies (debootstrap, the mirror) are failures.
set -e
# shellcheck source=../lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
# shellcheck source=../lib/lists.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/lists.sh"
export LC_ALL=C
[ $# = 1 ] || { echo "usage: versions.sh SUITE" >&2; exit 2; }
SUITE=$1
t_traps "world-$SUITE"
need_root "chroot, mounts, the audit lock"
need_progs chroot mount findmnt debootstrap
SRCROOT=$T_SRCROOT
case $SUITE in
trixie) PGV=17 SHIPPED=pg17-debian13-x86_64.guc ;;
sid) PGV=18 SHIPPED=pg18-sid-x86_64.guc ;;
*) fail "no PostgreSQL known for suite '$SUITE'" ;;
esac
# scenarios:jit: JIT on every query (the version's llvmjit.so, 18's from
# postgresql-18-jit, which tools/pg-root installs), so that the proofs of
# 5 and 5b hold the shipped files to a server that compiles its queries
STEPS=${PGSC_VERSIONS_STEPS:-regress:test_setup+boolean+create_index,src/test/recovery:001_stream_rep,scenarios:jit}
REF=$SRCROOT/examples/lists/pg15-debian12-x86_64.guc
need_file "$REF"
T0=$(date +%s)

ROOT=$(bash "$SRCROOT/tools/pg-root" --suite "$SUITE" --with-world) || fail "tools/pg-root --suite $SUITE --with-world failed"
D=/var/tmp/pgsc-versions-test
rm -rf "${ROOT:?}$D"
OUT=$(mktemp "/tmp/pgsc-world-$SUITE.XXXXXX.out")
t_cleanup rm -f "$OUT"
rc=0
bash "$SRCROOT/tools/pgsc-world-root" --suite "$SUITE" -- full --dir "$D" --suites "$STEPS" --max-rounds 4 \
	>"$OUT" 2>&1 || rc=$?
# A rare path the subset's rounds missed (as tests/world/world.sh, where a
# walsender's mremap under load was seen): a failed proof whose denials,
# at most 3 names, are all names of a whole world's proven lists, is
# reported; the negative control then runs on its own.  Until this
# version ships its own proven file, the reference is 15's whole world
# (the same glibc paths: realloc's mremap).
if [ "$rc" = 3 ] && grep -q '^pgsc-iterate: PROOF FAILED' "$OUT"; then
	OWN=$SRCROOT/examples/lists/$SHIPPED
	RREF=$REF
	[ ! -f "$OWN" ] || RREF=$OWN
	denied=$(chroot "$ROOT" /var/tmp/pgsc-build/pgsc-report --db "$D/it/proof.db" --format=table 2>/dev/null |
		awk '$2 == "x86_64" && $3 ~ /^[0-9]+$/ { print $1 }' | sort -u || true)
	[ -n "$denied" ] || { tail -n 40 "$OUT" >&2; fail "the proof failed with no denial in its store"; }
	outside=$(comm -23 <(printf '%s\n' "$denied") <(grep -E '^pgsc\.(global|session)_syscall_allow = ' "$RREF" |
		sed "s/^[^']*'//; s/'.*//" | tr ',' '\n' | sort -u) | tr '\n' ' ')
	[ -z "$outside" ] || { tail -n 40 "$OUT" >&2; fail "the proof denied $outside, not in $(basename "$RREF") either"; }
	[ "$(grep -c . <<<"$denied")" -le 3 ] || { tail -n 40 "$OUT" >&2; fail "the proof denied $(grep -c . <<<"$denied") names"; }
	note "rare path: the proof denied $(tr '\n' ' ' <<<"$denied")- not in the subset's lists, in $(basename "$RREF"); the negative control on its own"
	rc=0
	bash "$SRCROOT/tools/pgsc-world-root" --suite "$SUITE" --keep -- full --dir "$D" --negative-only \
		>>"$OUT" 2>&1 || rc=$?
	grep -q 'NEGATIVE CONTROL OK' "$OUT" || rc=1
	RARE=1
fi
if [ "$rc" != 0 ] || { [ -z "${RARE:-}" ] && ! grep -q 'PROOF PASSED' "$OUT"; } || ! grep -q 'NEGATIVE CONTROL OK' "$OUT"; then
	tail -n 60 "$OUT" >&2
	fail "pgsc-world-root --suite $SUITE full: exit $rc (0, PROOF PASSED and NEGATIVE CONTROL OK expected)"
fi
note "PostgreSQL $PGV in $ROOT: converged, proven under error, negative control failed as it must ($(($(date +%s) - T0)) s)"
# JIT compiled under the proof: a scenario failing in the baseline too
# would leave the comparison identical and JIT unproven (a root without
# the version's llvmjit.so)
if [[ ",$STEPS," == *,scenarios:jit,* ]]; then
	grep -qx 'scenarios/jit ok' "$ROOT$D/it/proof-1-scenarios_jit/status" 2>/dev/null ||
		fail "the jit scenario did not pass under the proof: $(tr '\n' ' ' <"$ROOT$D/it/proof-1-scenarios_jit/status" 2>/dev/null)"
fi
grep -E '^pgsc-(iterate|check-world): (converged|proof run|negative control)' "$OUT" >&2 || true

STORE=$ROOT$D/lists.db
REPORT=$ROOT/var/tmp/pgsc-build/pgsc-report
[ -x "$REPORT" ] || fail "$REPORT missing (the root's build)"
# The root's pgsc-report, run from here: a binary of the root's libraries.
report() { chroot "$ROOT" /var/tmp/pgsc-build/pgsc-report --db "$D/lists.db" "$@"; }
[ -f "$STORE" ] || fail "no store $STORE"
TABLE=$(report --format=table) || fail "pgsc-report --format=table on $STORE failed"
LISTS=$(report --format=guc) || fail "pgsc-report --format=guc on $STORE failed"

# 2. the version's own processes
if [ "$PGV" -ge 18 ]; then
	# the table's column line (the roles), after its "#" lines: one more
	# when an input line was rejected (a "# warning:" line)
	COLS=$(grep -m 1 '^syscall ' <<<"$TABLE" || true)
	grep -q 'io worker' <<<"$COLS" ||
		fail "no record of an io worker in the store (PostgreSQL 18, io_method = worker): ${COLS:-no column line}"
	note "records of io worker processes in the store"
fi

# 3. the drift's direction against 15's measured lists
listed() { # listed NAME TEXT: NAME is in a *_syscall_allow line of TEXT
	grep -E "_syscall_allow = " <<<"$2" | grep -qE "['=,]$1[,']"
}
listed pselect6 "$(cat "$REF")" || fail "$REF has no pselect6: the reference changed, not PostgreSQL"
! listed pselect6 "$LISTS" || fail "pselect6 is in PostgreSQL $PGV's lists (predicted gone since 16)"
awk '$1 == "epoll_wait" && $2 == "x86_64" { found = 1 } END { exit !found }' <<<"$TABLE" ||
	fail "no epoll_wait in PostgreSQL $PGV's store"
note "drift as predicted: pselect6 in 15's global list, in none of $PGV's"

# 4. the GUC file, its header
GUC=$(bash "$SRCROOT/tools/pgsc-world-root" --suite "$SUITE" --keep -- example --db "$D/lists.db" \
	--proof "tests/world/versions.sh" --commit "$(git -C "$SRCROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)" \
	2>/dev/null) || fail "pgsc-check-world example in $ROOT failed"
grep -q "^# pgsc allow lists for PostgreSQL $PGV for the pgsc MODULE" <<<"$GUC" ||
	fail "the example's header does not name PostgreSQL $PGV: $(head -n 1 <<<"$GUC")"
grep -q "^# server:   postgres (PostgreSQL) $PGV\." <<<"$GUC" ||
	fail "the example's server line is not PostgreSQL $PGV's: $(grep '^# server' <<<"$GUC")"

# 5. the shipped file of this version, as shipped
# prove_shipped WHAT ARGS...: pgsc-check-world prove ARGS in the root; the
# proof must pass with 0 SECCOMP records of the servers
prove_shipped() {
	local what=$1 rc=0
	shift
	bash "$SRCROOT/tools/pgsc-world-root" --suite "$SUITE" --keep -- prove --dir "$P" "$@" >"$OUT" 2>&1 || rc=$?
	if [ "$rc" != 0 ] || ! grep -q '^pgsc-iterate: PROOF PASSED' "$OUT" ||
		! grep -q "^pgsc-iterate: proof run (defaults error): 0 SECCOMP records of the server's processes" "$OUT"; then
		tail -n 40 "$OUT" >&2
		fail "$what: exit $rc (the proof must pass with 0 SECCOMP records)"
	fi
}
if [ -f "$SRCROOT/examples/lists/$SHIPPED" ]; then
	P=/var/tmp/pgsc-versions-prove
	rm -rf "${ROOT:?}$P"
	prove_shipped "examples/lists/$SHIPPED as shipped" --lists "/pgsc/examples/lists/$SHIPPED" --suites "$STEPS"
	cmp -s "$SRCROOT/examples/lists/$SHIPPED" "$ROOT$P/c/data/pgsc-iterate.conf" ||
		fail "the proof's include is not examples/lists/$SHIPPED byte for byte"
	note "examples/lists/$SHIPPED: proven as shipped on $STEPS"
else
	note "no examples/lists/$SHIPPED yet: nothing shipped to prove for PostgreSQL $PGV"
fi
# 5b. the version's -outside file: its global list imposed on every
# postmaster from its exec on (pgsc-exec --default error, the module off:
# pgsc-iterate --outside) on the same steps, against the baselines of 5;
# then without chdir (the postmaster's ChangeToDataDir(), before any
# library loads) the postmaster must not start.
OSHIPPED=${SHIPPED%.guc}-outside.guc
if [ -f "$SRCROOT/examples/lists/$OSHIPPED" ]; then
	[ -f "$SRCROOT/examples/lists/$SHIPPED" ] || fail "examples/lists/$OSHIPPED is shipped without $SHIPPED"
	T5B=$(date +%s)
	prove_shipped "examples/lists/$OSHIPPED imposed from outside" --outside --lists "/pgsc/examples/lists/$OSHIPPED" \
		--suites "$STEPS" --baseline-from "$P/prove" --workdir prove-outside
	grep -q '^# pgsc-iterate outside: error$' "$ROOT$P/c/data/pgsc-iterate.conf" ||
		fail "$OSHIPPED: the include of the proof did not say 'outside: error'"
	grep -q 'baseline: step .*: taken from' "$OUT" ||
		note "warning: the outside proof ran its own baselines, not those of $P/prove"
	drop_call "$SRCROOT/examples/lists/$OSHIPPED" 'pgsc\.global_syscall_allow' chdir >"$ROOT$P/outside-neg.guc"
	grep -q "^pgsc\.global_syscall_allow = '.*\bchdir\b" "$SRCROOT/examples/lists/$OSHIPPED" ||
		fail "$OSHIPPED: its global list lacks chdir"
	! grep -q "^pgsc\.global_syscall_allow = '.*\bchdir\b" "$ROOT$P/outside-neg.guc" || fail "could not drop chdir"
	chmod 644 "$ROOT$P/outside-neg.guc"
	rc=0
	bash "$SRCROOT/tools/pgsc-world-root" --suite "$SUITE" --keep -- prove --dir "$P" \
		--outside --lists "$P/outside-neg.guc" --suites "${STEPS%%,*}" --baseline-from "$P/prove" \
		--workdir prove-outside-neg >"$OUT" 2>&1 || rc=$?
	[ "$rc" = 3 ] || { tail -n 20 "$OUT" >&2; fail "$OSHIPPED without chdir: exit $rc, not 3 (the proof must fail)"; }
	# the failure is the denial: chdir is a SECCOMP record of the proof
	# (pgsc-report exits 1 on that store: no session list to print)
	ntab=$(chroot "$ROOT" /var/tmp/pgsc-build/pgsc-report --db "$P/prove-outside-neg/proof.db" --format=table 2>/dev/null || true)
	awk '$1 == "chdir" && $2 == "x86_64" { found = 1 } END { exit !found }' <<<"$ntab" ||
		fail "$OSHIPPED without chdir: the proof failed with no chdir denial in its store: $ntab"
	note "examples/lists/$OSHIPPED: proven from outside on $STEPS; without chdir the proof fails (exit 3, chdir denied; $(($(date +%s) - T5B)) s)"
fi
# 6. PostgreSQL 18 under io_method = io_uring, a real recording: the same
# steps collected, converged and proven under error with the rings in use
# (the postmaster makes one per process, its children enter them:
# docs/io_uring.md), the negative control; then pgsc-report's warning on
# the real store, io_uring_setup in the global list only, and the drift
# from the worker store above in the direction the source gives.
if [ "$PGV" -ge 18 ]; then
	U=/var/tmp/pgsc-versions-iouring
	rm -rf "${ROOT:?}$U"
	rc=0
	bash "$SRCROOT/tools/pgsc-world-root" --suite "$SUITE" --keep --settings "io_method = io_uring" -- \
		full --dir "$U" --suites "$STEPS" --max-rounds 4 >"$OUT" 2>&1 || rc=$?
	if [ "$rc" != 0 ] || ! grep -q 'PROOF PASSED' "$OUT" || ! grep -q 'NEGATIVE CONTROL OK' "$OUT"; then
		tail -n 60 "$OUT" >&2
		fail "io_method = io_uring: pgsc-world-root full exit $rc (0, PROOF PASSED and NEGATIVE CONTROL OK expected)"
	fi
	grep -q "^io_method = io_uring\$" "$ROOT$U/c/data/postgresql.conf" ||
		fail "the io_uring run's cluster has no io_method = io_uring line"
	ureport() { chroot "$ROOT" /var/tmp/pgsc-build/pgsc-report --db "$U/lists.db" "$@"; }
	ureport --format=guc >"$OUT" 2>"$OUT.err" || fail "pgsc-report on the io_uring store failed: $(cat "$OUT.err")"
	t_cleanup rm -f "$OUT.err"
	grep -q '^pgsc-report: warning: the rounds saw io_uring_setup' "$OUT.err" ||
		fail "no io_uring warning on the io_uring store: $(cat "$OUT.err")"
	grep -q 'io_method: io_uring (the postmaster made a ring' "$OUT.err" ||
		fail "the warning does not say io_method io_uring: $(cat "$OUT.err")"
	grep -q '^# warning: .*io_uring' "$OUT" || fail "the GUC header has no io_uring warning"
	ULISTS=$(grep -E '_syscall_allow = ' "$OUT")
	grep -E '^global_syscall_allow = ' <<<"$ULISTS" | grep -qE "['=,]io_uring_setup[,']" ||
		fail "io_uring_setup is not in the io_uring store's global list"
	listed io_uring_enter "$ULISTS" || fail "io_uring_enter is in no list of the io_uring store"
	UJSON=$(ureport --format=json 2>/dev/null) || fail "pgsc-report --format=json on the io_uring store failed"
	grep -q '"io_method": "io_uring"' <<<"$UJSON" || fail "the io_uring store's JSON does not say io_method io_uring"
	grep -q '"setup_outside_postmaster": 0,' <<<"$UJSON" ||
		fail "the io_uring store's JSON has rings made outside the postmaster: $(grep -o '"io_uring": {[^}]*}' <<<"$UJSON")"
	# per type: the rings are the postmaster's alone
	PT=$(ureport --per-type 2>/dev/null) || fail "pgsc-report --per-type on the io_uring store failed"
	grep -qE '^client_backend_syscall_allow = ' <<<"$PT" || fail "pgsc-report --per-type printed no client backend list"
	! grep -E '^[a-z_]+_syscall_allow = ' <<<"$PT" | grep -vE '^(global|session)_' | grep -qE "['=,]io_uring_setup[,']" ||
		fail "io_uring_setup is in a backend type's list: $(grep io_uring_setup <<<"$PT" | cut -c1-200)"
	# the worker store (above) has no ring, the io_uring one has them
	for c in io_uring_setup io_uring_enter; do
		! listed "$c" "$LISTS" || fail "$c is in the io_method = worker lists: the worker store saw a ring"
	done
	DIFF=$(chroot "$ROOT" /var/tmp/pgsc-build/pgsc-diff "$D/lists.db" "$U/lists.db" 2>&1) && drc=0 || drc=$?
	[ "$drc" = 1 ] || [ "$drc" = 3 ] || fail "pgsc-diff worker -> io_uring: exit $drc (1 or 3 expected): $DIFF"
	grep -qx '+io_uring_setup' <<<"$DIFF" || fail "pgsc-diff worker -> io_uring does not add io_uring_setup: $DIFF"
	note "io_method = io_uring: proven under error on $STEPS, the negative control failed as it must; worker -> io_uring (pgsc-diff exit $drc): $(grep -E '^([+-][a-z]|[a-z]+:$)' <<<"$DIFF" | tr '\n' ' ' | cut -c1-400)"
	echo "$DIFF" >&2
fi
note "PASS: $(grep -c . <<<"$TABLE") table lines; $(($(date +%s) - T0)) s in all"
