#!/bin/bash
# SPDX-License-Identifier: PostgreSQL
# tests/security/security.sh BINDIR - least privilege (docs/security.md).
#
# Runs as root with a private auditd (tests/lib/auditd.sh, the audit lock
# held throughout).  Checks, each printing "ok: NAME" or "FAIL: NAME: why":
#   store-mode     a new store and its -wal/-shm are 0600 under umask 000
#   user-dac       file: collector with --user nobody on a log only root may
#                  read: runs as nobody (Uid, Gid, Groups in /proc), keeps
#                  exactly CAP_AUDIT_CONTROL + CAP_DAC_READ_SEARCH, empty
#                  bounding and ambient sets; counts a storm exactly across
#                  a rotation
#   selflist       tools/pgsc-selflist derives pgsc-collect's own list here
#   self-golden    the golden and bad-input tests pass with every
#                  pgsc-collect under that list in error mode
#   user-loggroup  log_group = nobody's group: --user nobody keeps only
#                  CAP_AUDIT_CONTROL, runs under the self-filter in error
#                  mode (Seccomp: 2, NoNewPrivs: 1), counts a storm exactly
#                  across a rotation
#   user-plugin    the plugin source (a recorded log on a pipe) with --user
#                  nobody and the self-filter: cap_audit_control only,
#                  Seccomp: 2, every record counted
#   self-clean     no SECCOMP record of pgsc-collect in the audit log since
#                  the derivation (the error-mode filter logs every refusal)
#   self-control   the check can fail: an empty list in error mode makes
#                  an import fail and leaves pgsc-collect's records
#   shipped-list   examples/pgsc-self.guc against the derived list with
#                  pgsc-diff --equivalent: a derived name missing from the
#                  shipped file fails (users' collectors would be refused
#                  it); a shipped name not derived now only warns
#   wrap-*         wrap mode leaves no pgsc audit rule and no temporary
#                  file after a normal exit, SIGINT, SIGTERM, and kill -9
#                  followed by a restart (the rules are checked to be there
#                  while the command runs, and after the kill)
# Missing dependencies are failures.  auditd.sh starts auditd as a child
# of this shell: never a bare "wait".
# shellcheck source=../lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
T_NAME=security
export LC_ALL=C
[ $# -ge 1 ] && [ -d "$1" ] || fail "usage: security.sh BINDIR"
BIN=$(cd "$1" && pwd)
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
COLLECT=$BIN/pgsc-collect
STORM=$(readlink -f "$BIN/tests/storm")
ARCH=3221225534 NR=110 # x86_64 getppid, what tests/storm makes
need_root
[ "$(uname -m)" = x86_64 ] || fail "this test knows x86_64 only"
need_progs auditd auditctl sqlite3 flock awk stat
need_exec "$COLLECT" "$BIN/pgsc-report" "$BIN/pgsc-diff" "$STORM" "$TOP/tools/pgsc-selflist"
id nobody >/dev/null 2>&1 || fail "no user nobody"
NOBODY_UID=$(id -u nobody) NOBODY_GID=$(id -g nobody)
NOBODY_GROUP=$(id -gn nobody)

t_init security
T_KEEP=${PGSC_SECURITY_KEEP:-0}
W=$T_WORK
chmod 755 "$W"
# shellcheck source=../lib/auditd.sh
. "$TOP/tests/lib/auditd.sh"
BG=
cleanup() {
	[ -n "$BG" ] && kill -KILL "$BG" 2>/dev/null
	auditctl -D -k pgsc >/dev/null 2>&1
	audit_end
}
t_cleanup cleanup
q() { sqlite3 -batch -noheader -cmd ".timeout 10000" "$1" "$2" 2>&1; }
status_field() { awk -v k="$2:" '$1 == k { $1 = ""; sub(/^ /, ""); print }' "/proc/$1/status"; }

# ------------------------------------------------------------ store-mode --
(umask 000; "$COLLECT" --db "$W/mode.db" --quiet --import "$TOP/tests/fixtures/unit/import-small.log" 2>/dev/null)
m=$(stat -c %a "$W/mode.db" 2>/dev/null)
others=$(for f in "$W"/mode.db-wal "$W"/mode.db-shm; do [ -e "$f" ] && stat -c '%n %a' "$f"; done | awk '$2 != 600')
if [ "$m" = 600 ] && [ -z "$others" ]; then ok "store-mode (0600 under umask 000)"; else bad "store-mode: store mode $m, other files: $others"; fi

audit_begin "$W/audit" || fail "cannot start a private auditd"
LOG=$PGSC_AUDIT_DIR/audit.log

# live_run NAME ARGS...: a file: collector with ARGS, a storm of 20000,
# a rotation, a storm of 10000; checks exit 0 and exactly 30000 records.
# The collector's /proc/PID/status is left in $W/NAME.status.
live_run() {
	local name=$1 db=$W/$1.db rc n
	shift
	"$COLLECT" --db "$db" --source "file:$LOG" --commit-interval 0.5 "$@" \
		>"$W/$name.out" 2>&1 &
	BG=$!
	for _ in $(seq 1 100); do
		[ "$(q "$db" "SELECT count(*) FROM sources" 2>/dev/null)" = 1 ] && break
		sleep 0.1
	done
	sleep 0.5
	cp "/proc/$BG/status" "$W/$name.status" 2>/dev/null
	"$STORM" 20000 >/dev/null || bad "$name: storm failed"
	audit_sync
	kill -USR1 "$PGSC_AUDITD_PID"
	for _ in $(seq 1 50); do [ -e "$LOG.1" ] && break; sleep 0.1; done
	"$STORM" 10000 >/dev/null || bad "$name: storm failed"
	audit_sync
	sleep 1.5
	kill -TERM "$BG"
	wait "$BG"
	rc=$?
	BG=
	n=$(q "$db" "SELECT coalesce(sum(count),0) FROM aggregates WHERE arch = $ARCH AND nr = $NR")
	if [ "$rc" != 0 ] || [ "$n" != 30000 ]; then
		bad "$name: exit $rc, counted $n getppid records, expected exactly 30000: $(tail -5 "$W/$name.out")"
		return 1
	fi
	return 0
}

# cap_hex NAMES...: the CapEff mask of those capability numbers
cap_hex() { local m=0 c; for c in "$@"; do m=$((m | (1 << c))); done; printf '%016x' "$m"; }
CAP_DAC_READ_SEARCH=2 CAP_AUDIT_CONTROL=30

# check_ids NAME CAPS_HEX: the collector ran as nobody with exactly CAPS
check_ids() {
	local name=$1 want=$2 s=$W/$1.status
	[ -s "$s" ] || { bad "$name: no /proc status captured"; return 1; }
	local uid gid groups eff prm bnd amb
	uid=$(awk '$1 == "Uid:" { print $2, $3, $4, $5 }' "$s")
	gid=$(awk '$1 == "Gid:" { print $2, $3, $4, $5 }' "$s")
	groups=$(awk '$1 == "Groups:" { $1 = ""; print }' "$s" | xargs)
	eff=$(awk '$1 == "CapEff:" { print $2 }' "$s")
	prm=$(awk '$1 == "CapPrm:" { print $2 }' "$s")
	bnd=$(awk '$1 == "CapBnd:" { print $2 }' "$s")
	amb=$(awk '$1 == "CapAmb:" { print $2 }' "$s")
	local u=$NOBODY_UID g=$NOBODY_GID
	if [ "$uid" != "$u $u $u $u" ] || [ "$gid" != "$g $g $g $g" ] ||
		[ "$groups" != "$(id -G nobody | xargs)" ] || [ "$eff" != "$want" ] ||
		[ "$prm" != "$want" ] || [ "$bnd" != 0000000000000000 ] ||
		[ "$amb" != 0000000000000000 ]; then
		bad "$name: Uid '$uid' Gid '$gid' Groups '$groups' CapEff $eff CapPrm $prm CapBnd $bnd CapAmb $amb; expected uid/gid $u/$g, caps $want, empty bounding/ambient"
		return 1
	fi
	echo "    $name: Uid $uid, Groups $groups, CapEff $eff, CapBnd $bnd, Seccomp $(awk '$1 == "Seccomp:" { print $2 }' "$s")"
	return 0
}

# -------------------------------------------------------------- user-dac --
if live_run user-dac --user nobody &&
	check_ids user-dac "$(cap_hex $CAP_AUDIT_CONTROL $CAP_DAC_READ_SEARCH)"; then
	ok "user-dac (30000 of 30000 across a rotation as nobody with cap_audit_control,cap_dac_read_search)"
fi

# -------------------------------------------------------------- selflist --
START=$(stat -c %s "$LOG") INODE=$(stat -c %i "$LOG")
if "$TOP/tools/pgsc-selflist" --bindir "$BIN" --audit-log "$LOG" --out "$W/self.guc" 2>"$W/selflist.err"; then
	names=$(sed -n "s/^global_syscall_allow = '\(.*\)'$/\1/p" "$W/self.guc")
	n=$(echo "$names" | tr , '\n' | grep -c .)
	# every name must load (pgsc-exec resolves each; log mode lets true run)
	if [ "$n" -gt 0 ] && "$BIN/pgsc-exec" --default log --allow-file "$W/self.guc" -- true; then
		ok "selflist ($n syscalls: $names)"
	else
		bad "selflist: the list is empty or pgsc-exec cannot load it"
	fi
else
	bad "selflist: $(tail -5 "$W/selflist.err")"
fi
# The derivation's own records (log mode) end here; the rest must add none.
START=$(stat -c %s "$LOG") INODE=$(stat -c %i "$LOG")
EXE_TOKEN=" exe=\"$(readlink -f "$COLLECT")\" "

# ----------------------------------------------------------- self-golden --
if [ -s "$W/self.guc" ]; then
	if PGSC_SELF_FILTER=$W/self.guc PGSC_SELF_FILTER_ACTION=error \
		bash "$TOP/tests/lib/self-workloads.sh" "$BIN" "$W" 2>"$W/self-golden.err"; then
		ok "self-golden (golden, bad-input and input tests with the self-filter in error mode)"
	else
		bad "self-golden: $(cat "$W/self-golden.err")"
	fi
fi

# --------------------------------------------------------- user-loggroup --
# auditd applies a new log_group to the directory and the files on SIGHUP
sed -i "s/^log_group = .*/log_group = $NOBODY_GROUP/" "$PGSC_AUDIT_DIR/auditd.conf"
kill -HUP "$PGSC_AUDITD_PID"
for _ in $(seq 1 50); do [ "$(stat -c %G "$LOG")" = "$NOBODY_GROUP" ] && break; sleep 0.1; done
if [ "$(stat -c %G "$LOG")" != "$NOBODY_GROUP" ]; then
	bad "user-loggroup: auditd did not apply log_group = $NOBODY_GROUP"
elif [ -s "$W/self.guc" ] &&
	live_run user-loggroup --user nobody --self-filter "$W/self.guc" --self-filter-action error &&
	check_ids user-loggroup "$(cap_hex $CAP_AUDIT_CONTROL)"; then
	sec=$(awk '$1 == "Seccomp:" { print $2 }' "$W/user-loggroup.status")
	nnp=$(awk '$1 == "NoNewPrivs:" { print $2 }' "$W/user-loggroup.status")
	if [ "$sec" = 2 ] && [ "$nnp" = 1 ]; then
		ok "user-loggroup (30000 of 30000 across a rotation as nobody with cap_audit_control only, self-filter in error mode)"
	else
		bad "user-loggroup: Seccomp $sec NoNewPrivs $nnp, expected 2 and 1"
	fi
fi

# ----------------------------------------------------------- user-plugin --
# The plugin source (stdin, as auditd's dispatcher gives it) with --user
# and the self-filter: a recorded log through a pipe, counted exactly.
if [ -s "$W/self.guc" ]; then
	zcat "$TOP/tests/golden/raw.log.gz" >"$W/plug.log"
	want=$(grep -c '^type=SECCOMP ' "$W/plug.log")
	half=$(( $(wc -l <"$W/plug.log") / 2 ))
	mkfifo "$W/plug.fifo"
	"$COLLECT" --db "$W/plug.db" --source plugin --commit-interval 0.5 --user nobody \
		--self-filter "$W/self.guc" <"$W/plug.fifo" >"$W/plug.out" 2>&1 &
	BG=$!
	exec 7>"$W/plug.fifo"
	head -n "$half" "$W/plug.log" >&7
	sleep 1.5
	cp "/proc/$BG/status" "$W/user-plugin.status" 2>/dev/null
	tail -n +"$((half + 1))" "$W/plug.log" >&7
	exec 7>&-
	wait "$BG"
	rc=$?
	BG=
	got=$(q "$W/plug.db" "SELECT sum(records) FROM rounds")
	if [ "$rc" != 0 ] || [ "$got" != "$want" ]; then
		bad "user-plugin: exit $rc, $got records, expected $want: $(tail -5 "$W/plug.out")"
	elif check_ids user-plugin "$(cap_hex $CAP_AUDIT_CONTROL)" &&
		[ "$(awk '$1 == "Seccomp:" { print $2 }' "$W/user-plugin.status")" = 2 ]; then
		ok "user-plugin ($got of $want records as nobody with cap_audit_control only, self-filter in error mode)"
	else
		bad "user-plugin: not confined: $(grep -E 'Seccomp|CapEff' "$W/user-plugin.status" | xargs)"
	fi
fi

# ------------------------------------------------------------ self-clean --
audit_sync
if [ "$(stat -c %i "$LOG")" != "$INODE" ]; then
	# user-loggroup rotated: read the rotated file from START, then the new one
	since() { tail -c +"$((START + 1))" "$LOG.1"; cat "$LOG"; }
else
	since() { tail -c +"$((START + 1))" "$LOG"; }
fi
own=$(since | awk -v e="$EXE_TOKEN" '/^type=SECCOMP / && index($0, e)' | wc -l)
if [ "$own" = 0 ]; then
	ok "self-clean (0 SECCOMP records of pgsc-collect under the self-filter)"
else
	bad "self-clean: $own SECCOMP records of pgsc-collect, syscalls: $(since | awk -v e="$EXE_TOKEN" '/^type=SECCOMP / && index($0, e)' | grep -o ' syscall=[0-9]*' | sort | uniq -c | xargs)"
fi

# ---------------------------------------------------------- self-control --
# (with nothing allowed even exit_group fails: glibc's _exit then faults)
printf "global_syscall_allow = ''\nsession_syscall_allow = ''\n" >"$W/empty.guc"
START=$(stat -c %s "$LOG") INODE=$(stat -c %i "$LOG")
"$COLLECT" --db "$W/control.db" --self-filter "$W/empty.guc" --import "$TOP/tests/fixtures/unit/import-small.log" >/dev/null 2>&1
rc=$?
audit_sync
since() { tail -c +"$((START + 1))" "$LOG"; }
# the record shows the action only (SECCOMP_RET_ERRNO = 0x50000), not the errno
refused=$(since | awk -v e="$EXE_TOKEN" '/^type=SECCOMP / && index($0, e) && / code=0x50000/' | wc -l)
if [ "$rc" != 0 ] && [ "$refused" -gt 0 ]; then
	ok "self-control (an empty list: exit $rc, $refused refused syscalls logged)"
else
	bad "self-control: an empty list in error mode gave exit $rc and $refused refusals"
fi

# ---------------------------------------------------------- shipped-list --
SHIPPED=$TOP/examples/pgsc-self.guc
if [ ! -f "$SHIPPED" ]; then
	bad "shipped-list: $SHIPPED missing"
elif [ -s "$W/self.guc" ]; then
	"$BIN/pgsc-diff" --equivalent "$SHIPPED" "$W/self.guc" >"$W/shipped.diff" 2>&1
	rc=$?
	missing=$(awk '/^global:/ { g = 1; next } /^[a-z]+:/ { g = 0 } g && /^\+/ { print substr($0, 2) }' "$W/shipped.diff" | xargs)
	extra=$(awk '/^global:/ { g = 1; next } /^[a-z]+:/ { g = 0 } g && /^-/ { print substr($0, 2) }' "$W/shipped.diff" | xargs)
	if [ "$rc" -gt 1 ]; then
		bad "shipped-list: pgsc-diff failed: $(cat "$W/shipped.diff")"
	elif [ -n "$missing" ]; then
		bad "shipped-list: derived now but not in examples/pgsc-self.guc: $missing (regenerate: sudo tools/pgsc-selflist --bindir BUILD --out examples/pgsc-self.guc)"
	else
		[ -n "$extra" ] && echo "WARN: shipped-list: in examples/pgsc-self.guc but not derived in this run: $extra (rare paths, or pgsc changed: consider regenerating)"
		ok "shipped-list (examples/pgsc-self.guc covers the derived list)"
	fi
fi

# ---------------------------------------------------------------- wrap-* --
# Wrap mode loads pgsc's rules for the command's duration; whatever ends
# it, no rule and no temporary file may stay.  Temporary files: $TMPDIR
# (private here) and /tmp/pgsc-rules.* (where an earlier version wrote the
# rules file auditctl reads; now a memfd).
mkdir -p "$W/tmp"
rules() { auditctl -l 2>/dev/null | grep -c 'key=pgsc'; }
tmpfiles() { { ls -A "$W/tmp"; ls -d /tmp/pgsc-rules.* 2>/dev/null; } | grep -vxF -f "$W/tmp0" | xargs; }
ls -d /tmp/pgsc-rules.* 2>/dev/null >"$W/tmp0"
echo "/nonexistent" >>"$W/tmp0"
# wrap_start NAME: pgsc-collect -- sleep 60, until its rules are loaded.
# The collector passes SIGINT and SIGTERM on to the command (the command
# decides); the sleep takes SIGINT as a terminal's would, not ignored as
# this script's background commands are (env --default-signal).
wrap_start() {
	TMPDIR=$W/tmp "$COLLECT" --db "$W/wrap.db" --source "file:$LOG" --quiet -- \
		env --default-signal=INT sleep 60 >"$W/$1.out" 2>&1 &
	BG=$!
	for _ in $(seq 1 100); do
		CHILD=$(pgrep -P "$BG" -x sleep)
		[ "$(rules)" -gt 0 ] && [ -n "$CHILD" ] && return 0
		sleep 0.1
	done
	return 1
}
wrap_end() { # wrap_end NAME: wait for the collector, check leftovers
	local name=$1 rc n t
	for _ in $(seq 1 300); do kill -0 "$BG" 2>/dev/null || break; sleep 0.1; done
	wait "$BG"
	rc=$?
	BG=
	n=$(rules) t=$(tmpfiles)
	if [ "$n" = 0 ] && [ -z "$t" ]; then
		ok "$name (exit $rc, no pgsc rule, no temporary file)"
	else
		bad "$name: $n pgsc rules left, temporary files: '$t'"
	fi
}
TMPDIR=$W/tmp "$COLLECT" --db "$W/wrap.db" --source "file:$LOG" --quiet -- \
	sh -c 'auditctl -l | grep -c key=pgsc >'"$W/during"'' >/dev/null 2>&1 &
BG=$!
wrap_end wrap-exit
[ "$(cat "$W/during" 2>/dev/null)" -gt 0 ] 2>/dev/null || bad "wrap-exit: the rules were not loaded while the command ran (the check proves nothing)"
for sig in INT TERM; do
	if wrap_start "wrap-$sig"; then
		kill -"$sig" "$BG"
		wrap_end "wrap-sig$sig"
	else
		bad "wrap-sig$sig: the rules never appeared"
	fi
done
if wrap_start wrap-kill; then
	kill -KILL "$BG"
	wait "$BG" 2>/dev/null
	BG=
	kill -TERM "$CHILD" 2>/dev/null # the orphaned command, by its pid
	if [ "$(rules)" -gt 0 ]; then
		echo "    wrap-kill: $(rules) pgsc rules left by kill -9 (expected), restarting"
		TMPDIR=$W/tmp "$COLLECT" --db "$W/wrap.db" --source "file:$LOG" --quiet -- true >/dev/null 2>&1 &
		BG=$!
		wrap_end wrap-kill-restart
	else
		bad "wrap-kill: no rules after kill -9 (the check proves nothing)"
	fi
else
	bad "wrap-kill: the rules never appeared"
fi

t_done
