#!/bin/bash
# SPDX-License-Identifier: PostgreSQL
# tests/world/controls.sh - the workload of world.sh's hardening controls,
# run by pgsc-iterate (PGHOST and PGPORT name the installcheck server,
# which runs under the --no-programs lists with argument rules, both
# defaults error).  Each line of $PGSC_ITERATE_OUT/checks is a control
# and what it got; world.sh judges them.
#   packet      a plperlu function opens an AF_PACKET socket
#               (socket(17, SOCK_RAW, 0)): its errno, 0 if it opened
#   priority    ... sets SO_PRIORITY (SOL_SOCKET 1, 12) on a TCP socket
#   sol_packet  ... sets a SOL_PACKET option (263, 1) on a TCP socket
#               (a negative errno: the TCP socket itself was refused)
#   copy        COPY (SELECT 1) TO PROGRAM 'true': psql's output (the
#               child's refused call gets EPERM; glibc's popen() says
#               ENOMEM for any failed spawn)
#   after       SELECT 1 on a new connection: the server goes on
# None of these is something PostgreSQL does; socket and setsockopt are
# in the session list by name (the rounds' TCP), so only their argument
# rules can refuse the first three.  The rounds loaded plperl
# (scenarios:plperlu), so the language itself loads.
set -u
out=$PGSC_ITERATE_OUT/checks
q() { runuser -u postgres -- psql -X -A -t -q -d "$1" -c "$2" 2>&1; }
: >"$out"
{
	q postgres "CREATE DATABASE pgsc_controls"
	q pgsc_controls "CREATE EXTENSION plperlu"
	# shellcheck disable=SC2016 # Perl, not shell
	q pgsc_controls 'CREATE FUNCTION pgsc_control(text) RETURNS int LANGUAGE plperlu AS $pl$
my $k = shift;
if ($k eq "packet") { socket(my $p, 17, 3, 0) and return 0; return 0 + $!; }
socket(my $s, 2, 1, 0) or return -(0 + $!);
my ($level, $opt) = $k eq "priority" ? (1, 12) : (263, 1);
setsockopt($s, $level, $opt, pack("i", 1)) and return 0;
return 0 + $!;
$pl$'
} >"$out.log"
for k in packet priority sol_packet; do
	echo "$k $(q pgsc_controls "SELECT pgsc_control('$k')")" >>"$out"
done
echo "copy $(q pgsc_controls "COPY (SELECT 1) TO PROGRAM 'true'" | tr '\n' ' ')" >>"$out"
echo "after $(q postgres 'SELECT 1')" >>"$out"
exit 0
