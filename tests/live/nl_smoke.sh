#!/bin/bash
# SPDX-License-Identifier: PostgreSQL
# tests/live/nl_smoke.sh [NL_SMOKE] [N] - live test of src/netlink.c (root).
#
# Holding the audit lock ($PGSC_AUDIT_LOCK, /run/pgsc-audit.lock) for the
# whole run, it
#   1. runs nl_smoke N: take over from a dead daemon, read N SECCOMP
#      records and a marker, check lost, unregister;
#   2. starts a private auditd (tests/lib/auditd.sh) and runs
#      nl_smoke --expect-refusal: netlink_open must fail with -EEXIST;
#   3. puts back the audit settings it found.
# NL_SMOKE is a built tests/live/nl_smoke.c; without it the script builds
# one with gcc.
set -e
# shellcheck source=../lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
t_init nl_smoke.sh
export LC_ALL=C
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SRCROOT=$(cd "$HERE/../.." && pwd)
LOCK=${PGSC_AUDIT_LOCK:-/run/pgsc-audit.lock}
N=${2:-5000}

need_root
need_progs auditd auditctl flock gcc

W=$T_WORK
SAVED=()
cleanup() {
	audit_end 2>/dev/null
	if [ ${#SAVED[@]} = 3 ]; then
		auditctl -b "${SAVED[1]}" >/dev/null 2>&1
		auditctl --backlog_wait_time "${SAVED[2]}" >/dev/null 2>&1
		auditctl -e "${SAVED[0]}" >/dev/null 2>&1
	fi
}
t_cleanup cleanup

# Our lock is held on fd 8 for the whole run; auditd.sh takes its own on
# a private file, or its audit_lock would drop ours while re-taking it.
exec 8>"$LOCK"
flock -w 900 8 || fail "could not get the audit lock $LOCK"
PGSC_AUDIT_LOCK=$W/private.lock
# shellcheck source=../lib/auditd.sh
. "$HERE/../lib/auditd.sh"

if [ -n "${1:-}" ]; then
	BIN=$1
else
	BIN=$W/nl_smoke
	gcc -std=c11 -D_GNU_SOURCE -O2 -I "$SRCROOT/src" \
		"$SRCROOT/tests/live/nl_smoke.c" "$SRCROOT/src/netlink.c" \
		"$SRCROOT/src/util.c" -laudit -lseccomp -o "$BIN" ||
		fail "cannot build nl_smoke"
fi
[ -x "$BIN" ] || fail "$BIN is not executable"

owner=$(audit_foreign_daemon)
[ -z "$owner" ] || fail "pid $owner ($(cat /proc/"$owner"/comm 2>/dev/null)) is the audit daemon; stop it first"
SAVED=("$(_audit_status enabled)" "$(_audit_status backlog_limit)" "$(_audit_status backlog_wait_time)")

echo "nl_smoke.sh: 1. netlink source, $N records"
"$BIN" "$N" || fail "nl_smoke $N"

echo "nl_smoke.sh: 2. refusal next to a private auditd"
audit_begin "$W/auditd" || fail "cannot start a private auditd"
"$BIN" --expect-refusal || fail "nl_smoke --expect-refusal"
audit_end
[ "$(_audit_status pid)" = 0 ] || fail "the private auditd is still registered"
echo "nl_smoke.sh: ok"
