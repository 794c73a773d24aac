#!/bin/bash
# SPDX-License-Identifier: PostgreSQL
# tests/report/systemd-groups.sh - src/systemd_groups.def against the
# installed systemd-analyze: the groups pgsc-report --explain names are
# systemd's own (tools/pgsc-systemd-groups --check), never typed by hand.
#
#   bash tests/report/systemd-groups.sh BINDIR SRCDIR
#
# Fails, never skips, when systemd-analyze is missing: the data file
# cannot be checked then, and a check that quietly passes is worse.
# shellcheck source=../lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
t_init systemd-groups
t_bindir "systemd-groups.sh BINDIR SRCDIR" "$@"
SRC=$(cd "${2:?usage: systemd-groups.sh BINDIR SRCDIR}" && pwd)
T=$T_WORK
need_progs systemd-analyze
DEF=$SRC/src/systemd_groups.def

# 1. the file is what the generator makes from this systemd
if bash "$SRC/tools/pgsc-systemd-groups" --check "$DEF" >"$T/check.out" 2>&1; then
	ok "src/systemd_groups.def: the groups systemd-analyze prints ($(systemd-analyze --version | head -n 1))"
else
	cat "$T/check.out"
	bad "src/systemd_groups.def differs from systemd-analyze syscall-filter"
fi

# 2. independently of the generator's awk: every name systemd-analyze
# lists under @network-io and @privileged is in the file under that group
for g in @network-io @privileged @process; do
	systemd-analyze syscall-filter "$g" 2>/dev/null |
		awk 'NR > 1 && /^    [a-z0-9_]+$/ { print $1 }' | sort >"$T/sd"
	sed -n "s/^SYSTEMD_GROUP(\"$g\", \"\\([a-z0-9_]*\\)\")\$/\\1/p" "$DEF" |
		sort >"$T/def"
	[ -s "$T/sd" ] || bad "systemd-analyze syscall-filter $g listed nothing"
	if diff -u "$T/sd" "$T/def" >"$T/diff"; then
		ok "$g: $(wc -l <"$T/def") names, as systemd-analyze lists them"
	else
		cat "$T/diff"
		bad "$g: the file differs from systemd-analyze syscall-filter $g"
	fi
done

# 3. the header names the version
grep -q '^ \* systemd-version: systemd [0-9]' "$DEF" ||
	bad "src/systemd_groups.def: no systemd-version line"
t_done
