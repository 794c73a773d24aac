#!/bin/bash
# SPDX-License-Identifier: PostgreSQL
# run.sh - the one GUC-file reader (src/gucfile.c) against PostgreSQL 15:
# a cluster made by initdb (as postgres, in a private directory), its
# postgresql.conf plus pgsc's lines from a real report plus quoting edge
# cases.  Every setting the reader reads must have the value that
# "postgres -C NAME -D DIR" prints (byte for byte for our own and the
# edge-case settings; initdb's string and enum settings modulo case, as
# the server canonicalises some, e.g. DateStyle), and every line the server
# refuses must be an error of the reader.  pgsc-report --check-guc must
# accept the file, and refuse /dev/zero and a file over the size cap
# without reading it.
#   bash tests/gucfile/run.sh GUCDUMP BINDIR GOLDENDIR
# shellcheck source=../lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
t_init gucfile
DUMP=$1
BIN=$2
GOLDEN=$3
PGBIN=/usr/lib/postgresql/15/bin
# shellcheck source=../lib/pg.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/pg.sh"
need_root "the cluster runs as postgres"
need_exec "$PGBIN/postgres"
id postgres >/dev/null 2>&1 || fail "no user postgres"
T=$T_WORK
chmod 755 "$T"
install -d -o postgres -m 700 "$T/pg"
as_pg() { runuser -u postgres -- "$@"; }

pg_initdb "$T/pg/data" "$T/initdb.log" --no-sync -E UTF8 --locale=C ||
	fail "initdb: $(tail -5 "$T/initdb.log")"
CONF=$T/pg/data/postgresql.conf
cp "$CONF" "$T/initdb.conf"

# 1. initdb's file as it is: no error, no warning from the reader
"$DUMP" "$CONF" >"$T/initdb.dump" || bad "gucdump failed on initdb's postgresql.conf"
grep '^E' "$T/initdb.dump" && bad "the reader refuses lines of initdb's postgresql.conf"
# the settings initdb left active, by a plain grep: the reader finds the same names
grep -E '^[a-z_]+ = ' "$CONF" | sed 's/ = .*//' | sort -u >"$T/grep.names"
awk '$1 == "S" { print $3 }' "$T/initdb.dump" | sort -u >"$T/dump.names"
diff -u "$T/grep.names" "$T/dump.names" >"$T/names.diff" || bad "setting names: grep and the reader differ: $(cat "$T/names.diff")"
[ "$(wc -l <"$T/dump.names")" -ge 10 ] || bad "only $(wc -l <"$T/dump.names") settings read from initdb's file"

# 2. pgsc's lines, from a real report, and the edge cases
zcat "$GOLDEN/raw.log.gz" >"$T/raw.log"
"$BIN/pgsc-collect" -q --db "$T/raw.db" --import "$T/raw.log" || bad "import of raw.log failed"
"$BIN/pgsc-report" --db "$T/raw.db" --guc-prefix pgsc. >"$T/report.conf" || bad "pgsc-report failed"
grep -q "^pgsc.session_syscall_allow = '[a-z]" "$T/report.conf" || bad "no session list in the report"
{
	cat "$T/report.conf"
	cat <<'CONF'
# quoting edge cases (guc-file.l)
pgsc_t.quote = 'it''s'
pgsc_t.backslash = 'a\\b'
pgsc_t.bsquote = 'a\'b'
pgsc_t.noeq 'no equals sign'
pgsc_t.word = word # a comment after an unquoted value
pgsc_t.quoted = 'quoted' # a comment after a quoted value
pgsc_t.hash = 'a#b'	# a tab, then a comment
pgsc_t.nospace = 'x'#comment
pgsc_t.tab = 'tab\there'
pgsc_t.escapes = '\b\f\n\r\t|'
pgsc_t.octal = '\101\102\7\0101'
pgsc_t.bigoctal = '\777'
pgsc_t.unit = 12MB
pgsc_t.real = 1.5e3
pgsc_t.realdot = .5
pgsc_t.neg = -5
PGSC_T.UPPER = 'Upper'
pgsc_t.tight='tight'
pgsc_t.trailing = 'trailing'   
pgsc_t.dup = 'first'
pgsc_t.dup = 'second'
pgsc_t.hex = 0x1Fk
pgsc_t.path = path/to:x-y.z
pgsc_t.unknownesc = '\q\z'
pgsc_t.empty = ''
pgsc_t.list = 'read,write, exit_group'
pgsc_t.utf8 = 'héllo wörld'
  	pgsc_t.indented = 'indented'
pgsc_t.doubledthenmore = 'a''''b'
pgsc_t.word2 = on
CONF
	printf "pgsc_t.crlf = 'crlf'\r\n"
	printf "pgsc_t.noeol = 'last line without a newline'"
} >>"$CONF"
"$DUMP" "$CONF" >"$T/all.dump" || bad "gucdump failed"
grep '^E' "$T/all.dump" && bad "the reader refuses lines postgres accepts"
# the last value of each name, as the server keeps it
awk '$1 == "S" { v[$3] = $4 } END { for (n in v) print n, v[n] }' "$T/all.dump" | sort >"$T/want"
awk '$1 == "S" && $3 ~ /^(pgsc|pgsc_t)\./ { n++ } END { exit n < 30 }' "$T/all.dump" ||
	bad "fewer than 30 pgsc./pgsc_t. settings read"
# what initdb's settings are: string and enum values are compared
as_pg "$PGBIN/postgres" --describe-config >"$T/describe" 2>/dev/null ||
	bad "postgres --describe-config failed"
checked=0
while read -r name hex; do
	got=$(cd "$T" && as_pg "$PGBIN/postgres" -C "$name" -D "$T/pg/data" 2>"$T/c.err" | od -An -tx1 -v | tr -d ' \n')
	[ -s "$T/c.err" ] && { bad "postgres -C $name: $(head -c 300 "$T/c.err")"; continue; }
	got=${got%0a}   # the newline -C prints
	case $name in
	pgsc.*|pgsc_t.*)
		[ "$got" = "$hex" ] || bad "$name: the reader reads $(echo "$hex" | xxd -r -p | od -c | head -2 | tr -s ' ') but postgres -C prints $(echo "$got" | xxd -r -p | od -c | head -2 | tr -s ' ')" ;;
	*)
		type=$(awk -F'\t' -v n="$name" 'tolower($1) == n { print tolower($4) }' "$T/describe")
		case $type in
		string|enum)
			a=$(echo "$hex" | xxd -r -p | tr '[:upper:]' '[:lower:]')
			b=$(echo "$got" | xxd -r -p | tr '[:upper:]' '[:lower:]')
			[ "$a" = "$b" ] || bad "$name ($type): the reader reads '$a', postgres -C prints '$b'" ;;
		*) continue ;;
		esac ;;
	esac
	checked=$((checked + 1))
done <"$T/want"
[ $checked -ge 35 ] || bad "only $checked values compared with postgres -C"
echo "gucfile: $checked values agree with postgres -C"

# 3. pgsc-report --check-guc accepts the whole file (initdb's + pgsc's)
"$BIN/pgsc-report" --check-guc "$T/initdb.conf" >/dev/null 2>&1
cat "$T/initdb.conf" "$T/report.conf" >"$T/check.conf"
"$BIN/pgsc-report" --check-guc "$T/check.conf" >"$T/check.out" 2>&1 ||
	bad "--check-guc refuses initdb's postgresql.conf plus pgsc's lines: $(head -5 "$T/check.out")"
grep -q ': 0 errors, 0 warnings' "$T/check.out" || bad "--check-guc: $(tail -3 "$T/check.out")"

# 4. lines the server refuses are errors of the reader, one at a time
while IFS= read -r line; do
	cp "$T/initdb.conf" "$CONF"
	printf '%s\n' "$line" >>"$CONF"
	n=$(wc -l <"$CONF")
	rc=0
	(cd "$T" && as_pg "$PGBIN/postgres" -C max_connections -D "$T/pg/data") >/dev/null 2>&1 || rc=$?
	[ $rc != 0 ] || { bad "test invalid: postgres accepts: $line"; continue; }
	"$DUMP" "$CONF" >"$T/bad.dump"
	grep -q "^E $n " "$T/bad.dump" || bad "the server refuses but the reader accepts line $n: $line"
done <<'BAD'
pgsc_t.x = 'unterminated
pgsc_t.x = two words
pgsc_t.x = /absolute/path
a.b.c = 'two dots'
pgsc_t.x = read,write
1abc = 2
pgsc_t.x =
pgsc_t.x = 'a' 'b'
pgsc_t.x = 'a\'
= 'no name'
pgsc_t.x = $dollar
BAD

# 5. bounded before reading: a device and an oversized file
rc=0; /usr/bin/time -f '%M' -o "$T/rss" "$BIN/pgsc-report" --check-guc /dev/zero >/dev/null 2>"$T/zero.err" || rc=$?
[ $rc = 2 ] || bad "--check-guc /dev/zero: exit $rc, want 2"
grep -q 'not a regular file' "$T/zero.err" || bad "--check-guc /dev/zero: $(cat "$T/zero.err")"
truncate -s 17M "$T/big.conf"
rc=0; "$BIN/pgsc-report" --check-guc "$T/big.conf" >/dev/null 2>"$T/big.err" || rc=$?
[ $rc = 2 ] && grep -q 'larger than 16 MiB' "$T/big.err" || bad "--check-guc of a 17 MiB file: exit $rc: $(cat "$T/big.err")"
# a pipe of endless zeros stops at the cap
rc=0; /usr/bin/time -f '%M' -o "$T/rss2" "$BIN/pgsc-report" --check-guc - </dev/zero >/dev/null 2>"$T/pipe.err" || rc=$?
[ $rc = 2 ] || bad "--check-guc - </dev/zero: exit $rc, want 2"
rc=0
# shellcheck disable=SC2002 # a pipe, not a file: what is checked
cat /dev/zero | /usr/bin/time -f '%M' -o "$T/rss3" "$BIN/pgsc-report" --check-guc - >/dev/null 2>"$T/pipe.err" || rc=$?
[ $rc = 2 ] && grep -q 'larger than 16 MiB' "$T/pipe.err" || bad "--check-guc - from an endless pipe: exit $rc: $(cat "$T/pipe.err")"
echo "peak RSS: /dev/zero $(tail -1 "$T/rss") kB, endless pipe $(tail -1 "$T/rss3") kB"
[ "$(tail -1 "$T/rss3")" -lt 200000 ] || bad "--check-guc of an endless pipe took $(tail -1 "$T/rss3") kB"
t_done
