-- Migration 002: a required literal per regex predicate (policy/prefilter.py), so evaluation
-- tests a cheap `contains` before compiling a pattern per row; the session's model on the
-- batch table is created by evaluate/batch_tables.sql.
ALTER TABLE conditions ADD COLUMN literal VARCHAR;
ALTER TABLE conditions ADD COLUMN literal_ci BOOLEAN DEFAULT false;
