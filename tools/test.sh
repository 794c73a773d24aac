#!/bin/bash
# SPDX-License-Identifier: PostgreSQL
# test.sh - set up a fresh Debian 12 machine and run every pgsc test:
# unit, golden and live (real kernel, private auditd, real PostgreSQL),
# then the unit and golden tests again under ASan/UBSan, and a bounded
# run of each libFuzzer harness.  Run as root.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

bash tools/install-deps.sh

# The Debian roots of PostgreSQL 17 and 18 (tools/pg-root: debootstrap and
# apt, mostly waiting on the network) are made in the background while
# pgsc builds and its first tests run, and so, at nice 10, is each
# version's test world (tools/pgsc-world-root prepare: the source package,
# configured and its test parts built).  The tests that use them
# (module/pg17, module/pg18, matrix/glibc, matrix/sid, world/pg17,
# world/pg18) wait on a root's locks, and make it themselves, failing with
# its error, if this did not.  Beside them, the two Debian 12 roots
# (about a minute each): report/systemd-boot's, booted with systemd, and
# package/debian's, each under its own lock.
mkdir -p build
(bash tools/pg-root --suite trixie --with-world &&
	bash tools/pg-root --suite sid --with-world &&
	nice -n 10 bash tools/pgsc-world-root --suite trixie -- prepare &&
	nice -n 10 bash tools/pgsc-world-root --suite sid -- prepare) >build/pg-root.log 2>&1 &
ROOTS=$!
(bash tools/pg-root --suite bookworm --with-systemd >/dev/null &&
	bash tests/package/run.sh "$top" --prepare-only) >build/pg-root-12.log 2>&1 &
ROOTS12=$!

cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPGSC_WERROR=ON >/dev/null
cmake --build build -j"$(nproc)"

# The ASan/UBSan tree and the libFuzzer tree are built, and each fuzz
# harness run for its bounded count, beside the main tests at nice 19:
# most of those run alone (RUN_SERIAL) and wait on servers, auditd and
# timeouts, which leaves a CPU idle.  No harness loads a seccomp filter,
# so none makes a SECCOMP record in an audit test's store; the ASan tests
# do (pgsc-exec, the self-filter) and run after the main tests.  Each
# side job's output is in build/side-*.log, shown at the end.
side() { # side NAME COMMAND...: COMMAND at nice 19 in its own process group
	local name=$1
	shift
	setsid -w nice -n 19 "$@" >"build/side-$name.log" 2>&1 </dev/null &
}
side asan bash -c 'cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DPGSC_SANITIZE=ON \
	-DPGSC_WERROR=ON -DPGSC_LIVE_TESTS=OFF >/dev/null && cmake --build build-asan -j2'
ASAN=$!
# one harness at a time: two at once took longer (412 s against 361 s)
side fuzz bash -c 'cmake -S . -B build-fuzz -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	-DPGSC_FUZZ=ON -DPGSC_WERROR=ON -DPGSC_LIVE_TESTS=OFF >/dev/null && cmake --build build-fuzz -j2 &&
	cd build-fuzz && ctest --output-on-failure -L fuzz'
FUZZ=$!
# the tests labelled "side" (tests/CMakeLists.txt: files only, no lock,
# server or filter), one at a time
side files bash -c 'cd build && ctest --output-on-failure -L side'
FILES=$!
# side_end NAME PID: wait for a side job at full priority; its log, and
# its failure
side_end() {
	local rc=0
	renice -n 0 -g "$2" >/dev/null 2>&1 || true
	wait "$2" || rc=$?
	if [ "$rc" != 0 ]; then
		cat "build/side-$1.log"
		echo "test.sh: the $1 side job failed (exit $rc)" >&2
		exit 1
	fi
	grep -E 'tests passed|Total Test time' "build/side-$1.log" || true
}

# two at a time (nproc): a test that takes the audit lock, starts servers
# under log filters or kills at chosen moments is RUN_SERIAL
# (tests/CMakeLists.txt) and runs alone; the others pair up
rc=0
(cd build && ctest --output-on-failure -j"$(nproc)" -LE side) || rc=$?
if [ "$rc" != 0 ]; then
	kill -- -"$ASAN" -"$FUZZ" -"$FILES" 2>/dev/null || true
	exit "$rc"
fi
side_end files "$FILES"

side_end asan "$ASAN"
# two at a time: these tests take no audit lock and share no file (the
# lint checks read text and objects, not the instrumented code: not rerun)
(cd build-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	ctest --output-on-failure -j"$(nproc)" -L 'unit|golden' -E '^lint/')

# libFuzzer harnesses, a bounded run each (docs/testing.md has long runs)
side_end fuzz "$FUZZ"
wait "$ROOTS" || true
wait "$ROOTS12" || true
