# SPDX-License-Identifier: PostgreSQL
# shellcheck shell=bash
# tests/lib/pgdg.sh - PGDG's layout made from this machine's Debian
# server, for a test in a private mount namespace (unshare -m, root).
#
#   pgdg_dress W V   /usr gets an overlay (upper and work directories in
#                    W) where /usr/pgsql-V is /usr/lib/postgresql/V
#                    bind-mounted: its relocatable pg_config then answers
#                    /usr/pgsql-V/bin and /usr/pgsql-V/lib, as PGDG's
#                    does; /usr/lib/postgresql is hidden under an empty
#                    tmpfs, so PATH's pg_config (Debian's wrapper, then
#                    libpq's) names no server.  Prints "bad: ..." and
#                    returns 1 when a step fails.  Nothing leaves the
#                    namespace.
pgdg_dress() {
	local W=$1 V=$2 P=/usr/pgsql-$2
	mount --make-rprivate / || { echo "bad: mount --make-rprivate /"; return 1; }
	mkdir -p "$W/real" "$W/up" "$W/wk"
	mount --bind "/usr/lib/postgresql/$V" "$W/real" || { echo "bad: bind the server"; return 1; }
	mount -t overlay overlay -o "lowerdir=/usr,upperdir=$W/up,workdir=$W/wk" /usr ||
		{ echo "bad: overlay on /usr"; return 1; }
	mkdir "$P" && mount --bind "$W/real" "$P" || { echo "bad: $P"; return 1; }
	mount -t tmpfs none /usr/lib/postgresql || { echo "bad: hide /usr/lib/postgresql"; return 1; }
	[ -x "$P/bin/postgres" ] && [ ! -e "/usr/lib/postgresql/$V" ] || { echo "bad: the fake layout"; return 1; }
	[ "$("$P/bin/pg_config" --bindir)" = "$P/bin" ] && [ "$("$P/bin/pg_config" --pkglibdir)" = "$P/lib" ] ||
		{ echo "bad: $P/bin/pg_config does not answer $P/bin and $P/lib"; return 1; }
}

# pgdg_major: the newest Debian server's major (for pgdg_dress), or fail
pgdg_major() {
	local d v=''
	for d in /usr/lib/postgresql/*/bin/postgres; do
		d=${d%/bin/postgres}
		v=$(printf '%s\n%s\n' "$v" "${d##*/}" | sort -rn | head -1)
	done
	[[ $v =~ ^[0-9]+$ ]] || fail "no Debian server /usr/lib/postgresql/NN/bin/postgres to dress as PGDG's (tools/install-deps.sh)"
	[ ! -e "/usr/pgsql-$v" ] || fail "/usr/pgsql-$v exists on this machine: the test needs it absent"
	echo "$v"
}
