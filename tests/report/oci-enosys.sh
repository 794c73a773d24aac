#!/bin/bash
# SPDX-License-Identifier: PostgreSQL
# oci-enosys.sh - the OCI profile answers ENOSYS to the calls newer than
# the lists and EPERM to the known ones they do not allow.
#   bash tests/report/oci-enosys.sh BINDIR DIR
# DIR is tests/report; tests/golden/raw.log.gz next to it is the real
# x86_64 recording the store is made from.  Nothing expected is typed
# here: the names come from the library libseccomp itself (ctypes), the
# numbers from scmp_sys_resolver.  Three checks:
#   1. the profile's shape: defaultErrnoRet 38, the allow rule is the
#      global list, the EPERM rule is every name libseccomp knows on
#      x86_64 up to the known max and not allowed, "known_max" agrees;
#   2. the profile loaded with libseccomp alone (the default
#      ERRNO(defaultErrnoRet), each rule by name, as a runtime without
#      runc's ENOSYS patch loads it) in a forked child: a
#      listed call works, a known unlisted one is EPERM, the number after
#      the known max (a real call on a newer kernel) is ENOSYS;
#   3. the same under a real runc run of a static probe, and the old
#      profile (--unknown-syscall-action default) for contrast.
# shellcheck source=../lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
t_init oci-enosys
BIN=$1
DIR=$2
R=$BIN/pgsc-report
need_progs scmp_sys_resolver python3 runc gcc
# shellcheck source=../lib/check.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/check.sh"
T=$T_WORK
CID=pgsc-oci-enosys-$$
t_cleanup runc_cleanup "$T" "$CID"
cd "$T" || exit 1

zcat "$DIR/../golden/raw.log.gz" >raw.log
"$BIN/pgsc-collect" --db x.db --import raw.log >/dev/null 2>&1 ||
	fail "import"
"$R" --db x.db --format oci >new.json 2>new.err || fail "--format oci"
"$R" --db x.db --format oci --unknown-syscall-action default >old.json ||
	fail "--unknown-syscall-action default"
"$R" --db x.db --format oci --default kill >kill.json || fail "--default kill"
"$R" --db x.db --format json >x.json || fail "--format json"

# -- 1. the shape, against libseccomp's own table --------------------------
python3 - new.json old.json kill.json x.json new.err >shape.out 2>&1 <<'EOF'
import ctypes, json, re, sys
lib = ctypes.CDLL("libseccomp.so.2")
lib.seccomp_syscall_resolve_num_arch.restype = ctypes.c_void_p
lib.seccomp_syscall_resolve_num_arch.argtypes = [ctypes.c_uint32, ctypes.c_int]
X86_64 = 0xc000003e
known = {}
for nr in range(0, 8192):
    p = lib.seccomp_syscall_resolve_num_arch(X86_64, nr)
    if p:
        known[ctypes.string_at(p).decode()] = nr
        ctypes.CDLL(None).free(ctypes.c_void_p(p))
new, old, kill, rep = (json.load(open(f)) for f in sys.argv[1:5])
# what the outside formats add to the global list, each said on stderr
# (report_needs.c: the start-up calls, restart_syscall)
added = [n for m in re.findall(r"^pgsc-report: added to the global list(?:, not seen in the records)?: ([a-z0-9_,]+) \(", open(sys.argv[5]).read(), re.M) for n in m.split(",")]
assert "restart_syscall" in added or "restart_syscall" in rep["global"], added
rep["global"] = rep["global"] + added
top = max(known.values())
assert rep["known_max"]["x86_64"] == top, (rep["known_max"], top)
assert new["defaultAction"] == "SCMP_ACT_ERRNO" and new["defaultErrnoRet"] == 38, new
assert new["architectures"] == ["SCMP_ARCH_X86_64"]
allow = [s for s in new["syscalls"] if s["action"] == "SCMP_ACT_ALLOW"]
deny = [s for s in new["syscalls"] if s["action"] == "SCMP_ACT_ERRNO"]
assert len(allow) == 1 and len(deny) == 1 and len(new["syscalls"]) == 2
assert sorted(allow[0]["names"]) == sorted(rep["global"])
assert deny[0]["errnoRet"] == 1
want = sorted(set(known) - set(rep["global"]))
assert deny[0]["names"] == want, set(deny[0]["names"]) ^ set(want)
# the old profile: EPERM by default, the allow rule alone
assert old["defaultAction"] == "SCMP_ACT_ERRNO" and old["defaultErrnoRet"] == 1
assert [s["action"] for s in old["syscalls"]] == ["SCMP_ACT_ALLOW"]
# under kill: ENOSYS by default, kill for the known unlisted
assert kill["defaultErrnoRet"] == 38
assert [(s["action"], s.get("errnoRet")) for s in kill["syscalls"]] == \
    [("SCMP_ACT_ALLOW", None), ("SCMP_ACT_KILL_PROCESS", None)]
assert kill["syscalls"][1]["names"] == want
print(top)
EOF
ok=$?
result "profile: defaultErrnoRet 38, allow = global list, EPERM = libseccomp's other names" $((! ok)) "$(cat shape.out)"
MAX=$(tail -n 1 shape.out)

# The calls: one listed, one known and unlisted, the number after the
# known max.  Each takes a pointer or nothing and is harmless.
pick() { # listed|unlisted -> the first candidate so
	python3 - "$1" x.json <<'EOF'
import json, sys
g = set(json.load(open(sys.argv[2]))["global"])
for c in ("getppid", "getpgrp", "getuid", "getpid", "sysinfo", "times",
          "sched_yield", "getsid", "umask", "uname"):
    if (c in g) == (sys.argv[1] == "listed"):
        print(c); break
EOF
}
LISTED=$(pick listed)
UNLISTED=$(pick unlisted)
[ -n "$LISTED" ] && [ -n "$UNLISTED" ] || fail "no candidate calls ($LISTED/$UNLISTED)"
NL=$(scmp_sys_resolver -a x86_64 "$LISTED")
NU=$(scmp_sys_resolver -a x86_64 "$UNLISTED")
NX=$((MAX + 1))
[ "$(scmp_sys_resolver -a x86_64 "$NX")" = UNKNOWN ] || fail "$NX is known"
echo "calls: $LISTED ($NL) listed, $UNLISTED ($NU) unlisted, $NX (known max $MAX + 1)"

# -- 2. with libseccomp alone: the default, each rule, as a runtime does ---------
cat >load.py <<'EOF'
import ctypes, json, os, sys
lib = ctypes.CDLL("libseccomp.so.2", use_errno=True)
libc = ctypes.CDLL(None, use_errno=True)
lib.seccomp_init.restype = ctypes.c_void_p
lib.seccomp_init.argtypes = [ctypes.c_uint32]
lib.seccomp_rule_add.argtypes = [ctypes.c_void_p, ctypes.c_uint32, ctypes.c_int, ctypes.c_uint]
lib.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
lib.seccomp_load.argtypes = [ctypes.c_void_p]
ERRNO = lambda e: 0x00050000 | (e & 0xffff)
ACT = {"SCMP_ACT_ALLOW": lambda e: 0x7fff0000,
       "SCMP_ACT_ERRNO": lambda e: ERRNO(1 if e is None else e),
       "SCMP_ACT_KILL_PROCESS": lambda e: 0x80000000}
p = json.load(open(sys.argv[1]))
calls = [int(x) for x in sys.argv[2:]]
default = ACT[p["defaultAction"]](p.get("defaultErrnoRet"))
ctx = lib.seccomp_init(default)
assert ctx
for s in p["syscalls"]:
    act = ACT[s["action"]](s.get("errnoRet"))
    if act == default:
        continue
    for name in s["names"]:
        nr = lib.seccomp_syscall_resolve_name(name.encode())
        if nr == -10000:        # __NR_SCMP_ERROR: the runtime skips it
            continue
        assert lib.seccomp_rule_add(ctx, act, nr, 0) == 0, name
buf = ctypes.create_string_buffer(4096)
res = []
pid = os.fork()
if pid == 0:
    if lib.seccomp_load(ctx) != 0:
        os._exit(99)
    code = 0
    for i, nr in enumerate(calls):
        r = libc.syscall(ctypes.c_long(nr), buf, ctypes.c_long(0), ctypes.c_long(0))
        e = ctypes.get_errno()
        # 0 ok, 1 EPERM, 2 ENOSYS, 3 anything else: two bits a call
        code |= (0 if r >= 0 else 1 if e == 1 else 2 if e == 38 else 3) << (2 * i)
    os._exit(code)
_, st = os.waitpid(pid, 0)
code = os.waitstatus_to_exitcode(st)
names = ["ok", "EPERM", "ENOSYS", "other"]
print(" ".join(names[(code >> (2 * i)) & 3] for i in range(len(calls))) if 0 <= code < 64 else "exit %d" % code)
EOF
got=$(python3 load.py new.json "$NL" "$NU" "$NX" 2>&1)
[ "$got" = "ok EPERM ENOSYS" ]
result "libseccomp alone: $LISTED ok, $UNLISTED EPERM, $NX ENOSYS" $((! $?)) "got: $got"
got=$(python3 load.py old.json "$NL" "$NU" "$NX" 2>&1)
[ "$got" = "ok EPERM EPERM" ]
result "libseccomp alone, --unknown-syscall-action default: $NX EPERM" $((! $?)) "got: $got"
# control: without a filter the kernel has no ENOSYS for $NX if it has
# the call (6.8 and later: statmount), so the ENOSYS above is the filter's
python3 - "$NX" >ctl.out 2>&1 <<'EOF'
import ctypes, sys
libc = ctypes.CDLL(None, use_errno=True)
r = libc.syscall(ctypes.c_long(int(sys.argv[1])), None, ctypes.c_long(0), ctypes.c_long(0))
print("ENOSYS" if r < 0 and ctypes.get_errno() == 38 else "implemented")
EOF
echo "kernel $(uname -r) without a filter: $NX $(cat ctl.out)"

# -- 3. a real runc run of a static probe -----------------------------------
cat >probe.c <<'EOF'
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>
int main(int argc, char **argv)
{
	static char buf[4096];
	for (int i = 1; i < argc; i++) {
		long r = syscall(atol(argv[i]), buf, 0L, 0L);
		printf("%s%s", i > 1 ? " " : "", r >= 0 ? "ok" : errno == EPERM ?
		       "EPERM" : errno == ENOSYS ? "ENOSYS" : "other");
	}
	putchar('\n');
	return 0;
}
EOF
runc_bundle probe.c
runc_probe() { # PROFILE -> the probe's output
	python3 - "$1" bundle/config.json "$NL" "$NU" "$NX" <<'EOF' || return 99
import json, sys
c = json.load(open(sys.argv[2]))
c["process"]["terminal"] = False
c["process"]["args"] = ["/probe"] + sys.argv[3:]
c["root"]["readonly"] = True
c["linux"]["seccomp"] = json.load(open(sys.argv[1]))
json.dump(c, open(sys.argv[2], "w"), indent=1)
EOF
	(cd bundle && timeout 120 runc --root "$T/runc" run "$CID" </dev/null)
}
got=$(runc_probe new.json 2>runc.err)
rc=$?
[ $rc = 0 ] && [ "$got" = "ok EPERM ENOSYS" ]
result "runc $(runc --version | sed -n '1s/.* //p'): $LISTED ok, $UNLISTED EPERM, $NX ENOSYS" $((! $?)) "exit $rc, got '$got': $(cat runc.err)"
# runc patches a profile whose default is not ENOSYS to answer ENOSYS
# above the highest call it names (libcontainer/seccomp/patchbpf): the
# old profile gets ENOSYS for $NX under runc, not with libseccomp alone (check 2)
got=$(runc_probe old.json 2>runc.err)
echo "runc, --unknown-syscall-action default: $got (exit $?)"

echo "report/oci-enosys: $pass of $n passed"
[ $fail = 0 ]
