#!/bin/bash
# SPDX-License-Identifier: PostgreSQL
# tests/world/world.sh BINDIR - a reduced PostgreSQL test world through
# pgsc's whole procedure: collect, converge, prove under error, and a
# negative control on replication.
#
# Runs as root (ctest label "world", RUN_SERIAL).  It
#   1. prepares the source tree (tools/pgsc-check-world prepare: the Debian
#      source package, configured like Debian's build, the test parts
#      built; cached in /var/cache/pgsc-world),
#   2. creates the installcheck cluster (pgsc-check-world cluster),
#   3. takes the audit lock (tests/lib/auditd.sh audit_lock) for the whole
#      test, checks that no other audit daemon is registered, and runs
#      tools/pgsc-iterate --steps STEPS --baseline --source netlink
#      --per-type=routine (pgsc-collect is the kernel's audit daemon) with the
#      world runner as workload:
#      the regression suite (a few tests, write_parallel among them for
#      parallel workers; autovacuum_naptime = 1 for autovacuum workers),
#      an isolation schedule subset,
#      contrib/postgres_fdw, TAP src/test/recovery 001_stream_rep and
#      src/test/subscription 001_rep_changes (each step a round of the
#      store, labelled).  Every TAP cluster loads pgsc through TEMP_CONFIG.
#      It must converge within 5 rounds; the proof (defaults error, every
#      backend type seen under its own list: docs/per-type.md) must
#      give 0 SECCOMP records of the servers and per-test results
#      identical to the baseline run with no filter, step by step,
#      The proof counts the server trees of this run only (--server-match
#      the cluster's and the source tree's paths): on a shared machine
#      another test's server, also run as postgres, can log to the same
#      audit daemon.
#   4. checks that the proof's rounds lost nothing (pgsc-report
#      --check-complete), and that the TAP clusters really ran
#      under the filter (records of walsender and walreceiver processes in
#      the rounds' store),
#   5. provenance: pgsc-check-world provenance names the round of
#      contrib/postgres_fdw for connect,
#   6. negative control: the syscall that the store attributes only to
#      walsender or walreceiver processes in the rounds of the replication
#      step (the most records; from the JSON report, not a fixed name) is
#      removed from both lists, and the proof
#      is run again on 001_stream_rep only: it must fail, the TAP test
#      must fail, and the denials of that syscall must be in the audit
#      stream (the negative proof's store), from postgres, attributed to a
#      walsender or walreceiver.
#   7. per-type negative control: the walwriter's call with the most
#      records is removed from the walwriter's list only (the global list
#      keeps it), and the proof is run again on the first step: the proof
#      must fail with denials of that call attributed to the walwriter,
#      so the walwriter's own filter refused it.
#   8. argument rules: a loop of its own, pgsc-iterate --args (rounds
#      collected with the --args audit rules, lists with argument rules;
#      no --per-type: docs/args.md, "Backend types"), on a regression
#      subset and three scenarios (tools/pgsc-scenarios): localhost-fdw
#      (backends' TCP), copy-program (COPY TO/FROM PROGRAM), plperlu
#      (libperl in a backend); converged, proven under error with 0
#      denials and per-test results identical to the baseline; the
#      session list has rules for socket and setsockopt;
#   9. --no-programs (pgsc-iterate --proof-only --no-programs --args on
#      that loop's store): proven on every step but copy-program,
#      per-test results identical to the baseline; execve must have been
#      dropped;
#  10. controls under those lists (tests/world/controls.sh): a plperlu
#      function's AF_PACKET socket, SO_PRIORITY and SOL_PACKET setsockopt
#      get EPERM from their argument rules, COPY (SELECT 1) TO PROGRAM
#      'true' fails (the child's refused call gets EPERM; glibc's popen()
#      says ENOMEM), the server answers after, and the denials
#      of socket, setsockopt and execve are in the audit stream,
#      attributed to a backend (or its program).
# Why netlink and not a private auditd with --source file: on this shared
# machine auditd's log showed kernel serial gaps in most rounds (records
# may be missing), and pgsc-iterate rightly never counts such a round as
# converged; pgsc reading the kernel itself saw none.
# Missing dependencies are failures, never skips.  PGSC_WORLD_KEEP=1 keeps
# the work directory.
set -e
# shellcheck source=../lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
export LC_ALL=C
t_script world-test "world.sh BINDIR (holding pgsc-collect and pgsc-report)" "$@"
MAXR=${PGSC_WORLD_MAX_ROUNDS:-5}
# shellcheck source=../lib/world.sh
. "$HERE/../lib/world.sh"
STEPS=${PGSC_WORLD_STEPS:-$WORLD_CI_STEPS}
# The loop with argument rules (8-10 below): its own rounds, without
# --per-type (with the --args audit rules the kernel's PROCTITLE of a
# backend is its fork-time title: docs/args.md, "Backend types").  A
# regression subset, TCP from backends (dblink and postgres_fdw to
# localhost: socket and setsockopt values), a backend running programs,
# an untrusted language.
ASTEPS=${PGSC_WORLD_ARGS_STEPS:-regress:test_setup+boolean+int4+text,scenarios:localhost-fdw,scenarios:copy-program,scenarios:plperlu}
# The steps that run programs below backends: not in the --no-programs proof.
PROGSTEPS=scenarios:copy-program
REPL=src/test/recovery:001_stream_rep
T0=$(date +%s)

# ---------------------------------------------------------------- deps --
world_need "$BINDIR" make prove
ITER=$SRCROOT/tools/pgsc-iterate
WORLD=$SRCROOT/tools/pgsc-check-world
[ -x "$ITER" ] && [ -x "$WORLD" ] || fail "tools/pgsc-iterate or tools/pgsc-check-world missing in $SRCROOT"
"$WORLD" prepare >/dev/null || fail "pgsc-check-world prepare failed (network for the first download; see its messages)"
T_PREP=$(date +%s)
note "source tree ready after $((T_PREP - T0)) s"

t_init world-test
W=$T_WORK
T_KEEP=${PGSC_WORLD_KEEP:-0}
chmod 755 "$W"
RESULT=fail
cleanup() {
	pg_stop_now "$W/c/data"
	[ "$T_KEEP" = 1 ] || [ "$RESULT" = pass ] || note "rerun with PGSC_WORLD_KEEP=1 to keep $W"
}
t_cleanup cleanup

# ------------------------------------------------------------- cluster --
DATA=$("$WORLD" cluster "$W/c" --port 54473) || fail "pgsc-check-world cluster failed"
# Autovacuum workers within the short steps too (a type of its own).
echo "autovacuum_naptime = 1" >>"$DATA/postgresql.conf"

# shellcheck source=../lib/auditd.sh
. "$HERE/../lib/auditd.sh"
# shellcheck source=../lib/lists.sh
. "$HERE/../lib/lists.sh"
audit_lock || fail "could not get the audit lock"
owner=$(audit_foreign_daemon)
[ -z "$owner" ] || fail "pid $owner ($(cat "/proc/$owner/comm" 2>/dev/null)) is the kernel's audit daemon; pgsc-collect must be (netlink)"
export PGSC_AUDIT_LOCK_HELD=1
T_LOCKED=$(date +%s)
note "audit lock after $((T_LOCKED - T_PREP)) s"

# ---------------------------------------------------------------- loop --
rc=0
WCACHE=${PGSC_WORLD_CACHE:-/var/cache/pgsc-world}
MATCH=(--server-match "$W/c/data" --server-match "$WCACHE/src/" --server-match /tmp/pgsc-scen.)
"$ITER" --datadir "$DATA" --bindir "$BINDIR" --workdir "$W/it" --db "$W/pgsc.db" "${MATCH[@]}" \
	--max-rounds "$MAXR" --source netlink --steps "$STEPS" --baseline --per-type=routine -- "$WORLD" run \
	>"$W/iterate.out" 2>&1 || rc=$?
cat "$W/iterate.out"
[ "$rc" != 1 ] || fail "pgsc-iterate did not converge within $MAXR rounds"
# A reduced world cannot see every rare path: a walsender's realloc() of
# its 128 KiB send buffer becomes mremap only when a full batch of WAL is
# waiting, which depends on the machine's load (seen once in many runs,
# 2026-12-05).  A proof whose only denials are of names the whole world's
# proven lists hold (examples/lists/, measured on the whole world, itself
# proven by lists/shipped) shows a gap of the subset, not of pgsc: it is
# reported and the rest is checked.  Any other denial fails.
RARE=
if [ "$rc" = 3 ]; then
	REF=$SRCROOT/examples/lists/pg15-debian12-x86_64.guc
	[ -r "$REF" ] || fail "pgsc-iterate exited 3 and $REF is missing"
	"$BINDIR/pgsc-report" --db "$W/it/proof.db" --format=table >"$W/proof.table" 2>/dev/null || true
	# the server's calls ("count": its roles' records), not those of
	# unrelated programs under a filter of their own on this machine
	"$BINDIR/pgsc-report" --db "$W/it/proof.db" --format=json >"$W/proof.json" 2>/dev/null || true
	sed -n 's/^    {"name": "\([a-z0-9_]*\)", "arch": "x86_64", "nr": [0-9]*, "count": [1-9][0-9]*,.*/\1/p' "$W/proof.json" |
		sort -u >"$W/proof.denied"
	[ -s "$W/proof.denied" ] || fail "pgsc-iterate exited 3 (the proof failed) with no denial in its store: $(tail -n 5 "$W/iterate.out")"
	grep -E '^pgsc\.(global|session)_syscall_allow = ' "$REF" | sed "s/^[^']*'//; s/'.*//" | tr ',' '\n' |
		sort -u >"$W/world.names"
	outside=$(comm -23 "$W/proof.denied" "$W/world.names" | tr '\n' ' ')
	[ -z "$outside" ] || fail "the proof denied $outside, which the whole world's lists ($REF) do not hold either: $(cat "$W/proof.table")"
	[ "$(grep -c . "$W/proof.denied")" -le 3 ] || fail "the proof denied $(grep -c . "$W/proof.denied") names: more than a rare path: $(cat "$W/proof.table")"
	RARE=$(tr '\n' ' ' <"$W/proof.denied")
	note "rare path: the proof denied $RARE- not in the subset's lists, in the whole world's ($(basename "$REF")); the rest is checked"
	grep -A8 '^pgsc-iterate: denied or killed' "$W/iterate.out" >&2 || true
	rc=0
fi
[ "$rc" = 0 ] || fail "pgsc-iterate exited $rc (3: the proof failed)"
n=$(sed -n 's/^pgsc-iterate: converged after round \([0-9][0-9]*\)$/\1/p' "$W/iterate.out")
[ -n "$n" ] && [ "$n" -ge 2 ] && [ "$n" -le "$MAXR" ] || fail "no 'converged after round N' (2 <= N <= $MAXR) in the output"
nsteps=$(tr ',' '\n' <<<"$STEPS" | grep -c .)
rounds=$(sqlite3 "$W/pgsc.db" "SELECT count(*) FROM rounds")
[ "$rounds" = $((n * nsteps)) ] || fail "the store has $rounds rounds, expected $n rounds x $nsteps steps"
"$BINDIR/pgsc-report" --db "$W/pgsc.db" --status >"$W/status" ||
	fail "pgsc-report --status does not exit 0 after convergence: $(cat "$W/status")"
# Every step of the last round: 0 new.
awk -v a=$(((n - 1) * nsteps + 1)) '$1 ~ /^[0-9]+$/ && $1 >= a && $7 != 0 { bad = 1 } END { exit bad }' "$W/status" ||
	fail "a step of the last round has new syscalls in --status: $(cat "$W/status")"
grep -q "round $n: contrib/postgres_fdw" "$W/status" || fail "no round labelled 'round $n: contrib/postgres_fdw' in --status"

# Per step: the suites really ran, and gave the same results under error
# as with no filter.
total=0
while read -r step; do
	tag=$(tr '/:+' '___' <<<"$step")
	bs=$W/it/baseline-1-$tag/status ps=$W/it/proof-1-$tag/status
	[ -s "$bs" ] && [ -s "$ps" ] || fail "no status file of step $step (baseline or proof)"
	cmp -s "$bs" "$ps" || fail "step $step: per-test results differ between the baseline and the proof: $(diff "$bs" "$ps" | head)"
	ok=$(grep -c ' ok$' "$ps" || true)
	[ "$ok" -ge 1 ] || fail "step $step: no test passed: the suite did not really run"
	total=$((total + $(grep -c . "$ps")))
done < <(tr ',' '\n' <<<"$STEPS")
grep -q '^src/test/recovery/001_stream_rep.pl ok$' "$W/it/proof-1-src_test_recovery_001_stream_rep/status" ||
	fail "001_stream_rep did not pass under error"
grep -q '^contrib/postgres_fdw/postgres_fdw ok$' "$W/it/proof-1-contrib_postgres_fdw/status" ||
	fail "postgres_fdw did not pass under error"
[ -n "$RARE" ] || grep -q "^pgsc-iterate: proof run (defaults error): 0 SECCOMP records of the server's processes" "$W/iterate.out" ||
	fail "the proof run did not report 0 SECCOMP records"

# The TAP clusters ran under the filter: walsender and walreceiver records.
"$BINDIR/pgsc-report" --db "$W/pgsc.db" --format=json >"$W/lists.json" || fail "pgsc-report --format=json failed"
grep -q '"walsender": [1-9]' "$W/lists.json" || fail "no walsender records in the store: TEMP_CONFIG did not reach the TAP clusters"
grep -q '"walreceiver": [1-9]' "$W/lists.json" || fail "no walreceiver records in the store"

# Every backend type seen had its own filter in the proof: a line in the
# proof's settings, and (the types the postmaster loads: not client
# backend or walsender) the module's log line in the installcheck
# server's log saying it built that filter at error.
"$BINDIR/pgsc-report" --db "$W/pgsc.db" --format=json --per-type >"$W/types.json" || fail "pgsc-report --per-type --format=json failed"
grep -E "^pgsc\.[a-z0-9_]+_syscall_allow = '" "$W/it/final.guc" | grep -vE '^pgsc\.(global|session)_' |
	sed 's/^pgsc\.\([a-z0-9_]*\)_syscall_allow = .*/\1/' >"$W/types"
for t in client_backend parallel_worker checkpointer walwriter walsender walreceiver; do
	grep -qx "$t" "$W/types" || fail "no per-type list of $t in the proof's settings: $(tr '\n' ' ' <"$W/types")"
done
built=0
while read -r t; do
	case $t in client_backend | walsender) continue ;; esac
	name=${t//_/ }
	grep -q "\"setting\": \"${t}_syscall_allow\"" "$W/types.json" || fail "the JSON's types have no setting ${t}_syscall_allow"
	# The installcheck server's own processes (a type only the TAP
	# clusters have is not in its log).
	grep -q "pgsc: $name filter built: default error" "$W"/it/server-proof-1-*.log || {
		grep -q "^  *\"$name\": " "$W/types.json" || fail "type $name is in the settings but not in the JSON"
		continue
	}
	built=$((built + 1))
done <"$W/types"
[ "$built" -ge 3 ] || fail "the installcheck server built only $built type filters at error in the proof"
note "per-type proof: $(grep -c . "$W/types") types under their own lists ($(tr '\n' ' ' <"$W/types")), $built built by the installcheck postmaster at error"

# The proof store: nothing lost while it was collected.
# A proof that logged nothing is "no data" there (exit 1, as for any store
# without records); "records may be missing" wins over it, so "no data"
# says that nothing was lost.  Records only of programs outside the
# servers (another filter in log mode on this machine: 4 records came so
# in a run of 2026-12-06) make it "not usable", with every loss figure 0,
# as pgsc-iterate's own check takes it; their programs are said.
if ! "$BINDIR/pgsc-report" --db "$W/it/proof.db" --check-complete >"$W/proof.complete" 2>&1 &&
	! grep -qE '^rounds [0-9]+-[0-9]+: .*: no data$' "$W/proof.complete"; then
	head -n 1 "$W/proof.complete" |
		grep -qE '^rounds [0-9]+-[0-9]+: kernel lost 0, serial gaps 0, rotation gaps 0, drain timeouts 0, unattributed 0 of [0-9]+(, foreign [0-9]+)?: ' &&
		grep -qE '^none of the [0-9]+ records .* \(0 unattributed, 0 foreign, [0-9]+ unrelated, 0 standalone\)' "$W/proof.complete" ||
		fail "the proof rounds may have lost records: $(cat "$W/proof.complete")"
	note "the proof store holds records only of programs outside the servers: $(sqlite3 "$W/it/proof.db" "SELECT group_concat(role || ' ' || coalesce(exe, '?') || ' (' || coalesce(comm, '?') || ') ' || records, '; ') FROM processes WHERE records > 0" 2>&1 | tr -cd '[:print:]')"
fi
T_LOOP=$(date +%s)
note "loop: converged after round $n ($nsteps steps a round); proof: $total tests, identical to the baseline, 0 denials ($((T_LOOP - T_LOCKED)) s)"

# ---------------------------------------------------------- provenance --
"$WORLD" provenance --db "$W/pgsc.db" --bindir "$BINDIR" >"$W/provenance" || fail "pgsc-check-world provenance failed"
grep -qE '^connect +yes +yes +[0-9]+ +round 1: contrib/postgres_fdw$' "$W/provenance" ||
	fail "provenance does not say connect came from contrib/postgres_fdw: $(grep '^connect ' "$W/provenance")"

# ----------------------------------------------------- negative control --
# Syscalls that, in the rounds of the replication step, the store
# attributes only to walsender or walreceiver processes (the roles of the
# server tree; unrelated processes do not count); the one with the most
# records.  (Over the whole store the only such name is getegid, which a
# walsender survives: glibc's getegid() cannot fail, a denied call gives
# gid 4294967295 in a tar header, and 001_stream_rep passes.  In the
# replication step, connect, getsockopt and poll are the walreceiver's.)
rr=$(awk -v l="round $n: $REPL" 'NR == 1 { c = index($0, "label") } $1 ~ /^[0-9]+$/ && c > 0 { x = substr($0, c); sub(/^round [0-9]+: /, "", x); if (x == substr(l, index(l, ": ") + 2)) r = r (r == "" ? "" : ",") $1 } END { print r }' "$W/status")
[ -n "$rr" ] || fail "no round of the step $REPL in --status"
: >"$W/repl.json"
for r in ${rr//,/ }; do
	# a round of other programs' records only (a busy machine's other
	# filters in log mode) has no lists: nothing of the server's in it
	"$BINDIR/pgsc-report" --db "$W/pgsc.db" --format=json --round "$r" >>"$W/repl.json" 2>"$W/repl.err" ||
		grep -qE '^pgsc-report: (none of the [0-9]+ records|no data)' "$W/repl.err" ||
		fail "pgsc-report --round $r failed: $(cat "$W/repl.err")"
done
pick=$(awk '/^    \{"name": / && /"arch": "x86_64"/ {
	name = $0; sub(/^    \{"name": "/, "", name); sub(/".*/, "", name)
	r = $0; sub(/.*"roles": \{/, "", r); sub(/\}.*/, "", r)
	n = split(r, kv, /, /)
	for (i = 1; i <= n; i++) {
		k = kv[i]; sub(/^"/, "", k); v = k; sub(/".*/, "", k); sub(/.*: /, "", v)
		if (k == "unrelated" || k == "standalone") continue
		if (k != "walsender" && k != "walreceiver") other[name] = 1
		cnt[name] += v
	}
} END { for (x in cnt) if (!(x in other) && cnt[x] > best) { best = cnt[x]; bname = x } if (bname != "") print bname, best }' "$W/repl.json")
[ -n "$pick" ] || fail "no syscall the store attributes only to walsender or walreceiver in the rounds of $REPL"
victim=${pick% *}
nr=$(scmp_sys_resolver -a x86_64 "$victim") || fail "scmp_sys_resolver does not know $victim"
note "negative control: removing '$victim' (x86_64 $nr; ${pick#* } records in the rounds of $REPL, walsender/walreceiver only) from both lists"
"$BINDIR/pgsc-report" --db "$W/pgsc.db" --format=guc --guc-prefix=pgsc. >"$W/neg.guc"
drop_call "$W/neg.guc" 'pgsc\.(global|session)_syscall_allow' "$victim" >"$W/neg.lists"
! grep -qE "^pgsc\.(global|session)_syscall_allow = '(.*,)?$victim(,.*)?'" "$W/neg.lists" || fail "could not remove $victim"
rc=0
# A standby that cannot stream makes the test wait for its timeout: 20 s
# (the denials come at its first connection attempt, within a second).
PG_TEST_TIMEOUT_DEFAULT=20 PGSC_ITERATE_EXPECT_RC=0 "$ITER" --datadir "$DATA" --bindir "$BINDIR" --workdir "$W/neg" --proof-only "${MATCH[@]}" \
	--lists "$W/neg.lists" --source netlink --steps "$REPL" -- "$WORLD" run >"$W/neg.out" 2>&1 || rc=$?
head -n 40 "$W/neg.out" | sed 's/^/    /'
[ "$rc" = 3 ] || fail "pgsc-iterate --proof-only with '$victim' removed exited $rc, expected 3 (proof failed)"
grep -q '^src/test/recovery/001_stream_rep.pl FAILED$' "$W/neg/proof-1-src_test_recovery_001_stream_rep/status" ||
	fail "001_stream_rep did not fail without '$victim': $(cat "$W/neg/proof-1-src_test_recovery_001_stream_rep/status")"
# a store of denials only is no usable list (exit 1, its JSON written):
# its records are what is read here
rc=0
"$BINDIR/pgsc-report" --db "$W/neg/proof.db" --format=json >"$W/neg.json" 2>"$W/neg.err" || rc=$?
[ "$rc" -le 1 ] && [ -s "$W/neg.json" ] || fail "pgsc-report on the negative proof store failed (exit $rc): $(cat "$W/neg.err")"
line=$(grep -E "^    \{\"name\": \"$victim\", \"arch\": \"x86_64\", \"nr\": $nr," "$W/neg.json" || true)
[ -n "$line" ] || fail "no SECCOMP record of $victim (x86_64 $nr) in the negative proof's store"
grep -qE '"(walsender|walreceiver)": [1-9]' <<<"$line" ||
	fail "pgsc did not attribute the denied $victim to a walsender or walreceiver: $line"
grep -q '"example_exe": "/usr/lib/postgresql/15/bin/postgres"' <<<"$line" || fail "the denied $victim was not made by postgres: $line"
# shellcheck disable=SC2001 # a captured group
hits=$(sed 's/.*"count": \([0-9]*\).*/\1/' <<<"$line")
note "negative control: 001_stream_rep FAILED, $hits denials of $victim recorded, attributed to $(grep -oE "\"name\": \"$victim\".*" "$W/neg.json" | grep -oE '"(walsender|walreceiver)": [0-9]+' | tr '\n' ' ')"
# ---------------------------------------------- per-type negative control --
# The walwriter's call with the most records in the store, taken out of
# the walwriter's list only.
wpick=$(top_call walwriter "$W/lists.json")
[ -n "$wpick" ] || fail "no call of the walwriter in the store"
wv=${wpick% *}
first=${STEPS%%,*}
grep -qE "^pgsc\.walwriter_syscall_allow = '(.*,)?$wv(,.*)?'\$" "$W/it/final.guc" || fail "$wv is not in the walwriter's list"
grep -qE "^pgsc\.global_syscall_allow = '(.*,)?$wv(,.*)?'\$" "$W/it/final.guc" || fail "$wv is not in the global list"
drop_call "$W/it/final.guc" 'pgsc\.walwriter_syscall_allow' "$wv" >"$W/neg2.lists"
! grep -qE "^pgsc\.walwriter_syscall_allow = '(.*,)?$wv(,.*)?'\$" "$W/neg2.lists" || fail "could not remove $wv"
note "per-type negative control: removing '$wv' (${wpick#* } records of the walwriter) from the walwriter's list only; proof on $first"
rc=0
"$ITER" --datadir "$DATA" --bindir "$BINDIR" --workdir "$W/neg2" --proof-only --per-type=routine "${MATCH[@]}" \
	--lists "$W/neg2.lists" --source netlink --steps "$first" -- "$WORLD" run >"$W/neg2.out" 2>&1 || rc=$?
head -n 30 "$W/neg2.out" | sed 's/^/    /'
[ "$rc" = 3 ] || fail "pgsc-iterate --proof-only --per-type with '$wv' out of the walwriter's list exited $rc, expected 3 (proof failed)"
grep -q "pgsc: walwriter filter built: default error" "$W"/neg2/server-proof-1-*.log || fail "the walwriter's filter was not built in the negative proof"
rc=0
"$BINDIR/pgsc-report" --db "$W/neg2/proof.db" --format=json >"$W/neg2.json" 2>"$W/neg2.err" || rc=$?
[ "$rc" -le 1 ] && [ -s "$W/neg2.json" ] || fail "pgsc-report on the per-type negative proof store failed (exit $rc): $(cat "$W/neg2.err")"
wnr=$(scmp_sys_resolver -a x86_64 "$wv") || fail "scmp_sys_resolver does not know $wv"
line=$(grep -E "^    \{\"name\": \"$wv\", \"arch\": \"x86_64\", \"nr\": $wnr," "$W/neg2.json" || true)
[ -n "$line" ] || fail "no SECCOMP record of $wv (x86_64 $wnr) in the per-type negative proof's store"
grep -qE '"walwriter": [1-9]' <<<"$line" || fail "the denied $wv is not the walwriter's: $line"
note "per-type negative control: $(grep -oE '"walwriter": [0-9]+' <<<"$line" | head -1 | sed 's/.*: //') denials of $wv by the walwriter, under its own filter (the global list allows $wv)"
# ------------------------------------------- argument rules, programs --
# Rounds collected with --args until converged (names and rules), the
# lists with argument rules proven under error, each step's per-test
# results identical to its baseline, 0 denials (no rare-path allowance:
# a refused value is a failure).
rc=0
"$ITER" --datadir "$DATA" --bindir "$BINDIR" --workdir "$W/args" --db "$W/args.db" "${MATCH[@]}" --server-match /tmp/pgsc-scen. \
	--max-rounds "$MAXR" --source netlink --steps "$ASTEPS" --baseline --args -- "$WORLD" run >"$W/args.out" 2>&1 || rc=$?
grep -E '^pgsc-iterate: (round [0-9]+: workload|converged|proof run|PROOF)' "$W/args.out" | sed 's/^/    /'
[ "$rc" = 0 ] || fail "pgsc-iterate --args exited $rc (1: not converged, 3: the proof failed): $(grep -A12 -E '^pgsc-iterate: (denied or killed|per-test results differ)' "$W/args.out" | head -30)"
grep -q "^pgsc-iterate: proof run (defaults error): 0 SECCOMP records of the server's processes" "$W/args.out" ||
	fail "the --args proof did not report 0 SECCOMP records"
# The rules the controls lean on (socket, setsockopt: the TCP of
# scenarios:localhost-fdw).
for c in socket setsockopt; do
	grep -qE "^pgsc\.session_syscall_allow = '(.*,)?$c\([^,]*\)(,.*)?'\$" "$W/args/final.guc" ||
		fail "the proven session list has no argument rule for $c: $(grep '^pgsc\.session_syscall_allow' "$W/args/final.guc" | cut -c1-300)"
done
while read -r step; do
	tag=$(tr '/:+' '___' <<<"$step")
	grep -q ' ok$' "$W/args/proof-1-$tag/status" || fail "--args, step $step: no test passed: $(cat "$W/args/proof-1-$tag/status")"
done < <(tr ',' '\n' <<<"$ASTEPS")
note "argument rules proven on $ASTEPS: $(grep -E '^pgsc\.(global|session)_syscall_allow' "$W/args/final.guc" | grep -oE '[a-z0-9_]+\([^,]*\)' | sort -u | tr '\n' ' ')"

# --no-programs: the session list without what programs below backends
# need, proven on the steps that run no program below a backend, each
# step's per-test results identical to its baseline above.
NSTEPS=$(tr ',' '\n' <<<"$ASTEPS" | grep -vxF "$PROGSTEPS" | paste -sd,)
rc=0
"$ITER" --datadir "$DATA" --bindir "$BINDIR" --workdir "$W/nop" --db "$W/args.db" --proof-only --no-programs --args \
	"${MATCH[@]}" --server-match /tmp/pgsc-scen. --source netlink --steps "$NSTEPS" -- "$WORLD" run >"$W/nop.out" 2>&1 || rc=$?
grep -E '^pgsc-iterate: (--no-programs|proof run)' "$W/nop.out" | sed 's/^/    /'
[ "$rc" = 0 ] || fail "the --no-programs proof failed (exit $rc): $(grep -A12 '^pgsc-iterate: denied or killed' "$W/nop.out" | head -20)"
grep -q '^pgsc-iterate: --no-programs: dropped from the session list (.*execve' "$W/nop.out" ||
	fail "--no-programs dropped no execve from the session list, though the rounds ran COPY ... PROGRAM ($PROGSTEPS)"
! grep -qE "^pgsc\.session_syscall_allow = '(.*,)?execve(,.*)?'\$" "$W/nop/final.guc" || fail "execve is in the --no-programs session list"
while read -r step; do
	tag=$(tr '/:+' '___' <<<"$step")
	cmp -s "$W/args/baseline-1-$tag/status" "$W/nop/proof-1-$tag/status" ||
		fail "--no-programs, step $step: per-test results differ from the baseline: $(diff "$W/args/baseline-1-$tag/status" "$W/nop/proof-1-$tag/status" | head)"
done < <(tr ',' '\n' <<<"$NSTEPS")
note "--no-programs proof: $(tr ',' '\n' <<<"$NSTEPS" | grep -c .) steps (all but $PROGSTEPS), 0 denials, per-test results identical to the baseline"

# The controls (tests/world/controls.sh) under the same lists: an
# AF_PACKET socket, SO_PRIORITY and a SOL_PACKET option from a plperlu
# function, then COPY ... TO PROGRAM, on the installcheck server.
rc=0
PGSC_ITERATE_EXPECT_RC=0 "$ITER" --datadir "$DATA" --bindir "$BINDIR" --workdir "$W/ctl" --db "$W/args.db" \
	--proof-only --no-programs --args "${MATCH[@]}" --source netlink -- "$HERE/controls.sh" >"$W/ctl.out" 2>&1 || rc=$?
[ "$rc" = 3 ] || fail "the controls' run exited $rc, expected 3 (denials): $(tail -n 20 "$W/ctl.out")"
chk=$W/ctl/proof-1/checks
[ -s "$chk" ] || fail "the controls wrote no results: $(tail -n 20 "$W/ctl.out")"
sed 's/^/    /' "$chk"
eperm=$(python3 -c 'import errno; print(errno.EPERM)')
for k in packet priority sol_packet; do
	grep -qx "$k $eperm" "$chk" || fail "control $k: expected errno $eperm (EPERM, the filter's), got: $(grep "^$k " "$chk")"
done
# The backend's popen() fails: its child's first refused call (dup2 of
# the pipe, before execve) gets EPERM, and glibc 2.36's popen() reports
# any failed spawn as ENOMEM ("Cannot allocate memory"): the EPERM is in
# the audit stream (below), not in the message.
grep -q '^copy ERROR: *could not execute command "true"' "$chk" ||
	fail "COPY (SELECT 1) TO PROGRAM 'true' did not fail: $(grep '^copy ' "$chk")"
grep -qx 'after 1' "$chk" || fail "the server did not answer after the controls: $(grep '^after ' "$chk")"
rc=0
"$BINDIR/pgsc-report" --db "$W/ctl/proof.db" --format=json >"$W/ctl.json" 2>"$W/ctl.err" || rc=$?
[ "$rc" -le 1 ] && [ -s "$W/ctl.json" ] || fail "pgsc-report on the controls' store failed (exit $rc): $(cat "$W/ctl.err")"
# ctl_denied NAME: NAME's line in the controls' JSON when a client
# backend (or its program) made it.
ctl_denied() {
	local nr_ line_
	nr_=$(scmp_sys_resolver -a x86_64 "$1") || fail "scmp_sys_resolver does not know $1"
	line_=$(grep -E "^    \{\"name\": \"$1\", \"arch\": \"x86_64\", \"nr\": $nr_," "$W/ctl.json" || true)
	grep -E '"(descendant/)?(client )?backend": [1-9]' <<<"$line_" || true
}
for c in socket setsockopt; do
	[ -n "$(ctl_denied "$c")" ] || fail "no SECCOMP record of $c by a backend in the controls' store: $(grep -E "\"name\": \"$c\"" "$W/ctl.json")"
done
# The program's start: the child's dup2 or execve, or the spawn itself
# (clone3, clone, vfork), whichever the list refused first.
spawn=''
for c in dup2 dup3 execve clone3 clone vfork; do
	[ -z "$(ctl_denied "$c")" ] || spawn="$spawn$c "
done
[ -n "$spawn" ] || fail "no denial of dup2, dup3, execve, clone3, clone or vfork by a backend or its program in the controls' store" 
note "controls under --no-programs --args at error: AF_PACKET socket, SO_PRIORITY and SOL_PACKET setsockopt refused with EPERM by their argument rules, COPY TO PROGRAM refused ($spawn), the server answered after; denied in the audit stream: $(grep -oE '^    \{"name": "[a-z0-9_]+", "arch": "x86_64"' "$W/ctl.json" | sed 's/.*"name": "//; s/".*//' | sort -u | tr '\n' ' ')"
note "time: $(($(date +%s) - T0)) s in all, $((T_LOCKED - T_PREP)) s waiting for the audit lock, $((T_PREP - T0)) s preparing"
RESULT=pass
note PASS
