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

cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPGSC_WERROR=ON >/dev/null
cmake --build build -j"$(nproc)"
(cd build && ctest --output-on-failure)

cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DPGSC_SANITIZE=ON \
	-DPGSC_WERROR=ON -DPGSC_LIVE_TESTS=OFF >/dev/null
cmake --build build-asan -j"$(nproc)"
(cd build-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	ctest --output-on-failure -L 'unit|golden')

# libFuzzer harnesses, a bounded run each (docs/testing.md has long runs)
cmake -S . -B build-fuzz -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	-DPGSC_FUZZ=ON -DPGSC_WERROR=ON -DPGSC_LIVE_TESTS=OFF >/dev/null
cmake --build build-fuzz -j"$(nproc)"
(cd build-fuzz && ctest --output-on-failure -L fuzz)
