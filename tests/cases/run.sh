#!/bin/bash
# SPDX-License-Identifier: PostgreSQL
# run.sh - the one runner of the CLI expectation tests: every NNN-*.case
# file of a case directory, in name order, each a list of steps (a
# command line, its standard input, the expected exit status, standard
# output and standard error).  docs/testing.md, "Case files", has the
# format.
#   bash tests/cases/run.sh BINDIR CASEDIR
# CASEDIR/setup.sh, if there, makes the inputs the cases need in the work
# directory first (logs cut or generated, FIFOs): it asserts nothing.
set -uo pipefail
[ $# = 2 ] || { echo "usage: run.sh BINDIR CASEDIR" >&2; exit 2; }
BIN=$(cd "$1" && pwd) || exit 2
D=$(cd "$2" && pwd) || exit 2
TESTS=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source-path=SCRIPTDIR source=../lib/common.sh
. "$TESTS/lib/common.sh"
t_init "cases-$(basename "$D")"
W=$T_WORK
export BIN D TESTS W
export PATH="$BIN:$PATH"
pass=0 nfail=0 nassert=0

# subst TEXT: $SUB, TEXT with @W@, @D@, @TESTS@, @BIN@ replaced by their
# paths (commands)
subst() {
	SUB=${1//@W@/$W}
	SUB=${SUB//@D@/$D}
	SUB=${SUB//@TESTS@/$TESTS}
	SUB=${SUB//@BIN@/$BIN}
}

# normalize FILE: the paths replaced by @W@, @D@, @TESTS@, @BIN@ (outputs)
NORM=()
for p in "$D=@D@" "$BIN=@BIN@" "$TESTS=@TESTS@" "$W=@W@"; do
	e=$(printf '%s' "${p%=*}" | sed 's/[][\\.*^$|]/\\&/g')
	NORM+=(-e "s|$e|${p##*=}|g")
done
normalize() {
	LC_ALL=C sed -i "${NORM[@]}" "$@"
}

# expand FILE: the case's lines, each "use NAME" followed by its "with VAR
# VALUE" lines replaced by the steps of NAME.steps with @VAR@ = VALUE
expand() {
	local line tmpl='' k v
	local -a withs=()
	flush() {
		[ -n "$tmpl" ] || return 0
		[ -f "$D/$tmpl.steps" ] || { echo "=== use"; echo "cmd false no template $tmpl"; tmpl=; return; }
		local t started=''
		while IFS= read -r t || [ -n "$t" ]; do
			# the template's head comment is not part of a step
			case $t in "=== "*) started=1 ;; '#'*|'') [ -n "$started" ] || continue ;; esac
			for kv in "${withs[@]}"; do
				t=${t//@${kv%%=*}@/${kv#*=}}
			done
			printf '%s\n' "$t"
		done <"$D/$tmpl.steps"
		tmpl=
		withs=()
	}
	while IFS= read -r line || [ -n "$line" ]; do
		case $line in
		"use "*) flush; tmpl=${line#use } ;;
		"with "*)
			k=${line#with }; v=${k#* }; k=${k%% *}
			withs+=("$k=$v") ;;
		*) flush; printf '%s\n' "$line" ;;
		esac
	done <"$1"
	flush
}

# step_file STEP: $SF, the path its files start with (outputs, expected)
step_file() {
	SF=$C/${1//[^A-Za-z0-9_.-]/_}
}

# bad MSG: one failed assertion of the current step
bad() {
	why+=("$*")
}

# check WHERE KEY VALUE: one output assertion of the step (WHERE out or err)
check() {
	local where=$1 key=$2 val=$3 f=$S.$1 l
	nassert=$((nassert + 1))
	case $key in
	has) grep -qE -- "$val" "$f" || bad "no \"$val\" in its std$where" ;;
	contains) grep -qF -- "$val" "$f" || bad "no \"$val\" (fixed) in its std$where" ;;
	lacks) ! grep -qE -- "$val" "$f" || bad "\"$val\" in its std$where" ;;
	empty) [ ! -s "$f" ] || bad "std$where not empty" ;;
	no-ctl)
		! LC_ALL=C grep -qP '[\x00-\x09\x0b-\x1f\x7f]' "$f" ||
			bad "raw control bytes in its std$where" ;;
	each)
		l=$(grep -v '^#' "$f" | grep -vE -- "$val" | head -1)
		[ -z "$l" ] || bad "std$where line \"$l\" does not match \"$val\"" ;;
	json)
		python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
assert eval(sys.argv[2]), d' "$f" "$val" >/dev/null 2>&1 || bad "std$where JSON: not $val" ;;
	same-as)
		step_file "$val"
		cmp -s "$SF.$where" "$f" || bad "std$where differs from step $val's" ;;
	*) bad "unknown key std$where-$key" ;;
	esac
}

# run_step: run the parsed step (the globals below), record its result
run_step() {
	local rc=0 c in out
	[ -n "$step" ] || return 0
	why=()
	step_file "$step"
	S=$SF
	if [ ${#cmd} = 0 ]; then
		bad "no cmd"
	else
		for p in "${pre[@]}"; do
			subst "$p"
			(cd "$cwd" && eval "$SUB") >>"$S.pre" 2>&1 || bad "pre failed: $p: $(head -c 300 "$S.pre")"
		done
		subst "$cmd"; c=$SUB
		[ -n "$tmo" ] && c="timeout $tmo $c"
		subst "$stdin"; in=$SUB
		out=$S.out
		[ -n "$stdout_to" ] && subst "$stdout_to" && out=$SUB
		if [ -n "$fifo" ]; then
			# a writer is there first: this shell holds the FIFO
			# open for reading and writing until the data is in
			subst "$fifo"
			exec 7<>"${SUB%% *}"
			cat "${SUB#* }" >&7 &
			wpid=$!
			(cd "$cwd" && eval "exec $c" <"$in" >"$out" 2>"$S.err" 7>&-) &
			rpid=$!
			wait "$wpid"; exec 7>&-
			wait "$rpid" || rc=$?
		elif [ -n "$signal" ]; then
			(cd "$cwd" && eval "exec $c" <"$in" >"$out" 2>"$S.err") &
			rpid=$!
			BGPID=$rpid
			# no time limit: ctest's timeout
			subst "$until"
			until (cd "$cwd" && eval "$SUB") >/dev/null 2>&1; do
				kill -0 "$rpid" 2>/dev/null || break
				sleep 0.1
			done
			kill "-$signal" "$rpid" 2>/dev/null
			wait "$rpid" || rc=$?
			BGPID=
		else
			(cd "$cwd" && eval "exec $c" <"$in" >"$out" 2>"$S.err") || rc=$?
		fi
		[ -n "$stdout_to" ] && : >"$S.out"
		normalize "$S.out" "$S.err"
		echo "$rc" >"$S.rc"
		nassert=$((nassert + 1))
		if [ -n "$tmo" ] && [ "$rc" = 124 ] && [ "$want" != 124 ]; then
			bad "hangs (timeout $tmo s)"
		elif [ "$rc" != "$want" ]; then
			bad "exit $rc, want $want ($(head -c 400 "$S.err"))"
		fi
		for i in "${!a_key[@]}"; do
			check "${a_where[i]}" "${a_key[i]}" "${a_val[i]}"
		done
		schema_note "$c" "$rc"
		for where in out err; do
			[ -f "$S.want-$where" ] || continue
			nassert=$((nassert + 1))
			diff -u "$S.want-$where" "$S.$where" >"$S.diff-$where" ||
				bad "std$where differs from the case: $(head -40 "$S.diff-$where")"
		done
	fi
	if [ ${#why[@]} = 0 ]; then
		pass=$((pass + 1)); echo "ok: $name/$step"
	else
		nfail=$((nfail + 1)); echo "FAIL: $name/$step:"; printf '  %s\n' "${why[@]}"
	fi
	step=
}

# schema_note CMD RC: the step's standard output on the list the schema
# check reads at the end (tests/lib/schema-check.py, one python for the
# suite): a JSON format of pgsc-report, pgsc-diff or pgsc-scan that exits 0
# or 1 with output must be a pgsc document valid against its schema in
# schemas/; any other output is checked when it is one
SCHEMA_LIST=$W/schema.list
: >"$SCHEMA_LIST"
schema_note() {
	local mode=any re='(pgsc-report|pgsc-diff|pgsc-scan)[^|;>]*(--format[= ]json|-f json)'
	if [[ $1 =~ $re ]] && { [ "$2" = 0 ] || [ "$2" = 1 ]; } && [ -s "$S.out" ]; then
		mode=doc
	fi
	printf '%s\t%s\t%s\n' "$mode" "$name/$step" "$S.out" >>"$SCHEMA_LIST"
}

# new_step NAME: the defaults of a step
new_step() {
	run_step
	step=$1 cmd='' stdin=/dev/null stdout_to='' tmo='' want=0 fifo='' signal='' until='' cwd=$D
	pre=() a_where=() a_key=() a_val=()
	step_file "$1"
	rm -f "$SF".*
	section=
}

# run_case FILE: parse FILE step by step, running each when it ends
run_case() {
	local line key val section='' step='' blanks=0 sfile=''
	name=$(basename "$1" .case)
	C=$W/cases/$name
	mkdir -p "$C"
	while IFS= read -r line || [ -n "$line" ]; do
		case $line in
		"=== "*) new_step "${line#=== }"; continue ;;
		"--- stdout"|"--- stderr")
			[ -n "$step" ] || new_step main
			section=${line#--- std} blanks=0
			step_file "$step"
			sfile=$SF.want-$section
			: >"$sfile"
			continue ;;
		esac
		if [ -n "$section" ]; then
			# empty lines end up in the section only before text
			if [ -z "$line" ]; then
				blanks=$((blanks + 1))
			else
				for ((; blanks > 0; blanks--)); do echo; done >>"$sfile"
				printf '%s\n' "$line" >>"$sfile"
			fi
			continue
		fi
		case $line in ''|'#'*) continue ;; esac
		[ -n "$step" ] || new_step main
		key=${line%% *}
		val=${line#"$key"}; val=${val# }
		case $key in
		cmd) cmd=$val ;;
		pre) pre+=("$val") ;;
		stdin) stdin=$val ;;
		stdout-to) stdout_to=$val ;;
		cwd) subst "$val"; cwd=$SUB ;;
		timeout) tmo=$val ;;
		exit) want=$val ;;
		fifo-writer) fifo=$val ;;
		signal) signal=$val ;;
		until) until=$val ;;
		stdout-*|stderr-*)
			a_where+=("${key:3:3}"); a_key+=("${key#std???-}"); a_val+=("$val") ;;
		*) a_where+=(out); a_key+=("$key"); a_val+=("$val") ;;
		esac
	done < <(expand "$1")
	run_step
}

# kill_bg: at exit, the command of a step run in the background, if any
BGPID=
kill_bg() {
	[ -z "$BGPID" ] || kill -KILL "$BGPID" 2>/dev/null
}
t_cleanup kill_bg

if [ -f "$D/setup.sh" ]; then
	(cd "$W" && bash -e "$D/setup.sh") >"$W/setup.log" 2>&1 ||
		{ cat "$W/setup.log"; fail "$D/setup.sh"; }
fi
n=0
for f in "$D"/*.case; do
	[ -f "$f" ] || continue
	n=$((n + 1))
	run_case "$f"
done
[ $n -gt 0 ] || fail "no cases in $D"
# every JSON document the steps printed, against its schema; fails, never
# skips, without python3-jsonschema
python3 "$TESTS/lib/schema-check.py" "$TESTS/../schemas" --list "$SCHEMA_LIST" >"$W/schema.out" 2>&1
src=$?
cat "$W/schema.out"
if [ $src != 0 ]; then
	nfail=$((nfail + $(grep -c '^FAIL: schema' "$W/schema.out") ))
	[ $src = 1 ] || nfail=$((nfail + 1))
fi
echo "$(basename "$D"): $pass steps passed, $nfail failed ($n cases, $nassert assertions)"
[ $nfail = 0 ]
