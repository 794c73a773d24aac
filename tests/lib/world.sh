# SPDX-License-Identifier: PostgreSQL
# shellcheck shell=bash
# world.sh - the reduced PostgreSQL test world CI runs (sourced): the
# steps of tests/world/world.sh and tests/lists/shipped.sh.
# The regression suite (a few tests, write_parallel among them for
# parallel workers), an isolation subset, contrib/postgres_fdw, TAP
# src/test/recovery 001_stream_rep and src/test/subscription 001_rep_changes.
# shellcheck disable=SC2034
WORLD_CI_STEPS=regress:test_setup+boolean+int4+text+copydml+insert+write_parallel,isolation:deadlock-simple+eval-plan-qual+lock-update-delete+insert-conflict-do-update,contrib/postgres_fdw,src/test/recovery:001_stream_rep,src/test/subscription:001_rep_changes
