# SPDX-License-Identifier: PostgreSQL
# shellcheck shell=bash
# world.sh - the reduced PostgreSQL test world CI runs (sourced): the
# steps of tests/world/world.sh and tests/lists/shipped.sh.
# The regression suite (a few tests, write_parallel among them for
# parallel workers), an isolation subset, contrib/postgres_fdw, TAP
# src/test/recovery 001_stream_rep and src/test/subscription 001_rep_changes.
#
# world_need BINDIR PROG...: the preconditions of the tests that run
# PostgreSQL's own suites under the installed module (world, iterate):
# root, the PROGs, PostgreSQL 15's programs, BINDIR's collector and
# report, the module installed (a warning when it is not this build's),
# the user postgres, x86_64.  Sets PGBIN and PKGLIB.
world_need() {
	local bindir=$1
	shift
	PGBIN=/usr/lib/postgresql/15/bin
	need_root
	need_progs auditd auditctl scmp_sys_resolver runuser flock sqlite3 awk sed grep cmp "$@"
	need_exec "$PGBIN"/{initdb,pg_ctl,postgres,psql} "$bindir"/pgsc-{collect,report}
	PKGLIB=$("$PGBIN/pg_config" --pkglibdir 2>/dev/null || echo /usr/lib/postgresql/15/lib)
	[ -f "$PKGLIB/pgsc.so" ] ||
		fail "the module is not installed ($PKGLIB/pgsc.so): cmake --build BUILD --target pgsc-module-install"
	if [ -f "$bindir/pgmodule/pgsc.so" ] && ! cmp -s "$bindir/pgmodule/pgsc.so" "$PKGLIB/pgsc.so"; then
		note "WARN: $PKGLIB/pgsc.so differs from this build's pgmodule/pgsc.so (install it: --target pgsc-module-install)"
	fi
	id postgres >/dev/null 2>&1 || fail "there is no user 'postgres'"
	[ "$(uname -m)" = x86_64 ] || fail "this test knows x86_64 only"
}

# shellcheck source=pg.sh
. "$(dirname "${BASH_SOURCE[0]}")/pg.sh"

# shellcheck disable=SC2034
WORLD_CI_STEPS=regress:test_setup+boolean+int4+text+copydml+insert+write_parallel,isolation:deadlock-simple+eval-plan-qual+lock-update-delete+insert-conflict-do-update,contrib/postgres_fdw,src/test/recovery:001_stream_rep,src/test/subscription:001_rep_changes
