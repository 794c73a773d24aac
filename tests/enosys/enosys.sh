#!/bin/bash
# SPDX-License-Identifier: PostgreSQL
# enosys.sh - ENOSYS for the unknown (docs/man/pgsc-exec.1), on the real
# kernel: a syscall number above the list's known max gets EPERM under
# --default error with --unknown-syscall-action=default and ENOSYS with
# enosys (also under kill); a number the list names keeps its action; and
# glibc's clone3 -> clone fallback: under a list made "before clone3"
# (--known-max x86_64:434, clone3 not on it) pthread_create fails with
# EPERM under default and works under enosys.  The allow lists come from
# strace runs of the programs, never typed here.
#   bash tests/enosys/enosys.sh EXECDIR PROGDIR
# shellcheck source=../lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
t_init enosys
EXEC=$1/pgsc-exec
NR=$2/enosys_unknown_nr
THREAD=$2/enosys_thread
T=$T_WORK
need_progs strace
[ "$(uname -m)" = x86_64 ] || fail "the figures here are x86_64's ($(uname -m))"
need_exec "$EXEC" "$NR" "$THREAD"

# names TRACE: the syscall names of an strace -f trace, comma-separated
names() {
	sed -nE 's/^[0-9]+ +([a-z_0-9]+)\(.*/\1/p' "$1" | sort -u | paste -sd, -
}
# drop NAME LIST
drop() { tr , '\n' <<<"$2" | grep -vx "$1" | paste -sd, -; }

# run NAME WANT_RC WANT_OUT ARGS...: pgsc-exec ARGS, its exit status and
# the first line of its output
run() {
	local name=$1 want_rc=$2 want_out=$3 rc=0 out
	shift 3
	"$EXEC" "$@" >"$T/$name.out" 2>"$T/$name.err" || rc=$?
	out=$(head -1 "$T/$name.out")
	echo "$name: exit $rc: $out"
	[ "$rc" = "$want_rc" ] || bad "$name: exit $rc, want $want_rc ($(head -c 300 "$T/$name.err"))"
	[ "$out" = "$want_out" ] || bad "$name: \"$out\", want \"$want_out\""
}

known=$("$EXEC" --print-known-max) || bad "--print-known-max failed"
echo "this libseccomp's known max: $known"
max=$(sed -nE 's/^x86_64:([0-9]+).*/\1/p' <<<"$known")
[ -n "$max" ] || fail "no x86_64 known max in \"$known\""
unk=$((max + 5))

# 1. a number above the known max
strace -f -qq -o "$T/nr.trace" "$NR" 39 >/dev/null || bad "strace of $NR"
list=$(names "$T/nr.trace")
echo "list of $NR: $list"
grep -q execve <<<"$list" && grep -q exit_group <<<"$list" || bad "trace of $NR lacks execve or exit_group"
"$NR" "$unk" >"$T/free.out"
echo "syscall($unk) with no filter: $(cat "$T/free.out")"
run nr-default 0 errno=EPERM --default error --allow "$list" \
	--unknown-syscall-action=default -- "$NR" "$unk"
run nr-enosys 0 errno=ENOSYS --default error --allow "$list" \
	--unknown-syscall-action=enosys -- "$NR" "$unk"
run nr-implicit 0 errno=ENOSYS --default error --allow "$list" -- "$NR" "$unk"
run nr-kill 0 errno=ENOSYS --default kill --allow "$list" -- "$NR" "$unk"
run nr-1023 0 errno=ENOSYS --default error --allow "$list" -- "$NR" 1023
# a known number the list lacks keeps the default
run nr-known 0 errno=EPERM --default error --allow "$list" -- "$NR" "$max"
# with --known-max, pidfd_open (434) named by the list keeps its action
# (allow: the kernel's EINVAL for fd 0... here EBADF/EINVAL, not ENOSYS),
# fspick (433), not named, gets ENOSYS
run nr-named-433 0 errno=ENOSYS --default error --allow "$list" \
	--known-max x86_64:400 -- "$NR" 433
"$EXEC" --default error --allow "$list,pidfd_open" --known-max x86_64:400 \
	-- "$NR" 434 >"$T/named.out" 2>&1
echo "named-434: $(cat "$T/named.out")"
grep -qE '^errno=(ENOSYS|EPERM)$' "$T/named.out" && bad "named-434: pidfd_open on the list got $(cat "$T/named.out")"
run bad-known 2 "" --known-max x86_64:abc -- "$NR" 39
run bad-action 2 "" --unknown-syscall-action=eperm -- "$NR" 39

# 2. clone3 -> clone: the list of the thread program when clone3 did not
# exist (strace answers clone3 with ENOSYS, glibc falls back to clone),
# clone3 dropped: a list made before clone3
# (three runs: whether pthread_join waits on a futex depends on which
# thread gets there first)
for i in 1 2 3; do
	strace -f -qq -e inject=clone3:error=ENOSYS -o "$T/thread.$i.trace" \
		"$THREAD" >"$T/thread.strace.out" ||
		bad "strace of $THREAD: $(cat "$T/thread.strace.out")"
done
cat "$T"/thread.?.trace >"$T/thread.trace"
full=$(names "$T/thread.trace")
list=$(drop clone3 "$full")
echo "list of $THREAD without clone3: $list"
grep -qE '(^|,)clone(,|$)' <<<"$list" || bad "the fallback trace has no clone: $full"
run thread-default 1 "pthread_create: Operation not permitted" \
	--default error --allow "$list" --known-max x86_64:434 \
	--unknown-syscall-action=default -- "$THREAD"
run thread-enosys 0 "thread ran" \
	--default error --allow "$list" --known-max x86_64:434 \
	--unknown-syscall-action=enosys -- "$THREAD"
run thread-kill-enosys 0 "thread ran" \
	--default kill --allow "$list" --known-max x86_64:434 -- "$THREAD"
# control: with this libseccomp's known max clone3 is known, so it gets
# the default, and the thread fails as before
run thread-known 1 "pthread_create: Operation not permitted" \
	--default error --allow "$list" --unknown-syscall-action=enosys \
	-- "$THREAD"

t_done
