-- 005_process_node.sql - the node of each process (docs/schema.md,
-- docs/security.md).  The node= name of its records (a log gathering
-- several hosts' auditd); NULL for the local host (records without node=).
-- The process tree keys processes by (node, pid): a continued round reads
-- the node back with the processes it seeds and their open counts, so
-- that another host's process never takes a local process's pid.
ALTER TABLE processes ADD COLUMN node TEXT;
ALTER TABLE open_counts ADD COLUMN node TEXT;
