#!/bin/bash
# SPDX-License-Identifier: PostgreSQL
# setup.sh - the inputs of the bad-input cases that are no fixture file: a
# FIFO, a directory without logs, a real log (tests/golden/raw.log.gz).
# shellcheck source-path=SCRIPTDIR source=../../lib/common.sh
. "$TESTS/lib/common.sh"
need_progs sqlite3 mkfifo timeout zcat
mkfifo fifo
mkdir dir
zcat "$TESTS/golden/raw.log.gz" >raw.log
