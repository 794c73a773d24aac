# SPDX-License-Identifier: PostgreSQL
# shellcheck shell=bash
# tests/lib/pg.sh - a private PostgreSQL cluster for pgsc's shell tests, and
# the trap blocks around it.
#
# Sourced by the live, module and scan tests (after setting PGBIN, the
# directory of PostgreSQL's programs).  The cluster belongs to the user
# postgres, lives in the test's own work directory, takes no TCP
# connections and has its socket in a directory of its own.
#
#   pg_need PROG...                root, x86_64, the user postgres and
#                                  PGBIN's PROGs (tests/lib/common.sh)
#   pg_module MODDIR PG_CONFIG     the module tests' preconditions; sets
#                                  PGBIN and PKGLIB
#   pg_module_install MODDIR PG_CONFIG
#                                  install MODDIR's module when the
#                                  installed one differs
#   pg_initdb DATA LOG [ARGS...]   initdb as postgres (trust, superuser
#                                  postgres) into DATA, output in LOG
#   pg_private_conf DATA SOCK [PORT]
#                                  no TCP, the socket in SOCK, PORT if given
#   pg_stop_now DATA               stop the cluster at once if it runs
#                                  (for cleanup functions)

pg_need() {
	need_root
	[ "$(uname -m)" = x86_64 ] || fail "this test knows x86_64 only"
	id postgres >/dev/null 2>&1 || fail "there is no user 'postgres' (Debian package postgresql-15)"
	local p
	for p; do
		need_exec "$PGBIN/$p"
	done
}

pg_module() {
	local moddir=$1 pg_config=$2
	need_exec "$pg_config"
	need_file "$moddir/pgsc.so"
	PGBIN=$("$pg_config" --bindir)
	PKGLIB=$("$pg_config" --pkglibdir)
}

pg_module_install() {
	local moddir=$1 pg_config=$2 src
	src=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
	if ! cmp -s "$moddir/pgsc.so" "$PKGLIB/pgsc.so" ||
		! cmp -s "$src/src/pgmodule/pgsc--1.0.sql" "$("$pg_config" --sharedir)/extension/pgsc--1.0.sql"; then
		note "installing the module from $moddir into $PKGLIB"
		make -s -f "$src/src/pgmodule/Makefile" -C "$moddir" PG_CONFIG="$pg_config" install >/dev/null ||
			fail "make install of the module failed"
	fi
	cmp -s "$moddir/pgsc.so" "$PKGLIB/pgsc.so" || fail "$PKGLIB/pgsc.so is not the module built in $moddir"
}

pg_initdb() {
	local data=$1 log=$2
	shift 2
	runuser -u postgres -- "$PGBIN/initdb" -D "$data" -A trust -U postgres \
		"$@" >"$log" 2>&1
}

pg_private_conf() {
	{
		echo "listen_addresses = ''"
		[ -z "${3:-}" ] || echo "port = $3"
		echo "unix_socket_directories = '$2'"
	} >>"$1/postgresql.conf"
}

pg_stop_now() {
	if [ -f "$1/postmaster.pid" ]; then
		runuser -u postgres -- "$PGBIN/pg_ctl" -D "$1" -m immediate -w \
			-t 30 stop >/dev/null 2>&1
	fi
	return 0
}
