#!/bin/bash
# SPDX-License-Identifier: PostgreSQL
# setup.sh - the logs of the exit-code cases (tests/golden's recordings)
# in the work directory: raw (with the rules), norules (without, no
# hints), norules-pmpid (without, a postmaster pid as hint), the raw log
# cut at its serial gap, the norules log again as a second round.
# shellcheck source-path=SCRIPTDIR source=../../lib/common.sh
. "$TESTS/lib/common.sh"
need_progs python3 zcat
[ -w /dev/full ] || fail "/dev/full is missing"
zcat "$TESTS/golden/norules.log.gz" >norules.log
zcat "$TESTS/golden/raw.log.gz" >raw.log
zcat "$TESTS/golden/norules-pmpid.log.gz" >pmpid.log
# the recorded raw log lacks one serial near its end (record.sh dropped
# its sync marker): rawc.log is its part before the gap
awk '{ s = $0; sub(/.*msg=audit\([0-9.]*:/, "", s); sub(/\).*/, "", s)
	if (NR > 1 && s + 0 > prev + 1) exit; if (s + 0 > prev) prev = s + 0; print }' raw.log >rawc.log
# a second round repeating the first
cp norules.log norules2.log; echo >>norules2.log
echo "global_syscall_allow = 'read'" >g.conf
