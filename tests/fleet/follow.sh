#!/bin/bash
# SPDX-License-Identifier: PostgreSQL
# tests/fleet/follow.sh - a central log of several nodes followed through
# kill -9, without the transport (no root, no audit state; the transport
# itself is tests/fleet/transport.sh):
#
#   bash tests/fleet/follow.sh BUILDDIR SRCDIR
#
# tests/bench/fleet_feed writes 5 nodes' records (tests/golden/raw.log
# under node=node01..05: the same pids on every node, a serial sequence
# per node) to one log at 20k records/s for 6 s, while pgsc-collect
# --source file: follows it and is killed with SIGKILL three times and
# restarted.  Asserts: the log holds per node what the feeder says it
# wrote; the store has one round with 3 restarts, every SECCOMP record
# written, 0 rejected, every line read; per node, pgsc's records (the
# report header's "# nodes:") are the feeder's; --import of the log agrees.
# shellcheck source=../lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
t_init fleet-follow

BUILD=$(cd "${1:?usage: follow.sh BUILDDIR SRCDIR}" && pwd)
SRC=$(cd "${2:?usage: follow.sh BUILDDIR SRCDIR}" && pwd)
COLLECT=$BUILD/pgsc-collect
FEED=$BUILD/tests/fleet_feed
need_exec "$COLLECT" "$FEED"
need_progs sqlite3

T=$T_WORK
COLL=
FP=
cleanup() {
	[ -n "$COLL" ] && kill -KILL "$COLL" 2>/dev/null
	[ -n "$FP" ] && kill -KILL "$FP" 2>/dev/null
	wait 2>/dev/null
}
t_cleanup cleanup
q() { sqlite3 -batch -noheader "$1" "$2" 2>/dev/null; }

zcat "$SRC/tests/golden/raw.log.gz" >"$T/raw.log"
LOG=$T/fleet.log
DB=$T/f.db
: >"$LOG"
start_collector() { t_follow "$DB" "$LOG" "$T/collect.out" --commit-interval 0.5; }
start_collector
"$FEED" -n 5 -r 20000 -s 6 -o "$LOG" "$T/raw.log" 2>"$T/feed.out" &
FP=$!
statuses=""
# wait_continued K: the first commit (K = 0) or K restarted collectors that
# said they continued the round (10 s), so that every kill falls on a
# collector that is following.
wait_continued() {
	for _ in $(seq 1 100); do
		if [ "$1" = 0 ]; then
			[ "$(q "$DB" "SELECT count(*) FROM rounds")" = 1 ] && return 0
		else
			[ "$(grep -c '^pgsc-collect: continuing round' "$T/collect.out")" -ge "$1" ] && return 0
		fi
		sleep 0.1
	done
	bad "the collector did not commit or continue the round in 10 s: $(tail -3 "$T/collect.out")"
}
for k in 1 2 3; do
	sleep 1.5
	wait_continued $((k - 1))
	kill -KILL "$COLL" 2>/dev/null
	wait "$COLL" 2>/dev/null
	st=$?
	[ "$st" = 137 ] || statuses="$statuses #$k:$st"
	start_collector
done
wait "$FP" || bad "fleet_feed failed: $(cat "$T/feed.out")"
FP=
kill -0 "$COLL" 2>/dev/null || bad "the collector is not running after the feed: $(cat "$T/collect.out")"
[ -z "$statuses" ] || bad "collectors not running when killed (exit statuses):$statuses"

written=$(awk '$1 == "total" { print $5 }' "$T/feed.out")
seccomp=$(awk '$1 == "total" { print $7 }' "$T/feed.out")
[ -n "$written" ] && [ "$written" -gt 100000 ] || bad "the feeder wrote ${written:-nothing}"

# per node, in the log, against the feeder's own counts
awk '{ c[substr($1, 6)]++ } END { for (k in c) print k, c[k] }' "$LOG" | sort >"$T/log-nodes"
awk '$1 == "node" { print $2, $4 }' "$T/feed.out" | sort >"$T/feed-nodes"
if diff "$T/feed-nodes" "$T/log-nodes" >"$T/nodes.diff"; then
	ok "per node, the log holds what the feeder wrote: $(tr '\n' ' ' <"$T/log-nodes")"
else
	bad "per-node lines differ (feeder < > log): $(cat "$T/nodes.diff")"
fi

for _ in $(seq 1 600); do
	[ "$(q "$DB" "SELECT coalesce(sum(lines), 0) FROM rounds")" = "$written" ] && break
	sleep 0.1
done
kill -TERM "$COLL"
wait "$COLL"
st=$?
COLL=
[ "$st" = 0 ] || bad "pgsc-collect exited $st after SIGTERM: $(tail -3 "$T/collect.out")"
row=$(q "$DB" "SELECT count(*), count(finished), sum(restarts), sum(records), sum(rejected), sum(lines) FROM rounds")
if [ "$row" = "1|1|3|$seccomp|0|$written" ]; then
	ok "followed through 3 kills: one round, $seccomp SECCOMP records, 0 rejected, $written lines"
else
	bad "rounds|finished|restarts|records|rejected|lines = $row, expected 1|1|3|$seccomp|0|$written"
fi
# per node, pgsc's own counts (the header's "# nodes:") against the feeder's
want=$(awk '$1 == "node" { printf "%s%s: %s records", n++ ? ", " : "", $2, $6 }' "$T/feed.out")
got=$("$BUILD/pgsc-report" --db "$DB" 2>/dev/null | sed -n 's/^# nodes: //p')
[ -n "$want" ] && [ "$got" = "$want" ] && ok "per node, pgsc counts what the feeder wrote: $got" ||
	bad "per node: pgsc counts \"$got\", the feeder wrote \"$want\""
"$COLLECT" --db "$T/i.db" --import "$LOG" >"$T/import.out" 2>&1 || bad "--import failed: $(cat "$T/import.out")"
row=$(q "$T/i.db" "SELECT records, rejected, lines FROM rounds")
[ "$row" = "$seccomp|0|$written" ] && ok "--import of the log: the same $seccomp records" ||
	bad "--import: records|rejected|lines = $row, expected $seccomp|0|$written"

t_done
