#!/bin/bash
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
[ $n -gt 0 ] || { echo "FAIL: no fixtures in $DIR"; exit 1; }
echo "bad-input: $pass passed, $fail failed"
[ $fail = 0 ]
