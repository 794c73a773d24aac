-- 002_live.sql - live collection: who writes a round, and what may be
-- missing from it (docs/live.md).
ALTER TABLE rounds ADD COLUMN source TEXT;           -- 'file:/var/log/audit/audit.log', 'netlink', 'plugin'
ALTER TABLE rounds ADD COLUMN collector_pid INTEGER; -- the pgsc-collect writing it
ALTER TABLE rounds ADD COLUMN last_commit REAL;
ALTER TABLE rounds ADD COLUMN command TEXT;          -- wrap mode: the command run
ALTER TABLE rounds ADD COLUMN exit_status INTEGER;   -- wrap mode: its exit status
-- Loss accounting.  NULL: not measured by this source.
ALTER TABLE rounds ADD COLUMN kernel_lost_start INTEGER;
ALTER TABLE rounds ADD COLUMN kernel_lost_end INTEGER;
ALTER TABLE rounds ADD COLUMN backlog_wait_start INTEGER; -- backlog_wait_time_actual
ALTER TABLE rounds ADD COLUMN backlog_wait_end INTEGER;
ALTER TABLE rounds ADD COLUMN serial_gaps INTEGER NOT NULL DEFAULT 0;
ALTER TABLE rounds ADD COLUMN rotation_gaps INTEGER NOT NULL DEFAULT 0;
ALTER TABLE rounds ADD COLUMN drain_timeouts INTEGER NOT NULL DEFAULT 0;
ALTER TABLE rounds ADD COLUMN restarts INTEGER NOT NULL DEFAULT 0;

-- Each event behind the counters above, for the user to look at.
CREATE TABLE gaps (
    round_id      INTEGER NOT NULL REFERENCES rounds(id),
    kind          TEXT NOT NULL,      -- 'rotation', 'serial', 'kernel-lost', 'drain', 'restart'
    at            REAL NOT NULL,
    detail        TEXT
);
