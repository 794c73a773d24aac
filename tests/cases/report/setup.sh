#!/bin/bash
# SPDX-License-Identifier: PostgreSQL
# setup.sh - the inputs of the pgsc-report cases that cannot be files in
# the tree: a store (tests/golden/raw.log.gz imported), a GUC file whose
# name and value hold terminal escapes, a foreign SQLite file whose table
# name holds them; the same store labelled (label.db) and with hostile
# titles, comms and round label (evil.db) for --explain.
# shellcheck source-path=SCRIPTDIR source=../../lib/common.sh
. "$TESTS/lib/common.sh"
need_progs sqlite3 zcat
zcat "$TESTS/golden/raw.log.gz" >raw.log
pgsc-collect --db x.db --import raw.log 2>/dev/null
# (\" in a quoted value is '"', as PostgreSQL reads it)
printf "global_syscall_allow = 'read,\033[2J\\\\\"x'\n" >"$(printf 'evil\033]0;t\a.conf')"
sqlite3 hostile.db "CREATE TABLE \"t$(printf '\033')]0;pwned$(printf '\a')\"(x)"
cp x.db label.db
sqlite3 label.db "UPDATE rounds SET label = 'world:regress'"
cp x.db evil.db
# a title that sets the terminal's title, a comm that clears the screen
sqlite3 evil.db "UPDATE processes SET title = char(27) || ']0;pwned' || char(7) || '\"q', comm = char(27) || '[2J' || char(10); UPDATE rounds SET label = 'l' || char(27) || '[31m'"
