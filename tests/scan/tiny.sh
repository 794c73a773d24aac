#!/bin/bash
# SPDX-License-Identifier: PostgreSQL
# tests/scan/tiny.sh BINDIR - pgsc-scan on a program built here, whose
# syscalls are known from its source:
#   - raw_getppid(): "syscall" with rax = SYS_getppid (a direct site);
#   - syscall(SYS_sched_yield) through glibc's syscall(2) (the number is
#     the caller's constant first argument);
#   - umask(), glibc's wrapper (a PLT call into libc.so.6).
# The expected names come from the SYS_* numbers the compiler sees,
# named by scmp_sys_resolver.  Then the bad inputs: a file that is not
# ELF, and broken scan JSON given to pgsc-report --candidates.
set -e
# shellcheck source=../lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
t_init scan-tiny
export LC_ALL=C

t_bindir "tiny.sh BINDIR" "$@"
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SRCROOT=$(cd "$HERE/../.." && pwd)
need_progs gcc python3 scmp_sys_resolver
need_exec "$BINDIR"/pgsc-{scan,collect,report}
W=$T_WORK

cat >"$W/tiny.c" <<'EOF'
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

__attribute__((noinline)) static long
raw_getppid(void)
{
	long r;

	__asm__ volatile("syscall" : "=a"(r) : "0"((long)SYS_getppid)
			 : "rcx", "r11", "memory");
	return r;
}

int
main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "numbers") == 0) {
		printf("%d %d\n", SYS_getppid, SYS_sched_yield);
		return 0;
	}
	raw_getppid();
	syscall(SYS_sched_yield);
	umask(022);
	return 0;
}
EOF
gcc -O2 -o "$W/tiny" "$W/tiny.c" || fail "cannot build the tiny program"
read -r NR_PPID NR_YIELD < <("$W/tiny" numbers)
PPID_NAME=$(scmp_sys_resolver -a x86_64 "$NR_PPID")
YIELD_NAME=$(scmp_sys_resolver -a x86_64 "$NR_YIELD")
UMASK_NR=$(scmp_sys_resolver -a x86_64 umask)
[ -n "$PPID_NAME" ] && [ -n "$YIELD_NAME" ] && [ "$UMASK_NR" -ge 0 ] ||
	fail "scmp_sys_resolver cannot name the numbers"

"$BINDIR/pgsc-scan" --server "$W/tiny" --no-modules --indirect none \
	--format json --output "$W/scan.json" || fail "pgsc-scan failed on the tiny program"
"$BINDIR/pgsc-scan" --server "$W/tiny" --no-modules --indirect none >"$W/scan.txt" ||
	fail "pgsc-scan (text) failed on the tiny program"

python3 - "$W/scan.json" "$PPID_NAME" "$NR_PPID" "$YIELD_NAME" "$UMASK_NR" <<'EOF' || fail "the scan's candidates are wrong"
import json, sys
doc = json.load(open(sys.argv[1]))
ppid, nr_ppid, yld, umask_nr = sys.argv[2], int(sys.argv[3]), sys.argv[4], int(sys.argv[5])
c = {x["name"]: x for x in doc["candidates"]}
def need(cond, what):
    if not cond:
        print("tiny: " + what, file=sys.stderr)
        sys.exit(1)
need(doc["pgsc_scan"] == 1 and doc["arch"] == "x86_64", "header")
need(ppid in c, ppid + " (the raw syscall) is not a candidate")
need(c[ppid]["nr"] == nr_ppid, ppid + " has the wrong number")
need(c[ppid]["chain"][0].startswith("tiny:raw_getppid"), ppid + " chain: %r" % c[ppid]["chain"])
need(yld in c, yld + " (syscall(2) with a constant) is not a candidate")
need(c[yld]["chain"][0] == "tiny:main", yld + " chain: %r" % c[yld]["chain"])
need("umask" in c and c["umask"]["nr"] == umask_nr, "umask (a libc wrapper) is not a candidate")
need(c["umask"]["chain"] == ["libc.so.6:umask", "tiny:main"], "umask chain: %r" % c["umask"]["chain"])
need(all(x["phase"] == "unknown" for x in doc["candidates"]), "a phase split without PostgreSQL's entry points")
kinds = {o["kind"] for o in doc["objects"]}
need({"server", "library"} <= kinds, "objects: %r" % kinds)
need(any(o["path"].endswith("/libc.so.6") for o in doc["objects"]), "libc.so.6 was not resolved")
print("tiny: %d candidates; %s <- %s; %s <- %s; umask <- %s" % (len(c), ppid, c[ppid]["chain"], yld, c[yld]["chain"], c["umask"]["chain"]))
EOF
grep -q "^$PPID_NAME .*tiny:raw_getppid" "$W/scan.txt" || fail "the text summary lacks $PPID_NAME"

# a bad file in pkglibdir and a module whose library is gone: both left
# out and listed, the rest still scanned
mkdir "$W/pkglib"
echo junk >"$W/pkglib/junk.so"
echo 'int gone(void) { return 1; }' >"$W/gone.c"
echo 'extern int gone(void); int mod(void) { return gone(); }' >"$W/mod.c"
gcc -shared -fPIC -o "$W/libgone.so" "$W/gone.c"
gcc -shared -fPIC -o "$W/pkglib/mod.so" "$W/mod.c" -L"$W" -lgone
rm "$W/libgone.so"
"$BINDIR/pgsc-scan" --server "$W/tiny" --pkglibdir "$W/pkglib" --format json \
	--output "$W/skip.json" || fail "pgsc-scan failed on a pkglibdir with a bad file"
python3 - "$W/skip.json" "$W" <<'EOF' || fail "skipped objects are wrong"
import json, sys
doc, w = json.load(open(sys.argv[1])), sys.argv[2]
sk = doc["skipped"]
ok = (len(sk) == 2 and any(x.startswith(w + "/pkglib/junk.so: not an ELF object") for x in sk)
      and any(x.startswith(w + "/pkglib/mod.so: needed library libgone.so not found") for x in sk)
      and any(o["path"] == w + "/pkglib/mod.so" and o["kind"] == "module" for o in doc["objects"])
      and any(c["name"] == "umask" for c in doc["candidates"]))
if not ok:
    print("tiny: skipped %r" % sk, file=sys.stderr)
    sys.exit(1)
EOF

# bad input: not an ELF object
echo "not elf" >"$W/not-elf"
if "$BINDIR/pgsc-scan" --server "$W/not-elf" --no-modules >"$W/out" 2>"$W/err"; then
	fail "pgsc-scan accepted a file that is not ELF"
fi
grep -q "$W/not-elf: not an ELF object" "$W/err" || fail "no clear error for a non-ELF file: $(cat "$W/err")"

# bad input: an ELF object cut short (docs/robustness.md, F12: was 0
# functions, exit 0): exit 1, named as truncated; at every cut past the ELF
# header
size=$(stat -c %s "$W/tiny")
for cut in $((size / 2)) $((size - 1)) 200; do
	head -c "$cut" "$W/tiny" >"$W/cut"
	rc=0
	"$BINDIR/pgsc-scan" --server "$W/cut" --no-modules >"$W/out" 2>"$W/err" || rc=$?
	[ $rc = 1 ] && grep -q "$W/cut: truncated" "$W/err" ||
		fail "pgsc-scan on the tiny program cut at $cut of $size bytes: exit $rc: $(cat "$W/err")"
done

# bad input: broken scan JSON for pgsc-report --candidates (file:line)
"$BINDIR/pgsc-collect" --db "$W/store.db" --import "$SRCROOT/tests/fixtures/unit/import-small.log" >/dev/null 2>&1 ||
	fail "pgsc-collect could not import the unit fixture"
"$BINDIR/pgsc-report" --db "$W/store.db" --candidates "$W/scan.json" >"$W/view.txt" ||
	fail "pgsc-report --candidates failed on a good file"
grep -q '^# observed by the server: ' "$W/view.txt" || fail "no recall line in the view"
printf '{"pgsc_scan": 1,\n "candidates": [\n  {"name": "read", "nr": 0},\n  {"name": "Bad-Name"}\n ]}\n' >"$W/bad.json"
printf '{"pgsc_scan": 2, "candidates": []}\n' >"$W/v2.json"
printf '{"pgsc_scan": 1,\n "candidates": [\n' >"$W/cut.json"
# the scan's documents and the --candidates view against their schemas
# (schemas/; fails without python3-jsonschema)
"$BINDIR/pgsc-report" --db "$W/store.db" --candidates "$W/scan.json" --format json >"$W/view.json" ||
	fail "pgsc-report --candidates --format json failed on a good file"
python3 "$SRCROOT/tests/lib/schema-check.py" "$SRCROOT/schemas" --expect 3 \
	"$W/scan.json" "$W/skip.json" "$W/view.json" ||
	fail "a document of pgsc-scan or --candidates is not valid against its schema"
for f in bad:4 v2:1 cut:3; do
	file=${f%%:*} line=${f##*:}
	rc=0
	"$BINDIR/pgsc-report" --db "$W/store.db" --candidates "$W/$file.json" >"$W/out" 2>"$W/err" || rc=$?
	[ "$rc" = 2 ] || fail "pgsc-report --candidates $file.json exited $rc, not 2"
	grep -q "$W/$file.json:$line: " "$W/err" || fail "$file.json: the error does not name the file and line $line: $(cat "$W/err")"
done
echo "tiny: PASS"
