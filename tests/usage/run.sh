#!/bin/bash
# SPDX-License-Identifier: PostgreSQL
# run.sh - exit codes that tell the truth (issue 15): a report of a log
# recorded without the rules and imported without hints exits 1 and says
# what to do; --status and --check-complete never call it converged or
# complete; a misspelt --session-roles, a --guc-prefix without its dot and
# a failed write to standard output are errors (2) with a message;
# pgsc-collect --quiet prints nothing on a clean import.
#   bash tests/usage/run.sh BINDIR GOLDENDIR
set -uo pipefail
BIN=$1
GOLDEN=$2
T=$(mktemp -d /tmp/pgsc-usage.XXXXXX)
trap 'rm -rf "$T"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }
python3 -c 'import json' || { echo "FAIL: python3 missing"; exit 1; }

# run NAME WANT CMD...: CMD's exit status must be WANT; output in $T/NAME.*
run() {
	local name=$1 want=$2 rc=0
	shift 2
	"$@" >"$T/$name.out" 2>"$T/$name.err" || rc=$?
	[ "$rc" = "$want" ] || bad "$name: exit $rc, want $want: $* ($(head -c 400 "$T/$name.err"))"
}
# has NAME WHERE PATTERN: the output (out or err) of NAME holds PATTERN
has() { grep -qE -- "$3" "$T/$1.$2" || bad "$1: no \"$3\" in its std$2: $(head -c 400 "$T/$1.$2")"; }

zcat "$GOLDEN/norules.log.gz" >"$T/norules.log"
zcat "$GOLDEN/raw.log.gz" >"$T/raw.log"
zcat "$GOLDEN/norules-pmpid.log.gz" >"$T/pmpid.log"
pmpid=$(cat "$GOLDEN/norules-pmpid.args")

# --quiet: a clean import prints nothing at all
run quiet 0 "$BIN/pgsc-collect" --quiet --db "$T/raw.db" --import "$T/raw.log"
[ -s "$T/quiet.err" ] && bad "pgsc-collect --quiet printed: $(head -c 300 "$T/quiet.err")"
run quiet-again 0 "$BIN/pgsc-collect" --quiet --db "$T/raw.db" --import "$T/raw.log"
[ -s "$T/quiet-again.err" ] && bad "pgsc-collect --quiet (nothing new) printed: $(head -c 300 "$T/quiet-again.err")"
run raw 0 "$BIN/pgsc-report" --db "$T/raw.db"
has raw out "^global_syscall_allow = '[a-z]"
[ -s "$T/raw.err" ] && bad "a usable report printed on stderr: $(cat "$T/raw.err")"
# the recorded log lacks one serial near its end (record.sh dropped its
# sync marker): a serial gap, so not complete (issue 25 F4); its part
# before the gap is complete
run raw-gap 1 "$BIN/pgsc-report" --db "$T/raw.db" --check-complete
has raw-gap out 'serial gaps 1,'
awk '{ s = $0; sub(/.*msg=audit\([0-9.]*:/, "", s); sub(/\).*/, "", s)
	if (NR > 1 && s + 0 > prev + 1) exit; if (s + 0 > prev) prev = s + 0; print }' "$T/raw.log" >"$T/rawc.log"
"$BIN/pgsc-collect" --quiet --db "$T/rawc.db" --import "$T/rawc.log"
run raw-complete 0 "$BIN/pgsc-report" --db "$T/rawc.db" --check-complete
has raw-complete out ': complete$'

# no ancestry, no hints: every record unattributed, empty lists
"$BIN/pgsc-collect" --db "$T/norules.db" --import "$T/norules.log" 2>/dev/null ||
	bad "pgsc-collect --import norules.log failed"
for fmt in guc json table; do
	run "norules-$fmt" 1 "$BIN/pgsc-report" --db "$T/norules.db" --format=$fmt
	has "norules-$fmt" err 'examples/pgsc.rules'
	has "norules-$fmt" err '--postmaster-pid'
	has "norules-$fmt" err '--pg-log'
done
has norules-guc out "^global_syscall_allow = ''$"
run norules-status 1 "$BIN/pgsc-report" --db "$T/norules.db" --status
has norules-status out '^not converged: .*examples/pgsc.rules'
grep -q '^converged' "$T/norules-status.out" && bad "--status calls an unattributed store converged"
run norules-complete 1 "$BIN/pgsc-report" --db "$T/norules.db" --check-complete
grep -q ': complete$' "$T/norules-complete.out" && bad "--check-complete calls an unattributed store complete"
has norules-complete out 'unattributed 5424 of 5424'
run norules-json 1 "$BIN/pgsc-report" --db "$T/norules.db" --status --format=json
python3 - "$T/norules-json.out" <<'PY' || bad "--status --format=json of the unattributed store: $(cat "$T/norules-json.out")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["converged"] is False, d
assert d["unattributed"] == 5424 and d["records"] == 5424, d
assert len(d["rounds"]) == 1 and d["rounds"][0]["records"] == 5424, d
assert "examples/pgsc.rules" in d["verdict"], d
PY
# a second round repeating the first changes nothing: still not converged
cp "$T/norules.log" "$T/norules2.log"; echo >>"$T/norules2.log"
"$BIN/pgsc-collect" -q --db "$T/norules.db" --import "$T/norules2.log" 2>/dev/null
run norules-status2 1 "$BIN/pgsc-report" --db "$T/norules.db" --status
has norules-status2 out '^not converged'

# the pid hint: 2510 of 5424 unattributed (46%), but only the
# postmaster's own records are attributed: the session list is empty,
# and an empty list is never printed with exit 0 (issue 24)
"$BIN/pgsc-collect" --db "$T/pmpid.db" $pmpid --import "$T/pmpid.log" 2>/dev/null
run pmpid 1 "$BIN/pgsc-report" --db "$T/pmpid.db"
has pmpid err 'session list of rounds 1-1 is empty'
# more than half: a good round (0 of 5412 unattributed) and a round
# recorded without the rules (5424 of 5424) in one store
cp "$T/raw.db" "$T/half.db"
"$BIN/pgsc-collect" -q --db "$T/half.db" --import "$T/norules.log" 2>/dev/null
run half 1 "$BIN/pgsc-report" --db "$T/half.db"
has half err 'more than half'
has half out "^global_syscall_allow = '[a-z]"
run half-round1 0 "$BIN/pgsc-report" --db "$T/half.db" --round 1

# usage errors
run roles 2 "$BIN/pgsc-report" --db "$T/raw.db" --session-roles foo
has roles err 'unknown role "foo"'
run roles-typo 2 "$BIN/pgsc-report" --db "$T/raw.db" --session-roles 'client backend,walsendr'
run roles-status 2 "$BIN/pgsc-report" --db "$T/raw.db" --status --session-roles foo
run roles-ok 0 "$BIN/pgsc-report" --db "$T/raw.db" --session-roles 'client backend,checkpointer'
run prefix 2 "$BIN/pgsc-report" --db "$T/raw.db" --guc-prefix pgsc
has prefix err 'dot'
[ -s "$T/prefix.out" ] && bad "--guc-prefix pgsc printed a report"
run prefix-dots 2 "$BIN/pgsc-report" --db "$T/raw.db" --guc-prefix pgsc..
run prefix-ok 0 "$BIN/pgsc-report" --db "$T/raw.db" --guc-prefix pgsc.
has prefix-ok out "^pgsc.global_syscall_allow = '"
# exactly PostgreSQL's grammar (issue 25 F15): one configuration-file
# identifier and a dot; "a.b." was accepted and --check-guc refused the
# lines it made.  What is accepted, --check-guc accepts.
for p in a.b. . 9a. 'a$.' a-b. .a.; do
	run "prefix-bad$p" 2 "$BIN/pgsc-report" --db "$T/raw.db" --guc-prefix "$p"
done
for p in _x. Ab_9. "$(printf 'd\303\251.')"; do
	run "prefix-good$p" 0 "$BIN/pgsc-report" --db "$T/raw.db" --guc-prefix "$p"
	run "prefix-check$p" 0 "$BIN/pgsc-report" --check-guc "$T/prefix-good$p.out"
done

# a report that cannot be written is an I/O error, never a verdict
if [ -w /dev/full ]; then
	for args in "" "--status" "--check-complete" "--format=json" "--status --format=json"; do
		n="full${args// /}"
		rc=0; "$BIN/pgsc-report" --db "$T/raw.db" $args >/dev/full 2>"$T/$n.err" || rc=$?
		[ $rc = 2 ] || bad "pgsc-report $args >/dev/full: exit $rc, want 2"
		has "$n" err 'No space left on device'
	done
	echo "global_syscall_allow = 'read'" >"$T/g.conf"
	rc=0; "$BIN/pgsc-report" --check-guc "$T/g.conf" >/dev/full 2>"$T/fullguc.err" || rc=$?
	[ $rc = 2 ] || bad "pgsc-report --check-guc >/dev/full: exit $rc, want 2"
	rc=0; "$BIN/pgsc-report" --help >/dev/full 2>/dev/null || rc=$?
	[ $rc = 2 ] || bad "pgsc-report --help >/dev/full: exit $rc, want 2"
else
	bad "/dev/full is missing"
fi
[ $fail = 0 ] && echo "usage: ok"
exit $fail
