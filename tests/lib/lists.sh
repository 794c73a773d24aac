# SPDX-License-Identifier: PostgreSQL
# shellcheck shell=bash
# tests/lib/lists.sh - reading pgsc's outputs in the tests that prove lists.

# top_call ROLE JSON [REGEX]: "NAME COUNT" of the x86_64 call with the most
# records of ROLE in pgsc-report --format=json (the syscalls' "roles"),
# among the lines that also match REGEX; nothing when ROLE made none.
top_call() {
	awk -v role="\"$1\": " -v re="${3:-.}" '/^    \{"name": / && /"arch": "x86_64"/ && $0 ~ re && index($0, role) {
		name = $0; sub(/^    \{"name": "/, "", name); sub(/".*/, "", name)
		c = substr($0, index($0, role) + length(role)); sub(/[^0-9].*/, "", c)
		if (c + 0 > best) { best = c + 0; b = name }
	} END { if (b != "") print b, best }' "$2"
}

# drop_call FILE SETTING NAME: FILE's GUC lines with NAME taken out of the
# list of every line whose setting matches the regular expression SETTING
# (NAME alone or with its argument rule, NAME(...)).
drop_call() {
	awk -v v="$3" -v s="^($2) = " -F"'" '$0 ~ s {
		n = split($2, a, ","); out = ""
		for (i = 1; i <= n; i++) if (a[i] != v && index(a[i], v "(") != 1) out = out (out == "" ? "" : ",") a[i]
		print $1 "'\''" out "'\''"; next
	} { print }' "$1"
}

# added_needs GUCFILE: the names pgsc-report added to the global list
# because the records lacked them (the module's own needs,
# filter_needs[]: its "# added to the global list, not seen in the
# records: A,B (...)" line), one a line, sorted; nothing when none.
added_needs() {
	sed -n 's/^# added to the global list, not seen in the records: \([a-z0-9_,]*\) (.*/\1/p' "$1" |
		tr ',' '\n' | sed '/^$/d' | sort -u
}
