#!/bin/bash
# SPDX-License-Identifier: PostgreSQL
# tests/world/scenarios.sh - the production scenario set
# (tools/pgsc-scenarios, docs/check-world.md "The scenario set") through
# pgsc-check-world, with no filter and no pgsc module (TEMP_CONFIG none).
#
# Runs as root (ctest label "world", RUN_SERIAL: the scenarios use TCP
# ports 55400-55499 and, when the machine has none, a /dev/log receiver
# for the duration of the run).  It runs
#   tools/pgsc-check-world run --suites scenarios --temp-config none
# and checks that OUTDIR/status has exactly one "scenarios/NAME ok" line
# for every name "tools/pgsc-scenarios --list" prints (the default set),
# and nothing else.  Missing dependencies are failures, never skips.
# PGSC_SCEN_KEEP=1 keeps the output directory.
set -e
# shellcheck source=../lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
t_init scenarios-test
T_KEEP=${PGSC_SCEN_KEEP:-0}
export LC_ALL=C

SRCROOT=$T_SRCROOT
need_root
id postgres >/dev/null 2>&1 || fail "there is no user postgres (Debian package postgresql-15)"

OUT=$T_WORK
chmod 755 "$OUT"

mapfile -t want < <("$SRCROOT/tools/pgsc-scenarios" --list)
[ ${#want[@]} -ge 10 ] || fail "pgsc-scenarios --list gave ${#want[@]} names: ${want[*]}"
note "default set: ${want[*]}"

devlog() { stat -c '%F %i' /dev/log 2>/dev/null || echo none; }
before=$(devlog)
t0=$SECONDS
rc=0
env -u TEMP_CONFIG -u PGSC_ITERATE_CONF -u PGSC_ITERATE_STEP -u PGSC_ITERATE_OUT \
	"$SRCROOT/tools/pgsc-check-world" run --suites scenarios --temp-config none --outdir "$OUT" || rc=$?
note "pgsc-check-world exit $rc after $((SECONDS - t0)) s"
[ -f "$OUT/status" ] || fail "no $OUT/status"
cat "$OUT/status"

bad=0
for n in "${want[@]}"; do
	c=$(grep -cx "scenarios/$n ok" "$OUT/status" || true)
	if [ "$c" != 1 ]; then
		echo "FAIL: scenarios/$n: $(grep "^scenarios/$n " "$OUT/status" || echo 'no line')" >&2
		sed 's/^/    /' "$OUT/scenarios/$n.log" 2>/dev/null | tail -n 30 >&2 || true
		bad=1
	fi
done
[ "$(grep -c . "$OUT/status")" = "${#want[@]}" ] || { echo "FAIL: $(grep -c . "$OUT/status") status lines for ${#want[@]} scenarios" >&2; bad=1; }
[ "$rc" = 0 ] || { echo "FAIL: pgsc-check-world exit $rc" >&2; bad=1; }
[ "$(devlog)" = "$before" ] || { echo "FAIL: /dev/log was '$before', is '$(devlog)' after the run" >&2; bad=1; }
[ "$bad" = 0 ] || { T_KEEP=1; fail "output kept in $OUT"; }
note "all ${#want[@]} scenarios ok in $((SECONDS - t0)) s"
