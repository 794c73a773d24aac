#!/bin/bash
# SPDX-License-Identifier: PostgreSQL
# argrules.sh - argument rules (docs/module.md, "Argument rules") on the
# real kernel under pgsc-exec --default error: with
# socket(a0:a1&0xf=1:1|2:1|2:2|10:1) socket(AF_INET, SOCK_STREAM |
# SOCK_CLOEXEC) works and socket(AF_PACKET, SOCK_RAW) and
# socket(AF_UNIX, SOCK_DGRAM) fail with EPERM; with clone(a0&0x7e020000=0)
# a fork-like clone works and clone(CLONE_NEWUSER) fails with EPERM.  The
# same list with plain names lets everything through, so the rules are
# what refuses; the rest of the list comes from an strace run of the
# probe.  Also: a bad rule is refused up front naming the entry and byte,
# and the same list read from a GUC file (--allow-file) acts the same.
#   bash tests/exec/argrules.sh EXECDIR PROBEDIR
# shellcheck source=../lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
t_init argrules
EXEC=$1/pgsc-exec
PROBE=$2/argprobe
T=$T_WORK
need_progs strace
need_exec "$EXEC" "$PROBE"
OPS="inet-stream inet-dgram unix-dgram packet-raw fork newuser"

# run NAME WANT ARGS...: pgsc-exec ARGS -- probe OPS, its output (one
# line per call, joined by blanks) must be WANT
run() {
	local name=$1 want=$2 rc=0 out
	shift 2
	# shellcheck disable=SC2086 # OPS is a list of words
	"$EXEC" "$@" -- "$PROBE" $OPS >"$T/$name.out" 2>"$T/$name.err" || rc=$?
	out=$(paste -sd' ' "$T/$name.out")
	echo "$name: $out"
	[ "$rc" = 0 ] || bad "$name: exit $rc ($(head -c 300 "$T/$name.err"))"
	[ "$out" = "$want" ] && ok || bad "$name: \"$out\", want \"$want\""
}

# shellcheck disable=SC2086
strace -f -qq -o "$T/probe.trace" "$PROBE" $OPS >"$T/free.out" || bad "strace of $PROBE"
free=$(paste -sd' ' "$T/free.out")
echo "without a filter: $free"
base=$(sed -nE 's/^[0-9]+ +([a-z_0-9]+)\(.*/\1/p' "$T/probe.trace" |
	sort -u | grep -vx 'socket\|clone' | paste -sd, -)
echo "list of the probe without socket and clone: $base"
grep -q execve <<<"$base" && grep -q exit_group <<<"$base" || bad "trace lacks execve or exit_group"

# the control: plain names let through what the kernel lets through
run plain "$free" --default error --allow "$base,socket,clone"
# the kernel's own answer must be "ok" for the calls the rules refuse,
# or the test would prove nothing (root, user namespaces enabled)
for c in unix-dgram packet-raw newuser; do
	grep -qx "$c=ok" "$T/free.out" || bad "without a filter $c is not ok ($free): run as root with user namespaces"
done

rules='socket(a0:a1&0xf=1:1|2:1|2:2|10:1),clone(a0&0x7e020000=0)'
want="inet-stream=ok inet-dgram=ok unix-dgram=EPERM packet-raw=EPERM fork=ok newuser=EPERM"
run rules "$want" --default error --allow "$base,$rules"
# a plain name beside a rule wins (a union: the call is allowed where
# either entry allows it)
run union "$free" --default error --allow "$base,$rules,socket,clone"
# two rules with the same args unite their alternatives
run unite "inet-stream=ok inet-dgram=ok unix-dgram=ok packet-raw=EPERM fork=ok newuser=EPERM" \
	--default error --allow "$base,$rules,socket(a0:a1&0xf=1:2)"
# the same list from a GUC file
printf "pgsc.session_syscall_allow = '%s'\n" "$base,$rules" >"$T/list.guc"
run file "$want" --default error --allow-file "$T/list.guc" --list session

# a bad rule: refused before the command, naming the entry and the byte
rc=0
"$EXEC" --default error --allow "$base,socket(a0=1|0x)" -- "$PROBE" fork \
	>"$T/bad.out" 2>"$T/bad.err" || rc=$?
[ "$rc" = 2 ] || bad "bad rule: exit $rc, want 2"
grep -qF 'entry "socket(a0=1|0x)": at byte 15: expected hex digits after 0x' "$T/bad.err" &&
	ok || bad "bad rule: $(head -c 300 "$T/bad.err")"
[ -s "$T/bad.out" ] && bad "bad rule: the command ran"
t_done
