#!/bin/bash
# SPDX-License-Identifier: PostgreSQL
# tests/build/hardening.sh - the built programs carry what PGSC_HARDEN asks
# for (cmake/Hardening.cmake): full RELRO (a GNU_RELRO segment and BIND_NOW),
# the stack protector (__stack_chk_fail) and, when FORTIFY_SOURCE is on,
# glibc's checked calls (__*_chk).  The module pgsc.so, when built, has
# full RELRO.
#
#   hardening.sh BINDIR FORTIFY(ON|OFF) [MODULE.so]
# shellcheck source=../lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
t_init build-hardening
bindir=$1 fortify=$2 module=${3:-}

relro_now() {
	local f=$1
	readelf -lW "$f" | grep -q 'GNU_RELRO' || bad "$f: no GNU_RELRO segment"
	readelf -dW "$f" | grep -Eq '\(FLAGS\).*BIND_NOW|\(FLAGS_1\).*NOW|\(BIND_NOW\)' ||
		bad "$f: not linked with -z now (no BIND_NOW)"
}

for p in pgsc-collect pgsc-report pgsc-exec pgsc-diff pgsc-scan; do
	f=$bindir/$p
	[ -x "$f" ] || { bad "$f: missing"; continue; }
	relro_now "$f"
	syms=$(readelf --dyn-syms -W "$f" | awk '{ print $8 }')
	grep -q '^__stack_chk_fail' <<<"$syms" ||
		bad "$f: no __stack_chk_fail (stack protector)"
	if [ "$fortify" = ON ]; then
		grep -Eq '^__[a-z_]+_chk(@|$)' <<<"$syms" ||
			bad "$f: no __*_chk call (FORTIFY_SOURCE)"
	fi
done
if [ -n "$module" ]; then
	if [ -f "$module" ]; then
		relro_now "$module"
	else
		bad "$module: missing"
	fi
fi
[ "$T_FAIL" = 0 ] && ok "RELRO, BIND_NOW, stack protector${fortify:+, FORTIFY $fortify}"
t_done
