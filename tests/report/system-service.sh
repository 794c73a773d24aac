#!/bin/bash
# SPDX-License-Identifier: PostgreSQL
# tests/report/system-service.sh - the shipped lists (examples/lists/)
# against systemd's @system-service, computed here from the installed
# systemd-analyze, and the table of docs/systemd.md that states it.
#
#   bash tests/report/system-service.sh BINDIR SRCDIR [--print]
#
# @system-service and @default are expanded by systemd-analyze
# syscall-filter itself (groups inside groups); the names counted are
# those libseccomp resolves on x86_64 (python3's ctypes), the arch of
# the lists.  For each list of each file: its size, the names outside
# @system-service, and how many names of @system-service it does not
# allow beyond @default (what systemd allows anyway).  The table between
# the markers of docs/systemd.md must be exactly this one (--print
# prints it, to paste).  Fails, never skips, without systemd-analyze or
# python3.
# shellcheck source=../lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
export LC_ALL=C
t_init system-service
t_bindir "system-service.sh BINDIR SRCDIR [--print]" "$@"
SRC=$(cd "${2:?usage: system-service.sh BINDIR SRCDIR [--print]}" && pwd)
PRINT=${3:-}
T=$T_WORK
need_progs systemd-analyze python3
DOC=$SRC/docs/systemd.md
[ "$PRINT" = --print ] || need_file "$DOC"

# expand GROUP...: the names of systemd's groups, groups inside groups
expand() {
	local g
	for g; do
		case $g in @*) ;; *) echo "$g"; continue ;; esac
		systemd-analyze syscall-filter "$g" 2>/dev/null |
			awk 'NR > 1 && $1 !~ /^#/ && NF == 1 { print $1 }' |
			while read -r n; do
				case $n in
				@*) expand "$n" ;;
				*) echo "$n" ;;
				esac
			done
	done
}
# x86_64: the names on stdin that libseccomp knows on x86_64 (AUDIT_ARCH_X86_64)
x86_64() {
	python3 -c '
import ctypes, sys
lib = ctypes.CDLL("libseccomp.so.2")
lib.seccomp_syscall_resolve_name_arch.restype = ctypes.c_int
lib.seccomp_syscall_resolve_name_arch.argtypes = [ctypes.c_uint32, ctypes.c_char_p]
for n in sys.stdin.read().split():
    if lib.seccomp_syscall_resolve_name_arch(0xC000003E, n.encode()) >= 0:
        print(n)'
}
expand @system-service | sort -u | x86_64 >"$T/ss"
expand @default | sort -u | x86_64 >"$T/default"
[ -s "$T/ss" ] && [ -s "$T/default" ] ||
	fail "systemd-analyze syscall-filter gave no @system-service or @default"
grep -qx read "$T/ss" || fail "@system-service without read: the expansion is wrong"
ver=$(systemd-analyze --version | awk 'NR == 1 { print $2 }')

{
	echo "systemd $ver: @system-service holds $(wc -l <"$T/ss") names on x86_64, $(wc -l <"$T/default") of them in @default."
	echo
	# shellcheck disable=SC2016 # Markdown's backquotes
	echo '| file | list | names | not in `@system-service` | `@system-service` names the list refuses (beyond `@default`) |'
	echo '|---|---|---:|---|---:|'
	for f in "$SRC"/examples/lists/*.guc; do
		for k in global session; do
			sed -n "s/^[a-z_.]*${k}_syscall_allow = '\([a-z0-9_,]*\)'\$/\1/p" "$f" |
				tr ',' '\n' | sed '/^$/d' | sort -u >"$T/l"
			[ -s "$T/l" ] || fail "$(basename "$f"): no $k list"
			out=$(comm -23 "$T/l" "$T/ss" | tr '\n' ' ' | sed 's/ $//; s/ /, /g')
			cut=$(comm -23 "$T/ss" "$T/l" | comm -23 - "$T/default" | wc -l)
			echo "| \`$(basename "$f")\` | $k | $(wc -l <"$T/l") | ${out:-none} | $cut |"
		done
	done
} >"$T/table"
if [ "$PRINT" = --print ]; then
	cat "$T/table"
	exit 0
fi
cat "$T/table"
ok "@system-service of systemd $ver: $(wc -l <"$T/ss") names on x86_64, $(wc -l <"$T/default") of them @default"

awk '/^<!-- system-service table: begin/ { on = 1; next }
	/^<!-- system-service table: end/ { on = 0 }
	on' "$DOC" >"$T/doc"
[ -s "$T/doc" ] || fail "docs/systemd.md has no table between the system-service markers"
if diff -u "$T/doc" "$T/table" >"$T/diff"; then
	ok "docs/systemd.md states the table as computed"
else
	cat "$T/diff"
	bad "docs/systemd.md's table differs from the computed one (bash tests/report/system-service.sh BINDIR SRCDIR --print)"
fi
# Every shipped list inside @system-service but seccomp: the doc's words
if awk -F'|' 'NR > 4 { gsub(/ /, "", $5); if ($5 != "seccomp") bad = 1 } END { exit bad }' "$T/table"; then
	ok "every shipped list fits in @system-service except seccomp"
else
	bad "a shipped list has names outside @system-service other than seccomp: docs/systemd.md §2 says otherwise"
fi
t_done
