#!/bin/bash
# SPDX-License-Identifier: PostgreSQL
# run.sh - the files in examples/ are real configs: load or check each.
#   bash tests/examples/run.sh BINDIR EXAMPLESDIR
# shellcheck source=../lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
t_init examples
BIN=$1
EX=$2
T=$T_WORK

# pgsc.rules is what wrap mode loads
diff <(grep -v '^#' "$EX/pgsc.rules" | grep -v '^$') <("$BIN/pgsc-collect" --print-rules) >"$T/d" 2>&1
check "examples/pgsc.rules equals pgsc-collect --print-rules" $?

# the plugin conf: auditd passes at most 2 args; they must start the
# collector in plugin mode, which ends at the end of its input
conf="$EX/plugins.d/pgsc.conf"
args=$(sed -n 's/^args *= *//p' "$conf")
nargs=$(echo "$args" | wc -w)
fmt=$(awk -F' *= *' '$1 == "format" { print $2 }' "$conf")
path=$(awk -F' *= *' '$1 == "path" { print $2 }' "$conf")
[ "$nargs" -le 2 ] && [ "$fmt" = string ] && [ "$(basename "$path")" = pgsc-collect ]
check "plugins.d/pgsc.conf keys (args <= 2, format string)" $?
# shellcheck disable=SC2086
set -- ${args//\/var\/lib\/pgsc\/pgsc.db/$T/plugin.db}
"$BIN/pgsc-collect" "$@" </dev/null 2>"$T/plugin.err"
rc=$?
rounds=$(sqlite3 "$T/plugin.db" "SELECT count(*) FROM rounds WHERE mode = 'plugin' AND finished IS NOT NULL" 2>/dev/null)
# (an empty input: the round is finished, and it saw nothing in a store
# without records, which is exit 1 with a message)
[ $rc = 1 ] && [ "$rounds" = 1 ] && grep -q 'round 1 saw no SECCOMP record' "$T/plugin.err"
check "plugins.d/pgsc.conf args start a plugin collector that ends cleanly at EOF" $?

# the systemd unit's ExecStart is a valid pgsc-collect command line
exec_line=$(awk -F= '$1 == "ExecStart" { sub(/^ExecStart=/, ""); print }' "$EX/systemd/pgsc-collect.service")
case "$exec_line" in
*pgsc-collect\ --db\ *--source\ file:*) r=0 ;;
*) r=1 ;;
esac
grep -q '^Type=simple$' "$EX/systemd/pgsc-collect.service" && [ $r = 0 ]
check "systemd unit: Type=simple, ExecStart runs the file source" $?
# ... and finds pgsc-collect where a source install (/usr/local/bin) and
# the package (/usr/bin) put it, in a root of its own: systemd-analyze
# verify --root; with neither, it says so (the check can fail)
if command -v systemd-analyze >/dev/null; then
	for layout in usr/local/bin usr/bin none; do
		R="$T/root-${layout//\//-}"
		mkdir -p "$R/etc/systemd/system" "$R/usr/lib/systemd/system"
		cp /usr/lib/systemd/system/*.target "$R/usr/lib/systemd/system/" 2>/dev/null
		cp "$EX/systemd/pgsc-collect.service" "$R/etc/systemd/system/"
		# ExecStartPre= and ExecStopPost= run auditctl (auditd's package)
		mkdir -p "$R/usr/sbin"
		cp "$(command -v auditctl)" "$R/usr/sbin/"
		if [ $layout != none ]; then
			mkdir -p "$R/$layout"
			cp "$BIN/pgsc-collect" "$R/$layout/"
		fi
		timeout 60 systemd-analyze verify --man=no --root="$R" pgsc-collect.service >"$T/verify.out" 2>&1
		if [ $layout = none ]; then
			grep -q "Command pgsc-collect is not executable" "$T/verify.out"
		else
			! grep -q "pgsc-collect" "$T/verify.out"
		fi
		r=$?
		if [ $layout = none ]; then
			check "systemd unit: with no pgsc-collect installed, systemd-analyze verify says so" $r
		else
			check "systemd unit: pgsc-collect found in /$layout (systemd-analyze verify --root)" $r
		fi
	done
else
	check "systemd-analyze missing (tools/install-deps.sh: systemd)" 1
fi

# the postgresql.conf snippet carries lines pgsc-exec --allow-file reads
"$BIN/pgsc-exec" --default allow --allow-file "$EX/postgresql.conf.pgseccomp" --list global -- true &&
	"$BIN/pgsc-exec" --default allow --allow-file "$EX/postgresql.conf.pgseccomp" --list session -- true
check "postgresql.conf.pgseccomp is read by pgsc-exec --allow-file" $?

# auditd.conf snippet: every key is one auditd knows
bad=0
while IFS='=' read -r k _; do
	k=$(echo "$k" | tr -d ' ')
	[ -z "$k" ] && continue
	case "$k" in \#*) continue ;; esac
	grep -q "^$k " /etc/audit/auditd.conf 2>/dev/null || { echo "unknown auditd key $k"; bad=1; }
done <"$EX/auditd.conf.pgsc"
check "auditd.conf.pgsc keys are auditd.conf keys" $bad

bash -n "$EX/collect-round.sh"
check "collect-round.sh parses" $?

# the CI workflow: structure, run blocks (bash -n), step ids, the options
# it passes to tools/glibc-matrix (python3 standard library only)
python3 "$EX/../tests/matrix/check-workflow.py" "$EX/ci/glibc-matrix.yml" "$EX/../tools/glibc-matrix"
check "ci/glibc-matrix.yml is a well-formed workflow that runs tools/glibc-matrix" $?

t_done
