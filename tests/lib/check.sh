# SPDX-License-Identifier: PostgreSQL
# shellcheck shell=bash
# tests/lib/check.sh - what the report tests share: source it, then
# "result NAME OK [DETAIL]" counts one check (OK is 1 when it passed) in
# pass, fail and n, and says it; runc_bundle and runc_cleanup run a probe
# in a real container.
fail=0 pass=0 n=0
result() {
	n=$((n + 1))
	if [ "$2" = 1 ]; then
		pass=$((pass + 1)); echo "ok: $1"
	else
		fail=$((fail + 1)); echo "FAIL: $1${3:+: $3}"
	fi
}

# runc_cleanup DIR CID: the container CID of runc state DIR/runc, and DIR
runc_cleanup() {
	runc --root "$1/runc" delete -f "$2" >/dev/null 2>&1
	rm -rf "$1"
}

# runc_bundle PROBE.c: a static PROBE in ./bundle, with runc's default
# config.json; exits the test when it cannot.
runc_bundle() {
	gcc -static -O2 -o probe "$1" || { echo "FAIL: cannot build the static probe (libc6-dev)"; exit 1; }
	mkdir -p bundle/rootfs
	cp probe bundle/rootfs/
	(cd bundle && runc spec) || { echo "FAIL: runc spec"; exit 1; }
}
