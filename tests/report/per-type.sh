#!/bin/bash
# SPDX-License-Identifier: PostgreSQL
# tests/report/per-type.sh - pgsc-report --per-type (docs/per-type.md): a
# list per backend type, with its descendants' calls.
#
#   bash tests/report/per-type.sh BINDIR SRCDIR
#
# Two real recordings (tests/golden/raw.log and enriched.log) are
# imported.  The independent side is the store itself read with sqlite3
# (the aggregates' roles, docs/roles.md) and audit's own syscall table
# (ausyscall): for each type T, its list must be the names of the numbers
# counted under T or descendant/T, and its records their sum; the set of
# types is the set of such roles but postmaster and backend.  The same
# lists must come out in the GUC lines, the JSON "types" object and the
# table's columns.  A type no setting can be named after (an extension's
# background worker names its own type; the store gets one through SQL
# here) gets an escaped comment, never a line.
# shellcheck source=../lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
t_init per-type
t_bindir "per-type.sh BINDIR SRCDIR" "$@"
SRC=$(cd "${2:?usage: per-type.sh BINDIR SRCDIR}" && pwd)
COLLECT=$BINDIR/pgsc-collect
REPORT=$BINDIR/pgsc-report
need_exec "$COLLECT" "$REPORT"
need_progs sqlite3 ausyscall python3 scmp_sys_resolver

T=$T_WORK
sed -n 's/^SENSITIVE(\([a-z0-9_]*\), [a-z]*)$/\1/p' "$SRC/src/sensitive.def" >"$T/sensitive"
[ "$(grep -c . "$T/sensitive")" -ge 20 ] || fail "src/sensitive.def: no SENSITIVE(name, group) lines"
# every name of the policy is a syscall libseccomp knows
bad_names=$(while read -r n; do scmp_sys_resolver -a x86_64 "$n" >/dev/null 2>&1 || echo "$n"; done <"$T/sensitive")
[ -z "$bad_names" ] || fail "src/sensitive.def names what libseccomp does not know: $bad_names"
q() { sqlite3 -batch -noheader "$1" "$2"; }

# names DB TYPE: the sorted names of the calls of TYPE and its descendants
# (audit's table says pread and pwrite where the kernel's and libseccomp's
# say pread64 and pwrite64, the names PostgreSQL's lists use)
names() {
	local db=$1 t=$2 arch nr
	q "$db" "SELECT DISTINCT arch, nr FROM aggregates WHERE count > 0 AND (role = '$t' OR role = 'descendant/$t')" |
		while IFS='|' read -r arch nr; do
			[ "$arch" = 3221225534 ] || { echo "?arch$arch"; continue; }
			ausyscall x86_64 "$nr"
		done | sed -e 's/^pread$/pread64/' -e 's/^pwrite$/pwrite64/' | sort -u | paste -sd, -
}

for rec in raw enriched; do
	f0=$T_FAIL
	db=$T/$rec.db
	zcat "$SRC/tests/golden/$rec.log.gz" >"$T/$rec.log"
	"$COLLECT" --db "$db" --quiet --import "$T/$rec.log" || { bad "$rec: import failed"; continue; }
	"$REPORT" --db "$db" --per-type --guc-prefix pgsc. >"$T/$rec.guc" 2>"$T/$rec.err" ||
		{ bad "$rec: pgsc-report --per-type failed: $(cat "$T/$rec.err")"; continue; }
	"$REPORT" --db "$db" --per-type --format json >"$T/$rec.json" 2>>"$T/$rec.err" ||
		{ bad "$rec: --format json --per-type failed"; continue; }
	"$REPORT" --db "$db" --per-type --format table >"$T/$rec.table" 2>>"$T/$rec.err" ||
		{ bad "$rec: --format table --per-type failed"; continue; }
	"$REPORT" --db "$db" --per-type=routine --guc-prefix pgsc. >"$T/$rec.routine" 2>>"$T/$rec.err" ||
		{ bad "$rec: --per-type=routine failed"; continue; }
	global=$(sed -n "s/^pgsc.global_syscall_allow = '\(.*\)'$/\1/p" "$T/$rec.guc")
	[ -n "$global" ] || { bad "$rec: no global list"; continue; }
	# the two usual lines (and the needs and known max comments) come first and are those without --per-type
	"$REPORT" --db "$db" --guc-prefix pgsc. >"$T/$rec.plain"
	[ "$(head -n "$(wc -l <"$T/$rec.plain")" "$T/$rec.guc")" = "$(cat "$T/$rec.plain")" ] ||
		bad "$rec: --per-type changed the header or the two lists"
	types=$(q "$db" "SELECT DISTINCT CASE WHEN role LIKE 'descendant/%' THEN substr(role, 12) ELSE role END FROM aggregates WHERE count > 0" |
		grep -v -x -e postmaster -e backend -e standalone -e unrelated -e unattributed | sort)
	[ -n "$types" ] || { bad "$rec: test invalid: no backend type in the store"; continue; }
	got_types=$(python3 -c 'import json,sys; print("\n".join(sorted(json.load(open(sys.argv[1]))["types"])))' "$T/$rec.json")
	[ "$types" = "$got_types" ] || bad "$rec: JSON types [$(echo "$got_types" | paste -sd, -)], the store's [$(echo "$types" | paste -sd, -)]"
	n=0
	while IFS= read -r t; do
		n=$((n + 1))
		want=$(names "$db" "$t")
		setting=pgsc.${t// /_}_syscall_allow
		line=$(grep "^$setting = '" "$T/$rec.guc")
		got=${line#"$setting = '"}
		got=${got%"'"}
		[ "$got" = "$want" ] || bad "$rec: $setting = '$got', the store and ausyscall say '$want'"
		jgot=$(python3 -c 'import json,sys; t=json.load(open(sys.argv[1]))["types"][sys.argv[2]]; print(",".join(t["syscalls"]), t["records"], t["setting"])' "$T/$rec.json" "$t")
		wrec=$(q "$db" "SELECT sum(count) FROM aggregates WHERE role = '$t' OR role = 'descendant/$t'")
		[ "$jgot" = "$want $wrec ${t// /_}_syscall_allow" ] || bad "$rec: JSON types[\"$t\"] = $jgot, expected $want $wrec"
		# --per-type=routine: its calls and the global list's that are
		# not security-relevant (the policy of src/sensitive.def); the
		# JSON's "lacks": the global list's security-relevant calls it
		# did not make
		rline=$(grep "^$setting = '" "$T/$rec.routine")
		rgot=${rline#"$setting = '"}
		rgot=${rgot%"'"}
		rwant=$( { tr ',' '\n' <<<"$want"; tr ',' '\n' <<<"$global" | grep -vxF -f "$T/sensitive"; } | grep . | sort -u | paste -sd, -)
		[ "$rgot" = "$rwant" ] || bad "$rec: --per-type=routine: $setting = '$rgot', expected '$rwant'"
		lwant=$(tr ',' '\n' <<<"$global" | grep -xF -f "$T/sensitive" | grep -vxF -f <(tr ',' '\n' <<<"$want") | sort | paste -sd, -)
		lgot=$(python3 -c 'import json,sys; print(",".join(sorted(json.load(open(sys.argv[1]))["types"][sys.argv[2]]["lacks"])))' "$T/$rec.json" "$t")
		[ "$lgot" = "$lwant" ] || bad "$rec: JSON types[\"$t\"].lacks = $lgot, expected $lwant"
	done <<<"$types"
	# the table: one column per type, each column's sum its records
	python3 - "$T/$rec.table" "$T/$rec.json" <<'PY' || bad "$rec: the table's columns do not sum to the types' records"
import json, sys
lines = [l.rstrip("\n") for l in open(sys.argv[1]) if not l.startswith("#")]
types = json.load(open(sys.argv[2]))["types"]
head = lines[0]
cols = [t for t in types]
# columns are separated by two blanks; find each type's position
pos = sorted((head.index("  " + t), t) for t in cols)
sums = dict.fromkeys(cols, 0)
for l in lines[1:]:
    vals = l.split()[5:]
    for (_, t), v in zip(pos, vals):
        sums[t] += int(v)
for t in cols:
    if sums[t] != types[t]["records"]:
        print(f"column {t}: {sums[t]}, records {types[t]['records']}")
        sys.exit(1)
PY
	[ $T_FAIL = "$f0" ] && ok "$rec: $n types, each list as the store's roles and ausyscall give it (GUC, JSON, table)"
done

# A type from an untrusted title: no line, an escaped comment.
cp "$T/raw.db" "$T/evil.db"
f0=$T_FAIL
q "$T/evil.db" "INSERT INTO aggregates (round_id, role, arch, nr, count, first_seen, last_seen) VALUES (1, 'evil'' = ''x''
pgsc.y', 3221225534, 59, 3, 0, 0), (1, 'pg_cron scheduler', 3221225534, 0, 2, 0, 0),
	(1, 'background worker', 3221225534, 1, 4, 0, 0)"
"$REPORT" --db "$T/evil.db" --per-type --guc-prefix x. >"$T/evil.guc" 2>"$T/evil.err" || bad "evil: pgsc-report failed: $(cat "$T/evil.err")"
"$REPORT" --db "$T/evil.db" --per-type --format json >"$T/evil.json" 2>>"$T/evil.err" || bad "evil: pgsc-report --format json failed"
grep -q "^x.pg_cron_scheduler_syscall_allow = 'read'$" "$T/evil.guc" || bad "evil: no line for the type 'pg_cron scheduler'"
grep -q "^x.background_worker_syscall_allow = 'write'$" "$T/evil.guc" || bad "evil: no line for the type 'background worker'"
grep -q '^pgsc.y' "$T/evil.guc" && bad "evil: a forged type wrote a setting: $(grep '^pgsc.y' "$T/evil.guc")"
grep -q -F '# backend type "evil\x27 = \x27x\x27\x0apgsc.y" (3 records): no setting name can be made from it' "$T/evil.guc" ||
	bad "evil: no escaped comment for the forged type: $(grep -n evil "$T/evil.guc")"
"$REPORT" --db "$T/raw.db" --per-type --guc-prefix x. >"$T/raw-x.guc"
[ "$(grep -c "^x\." "$T/evil.guc")" = "$(($(grep -c "^x\." "$T/raw-x.guc") + 2))" ] || bad "evil: the number of settings changed by more than the two good types"
# For the pgsc module (prefix pgsc.): no setting it does not have (the
# server would not start), and no background_worker line while another
# background worker type was seen (the module would give it that list).
"$REPORT" --db "$T/evil.db" --per-type --guc-prefix pgsc. >"$T/evil-m.guc" 2>>"$T/evil.err" || bad "evil: pgsc-report --guc-prefix pgsc. failed"
grep -q '^pgsc.pg_cron_scheduler_' "$T/evil-m.guc" && bad "evil: a setting the pgsc module does not have: $(grep '^pgsc.pg_cron' "$T/evil-m.guc")"
grep -q '^# backend type "pg_cron scheduler" (2 records): the pgsc module has no filter of its own for it' "$T/evil-m.guc" ||
	bad "evil: no comment for pg_cron scheduler: $(grep -n cron "$T/evil-m.guc")"
grep -q '^pgsc.background_worker_' "$T/evil-m.guc" && bad "evil: a background_worker line although pg_cron scheduler was seen"
grep -q '^# backend type "background worker" (4 records): no line' "$T/evil-m.guc" || bad "evil: no comment for the background_worker line left out"
[ "$(grep -c "^pgsc\." "$T/evil-m.guc")" = "$(grep -c "^pgsc\." "$T/raw.guc")" ] || bad "evil: pgsc.: the number of settings changed"
python3 - "$T/evil.json" <<'PY' || bad "evil: the JSON does not carry the forged type with setting null"
import json, sys
t = json.load(open(sys.argv[1]))["types"]
assert t["evil' = 'x'\npgsc.y"]["setting"] is None
assert t["pg_cron scheduler"]["setting"] == "pg_cron_scheduler_syscall_allow"
PY
[ $T_FAIL = "$f0" ] && ok "forged and extension types: an escaped comment, and a line (for the pgsc module: only its own types)"

# Formats that cannot carry a list per type refuse it (exit 2).
st=0
"$REPORT" --db "$T/raw.db" --per-type --format oci >/dev/null 2>"$T/oci.err" || st=$?
[ "$st" = 2 ] && grep -q -- "--per-type applies to the guc, json and table formats" "$T/oci.err" ||
	bad "--per-type --format oci: exit $st, $(cat "$T/oci.err")"

t_done
