#!/bin/bash
# SPDX-License-Identifier: PostgreSQL
# tests/layout/pgdg.sh BINDIR - the server found in PGDG's layout, as on
# RHEL: in a private mount namespace (root), /usr gets an overlay where
# /usr/pgsql-NN is this machine's Debian server directory (bind-mounted;
# its pg_config is relocatable and answers /usr/pgsql-NN/bin and
# /usr/pgsql-NN/lib, as PGDG's does) and /usr/lib/postgresql is hidden
# under an empty tmpfs, so PATH's pg_config (Debian's wrapper, then
# libpq's) names no server.  Then each finder picks the PGDG layout:
# tools/pg-layout.sh, pgsc-scan, cmake/PgConfig.cmake, and the scripts
# that source the helper (pgsc-check-world, pg-regress-suite,
# pgsc-iterate say which server they use); a version sort (15 before
# 9.6); a PGDG directory without pg_config; and the explicit choices
# win: --pg-config over PG_CONFIG over PATH over the layouts.  Outside
# the namespace: the collector attributes a log whose server exe is
# /usr/pgsql-NN/bin/postgres as it does Debian's (the same report).
# docs/live.md, "RHEL and PGDG".
# shellcheck source=../lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
# shellcheck source=../lib/pgdg.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/pgdg.sh"
export LC_ALL=C

# ------------------------------------------------ inside the namespace --
# inside W V BINDIR SRCROOT: the checks; prints "ok: ..." or "bad: ..."
inside() {
	local W=$1 V=$2 BINDIR=$3 SRC=$4 out
	local P=/usr/pgsql-$V
	set -u
	pgdg_dress "$W" "$V" || return 1
	local pathpgc b
	# PATH's pg_config (Debian's wrapper, else libpq-dev's) must name no
	# server now, as libpq's does on RHEL
	if pathpgc=$(command -v pg_config) && b=$("$pathpgc" --bindir 2>/dev/null) && [ -x "$b/postgres" ]; then
		echo "bad: PATH's pg_config still names a server ($b)"
		return 1
	fi
	echo "ok: PATH's ${pathpgc:-(no pg_config)} names no server, $P holds PostgreSQL $V"

	want() { # want WHAT FILE REGEX...: every REGEX is a line of FILE
		local what=$1 f=$2 r
		shift 2
		for r in "$@"; do
			grep -qE -- "$r" "$f" || { echo "bad: $what: no line '$r' in: $(tr '\n' '|' <"$f")"; return 1; }
		done
		echo "ok: $what"
	}

	# 1. the helper
	bash "$SRC/tools/pg-layout.sh" >"$W/h1" 2>&1
	want "pg-layout.sh picks PGDG" "$W/h1" "^found=PGDG$" "^bindir=$P/bin$" "^pkglibdir=$P/lib$" \
		"^pg_config=$P/bin/pg_config$" "^major=$V$"
	bash "$SRC/tools/pg-layout.sh" --major "$V" >"$W/h2" 2>&1
	want "pg-layout.sh --major $V picks PGDG" "$W/h2" "^found=PGDG$"
	# newest first, as numbers: 9.6 sorts after 15 as text
	mkdir -p /usr/pgsql-9.6/bin && ln -s "$P/bin/postgres" /usr/pgsql-9.6/bin/postgres
	bash "$SRC/tools/pg-layout.sh" >"$W/h3" 2>&1
	want "pg-layout.sh takes $V before 9.6" "$W/h3" "^bindir=$P/bin$"
	bash "$SRC/tools/pg-layout.sh" --major 9.6 >"$W/h4" 2>&1
	want "pg-layout.sh --major 9.6: the directory without pg_config" "$W/h4" \
		"^found=PGDG$" "^pg_config=$" "^bindir=/usr/pgsql-9.6/bin$" "^pkglibdir=/usr/pgsql-9.6/lib$"
	# the explicit ones: a pg_config elsewhere, naming a server elsewhere
	mkdir -p "$W/other/bin" "$W/other/lib" "$W/pathbin"
	ln -s "$P/bin/postgres" "$W/other/bin/postgres"
	# shellcheck disable=SC2016 # $1 and "$@" are the wrapper's own
	printf '#!/bin/sh\ncase $1 in --bindir) echo %s/other/bin ;; --pkglibdir) echo %s/other/lib ;; *) exec %s "$@" ;; esac\n' \
		"$W" "$W" "$P/bin/pg_config" >"$W/other/pg_config"
	printf '#!/bin/sh\nexec %s "$@"\n' "$P/bin/pg_config" >"$W/pathbin/pg_config"
	chmod 755 "$W/other/pg_config" "$W/pathbin/pg_config"
	PG_CONFIG=$W/other/pg_config bash "$SRC/tools/pg-layout.sh" >"$W/h5" 2>&1
	want "PG_CONFIG wins over the layouts" "$W/h5" "^found=PG_CONFIG$" "^bindir=$W/other/bin$"
	PG_CONFIG=$P/bin/pg_config bash "$SRC/tools/pg-layout.sh" --pg-config "$W/other/pg_config" >"$W/h6" 2>&1
	want "--pg-config wins over PG_CONFIG" "$W/h6" "^found=--pg-config$" "^pg_config=$W/other/pg_config$"
	PATH=$W/pathbin:$PATH bash "$SRC/tools/pg-layout.sh" >"$W/h7" 2>&1
	want "PATH's pg_config with a server wins over the layouts" "$W/h7" "^found=PATH$" \
		"^pg_config=$W/pathbin/pg_config$"
	PATH=$W/pathbin:$PATH PG_CONFIG=$W/other/pg_config bash "$SRC/tools/pg-layout.sh" >"$W/h8" 2>&1
	want "PG_CONFIG wins over PATH" "$W/h8" "^found=PG_CONFIG$"
	if bash "$SRC/tools/pg-layout.sh" --pg-config /nonexistent/pg_config >"$W/h9" 2>&1; then
		echo "bad: a --pg-config that does not answer was passed over: $(cat "$W/h9")"
	else
		want "a --pg-config that does not answer is an error" "$W/h9" "^pg-layout.sh: --pg-config /nonexistent/pg_config: "
	fi

	# 2. pgsc-scan: the server alone (a whole scan takes minutes here)
	"$BINDIR/pgsc-scan" --no-modules --output "$W/scan.txt" 2>"$W/scan.err" ||
		echo "bad: pgsc-scan failed: $(cat "$W/scan.err")"
	want "pgsc-scan picks PGDG" "$W/scan.err" "^pgsc-scan: PostgreSQL of $P/bin/pg_config \(PGDG\)$" \
		"^pgsc-scan: reading $P/bin/postgres and the libraries it needs$" \
		"^pgsc-scan: disassembling 1/[0-9]+: " "^pgsc-scan: building the call graph"
	want "pgsc-scan scanned PGDG's server" "$W/scan.txt" "^# pgsc-scan of $P/bin/postgres "
	# --pg-config wins (over PG_CONFIG too); its modules are none here
	PG_CONFIG=$P/bin/pg_config "$BINDIR/pgsc-scan" --pg-config "$W/other/pg_config" --server /bin/true \
		--output "$W/scan2.txt" 2>"$W/scan2.err" || echo "bad: pgsc-scan --pg-config failed: $(cat "$W/scan2.err")"
	want "pgsc-scan --pg-config wins" "$W/scan2.err" \
		"^pgsc-scan: PostgreSQL of $W/other/pg_config \(--pg-config\)$" "^pgsc-scan: reading the modules of $W/other/lib$"
	if "$BINDIR/pgsc-scan" --pg-config /nonexistent/pg_config --no-modules -o "$W/scan3.txt" 2>"$W/scan3.err"; then
		echo "bad: pgsc-scan took a --pg-config that does not answer"
	else
		want "pgsc-scan: a --pg-config that does not answer is an error" "$W/scan3.err" \
			"^pgsc-scan: --pg-config /nonexistent/pg_config: --bindir and --pkglibdir did not both answer"
	fi

	# 3. the build: PGDG's pg_config has PGXS (libpq's has none)
	cmake -P "$SRC/cmake/PgConfig.cmake" >"$W/cm1" 2>&1
	want "cmake/PgConfig.cmake picks PGDG" "$W/cm1" "^pg_config=$P/bin/pg_config$" "^found=PGDG$"
	PG_CONFIG=$W/other/pg_config cmake -P "$SRC/cmake/PgConfig.cmake" >"$W/cm2" 2>&1
	want "cmake/PgConfig.cmake: PG_CONFIG wins" "$W/cm2" "^found=PG_CONFIG$"

	# 4. the scripts say which server they use, then stop on what is missing
	local note="PostgreSQL $V of $P/bin \(PGDG, $P/bin/pg_config\)$"
	bash "$SRC/tools/pgsc-check-world" provenance >"$W/s1" 2>&1
	want "pgsc-check-world picks PGDG" "$W/s1" "^pgsc-check-world: $note"
	bash "$SRC/tools/pg-regress-suite" run --cache "$W/nocache" >"$W/s2" 2>&1
	want "pg-regress-suite picks PGDG" "$W/s2" "^pg-regress-suite: $note"
	bash "$SRC/tools/pgsc-iterate" --datadir "$W/nodata" --bindir "$BINDIR" -- true >"$W/s3" 2>&1
	want "pgsc-iterate picks PGDG" "$W/s3" "^pgsc-iterate: $note"
	PG_CONFIG=$W/other/pg_config bash "$SRC/tools/pgsc-check-world" provenance >"$W/s4" 2>&1
	want "pgsc-check-world: PG_CONFIG wins" "$W/s4" "^pgsc-check-world: PostgreSQL $V of $W/other/bin \(PG_CONFIG, "
	return 0
}

if [ "${1:-}" = --inside ]; then
	shift
	inside "$@"
	exit 0
fi

# ------------------------------------------------------------- outside --
t_init layout-pgdg
t_bindir "pgdg.sh BINDIR" "$@"
SRC=$T_SRCROOT
W=$T_WORK
need_root "mount namespaces"
need_progs unshare mount cmake sed zcat
need_exec "$BINDIR"/pgsc-{scan,collect,report}
V=$(pgdg_major) || exit 1
nok=0 nbad=0
while IFS= read -r line; do
	echo "$line"
	case $line in
	ok:*) nok=$((nok + 1)) ;;
	bad:*) nbad=$((nbad + 1)) ;;
	esac
done < <(unshare -m bash "$0" --inside "$W" "$V" "$BINDIR" "$SRC" 2>&1)
[ -e "/usr/pgsql-$V" ] && fail "/usr/pgsql-$V leaked out of the namespace"

# the collector: a server exe under /usr/pgsql-NN/bin is the server
zcat "$SRC/tests/golden/raw.log.gz" >"$W/deb.log"
grep -q 'exe="/usr/lib/postgresql/15/bin/postgres"' "$W/deb.log" || fail "the golden log has no Debian server exe"
# exe= of every record, name= of the PATH records of its exec
sed 's|"/usr/lib/postgresql/15/bin/postgres"|"/usr/pgsql-15/bin/postgres"|g' "$W/deb.log" >"$W/pgdg.log"
grep -q '/usr/lib/postgresql/15/bin/postgres"' "$W/pgdg.log" && fail "sed left a Debian exe"
for k in deb pgdg; do
	"$BINDIR/pgsc-collect" -q --db "$W/$k.db" --import "$W/$k.log" >"$W/$k.imp" 2>&1 ||
		fail "import of $k.log: $(cat "$W/$k.imp")"
	"$BINDIR/pgsc-report" --db "$W/$k.db" >"$W/$k.guc" 2>&1 || fail "report of $k: $(cat "$W/$k.guc")"
	"$BINDIR/pgsc-report" --db "$W/$k.db" --format table >"$W/$k.table" 2>&1 || fail "table of $k"
done
if cmp -s "$W/deb.guc" "$W/pgdg.guc" && cmp -s "$W/deb.table" "$W/pgdg.table" &&
	grep -q "global_syscall_allow = '.*accept" "$W/pgdg.guc"; then
	echo "ok: the collector attributes /usr/pgsql-15/bin/postgres as /usr/lib/postgresql/15/bin/postgres (same lists and table)"
	nok=$((nok + 1))
else
	echo "bad: PGDG's exe changes the report: $(diff "$W/deb.guc" "$W/pgdg.guc" | head -5)"
	nbad=$((nbad + 1))
fi
# no script that finds the server hard-codes Debian's bindir
if grep -nE '^[^#]*(=|:-)/usr/lib/postgresql/' "$SRC"/tools/{pgsc-check-world,pgsc-iterate,pg-regress-suite,pgsc-scenarios,demo.sh,pgsc-scan.c} \
	"$SRC/examples/collect-round.sh" "$SRC/CMakeLists.txt" >"$W/hard" 2>&1; then
	echo "bad: Debian's bindir hard-coded: $(cat "$W/hard")"
	nbad=$((nbad + 1))
else
	echo "ok: no script or tool that finds the server hard-codes /usr/lib/postgresql"
	nok=$((nok + 1))
fi
echo "layout-pgdg: $nok passed, $nbad failed"
[ "$nok" -ge 22 ] || fail "only $nok checks ran"
[ "$nbad" = 0 ]
