#!/bin/bash
# SPDX-License-Identifier: PostgreSQL
# tests/readme/first-minute.sh - the README's "first minute without root"
# block, as it is in README.md, run as an unprivileged user (nobody) on a
# copy of the tree: build, import the shipped log, the lists, the status,
# the HTML page.
#
#   bash tests/readme/first-minute.sh SRCDIR
#
# The block is read from README.md (the first ``` block after the line
# that starts with "**A first minute without root**"), so the test is of
# what a user copies.  Asserts: the block has five lines; it runs with no
# privilege (uid 65534) and no write outside its copy; the binaries are
# built, the store made from tests/golden/raw.log.gz, the GUC lines printed
# with names in them, --status names the round, and try.html is an HTML
# page with the lists.  Needs root only to hand the copy to nobody
# (runuser); fails, never skips, without it.
#
# ctest: readme/first-minute (tests/CMakeLists.txt).
# The checks are strings eval'd later, and the user's shell is given its
# script as a single-quoted argument: no expansion at the quote is meant.
# shellcheck disable=SC2016
# shellcheck source=../lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
t_init readme-first-minute

SRC=$(cd "${1:?usage: first-minute.sh SRCDIR}" && pwd)
need_root "to run the block as nobody (runuser)"
need_progs runuser cmake cc tar
T=$T_WORK
chmod 755 "$T"

awk '/^\*\*A first minute without root\*\*/ { f = 1; next }
     f == 1 && /^```$/ { f = 2; next }
     f == 2 && /^```$/ { exit }
     f == 2 { print }' "$SRC/README.md" >"$T/block.sh"
n=$(wc -l <"$T/block.sh")
[ "$n" = 5 ] || fail "README.md's first-minute block has $n lines, not 5: $(cat "$T/block.sh")"

mkdir "$T/tree"
tar -C "$SRC" --exclude=./.git --exclude='./build*' -cf - . | tar -C "$T/tree" -xf - ||
	fail "cannot copy the tree"
chown -R nobody:nogroup "$T/tree"
cp "$T/block.sh" "$T/tree/.block.sh"
# the user's shell: no -e, so --status's exit 1 (one round is not
# convergence) does not stop it, as it would not stop a user
runuser -u nobody -- env -i PATH=/usr/bin:/bin HOME="$T/tree" LC_ALL=C \
	bash -c 'cd "$1" && bash .block.sh' _ "$T/tree" >"$T/out" 2>"$T/err"
rc=$?
tail -n 20 "$T/err" >"$T/err.tail"

fails=0
check() {
	if eval "$2"; then
		echo "ok: $1"
	else
		echo "FAIL: $1"
		fails=$((fails + 1))
	fi
}
check "the block ran as nobody (the last line's exit 0)" '[ "$rc" = 0 ]'
check "pgsc-collect and pgsc-report built" \
	'[ -x "$T/tree/build-try/pgsc-collect" ] && [ -x "$T/tree/build-try/pgsc-report" ]'
check "the store is nobody's" '[ "$(stat -c %u "$T/tree/try.db" 2>/dev/null)" = 65534 ]'
check "the GUC lines printed, with names" \
	"grep -Eq \"^global_syscall_allow = '[a-z0-9_]+,\" \"\$T/out\" && grep -Eq \"^session_syscall_allow = '[a-z0-9_]+,\" \"\$T/out\""
check "--status names round 1 and its verdict" \
	"grep -Eq '^ *1 ' \"\$T/out\" && grep -Eq 'converged' \"\$T/out\""
check "try.html is a page with the global list" \
	"grep -q '<html' \"\$T/tree/try.html\" && grep -q 'epoll_wait' \"\$T/tree/try.html\""
if [ "$fails" != 0 ]; then
	echo "--- the block:"; cat "$T/block.sh"
	echo "--- its stderr (last lines):"; cat "$T/err.tail"
	fail "$fails checks failed"
fi
echo "readme-first-minute: ok (the README's 5 lines as nobody)"
