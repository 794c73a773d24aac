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
# args.db: argument values planted for --args (docs/args.md) beside the
# clone values the recorded fork rules gave: several alternatives
# (socket), an ioctl request (hex), mprotect without PROT_EXEC from every
# role that made it, mmap from one of its roles only (partial), more than
# 64 alternatives (fcntl), "any value" (prctl), stored text that does not
# read (madvise, in no list), a name in no list (setsockopt)
cp x.db args.db
{
	ins() { echo "INSERT INTO arg_values VALUES (1, '$1', 3221225534, $2, '$3', '$4', 1);"; }
	echo "BEGIN;"
	for v in 1:1 10:2 2:1; do ins postmaster 41 'a0:a1&0xf' $v; done
	ins 'descendant/client backend' 16 a1 21505
	for r in postmaster 'descendant/client backend'; do ins "$r" 10 'a2&0x4' 0; done
	ins postmaster 9 'a2&0x4' 0
	for r in postmaster 'client backend' 'descendant/client backend'; do
		for v in $(seq 1 65); do ins "$r" 72 a1 "$v"; done
	done
	ins 'client backend' 157 a0 '*'
	ins 'client backend' 28 a2 x
	ins postmaster 54 a1:a2 6:1
	echo "COMMIT;"
} | sqlite3 args.db
# surf.db: the score after argument rules (docs/hardening.md, "Attack
# surface"): setsockopt planted in the lists with values, (SOL_TCP,
# TCP_NODELAY) and (SOL_SOCKET, SO_KEEPALIVE) from the postmaster and the
# client backends, (SOL_TCP, TCP_ULP) from the postmaster only; and no
# clone3, so that clone's rule decides the user-namespace CVEs
cp x.db surf.db
{
	agg() { echo "INSERT INTO aggregates VALUES (1, '$1', 3221225534, 54, $2, 1796278851.7, 1796278851.8, 10552, '/usr/lib/postgresql/15/bin/postgres', '');"; }
	ins() { echo "INSERT INTO arg_values VALUES (1, '$1', 3221225534, 54, 'a1:a2', '$2', 1);"; }
	echo "BEGIN;"
	agg postmaster 3
	agg 'client backend' 2
	for v in 6:1 1:9; do ins postmaster $v; ins 'client backend' $v; done
	ins postmaster 6:31
	echo "DELETE FROM aggregates WHERE nr = 435;"
	echo "COMMIT;"
} | sqlite3 surf.db
