#!/bin/bash
# SPDX-License-Identifier: PostgreSQL
# tests/package/rpm.sh BINDIR SRCDIR - rpm/pgsc.spec built with rpmbuild
# (Debian's package rpm) on the same CMake as everything else, in PGDG's
# layout: in a private mount namespace (root, tests/lib/pgdg.sh) where
# /usr/pgsql-NN is this machine's Debian server, so the spec's own
# default pg_config, /usr/pgsql-NN/bin/pg_config, is PGDG's path.
# BuildRequires are not checked (--nodeps: Debian's libraries stand in
# for RHEL's -devel packages), which is all this cannot prove.  Then the
# two RPMs installed with rpm into an empty root (--noscripts): every
# program, script and man page, the unit and the auditd plugin off (a
# %config file, the real path), pg-layout.sh where the installed
# scripts look for it, the module in /usr/pgsql-NN/lib; rpmbuild itself
# fails on a file the install made and the spec does not list.  The
# installed pgsc-collect and pgsc-report run on the installed sample
# log, and the installed pg-regress-suite finds PGDG's server through
# the installed helper.  docs/live.md, "RHEL and PGDG".
# shellcheck source=../lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
# shellcheck source=../lib/pgdg.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/pgdg.sh"
export LC_ALL=C

# inside W V SRC: rpmbuild in the PGDG layout, then the installed
# pg-regress-suite in it; "ok: ..." or "bad: ..." lines
inside() {
	local W=$1 V=$2 SRC=$3 R=$1/root
	pgdg_dress "$W/ns" "$V" || return 1
	if rpmbuild -bb --nodeps --define "_topdir $W/rpm" --define 'debug_package %{nil}' \
		--define "pgmajorversion $V" "$SRC/rpm/pgsc.spec" >"$W/rpmbuild.log" 2>&1; then
		echo "ok: rpmbuild built rpm/pgsc.spec against /usr/pgsql-$V/bin/pg_config, every installed file listed"
	else
		echo "bad: rpmbuild failed: $(tail -20 "$W/rpmbuild.log" | tr '\n' '|')"
		return 1
	fi
	mkdir -p "$R"
	rpm --root "$R" --dbpath /var/lib/rpm --initdb &&
		rpm --root "$R" --dbpath /var/lib/rpm -i --nodeps --noscripts "$W"/rpm/RPMS/*/*.rpm >"$W/rpm-i.log" 2>&1 ||
		{ echo "bad: rpm -i: $(tr '\n' '|' <"$W/rpm-i.log")"; return 1; }
	echo "ok: both RPMs install into an empty root"
	bash "$R/usr/bin/pg-regress-suite" run --cache "$W/nocache" >"$W/prs.log" 2>&1
	if grep -q "^pg-regress-suite: PostgreSQL $V of /usr/pgsql-$V/bin (PGDG, " "$W/prs.log"; then
		echo "ok: the installed pg-regress-suite finds PGDG's server through the installed pg-layout.sh"
	else
		echo "bad: the installed pg-regress-suite: $(tr '\n' '|' <"$W/prs.log")"
	fi
	return 0
}

if [ "${1:-}" = --inside ]; then
	shift
	inside "$@"
	exit 0
fi

t_init package-rpm
[ $# = 2 ] && [ -d "$2" ] || fail "usage: rpm.sh BINDIR SRCDIR (BINDIR unused: the spec builds its own)"
SRC=$(cd "$2" && pwd)
W=$T_WORK
need_root "mount namespaces, rpm's root"
need_progs unshare mount rpmbuild rpm git tar cmake
V=$(pgdg_major) || exit 1
ver=$(sed -n 's/^Version: *//p' "$SRC/rpm/pgsc.spec")
pver=$(sed -n 's/^project(pgsc VERSION \([0-9.]*\).*/\1/p' "$SRC/CMakeLists.txt")
[ -n "$ver" ] && [ "$ver" = "$pver" ] || fail "rpm/pgsc.spec's Version ($ver) is not CMakeLists.txt's ($pver)"
mkdir -p "$W/rpm/SOURCES"
(cd "$SRC" && git ls-files -z | tar --null -T - --transform "s,^,pgsc-$ver/," -czf "$W/rpm/SOURCES/pgsc-$ver.tar.gz") ||
	fail "cannot make the source tarball from git ls-files"
nok=0 nbad=0
res() {
	echo "$1"
	case $1 in ok:*) nok=$((nok + 1)) ;; bad:*) nbad=$((nbad + 1)) ;; esac
}
while IFS= read -r line; do
	res "$line"
done < <(unshare -m bash "$0" --inside "$W" "$V" "$SRC" 2>&1)
[ -e "/usr/pgsql-$V" ] && fail "/usr/pgsql-$V leaked out of the namespace"
R=$W/root
[ -x "$R/usr/bin/pgsc-collect" ] || fail "nothing installed (see above)"

# what the packages hold
missing=''
for f in /usr/bin/{pgsc-collect,pgsc-report,pgsc-exec,pgsc-diff,pgsc-scan,pgsc-iterate,pgsc-selflist,pg-regress-suite} \
	/usr/share/pgsc/{pg-layout.sh,pgsc.rules,pgsc-self.guc,sample.log.gz} /usr/lib/systemd/system/pgsc-collect.service \
	/etc/audit/plugins.d/pgsc.conf "/usr/pgsql-$V/lib/pgsc.so" /usr/share/doc/pgsc/live.md; do
	[ -e "$R$f" ] || missing+=" $f"
done
for m in pgsc-collect pgsc-report pgsc-exec pgsc-diff pgsc-scan pgsc-iterate pgsc-selflist pg-regress-suite; do
	compgen -G "$R/usr/share/man/man1/$m.1*" >/dev/null || missing+=" man1/$m.1"
done
[ -z "$missing" ] && res "ok: the RPMs hold the programs, scripts, man pages, data, unit, plugin and module" ||
	res "bad: missing from the RPMs:$missing"
rpm --root "$R" --dbpath /var/lib/rpm -qc pgsc >"$W/conf" 2>&1
grep -qx /etc/audit/plugins.d/pgsc.conf "$W/conf" && res "ok: the plugin's conf is a %config file" ||
	res "bad: %config files: $(cat "$W/conf")"
if grep -qE '^active *= *no' "$R/etc/audit/plugins.d/pgsc.conf" &&
	grep -qE '^path *= */usr/bin/pgsc-collect$' "$R/etc/audit/plugins.d/pgsc.conf"; then
	res "ok: the plugin is off and names /usr/bin/pgsc-collect"
else
	res "bad: the plugin: $(tr '\n' '|' <"$R/etc/audit/plugins.d/pgsc.conf")"
fi
# the unit names pgsc-collect without a directory (systemd looks in
# /usr/bin) and the installed data by their full paths
u=$R/usr/lib/systemd/system/pgsc-collect.service
if grep -q '^ExecStart=pgsc-collect .*--self-filter /usr/share/pgsc/pgsc-self.guc' "$u" &&
	grep -q '^ExecStartPre=auditctl -R /usr/share/pgsc/pgsc.rules' "$u"; then
	res "ok: the unit starts pgsc-collect with the installed rules and self-filter"
else
	res "bad: the unit: $(grep '^Exec' "$u" | tr '\n' '|')"
fi
# the installed programs work
if "$R/usr/bin/pgsc-collect" -q --db "$W/x.db" --import "$R/usr/share/pgsc/sample.log.gz" >"$W/imp" 2>&1 &&
	"$R/usr/bin/pgsc-report" --db "$W/x.db" >"$W/rep" 2>&1 &&
	grep -q "^global_syscall_allow = '.*accept" "$W/rep"; then
	res "ok: the installed pgsc-collect and pgsc-report make the lists of the installed sample"
else
	res "bad: the installed programs: $(cat "$W/imp" "$W/rep" | head -5 | tr '\n' '|')"
fi
echo "package-rpm: $nok passed, $nbad failed"
[ "$nok" -ge 8 ] || fail "only $nok checks ran"
[ "$nbad" = 0 ]
