#!/bin/bash
# SPDX-License-Identifier: PostgreSQL
# run.sh - logs as users have them (issue 15, item 4): compressed files,
# standard input and pipes, directories of rotated logs, --since/--until,
# and input that is no audit log.  Every fixture is made here from the
# recorded golden logs (gzip, xz, zstd, split, time-shifted), and every
# expected result comes from importing the plain file: an independent path.
#   bash tests/inputs/run.sh BINDIR GOLDENDIR
# "A && ok || bad" is used as if-then-else: ok and bad always succeed.
# shellcheck disable=SC2015
set -uo pipefail
BIN=$1
DIR=$2
command -v sqlite3 >/dev/null || { echo "FAIL: sqlite3 CLI missing (tools/install-deps.sh)"; exit 1; }
for tool in gzip xz zstd; do
	command -v $tool >/dev/null || { echo "FAIL: $tool missing (tools/install-deps.sh)"; exit 1; }
done
T=$(mktemp -d /tmp/pgsc-inputs.XXXXXX)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0

ok() { pass=$((pass + 1)); echo "ok: $*"; }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
collect() { "$BIN/pgsc-collect" "$@"; }
# the lists with every count by role; not which round saw a call first
lists() { "$BIN/pgsc-report" --db "$1" --format=json 2>/dev/null | sed -e '/^  "rounds": /d' -e 's/, "first_round": [0-9]*//'; }
records() { sqlite3 "$1" "SELECT coalesce(sum(records), 0) FROM rounds"; }
nrounds() { sqlite3 "$1" "SELECT count(*) FROM rounds"; }
# the store as a whole, to prove that an import changed nothing
dump() { sqlite3 "$1" "SELECT * FROM rounds; SELECT * FROM aggregates ORDER BY 1,2,3,4; SELECT fingerprint, offset, lines, prefix_hash FROM sources ORDER BY 1" | sed 's/|[0-9.]*$//'; }
same_lists() { # NAME STORE REFSTORE
	if diff -u <(lists "$3") <(lists "$2") >"$T/diff"; then ok "$1"; else bad "$1: other lists"; head -20 "$T/diff"; fi
}
# shift LOG SECONDS SERIALS: the log moved in time and serial (biglog.sh)
shift_log() {
	awk -v dt="$2" -v dr="$3" '{
		if (match($0, /msg=audit\([0-9]+\.[0-9]+:[0-9]+\)/)) {
			h = substr($0, RSTART + 10, RLENGTH - 11)
			split(h, a, /[.:]/)
			$0 = substr($0, 1, RSTART - 1) "msg=audit(" (a[1] + dt) "." a[2] ":" (a[3] + dr) ")" substr($0, RSTART + RLENGTH)
		}
		print
	}' "$1"
}

for name in raw enriched; do
	w="$T/$name"
	mkdir -p "$w"
	zcat "$DIR/$name.log.gz" >"$w/audit.log"
	# the reference: the plain file
	collect --db "$w/ref.db" --import "$w/audit.log" 2>/dev/null ||
		{ bad "$name: the plain import fails"; continue; }
	want=$(records "$w/ref.db")
	[ "$want" -gt 0 ] || { bad "$name: no records in the reference"; continue; }

	# 1. each compressed form, by name, and under a name that lies
	gzip -c "$w/audit.log" >"$w/audit.log.gz"
	xz -c "$w/audit.log" >"$w/audit.log.xz"
	zstd -q -c "$w/audit.log" >"$w/audit.log.zst"
	# several gzip members and xz streams in a row, as "cat a.gz b.gz"
	head -n 1000 "$w/audit.log" | gzip -c >"$w/multi.gz"
	tail -n +1001 "$w/audit.log" | gzip -c >>"$w/multi.gz"
	head -n 1000 "$w/audit.log" | xz -c >"$w/multi.xz"
	tail -n +1001 "$w/audit.log" | xz -c >>"$w/multi.xz"
	cp "$w/audit.log.xz" "$w/plain-looking.log"
	for f in audit.log.gz audit.log.xz audit.log.zst multi.gz multi.xz plain-looking.log; do
		db="$w/$f.db"
		collect --db "$db" --import "$w/$f" 2>"$w/$f.err"
		rc=$?
		[ $rc = 0 ] || { bad "$name/$f: exit $rc"; cat "$w/$f.err"; continue; }
		[ "$(records "$db")" = "$want" ] || { bad "$name/$f: $(records "$db") records, want $want"; continue; }
		same_lists "$name/$f: the same lists as the plain file" "$db" "$w/ref.db"
		# the compressed copy of a file already imported adds nothing
		collect --db "$w/ref.db" --import "$w/$f" 2>"$w/$f.again"
		rc=$?
		if [ $rc = 0 ] && grep -q "nothing new to import" "$w/$f.again"; then
			ok "$name/$f: known as the plain file already imported"
		else
			bad "$name/$f: a copy of an imported file was imported again"; cat "$w/$f.again"
		fi
	done

	# 2. standard input and pipes, plain and compressed
	for how in zcat-stdin zst-stdin procsubst; do
		db="$w/$how.db"
		case $how in
		zcat-stdin) zcat "$w/audit.log.gz" | collect --db "$db" --import - 2>"$w/$how.err" ;;
		zst-stdin) collect --db "$db" --import - <"$w/audit.log.zst" 2>"$w/$how.err" ;;
		procsubst) collect --db "$db" --import <(xz -dc "$w/audit.log.xz") 2>"$w/$how.err" ;;
		esac
		rc=$?
		[ $rc = 0 ] && [ "$(records "$db")" = "$want" ] ||
			{ bad "$name/$how: exit $rc, $(records "$db") records, want $want"; cat "$w/$how.err"; continue; }
		same_lists "$name/$how: the same lists as the plain file" "$db" "$w/ref.db"
	done
	before=$(dump "$w/zcat-stdin.db")
	zcat "$w/audit.log.gz" | collect --db "$w/zcat-stdin.db" --import - 2>"$w/stdin2.err"
	rc=$?
	if [ $rc = 0 ] && [ "$(dump "$w/zcat-stdin.db")" = "$before" ] && grep -q "nothing new" "$w/stdin2.err"; then
		ok "$name: the same standard input twice counts once"
	else
		bad "$name: the same standard input twice changed the store"; cat "$w/stdin2.err"
	fi

	# 3. a directory: a rotated set, mixed compression, other files
	d="$w/dir"
	mkdir -p "$d/sub"
	total=$(wc -l <"$w/audit.log")
	q=$(( (total + 3) / 4 ))
	split -l "$q" -d -a 1 "$w/audit.log" "$w/part."
	xz -c "$w/part.0" >"$d/audit.log.3.xz"
	gzip -c "$w/part.1" >"$d/audit.log.2.gz"
	cp "$w/part.2" "$d/audit.log.1"
	cp "$w/part.3" "$d/audit.log"
	echo "notes" >"$d/README"
	collect --db "$w/dir.db" --import "$d" 2>"$w/dir.err"
	rc=$?
	if [ $rc = 0 ] && [ "$(records "$w/dir.db")" = "$want" ] &&
		grep -q "$d/README: skipped" "$w/dir.err" && grep -q "$d/sub: skipped" "$w/dir.err"; then
		ok "$name: a directory is its rotated set; other entries skipped with a message"
	else
		bad "$name: directory: exit $rc, $(records "$w/dir.db") records, want $want"; cat "$w/dir.err"
	fi
	same_lists "$name: the directory gives the lists of the whole file" "$w/dir.db" "$w/ref.db"
	before=$(dump "$w/dir.db")
	collect --db "$w/dir.db" --import "$d" "$d/" 2>"$w/dir2.err"
	rc=$?
	if [ $rc = 0 ] && [ "$(dump "$w/dir.db")" = "$before" ]; then
		ok "$name: the same directory again (twice on one line) changes nothing"
	else
		bad "$name: the same directory again changed the store"; cat "$w/dir2.err"
	fi

	# 4. rotation between two imports: the live file was read half-way,
	#    then it grew, was rotated and compressed, and a new one began
	r="$w/rot"
	mkdir -p "$r"
	half=$(( $(wc -l <"$w/part.2") / 2 ))
	cp "$w/part.0" "$r/audit.log.1"
	cat "$w/part.1" >"$r/audit.log"
	head -n "$half" "$w/part.2" >>"$r/audit.log"
	collect --db "$w/rot.db" --import "$r" 2>"$w/rot1.err" || { bad "$name: rotation: first import"; cat "$w/rot1.err"; }
	tail -n +"$((half + 1))" "$w/part.2" >>"$r/audit.log"
	gzip -c "$r/audit.log.1" >"$r/audit.log.2.gz" && rm "$r/audit.log.1"
	xz -c "$r/audit.log" >"$r/audit.log.1.xz"
	cp "$w/part.3" "$r/audit.log"
	collect --db "$w/rot.db" --import "$r" 2>"$w/rot2.err"
	rc=$?
	got=$(records "$w/rot.db")
	if [ $rc = 0 ] && [ "$got" = "$want" ] && [ "$(nrounds "$w/rot.db")" = 2 ] &&
		! grep -q "content differs" "$w/rot2.err"; then
		ok "$name: rotation and compression between imports: every record once ($got)"
	else
		bad "$name: rotation between imports: exit $rc, $got records in $(nrounds "$w/rot.db") rounds, want $want in 2"; cat "$w/rot2.err"
	fi
	# the independent path: the same bytes as one plain file that grew
	# between the two imports (roles are settled per round, so a split
	# import is compared with the same split, not with one import)
	head -n "$((2 * q + half))" "$w/audit.log" >"$w/grow.log"
	collect --db "$w/grow.db" --import "$w/grow.log" 2>/dev/null
	cp "$w/audit.log" "$w/grow.log"
	collect --db "$w/grow.db" --import "$w/grow.log" 2>/dev/null
	same_lists "$name: rotation and compression between imports = the file grown in place" "$w/rot.db" "$w/grow.db"
	before=$(dump "$w/rot.db")
	collect --db "$w/rot.db" --import "$r" 2>/dev/null
	[ "$(dump "$w/rot.db")" = "$before" ] && ok "$name: the rotated directory again changes nothing" ||
		bad "$name: the rotated directory again changed the store"

	# 5. --since / --until: two copies of the log 1000 s apart
	read -r smin < <(grep -o 'msg=audit([0-9]*' "$w/audit.log" | cut -d'(' -f2 | sort -n | head -1)
	shift_log "$w/audit.log" $((1800000000 - smin)) 0 >"$w/A.log"
	shift_log "$w/audit.log" $((1800001000 - smin)) 10000000 >"$w/B.log"
	cat "$w/A.log" "$w/B.log" >"$w/AB.log"
	collect --db "$w/A.db" --import "$w/A.log" 2>/dev/null
	collect --db "$w/AB.db" --import "$w/AB.log" 2>/dev/null
	wantA=$(records "$w/A.db")
	wantAB=$(records "$w/AB.db")
	iso=$(date -u -d @1800000500 +%Y-%m-%dT%H:%M:%SZ)
	for u in 1800000500 @1800000500 "$iso"; do
		db="$w/until-${u//[^0-9]/}.db"
		collect --db "$db" --until "$u" --import "$w/AB.log" 2>"$w/until.err"
		rc=$?
		if [ $rc = 0 ] && [ "$(records "$db")" = "$wantA" ]; then
			ok "$name: --until $u counts the first copy only"
		else
			bad "$name: --until $u: exit $rc, $(records "$db") records, want $wantA"; cat "$w/until.err"
		fi
	done
	same_lists "$name: --until gives the lists of the first copy alone" "$w/until-1800000500.db" "$w/A.db"
	# reading stopped at --until: the rest comes with the next import
	collect --db "$w/until-1800000500.db" --import "$w/AB.log" 2>/dev/null
	got=$(records "$w/until-1800000500.db")
	[ "$got" = "$wantAB" ] && ok "$name: the import after --until counts the rest once ($got)" ||
		bad "$name: after --until: $got records, want $wantAB"
	# a compressed log and standard input cut the same way
	gzip -c "$w/AB.log" | collect --db "$w/until-gz.db" --until 1800000500 --import - 2>/dev/null
	[ "$(records "$w/until-gz.db")" = "$wantA" ] && ok "$name: --until on a gzip stream" ||
		bad "$name: --until on a gzip stream: $(records "$w/until-gz.db"), want $wantA"
	collect --db "$w/since.db" --since 1800000500 --import "$w/AB.log" 2>"$w/since.err"
	got=$(records "$w/since.db")
	if [ "$got" = $((wantAB - wantA)) ] &&
		grep -q "^pgsc-collect: $wantA SECCOMP records outside --since/--until skipped" "$w/since.err"; then
		ok "$name: --since counts the second copy only, the rest skipped ($wantA), not rejected"
	else
		bad "$name: --since: $got records, want $((wantAB - wantA))"; cat "$w/since.err"
	fi
	[ "$(sqlite3 "$w/since.db" "SELECT rejected FROM rounds")" = "$(sqlite3 "$w/AB.db" "SELECT rejected FROM rounds")" ] &&
		ok "$name: records outside the window are not counted as rejected" ||
		bad "$name: records outside the window counted as rejected"
done

# 6. input that is no audit log: refused by name, the others imported
w="$T/bad"
mkdir -p "$w/d"
zcat "$DIR/raw.log.gz" >"$w/good.log"
collect --db "$w/good.db" --import "$w/good.log" 2>/dev/null
good=$(records "$w/good.db")
cp "$w/good.log" "$w/d/audit.log"
cp "$(type -P true)" "$w/d/audit.log.1"
printf 'This is not\nan audit log\n' >"$w/d/audit.log.2"
# a damaged older log: another log (its own first line), cut short
zcat "$DIR/enriched.log.gz" | head -c 300000 | gzip -c >"$w/trunc.gz"
head -c "$(($(stat -c %s "$w/trunc.gz") / 2))" "$w/trunc.gz" >"$w/d/audit.log.3.gz"
printf 'BZh91AY&SY' >"$w/d/audit.log.4.bz2"
{ printf '\037\213\010\000'; head -c 100 /dev/urandom; } >"$w/d/audit.log.5.gz"
collect --db "$w/d.db" --import "$w/d" 2>"$w/d.err"
rc=$?
got=$(records "$w/d.db")
if [ $rc = 1 ] && [ "$got" -ge "$good" ] &&
	grep -q "$w/d/audit.log.1: not an audit log (an ELF binary)" "$w/d.err" &&
	grep -q "$w/d/audit.log.2:1: not an audit log (text" "$w/d.err" &&
	grep -q "$w/d/audit.log.3.gz: damaged gzip data (truncated)" "$w/d.err" &&
	grep -q "$w/d/audit.log.5.gz: damaged gzip data" "$w/d.err" &&
	grep -q "4 inputs not imported" "$w/d.err"; then
	ok "bad: a directory with bad files: each named, the good records kept ($got >= $good), exit 1"
else
	bad "bad: directory with bad files: exit $rc, $got records (>= $good)"; cat "$w/d.err"
fi
grep -q "audit.log.4.bz2: skipped (not named" "$w/d.err" && ok "bad: a .bz2 in a directory is skipped by name" ||
	{ bad "bad: .bz2 in a directory"; cat "$w/d.err"; }
# the damaged file's records before the damage count, once: as many as
# gzip(1) itself gets out of it, imported as a plain file
zcat "$w/d/audit.log.3.gz" >"$w/prefix.log" 2>/dev/null
collect --db "$w/prefix.db" --import "$w/prefix.log" 2>/dev/null
prefix=$(records "$w/prefix.db")
[ "$prefix" -gt 0 ] && [ "$got" = $((good + prefix)) ] &&
	ok "bad: the records before the damage are counted, once ($prefix)" ||
	bad "bad: $got records, want $good + $prefix before the damage"
before=$(dump "$w/d.db")
collect --db "$w/d.db" --import "$w/d" 2>"$w/d2.err"
rc=$?
[ $rc = 1 ] && [ "$(dump "$w/d.db")" = "$before" ] && ok "bad: the same directory again: exit 1 again, nothing counted twice" ||
	{ bad "bad: the same directory again: exit $rc"; cat "$w/d2.err"; }
for case in binary text empty-dir bz2 missing tty-like; do
	db="$w/$case.db"
	rm -f "$db"*
	case $case in
	binary) collect --db "$db" --import "$(type -P true)" 2>"$w/$case.err" ;;
	text) collect --db "$db" --import /etc/hostname "$w/d/audit.log.2" 2>"$w/$case.err" ;;
	empty-dir) mkdir -p "$w/empty"; collect --db "$db" --import "$w/empty" 2>"$w/$case.err" ;;
	bz2) bzip2 -c "$w/good.log" >"$w/good.log.bz2" 2>/dev/null || printf 'BZh91AY&SY' >"$w/good.log.bz2"
	     collect --db "$db" --import "$w/good.log.bz2" 2>"$w/$case.err" ;;
	missing) collect --db "$db" --import "$w/nonexistent" 2>"$w/$case.err" ;;
	tty-like) collect --db "$db" --import /dev/zero 2>"$w/$case.err" ;;
	esac
	rc=$?
	if [ $rc = 1 ] && [ "$(nrounds "$db" 2>/dev/null || echo 0)" = 0 ] && grep -q "no round created" "$w/$case.err"; then
		ok "bad: $case: refused, exit 1, no round: $(head -1 "$w/$case.err")"
	else
		bad "bad: $case: exit $rc"; cat "$w/$case.err"
	fi
done
# a good file next to a missing one is still imported
collect --db "$w/mixed.db" --import "$w/nonexistent" "$w/good.log" 2>/dev/null
rc=$?
[ $rc = 1 ] && [ "$(records "$w/mixed.db")" = "$good" ] && ok "bad: a missing file does not cost its neighbour" ||
	bad "bad: missing + good: exit $rc, $(records "$w/mixed.db") records"
# usage errors: exit 2
for args in "--since nonsense" "--until 2026-02-30" "--since 1800000500 --until 1800000400" "--since 2026-13-01"; do
	# shellcheck disable=SC2086
	collect --db "$w/usage.db" $args --import "$w/good.log" 2>/dev/null
	rc=$?
	[ $rc = 2 ] && ok "usage: $args: exit 2" || bad "usage: $args: exit $rc"
done
# a FIFO with no writer: no hang, refused with exit 2 and a message that
# says nothing was read (issue 24; tests/usage/unusable.sh has more)
mkfifo "$w/fifo"
timeout 20 "$BIN/pgsc-collect" --db "$w/fifo.db" --import "$w/fifo" 2>"$w/fifo.err"
rc=$?
[ $rc = 2 ] && grep -q 'a FIFO with no writer (or one that wrote nothing): nothing was read; refused' "$w/fifo.err" &&
	ok "a FIFO without a writer: no hang, refused (2)" || { bad "FIFO: exit $rc"; cat "$w/fifo.err"; }

echo "inputs: $pass passed, $fail failed"
[ $fail = 0 ]
