-- 011_node_loss.sql - the loss figures of each node of a central log
-- (docs/fleet.md): each node's kernel numbers its own events, so its
-- serial gaps are its own (src/serials.c keeps a sequence per node).
-- untracked: records of a node past the bound of serial sequences (64 MiB
-- of windows), whose gaps cannot be known: a loss figure of its own, so
-- that a fleet too large to track is never reported complete.  A row per
-- round and node with a figure that is not 0; a node without a row has
-- none.  Rounds from before 011 have no rows: their serial gaps are the
-- whole log's, and the report counts them for every node (never less
-- loss than there may be).
CREATE TABLE node_loss (
    round_id      INTEGER NOT NULL REFERENCES rounds(id),
    node          TEXT NOT NULL,     -- node= name, '' = local host
    serial_gaps   INTEGER NOT NULL,
    untracked     INTEGER NOT NULL,
    PRIMARY KEY (round_id, node)
);
