-- 003_open_counts.sql - what a live commit wrote for processes still open
-- (docs/schema.md, docs/robustness.md).  A live commit stores the counts
-- of every process not folded yet under the role it has at that moment,
-- which may still change (a child whose fork record has not come yet is
-- "unattributed").  These rows are those counts, one per process and
-- syscall, with the role they were committed under; they are replaced at
-- every commit, in the same transaction as the aggregates.  A collector
-- that continues a crashed round takes them out of the committed
-- aggregates again and gives them back to their processes, so that their
-- roles are computed afresh.
CREATE TABLE open_counts (
    round_id      INTEGER NOT NULL REFERENCES rounds(id),
    pid           INTEGER NOT NULL,
    birth         REAL NOT NULL,      -- as processes.birth
    role          TEXT NOT NULL,      -- the aggregates' role of these counts
    arch          INTEGER NOT NULL,
    nr            INTEGER NOT NULL,
    pending       INTEGER NOT NULL,   -- 1: records still kept one by one (first_seen = their time)
    count         INTEGER NOT NULL,
    first_seen    REAL NOT NULL,
    last_seen     REAL NOT NULL,
    PRIMARY KEY (round_id, pid, birth, pending, arch, nr, first_seen)
);
