#!/bin/bash
# SPDX-License-Identifier: PostgreSQL
# upgrade.sh - a server stays a server across its own binary's
# replacement.  Every recorded log with a server is rewritten
# as if the postgres binary had been replaced half-way through: from the
# middle on, the kernel's exe= of every postgres record says
#   "/usr/lib/postgresql/15/bin/postgres (deleted)"   (hex, for the space)
# or prelink's temporary name.  The lists and every count must be those of
# the log as recorded, and nothing more may be unattributed.
#   bash tests/golden/upgrade.sh BINDIR GOLDENDIR
# shellcheck source=../lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
t_golden upgrade "$@"
need_progs sqlite3
n=0
PG=/usr/lib/postgresql/15/bin/postgres
hex=$(printf '%s (deleted)' "$PG" | od -An -tx1 -v | tr -d ' \n' | tr a-f A-F)

q="SELECT records, attributed, unrelated, standalone, unattributed, rejected FROM rounds"
for name in raw enriched node; do
	gz="$DIR/$name.log.gz"
	[ -f "$gz" ] || { bad "$gz missing"; continue; }
	zcat "$gz" >"$T/$name.log"
	total=$(wc -l <"$T/$name.log")
	half=$((total / 2))
	"$BIN/pgsc-collect" --db "$T/$name.db" --import "$T/$name.log" 2>/dev/null
	for kind in deleted prelink; do
		n=$((n + 1))
		if [ $kind = deleted ]; then
			to="exe=$hex"
		else
			to="exe=\"$PG.#prelink#.Qx3vZ9\""
		fi
		awk -v h="$half" -v from="exe=\"$PG\"" -v to="$to" \
			'NR > h { i = index($0, from); if (i) $0 = substr($0, 1, i - 1) to substr($0, i + length(from)) } { print }' \
			"$T/$name.log" >"$T/$name-$kind.log"
		changed=$(grep -c -F "$to" "$T/$name-$kind.log")
		[ "$changed" -gt 100 ] || { bad "$name-$kind: only $changed records rewritten"; continue; }
		"$BIN/pgsc-collect" --db "$T/$name-$kind.db" --import "$T/$name-$kind.log" 2>/dev/null
		ok=1
		# every list and every count by role; only the example exe=
		# may show the new name
		for fmt in guc json; do
			if ! diff -u <("$BIN/pgsc-report" --db "$T/$name.db" --format=$fmt | sed 's/, "example_exe": "[^"]*"//') \
				<("$BIN/pgsc-report" --db "$T/$name-$kind.db" --format=$fmt | sed 's/, "example_exe": "[^"]*"//') >"$T/d"; then
				echo "FAIL: $name-$kind: other lists ($fmt)"; cut -c1-200 "$T/d" | head -12; ok=0
			fi
		done
		if [ "$(sqlite3 "$T/$name.db" "$q")" != "$(sqlite3 "$T/$name-$kind.db" "$q")" ]; then
			echo "FAIL: $name-$kind: other counts: $(sqlite3 "$T/$name.db" "$q") before, $(sqlite3 "$T/$name-$kind.db" "$q") after"
			ok=0
		fi
		if [ $ok = 1 ]; then
			ok "$name-$kind ($changed records with the new exe=)"
		else
			T_FAIL=$((T_FAIL + 1))
		fi
	done
done
[ $n -gt 0 ] || fail "nothing tested"
t_done
