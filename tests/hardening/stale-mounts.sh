#!/bin/bash
# SPDX-License-Identifier: PostgreSQL
# tests/hardening/stale-mounts.sh - tools/root-mounts.sh, which takes away
# what a killed run left mounted below a Debian root (tools/pg-root).
#
# Runs as root (mount).  In a private directory: a "root" that is a
# tmpfs of its own, with what a run killed by SIGKILL leaves below it
# (proc, a tmpfs at dev/shm that a leftover process still uses, a bind
# at pgsc, as of the source tree, and a tmpfs inside that), and a sibling
# whose name the root's is a prefix of ("rootx"), with a mount of its
# own.  root_mounts_take (the lock, then root_clear_stale) must first
# wait and give up, unmounting nothing, while another run holds the
# root's mounts lock; once it is free it must:
#   - unmount all four below the root, the deepest before its parent,
#     the busy one too (umount -l), each named in a note;
#   - leave the root's own file system, and the sibling's mount, alone;
#   - return 0; a second root_clear_stale finds nothing and says nothing.
# The end-to-end case (a stale proc and dev/shm in the sid root before a
# glibc-matrix run) is tests/matrix/run.sh's step 2.

# shellcheck source=../lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
SRCROOT=$T_SRCROOT
t_init stale-mounts
need_root "mount"
need_progs mount umount findmnt sleep
T=$T_WORK
# shellcheck source=../../tools/root-mounts.sh
. "$SRCROOT/tools/root-mounts.sh"

R=$T/root
X=$T/rootx
SLEEPER=
HOLDER=
mounted() { findmnt -rn --mountpoint "$1" >/dev/null 2>&1; }
# shellcheck disable=SC2317 # a cleanup
undo() {
	[ -z "$SLEEPER" ] || kill "$SLEEPER" 2>/dev/null || true
	[ -z "$HOLDER" ] || kill "$HOLDER" 2>/dev/null || true
	local m
	for m in "$R/pgsc/deep" "$R/pgsc" "$R/dev/shm" "$R/proc" "$R" "$X/proc"; do
		! mounted "$m" || umount -l "$m" 2>/dev/null || true
	done
}
t_cleanup undo

mkdir -p "$R" "$X/proc"
mount -t tmpfs -o size=4m pgsc-test-root "$R" || fail "mount -t tmpfs on $R failed"
mkdir -p "$R/proc" "$R/dev/shm" "$R/pgsc"
mount -t proc -o nosuid,nodev,noexec proc "$R/proc" || fail "mount -t proc on $R/proc failed"
mount -t tmpfs -o size=1m pgsc-test-shm "$R/dev/shm" || fail "mount -t tmpfs on $R/dev/shm failed"
mkdir -p "$T/src/tests"
echo kept >"$T/src/tests/file"
mount --bind "$T/src" "$R/pgsc" || fail "mount --bind on $R/pgsc failed"
mount -t tmpfs -o size=1m pgsc-test-deep "$R/pgsc/tests" || fail "mount -t tmpfs on $R/pgsc/tests failed"
mount -t tmpfs -o size=1m pgsc-test-sibling "$X/proc" || fail "mount -t tmpfs on $X/proc failed"
# a process a killed run left behind, its working directory in dev/shm:
# a plain umount fails (EBUSY), umount -l does not
(cd "$R/dev/shm" && exec sleep 600) &
SLEEPER=$!
sleep 0.2
umount "$R/dev/shm" 2>/dev/null && fail "umount $R/dev/shm succeeded with a process in it: the busy case is not tested"

[ "$(root_stale_mounts "$R" | sort | tr '\n' ' ')" = "$R/dev/shm $R/pgsc $R/pgsc/tests $R/proc " ] ||
	fail "root_stale_mounts $R: '$(root_stale_mounts "$R" | tr '\n' ' ')', expected the four below it"

# while a live run holds the root's mounts lock, its mounts are its own:
# root_mounts_take waits, gives up (PGSC_ROOT_LOCK_WAIT) and touches none
(exec 9>"$R.mounts.lock" && flock 9 && exec sleep 600) &
HOLDER=$! # the sleep itself, holding the lock: killing it frees the lock
sleep 0.2
rc=0
( PGSC_ROOT_LOCK_WAIT=1 root_mounts_take stale-test "$R" ) 2>"$T/busy.err" || rc=$?
kill "$HOLDER" 2>/dev/null
wait "$HOLDER" 2>/dev/null
HOLDER=
[ "$rc" = 1 ] || fail "root_mounts_take returned $rc with the lock held elsewhere (1 expected): $(cat "$T/busy.err")"
grep -q "waiting for $R.mounts.lock" "$T/busy.err" && grep -q "stayed busy" "$T/busy.err" ||
	fail "root_mounts_take did not say it waited and gave up: $(cat "$T/busy.err")"
! grep -q unmounting "$T/busy.err" || fail "root_mounts_take unmounted with the lock held elsewhere"
mounted "$R/proc" || fail "$R/proc went while another run held the lock"

rc=0
root_mounts_take stale-test "$R" 2>"$T/clear.err" || rc=$?
[ "$rc" = 0 ] || fail "root_mounts_take returned $rc: $(cat "$T/clear.err")"
for m in "$R/pgsc/tests" "$R/dev/shm" "$R/pgsc" "$R/proc"; do
	! mounted "$m" || fail "$m is still mounted after root_clear_stale"
	grep -qF "stale-test: unmounting $m: left by a run that was killed" "$T/clear.err" ||
		fail "no note for $m: $(cat "$T/clear.err")"
done
[ "$(grep -c unmounting "$T/clear.err")" = 4 ] || fail "not 4 notes: $(cat "$T/clear.err")"
first=$(grep -n "unmounting $R/pgsc/tests:" "$T/clear.err" | cut -d: -f1)
parent=$(grep -n "unmounting $R/pgsc:" "$T/clear.err" | cut -d: -f1)
[ "$first" -lt "$parent" ] || fail "$R/pgsc was unmounted before $R/pgsc/tests, which is below it"
mounted "$R" || fail "root_clear_stale unmounted the root's own file system $R"
mounted "$X/proc" || fail "root_clear_stale unmounted $X/proc, which is not below $R"
[ "$(cat "$T/src/tests/file")" = kept ] || fail "the bind's source lost its file"

root_clear_stale stale-test "$R" 2>"$T/again.err" || fail "a second root_clear_stale failed: $(cat "$T/again.err")"
[ ! -s "$T/again.err" ] || fail "a second root_clear_stale said something: $(cat "$T/again.err")"
note "PASS: 4 stale mounts below $R unmounted deepest first (one busy), the root's own and a sibling's kept"
