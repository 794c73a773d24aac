#!/bin/bash
# SPDX-License-Identifier: PostgreSQL
# run.sh - golden tests of pgsc-diff: list pairs against expected outputs.
#   bash tests/diff/run.sh BINDIR DIR
# DIR holds the fixtures (*.guc, *.json); the expected outputs are the
# here-documents below, compared with diff -u.  Every exit status is
# covered: 0 the same, 1 different, 2 an error; and one pair is a real
# store (tests/golden/raw.log.gz imported by pgsc-collect) against its
# own pgsc-report output.
set -uo pipefail
BIN=$1
DIR=$2
for p in pgsc-diff pgsc-collect pgsc-report; do
	[ -x "$BIN/$p" ] || { echo "FAIL: $BIN/$p missing"; exit 1; }
done
# the hostile-store check writes its store with the sqlite3 CLI
command -v sqlite3 >/dev/null || { echo "FAIL: sqlite3 is not installed (tools/install-deps.sh)"; exit 1; }
T=$(mktemp -d /tmp/pgsc-diff.XXXXXX)
trap 'rm -rf "$T"' EXIT
# operands are given relative to DIR, so outputs name them as written
cd "$DIR" || exit 1
fail=0 pass=0 n=0

result() { # NAME OK
	n=$((n + 1))
	if [ "$2" = 1 ]; then pass=$((pass + 1)); echo "ok: $1"; else fail=$((fail + 1)); fi
}

# [IN=FILE] check NAME RC ARGS... <<EOF : exit RC, stdout as the
# here-document, nothing on stderr (RC 0 or 1) or stdout (RC 2; then the
# document is the expected stderr).  pgsc-diff reads FILE on its standard
# input (default /dev/null).
check() {
	local name=$1 want=$2 rc ok=1 out err
	shift 2
	cat >"$T/$name.want"
	"$BIN/pgsc-diff" "$@" <"${IN:-/dev/null}" >"$T/$name.out" 2>"$T/$name.err"
	rc=$?
	if [ "$want" = 2 ]; then out=$T/$name.err err=$T/$name.out; else out=$T/$name.out err=$T/$name.err; fi
	if [ "$rc" != "$want" ]; then
		echo "FAIL: $name: exit $rc, want $want"; cat "$T/$name.err"; ok=0
	elif ! diff -u "$T/$name.want" "$out"; then
		echo "FAIL: $name: output differs"; ok=0
	elif [ -s "$err" ]; then
		echo "FAIL: $name: unexpected output:"; cat "$err"; ok=0
	fi
	result "$name" $ok
}

# exit_is NAME RC COMMAND... : only the exit status.
exit_is() {
	local name=$1 want=$2 rc
	shift 2
	"$@" >"$T/$name.out" 2>"$T/$name.err"
	rc=$?
	if [ "$rc" != "$want" ]; then
		echo "FAIL: $name: exit $rc, want $want"; head -20 "$T/$name.out" "$T/$name.err"
		result "$name" 0
	else
		result "$name" 1
	fi
}

D=$BIN/pgsc-diff

# -- 0: the same lists ----------------------------------------------------
check guc-vs-json 0 x86_64.guc x86_64.json </dev/null
IN=x86_64.guc check stdin-text 1 --equivalent - aarch64-changed.guc <<'EOF'
--- -
+++ aarch64-changed.guc
global:
+fallocate
~-access: faccessat (family access)
~+epoll_pwait: epoll_wait (family epoll_wait)
~-epoll_wait: epoll_pwait (family epoll_wait)
~+faccessat: access (family access)
~-rename: renameat (family rename)
~+renameat: rename (family rename)
~-unlink: unlinkat (family unlink)
~+unlinkat: unlink (family unlink)
session:
-kill
~-access: faccessat (family access)
~+epoll_pwait: epoll_wait (family epoll_wait)
~-epoll_wait: epoll_pwait (family epoll_wait)
~+faccessat: access (family access)
EOF
check guc-vs-json-markdown 0 --format markdown x86_64.guc x86_64.json <<'EOF'
### pgsc-diff: x86\_64\.guc → x86\_64\.json

The allow lists are the same.
EOF
check json-vs-guc-json 0 --format json x86_64.json x86_64.guc <<'EOF'
{
  "equal": true,
  "a": "x86_64.json",
  "b": "x86_64.guc",
  "global": {"added": [], "removed": [], "equivalent": []},
  "session": {"added": [], "removed": [], "equivalent": []}
}
EOF

# -- 0 with --equivalent: only family members differ ----------------------
check equivalent-text 0 --equivalent x86_64.guc aarch64.guc <<'EOF'
--- x86_64.guc
+++ aarch64.guc
global:
~-access: faccessat (family access)
~+epoll_pwait: epoll_wait (family epoll_wait)
~-epoll_wait: epoll_pwait (family epoll_wait)
~+faccessat: access (family access)
~-rename: renameat (family rename)
~+renameat: rename (family rename)
~-unlink: unlinkat (family unlink)
~+unlinkat: unlink (family unlink)
session:
~-access: faccessat (family access)
~+epoll_pwait: epoll_wait (family epoll_wait)
~-epoll_wait: epoll_pwait (family epoll_wait)
~+faccessat: access (family access)
EOF
check equivalent-json 0 --format json --equivalent x86_64.json aarch64.guc <<'EOF'
{
  "equal": true,
  "a": "x86_64.json",
  "b": "aarch64.guc",
  "global": {"added": [], "removed": [], "equivalent": [
    {"name": "access", "change": "removed", "with": ["faccessat"], "families": ["access"]},
    {"name": "epoll_pwait", "change": "added", "with": ["epoll_wait"], "families": ["epoll_wait"]},
    {"name": "epoll_wait", "change": "removed", "with": ["epoll_pwait"], "families": ["epoll_wait"]},
    {"name": "faccessat", "change": "added", "with": ["access"], "families": ["access"]},
    {"name": "rename", "change": "removed", "with": ["renameat"], "families": ["rename"]},
    {"name": "renameat", "change": "added", "with": ["rename"], "families": ["rename"]},
    {"name": "unlink", "change": "removed", "with": ["unlinkat"], "families": ["unlink"]},
    {"name": "unlinkat", "change": "added", "with": ["unlink"], "families": ["unlink"]}
  ]},
  "session": {"added": [], "removed": [], "equivalent": [
    {"name": "access", "change": "removed", "with": ["faccessat"], "families": ["access"]},
    {"name": "epoll_pwait", "change": "added", "with": ["epoll_wait"], "families": ["epoll_wait"]},
    {"name": "epoll_wait", "change": "removed", "with": ["epoll_pwait"], "families": ["epoll_wait"]},
    {"name": "faccessat", "change": "added", "with": ["access"], "families": ["access"]}
  ]}
}
EOF
check equivalent-markdown 0 --format markdown --equivalent aarch64.guc x86_64.guc <<'EOF'
### pgsc-diff: aarch64\.guc → x86\_64\.guc

The allow lists are the same up to syscall families. global: 0 added, 0 removed, 8 equivalent; session: 0 added, 0 removed, 4 equivalent.

| list | change | syscall | equivalent to |
|---|---|---|---|
| global | added, equivalent | `access` | `faccessat` (family `access`) |
| global | removed, equivalent | `epoll_pwait` | `epoll_wait` (family `epoll_wait`) |
| global | added, equivalent | `epoll_wait` | `epoll_pwait` (family `epoll_wait`) |
| global | removed, equivalent | `faccessat` | `access` (family `access`) |
| global | added, equivalent | `rename` | `renameat` (family `rename`) |
| global | removed, equivalent | `renameat` | `rename` (family `rename`) |
| global | added, equivalent | `unlink` | `unlinkat` (family `unlink`) |
| global | removed, equivalent | `unlinkat` | `unlink` (family `unlink`) |
| session | added, equivalent | `access` | `faccessat` (family `access`) |
| session | removed, equivalent | `epoll_pwait` | `epoll_wait` (family `epoll_wait`) |
| session | added, equivalent | `epoll_wait` | `epoll_pwait` (family `epoll_wait`) |
| session | removed, equivalent | `faccessat` | `access` (family `access`) |
EOF

# -- 1: different ---------------------------------------------------------
check different-text 1 x86_64.guc aarch64-changed.guc <<'EOF'
--- x86_64.guc
+++ aarch64-changed.guc
global:
-access
+epoll_pwait
-epoll_wait
+faccessat
+fallocate
-rename
+renameat
-unlink
+unlinkat
session:
-access
+epoll_pwait
-epoll_wait
+faccessat
-kill
EOF
# without --equivalent, family members are names like any other
check exact-text 1 x86_64.json aarch64.guc <<'EOF'
--- x86_64.json
+++ aarch64.guc
global:
-access
+epoll_pwait
-epoll_wait
+faccessat
-rename
+renameat
-unlink
+unlinkat
session:
-access
+epoll_pwait
-epoll_wait
+faccessat
EOF
check different-equivalent-text 1 --equivalent x86_64.guc aarch64-changed.guc <<'EOF'
--- x86_64.guc
+++ aarch64-changed.guc
global:
+fallocate
~-access: faccessat (family access)
~+epoll_pwait: epoll_wait (family epoll_wait)
~-epoll_wait: epoll_pwait (family epoll_wait)
~+faccessat: access (family access)
~-rename: renameat (family rename)
~+renameat: rename (family rename)
~-unlink: unlinkat (family unlink)
~+unlinkat: unlink (family unlink)
session:
-kill
~-access: faccessat (family access)
~+epoll_pwait: epoll_wait (family epoll_wait)
~-epoll_wait: epoll_pwait (family epoll_wait)
~+faccessat: access (family access)
EOF
check different-markdown 1 --format markdown x86_64.json aarch64-changed.guc <<'EOF'
### pgsc-diff: x86\_64\.json → aarch64\-changed\.guc

**The allow lists differ.** global: 5 added, 4 removed; session: 2 added, 3 removed.

| list | change | syscall | equivalent to |
|---|---|---|---|
| global | removed | `access` |  |
| global | added | `epoll_pwait` |  |
| global | removed | `epoll_wait` |  |
| global | added | `faccessat` |  |
| global | added | `fallocate` |  |
| global | removed | `rename` |  |
| global | added | `renameat` |  |
| global | removed | `unlink` |  |
| global | added | `unlinkat` |  |
| session | removed | `access` |  |
| session | added | `epoll_pwait` |  |
| session | removed | `epoll_wait` |  |
| session | added | `faccessat` |  |
| session | removed | `kill` |  |
EOF
check different-equivalent-markdown 1 --format markdown --equivalent x86_64.guc aarch64-changed.guc <<'EOF'
### pgsc-diff: x86\_64\.guc → aarch64\-changed\.guc

**The allow lists differ.** global: 1 added, 0 removed, 8 equivalent; session: 0 added, 1 removed, 4 equivalent.

| list | change | syscall | equivalent to |
|---|---|---|---|
| global | added | `fallocate` |  |
| global | removed, equivalent | `access` | `faccessat` (family `access`) |
| global | added, equivalent | `epoll_pwait` | `epoll_wait` (family `epoll_wait`) |
| global | removed, equivalent | `epoll_wait` | `epoll_pwait` (family `epoll_wait`) |
| global | added, equivalent | `faccessat` | `access` (family `access`) |
| global | removed, equivalent | `rename` | `renameat` (family `rename`) |
| global | added, equivalent | `renameat` | `rename` (family `rename`) |
| global | removed, equivalent | `unlink` | `unlinkat` (family `unlink`) |
| global | added, equivalent | `unlinkat` | `unlink` (family `unlink`) |
| session | removed | `kill` |  |
| session | removed, equivalent | `access` | `faccessat` (family `access`) |
| session | added, equivalent | `epoll_pwait` | `epoll_wait` (family `epoll_wait`) |
| session | removed, equivalent | `epoll_wait` | `epoll_pwait` (family `epoll_wait`) |
| session | added, equivalent | `faccessat` | `access` (family `access`) |
EOF
check different-json 1 --format json aarch64-changed.guc aarch64.guc <<'EOF'
{
  "equal": false,
  "a": "aarch64-changed.guc",
  "b": "aarch64.guc",
  "global": {"added": [], "removed": ["fallocate"], "equivalent": []},
  "session": {"added": ["kill"], "removed": [], "equivalent": []}
}
EOF
check different-equivalent-json 1 --format json --equivalent aarch64.guc aarch64-changed.guc <<'EOF'
{
  "equal": false,
  "a": "aarch64.guc",
  "b": "aarch64-changed.guc",
  "global": {"added": ["fallocate"], "removed": [], "equivalent": []},
  "session": {"added": [], "removed": ["kill"], "equivalent": []}
}
EOF

# -- 2: errors (the expected text is stderr) ------------------------------
check missing-file 2 x86_64.guc missing.guc <<'EOF'
pgsc-diff: missing.guc: No such file or directory
EOF
check directory 2 . x86_64.guc <<'EOF'
pgsc-diff: .: Is a directory
EOF
check bad-quote 2 --format json x86_64.guc bad-quote.guc <<'EOF'
pgsc-diff: bad-quote.guc:2: syntax error: unterminated quoted string (PostgreSQL would not start)
EOF
check bad-name-guc 2 --format markdown bad-name.guc x86_64.guc <<'EOF'
pgsc-diff: bad-name.guc: global list: "Open" is not a syscall name ([a-z0-9_]+, at most 64 bytes)
EOF
check no-session 2 x86_64.guc no-session.guc <<'EOF'
pgsc-diff: no-session.guc: no session_syscall_allow line
EOF
check truncated-json 2 truncated.json x86_64.guc <<'EOF'
pgsc-diff: truncated.json: invalid JSON at byte 54 (the end): expected ',' or ']'
EOF
check bad-name-json 2 --equivalent x86_64.json bad-name.json <<'EOF'
pgsc-diff: bad-name.json: session list: "wr\u0000..." is not a syscall name (a NUL)
EOF
check no-global-json 2 x86_64.json no-global.json <<'EOF'
pgsc-diff: no-global.json: no "global" array
EOF
check round-without-store 2 --round 1 x86_64.guc x86_64.json <<'EOF'
pgsc-diff: --round and --session-roles apply to stores, and neither operand is one
EOF
check bad-format 2 --format yaml x86_64.guc x86_64.json <<'EOF'
pgsc-diff: unknown format "yaml"
EOF
check bad-round 2 --round 0 x86_64.guc x86_64.json <<'EOF'
pgsc-diff: bad --round "0"
EOF
exit_is one-operand 2 "$D" x86_64.guc
exit_is three-operands 2 "$D" x86_64.guc x86_64.guc x86_64.guc
exit_is both-stdin 2 "$D" - - </dev/null
exit_is unknown-option 2 "$D" --bogus x86_64.guc x86_64.json
exit_is help 0 "$D" --help
exit_is families 0 "$D" --families

# -- standard input and pipes ---------------------------------------------
exit_is stdin-same 0 "$D" - x86_64.json <x86_64.guc
exit_is stdin-different 1 "$D" x86_64.json - <aarch64.guc
exit_is pipe-same 0 "$D" x86_64.json <(cat x86_64.guc)

# -- a file name that is hostile in every format --------------------------
evil=$T/$'evil\n+++ x\e[31m|`*_<b>.guc'
cp aarch64.guc "$evil"
for f in text markdown json; do
	"$D" --format $f x86_64.guc "$evil" >"$T/evil.$f" 2>&1
	rc=$?
	ok=1
	[ $rc = 1 ] || { echo "FAIL: evil-name-$f: exit $rc"; ok=0; }
	if LC_ALL=C grep -q $'[\x01-\x09\x0b-\x1f\x7f]' "$T/evil.$f"; then
		echo "FAIL: evil-name-$f: a control byte in the output"; cat -A "$T/evil.$f"; ok=0
	fi
	case $f in
	text) want='+++ '"$T"'/evil\x0a+++ x\x1b[31m|`*_<b>.guc' ;;
	markdown) want='\\x0a\+\+\+ x\\x1b\[31m\|\`\*\_\<b\>\.guc' ;;
	json) want='evil\u000a+++ x\u001b[31m|`*_<b>.guc",' ;;
	esac
	grep -qF -- "$want" "$T/evil.$f" || { echo "FAIL: evil-name-$f: no escaped name"; cat "$T/evil.$f"; ok=0; }
	result evil-name-$f $ok
done
check evil-name-missing 2 x86_64.guc $'no\e]0;title\a.guc' <<'EOF'
pgsc-diff: no\x1b]0;title\x07.guc: No such file or directory
EOF

# -- a real store against its own reports ---------------------------------
zcat "$DIR/../golden/raw.log.gz" >"$T/raw.log"
if ! "$BIN/pgsc-collect" --db "$T/raw.db" --import "$T/raw.log" 2>"$T/collect.err"; then
	echo "FAIL: pgsc-collect"; cat "$T/collect.err"; result store-import 0
else
	"$BIN/pgsc-report" --db "$T/raw.db" >"$T/raw.conf"
	"$BIN/pgsc-report" --db "$T/raw.db" --format json >"$T/raw.json"
	"$BIN/pgsc-report" --db "$T/raw.db" --guc-prefix pgseccomp. --session-roles rfc >"$T/raw-rfc.conf"
	check store-vs-guc 0 "$T/raw.db" "$T/raw.conf" </dev/null
	check store-vs-json-json 0 --format json "$T/raw.json" "$T/raw.db" <<EOF
{
  "equal": true,
  "a": "$T/raw.json",
  "b": "$T/raw.db",
  "global": {"added": [], "removed": [], "equivalent": []},
  "session": {"added": [], "removed": [], "equivalent": []}
}
EOF
	check store-round-1 0 --round 1 "$T/raw.db" "$T/raw.conf" </dev/null
	check store-round-1-1 0 --round 1-1 --equivalent "$T/raw.conf" "$T/raw.db" </dev/null
	check store-session-roles 0 --session-roles rfc "$T/raw-rfc.conf" "$T/raw.db" </dev/null
	exit_is store-stdin 0 "$D" - "$T/raw.db" <"$T/raw.conf"
	exit_is store-vs-fixture 1 "$D" "$T/raw.db" x86_64.guc
	exit_is store-vs-itself 0 "$D" "$T/raw.db" "$T/raw.db"
	check store-round-2 2 --round 2 "$T/raw.db" "$T/raw.conf" <<EOF
pgsc-diff: $T/raw.db: rounds 2-2 are not in the store (it has 1-1)
EOF
	IN=$T/raw.db check store-on-stdin 2 - "$T/raw.conf" <<'EOF'
pgsc-diff: -: a store must be a regular file, not a pipe or standard input
EOF
	# SQLite's own message quotes the schema of a hostile store
	v=$(sqlite3 "$T/raw.db" 'PRAGMA user_version' 2>/dev/null)
	if [ -n "$v" ] && sqlite3 "$T/evil.db" "PRAGMA user_version=$v; CREATE TABLE t(a);
		PRAGMA writable_schema=ON; UPDATE sqlite_master SET name=char(27)||'[31mred'||char(10)||'x',
		sql='CREATE TABLE x(' WHERE name='t';"; then
		check store-hostile-schema 2 "$T/evil.db" x86_64.guc <<EOF
pgsc-diff: $T/evil.db: the store is damaged and is not trusted (integrity_check: malformed database schema (\x1b[31mred\x0ax)); nothing was read from it: restore a copy or collect again
EOF
	else
		result store-hostile-schema 0
		echo "FAIL: store-hostile-schema: sqlite3 could not write the hostile store (user_version '$v')"
	fi
	printf 'SQLite format 3\0not really' >"$T/fake.db"
	check store-fake 2 "$T/fake.db" "$T/raw.conf" <<EOF
pgsc-diff: $T/fake.db: not a pgsc store (file is not a database)
EOF
fi

echo "diff: $pass passed, $fail failed"
[ $n -gt 0 ] && [ $fail = 0 ]
