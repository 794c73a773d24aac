#!/bin/bash
# SPDX-License-Identifier: PostgreSQL
# setup.sh - the inputs of the pgsc-diff cases in the work directory: a
# real store (tests/golden/raw.log.gz imported) with its own reports, a
# hostile store, a fake one, a file with a hostile name.
# shellcheck source-path=SCRIPTDIR source=../../lib/common.sh
. "$TESTS/lib/common.sh"
need_progs sqlite3 zcat
zcat "$TESTS/golden/raw.log.gz" >raw.log
pgsc-collect --db raw.db --import raw.log 2>collect.err
pgsc-report --db raw.db >raw.conf
pgsc-report --db raw.db --format json >raw.json
pgsc-report --db raw.db --guc-prefix pgseccomp. --session-roles rfc >raw-rfc.conf
# SQLite's own message quotes the schema of a hostile store
v=$(sqlite3 raw.db 'PRAGMA user_version')
sqlite3 evil.db "PRAGMA user_version=$v; CREATE TABLE t(a);
	PRAGMA writable_schema=ON; UPDATE sqlite_master SET name=char(27)||'[31mred'||char(10)||'x',
	sql='CREATE TABLE x(' WHERE name='t';"
printf 'SQLite format 3\0not really' >fake.db
# the hostile name, and a file that holds it for the case lines
name=$'evil\n+++ x\e[31m|`*_<b>.guc'
cp "$D/aarch64.guc" "$name"
printf '%s' "$name" >evil.name
