#!/bin/bash
# SPDX-License-Identifier: PostgreSQL
# tests/lint/shellcheck.sh - every shell script of the tree through shellcheck at its
# default severity (style and up): the bash scripts of tools/ (*.sh and
# the ones without an extension, found by their #! line) and every *.sh
# under tests/.
#
#   tests/lint/shellcheck.sh [TOPDIR]
#
# Sourced files are followed (-x) from the directory of the script that
# sources them (-P SCRIPTDIR), which is how the "# shellcheck source="
# directives of the tree are written.  Prints every finding as
# FILE:LINE:COL, then the count per file; exits 1 on any finding, 2
# when the program shellcheck is missing (tools/install-deps.sh installs
# it).  A "# shellcheck disable=SCnnnn" directive says why on its line.
set -euo pipefail
top=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$top"

command -v shellcheck >/dev/null ||
	{ echo "shellcheck.sh: shellcheck is not installed (Debian package shellcheck; tools/install-deps.sh)" >&2; exit 2; }

# lint_files: the scripts checked, one per line, sorted.
lint_files() {
	local f
	for f in tools/*; do
		[ -f "$f" ] || continue
		case $f in
		*.sh) echo "$f" ;;
		*.*) ;;
		*) head -n 1 "$f" | grep -q '^#!.*\<\(ba\)\?sh\>' && echo "$f" ;;
		esac
	done
	find tests -name '*.sh' -type f
}

mapfile -t files < <(lint_files | LC_ALL=C sort -u)
[ ${#files[@]} -gt 0 ] || { echo "shellcheck.sh: no script found under $top" >&2; exit 2; }

out=$(shellcheck -x -P SCRIPTDIR -f gcc "${files[@]}" 2>&1) || true
if [ -z "$out" ]; then
	echo "shellcheck.sh: ${#files[@]} scripts, no finding"
	exit 0
fi
printf '%s\n' "$out"
echo
echo "findings per file:"
printf '%s\n' "$out" | cut -d: -f1 | sort | uniq -c | sort -rn
n=$(printf '%s\n' "$out" | grep -c ':[0-9]*:[0-9]*: ' || true)
echo "shellcheck.sh: $n findings in ${#files[@]} scripts"
exit 1
