# SPDX-License-Identifier: PostgreSQL
# shellcheck shell=bash
# tests/lib/auditd.sh - start and stop a private auditd for pgsc's tests.
#
# Sourced by the live tests, the demo and the benchmark.  Only one process
# can be the kernel's audit daemon, so everything that takes the role holds
# an exclusive lock on $PGSC_AUDIT_LOCK for as long as it runs, and puts
# back what it changed: the rules, the backlog settings, the enabled flag.
#
#   audit_begin DIR     lock, save state, start auditd writing DIR/audit.log
#   audit_rules FILE    load a rules file (on top of a clean rule set)
#   audit_end           stop auditd, restore rules and settings, unlock
#
# Callers install "trap audit_end EXIT" themselves.

PGSC_AUDIT_LOCK=${PGSC_AUDIT_LOCK:-/run/pgsc-audit.lock}
PGSC_AUDIT_DIR=
PGSC_AUDITD_PID=
_pgsc_saved_rules=
_pgsc_saved_status=

_audit_status() { auditctl -s | awk -v k="$1" '$1 == k { print $2 }'; }

# audit_lock: wait for the right to be the audit daemon (held on fd 9).
audit_lock() {
	exec 9>"$PGSC_AUDIT_LOCK"
	if ! flock -w 900 9; then
		echo "FAIL: could not get the audit lock $PGSC_AUDIT_LOCK" >&2
		return 1
	fi
}

# audit_foreign_daemon: print the pid of a registered audit daemon that is
# not ours, if any.
audit_foreign_daemon() {
	local owner
	owner=$(_audit_status pid)
	if [ -n "$owner" ] && [ "$owner" != 0 ] && [ "$owner" != "$PGSC_AUDITD_PID" ] &&
		kill -0 "$owner" 2>/dev/null; then
		echo "$owner"
	fi
}

audit_begin() {
	local dir=$1 _
	command -v auditd >/dev/null || { echo "FAIL: auditd is not installed" >&2; return 1; }
	mkdir -p "$dir"
	PGSC_AUDIT_DIR=$(cd "$dir" && pwd)
	audit_lock || return 1
	local owner
	owner=$(audit_foreign_daemon)
	if [ -n "$owner" ]; then
		echo "FAIL: pid $owner ($(cat "/proc/$owner/comm" 2>/dev/null)) is the kernel's audit daemon; stop it first (tests start their own)" >&2
		flock -u 9
		return 1
	fi
	_pgsc_saved_status="$(_audit_status enabled) $(_audit_status backlog_limit) $(_audit_status backlog_wait_time)"
	_pgsc_saved_rules="$PGSC_AUDIT_DIR/saved.rules"
	auditctl -l >"$_pgsc_saved_rules" 2>/dev/null || true
	mkdir -p "$PGSC_AUDIT_DIR/plugins.d"
	cat >"$PGSC_AUDIT_DIR/auditd.conf" <<CONF
local_events = yes
write_logs = yes
log_file = $PGSC_AUDIT_DIR/audit.log
log_group = root
log_format = ${PGSC_AUDIT_FORMAT:-ENRICHED}
flush = INCREMENTAL_ASYNC
freq = 50
max_log_file = ${PGSC_AUDIT_MAX_LOG_FILE:-0}
num_logs = ${PGSC_AUDIT_NUM_LOGS:-5}
priority_boost = 4
name_format = NONE
max_log_file_action = ${PGSC_AUDIT_MAX_LOG_FILE_ACTION:-IGNORE}
space_left = 2
space_left_action = IGNORE
admin_space_left = 1
admin_space_left_action = IGNORE
disk_full_action = IGNORE
disk_error_action = SYSLOG
use_libwrap = no
tcp_listen_queue = 5
tcp_max_per_addr = 1
tcp_client_max_idle = 0
distribute_network = no
q_depth = ${PGSC_AUDIT_Q_DEPTH:-2000}
overflow_action = SYSLOG
max_restarts = 10
plugin_dir = $PGSC_AUDIT_DIR/plugins.d
end_of_event_timeout = 2
CONF
	chmod 0640 "$PGSC_AUDIT_DIR/auditd.conf"
	auditctl -D >/dev/null
	auditctl -b 8192 --backlog_wait_time 60000 >/dev/null
	auditd -n -s nochange -c "$PGSC_AUDIT_DIR" >"$PGSC_AUDIT_DIR/auditd.out" 2>&1 &
	PGSC_AUDITD_PID=$!
	for _ in $(seq 1 100); do
		[ "$(_audit_status pid)" = "$PGSC_AUDITD_PID" ] && break
		sleep 0.1
	done
	if [ "$(_audit_status pid)" != "$PGSC_AUDITD_PID" ]; then
		echo "FAIL: private auditd did not register; its output:" >&2
		cat "$PGSC_AUDIT_DIR/auditd.out" >&2
		return 1
	fi
	auditctl -e 1 >/dev/null
	# Wait for the log file so that callers can tail it.
	for _ in $(seq 1 50); do [ -f "$PGSC_AUDIT_DIR/audit.log" ] && break; sleep 0.1; done
	return 0
}

# audit_rules FILE [POSTGRES_EXE]: load rules, substituting @POSTGRES@.
audit_rules() {
	local file=$1 exe=${2:-/usr/lib/postgresql/15/bin/postgres}
	sed "s|@POSTGRES@|$exe|g" "$file" >"$PGSC_AUDIT_DIR/pgsc.rules"
	auditctl -R "$PGSC_AUDIT_DIR/pgsc.rules" >/dev/null
}

# audit_sync: make sure everything the kernel queued so far is in the log.
# A marker record (a user message) goes through the same queue; wait for it.
audit_sync() {
	local tag="pgsc-sync-$$-$RANDOM$RANDOM" _
	auditctl -m "$tag" 2>/dev/null || true
	for _ in $(seq 1 300); do
		grep -q "$tag" "$PGSC_AUDIT_DIR"/audit.log 2>/dev/null && return 0
		sleep 0.1
	done
	echo "WARN: audit log sync marker not seen" >&2
	return 1
}

audit_end() {
	[ -n "$PGSC_AUDITD_PID" ] || return 0
	auditctl -D >/dev/null 2>&1 || true
	kill -TERM "$PGSC_AUDITD_PID" 2>/dev/null
	wait "$PGSC_AUDITD_PID" 2>/dev/null
	PGSC_AUDITD_PID=
	# auditd -s nochange leaves the pid registered until it exits; make
	# sure the registration is gone.
	local _
	for _ in $(seq 1 50); do
		local p; p=$(_audit_status pid)
		{ [ "$p" = 0 ] || ! kill -0 "$p" 2>/dev/null; } && break
		sleep 0.1
	done
	# shellcheck disable=SC2086 # three words: enabled, backlog, wait time
	set -- $_pgsc_saved_status
	[ -n "${2:-}" ] && auditctl -b "$2" >/dev/null 2>&1
	[ -n "${3:-}" ] && auditctl --backlog_wait_time "$3" >/dev/null 2>&1
	if [ -s "$_pgsc_saved_rules" ] && ! grep -q '^No rules' "$_pgsc_saved_rules"; then
		auditctl -R "$_pgsc_saved_rules" >/dev/null 2>&1 || true
	fi
	[ -n "${1:-}" ] && auditctl -e "$1" >/dev/null 2>&1
	flock -u 9 2>/dev/null
	return 0
}
