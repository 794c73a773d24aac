-- 001_init.sql - the first pgsc store schema.
-- Applied on open when PRAGMA user_version < 1 (see src/store.c and
-- docs/schema.md).  Times are unix seconds (REAL, millisecond precision,
-- as in the audit records).

-- One row per collection.  Every pgsc-collect invocation that finds new
-- data is a round; the report unions rounds and tells when one added
-- nothing new.
CREATE TABLE rounds (
    id            INTEGER PRIMARY KEY,
    label         TEXT,
    mode          TEXT NOT NULL,            -- 'import', later 'plugin', 'file', 'netlink'
    started       REAL NOT NULL,
    finished      REAL,
    records       INTEGER NOT NULL DEFAULT 0, -- SECCOMP records counted
    attributed    INTEGER NOT NULL DEFAULT 0, -- of those, in a server tree
    unrelated     INTEGER NOT NULL DEFAULT 0, -- outside every server tree
    standalone    INTEGER NOT NULL DEFAULT 0, -- postgres without postmaster
    unattributed  INTEGER NOT NULL DEFAULT 0, -- could not be placed
    rejected      INTEGER NOT NULL DEFAULT 0, -- lines refused
    lines         INTEGER NOT NULL DEFAULT 0,
    first_event   REAL,
    last_event    REAL
);

-- Imported inputs and how far they were read.  A file is known by a hash
-- of its first line (which holds a timestamp and serial), so a rotated
-- audit.log -> audit.log.1 is the same source; prefix_hash covers the
-- first and the last 4 KiB before "offset" and shows, cheaply, that the
-- file was only appended to.
CREATE TABLE sources (
    id            INTEGER PRIMARY KEY,
    fingerprint   TEXT NOT NULL UNIQUE,
    path          TEXT NOT NULL,            -- last path it was read from
    inode         INTEGER,
    offset        INTEGER NOT NULL,         -- bytes consumed (line boundary)
    lines         INTEGER NOT NULL,         -- lines consumed
    prefix_hash   TEXT NOT NULL,
    last_serial   INTEGER,
    last_event    REAL,
    first_round   INTEGER NOT NULL REFERENCES rounds(id),
    last_round    INTEGER NOT NULL REFERENCES rounds(id)
);

-- Processes seen in a round.  A process is its pid plus its birth: the
-- fork record's serial and time, or its first record when the fork was
-- not seen (birth_serial NULL).
CREATE TABLE processes (
    round_id      INTEGER NOT NULL REFERENCES rounds(id),
    pid           INTEGER NOT NULL,
    birth         REAL NOT NULL,
    birth_serial  INTEGER,
    ppid          INTEGER,                  -- NULL when unknown
    parent_known  INTEGER NOT NULL,         -- 1: from a fork record
    last_seen     REAL,
    exe           TEXT,
    comm          TEXT,
    title         TEXT,
    role          TEXT NOT NULL,
    records       INTEGER NOT NULL,
    exited        INTEGER NOT NULL,         -- 1: its exit was seen
    PRIMARY KEY (round_id, pid, birth)
);

-- What the lists are made of: one row per (round, role, arch, syscall).
CREATE TABLE aggregates (
    round_id      INTEGER NOT NULL REFERENCES rounds(id),
    role          TEXT NOT NULL,
    arch          INTEGER NOT NULL,         -- audit arch token
    nr            INTEGER NOT NULL,         -- syscall number on that arch
    count         INTEGER NOT NULL,
    first_seen    REAL NOT NULL,
    last_seen     REAL NOT NULL,
    example_pid   INTEGER,
    example_exe   TEXT,
    PRIMARY KEY (round_id, role, arch, nr)
);
CREATE INDEX aggregates_by_syscall ON aggregates (arch, nr);

-- Refused input, counted by reason.
CREATE TABLE rejects (
    round_id      INTEGER NOT NULL REFERENCES rounds(id),
    reason        TEXT NOT NULL,
    count         INTEGER NOT NULL,
    PRIMARY KEY (round_id, reason)
);

-- The first few refused lines of each round, for the user to look at.
-- "excerpt" is the start of the line, escaped, at most 200 bytes.
CREATE TABLE reject_samples (
    round_id      INTEGER NOT NULL REFERENCES rounds(id),
    reason        TEXT NOT NULL,
    source        TEXT,
    line          INTEGER,
    serial        INTEGER,
    excerpt       TEXT
);
