#!/bin/bash
# SPDX-License-Identifier: PostgreSQL
# tests/lists/shipped.sh BINDIR - the lists users copy from examples/lists/,
# proven as shipped against the code of the same commit.
#
# Runs as root (ctest label "world", RUN_SERIAL, after module/pgsc has
# installed this build's module).  For every examples/lists/pg15-*.guc
# (the host's PostgreSQL; the files of 17 and 18 are proven in their
# Debian roots by tests/world/versions.sh):
#   - a module file (not *-outside.guc): pasted as it is, byte for byte,
#     as the include of the installcheck server and of every cluster the
#     steps start (pgsc-iterate --proof-only --lists FILE --as-shipped:
#     pgsc.enabled on, both defaults error, per the file itself);
#   - an outside file (*-outside.guc), after them and against their
#     baselines: its global list imposed from
#     outside, every postmaster under "pgsc-exec --default error
#     --allow-file FILE --list global" from its exec on, start-up
#     included, the module off (pgsc-iterate --outside);
# through the CI world subset (tests/lib/world.sh; for the outside file
# the steps that start every kind of cluster) and the production
# scenarios (tools/pgsc-scenarios): each step's per-test results must equal
# a baseline run with no filter, and the servers must make 0 SECCOMP
# records.  Then the negative control, so that a loader change cannot
# pass unseen: the module file without one call the module itself needs
# (filter_needs[] in src/filter_build.c, read from the source) and the
# outside file without chdir (the postmaster's ChangeToDataDir() before
# any library loads) must both fail the first step.
# A code change that needs a new syscall fails this test: regenerate the
# files from a store (docs/check-world.md, "Regenerating the shipped
# lists") and prove them again; never edit them by hand.
# PGSC_LISTS_STEPS overrides the steps; PGSC_LISTS_KEEP=1 keeps the work
# directory.  Missing dependencies are failures, never skips.
set -e
# shellcheck source=../lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
export LC_ALL=C
t_script lists-test "shipped.sh BINDIR" "$@"
PGBIN=/usr/lib/postgresql/15/bin
# shellcheck source=../lib/world.sh
. "$HERE/../lib/world.sh"
# shellcheck source=../lib/lists.sh
. "$HERE/../lib/lists.sh"
STEPS=${PGSC_LISTS_STEPS:-$WORLD_CI_STEPS,scenarios}
# The outside file's global list holds the module file's: what only it
# proves is the start-up of every kind of cluster (the installcheck
# server, TAP nodes, a standby, the scenarios' servers, a crash restart)
# under one filter from exec on.
# Its steps are steps of the module file's, whose baselines it takes
# (pgsc-iterate --baseline-from): one baseline a step for both files.
OSTEPS=${PGSC_LISTS_OUTSIDE_STEPS:-${STEPS%%,*},src/test/recovery:001_stream_rep,scenarios}

need_root
need_progs flock sqlite3 make prove runuser
need_exec "$BINDIR"/pgsc-{collect,report,exec}
PKGLIB=$("$PGBIN/pg_config" --pkglibdir)
[ -f "$PKGLIB/pgsc.so" ] || fail "the module is not installed ($PKGLIB/pgsc.so)"
if [ -f "$BINDIR/pgmodule/pgsc.so" ] && ! cmp -s "$BINDIR/pgmodule/pgsc.so" "$PKGLIB/pgsc.so"; then
	fail "$PKGLIB/pgsc.so is not this build's module: the shipped lists must be proven against the code of this commit"
fi
# the module files first: the outside file's proof takes their baselines
FILES=()
for f in "$SRCROOT"/examples/lists/pg15-*.guc; do
	[[ $f == *-outside.guc ]] || [ ! -e "$f" ] || FILES+=("$f")
done
for f in "$SRCROOT"/examples/lists/pg15-*-outside.guc; do
	[ ! -e "$f" ] || FILES+=("$f")
done
[ ${#FILES[@]} -ge 2 ] || fail "examples/lists/ holds ${#FILES[@]} pg15-*.guc files; a module file and an outside file are shipped"
ls "$SRCROOT"/examples/lists/pg15-*-outside.guc >/dev/null 2>&1 || fail "no pg15-*-outside.guc in examples/lists/"
# every other file is a version's whose root proves it (tests/world/versions.sh)
for f in "$SRCROOT"/examples/lists/*.guc; do
	case $(basename "$f") in
	pg15-* | pg17-debian13-x86_64.guc | pg18-sid-x86_64.guc | pg17-debian13-x86_64-outside.guc | pg18-sid-x86_64-outside.guc) ;;
	*) fail "examples/lists/$(basename "$f"): no test proves it as shipped (pg15-* here, pg17/pg18 in tests/world/versions.sh)" ;;
	esac
done
ITER=$SRCROOT/tools/pgsc-iterate
WORLD=$SRCROOT/tools/pgsc-check-world
"$WORLD" prepare >/dev/null || fail "pgsc-check-world prepare failed"

t_init lists-test
W=$T_WORK
chmod 755 "$W"
RESULT=fail
# the work directory is kept when the test fails, or PGSC_LISTS_KEEP=1
cleanup() {
	pg_stop_now "$W/c/data"
	[ "$RESULT" = pass ] || T_KEEP=1
}
T_KEEP=${PGSC_LISTS_KEEP:-0}
t_cleanup cleanup

DATA=$("$WORLD" cluster "$W/c" --port 54475) || fail "pgsc-check-world cluster failed"
# shellcheck source=../lib/auditd.sh
. "$HERE/../lib/auditd.sh"
audit_lock || fail "could not get the audit lock"
owner=$(audit_foreign_daemon)
[ -z "$owner" ] || fail "pid $owner is the kernel's audit daemon; pgsc-collect must be (netlink)"
export PGSC_AUDIT_LOCK_HELD=1
WCACHE=${PGSC_WORLD_CACHE:-/var/cache/pgsc-world}
MATCH=(--server-match "$W/c/data" --server-match "$WCACHE/src/" --server-match /tmp/pgsc-scen.)

# prove FILE TAG STEPS MODE...: pgsc-iterate's proof of FILE; its exit status
prove() {
	local f=$1 tag=$2 steps=$3 rc=0
	shift 3
	"$ITER" --datadir "$DATA" --bindir "$BINDIR" --workdir "$W/$tag" "${MATCH[@]}" \
		--source netlink --proof-only --lists "$f" "$@" --steps "$steps" \
		-- "$WORLD" run >"$W/$tag.out" 2>&1 || rc=$?
	return "$rc"
}

# check_proof TAG STEPS: the proof passed, every step ran and equals its baseline
check_proof() {
	local tag=$1 steps=$2 step t bs ps total=0
	grep -q "^pgsc-iterate: PROOF PASSED" "$W/$tag.out" || { cat "$W/$tag.out"; fail "$tag: the proof did not pass"; }
	grep -q "^pgsc-iterate: proof run (defaults error): 0 SECCOMP records of the server's processes" "$W/$tag.out" ||
		fail "$tag: the proof did not report 0 SECCOMP records"
	while read -r step; do
		t=$(tr '/:+' '___' <<<"$step")
		bs=$W/$tag/baseline-1-$t/status ps=$W/$tag/proof-1-$t/status
		[ -s "$bs" ] && [ -s "$ps" ] || fail "$tag: no status file of step $step"
		cmp -s "$bs" "$ps" || fail "$tag: step $step differs from the baseline: $(diff "$bs" "$ps" | head)"
		grep -q ' ok$' "$ps" || fail "$tag: step $step: no test passed: the suite did not really run"
		total=$((total + $(grep -c . "$ps")))
	done < <(tr ',' '\n' <<<"$steps")
	note "$tag: PROOF PASSED: $total tests in $(tr ',' '\n' <<<"$steps" | grep -c .) steps identical to the baseline, 0 SECCOMP records"
}

n=0 base=()
for f in "${FILES[@]}"; do
	b=$(basename "$f" .guc)
	case $b in
	*-outside)
		prove "$f" "$b" "$OSTEPS" --outside --baseline "${base[@]}" || true
		check_proof "$b" "$OSTEPS"
		# the postmasters really ran under pgsc-exec
		grep -q "^# pgsc-iterate outside: error$" "$DATA/pgsc-iterate.conf" ||
			fail "$b: the include of the proof did not say 'outside: error'"
		;;
	*)
		prove "$f" "$b" "$STEPS" --as-shipped --baseline || true
		check_proof "$b" "$STEPS"
		base=(--baseline-from "$W/$b")
		cmp -s "$f" "$DATA/pgsc-iterate.conf" || fail "$b: the proof's include is not the shipped file"
		;;
	esac
	n=$((n + 1))
done

# ------------------------------------------------ negative controls --
first=${STEPS%%,*}
mapfile -t NEEDS < <(sed -n '/^const char \*const filter_needs\[\] = {/,/NULL,/p' "$SRCROOT/src/filter_build.c" |
	grep -o '"[a-z0-9_]*"' | tr -d '"')
[ ${#NEEDS[@]} -ge 2 ] || fail "could not read filter_needs[] from src/filter_build.c"
for f in "${FILES[@]}"; do
	b=$(basename "$f" .guc)
	case $b in
	*-outside) victim=chdir mode=(--outside) ;;
	*) victim=pipe2 mode=(--as-shipped) ;;
	esac
	[[ " ${NEEDS[*]} chdir " == *" $victim "* ]] || fail "$victim is not among the module's needs (${NEEDS[*]})"
	grep -q "^pgsc\.global_syscall_allow = '.*\b$victim\b" "$f" || fail "$b: the shipped global list lacks $victim"
	drop_call "$f" 'pgsc\.global_syscall_allow' "$victim" >"$W/$b-neg.guc"
	chmod 644 "$W/$b-neg.guc"
	! grep -q "^pgsc\.global_syscall_allow = '.*\b$victim\b" "$W/$b-neg.guc" || fail "could not drop $victim"
	rc=0
	# the workload's exit status must stay the one with no filter (0)
	PGSC_ITERATE_EXPECT_RC=0 prove "$W/$b-neg.guc" "$b-neg" "$first" "${mode[@]}" || rc=$?
	[ "$rc" = 3 ] || fail "$b without $victim: pgsc-iterate exit $rc, not 3 (the proof must fail): $(tail -n 5 "$W/$b-neg.out")"
	note "negative control: $b without $victim fails ($(grep -h -m1 -o 'FATAL:.*' "$W/$b-neg"/server-proof-*.log 2>/dev/null | cut -c1-110 || true))"
done
RESULT=pass
note "all ${#FILES[@]} shipped files proven as shipped ($n), negative controls failed as they must"
