#!/bin/bash
# SPDX-License-Identifier: PostgreSQL
# tests/module/in-root.sh SUITE PG - the module's real-server tests
# (module.sh) on the PostgreSQL of another Debian release, in its root.
#
# Runs as root (ctest labels "module" and "versions").  The root comes from
# tools/pg-root --with-build (a Debian SUITE root with postgresql-PG, made
# once with debootstrap and cached); this source tree is mounted read-only
# at /pgsc in it, the module is built there by the root's own compiler
# against the root's server headers (PGXS, -Werror), and module.sh runs
# inside the root, unchanged, on that build: the same checks as on the
# host's PostgreSQL 15, their version differences inside module.sh.
# Everything mounted is unmounted at exit.

set -euo pipefail
export LC_ALL=C

# shellcheck source=../lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
[ $# = 2 ] || { echo "usage: in-root.sh SUITE PG" >&2; exit 2; }
SUITE=$1
PGV=$2
t_traps "module-$SUITE"
need_root "debootstrap, chroot, mounts"
need_progs chroot mount umount findmnt
SRCROOT=$T_SRCROOT

ROOT=$(bash "$SRCROOT/tools/pg-root" --suite "$SUITE" --pg "$PGV" --with-build) ||
	fail "tools/pg-root --suite $SUITE --pg $PGV --with-build failed"
[ -x "$ROOT/usr/lib/postgresql/$PGV/bin/postgres" ] || fail "$ROOT has no PostgreSQL $PGV server"

# One user of the root's mounts at a time (tools/pgsc-world-root, the
# matrix): wait for the others.
# shellcheck source=../../tools/root-mounts.sh
. "$SRCROOT/tools/root-mounts.sh"
root_mounts_take "module-$SUITE" "$ROOT" || fail "cannot have $ROOT's mounts"
MOUNTS=()
unmount_all() {
	local i
	for ((i = ${#MOUNTS[@]} - 1; i >= 0; i--)); do
		umount "${MOUNTS[$i]}" 2>/dev/null || umount -l "${MOUNTS[$i]}" 2>/dev/null ||
			echo "module-$SUITE: warning: could not unmount ${MOUNTS[$i]}" >&2
	done
}
t_cleanup unmount_all
# mount_in TARGET ARGS...: mount below the root, unmounted at exit
mount_in() {
	local target=$ROOT$1
	shift
	mkdir -p "$target"
	! findmnt -rn --mountpoint "$target" >/dev/null 2>&1 ||
		fail "$target is already mounted (another run in this root?)"
	mount "$@" "$target" || fail "cannot mount $* on $target"
	MOUNTS+=("$target")
}
mount_in /proc -t proc -o nosuid,nodev,noexec proc
mount_in /dev/shm -t tmpfs -o nosuid,nodev,mode=1777 shm
mount_in /pgsc --bind "$SRCROOT"
mount -o remount,bind,ro "$ROOT/pgsc" || fail "cannot make $ROOT/pgsc read-only"

in_root() {
	chroot "$ROOT" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C "$@"
}
PGC=/usr/lib/postgresql/$PGV/bin/pg_config
[ "$(in_root "$PGC" --version | awk '{ print int($2) }')" = "$PGV" ] ||
	fail "$ROOT$PGC is not PostgreSQL $PGV's"
B=/var/tmp/pgsc-module-build
rm -rf "${ROOT:?}$B"
mkdir -p "$ROOT$B"
if ! in_root make -f /pgsc/src/pgmodule/Makefile -C "$B" PG_CONFIG="$PGC" COPT=-Werror \
	>"$ROOT$B.log" 2>&1; then
	cat "$ROOT$B.log" >&2
	fail "the module does not build against PostgreSQL $PGV's headers in $ROOT"
fi
note "$(in_root "$PGC" --version) in $ROOT ($(grep -o 'suite=.*' "$ROOT/.pgsc-root")): module built"
in_root bash /pgsc/tests/module/module.sh "$B" "$PGC" ||
	fail "module.sh failed on PostgreSQL $PGV in $ROOT"
