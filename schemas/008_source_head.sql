-- 008_source_head.sql - a source is known by its head, not by its first
-- line alone (issue 25 F3).  Two different logs may start with the same
-- line (every ausearch output starts with "----"), and with the first
-- line as the identity the second was taken for the first and dropped.
-- head_len is how many bytes of the file's (decoded) start were hashed
-- when it was first read, at most 64 KiB; head_hash is the 128-bit hash
-- of those bytes (two FNV-1a based halves, util_hash() with two seeds).
-- A file is this source when its own first head_len bytes hash the same;
-- a file that grew since keeps its identity, and a different file with
-- the same first line becomes a source of its own, its fingerprint the
-- first line's hash followed by "/N" (docs/schema.md).  Rows written
-- before 008 have no head (NULL): they keep the first-line rule until a
-- later import of the same file gives them one.
ALTER TABLE sources ADD COLUMN head_len INTEGER;
ALTER TABLE sources ADD COLUMN head_hash TEXT;
