#!/bin/bash
# SPDX-License-Identifier: PostgreSQL
# systemd-boot.sh - a real cluster started by systemd through
# postgresql@15-main under the drop-in pgsc-report --format=systemd
# writes, in a booted Debian 12 root (docs/systemd.md).
#   bash tests/report/systemd-boot.sh BINDIR
#
# No systemd runs as PID 1 on this machine, so systemd-nspawn --boot
# boots one: the root is tools/pg-root --suite bookworm --with-systemd
# (debootstrap, cached in /var/cache/pgsc-roots/bookworm-systemd), under
# an overlay that this test throws away, in a cgroup of its own, with a
# private network (the cluster's port 5432 is the container's).
#
# The drop-in is pgsc-report's, from a store whose global list is the
# shipped examples/lists/pg15-debian12-x86_64-outside.guc: the recorded
# tests/golden/raw.log.gz with one SECCOMP record of its postmaster
# planted for each name of that list (the numbers from
# scmp_sys_resolver), so the drop-in holds the shipped list (and the
# recording's own calls).  Then, in the booted root:
#   1. what the unit's commands call (strace -f of pg_ctlcluster's start,
#      the unit's ExecStart, outside the unit): run as root, as Debian's
#      unit runs it, pg_ctlcluster makes calls of systemd's @setuid group
#      that the list does not hold (pgsc counts pg_ctlcluster's, pg_ctl's
#      and sh's records as unrelated); as postgres, printed;
#   2. the drop-in alone: the start fails, pg_ctlcluster says "Could not
#      change user id";
#   3. the drop-in and User=postgres, Group=postgres (docs/systemd.md):
#      the unit starts, every process of its cgroup has "Seccomp: 2",
#      the main PID is the postmaster, a query works; a program the
#      server runs (COPY ... TO PROGRAM) gets EPERM for times(2), a call
#      PostgreSQL never makes (in no shipped list, not in systemd's
#      @default), which the same program outside the unit is allowed;
#      the unit stops cleanly;
#   4. negative control: the drop-in without a call the postmaster alone
#      makes at start-up (the first, by number, of the recorded store's
#      global list whose only role is postmaster, made once, outside
#      @default: shmget) and the start fails with the server's error.
# Root; systemd-nspawn (package systemd-container), systemd-analyze,
# nsenter, scmp_sys_resolver, debootstrap and a Debian mirror the first
# time.  Fails, never skips, without them.  No audit daemon: the drop-in
# refuses (EPERM), it does not log.
set -e
# shellcheck source=../lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
export LC_ALL=C
t_script report/systemd-boot "systemd-boot.sh BINDIR" "$@"
t_init systemd-boot
set +e
T=$T_WORK
need_root "systemd-nspawn, mount, cgroups"
need_progs systemd-nspawn systemd-analyze nsenter scmp_sys_resolver debootstrap mount umount awk
need_exec "$BINDIR/pgsc-collect" "$BINDIR/pgsc-report"
SHIPPED=$SRCROOT/examples/lists/pg15-debian12-x86_64-outside.guc
need_file "$SHIPPED" "$SRCROOT/tests/golden/raw.log.gz" "$SRCROOT/src/report_needs.c"
UNIT=postgresql@15-main

# expand GROUP...: the names of systemd's groups, groups inside groups
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
# guc_list FILE KIND: the names of FILE's KIND (global, session) list
guc_list() {
	sed -n "s/^[a-z_.]*$2_syscall_allow = '\([a-z0-9_,]*\)'\$/\1/p" "$1" | tr ',' '\n' | sed '/^$/d' | sort -u
}
# filter_of DROPIN: the names of its SystemCallFilter= line
filter_of() {
	sed -n 's/^SystemCallFilter=//p' "$1" | tr ' ' '\n' | sed '/^$/d' | sort -u
}
words() { tr '\n' ' ' | sed 's/ $//'; }

# ---------------------------------------------------------- the drop-in --
guc_list "$SHIPPED" global >"$T/shipped"
[ -s "$T/shipped" ] || fail "no global list in $SHIPPED"
while read -r n; do
	nr=$(scmp_sys_resolver -a x86_64 "$n") && [[ "$nr" =~ ^[0-9]+$ ]] ||
		fail "scmp_sys_resolver does not know $n on x86_64"
	echo "$nr"
done <"$T/shipped" >"$T/nums"
zcat "$SRCROOT/tests/golden/raw.log.gz" >"$T/raw.log" || fail "cannot read tests/golden/raw.log.gz"
# The postmaster: the pid with the most SECCOMP records as postgres; the
# records go in after its first one, under the next serials, and every
# later event moves up by as many (pgsc-collect reads serials in order).
awk -v NUMS="$T/nums" '
BEGIN {
	while ((getline line < NUMS) > 0)
		nums[++k] = line
}
FNR == NR {
	if ($0 ~ /^type=SECCOMP / && index($0, " comm=\"postgres\" ") && match($0, / pid=[0-9]+ /))
		n[substr($0, RSTART + 5, RLENGTH - 6)]++
	next
}
FNR == 1 { for (p in n) if (n[p] > best) { best = n[p]; pm = p } }
{
	if (match($0, /msg=audit\([0-9.]+:[0-9]+\)/) == 0) { print; next }
	a = substr($0, RSTART, RLENGTH); s = a; sub(/.*:/, "", s); sub(/\)$/, "", s)
	t = a; sub(/:[0-9]+\)$/, "", t)
	if (done && s + 0 > s0)
		$0 = substr($0, 1, RSTART - 1) t ":" (s + k) ")" substr($0, RSTART + RLENGTH)
	print
	if (!done && $0 ~ /^type=SECCOMP / && index($0, " pid=" pm " ") && index($0, " comm=\"postgres\" ")) {
		done = 1; s0 = s + 0
		for (i = 1; i <= k; i++) {
			l = $0
			sub(/msg=audit\([0-9.]+:[0-9]+\)/, t ":" (s0 + i) ")", l)
			sub(/ syscall=[0-9]+ /, " syscall=" nums[i] " ", l)
			print l
		}
	}
}
END { if (!done) exit 2 }' "$T/raw.log" "$T/raw.log" >"$T/planted.log" ||
	fail "cannot plant the shipped list's records in the recorded log"
"$BINDIR/pgsc-collect" --db "$T/x.db" --import "$T/planted.log" >"$T/collect.out" 2>&1 ||
	{ cat "$T/collect.out"; fail "pgsc-collect --import of the planted log"; }
"$BINDIR/pgsc-report" --db "$T/x.db" --format systemd >"$T/pgsc.conf" ||
	fail "pgsc-report --format systemd"
"$BINDIR/pgsc-collect" --db "$T/g.db" --import "$T/raw.log" >/dev/null 2>&1 ||
	fail "pgsc-collect --import of the recorded log"
"$BINDIR/pgsc-report" --db "$T/g.db" --format json >"$T/g.json" || fail "pgsc-report --format json"
"$BINDIR/pgsc-report" --db "$T/g.db" >"$T/g.guc" || fail "pgsc-report"
filter_of "$T/pgsc.conf" >"$T/filter"
guc_list "$T/g.guc" global >"$T/recorded"
grep -qx 'SystemCallErrorNumber=EPERM' "$T/pgsc.conf" || fail "the drop-in has no SystemCallErrorNumber=EPERM"
grep -q '^# .*add User=postgres' "$T/pgsc.conf" && ok "the drop-in's comment asks for User=postgres (step 2 shows why)" ||
	bad "the drop-in's comment does not say that Debian's unit needs User=postgres"
lack=$(comm -23 "$T/shipped" "$T/filter" | words)
[ -z "$lack" ] && ok "the drop-in's SystemCallFilter= holds the shipped global list ($(wc -l <"$T/shipped") names)" ||
	bad "the drop-in lacks names of the shipped list: $lack"
extra=$(comm -13 "$T/shipped" "$T/filter" | comm -23 - "$T/recorded" | words)
[ -z "$extra" ] && ok "and beyond it only the recording's own calls: $(comm -13 "$T/shipped" "$T/filter" | words)" ||
	bad "the drop-in holds names neither list has: $extra"

expand @default | sort -u >"$T/default"
expand @setuid | sort -u >"$T/setuid"
[ -s "$T/default" ] && [ -s "$T/setuid" ] || fail "systemd-analyze syscall-filter gave no @default or @setuid"

# The refused probe: times(2), checked against the data
PROBE_CALL="times"
for f in "$SRCROOT"/examples/lists/*.guc; do
	for k in global session; do
		! guc_list "$f" $k | grep -qx "$PROBE_CALL" ||
			fail "$PROBE_CALL is in $(basename "$f")'s $k list: choose another call PostgreSQL never makes"
	done
done
! grep -qx "$PROBE_CALL" "$T/filter" "$T/default" ||
	fail "$PROBE_CALL is in the drop-in or in @default"
PROBE_NR=$(scmp_sys_resolver -a x86_64 $PROBE_CALL)
ALLOWED_NR=$(scmp_sys_resolver -a x86_64 getppid)
grep -qx getppid "$T/filter" || fail "getppid, the probe's allowed call, is not in the drop-in"

# The negative control's call: the first, by number, of the recorded
# global list whose only role is postmaster, made once (at start-up),
# outside @default (systemd allows those whatever the filter says)
NEG=$(awk -F'"' '/^    \{"name": / && /"arch": "x86_64"/ && /"global": true/ &&
	/"roles": \{"postmaster": 1\}/ { print $4 }' "$T/g.json" | grep -vxF -f "$T/default" | head -n 1)
[ -n "$NEG" ] || fail "no call of the postmaster alone, made once, in the recorded store"
grep -qx "$NEG" "$T/filter" || fail "$NEG is not in the drop-in"
note "negative control: without $NEG"

# ---------------------------------------------------------- the root --
ROOT=$(bash "$SRCROOT/tools/pg-root" --suite bookworm --with-systemd) ||
	fail "tools/pg-root --suite bookworm --with-systemd failed"
need_file "$ROOT/sbin/init" "$ROOT/lib/systemd/system/postgresql@.service" "$ROOT/usr/bin/strace"
M=$T/m
MOUNTED=
NSPAWN=
LEADER=
CGDIRS=()
# shellcheck disable=SC2317 # the cleanup
teardown() {
	local i d
	if [ -n "$LEADER" ] && [ -d "/proc/$LEADER" ]; then
		kill -s RTMIN+4 "$LEADER" 2>/dev/null # systemd: poweroff
	fi
	if [ -n "$NSPAWN" ]; then
		for ((i = 0; i < 600; i++)); do
			kill -0 "$NSPAWN" 2>/dev/null || break
			sleep 0.1
		done
		# the container's PID 1 (systemd-shutdown by now) takes its
		# whole PID namespace with it; then nspawn ends
		if kill -0 "$NSPAWN" 2>/dev/null; then
			note "the container did not power off in 60 s: killing its PID 1"
			kill -KILL "$LEADER" 2>/dev/null
			for ((i = 0; i < 100; i++)); do
				kill -0 "$NSPAWN" 2>/dev/null || break
				sleep 0.1
			done
			kill -KILL "$NSPAWN" 2>/dev/null
		fi
		wait "$NSPAWN" 2>/dev/null
	fi
	[ -z "${MOUNTED:-}" ] || umount "$M" || umount -l "$M" || note "cannot unmount $M"
	# nspawn leaves its propagation directory when /run is no tmpfs
	rmdir "/run/systemd/nspawn/propagate/pgsc-sd-$$" 2>/dev/null
	for d in "${CGDIRS[@]}"; do
		find "$d" -depth -mindepth 1 -type d -exec rmdir {} + 2>/dev/null
		rmdir "$d" 2>/dev/null || note "cannot remove the cgroup $d"
	done
}
t_cleanup teardown
mkdir -p "$T/up" "$T/work" "$M"
mount -t overlay overlay -o "lowerdir=$ROOT,upperdir=$T/up,workdir=$T/work" "$M" ||
	fail "cannot mount an overlay on $ROOT"
MOUNTED=1
# A cgroup of its own in each hierarchy systemd uses (name=systemd and
# the unified one when they are apart, the hybrid layout of this host):
# nspawn --keep-unit puts the container in "payload" below the cgroup it
# runs in, and what the container's systemd makes there is removed after.
CG=pgsc-systemd-boot-$$
for h in /sys/fs/cgroup/systemd /sys/fs/cgroup/unified /sys/fs/cgroup; do
	[ -f "$h/cgroup.procs" ] || continue
	case $(stat -f -c %T "$h") in cgroupfs | cgroup2fs) ;; *) continue ;; esac
	mkdir "$h/$CG" || fail "cannot make the cgroup $h/$CG"
	CGDIRS+=("$h/$CG")
done
[ ${#CGDIRS[@]} -gt 0 ] || fail "no cgroup hierarchy under /sys/fs/cgroup"

(
	for d in "${CGDIRS[@]}"; do echo "$BASHPID" >"$d/cgroup.procs" || exit 1; done
	exec systemd-nspawn --quiet --boot --private-network --register=no --keep-unit \
		--machine="pgsc-sd-$$" --directory="$M" </dev/null
) >"$T/nspawn.out" 2>&1 &
NSPAWN=$!
for ((i = 0; i < 600; i++)); do
	LEADER=$(pgrep -P "$NSPAWN" -x systemd | head -n 1)
	[ -n "$LEADER" ] && break
	kill -0 "$NSPAWN" 2>/dev/null || break
	sleep 0.1
done
[ -n "$LEADER" ] || { tail -n 20 "$T/nspawn.out"; fail "systemd-nspawn --boot started no systemd"; }
cin() { nsenter --target "$LEADER" --all -- "$@"; }
# systemd's own socket first: is-system-running cannot wait without it
for ((i = 0; i < 600; i++)); do
	cin test -S /run/systemd/private && break
	sleep 0.1
done
state=$(cin systemctl is-system-running --wait 2>&1)
case $state in
running | degraded) ok "systemd 252 booted in the root under systemd-nspawn ($state)" ;;
*) tail -n 20 "$T/nspawn.out"; fail "the booted root is '$state'" ;;
esac
[ "$(cin systemctl --version | head -n 1)" = "$(systemctl --version | head -n 1)" ] ||
	bad "the root's systemd is not the host's, whose systemd-analyze expanded the groups"
cin pg_createcluster 15 main >"$T/createcluster.out" 2>&1 ||
	{ cat "$T/createcluster.out"; fail "pg_createcluster 15 main in the root"; }

# ------------------------------------- 1. what the unit's commands call --
# strace_start AS OUT: strace -f of the unit's ExecStart run as AS (root
# or postgres) outside the unit, then the cluster stopped; the calls
# made in OUT as "COMM NAME" lines
EXECSTART=$(cin systemctl show -P ExecStart $UNIT | sed -n 's/.*argv\[\]=\([^;]*\) ;.*/\1/p')
[[ "$EXECSTART" == "/usr/bin/pg_ctlcluster "* ]] || fail "the unit's ExecStart is not pg_ctlcluster: '$EXECSTART'"
strace_start() {
	local as=$1 out=$2 pid i top="" log=/tmp/strace-$1.log
	local u=()
	[ "$as" = root ] || u=(-u "$as")
	cin rm -f "$log" /tmp/strace.pid
	# shellcheck disable=SC2016,SC2086 # the inner shell's $$; EXECSTART is a word list
	cin sh -c 'echo $$ >/tmp/strace.pid; exec "$@"' strace strace -f -Y "${u[@]}" -o "$log" $EXECSTART \
		>"$T/strace-$as.out" 2>&1 &
	pid=$!
	# strace itself waits for the postmaster: wait for pg_ctlcluster's exit
	for ((i = 0; i < 1200; i++)); do
		[ -n "$top" ] || top=$(cin head -n 1 "$log" 2>/dev/null | sed -n 's/^\([0-9]*\)<.*/\1/p')
		[ -z "$top" ] || ! cin grep -q "^$top<[^>]*> +++ exited with" "$log" || break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	if [ -z "$top" ] || ! cin grep -q "^$top<[^>]*> +++ exited with 0 +++" "$log"; then
		cat "$T/strace-$as.out"
		# shellcheck disable=SC2016 # the inner shell expands it
		cin sh -c 'kill -KILL "$(cat /tmp/strace.pid)"'
		cin pg_ctlcluster 15 main stop -m immediate >/dev/null 2>&1
		wait "$pid"
		return 1
	fi
	cin pg_ctlcluster 15 main stop >>"$T/strace-$as.out" 2>&1 || { cat "$T/strace-$as.out"; return 1; }
	wait "$pid" || { cat "$T/strace-$as.out"; return 1; }
	cin cat "$log" | awk '
		match($0, /^[0-9]+<[^>]*> [a-z0-9_]+\(/) {
			s = substr($0, 1, RLENGTH - 1); sub(/^[0-9]+</, "", s)
			print substr(s, 1, index(s, ">") - 1), substr(s, index(s, "> ") + 2)
		}' | sort -u >"$out"
	[ -s "$out" ]
}
# refused PROGRAM CALLS: what PROGRAM called that neither the drop-in
# nor @default allows
refused() { awk -v c="$1" '$1 == c { print $2 }' "$2" | sort -u | comm -23 - "$T/filter" | comm -23 - "$T/default"; }
if strace_start root "$T/calls-root"; then
	r=$(refused pg_ctlcluster "$T/calls-root" | words)
	s=$(refused pg_ctlcluster "$T/calls-root" | comm -12 - "$T/setuid" | words)
	[ -n "$s" ] && ok "as root (Debian's unit), pg_ctlcluster calls what the drop-in refuses: $r (of @setuid: $s)" ||
		bad "as root, pg_ctlcluster calls nothing of @setuid outside the drop-in ($r)"
else
	bad "strace of pg_ctlcluster's start as root"
fi
if strace_start postgres "$T/calls-pg"; then
	for c in pg_ctlcluster pg_ctl sh psql postgres; do
		note "as postgres, $c: $(awk -v c=$c '$1 == c' "$T/calls-pg" | wc -l) different calls, outside the drop-in and @default: $(refused $c "$T/calls-pg" | words)"
	done
	[ -z "$(refused pg_ctlcluster "$T/calls-pg" | comm -12 - "$T/setuid")" ] &&
		ok "as postgres, pg_ctlcluster makes no call of @setuid outside the drop-in" ||
		bad "as postgres, pg_ctlcluster still calls @setuid names outside the drop-in"
	! awk '$1 != "postgres" { print $2 }' "$T/calls-pg" | grep -qx "$NEG" &&
		ok "$NEG is the postmaster's alone: pg_ctlcluster, pg_ctl, sh and psql never call it" ||
		bad "$NEG is called by the unit's other programs too"
else
	bad "strace of pg_ctlcluster's start as postgres"
fi

# ------------------------------------------------------ the unit runs --
D=$M/etc/systemd/system/$UNIT.service.d
mkdir -p "$D"
# start_unit: daemon-reload and start the unit; its journal in
# $T/journal; the status of systemctl start
start_unit() {
	local rc inv
	cin systemctl reset-failed $UNIT 2>/dev/null
	cin systemctl daemon-reload || return 99
	cin systemctl start $UNIT >/dev/null 2>&1
	rc=$?
	inv=$(cin systemctl show -P InvocationID $UNIT)
	cin journalctl --no-pager -o cat "_SYSTEMD_INVOCATION_ID=$inv" >"$T/journal" 2>&1
	return $rc
}
# the start can never hang the test (the unit's TimeoutStartSec=0)
printf '[Service]\nTimeoutStartSec=120\n' >"$D/zz-test-timeout.conf"

# 2. the drop-in alone
cp "$T/pgsc.conf" "$D/pgsc.conf"
if start_unit; then
	bad "$UNIT started under the drop-in alone, pg_ctlcluster running as root"
	cin systemctl stop $UNIT
elif grep -q 'Could not change user id' "$T/journal"; then
	ok "the drop-in alone: $UNIT fails, pg_ctlcluster: $(grep -m1 'Could not change user id' "$T/journal")"
else
	bad "the drop-in alone: $UNIT fails, but not on the user id: $(tail -n 3 "$T/journal" | words)"
fi

# 3. with the owner
printf '[Service]\nUser=postgres\nGroup=postgres\n' >"$D/owner.conf"
if start_unit; then
	ok "the drop-in and User=postgres: $UNIT starts"
	mainpid=$(cin systemctl show -P MainPID $UNIT)
	cg=$(cin systemctl show -P ControlGroup $UNIT)
	[ "$(cin cat "/proc/$mainpid/comm")" = postgres ] &&
		ok "its main PID $mainpid is the postmaster" || bad "its main PID $mainpid is not postgres"
	procs=$(cin sh -c "cat /sys/fs/cgroup/unified$cg/cgroup.procs 2>/dev/null || cat /sys/fs/cgroup$cg/cgroup.procs")
	n=0 unfiltered=
	for p in $procs; do
		n=$((n + 1))
		[ "$(cin grep '^Seccomp:' "/proc/$p/status" | awk '{ print $2 }')" = 2 ] || unfiltered="$unfiltered $p"
	done
	[ "$n" -gt 1 ] && [ -z "$unfiltered" ] && ok "Seccomp: 2 in all $n processes of the unit" ||
		bad "processes of the unit ($n) without Seccomp: 2:$unfiltered"
	q=$(cin runuser -u postgres -- psql -X -Atq -c 'CREATE TABLE t AS SELECT g FROM generate_series(1, 1000) g' \
		-c 'CHECKPOINT' -c 'SELECT count(*) FROM t' 2>&1)
	[ "$q" = 1000 ] && ok "a query works (1000 rows written, checkpointed, counted)" || bad "the query gave '$q'"
	probe="perl -e 'for (@ARGV) { my (\$n, \$nr) = split /=/; my \$r = syscall(\$nr, 0);
		print \"\$n \", (\$r == -1 ? \"refused \" . (\$! + 0) : \"allowed\"), \"\\n\" }' $PROBE_CALL=$PROBE_NR getppid=$ALLOWED_NR"
	cin runuser -u postgres -- psql -X -Atq -c "COPY (SELECT 1) TO PROGRAM \$pgsc\$ $probe >/tmp/probe.out 2>&1 \$pgsc\$" >/dev/null 2>&1
	in=$(cin cat /tmp/probe.out 2>&1 | words)
	out=$(cin runuser -u postgres -- sh -c "$probe" 2>&1 | words)
	[ "$in" = "$PROBE_CALL refused 1 getppid allowed" ] && [ "$out" = "$PROBE_CALL allowed getppid allowed" ] &&
		ok "a program the server runs gets EPERM for $PROBE_CALL, allowed outside the unit (in: $in; out: $out)" ||
		bad "the probe: in the unit '$in', outside '$out'"
	if cin systemctl stop $UNIT && [ "$(cin systemctl is-active $UNIT)" = inactive ]; then
		ok "$UNIT stops cleanly (ExecStop, pg_ctlcluster under the filter)"
	else
		bad "$UNIT did not stop cleanly: $(cin systemctl is-active $UNIT)"
	fi
else
	bad "the drop-in and User=postgres: $UNIT does not start: $(tail -n 5 "$T/journal" | words)"
fi

# 4. negative control
awk -v c="$NEG" '/^SystemCallFilter=/ { sub("=" c " ", "="); sub(" " c " ", " "); sub(" " c "$", "") } { print }' \
	"$T/pgsc.conf" >"$D/pgsc.conf"
if grep -qw "$NEG" <(filter_of "$D/pgsc.conf"); then
	bad "could not take $NEG out of the drop-in"
elif start_unit; then
	bad "without $NEG, $UNIT still starts"
	cin systemctl stop $UNIT
else
	l=$(cin tail -n 20 /var/log/postgresql/postgresql-15-main.log | grep -m1 -i "$NEG\|shared memory")
	[ -n "$l" ] && ok "without $NEG, $UNIT fails: $l" ||
		bad "without $NEG, $UNIT fails, but the server's log does not say why: $(tail -n 3 "$T/journal" | words)"
fi
t_done
