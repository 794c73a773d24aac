#!/bin/bash
# SPDX-License-Identifier: PostgreSQL
# tests/hardening/biglog.sh COPIES LOG.gz... - a large real audit log on stdout.
#
# The recorded fixtures (tests/golden/*.log.gz) are small.  This writes
# COPIES copies of their concatenation, each copy of each fixture moved to
# its own time window and serial range (msg=audit(SEC.MSEC:SERIAL) is
# rewritten; everything else, pids included, is kept), so the result reads
# like one long recording of the same workloads repeated: the process tree
# sees pid reuse across copies, never two records with the same serial.
set -e
# shellcheck source=../lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
t_init biglog
[ $# -ge 2 ] || { echo "usage: biglog.sh COPIES LOG.gz..." >&2; exit 2; }
copies=$1
shift
T=$T_WORK
i=0
for gz in "$@"; do
	zcat "$gz" >"$T/$i.log"
	i=$((i + 1))
done
n=$i
# min/max second and serial of each fixture
for ((i = 0; i < n; i++)); do
	awk '{
		if (match($0, /msg=audit\([0-9]+\.[0-9]+:[0-9]+\)/)) {
			h = substr($0, RSTART + 10, RLENGTH - 11)
			split(h, a, /[.:]/)
			s = a[1] + 0; r = a[3] + 0
			if (!seen || s < smin) smin = s
			if (!seen || s > smax) smax = s
			if (!seen || r < rmin) rmin = r
			if (!seen || r > rmax) rmax = r
			seen = 1
		}
	} END { printf "%d %d %d %d\n", smin, smax, rmin, rmax }' "$T/$i.log" >"$T/$i.span"
done
base_t=1800000000
base_r=1000
for ((c = 0; c < copies; c++)); do
	for ((i = 0; i < n; i++)); do
		read -r smin smax rmin rmax <"$T/$i.span"
		awk -v dt=$((base_t - smin)) -v dr=$((base_r - rmin)) '{
			if (match($0, /msg=audit\([0-9]+\.[0-9]+:[0-9]+\)/)) {
				h = substr($0, RSTART + 10, RLENGTH - 11)
				split(h, a, /[.:]/)
				$0 = substr($0, 1, RSTART - 1) "msg=audit(" (a[1] + dt) "." a[2] ":" (a[3] + dr) ")" substr($0, RSTART + RLENGTH)
			}
			print
		}' "$T/$i.log"
		base_t=$((base_t + smax - smin + 30))
		base_r=$((base_r + rmax - rmin + 1000))
	done
done
