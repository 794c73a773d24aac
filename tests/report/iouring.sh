#!/bin/bash
# SPDX-License-Identifier: PostgreSQL
# tests/report/iouring.sh - pgsc-report warns about io_uring
# (docs/io_uring.md): I/O through a ring is invisible to seccomp.
#
#   bash tests/report/iouring.sh BINDIR SRCDIR
#
# The real recording tests/golden/raw.log (PostgreSQL 15, no io_uring) is
# changed in place: a SECCOMP record of its postmaster gets the number of
# io_uring_setup, records of a client backend those of io_uring_enter and
# io_uring_register.  The numbers come from libseccomp's own table
# (scmp_sys_resolver) at test time, never from pgsc.  Then:
#   1. the guc format warns on stderr and in its header, the JSON carries
#      the "io_uring" member, the HTML page a box; io_method io_uring (the
#      postmaster made a ring, as PostgreSQL 18 does);
#   2. --per-type: io_uring_setup is in the global (the postmaster's)
#      list and in no type's, even when a client backend made one too;
#      io_uring_enter is in the client backend's;
#   3. an "io worker" role (set in the store through SQL) and rings only
#      entered: io_method worker; io workers without any ring: the JSON
#      says worker, with no warning;
#   4. the unchanged recording: no warning, no member, no box.
# shellcheck source=../lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
t_init iouring
t_bindir "iouring.sh BINDIR SRCDIR" "$@"
SRC=$(cd "${2:?usage: iouring.sh BINDIR SRCDIR}" && pwd)
COLLECT=$BINDIR/pgsc-collect
REPORT=$BINDIR/pgsc-report
need_exec "$COLLECT" "$REPORT"
need_progs sqlite3 python3 scmp_sys_resolver
T=$T_WORK

nr() { scmp_sys_resolver -a x86_64 "$1"; }
NR_SETUP=$(nr io_uring_setup)
NR_ENTER=$(nr io_uring_enter)
NR_REGISTER=$(nr io_uring_register)
for n in "$NR_SETUP" "$NR_ENTER" "$NR_REGISTER"; do
	[[ $n =~ ^[0-9]+$ ]] || fail "scmp_sys_resolver gave '$n' for an io_uring call"
done
q() { sqlite3 -batch -noheader "$1" "$2"; }

zcat "$SRC/tests/golden/raw.log.gz" >"$T/raw.log"
"$COLLECT" --db "$T/raw.db" --quiet --import "$T/raw.log" || fail "raw: import failed"
PM=$(q "$T/raw.db" "SELECT pid FROM processes WHERE role = 'postmaster' LIMIT 1")
CB=$(q "$T/raw.db" "SELECT pid FROM processes WHERE role = 'client backend' ORDER BY birth LIMIT 1")
[ -n "$PM" ] && [ -n "$CB" ] || fail "test invalid: raw.log has no postmaster or client backend"

# retag IN OUT PID:NR...: the first SECCOMP record of PID not yet changed
# gets syscall=NR, for each PID:NR in turn
retag() {
	local in=$1 out=$2
	shift 2
	python3 - "$in" "$out" "$@" <<'PY'
import re, sys
src, dst, specs = sys.argv[1], sys.argv[2], sys.argv[3:]
lines = open(src, encoding="utf-8", errors="surrogateescape").read().split("\n")
done = set()
for spec in specs:
    pid, nr = spec.split(":")
    for i, l in enumerate(lines):
        if i in done or not l.startswith("type=SECCOMP ") or f" pid={pid} " not in l:
            continue
        if " arch=c000003e " not in l:
            continue
        lines[i] = re.sub(r" syscall=[0-9]+ ", f" syscall={nr} ", l)
        done.add(i)
        break
    else:
        sys.exit(f"no SECCOMP record of pid {pid} left")
open(dst, "w", encoding="utf-8", errors="surrogateescape").write("\n".join(lines))
PY
}

# report NAME: every output of store NAME.db
report() {
	local n=$1
	"$REPORT" --db "$T/$n.db" --format guc >"$T/$n.guc" 2>"$T/$n.guc.err"
	"$REPORT" --db "$T/$n.db" --format json >"$T/$n.json" 2>"$T/$n.json.err"
	"$REPORT" --db "$T/$n.db" --format html >"$T/$n.html" 2>/dev/null
	"$REPORT" --db "$T/$n.db" --per-type --format json >"$T/$n.types.json" 2>/dev/null
	"$REPORT" --db "$T/$n.db" --per-type=routine --guc-prefix pgsc. >"$T/$n.routine" 2>/dev/null
}

# jget NAME EXPR: a Python expression over the JSON report (j), printed
jget() {
	python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$T/$1.json" "$2"
}

# 1. the postmaster makes a ring, a client backend enters and registers
retag "$T/raw.log" "$T/ring.log" "$PM:$NR_SETUP" "$CB:$NR_ENTER" "$CB:$NR_REGISTER" || fail "retag failed"
"$COLLECT" --db "$T/ring.db" --quiet --import "$T/ring.log" || fail "ring: import failed"
# the independent side: the store's aggregates hold the numbers under those roles
[ "$(q "$T/ring.db" "SELECT count(*) FROM aggregates WHERE role = 'postmaster' AND nr = $NR_SETUP")" = 1 ] ||
	fail "test invalid: the store has no io_uring_setup ($NR_SETUP) of the postmaster"
[ "$(q "$T/ring.db" "SELECT count(*) FROM aggregates WHERE role = 'client backend' AND nr IN ($NR_ENTER, $NR_REGISTER)")" = 2 ] ||
	fail "test invalid: the store has no io_uring_enter/register of the client backend"
report ring
f0=$T_FAIL
grep -q "^pgsc-report: warning: the rounds saw io_uring_setup (1), io_uring_enter (1), io_uring_register (1): reads and writes submitted through an io_uring ring are not syscalls, seccomp neither sees nor stops them" "$T/ring.guc.err" ||
	bad "guc: no io_uring warning on stderr: $(cat "$T/ring.guc.err")"
grep -q "io_method: io_uring (the postmaster made a ring" "$T/ring.guc.err" ||
	bad "guc: the warning does not say io_method io_uring: $(cat "$T/ring.guc.err")"
grep -q "^# warning: the rounds saw io_uring_setup" "$T/ring.guc" ||
	bad "guc: no io_uring warning in the header"
[ "$(jget ring 'j["io_uring"]["io_method"]')" = io_uring ] || bad "json: io_method is not io_uring"
[ "$(jget ring 'sorted(j["io_uring"]["calls"].items())')" = "[('io_uring_enter', 1), ('io_uring_register', 1), ('io_uring_setup', 1)]" ] ||
	bad "json: calls $(jget ring 'j["io_uring"]["calls"]')"
jget ring '"seccomp neither sees nor stops them" in j["io_uring"]["warning"]' | grep -qx True || bad "json: no warning sentence"
# the JSON's syscall numbers are libseccomp's
[ "$(jget ring '[s["nr"] for s in j["syscalls"] if s["name"] == "io_uring_setup"]')" = "[$NR_SETUP]" ] ||
	bad "json: io_uring_setup is not number $NR_SETUP"
grep -q '<div class="amber"><b>io_uring:</b> the rounds saw io_uring_setup' "$T/ring.html" || bad "html: no io_uring box"
[ $T_FAIL = "$f0" ] && ok "io_uring seen: the warning on stderr, in the header, the JSON and the HTML page; io_method io_uring"

# 2. --per-type: io_uring_setup is the postmaster's (the global list) only
f0=$T_FAIL
python3 - "$T/ring.types.json" <<'PY' || bad "per-type: io_uring_setup in a type's list, or io_uring_enter not the client backend's"
import json, sys
j = json.load(open(sys.argv[1]))
assert "io_uring_setup" in j["global"]
assert all("io_uring_setup" not in t["syscalls"] for t in j["types"].values()), j["types"]
assert "io_uring_enter" in j["types"]["client backend"]["syscalls"]
PY
grep "^pgsc\.[a-z_]*_syscall_allow = " "$T/ring.routine" | grep -v "^pgsc.global_syscall_allow" | grep -q "io_uring_setup" &&
	bad "per-type=routine: io_uring_setup in a type's line"
grep -q "^pgsc.global_syscall_allow = '.*io_uring_setup" "$T/ring.routine" || bad "per-type=routine: io_uring_setup not in the global list"
# a client backend that makes a ring too (an extension's): still in no type's list, and said
retag "$T/ring.log" "$T/ext.log" "$CB:$NR_SETUP" || fail "retag failed"
"$COLLECT" --db "$T/ext.db" --quiet --import "$T/ext.log" || fail "ext: import failed"
[ "$(q "$T/ext.db" "SELECT count(*) FROM aggregates WHERE role = 'client backend' AND nr = $NR_SETUP")" = 1 ] ||
	fail "test invalid: no io_uring_setup of the client backend"
report ext
python3 - "$T/ext.types.json" <<'PY' || bad "per-type: a client backend's io_uring_setup is in its list"
import json, sys
j = json.load(open(sys.argv[1]))
assert all("io_uring_setup" not in t["syscalls"] for t in j["types"].values()), j["types"]
PY
[ "$(jget ext 'j["io_uring"]["setup_outside_postmaster"]')" = 1 ] || bad "json: setup_outside_postmaster is not 1"
grep -q "1 io_uring_setup outside the postmaster" "$T/ext.guc.err" || bad "guc: the warning does not name the ring made outside the postmaster"
[ $T_FAIL = "$f0" ] && ok "--per-type: io_uring_setup in the postmaster's list only, a backend's ring said and left out"

# 3. io workers: a checkpointer relabelled "io worker" in the store
f0=$T_FAIL
retag "$T/raw.log" "$T/enter.log" "$CB:$NR_ENTER" || fail "retag failed"
for n in enter workers; do
	src=$T/raw.log
	[ $n = enter ] && src=$T/enter.log
	"$COLLECT" --db "$T/$n.db" --quiet --import "$src" || fail "$n: import failed"
	q "$T/$n.db" "UPDATE aggregates SET role = 'io worker' WHERE role = 'checkpointer'; UPDATE processes SET role = 'io worker' WHERE role = 'checkpointer'"
	[ "$(q "$T/$n.db" "SELECT count(*) FROM aggregates WHERE role = 'io worker'")" -gt 0 ] || fail "test invalid: no io worker rows"
	report $n
done
grep -q "io_method: worker (io worker processes were seen" "$T/enter.guc.err" ||
	bad "enter: the warning does not say io_method worker: $(cat "$T/enter.guc.err")"
[ "$(jget enter 'j["io_uring"]["io_method"]')" = worker ] || bad "enter: json io_method is not worker"
[ "$(jget workers 'j["io_uring"]["io_method"], j["io_uring"]["warning"], j["io_uring"]["calls"]')" = "('worker', None, {})" ] ||
	bad "workers: json io_uring member $(jget workers 'j["io_uring"]')"
grep -q io_uring "$T/workers.guc.err" "$T/workers.guc" && bad "workers: an io_uring warning without io_uring"
[ $T_FAIL = "$f0" ] && ok "io workers: io_method worker; without a ring, the JSON says so and nothing warns"

# 4. the real recording as it is: nothing
f0=$T_FAIL
report raw
grep -q io_uring "$T/raw.guc.err" "$T/raw.json.err" && bad "raw: an io_uring warning on stderr"
grep -q io_uring "$T/raw.guc" && bad "raw: an io_uring warning in the header"
[ "$(jget raw '"io_uring" in j')" = False ] || bad "raw: the JSON has an io_uring member"
grep -q "<b>io_uring:</b>" "$T/raw.html" && bad "raw: the HTML page has an io_uring box"
[ $T_FAIL = "$f0" ] && ok "no io_uring in the recording: no warning, no member, no box"

# 5. every JSON report of these stores, the io_uring member included,
# against schemas/pgsc-report.schema.json (fails without python3-jsonschema)
f0=$T_FAIL
python3 "$T_SRCROOT/tests/lib/schema-check.py" "$T_SRCROOT/schemas" --expect 10 "$T"/*.json ||
	bad "a JSON report is not valid against its schema"
[ $T_FAIL = "$f0" ] && ok "the JSON reports are valid against their schema"

t_done
