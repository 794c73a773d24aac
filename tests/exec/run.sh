#!/bin/bash
# SPDX-License-Identifier: PostgreSQL
# run.sh - pgsc-exec never crashes: a list under which it could
# not exec the command or exit is refused up front (2) naming the missing
# calls; a command that cannot be executed exits 127, also from under a
# filter that allows only execve and exit_group; and strace shows that
# pgsc-exec makes no call but execve between loading the filter and the
# command (so that execve, exit_group is the whole minimal set).
#   bash tests/exec/run.sh BINDIR
# shellcheck source=../lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
t_init exec
BIN=$1
T=$T_WORK
need_progs strace

# run NAME WANT ARGS...: pgsc-exec's exit status must be WANT
run() {
	local name=$1 want=$2 rc=0
	shift 2
	"$BIN/pgsc-exec" "$@" >"$T/$name.out" 2>"$T/$name.err" || rc=$?
	[ "$rc" = "$want" ] || bad "$name: pgsc-exec $*: exit $rc, want $want ($(head -c 300 "$T/$name.err"))"
}
has() { grep -qE -- "$2" "$T/$1.err" || bad "$1: no \"$2\" in stderr: $(head -c 300 "$T/$1.err")"; }

printf '\001\002 not a program\n' >"$T/garbage"   # ENOEXEC at execve
chmod +x "$T/garbage"
printf '#!/bin/sh\nexit 0\n' >"$T/noexec"; chmod -x "$T/noexec"

# the list that crashed pgsc-exec (rc 139 before): refused up front
for def in error kill; do
	run "rw-$def" 2 --default $def --allow read,write -- /bin/true
	has "rw-$def" 'execve'
	has "rw-$def" 'exit_group'
done
run no-exit 2 --default error --allow execve,read -- /bin/true
has no-exit 'lacks exit_group'
grep -q 'execve (or' "$T/no-exit.err" && bad "no-exit: names execve, which the list has"
run minat-exit 127 --default error --allow execveat,exit -- "$T/garbage"
# under kill glibc's _exit dies at exit_group before it tries exit
run kill-exit 2 --default kill --allow execve,exit -- /bin/true
has kill-exit 'lacks exit_group;'
run no-exec 2 --default error --allow exit_group -- /bin/true
has no-exec 'lacks execve'
run file-rw 2 --default error --allow-file <(printf "session_syscall_allow = 'read,write'\n") -- /bin/true

# the minimal set: a failed exec under it exits 127, never crashes
for def in error kill; do
	run "min-$def" 127 --default $def --allow execve,exit_group -- "$T/garbage"
	run "minat-$def" 127 --default $def --allow execveat,exit_group -- "$T/garbage"
	run "minw-$def" 127 --default $def --allow execve,exit_group,write -- "$T/garbage"
	has "minw-$def" 'Exec format error'
done
# log and allow: anything goes
run log-true 0 --default log --allow read -- /bin/true
run exit-3 3 -- sh -c 'exit 3'
# commands that are not there or not executable: 127, with a message
run missing 127 -- pgsc-no-such-command-$$
has missing 'not found'
run missing-path 127 --default error --allow execve,exit_group -- "$T/nonexistent"
run not-exec 127 -- "$T/noexec"
run directory 127 -- /tmp

# what pgsc-exec does after the filter is loaded: nothing but the exec
strace -f -o "$T/strace" "$BIN/pgsc-exec" --default error --allow execve,exit_group -- "$T/garbage" 2>/dev/null
after=$(awk '/seccomp\(SECCOMP_SET_MODE_FILTER, [^,]*, \{len=/ { f = 1; next } f && !/\+\+\+/ { sub(/^[0-9]+ +/, ""); sub(/\(.*/, ""); print }' "$T/strace" | sort -u | tr '\n' ' ')
[ -n "$after" ] || bad "strace shows no filter load: $(tail -5 "$T/strace")"
# execve (fails: ENOEXEC), the message's write (refused), exit_group
[ "$after" = "execve exit_group write " ] || bad "calls after seccomp_load: $after (want execve exit_group write)"
strace -f -o "$T/strace2" "$BIN/pgsc-exec" --default log -- /bin/true
first=$(awk '/seccomp\(SECCOMP_SET_MODE_FILTER, [^,]*, \{len=/ { f = 1; next } f { sub(/^[0-9]+ +/, ""); sub(/\(.*/, ""); print; exit }' "$T/strace2")
[ "$first" = execve ] || bad "the first call after seccomp_load is $first, not execve"
echo "calls after seccomp_load (failed exec): $after"
t_done
