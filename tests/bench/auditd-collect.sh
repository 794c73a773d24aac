#!/bin/bash
# SPDX-License-Identifier: PostgreSQL
# tests/bench/auditd-collect.sh - stands in for pgsc-collect in one
# pgsc-iterate round of tests/bench/world-cost.sh's (a'): the records
# written by auditd alone, pgsc out of the way while the workload runs.
#
#   auditd-collect.sh --db DB --label L --server-user U [--source S] -- CMD...
#
# (pgsc-iterate's round command line).  It starts a private auditd
# (tests/lib/auditd.sh: its own configuration and log directory) with the
# audit rules pgsc-collect itself would load (pgsc-collect --print-rules),
# runs CMD, stops auditd and puts back what it changed; only then, outside
# the workload's timed part, it imports the log into DB with the real
# pgsc-collect (PGSC_REAL_COLLECT), so that pgsc-iterate finds its round.
# pgsc-iterate holds the audit lock meanwhile (the lock of
# tests/lib/auditd.sh is then a private one).  Exit: CMD's status.
set -uo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REAL=${PGSC_REAL_COLLECT:?PGSC_REAL_COLLECT: the real pgsc-collect}
DB='' LABEL='' USER_=''
while [ $# -gt 0 ]; do
	case $1 in
	--db) DB=$2; shift 2 ;;
	--label) LABEL=$2; shift 2 ;;
	--server-user) USER_=$2; shift 2 ;;
	--source) shift 2 ;;
	--) shift; break ;;
	*) echo "auditd-collect: unknown option '$1'" >&2; exit 2 ;;
	esac
done
[ -n "$DB" ] && [ $# -ge 1 ] || { echo "usage: auditd-collect.sh --db DB ... -- CMD..." >&2; exit 2; }
# the caller (pgsc-iterate) holds the audit lock: ours is a private one
export PGSC_AUDIT_LOCK=${PGSC_AUDIT_LOCK_INNER:-/run/pgsc-audit-inner.lock}
# shellcheck source=../lib/auditd.sh
. "$HERE/../lib/auditd.sh"
D=$(mktemp -d /var/tmp/pgsc-auditd-collect.XXXXXX)
trap 'audit_end; rm -rf "$D"' EXIT
audit_begin "$D/a" || exit 1
"$REAL" --print-rules >"$D/rules" || exit 1
auditctl -R "$D/rules" >/dev/null || exit 1
rc=0
"$@" || rc=$?
audit_sync || true
audit_end
label=()
[ -z "$LABEL" ] || label=(--label "$LABEL")
user=()
[ -z "$USER_" ] || user=(--server-user "$USER_")
"$REAL" --db "$DB" "${label[@]}" "${user[@]}" --quiet --import "$D"/a/audit.log* ||
	echo "auditd-collect: the import of the private auditd's log failed" >&2
exit "$rc"
