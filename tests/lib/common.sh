# SPDX-License-Identifier: PostgreSQL
# shellcheck shell=bash
# tests/lib/common.sh - what every shell test shares: its name in messages,
# a private work directory, cleanups run at exit, and preconditions that
# fail (a missing dependency is never a skip).
#
#   t_init NAME [PARENT]  set -u and pipefail (a script that stops at the
#                         first error says set -e itself: many count their
#                         failures and go on); NAME for the messages;
#                         T_WORK, a new directory (mktemp -d in PARENT,
#                         else ${TMPDIR:-/tmp}); at exit the cleanups run,
#                         then T_WORK is removed unless PGSC_KEEP=1 or
#                         T_KEEP=1 (a script sets T_KEEP from its own
#                         knob, PGSC_WORLD_KEEP and the like).  INT and
#                         TERM exit 130 and 143 through the same path.
#   t_golden NAME BINDIR GOLDENDIR
#                         t_init NAME; BIN and DIR, the two arguments of a
#                         script run on the golden logs; T, T_WORK
#   t_traps NAME          t_init without a work directory (a script whose
#                         output directory is its caller's)
#   t_cleanup CMD [ARG...]
#                         run CMD ARG... at exit, before every cleanup
#                         registered earlier; T_RC holds the exit status
#   fail MSG              "FAIL: NAME: MSG" on stderr, exit 1 (or
#                         T_FAIL_STATUS: a benchmark says 2, "could
#                         not run")
#   note MSG              "NAME: MSG" on stderr
#   t_bindir USAGE [ARG...]
#                         BINDIR, the absolute path of ARG (the script's
#                         first argument, a directory), or fail "usage: USAGE"
#   t_script NAME USAGE [ARG...]
#                         T_NAME=NAME, BINDIR as t_bindir USAGE ARG...
#                         sets it, HERE the calling script's directory and
#                         SRCROOT the source tree (T_SRCROOT)
#   t_follow DB LOG OUT [ARG...]
#                         $COLLECT following LOG from its start into DB
#                         with ARGs, in the background, its output
#                         appended to OUT; its pid in COLL
#   need_root [WHY]       fail unless root
#   need_progs PROG...    fail naming the PROGs that are not on PATH
#   need_file PATH...     fail naming the PATHs that do not exist
#   need_exec PATH...     fail naming the PATHs that are not executable
#   ok [MSG]              count a check that passed; "ok: MSG" if given
#   bad MSG               count a check that failed: "FAIL: MSG" (stdout,
#                         among the ok lines; the test goes on)
#   check MSG STATUS      ok MSG when STATUS is 0, else bad MSG
#   expect MSG EXPR       ok MSG when the shell text EXPR (eval'd, so
#                         quoted '...' it is evaluated late) is true
#   t_done                "NAME: P passed, F failed"; its status is 0
#                         when no check failed (a script's last command)
#   t_verdict NAME T0     the end of check NAME, begun at T0 (now), of a
#                         script that runs many and collects each one's
#                         failures in the array REASONS: "ok: NAME (S s)",
#                         else "FAIL: NAME: REASON" for each and the time;
#                         status 0 when REASONS is empty
#   now                   seconds since the epoch, with nanoseconds
#   elapsed A B           B - A, one decimal
#
# T_SRCROOT is the source tree (this file's ../..); T_PASS and T_FAIL count
# the checks.

T_NAME=${T_NAME:-$(basename "$0" .sh)}
T_WORK=
T_KEEP=${T_KEEP:-0}
T_FAIL_STATUS=${T_FAIL_STATUS:-1}
# shellcheck disable=SC2034 # for the scripts that source this file
T_SRCROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
T_PASS=0
T_FAIL=0
# shellcheck disable=SC2034 # the exit status, for the cleanups
T_RC=
_t_cleanups=()

t_init() {
	t_traps "$1"
	T_WORK=$(mktemp -d "${2:-${TMPDIR:-/tmp}}/pgsc-$1.XXXXXX") ||
		fail "cannot create a work directory in ${2:-${TMPDIR:-/tmp}}"
}

t_golden() {
	t_init "$1"
	# shellcheck disable=SC2034 # for the script
	BIN=$2 DIR=$3 T=$T_WORK
}

t_traps() {
	T_NAME=$1
	set -uo pipefail
	trap _t_exit EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
}

t_cleanup() {
	_t_cleanups+=("$(printf '%q ' "$@")")
}

# _t_exit: the EXIT trap; keeps the script's exit status.
_t_exit() {
	local rc=$? i
	trap - EXIT INT TERM
	set +eu
	# shellcheck disable=SC2034 # for the cleanups
	T_RC=$rc
	for ((i = ${#_t_cleanups[@]} - 1; i >= 0; i--)); do
		eval "${_t_cleanups[i]}"
	done
	if [ -n "$T_WORK" ]; then
		if [ "${PGSC_KEEP:-0}" = 1 ] || [ "$T_KEEP" = 1 ]; then
			note "work directory kept: $T_WORK"
		else
			rm -rf "$T_WORK"
		fi
	fi
	exit "$rc"
}

fail() {
	echo "FAIL: $T_NAME: $*" >&2
	exit "$T_FAIL_STATUS"
}

note() {
	echo "$T_NAME: $*" >&2
}

t_bindir() {
	[ $# -ge 2 ] && [ -d "$2" ] || fail "usage: $1"
	# shellcheck disable=SC2034 # for the script
	BINDIR=$(cd "$2" && pwd)
}

t_script() {
	T_NAME=$1
	shift
	t_bindir "$@"
	# shellcheck disable=SC2034 # for the script
	HERE=$(cd "$(dirname "${BASH_SOURCE[1]}")" && pwd)
	# shellcheck disable=SC2034 # for the script
	SRCROOT=$T_SRCROOT
}

t_follow() {
	local db=$1 log=$2 out=$3
	shift 3
	# shellcheck disable=SC2154 # COLLECT: the script's
	"$COLLECT" --db "$db" --source "file:$log" --from-start "$@" >>"$out" 2>&1 &
	# shellcheck disable=SC2034 # for the script
	COLL=$!
}

need_root() {
	[ "$(id -u)" = 0 ] || fail "must run as root${1:+ ($1)}"
}

need_progs() {
	local p missing=
	for p; do
		command -v "$p" >/dev/null 2>&1 || missing="$missing $p"
	done
	[ -z "$missing" ] || fail "required programs missing:$missing"
}

need_file() {
	local p missing=
	for p; do
		[ -e "$p" ] || missing="$missing $p"
	done
	[ -z "$missing" ] || fail "required files missing:$missing"
}

need_exec() {
	local p missing=
	for p; do
		[ -x "$p" ] && [ -f "$p" ] || missing="$missing $p"
	done
	[ -z "$missing" ] || fail "required programs missing:$missing"
}

t_verdict() {
	local r
	if [ ${#REASONS[@]} = 0 ]; then
		echo "ok: $1 ($(elapsed "$2" "$(now)") s)"
		return 0
	fi
	for r in "${REASONS[@]}"; do echo "FAIL: $1: $r"; done
	echo "     ($1 took $(elapsed "$2" "$(now)") s)"
	return 1
}

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

ok() {
	T_PASS=$((T_PASS + 1))
	[ $# = 0 ] || echo "ok: $*"
}

bad() {
	T_FAIL=$((T_FAIL + 1))
	echo "FAIL: $*"
}

check() {
	if [ "$2" = 0 ]; then ok "$1"; else bad "$1"; fi
}

expect() {
	if eval "$2"; then ok "$1"; else bad "$1"; fi
}

t_done() {
	echo "$T_NAME: $T_PASS passed, $T_FAIL failed"
	[ "$T_FAIL" = 0 ]
}
