-- 010_arg_values.sql - the argument values pgsc-collect --args collects
-- (docs/args.md): per round and role, for each call of a fixed set
-- (socket, setsockopt, ioctl, clone...), the values of the arguments its
-- key names and how many records had them.  pgsc-report --args prints
-- them as argument rules.  A store of version 9 or older has no such
-- values: its reports print names only, as before.
CREATE TABLE arg_values (
    round_id      INTEGER NOT NULL REFERENCES rounds(id),
    role          TEXT NOT NULL,
    arch          INTEGER NOT NULL,
    nr            INTEGER NOT NULL,
    args          TEXT NOT NULL,   -- the key: "a0:a1&0xf", "a1"...
    vals          TEXT NOT NULL,   -- decimal values joined by ':', '*' any
    count         INTEGER NOT NULL,
    PRIMARY KEY (round_id, role, arch, nr, args, vals)
);
