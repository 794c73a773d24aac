#!/bin/bash
# SPDX-License-Identifier: PostgreSQL
# run.sh - the Debian packages, built and installed as a user would:
#   1. dpkg-buildpackage -b -us -uc on a copy of the source tree builds
#      pgsc and postgresql-NN-pgsc for each major of debian/pgversions the
#      host supports (pg_buildext; debian/control must be what
#      "pg_buildext updatecontrol" makes of debian/control.in); lintian
#      finds no error;
#   2. both are installed with apt into a fresh Debian 12 root: a cached
#      debootstrap root (made once, like tools/glibc-matrix's trixie root)
#      seen through an overlay, so every run starts from the same root and
#      the cache is never changed;
#   3. the demo flow runs there from the installed files only: the man
#      pages, examples and tools are where they belong, pgsc-collect
#      --import of a recorded log from tests/golden, pgsc-report printing
#      GUC lines, --check-guc of them, pgsc-exec; and a PostgreSQL 15
#      server started inside the root loads the installed pgsc.so
#      (shared_preload_libraries), CREATE EXTENSION pgsc, pgsc_filter();
#      the unit and the auditd plugin are installed off (not enabled,
#      active = no) and name what the package installed; the unit's
#      systemd-analyze security score is at most 2.0;
#   4. autopkgtest runs debian/tests (import-report, module: the module
#      under the shipped list of its major, both defaults error) in
#      another clean overlay of the root (autopkgtest-virt-chroot).
#   bash tests/package/run.sh SRCDIR [--prepare-only]
# Root.  The root is /var/cache/pgsc-package/bookworm (PGSC_PACKAGE_ROOT);
# the first run needs the Debian mirror this host's apt uses.
# shellcheck source=../lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
t_init package
SRC=$(cd "$1" && pwd)
PREPARE_ONLY=${2:-}
ROOT=${PGSC_PACKAGE_ROOT:-/var/cache/pgsc-package/bookworm}
SUITE=bookworm
STAMP=.pgsc-package-root
took() { printf '%s: %.1f s\n' "$1" "$(echo "$(now) - $2" | bc)"; }
need_root "debootstrap, chroot, mount"
need_progs dpkg-buildpackage dh pg_buildext lintian debootstrap chroot flock bc autopkgtest systemd-analyze

T=$T_WORK
chmod 755 "$T"
MOUNTS=()
cleanup() {
	local i
	for ((i = ${#MOUNTS[@]} - 1; i >= 0; i--)); do
		umount -l "${MOUNTS[$i]}" 2>/dev/null
	done
}
t_cleanup cleanup
mnt() { # TYPE SOURCE TARGET OPTIONS
	mkdir -p "$3"
	mount -t "$1" -o "$4" "$2" "$3" || fail "cannot mount $1 on $3"
	MOUNTS+=("$3")
}

security_url() {
	local u
	u=$(awk '/^URIs:/ && /security/ { print $2; exit }' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -n 1)
	[ -n "$u" ] || u=$(awk '$1 == "deb" && /security/ { print $2; exit }' /etc/apt/sources.list 2>/dev/null)
	echo "${u:-http://deb.debian.org/debian-security}"
}

mirror_url() {
	local u
	u=$(awk '/^URIs:/ { u = $2 } /^Suites:/ && / bookworm( |$)/ && u !~ /security/ { print u; exit }' \
		/etc/apt/sources.list.d/*.sources 2>/dev/null | head -n 1)
	[ -n "$u" ] || u=$(awk '$1 == "deb" && $0 !~ /security/ && / bookworm / { print $2; exit }' \
		/etc/apt/sources.list 2>/dev/null)
	echo "${u:-http://deb.debian.org/debian}"
}

# ------------------------------------------------------------ the root --
# Made once under a lock in ROOT.tmp and renamed when complete.  It holds
# Debian 12's minbase, postgresql-15 and the libraries pgsc links (the
# packages' dependencies are checked by apt at install time all the same).
prepare_root() {
	local t0 tmp=$ROOT.tmp mirror
	mkdir -p "$(dirname "$ROOT")"
	exec 8>"$ROOT.lock"
	flock -w 1800 8 || fail "could not lock $ROOT.lock"
	# layout=2: the root has bookworm-updates and -security, as a Debian
	# 12 machine (and the build host) has: a package built against a
	# point release of postgresql-15 depends on it
	if [ -f "$ROOT/$STAMP" ] && grep -q '^layout=2$' "$ROOT/$STAMP"; then
		echo "root: cached $ROOT ($(tr '\n' ' ' <"$ROOT/$STAMP"))"
		return 0
	fi
	mirror=$(mirror_url)
	echo "root: making $ROOT from $mirror (debootstrap $SUITE, apt-get install postgresql-15)"
	rm -rf "$tmp"
	t0=$(now)
	debootstrap --variant=minbase "$SUITE" "$tmp" "$mirror" >"$T/debootstrap.log" 2>&1 ||
		{ tail -n 20 "$T/debootstrap.log"; fail "debootstrap $SUITE failed"; }
	took debootstrap "$t0"
	{
		echo "deb $mirror $SUITE main"
		echo "deb $mirror $SUITE-updates main"
		echo "deb $(security_url) $SUITE-security main"
	} >"$tmp/etc/apt/sources.list"
	printf '#!/bin/sh\nexit 101\n' >"$tmp/usr/sbin/policy-rc.d"
	chmod 755 "$tmp/usr/sbin/policy-rc.d"
	mkdir -p "$tmp/etc/postgresql-common/createcluster.d"
	echo "create_main_cluster = false" >"$tmp/etc/postgresql-common/createcluster.d/pgsc.conf"
	mnt proc proc "$tmp/proc" nosuid,nodev,noexec
	t0=$(now)
	chroot "$tmp" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive LC_ALL=C \
		sh -c "apt-get update -q && apt-get upgrade -y -q && apt-get install -y -q --no-install-recommends postgresql-15 libauparse0 libaudit1 libseccomp2 libsqlite3-0 libcap-ng0 && apt-get clean" \
		>"$T/apt.log" 2>&1 || { tail -n 20 "$T/apt.log"; fail "apt-get install in the root failed"; }
	took "apt in the root" "$t0"
	umount "$tmp/proc" && MOUNTS=()
	{ echo "layout=2"; echo "suite=$SUITE"; echo "mirror=$mirror"; echo "made=$(date -u +%Y-%m-%dT%H:%M:%SZ)"; } >"$tmp/$STAMP"
	rm -rf "$ROOT"
	mv "$tmp" "$ROOT"
}

t_all=$(now)
prepare_root
[ "$PREPARE_ONLY" = --prepare-only ] && exit 0

# ------------------------------------------------------- 1. the build --
t0=$(now)
# debian/control is generated from control.in (Debian's convention for
# extensions): a stale one would build the wrong postgresql-NN-pgsc
mkdir -p "$T/cc/debian"
cp "$SRC/debian/control.in" "$SRC/debian/pgversions" "$T/cc/debian/"
(cd "$T/cc" && pg_buildext updatecontrol) >/dev/null 2>&1 || bad "pg_buildext updatecontrol failed"
cmp -s "$T/cc/debian/control" "$SRC/debian/control" ||
	bad "debian/control is not what 'pg_buildext updatecontrol' makes of debian/control.in"
mkdir -p "$T/pkg/src"
# a copy of the tree without build directories or git metadata: the
# build writes debian/tmp, obj-*, build-15 and the .debs beside the tree
(cd "$SRC" && tar --exclude=./build --exclude='./build-*' --exclude='./obj-*' \
	--exclude=./.git --exclude=./debian/tmp -cf - .) | tar -C "$T/pkg/src" -xf - ||
	fail "cannot copy $SRC"
(cd "$T/pkg/src" && dpkg-buildpackage -b -us -uc) >"$T/build.log" 2>&1 ||
	{ tail -n 30 "$T/build.log"; fail "dpkg-buildpackage -b -us -uc failed"; }
took "dpkg-buildpackage" "$t0"
# shellcheck disable=SC2012 # dpkg-buildpackage's own file names
PGSC_DEB=$(ls "$T"/pkg/pgsc_*_*.deb 2>/dev/null | head -n 1)
# shellcheck disable=SC2012
MOD_DEB=$(ls "$T"/pkg/postgresql-15-pgsc_*_*.deb 2>/dev/null | head -n 1)
[ -f "$PGSC_DEB" ] || fail "no pgsc .deb built"
[ -f "$MOD_DEB" ] || fail "no postgresql-15-pgsc .deb built"
dpkg-deb -c "$MOD_DEB" >"$T/mod.contents" || bad "dpkg-deb -c $MOD_DEB"
grep -q '/usr/lib/postgresql/15/lib/pgsc.so$' "$T/mod.contents" ||
	bad "postgresql-15-pgsc holds no /usr/lib/postgresql/15/lib/pgsc.so"
dpkg-deb -c "$PGSC_DEB" >"$T/pgsc.contents" || bad "dpkg-deb -c $PGSC_DEB"
for f in usr/bin/pgsc-collect usr/bin/pgsc-report usr/bin/pgsc-exec usr/bin/pgsc-diff \
	usr/bin/pgsc-selflist usr/bin/pgsc-iterate usr/share/man/man1/pgsc-report.1.gz \
	usr/share/doc/pgsc/examples/pgsc.rules usr/share/doc/pgsc/examples/auditd.conf.pgsc \
	usr/share/doc/pgsc/README.md.gz usr/share/doc/pgsc/copyright \
	usr/share/pgsc/schemas/pgsc-report.schema.json; do
	grep -q " \./$f$" "$T/pgsc.contents" || bad "the pgsc package lacks /$f"
done
t0=$(now)
lintian --fail-on error --tag-display-limit 0 "$T"/pkg/pgsc_*.changes >"$T/lintian.log" 2>&1 ||
	bad "lintian finds errors: $(grep '^E:' "$T/lintian.log" | head -n 10)"
took lintian "$t0"
grep -E '^(E|W):' "$T/lintian.log" | sed 's/^/lintian: /'

# ------------------------------------------- 2. installed in the root --
mkdir -p "$T/ov/upper" "$T/ov/work"
R=$T/ov/root
mnt overlay overlay "$R" "lowerdir=$ROOT,upperdir=$T/ov/upper,workdir=$T/ov/work"
mnt proc proc "$R/proc" nosuid,nodev,noexec
mnt tmpfs pgsc-package-shm "$R/dev/shm" nosuid,nodev,mode=1777
mkdir -p "$R/tmp/debs"
cp "$PGSC_DEB" "$MOD_DEB" "$R/tmp/debs/"
inroot() { chroot "$R" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C HOME=/root "$@"; }
t0=$(now)
inroot sh -c 'DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends /tmp/debs/*.deb' \
	>"$T/install.log" 2>&1 || { tail -n 20 "$T/install.log"; fail "apt-get install of the two packages in the root failed"; }
took "apt-get install in the root" "$t0"
# shellcheck disable=SC2016 # dpkg-query's format, not the shell's
inroot dpkg-query -W -f='${Package} ${Version} ${Status}\n' pgsc postgresql-15-pgsc >"$T/installed" 2>&1
[ "$(grep -c 'install ok installed' "$T/installed")" = 2 ] || bad "not installed: $(cat "$T/installed")"

# ------------------------- the unit, the plugin and the data, installed --
# installed off: the unit not enabled, the plugin not active, and both
# naming what the package installed
U=$R/lib/systemd/system/pgsc-collect.service
[ -f "$U" ] || bad "no /lib/systemd/system/pgsc-collect.service"
ls "$R"/etc/systemd/system/*.wants/pgsc-collect.service >/dev/null 2>&1 &&
	bad "the unit is enabled by the package"
for f in usr/share/pgsc/pgsc.rules usr/share/pgsc/pgsc-self.guc usr/share/pgsc/sample.log.gz; do
	[ -f "$R/$f" ] || bad "no /$f"
done
grep -q -- '--self-filter /usr/share/pgsc/pgsc-self.guc' "$U" || bad "the installed unit has no --self-filter of /usr/share/pgsc"
grep -q '^ExecStartPre=auditctl -R /usr/share/pgsc/pgsc.rules$' "$U" || bad "the installed unit loads no rules from /usr/share/pgsc"
P=$R/etc/audit/plugins.d/pgsc.conf
grep -qx 'active = no' "$P" || bad "/etc/audit/plugins.d/pgsc.conf is not 'active = no'"
ppath=$(sed -n 's/^path = //p' "$P")
[ "$ppath" = /usr/bin/pgsc-collect ] && [ -x "$R$ppath" ] || bad "the plugin's path '$ppath' is not the installed program"
# shellcheck disable=SC2016 # dpkg-query's format, not the shell's
inroot dpkg-query -W -f='${Conffiles}\n' pgsc | grep -q ' /etc/audit/plugins.d/pgsc.conf ' ||
	bad "/etc/audit/plugins.d/pgsc.conf is not a conffile"
if command -v systemd-analyze >/dev/null; then
	mkdir -p "$T/sa"
	sed 's|^ExecStart=pgsc-collect|ExecStart=/usr/bin/pgsc-collect|; s|^ExecStartPre=auditctl|ExecStartPre=/sbin/auditctl|; s|^ExecStartPre=-auditctl|ExecStartPre=-/sbin/auditctl|; s|^ExecStopPost=-auditctl|ExecStopPost=-/sbin/auditctl|' \
		"$U" >"$T/sa/pgsc-collect.service"
	score=$(systemd-analyze security --offline=true "$T/sa/pgsc-collect.service" 2>/dev/null |
		sed -n 's/.*Overall exposure level for pgsc-collect.service: \([0-9.]*\).*/\1/p')
	echo "systemd-analyze security --offline of the installed unit: ${score:-?}"
	awk -v s="${score:-99}" 'BEGIN { exit !(s <= 2.0) }' || bad "the unit's exposure is ${score:-unknown}, above 2.0"
	# (systemd-analyze verify of the unit: tests/examples, in a root with
	# systemd's targets; this one has neither systemd nor auditd)
else
	bad "systemd-analyze not found"
fi

# ------------------------------------- 3. the demo flow from the files --
[ -d "$R/usr/src/pgsc" ] || [ ! -e "$R/tmp/debs/src" ] || bad "a source tree in the root"
zcat "$SRC/tests/golden/raw.log.gz" >"$R/tmp/audit.log"
inroot pgsc-collect --db /tmp/lists.db --import /tmp/audit.log >"$T/collect.out" 2>&1 ||
	bad "pgsc-collect --import in the root: $(cat "$T/collect.out")"
grep -q 'round 1: 5412 SECCOMP records' "$T/collect.out" || bad "pgsc-collect: $(cat "$T/collect.out")"
inroot pgsc-report --db /tmp/lists.db --guc-prefix pgsc. >"$R/tmp/lists.conf" 2>"$T/report.err" ||
	bad "pgsc-report in the root: $(cat "$T/report.err")"
grep -q "^pgsc.global_syscall_allow = '[a-z]" "$R/tmp/lists.conf" || bad "no global list: $(head -5 "$R/tmp/lists.conf")"
grep -q "^pgsc.session_syscall_allow = '[a-z]" "$R/tmp/lists.conf" || bad "no session list"
inroot pgsc-report --check-guc /tmp/lists.conf >"$T/check.out" 2>&1 || bad "--check-guc in the root: $(cat "$T/check.out")"
inroot pgsc-exec --default log -- /bin/true || bad "pgsc-exec --default log -- /bin/true in the root"
inroot pgsc-report --db /tmp/lists.db --format=html >"$T/report.html" 2>&1 || bad "--format=html in the root"
grep -q '<svg' "$T/report.html" || bad "no chart in the root's HTML report"
inroot pgsc-report --db /tmp/lists.db --status --format=json >"$T/status.json" 2>&1
grep -q '"converged": false' "$T/status.json" || bad "--status --format=json in the root: $(head -c 200 "$T/status.json")"
inroot pgsc-diff /tmp/lists.db /tmp/lists.conf >/dev/null 2>&1; rc=$?
[ $rc = 0 ] || bad "pgsc-diff store against its own GUC lines: exit $rc"
inroot man -w pgsc-report >/dev/null 2>&1 || [ -f "$R/usr/share/man/man1/pgsc-report.1.gz" ] || bad "no man page pgsc-report(1)"
inroot pgsc-selflist --help >/dev/null 2>&1 || bad "pgsc-selflist --help"
inroot auditctl -v >/dev/null 2>&1 && echo "note: auditd is in the root (Recommends)"
echo "demo flow in the root: $(head -c 120 "$R/tmp/lists.conf" | head -n 1)"

# the module: a PostgreSQL 15 server inside the root preloads the
# installed pgsc.so (pgsc.enabled stays off: no filter, no audit records
# on the host's kernel), CREATE EXTENSION pgsc, pgsc_filter()
PGB=/usr/lib/postgresql/15/bin
inroot install -d -o postgres -m 700 /tmp/pg
inroot runuser -u postgres -- $PGB/initdb -D /tmp/pg/data -A trust --no-sync >"$T/initdb.log" 2>&1 ||
	{ tail -n 10 "$T/initdb.log"; fail "initdb in the root failed"; }
cat >>"$R/tmp/pg/data/postgresql.conf" <<'CONF'
listen_addresses = ''
unix_socket_directories = '/tmp/pg'
shared_preload_libraries = 'pgsc'
pgsc.global_syscall_default = 'log'
CONF
if inroot runuser -u postgres -- $PGB/pg_ctl -D /tmp/pg/data -l /tmp/pg/log -w -t 60 start >"$T/pgctl.log" 2>&1; then
	q() { inroot runuser -u postgres -- psql -h /tmp/pg -X -A -t -v ON_ERROR_STOP=1 -d postgres -c "$1"; }
	lib=$(q "SHOW shared_preload_libraries" 2>&1)
	[ "$lib" = pgsc ] || bad "shared_preload_libraries in the root's server: $lib"
	n=$(q "SELECT count(*) FROM pg_settings WHERE name LIKE 'pgsc.%'" 2>&1)
	[ "${n:-0}" -ge 5 ] 2>/dev/null || bad "the root's server has ${n} pgsc.* settings: the module did not load"
	q "CREATE EXTENSION pgsc" >/dev/null 2>"$T/ext.err" || bad "CREATE EXTENSION pgsc: $(cat "$T/ext.err")"
	rows=$(q "SELECT count(*) FROM pgsc_filter()" 2>&1)
	[ "${rows:-0}" -ge 2 ] 2>/dev/null || bad "pgsc_filter() in the root: $rows"
	so=$(q "SELECT setting FROM pg_settings WHERE name = 'dynamic_library_path'")
	echo "module in the root: pgsc.so from the package preloaded, $n pgsc.* settings, pgsc_filter() $rows rows (dynamic_library_path $so)"
	inroot runuser -u postgres -- $PGB/pg_ctl -D /tmp/pg/data -m fast -w stop >/dev/null 2>&1 ||
		bad "pg_ctl stop in the root"
else
	bad "the server in the root did not start with the installed pgsc.so: $(tail -n 5 "$R/tmp/pg/log" 2>/dev/null) $(tail -n 3 "$T/pgctl.log")"
fi
# ------------------------------------ 4. autopkgtest in a clean root --
# debian/tests as a Debian CI would run them: autopkgtest installs the
# two packages (and the tests' Depends) with apt into another overlay of
# the cached root, then runs import-report and module there.
mkdir -p "$T/ov2/upper" "$T/ov2/work"
R2=$T/ov2/root
mnt overlay overlay "$R2" "lowerdir=$ROOT,upperdir=$T/ov2/upper,workdir=$T/ov2/work"
t0=$(now)
autopkgtest --output-dir "$T/apt-out" "$PGSC_DEB" "$MOD_DEB" "$T/pkg/src/" -- chroot "$R2" \
	>"$T/autopkgtest.log" 2>&1
rc=$?
took autopkgtest "$t0"
grep -E '^(import-report|module) +[A-Z]+' "$T/autopkgtest.log" | sed 's/^/autopkgtest: /'
grep -Eq '^import-report +PASS' "$T/autopkgtest.log" || bad "autopkgtest import-report did not pass (exit $rc): $(tail -n 15 "$T/autopkgtest.log")"
grep -Eq '^module +PASS' "$T/autopkgtest.log" || bad "autopkgtest module did not pass (exit $rc)"
grep -h '^module [0-9]*:' "$T/apt-out"/module-stdout 2>/dev/null

took total "$t_all"
t_done
