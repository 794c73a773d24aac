#!/bin/bash
# SPDX-License-Identifier: PostgreSQL
# run.sh - pgsc-report beyond the plain lists: --arch and --portable
# checked against libseccomp, the systemd, oci, spo (with --base
# runtime-default: the delta proven against src/containerd_default.def)
# and effective formats checked by their consumers (the expectations with static outputs,
# --check-guc and the escaped errors, are tests/cases/report).
#   bash tests/report/run.sh BINDIR DIR
# DIR is tests/report (fixtures); tests/golden/raw.log.gz next to it is
# the real x86_64 recording the stores are made from.  Expected lists are
# never written here: they come from pgsc-report's own guc output and
# from libseccomp's scmp_sys_resolver.  The drop-ins are checked by
# systemd-analyze verify, the OCI profile by its schema fields and by a
# real runc run of a static probe.
# shellcheck source=../lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
t_init report
BIN=$1
DIR=$2
R=$BIN/pgsc-report
need_exec "$BIN/pgsc-report" "$BIN/pgsc-collect" "$BIN/pgsc-diff"
need_progs scmp_sys_resolver python3 systemd-analyze runc gcc sqlite3
# shellcheck source=../lib/check.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/check.sh"
T=$T_WORK
CID=pgsc-report-test-$$
t_cleanup runc_cleanup "$T" "$CID"
cd "$T" || exit 1
ARCHES="x86_64 i386 aarch64 arm ppc64le s390x"

# list NAME FILE: the comma list of NAME (global/session) in a GUC file,
# one name per line
list() { sed -n "s/^\(.*\.\)\{0,1\}$1_syscall_allow = '\(.*\)'$/\2/p" "$2" | tr ',' '\n' | sed '/^$/d'; }

# exists ARCH NAME: does NAME exist on ARCH, by scmp_sys_resolver alone?
# (a number, or a socket/IPC placeholder where socketcall/ipc exists:
# tests/unit/test_portable.c checks this rule against the BPF libseccomp
# builds)
resolve() { # ARCH NAME -> $NR (cached: no subshell)
	local k="$1/$2" a=$1
	[ "$a" = i386 ] && a=x86
	[ -n "${RES[$k]:-}" ] || RES[$k]=$(scmp_sys_resolver -a "$a" "$2")
	[ -n "${RES[$k]}" ] || { echo "FAIL: no number for $k"; exit 1; }
	NR=${RES[$k]}
}
exists() {
	local nr
	resolve "$1" "$2"; nr=$NR
	[ "$nr" -ge 0 ] && return 0
	if [ "$nr" -le -101 ] && [ "$nr" -ge -120 ]; then
		resolve "$1" socketcall; [ "$NR" -ge 0 ] && return 0
	fi
	if [ "$nr" -le -201 ] && [ "$nr" -ge -224 ]; then
		resolve "$1" ipc; [ "$NR" -ge 0 ] && return 0
	fi
	return 1
}

# -- stores ----------------------------------------------------------------
zcat "$DIR/../golden/raw.log.gz" >raw.log
"$BIN/pgsc-collect" --db x.db --import raw.log >/dev/null 2>&1 ||
	{ echo "FAIL: import of raw.log"; exit 1; }
# a postmaster (x86_64) that runs a 32-bit program: synthetic, two arches
"$BIN/pgsc-collect" --db m.db --postmaster-pid 4000 \
	--import "$DIR/multiarch.log" >/dev/null 2>&1 ||
	{ echo "FAIL: import of multiarch.log"; exit 1; }
"$R" --db x.db >x.guc || { echo "FAIL: pgsc-report"; exit 1; }
[ "$(list global x.guc | wc -l)" -gt 50 ] || { echo "FAIL: x.guc is short"; cat x.guc; exit 1; }
# m.db holds a postmaster and its 32-bit child only: its session list is
# empty, so the report says so and exits 1; its global list is
# what the tests below read
"$R" --db m.db >m.guc 2>m.err
[ $? = 1 ] && grep -q 'session list of rounds 1-1 is empty' m.err ||
	{ echo "FAIL: pgsc-report m.db: not exit 1 with an empty session list"; cat m.err; exit 1; }

# libseccomp's numbers for every name the outputs can hold (the lists and
# every family member), per arch, in one process per arch: a few lines of
# C over libseccomp alone (scmp_sys_resolver is one process per name)
cat >resolve.c <<'EOF'
#include <seccomp.h>
#include <stdio.h>
int main(int argc, char **argv)
{
	char name[256];
	uint32_t arch = argc == 2 ? seccomp_arch_resolve_name(argv[1]) : 0;

	if (arch == 0)
		return 2;
	while (scanf("%255s", name) == 1)
		printf("%s %d\n", name, seccomp_syscall_resolve_name_arch(arch, name));
	return 0;
}
EOF
gcc -O1 -o resolve resolve.c -lseccomp || { echo "FAIL: cannot build resolve.c (libseccomp-dev)"; exit 1; }
{ list global x.guc; list session x.guc; list global m.guc
  "$BIN/pgsc-diff" --families | sed -n 's/^[a-z0-9_]*: //p' | tr ' ' '\n'
  echo socketcall; echo ipc; } | sort -u >names.all
declare -A RES
for a in $ARCHES; do
	sa=$a; [ "$a" = i386 ] && sa=x86
	# the helper agrees with scmp_sys_resolver
	for nm in open accept; do
		[ "$(echo $nm | ./resolve "$sa")" = "$nm $(scmp_sys_resolver -a "$sa" $nm)" ] ||
			{ echo "FAIL: resolve.c disagrees with scmp_sys_resolver ($a $nm)"; exit 1; }
	done
	while read -r nm nr; do RES[$a/$nm]=$nr; done < <(./resolve "$sa" <names.all)
done

# -- --arch T: only names of T, nothing lost, accepted by --check-guc ------
for a in $ARCHES; do
	ok=1 why=
	"$R" --db x.db --arch "$a" >"$a.guc" 2>"$a.err" || { ok=0; why="exit $?"; }
	for w in global session; do
		list $w x.guc >"$a.$w.in"
		list $w "$a.guc" >"$a.$w.out"
		# what the output says it did: "# W: x -> y,z, u -> v" and
		# "left out of the W list: p q" on stderr
		unset OUT MAPPED LEFT
		declare -A OUT=() MAPPED=() LEFT=()
		while read -r s; do OUT[$s]=1; done <"$a.$w.out"
		m=$(sed -n "s/^# $w: //p" "$a.guc")
		while [ -n "$m" ]; do
			MAPPED[${m%% -> *}]=1
			case $m in *", "*) m=${m#*, } ;; *) m= ;; esac
		done
		# shellcheck disable=SC2013 # names, one word each
		for s in $(sed -n "s/^.*left out of the $w list://p" "$a.err"); do
			LEFT[$s]=1
		done
		# every name printed exists on the target
		for s in "${!OUT[@]}"; do
			exists "$a" "$s" || { ok=0; why="$why $w:$s does not exist"; }
		done
		# every input name that exists on the target is kept; every
		# other one is mapped or reported as having no equivalent
		while read -r s; do
			if exists "$a" "$s"; then
				[ -n "${OUT[$s]:-}" ] || { ok=0; why="$why $w:$s lost"; }
			elif [ -z "${MAPPED[$s]:-}${LEFT[$s]:-}" ]; then
				ok=0; why="$why $w:$s neither mapped nor reported"
			fi
		done <"$a.$w.in"
	done
	result "arch $a: names exist, nothing lost" $ok "$why"
	# the names a GUC loader cannot take on this arch: those that exist
	# only through socketcall/ipc (a negative number), per libseccomp
	mux=0
	for w in global session; do
		while read -r s; do
			resolve "$a" "$s"; [ "$NR" -lt 0 ] && mux=$((mux + 1))
		done <"$a.$w.out"
	done
	"$R" --check-guc "$a.guc" --arch "$a" --strict >"$a.chk" 2>&1
	rc=$?
	if [ $mux = 0 ]; then
		[ $rc = 0 ] && grep -q ": 0 errors, 0 warnings (arch $a, strict)" "$a.chk"
		result "arch $a: --check-guc --arch $a --strict accepts it" $((! $?)) "exit $rc: $(head -3 "$a.chk")"
	else
		# pgseccomp-style hooks refuse exactly those names
		[ $rc = 1 ] && grep -q ": $mux errors, 0 warnings (arch $a, strict)" "$a.chk" &&
			[ "$(grep -c 'a call made through \(socketcall\|ipc\)' "$a.chk")" = $mux ]
		result "arch $a: --check-guc refuses the $mux socketcall/ipc names, only them" $((! $?)) "exit $rc: $(tail -1 "$a.chk")"
	fi
	# the pgsc module takes them (and adds no rule): warnings only
	"$R" --db x.db --arch "$a" --guc-prefix pgsc. >"$a.pgsc.guc" 2>/dev/null
	"$R" --check-guc "$a.pgsc.guc" --arch "$a" >"$a.pgsc.chk" 2>&1
	rc=$?
	[ $rc = 0 ] && grep -q ": 0 errors, $mux warning" "$a.pgsc.chk"
	result "arch $a: pgsc. prefix: 0 errors, $mux warnings" $((! $?)) "exit $rc: $(tail -1 "$a.pgsc.chk")"
	"$R" --db x.db --arch "$a" --portable --guc-prefix pgsc. >"$a.p.guc" 2>/dev/null
	ok=1
	for w in global session; do
		list $w "$a.p.guc" | sort >"$a.$w.p"
		sort "$a.$w.out" | comm -23 - "$a.$w.p" | grep -c . >/dev/null && ok=0
	done
	"$R" --check-guc "$a.p.guc" --arch "$a" >"$a.p.chk" 2>&1 || ok=0
	grep -q ": 0 errors" "$a.p.chk" || ok=0
	result "arch $a: --portable is a superset, no error" $ok "$(tail -1 "$a.p.chk")"
done
# the x86_64 list on aarch64: refused (pgseccomp's rules for no prefix)
"$R" --check-guc x.guc --arch aarch64 --strict >x-on-a64.chk 2>&1
rc=$?
[ $rc = 1 ] && grep -qE 'x.guc:[0-9]+: error: global_syscall_allow: "[a-z0-9_]*" does not exist on aarch64' x-on-a64.chk
result "native list on aarch64: --strict refuses it" $((! $?)) "exit $rc"
"$R" --db x.db --guc-prefix pgsc. >x.pgsc.guc
"$R" --check-guc x.pgsc.guc --arch aarch64 >/dev/null 2>&1
result "native list on aarch64, pgsc. prefix: warnings only without --strict" $((! $?))

# -- JSON: the lists, "unmapped" per list equals what stderr said ----------
"$R" --db x.db --arch aarch64 --format json >a.json 2>aj.err
python3 - a.json aarch64.guc aj.err <<'EOF' >aj.out 2>&1
import json, re, sys
j = json.load(open(sys.argv[1]))
guc = open(sys.argv[2]).read()
err = open(sys.argv[3]).read()
for w in ("global", "session"):
    m = re.search(r"^%s_syscall_allow = '(.*)'$" % w, guc, re.M)
    assert j[w] == [x for x in m.group(1).split(",") if x], w
    said = re.search(r"left out of the %s list:(.*)$" % w, err, re.M)
    said = said.group(1).split() if said else []
    assert j["unmapped"][w] == said, (w, j["unmapped"][w], said)
    for k, v in j["mapped"][w].items():
        assert k not in j[w] and all(x in j[w] for x in v), (k, v)
assert j["target_arch"] == "aarch64" and j["portable"] is False
assert j["unmapped"]["global"], "arch_prctl has no aarch64 equivalent"
EOF
result "json --arch: lists, mapped, unmapped = stderr" $((! $?)) "$(cat aj.out)"
python3 "$T_SRCROOT/tests/lib/schema-check.py" "$T_SRCROOT/schemas" a.json >aj.schema 2>&1
result "json --arch: valid against schemas/pgsc-report.schema.json" $((! $?)) "$(cat aj.schema)"
"$BIN/pgsc-diff" a.json aarch64.guc >/dev/null 2>&1
result "pgsc-diff reads the --arch json like the guc" $((! $?))

# --portable without --arch keeps a 32-bit name for the compat arch
"$R" --db m.db --portable >m.p.guc 2>m.p.err
ok=1
for s in _llseek lseek mmap mmap2 open openat unlinkat; do
	list global m.p.guc | grep -cx "$s" >/dev/null || { ok=0; echo "missing $s"; }
done
grep -v 'session list of rounds 1-1 is empty' m.p.err | grep -q . && ok=0
result "--portable alone: native and recorded arches" $ok
# -- systemd: systemd-analyze verify reads the drop-in without complaint ---
mkdir -p sd/pgsctest.service.d
printf '[Unit]\nDescription=pgsc test\n[Service]\nExecStart=/bin/true\n' >sd/pgsctest.service
verify() { SYSTEMD_UNIT_PATH="$T/sd:" systemd-analyze verify "$T/sd/pgsctest.service" 2>&1; }
# negative control: verify does read drop-ins and names their faults
printf '[Service]\nSystemCallFilter=read nosuchcall\nSystemCallArchitectures=bogus\n' >sd/pgsctest.service.d/bad.conf
verify | grep -c 'bad.conf:2: Failed to parse system call' >/dev/null
result "systemd-analyze verify reads drop-ins (control)" $((! $?))
rm sd/pgsctest.service.d/bad.conf
for v in "x.db" "x.db --default kill" "x.db --default log" "m.db" "x.db --arch aarch64" "x.db --arch i386"; do
	# shellcheck disable=SC2086
	set -- $v
	db=$1; shift
	"$R" --db "$db" --format systemd "$@" >sd/pgsctest.service.d/pgsc.conf 2>/dev/null
	out=$(verify)
	ok=1
	[ -z "$out" ] || ok=0
	grep -qx '\[Service\]' sd/pgsctest.service.d/pgsc.conf || ok=0
	# the filter holds the global list of the same options' guc output
	if [ "${2:-}" = log ]; then
		key='SystemCallLog=~'
	else
		key='SystemCallFilter='
	fi
	opts=(); [ "${1:-}" = --arch ] && opts=(--arch "$2")
	"$R" --db "$db" "${opts[@]}" >sd.guc 2>/dev/null
	# (and the start-up calls an outside loader filters and
	# restart_syscall, which the drop-in names when it adds them:
	# report_needs.c)
	added=$(sed -n -e 's/^# added to the global list, not seen in the records: \([a-z0-9_,]*\) (the postmaster.s start-up.*/\1/p' \
		-e 's/^# added to the global list: \([a-z0-9_,]*\) (the kernel.s resumption.*/\1/p' sd/pgsctest.service.d/pgsc.conf | tr ',' '\n')
	[ "$(sed -n "s/^$key//p" sd/pgsctest.service.d/pgsc.conf | tr ' ' '\n')" = "$( { list global sd.guc; [ -z "$added" ] || echo "$added"; } | sort)" ] || ok=0
	result "systemd drop-in ($db $*) verifies, holds the global list" $ok "$out"
done
grep -qx 'SystemCallArchitectures=native x86' <("$R" --db m.db --format systemd)
result "systemd: SystemCallArchitectures native + recorded x86" $((! $?))
grep -qx 'SystemCallErrorNumber=kill' <("$R" --db x.db --format systemd --default kill)
result "systemd --default kill" $((! $?))

# -- OCI: the runtime-spec seccomp fields, then a real runc run ------------
oci_check() { # FILE GUC [STDERR of pgsc-report: the start-up calls it added]
	python3 - "$1" "$2" "${3:-/dev/null}" <<'EOF'
import json, re, sys
# opencontainers/runtime-spec config-linux.md, "Seccomp" (v1.0.2)
ACTIONS = {"SCMP_ACT_KILL", "SCMP_ACT_KILL_PROCESS", "SCMP_ACT_KILL_THREAD",
           "SCMP_ACT_TRAP", "SCMP_ACT_ERRNO", "SCMP_ACT_TRACE",
           "SCMP_ACT_ALLOW", "SCMP_ACT_LOG", "SCMP_ACT_NOTIFY"}
ARCHES = {"SCMP_ARCH_X86", "SCMP_ARCH_X86_64", "SCMP_ARCH_X32",
          "SCMP_ARCH_ARM", "SCMP_ARCH_AARCH64", "SCMP_ARCH_MIPS",
          "SCMP_ARCH_MIPS64", "SCMP_ARCH_MIPS64N32", "SCMP_ARCH_MIPSEL",
          "SCMP_ARCH_MIPSEL64", "SCMP_ARCH_MIPSEL64N32", "SCMP_ARCH_PPC",
          "SCMP_ARCH_PPC64", "SCMP_ARCH_PPC64LE", "SCMP_ARCH_S390",
          "SCMP_ARCH_S390X", "SCMP_ARCH_PARISC", "SCMP_ARCH_PARISC64",
          "SCMP_ARCH_RISCV64"}
KEYS = {"defaultAction", "defaultErrnoRet", "architectures", "flags",
        "listenerPath", "listenerMetadata", "syscalls"}
p = json.load(open(sys.argv[1]))
assert isinstance(p, dict) and set(p) <= KEYS, set(p) - KEYS
assert p["defaultAction"] in ACTIONS
if "defaultErrnoRet" in p:
    assert isinstance(p["defaultErrnoRet"], int) and p["defaultErrnoRet"] >= 0
    assert p["defaultAction"] in ("SCMP_ACT_ERRNO", "SCMP_ACT_TRACE")
assert "flags" not in p   # runc 1.1.5 refuses any
a = p["architectures"]
assert isinstance(a, list) and a and len(set(a)) == len(a) and set(a) <= ARCHES, a
names = []
for s in p["syscalls"]:
    assert set(s) <= {"names", "action", "errnoRet", "args"}, s.keys()
    assert s["action"] in ACTIONS and (s["action"], s.get("errnoRet")) != (p["defaultAction"], p.get("defaultErrnoRet"))
    assert isinstance(s["names"], list) and s["names"]
    assert all(isinstance(n, str) and re.fullmatch(r"[a-z0-9_]+", n) for n in s["names"])
    names += s["names"] if s["action"] == "SCMP_ACT_ALLOW" else []
assert len(names) == len(set(names))
guc = open(sys.argv[2]).read()
want = re.search(r"^global_syscall_allow = '(.*)'$", guc, re.M).group(1).split(",")
# the start-up calls and restart_syscall (report_needs.c), each said
added = [n for m in re.findall(r"^pgsc-report: added to the global list(?:, not seen in the records)?: ([a-z0-9_,]+) \((?:the postmaster's start-up|the kernel's resumption)", open(sys.argv[3]).read(), re.M) for n in m.split(",")]
assert not set(added) & set(want), added
assert sorted(names) == sorted(want + added), (set(names) ^ set(want + added))
EOF
}
"$R" --db x.db --format oci >x.oci.json 2>x.oci.err
oci_check x.oci.json x.guc x.oci.err
result "oci profile: runtime-spec fields, names = global list" $((! $?))
"$R" --db m.db --format oci >m.oci.json 2>m.oci.err
oci_check m.oci.json m.guc m.oci.err && python3 -c 'import json,sys; assert json.load(open("m.oci.json"))["architectures"] == ["SCMP_ARCH_X86_64", "SCMP_ARCH_X86"]'
result "oci profile: native + recorded arches" $((! $?))
"$R" --db x.db --arch aarch64 --format oci >a.oci.json 2>a.oci.err
oci_check a.oci.json aarch64.guc a.oci.err && grep -q '"architectures": \["SCMP_ARCH_AARCH64"\]' a.oci.json
result "oci profile --arch aarch64" $((! $?))

# runc loads the profile and enforces it: a static probe makes a few
# harmless calls; those in the global list succeed, the others fail with
# EPERM (the profile's defaultErrnoRet), or kill it under --default kill.
cat >probe.c <<'EOF'
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
int main(void)
{
	static const struct { const char *n; long nr; } c[] = {
		{ "getppid", SYS_getppid }, { "getpgrp", SYS_getpgrp },
		{ "sysinfo", SYS_sysinfo }, { "sched_yield", SYS_sched_yield },
		{ "getsid", SYS_getsid }, { "times", SYS_times },
		{ "getuid", SYS_getuid }, { "umask", SYS_umask },
	};
	char buf[512];
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		long r = strcmp(c[i].n, "getsid") == 0 || strcmp(c[i].n, "umask") == 0
			? syscall(c[i].nr, 0) : syscall(c[i].nr, buf);
		printf("%s=%s\n", c[i].n, r >= 0 ? "ok" : errno == EPERM ? "EPERM" : strerror(errno));
		fflush(stdout);
	}
	return 0;
}
EOF
runc_bundle probe.c
runc_probe() { # PROFILE -> the probe's output; $? is runc's
	python3 - "$1" bundle/config.json <<'EOF' || return 99
import json, sys
c = json.load(open(sys.argv[2]))
c["process"]["terminal"] = False
c["process"]["args"] = ["/probe"]
c["root"]["readonly"] = True
c["linux"]["seccomp"] = json.load(open(sys.argv[1]))
json.dump(c, open(sys.argv[2], "w"), indent=1)
EOF
	(cd bundle && timeout 120 runc --root "$T/runc" run "$CID" </dev/null)
}
out=$(runc_probe x.oci.json 2>runc.err)
rc=$?
ok=1 seen=0 denied=0
for s in getppid getpgrp sysinfo sched_yield getsid times getuid umask; do
	got=$(echo "$out" | sed -n "s/^$s=//p")
	if list global x.guc | grep -cx "$s" >/dev/null; then want=ok; else want=EPERM; denied=$((denied + 1)); fi
	[ "$got" = "$want" ] || { ok=0; echo "$s: got '$got', want $want"; }
	seen=$((seen + 1))
done
[ $rc = 0 ] || ok=0
[ $denied -gt 0 ] && [ $denied -lt $seen ] || { ok=0; echo "the probe must see both outcomes"; }
result "runc runs under the profile: listed calls ok, others EPERM" $ok "exit $rc: $(cat runc.err)"
"$R" --db x.db --format oci --default kill >k.oci.json
out=$(runc_probe k.oci.json 2>runc.err)
rc=$?
first=$(for s in getppid getpgrp sysinfo sched_yield getsid times getuid umask; do list global x.guc | grep -cx $s >/dev/null || { echo $s; break; }; done)
# killed by SIGSYS at the first unlisted call: its line is never printed
[ $rc = 159 ] && ! grep -q "^$first=" <<<"$out"
result "runc under --default kill: SIGSYS at $first" $((! $?)) "exit $rc"

# -- spo: the Security Profiles Operator's SeccompProfile (YAML) ----------------
# The CRD's fields and enums as kubernetes-sigs/security-profiles-operator
# defines them (api/seccompprofile/v1beta1/seccompprofile_types.go): the
# OCI fields less defaultErrnoRet; no errnoRet anywhere (its type changed
# between releases). Then the spec as a runtime reads it, loaded by runc.
"$R" --db x.db --format spo >x.spo.yaml 2>x.spo.err
spo_check() { # YAML GUC STDERR DEFAULT-ACTION
	python3 - "$@" <<'EOF'
import re, sys, yaml
p = yaml.safe_load(open(sys.argv[1]))
text = open(sys.argv[1]).read()
assert p["apiVersion"] == "security-profiles-operator.x-k8s.io/v1beta1" and p["kind"] == "SeccompProfile"
assert set(p) == {"apiVersion", "kind", "metadata", "spec"}, set(p)
assert re.fullmatch(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?", p["metadata"]["name"])
SPEC = {"baseProfileName", "defaultAction", "architectures", "listenerPath",
        "listenerMetadata", "syscalls", "flags"}
ACTIONS = {"SCMP_ACT_KILL", "SCMP_ACT_KILL_PROCESS", "SCMP_ACT_KILL_THREAD",
           "SCMP_ACT_TRAP", "SCMP_ACT_ERRNO", "SCMP_ACT_TRACE",
           "SCMP_ACT_ALLOW", "SCMP_ACT_LOG", "SCMP_ACT_NOTIFY"}
s = p["spec"]
assert set(s) <= SPEC, set(s) - SPEC
assert s["defaultAction"] == sys.argv[4], s["defaultAction"]
assert s["architectures"] == ["SCMP_ARCH_X86_64"], s["architectures"]
names = []
for r in s["syscalls"]:
    assert set(r) <= {"names", "action", "args"}, set(r)
    assert r["action"] in ACTIONS
    names += r["names"]
if sys.argv[4] == "SCMP_ACT_ERRNO":
    assert "has no defaultErrnoRet" in text and "EPERM" in text
guc = open(sys.argv[2]).read()
want = re.search(r"^global_syscall_allow = '(.*)'$", guc, re.M).group(1).split(",")
# the start-up calls and restart_syscall (report_needs.c), each said
added = [n for m in re.findall(r"^pgsc-report: added to the global list(?:, not seen in the records)?: ([a-z0-9_,]+) \((?:the postmaster's start-up|the kernel's resumption)", open(sys.argv[3]).read(), re.M) for n in m.split(",")]
assert sorted(names) == sorted(want + added), (set(names) ^ set(want + added))
EOF
}
spo_check x.spo.yaml x.guc x.spo.err SCMP_ACT_ERRNO
result "spo: a SeccompProfile of the CRD's fields, no errnoRet, names = global list, EPERM said" $((! $?))
"$R" --db x.db --format spo --default kill >k.spo.yaml 2>k.spo.err && spo_check k.spo.yaml x.guc k.spo.err SCMP_ACT_KILL_PROCESS &&
	"$R" --db x.db --format spo --default log >l.spo.yaml 2>l.spo.err && spo_check l.spo.yaml x.guc l.spo.err SCMP_ACT_LOG
result "spo --default kill, log" $((! $?))
python3 -c 'import json, sys, yaml; json.dump(yaml.safe_load(open(sys.argv[1]))["spec"], open(sys.argv[2], "w"))' x.spo.yaml x.spo.json
out=$(runc_probe x.spo.json 2>runc.err)
rc=$?
ok=1
for s in getppid getpgrp sysinfo sched_yield getsid times getuid umask; do
	got=$(echo "$out" | sed -n "s/^$s=//p")
	if list global x.guc | grep -cx "$s" >/dev/null; then want=ok; else want=EPERM; fi
	[ "$got" = "$want" ] || { ok=0; echo "$s: got '$got', want $want"; }
done
[ $rc = 0 ] || ok=0
result "runc runs under the spo profile's spec: listed calls ok, others EPERM" $ok "exit $rc: $(cat runc.err)"
"$R" --db x.db --format spo --no-programs >/dev/null 2>&1
[ $? = 2 ]
result "spo --no-programs: a usage error (the global list only)" $((! $?))

# -- spo --base runtime-default: the list as a delta over containerd's default --
# The proof, from src/containerd_default.def (B: the names it allows
# whatever the arguments, D: every name it allows) and the real output, as
# the operator reads it (resolveSyscallsForProfile(): the base's syscalls
# united with the profile's, the profile's defaultAction and arches):
# the base document is B exactly; the delta is in the list and not in B;
# base and delta hold the whole list; their union is in D and the list
# together; the counts the comments give are the ones measured here.
# Every document has the CRD's fields only.  A mutated output must fail
# the proof where it should: a delta name dropped (the list is not kept),
# a name outside the list and the default added (kexec_load).
DEF=$DIR/../../src/containerd_default.def
# the data itself: one release line, every name an x86_64 syscall for
# libseccomp, none twice
ok=1
[ "$(grep -c '^CONTAINERD_DEFAULT("[0-9]*\.[0-9]*\.[0-9]*", "[ -~]*")$' "$DEF")" = 1 ] || { ok=0; echo "no one CONTAINERD_DEFAULT line"; }
cdn=$(sed -n 's/^CONTAINERD_ALLOW\(_IF\)\{0,1\}("\([a-z0-9_]*\)")$/\2/p' "$DEF")
[ "$(grep -c '^CONTAINERD_ALLOW' "$DEF")" = "$(echo "$cdn" | sort -u | wc -l)" ] || { ok=0; echo "a name twice, or a line that does not read"; }
for s in $cdn; do
	resolve x86_64 "$s"
	[ "$NR" -ge 0 ] || { ok=0; echo "$s: no x86_64 number"; }
done
result "src/containerd_default.def: $(echo "$cdn" | wc -l) names, each an x86_64 syscall, none twice" $ok
"$R" --db x.db --format spo --base runtime-default >b.spo.yaml 2>b.spo.err
spo_base_check() { # YAML GUC STDERR DEFAULT-ACTION DEF [MUTATION]
	python3 - "$@" <<'EOF'
import re, sys, yaml
text = open(sys.argv[1]).read()
docs = list(yaml.safe_load_all(text))
d = open(sys.argv[5]).read()
B = set(re.findall(r'^CONTAINERD_ALLOW\("([a-z0-9_]+)"\)$', d, re.M))
D = B | set(re.findall(r'^CONTAINERD_ALLOW_IF\("([a-z0-9_]+)"\)$', d, re.M))
version = re.search(r'^CONTAINERD_DEFAULT\("([0-9.]+)", ', d, re.M).group(1)
assert len(B) > 200 and len(D) > len(B), (len(B), len(D))
assert len(docs) == 2, len(docs)
SPEC = {"baseProfileName", "defaultAction", "architectures", "listenerPath",
        "listenerMetadata", "syscalls", "flags"}
ACTIONS = {"SCMP_ACT_KILL", "SCMP_ACT_KILL_PROCESS", "SCMP_ACT_KILL_THREAD",
           "SCMP_ACT_TRAP", "SCMP_ACT_ERRNO", "SCMP_ACT_TRACE",
           "SCMP_ACT_ALLOW", "SCMP_ACT_LOG", "SCMP_ACT_NOTIFY"}
def names(p):
    assert p["apiVersion"] == "security-profiles-operator.x-k8s.io/v1beta1" and p["kind"] == "SeccompProfile"
    assert set(p) == {"apiVersion", "kind", "metadata", "spec"}, set(p)
    # a DNS-1123 subdomain, as metadata.name is
    assert re.fullmatch(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*", p["metadata"]["name"])
    s = p["spec"]
    assert set(s) <= SPEC, set(s) - SPEC
    assert s["defaultAction"] in ACTIONS
    n = []
    for r in s.get("syscalls", []):
        assert set(r) == {"names", "action"}, set(r)
        assert r["action"] == "SCMP_ACT_ALLOW" and len(r["names"]) >= 1
        n += r["names"]
    assert len(n) == len(set(n)), "a name twice"
    return set(n)
base, top = docs
bn, delta = names(base), names(top)
if len(sys.argv) > 6 and sys.argv[6] == "drop":
    delta.discard(sorted(delta)[0])
if len(sys.argv) > 6 and sys.argv[6] == "widen":
    delta.add("kexec_load")
assert base["metadata"]["name"] == "containerd-default-" + version, base["metadata"]["name"]
assert "baseProfileName" not in base["spec"]
assert top["metadata"]["name"] == "pgsc-postgresql"
assert top["spec"]["baseProfileName"] == base["metadata"]["name"]
assert top["spec"]["defaultAction"] == sys.argv[4], top["spec"]["defaultAction"]
assert top["spec"]["architectures"] == ["SCMP_ARCH_X86_64"]
guc = open(sys.argv[2]).read()
L = set(re.search(r"^global_syscall_allow = '(.*)'$", guc, re.M).group(1).split(","))
# (said on stderr, or as a comment of the file)
for m in re.findall(r"^(?:pgsc-report: |# )added to the global list(?:, not seen in the records)?: ([a-z0-9_,]+) \((?:the postmaster's start-up|the kernel's resumption)", open(sys.argv[3]).read() + text, re.M):
    L |= set(m.split(","))
union = bn | delta
assert bn == B, ("the base document is not the data", bn ^ B)
assert delta <= L, ("delta outside the list", delta - L)
assert not (delta & bn), ("the delta repeats the base", delta & bn)
assert L <= union, ("the list is not kept", L - union)
assert union <= D | L, ("wider than default and list", union - (D | L))
assert re.search(r"^# pgsc-postgresql: baseProfileName %s, and the %d names of the global list \(%d\)$" % (re.escape(base["metadata"]["name"]), len(delta), len(L)), text, re.M), "the delta count"
assert re.search(r"the base adds %d names the list does not need" % len(bn - L), text), "the base's count"
print(f"list {len(L)}, delta {len(delta)} ({' '.join(sorted(delta))}), base {len(bn)}, union {len(union)}, base adds {len(bn - L)}")
EOF
}
spo_base_check b.spo.yaml x.guc b.spo.err SCMP_ACT_ERRNO "$DEF"
result "spo --base runtime-default: base = containerd's data, delta in the list, list in base+delta, base+delta in default+list" $((! $?))
neg=0
for mut in "drop:the list is not kept" "widen:delta outside the list"; do
	if spo_base_check b.spo.yaml x.guc b.spo.err SCMP_ACT_ERRNO "$DEF" "${mut%%:*}" >/dev/null 2>mut.err ||
		! grep -q "${mut#*:}" mut.err; then
		neg=1; echo "the proof did not fail with '${mut#*:}' on a ${mut%%:*} mutation"; cat mut.err
	fi
done
result "spo --base: the proof fails on a dropped delta name and on a name outside default and list" $((! neg))
"$R" --db x.db --format spo --base runtime-default --default kill >bk.spo.yaml 2>bk.spo.err
spo_base_check bk.spo.yaml x.guc bk.spo.err SCMP_ACT_KILL_PROCESS "$DEF" >/dev/null &&
	"$R" --db x.db --format spo --base runtime-default --default log >bl.spo.yaml 2>bl.spo.err
spo_base_check bl.spo.yaml x.guc bl.spo.err SCMP_ACT_LOG "$DEF" >/dev/null
result "spo --base --default kill, log" $((! $?))
# The operator's union as the runtime gets it (the base's rules and the
# profile's, the profile's default), loaded by runc: every listed call
# works, and calls the plain profile refuses now work too (what the base
# costs in tightness), each as containerd's default decides.
python3 - b.spo.yaml bu.spo.json <<'EOF'
import json, sys, yaml
base, top = yaml.safe_load_all(open(sys.argv[1]))
s = dict(top["spec"])
del s["baseProfileName"]
s["syscalls"] = base["spec"]["syscalls"] + s.get("syscalls", [])
json.dump(s, open(sys.argv[2], "w"))
EOF
out=$(runc_probe bu.spo.json 2>runc.err)
rc=$?
ok=1 wider=0
for s in getppid getpgrp sysinfo sched_yield getsid times getuid umask; do
	got=$(echo "$out" | sed -n "s/^$s=//p")
	if list global x.guc | grep -cx "$s" >/dev/null; then
		want=ok
	elif grep -qx "CONTAINERD_ALLOW(\"$s\")" "$DEF"; then
		want=ok wider=$((wider + 1))
	else
		want=EPERM
	fi
	[ "$got" = "$want" ] || { ok=0; echo "$s: got '$got', want $want"; }
done
[ $rc = 0 ] || ok=0
[ $wider -gt 0 ] || { ok=0; echo "no probe call shows the base's widening"; }
result "runc under the stacked spo profile: listed calls ok, $wider unlisted ones allowed by containerd's default" $ok "exit $rc: $(cat runc.err)"

# -- effective: rows from filter_effective.c, numbers from scmp_sys_resolver ------
ok=1
for a in x86_64 aarch64; do
	"$R" --db x.db --format effective --arch "$a" --default kill >"eff.$a" 2>/dev/null || ok=0
	"$R" --db x.db --arch "$a" >"eff.$a.guc" 2>/dev/null
	grep -qx "# global: default kill on $a, $(list global "eff.$a.guc" | wc -l) listed" "eff.$a" || { ok=0; echo "$a: header"; }
	for w in global session; do
		[ "$(awk -v w=$w '$4 == w && $1 != "<default>" {print $1}' "eff.$a")" = "$(list $w "eff.$a.guc")" ] || { ok=0; echo "$a $w: rows"; }
		[ "$(grep -c "^<default> *- *kill *$w\$" "eff.$a")" = 1 ] || { ok=0; echo "$a $w: <default> row"; }
	done
	while read -r s nr act _; do
		[ "$s" = "<default>" ] && continue
		[ "$act" = allow ] || { ok=0; echo "$s: $act"; }
		resolve "$a" "$s"
		[ "$nr" = "$NR" ] || { ok=0; echo "$a $s: nr $nr"; }
	done < <(awk '$4 == "global" || $4 == "session"' "eff.$a")
done
result "effective: one allow row per listed name, libseccomp's numbers" $ok
"$R" --db x.db --format effective | grep -c '^# session: default error on ' >/dev/null
result "effective: default error" $((! $?))
echo "report: $pass of $n passed"
[ $fail = 0 ]
