#!/bin/bash
# SPDX-License-Identifier: PostgreSQL
# tests/hardening/crash-live.sh BINDIR GOLDENDIR - kill -9 during live file: follow.
#
# A writer appends a large real log (tests/hardening/biglog.sh) to a file
# the way auditd does, in pieces cut at arbitrary bytes (mid-line,
# mid-event), for about 15 s.  `pgsc-collect --source file:LOG` follows it
# with a commit every 0.2 s and is killed with SIGKILL at 50 random
# moments, restarted after each kill; the last one catches up and is
# stopped with SIGTERM.  Then:
#   - PRAGMA integrity_check is ok after every kill and at the end;
#   - one round, finished, restarts = the number of kills, and the records
#     each restart found committed never went down;
#   - rounds.records = the SECCOMP lines of the log;
#   - the counts per (arch, syscall) equal those of a clean --import of
#     the finished log, and a clean live run (the same file followed once,
#     no kill) equals that import per (role, arch, syscall);
#   roles: the killed run's counts per (role, arch, syscall) equal the
#     clean live run's.
#   behind: a collector started on the whole finished log (far behind)
#     commits while it catches up (a stored position between the start
#     and the end is seen), is killed there and restarted: the counts
#     equal the clean run's.
# No audit daemon is involved: the file source reads a file, and a writer
# we control makes the test exact and repeatable.  crash-live-auditd.sh
# does the same against a real auditd.
#
# Environment: PGSC_HARDENING_COPIES (default 6), PGSC_HARDENING_KILLS
# (default 50), PGSC_HARDENING_KEEP=1.
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib.sh
. "$HERE/lib.sh"
hd_init crash-live "${1:-}"
hd_biglog 6 "${2:-}"
SIZE=$(stat -c %s "$BIG")
RECORDS=$(grep -c 'type=SECCOMP msg=audit(' "$BIG") # node=... prefixes too
KERR=$W/collect.err

WRITER=
# shellcheck disable=SC2016 # evaluated at exit
hd_on_exit '[ -n "$WRITER" ] && kill -KILL "$WRITER"; [ -n "$COLL" ] && kill -KILL "$COLL"'

# writer SRC DST SECS: append SRC to DST in random pieces over about SECS.
writer() {
	local src=$1 dst=$2 secs=$3 off=0 n size avg
	size=$(stat -c %s "$src")
	avg=$((size / (secs * 20) + 1))
	exec 3<"$src"
	while [ $off -lt "$size" ]; do
		n=$(((RANDOM * 32768 + RANDOM) % (2 * avg) + 1))
		[ $((off + n)) -gt "$size" ] && n=$((size - off))
		head -c "$n" <&3 >>"$dst"
		off=$((off + n))
		sleep 0.05
	done
	exec 3<&-
}

DB=$W/kills/k.db
check_kills() {
	local log=$W/kills/audit.log
	mkdir -p "$W/kills"
	: >"$log"
	writer "$BIG" "$log" 15 &
	WRITER=$!
	live_kills "$DB" "$log" "$KILLS" "$WRITER" || return
	wait "$WRITER" || bad "the writer failed"
	WRITER=
	cmp -s "$log" "$BIG" || bad "test invalid: the written log differs from the source"
	live_final "$DB" "$log" "$KILLS"
	[ "$(q "$DB" "SELECT records FROM rounds")" = "$RECORDS" ] ||
		bad "rounds.records = $(q "$DB" "SELECT records FROM rounds"), the log has $RECORDS SECCOMP records"
	echo "crash-live: $KILLS kills, $LK_DURING while the writer was writing; $RECORDS records; committed at the restarts: $(echo "$LF_BASE" | awk '{ printf "%s %s %s ... %s", $1, $2, $3, $NF }')"
}

# Attribution: what the killed run committed under each role.
check_roles() {
	live_roles "$DB"
}

# Far behind: the whole log is there when the collector starts.  It
# must commit on time while it reads, not only at the end.
check_behind() {
	local d=$W/behind db=$W/behind/b.db log off seen=
	[ -n "${CLEAN_LIVE:-}" ] || { bad "no clean run to compare with (check kills makes it)"; return; }
	mkdir -p "$d"
	log=$d/audit.log
	cp "$BIG" "$log"
	"$COLLECT" --db "$db" --source "file:$log" --from-start --commit-interval 0.02 2>>"$KERR" &
	COLL=$!
	# The collector reads this log in a fraction of a second: with the
	# SECCOMP reader's cache (decode_fast.c) the whole 29 MB in about
	# 40 ms of wall time, while a commit falls due 20 ms after the last one
	# and waits up to 50 ms more for an event boundary (live.c
	# commit_ready()).  So it runs in slices as short as the shell can
	# make them (a CONT and a STOP with no sleep between: well under a
	# millisecond to a few, against about 10 ms for each read of the
	# store), stopped between them: its commit timer is wall time, so a
	# commit falls due every few slices, and the store is read while it
	# is stopped.  Slices of 10 ms saw no commit before the end in 4 of 6
	# runs.  What is checked stays the same: a commit while far behind,
	# not only at the end.
	for _ in $(seq 1 20000); do
		kill -STOP "$COLL" 2>/dev/null || break
		# not q(): its 10 s busy wait is for a collector that runs.
		# This one is stopped, maybe holding the store's lock (making
		# it, a commit): the wait could only end in "locked", and cost
		# 10 s a time (the phase took 6 s to 86 s in one session).
		off=$(sqlite3 -batch -noheader -cmd ".timeout 100" "$db" \
			"SELECT max(offset) FROM sources" 2>/dev/null)
		case $off in
		'' | 0 | *[!0-9]*) ;;
		*)
			if [ "$off" -lt "$SIZE" ]; then
				seen=$off
				break
			fi
			break ;;
		esac
		kill -CONT "$COLL" 2>/dev/null || break
	done
	kill -KILL "$COLL" 2>/dev/null
	kill -CONT "$COLL" 2>/dev/null
	{ wait "$COLL"; } 2>/dev/null
	COLL=
	[ -n "$seen" ] || { bad "no commit while catching up with $SIZE bytes (first position seen: ${off:-none})"; return; }
	[ "$(integrity "$db")" = ok ] || bad "PRAGMA integrity_check after the kill: $(integrity "$db")"
	live_follow "$db" "$log"
	live_caught_up "$db" "$SIZE" || bad "the restarted collector did not catch up in 60 s"
	live_stop
	[ "$(counts "$db")" = "$(counts "$CLEAN_LIVE")" ] ||
		bad "counts per (role, arch, syscall) differ from a clean live run's: $(diff <(counts "$db") <(counts "$CLEAN_LIVE") | head -n 6 | tr '\n' ' ')"
	echo "crash-live: behind: killed at position $seen of $SIZE, then caught up"
}

run kills check_kills
run roles check_roles
run behind check_behind
hd_finish
