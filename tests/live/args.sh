#!/bin/bash
# SPDX-License-Identifier: PostgreSQL
# args.sh - argument collection (pgsc-collect --args, pgsc-report --args,
# docs/args.md) against the real kernel: a private auditd with pgsc's
# rules and the --args rules, PostgreSQL 15 under pgsc-exec --default log
# and under strace, a small workload over TCP and a Unix socket.  The
# rules pgsc-report prints for socket and setsockopt must hold exactly the
# values strace saw the server's processes pass (an independent source:
# the kernel's ptrace view, parsed here), and every output without --args
# stays as it is.  Run as root from a built tree:
#   bash tests/live/args.sh BUILD_DIR
# PGSC_ARGS_FIXTURE=DIR keeps the recorded log (gzip) there.
set -e
# shellcheck source=../lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
t_init live-args
BIN=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
PGBIN=${PGBIN:-/usr/lib/postgresql/15/bin}
need_root "a private auditd"
need_progs strace auditd auditctl
need_exec "$PGBIN/postgres" "$PGBIN/initdb" "$PGBIN/psql"
W=$T_WORK
chmod 755 "$W"
# shellcheck source=../lib/auditd.sh
. "$here/../lib/auditd.sh"
pg_pid=
stop_pg() {
	[ -n "$pg_pid" ] || return 0
	# the postmaster (strace and su above it end with it): fast shutdown
	kill -INT "$(head -n 1 "$W/data/postmaster.pid" 2>/dev/null)" 2>/dev/null ||
		kill -INT "$pg_pid" 2>/dev/null || true
	wait "$pg_pid" 2>/dev/null || true
	pg_pid=
}
t_cleanup audit_end
t_cleanup stop_pg

mkdir -p "$W/sock"
chown postgres "$W" "$W/sock"
su postgres -c "$PGBIN/initdb -D $W/data -A trust -U postgres" >/dev/null
port=$((20000 + $$ % 20000))

"$BIN/pgsc-collect" --print-rules --args --server-user postgres >"$W/rules"
grep -q -- '-k pgsc-args$' "$W/rules" || fail "--print-rules --args has no pgsc-args rule"
[ "$("$BIN/pgsc-collect" --print-rules)" = "$(head -n 6 "$W/rules")" ] ||
	fail "--args changed the rules printed before it"

PGSC_AUDIT_FORMAT=RAW audit_begin "$W/audit"
audit_rules "$W/rules" "$PGBIN/postgres"
# strace -f follows every process of the server (the same tree the
# process tree attributes); -e raw: the numbers, as the audit record's.
su postgres -c "exec strace -f -qq -o $W/strace -e trace=socket,setsockopt \
	-e raw=socket,setsockopt $BIN/pgsc-exec --default log -- \
	$PGBIN/postgres -D $W/data -k $W/sock -c listen_addresses=127.0.0.1 \
	-c port=$port -c autovacuum=off" >"$W/pg.out" 2>&1 &
pg_pid=$!
for _ in $(seq 1 100); do
	su postgres -c "$PGBIN/psql -h $W/sock -p $port -qAt -c 'SELECT 1' postgres" >/dev/null 2>&1 && break
	sleep 0.2
done
for h in "$W/sock" 127.0.0.1 127.0.0.1; do
	su postgres -c "$PGBIN/psql -h $h -p $port -qAt -c 'SELECT count(*) FROM pg_class' postgres" >/dev/null ||
		fail "psql -h $h failed"
done
stop_pg
audit_sync || true
audit_end
grep -v -e 'type=DAEMON_' "$W/audit/audit.log" >"$W/args.log"
grep -q 'pgsc-args' "$W/args.log" || fail "no record of the --args rules in the log"
if [ -n "${PGSC_ARGS_FIXTURE:-}" ]; then
	gzip -9 -n -c "$W/args.log" >"$PGSC_ARGS_FIXTURE/args.log.gz"
fi

"$BIN/pgsc-collect" --db "$W/s.db" --quiet --import "$W/args.log" ||
	fail "import of the recorded log"
"$BIN/pgsc-report" --db "$W/s.db" >"$W/plain.guc"
"$BIN/pgsc-report" --db "$W/s.db" --args >"$W/args.guc"
# shellcheck disable=SC2016 # expect evals its check: single quotes on purpose
expect "without --args no rule is printed" '! grep -q "_allow = .*(" "$W/plain.guc"'
list_of() { # FILE: the global list's entries, one a line
	sed -n "s/^global_syscall_allow = '\(.*\)'$/\1/p" "$1" | tr ',' '\n'
}
list_of "$W/plain.guc" >"$W/names.plain"
list_of "$W/args.guc" | sed 's/(.*//' >"$W/names.args"
check "--args prints the same names" "$(cmp -s "$W/names.plain" "$W/names.args"; echo $?)"

# strace: "PID socket(0x1, 0x80801, 0) = 5" (a call cut by another
# process's is "PID socket(0x1, 0x80801, 0 <unfinished ...>")
from_strace() { # CALL: the key's values, one "x:y" a line, in decimal
	awk -v call="$1" '
	function num(s,   v, i, c) { # "0x1f" or "12" (mawk has no strtonum)
		gsub(/[ )]/, "", s)
		if (substr(s, 1, 2) != "0x") return s + 0
		v = 0
		for (i = 3; i <= length(s); i++) {
			c = index("0123456789abcdef", tolower(substr(s, i, 1)))
			v = v * 16 + c - 1
		}
		return v
	}
	$2 ~ "^" call "\\(" {
		sub(/^[^(]*\(/, "", $0); sub(/\) = .*/, ""); sub(/ <unfinished.*/, "")
		n = split($0, a, ",")
		if (call == "socket") print num(a[1]) ":" num(a[2]) % 16
		else print num(a[2]) ":" num(a[3])
	}' "$W/strace" | sort -u
}
from_report() { # CALL: the rule's alternatives, one a line
	list_of "$W/args.guc" | sed -n "s/^$1(\([^=]*\)=\(.*\))$/\2/p" |
		tr '|' '\n' | sort -u
}
for call in socket setsockopt; do
	from_strace $call >"$W/$call.strace"
	from_report $call >"$W/$call.report"
	[ -s "$W/$call.strace" ] || fail "strace saw no $call call"
	if cmp -s "$W/$call.strace" "$W/$call.report"; then
		ok "$call: the rule's values are strace's ($(tr '\n' ' ' <"$W/$call.report"))"
	else
		bad "$call: rule and strace differ"
		diff -u "$W/$call.strace" "$W/$call.report" || true
	fi
done
# shellcheck disable=SC2016 # expect evals its check: single quotes on purpose
expect "setsockopt has TCP_NODELAY (6:1) from the TCP connections" \
	'grep -qx 6:1 "$W/setsockopt.report"'
# the reference path (auparse for every record) reads the same values
"$BIN/pgsc-collect" --db "$W/ref.db" --quiet --no-fast-path --import "$W/args.log"
"$BIN/pgsc-report" --db "$W/ref.db" --args >"$W/ref.guc"
check "the auparse path prints the same rules" "$(cmp -s "$W/args.guc" "$W/ref.guc"; echo $?)"
"$BIN/pgsc-report" --db "$W/s.db" --args --format json >"$W/args.json"
# shellcheck disable=SC2016 # expect evals its check: single quotes on purpose
expect "json has an args member with socket" \
	'python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert \"socket\" in d[\"args\"][\"global\"]" "$W/args.json"'
t_done
