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
#   pg_traps FUNC                  run FUNC on exit; INT and TERM exit
#                                  130 and 143, through FUNC
#   pg_initdb DATA LOG [ARGS...]   initdb as postgres (trust, superuser
#                                  postgres) into DATA, output in LOG
#   pg_private_conf DATA SOCK [PORT]
#                                  no TCP, the socket in SOCK, PORT if given
#   pg_stop_now DATA               stop the cluster at once if it runs
#                                  (for cleanup functions)
#   pg_workdir_done DIR KEEP NAME  remove the work directory DIR, or say
#                                  it is kept when KEEP is 1

pg_traps() {
	# shellcheck disable=SC2064
	trap "$1" EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
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

pg_workdir_done() {
	if [ "$2" = 1 ]; then
		echo "$3: work directory kept: $1" >&2
	else
		rm -rf "$1"
	fi
}
