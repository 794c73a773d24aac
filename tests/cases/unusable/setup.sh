#!/bin/bash
# SPDX-License-Identifier: PostgreSQL
# setup.sh - the inputs of the unusable-result cases (report/unusable) in
# the work directory: the recorded raw log, the same without its SECCOMP
# records, a log of foreign programs only (root's python3, cat, seq and sh,
# never children of a server), an empty file to follow, a node= log with a
# node of foreign records, a postmaster whose child has no type, a FIFO, the
# recorded server without the rules beside 11000 records of noise programs.
# shellcheck source-path=SCRIPTDIR source=../../lib/common.sh
. "$TESTS/lib/common.sh"
need_progs python3 sqlite3 mkfifo zcat
echo "global_syscall_allow = 'read,write'
session_syscall_allow = 'read'" >good.guc
zcat "$TESTS/golden/raw.log.gz" >raw.log
grep -v 'type=SECCOMP' raw.log | tail -n 500 >noseccomp.log
awk 'BEGIN { split("python3 cat seq sh", p, " ");
	for (i = 0; i < 400; i++) {
		c = p[i % 4 + 1];
		printf "type=SECCOMP msg=audit(1796252190.%03d:%d): auid=0 uid=0 gid=0 ses=3 pid=%d comm=\"%s\" exe=\"/usr/bin/%s\" sig=0 arch=c000003e syscall=%d compat=0 ip=0x7f5670d054e7 code=0x7ffc0000\n", i % 1000, i + 1, 9000 + i % 7, c, c, i % 13
	} }' >foreign.log
: >live.log
zcat "$TESTS/golden/node.log.gz" >node.log
sed 's/^/node=noise /' foreign.log >>node.log
# a postmaster and a child whose type nothing tells (no title, no server
# log)
pm='auid=4294967295 uid=101 gid=104 ses=4294967295'
pgexe='comm="postgres" exe="/usr/lib/postgresql/15/bin/postgres"'
{
	echo "type=SECCOMP msg=audit(1796252190.001:1): $pm pid=4000 $pgexe sig=0 arch=c000003e syscall=43 compat=0 ip=0x7f5670d054e7 code=0x7ffc0000"
	echo "type=SYSCALL msg=audit(1796252190.002:2): arch=c000003e syscall=56 success=yes exit=4001 a0=0 a1=0 a2=0 a3=8 items=0 ppid=1 pid=4000 auid=4294967295 uid=101 gid=104 euid=101 suid=101 fsuid=101 egid=104 sgid=104 fsgid=104 tty=(none) ses=4294967295 $pgexe key=\"pgsc\""
	for i in 3 4 5; do
		echo "type=SECCOMP msg=audit(1796252190.00$i:$i): $pm pid=4001 $pgexe sig=0 arch=c000003e syscall=$((i - 3)) compat=0 ip=0x7f5670d054e7 code=0x7ffc0000"
	done
} >untyped.log
mkfifo fifo
: >empty.log
# noise beside a server: the noise's serials follow the recording's, as
# the kernel's would
zcat "$TESTS/golden/norules-pglog.log.gz" >pg.audit
zcat "$TESTS/golden/norules-pglog.pglog.gz" >pg.log
t0=$(head -1 pg.audit | sed -n 's/.*msg=audit(\([0-9]*\)\..*/\1/p')
s0=$(sed -n 's/.*msg=audit([0-9.]*:\([0-9]*\)).*/\1/p' pg.audit | sort -n | tail -n 1)
awk -v t0="$t0" -v s0="$s0" 'BEGIN { split("python3 cat seq sh", p, " ");
	for (i = 0; i < 11000; i++) {
		c = p[i % 4 + 1];
		printf "type=SECCOMP msg=audit(%d.%03d:%d): auid=0 uid=0 gid=0 ses=3 pid=%d comm=\"%s\" exe=\"/usr/bin/%s\" sig=0 arch=c000003e syscall=%d compat=0 ip=0x7f5670d054e7 code=0x7ffc0000\n", t0, i % 1000, s0 + 1 + i, 30000 + i % 50, c, c, (i % 3 == 0) ? 101 : 165
	} }' >noise.log
cat pg.audit noise.log >noisy.audit
