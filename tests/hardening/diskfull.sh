#!/bin/bash
# SPDX-License-Identifier: PostgreSQL
# tests/hardening/diskfull.sh BINDIR GOLDENDIR - the store on a full disk.
#
# Runs as root: the store lives on a private tmpfs (mount -t tmpfs -o
# size=8m, unmounted on exit) that a filler file makes full.
#   import-open    the disk is full before the import opens the store (no
#                  room for its -shm): a clear error, non-zero exit;
#   import-commit  room to open, none for the round: "disk full", the
#                  store's name, "rolled back", non-zero exit, the store
#                  unchanged and intact; once the filler is gone the same
#                  import gives exactly the counts of a clean import;
#   live           pgsc-collect --source file: follows a growing log; the
#                  disk fills between two parts of it: one warning, the
#                  collector keeps running, keeps the store intact and
#                  unchanged, is told to stop (SIGTERM) and still does not
#                  exit nor drop anything; the filler goes: one
#                  "recovered" message, exit 0, and the counts per (role,
#                  arch, syscall) equal a clean import's.
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib.sh
. "$HERE/lib.sh"
hd_init diskfull "${1:-}"
GOLDEN=${2:-$HERE/../golden}
need_root "mount -t tmpfs"
need_progs mount umount
need_file "$GOLDEN"/{raw,node,enriched}.log.gz

MNT=$W/mnt
mkdir -p "$MNT"
mount -t tmpfs -o size=8m,mode=0755 pgsc-diskfull "$MNT" || fail "mount -t tmpfs failed"
hd_on_exit "umount -l '$MNT'"
KERR=$W/collect.err

zcat "$GOLDEN/raw.log.gz" >"$W/small.log"
bash "$HERE/biglog.sh" 2 "$GOLDEN/raw.log.gz" "$GOLDEN/node.log.gz" "$GOLDEN/enriched.log.gz" >"$W/big.log" ||
	fail "biglog.sh failed"
"$COLLECT" --db "$W/ref.db" --quiet --import "$W/small.log" "$W/big.log" 2>>"$KERR" || fail "the reference import failed"
"$COLLECT" --db "$W/ref-big.db" --quiet --import "$W/big.log" 2>>"$KERR" || fail "the reference import failed"

fill() { # fill the tmpfs, then give back $1 KiB
	dd if=/dev/zero of="$MNT/filler" bs=64k 2>/dev/null
	sync
	[ "${1:-0}" -gt 0 ] && truncate -s "-${1}K" "$MNT/filler"
	return 0
}
unfill() { rm -f "$MNT/filler"; }

check_import_open() {
	local db=$MNT/open.db st=0 out
	"$COLLECT" --db "$db" --quiet --import "$W/small.log" 2>>"$KERR" || { bad "first import failed"; return; }
	fill 0
	out=$("$COLLECT" --db "$db" --import "$W/big.log" 2>&1) || st=$?
	unfill
	[ "$st" != 0 ] || bad "the import exited 0 on a full disk: $out"
	echo "$out" | grep -q "disk full" || bad "no 'disk full' in its message: $out"
	echo "$out" | grep -qF "$db" || bad "its message does not name the store: $out"
	[ "$(integrity "$db")" = ok ] || bad "PRAGMA integrity_check: $(integrity "$db")"
	[ "$(q "$db" "SELECT count(*) FROM rounds")" = 1 ] || bad "the store changed"
	echo "import-open: $out"
}

check_import_commit() {
	local db=$MNT/commit.db st=0 out before
	"$COLLECT" --db "$db" --quiet --import "$W/small.log" 2>>"$KERR" || { bad "first import failed"; return; }
	before=$(state_sum "$db")
	# room for the -shm and a little WAL, not for the round
	fill 160
	out=$("$COLLECT" --db "$db" --import "$W/big.log" 2>&1) || st=$?
	[ "$st" != 0 ] || { bad "the import exited 0 with 160 KiB free: $out"; unfill; return; }
	echo "$out" | grep -q "disk full" || bad "no 'disk full' in its message: $out"
	echo "$out" | grep -q "rolled back" || bad "its message does not say the import was rolled back: $out"
	echo "$out" | grep -qF "$db" || bad "its message does not name the store: $out"
	[ "$(integrity "$db")" = ok ] || bad "PRAGMA integrity_check on the full disk: $(integrity "$db")"
	[ "$(state_sum "$db")" = "$before" ] || bad "the failed import changed the store: $(state "$db" | tail -n 2 | tr '\n' ' ')"
	unfill
	"$COLLECT" --db "$db" --quiet --import "$W/big.log" 2>>"$KERR" || bad "the import after freeing space failed: $(tail -n 1 "$KERR")"
	[ "$(integrity "$db")" = ok ] || bad "PRAGMA integrity_check: $(integrity "$db")"
	[ "$(counts "$db")" = "$(counts "$W/ref.db")" ] ||
		bad "counts after the rerun differ from a clean import's: $(diff <(counts "$db") <(counts "$W/ref.db") | head -n 6 | tr '\n' ' ')"
	[ "$(q "$db" "SELECT count(*), sum(records) FROM rounds")" = "$(q "$W/ref.db" "SELECT 2, records FROM rounds")" ] ||
		bad "rounds after the rerun: $(q "$db" "SELECT count(*), sum(records) FROM rounds"), expected 2 and $(q "$W/ref.db" "SELECT records FROM rounds") records"
	echo "import-commit: $out"
}

check_live() {
	local db=$MNT/live.db log=$W/live.log coll half size before i n st
	size=$(stat -c %s "$W/big.log")
	half=$((size / 2 + 777))
	bytes "$W/big.log" 0 "$half" >"$log"
	"$COLLECT" --db "$db" --source "file:$log" --from-start --commit-interval 0.2 2>"$W/live.err" &
	coll=$!
	hd_on_exit "kill -KILL $coll"
	for i in $(seq 1 100); do
		[ "$(q "$db" "SELECT max(offset) FROM sources" 2>/dev/null)" -gt 0 ] 2>/dev/null && break
		sleep 0.1
	done
	before=$(q "$db" "SELECT records FROM rounds")
	[ "${before:-0}" -gt 0 ] 2>/dev/null || { bad "the collector committed nothing of the first part: $(cat "$W/live.err")"; return; }
	fill 0
	bytes "$W/big.log" "$half" "$size" >>"$log"
	sleep 2
	kill -0 "$coll" 2>/dev/null || { bad "the collector exited on a full disk: $(cat "$W/live.err")"; unfill; return; }
	n=$(grep -c "warning: cannot commit" "$W/live.err")
	[ "$n" = 1 ] || bad "expected one 'cannot commit' warning after 2 s of failing commits, got $n: $(tr '\n' ' ' <"$W/live.err")"
	grep -q "disk full" "$W/live.err" || bad "the warning does not say 'disk full': $(tr '\n' ' ' <"$W/live.err")"
	[ "$(integrity "$db")" = ok ] || bad "PRAGMA integrity_check on the full disk: $(integrity "$db")"
	[ "$(q "$db" "SELECT records FROM rounds")" = "$before" ] || bad "records changed on a full disk"
	# told to stop while the disk is full: it must not exit and drop it
	kill -TERM "$coll"
	sleep 1.5
	kill -0 "$coll" 2>/dev/null || bad "the collector exited on SIGTERM with a full disk (what it read is lost): $(tr '\n' ' ' <"$W/live.err")"
	unfill
	for i in $(seq 1 100); do kill -0 "$coll" 2>/dev/null || break; sleep 0.1; done
	if kill -0 "$coll" 2>/dev/null; then
		bad "the collector did not exit within 10 s of the space coming back"
		kill -KILL "$coll"
	fi
	{ wait "$coll"; } 2>/dev/null
	st=$?
	[ "$st" = 0 ] || bad "the collector exited with status $st: $(tr '\n' ' ' <"$W/live.err")"
	n=$(grep -c "recovered" "$W/live.err")
	[ "$n" = 1 ] || bad "expected one 'recovered' message, got $n: $(tr '\n' ' ' <"$W/live.err")"
	[ "$(integrity "$db")" = ok ] || bad "PRAGMA integrity_check: $(integrity "$db")"
	[ "$(q "$db" "SELECT records, finished IS NOT NULL FROM rounds")" = "$(q "$W/ref-big.db" "SELECT records, 1 FROM rounds")" ] ||
		bad "rounds (records|finished) = $(q "$db" "SELECT records, finished IS NOT NULL FROM rounds"), expected $(q "$W/ref-big.db" "SELECT records, 1 FROM rounds")"
	[ "$(counts "$db")" = "$(counts "$W/ref-big.db")" ] ||
		bad "counts per (role, arch, syscall) differ from a clean import's: $(diff <(counts "$db") <(counts "$W/ref-big.db") | head -n 6 | tr '\n' ' ')"
	echo "live: $(grep -E "warning: cannot commit|recovered" "$W/live.err" | tr '\n' ' ')"
}

run import-open check_import_open
run import-commit check_import_commit
run live check_live
hd_finish
