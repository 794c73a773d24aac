/* pgsc--1.0.sql - the SQL objects of the pgsc module (docs/module.md). */

\echo Use "CREATE EXTENSION pgsc" to load this file. \quit

-- One row per listed syscall of the global and the session filter, with
-- its action after precedence (kill > error > log > allow), and a row
-- "<default>" (syscallnum NULL) per context for the default action.
-- syscallnum is libseccomp's number on the native arch; a negative one is
-- a placeholder for a call this arch lacks (no rule is loaded for it).
-- arg_rule is the argument rule of the name ("a0=1|2", docs/module.md,
-- "Argument rules"): the action applies when it matches, the default
-- otherwise; NULL for a name without one.
CREATE FUNCTION pgsc_filter(
	OUT syscall text,
	OUT syscallnum int,
	OUT filter_action text,
	OUT context text,
	OUT arg_rule text)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'pgsc_filter'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED;
