#!/bin/bash
# SPDX-License-Identifier: PostgreSQL
# record.sh - record the golden fixtures with the real kernel, a private
# auditd and PostgreSQL 15 under pgsc-exec.  Run as root from a built tree:
#   bash tests/golden/record.sh BUILD_DIR
# then regenerate the .ref files with: bash tests/golden/run.sh BUILD_DIR tests/golden --update
# The fixtures are real logs; the only edit made to them is the node=
# variant, which prefixes each line the way auditd's name_format does.
set -e
# shellcheck source=../lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
t_init record
BIN=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
PGBIN=${PGBIN:-/usr/lib/postgresql/15/bin}
W=$T_WORK
chmod 755 "$W"
# shellcheck source=../lib/auditd.sh
. "$here/../lib/auditd.sh"
pg_up=0
stop_pg() {
	[ $pg_up = 0 ] || su postgres -c "$PGBIN/pg_ctl -D $W/data -m fast -w stop" >/dev/null 2>&1
}
t_cleanup audit_end
t_cleanup stop_pg

gcc -O1 -o "$W/probe64" "$here/probe.c"
# an exe path a process could choose to break naive parsers
evil="$W/ev\"il, 'dir"
mkdir -p "$evil"
cp "$W/probe64" "$evil/probe"
{
	echo '#!/bin/bash'
	# shellcheck disable=SC2016 # the $(...) is the generated script's
	printf 'exec %q "$(printf '"'"'q"uote,comma\\047\\033[31mred'"'"')"\n' "$evil/probe"
} >"$W/run-evil.sh"
chmod -R a+rx "$W"
chown postgres "$W"

mkdir -p "$W/sock"
chown postgres "$W/sock"
su postgres -c "$PGBIN/initdb -D $W/data -A trust -U postgres" >/dev/null

workload() {
	rm -f "$W/pg.log"
	su postgres -c "$BIN/pgsc-exec --default log -- $PGBIN/pg_ctl -D $W/data \
		-o \"-k $W/sock -c listen_addresses='' -c log_line_prefix='%m [%p] %b ' \
		-c log_connections=on -c autovacuum=off\" -l $W/pg.log -w start" >/dev/null
	pg_up=1
	for _ in 1 2 3; do
		su postgres -c "$PGBIN/psql -h $W/sock -qAt -c 'SELECT count(*) FROM pg_class' postgres" >/dev/null
	done
	su postgres -c "$PGBIN/psql -h $W/sock -qAt postgres" >/dev/null <<SQL
COPY (SELECT 1) TO PROGRAM '$W/run-evil.sh';
CHECKPOINT;
SQL
	su postgres -c "$PGBIN/pg_ctl -D $W/data -m fast -w stop" >/dev/null
	pg_up=0
}

record() { # NAME FORMAT RULES(0/1)
	local name=$1
	PGSC_AUDIT_FORMAT=$2 audit_begin "$W/audit-$name"
	[ "$3" = 1 ] && audit_rules "$here/../../examples/pgsc.rules" "$PGBIN/postgres"
	workload
	audit_sync || true
	cp "$W/data/postmaster.pid" "$W/pm-$name.pid" 2>/dev/null || true
	audit_end
	# the sync marker (a USER record) stays: its serial is one of the
	# stream's, and a log without it has a serial gap (the recorded
	# enriched, raw and node logs lack it and show 1 gap: docs/robustness.md).
	# DAEMON_ records carry auditd's own serials, not the kernel's.
	grep -v -e 'type=DAEMON_' "$W/audit-$name/audit.log" >"$W/$name.log"
}

record enriched ENRICHED 1
record raw RAW 1
record norules RAW 0
norules_pm=$(grep -m1 -o '\[[0-9]*\] postmaster' "$W/pg.log" | tr -dc 0-9)
cp "$W/pg.log" "$W/norules.pglog"

sed 's/^/node=pgsc-golden /' "$W/raw.log" >"$W/node.log"

for n in enriched raw norules node; do
	gzip -9 -n -c "$W/$n.log" >"$here/$n.log.gz"
done
rm -f "$here"/*.args "$here"/*.pglog.gz
# the rule-less log once with nothing, once with each kind of hint
cp "$here/norules.log.gz" "$here/norules-pmpid.log.gz"
echo "--postmaster-pid $norules_pm" >"$here/norules-pmpid.args"
cp "$here/norules.log.gz" "$here/norules-pglog.log.gz"
gzip -9 -n -c "$W/norules.pglog" >"$here/norules-pglog.pglog.gz"
echo "--pg-log @PGLOG@" >"$here/norules-pglog.args"
ls -la "$here"
