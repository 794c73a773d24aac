#!/bin/bash
# SPDX-License-Identifier: PostgreSQL
# demo.sh - the main job end to end on a fresh Debian 12 machine:
# build pgsc, start a private auditd (unless one runs already), load the
# pgsc audit rules, run PostgreSQL 15 under pgsc-exec's log-all filter
# with a short pgbench workload (with -C connection churn) and a
# COPY ... TO PROGRAM, import the audit log and print the GUC lines.
# Run as root.  Leaves nothing running; the store stays in $PGSC_DEMO_DIR.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

bash tools/install-deps.sh >/dev/null
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)" >/dev/null
BIN=$top/build
# the server: $PGBIN, else pgsc's one order (tools/pg-layout.sh)
if [ -z "${PGBIN:-}" ]; then
	# shellcheck source=pg-layout.sh
	. tools/pg-layout.sh
	pg_layout_find || { echo "demo.sh: $PG_LAYOUT_ERR" >&2; exit 2; }
fi
DEMO=${PGSC_DEMO_DIR:-/var/tmp/pgsc-demo}
DB=$DEMO/pgsc.db

. tests/lib/auditd.sh
rm -rf "$DEMO"
mkdir -p "$DEMO"
chmod 755 "$DEMO"
started_pg=0
cleanup() {
	if [ $started_pg = 1 ]; then
		su postgres -c "$PGBIN/pg_ctl -D $DEMO/data -m fast -w stop" >/dev/null 2>&1 || true
	fi
	if [ -n "${SYSTEM_AUDITD:-}" ]; then
		auditctl -D -k pgsc >/dev/null 2>&1 || true
		flock -u 9
	else
		audit_end
	fi
}
trap cleanup EXIT

audit_lock
owner=$(audit_foreign_daemon)
if [ -n "$owner" ]; then
	# An audit daemon runs already: use its log and add our rules to it.
	SYSTEM_AUDITD=1
	LOG=$(awk -F' *= *' '$1 == "log_file" { print $2 }' /etc/audit/auditd.conf)
	LOG=${LOG:-/var/log/audit/audit.log}
	sed "s|@POSTGRES@|$PGBIN/postgres|g" examples/pgsc.rules >"$DEMO/pgsc.rules"
	auditctl -R "$DEMO/pgsc.rules" >/dev/null
	echo "demo: using the running auditd (pid $owner), log $LOG" >&2
else
	audit_begin "$DEMO/audit"
	audit_rules examples/pgsc.rules "$PGBIN/postgres"
	LOG=$DEMO/audit/audit.log
	echo "demo: private auditd writing $LOG" >&2
fi

mkdir -p "$DEMO/sock"
chown postgres "$DEMO" "$DEMO/sock"
su postgres -c "$PGBIN/initdb -D $DEMO/data -A trust -U postgres" >"$DEMO/initdb.log"
su postgres -c "$BIN/pgsc-exec --default log -- $PGBIN/pg_ctl -D $DEMO/data \
	-o \"-k $DEMO/sock -c listen_addresses=''\" -l $DEMO/postgres.log -w start" >/dev/null
started_pg=1
echo "demo: PostgreSQL started under pgsc-exec --default log; running pgbench" >&2
su postgres -c "$PGBIN/pgbench -h $DEMO/sock -i -s 2 postgres" >/dev/null 2>&1
su postgres -c "$PGBIN/pgbench -h $DEMO/sock -c 4 -T 5 postgres" >/dev/null 2>&1
su postgres -c "$PGBIN/pgbench -h $DEMO/sock -C -c 4 -T 5 postgres" >/dev/null 2>&1
su postgres -c "$PGBIN/psql -h $DEMO/sock -qAt postgres" >/dev/null <<'SQL'
CREATE TEMP TABLE t AS SELECT g FROM generate_series(1, 10000) g;
CREATE INDEX ON t (g);
COPY t TO PROGRAM 'wc -l';
VACUUM ANALYZE;
CHECKPOINT;
SQL
su postgres -c "$PGBIN/pg_ctl -D $DEMO/data -m fast -w stop" >/dev/null
started_pg=0
if [ -z "${SYSTEM_AUDITD:-}" ]; then audit_sync || true; else sleep 2; fi

"$BIN/pgsc-collect" --db "$DB" --label demo --server-user postgres --import "$LOG"
echo >&2
"$BIN/pgsc-report" --db "$DB" --format=guc
