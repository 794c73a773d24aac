#!/bin/bash
# SPDX-License-Identifier: PostgreSQL
# setup.sh - the inputs of the pgsc-report cases that cannot be files in
# the tree: a store (tests/golden/raw.log.gz imported), a GUC file whose
# name and value hold terminal escapes, a foreign SQLite file whose table
# name holds them.
# shellcheck source-path=SCRIPTDIR source=../../lib/common.sh
. "$TESTS/lib/common.sh"
need_progs sqlite3 zcat
zcat "$TESTS/golden/raw.log.gz" >raw.log
pgsc-collect --db x.db --import raw.log 2>/dev/null
# (\" in a quoted value is '"', as PostgreSQL reads it)
printf "global_syscall_allow = 'read,\033[2J\\\\\"x'\n" >"$(printf 'evil\033]0;t\a.conf')"
sqlite3 hostile.db "CREATE TABLE \"t$(printf '\033')]0;pwned$(printf '\a')\"(x)"
