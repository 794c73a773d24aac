#!/bin/bash
# SPDX-License-Identifier: PostgreSQL
# unit-filter.sh - examples/systemd/pgsc-collect.service's commands run
# under the unit's own SystemCallFilter=, as systemd would impose it.
#   bash tests/examples/unit-filter.sh BINDIR SRCDIR
#
# No systemd runs as PID 1 here, so the filter is imposed by pgsc-exec:
#   1. the unit's SystemCallFilter= lines are expanded by systemd itself
#      (systemd-analyze syscall-filter, groups inside groups), the names
#      this arch has kept (scmp_sys_resolver), into a GUC file;
#   2. ExecStartPre (auditctl -D -k pgsc, then auditctl -R of the shipped
#      rules), ExecStart (pgsc-collect following a log file, with the
#      unit's own --self-filter) and ExecStopPost (auditctl -D -k pgsc)
#      run in turn
#      under "pgsc-exec --default error" with that list, the unit's paths
#      mapped to this tree (/usr/share/pgsc/X: examples/X, pgsc-collect:
#      BINDIR's, the store and the log: the work directory);
#   3. the collector counts every SECCOMP record of a recorded log
#      appended to the file it follows (tests/golden/raw.log: 5,412), and
#      stops with exit 0 on SIGTERM;
#      The first run starts with the shipped rules already loaded, as a
#      collector killed with -9 in wrap mode leaves them: the unit starts
#      all the same (and auditctl -R alone is shown to refuse them);
#   4. negative control: the same with fdatasync (SQLite's commit) taken
#      out of the list, and the collector must fail: the harness sees a
#      refused call.
# Root (auditctl); takes the audit lock while the rules are loaded, and
# removes them.
# shellcheck source=../lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
# shellcheck source=../lib/auditd.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/auditd.sh"
t_init unit-filter
t_bindir "unit-filter.sh BINDIR SRCDIR" "$@"
SRC=$(cd "${2:?usage: unit-filter.sh BINDIR SRCDIR}" && pwd)
UNIT=$SRC/examples/systemd/pgsc-collect.service
need_root auditctl
need_progs systemd-analyze scmp_sys_resolver auditctl sqlite3 flock
need_exec "$BINDIR/pgsc-collect" "$BINDIR/pgsc-exec"
need_file "$UNIT" "$SRC/tests/golden/raw.log.gz"
T=$T_WORK

# expand GROUP...: the names of systemd's groups, recursively
expand() {
	local g
	for g; do
		case $g in @*) ;; *) echo "$g"; continue ;; esac
		systemd-analyze syscall-filter "$g" 2>/dev/null |
			awk 'NR > 1 && $1 !~ /^#/ && NF == 1 { print $1 }' |
			while read -r n; do
				case $n in
				@*) expand "$n" ;;
				*) echo "$n" ;;
				esac
			done
	done
}

# The unit's filter: every SystemCallFilter= line in order, "~" lines
# taking names out.
: >"$T/allow"
while IFS= read -r v; do
	case $v in
	"~"*)
		# shellcheck disable=SC2086 # a list of groups
		expand ${v#\~} | sort -u >"$T/deny"
		grep -vxF -f "$T/deny" "$T/allow" >"$T/allow.new"
		mv "$T/allow.new" "$T/allow"
		;;
	*)
		# shellcheck disable=SC2086
		{ cat "$T/allow"; expand $v; } | sort -u >"$T/allow.new"
		mv "$T/allow.new" "$T/allow"
		;;
	esac
done < <(sed -n 's/^SystemCallFilter=//p' "$UNIT")
[ -s "$T/allow" ] || fail "the unit has no SystemCallFilter= (or systemd-analyze expanded none)"
# keep the names of this arch (systemd's groups name every arch's)
while read -r n; do
	nr=$(scmp_sys_resolver "$n" 2>/dev/null)
	[[ $nr =~ ^[0-9]+$ ]] && echo "$n"
done <"$T/allow" >"$T/native"
grep -qx '@system-service' <(sed -n 's/^SystemCallFilter=//p' "$UNIT") ||
	fail "the unit's filter is not built on @system-service"
echo "unit filter: $(wc -l <"$T/native") syscalls of x86_64 ($(wc -l <"$T/allow") names in systemd's groups)"
for n in setuid capset setrlimit; do
	grep -qx "$n" "$T/native" && bad "the unit's filter allows $n (~@privileged @resources)"
done

guc() { # FILE [NAME-TO-DROP]
	local l
	l=$(grep -vx "${2:-/}" "$T/native" | paste -sd, -)
	printf "global_syscall_allow = '%s'\nsession_syscall_allow = '%s'\n" "$l" "$l" >"$1"
}
guc "$T/unit.guc"
guc "$T/unit-no-fdatasync.guc" fdatasync

# The unit's commands, mapped to this tree.
cmd() {
	sed -n "s/^$1=-\{0,1\}//p" "$UNIT" |
		sed "s|/usr/share/pgsc/pgsc-self.guc|$SRC/examples/pgsc-self.guc|g; \
		     s|/usr/share/pgsc/|$SRC/examples/|g; s|^pgsc-collect |$BINDIR/pgsc-collect |; \
		     s|/var/lib/pgsc/|$T/DIR/|g; s|/var/log/audit/audit.log|$T/DIR/audit.log|g"
}
mapfile -t PRE < <(cmd ExecStartPre)
START=$(cmd ExecStart)
POST=$(cmd ExecStopPost)
[ ${#PRE[@]} = 2 ] && [ "${PRE[0]}" = "auditctl -D -k pgsc" ] &&
	grep -qx 'ExecStartPre=-auditctl -D -k pgsc' "$UNIT" ||
	fail "the first ExecStartPre is not -auditctl -D -k pgsc: ${PRE[*]}"
case "${PRE[1]}" in "auditctl -R $SRC/examples/pgsc.rules") ;; *) fail "the second ExecStartPre is not auditctl -R of the rules: ${PRE[1]}" ;; esac
case "$START" in *"--self-filter $SRC/examples/pgsc-self.guc"*) ;; *) fail "ExecStart has no --self-filter of the shipped list: $START" ;; esac
case "$POST" in "auditctl -D -k pgsc") ;; *) fail "ExecStopPost does not remove the rules: $POST" ;; esac

audit_lock || fail "no audit lock"
auditctl -l >"$T/saved.rules" 2>/dev/null
restore() {
	auditctl -D -k pgsc >/dev/null 2>&1
	flock -u 9 2>/dev/null
}
t_cleanup restore

# run_unit GUC TAG: the unit's commands under the filter of GUC; the
# collector's exit status in RC, its store in $T/TAG/pgsc.db
run_unit() {
	local guc=$1 tag=$2 d=$T/$2 pid
	mkdir -p "$d"
	: >"$d/audit.log"
	# the first may fail (the unit's "-"), so its status is not checked;
	# shellcheck disable=SC2086 # the unit's command words
	"$BINDIR/pgsc-exec" --default error --allow-file "$guc" --list global -- ${PRE[0]} \
		>"$d/pre0.out" 2>&1
	auditctl -l | grep -q 'key=pgsc' && bad "$tag: rules keyed pgsc left after the first ExecStartPre"
	# shellcheck disable=SC2086
	"$BINDIR/pgsc-exec" --default error --allow-file "$guc" --list global -- ${PRE[1]} \
		>"$d/pre.out" 2>&1 || bad "$tag: ExecStartPre under the unit's filter: $(tail -n 3 "$d/pre.out")"
	auditctl -l | grep -q 'key=pgsc' || bad "$tag: ExecStartPre loaded no rule keyed pgsc"
	# shellcheck disable=SC2086
	"$BINDIR/pgsc-exec" --default error --allow-file "$guc" --list global -- ${START//$T\/DIR/$d} \
		>"$d/collect.out" 2>&1 &
	pid=$!
	for _ in $(seq 1 100); do
		[ "$(sqlite3 "$d/pgsc.db" "SELECT (SELECT count(*) FROM rounds WHERE finished IS NULL AND last_commit IS NOT NULL) * (SELECT count(*) FROM sources)" 2>/dev/null)" = 1 ] && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	zcat "$SRC/tests/golden/raw.log.gz" >>"$d/audit.log"
	sleep 2
	kill -TERM "$pid" 2>/dev/null
	wait "$pid"
	RC=$?
	# shellcheck disable=SC2086
	"$BINDIR/pgsc-exec" --default error --allow-file "$guc" --list global -- $POST \
		>"$d/post.out" 2>&1 || bad "$tag: ExecStopPost under the unit's filter: $(tail -n 3 "$d/post.out")"
	auditctl -l | grep -q 'key=pgsc' && bad "$tag: rules keyed pgsc left after ExecStopPost"
}

# the rules a collector killed with -9 in wrap mode leaves loaded: the
# second ExecStartPre alone refuses them ("Rule exists"), so the first is
# what lets the unit start
auditctl -R "$SRC/examples/pgsc.rules" >/dev/null || fail "could not load the shipped rules"
# shellcheck disable=SC2086
! ${PRE[1]} >"$T/stale.out" 2>&1 && grep -q 'exists' "$T/stale.out"
check "with the rules already loaded, auditctl -R alone fails: $(grep -m1 exists "$T/stale.out")" $?
run_unit "$T/unit.guc" unit
N=$(sqlite3 "$T/unit/pgsc.db" "SELECT coalesce(sum(records), 0) FROM rounds" 2>/dev/null)
[ "$RC" = 0 ] && [ "$N" = 5412 ]
check "the unit's commands under its SystemCallFilter= and --self-filter: exit $RC, $N of 5412 records" $?
[ "$RC" = 0 ] || sed 's/^/  collect: /' "$T/unit/collect.out" | tail -n 5

run_unit "$T/unit-no-fdatasync.guc" control
N=$(sqlite3 "$T/control/pgsc.db" "SELECT coalesce(sum(records), 0) FROM rounds" 2>/dev/null)
[ "$RC" != 0 ]
check "negative control: without fdatasync the collector fails (exit $RC, $N records)" $?
t_done
