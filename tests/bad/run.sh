#!/bin/bash
# SPDX-License-Identifier: PostgreSQL
# run.sh - the bad-input catalogue (tests/fixtures/bad/): every class of
# malformed or hostile input is rejected and counted by reason, reported
# with its file and line, never crashes anything, and never costs a valid
# neighbour.  NAME.log holds real records around the bad lines; NAME.expect
# says how many SECCOMP records must be counted and which rejects.
#   bash tests/bad/run.sh BINDIR FIXTUREDIR
set -uo pipefail
BIN=$1
DIR=$2
command -v sqlite3 >/dev/null || { echo "FAIL: sqlite3 CLI missing"; exit 1; }
T=$(mktemp -d /tmp/pgsc-bad.XXXXXX)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0 n=0

for log in "$DIR"/*.log; do
	name=$(basename "$log" .log)
	n=$((n + 1))
	db="$T/$name.db"
	ok=1
	why=()
	"$BIN/pgsc-collect" --db "$db" --import "$log" 2>"$T/$name.err"
	rc=$?
	[ $rc = 0 ] || { ok=0; why+=("exit $rc"); }
	want=$(awk '$1 == "seccomp" { print $2 }' "$DIR/$name.expect")
	got=$(sqlite3 "$db" "SELECT coalesce(sum(records),0) FROM rounds")
	[ "$got" = "$want" ] || { ok=0; why+=("counted $got SECCOMP records, want $want"); }
	while read -r kind reason count; do
		[ "$kind" = reject ] || continue
		have=$(sqlite3 "$db" "SELECT coalesce(sum(count),0) FROM rejects WHERE reason = '$reason'")
		[ "$have" = "$count" ] || { ok=0; why+=("reject $reason: $have, want $count"); }
		# each rejected line is named by file and line number
		grep -qE "^pgsc: $log:[0-9]+: rejected \($reason\)" "$T/$name.err" ||
			{ ok=0; why+=("no file:line message for $reason"); }
	done <"$DIR/$name.expect"
	total=$(awk '$1 == "reject" { s += $3 } END { print s + 0 }' "$DIR/$name.expect")
	have=$(sqlite3 "$db" "SELECT coalesce(sum(count),0) FROM rejects")
	[ "$have" = "$total" ] || { ok=0; why+=("$have rejects in all, want $total"); }
	# one truth for both parse paths: the auparse-only path counts the
	# same records, the same rejects by reason, and gives the same lists
	"$BIN/pgsc-collect" --db "$T/$name.b.db" --no-fast-path --import "$log" 2>"$T/$name.b.err"
	rc=$?
	[ $rc = 0 ] || { ok=0; why+=("--no-fast-path: exit $rc"); }
	q="SELECT records, attributed, unrelated, standalone, unattributed, rejected, lines FROM rounds;
	   SELECT reason, count FROM rejects ORDER BY reason"
	if [ "$(sqlite3 "$db" "$q")" != "$(sqlite3 "$T/$name.b.db" "$q")" ]; then
		ok=0; why+=("--no-fast-path counts differ: $(sqlite3 "$T/$name.b.db" "$q" | tr '\n' ' ')")
	fi
	if [ "$("$BIN/pgsc-report" --db "$db" 2>&1)" != "$("$BIN/pgsc-report" --db "$T/$name.b.db" 2>&1)" ]; then
		ok=0; why+=("--no-fast-path lists differ")
	fi
	# every output format stays well formed, whatever the input held
	for fmt in guc json table; do
		# the fixtures hold no postmaster: exit 1, "not usable", says why
		"$BIN/pgsc-report" --db "$db" --format=$fmt >"$T/$name.$fmt" 2>"$T/$name.$fmt.err"
		rrc=$?
		[ $rrc = 0 ] || { [ $rrc = 1 ] && grep -q 'examples/pgsc.rules' "$T/$name.$fmt.err"; } ||
			{ ok=0; why+=("pgsc-report --format=$fmt failed (exit $rrc)"); }
		if LC_ALL=C grep -qP '[\x00-\x08\x0b-\x1f\x7f]' "$T/$name.$fmt"; then
			ok=0; why+=("raw control bytes in --format=$fmt")
		fi
	done
	if grep -v '^#' "$T/$name.guc" | grep -qvE "^(global|session)_syscall_allow = '[a-z0-9_,]*'$"; then
		ok=0; why+=("malformed GUC line")
	fi
	# the diagnostics themselves are escaped
	if LC_ALL=C grep -qP '[\x00-\x08\x0b-\x1f\x7f]' "$T/$name.err"; then
		ok=0; why+=("raw control bytes in the diagnostics")
	fi
	if [ $ok = 1 ]; then
		pass=$((pass + 1)); echo "ok: $name"
	else
		fail=$((fail + 1)); echo "FAIL: $name: ${why[*]}"; head -5 "$T/$name.err"
	fi
done
# Inputs that are no files: a device never ends, and is refused at once,
# by name; so is a directory without audit logs (a directory with some is
# imported: tests/inputs).  A FIFO is read like a pipe (<(zcat ...)),
# never opened in a way that blocks: tests/inputs.  The store stays
# writable.
mkfifo "$T/fifo"
mkdir "$T/dir"
for path in /dev/zero "$T/dir"; do
	n=$((n + 1))
	timeout 20 "$BIN/pgsc-collect" --db "$T/special.db" --import "$path" 2>"$T/special.err"
	rc=$?
	if [ $rc = 124 ]; then
		fail=$((fail + 1)); echo "FAIL: $path: import hangs"
	elif [ $rc != 1 ] || ! grep -qE "$path: (not a regular file|a directory without audit logs)" "$T/special.err"; then
		fail=$((fail + 1)); echo "FAIL: $path: exit $rc, not refused by name"; cat "$T/special.err"
	elif ! timeout 20 "$BIN/pgsc-collect" --db "$T/special.db" --import "$DIR/unknown-type.log" 2>/dev/null; then
		fail=$((fail + 1)); echo "FAIL: $path: the store is not writable after the refusal"
	else
		pass=$((pass + 1)); echo "ok: refused $path"
	fi
	rm -f "$T/special.db"*
done
# ... and a FIFO as the store: refused, never a hang (pgsc-diff reads
# pipes on purpose: "pgsc-diff <(...) FILE")
for prog in "pgsc-report --db $T/fifo" "pgsc-collect --db $T/fifo --import $DIR/unknown-type.log"; do
	n=$((n + 1))
	# shellcheck disable=SC2086
	timeout 20 "$BIN"/$prog >/dev/null 2>"$T/special.err"
	rc=$?
	if [ $rc = 124 ] || [ $rc = 0 ] || ! grep -qF "$T/fifo" "$T/special.err"; then
		fail=$((fail + 1)); echo "FAIL: ${prog%% *} on a FIFO store: exit $rc"; cat "$T/special.err"
	else
		pass=$((pass + 1)); echo "ok: ${prog%% *} refuses a FIFO store (exit $rc)"
	fi
done
# ... and the other inputs of every program (issue 25 F13): a device is
# refused by name, a FIFO without a writer is never waited for (it reads
# as empty), whether a server log (--pg-log), the scan's JSON
# (--candidates, a file only), a GUC file (--check-guc) or a pgsc-diff
# operand.  /dev/zero as --pg-log was read for ever, the store locked.
zcat "$DIR/../../golden/raw.log.gz" >"$T/raw.log"
"$BIN/pgsc-collect" --db "$T/ok.db" --import "$T/raw.log" 2>/dev/null
for c in "collect --db $T/pz.db --pg-log /dev/zero --import $T/raw.log|1|/dev/zero: not a regular file or a pipe" \
	"collect --db $T/pf.db --pg-log $T/fifo --import $T/raw.log|0|" \
	"report --db $T/ok.db --candidates $T/fifo|2|$T/fifo: not a regular file (a FIFO)" \
	"report --db $T/ok.db --candidates /dev/zero|2|/dev/zero: not a regular file (a device)" \
	"report --check-guc /dev/zero|2|/dev/zero: not a regular file (a device)" \
	"report --check-guc $T/fifo|1|no \\[PREFIX" \
	"diff /dev/zero $T/ok.db|2|/dev/zero: not a regular file or a pipe" \
	"diff $T/fifo $T/ok.db|2|no global_syscall_allow line"; do
	IFS='|' read -r args want msg <<<"$c"
	n=$((n + 1))
	# shellcheck disable=SC2086
	timeout 20 "$BIN"/pgsc-$args >"$T/in.out" 2>"$T/in.err"
	rc=$?
	if [ $rc = 124 ]; then
		fail=$((fail + 1)); echo "FAIL: pgsc-$args: hangs"
	elif [ $rc != "$want" ] || { [ -n "$msg" ] && ! grep -q -- "$msg" "$T/in.err" "$T/in.out"; }; then
		fail=$((fail + 1)); echo "FAIL: pgsc-$args: exit $rc (want $want), $(head -c 300 "$T/in.err")"
	else
		pass=$((pass + 1)); echo "ok: pgsc-$args: exit $rc, no wait"
	fi
done
[ $n -gt 0 ] || { echo "FAIL: no fixtures in $DIR"; exit 1; }
echo "bad-input: $pass passed, $fail failed"
[ $fail = 0 ]
