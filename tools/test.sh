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
# its error, if this did not.
mkdir -p build
(bash tools/pg-root --suite trixie --with-world &&
	bash tools/pg-root --suite sid --with-world &&
	nice -n 10 bash tools/pgsc-world-root --suite trixie -- prepare &&
	nice -n 10 bash tools/pgsc-world-root --suite sid -- prepare) >build/pg-root.log 2>&1 &
ROOTS=$!

cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPGSC_WERROR=ON >/dev/null
cmake --build build -j"$(nproc)"
# two at a time (nproc): a test that takes the audit lock, starts servers
# under log filters or kills at chosen moments is RUN_SERIAL
# (tests/CMakeLists.txt) and runs alone; the others pair up
(cd build && ctest --output-on-failure -j"$(nproc)")

cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DPGSC_SANITIZE=ON \
	-DPGSC_WERROR=ON -DPGSC_LIVE_TESTS=OFF >/dev/null
cmake --build build-asan -j"$(nproc)"
# two at a time: these tests take no audit lock and share no file (the
# lint checks read text and objects, not the instrumented code: not rerun)
(cd build-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	ctest --output-on-failure -j"$(nproc)" -L 'unit|golden' -E '^lint/')

# libFuzzer harnesses, a bounded run each (docs/testing.md has long runs)
cmake -S . -B build-fuzz -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	-DPGSC_FUZZ=ON -DPGSC_WERROR=ON -DPGSC_LIVE_TESTS=OFF >/dev/null
cmake --build build-fuzz -j"$(nproc)"
# one at a time: two harnesses at once took longer (412 s against 361 s)
(cd build-fuzz && ctest --output-on-failure -L fuzz)
wait "$ROOTS" || true
