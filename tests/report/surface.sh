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
# 3. the shipped lists (examples/lists/pg15-debian12-x86_64.guc): pgsc-diff
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

# 3. the shipped lists, through pgsc-diff's gate against an empty pair
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
