#!/bin/bash
# SPDX-License-Identifier: PostgreSQL
# damage.sh - a store is checked before it is trusted (docs/security.md
# §6): copies of a real store, truncated or with bits flipped, are given
# to pgsc-report and pgsc-diff.  Every copy that fails SQLite's own
# integrity_check (the independent judge, run by the sqlite3 CLI) must be
# refused with exit 2 and an error naming the file; no copy may crash
# either program.
#   bash tests/store/damage.sh BINDIR GOLDENDIR
# shellcheck source=../lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
t_init damage
BIN=$1
GOLDEN=$2
need_progs sqlite3 python3
T=$T_WORK
fail=0

zcat "$GOLDEN/raw.log.gz" >"$T/audit.log"
"$BIN/pgsc-collect" --db "$T/base.db" --import "$T/audit.log" 2>/dev/null ||
	fail "import"
[ ! -e "$T/base.db-wal" ] || fail "the store kept its -wal after pgsc-collect"
"$BIN/pgsc-report" --db "$T/base.db" >"$T/base.guc" || fail "report on the intact store"
"$BIN/pgsc-diff" "$T/base.db" "$T/base.db" >/dev/null || fail "diff of the intact store with itself"
size=$(stat -c %s "$T/base.db")
echo "store: $size bytes, $(sqlite3 "$T/base.db" 'SELECT count(*) FROM aggregates') aggregates, $(sqlite3 "$T/base.db" 'SELECT count(*) FROM processes') processes"

# 50 truncations and 100 copies with 1 to 3 bits flipped, from a fixed seed
python3 - "$T/base.db" "$T" <<'PY'
import random, sys
src, out = sys.argv[1], sys.argv[2]
data = open(src, 'rb').read()
r = random.Random(10)
for i in range(50):
    cut = r.randrange(1, len(data))
    open(f"{out}/trunc-{i:03d}.db", 'wb').write(data[:cut])
for i in range(100):
    b = bytearray(data)
    for _ in range(r.randrange(1, 4)):
        off = r.randrange(0, len(b))
        b[off] ^= 1 << r.randrange(0, 8)
    open(f"{out}/flip-{i:03d}.db", 'wb').write(bytes(b))
PY

damaged=0 refused=0 intact=0 changed=0
for db in "$T"/trunc-*.db "$T"/flip-*.db; do
	name=$(basename "$db" .db)
	"$BIN/pgsc-report" --db "$db" >"$T/out.guc" 2>"$T/out.err"
	rrc=$?
	"$BIN/pgsc-diff" "$T/base.db" "$db" >/dev/null 2>"$T/diff.err"
	drc=$?
	for rc in $rrc $drc; do
		if [ "$rc" -gt 2 ]; then
			echo "FAIL: $name: exit $rc (a crash?)"; cat "$T/out.err" "$T/diff.err"; fail=1
		fi
	done
	# the judge, on a scratch copy so nothing it does touches the copy
	cp "$db" "$T/judge.db"
	verdict=$(sqlite3 "$T/judge.db" 'PRAGMA integrity_check' 2>&1 | head -1)
	rm -f "$T/judge.db"*
	if [ "$verdict" = ok ]; then
		intact=$((intact + 1))
		[ $rrc = 0 ] && ! cmp -s "$T/base.guc" "$T/out.guc" && changed=$((changed + 1))
		continue
	fi
	damaged=$((damaged + 1))
	if [ $rrc != 2 ] || ! grep -qF "$db" "$T/out.err"; then
		echo "FAIL: $name fails integrity_check ($verdict) but pgsc-report exits $rrc"
		head -3 "$T/out.err"; fail=1; continue
	fi
	if [ $drc != 2 ] || ! grep -qF "$db" "$T/diff.err"; then
		echo "FAIL: $name fails integrity_check ($verdict) but pgsc-diff exits $drc"
		head -3 "$T/diff.err"; fail=1; continue
	fi
	refused=$((refused + 1))
done
echo "damage: $damaged of 150 copies fail integrity_check, $refused refused by pgsc-report and pgsc-diff (exit 2);" \
	"$intact pass it ($changed of them report other lists: damage SQLite cannot see)"
[ $damaged -ge 20 ] || { echo "FAIL: only $damaged damaged copies: the test proves little"; fail=1; }

# the error says what is wrong
cp "$T/flip-000.db" "$T/x.db" 2>/dev/null
# the root page of the aggregates table (what every report reads), found
# through sqlite_master: a fixed page number follows the schema's layout
root=$(sqlite3 "$T/x.db" "SELECT rootpage FROM sqlite_master WHERE type = 'table' AND name = 'aggregates'")
psz=$(sqlite3 "$T/x.db" "PRAGMA page_size")
[[ $root =~ ^[0-9]+$ ]] && [[ $psz =~ ^[0-9]+$ ]] || { echo "FAIL: no root page of aggregates ($root, $psz)"; fail=1; }
python3 -c "import sys; p=sys.argv[1]; o=(int(sys.argv[2])-1)*int(sys.argv[3]); d=bytearray(open(p,'rb').read()); d[o:o+100]=b'\xff'*100; open(p,'wb').write(d)" "$T/x.db" "${root:-3}" "${psz:-4096}"
"$BIN/pgsc-report" --db "$T/x.db" >/dev/null 2>"$T/x.err"
if [ $? != 2 ] || ! grep -q "damaged" "$T/x.err"; then
	echo "FAIL: a store with a smashed page: no 'damaged' error"; cat "$T/x.err"; fail=1
else
	echo "ok: $(head -1 "$T/x.err")"
fi
[ $fail = 0 ] && echo "damage: ok"
exit $fail
