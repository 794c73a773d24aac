# SPDX-License-Identifier: PostgreSQL
# tests/fleet/many-nodes.awk - a central log of N small hosts (awk -v N=):
# on each, a postmaster (pid 1000, exec'd by pid 1) that forks pid 1001,
# and 2 to 5 SECCOMP records (node i has 2 + i % 4) of the two, whose
# syscall numbers differ from node to node; the same pids and serials on
# every node, as real hosts have.  Lines are prefixed node=nNNNNNN, in node
# order.  Used by tests/fleet/many.sh and tests/bench/bench-fleet.sh.
#   -v TALLY=FILE  each node's own counts, as this program made them (the
#                  tests' independent side): "NODE RECORDS SESSION GAPS",
#                  SESSION the records of pid 1001, GAPS the serials left out
#   -v GAPS=1      every fifth node (i % 5 == 0) leaves out 1 + i % 3
#                  serials after its first SECCOMP record: a loss on the
#                  way that only that node's serial sequence shows
function rec(type, body) {
	s++
	printf "node=n%06d type=%s msg=audit(%d.%03d:%d): %s\n", i, type,
		t + int(s / 1000), s % 1000, 1000 + k, body
}
# 0-59 but 17 and 18: the audit table names them pread and pwrite, where
# the kernel and libseccomp say pread64 and pwrite64
function nr(i, j,   v) {
	v = (i * 7 + j * 13 + int(i / 97)) % 58
	return v < 17 ? v : v + 2
}
BEGIN {
	t = 1796278851
	ids = "auid=4294967295 uid=101 gid=104 euid=101 suid=101 fsuid=101 " \
	      "egid=104 sgid=104 fsgid=104 tty=(none) ses=4294967295 " \
	      "comm=\"postgres\" exe=\"/usr/lib/postgresql/15/bin/postgres\" " \
	      "key=\"pgsc\""
	for (i = 1; i <= N; i++) {
		n = 2 + i % 4
		hole = GAPS && i % 5 == 0 ? 1 + i % 3 : 0
		k = 0
		rec("SYSCALL", "arch=c000003e syscall=59 success=yes exit=0 " \
		    "a0=1 a1=2 a2=3 a3=0 items=2 ppid=1 pid=1000 " ids)
		k = 1
		rec("SYSCALL", "arch=c000003e syscall=56 success=yes " \
		    "exit=1001 a0=1200011 a1=0 a2=0 a3=0 items=0 ppid=1 " \
		    "pid=1000 " ids)
		for (j = 0; j < n; j++) {
			k = 2 + j + (j > 0 ? hole : 0)
			rec("SECCOMP", "auid=4294967295 uid=101 gid=104 " \
			    "ses=4294967295 pid=" (1000 + j % 2) \
			    " comm=\"postgres\" " \
			    "exe=\"/usr/lib/postgresql/15/bin/postgres\" " \
			    "sig=0 arch=c000003e syscall=" nr(i, j) \
			    " compat=0 ip=0x7f code=0x7ffc0000")
		}
		if (TALLY != "")
			printf "n%06d %d %d %d\n", i, n, int(n / 2), hole \
				>TALLY
	}
}
