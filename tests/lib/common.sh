#!/bin/bash
# SPDX-License-Identifier: PostgreSQL
# common.sh - what every test script shares: a work directory removed at
# exit, cleanup commands run before it, messages, and the checks of what
# a test needs (a missing need fails the test, it never skips).
#   . tests/lib/common.sh; t_init NAME
# (a minimal version with the interface of issue 26 item 5; a fuller one
# may replace it)

T_CLEANUPS=()

# t_exit: run the registered cleanups, newest first, then remove $T_WORK
t_exit() {
	local i
	for ((i = ${#T_CLEANUPS[@]} - 1; i >= 0; i--)); do
		eval "${T_CLEANUPS[i]}" || true
	done
	[ -n "${T_WORK:-}" ] && rm -rf "$T_WORK"
}

# t_init NAME: a fresh work directory in $T_WORK, removed at exit
t_init() {
	T_WORK=$(mktemp -d "/tmp/pgsc-$1.XXXXXX") || { echo "FAIL: mktemp"; exit 1; }
	export T_WORK
	trap t_exit EXIT
}

# t_cleanup CMD...: run CMD at exit (before $T_WORK is removed)
t_cleanup() {
	T_CLEANUPS+=("$(printf '%q ' "$@")")
}

# fail MSG: the test failed; stop here
fail() {
	echo "FAIL: $*"
	exit 1
}

# note MSG: a line of progress
note() {
	echo "$*"
}

# need_root: fail unless running as root
need_root() {
	[ "$(id -u)" = 0 ] || fail "needs root"
}

# need_progs PROG...: fail unless every PROG is in PATH
need_progs() {
	local p
	for p in "$@"; do
		command -v "$p" >/dev/null || fail "$p missing (tools/install-deps.sh)"
	done
}

# need_file PATH...: fail unless every PATH exists
need_file() {
	local f
	for f in "$@"; do
		[ -e "$f" ] || fail "$f missing"
	done
}
