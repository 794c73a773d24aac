#!/bin/bash
# SPDX-License-Identifier: PostgreSQL
# root-mounts.sh - sourced, not run: what was left mounted below a Debian
# root (tools/pg-root) by a run that was killed.
#
# Every user of a root's mounts (tools/pgsc-world-root,
# tests/module/in-root.sh, tools/glibc-matrix, tools/pg-root's apt) holds
# ROOT.mounts.lock while anything of its own is mounted there, and
# unmounts it on exit.  A run killed with SIGKILL runs no exit trap: its
# mounts stay, and each later run found "ROOT/proc is already mounted"
# and failed (a CI run did, after an earlier run on the same machine was
# killed mid-test).  So a run that holds the lock and still finds a mount
# below the root knows it is a dead run's, and takes it away:
#
#   root_mounts_take PROG ROOT
#
# takes ROOT.mounts.lock on a descriptor of its own ($ROOT_MOUNTS_FD,
# held until exit or root_mounts_drop), waiting up to
# $PGSC_ROOT_LOCK_WAIT seconds (default 3600) with a note, then
# root_clear_stale PROG ROOT.  Returns 1, saying why, when either fails.
#
#   root_clear_stale PROG DIR
#
# unmounts everything mounted below DIR (not DIR itself: a root may live
# on a file system of its own), deepest first (umount,
# then umount -l when a leftover process still uses it), each named on
# stderr as PROG: note.  Returns 1, naming it, when one would not go.
# The caller must hold the lock that makes DIR's mounts its own (the
# mounts lock, or pg-root's cache lock for its ROOT.tmp).

# root_stale_mounts DIR: the mount points below DIR, deepest first
root_stale_mounts() {
	findmnt -rn -o TARGET | awk -v d="$1" 'index($0, d "/") == 1 { print length($0) "\t" $0 }' |
		sort -rn -k1,1 | cut -f2-
}

root_clear_stale() {
	local prog=$1 dir=$2 m rc=0
	while IFS= read -r m; do
		[ -n "$m" ] || continue
		echo "$prog: unmounting $m: left by a run that was killed (no other run holds $dir's mounts lock)" >&2
		umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || {
			echo "$prog: error: cannot unmount $m" >&2
			rc=1
		}
	done < <(root_stale_mounts "$dir")
	return "$rc"
}

root_mounts_take() {
	local prog=$1 root=$2
	exec {ROOT_MOUNTS_FD}>"$root.mounts.lock" || return 1
	if ! flock -n "$ROOT_MOUNTS_FD"; then
		echo "$prog: waiting for $root.mounts.lock (another run in the root)" >&2
		flock -w "${PGSC_ROOT_LOCK_WAIT:-3600}" "$ROOT_MOUNTS_FD" || {
			echo "$prog: error: $root stayed busy ($root.mounts.lock)" >&2
			return 1
		}
	fi
	root_clear_stale "$prog" "$root"
}

root_mounts_drop() {
	exec {ROOT_MOUNTS_FD}>&-
}
