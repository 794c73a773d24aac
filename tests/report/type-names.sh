#!/bin/bash
# SPDX-License-Identifier: PostgreSQL
# type-names.sh - per-type setting names are unique (docs/robustness.md,
# F6): a background worker titled "client_backend" and PostgreSQL's "client
# backend" make one setting name; pgsc-report --per-type gives the name to
# PostgreSQL's type only and says why the other has no line (both lines were
# printed, the later overriding the earlier, and --check-guc said 0 errors);
# --check-guc reports a setting set twice in any file.
#   bash tests/report/type-names.sh BINDIR GOLDENDIR
# shellcheck source=../lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
t_init type-names
BIN=$1
DIR=$2
T=$T_WORK
# the recorded server log with its checkpointer's lines saying client_backend
zcat "$DIR/norules-pglog.pglog.gz" | sed 's/\] checkpointer /] client_backend /' >"$T/pg.log"
zcat "$DIR/norules-pglog.log.gz" >"$T/a.log"
"$BIN/pgsc-collect" --db "$T/s.db" --pg-log "$T/pg.log" --import "$T/a.log" 2>/dev/null ||
	fail "import"
for prefix in "" pgsc.; do
	"$BIN/pgsc-report" --db "$T/s.db" --per-type ${prefix:+--guc-prefix "$prefix"} >"$T/t.guc" 2>"$T/t.err"
	rc=$?
	n=$(grep -c "^${prefix}client_backend_syscall_allow = " "$T/t.guc")
	if [ $rc = 0 ] && [ "$n" = 1 ] &&
		grep -q '^# backend type "client_backend" ([0-9]* records): no line: its setting name is also made from backend type "client backend"' "$T/t.guc"; then
		ok "prefix '$prefix': one client_backend line (PostgreSQL's type), the worker's refused with a comment"
	else
		bad "prefix '$prefix': exit $rc, $n client_backend lines"; grep client "$T/t.guc" | cut -c1-160
	fi
	"$BIN/pgsc-report" --check-guc "$T/t.guc" >"$T/chk" 2>&1 && grep -q ': 0 errors' "$T/chk" &&
		ok "prefix '$prefix': --check-guc passes the report" || bad "prefix '$prefix': --check-guc: $(tail -3 "$T/chk")"
done
# a per-type list set twice is an error, any other setting twice a warning
printf "pgsc.client_backend_syscall_allow = 'read'\nglobal_syscall_allow = 'read'\npgsc.client_backend_syscall_allow = 'write'\nshared_buffers = 1\nshared_buffers = 2\n" >"$T/d.guc"
"$BIN/pgsc-report" --check-guc "$T/d.guc" >"$T/d.out" 2>&1
rc=$?
if [ $rc = 1 ] && grep -q "d.guc:3: error: \"pgsc.client_backend_syscall_allow\" is set again: this line overrides line 1" "$T/d.out" &&
	grep -q "d.guc:5: warning: \"shared_buffers\" is set again: this line overrides line 4" "$T/d.out"; then
	ok "--check-guc: a per-type list set twice is an error, another setting twice a warning"
else
	bad "--check-guc duplicates: exit $rc: $(cat "$T/d.out")"
fi
t_done
