-- 004_process_uid.sql - the uid of each process (docs/schema.md,
-- docs/security.md).  The last uid= (the kernel's real uid, not chosen by
-- the process) of its records; NULL when no record of it carried one.
-- pgsc-collect --server-user takes a postgres binary run by another uid
-- for an ordinary program; a continued round reads the uid back with the
-- processes it seeds, so that the rule holds across a restart.
ALTER TABLE processes ADD COLUMN uid INTEGER;
