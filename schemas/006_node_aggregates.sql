-- 006_node_aggregates.sql - the node in the aggregates and in every key
-- that names a process (docs/schema.md, docs/fleet.md).  A log gathering
-- several hosts' auditd (node=NAME on every record) gives each host its
-- own aggregates, so that pgsc-report --node NAME prints that host's
-- lists and the fleet-wide lists are their union.
--
-- The local host (records without node=) is node '' in every table from
-- this version on: a key column cannot hold NULL for an upsert's conflict
-- target, and one spelling for the local host in every table keeps the
-- reads simple.  processes.node and open_counts.node (005) were NULL for
-- it and become ''.  A store of version 5 or older held only what the
-- collector read as it is: its aggregates become the local host's (''),
-- its processes keep the node they had.
--
-- SQLite cannot change a primary key in place: each table is copied into
-- a new one with the node in its key, then renamed.  The node stays the
-- last column, where 005 added it.

CREATE TABLE aggregates_006 (
    round_id      INTEGER NOT NULL REFERENCES rounds(id),
    role          TEXT NOT NULL,
    arch          INTEGER NOT NULL,
    nr            INTEGER NOT NULL,
    count         INTEGER NOT NULL,
    first_seen    REAL NOT NULL,
    last_seen     REAL NOT NULL,
    example_pid   INTEGER,
    example_exe   TEXT,
    node          TEXT NOT NULL DEFAULT '',  -- node= name, '' = local host
    PRIMARY KEY (round_id, node, role, arch, nr)
);
INSERT INTO aggregates_006 (round_id, role, arch, nr, count, first_seen,
                            last_seen, example_pid, example_exe, node)
    SELECT round_id, role, arch, nr, count, first_seen, last_seen,
           example_pid, example_exe, '' FROM aggregates;
DROP TABLE aggregates;
ALTER TABLE aggregates_006 RENAME TO aggregates;
CREATE INDEX aggregates_by_syscall ON aggregates (arch, nr);

CREATE TABLE processes_006 (
    round_id      INTEGER NOT NULL REFERENCES rounds(id),
    pid           INTEGER NOT NULL,
    birth         REAL NOT NULL,
    birth_serial  INTEGER,
    ppid          INTEGER,
    parent_known  INTEGER NOT NULL,
    last_seen     REAL,
    exe           TEXT,
    comm          TEXT,
    title         TEXT,
    role          TEXT NOT NULL,
    records       INTEGER NOT NULL,
    exited        INTEGER NOT NULL,
    uid           INTEGER,
    node          TEXT NOT NULL DEFAULT '',  -- node= name, '' = local host
    PRIMARY KEY (round_id, node, pid, birth)
);
INSERT INTO processes_006 (round_id, node, pid, birth, birth_serial, ppid,
                           parent_known, last_seen, exe, comm, title, role,
                           records, exited, uid)
    SELECT round_id, coalesce(node, ''), pid, birth, birth_serial, ppid,
           parent_known, last_seen, exe, comm, title, role, records,
           exited, uid FROM processes;
DROP TABLE processes;
ALTER TABLE processes_006 RENAME TO processes;

CREATE TABLE open_counts_006 (
    round_id      INTEGER NOT NULL REFERENCES rounds(id),
    pid           INTEGER NOT NULL,
    birth         REAL NOT NULL,
    role          TEXT NOT NULL,
    arch          INTEGER NOT NULL,
    nr            INTEGER NOT NULL,
    pending       INTEGER NOT NULL,
    count         INTEGER NOT NULL,
    first_seen    REAL NOT NULL,
    last_seen     REAL NOT NULL,
    node          TEXT NOT NULL DEFAULT '',  -- as processes.node
    PRIMARY KEY (round_id, node, pid, birth, pending, arch, nr, first_seen)
);
INSERT INTO open_counts_006 (round_id, node, pid, birth, role, arch, nr,
                             pending, count, first_seen, last_seen)
    SELECT round_id, coalesce(node, ''), pid, birth, role, arch, nr,
           pending, count, first_seen, last_seen FROM open_counts;
DROP TABLE open_counts;
ALTER TABLE open_counts_006 RENAME TO open_counts;
