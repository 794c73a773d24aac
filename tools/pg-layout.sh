#!/bin/bash
# SPDX-License-Identifier: PostgreSQL
# pg-layout.sh - where the installed PostgreSQL server is, in one order
# for pgsc's scripts (sourced) and for a person (run).
#
#   bash tools/pg-layout.sh [--pg-config FILE] [--major N]
#       Print what was found, one "key=value" a line: pg_config (empty
#       for a layout directory without one), bindir, pkglibdir, major and
#       found (--pg-config, PG_CONFIG, PATH, Debian or PGDG).  Exit 0, or
#       2 with what was tried when no server is found.
#
# The order (docs/live.md, "RHEL and PGDG"; src/pglayout.c is the same
# for pgsc-scan, cmake/PgConfig.cmake for the build):
#   1. --pg-config FILE, else $PG_CONFIG: taken as it is (an error when it
#      does not answer, or answers another major than the one wanted);
#   2. pg_config in PATH, when its bindir holds postgres (on RHEL, PATH's
#      pg_config is often libpq's, with no server beside it);
#   3. /usr/lib/postgresql/NN/bin (Debian, Ubuntu), newest NN first;
#   4. /usr/pgsql-NN/bin (PGDG's RPMs), newest NN first.
# A directory of 3 and 4 counts when it holds an executable postgres; its
# pg_config is asked when it has one, else the layout says it (BINDIR,
# BINDIR/../lib).  With a wanted major (--major, else $PGSC_PG_MAJOR),
# candidates of another major are passed over.
#
# Sourced, it defines pg_layout_find [PG_CONFIG [MAJOR]], which sets
# PG_CONFIG, PGBIN, PGLIB (the pkglibdir), PGMAJOR and PG_LAYOUT (how it
# was found) and returns 0, or sets PG_LAYOUT_ERR and returns 1; and
# pg_layout_note PROG, which says on stderr which server PROG uses.

# _pg_layout_ask PG_CONFIG MAJOR ANY: sets the variables from PG_CONFIG's
# answers; fails when it does not answer, its major is not MAJOR (when
# set), or (unless ANY) its bindir holds no postgres
_pg_layout_ask() {
	local pgc=$1 want=$2 any=$3 bin lib ver
	bin=$("$pgc" --bindir 2>/dev/null) && lib=$("$pgc" --pkglibdir 2>/dev/null) &&
		ver=$("$pgc" --version 2>/dev/null) || return 1
	[[ $bin == /* && $lib == /* ]] || return 1
	ver=$(awk '{ print int($2) }' <<<"$ver")
	[ -z "$want" ] || [ "$ver" = "$want" ] || return 1
	[ -n "$any" ] || [ -x "$bin/postgres" ] || return 1
	PG_CONFIG=$pgc PGBIN=$bin PGLIB=$lib PGMAJOR=$ver
}

pg_layout_find() {
	local explicit=${1:-${PG_CONFIG:-}} want=${2:-${PGSC_PG_MAJOR:-}} how=PG_CONFIG
	local pgc root dir v
	[ -z "${1:-}" ] || how=--pg-config
	PG_CONFIG=${PG_CONFIG:-} PGBIN='' PGLIB='' PGMAJOR='' PG_LAYOUT='' PG_LAYOUT_ERR=''
	if [ -n "$explicit" ]; then
		if _pg_layout_ask "$explicit" "$want" 1; then
			PG_LAYOUT=$how
			return 0
		fi
		PG_LAYOUT_ERR="$how $explicit: no answer to --bindir, --pkglibdir and --version${want:+, or not PostgreSQL $want}"
		return 1
	fi
	if pgc=$(command -v pg_config) && _pg_layout_ask "$pgc" "$want" ''; then
		PG_LAYOUT=PATH
		return 0
	fi
	for root in /usr/lib/postgresql/:Debian /usr/pgsql-:PGDG; do
		# newest first: the NN of each ROOT-NN/bin/postgres
		while read -r v; do
			dir=${root%:*}$v
			[ -z "$want" ] || [ "$v" = "$want" ] || continue
			[ -x "$dir/bin/postgres" ] || continue
			PG_LAYOUT=${root#*:}
			if [ -x "$dir/bin/pg_config" ] && _pg_layout_ask "$dir/bin/pg_config" "$v" ''; then
				return 0
			fi
			PG_CONFIG='' PGBIN=$dir/bin PGLIB=$dir/lib PGMAJOR=$v
			return 0
		done < <(for d in "${root%:*}"*/bin/postgres; do
			d=${d%/bin/postgres}; d=${d#"${root%:*}"}
			[[ $d =~ ^[0-9]+(\.[0-9]+)?$ ]] && echo "$d"
		done | sort -rn)
	done
	PG_LAYOUT_ERR="no PostgreSQL${want:+ $want} server: no --pg-config or PG_CONFIG, no pg_config in PATH whose bindir holds postgres${want:+ $want}, no /usr/lib/postgresql/${want:-NN}/bin/postgres (Debian), no /usr/pgsql-${want:-NN}/bin/postgres (PGDG)"
	return 1
}

# pg_layout_note PROG: which server PROG uses, on stderr
pg_layout_note() {
	echo "$1: PostgreSQL $PGMAJOR of $PGBIN (${PG_LAYOUT:-PGSC_PGBIN}${PG_CONFIG:+, $PG_CONFIG})" >&2
}

# run, not sourced: print the layout
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	set -uo pipefail
	pgc='' major=''
	while [ $# -gt 0 ]; do
		case $1 in
		--pg-config) [ $# -ge 2 ] || { echo "pg-layout.sh: --pg-config needs a value" >&2; exit 2; }; pgc=$2; shift ;;
		--major) [ $# -ge 2 ] || { echo "pg-layout.sh: --major needs a value" >&2; exit 2; }; major=$2; shift ;;
		-h|--help) sed -n '3,/^$/p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
		*) echo "pg-layout.sh: unknown argument $1" >&2; exit 2 ;;
		esac
		shift
	done
	pg_layout_find "$pgc" "$major" || { echo "pg-layout.sh: $PG_LAYOUT_ERR" >&2; exit 2; }
	printf 'pg_config=%s\nbindir=%s\npkglibdir=%s\nmajor=%s\nfound=%s\n' \
		"$PG_CONFIG" "$PGBIN" "$PGLIB" "$PGMAJOR" "$PG_LAYOUT"
fi
