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
#                                  PGBIN, PKGLIB and PGMAJOR (15, 17...)
#   pg_module_install MODDIR PG_CONFIG
#                                  install MODDIR's module when the
#                                  installed one differs
#   pg_initdb DATA LOG [ARGS...]   initdb as postgres (trust, superuser
#                                  postgres) into DATA, output in LOG
#   pg_private_conf DATA SOCK [PORT]
#                                  no TCP, the socket in SOCK, PORT if given
#   pg_stop_now DATA               stop the cluster at once if it runs
#                                  (for cleanup functions)
#   pg_wait_log LOG TEXT           wait (10 s at most) until TEXT (a grep
#                                  pattern) is in the server log LOG
#   pg_exec_for_postgres BINDIR DIR
#                                  EXEC: BINDIR/pgsc-exec, or a copy in
#                                  DIR/bin when postgres cannot run it there
#   pg_bench_cluster C PORT NAME   a benchmark's cluster: C/data (initdb
#                                  --no-sync, output in C/initdb.log),
#                                  socket in C/sock, PORT, 20 connections,
#                                  NAME in a comment of postgresql.conf

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
	PGMAJOR=$("$pg_config" --version | awk '{ print int($2) }')
	[[ "$PGMAJOR" =~ ^[0-9]+$ ]] && [ "$PGMAJOR" -ge 15 ] ||
		fail "$pg_config: not a PostgreSQL 15 or later ($("$pg_config" --version))"
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

pg_wait_log() {
	local _
	for _ in $(seq 1 100); do
		grep -q "$2" "$1" && return 0
		sleep 0.1
	done
	return 1
}

pg_exec_for_postgres() {
	EXEC=$1/pgsc-exec
	if ! runuser -u postgres -- test -x "$EXEC"; then
		mkdir -p "$2/bin"
		cp "$EXEC" "$2/bin/pgsc-exec" && chmod 755 "$2/bin/pgsc-exec"
		EXEC=$2/bin/pgsc-exec
	fi
}

pg_bench_cluster() {
	mkdir -p "$1/sock"
	chown -R postgres "$1"
	pg_initdb "$1/data" "$1/initdb.log" --no-sync || return 1
	cat >>"$1/data/postgresql.conf" <<-EOF

		# pgsc $3
		listen_addresses = ''
		port = $2
		unix_socket_directories = '$1/sock'
		max_connections = 20
	EOF
}
