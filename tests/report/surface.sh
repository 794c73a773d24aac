#!/bin/bash
# SPDX-License-Identifier: PostgreSQL
# tests/report/surface.sh - the attack-surface score (issue 28 part 4,
# src/surface.c) against counts made independently: an awk over
# src/cves.def and src/baselines.def, never numbers typed by hand.
#
#   bash tests/report/surface.sh BINDIR SRCDIR
#
# 1. the golden recording's store: the JSON "surface" member, the table of
#    --surface (with --per-type: each type's list) and the HTML page give
#    the counts the awk gives for the lists the same report prints;
# 2. the baselines' counts, and --explain's CVEs per name;
# 3. after argument rules: a real recording with argument values
#    (tests/fixtures/args), the counts and closed CVEs of pgsc-report --args
#    against a python evaluation of its printed rules and src/cve_conds.def,
#    the constants printed by a program compiled against the headers;
#    the baselines' counts after their own rules (Docker's BASELINE_ARGS)
#    against a python sampling of the values the conditions need;
# 4. the shipped lists (examples/lists/pg15-debian12-x86_64.guc): pgsc-diff
#    against an empty pair says how many CVEs they reach, as the awk does
#    (the figures of docs/hardening.md, "Attack surface").
# shellcheck source=../lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
t_init surface
t_bindir "surface.sh BINDIR SRCDIR" "$@"
SRC=$(cd "${2:?usage: surface.sh BINDIR SRCDIR}" && pwd)
T=$T_WORK
need_progs jq zcat
CVES=$SRC/src/cves.def
BASE=$SRC/src/baselines.def

# reach FILE: the CVEs of the map any name of FILE (one a line) reaches
reach() {
	awk -F'"' 'NR == FNR { a[$0] = 1; next }
		/^CVE\("/ { n = split($4, s, " ")
			for (i = 1; i <= n; i++) if (s[i] in a) { c++; break } }
		END { print c + 0 }' "$1" "$CVES"
}
ncves=$(grep -c '^CVE("' "$CVES")

zcat "$SRC/tests/golden/raw.log.gz" >"$T/raw.log"
"$BINDIR/pgsc-collect" --db "$T/raw.db" --import "$T/raw.log" 2>/dev/null ||
	bad "pgsc-collect --import failed"
"$BINDIR/pgsc-report" --db "$T/raw.db" --format json --per-type >"$T/r.json" ||
	bad "pgsc-report --format json --per-type failed"
"$BINDIR/pgsc-report" --db "$T/raw.db" --format table --surface --per-type \
	>"$T/r.table" || bad "pgsc-report --surface failed"
"$BINDIR/pgsc-report" --db "$T/raw.db" --format html >"$T/r.html" ||
	bad "pgsc-report --format html failed"

# 1. the map's size, each list's and each type's figures
[ "$(jq '.surface.cve_map.cves' "$T/r.json")" = "$ncves" ] ||
	bad "surface.cve_map.cves is not the $ncves entries of src/cves.def"
for k in global session; do
	jq -r ".${k}[]" "$T/r.json" >"$T/$k"
	want=$(reach "$T/$k")
	got=$(jq ".surface.$k.reachable" "$T/r.json")
	names=$(jq ".surface.$k.names" "$T/r.json")
	[ "$got" = "$want" ] || bad "$k: surface says $got reachable, the awk $want"
	[ "$names" = "$(wc -l <"$T/$k")" ] || bad "$k: surface says $names names"
	grep -Eq "^ +$names +$want  $k\$" "$T/r.table" ||
		bad "$k: the --surface table has no row '$names $want $k'"
	grep -q "<td class=\"x\">$k</td><td>[0-9]*</td><td>$want</td>" "$T/r.html" ||
		bad "$k: the HTML page has no row with $want reachable"
	ok "$k list: $names names, $want of $ncves CVEs reachable (JSON, table, HTML)"
done
ntypes=0
while IFS= read -r type; do
	jq -r --arg t "$type" '.types[$t].syscalls[]' "$T/r.json" >"$T/type"
	want=$(reach "$T/type")
	got=$(jq --arg t "$type" '.surface.types[$t].reachable' "$T/r.json")
	[ "$got" = "$want" ] || bad "type $type: surface says $got, the awk $want"
	grep -Eq "^ +[0-9]+ +$want  type $type\$" "$T/r.table" ||
		bad "type $type: no row with $want in the --surface table"
	ntypes=$((ntypes + 1))
done < <(jq -r '.types | keys[]' "$T/r.json")
[ "$ntypes" -gt 0 ] || bad "no per-type list to check"
ok "$ntypes per-type lists: the awk's counts"

# 2. the baselines
for b in docker system_service; do
	sed -n "s/^BASELINE_NAME($b, \"\\([a-z0-9_]*\\)\")\$/\\1/p" "$BASE" >"$T/$b"
	want=$(reach "$T/$b")
	got=$(jq ".surface.baselines.$b.reachable" "$T/r.json")
	names=$(jq ".surface.baselines.$b.names" "$T/r.json")
	[ "$got" = "$want" ] && [ "$names" = "$(wc -l <"$T/$b")" ] ||
		bad "baseline $b: surface says $names names, $got reachable; the data $(wc -l <"$T/$b"), $want"
	ok "baseline $b: $names names, $want reachable"
done

# 2b. --explain names, for each name, the CVEs whose entry lists it
"$BINDIR/pgsc-report" --db "$T/raw.db" --format json --explain >"$T/x.json" ||
	bad "pgsc-report --explain failed"
nx=0
for name in clone clone3 setsockopt epoll_ctl read; do
	jq -e --arg n "$name" '.explain | has($n)' "$T/x.json" >/dev/null || continue
	want=$(awk -F'"' -v n="$name" '/^CVE\("/ { k = split($4, s, " ")
		for (i = 1; i <= k; i++) if (s[i] == n) { print $2; break } }' \
		"$CVES" | LC_ALL=C sort | paste -sd' ')
	got=$(jq -r --arg n "$name" '.explain[$n].cves | join(" ")' "$T/x.json")
	[ "$got" = "$want" ] || bad "--explain $name: cves '$got', the map '$want'"
	nx=$((nx + 1))
done
[ "$nx" -ge 3 ] || bad "--explain: fewer than 3 of the names checked are in the lists"
ok "--explain: the CVEs of $nx names are those src/cves.def names them in"

# 3. after argument rules, on a real recording with argument values
# (tests/fixtures/args/args.log.gz, recorded by tests/live/args.sh):
# pgsc-report --args's reachable_after and closed, recomputed here by a
# python evaluation of the printed rules against src/cve_conds.def, the
# constants read from the system's headers by a compiled program
need_progs cc python3
"$BINDIR/pgsc-collect" --db "$T/args.db" --quiet \
	--import "$SRC/tests/fixtures/args/args.log.gz" ||
	bad "pgsc-collect --import of the args fixture failed"
"$BINDIR/pgsc-report" --db "$T/args.db" --args --format json >"$T/a.json" ||
	bad "pgsc-report --args --format json failed"
names=$(sed -n 's/^COND("[^"]*", "\([^"]*\)")$/\1/p' "$SRC/src/cve_conds.def" |
	grep -o '[A-Z][A-Z0-9_]*[A-Z0-9]' | sort -u)
{
	printf '#include <stdio.h>\n#include <sys/socket.h>\n#include <netinet/in.h>\n'
	printf '#include <netinet/tcp.h>\n#include <linux/sched.h>\n'
	printf '#include <linux/netfilter_ipv4/ip_tables.h>\n#include <linux/netfilter_ipv6/ip6_tables.h>\n'
	printf 'int main(void) {\n'
	for n in $names; do printf '\tprintf("%%s %%llu\\n", "%s", (unsigned long long)(%s));\n' "$n" "$n"; done
	printf '\treturn 0;\n}\n'
} >"$T/consts.c"
cc -o "$T/consts.bin" "$T/consts.c" && "$T/consts.bin" >"$T/consts" ||
	bad "the constants of src/cve_conds.def do not compile from the headers"
python3 - "$T/a.json" "$CVES" "$SRC/src/cve_conds.def" "$T/consts" >"$T/after" <<'PY' ||
import json, re, sys
rep = json.load(open(sys.argv[1]))
consts = dict((l.split()[0], int(l.split()[1])) for l in open(sys.argv[4]))
cves = [m.groups() for m in re.finditer(r'^CVE\("([^"]*)", "([^"]*)", "([^"]*)"',
                                        open(sys.argv[2]).read(), re.M)]
conds = dict(re.findall(r'^COND\("([^"]*)", "([^"]*)"\)', open(sys.argv[3]).read(), re.M))
num = lambda t: int(t, 0)
def parse(entry):  # "name(a0:a1&0xf=1:1|2:1)" -> name, [(idx, mask)], [alts]
    name, body = entry[:-1].split("(")
    spec, alts = body.split("=")
    args = [(int(a[1]), num(a.split("&")[1]) if "&" in a else 2**64 - 1)
            for a in spec.split(":")]
    return name, args, [[num(v) for v in alt.split(":")] for alt in alts.split("|")]
def meet(la, lv, ca, cv):  # one alternative of each: a call satisfying both?
    return all((x ^ y) & lm & cm == 0 for (li, lm), x in zip(la, lv)
               for (ci, cm), y in zip(ca, cv) if li == ci)
for k in ("global", "session"):
    names = set(rep[k])
    rules = dict(parse(r)[0:1] + (parse(r),) for r in rep["args"][k].values())
    closed = []
    for cid, calls, cond in cves:
        allowed = [c for c in calls.split() if c in names]
        if not allowed:
            continue
        text = re.sub(r"[A-Z][A-Z0-9_]*[A-Z0-9]", lambda m: str(consts[m.group(0)]),
                      conds.get(cond, ""))
        centries = dict((parse(e)[0], parse(e)) for e in text.split())
        def still(c):
            if c not in rules or c not in centries:
                return True
            _, la, lalts = rules[c]
            _, ca, calts = centries[c]
            return any(meet(la, lv, ca, cv) for lv in lalts for cv in calts)
        if not any(still(c) for c in allowed):
            closed.append(cid)
    s = rep["surface"][k]
    print(k, s["reachable"], s["reachable"] - len(closed), s["reachable_after"],
          int(sorted(closed) == sorted(s["closed"])))
PY
	bad "the python evaluation failed"
while read -r k before want got same; do
	if [ "$got" = "$want" ] && [ "$same" = 1 ]; then
		ok "args fixture, $k list: $before CVEs reachable before argument rules, $got after"
	else
		bad "args fixture, $k list: reachable_after $got, the python evaluation $want (closed sets equal: $same)"
	fi
done <"$T/after"
[ "$(wc -l <"$T/after")" = 2 ] || bad "no figures from the args fixture"
jq -e '.surface.global.closed | index("CVE-2016-8655") != null' "$T/a.json" >/dev/null ||
	bad "args fixture: the SOL_PACKET CVE-2016-8655 is not closed by the recorded setsockopt rule"
jq -e '.surface.global.closed | index("CVE-2017-6074") == null' "$T/a.json" >/dev/null ||
	bad "args fixture: CVE-2017-6074, with no condition, is closed"

# 3b. Docker's baseline after its own rules (src/baselines.def BASELINE_ARGS,
# src/surface_baseline.c), recomputed by sampling: each value a CVE's
# condition needs (src/cve_conds.def, the constants compiled above) with
# its high 32 bits clear, 1 and all set (the kernel reads an int's low 32,
# seccomp all 64), run through each of Docker's rules as libseccomp
# compares (EQ NE LT LE GT GE MASKED_EQ); a call stays open when any
# sample passes any rule, or it has no rule or no condition.  Terms on an
# argument the condition leaves free are taken as met.  @system-service
# has no rules: its after is its before.
python3 - "$T/a.json" "$CVES" "$SRC/src/cve_conds.def" "$T/consts" "$BASE" >"$T/dafter" <<'PY' ||
import itertools, json, re, sys
rep = json.load(open(sys.argv[1]))
consts = dict((l.split()[0], int(l.split()[1])) for l in open(sys.argv[4]))
cves = [m.groups() for m in re.finditer(r'^CVE\("([^"]*)", "([^"]*)", "([^"]*)"',
                                        open(sys.argv[2]).read(), re.M)]
conds = dict(re.findall(r'^COND\("([^"]*)", "([^"]*)"\)', open(sys.argv[3]).read(), re.M))
base = open(sys.argv[5]).read()
M64 = 2**64 - 1
for bid in ("docker", "system_service"):
    names = set(re.findall(r'^BASELINE_NAME\(%s, "([^"]*)"\)$' % bid, base, re.M))
    rules = {}
    for n, a in re.findall(r'^BASELINE_ARGS\(%s, "([^"]*)", "([^"]*)"\)$' % bid, base, re.M):
        rules.setdefault(n, []).append([t.split(":") for t in a.split()])
    def passes(term, v):
        op, x = term[1], int(term[2])
        return {"EQ": v == x, "NE": v != x, "LT": v < x, "LE": v <= x, "GT": v > x,
                "GE": v >= x, "MASKED_EQ": v & x == int(term[3]) if len(term) > 3 else False}[op]
    closed = []
    for cid, calls, cond in cves:
        allowed = [c for c in calls.split() if c in names]
        if not allowed:
            continue
        text = re.sub(r"[A-Z][A-Z0-9_]*[A-Z0-9]", lambda m: str(consts[m.group(0)]),
                      conds.get(cond, ""))
        centries = {}
        for e in text.split():
            name, body = e[:-1].split("(")
            spec, alts = body.split("=")
            idx = [int(a[1]) for a in spec.split(":")]
            centries[name] = [dict(zip(idx, map(lambda t: int(t, 0), alt.split(":"))))
                              for alt in alts.split("|")]
        def still(c):
            if c not in rules or c not in centries:
                return True
            for need in centries[c]:
                for his in itertools.product((0, 1 << 32, M64 ^ 0xffffffff), repeat=len(need)):
                    vals = dict((i, v | h) for (i, v), h in zip(need.items(), his))
                    if any(all(passes(t, vals[int(t[0][1])]) for t in r if int(t[0][1]) in vals)
                           for r in rules[c]):
                        return True
            return False
        if not any(still(c) for c in allowed):
            closed.append(cid)
    b = rep["surface"]["baselines"][bid]
    print(bid, b["reachable"], b["reachable"] - len(closed), b["reachable_after"],
          int(sorted(closed) == sorted(b["closed"])))
PY
	bad "the python evaluation of the baselines failed"
while read -r k before want got same; do
	if [ "$got" = "$want" ] && [ "$same" = 1 ]; then
		ok "baseline $k: $before CVEs reachable before its own argument rules, $got after"
	else
		bad "baseline $k: reachable_after $got, the sampling $want (closed sets equal: $same)"
	fi
done <"$T/dafter"
[ "$(wc -l <"$T/dafter")" = 2 ] || bad "no figures for the baselines"
jq -e '.surface.baselines.docker.closed | index("CVE-2023-3390") != null' "$T/a.json" >/dev/null ||
	bad "Docker's clone rule does not close the user-namespace CVE-2023-3390"
jq -e '.surface.baselines.docker.closed | index("CVE-2025-21756") == null' "$T/a.json" >/dev/null ||
	bad "Docker's socket rules close AF_VSOCK's CVE-2025-21756, which socket(0x100000028) reaches"

# 4. the shipped lists, through pgsc-diff's gate against an empty pair
G=$SRC/examples/lists/pg15-debian12-x86_64.guc
printf "global_syscall_allow = ''\nsession_syscall_allow = ''\n" >"$T/empty.guc"
"$BINDIR/pgsc-diff" "$T/empty.guc" "$G" >/dev/null 2>"$T/gate.err"
rc=$?
[ "$rc" = 3 ] || bad "pgsc-diff empty -> shipped: exit $rc, not 3"
for k in global session; do
	sed -n "s/^pgsc\\.${k}_syscall_allow = '\\([^']*\\)'.*/\\1/p" "$G" |
		tr ',' '\n' | sort -u >"$T/ship-$k"
	want=$(reach "$T/ship-$k")
	grep -q "B's $k list reaches $want of the $ncves CVEs" "$T/gate.err" ||
		{ cat "$T/gate.err"; bad "shipped $k list: pgsc-diff does not say $want"; }
	ok "shipped $k list: $(wc -l <"$T/ship-$k") names, $want of $ncves CVEs reachable"
done
t_done
