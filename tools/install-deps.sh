#!/bin/bash
# SPDX-License-Identifier: PostgreSQL
# install-deps.sh - install every Debian 12 package pgsc needs to build,
# test and run its demo.  Idempotent; run as root.
set -euo pipefail

if [ "$(id -u)" != 0 ]; then
	echo "install-deps.sh: run as root (apt-get, auditd and seccomp need it)" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive

# Do not let the postgresql package create and start a "main" cluster:
# the demo and the tests run their own clusters under a seccomp filter.
mkdir -p /etc/postgresql-common/createcluster.d
echo "create_main_cluster = false" >/etc/postgresql-common/createcluster.d/pgsc.conf

PKGS=(
	# build
	build-essential cmake pkg-config
	libauparse-dev libaudit-dev libseccomp-dev libsqlite3-dev
	libcap-ng-dev
	# --import of compressed logs (src/logsrc.c): gzip, xz, zstd
	zlib1g-dev liblzma-dev libzstd-dev
	# pgsc-scan (docs/static.md): ELF objects and x86-64 disassembly
	libelf-dev libcapstone-dev
	# tests (shellcheck: ctest lint/shellcheck)
	libcmocka-dev auditd seccomp sqlite3 time valgrind clang
	libclang-rt-14-dev util-linux procps gcc-multilib shellcheck
	# tests/inputs compresses its fixtures with the real tools
	gzip xz-utils zstd
	# tests/fleet: audit's own remote transport (audisp-remote)
	audispd-plugins
	# tests/exec: what pgsc-exec calls after loading its filter
	strace
	# the server pgsc watches, and the PGXS headers for the module
	postgresql-15 postgresql-contrib postgresql-client-15
	postgresql-server-dev-15
	# the module's libpq/auth.h includes <gssapi/gssapi.h>
	libkrb5-dev
	# tools/pg-regress-suite: apt-get source unpacks with dpkg-source
	dpkg-dev
	# tools/pgsc-check-world: the PLs the world tests, the TAP tests' Perl
	# modules, and what configure (pg_config --configure's flags) and the
	# build of the test parts need
	postgresql-plperl-15 postgresql-plpython3-15 postgresql-pltcl-15
	libipc-run-perl libio-pty-perl
	bison flex gettext libreadline-dev zlib1g-dev libssl-dev libxml2-dev
	libxslt1-dev libicu-dev liblz4-dev libzstd-dev libpam0g-dev
	libldap2-dev libselinux1-dev libperl-dev python3-dev tcl-dev
	libsystemd-dev uuid-dev
	# tools/glibc-matrix: the Debian 13 root (debootstrap, trixie's keys in
	# debian-archive-keyring); the workflow check is python3 stdlib
	debootstrap debian-archive-keyring python3
	# tools/pgsc-scenarios: archive_command/restore_command through rsync;
	# openssl for the SSL scenario's certificate
	rsync openssl
	# tests/report: systemd-analyze verify for the drop-in, runc for the
	# OCI profile, a static probe (libc6-dev's libc.a), the spo profile's
	# YAML read by python3-yaml
	systemd runc libc6-dev python3-yaml
	# tests/report/systemd-boot.sh: systemd-nspawn --boot of a Debian 12
	# root, where systemd 252 runs postgresql@15-main under the drop-in
	systemd-container
	# tests/package: the Debian packages (dpkg-buildpackage, pg_buildext
	# from postgresql-server-dev-all, lintian), "bc" for the timings,
	# autopkgtest for debian/tests in a clean root
	debhelper fakeroot postgresql-server-dev-all lintian bc autopkgtest
	# tests/package/rpm.sh: rpm/pgsc.spec built with rpmbuild, installed
	# into an empty root with rpm; tests/layout/pgdg.sh: unshare, mounts
	rpm
	# tests/report/html.sh: the HTML report's screenshot in headless Chromium
	chromium
	# tests/lib/schema-check.py: every JSON output of the tests against
	# schemas/ (JSON Schema draft 2020-12); fails without it
	python3-jsonschema
)

missing=()
for p in "${PKGS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	echo "install-deps.sh: installing ${missing[*]}"
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
for cmd in cmake auditd auditctl ausearch scmp_sys_resolver sqlite3 \
	/usr/lib/postgresql/15/bin/postgres /usr/lib/postgresql/15/bin/pgbench; do
	command -v "$cmd" >/dev/null || { echo "install-deps.sh: $cmd missing after install" >&2; exit 1; }
done
echo "install-deps.sh: all dependencies present"
